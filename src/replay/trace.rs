//! Reading a trace: its index, every rank's cursor into its file, and a line into an
//! [`Action`] (see the module above for the format).

use super::{Action, Error, ACTIONS, MAX_TAG};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Bytes a cursor reads ahead at a time.
pub(crate) const CHUNK: usize = 1024;

/// The longest line a trace may hold: 64 MiB (an `allToAllV` of a million ranks writes two
/// counts per rank, about 22 MB). A longer one, or a file with no line end, is an error naming
/// the file and the line, found after reading at most this much of it.
pub(crate) const MAX_LINE: usize = 64 << 20;
/// Trace files kept open at once.
pub(crate) const OPEN_FILES: usize = 64;

/// How much of a trace's first file is looked at for the older format's spellings.
pub(crate) const LEGACY_SNIFF: u64 = 64 << 10;

/// The place in [`ACTIONS`] of an action's name: as SimGrid writes it now, or as its older
/// format did (`Isend`, `waitAll`, `allToAllV`, ...: the same names in another case).
pub(crate) fn action_kind(word: &str) -> Option<usize> {
    ACTIONS
        .iter()
        .position(|a| a.0 == word)
        .or_else(|| ACTIONS.iter().position(|a| a.0.eq_ignore_ascii_case(word)))
}

/// Whether the start of `file` ([`LEGACY_SNIFF`] bytes) has an action spelled the older way
/// (an upper-case letter in it): SimGrid before 3.20, whose point-to-point lines have no tag.
fn older_format(file: &Path) -> bool {
    let mut head = Vec::new();
    let read = File::open(file).and_then(|f| f.take(LEGACY_SNIFF).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    // (read as lines are: what follows `#` is a comment, and a line starts with its rank)
    String::from_utf8_lossy(&head).lines().any(|l| {
        let mut words = l.split('#').next().unwrap_or("").split_whitespace();
        words.next().is_some_and(|r| r.parse::<u32>().is_ok())
            && words.next().is_some_and(|w| {
                w.bytes().any(|b| b.is_ascii_uppercase()) && action_kind(w).is_some()
            })
    })
}

/// What a file is, when it is a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Every rank's lines in one file (`RANK ACTION ...`).
    OneFile,
    /// An index: a file per rank, listed in rank order.
    Index,
}

/// Whether a trace's first line (after blank lines and comments) is a trace's: a rank number
/// and an action this reader knows.
fn is_trace_line(line: &str) -> bool {
    let mut words = line.split('#').next().unwrap_or("").split_whitespace();
    words.next().is_some_and(|w| w.parse::<u32>().is_ok())
        && words.next().is_some_and(|w| action_kind(w).is_some())
}

/// The first line of `text` that is not blank or a comment.
fn first_line(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Where the index in `folder` finds a file it names as `written`: as written, by its last two
/// parts (`app.txt_files/rank-3.txt`: a trace moved since it was written) or by its name.
fn locate(folder: &Path, written: &str) -> Option<PathBuf> {
    let written = Path::new(written);
    let parts: Vec<_> = written.iter().collect();
    let tail: PathBuf = parts[parts.len().saturating_sub(2)..].iter().collect();
    [
        folder.join(written),
        folder.join(&tail),
        folder.join(written.file_name().unwrap_or_default()),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// Whether `path` is a trace ([`kind`]).
pub fn is_trace(path: &Path) -> bool {
    kind(path).is_some()
}

/// What `path` is if it is a trace (its first 64 KiB looked at: a first line of a trace, or
/// the name of a file beside it whose first line is), None if it is not one.
pub(crate) fn kind(path: &Path) -> Option<Kind> {
    let head = |p: &Path| -> Option<String> {
        let mut bytes = Vec::new();
        File::open(p)
            .and_then(|f| f.take(LEGACY_SNIFF).read_to_end(&mut bytes))
            .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    let text = head(path)?;
    let first = first_line(&text)?;
    if is_trace_line(first) {
        return Some(Kind::OneFile);
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    let file = locate(folder, first)?;
    let inner = head(&file)?;
    first_line(&inner)
        .filter(|l| is_trace_line(l))
        .map(|_| Kind::Index)
}

/// What a line of a trace holds.
enum Line {
    /// An action: its place in [`ACTIONS`] and its communicator.
    Action(usize, u32),
    /// An action this reader does not know (counted, and passed over).
    Unknown(String),
    /// A blank line, a comment, or another rank's line in a one-file trace.
    Nothing,
}

/// A word of a trace as an error or a warning shows it: its first 40 characters, and `...`
/// when there are more (a message never echoes megabytes of input).
fn shown(word: &str) -> String {
    match word.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &word[..i]),
        None => word.to_string(),
    }
}

/// `word` with each `%XX` (two hexadecimal digits) the byte it stands for, into `out`; a `%`
/// not followed by two such digits stays as it is.
fn decode(word: &str, out: &mut String) {
    let b = word.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|&c| hex(c)),
            b.get(i + 2).and_then(|&c| hex(c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                bytes.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                bytes.push(c);
                i += 1;
            }
        }
    }
    out.push_str(&String::from_utf8_lossy(&bytes));
}

/// A trace: its files and every rank's cursor.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Trace {
    /// The index, as given (for messages).
    pub(crate) index: PathBuf,
    files: Vec<PathBuf>,
    /// Whether all ranks share one file (the index itself).
    shared: bool,
    cursors: Vec<Cursor>,
    /// Open files: the file's number, the file, and where it is at (a read goes on from there
    /// without a seek when it is where the rank's cursor is).
    #[serde(skip)]
    open: Vec<(u32, File, u64)>,
    /// Whether the trace is in SimGrid's older format (before 3.20): point-to-point lines
    /// without a tag (see [`LEGACY_SNIFF`]).
    pub(crate) legacy: bool,
    /// The arguments of the action [`Trace::next`] returned last (reused: no allocation per
    /// line).
    #[serde(skip)]
    args: Vec<f64>,
    /// The word of that action that names something (a region's name), or empty.
    #[serde(skip)]
    text: String,
    /// Lines skipped, by reason (unknown actions), with a count.
    pub(crate) skipped: BTreeMap<String, u64>,
    /// Notes of the replay (actions replayed approximately), with a count.
    pub(crate) notes: BTreeMap<String, u64>,
}

/// Packed (`part/pack.rs`) without its read buffer: for [`Trace::position`], not to read on.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Cursor {
    offset: u64,
    line: u32,
    /// Bytes after `pos` already looked at for the end of the line (none was there).
    #[serde(skip)]
    scanned: usize,
    #[serde(skip)]
    buf: Vec<u8>,
    #[serde(skip)]
    pos: usize,
    done: bool,
}

impl Trace {
    /// Opens the trace whose index is `index` (already checked by the sandbox); `resolve`
    /// checks each file the index names (relative to the index's folder). The index's lines
    /// are counted: there must be one per rank.
    pub(crate) fn open(
        index: &Path,
        resolve: impl Fn(&Path) -> Result<PathBuf, String>,
    ) -> Result<Trace, Error> {
        let text = crate::files::read_bounded(index, 64 << 20)
            .map_err(|e| format!("cannot read the trace index {}: {e}", index.display()))?;
        // (an editor's byte order mark is not part of the first file's name)
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let first =
            first_line(text).ok_or_else(|| format!("{}: the trace is empty", index.display()))?;
        // a trace line starts with a rank number and an action; an index line is a path
        let is_trace = is_trace_line(first);
        let folder = index.parent().unwrap_or(Path::new("."));
        let (files, shared) = if is_trace {
            (vec![index.to_path_buf()], true)
        } else {
            let mut files = Vec::new();
            for (i, l) in text.lines().enumerate() {
                let l = l.trim();
                if l.is_empty() || l.starts_with('#') {
                    continue;
                }
                // (a trace moved since it was written: its files are found beside the index)
                let found = locate(folder, l);
                let exists = found.is_some();
                let p = found.unwrap_or_else(|| folder.join(l));
                let p = resolve(&p).map_err(|e| format!("{}:{}: {e}", index.display(), i + 1))?;
                if !exists {
                    return Err(format!(
                        "{}:{}: the trace file {} does not exist",
                        index.display(),
                        i + 1,
                        p.display()
                    ));
                }
                files.push(p);
            }
            (files, false)
        };
        let legacy = files.first().is_some_and(|f| older_format(f));
        let notes = BTreeMap::new();
        Ok(Trace {
            index: index.to_path_buf(),
            files,
            shared,
            cursors: Vec::new(),
            open: Vec::new(),
            legacy,
            args: Vec::new(),
            text: String::new(),
            skipped: BTreeMap::new(),
            notes,
        })
    }

    /// Ranks the trace has, when known without reading it all: a file per rank.
    fn known_ranks(&self) -> Option<usize> {
        (!self.shared).then_some(self.files.len())
    }

    /// Ranks the trace has: its files, or for a one-file trace, 1 + the largest rank in it.
    pub(crate) fn ranks(&self) -> Result<u32, Error> {
        if !self.shared {
            return Ok(self.files.len() as u32);
        }
        use std::io::BufRead;
        let f = File::open(&self.files[0]).map_err(|e| format!("{}: {e}", self.index.display()))?;
        let mut most = 0u32;
        for l in std::io::BufReader::new(f).lines() {
            let l = l.map_err(|e| format!("{}: {e}", self.index.display()))?;
            if let Some(r) = l
                .split_whitespace()
                .next()
                .and_then(|w| w.parse::<u32>().ok())
            {
                // (a rank of 2^32 - 1 does not wrap to none: the job then disagrees with it)
                most = most.max(r.saturating_add(1));
            }
        }
        Ok(most)
    }

    /// The file and line of rank `r`'s last action (`file:line`).
    pub(crate) fn position(&self, r: u32) -> String {
        let c = self.cursors.get(r as usize);
        let line = c.map_or(0, |c| c.line);
        format!("{}:{line}", self.file_of(r).display())
    }

    fn file_of(&self, r: u32) -> &Path {
        if self.shared {
            &self.files[0]
        } else {
            self.files
                .get(r as usize)
                .map_or(&self.index, |p| p.as_path())
        }
    }

    /// Rank `r`'s next action, or None at the end of its trace.
    pub(crate) fn next(&mut self, r: u32) -> Result<Option<Action<'_>>, Error> {
        if !self.shared && r as usize >= self.files.len() {
            return Err(format!(
                "{}: the trace has {} ranks; rank {r} has no trace file",
                self.index.display(),
                self.files.len()
            ));
        }
        if self.cursors.len() <= r as usize {
            self.cursors.resize_with(r as usize + 1, Cursor::default);
        }
        let mut args = std::mem::take(&mut self.args);
        let mut text = std::mem::take(&mut self.text);
        let found = self.next_action(r, &mut args, &mut text);
        self.args = args;
        self.text = text;
        Ok(found?.map(|(kind, comm)| Action {
            name: ACTIONS[kind].0,
            kind,
            args: &self.args,
            comm,
            text: &self.text,
        }))
    }

    /// The next line of rank `r`'s that is an action: its kind and communicator, its
    /// arguments in `args` and its word that names something in `text`. Lines of other ranks
    /// (in a one-file trace), blank lines and comments are passed over; unknown actions are
    /// counted and passed over.
    fn next_action(
        &mut self,
        r: u32,
        args: &mut Vec<f64>,
        text: &mut String,
    ) -> Result<Option<(usize, u32)>, Error> {
        loop {
            let Some((start, end)) = self.next_line(r)? else {
                return Ok(None);
            };
            match self.parse(r, start, end, args, text)? {
                Line::Action(kind, comm) => return Ok(Some((kind, comm))),
                Line::Unknown(word) => *self.skipped.entry(word).or_default() += 1,
                Line::Nothing => {}
            }
        }
    }

    /// Parses rank `r`'s line at `start..end` of its cursor's buffer.
    fn parse(
        &self,
        r: u32,
        start: usize,
        end: usize,
        args: &mut Vec<f64>,
        name_text: &mut String,
    ) -> Result<Line, Error> {
        let at = || self.position(r);
        let text = String::from_utf8_lossy(&self.cursors[r as usize].buf[start..end]);
        let text = text.split('#').next().unwrap_or("");
        let text = text.trim_start_matches('\u{feff}').trim();
        if text.is_empty() {
            return Ok(Line::Nothing);
        }
        let mut words = text.split_whitespace();
        let who: u32 = words
            .next()
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| format!("{}: a line starts with its rank number", at()))?;
        if who != r {
            if let Some(ranks) = self.known_ranks().filter(|&n| who as usize >= n) {
                return Err(format!(
                    "{}: the line is rank {who}'s, and the trace's ranks are 0 to {}",
                    at(),
                    ranks - 1
                ));
            }
            if self.shared {
                return Ok(Line::Nothing);
            }
            return Err(format!(
                "{}: this line is rank {who}'s, in rank {r}'s trace file",
                at()
            ));
        }
        let Some(word) = words.next() else {
            return Err(format!("{}: no action after the rank number", at()));
        };
        let Some(kind) = action_kind(word) else {
            return Ok(Line::Unknown(shown(word)));
        };
        let (name, need) = ACTIONS[kind];
        args.clear();
        name_text.clear();
        if name == "region_begin" {
            let shape = "a region's name is one word (%20 stands for a space)";
            let Some(w) = words.next() else {
                return Err(format!(
                    "{}: `region_begin` needs the region's name: {shape}",
                    at()
                ));
            };
            if let Some(more) = words.next() {
                return Err(format!(
                    "{}: `region_begin`: `{}` after the name: {shape}",
                    at(),
                    shown(more)
                ));
            }
            decode(w, name_text);
            return Ok(Line::Action(kind, 0));
        }
        let mut comm = 0;
        // the second number as written (a point-to-point line's tag, shown when refused)
        let mut second = "";
        for w in words {
            if let Some(id) = w.strip_prefix("comm=") {
                comm = id.parse().map_err(|_| {
                    format!("{}: `{}`: a communicator is a whole number", at(), shown(w))
                })?;
                continue;
            }
            match w.parse::<f64>() {
                Ok(x) if x.is_finite() => {
                    if args.len() == 1 {
                        second = w;
                    }
                    args.push(x)
                }
                // `location FILE LINE` names a source file
                _ if name == "location" => args.push(0.0),
                _ => {
                    return Err(format!(
                        "{}: `{name}`: `{}` is not a number",
                        at(),
                        shown(w)
                    ))
                }
            }
        }
        // the older format's point-to-point lines have no tag (`send DST N [DT]`): tag 0, as
        // SimGrid's replay gave them; two numbers can only be that, in any trace
        if matches!(name, "send" | "isend" | "recv" | "irecv") && (self.legacy || args.len() == 2) {
            args.insert(1, 0.0);
        }
        if args.len() < need {
            return Err(format!(
                "{}: `{name}` needs at least {need} arguments, the line has {}",
                at(),
                args.len()
            ));
        }
        // a tag is an MPI `int` (MPI_TAG_UB is at most 2^31 - 1), and a receive may take any
        // (-1, MPI_ANY_TAG): so no tag of a trace reaches the library's own (2^61 and up)
        if matches!(name, "send" | "isend" | "recv" | "irecv") {
            let tag = args[1];
            let any = if name.ends_with("recv") { -1.0 } else { 0.0 };
            if tag.fract() != 0.0 || tag < any || tag > MAX_TAG as f64 {
                return Err(format!(
                    "{}: `{name}`: tag {} is not an MPI tag: a whole number from {any} to \
                     2^31 - 1{}",
                    at(),
                    shown(second),
                    if any < 0.0 { " (-1: any tag)" } else { "" }
                ));
            }
        }
        // a duration or an amount of work is never negative
        if matches!(name, "compute" | "sleep") && args[0] < 0.0 {
            return Err(format!(
                "{}: `{name}`: {} is negative: {} at least 0",
                at(),
                args[0],
                if name == "sleep" {
                    "a time is"
                } else {
                    "work is"
                }
            ));
        }
        // `alltoallv SEND COUNTS[p] RECV COUNTS[p] [DT DT]` on the world: a count per rank, twice
        if let (true, Some(p)) = (name == "alltoallv" && comm == 0, self.known_ranks()) {
            if args.len() < 2 + 2 * p {
                return Err(format!(
                    "{}: `alltoallv` on {p} ranks needs a send and a receive count for each \
                     ({} numbers with the two buffer sizes), the line has {}",
                    at(),
                    2 + 2 * p,
                    args.len()
                ));
            }
        }
        Ok(Line::Action(kind, comm))
    }

    /// The next line of rank `r`'s file (without its end), as a range of its cursor's
    /// buffer, or None at the end.
    fn next_line(&mut self, r: u32) -> Result<Option<(usize, usize)>, Error> {
        loop {
            let c = &mut self.cursors[r as usize];
            // (each byte is looked at once, however many reads a long line takes)
            let from = c.pos + c.scanned;
            if let Some(end) = c.buf[from..].iter().position(|&b| b == b'\n') {
                let line = (c.pos, from + end);
                c.pos = from + end + 1;
                c.scanned = 0;
                c.line += 1;
                return Ok(Some(line));
            }
            c.scanned = c.buf.len() - c.pos;
            if c.scanned > MAX_LINE {
                let line = c.line + 1;
                return Err(format!(
                    "{} line {line}: longer than {} without an end: not a line of a trace",
                    self.file_of(r).display(),
                    crate::units::Bytes(MAX_LINE as u64)
                ));
            }
            if c.done {
                if c.pos < c.buf.len() {
                    // a last line without its newline
                    let line = (c.pos, c.buf.len());
                    c.pos = c.buf.len();
                    c.scanned = 0;
                    c.line += 1;
                    return Ok(Some(line));
                }
                c.buf = Vec::new();
                c.pos = 0;
                return Ok(None);
            }
            self.refill(r)?;
        }
    }

    /// Reads the next chunk of rank `r`'s file after what its cursor holds.
    fn refill(&mut self, r: u32) -> Result<(), Error> {
        let fi = if self.shared { 0 } else { r };
        let path = self.file_of(r).to_path_buf();
        let slot = match self.open.iter().position(|(f, _, _)| *f == fi) {
            Some(i) => i,
            None => {
                let f = File::open(&path)
                    .map_err(|e| format!("cannot read the trace file {}: {e}", path.display()))?;
                if self.open.len() >= OPEN_FILES {
                    self.open.remove(0);
                }
                self.open.push((fi, f, 0));
                self.open.len() - 1
            }
        };
        let c = &mut self.cursors[r as usize];
        c.buf.drain(..c.pos);
        c.pos = 0;
        let have = c.buf.len();
        // (a line longer than a chunk is read in ever larger pieces: a few reads, not one per
        // kilobyte)
        c.buf.resize(have + CHUNK.max(have), 0);
        let (_, file, at) = &mut self.open[slot];
        let n = (if *at == c.offset {
            Ok(c.offset)
        } else {
            file.seek(SeekFrom::Start(c.offset))
        })
        .and_then(|_| file.read(&mut c.buf[have..]))
        .map_err(|e| format!("cannot read the trace file {}: {e}", path.display()))?;
        *at = c.offset + n as u64;
        c.buf.truncate(have + n);
        c.offset += n as u64;
        if n == 0 {
            c.done = true;
        }
        if c.buf.capacity() > 4 * CHUNK && c.buf.len() < CHUNK {
            c.buf.shrink_to(CHUNK);
        }
        Ok(())
    }

    /// Counts a note of the replay (an action replayed approximately).
    pub(crate) fn note(&mut self, what: &str) {
        *self.notes.entry(what.to_string()).or_default() += 1;
    }

    /// The warnings of a finished replay: lines skipped and approximations, counted.
    #[cfg(test)]
    pub(crate) fn warnings(&self) -> Vec<String> {
        super::warnings(&self.index, self.legacy, &self.skipped, &self.notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::datatype_bytes;

    fn trace(dir: &Path, files: &[(&str, &str)]) -> Trace {
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        Trace::open(&dir.join(files[0].0), |p| Ok(p.to_path_buf())).unwrap()
    }

    #[test]
    fn an_index_names_a_file_per_rank_and_each_streams() {
        let d = tempfile::tempdir().unwrap();
        let long: String = (0..500).map(|i| format!("1 compute {i}\n")).collect();
        let mut t = trace(
            d.path(),
            &[
                ("app.txt", "r0.txt\nr1.txt\n"),
                (
                    "r0.txt",
                    "0 init\n0 send 1 7 100 6\n# a comment\n0 finalize",
                ),
                (
                    "r1.txt",
                    &format!("1 init\n{long}1 recv 0 7 100\n1 bogus 3\n"),
                ),
            ],
        );
        assert_eq!(t.ranks().unwrap(), 2);
        assert_eq!(t.next(0).unwrap().unwrap().name, "init");
        let send = t.next(0).unwrap().unwrap();
        assert_eq!(
            (send.name, send.args.to_vec()),
            ("send", vec![1.0, 7.0, 100.0, 6.0])
        );
        assert!(t.position(0).ends_with("r0.txt:2"));
        assert_eq!(
            t.next(0).unwrap().unwrap().name,
            "finalize",
            "a last line without newline"
        );
        assert_eq!(t.next(0).unwrap(), None);
        // rank 1 reads across many chunks, interleaved with rank 0
        let mut sum = 0.0;
        for _ in 0..501 {
            let a = t.next(1).unwrap().unwrap();
            if a.name == "compute" {
                sum += a.args[0];
            }
        }
        assert_eq!(sum, (0..500).sum::<u32>() as f64);
        assert_eq!(t.next(1).unwrap().unwrap().name, "recv");
        assert_eq!(t.next(1).unwrap(), None, "the unknown action is skipped");
        assert_eq!(t.skipped["bogus"], 1);
        assert!(
            t.cursors[1].buf.capacity() <= 4 * CHUNK,
            "memory does not grow"
        );
    }

    #[test]
    fn a_one_file_trace_holds_every_rank() {
        let d = tempfile::tempdir().unwrap();
        let mut t = trace(
            d.path(),
            &[("all.txt", "0 init\n1 init\n0 compute 5\n1 compute 7\n")],
        );
        assert_eq!(t.ranks().unwrap(), 2);
        t.next(1).unwrap();
        assert_eq!(t.next(1).unwrap().unwrap().args, &[7.0]);
        assert!(t.position(1).ends_with("all.txt:4"));
        t.next(0).unwrap();
        assert_eq!(t.next(0).unwrap().unwrap().args, &[5.0]);
    }

    #[test]
    fn a_malformed_line_is_named_with_its_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let mut t = trace(
            d.path(),
            &[
                ("a.txt", "x.txt\n"),
                ("x.txt", "0 init\n0 send 1\n0 recv 1 x 3\n"),
            ],
        );
        t.next(0).unwrap();
        let e = t.next(0).unwrap_err();
        assert!(
            e.ends_with("x.txt:2: `send` needs at least 3 arguments, the line has 1"),
            "{e}"
        );
        let e = t.next(0).unwrap_err();
        assert!(e.ends_with("x.txt:3: `recv`: `x` is not a number"), "{e}");
        assert_eq!(datatype_bytes(0), Some(8));
        assert_eq!(datatype_bytes(1), Some(4));
        assert_eq!(datatype_bytes(6), Some(1));
        assert_eq!(datatype_bytes(99), None);
    }

    /// SimGrid's older format: its spellings, and point-to-point lines without a tag.
    #[test]
    fn the_older_format_is_read_with_tag_zero() {
        let d = tempfile::tempdir().unwrap();
        let mut t = trace(
            d.path(),
            &[
                ("old.txt", "o0.txt\no1.txt\n"),
                (
                    "o0.txt",
                    "0 init\n0 Isend 1 100\n0 send 1 50 0\n0 waitAll\n0 allReduce 8 5\n",
                ),
                ("o1.txt", "1 init\n1 Irecv 0 100\n1 recv 0 50 0\n1 wait\n"),
            ],
        );
        t.next(0).unwrap();
        let isend = t.next(0).unwrap().unwrap();
        assert_eq!(
            (isend.name, isend.args.to_vec()),
            ("isend", vec![1.0, 0.0, 100.0])
        );
        // lower case in the older format: still no tag (here with its datatype)
        let send = t.next(0).unwrap().unwrap();
        assert_eq!(
            (send.name, send.args.to_vec()),
            ("send", vec![1.0, 0.0, 50.0, 0.0])
        );
        assert_eq!(t.next(0).unwrap().unwrap().name, "waitall");
        let ar = t.next(0).unwrap().unwrap();
        assert_eq!((ar.name, ar.args.to_vec()), ("allreduce", vec![8.0, 5.0]));
        assert!(
            t.warnings()[0].contains("older TI format"),
            "{:?}",
            t.warnings()
        );
        // a trace in today's format keeps its tags, and a line of two numbers is the older one
        let mut now = trace(
            d.path(),
            &[
                ("new.txt", "n0.txt\n"),
                (
                    "n0.txt",
                    "0 init\n0 isend 1 7 100 6\n0 send 1 7 50\n0 recv 1 9\n",
                ),
            ],
        );
        now.next(0).unwrap();
        assert_eq!(now.next(0).unwrap().unwrap().args, &[1.0, 7.0, 100.0, 6.0]);
        assert_eq!(now.next(0).unwrap().unwrap().args, &[1.0, 7.0, 50.0]);
        assert_eq!(now.next(0).unwrap().unwrap().args, &[1.0, 0.0, 9.0]);
        assert!(now.warnings().is_empty());
    }

    /// mgensim's regions: a name of one word, `%XX` decoded; a missing or two-word name is an
    /// error naming the line.
    #[test]
    fn a_region_s_name_is_one_word_with_its_escapes_decoded() {
        let d = tempfile::tempdir().unwrap();
        let mut t = trace(
            d.path(),
            &[(
                "all.txt",
                "0 region_begin solve%20step%23%zz\n0 region_end\n0 region_begin\n\
                 0 region_begin a b\n",
            )],
        );
        let a = t.next(0).unwrap().unwrap();
        assert_eq!(
            (a.name, a.text, a.args.len()),
            ("region_begin", "solve step#%zz", 0)
        );
        let a = t.next(0).unwrap().unwrap();
        assert_eq!((a.name, a.text), ("region_end", ""));
        let e = t.next(0).unwrap_err();
        assert!(e.ends_with("all.txt:3: `region_begin` needs the region's name: a region's name is one word (%20 stands for a space)"), "{e}");
        let e = t.next(0).unwrap_err();
        assert!(e.ends_with("all.txt:4: `region_begin`: `b` after the name: a region's name is one word (%20 stands for a space)"), "{e}");
    }

    #[test]
    fn a_trace_is_told_from_other_files() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n);
        std::fs::write(p("one.txt"), "# SMPI\n\n0 init\n1 init\n").unwrap();
        std::fs::create_dir(p("app_files")).unwrap();
        std::fs::write(p("app_files/r0.txt"), "0 init\n").unwrap();
        std::fs::write(p("app.txt"), "/elsewhere/app_files/r0.txt\n").unwrap();
        std::fs::write(p("s.toml"), "[network]\ndims = [4]\n").unwrap();
        std::fs::write(p("list.txt"), "s.toml\n").unwrap();
        assert_eq!(kind(&p("one.txt")), Some(Kind::OneFile));
        assert_eq!(kind(&p("app.txt")), Some(Kind::Index));
        assert_eq!(kind(&p("s.toml")), None);
        assert_eq!(
            kind(&p("list.txt")),
            None,
            "a list of files that are not traces"
        );
        assert_eq!(kind(&p("none.txt")), None);
    }
}
