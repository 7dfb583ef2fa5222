//! A sweep run whole, as `mgensim sweep` runs it, and the picture drawn from its table.

use super::chart::plot_about;
use super::*;

fn project() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn barrier_sweep(axes: &[&str]) -> Sweep {
    let path = project().join("scenarios/barrier.toml");
    Sweep {
        text: std::fs::read_to_string(&path).unwrap(),
        path,
        sets: vec![],
        axes: axes.iter().map(|a| parse_axis(a).unwrap()).collect(),
        allow_io: false,
        power_baseline: false,
    }
}

fn column(t: &Table, name: &str) -> Vec<String> {
    let i = t.column(name).unwrap();
    t.rows.iter().map(|r| r[i].clone()).collect()
}

#[test]
fn the_barrier_figure_ring_against_recursive_doubling() {
    // the synchronization paper's figure: ring grows with p, recursive doubling with log p
    let sw = barrier_sweep(&["workload.ranks=2..256:x2", "workload.args.algo=ring,rd"]);
    let n = 16;
    let which: Vec<usize> = (0..n).collect();
    let out = sw
        .run(&which, 2, Arc::new(AtomicBool::new(false)), &|_| {})
        .unwrap();
    assert_eq!(out.len(), n);
    let t = |i: usize| out[i].result.as_ref().unwrap().predicted_time_ps as f64;
    // point 2k is ring at p = 2^(k+1), point 2k+1 recursive doubling
    assert_eq!(t(0), t(1), "at p = 2 both are one exchange");
    for k in 1..8 {
        assert!(t(2 * k + 1) < t(2 * k), "rd beats ring at p = {}", 2 << k);
    }
    // ring: p - 1 steps of equal cost, so doubling p from 128 to 256 doubles the time
    // (255/127) to within 2 %; recursive doubling adds one step (8/7)
    let ring = t(14) / t(12);
    assert!(
        (ring - 255.0 / 127.0).abs() < 0.04,
        "ring 128 -> 256: {ring}"
    );
    let rd = t(15) / t(13);
    assert!(rd > 1.0 && rd < 1.3, "rd 128 -> 256: {rd}");
    // and the table has a line per point with the reported barrier time
    let keys = vec![
        "workload.ranks".to_string(),
        "workload.args.algo".to_string(),
    ];
    let table = Table::new(&keys, &out);
    assert_eq!(
        column(&table, "workload.args.algo")[..4],
        ["ring", "rd", "ring", "rd"]
    );
    assert!(column(&table, "barrier_s")
        .iter()
        .all(|v| v.parse::<f64>().unwrap() > 0.0));
    let svg = plot_about(&table, "predicted_time_ps", &sw.about()).unwrap();
    // a line per algorithm, labelled by the key's last part, in a legend beside the plot (to
    // the right of its 900 pixels); what was swept under the title
    let label = |text: &str| {
        let at = svg.find(&format!(">\n{text}\n</text>")).expect(text);
        let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
        let x: f64 = tag
            .split("x=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        x
    };
    assert!(label("algo=ring") > 900.0 && label("algo=rd") > 900.0);
    assert!(!svg.contains("workload.args.algo=ring"));
    assert!(
        svg.contains(">\nbarrier.toml, torus 8x8x8\n</text>"),
        "the subtitle"
    );
    // a logarithmic time axis (2 to 256 ranks of ring) labels the decade at its foot too:
    // rd on 2 ranks takes under 10 us
    assert!(
        svg.contains(">\n2\n</text>") || svg.contains(">\n3\n</text>"),
        "labels under 10"
    );
}
