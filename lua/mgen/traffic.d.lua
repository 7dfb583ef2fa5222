---@meta mgen.traffic
-- The reference of `require("mgen.traffic")`: the destination patterns of synthetic traffic,
-- as `[workload] traffic = "..."` applies them, for scripts that make their own traffic.

---@class mgen.traffic
local traffic = {}

---@class mgen.traffic.options
---@field to_self? boolean a rank may send to itself (else a destination equal to the source is nil, and uniform draws among the others)
---@field map? integer[] permutation: the image of each rank (1-based list of 0-based ranks, as mgen.util.permutation gives)
---@field grid? integer[] tornado, neighbor: the ranks as a grid, first dimension fastest (default: one dimension of all ranks)
---@field shift? integer shift: how far (default 1)
---@field hotspot? integer[] hotspot: the hot ranks
---@field fraction? number hotspot: the share of messages sent to them (default 1; the rest uniform)

---The destination of a message from rank `s` of `n`: `uniform`, `hotspot` (random, with
---math.random), `permutation`, `transpose` (n square), `bitcomp`, `bitrev` and `shuffle` (n a
---power of two), `tornado`, `neighbor`, `shift`; nil when it would be `s` itself without
---`opt.to_self`. An unknown pattern or a count of ranks it cannot take is an error.
---@param pattern string
---@param s integer the source rank (0-based)
---@param n integer the ranks
---@param opt? mgen.traffic.options
---@return integer|nil destination
function traffic.dest(pattern, s, n, opt) end

---@class mgen.traffic.source: mgen.traffic.options
---@field pattern string
---@field load number the fraction of `bandwidth` this rank offers
---@field bandwidth number bytes per second (its NIC's link)
---@field bytes integer a message's payload
---@field stop number seconds of the rank's clock to send for
---@field tag? integer the messages' tag (default 0)

---An open-loop source: sends messages of `t.bytes` (MGEN_Isend, never waited for) to the
---pattern's destinations at exponentially distributed gaps, `t.load` of `t.bandwidth`, until
---`t.stop` seconds of the rank's clock. Returns how many it sent.
---@param t mgen.traffic.source
---@return integer sent
function traffic.open_loop(t) end

return traffic
