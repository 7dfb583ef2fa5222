---@meta mgen.util
-- The reference of `require("mgen.util")`: helpers for workload scripts.

---@class mgen.util
local util = {}

---A random permutation of 0..n-1 as a list (Fisher-Yates with math.random). math.random is per
---rank and starts from the same seeded state in every rank, so ranks that call this at the same
---point of their scripts draw the same permutation.
---@param n integer
---@return integer[] permutation
function util.permutation(n) end

---This rank's left and right neighbours in a ring of all ranks in a seeded random order (HPCC's
---randomly ordered ring); draws one permutation of MGEN_Comm_size() ranks.
---@return integer left
---@return integer right
function util.random_ring_neighbours() end

return util
