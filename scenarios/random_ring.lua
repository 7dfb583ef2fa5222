-- HPCC random ring with puts. Every rank draws the same random permutation (math.random is
-- per rank, seeded identically in all of them), finds its two ring neighbours, puts `bytes`
-- to each, polls for the two it receives and completes its own two.
local bytes = MGEN_args.bytes or 2000000
-- `sizes = k` (default 1): rank r puts bytes * (1 + (r * 7919) % k) / k instead, k sizes
-- spread over the ranks (a case where the flow model's fastest flows do not end first)
local sizes = MGEN_args.sizes or 1
bytes = bytes * (1 + (MGEN_Comm_rank() * 7919) % sizes) // sizes
local left, right = require("mgen.util").random_ring_neighbours()

local FROM_LEFT, FROM_RIGHT = 1, 2
local t0 = MGEN_Wtime()
local to_right = MGEN_rdma_put(right, bytes, FROM_LEFT)
local to_left = MGEN_rdma_put(left, bytes, FROM_RIGHT)
MGEN_rdma_poll(FROM_LEFT)
MGEN_rdma_poll(FROM_RIGHT)
MGEN_acp_complete(to_right)
MGEN_acp_complete(to_left)
local elapsed = MGEN_Wtime() - t0
MGEN_report("bandwidth_GBps", 2 * bytes / elapsed / 1e9)
