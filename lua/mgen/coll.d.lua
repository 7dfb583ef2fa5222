---@meta mgen.coll
-- The reference of `require("mgen.coll")`: collective operations built from point-to-point
-- transfers, each algorithm selectable by name. p is the number of ranks, b the `bytes`
-- option; "steps" are rounds of transfers a rank waits for; costs are per rank.
--
-- Every call takes one table of options:
--   algo       the algorithm (see each function); an unknown name is an error listing the known
--   transport  "message" (MGEN_Isend/Irecv/Wait, the default) or "put" (MGEN_rdma_put, then
--              MGEN_rdma_poll for each expected put, then MGEN_acp_complete)
--   bytes      integer >= 0; what it measures is said for each function
--   root       the root rank where there is one (default 0)
--   op_cost    seconds per byte combined, charged with MGEN_Comp in reductions (default 0)
--   group      a communicator: the world ranks of its members, in its rank order ({4, 0, 2});
--              the collective runs among them, `root` and p are theirs (default: the job)
--   comm       with `group`: the communicator's id, an integer from 1 to 2^32 - 1, the same
--              on every member (collectives of different communicators never mix)
--   region     the name of the region the call is (default `coll.NAME ALGO`), or false for
--              none: a call that only serves another's measurement (a barrier lining the
--              ranks up) is then not counted as the algorithm it uses
-- On the timeline (`--trace`) and in the profile (`--profile`) each call is a region named
-- `coll.NAME ALGO` (`coll.barrier dissemination`) unless `region` says otherwise.
-- Every rank must call the same collectives in the same order (as in MPI). The aliases
-- `rd` = `recursive_doubling` hold wherever that algorithm exists.

---@class mgen.coll.opts
---@field algo? string
---@field transport? "message"|"put"
---@field bytes? integer
---@field root? integer
---@field op_cost? number
---@field group? integer[]
---@field comm? integer
---@field region? string|false

---@class mgen.coll
local coll = {}

---Synchronizes all ranks: no rank returns before every rank has called it. b defaults to 8.
--- - `dissemination` (default): ceil(log2 p) steps, 1 message of b each.
--- - `recursive_doubling`: log2 p' steps (p' = 2^floor(log2 p)) with rank xor 2^k; the other
---   p - p' ranks report to rank - p' before and are released after (2 more steps): the
---   synchronization paper's figure 2 and §4.3.
--- - `ring`: p - 1 steps, send to rank + 1, receive from rank - 1 (the paper's figure 1).
--- - `binomial`: a binomial gather to rank 0 then a binomial release: 2 ceil(log2 p) steps.
--- - `central`: everyone reports to rank 0, which then releases everyone: 2 steps, rank 0
---   handles 2(p - 1) messages.
---@param opts? mgen.coll.opts
function coll.barrier(opts) end

---Broadcasts b bytes from `root` to every rank.
--- - `binomial` (default): ceil(log2 p) steps; every rank but the root receives b once; p - 1
---   messages in all.
--- - `linear`: the root sends p - 1 messages of b at once.
---@param opts mgen.coll.opts
function coll.bcast(opts) end

---Combines a vector of b bytes from every rank at `root`.
--- - `binomial` (default): ceil(log2 p) steps; each rank but the root sends b once.
--- - `recursive_doubling`: as allreduce (every rank ends with the result).
--- - `ring`: a ring reduce-scatter (p - 1 steps of b/p) then every rank sends its chunk to the
---   root.
--- - `rabenseifner`: reduce-scatter by recursive halving (log2 p' steps, b/2 + b/4 + ...), then
---   a binomial gather of the chunks to rank 0 (and a copy to the root if that is not 0).
---@param opts mgen.coll.opts
function coll.reduce(opts) end

---Combines a vector of b bytes from every rank and leaves the result on every rank.
--- - `recursive_doubling` (default): log2 p' steps of b, plus 2 for the p - p' extra ranks.
--- - `ring`: reduce-scatter then allgather, 2(p - 1) steps of b/p.
--- - `rabenseifner`: recursive halving then recursive doubling, 2 log2 p' steps; each rank
---   sends and receives 2 b (1 - 1/p') (plus b for the extra ranks' fold-in).
---@param opts mgen.coll.opts
function coll.allreduce(opts) end

---Every rank contributes a block of b bytes; every rank ends with all p blocks.
--- - `ring` (default): p - 1 steps of b.
--- - `recursive_doubling`: log2 p' steps of doubling size; extra ranks fold in and are served
---   last.
--- - `bruck`: ceil(log2 p) steps; step k moves min(2^k, p - 2^k) blocks.
--- Each rank receives (p - 1) b in all.
---@param opts mgen.coll.opts
function coll.allgather(opts) end

---Every rank sends a block of b bytes to every rank.
--- - `bruck` (default): ceil(log2 p) steps; step k sends the blocks whose index has bit k set
---   (about p/2 blocks) to rank + 2^k: fewer steps, more bytes (NSIM's scaling workload).
--- - `pairwise`: p - 1 steps of b, partner rank xor s (p a power of two) or rank +- s.
--- - `linear`: all p - 1 sends and receives posted at once, then one wait.
---@param opts mgen.coll.opts
function coll.alltoall(opts) end

---Every rank's block of b bytes is collected at `root`.
--- - `binomial` (default): ceil(log2 p) steps; each rank sends its subtree's blocks once.
--- - `linear`: every rank sends b to the root.
---@param opts mgen.coll.opts
function coll.gather(opts) end

---The root hands each rank its own block of b bytes.
--- - `binomial` (default): ceil(log2 p) steps; each rank receives its subtree's blocks once.
--- - `linear`: the root sends p - 1 messages of b.
---@param opts mgen.coll.opts
function coll.scatter(opts) end

---The algorithms of `coll.barrier`, sorted by name (aliases such as `rd` included). Each
---collective has its own: `coll.bcast_algorithms()`, `coll.reduce_algorithms()`,
---`coll.allreduce_algorithms()`, `coll.allgather_algorithms()`, `coll.alltoall_algorithms()`,
---`coll.gather_algorithms()`, `coll.scatter_algorithms()`.
---@return string[]
function coll.barrier_algorithms() end

return coll
