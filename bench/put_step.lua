-- One step of a Bruck-like exchange: every rank puts `bytes` to rank + `dist` and waits for the
-- put from rank - `dist`. Used by bench/put_step.toml.
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local dist, bytes = MGEN_args.dist, MGEN_args.bytes
local h = MGEN_rdma_put((rank + dist) % size, bytes, 0)
MGEN_rdma_poll(0)
MGEN_acp_complete(h)
