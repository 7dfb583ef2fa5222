#!/usr/bin/env python3
"""Converts an OTF2 trace (what Score-P writes) into a SimGrid time-independent trace that
mgensim replays (`[workload] trace = "OUT/NAME.txt"`), with its communicators.

    tools/otf2_to_ti.py TRACE/traces.otf2 OUT [--name app] [--flops 1e9]

Needs Python's `otf2` module: Debian's `python3-otf2` (`apt-get install -y python3-otf2`, for
/usr/bin/python3) or the one built with OTF2. Writes OUT/NAME.txt (the index) and
OUT/NAME_files/rank-R.txt, one per MPI rank (the order of MPI_COMM_WORLD's locations).

What becomes what:
- the time a rank spends outside MPI calls becomes `compute` of seconds x `--flops` flops
  (replay at the same rate to get the traced times back);
- the functions Score-P recorded (user regions: every region not named MPI_...) become
  `region_begin NAME` and `region_end` around what they did (mgensim's extension; NAME one
  word, %XX standing for a space, `#` or `%`): the replay shows them as regions of the profile
  and the timeline. `--no-regions` leaves them out (their time is compute all the same);
- MPI_Send and MPI_Recv become `send` and `recv`; every other call that sends or receives
  (MPI_Sendrecv, ...) becomes `isend`/`irecv` waited for as the call returns; MPI_Isend and
  MPI_Irecv become `isend`/`irecv` (the receive posted where the program posted it, with the
  source and tag OTF2 records at its completion) and their completions `wait SRC DST TAG`.
  Partners are written as world ranks, sizes in bytes (datatype 6, MPI_BYTE);
- collectives become TI collectives of the block size Score-P's byte counts give (bcast,
  scatter: the bytes received; reduce, gather: the bytes sent; allreduce, allgather,
  alltoall: the bytes sent / p); the v-variants get the per-rank total spread evenly (OTF2
  does not record the counts per rank: noted on stderr);
- a collective on a communicator other than MPI_COMM_WORLD carries `comm=ID`, and each rank
  of a communicator gets a `comm ID W0 W1 ...` line (its members' world ranks, in its rank
  order) before the first use: MPI_Comm_split and MPI_Comm_dup replay as they ran.
"""
import argparse
import tempfile
import collections
import os
import sys

try:
    import otf2
    from otf2.enums import CollectiveOp, GroupType, Paradigm
except ImportError:
    sys.exit("otf2_to_ti.py needs Python's otf2 module: apt-get install -y python3-otf2 "
             "(then run it with /usr/bin/python3)")

BYTE = 6  # SimGrid's MPI_BYTE

SIMPLE = {
    CollectiveOp.BARRIER: "barrier",
    CollectiveOp.BCAST: "bcast",
    CollectiveOp.REDUCE: "reduce",
    CollectiveOp.ALLREDUCE: "allreduce",
    CollectiveOp.GATHER: "gather",
    CollectiveOp.SCATTER: "scatter",
    CollectiveOp.ALLGATHER: "allgather",
    CollectiveOp.ALLTOALL: "alltoall",
    CollectiveOp.GATHERV: "gatherv",
    CollectiveOp.SCATTERV: "scatterv",
    CollectiveOp.ALLGATHERV: "allgatherv",
    CollectiveOp.ALLTOALLV: "alltoallv",
    CollectiveOp.REDUCE_SCATTER: "reducescatter",
    CollectiveOp.REDUCE_SCATTER_BLOCK: "reducescatter",
}


def world_of(defs):
    """The locations of MPI_COMM_WORLD in rank order."""
    for g in defs.groups:
        if g.group_type == GroupType.COMM_LOCATIONS and g.paradigm == Paradigm.MPI:
            return list(g.members)
    sys.exit("otf2_to_ti.py: the trace has no MPI locations (is it an MPI trace?)")


def communicators(defs, rank_of):
    """Each MPI communicator's members as world ranks, and its id: 0 for the world (all
    ranks in world order), 1, 2, ... for the others in definition order."""
    ids, members = {}, {}
    p = len(rank_of)
    next_id = 1
    for c in defs.comms:
        group = getattr(c, "group", None)
        if group is None or getattr(group, "paradigm", Paradigm.MPI) != Paradigm.MPI:
            continue
        ranks = [rank_of[loc] for loc in group.members]
        if ranks == list(range(p)) and next_id == 1 and 0 not in ids.values():
            ids[c] = 0
        else:
            ids[c] = next_id
            next_id += 1
        members[c] = ranks
    return ids, members


def region_word(name):
    """A region's name as one word of a trace line: each character that cannot be in one (a
    space of any kind, a control character, `#`, `%`) written as its UTF-8 bytes, %XX each."""
    def word(c):
        if c.isspace() or not c.isprintable() or c in "#%":
            return "".join(f"%{b:02X}" for b in c.encode("utf-8"))
        return c
    return "".join(word(c) for c in (name or "?"))


def collective_line(op, sent, recv, n, root):
    """The TI line of collective `op` on `n` ranks from Score-P's byte counts at this rank
    (bytes, datatype MPI_BYTE): the block is what a one-to-all receives, what an all-to-one
    sends, an n-th of what an all-to-all sends; v-variants spread their totals evenly."""
    b = sent // max(n, 1)
    even = " ".join([str(max(sent, recv) // max(n, 1))] * n)
    dt = f"{BYTE} {BYTE}"
    return {
        "barrier": "barrier",
        "bcast": f"bcast {recv} {root} {BYTE}",
        "scatter": f"scatter {recv} {recv} {root} {dt}",
        "reduce": f"reduce {sent} 0 {root} {BYTE}",
        "gather": f"gather {sent} {sent} {root} {dt}",
        "allreduce": f"allreduce {b} 0 {BYTE}",
        "allgather": f"allgather {b} {b} {dt}",
        "alltoall": f"alltoall {b} {b} {dt}",
        "alltoallv": f"alltoallv {sent} {even} {recv} {even} {dt}",
        "gatherv": f"gatherv {sent} {even} {root} {dt}",
        "scatterv": f"scatterv {even} {recv} {root} {dt}",
        "allgatherv": f"allgatherv {b} {even} {BYTE}",
        "reducescatter": f"reducescatter {even} 0 {BYTE}",
    }[op]


def convert(path, out, name, flops, regions=True):
    notes = collections.Counter()
    with otf2.reader.open(path) as trace:
        defs = trace.definitions
        resolution = defs.clock_properties.timer_resolution
        world = world_of(defs)
        rank_of = {loc: i for i, loc in enumerate(world)}
        ids, members = communicators(defs, rank_of)
        # first pass: what each posted receive turned out to be (OTF2 says it at completion)
        irecvs = collections.defaultdict(collections.deque)
        for loc, ev in trace.events:
            if isinstance(ev, otf2.events.MpiIrecv) and loc in rank_of:
                src = members[ev.communicator][ev.sender] if ev.communicator in members \
                    else ev.sender
                irecvs[(rank_of[loc], ev.request_id)].append((src, ev.msg_tag, ev.msg_length))
    p = len(world)
    files = os.path.join(out, name + "_files")
    os.makedirs(files, exist_ok=True)
    lines = {r: [f"{r} init\n"] for r in range(p)}
    state = {r: {"last": None, "depth": 0, "region": None, "waits": [], "isends": {},
                 "known": set()} for r in range(p)}

    def computed(r, t):
        """Rank r's time outside MPI calls up to `t`, as `compute` (from its first event)."""
        s = state[r]
        if s["last"] is not None and t > s["last"]:
            secs = (t - s["last"]) / resolution
            lines[r].append(f"{r} compute {secs * flops:.6g}\n")
        s["last"] = t

    def world_rank(comm, r):
        return members[comm][r] if comm in members else r

    def on_comm(r, comm):
        """The `comm=ID` word for a collective on `comm` (and its definition, once)."""
        cid = ids.get(comm, 0)
        if cid == 0:
            return ""
        if cid not in state[r]["known"]:
            state[r]["known"].add(cid)
            lines[r].append(f"{r} comm {cid} " + " ".join(map(str, members[comm])) + "\n")
        return f" comm={cid}"

    with otf2.reader.open(path) as trace:
        # (a reader's definitions are its own objects: found again for this pass)
        world = world_of(trace.definitions)
        rank_of = {loc: i for i, loc in enumerate(world)}
        ids, members = communicators(trace.definitions, rank_of)
        for loc, ev in trace.events:
            if loc not in rank_of:
                continue
            r = rank_of[loc]
            s = state[r]
            out_ = lines[r]
            s["end"] = ev.time
            if isinstance(ev, otf2.events.Enter):
                rname = ev.region.name or ""
                if rname.startswith("MPI_"):
                    if s["depth"] == 0:
                        computed(r, ev.time)
                        s["region"] = rname
                    s["depth"] += 1
                elif s["depth"] == 0 and regions:
                    # a function of the program (outside MPI calls): a region
                    computed(r, ev.time)
                    out_.append(f"{r} region_begin {region_word(rname)}\n")
                elif s["last"] is None:
                    s["last"] = ev.time
            elif isinstance(ev, otf2.events.Leave):
                if (ev.region.name or "").startswith("MPI_") and s["depth"] > 0:
                    s["depth"] -= 1
                    if s["depth"] == 0:
                        out_.extend(s["waits"])
                        s["waits"] = []
                        s["last"] = ev.time
                elif s["depth"] == 0 and regions:
                    computed(r, ev.time)
                    out_.append(f"{r} region_end\n")
            elif isinstance(ev, (otf2.events.MpiSend, otf2.events.MpiRecv)):
                sending = isinstance(ev, otf2.events.MpiSend)
                peer = world_rank(ev.communicator, ev.receiver if sending else ev.sender)
                verb, call = ("send", "MPI_Send") if sending else ("recv", "MPI_Recv")
                what = f"{peer} {ev.msg_tag} {ev.msg_length} {BYTE}\n"
                if s["region"] == call:
                    out_.append(f"{r} {verb} {what}")
                else:
                    # within another call (MPI_Sendrecv, ...): started there, waited for as the
                    # call returns
                    out_.append(f"{r} i{verb} {what}")
                    src, dst = (r, peer) if sending else (peer, r)
                    s["waits"].append(f"{r} wait {src} {dst} {ev.msg_tag}\n")
            elif isinstance(ev, otf2.events.MpiIsend):
                dst = world_rank(ev.communicator, ev.receiver)
                out_.append(f"{r} isend {dst} {ev.msg_tag} {ev.msg_length} {BYTE}\n")
                s["isends"][ev.request_id] = (dst, ev.msg_tag)
            elif isinstance(ev, otf2.events.MpiIsendComplete):
                if ev.request_id in s["isends"]:
                    dst, tag = s["isends"].pop(ev.request_id)
                    out_.append(f"{r} wait {r} {dst} {tag}\n")
            elif isinstance(ev, otf2.events.MpiIrecvRequest):
                q = irecvs.get((r, ev.request_id))
                if q:
                    src, tag, length = q[0]
                    out_.append(f"{r} irecv {src} {tag} {length} {BYTE}\n")
                else:
                    notes["receives posted and never completed (left out)"] += 1
            elif isinstance(ev, otf2.events.MpiIrecv):
                q = irecvs.get((r, ev.request_id))
                if q:
                    q.popleft()
                src = world_rank(ev.communicator, ev.sender)
                out_.append(f"{r} wait {src} {r} {ev.msg_tag}\n")
            elif isinstance(ev, otf2.events.MpiCollectiveEnd):
                op = SIMPLE.get(ev.collective_op)
                if op is None:
                    notes[f"collective {ev.collective_op} left out"] += 1
                    continue
                word = on_comm(r, ev.communicator)
                n = len(members.get(ev.communicator, world))
                root = ev.root if ev.root is not None and ev.root < n else 0
                if op.endswith("v") or op == "reducescatter":
                    notes[f"{op}: per-rank counts not in OTF2, totals spread evenly"] += 1
                line = collective_line(op, ev.size_sent, ev.size_received, n, root)
                out_.append(f"{r} {line}{word}\n")
    with open(os.path.join(out, name + ".txt"), "w") as index:
        for r in range(p):
            rel = os.path.join(name + "_files", f"rank-{r}.txt")
            s = state[r]
            # the time after the last MPI call, to the rank's last event, is compute too
            if s["last"] is not None and s["depth"] == 0 and s.get("end", 0) > s["last"]:
                lines[r].append(f"{r} compute {(s['end'] - s['last']) / resolution * flops:.6g}\n")
            with open(os.path.join(out, rel), "w") as f:
                f.writelines(lines[r])
                f.write(f"{r} finalize\n")
            index.write(rel + "\n")
    return os.path.join(out, name + ".txt"), notes


def flop_rate(text):
    """--flops: a positive, finite number of flop/s."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (v > 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number of flop/s, got {text[:40]!r}")
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", help="the OTF2 anchor file (traces.otf2)")
    ap.add_argument("out", help="the folder to write the TI trace into")
    ap.add_argument("--name", default="app", help="the trace's name (default app)")
    ap.add_argument("--flops", type=flop_rate, default=1e9,
                    help="flop/s to turn time outside MPI into `compute` (default 1e9)")
    ap.add_argument("--no-regions", action="store_true",
                    help="leave out the program's functions (user regions), which are "
                         "written as `region_begin NAME` / `region_end` by default")
    a = ap.parse_args()
    if not os.path.isfile(a.trace):
        sys.exit(f"otf2_to_ti.py: {a.trace} does not exist")
    # (a trace already converted is never written over: a mix of two would replay as one)
    for taken in (os.path.join(a.out, a.name + ".txt"), os.path.join(a.out, a.name + "_files")):
        if os.path.lexists(taken):
            sys.exit(f"otf2_to_ti.py: {taken} exists: remove it, or give another OUT or --name")
    # (the OTF2 library writes its own errors to file descriptor 2, several lines per bad
    # archive: kept aside, and said as one line)
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as aside:
        os.dup2(aside.fileno(), 2)
        try:
            index, notes = convert(a.trace, a.out, a.name, a.flops, not a.no_regions)
        except Exception as e:  # one line, whatever the archive's reader raised
            os.dup2(saved, 2)
            what = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
            sys.exit(f"otf2_to_ti.py: {a.trace}: not a readable OTF2 archive ({what})")
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    for what, n in sorted(notes.items()):
        print(f"otf2_to_ti.py: {what}: {n}", file=sys.stderr)
    print(index)


main()
