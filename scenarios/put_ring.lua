-- NSIM-ACE's sample MGEN program, in Lua: put to the next rank, poll, complete.
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local tag = 0
local bytes = MGEN_args.bytes or 4

local handle = MGEN_rdma_put((rank + 1) % size, bytes, tag)
MGEN_rdma_poll(tag)
MGEN_acp_complete(handle)
