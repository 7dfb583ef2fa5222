-- mgen.util: helpers for workload scripts. Reference: lua/mgen/util.d.lua.
local util = {}

-- A random permutation of 0..n-1 (Fisher-Yates with math.random). math.random starts from the
-- same seeded state in every rank, so every rank that calls this first draws the same one.
function util.permutation(n)
  local perm = {}
  for i = 1, n do perm[i] = i - 1 end
  for i = n, 2, -1 do
    local j = math.random(i)
    perm[i], perm[j] = perm[j], perm[i]
  end
  return perm
end

-- This rank's left and right neighbours in a ring of all ranks in a random order (HPCC's
-- randomly ordered ring).
function util.random_ring_neighbours()
  return MGEN_random_ring(MGEN_Comm_size(), MGEN_Comm_rank())
end

return util
