#!/usr/bin/env python3
"""Writes a small OTF2 trace of 4 MPI ranks, the way Score-P would, for tests/replay.rs:

    make_otf2.py DIR        -> DIR/traces.otf2

Times in ns (timer resolution 1e9). Every rank is in `main` from 0 to 5 ms; outside MPI
calls it computes. At 1 ms rank 0 MPI_Sends 1000 B (tag 5) to rank 1, which MPI_Recvs it;
rank 2 posts an MPI_Irecv (tag 9, 500 B, from 3) and rank 3 an MPI_Isend to 2, both
completed in an MPI_Wait at 2 ms. At 3 ms each half of MPI_Comm_split (ranks {0, 2} and
{1, 3}) allreduces 800 B; at 4 ms all broadcast 64 B from rank 0 on an MPI_Comm_dup of the
world. Byte counts follow Score-P's rules (allreduce: p x block sent; bcast: the block
received, p x block sent at the root).
"""
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, Paradigm

MS = 1_000_000


def main(folder):
    with otf2.writer.open(folder, timer_resolution=1_000_000_000) as trace:
        d = trace.definitions
        node = d.system_tree_node("node")
        regions = {n: d.region(n) for n in
                   ("main", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
                    "MPI_Allreduce", "MPI_Bcast")}
        locations = [d.location(f"rank {r}", group=d.location_group(f"rank {r}", system_tree_parent=node))
                     for r in range(4)]
        writers = [trace.event_writer_from_location(loc) for loc in locations]
        d.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                members=locations)

        def comm(name, ranks):
            g = d.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                        members=ranks)
            return d.comm(name, group=g)

        world = comm("MPI_COMM_WORLD", [0, 1, 2, 3])
        even, odd = comm("split 0", [0, 2]), comm("split 1", [1, 3])
        dup = comm("dup", [0, 1, 2, 3])

        def call(w, name, t0, t1, events):
            w.enter(t0, regions[name])
            for f in events:
                f()
            w.leave(t1, regions[name])

        for r, w in enumerate(writers):
            w.enter(0, regions["main"])
            if r == 0:
                call(w, "MPI_Send", 1 * MS, 1 * MS + 1000, [lambda: w.mpi_send(1 * MS, 1, world, 5, 1000)])
            elif r == 1:
                call(w, "MPI_Recv", 1 * MS, 1 * MS + 1000, [lambda: w.mpi_recv(1 * MS, 0, world, 5, 1000)])
            elif r == 2:
                call(w, "MPI_Irecv", 1 * MS, 1 * MS + 100, [lambda: w.mpi_irecv_request(1 * MS, 7)])
                call(w, "MPI_Wait", 2 * MS, 2 * MS + 100, [lambda: w.mpi_irecv(2 * MS, 3, world, 9, 500, 7)])
            else:
                call(w, "MPI_Isend", 1 * MS, 1 * MS + 100, [lambda: w.mpi_isend(1 * MS, 2, world, 9, 500, 8)])
                call(w, "MPI_Wait", 2 * MS, 2 * MS + 100, [lambda: w.mpi_isend_complete(2 * MS, 8)])
            half = even if r % 2 == 0 else odd
            call(w, "MPI_Allreduce", 3 * MS, 3 * MS + 1000, [
                lambda: w.mpi_collective_begin(3 * MS),
                lambda: w.mpi_collective_end(3 * MS + 1000, CollectiveOp.ALLREDUCE, half, 0xFFFFFFFF, 2 * 800, 2 * 800)])
            sent = 4 * 64 if r == 0 else 0
            call(w, "MPI_Bcast", 4 * MS, 4 * MS + 1000, [
                lambda: w.mpi_collective_begin(4 * MS),
                lambda: w.mpi_collective_end(4 * MS + 1000, CollectiveOp.BCAST, dup, 0, sent, 64)])
            w.leave(5 * MS, regions["main"])


main(sys.argv[1])
