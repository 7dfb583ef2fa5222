-- A shift: every rank puts `bytes` to the rank `shift` further on (wrapping round) and waits
-- for the put coming from `shift` before it; `rounds` times. With `shift` equal to the nodes a
-- router holds, every node of a router sends to the same node of the next router: dimension
-- order puts a router's whole load on one link, and adaptive routing can spread it.
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
local A = MGEN_args
local shift, bytes, rounds = A.shift or 1, A.bytes or 1048576, A.rounds or 1
local t0 = MGEN_Wtime()
for r = 1, rounds do
  local h = MGEN_rdma_put((me + shift) % p, bytes, r)
  MGEN_rdma_poll(r)
  MGEN_acp_complete(h)
end
MGEN_report("bandwidth_GBps", rounds * bytes / (MGEN_Wtime() - t0) / 1e9)
