//! Links that sleep when idle (TraceRP): Reviriego's model, the cost of a wake-up
//! to the picosecond, no cost without one, and directions that sleep on their own.

mod common;
use common::*;
use mgensim::run::Records;
use mgensim::{Report, Simulation};

/// Two nodes through one switch, every message one packet of 64 KiB (+16 B header), with DMA
/// and copies fast enough that the links are the bottleneck.
fn two_nodes(power: &str, code: &str, args: &str) -> String {
    format!(
        "[network]\ntopology = 'fattree'\ndown_ports = [2]\nup_ports = [0]\nmtu = '64 KiB'\n\
         buffer_bytes = '256 KiB'\n[node]\ndma_bandwidth = '1000 GB/s'\n\
         memory_bandwidth = '1000 GB/s'\neager_limit = '1 MiB'\n{power}\n\
         [workload]\nranks = 2\nargs = {{ {args} }}\ncode = '''\n{code}'''\n"
    )
}

/// Both nodes send each other a message every `gap` seconds, `n` times: each switch port
/// carries one packet per `gap`.
const STREAMS: &str = "
local me = MGEN_Comm_rank()
local other = 1 - me
local reqs = {}
for i = 1, MGEN_args.n do reqs[#reqs + 1] = MGEN_Irecv(other, 65536, i) end
for i = 1, MGEN_args.n do
  reqs[#reqs + 1] = MGEN_Isend(other, 65536, i)
  MGEN_Comp(MGEN_args.gap)
end
MGEN_Waitall(reqs)
";

const T_S: f64 = 10e-6;
const T_W: f64 = 2e-6;

#[test]
fn switch_power_follows_reviriegos_model() {
    // TraceRP equations (1) and (2): P = P_base + P_dynamic · Σ_i min(1, D·ρ_i). A port that
    // sleeps between packets is active for T_w + T_f + T_s per packet, so D is
    // (T_f + T_s + T_w) / T_f (equation (2) prints its reciprocal; see the closing note).
    let k = Params::nsim_ace();
    let t_f = k.ser(65536 + 16) as f64 * 1e-12;
    let power = format!(
        "[power]\nt_sleep = '{} us'\nt_wake = '{} us'",
        T_S * 1e6,
        T_W * 1e6
    );
    let d = (t_f + T_S + T_W) / t_f;
    let mut seen = Vec::new();
    for rho in [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9] {
        let gap = t_f / rho;
        let r = run(&two_nodes(
            &power,
            STREAMS,
            &format!("gap = {gap:e}, n = 40"),
        ));
        let p = r.power.as_ref().unwrap();
        let secs = span_ps(&r) as f64 * 1e-12;
        let switch_w = p.switch_energy_j / secs;
        let ports: Vec<_> = r.per_link.iter().filter(|l| l.port.is_some()).collect();
        assert_eq!(ports.len(), 2);
        let model = ports.len() as f64 * p.p_base_per_port_w
            + p.p_dynamic_w
                * ports
                    .iter()
                    .map(|l| {
                        let rho_i = l.busy.ps() as f64 / span_ps(&r) as f64;
                        (d * rho_i).min(1.0)
                    })
                    .sum::<f64>();
        let err = (switch_w - model).abs() / model;
        assert!(
            err < 0.02,
            "rho {rho}: {switch_w:.4} W simulated, {model:.4} W by the model"
        );
        seen.push(ports[0].busy.ps() as f64 / span_ps(&r) as f64);
    }
    // the loads did span 0.05 to 0.9
    assert!(
        (seen[0] - 0.05).abs() < 0.01 && (seen[7] - 0.9).abs() < 0.05,
        "{seen:?}"
    );
}

fn with_history(toml: &str) -> Report {
    let s = scenario(toml, &[]);
    let mut sim = Simulation::new(&s).unwrap();
    let records = Records {
        buffer_history: vec!["router=0".into()],
        ..Records::default()
    };
    sim.probe(&records.probes().unwrap()).unwrap();
    sim.run().unwrap()
}

/// Node 0 sends node 1 two messages, `gap` seconds apart.
const TWO_MESSAGES: &str = "
if MGEN_Comm_rank() == 0 then
  MGEN_Send(1, 65536, 1)
  MGEN_Comp(MGEN_args.gap)
  MGEN_Send(1, 65536, 2)
else
  MGEN_Recv(0, 65536, 1)
  MGEN_Recv(0, 65536, 2)
end
";

#[test]
fn a_gap_shorter_than_t_sleep_costs_nothing_and_a_longer_one_exactly_t_wake_per_link() {
    let k = Params::nsim_ace();
    let power = "[power]\nt_sleep = '50 us'\nt_wake = '3 us'";
    for (gap, sleeps) in [(20e-6, false), (200e-6, true)] {
        let args = format!("gap = {gap:e}");
        let off = with_history(&two_nodes("", TWO_MESSAGES, &args));
        let on = with_history(&two_nodes(power, TWO_MESSAGES, &args));
        let p = on.power.as_ref().unwrap();
        let (h_off, h_on) = (
            off.buffer_history.as_ref().unwrap(),
            on.buffer_history.as_ref().unwrap(),
        );
        assert_eq!(h_on.len(), 2, "two packets through the switch");
        // the first message finds every link awake (active since the start)
        assert_eq!(h_on[0], h_off[0]);
        let second = &h_on[1];
        let waited = second.depart_ps.unwrap() - second.arrive_ps;
        if sleeps {
            // the injection link slept (its wake-up delays the arrival at the switch by T_w)
            // and so did the ejection link (the switch holds the packet T_w more)
            assert_eq!(waited, k.router + 3_000_000);
            assert_eq!(second.arrive_ps, h_off[1].arrive_ps + 3_000_000);
            assert_eq!(
                on.predicted_time_ps,
                off.predicted_time_ps + 2 * 3_000_000,
                "two sleeping links on the path: 2 T_w"
            );
            assert_eq!(p.wakeups, 2);
            // the switch's port to node 1 was in low power from T_s after the first tail
            // left until the second packet asked for it; not while it woke (active power)
            let eject = on.per_link.iter().find(|l| l.to_nic && l.to == 1).unwrap();
            let asked = second.arrive_ps + k.router;
            let asleep = h_on[0].freed_ps.unwrap() + 50_000_000;
            assert_eq!(eject.low_power.ps(), asked - asleep);
            assert_eq!(eject.wakeups, 1);
        } else {
            assert_eq!(waited, k.router);
            assert_eq!(h_on[1], h_off[1]);
            assert_eq!(on.predicted_time_ps, off.predicted_time_ps);
        }
    }
}

/// Contention: 16 ranks on a 4×4 torus put to random ranks with idle spells between.
const BUSY: &str = "[network]\ntopology = 'torus'\ndims = [4, 4]\n{power}\n\
[workload]\nranks = 16\ncode = '''
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
for i = 1, 6 do
  MGEN_Comp(math.random() * 40e-6)
  local h = MGEN_rdma_put((me + math.random(p - 1)) % p, 30000, i)
  MGEN_acp_complete(h)
end
'''\n";

#[test]
fn with_no_wake_up_time_nothing_is_slower_and_energy_never_exceeds_always_on() {
    let off = run(&BUSY.replace("{power}", ""));
    for t_s in ["0 us", "5 us", "20 us"] {
        let on = run(&BUSY.replace(
            "{power}",
            &format!("[power]\nt_sleep = '{t_s}'\nt_wake = '0 us'"),
        ));
        assert_eq!(on.predicted_time_ps, off.predicted_time_ps, "T_s {t_s}");
        assert_eq!(on.per_rank, off.per_rank);
        let p = on.power.as_ref().unwrap();
        assert!(p.low_power_fraction > 0.0);
        assert!(p.energy_j < p.always_on_energy_j, "T_s {t_s}");
        for l in &on.per_link {
            assert!(l.low_power.ps() <= span_ps(&on));
        }
    }
    // and a longer T_s sleeps less
    let frac = |t: &str| {
        run(&BUSY.replace(
            "{power}",
            &format!("[power]\nt_sleep = '{t}'\nt_wake = '0 us'"),
        ))
        .power
        .unwrap()
        .low_power_fraction
    };
    assert!(frac("1 us") > frac("30 us"));
}

#[test]
fn the_two_directions_of_a_link_sleep_independently() {
    // node 0 sends node 1 a message every 100 us (eager: nothing comes back); T_s = 10 us
    let code = "
if MGEN_Comm_rank() == 0 then
  for i = 1, 5 do MGEN_Send(1, 1024, i); MGEN_Comp(100e-6) end
else
  for i = 1, 5 do MGEN_Recv(0, 1024, i) end
end";
    let r = run(&format!(
        "[network]\ntopology = 'mesh'\ndims = [2]\n[power]\nt_sleep = '10 us'\n\
         t_wake = '1 us'\n[workload]\ncode = '''{code}'''\n"
    ));
    let span = span_ps(&r);
    let link = |from: u32| {
        r.per_link
            .iter()
            .find(|l| l.from == from && l.port.is_some() && !l.to_nic)
            .unwrap()
    };
    // router 0 → router 1 carries the messages: it sleeps between them and wakes 4 times
    let (up, down) = (link(0), link(1));
    assert_eq!((up.to, down.to), (1, 0));
    assert_eq!(up.packets, 5);
    assert_eq!(up.wakeups, 4);
    // router 1 → router 0 carries nothing: asleep from T_s on, never woken
    assert_eq!(down.packets, 0);
    assert_eq!(down.wakeups, 0);
    assert_eq!(down.low_power.ps(), span - 10_000_000);
    assert!(up.low_power < down.low_power);
}

#[test]
fn the_command_line_reports_against_the_baseline_and_checks_power_keys() {
    let dir = tempfile::tempdir().unwrap();
    let toml = BUSY.replace("{power}", "[power]\nt_sleep = '2 us'\nt_wake = '1 us'");
    tmp_file(dir.path(), "s.toml", &toml);
    let o = mgensim_in(
        dir.path(),
        &[
            "run",
            "s.toml",
            "--power-baseline",
            "--json",
            "--out",
            "out",
            "--interval",
            "10us",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let b = &v["power"]["baseline"];
    let off = run(&BUSY.replace("{power}", ""));
    assert_eq!(b["predicted_time_ps"], off.predicted_time_ps);
    assert!(b["energy_ratio"].as_f64().unwrap() < 1.0);
    assert!(
        b["time_ratio"].as_f64().unwrap() > 1.0,
        "wake-ups cost time"
    );
    let links = std::fs::read_to_string(dir.path().join("out/links_power.csv")).unwrap();
    assert_eq!(
        links.lines().filter(|l| l.starts_with("switch,")).count(),
        16
    );
    // the power time series averages to the run's mean power
    let series = std::fs::read_to_string(dir.path().join("out/power_timeseries.csv")).unwrap();
    let (mut joules, mut ps) = (0.0, 0u64);
    for l in series.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let len: u64 = f[1].parse().unwrap();
        joules += f[2].parse::<f64>().unwrap() * len as f64 * 1e-12;
        ps += len;
    }
    let mean = joules / (ps as f64 * 1e-12);
    let expected = v["power"]["average_power_w"].as_f64().unwrap();
    assert!(
        (mean - expected).abs() / expected < 1e-6,
        "{mean} vs {expected}"
    );

    // without [power] there is nothing to compare
    tmp_file(dir.path(), "n.toml", &BUSY.replace("{power}", ""));
    let o = mgensim_in(dir.path(), &["run", "n.toml", "--power-baseline"]);
    assert!(stderr(&o).contains("no `[power]`"), "{}", stderr(&o));
    // bad values name their key
    tmp_file(
        dir.path(),
        "b.toml",
        &BUSY.replace("{power}", "[power]\np_dynamic = -1.0\nt_slep = '1 us'"),
    );
    let o = mgensim_in(dir.path(), &["run", "b.toml"]);
    let e = stderr(&o);
    assert!(
        e.contains("power.p_dynamic") && e.contains("power.t_slep"),
        "{e}"
    );
}
