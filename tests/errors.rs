//! Bad input never panics and never hangs: a table of bad scenarios and scripts, each run as a
//! user runs it, with the exit status and the words its message must contain.

mod common;

/// One bad input. `toml` is the scenario (`None`: a scenario file that does not exist);
/// `script` is written as `w.lua` beside it.
struct Case {
    name: &'static str,
    toml: Option<&'static str>,
    script: Option<&'static str>,
    args: &'static [&'static str],
    check: bool,
    code: i32,
    words: &'static [&'static str],
}

/// A 4-rank ring running `w.lua`.
const FOUR: Option<&str> = Some("[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n");
const TWO: Option<&str> = Some("[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n");

const fn scenario(name: &'static str, toml: &'static str, words: &'static [&'static str]) -> Case {
    Case {
        name,
        toml: Some(toml),
        script: None,
        args: &[],
        check: false,
        code: 1,
        words,
    }
}

const fn script(
    name: &'static str,
    toml: Option<&'static str>,
    lua: &'static str,
    words: &'static [&'static str],
) -> Case {
    Case {
        name,
        toml,
        script: Some(lua),
        args: &[],
        check: false,
        code: 1,
        words,
    }
}

const CASES: &[Case] = &[
    // ---- sizes past what the model counts say so, not that a packet does not fit ----
    scenario(
        "a router buffer larger than the model counts",
        "[network]\ndims = [2]\nbuffer_bytes = '8 GiB'\n[workload]\ncode = 'x = 1'\n",
        &[
            "key `network.buffer_bytes`",
            "8 GiB is more than a buffer may hold in this model",
            "4294967295 bytes",
        ],
    ),
    scenario(
        "an output buffer larger than the model counts",
        "[network]\ndims = [2]\noutput_buffer_bytes = '3 GiB'\n[workload]\ncode = 'x = 1'\n",
        &["key `network.output_buffer_bytes`", "3 GiB is more than an output buffer may hold"],
    ),
    // ---- a script's errors name the user's own line and the function the user called ----
    script(
        "a syntax error at the script's own last line",
        TWO,
        "local x = \nMGEN_Comp(\n",
        &["w.lua:3: unexpected symbol near <eof>"],
    ),
    script(
        "an unclosed function, said as Lua says it",
        TWO,
        "local function f()\n  MGEN_Comp(1)\n",
        &["w.lua:3: 'end' expected (to close 'function' at line 1) near <eof>"],
    ),
    script(
        "MGEN_Send's error names MGEN_Send",
        TWO,
        "MGEN_Send(1 - MGEN_Comm_rank(), 64)",
        &["w.lua:1: MGEN_Send: `tag` must be an integer, got nil"],
    ),
    script(
        "MGEN_Recv's error names MGEN_Recv",
        TWO,
        "if MGEN_Comm_rank() == 0 then MGEN_Send(1, 64, 0) else MGEN_Recv(0, 8, 0) end",
        &["w.lua:1: MGEN_Recv: a message of 64 bytes from rank 0 (tag 0) is longer than its receive"],
    ),
    // ---- scenarios: unknown keys, with a suggestion ----
    scenario(
        "misspelt key",
        "[network]\nlink_bandwith = '4 GB/s'\n[workload]\ncode = ''\n",
        &["bad.toml:2:", "`network.link_bandwith`", "did you mean `link_bandwidth`?"],
    ),
    scenario(
        "misspelt table",
        "[netwrok]\ndims = [4]\n[workload]\ncode = ''\n",
        &["bad.toml:1:", "`netwrok`", "did you mean `network`?"],
    ),
    scenario(
        "key in the wrong table",
        "[network]\ndma_bandwidth = '1 GB/s'\n[workload]\ncode = ''\n",
        &["`network.dma_bandwidth`", "belongs in [node]"],
    ),
    scenario(
        "section key at the top",
        "dims = [4]\n[workload]\ncode = ''\n",
        &["bad.toml:1:", "`dims`", "belongs in [network]"],
    ),
    scenario(
        "stranger key lists what is allowed",
        "[node]\ncolour = 'blue'\n[workload]\ncode = ''\n",
        &["`node.colour`", "unknown key", "dma_bandwidth", "eager_limit"],
    ),
    // ---- wrong types and bad units ----
    scenario(
        "dims as a string",
        "[network]\ndims = '8x8'\n[workload]\ncode = ''\n",
        &["bad.toml:2:", "`network.dims`", "expected a list"],
    ),
    scenario(
        "unknown time unit",
        "[network]\ncable_latency = '3 parsecs'\n[workload]\ncode = ''\n",
        &["`network.cable_latency`", "parsecs", "ps, ns, us"],
    ),
    scenario(
        "bandwidth without a unit",
        "[network]\nlink_bandwidth = 4\n[workload]\ncode = ''\n",
        &["`network.link_bandwidth`", "\"4.0 GB/s\""],
    ),
    scenario(
        "negative size",
        "[network]\nmtu = -5\n[workload]\ncode = ''\n",
        &["`network.mtu`", "must not be negative"],
    ),
    scenario(
        "unknown topology",
        "[network]\ntopology = 'tourus'\n[workload]\ncode = ''\n",
        &["`network.topology`", "`torus`", "`mesh`"],
    ),
    scenario(
        "limit of the wrong type",
        "[limits]\ninstructions = 'many'\n[workload]\ncode = ''\n",
        &["`limits.instructions`", "whole number"],
    ),
    scenario(
        "TOML syntax",
        "[network\ndims = [4]\n",
        &["bad.toml", "TOML parse error at line 1"],
    ),
    // ---- values out of range ----
    scenario(
        "zero bandwidth",
        "[network]\nlink_bandwidth = '0 GB/s'\n[workload]\ncode = ''\n",
        &["`network.link_bandwidth`", "greater than zero"],
    ),
    scenario(
        "zero bandwidth of a link class",
        "[network]\ntopology = 'fattree'\nradix = 4\nlevels = 3\n\
         level_link_bandwidth = ['4 GB/s', '0 GB/s']\n[workload]\ncode = ''\n",
        &["`network.level_link_bandwidth`", "greater than zero"],
    ),
    scenario(
        "too few virtual channels for the torus's datelines",
        "[network]\nvcs = 1\n[workload]\ncode = ''\n",
        &["`network.vcs`", "2 virtual channel classes", "2 to 8"],
    ),
    scenario(
        "too many virtual channels",
        "[network]\ntopology = 'mesh'\ndims = [4]\nvcs = 9\n[workload]\ncode = ''\n",
        &["`network.vcs`", "1 to 8"],
    ),
    scenario(
        "an unknown router",
        "[network]\nrouter = 'wormhole'\n[workload]\ncode = ''\n",
        &["network.router", "input_queued", "output_queued"],
    ),
    scenario(
        "an output buffer smaller than a packet",
        "[network]\noutput_buffer_bytes = '1 KiB'\n[workload]\ncode = ''\n",
        &["`network.output_buffer_bytes`", "one whole packet"],
    ),
    scenario(
        "output buffers on an output-queued router",
        "[network]\nrouter = 'output_queued'\noutput_buffer_bytes = '4 KiB'\n[workload]\ncode = ''\n",
        &["`network.output_buffer_bytes`", "output-queued"],
    ),
    scenario(
        "zero dimension",
        "[network]\ndims = [4, 0]\n[workload]\ncode = ''\n",
        &["`network.dims`", "at least 1"],
    ),
    scenario(
        "seven dimensions",
        "[network]\ndims = [2, 2, 2, 2, 2, 2, 2]\n[workload]\ncode = ''\n",
        &["`network.dims`", "7 dimensions", "1 to 6"],
    ),
    scenario(
        "more ranks than nodes",
        "[network]\ndims = [4, 4]\n[workload]\ncode = ''\nranks = 100\n",
        &["`workload.ranks`", "100 ranks do not fit on 16 nodes"],
    ),
    // ---- topologies, placement, jobs ----
    scenario(
        "routing of another topology",
        "[network]\ntopology = 'torus'\nrouting = 'valiant'\n[workload]\ncode = ''\n",
        &["bad.toml:3:", "`network.routing`", "`valiant` is not a routing of topology `torus`", "dimension_order"],
    ),
    scenario(
        "fat-tree key on a torus",
        "[network]\ntopology = 'torus'\nradix = 8\n[workload]\ncode = ''\n",
        &["bad.toml:3:", "`network.radix`", "is a key of a fat tree"],
    ),
    scenario(
        "dims on a fat tree",
        "[network]\ntopology = 'fattree'\ndims = [4]\n[workload]\ncode = ''\n",
        &["`network.dims`", "not of topology `fattree`"],
    ),
    scenario(
        "odd radix",
        "[network]\ntopology = 'fattree'\nradix = 7\n[workload]\ncode = ''\n",
        &["`network.radix`", "7 is out of range", "even"],
    ),
    scenario(
        "fat tree up ports at the top",
        "[network]\ntopology = 'fattree'\ndown_ports = [4, 4]\nup_ports = [4, 4]\n[workload]\ncode = ''\n",
        &["`network.up_ports`", "end the list with 0"],
    ),
    scenario(
        "too many dragonfly groups",
        "[network]\ntopology = 'dragonfly'\nrouters_per_group = 2\nglobal_links_per_router = 1\ngroups = 9\n[workload]\ncode = ''\n",
        &["`network.groups`", "9 groups cannot all be linked", "at most 3 groups"],
    ),
    scenario(
        "Tofu with six dimensions",
        "[network]\ntopology = 'tofu'\ndims = [2, 2, 2, 2, 3, 2]\n[workload]\ncode = ''\n",
        &["`network.dims`", "Tofu takes the outer [x, y, z]"],
    ),
    scenario(
        "NICs that do not share out",
        "[network]\ntopology = 'dragonfly'\n[node]\nnics_per_node = 4\n[workload]\ncode = ''\n",
        &["`node.nics_per_node`", "342 NIC ports cannot be shared out 4 to a node"],
    ),
    scenario(
        "more ranks than slots",
        "[network]\ndims = [4]\n[node]\nranks_per_node = 2\n[workload]\ncode = ''\nranks = 9\n",
        &["`workload.ranks`", "9 ranks do not fit on 4 nodes", "node.ranks_per_node"],
    ),
    scenario(
        "unknown placement policy",
        "[network]\ndims = [4]\n[placement]\npolicy = 'spiral'\n[workload]\ncode = ''\n",
        &["bad.toml:4:", "`placement.policy`", "spiral", "linear"],
    ),
    scenario(
        "placement map missing",
        "[network]\ndims = [4]\n[placement]\nfile = 'nomap.txt'\n[workload]\ncode = ''\n",
        &["`placement.file`", "cannot read", "nomap.txt"],
    ),
    scenario(
        "a job without ranks",
        "[network]\ndims = [4]\n[[job]]\ncode = ''\nranks = 2\n[[job]]\nname = 'b'\ncode = ''\n",
        &["bad.toml:6:", "`job[1].ranks`", "missing", "each says how many ranks"],
    ),
    scenario(
        "jobs that do not fit",
        "[network]\ndims = [4]\n[[job]]\ncode = ''\nranks = 3\n[[job]]\ncode = ''\nranks = 2\n",
        &["`job[1].ranks`", "2 ranks do not fit: 1 free slots are left"],
    ),
    scenario(
        "misspelt key in a job",
        "[network]\ndims = [4]\n[[job]]\ncode = ''\nranks = 2\n[[job]]\nscrpt = 'x.lua'\nranks = 2\n",
        &["bad.toml:7:", "`job[1].scrpt`", "did you mean `script`?"],
    ),
    scenario(
        "workload and jobs",
        "[network]\ndims = [4]\n[workload]\ncode = ''\n[[job]]\ncode = ''\nranks = 2\n",
        &["`job`", "either one [workload] or several [[job]]"],
    ),
    script(
        "NIC out of range",
        FOUR,
        "MGEN_rdma_put(1, 8, 0, 1)",
        &["w.lua:1:", "MGEN_rdma_put", "`nic` = 1 is not a NIC of this node", "0 to 0"],
    ),
    scenario(
        "network larger than the machine",
        "[network]\ndims = [600, 600, 600]\n[workload]\ncode = ''\n",
        &["`network.dims`", "216000000 nodes", "more than the memory this machine has available"],
    ),
    scenario(
        "MTU smaller than the header",
        "[network]\nmtu = '8 B'\n[workload]\ncode = ''\n",
        &["`network.mtu`", "smaller than a packet's header"],
    ),
    scenario(
        "buffer smaller than a packet",
        "[network]\nbuffer_bytes = '1 KiB'\n[workload]\ncode = ''\n",
        &["`network.buffer_bytes`", "whole packet"],
    ),
    // ---- files and the workload table ----
    scenario(
        "missing script",
        "[workload]\nscript = 'nope.lua'\n",
        &["`workload.script`", "nope.lua", "cannot read"],
    ),
    scenario(
        "no workload",
        "[network]\ndims = [4]\n",
        &["`workload.script`", "missing"],
    ),
    scenario(
        "script and code both",
        "[workload]\nscript = 'w.lua'\ncode = ''\n",
        &["either `script` or `code`"],
    ),
    Case {
        name: "missing scenario",
        toml: None,
        script: None,
        args: &[],
        check: false,
        code: 1,
        words: &["cannot read scenario", "bad.toml"],
    },
    Case {
        name: "all problems at once",
        toml: Some(
            "[network]\ndims = [4, 0]\nmtu = '8 B'\nlink_bandwith = 1\n[workload]\ncode = ''\n",
        ),
        script: None,
        args: &[],
        check: true,
        code: 1,
        words: &["3 problems", "bad.toml:2:", "bad.toml:3:", "bad.toml:4:"],
    },
    // ---- the command line ----
    Case {
        name: "bad --set value",
        toml: Some("[workload]\ncode = ''\n"),
        script: None,
        args: &["--set", "network.dims=[2,2,2,2,2,2,2]"],
        check: false,
        code: 1,
        words: &["`network.dims` (from --set)", "7 dimensions"],
    },
    Case {
        name: "--set without a value",
        toml: Some("[workload]\ncode = ''\n"),
        script: None,
        args: &["--set", "network.dims"],
        check: false,
        code: 1,
        words: &["--set network.dims", "KEY=VALUE"],
    },
    Case {
        name: "bad --timeout",
        toml: Some("[workload]\ncode = ''\n"),
        script: None,
        args: &["--timeout", "soon"],
        check: false,
        code: 1,
        words: &["--timeout soon", "unit"],
    },
    // ---- scripts: syntax and runtime errors ----
    script(
        "syntax error",
        FOUR,
        "local a = 1\nlocal b = = 2\n",
        &["w.lua:2:", "syntax error"],
    ),
    Case {
        name: "syntax error found by check",
        toml: FOUR,
        script: Some("if then\n"),
        args: &[],
        check: true,
        code: 1,
        words: &["w.lua:1:", "syntax error"],
    },
    script(
        "runtime error",
        FOUR,
        "local function f(t)\n  return t.x.y\nend\nMGEN_Comp(1e-6)\nif MGEN_Comm_rank() == 2 then f({}) end\n",
        &["rank 2 failed at simulated time 1 us", "w.lua:2:", "stack traceback", "w.lua:5"],
    ),
    script(
        "missing module",
        FOUR,
        "local m = require('nothere')\n",
        &["w.lua:1:", "module 'nothere' not found"],
    ),
    // ---- bad API arguments ----
    script(
        "rank out of range",
        FOUR,
        "local x = 1\nMGEN_rdma_put(9, 8, 0)\n",
        &["w.lua:2:", "MGEN_rdma_put", "`dest` = 9", "0 to 3"],
    ),
    script(
        "fractional bytes",
        FOUR,
        "MGEN_rdma_put(1, 2.5, 0)\n",
        &["w.lua:1:", "MGEN_rdma_put", "`bytes`", "integer"],
    ),
    script(
        "negative bytes",
        FOUR,
        "MGEN_Isend(1, -8, 0)\n",
        &["w.lua:1:", "MGEN_Isend", "`bytes` = -8", "negative"],
    ),
    script(
        "tag of the wrong type",
        FOUR,
        "MGEN_rdma_put(1, 8, 'x')\n",
        &["w.lua:1:", "MGEN_rdma_put", "`tag`", "the string \"x\""],
    ),
    script(
        "negative compute time",
        FOUR,
        "MGEN_Comp(-1)\n",
        &["w.lua:1:", "MGEN_Comp", ">= 0"],
    ),
    script(
        "handle of another rank",
        FOUR,
        "if MGEN_Comm_rank() == 1 then\n  MGEN_acp_complete(0)\nend\n",
        &["w.lua:2:", "MGEN_acp_complete", "belongs to rank 0, not to rank 1"],
    ),
    script(
        "handle completed twice",
        FOUR,
        "local h = MGEN_rdma_put(1, 8, 0)\nMGEN_acp_complete(h)\nMGEN_acp_complete(h)\n",
        &["w.lua:3:", "MGEN_acp_complete", "already completed"],
    ),
    script(
        "request waited for twice",
        TWO,
        "local peer = 1 - MGEN_Comm_rank()\nlocal r = MGEN_Isend(peer, 8, 0)\nMGEN_Recv(peer, 8, 0)\nMGEN_Wait(r)\nMGEN_Wait(r)\n",
        &["w.lua:5:", "MGEN_Wait", "already waited"],
    ),
    script(
        "request used as a handle",
        FOUR,
        "local r = MGEN_Irecv(0, 8, 0)\nMGEN_acp_complete(r)\n",
        &["w.lua:2:", "message-passing request", "MGEN_Wait"],
    ),
    script(
        "handle used as a request",
        FOUR,
        "local h = MGEN_rdma_put(1, 8, 0)\n\nMGEN_Wait(h)\n",
        &["w.lua:3:", "RDMA handle", "MGEN_acp_complete"],
    ),
    script(
        "message longer than its receive",
        TWO,
        "if MGEN_Comm_rank() == 0 then MGEN_Send(1, 64, 3)\nelse MGEN_Recv(0, 8, 3) end\n",
        &["w.lua:2:", "64 bytes", "longer than its receive"],
    ),
    // (the C versions of MGEN_Wait and MGEN_Waitall raise these themselves, having used the
    // request up; they must read as the full functions' errors)
    script(
        "a waited receive shorter than its message",
        TWO,
        "if MGEN_Comm_rank() == 0 then MGEN_Send(1, 64, 3)\nelse local r = MGEN_Irecv(0, 8, 3)\n\n  MGEN_Wait(r) end\n",
        &["w.lua:4: MGEN_Wait: a message of 64 bytes from rank 0 (tag 3) is longer than its receive"],
    ),
    script(
        "the same request twice in a waitall",
        TWO,
        "local peer = 1 - MGEN_Comm_rank()\nlocal r = MGEN_Isend(peer, 8, 0)\nMGEN_Recv(peer, 8, 0)\nMGEN_Waitall({ r, r })\n",
        &["w.lua:4: MGEN_Waitall: request", "is not pending on rank", "(already waited for?)"],
    ),
    script(
        "a waitall of something else than requests",
        TWO,
        "local r = MGEN_Isend(1 - MGEN_Comm_rank(), 8, 0)\nMGEN_Waitall({ r, \"x\" })\n",
        &["w.lua:2: MGEN_Waitall: `request` must be an integer, got the string \"x\""],
    ),
    script(
        "a region ended twice",
        FOUR,
        "MGEN_region_begin(\"a\")\nMGEN_region_end()\nMGEN_region_end()\n",
        &["w.lua:3: MGEN_region_end: no region is open on this rank (MGEN_region_begin first)"],
    ),
    script(
        "report without a name",
        FOUR,
        "MGEN_report(7, 1)\n",
        &["w.lua:1:", "MGEN_report", "`name` must be a string"],
    ),
    // ---- deadlocks ----
    // (found at once: within a 1 s wall-clock limit, or this would end with exit 3)
    Case {
        name: "both ranks poll first",
        toml: TWO,
        script: Some(
            "-- nobody ever puts\nMGEN_rdma_poll(5)\nMGEN_rdma_put(1 - MGEN_Comm_rank(), 8, 5)\n",
        ),
        args: &["--timeout", "1s"],
        check: false,
        code: 1,
        words: &["deadlock", "rank 0", "rank 1", "MGEN_rdma_poll(tag 5)", "w.lua:2"],
    },
    script(
        "both ranks receive first",
        TWO,
        "local peer = 1 - MGEN_Comm_rank()\nMGEN_Recv(peer, 8, 1)\nMGEN_Send(peer, 8, 1)\n",
        &[
            "deadlock",
            "rank 0 (clock 200 ns) waits in MGEN_Recv from rank 1 with tag 1\n      at w.lua:2",
            "rank 1 (clock 200 ns) waits in MGEN_Recv from rank 0 with tag 1\n      at w.lua:2",
            "a cycle: rank 0 -> rank 1 -> rank 0",
        ],
    ),
    script(
        "rendezvous send nobody receives",
        TWO,
        "if MGEN_Comm_rank() == 0 then\n  MGEN_Send(1, 100000, 4)\nend\n",
        &[
            "deadlock",
            "rank 0",
            "rank 0 (clock 200 ns) waits in MGEN_Send to rank 1 with tag 4\n      at w.lua:2",
            "rank 1 had already finished at 0 ps, without a matching receive",
        ],
    ),
    // ---- the sandbox and the limits ----
    script(
        "os.execute",
        FOUR,
        "os.execute('true')\n",
        &["w.lua:1:", "sandbox: os.execute", "--allow-io"],
    ),
    Case {
        name: "endless loop",
        toml: FOUR,
        script: Some("local n = 0\nwhile true do n = n + 1 end\n"),
        args: &["--set", "limits.instructions=1000000"],
        check: false,
        code: 3,
        words: &["instruction limit", "rank 0", "w.lua:2", "limits.instructions"],
    },
];

#[test]
fn bad_input_gets_a_clear_error_never_a_panic() {
    assert!(CASES.len() >= 30);
    let mut failures = Vec::new();
    for case in CASES {
        let dir = tempfile::tempdir().unwrap();
        if let Some(t) = case.toml {
            std::fs::write(dir.path().join("bad.toml"), t).unwrap();
        }
        if let Some(s) = case.script {
            std::fs::write(dir.path().join("w.lua"), s).unwrap();
        }
        let mut args = vec![if case.check { "check" } else { "run" }, "bad.toml"];
        args.extend(case.args);
        let o = common::mgensim_in(dir.path(), &args);
        let err = String::from_utf8_lossy(&o.stderr);
        let mut wrong = Vec::new();
        if o.status.code() != Some(case.code) {
            wrong.push(format!(
                "exit {:?}, expected {}",
                o.status.code(),
                case.code
            ));
        }
        if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
            wrong.push("it panicked".to_string());
        }
        for w in case.words {
            if !err.contains(w) {
                wrong.push(format!("no {w:?}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{}: {}\n--- stderr:\n{err}",
                case.name,
                wrong.join("; ")
            ));
        }
    }
    common::assert_no_failures(&failures, CASES.len());
}

#[test]
fn a_transfer_whose_own_bytes_would_pass_what_simulated_time_holds_is_refused_by_name() {
    // 2^61 ps at the run's slowest rate: 2.8 GB/s DMA by default moves 6,456,360,425,798,343
    // bytes in it (2,305,843,009,213,693,952 ps × 2.8e9 B/s / 1e12); at 1 B/s links 2,305,843
    let dir = tempfile::tempdir().unwrap();
    let put = |n: &str| {
        format!(
            "if MGEN_Comm_rank() == 0 then MGEN_acp_complete(MGEN_rdma_put(1, {n}, 0)) \
             else MGEN_rdma_poll(0) end"
        )
    };
    let send = "if MGEN_Comm_rank() == 0 then MGEN_Send(1, 1 << 56, 0) \
                else MGEN_Recv(0, 1 << 56, 0) end";
    let cases = [
        ("packet", "4 GB/s", put("1 << 56"), "MGEN_rdma_put: `bytes` = 72057594037927936 is more than one transfer may move in this run, 6456360425798343 bytes"),
        ("flow", "4 GB/s", put("1 << 56"), "MGEN_rdma_put: `bytes` = 72057594037927936 is more than one transfer may move in this run, 6456360425798343 bytes"),
        ("flow", "4 GB/s", send.to_string(), "MGEN_Send: `bytes` = 72057594037927936"),
        ("packet", "1 B/s", put("2305844"), "more than one transfer may move in this run, 2305843 bytes"),
    ];
    let mut failures = Vec::new();
    for (model, bw, code, want) in &cases {
        common::tmp_file(
            dir.path(),
            "s.toml",
            &format!(
                "[network]\ndims = [2]\nmodel = '{model}'\nlink_bandwidth = '{bw}'\n\
                 [workload]\ncode = '''{code}'''\n"
            ),
        );
        let o = common::mgensim_in(dir.path(), &["run", "s.toml", "-q"]);
        let err = common::stderr(&o);
        if o.status.code() != Some(1) || !err.contains(want) || !err.contains("does not wrap") {
            failures.push(format!("{model} {bw}: {err}"));
        }
    }
    common::assert_no_failures(&failures, cases.len());
    // the largest transfer allowed runs: 2,305,843 bytes at 1 B/s, about 26.7 days
    common::tmp_file(
        dir.path(),
        "s.toml",
        &format!(
            "[network]\ndims = [2]\nlink_bandwidth = '1 B/s'\n[workload]\ncode = '''{}'''\n",
            put("2305843")
        ),
    );
    let o = common::mgensim_in(dir.path(), &["run", "s.toml", "-q", "--json"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let t = r["predicted_time_ps"].as_u64().unwrap();
    assert!(t > 2_305_843 * 1_000_000_000_000 && t < 1 << 62, "{t}");
}

#[test]
fn transfers_that_slow_each_other_past_the_latest_time_stop_the_run_clearly() {
    // seven puts of 2 MB into rank 0 over 1 B/s links: each alone takes 23 days, together
    // more than 106.8: the run stops at the first event past the horizon, not with time
    // gone back
    let dir = tempfile::tempdir().unwrap();
    common::tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [8]\nlink_bandwidth = '1 B/s'\n[workload]\ncode = '''\n\
         local me = MGEN_Comm_rank()\n\
         if me ~= 0 then MGEN_acp_complete(MGEN_rdma_put(0, 2000000, me)) end\n'''\n",
    );
    let o = common::mgensim_in(dir.path(), &["run", "s.toml", "-q"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("past the latest simulated time") && err.contains("does not wrap"),
        "{err}"
    );
    assert!(
        !err.contains("internal error") && !err.contains("went back"),
        "{err}"
    );
}
