//! Message passing (docs/model.md §6): costs worked out by hand, and MPI's matching rules.

mod common;
use common::*;

fn mesh2(node: &str, code: &str) -> mgensim::Report {
    run(&format!("[network]\ntopology = 'mesh'\ndims = [4]\n[node]\n{node}\n[workload]\ncode = '''{code}'''\n"))
}

const OVERHEAD: u64 = 200_000; // NSIM's 200 ns, the default

#[test]
fn an_eager_message_costs_overhead_dma_flight_dma() {
    let p = Params::nsim_ace();
    let r = mesh2(
        "",
        "local me = MGEN_Comm_rank()
         if me == 0 then MGEN_Send(1, 64, 3)
         elseif me == 1 then local st = MGEN_Recv(0, 64, 3); MGEN_report('bytes', st.bytes) end",
    );
    // sender: overhead (memory_bandwidth is infinite: the one-copy is free); then as a put
    assert_eq!(
        r.per_rank[1].finish_ps,
        OVERHEAD + p.dma(64) + p.fly(80, 2) + p.dma(64)
    );
    assert_eq!(
        r.per_rank[0].finish_ps, OVERHEAD,
        "an eager send is complete once copied out"
    );
    assert_eq!(r.metrics["bytes"].max, 64.0);
    assert_eq!(r.network.packets, 1, "no control packet for messages");
}

#[test]
fn the_eager_copy_runs_at_memory_bandwidth() {
    let p = Params::nsim_ace();
    let r = mesh2(
        "memory_bandwidth = '10 GB/s'",
        "local me = MGEN_Comm_rank()
         if me == 0 then MGEN_Send(1, 1000, 3) elseif me == 1 then MGEN_Recv(0, 1000, 3) end",
    );
    let copy = 100_000; // 1000 B at 10 GB/s
    assert_eq!(r.per_rank[0].finish_ps, OVERHEAD + copy);
    // DMA is capped by memory bandwidth too, but 10 GB/s is faster than the 2.8 GB/s DMA
    assert_eq!(
        r.per_rank[1].finish_ps,
        OVERHEAD + copy + p.dma(1000) + p.fly(1016, 2) + p.dma(1000)
    );
}

#[test]
fn rendezvous_costs_one_more_round_trip_than_eager() {
    let p = Params::nsim_ace();
    let time = |bytes: u64| {
        mesh2(
            "eager_limit = '1000 B'",
            &format!(
                "local me = MGEN_Comm_rank()
                 if me == 0 then MGEN_Send(1, {bytes}, 0) elseif me == 1 then MGEN_Recv(0, {bytes}, 0) end"
            ),
        )
    };
    let eager = time(1000);
    let rndv = time(1001);
    let data = |b: u64| p.dma(b) + p.fly(b + 16, 2) + p.dma(b);
    assert_eq!(eager.per_rank[1].finish_ps, OVERHEAD + data(1000));
    // request-to-send there, clear-to-send back (bare headers, no DMA), then the data
    let rts_cts = 2 * p.fly(16, 2);
    assert_eq!(rndv.per_rank[1].finish_ps, OVERHEAD + rts_cts + data(1001));
    // the rendezvous send is complete when its DMA has read the data
    assert_eq!(rndv.per_rank[0].finish_ps, OVERHEAD + rts_cts + p.dma(1001));
    assert_eq!(rndv.network.packets, 3);
}

#[test]
fn a_rendezvous_waits_for_a_late_receive() {
    let p = Params::nsim_ace();
    let r = mesh2(
        "eager_limit = '0 B'",
        "local me = MGEN_Comm_rank()
         if me == 0 then MGEN_Send(1, 500, 0)
         elseif me == 1 then MGEN_Comp(10e-6); MGEN_Recv(0, 500, 0) end",
    );
    // the receive is posted at 10 us + overhead; clear-to-send leaves then
    let posted = 10_000_000 + OVERHEAD;
    assert_eq!(
        r.per_rank[1].finish_ps,
        posted + p.fly(16, 2) + p.dma(500) + p.fly(516, 2) + p.dma(500)
    );
}

#[test]
fn messages_between_a_pair_with_one_tag_are_not_overtaken() {
    // a 5-packet message then two one-packet ones: the NIC interleaves their packets, so the
    // small ones are delivered first, but they must be received in sending order
    let r = mesh2(
        "eager_limit = '1 MiB'",
        "local me = MGEN_Comm_rank()
         if me == 0 then
           local a = MGEN_Isend(1, 9000, 5); local b = MGEN_Isend(1, 10, 5); local c = MGEN_Isend(1, 20, 5)
           MGEN_Waitall({a, b, c})
         elseif me == 1 then
           local s = 0
           for _ = 1, 3 do s = s * 100000 + MGEN_Recv(0, 9000, 5).bytes end
           MGEN_report('order', s)
         end",
    );
    assert_eq!(
        r.metrics["order"].max,
        ((9000.0 * 100000.0) + 10.0) * 100000.0 + 20.0
    );
}

#[test]
fn any_source_and_any_tag_take_messages_in_arrival_order() {
    // rank k starts (3 - k) us late, so rank 3's message arrives first, then 2's, then 1's
    let r = mesh2(
        "",
        "local me = MGEN_Comm_rank()
         if me > 0 then MGEN_Comp((me - 1) * 1e-6); MGEN_Send(0, 8, 10 + me)
         else
           local s = 0
           for _ = 1, 3 do
             local st = MGEN_Recv(MGEN_ANY_SOURCE, 8, MGEN_ANY_TAG)
             assert(st.tag == 10 + st.source)
             s = s * 10 + st.source
           end
           MGEN_report('sources', s)
         end",
    );
    assert_eq!(r.metrics["sources"].max, 123.0);
}

#[test]
fn a_tag_selects_among_arrived_messages() {
    let r = mesh2(
        "",
        "local me = MGEN_Comm_rank()
         if me == 0 then MGEN_Send(1, 8, 1); MGEN_Send(1, 16, 2)
         elseif me == 1 then
           MGEN_Comp(5e-6)
           local a = MGEN_Recv(0, 64, 2); local b = MGEN_Recv(0, 64, 1)
           MGEN_report('ab', a.bytes * 100 + b.bytes)
         end",
    );
    assert_eq!(r.metrics["ab"].max, 1608.0);
    // both had arrived (unexpected) by 5 us: each receive costs only its overhead
    assert_eq!(r.per_rank[1].finish_ps, 5_000_000 + 2 * OVERHEAD);
}

#[test]
fn irecv_before_and_after_the_send_both_match() {
    let p = Params::nsim_ace();
    let code = |recv_at_us: u32| {
        format!(
            "local me = MGEN_Comm_rank()
             if me == 0 then MGEN_Comp(2e-6); MGEN_Send(1, 64, 0)
             elseif me == 1 then MGEN_Comp({recv_at_us} * 1e-6); MGEN_Wait(MGEN_Irecv(0, 64, 0)) end"
        )
    };
    let arrives = 2_000_000 + OVERHEAD + p.dma(64) + p.fly(80, 2) + p.dma(64);
    // posted before the send: complete on arrival
    assert_eq!(mesh2("", &code(0)).per_rank[1].finish_ps, arrives);
    // posted after the arrival: complete at the post
    assert_eq!(
        mesh2("", &code(10)).per_rank[1].finish_ps,
        10_000_000 + OVERHEAD
    );
}

#[test]
fn waitall_over_mixed_requests_waits_for_the_last() {
    let p = Params::nsim_ace();
    let r = mesh2(
        "",
        "local me = MGEN_Comm_rank()
         if me == 0 then
           local st = MGEN_Waitall({ MGEN_Isend(1, 64, 0), MGEN_Irecv(1, 64, 0), MGEN_Isend(2, 64, 0) })
           assert(#st == 3 and st[2].source == 1 and st[2].bytes == 64)
         elseif me == 1 then MGEN_Sendrecv(0, 64, 0, 0, 64, 0)
         elseif me == 2 then MGEN_Recv(0, 64, 0) end",
    );
    // rank 0 posts 3 operations (3 overheads); rank 1's send leaves after its Irecv and Isend
    // (Sendrecv posts the receive first): 2 overheads
    let from_1 = 2 * OVERHEAD + p.dma(64) + p.fly(80, 2) + p.dma(64);
    assert_eq!(r.per_rank[0].finish_ps, from_1.max(3 * OVERHEAD));
    assert_eq!(r.per_rank[0].messages_sent, 2);
    assert_eq!(r.per_rank[0].bytes_received, 64);
}

#[test]
fn status_ignore_waits_as_long_and_returns_nothing() {
    // the same exchange as above, waited for with and without statuses, at every place a wait
    // can end: at once (the sends) and after a yield (the receive)
    let code = |ignore: &str| {
        format!(
            "local me = MGEN_Comm_rank()
             if me == 0 then
               local n = select('#', MGEN_Waitall({{ MGEN_Isend(1, 64, 0), MGEN_Irecv(1, 64, 0), MGEN_Isend(2, 64, 0) }}{ignore}))
               MGEN_report('results', n)
             elseif me == 1 then MGEN_Sendrecv(0, 64, 0, 0, 64, 0)
             elseif me == 2 then
               local n = select('#', MGEN_Wait(MGEN_Irecv(0, 64, 0){ignore}))
               MGEN_report('results', n)
             end"
        )
    };
    let with = mesh2("", &code(""));
    let without = mesh2("", &code(", MGEN_STATUS_IGNORE"));
    assert_eq!(with.metrics["results"].min, 1.0);
    assert_eq!(without.metrics["results"].max, 0.0);
    for r in 0..3 {
        assert_eq!(with.per_rank[r].finish_ps, without.per_rank[r].finish_ps);
    }
    // anything else as the second argument is refused, naming it
    let e = run_err(
        "[network]\ndims = [2]\n[workload]\ncode = '''
        local r = MGEN_Isend(1 - MGEN_Comm_rank(), 8, 0)
        MGEN_Wait(r, true)'''\n",
    );
    assert!(
        e.contains("MGEN_Wait: the second argument is MGEN_STATUS_IGNORE or nothing, got true"),
        "{e}"
    );
    // a message longer than its receive is an error without a status too
    let e = run_err(
        "[network]\ndims = [2]\n[workload]\ncode = '''
        if MGEN_Comm_rank() == 0 then MGEN_Send(1, 100, 0)
        else MGEN_Waitall({ MGEN_Irecv(0, 10, 0) }, MGEN_STATUS_IGNORE) end'''\n",
    );
    assert!(e.contains("MGEN_Waitall: a message of 100 bytes"), "{e}");
}

#[test]
fn test_says_false_before_arrival_and_true_after() {
    let r = mesh2(
        "",
        "local me = MGEN_Comm_rank()
         if me == 0 then MGEN_Comp(3e-6); MGEN_Send(1, 8, 0)
         elseif me == 1 then
           local req = MGEN_Irecv(0, 8, 0)
           local early = MGEN_Test(req)
           MGEN_Comp(10e-6)
           local late, st = MGEN_Test(req)
           MGEN_report('flags', (early and 10 or 0) + (late and 1 or 0))
           MGEN_report('bytes', st.bytes)
         end",
    );
    assert_eq!(r.metrics["flags"].max, 1.0);
    assert_eq!(r.metrics["bytes"].max, 8.0);
}

#[test]
fn a_message_longer_than_its_receive_is_an_error_at_the_receive() {
    let e = run_err(
        "[network]\ndims = [2]\n[workload]\ncode = '''
        if MGEN_Comm_rank() == 0 then MGEN_Send(1, 100, 0) else MGEN_Recv(0, 10, 0) end'''\n",
    );
    assert!(
        e.contains("rank 1") && e.contains("100 bytes") && e.contains("inline:1:"),
        "{e}"
    );
}

#[test]
fn a_receive_that_never_matches_is_a_deadlock_naming_it() {
    let e = run_err(
        "[network]\ndims = [2]\n[workload]\ncode = '''
        if MGEN_Comm_rank() == 0 then MGEN_Send(1, 8, 1) else MGEN_Recv(0, 8, 2) end'''\n",
    );
    assert!(
        e.contains("deadlock")
            && e.contains("rank 1 (clock 200 ns) waits in MGEN_Recv from rank 0 with tag 2")
            && e.contains("a message from rank 0 with tag 1 (8 B) is here"),
        "{e}"
    );
}
