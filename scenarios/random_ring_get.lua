-- HPCC random ring with gets: every rank draws the same permutation (math.random is per rank,
-- seeded identically), then gets `bytes` from both of its ring neighbours.
local bytes = MGEN_args.bytes or 2000000
local left, right = require("mgen.util").random_ring_neighbours()

local t0 = MGEN_Wtime()
local from_left = MGEN_rdma_get(left, bytes, 1)
local from_right = MGEN_rdma_get(right, bytes, 2)
MGEN_acp_complete(from_left)
MGEN_acp_complete(from_right)
MGEN_report("bandwidth_GBps", 2 * bytes / (MGEN_Wtime() - t0) / 1e9)
