-- One all-to-all with `bytes` per pair and the library's `algo`, timed; with `repeat` > 1 it
-- runs that many times, back to back (a long-running job to share a network with).
local coll = require("mgen.coll")
local t0 = MGEN_Wtime()
for _ = 1, MGEN_args["repeat"] or 1 do
  coll.alltoall{ bytes = MGEN_args.bytes or 1024, algo = MGEN_args.algo or "pairwise",
                 transport = MGEN_args.transport }
end
MGEN_report("alltoall_s", MGEN_Wtime() - t0)
