-- Runs one of TraceRP's five benchmarks (MGEN_args.bench) from the Lua library mgen.tracerp.
require("mgen.tracerp").run(MGEN_args)
