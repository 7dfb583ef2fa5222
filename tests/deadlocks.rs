//! What a run that cannot go on says, in the terms of the script that was written: the call
//! each blocked rank made and its line, what arrived for it instead, the cycles of ranks that
//! wait for one another, and a failed rank first, as failed.

mod common;
use common::*;

/// Runs `script` (as `w.lua`) on a line of `ranks` routers, with `extra` arguments: the exit
/// status, stderr, and the JSON summary (printed on stdout).
fn run_script(script: &str, ranks: u32, extra: &[&str]) -> (i32, String, serde_json::Value) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("w.lua"), script).unwrap();
    tmp_file(
        d.path(),
        "s.toml",
        &format!("[network]\ntopology = 'mesh'\ndims = [{ranks}]\n[workload]\nscript = 'w.lua'\n"),
    );
    let mut args = vec!["run", "s.toml", "--json"];
    args.extend_from_slice(extra);
    let o = mgensim_in(d.path(), &args);
    let json = serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
    (o.status.code().unwrap_or(-1), stderr(&o), json)
}

/// The deadlock's part of stderr (after the partial summary's warnings).
fn deadlock(err: &str) -> &str {
    err.split_once("deadlock at").map_or("", |(_, d)| d)
}

/// No number a script never wrote: request handles are 2^31 and up, library tags 2^61 and up.
fn no_internal_ids(text: &str) {
    for word in text.split(|c: char| !c.is_ascii_digit()) {
        if let Ok(n) = word.parse::<u64>() {
            assert!(n < 1 << 31, "an internal number {n} in: {text}");
        }
    }
}

#[test]
fn a_tag_mismatch_names_the_calls_the_message_that_is_here_and_the_cycle() {
    // rank 0 sends with tag 1 and waits for tag 5; rank 1 waits for tag 2
    let lesson = "local me = MGEN_Comm_rank()\n\
                  if me == 0 then\n  MGEN_Send(1, 8, 1)\n  MGEN_Recv(1, 8, 5)\n\
                  else\n  MGEN_Recv(0, 8, 2)\nend\n";
    let (code, err, json) = run_script(lesson, 2, &[]);
    assert_eq!(code, 1, "{err}");
    let d = deadlock(&err);
    assert!(
        d.contains(
            "rank 0 (clock 400 ns) waits in MGEN_Recv from rank 1 with tag 5\n      at w.lua:4\n      \
             no message is here unmatched\n"
        ),
        "{d}"
    );
    assert!(
        d.contains(
            "rank 1 (clock 200 ns) waits in MGEN_Recv from rank 0 with tag 2\n      at w.lua:6\n      \
             a message from rank 0 with tag 1 (8 B) is here, unmatched: the tags differ\n"
        ),
        "{d}"
    );
    assert!(
        d.contains("a cycle: rank 0 -> rank 1 -> rank 0 (each waits"),
        "{d}"
    );
    no_internal_ids(d);
    // the partial summary says the same, and names no bound for a run that could not go on
    let unfinished = json["ranks"]["unfinished"].as_array().unwrap();
    assert_eq!(unfinished[1]["state"], "blocked");
    assert_eq!(
        unfinished[1]["waits_for"],
        "MGEN_Recv from rank 0 with tag 2"
    );
    assert!(json["bound"].is_null(), "{}", json["bound"]);
}

#[test]
fn a_head_to_head_rendezvous_is_named_as_a_cycle() {
    // every rank sends 1 MB (above the eager limit: rendezvous) to the next before receiving
    let ring = "local me, p = MGEN_Comm_rank(), MGEN_Comm_size()\n\
                MGEN_Send((me + 1) % p, 1000000, 7)\nMGEN_Recv((me - 1) % p, 1000000, 7)\n";
    for cut in [
        &["--partitions", "1"][..],
        &["--partitions", "2", "--threads", "2"],
    ] {
        let (code, err, _) = run_script(ring, 4, cut);
        assert_eq!(code, 1, "{err}");
        let d = deadlock(&err);
        for r in 0..4 {
            let next = (r + 1) % 4;
            assert!(
                d.contains(&format!(
                    "rank {r} (clock 200 ns) waits in MGEN_Send to rank {next} with tag 7\n      \
                     at w.lua:2\n      rank {next} has posted no receive"
                )),
                "{cut:?}: {d}"
            );
        }
        assert!(
            d.contains("a cycle: rank 0 -> rank 1 -> rank 2 -> rank 3 -> rank 0"),
            "{cut:?}: {d}"
        );
        assert_eq!(d.matches("a cycle").count(), 1, "{d}");
    }
}

#[test]
fn a_poll_on_the_wrong_tag_lists_the_puts_that_came_with_others() {
    let script = "if MGEN_Comm_rank() == 0 then\n  MGEN_rdma_put(1, 64, 3)\n  \
                  MGEN_rdma_put(1, 64, 4)\n  MGEN_rdma_put(1, 64, 4)\nelse\n  MGEN_rdma_poll(2)\nend\n";
    let (code, err, _) = run_script(script, 2, &[]);
    assert_eq!(code, 1, "{err}");
    let d = deadlock(&err);
    assert!(
        d.contains("MGEN_rdma_poll(tag 2): no put with that tag was delivered to it\n      at w.lua:6\n      \
             every other rank had already finished, the last at 0 ps\n      \
             puts delivered here with other tags, not polled: tag 3 (1), tag 4 (2)"),
        "{d}"
    );
}

#[test]
fn a_collective_one_rank_skips_is_named_at_the_script_s_line_without_library_tags() {
    let script = "local coll = require('mgen.coll')\nif MGEN_Comm_rank() ~= 3 then\n  \
                  coll.barrier{}\nend\n";
    let (code, err, _) = run_script(script, 4, &[]);
    assert_eq!(code, 1, "{err}");
    let d = deadlock(&err);
    // rank 0's first step waits for rank 3 (dissemination: from r - 1)
    assert!(
        d.contains(
            "rank 0 (clock 400 ns) waits in MGEN_Wait for a receive from rank 3 of a collective \
             (mgen.coll)\n      at w.lua:3 (inside mgen.coll)"
        ),
        "{d}"
    );
    no_internal_ids(d);
}

#[test]
fn a_failed_rank_comes_first_as_failed_and_the_others_as_they_were() {
    let script = "local me = MGEN_Comm_rank()\nif me == 2 then\n  MGEN_Comp(1e-6)\n  \
                  local x = nil\n  x.field = 1\nend\nMGEN_Recv((me + 1) % 4, 8, 0)\n";
    let (code, err, json) = run_script(script, 4, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("rank 2 failed at simulated time 1 us"),
        "{err}"
    );
    let unfinished = json["ranks"]["unfinished"].as_array().unwrap();
    let states: Vec<(u64, &str)> = unfinished
        .iter()
        .map(|u| (u["rank"].as_u64().unwrap(), u["state"].as_str().unwrap()))
        .collect();
    // ranks 0, 1 and 3 blocked in their receives (at 200 ns, the call's overhead): the run
    // goes on to the end of the epoch rank 2's error fell in (rank 3, which was to run next
    // at 0 ps, runs too), so that the figures do not depend on the partitions
    assert_eq!(
        states,
        [
            (2, "failed"),
            (0, "blocked"),
            (1, "blocked"),
            (3, "blocked")
        ]
    );
    assert_eq!(
        unfinished[0]["waits_for"],
        "w.lua:5: attempt to index a nil value (local 'x')"
    );
    assert_eq!(unfinished[0]["since_ps"], 1_000_000);
    assert!(json["bound"].is_null(), "{}", json["bound"]);
}

#[test]
fn a_wait_for_a_rank_that_had_finished_says_when_it_did() {
    // rank r computes r us first; rank 0 waits for rank 2 (done at 2 us), rank 1 for any rank
    // (rank 0 is still there, blocked), rank 3 for any rank after the others: by then ranks
    // 0 and 1 are blocked, so nothing says "every other rank"
    let script = "local me = MGEN_Comm_rank()\nMGEN_Comp(1e-6 * me)\n\
                  if me == 0 then\n  MGEN_Recv(2, 8, 4)\n\
                  elseif me == 1 then\n  MGEN_Recv(MGEN_ANY_SOURCE, 8, 4)\nend\n";
    let (code, err, json) = run_script(script, 3, &[]);
    assert_eq!(code, 1, "{err}");
    let d = deadlock(&err);
    assert!(
        d.contains(
            "rank 0 (clock 200 ns) waits in MGEN_Recv from rank 2 with tag 4\n      at w.lua:4\n      \
             rank 2 had already finished at 2 us\n      no message is here unmatched\n"
        ),
        "{d}"
    );
    assert!(
        d.contains(
            "rank 1 (clock 1.2 us) waits in MGEN_Recv from any rank with tag 4\n      at w.lua:6\n      \
             no message is here unmatched\n"
        ),
        "{d}"
    );
    assert_eq!(d.matches("already finished").count(), 1, "{d}");
    // the partial summary carries the same words, for report.html
    let stop = json["stop"].as_str().expect("why the run stopped");
    assert!(stop.starts_with("deadlock at simulated time"), "{stop}");
    assert!(
        err.contains(stop),
        "stderr says the same:\n{err}\n---\n{stop}"
    );
    assert!(
        stop.contains("rank 2 had already finished at 2 us"),
        "{stop}"
    );

    // once every other rank has finished, a receive from any rank, a poll, and a rendezvous
    // send with no receive say so, with when the last one finished (rank 2, at 2 us)
    let script = "local me = MGEN_Comm_rank()\nMGEN_Comp(1e-6 * me)\n\
                  if me == 0 then\n  MGEN_Recv(MGEN_ANY_SOURCE, 8, 4)\nend\n";
    let (code, err, _) = run_script(script, 3, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        deadlock(&err).contains(
            "from any rank with tag 4\n      at w.lua:4\n      \
             every other rank had already finished, the last at 2 us\n"
        ),
        "{err}"
    );
    let script = "if MGEN_Comm_rank() == 0 then\n  MGEN_Send(1, 100000, 4)\nelse\n  \
                  MGEN_Comp(3e-6)\nend\n";
    let (code, err, _) = run_script(script, 2, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        deadlock(&err).contains(
            "rank 1 had already finished at 3 us, without a matching receive (a message above \
             node.eager_limit waits for one)"
        ),
        "{err}"
    );
}
