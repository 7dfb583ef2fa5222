-- mgen.tracerp: the five communication benchmarks of TraceRP's evaluation (Ono et al., §4.1),
-- written for mgensim. Reference (arguments, patterns): lua/mgen/tracerp.d.lua.
--
--   require("mgen.tracerp").run(MGEN_args)    -- MGEN_args.bench names the benchmark
--
-- Every benchmark repeats `iters` iterations of: compute for `compute` seconds (MGEN_Comp),
-- then its communication. Messages use MGEN_Isend / MGEN_Irecv / MGEN_Waitall. Each reports
-- the mean time of an iteration as `iteration_s`.

local coll = require("mgen.coll")
local Isend, Irecv, Waitall, Comp = MGEN_Isend, MGEN_Irecv, MGEN_Waitall, MGEN_Comp
local floor, sqrt = math.floor, math.sqrt

local M = {}

-- Splits p into n factors as equal as possible (largest prime factors first, each given to
-- the smallest dimension so far).
function M.grid(p, n)
  local dims = {}
  for i = 1, n do dims[i] = 1 end
  local f, x, d = {}, p, 2
  while d * d <= x do
    while x % d == 0 do f[#f + 1], x = d, x // d end
    d = d + 1
  end
  if x > 1 then f[#f + 1] = x end
  table.sort(f, function(a, b) return a > b end)
  for _, q in ipairs(f) do
    local m = 1
    for i = 2, n do if dims[i] < dims[m] then m = i end end
    dims[m] = dims[m] * q
  end
  return dims
end

local function coords(r, dims)
  local c = {}
  for i = 1, #dims do c[i], r = r % dims[i], r // dims[i] end
  return c
end

local function rank_of(c, dims)
  local r, s = 0, 1
  for i = 1, #dims do r, s = r + c[i] * s, s * dims[i] end
  return r
end

-- Sends sizes[i] bytes to peers[i] and receives as much from it, all at once. The peer
-- relation must be symmetric (q is in my list iff I am in q's, with the same size).
local function exchange(peers, sizes, tag)
  local reqs = {}
  for i, q in ipairs(peers) do reqs[#reqs + 1] = Irecv(q, sizes[i], tag) end
  for i, q in ipairs(peers) do reqs[#reqs + 1] = Isend(q, sizes[i], tag) end
  Waitall(reqs, MGEN_STATUS_IGNORE)
end

local function check(a, name, kind, default)
  local v = a[name]
  if v == nil then return default end
  if kind == "int" and (math.type(v) ~= "integer" or v < 0) then
    error(("mgen.tracerp: `%s` must be an integer >= 0, got %s"):format(name, tostring(v)), 3)
  elseif kind == "num" and (type(v) ~= "number" or v < 0) then
    error(("mgen.tracerp: `%s` must be a number >= 0, got %s"):format(name, tostring(v)), 3)
  end
  return v
end

-- near-neighbor: an unstructured-mesh exchange. Each rank's neighbours are its 4 faces on a
-- 2-D grid (not periodic) and `extra` irregular ones, rank xor m for masks m drawn from the
-- seed (xor keeps the relation symmetric). Sizes vary by pair, from bytes/2 to 2·bytes.
function M.near_neighbor(a, me, p)
  local bytes, extra = check(a, "bytes", "int", 16384), check(a, "extra", "int", 2)
  local dims = M.grid(p, 2)
  local c = coords(me, dims)
  local peers, seen = {}, { [me] = true }
  local function add(q)
    if q >= 0 and q < p and not seen[q] then seen[q] = true; peers[#peers + 1] = q end
  end
  for i = 1, 2 do
    for _, s in ipairs({ -1, 1 }) do
      local d = { c[1], c[2] }
      d[i] = d[i] + s
      if d[i] >= 0 and d[i] < dims[i] then add(rank_of(d, dims)) end
    end
  end
  local bits = 1
  while (1 << bits) < p do bits = bits + 1 end
  for _ = 1, extra do add(me ~ math.random(1, (1 << bits) - 1)) end
  local sizes = {}
  for i, q in ipairs(peers) do
    local lo, hi = math.min(me, q), math.max(me, q)
    sizes[i] = bytes * (1 + (lo * 7 + hi * 13) % 4) // 2
  end
  return function(tag) exchange(peers, sizes, tag) end
end

-- permutation: matrix multiply (Cannon's shifts on a q×q grid, q = floor(sqrt(p))) and a
-- transpose: per iteration q shifts of A left and B up, then (i,j) swaps with (j,i). Ranks
-- beyond q² only compute.
function M.permutation(a, me, p)
  local bytes = check(a, "bytes", "int", 32768)
  local q = floor(sqrt(p))
  while (q + 1) * (q + 1) <= p do q = q + 1 end
  if me >= q * q then return function() end end
  local i, j = me // q, me % q
  local left, right = i * q + (j - 1) % q, i * q + (j + 1) % q
  local up, down = ((i - 1) % q) * q + j, ((i + 1) % q) * q + j
  local t = j * q + i
  return function(tag)
    for _ = 1, q - 1 do
      local reqs = {
        Irecv(right, bytes, tag), Irecv(down, bytes, tag + 1),
        Isend(left, bytes, tag), Isend(up, bytes, tag + 1),
      }
      Waitall(reqs, MGEN_STATUS_IGNORE)
    end
    if t ~= me then exchange({ t }, { bytes }, tag + 2) end
  end
end

-- qbox: the collective mix of first-principles molecular dynamics: a 3-D FFT's transposes
-- (all-to-all of bytes/p per pair), then the reductions of the energy and forces
-- (allreduce of `reduce_bytes`) and a broadcast of the new positions (`bcast_bytes`).
function M.qbox(a, _, p)
  local bytes = check(a, "bytes", "int", 262144)
  local red = check(a, "reduce_bytes", "int", 8192)
  local bc = check(a, "bcast_bytes", "int", 4096)
  local block = math.max(1, bytes // p)
  return function()
    coll.alltoall { bytes = block, algo = "pairwise" }
    coll.allreduce { bytes = red }
    coll.alltoall { bytes = block, algo = "pairwise" }
    coll.bcast { bytes = bc }
  end
end

-- stencil4d: a 4-D periodic halo exchange: ranks on a 4-D grid (p split as evenly as it
-- goes), each sends a face of `bytes` to its 8 neighbours (±1 in each dimension).
function M.stencil4d(a, me, p)
  local bytes = check(a, "bytes", "int", 65536)
  local dims = M.grid(p, 4)
  local c = coords(me, dims)
  local peers, sizes, seen = {}, {}, { [me] = true }
  for i = 1, 4 do
    for _, s in ipairs({ -1, 1 }) do
      local d = { c[1], c[2], c[3], c[4] }
      d[i] = (d[i] + s) % dims[i]
      local q = rank_of(d, dims)
      if not seen[q] then
        seen[q] = true
        peers[#peers + 1], sizes[#sizes + 1] = q, bytes
      end
    end
  end
  return function(tag) exchange(peers, sizes, tag) end
end

-- a2a: an all-to-all of `bytes` per pair (`algo` as for mgen.coll's alltoall, default
-- "linear": every transfer posted at once).
function M.a2a(a)
  local bytes = check(a, "bytes", "int", 4096)
  local algo = a.algo or "linear"
  return function() coll.alltoall { bytes = bytes, algo = algo } end
end

local NAMES = "a2a, near_neighbor, permutation, qbox, stencil4d"

-- Runs benchmark `a.bench` for `a.iters` iterations of `a.compute` seconds of computation and
-- its communication; reports `iteration_s`.
function M.run(a)
  a = a or {}
  local name = a.bench or "a2a"
  local make = M[name]
  if type(make) ~= "function" or name == "run" or name == "grid" then
    error(("mgen.tracerp: unknown benchmark %q (known: %s)"):format(tostring(name), NAMES), 2)
  end
  local iters = check(a, "iters", "int", 5)
  local compute = check(a, "compute", "num", 50e-6)
  local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
  local step = make(a, me, p)
  local t0 = MGEN_Wtime()
  for it = 1, iters do
    Comp(compute)
    MGEN_region(name, step, it * 8)
  end
  if iters > 0 then MGEN_report("iteration_s", (MGEN_Wtime() - t0) / iters) end
end

return M
