-- mgen.coll: collective operations built from point-to-point transfers, as NSIM ships them.
-- Reference (arguments, algorithms, costs): lua/mgen/coll.d.lua.
--
--   local coll = require("mgen.coll")
--   coll.barrier{ algo = "dissemination" }
--   coll.alltoall{ bytes = 4, algo = "bruck", transport = "put" }
--
-- Every algorithm is a sequence of steps; a step sends to at most some ranks and receives
-- from some ranks, then waits for all of it. The transport decides how: "message"
-- (MGEN_Isend / MGEN_Irecv / MGEN_Wait, the default) or "put" (MGEN_rdma_put, then
-- MGEN_rdma_poll for each expected put, then MGEN_acp_complete). Sizes are only counted.

local coll = {}

local Isend, Irecv, Wait, IGNORE = MGEN_Isend, MGEN_Irecv, MGEN_Wait, MGEN_STATUS_IGNORE
local put, poll, complete = MGEN_rdma_put, MGEN_rdma_poll, MGEN_acp_complete
local floor, max, min = math.floor, math.max, math.min
-- (the module's globals are looked up through the job's environment: what every call uses is
-- kept here once)
local Comm_rank, Comm_size = MGEN_Comm_rank, MGEN_Comm_size
local region_begin, region_end = MGEN_region_begin, MGEN_region_end
local type, mtype, error, setmetatable, tostring = type, math.type, error, setmetatable, tostring

-- Tags: each call of a collective gets a fresh range (every rank calls collectives in the same
-- order, so they agree), and each step its own tag inside it, so that a fast neighbour's
-- transfer for step k+1 can never be taken for one of step k. Tags are 2^62 + comm * 2^30 +
-- (call mod 2^10) * 2^20 + step, for comm from 0 to 2^32 - 1: above every tag a script or a
-- trace gives (below 2^61) and mgen.replay's (2^61 to 2^62). A call 2^10 later reuses a range,
-- which is safe: messages from one sender with one tag are matched in the order they were
-- sent, and every rank takes its collectives in order.
local TAG_BASE = 1 << 62
local calls = {} -- per rank: collectives called so far (module state is shared by all ranks)

local function tag_base(r, comm)
  local mine = calls[r]
  if not mine then mine = {}; calls[r] = mine end
  local c = (mine[comm] or 0) + 1
  mine[comm] = c
  return TAG_BASE + (comm << 30) + (c % 1024) * (1 << 20)
end

------------------------------------------------------------------------------------------
-- transports

local transports = {
  message = {
    -- send `sb` bytes to `dst` and receive `rb` from `src` (either may be nil)
    xfer = function(tag, dst, sb, src, rb)
      local r = src and Irecv(src, rb, tag)
      local s = dst and Isend(dst, sb, tag)
      if s then Wait(s, IGNORE) end
      if r then Wait(r, IGNORE) end
    end,
    -- send sizes[i] to dsts[i] and receive rsizes[i] from srcs[i], all at once
    many = function(tag, dsts, sizes, srcs, rsizes)
      local reqs = {}
      for i = 1, #srcs do reqs[#reqs + 1] = Irecv(srcs[i], rsizes[i], tag) end
      for i = 1, #dsts do reqs[#reqs + 1] = Isend(dsts[i], sizes[i], tag) end
      for i = 1, #reqs do Wait(reqs[i], IGNORE) end
    end,
  },
  put = {
    xfer = function(tag, dst, sb, src, rb)
      local h = dst and put(dst, sb, tag)
      if src then poll(tag) end
      if h then complete(h) end
    end,
    many = function(tag, dsts, sizes, srcs, rsizes)
      local hs = {}
      for i = 1, #dsts do hs[i] = put(dsts[i], sizes[i], tag) end
      for _ = 1, #srcs do poll(tag) end
      for i = 1, #hs do complete(hs[i]) end
    end,
  },
}

local function sorted_list(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return ks
end

local function sorted_keys(t)
  return table.concat(sorted_list(t), ", ")
end

-- The key of `t` that `word` most likely meant: one a third of its letters or fewer away
-- (insertions, deletions, substitutions), or whose words' initials it is ("rd" for
-- recursive_doubling); nil if none.
local function nearest(word, t)
  if type(word) ~= "string" then return nil end
  local w = word:lower()
  local best, bestd = nil, math.max(1, #w // 3) + 1
  for k in pairs(t) do
    if type(k) == "string" then
      local initials = k:gsub("(%a)%a*_?", "%1")
      local d
      if w == initials and #w > 1 then
        d = 0
      else
        -- edit distance, one row at a time
        local prev = {}
        for j = 0, #k do prev[j] = j end
        for i = 1, #w do
          local cur = { [0] = i }
          for j = 1, #k do
            local cost = w:byte(i) == k:byte(j) and 0 or 1
            cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
          end
          prev = cur
        end
        d = prev[#k]
      end
      if d < bestd or (d == bestd and best and k < best) then best, bestd = k, d end
    end
  end
  return best
end

-- " (did you mean X?)" for `word` among the keys of `t`, or "".
local function did_you_mean(word, t)
  local n = nearest(word, t)
  return n and (" (did you mean %q?)"):format(n) or ""
end

-- The transport and algorithm a call asks for, with clear errors.
local function setup(name, opts, algos, default, p)
  if type(opts) ~= "table" then
    error(("coll.%s: expected a table of options, e.g. coll.%s{ algo = %q }"):format(name, name, default), 3)
  end
  local tname = opts.transport or "message"
  local T = transports[tname]
  if not T then
    error(("coll.%s: unknown transport %q%s (known: message, put)"):format(name, tostring(tname), did_you_mean(tname, transports)), 3)
  end
  local aname = opts.algo or default
  local f = algos[aname]
  if not f then
    error(("coll.%s: unknown algorithm %q%s (known: %s)"):format(name, tostring(aname), did_you_mean(aname, algos), sorted_keys(algos)), 3)
  end
  local bytes = opts.bytes or 0
  if mtype(bytes) ~= "integer" or bytes < 0 then
    error(("coll.%s: `bytes` must be an integer >= 0, got %s"):format(name, tostring(opts.bytes)), 3)
  end
  local root = opts.root or 0
  if mtype(root) ~= "integer" or root < 0 or root >= p then
    error(("coll.%s: `root` = %s is not a rank (0 to %d)"):format(name, tostring(opts.root), p - 1), 3)
  end
  return f, T, bytes, root, aname
end

-- Reduction cost: op_cost seconds per byte combined (0 by default).
local function combine(opts, bytes)
  local c = opts.op_cost or 0
  if c > 0 and bytes > 0 then MGEN_Comp(c * bytes) end
end

local function pow2_floor(p)
  local p2 = 1
  while p2 * 2 <= p do p2 = p2 * 2 end
  return p2
end

-- Recursive doubling on p = 2^n + rest ranks (synchronization paper §4.3): the ranks >= 2^n
-- first hand `b_in` bytes to rank - 2^n (which combines them when `opts` is given) and, if
-- `b_out`, get `b_out` bytes back at the end (fold_out). Returns 2^n and whether this rank is
-- one of the extra ones, which is then done.
local function fold_in(T, tag, r, p, b_in, b_out, opts)
  local p2 = pow2_floor(p)
  if r >= p2 then
    T.xfer(tag, r - p2, b_in, nil, 0)
    if b_out then T.xfer(tag + 1, nil, 0, r - p2, b_out) end
    return p2, true
  end
  if r < p - p2 then
    T.xfer(tag, nil, 0, r + p2, b_in)
    if opts then combine(opts, b_in) end
  end
  return p2, false
end

local function fold_out(T, tag, r, p, p2, b_out)
  if r < p - p2 then T.xfer(tag + 1, r + p2, b_out, nil, 0) end
end

-- Size of chunks lo..hi-1 when `bytes` is cut into `n` nearly equal chunks.
local function seg(bytes, n, lo, hi)
  return bytes * hi // n - bytes * lo // n
end

------------------------------------------------------------------------------------------
-- barrier

local barrier = {}
local bcast_binomial -- defined with the broadcasts, used by the binomial barrier

-- p-1 steps: put/send to rank+1, receive from rank-1 (synchronization paper, figure 1).
function barrier.ring(T, tag, b, r, p)
  for _ = 1, p - 1 do T.xfer(tag, (r + 1) % p, b, (r - 1) % p, b) end
end

-- log2 steps with partner rank xor 2^k; for p = 2^n + rest, ranks >= 2^n first hand their
-- arrival to rank - 2^n and are released by it at the end (figure 2 and §4.3).
function barrier.recursive_doubling(T, tag, b, r, p)
  local p2, extra = fold_in(T, tag, r, p, b, b)
  if extra then return end
  local mask, step = 1, 2
  while mask < p2 do
    local peer = r ~ mask
    T.xfer(tag + step, peer, b, peer, b)
    mask, step = mask * 2, step + 1
  end
  fold_out(T, tag, r, p, p2, b)
end

-- ceil(log2 p) steps: send to rank + 2^k, receive from rank - 2^k (Hensgen et al.).
function barrier.dissemination(T, tag, b, r, p)
  local d, k = 1, 0
  while d < p do
    T.xfer(tag + k, (r + d) % p, b, (r - d) % p, b)
    d, k = d * 2, k + 1
  end
end

-- A binomial tree: arrivals gathered up to rank 0, the release broadcast back down.
function barrier.binomial(T, tag, b, r, p)
  local mask = 1
  while mask < p do
    if r & mask ~= 0 then
      T.xfer(tag, r - mask, b, nil, 0)
      break
    elseif r + mask < p then
      T.xfer(tag, nil, 0, r + mask, b)
    end
    mask = mask * 2
  end
  bcast_binomial(T, tag + 1, b, r, p, 0)
end

-- Central counter: every rank reports to rank 0, which releases all once all have come.
function barrier.central(T, tag, b, r, p)
  if p == 1 then return end
  if r == 0 then
    local others, sizes = {}, {}
    for i = 1, p - 1 do others[i], sizes[i] = i, b end
    T.many(tag, {}, {}, others, sizes)
    T.many(tag + 1, others, sizes, {}, {})
  else
    T.xfer(tag, 0, b, nil, 0)
    T.xfer(tag + 1, nil, 0, 0, b)
  end
end
barrier.rd = barrier.recursive_doubling

------------------------------------------------------------------------------------------
-- broadcast

-- Binomial tree from `root` (MPICH): receive from the parent, then send to the children,
-- farthest first. ceil(log2 p) steps; every rank but the root receives `b` once.
function bcast_binomial(T, tag, b, r, p, root)
  local vr = (r - root) % p
  local mask = 1
  while mask < p do
    if vr & mask ~= 0 then
      T.xfer(tag, nil, 0, (vr - mask + root) % p, b)
      break
    end
    mask = mask * 2
  end
  mask = mask // 2
  while mask > 0 do
    if vr + mask < p then T.xfer(tag, (vr + mask + root) % p, b, nil, 0) end
    mask = mask // 2
  end
end
local bcast = {}
bcast.binomial = bcast_binomial

-- The root sends to every other rank at once.
function bcast.linear(T, tag, b, r, p, root)
  if r == root then
    local others, sizes = {}, {}
    for i = 0, p - 1 do
      if i ~= root then others[#others + 1], sizes[#sizes + 1] = i, b end
    end
    T.many(tag, others, sizes, {}, {})
  else
    T.xfer(tag, nil, 0, root, b)
  end
end

------------------------------------------------------------------------------------------
-- reduce and allreduce (`b` is the size of the whole vector)

-- Recursive doubling: exchange whole vectors with rank xor 2^k; for p = 2^n + rest, ranks
-- >= 2^n give their vector to rank - 2^n first and get the result back at the end.
local function allreduce_rd(T, tag, b, r, p, _, opts)
  local p2, extra = fold_in(T, tag, r, p, b, b, opts)
  if extra then return end
  local mask, step = 1, 2
  while mask < p2 do
    local peer = r ~ mask
    T.xfer(tag + step, peer, b, peer, b)
    combine(opts, b)
    mask, step = mask * 2, step + 1
  end
  fold_out(T, tag, r, p, p2, b)
end

-- Ring reduce-scatter: p-1 steps, chunk (r - s) to rank + 1; rank r ends holding chunk r + 1.
local function reduce_scatter_ring(T, tag, b, r, p, opts)
  for s = 0, p - 2 do
    local send = (r - s) % p
    local recv = (r - s - 1) % p
    T.xfer(tag, (r + 1) % p, seg(b, p, send, send + 1), (r - 1) % p, seg(b, p, recv, recv + 1))
    combine(opts, seg(b, p, recv, recv + 1))
  end
end

-- Ring: reduce-scatter then allgather of the chunks, 2(p-1) steps of b/p bytes.
local function allreduce_ring(T, tag, b, r, p, _, opts)
  reduce_scatter_ring(T, tag, b, r, p, opts)
  for s = 0, p - 2 do
    local send = (r + 1 - s) % p
    local recv = (r - s) % p
    T.xfer(tag + 1, (r + 1) % p, seg(b, p, send, send + 1), (r - 1) % p, seg(b, p, recv, recv + 1))
  end
end

-- Rabenseifner: reduce-scatter by recursive halving, then allgather by recursive doubling,
-- among the first 2^n ranks (the others fold in first and get the result last, as in rd).
-- 2 log2(2^n) steps; each rank sends and receives about 2b(1 - 1/2^n).
-- Returns the chunk range [lo, hi) the rank holds after the halving (gather = false: whole).
local function rabenseifner(T, tag, b, r, p, opts, gather)
  local p2, extra = fold_in(T, tag, r, p, b, gather and b, opts)
  if extra then return nil end
  local lo, hi = 0, p2
  local mask, step = p2 // 2, 2
  while mask > 0 do
    local peer = r ~ mask
    local mid = (lo + hi) // 2
    if r & mask == 0 then
      T.xfer(tag + step, peer, seg(b, p2, mid, hi), peer, seg(b, p2, lo, mid))
      hi = mid
    else
      T.xfer(tag + step, peer, seg(b, p2, lo, mid), peer, seg(b, p2, mid, hi))
      lo = mid
    end
    combine(opts, seg(b, p2, lo, hi))
    mask, step = mask // 2, step + 1
  end
  if not gather then return lo, hi end
  mask = 1
  while mask < p2 do
    local peer = r ~ mask
    local n = hi - lo
    if r & mask == 0 then
      T.xfer(tag + step, peer, seg(b, p2, lo, hi), peer, seg(b, p2, hi, hi + n))
      hi = hi + n
    else
      T.xfer(tag + step, peer, seg(b, p2, lo, hi), peer, seg(b, p2, lo - n, lo))
      lo = lo - n
    end
    mask, step = mask * 2, step + 1
  end
  fold_out(T, tag, r, p, p2, b)
end

local allreduce = {
  recursive_doubling = allreduce_rd,
  ring = allreduce_ring,
  rabenseifner = function(T, tag, b, r, p, _, opts) rabenseifner(T, tag, b, r, p, opts, true) end,
}
allreduce.rd = allreduce.recursive_doubling

local reduce = {}

-- Binomial tree to `root`: receive from the children, combine, send to the parent.
function reduce.binomial(T, tag, b, r, p, root, opts)
  local vr = (r - root) % p
  local mask = 1
  while mask < p do
    if vr & mask ~= 0 then
      T.xfer(tag, (vr - mask + root) % p, b, nil, 0)
      return
    elseif vr + mask < p then
      T.xfer(tag, nil, 0, (vr + mask + root) % p, b)
      combine(opts, b)
    end
    mask = mask * 2
  end
end

-- Recursive doubling: an allreduce (every rank, the root too, ends with the result).
reduce.recursive_doubling = allreduce_rd
reduce.rd = allreduce_rd

-- Ring: reduce-scatter, then every rank sends its reduced chunk to the root.
function reduce.ring(T, tag, b, r, p, root, opts)
  reduce_scatter_ring(T, tag, b, r, p, opts)
  local mine = (r + 1) % p
  if r == root then
    local srcs, sizes = {}, {}
    for i = 0, p - 1 do
      if i ~= root then srcs[#srcs + 1], sizes[#sizes + 1] = i, seg(b, p, (i + 1) % p, (i + 1) % p + 1) end
    end
    T.many(tag + 1, {}, {}, srcs, sizes)
  else
    T.xfer(tag + 1, root, seg(b, p, mine, mine + 1), nil, 0)
  end
end

-- Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the chunks to
-- rank 0, which hands the result to the root if that is another rank.
function reduce.rabenseifner(T, tag, b, r, p, root, opts)
  local p2 = pow2_floor(p)
  local lo, hi = rabenseifner(T, tag, b, r, p, opts, false)
  if lo then
    local mask = 1
    while mask < p2 do
      if r & mask ~= 0 then
        T.xfer(tag + 100, r - mask, seg(b, p2, lo, hi), nil, 0)
        break
      end
      local n = hi - lo
      T.xfer(tag + 100, nil, 0, r + mask, seg(b, p2, hi, hi + n))
      hi = hi + n
      mask = mask * 2
    end
  end
  if root ~= 0 then
    if r == 0 then T.xfer(tag + 101, root, b, nil, 0) elseif r == root then T.xfer(tag + 101, nil, 0, 0, b) end
  end
end

------------------------------------------------------------------------------------------
-- allgather (`b` is each rank's block)

local allgather = {}

-- p-1 steps: pass the block received last step on to rank + 1.
function allgather.ring(T, tag, b, r, p)
  for _ = 1, p - 1 do T.xfer(tag, (r + 1) % p, b, (r - 1) % p, b) end
end

-- Recursive doubling among the first 2^n ranks, the others folded in first and served last.
function allgather.recursive_doubling(T, tag, b, r, p)
  local p2, extra = fold_in(T, tag, r, p, b, (p - 1) * b)
  if extra then return end
  local rest = p - p2
  -- blocks held by the ranks lo..lo+n-1 of the first 2^n, with their folded-in partners
  local function blocks(lo, n) return n + max(0, min(rest - lo, n)) end
  local mask, step = 1, 2
  while mask < p2 do
    local peer = r ~ mask
    local mine = r & ~(mask - 1)
    local theirs = peer & ~(mask - 1)
    T.xfer(tag + step, peer, blocks(mine, mask) * b, peer, blocks(theirs, mask) * b)
    mask, step = mask * 2, step + 1
  end
  fold_out(T, tag, r, p, p2, (p - 1) * b)
end
allgather.rd = allgather.recursive_doubling

-- Bruck: ceil(log2 p) steps; step k sends min(2^k, p - 2^k) blocks to rank - 2^k.
function allgather.bruck(T, tag, b, r, p)
  local d, k = 1, 0
  while d < p do
    local n = min(d, p - d)
    T.xfer(tag + k, (r - d) % p, n * b, (r + d) % p, n * b)
    d, k = d * 2, k + 1
  end
end

------------------------------------------------------------------------------------------
-- all-to-all (`b` is the block each rank sends to each rank)

local alltoall = {}

-- Bruck: ceil(log2 p) steps; step k sends the blocks whose index has bit k set to rank + 2^k.
function alltoall.bruck(T, tag, b, r, p)
  local d, k = 1, 0
  while d < p do
    local n = (p // (2 * d)) * d + max(0, p % (2 * d) - d)
    T.xfer(tag + k, (r + d) % p, n * b, (r - d) % p, n * b)
    d, k = d * 2, k + 1
  end
end

-- Pairwise exchange: p-1 steps; partner rank xor s when p is a power of two, else send to
-- rank + s and receive from rank - s.
function alltoall.pairwise(T, tag, b, r, p)
  local pow2 = p & (p - 1) == 0
  for s = 1, p - 1 do
    if pow2 then
      T.xfer(tag + s, r ~ s, b, r ~ s, b)
    else
      T.xfer(tag + s, (r + s) % p, b, (r - s) % p, b)
    end
  end
end

-- Linear: post every receive and every send at once (MGEN_Irecv / MGEN_Isend), then wait.
function alltoall.linear(T, tag, b, r, p)
  local dsts, srcs, sizes = {}, {}, {}
  for s = 1, p - 1 do
    dsts[s], srcs[s], sizes[s] = (r + s) % p, (r - s) % p, b
  end
  T.many(tag, dsts, sizes, srcs, sizes)
end

------------------------------------------------------------------------------------------
-- gather and scatter (`b` is each rank's block)

local gather, scatter = {}, {}

function gather.linear(T, tag, b, r, p, root)
  if r == root then
    local srcs, sizes = {}, {}
    for i = 0, p - 1 do
      if i ~= root then srcs[#srcs + 1], sizes[#sizes + 1] = i, b end
    end
    T.many(tag, {}, {}, srcs, sizes)
  else
    T.xfer(tag, root, b, nil, 0)
  end
end

-- Binomial: each rank collects its subtree's blocks, then sends them to its parent.
function gather.binomial(T, tag, b, r, p, root)
  local vr = (r - root) % p
  local have = 1
  local mask = 1
  while mask < p do
    if vr & mask ~= 0 then
      T.xfer(tag, (vr - mask + root) % p, have * b, nil, 0)
      return
    end
    local child = vr + mask
    if child < p then
      local n = min(mask, p - child)
      T.xfer(tag, nil, 0, (child + root) % p, n * b)
      have = have + n
    end
    mask = mask * 2
  end
end

-- The root sends each rank its block at once: the same traffic as a linear broadcast.
scatter.linear = bcast.linear

-- Binomial: each rank receives its subtree's blocks from its parent and passes on theirs.
function scatter.binomial(T, tag, b, r, p, root)
  local vr = (r - root) % p
  local mask = 1
  while mask < p do
    if vr & mask ~= 0 then
      T.xfer(tag, nil, 0, (vr - mask + root) % p, min(mask, p - vr) * b)
      break
    end
    mask = mask * 2
  end
  mask = mask // 2
  while mask > 0 do
    local child = vr + mask
    if child < p then T.xfer(tag, (child + root) % p, min(mask, p - child) * b, nil, 0) end
    mask = mask // 2
  end
end

-- A transport over a group: peers given as ranks in the group are the world ranks group[i + 1].
local function over_group(T, g)
  local function map(list)
    local out = {}
    for i = 1, #list do out[i] = g[list[i] + 1] end
    return out
  end
  return {
    xfer = function(tag, dst, sb, src, rb)
      T.xfer(tag, dst and g[dst + 1], sb, src and g[src + 1], rb)
    end,
    many = function(tag, dsts, sizes, srcs, rsizes)
      T.many(tag, map(dsts), sizes, map(srcs), rsizes)
    end,
  }
end

-- This rank's place in `opts.group` (a communicator: world ranks in its rank order), its size,
-- its id for tags and the rank in the job; or the whole job.
local function membership(name, opts)
  local g = opts.group
  if g == nil then
    local me = Comm_rank()
    return nil, me, Comm_size(), 0, me
  end
  local comm = opts.comm
  if mtype(comm) ~= "integer" or comm < 1 or comm >= (1 << 32) then
    error(("coll.%s: a `group` needs its `comm`, an integer id from 1 to 2^32 - 1 that every member gives, got %s"):format(name, tostring(comm)), 3)
  end
  local me = Comm_rank()
  for i = 1, #g do
    if g[i] == me then return g, i - 1, #g, comm, me end
  end
  error(("coll.%s: rank %d is not in the group of communicator %d"):format(name, me, comm), 3)
end

------------------------------------------------------------------------------------------
-- the public functions

local function collective(name, algos, default, default_bytes)
  local labels = {} -- algorithm -> "coll.<name> <algorithm>", made once
  coll[name] = function(opts)
    opts = opts or {}
    if type(opts) ~= "table" then
      error(("coll.%s: expected a table of options, e.g. coll.%s{ algo = %q }"):format(name, name, default), 2)
    end
    if default_bytes and opts.bytes == nil then
      opts = setmetatable({ bytes = default_bytes }, { __index = opts })
    end
    local group, r, p, comm, me = membership(name, opts)
    local f, T, bytes, root, algo = setup(name, opts, algos, default, p)
    if group then T = over_group(T, group) end
    local tag = tag_base(me, comm)
    -- a span on the timeline (--trace) and a row of the profile: "coll.barrier dissemination",
    -- or the region the caller names (`region`), or none (`region = false`)
    local label = opts.region
    if label == nil then
      label = labels[algo]
      if not label then
        label = ("coll.%s %s"):format(name, algo)
        labels[algo] = label
      end
    elseif label ~= false and type(label) ~= "string" then
      error(("coll.%s: `region` must be a string (the region's name) or false (no region), got %s"):format(name, tostring(label)), 2)
    end
    if p > 1 then
      if label then region_begin(label) end
      f(T, tag, bytes, r, p, root, opts)
      if label then region_end() end
    end
  end
  coll[name .. "_algorithms"] = function() return sorted_list(algos) end
end

collective("barrier", barrier, "dissemination", 8)
collective("bcast", bcast, "binomial")
collective("reduce", reduce, "binomial")
collective("allreduce", allreduce, "recursive_doubling")
collective("allgather", allgather, "ring")
collective("alltoall", alltoall, "bruck")
collective("gather", gather, "binomial")
collective("scatter", scatter, "binomial")

return coll
