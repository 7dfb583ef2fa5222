-- Ring and recursive-doubling barriers with RDMA puts (NSIM-ACE synchronization paper,
-- figures 1 and 2, §4.2-4.3). Reports the time of one barrier as `barrier_s`.
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local algo = MGEN_args.algo or "ring"
local ms = MGEN_args.bytes or 8

-- Figure 1: in each of p-1 steps, put to rank+1 and poll for the put from rank-1;
-- then wait for the last put to complete.
local function ring()
  local tag, handle = 0, nil
  for _ = 1, size - 1 do
    handle = MGEN_rdma_put((rank + 1) % size, ms, tag)
    MGEN_rdma_poll(tag)
  end
  if handle then MGEN_acp_complete(handle) end
end

-- Figure 2, extended as §4.3 describes for p = 2^n + r: ranks >= 2^n first put to rank - 2^n
-- (ranks < r poll for it), the first 2^n ranks run the power-of-two algorithm, and finally
-- ranks < r put to rank + 2^n (ranks >= 2^n poll for it). A put's tag is its sender's rank.
local function recursive_doubling()
  local p2 = 1
  while p2 * 2 <= size do p2 = p2 * 2 end
  local r = size - p2
  local handles = {}
  if rank >= p2 then
    handles[#handles + 1] = MGEN_rdma_put(rank - p2, ms, rank)
  elseif rank < r then
    MGEN_rdma_poll(rank + p2)
  end
  if rank < p2 then
    local mask = 1
    while mask < p2 do
      local peer = (rank % (mask * 2) < mask) and rank + mask or rank - mask
      handles[#handles + 1] = MGEN_rdma_put(peer, ms, rank)
      MGEN_rdma_poll(peer)
      mask = mask * 2
    end
  end
  if rank < r then
    handles[#handles + 1] = MGEN_rdma_put(rank + p2, ms, rank)
  elseif rank >= p2 then
    MGEN_rdma_poll(rank - p2)
  end
  for _, h in ipairs(handles) do MGEN_acp_complete(h) end
end

local barriers = { ring = ring, recursive_doubling = recursive_doubling, rd = recursive_doubling }
local barrier = barriers[algo]
if not barrier then
  error(("unknown barrier algorithm %q (known: ring, recursive_doubling, rd)"):format(tostring(algo)))
end

local reps = MGEN_args["repeat"] or 1
if math.type(reps) ~= "integer" or reps < 1 then
  error(("args.repeat must be a whole number of barriers, at least 1 (got %s)"):format(tostring(reps)))
end
local t0 = MGEN_Wtime()
for _ = 1, reps do MGEN_region(algo .. " barrier", barrier) end
MGEN_report("barrier_s", (MGEN_Wtime() - t0) / reps)
