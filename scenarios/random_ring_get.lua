-- HPCC random ring with gets: every rank draws the same permutation (math.random is per rank,
-- seeded identically), then gets `bytes` from both of its ring neighbours.
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local bytes = MGEN_args.bytes or 2000000

local ring = {}
for i = 1, size do ring[i] = i - 1 end
for i = size, 2, -1 do
  local j = math.random(i)
  ring[i], ring[j] = ring[j], ring[i]
end
local pos
for i = 1, size do if ring[i] == rank then pos = i break end end
local left = ring[(pos - 2) % size + 1]
local right = ring[pos % size + 1]

local t0 = MGEN_Wtime()
local from_left = MGEN_rdma_get(left, bytes, 1)
local from_right = MGEN_rdma_get(right, bytes, 2)
MGEN_acp_complete(from_left)
MGEN_acp_complete(from_right)
MGEN_report("bandwidth_GBps", 2 * bytes / (MGEN_Wtime() - t0) / 1e9)
