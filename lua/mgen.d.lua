---@meta mgen
-- The MGEN API of mgensim: the reference for workload scripts.
--
-- A workload is a Lua script that every rank runs as its own coroutine (like NSIM's
-- MGEN_Main). Globals a script sets are private to its rank; the standard library, the
-- functions below and MGEN_args are shared by every rank and read-only: `string.format = f`
-- raises a "sandbox:" error (give the rank its own copy instead:
-- `string = setmetatable({format = f}, {__index = string})`), and no rank or job can change
-- what another sees. Point your editor's Lua language server (LuaLS) at this folder
-- (`"workspace.library": ["<mgensim>/lua"]`) to get completion and checks.
--
-- Speed: the shared names a script reads are looked up once per job, not at every call, unless
-- some script of the scenario uses `_ENV`, `_G`, `rawset`, `load`, `loadfile`, `dofile`,
-- `require` or `debug` (any of these can change what a name means behind the script's back);
-- a name the script assigns keeps being looked up. In a hot loop of such a script,
-- `local put = MGEN_rdma_put` does the same by hand.
--
-- Time: every rank has its own clock. Calls that only start something (MGEN_rdma_put,
-- MGEN_rdma_get, MGEN_acp_copy, MGEN_Comp) advance the caller's clock and return at once;
-- calls that wait for the network (MGEN_rdma_poll, MGEN_acp_complete) suspend the rank until
-- what they wait for has happened in simulated time (docs/model.md §1).
--
-- Node latency: each call that starts a transfer charges `node.node_latency` (the papers'
-- communication library overhead) on the caller's clock before the transfer starts. Waiting
-- calls cost nothing of their own.

---The scenario's `[workload] args` table (with `[[job]]`s, the job's `args`), the same for
---every rank of the job, and read-only. A key that no rank of the job reads is a warning at
---the end of the run, naming the key the script asked for instead if there is a near one
---(`--set workload.args.byts=1024` where the script reads `MGEN_args.bytes`).
---@type table<string, any>
MGEN_args = {}

---The folder of the scenario file, as an absolute path. File names given to io.open,
---io.lines, loadfile and dofile are already taken from this folder when relative, so
---`io.open(MGEN_args.csv)` finds a data file beside the scenario from any working directory.
---@type string
MGEN_SCENARIO_DIR = ""

---Accepted wherever a communicator may be passed, for readers coming from C; there is one.
---@type integer
MGEN_COMM_WORLD = 0

---A transfer started by this rank; pass it to MGEN_acp_complete, once. Handles of other
---ranks, and a handle completed before, are rejected.
---@alias MGEN_handle integer

---This rank's number in its job, 0 to MGEN_Comm_size() - 1. With several `[[job]]`s each job
---numbers its ranks from 0, and every rank argument of the API means a rank of the caller's
---own job: jobs share the network, never data.
---@param comm? integer MGEN_COMM_WORLD, optional
---@return integer rank
function MGEN_Comm_rank(comm) end

---The number of ranks in the job (`workload.ranks`, or the job's `ranks`).
---@param comm? integer MGEN_COMM_WORLD, optional
---@return integer size
function MGEN_Comm_size(comm) end

---This rank's simulated clock, in seconds.
---@return number seconds
function MGEN_Wtime() end

---Computes for `seconds` of simulated time: advances this rank's clock, without yielding.
---Rounded to the nearest picosecond.
---@param seconds number >= 0
function MGEN_Comp(seconds) end

---Starts an RDMA put of `bytes` from this rank's memory to rank `dest` (NSIM-ACE §3).
---Data goes memory → DMA → NIC → packets → network → NIC → DMA → memory. When the last
---byte is in `dest`'s memory the put is *delivered*: `dest`'s count for `tag` rises by one,
---for MGEN_rdma_poll. The receiving NIC then sends a control packet back by itself; when it
---arrives the put is *complete*, for MGEN_acp_complete. Returns at once.
---Cost on the caller's clock: node latency.
---A rank on the same node as `dest` (`node.ranks_per_node` > 1) puts through the node's DMA
---and memory: no link is used.
---@param dest integer destination rank
---@param bytes integer >= 0; cut into packets of at most `network.mtu` bytes
---@param tag integer raised at the destination on delivery
---@param nic? integer which of the node's NICs carries it, 0 to `node.nics_per_node` - 1; it
---arrives at the NIC of the same index on `dest`'s node. Default: the node's NICs in turn
---(round robin per rank).
---@return MGEN_handle handle
function MGEN_rdma_put(dest, bytes, tag, nic) end

---Waits until a put with `tag` has been delivered to this rank, and takes it (each delivered
---put satisfies one poll). Returns at once if one was delivered before the call.
---@param tag integer
function MGEN_rdma_poll(tag) end

---Waits until the transfer `handle` is complete: a put when its control packet is back at
---this rank's NIC, a get when its last byte is in this rank's memory. Returns at once if it
---already is. A handle is used once: completing it a second time is an error.
---@param handle MGEN_handle
function MGEN_acp_complete(handle) end

---Starts an RDMA get of `bytes` from rank `src`'s memory into this rank's: this rank's NIC
---sends a control packet to `src`; `src`'s NIC reads the data by DMA and sends it back.
---Complete when the last byte is in this rank's memory. Raises no poll count; wait with
---MGEN_acp_complete. Returns at once. Cost on the caller's clock: node latency.
---@param src integer rank holding the data
---@param bytes integer >= 0
---@param tag integer identifies the transfer (informational)
---@param nic? integer as for MGEN_rdma_put
---@return MGEN_handle handle
function MGEN_rdma_get(src, bytes, tag, nic) end

---ACP's copy: a put when `src` is this rank, a get when `dst` is. Third-party copies (this
---rank neither) are an error.
---@param src integer rank whose memory is read
---@param dst integer rank whose memory is written
---@param bytes integer >= 0
---@param tag? integer for a put, the tag raised at `dst` (default 0)
---@param nic? integer as for MGEN_rdma_put
---@return MGEN_handle handle
function MGEN_acp_copy(src, dst, bytes, tag, nic) end

---Matches a message from any rank (MGEN_Recv, MGEN_Irecv).
---@type integer
MGEN_ANY_SOURCE = -1

---Matches a message with any tag (MGEN_Recv, MGEN_Irecv).
---@type integer
MGEN_ANY_TAG = -1

---A message-passing send or receive started by this rank; pass it to MGEN_Wait or MGEN_Test
---once. Distinct from an MGEN_handle.
---@alias MGEN_request integer

---What a receive got.
---@class MGEN_status
---@field source integer the sender's rank
---@field tag integer the message's tag
---@field bytes integer the message's size

-- Message passing (docs/model.md §6, NSIM's MGEN API). Every call that posts a send or a receive
-- charges `node.mpi_overhead` (NSIM: 200 ns) on the caller's clock. Messages up to
-- `node.eager_limit` bytes go eager: the sender copies the data into an MPI buffer at
-- `node.memory_bandwidth` (one copy; free when that is "inf"), and its send is complete at
-- once. Larger ones go by rendezvous (zero-copy): a request-to-send, a clear-to-send once the
-- receive is posted, then the data; the send completes when the data has been read out by
-- DMA. Matching follows MPI: in posting order, by source and tag, and two messages from one
-- rank to another are never overtaken; a message that arrives before its receive waits in the
-- unexpected queue. A message longer than its receive is an error.
--
-- Tags from 2^61 up are the library's own (mgen.replay's exchanges from 2^61, mgen.coll's
-- collectives from 2^62): a script that keeps its tags below 2^61 never meets them, and a
-- receive with MGEN_ANY_TAG posted while a collective is under way may take one of its messages.

---Starts a send of `bytes` to `dest`; returns at once.
---@param dest integer
---@param bytes integer >= 0
---@param tag integer >= 0
---@param nic? integer as for MGEN_rdma_put. Messages from one rank to another stay in order
---whichever NICs and routes they take.
---@return MGEN_request request
function MGEN_Isend(dest, bytes, tag, nic) end

---Posts a receive of at most `bytes` from `src` (or MGEN_ANY_SOURCE) with `tag` (or
---MGEN_ANY_TAG); returns at once.
---@param src integer
---@param bytes integer >= 0
---@param tag integer
---@return MGEN_request request
function MGEN_Irecv(src, bytes, tag) end

---Passed to MGEN_Wait or MGEN_Waitall as the status, like MPI_STATUS_IGNORE: the call waits
---and returns nothing. Its value is `false`. A collective of `mgen.coll` waits thousands of
---times and reads no status; this saves making a table for each.
---@type false
MGEN_STATUS_IGNORE = false

---Waits until `request` is complete; for a receive, returns its status (for a send, the
---send's own envelope). A request can be waited for once. A receive shorter than its message
---is an error, with or without a status.
---@param request MGEN_request
---@param status? false MGEN_STATUS_IGNORE: return nothing
---@return MGEN_status status (nothing with MGEN_STATUS_IGNORE)
function MGEN_Wait(request, status) end

---Waits for every request of the list, in order; returns their statuses.
---@param requests MGEN_request[]
---@param statuses? false MGEN_STATUS_IGNORE: return nothing
---@return MGEN_status[] statuses (nothing with MGEN_STATUS_IGNORE)
function MGEN_Waitall(requests, statuses) end

---Whether `request` is complete at this rank's clock: `true, status` (the request is then
---done, as after MGEN_Wait) or `false`. Costs no simulated time, so a loop that only tests
---never lets time pass: put `MGEN_Comp` in it. The 1,048,576th test in a row at one clock of
---the rank that finds the request not complete is an error.
---@param request MGEN_request
---@return boolean done
---@return MGEN_status? status
function MGEN_Test(request) end

---Sends `bytes` to `dest` and waits for the send to complete (eager: at once after the copy;
---rendezvous: when the receiver has taken the data).
---@param dest integer
---@param bytes integer >= 0
---@param tag integer >= 0
---@param nic? integer as for MGEN_rdma_put
function MGEN_Send(dest, bytes, tag, nic) end

---Receives a message of at most `bytes` from `src` (or MGEN_ANY_SOURCE) with `tag` (or
---MGEN_ANY_TAG); waits for it.
---@param src integer
---@param bytes integer >= 0
---@param tag integer
---@return MGEN_status status
function MGEN_Recv(src, bytes, tag) end

---Posts the receive, then the send, and waits for both; returns the receive's status.
---@param dest integer
---@param send_bytes integer
---@param send_tag integer
---@param src integer
---@param recv_bytes integer
---@param recv_tag integer
---@return MGEN_status status
function MGEN_Sendrecv(dest, send_bytes, send_tag, src, recv_bytes, recv_tag) end

---Opens a SimGrid time-independent trace for this rank to replay (`smpirun -trace-ti`'s
---index file, or one file holding every rank's lines; relative to the scenario's folder, read
---through the sandbox like any file). Each rank reads its own actions, streamed: memory does
---not grow with the trace. Returns the trace's number of ranks, and the bytes of each
---datatype number a trace may name (`sizes[0]` = 8 for MPI_DOUBLE, `sizes[1]` = 4 for
---MPI_INT, ..., `sizes[6]` = 1 for MPI_BYTE). `require("mgen.replay")` does the rest.
---@param path string
---@return integer ranks
---@return table<integer, integer> sizes
function MGEN_trace_open(path) end

---This rank's next action: its name (`send`, `compute`, `allreduce`, ...) and its arguments as
---numbers, or nil at the end of its trace. Lines of actions mgensim does not know are skipped
---and counted in a warning at the end of the run; a malformed line is an error naming its
---file and line.
---@return string? action
---@return number[]? args
---@return integer? comm its communicator: 0, the world, unless the line has a `comm=ID` word
---(mgensim's extension of the format, docs/replay.md)
---@return string? name the name an action gives (`region_begin NAME`, `%XX` decoded), else nil
function MGEN_trace_next() end

---Where this rank is in its trace: `file:line` of its last action (deadlock reports name it).
---@return string position
function MGEN_trace_where() end

---Counts a note about this replay (an action replayed approximately); the counts appear as
---warnings at the end of the run.
---@param what string
function MGEN_trace_note(what) end

---Reports a number for the run's summary: for each name, the count, min, mean and max over
---the calls of all ranks appear in the text summary and in `--json` under `metrics`. A name
---ending in `_s` is taken as seconds (as `MGEN_Wtime` gives them): the text summary shows it
---as a time (`14.39154 us`); `--json` and `sweep.csv` keep the number.
---@param name string
---@param value number
function MGEN_report(name, value) end

---Runs `fn(...)` as a named span on the rank's timeline (`mgensim run --trace`) and returns
---what it returns. Regions nest. Without `--trace` it only calls `fn`.
---
---    MGEN_region("halo exchange", exchange, step)
---@generic R
---@param name string
---@param fn fun(...): R
---@param ... any arguments for fn
---@return R ...
function MGEN_region(name, fn, ...) end

---Begins a named span on the rank's timeline at the rank's clock; `MGEN_region_end` ends it.
---For spans that do not fit one function. A region still open when the rank ends is closed
---at its finish and reported as a warning.
---@param name string
function MGEN_region_begin(name) end

---Ends the innermost region begun with `MGEN_region_begin` (an error if none is open). Takes
---no arguments.
function MGEN_region_end() end

---The two neighbours of `x` (before it, after it) in a ring of 0..n-1 in random order: the
---order `require("mgen.util").permutation(n)` would draw with this rank's math.random, draw
---for draw, leaving math.random where that call would. The permutation is drawn once for all
---ranks whose generators are in the same state, so a ring of 64K ranks costs each rank O(1)
---rather than a permutation of its own. `util.random_ring_neighbours()` is this with
---`MGEN_Comm_size()` and `MGEN_Comm_rank()`.
---@param n integer ring size, 1..2^31
---@param x integer an element, 0..n-1
---@return integer before
---@return integer after
function MGEN_random_ring(n, x) end

---Like Lua's print, to stderr, prefixed with the rank and its simulated time. In a run cut
---in partitions, lines of different partitions may come out of simulated time's order.
---@param ... any
function print(...) end

---@class mgen.math: mathlib
-- math.random and math.randomseed are per rank: every rank's generator starts from the same
-- state, derived from `workload.seed` (or --seed), so all ranks draw the same numbers (and
-- the same random permutation) until one calls math.randomseed(x), which reseeds that rank
-- alone. math.randomseed() with no argument goes back to the scenario's seed.

-- The sandbox. Scenarios are shared, so by default a script cannot touch the machine it runs
-- on. It has the whole Lua library except:
--   os      only clock, date, difftime and time (execute, exit, getenv, remove, rename,
--           tmpname and setlocale raise a "sandbox:" error);
--   io      open (mode "r" or "rb" only) and lines read regular files below the scenario's
--           folder, the script's folder and mgensim's lua/ library, and nothing else: a path
--           is checked after resolving its folders and links, and a device, pipe, socket or
--           folder is refused; popen, tmpfile, input, output, read and lines() (standard
--           input) raise an error; io.write and io.stdout go to stderr, as print does;
--   load    text chunks only (no binary chunks), with the rank's globals unless an
--           environment is given; loadfile and dofile as io.open (never standard input);
--   require Lua modules beside the script and in lua/ only; no C modules, no package.loadlib;
--   debug   only traceback and getinfo;
--   setmetatable  refuses a metatable with __gc (a finalizer would run on whichever rank is
--           running when the collector reaches it) and the shared tables' metatables.
-- `mgensim run --allow-io` lifts the file and process rules (relative file names still start
-- from the scenario's folder); the summary then says `sandbox: off`. The isolation of ranks
-- (read-only shared tables, debug limited, no __gc) holds with it too.
--
-- Modules. `require(name)` loads `name` (dots as folders) from the scripts' folders, then
-- lua/. A module of your own is loaded once per rank that requires it, as each MPI process
-- would load it: its code runs with that rank's globals (a global it defines is the rank's)
-- and its state is the rank's own. A module of mgensim's library (mgen.coll, mgen.util,
-- mgen.tracerp) is loaded once per job and what it returns is read-only.
--
-- Errors. Every script error names the rank, the simulated time, the script's file and line,
-- whatever was raised (a string, nil, a table, an object whose __tostring fails). Only the
-- engine decides that a limit stopped the run: an error a script raises is a script error,
-- whatever it says. A rank's clock cannot pass about 106.7 days (2^63 ps): MGEN_Comp past it
-- is an error, never a clock that wraps. Nor can a transfer's own bytes take longer than about
-- 26.7 days (2^61 ps) at the run's slowest rate (DMA, memory, a link, a crossbar): a put, get,
-- copy, send or receive of more bytes is an error naming the call and the most allowed (at the
-- default 2.8 GB/s DMA, about 6.4 PB); transfers that slow each other past 2^63 ps stop the
-- run with an error. A blocking call inside a coroutine the script made
-- blocks the whole rank (the coroutine goes on where it was once the rank is woken).
--
-- Limits. A rank that runs more than `limits.instructions` Lua instructions (default 10^9)
-- without a call that gives control back to the simulator (a blocking MGEN call, or the end of
-- the script) is stopped with its line: an endless loop ends the run instead of hanging it.
-- pcall cannot catch the stop. `limits.lua_memory` caps the Lua heap of all ranks together
-- (default: 256 MiB and 1 MiB per rank, at most half of the machine's memory and at least
-- 256 MiB). Coroutines a script creates count against its rank's budget. Counting makes
-- pure-Lua code about 2x slower, so a rank's instructions are counted only once a stretch
-- between two blocking calls has run 10-20 ms of wall time (a rank stopped at the limit has
-- run that much more); coroutines a script creates are always counted.
-- `limits.instructions = 0` turns counting off for trusted scripts.
