-- Writing your own barrier in 15 lines: a "double ring" that sends a token around the ring
-- twice (the first lap collects arrivals, the second releases), with RDMA puts. Compare it
-- with the library's: run examples/my_barrier.toml and change args.algo.
local function double_ring()
  local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
  if p == 1 then return end
  for lap = 1, 2 do
    local tag = 7000 + lap
    if me ~= 0 then MGEN_rdma_poll(tag) end              -- wait for the token
    local h = MGEN_rdma_put((me + 1) % p, 8, tag)        -- pass it on
    if me == 0 then MGEN_rdma_poll(tag) end              -- rank 0: the token came round
    MGEN_acp_complete(h)
  end
end
return double_ring
