---@meta mgen
-- The MGEN API of mgensim: the reference for workload scripts.
--
-- A workload is a Lua script that every rank runs as its own coroutine (like NSIM's
-- MGEN_Main). Globals a script sets are private to its rank; the standard library and the
-- functions below are shared. Point your editor's Lua language server (LuaLS) at this folder
-- (`"workspace.library": ["<mgensim>/lua"]`) to get completion and checks.
--
-- Time: every rank has its own clock. Calls that only start something (MGEN_rdma_put,
-- MGEN_rdma_get, MGEN_acp_copy, MGEN_Comp) advance the caller's clock and return at once;
-- calls that wait for the network (MGEN_rdma_poll, MGEN_acp_complete) suspend the rank until
-- what they wait for has happened in simulated time (MODEL.md §1).
--
-- Node latency: each call that starts a transfer charges `node.node_latency` (the papers'
-- communication library overhead) on the caller's clock before the transfer starts. Waiting
-- calls cost nothing of their own.

---The scenario's `[workload] args` table, the same for every rank.
---@type table<string, any>
MGEN_args = {}

---Accepted wherever a communicator may be passed, for readers coming from C; there is one.
---@type integer
MGEN_COMM_WORLD = 0

---A transfer started by this rank; pass it to MGEN_acp_complete. Handles of other ranks are
---rejected.
---@alias MGEN_handle integer

---This rank's number, 0 to MGEN_Comm_size() - 1.
---@param comm? integer MGEN_COMM_WORLD, optional
---@return integer rank
function MGEN_Comm_rank(comm) end

---The number of ranks in the job (`workload.ranks`).
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
---@param dest integer destination rank
---@param bytes integer >= 0; cut into packets of at most `network.mtu` bytes
---@param tag integer raised at the destination on delivery
---@return MGEN_handle handle
function MGEN_rdma_put(dest, bytes, tag) end

---Waits until a put with `tag` has been delivered to this rank, and takes it (each delivered
---put satisfies one poll). Returns at once if one was delivered before the call.
---@param tag integer
function MGEN_rdma_poll(tag) end

---Waits until the transfer `handle` is complete: a put when its control packet is back at
---this rank's NIC, a get when its last byte is in this rank's memory. Returns at once if it
---already is.
---@param handle MGEN_handle
function MGEN_acp_complete(handle) end

---Starts an RDMA get of `bytes` from rank `src`'s memory into this rank's: this rank's NIC
---sends a control packet to `src`; `src`'s NIC reads the data by DMA and sends it back.
---Complete when the last byte is in this rank's memory. Raises no poll count; wait with
---MGEN_acp_complete. Returns at once. Cost on the caller's clock: node latency.
---@param src integer rank holding the data
---@param bytes integer >= 0
---@param tag integer identifies the transfer (informational)
---@return MGEN_handle handle
function MGEN_rdma_get(src, bytes, tag) end

---ACP's copy: a put when `src` is this rank, a get when `dst` is. Third-party copies (this
---rank neither) are an error.
---@param src integer rank whose memory is read
---@param dst integer rank whose memory is written
---@param bytes integer >= 0
---@param tag? integer for a put, the tag raised at `dst` (default 0)
---@return MGEN_handle handle
function MGEN_acp_copy(src, dst, bytes, tag) end

---Reports a number for the run's summary: for each name, the count, min, mean and max over
---the calls of all ranks appear in the text summary and in `--json` under `metrics`.
---@param name string
---@param value number
function MGEN_report(name, value) end

---Like Lua's print, to stderr, prefixed with the rank and its simulated time.
---@param ... any
function print(...) end

---@class mgen.math: mathlib
-- math.random and math.randomseed are per rank: every rank's generator starts from the same
-- state, derived from `workload.seed` (or --seed), so all ranks draw the same numbers (and
-- the same random permutation) until one calls math.randomseed(x), which reseeds that rank
-- alone. math.randomseed() with no argument goes back to the scenario's seed.
