-- mgen.traffic: the destination patterns of synthetic traffic (BookSim's and CODES'), the same
-- rules as `[workload] traffic = "..."` applies (src/traffic/pattern.rs), for scripts that make
-- their own traffic; and an open-loop source. Reference: lua/mgen/traffic.d.lua.
local traffic = {}

local function bits_of(n, what)
  local b = 0
  while (1 << b) < n do b = b + 1 end
  if (1 << b) ~= n then
    error(what .. " permutes the bits of the rank: it needs a power-of-two count of ranks, not " .. n, 3)
  end
  return b
end

-- each digit of s on `grid` (first dimension fastest) moved by step(k), modulo k
local function digits(s, grid, step)
  local out, place = 0, 1
  for _, k in ipairs(grid) do
    local x = (s // place) % k
    out = out + ((x + step(k)) % k) * place
    place = place * k
  end
  return out
end

local function uniform(s, n, to_self)
  if to_self then return math.random(0, n - 1) end
  if n < 2 then return nil end
  return (s + math.random(n - 1)) % n
end

-- The destination of a message from rank `s` of `n` under `pattern`, or nil when it sends
-- nothing (its destination is itself and `opt.to_self` is not set).
function traffic.dest(pattern, s, n, opt)
  opt = opt or {}
  local d
  if pattern == "uniform" then
    return uniform(s, n, opt.to_self)
  elseif pattern == "hotspot" then
    local hot = opt.hotspot or error("hotspot needs opt.hotspot, a list of ranks", 2)
    if (opt.fraction or 1) < 1 and math.random() >= opt.fraction then
      return uniform(s, n, opt.to_self)
    end
    local others = {}
    for _, h in ipairs(hot) do
      if h ~= s or opt.to_self then others[#others + 1] = h end
    end
    if #others == 0 then return uniform(s, n, false) end
    return others[math.random(#others)]
  elseif pattern == "permutation" then
    d = (opt.map or error("permutation needs opt.map (mgen.util.permutation(n))", 2))[s + 1]
  elseif pattern == "transpose" then
    local m = math.floor(math.sqrt(n) + 0.5)
    if m * m ~= n then error("transpose needs a square count of ranks, not " .. n, 2) end
    d = s // m + m * (s % m)
  elseif pattern == "bitcomp" then
    d = n - 1 - s
  elseif pattern == "bitrev" then
    local b = bits_of(n, "bitrev")
    d = 0
    for i = 0, b - 1 do
      if s & (1 << i) ~= 0 then d = d | (1 << (b - 1 - i)) end
    end
  elseif pattern == "shuffle" then
    local b = bits_of(n, "shuffle")
    d = b == 0 and s or (((s << 1) | (s >> (b - 1))) & ((1 << b) - 1))
  elseif pattern == "tornado" then
    d = digits(s, opt.grid or { n }, function(k) return (k + 1) // 2 - 1 end)
  elseif pattern == "neighbor" or pattern == "neighbour" then
    d = digits(s, opt.grid or { n }, function() return 1 end)
  elseif pattern == "shift" then
    d = (s + (opt.shift or 1)) % n
  else
    error("`" .. tostring(pattern) .. "` is not a pattern of mgen.traffic: uniform, hotspot, " ..
      "permutation, transpose, bitcomp, bitrev, shuffle, tornado, neighbor or shift", 2)
  end
  if d == s and not opt.to_self then return nil end
  return d
end

-- An open-loop source: this rank sends messages of `t.bytes` to `t.pattern`'s destinations at
-- exponentially distributed gaps, `t.load` of `t.bandwidth` bytes per second (a NIC's link:
-- `MGEN_args` or the scenario's), until `t.stop` seconds of its clock; nothing is waited for
-- or received. Returns the count of messages sent.
function traffic.open_loop(t)
  local me, n = MGEN_Comm_rank(), MGEN_Comm_size()
  local rate = t.load * t.bandwidth / t.bytes
  if not (rate > 0) then error("open_loop needs load, bandwidth and bytes above 0", 2) end
  local log, random, send, comp = math.log, math.random, MGEN_Isend, MGEN_Comp
  local sent, clock = 0, 0
  while true do
    local gap = -log(1 - random()) / rate
    clock = clock + gap
    if clock >= t.stop then break end
    comp(gap)
    local d = traffic.dest(t.pattern, me, n, t)
    if d then
      send(d, t.bytes, t.tag or 0)
      sent = sent + 1
    end
  end
  return sent
end

return traffic
