//! A job a test starts (`mpirun -np P mgensim ...`, or one `mgensim` alone), watches, signals
//! and waits for, every wait with a deadline: past it the whole job is killed (every process
//! of its session, mpirun's children included, which Open MPI puts in process groups of their
//! own) and the test fails with what the job printed so far. A job dropped unfinished (a test
//! that failed) is killed the same way: no test leaves a process behind or hangs.

use super::common::project;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One job at a time: the processes of several would share the same few cores, and a
/// signal test's timing would depend on the others.
static ONE_JOB: Mutex<()> = Mutex::new(());

/// The longest a run that should end by itself may take (the slowest shipped scenario takes
/// a few seconds under mpirun on 2 shared cores).
pub const RUN_DEADLINE: Duration = Duration::from_secs(300);

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(20);

/// A job under way.
pub struct Job {
    child: Child,
    /// The command line, for the failures' messages.
    what: String,
    out: Arc<Mutex<Vec<u8>>>,
    err: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
    /// Whether `child` has been waited for.
    reaped: bool,
    _one: MutexGuard<'static, ()>,
}

/// How a job ended.
pub struct Ended {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// From the start of the job to the end of mpirun (or of mgensim alone).
    pub took: Duration,
}

impl Ended {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// A process of the job: its pid and its MPI rank (`OMPI_COMM_WORLD_RANK`).
#[derive(Clone, Copy, Debug)]
pub struct Process {
    pub pid: i32,
    pub rank: u32,
}

/// `mgensim args` on `np` processes under mpirun (`np` = 0: alone, without mpirun), with
/// `mpirun_args` given to mpirun before `-np`.
pub fn mgensim_command(np: u32, args: &[&str], mpirun_args: &[&str]) -> Command {
    let bin = env!("CARGO_BIN_EXE_mgensim");
    let mut c = if np == 0 {
        Command::new(bin)
    } else {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "--bind-to", "none"])
            .args(mpirun_args)
            .args(["-np", &np.to_string(), bin]);
        c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        c
    };
    c.args(args).current_dir(project());
    c
}

/// Runs `mgensim args` on `np` processes (0: alone) to its end, within [`RUN_DEADLINE`].
pub fn mgensim(np: u32, args: &[&str]) -> Ended {
    Job::start(mgensim_command(np, args, &[])).finish(RUN_DEADLINE)
}

/// A reader of `pipe` into a buffer the test can look at while the job runs.
fn reader(mut pipe: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            into.lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(&buf[..n]);
        }
    })
}

/// The pids of every process of session `sid` (zombies included).
fn session(sid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| stat(pid).is_some_and(|s| s.session == sid))
        .collect()
}

/// The pids of the processes of session `sid` still running (not zombies).
pub fn alive_in_session(sid: i32) -> Vec<i32> {
    session(sid)
        .into_iter()
        .filter(|&p| stat(p).is_some_and(|s| s.state != 'Z'))
        .collect()
}

/// The few fields of `/proc/PID/stat` a test needs.
struct Stat {
    name: String,
    state: char,
    parent: i32,
    session: i32,
}

fn stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (name) state ppid pgrp session ...`: the name may hold spaces and parentheses
    let (open, close) = (text.find('(')?, text.rfind(')')?);
    let name = text[open + 1..close].to_string();
    let rest: Vec<&str> = text[close + 1..].split_whitespace().collect();
    Some(Stat {
        name,
        state: rest.first()?.chars().next()?,
        parent: rest.get(1)?.parse().ok()?,
        session: rest.get(3)?.parse().ok()?,
    })
}

/// The MPI rank in the environment of process `pid`.
fn mpi_rank(pid: i32) -> Option<u32> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    env.split(|&b| b == 0).find_map(|kv| {
        std::str::from_utf8(kv.strip_prefix(b"OMPI_COMM_WORLD_RANK=")?)
            .ok()?
            .parse()
            .ok()
    })
}

/// Sends `sig` to process `pid` (one of the test's own job).
pub fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) of a process of the test's own job
    let r = unsafe { libc::kill(pid, sig) };
    assert_eq!(
        r,
        0,
        "kill({pid}, {sig}): {}",
        std::io::Error::last_os_error()
    );
}

impl Job {
    /// Starts `command` in a session of its own (its id: the pid of the command's process),
    /// its stdout and stderr read as it runs.
    pub fn start(mut command: Command) -> Job {
        let one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
        let what = format!("{command:?}");
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: setsid(2) is async-signal-safe; nothing else runs between fork and exec
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap_or_else(|e| panic!("{what}: {e}"));
        let (out, err) = (Arc::default(), Arc::default());
        let readers = vec![
            reader(child.stdout.take().expect("a pipe"), Arc::clone(&out)),
            reader(child.stderr.take().expect("a pipe"), Arc::clone(&err)),
        ];
        Job {
            child,
            what,
            out,
            err,
            readers,
            reaped: false,
            _one: one,
        }
    }

    /// The command's pid (mpirun's, or mgensim's alone).
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// What the job printed on stderr so far.
    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&self.err.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }

    fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&self.out.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }

    /// Kills every process of the job and fails with `why` and what the job printed.
    fn fail(&mut self, why: &str) -> ! {
        self.kill();
        panic!(
            "{}: {why}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.what,
            self.stdout_so_far(),
            self.stderr_so_far()
        );
    }

    /// SIGKILL to every process of the job's session until none is left (a few seconds at
    /// most), and mpirun reaped.
    fn kill(&mut self) {
        let sid = self.pid();
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let left = alive_in_session(sid);
            if !self.reaped && self.child.try_wait().ok().flatten().is_some() {
                self.reaped = true;
            }
            if left.is_empty() && self.reaped {
                return;
            }
            for pid in left {
                // SAFETY: kill(2) of a process of the test's own session
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            if Instant::now() > until {
                return;
            }
            std::thread::sleep(POLL);
        }
    }

    /// The job's mgensim processes (mpirun's children, or mgensim alone: rank 0), by rank.
    pub fn processes(&self) -> Vec<Process> {
        let me = self.pid();
        let mut found: Vec<Process> = if stat(me).is_some_and(|s| s.name == "mgensim") {
            vec![Process { pid: me, rank: 0 }]
        } else {
            session(me)
                .into_iter()
                .filter(|&p| stat(p).is_some_and(|s| s.parent == me && s.name == "mgensim"))
                .filter_map(|pid| {
                    Some(Process {
                        pid,
                        rank: mpi_rank(pid)?,
                    })
                })
                .collect()
        };
        found.sort_by_key(|p| p.rank);
        found
    }

    /// Waits until the job has `n` mgensim processes (each with its MPI rank), within
    /// `within`; returns them by rank.
    pub fn wait_for_processes(&mut self, n: usize, within: Duration) -> Vec<Process> {
        let until = Instant::now() + within;
        loop {
            let found = self.processes();
            if found.len() == n {
                return found;
            }
            if self.child.try_wait().ok().flatten().is_some() {
                self.reaped = true;
                self.fail(&format!("ended before its {n} processes were seen"));
            }
            if Instant::now() > until {
                self.fail(&format!(
                    "{n} processes not seen within {within:?}: {found:?}"
                ));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Waits until stderr holds `text`, within `within`.
    pub fn wait_for_stderr(&mut self, text: &str, within: Duration) {
        let until = Instant::now() + within;
        while !self.stderr_so_far().contains(text) {
            if self.child.try_wait().ok().flatten().is_some() {
                self.reaped = true;
                self.fail(&format!("ended before it printed {text:?}"));
            }
            if Instant::now() > until {
                self.fail(&format!("{text:?} not printed within {within:?}"));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Waits for the job's end within `within` (from now), and for every process of its
    /// session to be gone a few seconds after (a process left behind fails the test).
    pub fn finish(mut self, within: Duration) -> Ended {
        let started = Instant::now();
        let until = started + within;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() > until => {
                    self.fail(&format!("no end within {within:?}"));
                }
                Ok(None) => std::thread::sleep(POLL),
                Err(e) => self.fail(&format!("wait: {e}")),
            }
        };
        self.reaped = true;
        let took = started.elapsed();
        let gone_by = Instant::now() + Duration::from_secs(5);
        loop {
            let left = alive_in_session(self.pid());
            if left.is_empty() {
                break;
            }
            if Instant::now() > gone_by {
                self.fail(&format!(
                    "ended ({status:?}) but left processes {left:?} behind"
                ));
            }
            std::thread::sleep(POLL);
        }
        for r in std::mem::take(&mut self.readers) {
            r.join().expect("a reader");
        }
        let take = |b: &Arc<Mutex<Vec<u8>>>| {
            std::mem::take(&mut *b.lock().unwrap_or_else(|e| e.into_inner()))
        };
        Ended {
            status,
            stdout: take(&self.out),
            stderr: take(&self.err),
            took,
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if !self.reaped || !alive_in_session(self.pid()).is_empty() {
            self.kill();
        }
    }
}
