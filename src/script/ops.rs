//! Each API call's operation, by its [`Call`]: what it does with its arguments once they have
//! been decoded by the rules of its entry in the API's table (`api/mod.rs`; `args.rs` decodes).
//! `api.rs` makes the Lua functions and the prelude's primitives from the table and calls
//! [`Ops::run`]; the fast path (`fast.rs`) applies the same `calls.rs` rules to the common case
//! and hands every other call to these.

use super::args::{call_error, error, job_span, Args};
use crate::api::Call;
use crate::files::FileAccess;
use crate::part::Part;
use crate::rdma::OpKind;
use mlua::{IntoLuaMulti, Lua, MultiValue, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// What the operations act on: the partition, the files a script may read (`MGEN_trace_open`)
/// and the last permutation `MGEN_random_ring` drew.
pub(super) struct Ops {
    pub(super) part: Rc<RefCell<Part>>,
    files: FileAccess,
    drawn: RefCell<Option<RingDraw>>,
}

impl Ops {
    pub(super) fn new(part: Rc<RefCell<Part>>, files: FileAccess) -> Ops {
        Ops {
            part,
            files,
            drawn: RefCell::new(None),
        }
    }

    /// Runs the operation of call `op` with arguments `a`, for the call `made` the script made
    /// (errors and the profile name it: `MGEN_Send` posts with `MGEN_Isend`'s operation).
    pub(super) fn run(
        &self,
        lua: &Lua,
        op: Call,
        made: Call,
        mut a: Args,
    ) -> mlua::Result<MultiValue> {
        let func = made.name();
        let f = &self.part;
        match op {
            Call::CommRank => f.borrow().comm_rank().into_lua_multi(lua),
            Call::CommSize => job_span(&f.borrow()).1.into_lua_multi(lua),
            Call::Wtime => f.borrow().clock().as_secs_f64().into_lua_multi(lua),
            Call::Comp => {
                f.borrow_mut()
                    .compute(a.num(0))
                    .map_err(|e| call_error(lua, 1, func, e))?;
                Ok(MultiValue::new())
            }
            Call::Put | Call::Get => {
                let kind = if op == Call::Put {
                    OpKind::Put
                } else {
                    OpKind::Get
                };
                f.borrow_mut()
                    .issue(kind, a.rank(0), a.bytes(1), a.int(2), a.nic(3))
                    .into_lua_multi(lua)
            }
            Call::Copy => self.copy(lua, a),
            Call::Poll => f.borrow_mut().poll(a.int(0)).into_lua_multi(lua),
            Call::Complete => {
                let mut w = f.borrow_mut();
                let seq = w
                    .take_handle(a.int(0))
                    .map_err(|e| call_error(lua, 1, func, e))?;
                w.complete(seq).into_lua_multi(lua)
            }
            Call::Isend => {
                let (dest, bytes, tag, nic) = (a.rank(0), a.bytes(1), a.int(2), a.nic(3));
                f.borrow_mut()
                    .isend(made, dest, bytes, tag, nic)
                    .into_lua_multi(lua)
            }
            Call::Irecv => {
                let (src, bytes, tag) = (a.int(0), a.bytes(1), a.int(2));
                f.borrow_mut()
                    .irecv(made, src, bytes, tag)
                    .into_lua_multi(lua)
            }
            Call::RegionBegin => {
                f.borrow_mut().region_begin(&a.take_str(0));
                Ok(MultiValue::new())
            }
            Call::RegionEnd => {
                f.borrow_mut()
                    .region_end()
                    .map_err(|e| call_error(lua, 1, func, e))?;
                Ok(MultiValue::new())
            }
            Call::Report => {
                f.borrow_mut().report(a.take_str(0), a.num(1));
                Ok(MultiValue::new())
            }
            Call::RandomRing => self.random_ring(lua, a),
            Call::TraceOpen => self.trace_open(lua, a),
            Call::TraceWhere => {
                let mut w = f.borrow_mut();
                let me = w.current();
                w.replays()
                    .position(me)
                    .unwrap_or_default()
                    .into_lua_multi(lua)
            }
            Call::TraceNote => {
                let mut w = f.borrow_mut();
                let me = w.current();
                w.replays()
                    .note(me, &a.take_str(0))
                    .map_err(mlua::Error::runtime)?;
                Ok(MultiValue::new())
            }
            // made by the prelude's forms over the primitives `api.rs` makes (waits), or by
            // the fast path alone: no operation of their own
            Call::Wait
            | Call::Waitall
            | Call::Test
            | Call::Send
            | Call::Recv
            | Call::Sendrecv
            | Call::Region
            | Call::TraceNext => Err(error(
                lua,
                1,
                format!("internal error: {} has no operation of its own", op.name()),
            )),
        }
    }

    /// The error of a call made with more arguments than its entry lists (`Made::RustStrict`).
    pub(super) fn too_many(call: Call) -> String {
        match call {
            Call::RegionEnd => {
                "MGEN_region_end takes no arguments: it ends the innermost region".into()
            }
            c => format!(
                "{} takes at most {} arguments",
                c.name(),
                c.entry().args.len()
            ),
        }
    }

    /// `MGEN_acp_copy(src, dst, bytes, tag?, nic?)`: a put if the caller is `src`, a get if it
    /// is `dst`; a third party's copy is refused.
    fn copy(&self, lua: &Lua, a: Args) -> mlua::Result<MultiValue> {
        let mut w = self.part.borrow_mut();
        let (src, dst) = (a.rank(0), a.rank(1));
        let (bytes, tag, nic) = (a.bytes(2), a.int_or(3, 0), a.nic(4));
        let me = w.comm_rank();
        if src == me {
            w.issue(OpKind::Put, dst, bytes, tag, nic)
                .into_lua_multi(lua)
        } else if dst == me {
            w.issue(OpKind::Get, src, bytes, tag, nic)
                .into_lua_multi(lua)
        } else {
            Err(error(
                lua,
                1,
                format!(
                    "MGEN_acp_copy: rank {} is neither `src` ({}) nor `dst` ({}); third-party copies are not modelled",
                    me, src, dst
                ),
            ))
        }
    }

    /// `MGEN_random_ring(n, x)`: `x`'s neighbours in `util.permutation(n)`'s ring, drawn once
    /// for every rank whose generator is in the same state (the 64K ranks of a random ring
    /// would otherwise each draw, and search, a permutation of 64K: 2^32 steps of Lua).
    fn random_ring(&self, lua: &Lua, a: Args) -> mlua::Result<MultiValue> {
        let (n, x) = (a.int(0), a.int(1));
        if !(1..=1 << 31).contains(&n) {
            return Err(error(
                lua,
                1,
                format!("MGEN_random_ring: `n` must be in 1..2^31, got {n}"),
            ));
        }
        if !(0..n).contains(&x) {
            return Err(error(
                lua,
                1,
                format!("MGEN_random_ring: `x` must be in 0..{}, got {x}", n - 1),
            ));
        }
        let mut w = self.part.borrow_mut();
        let rng = w.rng();
        let mut d = self.drawn.borrow_mut();
        if !d
            .as_ref()
            .is_some_and(|d| d.before == *rng && d.pos.len() == n as usize)
        {
            *d = Some(RingDraw::draw(*rng, n as u32));
        }
        let d = d.as_ref().expect("drawn above");
        *rng = d.after;
        let n = n as usize;
        let p = d.pos[x as usize] as usize;
        (d.perm[(p + n - 1) % n], d.perm[(p + 1) % n]).into_lua_multi(lua)
    }

    /// `MGEN_trace_open(path)`'s operation: opens the rank's trace (the file checked by the
    /// sandbox like any other a script reads) and gives its number of ranks.
    fn trace_open(&self, lua: &Lua, a: Args) -> mlua::Result<MultiValue> {
        let Value::String(path) = a.lua(0) else {
            unreachable!("a path is a string (args.rs)")
        };
        let name = path.to_str()?.to_string();
        let access = &self.files;
        // (every rank of a job checks the same index: the sandbox keeps its folder's
        // canonical form, so each check after the first is one `lstat`)
        let index = access
            .resolve(&name)
            .map_err(|e| mlua::Error::runtime(format!("MGEN_trace_open: {e}")))?;
        let mut w = self.part.borrow_mut();
        let (job, me, rank) = (w.job_index(), w.current(), w.comm_rank());
        let check = |p: &std::path::Path| access.resolve(&p.to_string_lossy());
        let ranks = w
            .replays()
            .open(job, me, rank, &index, check)
            .map_err(|e| mlua::Error::runtime(format!("MGEN_trace_open: {e}")))?;
        ranks.into_lua_multi(lua)
    }
}

/// One permutation drawn for `MGEN_random_ring`: the generator's state before and after the
/// draw, the permutation and each element's position in it.
struct RingDraw {
    before: crate::random::Xoshiro,
    after: crate::random::Xoshiro,
    perm: Vec<u32>,
    pos: Vec<u32>,
}

impl RingDraw {
    /// `util.permutation(n)`'s Fisher-Yates, draw for draw: for `i = n..2`, swap element `i`
    /// with element `math.random(i)` (1-based).
    fn draw(mut rng: crate::random::Xoshiro, n: u32) -> RingDraw {
        let before = rng;
        let mut perm: Vec<u32> = (0..n).collect();
        for i in (2..=n as i64).rev() {
            let j = rng.range(1, i);
            perm.swap(i as usize - 1, j as usize - 1);
        }
        let mut pos = vec![0u32; n as usize];
        for (p, &v) in perm.iter().enumerate() {
            pos[v as usize] = p as u32;
        }
        RingDraw {
            before,
            after: rng,
            perm,
            pos,
        }
    }
}
