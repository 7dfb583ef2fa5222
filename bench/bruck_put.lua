-- Bruck-like all-to-all with RDMA puts (the traffic of NSIM's scaling test): in step k of
-- ceil(log2 p), every rank puts to rank + 2^k the blocks whose index has bit k set, polls for
-- the matching put from rank - 2^k, and completes its own put. Local rotations cost nothing.
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local block = MGEN_args.block or 4
local dist, k = 1, 0
while dist < size do
  -- how many of 0..size-1 have bit k set
  local blocks = (size // (2 * dist)) * dist + math.max(0, size % (2 * dist) - dist)
  local h = MGEN_rdma_put((rank + dist) % size, blocks * block, k)
  MGEN_rdma_poll(k)
  MGEN_acp_complete(h)
  dist, k = dist * 2, k + 1
end
