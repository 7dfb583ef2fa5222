//! Output targets tried as an attacker (or an unlucky user) would: a FIFO, a device or a
//! link given as an output, an output folder that must stay one set, and signals while a run
//! writes. Each case makes its own FIFO, device stand-in and folders in a temporary folder.

mod common;

use common::mkfifo;
use std::path::Path;
use std::process::Command;

const TWO: &str = "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n";

fn scenario_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("s.toml"), TWO).unwrap();
    std::fs::write(d.path().join("w.lua"), "MGEN_Comp(1e-6)\n").unwrap();
    d
}

fn no_temporaries(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(
                !name.ends_with(".tmp") && !name.contains("mgensim-new"),
                "{name} was left in {}",
                d.display()
            );
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
}

#[test]
fn a_fifo_is_written_into_not_replaced() {
    let d = scenario_dir();
    let fifo = d.path().join("out.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "--json", "-o", "out.fifo"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let got = reader.join().unwrap();
    let v: serde_json::Value = serde_json::from_str(&got).unwrap();
    assert_eq!(v["predicted_time_ps"], 1_000_000);
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "still a FIFO"
    );
    no_temporaries(d.path());
}

#[test]
fn a_device_is_written_into_not_replaced() {
    // our own device node in a temporary folder: /dev/full's numbers (1, 7), which makes
    // every write fail with "no space" (only root may make one; CI runs as root)
    let d = scenario_dir();
    let dev = d.path().join("full");
    let c = std::ffi::CString::new(dev.to_str().unwrap()).unwrap();
    // SAFETY: a valid path; mknod only reads it
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 7)) } == 0;
    if !made {
        assert_ne!(
            unsafe { libc::geteuid() },
            0,
            "root could not make a device node"
        );
        eprintln!("skipped: only root may make a device node");
        return;
    }
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "-o", "full"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        common::stderr(&o).contains("No space left on device"),
        "{}",
        common::stderr(&o)
    );
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::symlink_metadata(&dev).unwrap();
    assert!(m.file_type().is_char_device(), "the device was replaced");
    no_temporaries(d.path());
}

#[test]
fn a_link_is_followed_and_stays_a_link() {
    let d = scenario_dir();
    std::fs::write(d.path().join("real.json"), "old").unwrap();
    std::os::unix::fs::symlink("real.json", d.path().join("link.json")).unwrap();
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "-o", "link.json"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(std::fs::symlink_metadata(d.path().join("link.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    let text = std::fs::read_to_string(d.path().join("real.json")).unwrap();
    assert!(text.contains("\"predicted_time_ps\": 1000000"), "{text}");
    no_temporaries(d.path());
}

#[test]
fn an_output_folder_is_one_set() {
    let d = scenario_dir();
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    // (a run that must succeed)
    let run = |args: &[&str]| {
        let o = common::mgensim_in(d.path(), args);
        assert!(o.status.success(), "{}", common::stderr(&o));
    };
    // a folder of mgensim's own: the second run's set replaces the first's whole (its time
    // series, which the second run does not record, goes too)
    run(&["run", "s.toml", "--out", "o", "--interval", "100ns"]);
    assert!(names(&d.path().join("o")).contains(&"links_timeseries.csv".to_string()));
    run(&["run", "s.toml", "--out", "o"]);
    assert_eq!(
        names(&d.path().join("o")),
        [
            "links.csv",
            "nodes.csv",
            "profile.csv",
            "ranks.csv",
            "report.html",
            "routers.csv",
            "summary.json"
        ]
    );
    // a folder that also holds the user's files: they stay, the set is replaced around them
    std::fs::write(d.path().join("o/notes.txt"), "mine").unwrap();
    run(&["run", "s.toml", "--out", "o", "--interval", "100ns"]);
    assert_eq!(
        std::fs::read_to_string(d.path().join("o/notes.txt")).unwrap(),
        "mine"
    );
    assert!(names(&d.path().join("o")).contains(&"links_timeseries.csv".to_string()));
    run(&["run", "s.toml", "--out", "o"]);
    assert_eq!(
        names(&d.path().join("o")),
        [
            "links.csv",
            "nodes.csv",
            "notes.txt",
            "profile.csv",
            "ranks.csv",
            "report.html",
            "routers.csv",
            "summary.json"
        ]
    );
    // an output's name taken by a pipe: refused, nothing replaced
    std::fs::remove_file(d.path().join("o/links.csv")).unwrap();
    mkfifo(&d.path().join("o/links.csv"));
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "--out", "o"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        common::stderr(&o).contains("links.csv is not a regular file"),
        "{}",
        common::stderr(&o)
    );
    no_temporaries(d.path());
}

fn big_series_run(dir: &Path, out: &str, until: &str) -> std::process::Child {
    big_series_run_with(dir, out, until, &[])
}

fn big_series_run_with(dir: &Path, out: &str, until: &str, more: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_mgensim"))
        .args([
            "run",
            &common::project()
                .join("scenarios/random_ring.toml")
                .display()
                .to_string(),
            "--out",
            out,
            "--interval",
            "1ns",
            "-q",
            "--until",
            until,
            // (no bound on the series' memory: the run must be long and its table large)
            "--set",
            "limits.time_series_memory=0",
        ])
        .args(more)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: a signal to our own child process
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

fn wait_within(child: &mut std::process::Child, secs: u64) -> (i32, String) {
    let start = std::time::Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (st.code().unwrap_or(-1), err);
        }
        if start.elapsed().as_secs() > secs {
            let _ = child.kill();
            panic!("the process did not end within {secs} s of the signal");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn two_interrupts_while_the_folder_is_written_leave_the_old_set() {
    let d = tempfile::tempdir().unwrap();
    // the old set: a short run's
    let mut first = big_series_run(d.path(), "o", "200ns");
    let (code, err) = wait_within(&mut first, 120);
    assert_eq!(code, 3, "{err}");
    let old = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let old_links = std::fs::read(d.path().join("o/links_timeseries.csv")).unwrap();
    // a longer run with a large time series; two Ctrl-C as soon as its set is being staged
    let mut second = big_series_run(d.path(), "o", "1200ns");
    let start = std::time::Instant::now();
    let staged = loop {
        let staging = std::fs::read_dir(d.path())
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().contains("mgensim-new"));
        if staging {
            break true;
        }
        if second.try_wait().unwrap().is_some() || start.elapsed().as_secs() > 120 {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    assert!(staged, "the set was never seen staged");
    signal(&second, libc::SIGINT);
    std::thread::sleep(std::time::Duration::from_millis(20));
    signal(&second, libc::SIGINT);
    let (code, err) = wait_within(&mut second, 30);
    assert_eq!(code, 130, "{err}");
    // the old set, whole
    assert_eq!(
        std::fs::read_to_string(d.path().join("o/summary.json")).unwrap(),
        old
    );
    assert_eq!(
        std::fs::read(d.path().join("o/links_timeseries.csv")).unwrap(),
        old_links
    );
    no_temporaries(d.path());
}

#[test]
fn a_terminate_signal_stops_a_recording_run_promptly() {
    let d = tempfile::tempdir().unwrap();
    let mut run = big_series_run(d.path(), "o", "1ms");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    signal(&run, libc::SIGTERM);
    let (code, err) = wait_within(&mut run, 15);
    assert_eq!(code, 130, "{err}");
    assert!(
        err.contains("links_timeseries.csv and power_timeseries.csv not written"),
        "{err}"
    );
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    assert!(summary.contains("\"partial\": true"), "{summary}");
    assert!(!d.path().join("o/links_timeseries.csv").exists());
    no_temporaries(d.path());
}

#[test]
fn an_interrupted_run_with_pictures_writes_its_partial_set_without_them() {
    let d = tempfile::tempdir().unwrap();
    let mut run = big_series_run_with(d.path(), "o", "1ms", &["--plots"]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    signal(&run, libc::SIGINT);
    let (code, err) = wait_within(&mut run, 15);
    assert_eq!(code, 130, "{err}");
    // what was computed is written; the pictures' records were left out to stop promptly,
    // and the messages name no staging folder
    assert!(err.contains("--plots: no pictures drawn"), "{err}");
    assert!(!err.contains("mgensim-new"), "{err}");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    assert!(summary.contains("\"partial\": true"), "{summary}");
    assert!(d.path().join("o/ranks.csv").exists());
    for picture in ["heatmap.svg", "timeline.svg"] {
        assert!(!d.path().join("o").join(picture).exists(), "{picture}");
    }
    no_temporaries(d.path());
}

#[test]
fn a_signal_while_the_run_is_set_up_ends_it_with_a_message() {
    let d = tempfile::tempdir().unwrap();
    // 4M routers: building them takes seconds, and nothing is simulated before
    std::fs::write(
        d.path().join("s.toml"),
        "[network]\ndims = [2048, 2048]\n[workload]\nranks = 2\nscript = 'w.lua'\n",
    )
    .unwrap();
    std::fs::write(d.path().join("w.lua"), "MGEN_Comp(1e-6)\n").unwrap();
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let mut run = Command::new(env!("CARGO_BIN_EXE_mgensim"))
            .args(["run", "s.toml", "-q"])
            .current_dir(d.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        signal(&run, sig);
        let (code, err) = wait_within(&mut run, 10);
        assert_eq!(code, 130, "signal {sig}: {err}");
        assert!(
            err.contains("s.toml: interrupted while the run was being set up"),
            "signal {sig}: {err}"
        );
        assert!(err.contains("nothing was simulated"), "{err}");
    }
}
