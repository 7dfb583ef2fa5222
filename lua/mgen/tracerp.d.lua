---@meta mgen.tracerp
-- The reference of `require("mgen.tracerp")`: the five communication benchmarks of TraceRP's
-- evaluation (Ono et al., "TraceRP", §4.1), written for mgensim. Scenarios that run them on
-- TraceRP's three networks: scenarios/tracerp/{fattree,torus,dragonfly}.toml; the paper's
-- sweeps of T_s and T_w: scenarios/tracerp/sweep.sh.
--
-- Every benchmark repeats `iters` iterations (default 5) of: MGEN_Comp(`compute`) (seconds,
-- default 50e-6), then its communication as a region named after it on the timeline. It
-- reports the mean time of an iteration as `iteration_s`. Sizes are in bytes.
--
--   near_neighbor  unstructured-mesh exchange: the 4 faces of a 2-D grid (not periodic) and
--                  `extra` (2) irregular neighbours, rank xor m for masks m drawn from the
--                  seed; each pair exchanges bytes/2 to 2·bytes (`bytes`, 16384)
--   permutation    matrix multiply and transpose: q - 1 Cannon shifts of A (left) and B (up)
--                  on a q×q grid, q = floor(sqrt(p)), then (i,j) swaps with (j,i); ranks
--                  beyond q² only compute (`bytes` per block, 32768)
--   qbox           first-principles MD's collective mix: all-to-all of bytes/p per pair
--                  (pairwise), allreduce of `reduce_bytes` (8192), all-to-all again,
--                  broadcast of `bcast_bytes` (4096) (`bytes`, 262144)
--   stencil4d      4-D periodic halo exchange on a grid of p split as evenly as it goes: a
--                  face of `bytes` (65536) to each distinct neighbour (±1 in each dimension)
--   a2a            all-to-all of `bytes` (4096) per pair, `algo` as mgen.coll's alltoall
--                  (default "linear")

---@class mgen.tracerp.args
---@field bench? "near_neighbor"|"permutation"|"qbox"|"stencil4d"|"a2a" default "a2a"
---@field iters? integer
---@field compute? number seconds
---@field bytes? integer
---@field extra? integer near_neighbor
---@field reduce_bytes? integer qbox
---@field bcast_bytes? integer qbox
---@field algo? string a2a

---@class mgen.tracerp
local tracerp = {}

---Runs benchmark `args.bench` (usually `MGEN_args`); an unknown name is an error listing the
---known ones.
---@param args mgen.tracerp.args
function tracerp.run(args) end

---`p` split into `n` factors as equal as possible (the grids of near_neighbor and stencil4d).
---@param p integer
---@param n integer
---@return integer[]
function tracerp.grid(p, n) end

return tracerp
