-- Open-loop synthetic traffic for bench/saturation: every rank sends single-packet eager
-- messages of `bytes` at exponentially distributed gaps, `rate` per second on average, until
-- `stop` seconds, to destinations chosen by `pattern` on a k x k network (node = x + k y).
-- Messages, not puts: a put's acknowledgement would load the network too, and BookSim's
-- packets have none. Nothing is ever waited for or received: the NIC queues what the network
-- does not take (the source queue), and the receivers' unexpected queues hold what arrives.
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
-- every rank draws its own gaps and destinations (ranks start from one seed: without this, all
-- would send at the same instants to the same offset, a synchronized shift, not uniform traffic)
math.randomseed(7919 * (me + 1))
local rate, bytes, stop = MGEN_args.rate, MGEN_args.bytes, MGEN_args.stop
local k = MGEN_args.k
local x, y = me % k, me // k

local patterns = {
  -- a random other node, each equally likely
  uniform = function() return (me + math.random(p - 1)) % p end,
  transpose = function() return y + k * x end,
  -- every bit of the node number flipped
  bitcomp = function() return (p - 1) ~ me end,
  neighbor = function() return (x + 1) % k + k * y end,
  -- half-way round less one, in x
  tornado = function() return (x + k // 2 - 1) % k + k * y end,
  -- the node `shift` further on (bench/hyperx_saturation: the same node of the next router)
  shift = function() return (me + MGEN_args.shift) % p end,
}
local dst = patterns[MGEN_args.pattern] or error("unknown pattern " .. tostring(MGEN_args.pattern))
local send, comp, log, random = MGEN_Isend, MGEN_Comp, math.log, math.random
local t = 0
while true do
  local gap = -log(1 - random()) / rate
  t = t + gap
  if t >= stop then break end
  comp(gap)
  local d = dst()
  if d ~= me then send(d, bytes, 0) end
end
