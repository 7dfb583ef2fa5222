-- NSIM figure 3, line by line: send left and right, then forward whatever arrives.
local TAG0 = 0
local MSIZE = MGEN_args.bytes or 1
local myrank, mysize = MGEN_Comm_rank(MGEN_COMM_WORLD), MGEN_Comm_size(MGEN_COMM_WORLD)
local left_rank = (myrank - 1 + mysize) % mysize
local right_rank = (myrank + 1) % mysize

MGEN_Send(left_rank, MSIZE, TAG0)
MGEN_Send(right_rank, MSIZE, TAG0)

local dest
for _ = 1, mysize * MSIZE do
  local status = MGEN_Recv(MGEN_ANY_SOURCE, MSIZE, TAG0)
  if status.source == left_rank then dest = right_rank end
  if status.source == right_rank then dest = left_rank end
  MGEN_Send(dest, MSIZE, TAG0)
end
MGEN_Recv(MGEN_ANY_SOURCE, MSIZE, TAG0)
MGEN_Recv(MGEN_ANY_SOURCE, MSIZE, TAG0)
