-- mgen.replay: replays a SimGrid time-independent (TI) trace, each rank its own actions.
-- Reference (options, the mapping of each action, hooks): lua/mgen/replay.d.lua.
--
--   require("mgen.replay").run{ trace = "is.S.8.txt", flops = 1e9 }
--
-- Sizes in a trace count elements of a datatype (SimGrid's numbers: 0 double, 1 int, ...,
-- 6 byte); without one, the `init` line decides (`init` alone: bytes; `init` with an argument:
-- doubles). Collectives go to mgen.coll with the algorithm the options name; the v-variants
-- and reduce-scatter, which mgen.coll does not have, are exchanged directly here.

local coll = require("mgen.coll")

local replay = {}

local floor = math.floor
local Isend, Irecv, Wait, Waitall, Test = MGEN_Isend, MGEN_Irecv, MGEN_Wait, MGEN_Waitall, MGEN_Test
local IGNORE = MGEN_STATUS_IGNORE
local trace_next, trace_where, Comp = MGEN_trace_next, MGEN_trace_where, MGEN_Comp
local type, error, pairs, ipairs, tremove = type, error, pairs, ipairs, table.remove

-- Tags of the exchanges made here: 2^61 + comm * 2^20 + (call mod 2^20), for a communicator
-- id below 2^32: above every tag a trace may give (at most 2^31 - 1, checked as lines are
-- read) and below mgen.coll's (2^62 up). Every rank replays its exchanges in the same order,
-- so counting them gives every rank the same tag.
local TAG_BASE = 1 << 61

local function bytes(count, size)
  return floor(count * size + 0.5)
end

-- Sends each rank of the action's communicator `to[i]` bytes (its rank i - 1) and receives
-- `from[i]` from it, all at once (zero-byte and own blocks skipped), then waits for all.
local function exchange(ctx, to, from)
  local me, p, g = ctx.crank, ctx.csize, ctx.group
  local n = (ctx.vcalls[ctx.comm] or 0) + 1
  ctx.vcalls[ctx.comm] = n
  local tag = TAG_BASE + (ctx.comm << 20) + n % (1 << 20)
  local world = function(r) return g and g[r + 1] or r end
  local reqs = {}
  for k = 1, p - 1 do
    local src = (me - k) % p
    if from[src + 1] and from[src + 1] > 0 then reqs[#reqs + 1] = Irecv(world(src), from[src + 1], tag) end
  end
  for k = 1, p - 1 do
    local dst = (me + k) % p
    if to[dst + 1] and to[dst + 1] > 0 then reqs[#reqs + 1] = Isend(world(dst), to[dst + 1], tag) end
  end
  if #reqs > 0 then Waitall(reqs, IGNORE) end
end

local function counts(a, first, p, size)
  local t = {}
  for i = 1, p do t[i] = bytes(a[first + i - 1] or 0, size) end
  return t
end

local function fill(p, v)
  local t = {}
  for i = 1, p do t[i] = v end
  return t
end

-- The collective options for `name`: the user's (opts.collectives[name]) over the transport,
-- on the action's communicator.
local function copts(ctx, name, extra)
  local o = { transport = ctx.transport }
  if ctx.group then o.group, o.comm = ctx.group, ctx.comm end
  for k, v in pairs(ctx.collectives[name] or {}) do o[k] = v end
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

-- The pending requests of a rank, found by (src, dst, tag) as the trace names them.
local function take(ctx, src, dst, tag)
  for i, r in ipairs(ctx.requests) do
    if r.src == src and r.dst == dst and r.tag == tag then
      tremove(ctx.requests, i)
      return r.req
    end
  end
end

local function compute(ctx, flops)
  if flops > 0 then Comp(flops / ctx.flops * ctx.compute_scale) end
end

------------------------------------------------------------------------------------------
-- the replay's arguments: `opts.args` (MGEN_args in a `trace =` scenario)

-- The collectives replayed through mgen.coll, whose algorithm `algo_<name>` chooses.
local COLLECTIVES = { "allgather", "allreduce", "alltoall", "barrier", "bcast", "gather", "reduce", "scatter" }
local TRANSPORTS = { "message", "put" }

-- The edit distance of `a` and `b`: letters inserted, deleted, replaced or two swapped.
local function distance(a, b)
  local before, prev = {}, {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local ai, bj = a:byte(i), b:byte(j)
      local d = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai == bj and 0 or 1))
      if i > 1 and j > 1 and ai == b:byte(j - 1) and a:byte(i - 1) == bj then
        d = math.min(d, before[j - 2] + 1)
      end
      cur[j] = d
    end
    before, prev = prev, cur
  end
  return prev[#b]
end

-- The closest of `names` to `word` if it is a likely typo (at most a third of its letters
-- edited, or its initials: `rd` for recursive_doubling), else nil.
local function nearest(word, names)
  if type(word) ~= "string" then return nil end
  local w = word:lower()
  local best, bestd = nil, math.max(1, #w // 3) + 1
  for _, k in ipairs(names) do
    local d = (#w > 1 and w == k:gsub("(%a)%a*_?", "%1")) and 0 or distance(w, k)
    if d < bestd then best, bestd = k, d end
  end
  return best
end

local function shown(v)
  return type(v) == "string" and ("%q"):format(v) or tostring(v)
end

-- What is wrong with `value` for the replay's argument `key`, or nil if nothing is. (Asked
-- before the run as well, by mgensim itself: src/replay/check.rs.)
function replay.check_argument(key, value)
  if key == "flops" then
    if type(value) ~= "number" or not (value > 0 and value < math.huge) then
      return ("must be a number > 0 (the rate of compute, flop/s); got %s"):format(shown(value))
    end
  elseif key == "compute_scale" then
    if type(value) ~= "number" or not (value >= 0 and value < math.huge) then
      return ("must be a number >= 0 (it multiplies every compute); got %s"):format(shown(value))
    end
  elseif key == "transport" then
    for _, t in ipairs(TRANSPORTS) do if value == t then return nil end end
    local near = nearest(value, TRANSPORTS)
    return ("%s is not a transport of mgen.coll%s; they are: %s"):format(shown(value),
      near and (" (did you mean %q?)"):format(near) or "", table.concat(TRANSPORTS, ", "))
  else
    local name, list = key:match("^algo_(.+)$"), nil
    for _, c in ipairs(COLLECTIVES) do
      if c == name then list = coll[name .. "_algorithms"]() end
    end
    if not list then return "is not an argument of the replay" end
    for _, a in ipairs(list) do if value == a then return nil end end
    local near = nearest(value, list)
    return ("%s is not %s algorithm of mgen.coll%s; they are: %s"):format(shown(value),
      name:match("^[aeiou]") and "an " .. name or "a " .. name,
      near and (" (did you mean %q?)"):format(near) or "", table.concat(list, ", "))
  end
end

-- The replay's arguments, sorted: flops, compute_scale, transport and algo_<collective>.
function replay.arguments()
  local keys = { "compute_scale", "flops", "transport" }
  for _, c in ipairs(COLLECTIVES) do keys[#keys + 1] = "algo_" .. c end
  table.sort(keys)
  return keys
end

-- The value of argument `key`: `opts[key]` over `args[key]` over `default`, checked. Only the
-- replay's own keys are read, so that a key it does not know is left unread (the run warns
-- of it, with the name asked for instead).
local function setting(opts, args, key, default)
  local v = opts[key]
  if v == nil then v = args[key] end
  if v == nil then return default end
  local bad = replay.check_argument(key, v)
  if bad then error(("replay: `%s`: %s"):format(key, bad), 0) end
  return v
end

-- What each action does. `a` holds its arguments (numbers); `ctx.dt(a, i)` is the bytes of the
-- datatype argument i (or the default). Every function may be replaced by `opts.on[name]`.
replay.actions = {
  init = function(ctx, a) ctx.default_dt = (#a > 0) and 0 or 6 end,
  finalize = function() end,
  location = function() end,
  compute = function(ctx, a) compute(ctx, a[1]) end,
  sleep = function(ctx, a) if a[1] > 0 then Comp(a[1]) end end,
  send = function(ctx, a) MGEN_Send(floor(a[1]), bytes(a[3], ctx.dt(a, 4)), floor(a[2])) end,
  isend = function(ctx, a)
    local dst, tag = floor(a[1]), floor(a[2])
    local req = Isend(dst, bytes(a[3], ctx.dt(a, 4)), tag)
    ctx.requests[#ctx.requests + 1] = { src = ctx.rank, dst = dst, tag = tag, req = req }
  end,
  recv = function(ctx, a)
    if a[3] <= 0 then MGEN_trace_note("a receive of unknown size (probed) replayed as 0 bytes") end
    local src = a[1] < 0 and MGEN_ANY_SOURCE or floor(a[1])
    MGEN_Recv(src, bytes(math.max(a[3], 0), ctx.dt(a, 4)), floor(a[2]))
  end,
  irecv = function(ctx, a)
    local src, tag = floor(a[1]), floor(a[2])
    local req = Irecv(src < 0 and MGEN_ANY_SOURCE or src, bytes(math.max(a[3], 0), ctx.dt(a, 4)), tag)
    ctx.requests[#ctx.requests + 1] = { src = src, dst = ctx.rank, tag = tag, req = req }
  end,
  wait = function(ctx, a)
    local req
    if #a >= 3 then
      req = take(ctx, floor(a[1]), floor(a[2]), floor(a[3]))
    elseif #ctx.requests > 0 then
      req = tremove(ctx.requests).req -- the older form: the newest request, as SimGrid's did
    end
    -- (none, or false: a test already saw it complete, as SimGrid's replay assumes)
    if req then Wait(req, IGNORE) end
  end,
  test = function(ctx, a)
    if #a < 3 then
      -- the older form: the newest request; once complete, a later wait finds nothing to do
      local r = ctx.requests[#ctx.requests]
      if r and r.req and Test(r.req) then r.req = false end
      return
    end
    local src, dst, tag = floor(a[1]), floor(a[2]), floor(a[3])
    for i, r in ipairs(ctx.requests) do
      if r.src == src and r.dst == dst and r.tag == tag then
        if Test(r.req) then tremove(ctx.requests, i) end
        return
      end
    end
  end,
  waitall = function(ctx)
    if #ctx.requests == 0 then return end
    local reqs = {}
    for _, r in ipairs(ctx.requests) do
      if r.req then reqs[#reqs + 1] = r.req end
    end
    ctx.requests = {}
    Waitall(reqs, IGNORE)
  end,
  barrier = function(ctx) coll.barrier(copts(ctx, "barrier")) end,
  bcast = function(ctx, a)
    coll.bcast(copts(ctx, "bcast", { bytes = bytes(a[1], ctx.dt(a, 3)), root = floor(a[2] or 0) }))
  end,
  reduce = function(ctx, a)
    coll.reduce(copts(ctx, "reduce", { bytes = bytes(a[1], ctx.dt(a, 4)), root = floor(a[3] or 0) }))
    compute(ctx, a[2])
  end,
  allreduce = function(ctx, a)
    coll.allreduce(copts(ctx, "allreduce", { bytes = bytes(a[1], ctx.dt(a, 3)) }))
    compute(ctx, a[2])
  end,
  alltoall = function(ctx, a)
    coll.alltoall(copts(ctx, "alltoall", { bytes = bytes(a[1], ctx.dt(a, 3)) }))
  end,
  gather = function(ctx, a)
    coll.gather(copts(ctx, "gather", { bytes = bytes(a[1], ctx.dt(a, 4)), root = floor(a[3] or 0) }))
  end,
  allgather = function(ctx, a)
    coll.allgather(copts(ctx, "allgather", { bytes = bytes(a[1], ctx.dt(a, 3)) }))
  end,
  scatter = function(ctx, a)
    coll.scatter(copts(ctx, "scatter", { bytes = bytes(a[1], ctx.dt(a, 4)), root = floor(a[3] or 0) }))
  end,
  -- alltoallv SEND_BUF SENDCOUNTS[p] RECV_BUF RECVCOUNTS[p] [DT1 DT2]: direct exchange
  alltoallv = function(ctx, a)
    local p = ctx.csize
    exchange(ctx, counts(a, 2, p, ctx.dt(a, 2 * p + 3)), counts(a, p + 3, p, ctx.dt(a, 2 * p + 4)))
  end,
  -- gatherv SEND RECVCOUNTS[p] [ROOT DT1 DT2]: everyone sends its block to the root
  gatherv = function(ctx, a)
    local p = ctx.csize
    local root = floor(a[p + 2] or 0)
    local to, from = fill(p, 0), fill(p, 0)
    if ctx.crank == root then from = counts(a, 2, p, ctx.dt(a, p + 4)) else to[root + 1] = bytes(a[1], ctx.dt(a, p + 3)) end
    exchange(ctx, to, from)
  end,
  -- allgatherv SEND RECVCOUNTS[p] [...]: everyone sends its block to everyone
  allgatherv = function(ctx, a)
    local p = ctx.csize
    local dt = (#a == p + 2) and ctx.dt(a, p + 2) or ctx.dt(a, -1)
    exchange(ctx, fill(p, bytes(a[1], dt)), counts(a, 2, p, dt))
  end,
  -- scatterv SENDCOUNTS[p] RECV [ROOT DT1 DT2]: the root sends each rank its block
  scatterv = function(ctx, a)
    local p = ctx.csize
    local root = floor(a[p + 2] or 0)
    local to, from = fill(p, 0), fill(p, 0)
    if ctx.crank == root then to = counts(a, 1, p, ctx.dt(a, p + 3)) else from[root + 1] = bytes(a[p + 1], ctx.dt(a, p + 4)) end
    exchange(ctx, to, from)
  end,
  -- reducescatter RECVCOUNTS[p] FLOPS [DT]: each rank sends every other its part, then combines
  reducescatter = function(ctx, a)
    local p = ctx.csize
    local dt = ctx.dt(a, p + 2)
    local mine = bytes(a[ctx.crank + 1], dt)
    exchange(ctx, counts(a, 1, p, dt), fill(p, mine))
    compute(ctx, a[p + 1] or 0)
  end,
  comm_size = function(ctx, a)
    if floor(a[1]) ~= ctx.size then
      MGEN_trace_note(("comm_size %d differs from the job's %d ranks"):format(floor(a[1]), ctx.size))
    end
  end,
  comm_split = function()
    MGEN_trace_note("comm_split: the TI format does not say which communicator a collective uses; collectives are replayed on all ranks")
  end,
  comm_dup = function()
    MGEN_trace_note("comm_dup: replayed as the world communicator")
  end,
  -- comm ID W0 W1 ... (mgensim's): communicator ID's members, by world rank, in its rank order
  comm = function(ctx, a)
    local g = {}
    for i = 2, #a do g[i - 1] = floor(a[i]) end
    ctx.comms[floor(a[1])] = g
  end,
  -- region_begin NAME, region_end (mgensim's): a function the program ran (a user region of
  -- an OTF2 trace), a region of the profile and the timeline
  region_begin = function(ctx, a)
    MGEN_region_begin(a.name)
    ctx.regions = ctx.regions + 1
  end,
  region_end = function(ctx)
    if ctx.regions == 0 then
      MGEN_trace_note("a region_end with no region open, passed over")
      return
    end
    MGEN_region_end()
    ctx.regions = ctx.regions - 1
  end,
}

---Replays a trace on this rank; see lua/mgen/replay.d.lua.
function replay.run(opts)
  if type(opts) ~= "table" or type(opts.trace) ~= "string" then
    error("replay.run: expected a table of options with `trace`, the trace's index file, e.g. replay.run{ trace = \"app.txt\" }", 2)
  end
  local args = opts.args or {}
  local n, sizes = MGEN_trace_open(opts.trace)
  local size = MGEN_Comm_size()
  if n ~= size then
    error(("replay: %s has %d ranks and the job %d (set workload.ranks = %d)"):format(opts.trace, n, size, n), 2)
  end
  local ctx = {
    rank = MGEN_Comm_rank(),
    size = size,
    flops = setting(opts, args, "flops", 1e9),
    compute_scale = setting(opts, args, "compute_scale", 1),
    transport = setting(opts, args, "transport", "message"),
    collectives = opts.collectives or {},
    requests = {},
    default_dt = 6,
    vcalls = {},
    comms = {},
    comm = 0,
    regions = 0,
  }
  -- algo_<collective> = "<algorithm>" among the args
  for _, name in ipairs(COLLECTIVES) do
    local algo = setting({}, args, "algo_" .. name, nil)
    if algo then
      ctx.collectives[name] = ctx.collectives[name] or {}
      ctx.collectives[name].algo = algo
    end
  end
  ctx.dt = function(a, i)
    local id = a[i]
    if id == nil or i < 1 then id = ctx.default_dt end
    local b = sizes[floor(id)]
    if not b then
      -- a derived datatype (SimGrid's replay knows only the predefined ones): its size is not
      -- in the trace; its counts are taken in the default datatype, and noted
      MGEN_trace_note(("datatype %.0f is not one SimGrid predefines: counted in the default datatype"):format(id))
      b = sizes[ctx.default_dt]
    end
    return b
  end
  local on, each = opts.on or {}, opts.each
  local actions = replay.actions
  while true do
    local name, a, comm, text = trace_next()
    if not name then break end
    if text then a.name = text end
    -- the action's communicator: its members, this rank's place and the size
    ctx.comm = comm
    if comm == 0 then
      ctx.group, ctx.crank, ctx.csize = nil, ctx.rank, size
    else
      local g = ctx.comms[comm]
      if not g then
        error(("replay: %s: communicator %d is used before a `comm %d ...` line defines it"):format(trace_where(), comm, comm), 0)
      end
      ctx.group, ctx.csize, ctx.crank = g, #g, nil
      for i = 1, #g do if g[i] == ctx.rank then ctx.crank = i - 1 end end
      if not ctx.crank then
        error(("replay: %s: rank %d is not a member of communicator %d"):format(trace_where(), ctx.rank, comm), 0)
      end
    end
    if not (each and each(ctx, name, a) == "skip") then
      local f = on[name]
      if f then f(ctx, a, actions[name]) else actions[name](ctx, a) end
    end
  end
  -- requests the trace never waited for are waited for at its end, and regions it left open
  -- are closed there
  actions.waitall(ctx)
  if ctx.regions > 0 then
    MGEN_trace_note("regions still open at the end of a rank's trace, closed there")
    for _ = 1, ctx.regions do MGEN_region_end() end
    ctx.regions = 0
  end
  return ctx
end

return replay
