-- Loaded once per simulation, before any rank runs. It receives the engine's raw primitives
-- and the jobs (per job: its compiled script `body`, `size` in ranks, `args`), defines the API
-- functions that may block (they yield the rank's coroutine back to the engine), and returns
-- what the engine needs to start and resume ranks. Users never see this file; the API is
-- documented in lua/mgen.d.lua.
-- `opts`: sandbox (boolean), step (VM instructions between two runs of the limits' count
-- hook), hook (whether coroutines get that hook at all).
local G, raw, jobs, opts = ...

local create, resume, status, yield = coroutine.create, coroutine.resume, coroutine.status, coroutine.yield
local traceback, getinfo, sethook = debug.traceback, debug.getinfo, debug.sethook
local tostring, select, concat, type, error = tostring, select, table.concat, type, error
local poll_now, complete_now, write, stop_now = raw.poll, raw.complete, raw.write, raw.stop

-- Blocking calls: the engine decides at once when it can (the condition is already met);
-- otherwise it records what the rank waits for and the rank yields until that happens.
-- (The engine's C versions, script/fast.rs, take calls with integer arguments themselves and
-- pass these wrappers the rest.)
function G.MGEN_rdma_poll(tag)
  if not poll_now(tag) then yield() end
end

function G.MGEN_acp_complete(handle)
  if not complete_now(handle) then yield() end
end

-- Message passing: a request completes in simulated time; waiting yields until it has.
local wait_now, test_now = raw.wait, raw.test
local Isend, Irecv = G.MGEN_Isend, G.MGEN_Irecv

local function Wait(req)
  local status = wait_now(req)
  if status == nil then
    yield()
    status = wait_now(req)
  end
  return status
end
G.MGEN_Wait = Wait

function G.MGEN_Waitall(reqs)
  local statuses = {}
  for i = 1, #reqs do statuses[i] = Wait(reqs[i]) end
  return statuses
end

-- Test answers for the rank's own clock: first let the engine catch up with it.
function G.MGEN_Test(req)
  yield()
  local status = test_now(req)
  if status then return true, status end
  return false
end

function G.MGEN_Send(dest, bytes, tag, nic)
  Wait(Isend(dest, bytes, tag, nic))
end

-- (no tail calls in these wrappers: they would hide the script's line from tracebacks)
function G.MGEN_Recv(src, bytes, tag)
  local status = Wait(Irecv(src, bytes, tag))
  return status
end

function G.MGEN_Sendrecv(dest, send_bytes, send_tag, src, recv_bytes, recv_tag)
  local r = Irecv(src, recv_bytes, recv_tag)
  local s = Isend(dest, send_bytes, send_tag)
  Wait(s)
  local status = Wait(r)
  return status
end

-- A named span on the rank's timeline around fn(...); returns what fn returns.
local region_begin, region_end = G.MGEN_region_begin, G.MGEN_region_end
local pack, unpack = table.pack, table.unpack
function G.MGEN_region(name, fn, ...)
  if type(name) ~= "string" then
    error(("MGEN_region: `name` must be a string, got %s"):format(type(name)), 2)
  end
  if type(fn) ~= "function" then
    error(("MGEN_region: `fn` must be a function, got %s"):format(type(fn)), 2)
  end
  region_begin(name)
  local results = pack(fn(...))
  region_end()
  return unpack(results, 1, results.n)
end

-- print from a rank goes to stderr with the rank and its simulated time.
function G.print(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  write(concat(parts, "\t"))
end

-- Limits. Every coroutine (the ranks' and any a script makes) has a count hook that runs every
-- `opts.step` VM instructions: the engine charges the running rank's instruction budget and
-- says whether the run must stop (budget spent, Ctrl-C, wall-clock limit). The engine records
-- the stop before the hook raises it, so a script's pcall that catches the error cannot keep
-- the run going.
local STEP = opts.step
local stopped, running = raw.stopped, coroutine.running
local hook
function hook()
  local why = stop_now()
  if why then
    local d = getinfo(2, "Sl")
    local at = d and d.currentline and d.currentline > 0 and (d.short_src .. ":" .. d.currentline) or nil
    stopped(why, at)
    -- from now on every instruction raises it again, so that a pcall that catches it
    -- cannot let the script do anything more
    sethook(running(), hook, "", 1)
    error({ mgensim_stop = why }, 0)
  end
end

-- A count hook makes Lua trap on every instruction (about 2x slower pure-Lua code), so it is
-- left out when no limit needs it: limits.instructions = 0 and no wall-clock limit. The
-- engine takes it off a rank's own coroutine when it is made and sets it again only on a
-- resume that runs long (script/watchdog.rs); coroutines a script makes keep it.
local function hooked(co)
  if opts.hook then sethook(co, hook, "", STEP) end
  return co
end

-- coroutines made by scripts are under the same budget
local cowrap = coroutine.wrap
local cocreate = function(f) return hooked(create(f)) end
local safe_coroutine = {}
for k, v in pairs(coroutine) do safe_coroutine[k] = v end
safe_coroutine.create = cocreate
safe_coroutine.wrap = function(f)
  local co = cocreate(f)
  return function(...)
    local r = table.pack(resume(co, ...))
    if not r[1] then error(r[2], 0) end
    return table.unpack(r, 2, r.n)
  end
end
G.coroutine = safe_coroutine

-- The sandbox: what a script shared with a scenario may do without --allow-io.
if opts.sandbox then
  local io_open, io_lines, io_type, stderr = io.open, io.lines, io.type, io.stderr
  local readable = raw.readable
  local function deny(what)
    return function()
      error("sandbox: " .. what .. " is not allowed in a scenario's script "
        .. "(mgensim run --allow-io lifts the sandbox)", 2)
    end
  end
  local safe_os = {
    clock = os.clock, date = os.date, difftime = os.difftime, time = os.time,
    execute = deny("os.execute"), exit = deny("os.exit"), getenv = deny("os.getenv"),
    remove = deny("os.remove"), rename = deny("os.rename"), tmpname = deny("os.tmpname"),
    setlocale = deny("os.setlocale"),
  }
  local safe_io = {
    open = function(name, mode)
      mode = mode or "r"
      if type(mode) == "string" and mode:find("[wa+]") then
        error("sandbox: io.open(" .. tostring(name) .. ", \"" .. mode .. "\"): writing files is not allowed in a "
          .. "scenario's script (mgensim run --allow-io lifts the sandbox)", 2)
      end
      return io_open(readable(name), mode)
    end,
    lines = function(name, ...)
      if name == nil then deny("io.lines() on standard input")() end
      return io_lines(readable(name), ...)
    end,
    type = io_type,
    close = function(f) if f then return f:close() end end,
    write = function(...) return stderr:write(...) end,
    stderr = stderr,
    stdout = stderr, -- stdout carries the summary; what scripts print goes to stderr
    read = deny("io.read from standard input"),
    popen = deny("io.popen"), tmpfile = deny("io.tmpfile"),
    input = deny("io.input"), output = deny("io.output"),
  }
  G.os, G.io = safe_os, safe_io
  G.debug = { traceback = traceback, getinfo = getinfo }
  local load = load
  G.load = function(chunk, name, mode, ...)
    if mode ~= nil and mode ~= "t" and mode ~= "bt" then
      deny("loading binary chunks")()
    end
    if select("#", ...) > 0 then return load(chunk, name, "t", (...)) end
    return load(chunk, name, "t")
  end
  local function read_all(path)
    local f, err = io_open(readable(path), "r")
    if not f then return nil, err end
    local text = f:read("a")
    f:close()
    return text
  end
  G.loadfile = function(path, mode, ...)
    if path == nil then deny("loadfile from standard input")() end
    local text, err = read_all(path)
    if not text then return nil, err end
    return G.load(text, "@" .. path, mode, ...)
  end
  G.dofile = function(path)
    local f, err = G.loadfile(path)
    if not f then error(err, 2) end
    return f()
  end
  -- require: Lua modules from the script's folder and mgensim's library only; no C modules
  local package = G.package
  local path = package.path
  package.loadlib = deny("package.loadlib")
  package.cpath = ""
  package.searchers = {
    package.searchers[1], -- package.preload
    function(name)
      local file, err = package.searchpath(name, path)
      if not file then return "\n\t" .. err end
      local chunk, cerr = load(read_all(file) or "", "@" .. file, "t")
      if not chunk then error(cerr, 0) end
      return chunk, file
    end,
  }
  package.loaded.io, package.loaded.os, package.loaded.debug = safe_io, safe_os, G.debug
  package.loaded.coroutine = safe_coroutine
else
  -- the whole library; relative file names still start from the scenario's folder
  local io_open, io_lines, readable = io.open, io.lines, raw.readable
  G.io.open = function(name, ...) return io_open(readable(name), ...) end
  G.io.lines = function(name, ...)
    if name == nil then return io_lines() end
    return io_lines(readable(name), ...)
  end
  package.loaded.coroutine = safe_coroutine
end

-- rank i's coroutine; false until its first resume (it and its environment are made then)
local threads = {}
-- A rank's globals fall back to its job's (MGEN_args), then to the shared ones. With one job
-- its globals go straight into the shared table: one lookup fewer per API call.
local first = 0
for _, job in ipairs(jobs) do
  if #jobs == 1 then
    G.MGEN_args = job.args
    job.mt = { __index = G }
  else
    job.mt = { __index = setmetatable({ MGEN_args = job.args }, { __index = G }) }
  end
  job.first = first
  first = first + job.size
end

-- Declares ranks 0 .. n-1 (numbered job after job).
local function spawn(n)
  for i = 0, n - 1 do threads[i] = false end
end

-- Makes rank i's coroutine and its own global environment; returns both. The engine is told
-- the coroutine, to resume it directly from then on (`threads` keeps it alive).
local thread = raw.thread
local function start(i)
  local job = jobs[1]
  for _, j in ipairs(jobs) do
    if i >= j.first then job = j end
  end
  local env = setmetatable({}, job.mt)
  env._G = env
  local co = hooked(create(job.body))
  threads[i] = co
  thread(i, co)
  return co, env
end

-- What rank i's resume came to, given what `coroutine.resume` returned (ok, and the error if
-- not): 0 = it blocked, 1 = it finished, 2 = it failed (with a message and traceback), 3 = a
-- limit stopped it (with the limit's name, and where it was).
local function after(i, ok, err)
  local co = threads[i]
  if not ok then
    if type(err) == "table" and err.mgensim_stop then
      return 3, err.mgensim_stop
    end
    if err == "not enough memory" then
      return 3, "lua_memory"
    end
    threads[i] = nil
    if type(err) == "string" then
      return 2, traceback(co, err)
    end
    -- errors raised by the engine's own functions carry their traceback already
    return 2, tostring(err)
  end
  if status(co) == "dead" then
    threads[i] = nil
    return 1
  end
  return 0
end

-- Rank i's first resume: makes its coroutine and starts it. (Later resumes come straight from
-- the engine, which hands what they returned to `after` unless the rank blocked.)
local function run(i)
  local co, env = threads[i], nil
  if co == false then co, env = start(i) end
  return after(i, resume(co, env))
end

-- Where rank i is suspended, for deadlock reports.
local function where(i)
  local co = threads[i]
  if co then return traceback(co) end
  return ""
end

return spawn, run, after, where
