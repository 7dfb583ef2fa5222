//! SimGrid time-independent (TI) traces, read for replay: the index, and each rank's actions
//! streamed from its file a line at a time.
//!
//! **The format** (what `smpirun -trace-ti` writes): an index file lists one trace file per
//! rank, in rank order, each path relative to the index's folder; or the index is itself the
//! trace, every rank's lines in one file. A line is `RANK ACTION ARG ...`, the rank counted
//! from 0; `#` starts a comment. The actions and their arguments are those of
//! [`ACTIONS`]; what each means to a replay is `lua/mgen/replay.lua`'s business.
//!
//! **Communicators** are mgensim's extension (SMPI's traces do not record them): a line
//! `RANK comm ID W0 W1 ...` defines communicator ID by the world ranks of its members, in its
//! rank order, and a word `comm=ID` on an action's line puts it on that communicator (its
//! ranks, roots included, are then the communicator's). `tools/otf2_to_ti.py` writes them.
//!
//! **Regions** are mgensim's extension too: `RANK region_begin NAME` and `RANK region_end`
//! enclose the actions of a function the program ran (a user region Score-P recorded, written
//! by `tools/otf2_to_ti.py`); NAME is one word, `%XX` standing for a byte that cannot be in
//! one (a space `%20`, `#` `%23`, `%` `%25`). The replay opens them as regions of the
//! profile and the timeline.
//!
//! **Memory.** A rank's cursor keeps its file, its offset and line number, and the bytes read
//! ahead of its next line (at most [`CHUNK`] but for a longer line): memory does not grow with
//! a trace's length. Files are reopened when needed through a small cache of open ones
//! ([`OPEN_FILES`]), so that 65,536 ranks need not hold 65,536 descriptors. A one-file trace
//! is read by every rank in full, skipping the others' lines: fine for small traces; large ones
//! come as one file per rank.
//!
//! The modules: [`trace`] reads a trace (the index, each rank's cursor, a line into an
//! action); [`check`] looks at a replay before it runs (its arguments, its ranks against the
//! job's); [`command`] makes the scenario of `mgensim replay`.

pub(crate) mod check;
pub(crate) mod trace;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) use trace::kind;
pub(crate) use trace::Trace;

/// The actions a TI trace may hold, with the fewest arguments each needs (after the name).
pub(crate) const ACTIONS: [(&str, usize); 31] = [
    ("init", 0),
    ("finalize", 0),
    ("compute", 1),
    ("sleep", 1),
    ("send", 3),
    ("isend", 3),
    ("recv", 3),
    ("irecv", 3),
    ("test", 0),
    ("wait", 0),
    ("waitall", 0),
    ("barrier", 0),
    ("bcast", 1),
    ("reduce", 2),
    ("allreduce", 2),
    ("alltoall", 2),
    ("alltoallv", 2),
    ("gather", 2),
    ("gatherv", 1),
    ("scatter", 2),
    ("scatterv", 1),
    ("allgather", 2),
    ("allgatherv", 1),
    ("reducescatter", 1),
    ("comm_size", 1),
    ("comm_split", 0),
    ("comm_dup", 0),
    ("location", 2),
    // mgensim's: `comm ID W0 W1 ...` defines communicator ID by its members' world ranks
    ("comm", 2),
    // mgensim's: `region_begin NAME` and `region_end` enclose a region (NAME: a word, not a
    // number)
    ("region_begin", 0),
    ("region_end", 0),
];

/// The MPI function an action of [`ACTIONS`] (by its place) records, as the profile names
/// it (`MPI_Allreduce`); `compute` and `sleep` for the time between calls; None for what is
/// no call of the program (`location`, and mgensim's `comm` and regions).
pub(crate) fn mpi_name(kind: usize) -> Option<&'static str> {
    const NAMES: [Option<&str>; ACTIONS.len()] = [
        Some("MPI_Init"),
        Some("MPI_Finalize"),
        Some("compute"),
        Some("sleep"),
        Some("MPI_Send"),
        Some("MPI_Isend"),
        Some("MPI_Recv"),
        Some("MPI_Irecv"),
        Some("MPI_Test"),
        Some("MPI_Wait"),
        Some("MPI_Waitall"),
        Some("MPI_Barrier"),
        Some("MPI_Bcast"),
        Some("MPI_Reduce"),
        Some("MPI_Allreduce"),
        Some("MPI_Alltoall"),
        Some("MPI_Alltoallv"),
        Some("MPI_Gather"),
        Some("MPI_Gatherv"),
        Some("MPI_Scatter"),
        Some("MPI_Scatterv"),
        Some("MPI_Allgather"),
        Some("MPI_Allgatherv"),
        Some("MPI_Reduce_scatter"),
        Some("MPI_Comm_size"),
        Some("MPI_Comm_split"),
        Some("MPI_Comm_dup"),
        None, // location
        None, // comm
        None, // region_begin
        None, // region_end
    ];
    NAMES.get(kind).copied().flatten()
}

/// The script a job that replays the trace at `path` (as the scenario resolved it) runs:
/// `mgen.replay` with the job's `MGEN_args`, whose keys were checked before the run
/// ([`check::job`], which warned then of any the replay does not read: they count as read).
pub(crate) fn script_for(path: &str) -> String {
    format!(
        "for _ in pairs(MGEN_args) do end -- (checked before the run)\n\
         require(\"mgen.replay\").run{{ trace = [==[{path}]==], args = MGEN_args }}"
    )
}

/// The largest tag a trace may give (MPI's: a tag is an `int`). The library's own exchanges
/// (`mgen.coll`, `mgen.replay`) use tags from 2^61 up, which no trace value reaches.
pub(crate) const MAX_TAG: i64 = (1 << 31) - 1;

/// Bytes of the datatype a TI trace names by its number (SimGrid's predefined types: 0
/// `MPI_DOUBLE`, 1 `MPI_INT`, 2 `MPI_CHAR`, ... 6 `MPI_BYTE`, ...), or None for a number it
/// does not define.
pub(crate) fn datatype_bytes(id: u32) -> Option<u64> {
    const SIZES: [u64; 60] = [
        8, 4, 1, 2, 8, 4, 1, 8, 1, 1, // double int char short long float byte ll schar uchar
        2, 4, 8, 8, 16, 4, 1, 1, 2,
        4, // ushort unsigned ulong ull ldouble wchar bool i8 i16 i32
        8, 1, 2, 4, 8, 8, 16, 32, 8,
        8, // i64 u8 u16 u32 u64 cfloat cdouble cldouble aint offset
        8, 16, 16, 8, 8, 8, 16, 16, 4,
        4, // float_int long_int double_int short_int 2int 2float 2double 2long real real4
        8, 16, 8, 16, 16, 4, 2, 4, 8,
        16, // real8 real16 complex8 complex16 complex32 integer1,2,4,8,16
        32, 1, 8, 16, 32, 0, 0, 1, 8,
        8, // ldouble_int cxx_bool cxx complexes ub lb packed ptr count
    ];
    SIZES.get(id as usize).copied()
}

/// One action of a rank: its name (one of [`ACTIONS`]), its arguments, and its communicator.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Action<'a> {
    /// The action.
    pub(crate) name: &'static str,
    /// Its place in [`ACTIONS`].
    pub(crate) kind: usize,
    /// Its arguments, as numbers (held by the trace until its next action).
    pub(crate) args: &'a [f64],
    /// The communicator it is on, from a `comm=ID` word anywhere on the line (mgensim's
    /// extension of the format; 0, the world, without one).
    pub(crate) comm: u32,
    /// The word of an action that names something (`region_begin`'s NAME, its `%XX`
    /// decoded); empty for the others.
    pub(crate) text: &'a str,
}

/// Why a trace cannot be replayed, with where.
pub(crate) type Error = String;

/// The warnings of trace `index`: the format it was read in, the lines skipped (by action)
/// and the approximations made (by what), each with its count.
pub(crate) fn warnings(
    index: &Path,
    legacy: bool,
    skipped: &BTreeMap<String, u64>,
    notes: &BTreeMap<String, u64>,
) -> Vec<String> {
    let mut out = Vec::new();
    if legacy {
        out.push(format!(
            "replay of {}: read in SimGrid's older TI format (`Isend`, `waitAll`, ...), whose \
             point-to-point lines have no tag: given tag 0, as SimGrid's replay did",
            index.display()
        ));
    }
    for (name, n) in skipped {
        out.push(format!(
            "replay of {}: {n} `{name}` lines skipped (an action mgensim does not know)",
            index.display()
        ));
    }
    for (what, n) in notes {
        let times = if *n == 1 {
            String::new()
        } else {
            format!(" ({n} times)")
        };
        out.push(format!("replay of {}: {what}{times}", index.display()));
    }
    out
}

/// The warnings of the traces that the partitions of a run replay, before they are gathered
/// ([`Replays::absorb`]): a trace's counts summed over the partitions that read it, traces
/// in the order of their job and index (the same for any partitioning).
pub(crate) fn warnings_of<'a>(parts: impl IntoIterator<Item = &'a Replays>) -> Vec<String> {
    type Counts = BTreeMap<String, u64>;
    let mut all: BTreeMap<(u32, &Path), (bool, Counts, Counts)> = BTreeMap::new();
    for part in parts {
        for (job, t) in &part.traces {
            let e = all.entry((*job, &t.index)).or_default();
            e.0 |= t.legacy;
            for (k, n) in &t.skipped {
                *e.1.entry(k.clone()).or_default() += n;
            }
            for (k, n) in &t.notes {
                *e.2.entry(k.clone()).or_default() += n;
            }
        }
    }
    all.iter()
        .flat_map(|((_, index), (legacy, skipped, notes))| warnings(index, *legacy, skipped, notes))
        .collect()
}

/// The traces a run replays, and which one each rank reads.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Replays {
    /// Each trace with the job that opened it.
    traces: Vec<(u32, Trace)>,
    /// Per global rank: the trace it reads (index into `traces`) and its rank in it.
    active: Vec<Option<(u32, u32)>>,
}

impl Replays {
    /// Rank `global` (rank `rank` of job `job`) reads the trace at `index` (already checked
    /// by the sandbox), opened once per job; returns the trace's rank count.
    pub(crate) fn open(
        &mut self,
        job: u32,
        global: u32,
        rank: u32,
        index: &Path,
        resolve: impl Fn(&Path) -> Result<PathBuf, String>,
    ) -> Result<u32, Error> {
        let i = match self
            .traces
            .iter()
            .position(|(j, t)| *j == job && t.index == index)
        {
            Some(i) => i,
            None => {
                self.traces.push((job, Trace::open(index, resolve)?));
                self.traces.len() - 1
            }
        };
        if self.active.len() <= global as usize {
            self.active.resize(global as usize + 1, None);
        }
        self.active[global as usize] = Some((i as u32, rank));
        self.traces[i].1.ranks()
    }

    fn of(&mut self, global: u32) -> Result<(&mut Trace, u32), Error> {
        match self.active.get(global as usize).copied().flatten() {
            Some((i, r)) => Ok((&mut self.traces[i as usize].1, r)),
            None => Err("no trace is open on this rank: call MGEN_trace_open first".into()),
        }
    }

    /// The next action of rank `global`'s trace, or None at its end.
    pub(crate) fn next(&mut self, global: u32) -> Result<Option<Action<'_>>, Error> {
        let (t, r) = self.of(global)?;
        t.next(r)
    }

    /// Counts a note on rank `global`'s trace.
    pub(crate) fn note(&mut self, global: u32, what: &str) -> Result<(), Error> {
        self.of(global)?.0.note(what);
        Ok(())
    }

    /// Where rank `global` is in its trace (`file:line`), if it replays one.
    pub(crate) fn position(&self, global: u32) -> Option<String> {
        let (i, r) = self.active.get(global as usize).copied().flatten()?;
        Some(self.traces[i as usize].1.position(r))
    }

    /// The warnings of every trace replayed.
    pub(crate) fn warnings(&self) -> Vec<String> {
        warnings_of([self])
    }

    /// Gathers `other`, another partition's replays of the same run, into these: a trace
    /// both replayed (the same job and index) counts its skipped lines and notes once.
    pub(crate) fn absorb(&mut self, other: Replays) {
        for (job, t) in other.traces {
            match self
                .traces
                .iter_mut()
                .find(|(j, mine)| *j == job && mine.index == t.index)
            {
                Some((_, mine)) => {
                    for (k, n) in t.skipped {
                        *mine.skipped.entry(k).or_default() += n;
                    }
                    for (k, n) in t.notes {
                        *mine.notes.entry(k).or_default() += n;
                    }
                }
                None => self.traces.push((job, t)),
            }
        }
        self.traces
            .sort_by(|a, b| (a.0, &a.1.index).cmp(&(b.0, &b.1.index)));
    }
}
