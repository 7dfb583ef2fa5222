-- A lesson in barriers: every algorithm of mgen.coll's barrier, one after another, on the same
-- ranks and network. Each is timed on its own and reported as `<algorithm>_s`; in the profile
-- (--profile, or report.html with --out) each is a region, `coll.barrier <algorithm>`, whose
-- times are those of `<algorithm>_s`.
--
-- Before each algorithm a dissemination barrier lines the ranks up, so that each starts from
-- the same place. That line-up is not part of what is measured: it is a region of its own,
-- `line-up barrier`, and not counted as `coll.barrier dissemination`.
--
-- Things to try (scenarios/barrier_lesson.toml):
--   --set workload.ranks=64 against 63 or 65: the algorithms that pair ranks pay extra steps
--   when the count is not a power of two;
--   --set workload.args.transport=put: the same algorithms over RDMA puts and polls.
local coll = require("mgen.coll")

local transport = MGEN_args.transport or "message"
local bytes = MGEN_args.bytes or 8

for _, algo in ipairs(coll.barrier_algorithms()) do
  -- ("rd" is another name of recursive_doubling: timed once)
  if algo ~= "rd" then
    coll.barrier { algo = "dissemination", transport = transport, bytes = bytes, region = "line-up barrier" }
    local t0 = MGEN_Wtime()
    coll.barrier { algo = algo, transport = transport, bytes = bytes }
    MGEN_report(algo .. "_s", MGEN_Wtime() - t0)
  end
end
