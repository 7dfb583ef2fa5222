//! The MGEN API, declared once: every function a script can call, its arguments and the rule
//! each follows, how the function is made (a Rust function, or a wrapper of the prelude's of
//! some form), whether it may block the rank and on what, whether it has a fast path, whether
//! the profile counts it; and the API's constants.
//!
//! Everything else that lists the calls comes from [`CALLS`]: the Lua functions
//! (`script/api.rs` registers each, its arguments decoded by their rules, `script/ops.rs` holds
//! each call's operation), the fast path's names (`script/fast.rs`), the prelude's blocking
//! wrappers (it builds one per call of the table that is made by one of its forms), the
//! profile's call rows (`probe/profile.rs`, keyed by [`Call`]) and the call a deadlock report
//! names (`rank.rs`'s `Wait::Request` holds a [`Call`]; its words are [`Call::wait_words`]).
//! `lua/mgen.d.lua`, the reference, is held to the table by a test (`stub.rs`): every call and
//! constant documented, with the table's argument names, optional ones marked, and nothing more.
//!
//! It names no other module of mgensim but `tags.rs` (the wildcards' values) and, for the
//! typed error of a refused value (`error.rs`), `units.rs`.

mod error;
#[cfg(test)]
mod stub;

pub(crate) use error::CallError;

/// One argument of a call: its name (as the reference and the error messages give it), the
/// rule its value follows, and whether it may be left out (`nil`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arg {
    pub(crate) name: &'static str,
    pub(crate) rule: Rule,
    pub(crate) optional: bool,
}

/// A required argument.
const fn arg(name: &'static str, rule: Rule) -> Arg {
    Arg {
        name,
        rule,
        optional: false,
    }
}

/// An argument that may be left out (or `nil`).
const fn opt(name: &'static str, rule: Rule) -> Arg {
    Arg {
        name,
        rule,
        optional: true,
    }
}

/// The rule an argument's value follows. An integer argument accepts a Lua integer or a float
/// with an integral value; anything else is refused with an error naming the function, the
/// argument and the script line. The ranges are `calls.rs`'s rules, which the fast path
/// applies too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// A rank of the caller's job, 0 to its size - 1.
    Rank,
    /// A rank of the caller's job, or `MGEN_ANY_SOURCE` (the Lua integer -1).
    RankOrAny,
    /// A transfer's size in bytes: >= 0, and at most what one transfer may move in the run.
    Bytes,
    /// Any integer.
    Int,
    /// A send's tag: an integer >= 0.
    SendTag,
    /// A receive's tag: an integer >= 0, or `MGEN_ANY_TAG`.
    RecvTag,
    /// One of the node's NICs, 0 to `node.nics_per_node` - 1 (left out: the next in turn).
    Nic,
    /// An integer, taken by the operation as a handle of the rank's transfers (it says what is
    /// wrong with one that is not: another rank's, used, a request).
    Handle,
    /// An integer, taken by the operation as a request of the rank's messages (it says what is
    /// wrong with one that is not: another rank's, waited for, a handle).
    Request,
    /// A list of requests (`MGEN_Waitall`; the prelude's wrapper and the fast path read it).
    Requests,
    /// `MGEN_STATUS_IGNORE` (`false`) or nothing (the fast path checks it).
    StatusIgnore,
    /// Seconds of simulated time: a number (the operation refuses what is not finite, < 0 or
    /// past the clock's horizon).
    Seconds,
    /// A finite number.
    Finite,
    /// A string.
    Name,
    /// A file name (a string), read through the sandbox.
    Path,
    /// A function (the prelude's wrapper checks it).
    Function,
    /// Any value, not looked at: the communicator (there is one).
    Comm,
    /// Any values (`...`), handed on (the prelude's wrapper).
    Rest,
}

/// How a call's global is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Made {
    /// A Rust function: its arguments decoded by their rules, then the call's operation
    /// (`script/ops.rs`). It takes no more arguments than the table lists (more are ignored),
    /// except with [`Made::RustStrict`].
    Rust,
    /// As [`Made::Rust`], and any argument past those listed is an error.
    RustStrict,
    /// A Lua wrapper of the prelude's, of this form, over Rust primitives made for the call.
    Prelude(Form),
    /// Only the fast path's C function (`script/fast.rs`): there is no full function.
    FastOnly,
}

/// The shapes of the prelude's wrappers (`prelude.lua`, `forms`), each over the Rust
/// primitives `script/api.rs` makes for the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `now(arg)`, the call's operation, says whether it is done; if not, the rank waits
    /// (the engine recorded for what) and yields until it is woken.
    Take,
    /// Waits for one request (`now`, as this call); returns its status unless the second
    /// argument is `MGEN_STATUS_IGNORE`.
    Wait,
    /// Waits for each request of a list in order; returns their statuses unless the second
    /// argument is `MGEN_STATUS_IGNORE`.
    WaitAll,
    /// Lets the engine catch up with the rank's clock (a yield), then looks at a request.
    Test,
    /// Posts with the operation of call `post` (its arguments, its rules; errors and the
    /// profile name this call), then waits for the request; returns its status if `status`.
    PostWait { post: Call, status: bool },
    /// Posts a receive (`recv`'s operation, arguments 4 to 6), then a send (`send`'s,
    /// arguments 1 to 3), waits for both and returns the receive's status.
    Exchange { send: Call, recv: Call },
    /// Checks its name and function, then runs the function between `begin` and `end`
    /// (the full functions of those calls) and returns what it returns.
    Region { begin: Call, end: Call },
    /// Opens the rank's trace (`now`, the call's operation, gives its ranks) and returns the
    /// ranks and the datatypes' sizes, a table shared read-only.
    TraceOpen,
}

/// Whether a call may block the rank, and on what (the rank's `Wait` it records, which a
/// deadlock report names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocks {
    /// Never: it returns at once.
    No,
    /// On a put with a tag being delivered (`Wait::Poll`).
    Poll,
    /// On a transfer completing (`Wait::Complete`).
    Complete,
    /// On a message-passing request (`Wait::Request`, which holds the call), named in a
    /// deadlock report in these words.
    Request(Words),
    /// On the engine catching up with the rank's clock (`Part::sync` wakes it at its own
    /// clock, so it waits no simulated time).
    Sync,
}

/// How a deadlock report puts a wait on a request in a call (`part`: "send" or "receive";
/// `what`: "to rank 1 with tag 0").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Words {
    /// `MGEN_Recv from rank 1 with tag 5`: the call is the send or the receive.
    Plain,
    /// `MGEN_Sendrecv, its receive from rank 1 with tag 5`: the call has both.
    Its,
    /// `MGEN_Wait for a send to rank 2 with tag 0`.
    For,
    /// `MGEN_Waitall, at a receive from rank 1 with tag 5`: one of a list.
    At,
}

/// Whether a call has a C function on the fast path (`script/fast.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fast {
    /// None: the full function is the global.
    No,
    /// One, which takes the common case and hands every other to the full function.
    Yes,
}

/// One call of the API.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// Its global name.
    pub(crate) name: &'static str,
    /// Its arguments, in order.
    pub(crate) args: &'static [Arg],
    pub(crate) made: Made,
    pub(crate) blocks: Blocks,
    pub(crate) fast: Fast,
    /// Whether `--profile` gives it a row (its time: its own cost on the rank's clock, and the
    /// time it was blocked in it).
    pub(crate) profiled: bool,
}

/// Declares [`Call`] (one variant per entry, in order) and [`CALLS`].
macro_rules! table {
    ($( $(#[$doc:meta])* $id:ident => $entry:expr, )*) => {
        /// A call of the API: its place in [`CALLS`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[repr(u8)]
        pub(crate) enum Call {
            $( $(#[$doc])* $id, )*
        }

        /// Every call of the API, in [`Call`]'s order.
        pub(crate) const CALLS: &[Entry] = &[ $( $entry, )* ];

        impl Call {
            /// Every call, in order.
            pub(crate) const ALL: &'static [Call] = &[ $( Call::$id, )* ];
        }
    };
}

use Blocks as B;
use Rule as R;

/// A call made by a Rust function, neither blocking nor fast nor profiled.
const fn plain(name: &'static str, args: &'static [Arg]) -> Entry {
    Entry {
        name,
        args,
        made: Made::Rust,
        blocks: B::No,
        fast: Fast::No,
        profiled: false,
    }
}

/// As [`plain`], with a fast path.
const fn fast(name: &'static str, args: &'static [Arg]) -> Entry {
    Entry {
        fast: Fast::Yes,
        ..plain(name, args)
    }
}

/// As [`fast`], counted in the profile.
const fn hot(name: &'static str, args: &'static [Arg]) -> Entry {
    Entry {
        profiled: true,
        ..fast(name, args)
    }
}

/// A call that may block, made by the prelude's `form`, counted in the profile.
const fn blocking(name: &'static str, args: &'static [Arg], form: Form, blocks: Blocks) -> Entry {
    Entry {
        made: Made::Prelude(form),
        blocks,
        profiled: true,
        ..plain(name, args)
    }
}

/// The arguments of a put or a get (`peer` names the other rank).
const PUT: &[Arg] = &[
    arg("dest", R::Rank),
    arg("bytes", R::Bytes),
    arg("tag", R::Int),
    opt("nic", R::Nic),
];
const GET: &[Arg] = &[
    arg("src", R::Rank),
    arg("bytes", R::Bytes),
    arg("tag", R::Int),
    opt("nic", R::Nic),
];
const SEND: &[Arg] = &[
    arg("dest", R::Rank),
    arg("bytes", R::Bytes),
    arg("tag", R::SendTag),
    opt("nic", R::Nic),
];
const RECV: &[Arg] = &[
    arg("src", R::RankOrAny),
    arg("bytes", R::Bytes),
    arg("tag", R::RecvTag),
];
const COMM: &[Arg] = &[opt("comm", R::Comm)];

table! {
    /// `MGEN_Comm_rank(comm?)`: the rank's number in its job.
    CommRank => fast("MGEN_Comm_rank", COMM),
    /// `MGEN_Comm_size(comm?)`: its job's number of ranks.
    CommSize => fast("MGEN_Comm_size", COMM),
    /// `MGEN_Wtime()`: the rank's clock in seconds.
    Wtime => plain("MGEN_Wtime", &[]),
    /// `MGEN_Comp(seconds)`: the rank computes.
    Comp => hot("MGEN_Comp", &[arg("seconds", R::Seconds)]),
    /// `MGEN_rdma_put(dest, bytes, tag, nic?)`.
    Put => hot("MGEN_rdma_put", PUT),
    /// `MGEN_rdma_get(src, bytes, tag, nic?)`.
    Get => hot("MGEN_rdma_get", GET),
    /// `MGEN_acp_copy(src, dst, bytes, tag?, nic?)`: a put or a get, by which rank calls.
    /// (Its C function only hands the call on, then gives control back if the limits say so.)
    Copy => Entry {
        fast: Fast::Yes,
        ..plain("MGEN_acp_copy", &[
            arg("src", R::Rank),
            arg("dst", R::Rank),
            arg("bytes", R::Bytes),
            opt("tag", R::Int),
            opt("nic", R::Nic),
        ])
    },
    /// `MGEN_rdma_poll(tag)`: waits for a put with the tag.
    Poll => Entry {
        fast: Fast::Yes,
        ..blocking("MGEN_rdma_poll", &[arg("tag", R::Int)], Form::Take, B::Poll)
    },
    /// `MGEN_acp_complete(handle)`: waits for a transfer to complete.
    Complete => Entry {
        fast: Fast::Yes,
        ..blocking("MGEN_acp_complete", &[arg("handle", R::Handle)], Form::Take, B::Complete)
    },
    /// `MGEN_Isend(dest, bytes, tag, nic?)`: a request.
    Isend => hot("MGEN_Isend", SEND),
    /// `MGEN_Irecv(src, bytes, tag)`: a request.
    Irecv => hot("MGEN_Irecv", RECV),
    /// `MGEN_Wait(request, status?)`.
    Wait => Entry {
        fast: Fast::Yes,
        ..blocking(
            "MGEN_Wait",
            &[arg("request", R::Request), opt("status", R::StatusIgnore)],
            Form::Wait,
            B::Request(Words::For),
        )
    },
    /// `MGEN_Waitall(requests, statuses?)`.
    Waitall => Entry {
        fast: Fast::Yes,
        ..blocking(
            "MGEN_Waitall",
            &[arg("requests", R::Requests), opt("statuses", R::StatusIgnore)],
            Form::WaitAll,
            B::Request(Words::At),
        )
    },
    /// `MGEN_Test(request)`: whether it is complete at the rank's clock.
    Test => blocking("MGEN_Test", &[arg("request", R::Request)], Form::Test, B::Sync),
    /// `MGEN_Send(dest, bytes, tag, nic?)`: posts and waits.
    Send => blocking(
        "MGEN_Send",
        SEND,
        Form::PostWait { post: Call::Isend, status: false },
        B::Request(Words::Plain),
    ),
    /// `MGEN_Recv(src, bytes, tag)`: posts and waits; the status.
    Recv => blocking(
        "MGEN_Recv",
        RECV,
        Form::PostWait { post: Call::Irecv, status: true },
        B::Request(Words::Plain),
    ),
    /// `MGEN_Sendrecv(dest, send_bytes, send_tag, src, recv_bytes, recv_tag)`.
    Sendrecv => blocking(
        "MGEN_Sendrecv",
        &[
            arg("dest", R::Rank),
            arg("send_bytes", R::Bytes),
            arg("send_tag", R::SendTag),
            arg("src", R::RankOrAny),
            arg("recv_bytes", R::Bytes),
            arg("recv_tag", R::RecvTag),
        ],
        Form::Exchange { send: Call::Isend, recv: Call::Irecv },
        B::Request(Words::Its),
    ),
    /// `MGEN_region_begin(name)`.
    RegionBegin => fast("MGEN_region_begin", &[arg("name", R::Name)]),
    /// `MGEN_region_end()`: takes no arguments.
    RegionEnd => Entry { made: Made::RustStrict, ..fast("MGEN_region_end", &[]) },
    /// `MGEN_region(name, fn, ...)`: `fn(...)` inside a region.
    Region => Entry {
        made: Made::Prelude(Form::Region { begin: Call::RegionBegin, end: Call::RegionEnd }),
        ..plain(
            "MGEN_region",
            &[arg("name", R::Name), arg("fn", R::Function), opt("...", R::Rest)],
        )
    },
    /// `MGEN_report(name, value)`: a figure for the summary.
    Report => plain("MGEN_report", &[arg("name", R::Name), arg("value", R::Finite)]),
    /// `MGEN_random_ring(n, x)`: `x`'s neighbours in a random ring.
    RandomRing => plain("MGEN_random_ring", &[arg("n", R::Int), arg("x", R::Int)]),
    /// `MGEN_trace_open(path)`: the trace's ranks and the datatypes' sizes.
    TraceOpen => Entry {
        made: Made::Prelude(Form::TraceOpen),
        ..plain("MGEN_trace_open", &[arg("path", R::Path)])
    },
    /// `MGEN_trace_next()`: the rank's next traced action.
    TraceNext => Entry { made: Made::FastOnly, ..fast("MGEN_trace_next", &[]) },
    /// `MGEN_trace_where()`: where the rank is in its trace.
    TraceWhere => plain("MGEN_trace_where", &[]),
    /// `MGEN_trace_note(what)`: a note about the replay, counted.
    TraceNote => plain("MGEN_trace_note", &[arg("what", R::Name)]),
}

/// The value of a constant of the API.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    Int(i64),
    False,
    /// Set for the run: the scenario's folder, the job's arguments.
    OfTheRun,
}

/// The API's constants: name and value.
pub(crate) const CONSTANTS: &[(&str, Value)] = &[
    ("MGEN_COMM_WORLD", Value::Int(0)),
    ("MGEN_ANY_SOURCE", Value::Int(crate::tags::ANY_SOURCE)),
    ("MGEN_ANY_TAG", Value::Int(crate::tags::ANY_TAG)),
    ("MGEN_STATUS_IGNORE", Value::False),
    ("MGEN_SCENARIO_DIR", Value::OfTheRun),
    ("MGEN_args", Value::OfTheRun),
];

impl Call {
    /// Its entry in the table.
    #[inline]
    pub(crate) const fn entry(self) -> &'static Entry {
        &CALLS[self as usize]
    }

    /// The API function's name.
    #[inline]
    pub(crate) const fn name(self) -> &'static str {
        self.entry().name
    }

    /// The call whose global is `name`, if the API has one.
    pub(crate) fn named(name: &str) -> Option<Call> {
        Call::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// A deadlock report's words for a wait in this call on a request: `part` is "send" or
    /// "receive", `what` says with whom and which tag (`to rank 2 with tag 0`).
    pub(crate) fn wait_words(self, part: &str, what: &str) -> String {
        let name = self.name();
        match self.entry().blocks {
            B::Request(Words::Its) => format!("{name}, its {part} {what}"),
            B::Request(Words::For) => format!("{name} for a {part} {what}"),
            B::Request(Words::At) => format!("{name}, at a {part} {what}"),
            _ => format!("{name} {what}"),
        }
    }
}

// The table is consistent: each call's place is its number, names are `MGEN_` and unique, the
// forms name calls of the right kind (checked when compiling).
const _: () = {
    assert!(CALLS.len() == Call::ALL.len() && CALLS.len() < 256);
    let mut i = 0;
    while i < CALLS.len() {
        assert!(Call::ALL[i] as usize == i);
        let name = CALLS[i].name.as_bytes();
        assert!(name.len() > 5);
        assert!(matches!(name, [b'M', b'G', b'E', b'N', b'_', ..]));
        let mut j = 0;
        while j < i {
            assert!(
                !same(CALLS[j].name.as_bytes(), name),
                "a call is declared twice"
            );
            j += 1;
        }
        // a call that blocks is made by the prelude's wrapper, which yields
        if !matches!(CALLS[i].blocks, B::No) {
            assert!(matches!(CALLS[i].made, Made::Prelude(_)));
        }
        if let Made::Prelude(Form::PostWait { post, .. }) = CALLS[i].made {
            assert!(matches!(post.entry().made, Made::Rust));
        }
        i += 1;
    }
};

/// Whether two byte strings are equal (in a `const`).
const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_found_by_its_name_and_names_itself() {
        for &c in Call::ALL {
            assert_eq!(Call::named(c.name()), Some(c));
        }
        assert_eq!(Call::named("MGEN_Recv"), Some(Call::Recv));
        assert_eq!(Call::named("MGEN_recv"), None);
        assert_eq!(Call::Put.name(), "MGEN_rdma_put");
    }

    #[test]
    fn a_deadlock_report_words_each_kind_of_wait_on_a_request() {
        let w = |c: Call| c.wait_words("receive", "from rank 1 with tag 5");
        assert_eq!(w(Call::Recv), "MGEN_Recv from rank 1 with tag 5");
        assert_eq!(
            w(Call::Sendrecv),
            "MGEN_Sendrecv, its receive from rank 1 with tag 5"
        );
        assert_eq!(
            w(Call::Wait),
            "MGEN_Wait for a receive from rank 1 with tag 5"
        );
        assert_eq!(
            w(Call::Waitall),
            "MGEN_Waitall, at a receive from rank 1 with tag 5"
        );
    }
}
