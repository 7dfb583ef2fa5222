-- The README's ten-line example: compute, put to the next rank, poll, complete.
-- Run: cargo run --release -- run examples/my_exchange.toml
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local bytes = MGEN_args.bytes or 4096          -- [workload] args from the scenario
MGEN_Comp(1e-6 * rank)                         -- compute: advances this rank's clock
local t0 = MGEN_Wtime()
local h = MGEN_rdma_put((rank + 1) % size, bytes, 0)   -- returns at once
MGEN_rdma_poll(0)                              -- waits for the put from rank - 1
MGEN_acp_complete(h)                           -- waits for our put's control packet
MGEN_report("exchange_s", MGEN_Wtime() - t0)   -- min/mean/max over ranks in the summary
