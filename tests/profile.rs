//! `--profile` (as mpiP gives for MPI): each call's and region's time worked out by hand, and
//! each API call counted once per call the script made, whatever the call waited for.

mod common;
use common::*;
use serde_json::Value;

/// `--profile` on two ranks, with `sets`: the summary's JSON.
fn profiled(dir: &std::path::Path, sets: &[&str]) -> Value {
    std::fs::write(
        dir.join("w.lua"),
        "if MGEN_Comm_rank() == 0 then\n  MGEN_Comp(1e-6)\n  MGEN_Send(1, 8, 0)\n  \
         MGEN_region('r', function() MGEN_Comp(2e-6) end)\nelse\n  MGEN_Recv(0, 8, 0)\nend\n",
    )
    .unwrap();
    tmp_file(
        dir,
        "s.toml",
        "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
    );
    let mut args = vec!["run", "s.toml", "--json", "--profile"];
    args.extend_from_slice(sets);
    let o = mgensim_in(dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_profile_gives_each_call_s_and_region_s_time_by_hand() {
    let d = tempfile::tempdir().unwrap();
    let json = profiled(d.path(), &[]);
    let rows = json["profile"].as_array().expect("a profile");
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {rows:?}"))
    };
    let figures = |name: &str| {
        let r = row(name);
        (
            r["ranks"].as_u64().unwrap(),
            r["count"].as_u64().unwrap(),
            r["total_ps"].as_u64().unwrap(),
        )
    };
    // rank 0 computes 1 us, then 2 us inside region r; its send costs the 200 ns overhead
    // (an eager message: the copy is free at an infinite memory bandwidth)
    assert_eq!(figures("MGEN_Comp"), (1, 2, 3_000_000));
    assert_eq!(figures("r"), (1, 1, 2_000_000));
    assert_eq!(row("r")["kind"], "region");
    assert_eq!(figures("MGEN_Send"), (1, 1, 200_000));
    // so rank 0 ends at 3.2 us, the run's time
    assert_eq!(json["predicted_time_ps"], 3_200_000);
    // rank 1 does nothing but receive: its receive (posting and waiting) is all its time, and
    // counts once; the message left rank 0 at 1.2 us
    let (ranks, count, recv) = figures("MGEN_Recv");
    assert_eq!((ranks, count), (1, 1));
    assert!(recv > 1_200_000 && recv < 3_200_000, "{recv}");
    // shares are of both ranks' time together
    let total = 3_200_000 + recv;
    let share = row("MGEN_Comp")["share"].as_f64().unwrap();
    assert!((share - 3_000_000.0 / total as f64).abs() < 1e-9, "{share}");
    // the same figures from two partitions on two threads
    let split = profiled(d.path(), &["--partitions", "2", "--threads", "2"]);
    assert_eq!(split["profile"], json["profile"]);
}

/// The profile's rows of one kind, by name: (count, total ps).
fn rows_of(json: &Value, kind: &str) -> std::collections::BTreeMap<String, (u64, u64)> {
    json["profile"]
        .as_array()
        .expect("a profile")
        .iter()
        .filter(|r| r["kind"] == kind)
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                (
                    r["count"].as_u64().unwrap(),
                    r["total_ps"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

/// The calls the script counted itself (`n_<call>` reported by each rank), summed over ranks.
fn counted_by_the_script(json: &Value) -> std::collections::BTreeMap<String, u64> {
    json["metrics"]
        .as_object()
        .expect("metrics")
        .iter()
        .filter_map(|(k, m)| {
            let call = k.strip_prefix("n_")?;
            let total = m["mean"].as_f64().unwrap() * m["count"].as_f64().unwrap();
            Some((format!("MGEN_{call}"), total.round() as u64))
        })
        .collect()
}

/// Every kind of wait, on two ranks: an eager send (8 B) and a rendezvous one (64 KiB, above
/// the 8 KiB eager limit) waited for, a receive waited for before its message came and one
/// whose message came while the rank computed, lists of all of these in `MGEN_Waitall`
/// (and an empty list), `MGEN_Test` until done, `MGEN_Sendrecv`, `MGEN_Send` and
/// `MGEN_Recv`. The script counts its own calls (wrapping each function) and reports them;
/// the profile must give the same count for each, and the counts worked out by hand.
const EVERY_WAIT: &str = r#"
local me = MGEN_Comm_rank()
local n = {}
local function counting(name)
  local f = _G["MGEN_" .. name]
  n[name] = 0
  return function(...) n[name] = n[name] + 1; return f(...) end
end
local Isend, Irecv, Wait, Waitall = counting("Isend"), counting("Irecv"), counting("Wait"), counting("Waitall")
local Test, Send, Recv, Sendrecv = counting("Test"), counting("Send"), counting("Recv"), counting("Sendrecv")
local BIG = 65536
if me == 0 then
  Wait(Isend(1, 8, 1))                           -- eager send
  Wait(Isend(1, BIG, 2))                         -- rendezvous send
  Wait(Irecv(1, 8, 3))                           -- receive not there yet
  local r = Irecv(1, 8, 4); MGEN_Comp(5e-6); Wait(r)  -- receive there already
  Waitall({ Isend(1, 8, 5), Isend(1, BIG, 6), Irecv(1, 8, 7), Irecv(1, BIG, 8) })
  Waitall({})
  local t = Irecv(1, 8, 9)
  while not Test(t) do MGEN_Comp(1e-7) end
  Sendrecv(1, 8, 10, 1, 8, 10)
  Send(1, BIG, 11); Recv(1, 8, 12)
  Wait(Isend(1, 8, 13), MGEN_STATUS_IGNORE)       -- (through the same fast path)
else
  Recv(0, 8, 1); Recv(0, BIG, 2)
  MGEN_Comp(2e-6); Send(0, 8, 3)
  Send(0, 8, 4)
  Waitall({ Irecv(0, 8, 5), Irecv(0, BIG, 6), Isend(0, 8, 7), Isend(0, BIG, 8) })
  MGEN_Comp(3e-6); Send(0, 8, 9)
  Sendrecv(0, 8, 10, 0, 8, 10)
  Recv(0, BIG, 11); Send(0, 8, 12)
  Waitall({ Irecv(0, 8.0, 13) })                  -- a float: the full function's path
end
for k, v in pairs(n) do MGEN_report("n_" .. k, v) end
"#;

#[test]
fn every_call_is_counted_once_whatever_its_wait_waited_for() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("w.lua"), EVERY_WAIT).unwrap();
    tmp_file(
        d.path(),
        "s.toml",
        "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
    );
    let mut previous: Option<Value> = None;
    for sets in [&[][..], &["--partitions", "2", "--threads", "2"]] {
        let mut args = vec!["run", "s.toml", "--json", "--profile"];
        args.extend_from_slice(sets);
        let o = mgensim_in(d.path(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let json: Value = serde_json::from_slice(&o.stdout).unwrap();
        let calls = rows_of(&json, "call");
        let script = counted_by_the_script(&json);
        // by hand: rank 0 waits 5 times, rank 1 never; each gives 2 lists to MGEN_Waitall;
        // rank 0 sends 1 + 4 requests, rank 1 ...
        let hand = [
            ("MGEN_Wait", 5),
            ("MGEN_Waitall", 2 + 2),
            ("MGEN_Isend", 5 + 2),
            ("MGEN_Irecv", 5 + 3),
            ("MGEN_Send", 1 + 4),
            ("MGEN_Recv", 1 + 3),
            ("MGEN_Sendrecv", 2),
        ];
        for (call, n) in hand {
            assert_eq!(script[call], n, "{call}: the script's own count");
            assert_eq!(calls[call].0, n, "{call} in the profile: {calls:?}");
        }
        // MGEN_Test: as many as the loop made (at least two: the message is not there at once)
        assert!(script["MGEN_Test"] >= 2, "{script:?}");
        assert_eq!(calls["MGEN_Test"].0, script["MGEN_Test"], "{calls:?}");
        if let Some(p) = &previous {
            assert_eq!(p["profile"], json["profile"], "the same on two partitions");
        }
        previous = Some(json);
    }
}

/// A collective of `mgen.coll` over messages waits once for each request it makes: its
/// `MGEN_Wait` count is its `MGEN_Isend`s and `MGEN_Irecv`s together (the barrier lesson
/// counted 20,664 waits against 13,944 requests: a wait taken up again when the rank resumed
/// counted twice). 16 ranks, a dissemination barrier: 4 rounds of one send and one receive.
#[test]
fn a_collective_waits_once_per_request() {
    let d = tempfile::tempdir().unwrap();
    tmp_file(
        d.path(),
        "s.toml",
        "[network]\ntopology = 'torus'\ndims = [4, 4]\n[workload]\nranks = 16\ncode = '''
local coll = require('mgen.coll')
coll.barrier{ algo = 'dissemination' }
coll.allreduce{ bytes = 65536, algo = 'ring' }
'''\n",
    );
    let o = mgensim_in(d.path(), &["run", "s.toml", "--json", "--profile"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let calls = rows_of(&json, "call");
    // barrier: 16 ranks x 4 rounds; ring allreduce: 16 ranks x 2 x 15 steps; a send and a
    // receive each
    let requests = 16 * 4 + 16 * 2 * 15;
    assert_eq!(calls["MGEN_Isend"].0, requests);
    assert_eq!(calls["MGEN_Irecv"].0, requests);
    assert_eq!(calls["MGEN_Wait"].0, 2 * requests, "{calls:?}");
}
