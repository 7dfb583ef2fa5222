---@meta mgen.replay
-- The reference of `require("mgen.replay")`: replaying a SimGrid time-independent (TI) trace,
-- the text format `smpirun -trace-ti` writes (one file per rank and an index, or one file).
-- A scenario with `[workload] trace = "app.txt"` runs `replay.run{ trace = ..., args =
-- MGEN_args }`; a script of your own can call it with hooks to edit the replay.
--
-- How each action is replayed (sizes are counts of the line's datatype, or of the default one:
-- bytes, or doubles when `init` has an argument; a datatype number SimGrid does not predefine,
-- a derived type, counts in the default one, noted in a warning; `p` is the number of ranks):
--   init, finalize, location   nothing (init sets the default datatype)
--   compute F                  MGEN_Comp(F / flops * compute_scale): F flops at `flops` flop/s
--   sleep T                    MGEN_Comp(T)
--   send DST TAG N [DT]        MGEN_Send(DST, N * size(DT), TAG)
--   isend DST TAG N [DT]       MGEN_Isend(...), kept as the request (me, DST, TAG)
--   recv SRC TAG N [DT]        MGEN_Recv(SRC, N * size(DT), TAG) (SRC < 0: any source; N <= 0,
--                              a probed size SimGrid did not record: 0 bytes, noted)
--   irecv SRC TAG N [DT]       MGEN_Irecv(...), kept as the request (SRC, me, TAG)
--   wait SRC DST TAG           MGEN_Wait on that request (none kept: a test saw it complete);
--                              `wait` alone (the older format) waits for the newest request
--   test SRC DST TAG           MGEN_Test on it; done requests are dropped; `test` alone tests
--                              the newest, which a later `wait` then finds done
--   waitall                    MGEN_Waitall on every request kept
--   barrier                    coll.barrier
--   bcast N [ROOT DT]          coll.bcast, N * size bytes
--   reduce N F [ROOT DT]       coll.reduce, then compute F
--   allreduce N F [DT]         coll.allreduce, then compute F
--   alltoall N M [DT DT]       coll.alltoall, N * size bytes per block
--   gather N M [ROOT DT DT]    coll.gather;  allgather N M [DT DT]: coll.allgather
--   scatter N M [ROOT DT DT]   coll.scatter
--   alltoallv S SC[p] R RC[p] [DT DT]   every block sent and received at once, then waited for
--   gatherv N RC[p] [ROOT DT DT]        every rank sends its block to the root at once
--   allgatherv N RC[p] [...]            every rank sends its block to every rank at once
--   scatterv SC[p] N [ROOT DT DT]       the root sends every rank its block at once
--   reducescatter RC[p] F [DT]          every rank sends every other its part, then compute F
--   comm_size N                noted if N is not the job's size
--   comm_split, comm_dup       noted: SMPI's traces do not say which communicator a later
--                              collective uses (SimGrid's own replay ignores them too), so
--                              those collectives are replayed on all ranks; point-to-point
--                              partners are already world ranks in the trace
--   comm ID W0 W1 ...          (mgensim's extension, written by tools/otf2_to_ti.py) defines
--                              communicator ID by its members' world ranks, in its rank order;
--                              a `comm=ID` word on a collective's line runs it among them
--                              (its root and sizes are the communicator's)
--   region_begin NAME          (mgensim's extension, written by tools/otf2_to_ti.py for the
--   region_end                 functions Score-P recorded) MGEN_region_begin(NAME) and
--                              MGEN_region_end(): a region of the profile (kind `replayed
--                              region`) and the timeline; NAME is one word, %XX a byte
--                              (%20 a space); `args.name` holds it for an `on` hook
-- Requests still pending at the end of a rank's trace are waited for, and regions still open
-- are closed (noted).
--
-- The arguments (`args`, MGEN_args in a `trace =` scenario) are `flops`, `compute_scale`,
-- `transport` and `algo_<collective>` for each collective replayed through mgen.coll
-- (`replay.arguments()` lists them). A value the replay does not accept (an algorithm
-- mgen.coll does not have, a rate <= 0) is an error naming it, with a "did you mean" and the
-- list of what it accepts; only these keys are read, so a misspelt one is left unread and the
-- run warns of it. In a `trace =` scenario (and `mgensim replay`) both are found before the
-- run, when the scenario is read (`mgensim check` too): the error stops it, the warning is
-- printed first.
--
-- SimGrid's older format (before 3.20, 2018) is read too: its spellings (`Isend`, `Irecv`,
-- `waitAll`, `allReduce`, `allToAll`, `allToAllV`, `allGather`, `allGatherV`, `gatherV`,
-- `scatterV`, `reduceScatter`) are these actions, and its point-to-point lines have no tag
-- (`send DST N [DT]`): the reader gives them tag 0, as SimGrid's replay did. A trace is read
-- in that format when its first file uses one of those spellings near its start (a warning
-- says so), and a `send` or `recv` line with two numbers is read so in any trace.

---@class mgen.replay.opts
---@field trace string the index file (or the one file), relative to the scenario's folder
---@field flops? number the rate of compute, flop/s (default 1e9, SMPI's `smpi/host-speed:1Gf`)
---@field compute_scale? number multiplies every compute (default 1)
---@field transport? "message"|"put" how collectives move data (default "message")
---@field collectives? table<string, mgen.coll.opts> per collective, e.g. { allreduce = { algo = "ring" } }
---@field on? table<string, fun(ctx: table, args: number[], default: fun(ctx: table, args: number[]))> replaces an action's handler; call `default` to do what it would have done, zero or more times
---@field each? fun(ctx: table, name: string, args: number[]): "skip"? called before every action; returning "skip" drops it
---@field args? table MGEN_args: `flops`, `compute_scale`, `transport` and `algo_<collective>` (e.g. `algo_allreduce = "ring"`) are read from it

---@class mgen.replay
local replay = {}

---The handlers of the actions, by name (see the table above).
---@type table<string, fun(ctx: table, args: number[])>
replay.actions = {}

---The replay's arguments (the keys of `opts.args` it reads), sorted.
---@return string[]
function replay.arguments() end

---What is wrong with `value` for the argument `key` (a sentence, with a "did you mean" and the
---values accepted where there is a list), or nil if nothing is.
---@param key string
---@param value any
---@return string?
function replay.check_argument(key, value) end

---Replays this rank's trace; returns its context (`rank`, `size`, `flops`, ...).
---@param opts mgen.replay.opts
---@return table ctx
function replay.run(opts) end

return replay
