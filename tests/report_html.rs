//! `report.html` in a real browser: headless Chromium opens the page a run wrote, runs its
//! script and dumps the resulting document; the test reads what the page built (and that its
//! script met no error), and takes a screenshot.
//!
//! Chromium comes from Debian's `chromium` package; `.ci/run` installs it. Elsewhere, without
//! a Chromium (`chromium`, `chromium-browser`, `google-chrome`, or `$MGENSIM_CHROMIUM`), these
//! tests say so and pass, except under CI (`CI` set), where a missing browser is a failure.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MGENSIM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if std::env::var_os("CI").is_some() {
        panic!("no Chromium to test report.html with: `.ci/run` installs Debian's `chromium`");
    }
    eprintln!("report.html browser tests skipped: no Chromium on PATH");
    None
}

/// What Chromium made of `page` (opened at `fragment`): the document after its scripts ran,
/// and what the browser logged. With `shot`, also a screenshot there.
fn open(browser: &Path, page: &Path, fragment: &str, shot: Option<&Path>) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",
        "--window-size=1200,1800",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()));
    match shot {
        Some(png) => cmd.arg(format!("--screenshot={}", png.display())),
        None => cmd.arg("--dump-dom"),
    };
    let out = cmd
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .expect("Chromium starts");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The inside of the legend `id`.
fn legend_of<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = &dom[dom
        .find(&format!("<div class=\"legend\" id=\"{id}\">"))
        .expect("the legend")..];
    &at[at.find('>').unwrap() + 1..at.find("</div>").unwrap()]
}

/// The text inside the first element with `id` (whose tag is `tag`), as the DOM dump has it.
fn text_of<'a>(dom: &'a str, tag: &str, id: &str) -> &'a str {
    let head = format!("id=\"{id}\"");
    let at = &dom[dom.find(&head).unwrap_or_else(|| panic!("no #{id}"))..];
    let at = &at[at.find('>').unwrap() + 1..];
    &at[..at.find(&format!("</{tag}>")).unwrap()]
}

/// The page's `<body ...>` tag as the script left it.
fn body(dom: &str) -> &str {
    let at = dom.find("<body").expect("a body");
    &dom[at..at + dom[at..].find('>').unwrap()]
}

/// The console messages Chromium logged that are errors of the page.
fn console_errors(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect()
}

fn barrier_report(dir: &Path, algo: &str) -> PathBuf {
    let out = dir.join(algo);
    let o = mgensim_in(
        &project(),
        &[
            "run",
            "scenarios/barrier.toml",
            "--set",
            "network.dims=[4,4]",
            "--set",
            "workload.ranks=16",
            "--set",
            &format!("workload.args.algo={algo}"),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    out.join("report.html")
}

#[test]
fn the_report_is_one_self_contained_file() {
    let dir = tempfile::tempdir().unwrap();
    let page = std::fs::read_to_string(barrier_report(dir.path(), "ring")).unwrap();
    // nothing fetched: no external script, style, image or font
    assert!(!page.contains("<link"), "no stylesheet link");
    assert!(!page.contains("<script src"), "no external script");
    for (i, _) in page.match_indices("http") {
        let rest = &page[i..];
        assert!(
            rest.starts_with("http://www.w3.org/2000/svg"),
            "only the SVG namespace names a URL: {}",
            &rest[..rest.len().min(60)]
        );
    }
    // the timeline is inside, as data the page draws
    assert!(page.contains("\"timeline\":{\"end_us\":"));
}

#[test]
fn the_same_run_writes_the_same_page() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let one = std::fs::read(barrier_report(a.path(), "rd")).unwrap();
    let two = std::fs::read(barrier_report(b.path(), "rd")).unwrap();
    assert!(
        one == two,
        "report.html differs between two runs of the same scenario"
    );
}

#[test]
fn the_report_draws_its_parts_in_a_browser() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ring = barrier_report(dir.path(), "ring");
    let (dom, log) = open(&browser, &ring, "", None);
    assert!(
        body(&dom).contains("data-ready=\"yes\""),
        "the script ran to its end:\n{log}"
    );
    assert!(
        body(&dom).contains("data-errors=\"0\""),
        "no script error:\n{log}"
    );
    assert!(
        console_errors(&log).is_empty(),
        "{:?}",
        console_errors(&log)
    );
    // the parts: the timeline (a row per rank, the ring barrier's region named on each),
    // the network (16 routers of a 4x4 torus, and its 64 link directions between routers),
    // the slider over the frames, the heat map, the summary
    let tl = &dom[dom.find("<svg id=\"timeline\"").unwrap()..];
    let tl = &tl[..tl.find("</svg>").unwrap()];
    for r in 0..16 {
        assert!(tl.contains(&format!(">rank {r}</text>")), "row {r}");
    }
    assert_eq!(
        tl.matches("class=\"region-name\">ring barrier</text>")
            .count(),
        16,
        "the region's name on each rank's band"
    );
    let topo = &dom[dom.find("<svg id=\"topology\"").unwrap()..];
    let topo = &topo[..topo.find("</svg>").unwrap()];
    assert_eq!(topo.matches("<circle").count(), 16);
    assert_eq!(topo.matches("<line").count(), 64);
    // each direction by its name and its routers' coordinates: router 1's x+ port leads to
    // router 2, its y- port wraps to 13
    assert!(topo.contains("data-name=\"router 1 (1,0) port 1 -&gt; router 2 (2,0)\""));
    assert!(topo.contains("data-name=\"router 1 (1,0) port 4 -&gt; router 13 (1,3)\""));
    assert!(dom.contains("<input id=\"slider\" type=\"range\" min=\"0\" max=\""));
    assert!(dom.contains("<span id=\"frame-label\">the whole run</span>"));
    assert!(dom.contains("<canvas id=\"heatmap\""));
    // both colour scales run from 0 to a round share (their exact tops: the lesson's test)
    for (legend, what) in [
        ("topo-legend", "of the run busy"),
        ("heat-legend", "of the window busy"),
    ] {
        let at = legend_of(&dom, legend);
        assert!(
            at.starts_with("<span>0 %</span><canvas") && at.contains(&format!(" % {what}</span>")),
            "{at}"
        );
    }
    assert!(dom.contains("predicted time") && dom.contains("16 of 16"));
    assert!(
        dom.contains("<span class=\"badge\">calls</span>"),
        "the bound is named"
    );
    // a frame of the replay, by the page's own link (#frame=K)
    let (dom, _) = open(&browser, &ring, "#frame=3", None);
    let label = &dom[dom.find("<span id=\"frame-label\">").unwrap()..];
    assert!(
        label.starts_with("<span id=\"frame-label\">")
            && label.contains(" to ")
            && !label.starts_with("<span id=\"frame-label\">the whole run"),
        "{}",
        &label[..label.len().min(80)]
    );
    // and a picture of it
    let png = dir.path().join("ring.png");
    open(&browser, &ring, "", Some(&png));
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert_eq!(&bytes[1..4], b"PNG");
    assert!(
        bytes.len() > 20_000,
        "a page with pictures, not a blank one"
    );
}

/// The timeline is drawn by the page: it zooms (here by its link, `#timeline=A-B` in
/// microseconds) and says what a rank did at a moment (`&at=ROW,T`, as the pointer's tip
/// does). Rank 0 computes 1 us inside region `work` and then sends 4 KiB with tag 7 (200 ns
/// of overhead, then the copy); rank 1 receives it.
#[test]
fn the_timeline_zooms_and_tells_the_call_its_peer_bytes_tag_and_region() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [2]\n[workload]\ncode = '''
if MGEN_Comm_rank() == 0 then
  MGEN_region('work', MGEN_Comp, 1e-6)
  MGEN_Send(1, 4096, 7)
else
  MGEN_Recv(0, 4096, 7)
end'''\n",
    );
    let o = mgensim_in(dir.path(), &["run", "s.toml", "--out", "out", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = dir.path().join("out/report.html");
    let tip = |dom: &str| {
        let at = &dom[dom.find("<div id=\"tip\"").unwrap()..];
        at[at.find('>').unwrap() + 1..at.find("</div>").unwrap()].to_string()
    };
    let (dom, log) = open(&browser, &page, "#timeline=0.5-1.5&at=0,0.8", None);
    assert!(body(&dom).contains("data-errors=\"0\""), "{log}");
    let range = &dom[dom.find("<span id=\"timeline-range\"").unwrap()..];
    assert!(
        range.contains(">zoomed to 500 ns to 1.5 us"),
        "{}",
        &range[..120]
    );
    assert_eq!(
        tip(&dom),
        "rank 0 at 800 ns; MGEN_Comp, 0 ps to 1 us (1 us); in work"
    );
    let (dom, _) = open(&browser, &page, "#at=0,1.1", None);
    assert_eq!(
        tip(&dom),
        "rank 0 at 1.1 us; MGEN_Send to rank 1, 4 KiB, with tag 7, 1 us to 1.2 us (200 ns)"
    );
    // zoomed in, the region's name is on its band; the whole run has room for it too
    let (dom, _) = open(&browser, &page, "#timeline=0-1", None);
    assert!(dom.contains("class=\"region-name\">work</text>"));
    let png = dir.path().join("zoom.png");
    open(&browser, &page, "#timeline=0.9-1.3&at=0,1.1", Some(&png));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
}

#[test]
fn a_stuck_rank_is_named_in_the_report() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "broken.toml", BROKEN_BARRIER);
    let o = mgensim_in(dir.path(), &["run", "broken.toml", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(1), "a deadlock");
    let (dom, log) = open(&browser, &dir.path().join("out/report.html"), "", None);
    assert!(
        body(&dom).contains("data-ready=\"yes\"") && body(&dom).contains("data-errors=\"0\""),
        "{log}"
    );
    assert!(dom.contains("15 of 16"));
    assert!(dom.contains("<b>1 rank had not finished when the run stopped</b>"));
    // the deadlock in the words stderr gave: the stuck rank, its call and its line
    let why = text_of(&dom, "pre", "stop");
    assert!(
        why.contains("rank 7 (clock ") && why.contains(") waits in MGEN_rdma_poll(tag 3)"),
        "the stuck rank is named: {why}"
    );
    assert!(
        why.contains("\n      at inline:8\n"),
        "with its line: {why}"
    );
}

/// The deadlock box says what stderr says, hints included: rank 0 waits for a message from
/// rank 3, which finished at 12 us (it computed 12 us and sent nothing), while one from rank
/// 2 with the same tag is there; rank 1 waits for rank 0.
#[test]
fn the_deadlock_box_says_what_stderr_says_with_its_hints() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\ncode = '''
local me = MGEN_Comm_rank()
if me == 0 then
  MGEN_Recv(3, 8, 1)
elseif me == 1 then
  MGEN_Recv(0, 8, 5)
elseif me == 2 then
  MGEN_Send(0, 8, 1)
else
  MGEN_Comp(12e-6)
end'''\n",
    );
    let o = mgensim_in(dir.path(), &["run", "s.toml", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(1), "a deadlock");
    let err = stderr(&o);
    let said = err
        .split_once("error: s.toml: ")
        .expect("the error")
        .1
        .trim_end();
    for hint in [
        "deadlock at simulated time 12 us: every unfinished rank is blocked",
        "  rank 0 (clock 200 ns) waits in MGEN_Recv from rank 3 with tag 1\n      at inline:3\n      \
         rank 3 had already finished at 12 us\n      \
         a message from rank 2 with tag 1 (8 B) is here, unmatched: the senders differ\n",
        "  rank 1 (clock 200 ns) waits in MGEN_Recv from rank 0 with tag 5\n      at inline:5\n      \
         no message is here unmatched",
    ] {
        assert!(said.contains(hint), "{hint}\nnot in:\n{said}");
    }
    // the page's JSON holds the same words
    let page = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    let data_at = page.find("id=\"data\">").unwrap() + "id=\"data\">".len();
    let data: serde_json::Value =
        serde_json::from_str(&page[data_at..data_at + page[data_at..].find("</script>").unwrap()])
            .unwrap();
    assert_eq!(data["stop"].as_str().map(str::trim_end), Some(said));
    let Some(browser) = chromium() else { return };
    let html = dir.path().join("out/report.html");
    let (dom, log) = open(&browser, &html, "", None);
    assert!(
        body(&dom).contains("data-ready=\"yes\"") && body(&dom).contains("data-errors=\"0\""),
        "{log}"
    );
    // the box, as the browser shows it: the same text (the DOM dump escapes `>` and `&`)
    let shown = text_of(&dom, "pre", "stop")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    assert_eq!(shown.trim_end(), said);
    assert!(dom.contains("<b>2 ranks had not finished when the run stopped</b>"));
    // (the detail lists the ranks: no second list of them)
    let box_at = &dom[dom.find("id=\"stop-box\"").unwrap()..];
    assert!(!box_at[..box_at.find("</div>").unwrap()].contains("<li>"));
    let png = dir.path().join("deadlock.png");
    open(&browser, &html, "", Some(&png));
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert_eq!(&bytes[1..4], b"PNG");
}

/// The barrier lesson's page (64 ranks, a network 0.26 % busy) teaches: the times the script
/// measured first, the regions named above the timeline, and pictures that say the network
/// was nearly idle, their colours stretched to where its load was (said in the legends).
#[test]
fn the_lesson_s_page_shows_its_measurements_regions_and_an_idle_network() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lesson");
    let o = mgensim_in(
        &project(),
        &[
            "run",
            "scenarios/barrier_lesson.toml",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // the busiest link direction between routers, and the mean of all, from links.csv
    let links = csv_records(&std::fs::read_to_string(out.join("links.csv")).unwrap());
    let col = |name: &str| links[0].iter().position(|c| c == name).unwrap();
    let (kind, busy) = (col("kind"), col("busy_ps"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let span = summary["predicted_time_ps"].as_u64().unwrap() as f64;
    let busiest = links[1..]
        .iter()
        .filter(|l| l[kind] == "router")
        .map(|l| l[busy].parse::<u64>().unwrap())
        .max()
        .unwrap() as f64
        / span;
    // (the page's percentages: two significant digits below 1 %, one decimal above)
    let pct = |u: f64| {
        let p = 100.0 * u;
        if p >= 1.0 {
            format!("{p:.1} %")
        } else {
            format!("{} %", format!("{:.1e}", p).parse::<f64>().unwrap())
        }
    };
    assert_eq!(pct(busiest), "0.72 %", "the lesson's network, nearly idle");
    let mean = summary["network"]["link_efficiency"].as_f64().unwrap();
    // the heat map's cells, as the page holds them: its scale stops at the least round share
    // (1, 2, 5 times a power of ten) above all but the busiest hundredth of them
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    let data_at = page.find("id=\"data\">").unwrap() + "id=\"data\">".len();
    let data: serde_json::Value =
        serde_json::from_str(&page[data_at..data_at + page[data_at..].find("</script>").unwrap()])
            .unwrap();
    let mut cells: Vec<f64> = data["heat"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[2].as_f64().unwrap())
        .collect();
    cells.sort_by(f64::total_cmp);
    let q = cells[(99 * cells.len()).div_ceil(100) - 1];
    let top = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
        .into_iter()
        .find(|&t| q <= t)
        .unwrap();
    let above = cells.iter().filter(|&&c| c > top).count();
    let hottest = *cells.last().unwrap();
    assert!(
        top < 0.05 && above > 0 && hottest > top,
        "{top} {above} {hottest}"
    );
    let Some(browser) = chromium() else { return };
    let html = out.join("report.html");
    let (dom, log) = open(&browser, &html, "", None);
    assert!(
        body(&dom).contains("data-ready=\"yes\"") && body(&dom).contains("data-errors=\"0\""),
        "{log}"
    );
    // what the script measured comes before the profile: a row per MGEN_report name
    let table = &dom[dom
        .find("<table class=\"profile\" id=\"metrics\">")
        .unwrap()..];
    assert!(
        table.find("</table>").unwrap() < table.find("id=\"profile\"").unwrap(),
        "first"
    );
    let table = &table[..table.find("</table>").unwrap()];
    let metrics = summary["metrics"].as_object().unwrap();
    assert_eq!(table.matches("<tr>").count(), 1 + metrics.len());
    for (name, m) in metrics {
        assert_eq!(m["count"], 64);
        assert!(
            table.contains(&format!("<td>{name}</td><td>64</td>")),
            "{name}: {table}"
        );
    }
    // the phases above the ranks: each algorithm once, five line-ups; the longest named
    let timeline = &dom[dom.find("<svg id=\"timeline\"").unwrap()..];
    assert_eq!(timeline.matches("class=\"phase\"").count(), 10);
    assert!(timeline.contains("class=\"phase-name\" data-phase=\"9\">coll.barrier ring</text>"));
    assert!(timeline.contains(">coll.barrier central</text>"));
    let keys = &dom[dom.find("id=\"region-keys\"").unwrap()..];
    let keys = &keys[..keys.find("</div>").unwrap()];
    for name in [
        "line-up barrier",
        "coll.barrier ring",
        "coll.barrier dissemination",
    ] {
        assert!(
            keys.contains(&format!("</span>{name}</span>")),
            "{name}: {keys}"
        );
    }
    // the network picture: nearly idle, its busiest link direction and the mean said, the
    // colours stretched to the least round share above the busiest (1 %)
    let note = text_of(&dom, "p", "topology-note-idle");
    assert!(
        note.starts_with(&format!(
            "The network was nearly idle: the busiest link direction between routers was busy \
             {} of the run, and all link directions (NIC links included) {} on average",
            pct(busiest),
            pct(mean)
        )),
        "{note}"
    );
    assert!(
        note.ends_with(
            "The colours are stretched (the scale under the picture says how far) so that what \
             little load there was shows."
        ),
        "{note}"
    );
    let legend = legend_of(&dom, "topo-legend");
    assert!(
        legend.contains("<span>1.0 % of the run busy</span>")
            && legend.contains(&format!(
                "(the colours stop at 1.0 %, not at 100 %: the busiest link direction or router \
                 was busy {})",
                pct(busiest)
            )),
        "{legend}"
    );
    // the heat map: a few cells (a hundredth at most) are busier than its scale, and said so
    let heat = legend_of(&dom, "heat-legend");
    assert!(
        heat.contains(&format!("<span>{} of the window busy</span>", pct(top)))
            && heat.contains(&format!(
                "the busiest cell was busy {}; {above} of the {} cells that were busy at all \
                 were busier than {}, drawn in its colour)",
                pct(hottest),
                cells.len(),
                pct(top)
            )),
        "{heat}"
    );
    assert!(text_of(&dom, "p", "heat-note-idle").starts_with("The network was nearly idle"));
    let png = dir.path().join("lesson.png");
    open(&browser, &html, "", Some(&png));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
}

#[test]
fn every_topology_is_drawn() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    // (network, routers): a fat tree of 4-port switches (4 leaves, 2 spines), a dragonfly of 3
    // groups of 2 routers, a 3-D torus, a 2-D mesh, and Tofu (6-D: 2x1x1 and its 2x3x2 unit)
    // and the labels of its parts: levels, groups, planes
    // a HyperX 3x2 (no labels), and a graph: the anynet fat tree of 4-port switches (rows by
    // hops from the nodes) and a ring of 5 routers that all have nodes (a circle)
    tmp_file(
        dir.path(),
        "tree.anynet",
        "router 0 node 0 node 1 router 4 router 5\nrouter 1 node 2 node 3 router 4 router 5\n\
         router 2 node 4 node 5 router 4 router 5\nrouter 3 node 6 node 7 router 4 router 5\n",
    );
    tmp_file(
        dir.path(),
        "ring.graph",
        "link 0 1\nlink 1 2\nlink 2 3\nlink 3 4\nlink 4 0\n\
         node 0 0\nnode 1 1\nnode 2 2\nnode 3 3\nnode 4 4\n",
    );
    let cases: [(&str, usize, &[&str]); 9] = [
        (
            "topology = 'fattree'\nradix = 4\nlevels = 2",
            6,
            &["level 1 (leaves)", "level 2 (top)"],
        ),
        (
            "topology = 'dragonfly'\nrouters_per_group = 2\nnodes_per_router = 1\n\
             global_links_per_router = 1",
            6,
            &["group 0", "group 1", "group 2"],
        ),
        (
            "topology = 'torus'\ndims = [2, 2, 2]",
            8,
            &["z = 0", "z = 1"],
        ),
        ("topology = 'mesh'\ndims = [3, 2]", 6, &[]),
        (
            "topology = 'tofu'\ndims = [2, 1, 1]",
            24,
            &[
                "c = 0, x = 0, y = 0, z = 0",
                "c = 1, x = 0, y = 0, z = 0",
                "c = 0, x = 1, y = 0, z = 0",
                "c = 1, x = 1, y = 0, z = 0",
            ],
        ),
        ("topology = 'hyperx'\ndims = [3, 2]", 6, &[]),
        ("topology = 'hyperx'\ndims = [12]", 12, &[]),
        (
            "topology = 'graph'\ngraph = 'tree.anynet'",
            6,
            &["routers with nodes", "1 hop from the nodes"],
        ),
        ("topology = 'graph'\ngraph = 'ring.graph'", 5, &[]),
    ];
    for (i, (net, routers, labels)) in cases.iter().enumerate() {
        tmp_file(
            dir.path(),
            &format!("{i}.toml"),
            &format!(
                "[network]\n{net}\n[workload]\ncode = '''
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
MGEN_acp_complete(MGEN_rdma_put((me + 1) % p, 4096, 0))
MGEN_rdma_poll(0)'''\n"
            ),
        );
        let out = format!("out{i}");
        let o = mgensim_in(
            dir.path(),
            &["run", &format!("{i}.toml"), "--out", &out, "-q"],
        );
        assert!(o.status.success(), "{net}: {}", stderr(&o));
        let (dom, log) = open(
            &browser,
            &dir.path().join(&out).join("report.html"),
            "",
            None,
        );
        assert!(
            body(&dom).contains("data-ready=\"yes\"") && body(&dom).contains("data-errors=\"0\""),
            "{net}: {log}"
        );
        let topo = &dom[dom.find("<svg id=\"topology\"").unwrap()..];
        let topo = &topo[..topo.find("</svg>").unwrap()];
        assert_eq!(topo.matches("<circle").count(), *routers, "{net}");
        let drawn: Vec<&str> = topo
            .split("class=\"place-label\">")
            .skip(1)
            .map(|t| &t[..t.find("</text>").unwrap()])
            .collect();
        assert_eq!(drawn, *labels, "{net}");
        assert!(topo.matches("<line").count() > 0, "{net}");
        // a graph's routers are numbered, each once
        let numbers: Vec<&str> = topo
            .split("class=\"router-number\"")
            .skip(1)
            .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
            .collect();
        let want: Vec<String> = if net.contains("graph") {
            (0..*routers).map(|r| r.to_string()).collect()
        } else {
            vec![]
        };
        assert_eq!(numbers, want, "{net}");
        // every arc (a HyperX's longer links) inside the picture: its middle, (a + 2m + b) / 4
        // of its ends and control point, within the svg's width and height
        let attr = |name: &str| -> f64 {
            let at = topo.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            topo[at..at + topo[at..].find('"').unwrap()]
                .parse()
                .unwrap()
        };
        let (w, h) = (attr("width"), attr("height"));
        for d in topo.split(" d=\"M").skip(1) {
            let v: Vec<f64> = d[..d.find('"').unwrap()]
                .replace('Q', " ")
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect();
            let (mx, my) = (
                (v[0] + 2.0 * v[2] + v[4]) / 4.0,
                (v[1] + 2.0 * v[3] + v[5]) / 4.0,
            );
            assert!(
                (0.0..=w).contains(&mx) && (0.0..=h).contains(&my),
                "{net}: an arc through ({mx}, {my}) outside {w} x {h}"
            );
        }
        // the network's caption speaks of wrap-around links only where there are some (a
        // torus, and Tofu's rings)
        let sub = &dom[dom.find("<p class=\"sub\" id=\"topology-sub\">").unwrap()..];
        let sub = &sub[..sub.find("</p>").unwrap()];
        assert_eq!(
            sub.contains("wrap-around"),
            net.contains("torus") || net.contains("tofu"),
            "{net}: {sub}"
        );
    }
}

#[test]
fn placeholders_in_a_scenario_or_metric_name_stay_text() {
    // the page is filled in one pass: a name that spells a placeholder is not replaced again
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "{{DATA}}{{SCRIPT}}.toml",
        "[network]\ndims = [4]\n[workload]\ncode = '''\nMGEN_report(\"{{SCRIPT}}\", 1)\nMGEN_report(\"{{TITLE}}\", 2)\n'''\n",
    );
    let o = mgensim_in(
        dir.path(),
        &["run", "{{DATA}}{{SCRIPT}}.toml", "--out", "out", "-q"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    let template = include_str!("../src/report/report.html");
    // every placeholder of the template is gone, and each was filled once
    assert_eq!(page.matches("id=\"data\"").count(), 1);
    assert_eq!(
        page.matches("<script").count(),
        template.matches("<script").count()
    );
    let data_at = page.find("id=\"data\">").unwrap() + "id=\"data\">".len();
    let data_end = data_at + page[data_at..].find("</script>").unwrap();
    let data: serde_json::Value = serde_json::from_str(&page[data_at..data_end]).unwrap();
    let summary = data["summary"].as_str().unwrap();
    assert!(
        summary.contains("{{SCRIPT}}") && summary.contains("{{TITLE}}"),
        "{summary}"
    );
    assert!(
        page.contains("<title>mgensim: {{DATA}}{{SCRIPT}}.toml</title>"),
        "{}",
        &page[..page.len().min(400)]
    );
}

#[test]
fn the_profile_is_a_table_in_the_report_and_a_csv_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    // 16 ranks, ring barrier: each rank puts to the next 15 times (600 ns of node latency
    // each) and polls 15 times, then completes its last put
    let ring = barrier_report(dir.path(), "ring");
    let csv = std::fs::read_to_string(ring.with_file_name("profile.csv")).unwrap();
    let rows = csv_records(&csv);
    assert_eq!(
        rows[0],
        ["kind", "name", "ranks", "count", "total_ps", "min_ps", "mean_ps", "max_ps", "share"]
    );
    let put = rows.iter().find(|r| r[1] == "MGEN_rdma_put").expect("puts");
    assert_eq!(
        put[..8],
        [
            "call",
            "MGEN_rdma_put",
            "16",
            "240",
            "144000000",
            "9000000",
            "9000000",
            "9000000"
        ]
    );
    let poll = rows
        .iter()
        .find(|r| r[1] == "MGEN_rdma_poll")
        .expect("polls");
    assert_eq!(poll[2..4], ["16", "240"]);
    assert!(rows
        .iter()
        .any(|r| r[0] == "region" && r[1] == "ring barrier" && r[3] == "16"));
    let Some(browser) = chromium() else { return };
    let (dom, log) = open(&browser, &ring, "", None);
    assert!(body(&dom).contains("data-errors=\"0\""), "{log}");
    let table = &dom[dom
        .find("<table class=\"profile\" id=\"profile\">")
        .expect("the table")..];
    let table = &table[..table.find("</table>").unwrap()];
    assert_eq!(
        table.matches("<tr>").count(),
        rows.len(),
        "a row per line of the CSV, and the head"
    );
    assert!(table.contains("<td>MGEN_rdma_put</td>"), "{table}");
    assert!(
        table.contains("<td>240</td><td>16</td><td>9 us</td><td>9 us</td><td>9 us</td>"),
        "{table}"
    );
    let png = dir.path().join("profile.png");
    open(&browser, &ring, "", Some(&png));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
}
