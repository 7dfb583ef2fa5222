local coll = require("mgen.coll")
local algo = MGEN_args.algo or "mine"
MGEN_Comp(MGEN_Comm_rank() * 1e-6)
if algo == "mine" then
  require("examples.my_barrier")()
else
  coll.barrier{ algo = algo, transport = "put" }
end
MGEN_report("barrier_exit_s", MGEN_Wtime())
