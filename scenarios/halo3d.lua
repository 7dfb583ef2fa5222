-- A 3-D halo exchange: the ranks form a gx x gy x gz grid (rank = x + gx*(y + gy*z), no
-- wrap-around), and every step each rank computes, then sends `bytes` to each of its up to six
-- neighbours and receives as much from each. The neighbours are found by rank arithmetic, as
-- most stencil codes do; where the ranks sit on the network is the placement's business.
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
local A = MGEN_args
local g = A.grid or { 6, 6, 6 }
local gx, gy, gz = g[1], g[2], g[3]
if gx * gy * gz ~= size then
  error(("args.grid = %dx%dx%d is %d ranks, but the job has %d"):format(gx, gy, gz, gx * gy * gz, size))
end
local bytes = A.bytes or 32768
local steps = A.steps or 4
local x, y, z = rank % gx, (rank // gx) % gy, rank // (gx * gy)

local neighbours = {}
local function add(nx, ny, nz)
  if nx >= 0 and nx < gx and ny >= 0 and ny < gy and nz >= 0 and nz < gz then
    neighbours[#neighbours + 1] = nx + gx * (ny + gy * nz)
  end
end
add(x - 1, y, z); add(x + 1, y, z)
add(x, y - 1, z); add(x, y + 1, z)
add(x, y, z - 1); add(x, y, z + 1)

for step = 1, steps do
  MGEN_region("compute", MGEN_Comp, A.compute_s or 2e-6)
  MGEN_region("halo", function()
    local reqs = {}
    for _, n in ipairs(neighbours) do reqs[#reqs + 1] = MGEN_Irecv(n, bytes, step) end
    for _, n in ipairs(neighbours) do reqs[#reqs + 1] = MGEN_Isend(n, bytes, step) end
    MGEN_Waitall(reqs)
  end)
end
