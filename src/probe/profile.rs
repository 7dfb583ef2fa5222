//! Where each rank's time went, per API call and per region (`--profile`, as mpiP gives for
//! MPI): for each call the rank made, how many times and how much of its simulated time it
//! took (the call's own cost on the rank's clock, such as a send's overhead and copy or a
//! put's node latency, plus the time it was blocked in it); for each region a script names
//! (`MGEN_region`, the collectives of `mgen.coll`), how often it ran and the time inside it.
//!
//! A replayed trace (`mgen.replay`) adds the program's own view, as mpiP gives it: a row of
//! kind `replayed` per MPI function its actions record (`MPI_Allreduce`, `MPI_Wait`, and
//! `compute` between calls; [`crate::replay::mpi_name`]), each the time from the rank asking
//! for the action (`MGEN_trace_next`) to its asking for the next, so that a collective counts
//! with every message it is made of and a rank's rows add up to its time; and a row of kind
//! `replayed region` per region the trace recorded (a function of the program: an OTF2 user
//! region), a region opened by the trace's `region_begin` rather than by a script or the
//! library replaying an action. The API calls and the library's regions the actions were
//! replayed as keep their own rows (`call`, `region`).
//!
//! Every call counts once per call the script made. A blocking call made of others counts
//! once, under its own name: `MGEN_Recv`'s posting and its wait are both `MGEN_Recv`'s time.
//! A wait counts once however often the rank was resumed in it, and `MGEN_Waitall` once per
//! list, not per request. Each partition records its own ranks; the
//! profiles are gathered in a fixed order, so the figures are the same for any partitioning.

/// The API calls the profile tells apart: those of the API's table (`api/mod.rs`) it gives a
/// row (`profiled`), by their [`crate::api::Call`] value.
pub(crate) use crate::api::Call as Api;

/// The calls' names, by [`Api`] value.
const CALLS: &[crate::api::Entry] = crate::api::CALLS;

/// The first key of the replayed actions (by their index in [`crate::replay::ACTIONS`]).
const ACTIONS: u32 = CALLS.len() as u32;
/// The first key of the regions (by their id in the names).
const REGIONS: u32 = ACTIONS + crate::replay::ACTIONS.len() as u32;
/// Set in a region's key for a region the replayed trace recorded.
const TRACED: u32 = 1 << 31;

/// The place of `region_begin` in [`crate::replay::ACTIONS`].
const REGION_BEGIN: u32 = {
    let mut i = 0;
    while !matches!(crate::replay::ACTIONS[i].0.as_bytes(), b"region_begin") {
        i += 1;
    }
    i as u32
};

/// One rank's figures for one call, action or region: `(key, count, ps)`, the key a call's
/// [`Api`] value, [`ACTIONS`] plus an action's index, or [`REGIONS`] plus a region's id.
type Entry = (u32, u64, u64);

/// The profile of a partition's ranks (after [`Profile::absorb`], of all of them).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Profile {
    /// Per global rank: its entries, in the order first met (a handful: found by a scan).
    ranks: Vec<Vec<Entry>>,
    /// Per global rank: its open regions, `(key, start ps)` (the key [`REGIONS`] plus the
    /// region's id, and [`TRACED`] for one the replayed trace opened).
    open: Vec<Vec<(u32, u64)>>,
    /// Per global rank: the replayed action it is in, `(index, start ps)`.
    acting: Vec<Option<(u32, u64)>>,
    /// Region names.
    names: super::names::Names,
}

impl Profile {
    /// An empty profile of `ranks` ranks (numbered globally).
    pub(crate) fn new(ranks: usize) -> Profile {
        Profile {
            ranks: vec![Vec::new(); ranks],
            open: vec![Vec::new(); ranks],
            acting: vec![None; ranks],
            names: Default::default(),
        }
    }

    fn add(&mut self, rank: u32, key: u32, count: u64, ps: u64) {
        let list = &mut self.ranks[rank as usize];
        match list.iter_mut().find(|e| e.0 == key) {
            Some(e) => {
                e.1 += count;
                e.2 += ps;
            }
            None => list.push((key, count, ps)),
        }
    }

    /// `rank` made call `api`, which took `ps` of its time.
    #[inline]
    pub(crate) fn call(&mut self, rank: u32, api: Api, ps: u64) {
        debug_assert!(api.entry().profiled, "{} has no row", api.name());
        self.add(rank, api as u32, 1, ps);
    }

    /// `rank` was blocked in call `api` (already counted) for `ps`.
    #[inline]
    pub(crate) fn blocked(&mut self, rank: u32, api: Api, ps: u64) {
        debug_assert!(api.entry().profiled, "{} has no row", api.name());
        self.add(rank, api as u32, 0, ps);
    }

    /// `ps` of what `rank` was counted in call `api` came after the run's stop
    /// (`Part::cut_at`): taken back.
    pub(crate) fn take_back(&mut self, rank: u32, api: Api, ps: u64) {
        if let Some(e) = self.ranks[rank as usize]
            .iter_mut()
            .find(|e| e.0 == api as u32)
        {
            e.2 = e.2.saturating_sub(ps);
        }
    }

    /// `rank` asked for its next replayed action at `t` (ps): the one it was in ends, and
    /// `next` (an index into [`crate::replay::ACTIONS`]) begins, if its trace has one.
    pub(crate) fn action(&mut self, rank: u32, next: Option<usize>, t: u64) {
        let slot = &mut self.acting[rank as usize];
        let was = std::mem::replace(slot, next.map(|k| (k as u32, t)));
        if let Some((k, start)) = was {
            // (what records no call of the program, a region or a definition, has no row)
            if crate::replay::mpi_name(k as usize).is_some() {
                self.add(rank, ACTIONS + k, 1, t.saturating_sub(start));
            }
        }
    }

    /// `rank` entered region `name` at `t` (ps): one the replayed trace recorded if the rank
    /// is replaying a `region_begin`.
    pub(crate) fn begin(&mut self, rank: u32, name: &str, t: u64) {
        let id = self.names.id(name);
        let traced = matches!(self.acting[rank as usize], Some((REGION_BEGIN, _)));
        let key = (REGIONS + id) | if traced { TRACED } else { 0 };
        self.open[rank as usize].push((key, t));
    }

    /// `rank` left its innermost region at `t` (ps).
    pub(crate) fn end(&mut self, rank: u32, t: u64) {
        if let Some((key, start)) = self.open[rank as usize].pop() {
            self.add(rank, key, 1, t.saturating_sub(start));
        }
    }

    /// Gathers `other`, another partition's profile of the same run (its ranks are not
    /// these'), into this one.
    pub(crate) fn absorb(&mut self, other: Profile) {
        let ids = self.names.merge(&other.names);
        for (r, list) in other.ranks.into_iter().enumerate() {
            for (key, count, ps) in list {
                let (flag, k) = (key & TRACED, key & !TRACED);
                let key = if k < REGIONS {
                    key
                } else {
                    (REGIONS + ids[(k - REGIONS) as usize]) | flag
                };
                self.add(r as u32, key, count, ps);
            }
        }
    }

    /// The rows of the profile: one per call and per region that some rank made, the
    /// largest total time first (then by kind and name: the same order for any run that
    /// gives the same figures). `span_ps` is the ranks' time together (each rank's finish
    /// time, summed), of which each row gives its share.
    pub(crate) fn rows(&self, span_ps: u64) -> Vec<ProfileRow> {
        // key -> per-rank times, counts
        let mut by_key: std::collections::BTreeMap<u32, (Vec<u64>, u64)> = Default::default();
        for list in &self.ranks {
            for &(key, count, ps) in list {
                let e = by_key.entry(key).or_default();
                e.0.push(ps);
                e.1 += count;
            }
        }
        let mut rows: Vec<ProfileRow> = by_key
            .into_iter()
            .map(|(key, (times, count))| {
                let region = |k: u32| self.names.name((k & !TRACED) - REGIONS).to_string();
                let (kind, name) = if key < ACTIONS {
                    ("call", CALLS[key as usize].name.to_string())
                } else if key < REGIONS {
                    let k = (key - ACTIONS) as usize;
                    (
                        "replayed",
                        crate::replay::mpi_name(k).unwrap_or("").to_string(),
                    )
                } else if key & TRACED != 0 {
                    ("replayed region", region(key))
                } else {
                    ("region", region(key))
                };
                let total: u64 = times.iter().sum();
                ProfileRow {
                    kind,
                    name,
                    ranks: times.len() as u64,
                    count,
                    total_ps: total,
                    min_ps: times.iter().copied().min().unwrap_or(0),
                    mean_ps: total / times.len().max(1) as u64,
                    max_ps: times.iter().copied().max().unwrap_or(0),
                    share: if span_ps == 0 {
                        0.0
                    } else {
                        total as f64 / span_ps as f64
                    },
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            b.total_ps
                .cmp(&a.total_ps)
                .then(a.kind.cmp(b.kind))
                .then(a.name.cmp(&b.name))
        });
        rows
    }
}

/// One call or region of the profile, over the ranks that made it.
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct ProfileRow {
    /// `call` (an API function), `region` (a name a script or mgensim's library gave),
    /// `replayed` (an MPI function a replayed trace's actions record, `MPI_Allreduce`, or
    /// `compute` or `sleep` between calls) or `replayed region` (a region the trace recorded:
    /// a function of the program).
    pub(crate) kind: &'static str,
    /// The function's or the region's name.
    pub(crate) name: String,
    /// Ranks that made the call (or entered the region).
    pub(crate) ranks: u64,
    /// Calls (or times in the region), over all ranks.
    pub(crate) count: u64,
    /// Time in it, over all ranks (ps).
    pub(crate) total_ps: u64,
    /// Per rank that made it: least time in it (ps).
    pub(crate) min_ps: u64,
    /// Per rank that made it: mean time in it (ps).
    pub(crate) mean_ps: u64,
    /// Per rank that made it: most time in it (ps).
    pub(crate) max_ps: u64,
    /// Its share of the ranks' time (each rank's finish time, summed), 0 to 1. Regions
    /// enclose calls and each other, so shares of regions and calls add up to more than 1.
    pub(crate) share: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_and_waits_add_up_per_rank_and_regions_nest() {
        let mut p = Profile::new(2);
        p.begin(0, "outer", 0);
        p.call(0, Api::Recv, 200);
        p.blocked(0, Api::Recv, 800);
        p.begin(0, "inner", 1000);
        p.call(0, Api::Comp, 500);
        p.end(0, 1500);
        p.end(0, 2000);
        p.call(1, Api::Comp, 3000);
        let rows = p.rows(5000);
        let row = |name: &str| rows.iter().find(|r| r.name == name).unwrap().clone();
        assert_eq!(
            (row("MGEN_Recv").count, row("MGEN_Recv").total_ps),
            (1, 1000),
            "the wait is the call's, counted once"
        );
        let comp = row("MGEN_Comp");
        assert_eq!((comp.ranks, comp.count, comp.total_ps), (2, 2, 3500));
        assert_eq!((comp.min_ps, comp.mean_ps, comp.max_ps), (500, 1750, 3000));
        assert_eq!(comp.share, 0.7);
        assert_eq!((row("outer").total_ps, row("inner").total_ps), (2000, 500));
        // largest first
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["MGEN_Comp", "outer", "MGEN_Recv", "inner"]);
    }

    #[test]
    fn a_replayed_action_lasts_until_the_next_is_asked_for() {
        let k = |name: &str| {
            crate::replay::ACTIONS
                .iter()
                .position(|a| a.0 == name)
                .unwrap()
        };
        let mut p = Profile::new(1);
        p.action(0, Some(k("send")), 100);
        p.call(0, Api::Send, 300);
        p.action(0, Some(k("allreduce")), 400);
        // (a region the library opens while it replays an action is the library's)
        p.begin(0, "coll.allreduce ring", 400);
        p.end(0, 1400);
        p.action(0, Some(k("region_begin")), 1400);
        p.begin(0, "solver", 1400);
        p.action(0, Some(k("send")), 1400);
        p.action(0, Some(k("region_end")), 1500);
        p.end(0, 1500);
        p.action(0, Some(k("comm")), 1500);
        p.action(0, None, 1500);
        let rows = p.rows(1500);
        let row = |name: &str| rows.iter().find(|r| r.name == name).unwrap().clone();
        // named by the MPI function, counted once per action, lasting until the next
        assert_eq!(
            (
                row("MPI_Send").kind,
                row("MPI_Send").count,
                row("MPI_Send").total_ps
            ),
            ("replayed", 2, 400)
        );
        assert_eq!(
            (row("MPI_Allreduce").count, row("MPI_Allreduce").total_ps),
            (1, 1000)
        );
        assert_eq!(row("MGEN_Send").kind, "call");
        assert_eq!(row("coll.allreduce ring").kind, "region");
        assert_eq!(
            (row("solver").kind, row("solver").total_ps),
            ("replayed region", 100)
        );
        // region_begin, region_end and comm record no call of the program: no row
        let kinds: Vec<(&str, &str)> = rows.iter().map(|r| (r.kind, r.name.as_str())).collect();
        assert_eq!(kinds.len(), 5, "{kinds:?}");
    }

    #[test]
    fn partitions_gathered_give_the_whole_profile() {
        let begin = crate::replay::ACTIONS
            .iter()
            .position(|a| a.0 == "region_begin");
        let mut whole = Profile::new(2);
        let (mut a, mut b) = (Profile::new(2), Profile::new(2));
        for (p, r) in [(&mut whole, 0), (&mut a, 0)] {
            p.begin(r, "x", 0);
            p.call(r, Api::Put, 10);
            p.end(r, 10);
            p.action(r, begin, 10);
            p.begin(r, "y", 10);
            p.action(r, None, 10);
            p.end(r, 30);
        }
        for (p, r) in [(&mut whole, 1), (&mut b, 1)] {
            p.begin(r, "y", 0);
            p.begin(r, "x", 0);
            p.end(r, 7);
            p.end(r, 9);
        }
        b.absorb(a);
        assert_eq!(b.rows(100), whole.rows(100));
    }
}
