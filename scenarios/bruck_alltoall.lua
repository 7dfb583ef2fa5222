-- One all-to-all with `block` bytes per pair, timed; `algo` picks the library's algorithm.
local coll = require("mgen.coll")
local t0 = MGEN_Wtime()
coll.alltoall{ bytes = MGEN_args.block or 4, algo = MGEN_args.algo or "bruck" }
MGEN_report("alltoall_s", MGEN_Wtime() - t0)
