-- N-body particle exchange after domain decomposition (synchronization paper §6).
local coll = require("mgen.coll")
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local A = MGEN_args
local bytes_per = A.particle_bytes or 48
local rpn = A.ranks_per_node or 2
local ns = 1e-9

-- send[r][d]: particles rank r sends to rank d (d == r: particles r keeps)
local function from_csv(path)
  local send = {}
  local f = assert(io.open(path, "r"))
  local n = 0
  for line in f:lines() do
    n = n + 1
    if not line:match("^%s*#") and not line:match("^%s*$") and not line:match("^rank") then
      local r, d, c = line:match("^%s*(%d+)%s*,%s*(%d+)%s*,%s*(%d+)%s*$")
      if not r then error(("%s:%d: expected rank,dest,count"):format(path, n)) end
      r, d, c = tonumber(r), tonumber(d), tonumber(c)
      if r >= size or d >= size then
        error(("%s:%d: rank %d or %d is beyond the %d ranks of the job"):format(path, n, r, d, size))
      end
      send[r] = send[r] or {}
      send[r][d] = (send[r][d] or 0) + c
    end
  end
  f:close()
  return send
end

-- every rank draws the same decomposition: particles move to nearby domains
local function synthetic(per_rank)
  local send = {}
  for r = 0, size - 1 do
    local owned = math.floor(per_rank * (0.8 + 0.4 * math.random()))
    local out = {}
    local moved = 0
    for _, d in ipairs{ 1, -1, 2, -2 } do
      local dest = (r + d) % size
      if dest ~= r then
        local c = math.floor(owned * (math.abs(d) == 1 and 0.15 or 0.03) * math.random())
        out[dest] = (out[dest] or 0) + c
        moved = moved + c
      end
    end
    out[r] = owned - moved
    send[r] = out
  end
  return send
end

local send = A.csv and from_csv(A.csv) or synthetic(A.particles or 65536)

local owned, sent, received = 0, 0, 0
local targets = {}
for d, c in pairs(send[rank] or {}) do
  owned = owned + c
  local remote = d ~= rank and not (A.inter_node_only and d // rpn == rank // rpn)
  if remote and c > 0 then
    sent = sent + c
    targets[#targets + 1] = d
  end
end
table.sort(targets) -- pairs() order is not defined: keep the run deterministic
local incoming = 0 -- puts this rank receives
for r = 0, size - 1 do
  local c = send[r] and send[r][rank] or 0
  if r ~= rank and not (A.inter_node_only and r // rpn == rank // rpn) then
    received = received + c
    if c > 0 then incoming = incoming + 1 end
  end
end

local function barrier() coll.barrier{ algo = "recursive_doubling", transport = "put" } end
local when = A.barrier or "before_pack"
if when ~= "before_pack" and when ~= "after_pack" and when ~= "none" then
  error(("args.barrier = %q: use before_pack, after_pack or none"):format(tostring(when)))
end

local t0 = MGEN_Wtime()
MGEN_Comp((A.count_ns_per_owned * owned + A.count_ns_per_sent * sent) * ns)  -- count
if when == "before_pack" then barrier() end
MGEN_Comp(A.pack_ns_per_particle * sent * ns)                                  -- pack
if when == "after_pack" then barrier() end
local handles = {}
for i, d in ipairs(targets) do handles[i] = MGEN_rdma_put(d, send[rank][d] * bytes_per, 0) end
for _, h in ipairs(handles) do MGEN_acp_complete(h) end
if when ~= "none" then barrier() end
-- the data is in (after a barrier, at once): count it in before unpacking
for _ = 1, incoming do MGEN_rdma_poll(0) end
MGEN_Comp(A.unpack_ns_per_particle * received * ns)                           -- unpack
MGEN_report("exchange_s", MGEN_Wtime() - t0)
