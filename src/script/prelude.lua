-- Loaded once per simulation, before any rank runs. It receives the engine's raw primitives
-- and the jobs (per job: its compiled script `body`, `size` in ranks, `args`), defines the API
-- functions that may block (they yield the rank's coroutine back to the engine), builds what
-- scripts see of the standard library, and returns what the engine needs to start ranks and
-- to explain how they ended. Users never see this file; the API is documented in
-- lua/mgen.d.lua, the sandbox in README.md ("What a script can do").
-- `opts`: sandbox (boolean), step (VM instructions between two runs of the limits' count
-- hook), hook (whether coroutines a script makes get that hook), watched (whether the ranks'
-- own coroutines get it, armed by the engine's watchdog only on a resume that runs long).
--
-- Isolation. Every rank has its own globals (`_ENV`); what all ranks share (the standard
-- library, the API, a job's MGEN_args) is reachable only through read-only views, and every
-- metatable a script could reach to change a shared table is protected. Everything here is
-- captured in locals before any script runs, so no script can change what the prelude calls.
-- The sandbox's decisions (which file, which mode) are made in Rust (`files.rs`, `api.rs`).
local G, raw, jobs, opts = ...

local create, resume, status, yield = coroutine.create, coroutine.resume, coroutine.status, coroutine.yield
local running = coroutine.running
local traceback, getinfo, getlocal, sethook = debug.traceback, debug.getinfo, debug.getlocal, debug.sethook
local dgetmetatable = debug.getmetatable
local tostring, select, concat, type, error, pcall = tostring, select, table.concat, type, error, pcall
local next, rawget, rawset, setmetatable, getmetatable = next, rawget, rawset, setmetatable, getmetatable
local load, pack, unpack, format = load, table.pack, table.unpack, string.format
local sbyte, sfind, gsub = string.byte, string.find, string.gsub
local write, stop_now = raw.write, raw.stop
local current, engine_took = raw.current, raw.engine_took
local sandbox = opts.sandbox
local ALLOW = " (mgensim run --allow-io lifts the sandbox)"

-- The calls the prelude makes: one wrapper per call of the API's table (src/api/mod.rs) made
-- by one of these forms, over the primitives script/api.rs made for that call (`raw.calls`:
-- `now`, the call's operation; `post`, `send`, `recv`, an operation it posts with, named as
-- the call; `wait` and `test`, a wait on a request as the call), so that an error names the
-- function the script called. (The engine's C versions, script/fast.rs, take calls with
-- integer arguments themselves and pass these wrappers the rest. No tail calls in these
-- wrappers: they would hide the script's line from tracebacks.)
local forms = {}

-- A call the engine decides at once when it can (the condition is already met); otherwise it
-- records what the rank waits for and the rank yields until that happens.
function forms.take(c)
  local now = c.now
  return function(x)
    if not now(x) then yield() end
  end
end

-- Message passing: a request completes in simulated time; waiting yields until it has.
local function waiter(wait_now)
  return function(req)
    local source, tag, bytes = wait_now(req)
    if source == nil then
      yield()
      source, tag, bytes = wait_now(req)
    end
    return { source = source, tag = tag, bytes = bytes }
  end
end
-- (the second argument, MGEN_STATUS_IGNORE or nothing, is checked by the C versions in
-- script/fast.rs, which call these only after that)
function forms.wait(c)
  local wait = waiter(c.wait)
  return function(req, status)
    local st = wait(req)
    if status ~= false then return st end
  end
end

function forms.waitall(c)
  local wait = waiter(c.wait)
  return function(reqs, status)
    local statuses = {}
    for i = 1, #reqs do statuses[i] = wait(reqs[i]) end
    if status ~= false then return statuses end
  end
end

-- Test answers for the rank's own clock: first let the engine catch up with it.
function forms.test(c)
  local test_now, sync = c.test, raw.sync
  return function(req)
    sync()
    yield()
    local source, tag, bytes = test_now(req)
    if source then return true, { source = source, tag = tag, bytes = bytes } end
    return false
  end
end

-- Posts (MGEN_Isend's or MGEN_Irecv's operation), then waits.
function forms.postwait(c)
  local post, wait = c.post, waiter(c.wait)
  if c.status then
    return function(...)
      local status = wait(post(...))
      return status
    end
  end
  return function(...)
    wait(post(...))
  end
end

-- Posts the receive (arguments 4 to 6), then the send (1 to 3), and waits for both.
function forms.exchange(c)
  local send, recv, wait = c.send, c.recv, waiter(c.wait)
  return function(dest, send_bytes, send_tag, src, recv_bytes, recv_tag)
    local r = recv(src, recv_bytes, recv_tag)
    local s = send(dest, send_bytes, send_tag)
    wait(s)
    local status = wait(r)
    return status
  end
end

-- A named span on the rank's timeline around fn(...); returns what fn returns.
function forms.region(c)
  local region_begin, region_end, call = G[c.begin], G[c["end"]], c.name
  return function(name, fn, ...)
    if type(name) ~= "string" then
      error(format("%s: `name` must be a string, got %s", call, type(name)), 2)
    end
    if type(fn) ~= "function" then
      error(format("%s: `fn` must be a function, got %s", call, type(fn)), 2)
    end
    region_begin(name)
    local results = pack(fn(...))
    region_end()
    return unpack(results, 1, results.n)
  end
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
-- the run going, and only a stop the engine recorded counts as one: a script that raises an
-- error of its own is a script error, whatever the error says.
local STEP = opts.step
local stopped = raw.stopped
local STOP = setmetatable({}, {
  __tostring = function() return "the run was stopped by a limit" end, __metatable = false,
})
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
    error(STOP, 0)
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

-- Coroutines a script makes: under the same budget, and a blocking API call inside one
-- blocks the whole rank (as it would block an MPI process, whatever its coroutines). When the
-- coroutine yields because the engine took the rank (it waits for something, or for the
-- engine to catch up with its clock), the resume that ran it yields the rank in turn, and
-- resumes the coroutine again once the engine gives the rank back; the script's own yields
-- come back to it as usual.
local function co_resume(co, ...)
  local r = pack(resume(co, ...))
  while r[1] and status(co) == "suspended" and engine_took() do
    yield()
    r = pack(resume(co))
  end
  return r
end
local safe_coroutine = {}
for k, v in next, coroutine do safe_coroutine[k] = v end
safe_coroutine.create = function(f) return hooked(create(f)) end
safe_coroutine.resume = function(co, ...)
  local r = co_resume(co, ...)
  return unpack(r, 1, r.n)
end
safe_coroutine.wrap = function(f)
  local co = hooked(create(f))
  return function(...)
    local r = co_resume(co, ...)
    if not r[1] then error(r[2], 0) end
    return unpack(r, 2, r.n)
  end
end

-- Read-only views. A view is an empty table whose metatable reads through to the real one
-- and refuses every write; its metatable is protected, `rawset` refuses views, and tables
-- inside a view are views themselves. Iteration (`pairs`, `ipairs`, `#`) works as on the
-- real table.
local views = setmetatable({}, { __mode = "k" }) -- view -> its real table
local function refuse_write(what)
  return function(_, k)
    error(format("sandbox: %s.%s cannot be changed: it is shared by every rank of the run "
      .. "(give the rank its own copy: local %s = setmetatable({}, {__index = %s}))",
      what, tostring(k), what:match("^[%w_]+") or "t", what:match("^[%w_]+") or "t"), 2)
  end
end
local function view(t, what)
  local v = {}
  views[v] = t
  setmetatable(v, {
    __index = t,
    __newindex = refuse_write(what),
    __len = function() return #t end,
    __pairs = function() return function(_, k) return next(t, k) end, v, nil end,
    __metatable = false,
  })
  return v
end
-- a table given to scripts read-only, nested tables first (MGEN_args, library modules)
local frozen
-- the tables inside `t` made read-only views, in place
local function freeze_inside(t, what)
  for k, x in next, t do
    if type(x) == "table" and not views[x] then rawset(t, k, frozen(x, what .. "." .. tostring(k))) end
  end
end
function frozen(t, what)
  freeze_inside(t, what)
  return view(t, what)
end

-- MGEN_trace_open: the trace's ranks, and the bytes of each datatype number (one table for
-- every rank, read-only)
local trace_sizes = frozen(raw.trace_sizes, "MGEN_trace_open's sizes")
function forms.trace_open(c)
  local trace_open = c.now
  return function(path)
    local ranks = trace_open(path)
    return ranks, trace_sizes
  end
end

for i = 1, #raw.calls do
  local c = raw.calls[i]
  G[c.name] = forms[c.form](c)
end

-- Lua turns an error whose message is exactly "not enough memory" into a memory error: a
-- script raising that text itself (or raising again one it caught) raises a script error.
local MEM = "not enough memory"
G.error = function(msg, level)
  if msg == MEM then msg = MEM .. " (raised by the script)" end
  if level == 0 then error(msg, 0) end
  error(msg, (level or 1) + 1)
end
G.assert = function(v, msg, ...)
  if v then return v, msg, ... end
  if msg == nil then msg = "assertion failed!" end
  if msg == MEM then msg = MEM .. " (raised by the script)" end
  error(msg, 2)
end

-- Reading a view reads its table: `next` (`next(t) == nil` for "empty"), `rawget`, `rawlen`.
local rawlen = rawlen
G.next = function(t, k)
  local real = views[t]
  if real then return next(real, k) end
  return next(t, k)
end
G.rawget = function(t, k)
  local real = views[t]
  if real then return rawget(real, k) end
  return rawget(t, k)
end
G.rawlen = function(t)
  local real = views[t]
  if real then return rawlen(real) end
  return rawlen(t)
end

G.rawset = function(t, k, v)
  if views[t] then
    error(format("sandbox: rawset(%s, ...): a shared table cannot be changed", tostring(k)), 2)
  end
  local ok, err = pcall(rawset, t, k, v)
  if not ok then error(gsub(err, "^mgensim prelude:%d+: ", ""), 2) end
  return t
end
-- A finalizer runs whenever the collector gets to it, on whichever rank is running then: it
-- could act for another rank. Refused.
G.setmetatable = function(t, mt)
  if type(t) ~= "table" then
    error(format("bad argument #1 to 'setmetatable' (table expected, got %s)", type(t)), 2)
  end
  if mt ~= nil and type(mt) ~= "table" then
    error("bad argument #2 to 'setmetatable' (nil or table expected)", 2)
  end
  local cur = dgetmetatable(t)
  if cur and rawget(cur, "__metatable") ~= nil then
    if views[t] then error("sandbox: a shared table's metatable cannot be changed", 2) end
    error("cannot change a protected metatable", 2)
  end
  if mt and rawget(mt, "__gc") ~= nil then
    error("sandbox: a metatable with __gc is refused: a finalizer would run on whichever "
      .. "rank happens to be running when the collector reaches it", 2)
  end
  return setmetatable(t, mt)
end

-- The rank's own globals (the first argument of its script's body, at the bottom of its
-- coroutine): what `load`, `loadfile` and `require` give the code they load.
local threads = {} -- rank i's coroutine; false until its first resume
local function rank_env()
  local co = threads[current()]
  local level = 0
  while getinfo(co, level + 1, "") do level = level + 1 end
  local _, env = getlocal(co, level, 1)
  return env
end

-- load: text chunks (binary ones only with --allow-io), with the rank's globals unless an
-- environment is given.
local function load_chunk(chunk, name, mode, env, given)
  if not given then env = rank_env() end
  if sandbox then
    if mode ~= nil and mode ~= "t" and mode ~= "bt" then
      error(format("sandbox: load with mode %q: binary chunks are not allowed in a scenario's script%s",
        tostring(mode), ALLOW), 3)
    end
    if type(chunk) == "string" and sbyte(chunk, 1) == 27 then
      return nil, "sandbox: binary chunks are not allowed in a scenario's script" .. ALLOW
    end
    mode = "t"
  end
  return load(chunk, name, mode, env)
end
G.load = function(chunk, name, mode, ...)
  return load_chunk(chunk, name, mode, (...), select("#", ...) > 0)
end

-- loadfile / dofile / require read through the engine, which decides what may be read.
local source = raw.source
G.loadfile = function(path, mode, ...)
  local text, name = source(path)
  if not text then return nil, name end
  return load_chunk(text, "@" .. name, mode, (...), select("#", ...) > 0)
end
G.dofile = function(path)
  local text, name = source(path)
  if not text then error(name, 2) end
  local f, err = load_chunk(text, "@" .. name, nil, nil, false)
  if not f then error(err, 2) end
  return f()
end

-- require: Lua modules beside the scripts and in mgensim's library (and, with --allow-io, C
-- modules through Lua's own loader). A module is compiled once per run, as
-- `function(_ENV, ...) <module> end` on its first line (so its line numbers are the file's).
-- - A module of the script's own is instantiated once per rank that requires it, as each MPI
--   process would load it: its code runs with the rank's globals and its state is the rank's.
-- - A module of mgensim's library (`lua/mgen/...`) is instantiated once per job, with globals
--   of its own (falling back to the job's), and what it returns is read-only: no rank can
--   change it for another, and no job for another. These modules keep their state per rank.
local find_module, module_chunk, real_require = raw.find_module, raw.module_chunk, require
local factories = {} -- module name -> { factory, file, is_library }
local function module_of(name)
  local m = factories[name]
  if m then return m end
  local file, lib = find_module(name)
  local text, fname = source(file)
  if not text then error(fname, 3) end
  -- `return function(_ENV, ...) <text> end`, compiled ahead for mgensim's own library
  local chunk = module_chunk(text, fname)
  if not chunk then
    -- the module's own syntax error, at its own line: as compiling it alone says it
    if sbyte(text, 1) == 35 then text = "--" .. text end -- a `#!` first line
    local _, serr = load(text, "@" .. fname, "t", {})
    error(serr or ("cannot compile " .. fname), 3)
  end
  m = { chunk(), fname, lib }
  factories[name] = m
  return m
end
-- The engine's `require` (api.rs) answers from these tables itself when it can (a standard
-- library, a library module the rank's job has, a module of the rank's own it has loaded:
-- nothing is allocated and the rank's stack does not grow), and calls `require_slow`
-- otherwise, which loads the module and fills them.
local std, job_modules, loaded_by = raw.std_modules, raw.job_modules, raw.rank_modules
local function require_slow(name, i)
  if type(name) ~= "string" then
    return nil, format("bad argument #1 to 'require' (string expected, got %s)", type(name))
  end
  local ok, m = pcall(module_of, name)
  if not ok then
    if not sandbox then return real_require(name) end
    return nil, (gsub(tostring(m), "^mgensim prelude:%d+: ", ""))
  end
  local r
  if m[3] then
    local j = 1
    for k, job in ipairs(jobs) do if i >= job.first then j = k end end
    r = job_modules[j][name]
    if r == nil then
      local menv = setmetatable({}, { __index = jobs[j].mt.__index, __metatable = false })
      r = m[1](menv, name, m[2])
      if r == nil then r = true end
      if type(r) == "table" then r = frozen(r, name) end
      job_modules[j][name] = r
    end
  else
    r = m[1](rank_env(), name, m[2])
    if r == nil then r = true end
    local loaded = loaded_by[i] or {}
    loaded_by[i] = loaded
    loaded[name] = r
  end
  return r
end

-- What scripts see of the standard library: the sandbox's parts, each a read-only view.
local io_, os_, debug_ = {}, {}, { traceback = traceback, getinfo = getinfo }
local io_written
local open_, lines_ = raw.open, raw.lines
if sandbox then
  local function deny(what)
    return function()
      error("sandbox: " .. what .. " is not allowed in a scenario's script" .. ALLOW, 2)
    end
  end
  os_ = {
    clock = os.clock, date = os.date, difftime = os.difftime, time = os.time,
    execute = deny("os.execute"), exit = deny("os.exit"), getenv = deny("os.getenv"),
    remove = deny("os.remove"), rename = deny("os.rename"), tmpname = deny("os.tmpname"),
    setlocale = deny("os.setlocale"),
  }
  local stderr = io.stderr
  -- what io.write returns, so that `io.write(a):write(b)` goes on in the rank's lines
  io_written = view({ write = function(_, ...) return io_.write(...) end }, "io.write(...)")
  io_ = {
    open = open_, lines = lines_, type = io.type,
    close = function(f)
      if f == nil then deny("io.close() of standard output")() end
      return f:close()
    end,
    -- (into the rank's lines on stderr: a line is written once it ends, never joined with
    -- another rank's or with the summary)
    write = function(...)
      local parts = {}
      for i = 1, select("#", ...) do
        local v = select(i, ...)
        local t = type(v)
        if t ~= "string" and t ~= "number" then
          error(("bad argument #%d to 'write' (string expected, got %s)"):format(i, t), 2)
        end
        parts[i] = tostring(v)
      end
      write(concat(parts), true)
      return io_written
    end,
    stderr = stderr,
    stdout = stderr, -- stdout carries the summary; what scripts print goes to stderr
    read = deny("io.read from standard input"),
    popen = deny("io.popen"), tmpfile = deny("io.tmpfile"),
    input = deny("io.input"), output = deny("io.output"),
  }
else
  -- the whole library; relative file names still start from the scenario's folder
  for k, v in next, io do io_[k] = v end
  for k, v in next, os do os_[k] = v end
  io_.open, io_.lines = open_, lines_
end

-- protect the metatables a script could reach a shared table through: strings' (its
-- __index is the real string library) and open files' (their methods)
local smt = dgetmetatable("")
smt.__metatable = false
local fmt = dgetmetatable(io.stderr)
fmt.__metatable = false

local package_ = {
  config = package.config, path = package.path, cpath = sandbox and "" or package.cpath,
  loaded = {}, preload = {},
  loadlib = sandbox and function() error("sandbox: package.loadlib is not allowed in a "
    .. "scenario's script" .. ALLOW, 2) end or package.loadlib,
}
local libs = {
  string = string, table = table, math = math, utf8 = utf8, coroutine = safe_coroutine,
  io = io_, os = os_, debug = debug_, package = package_,
}
for name, lib in next, libs do
  local copy = {}
  for k, v in next, lib do copy[k] = v end
  std[name] = view(copy, name)
end
for name, v in next, std do package_.loaded[name] = v end
std.package = frozen(package_, "package")
for name, v in next, std do G[name] = v end
rawset(G, "_G", nil)

-- MGEN_args: read-only like the rest, and it keeps which of its keys the ranks read, and
-- which keys they asked for that it does not have, so that the run can warn about a key the
-- script never read (a misspelt `--set workload.args.byts=1024` would otherwise be ignored).
local args_seen = {} -- job index -> { read = {key = true}, missed = {key = true}, t = args }
local function args_view(t, j)
  freeze_inside(t, "MGEN_args")
  local read, missed = {}, {}
  args_seen[j] = { read = read, missed = missed, t = t }
  local v = {}
  views[v] = t
  setmetatable(v, {
    __index = function(_, k)
      local x = t[k]
      if x == nil then missed[k] = true else read[k] = true end
      return x
    end,
    __newindex = refuse_write("MGEN_args"),
    __len = function() return #t end,
    __pairs = function()
      for k in next, t do read[k] = true end
      return function(_, k) return next(t, k) end, v, nil
    end,
    __metatable = false,
  })
  return v
end

-- For each job some rank of this state looked at MGEN_args for: the keys no rank of this state
-- read, and the names they asked for (found or not, the candidates of a "did you mean"):
-- { {job, {unread...}, {asked...}}, ... },
-- in no order: the engine sorts them (and keeps a key unread only if every state that saw its
-- job says so).
local function unread_args()
  local out = {}
  for j = 1, #jobs do
    local s = args_seen[j]
    if s then
      local keys, missed = {}, {}
      for k in next, s.t do
        if not s.read[k] and type(k) == "string" then keys[#keys + 1] = k end
      end
      for k in next, s.missed do
        if type(k) == "string" then missed[#missed + 1] = k end
      end
      for k in next, s.read do
        if type(k) == "string" then missed[#missed + 1] = k end
      end
      out[#out + 1] = { j, keys, missed }
    end
  end
  return out
end

-- A rank's globals fall back to its job's (MGEN_args), then to the shared ones; the chain's
-- metatables are protected, so that a rank reaches the shared table only through its names.
-- With one job its globals go straight into the shared table: one lookup fewer per API call.
local first = 0
for i, job in ipairs(jobs) do
  local args = args_view(job.args, i)
  if #jobs == 1 then
    G.MGEN_args = args
    job.mt = { __index = G, __metatable = false }
  else
    job.mt = {
      __index = setmetatable({ MGEN_args = args }, { __index = G, __metatable = false }),
      __metatable = false,
    }
  end
  job.first = first
  job_modules[i] = {}
  first = first + job.size
end

-- Declares the ranks this state runs (those of its partition: a list of their numbers, job
-- after job).
local function spawn(list)
  for _, i in ipairs(list) do threads[i] = false end
end

-- Makes rank i's coroutine and its own global environment; returns both (the engine passes
-- the environment to the coroutine's first resume). The engine is told the coroutine, to
-- resume it directly (`threads` keeps it alive).
local thread = raw.thread
local function start(i)
  local job = jobs[1]
  for _, j in ipairs(jobs) do
    if i >= j.first then job = j end
  end
  local env = setmetatable({}, job.mt)
  env._G = env
  -- (a rank's own coroutine has the hook whenever the engine watches it: it is armed only on
  -- a resume that runs long, `script/watchdog.rs`)
  local co = create(job.body)
  if opts.hook or opts.watched then sethook(co, hook, "", STEP) end
  threads[i] = co
  thread(i, co)
  return co, env
end

-- Rank i ended (finished or failed): its coroutine may go.
local function forget(i)
  threads[i] = nil
  loaded_by[i] = nil
end

-- What rank i's failure says: the error object `err` as text (whatever it is: a string, nil,
-- a table with or without a working __tostring), the script line it was raised at when the
-- message does not start with one, and the traceback of the rank's coroutine.
local function failure(i, err)
  local co = threads[i]
  threads[i] = nil
  local msg
  if type(err) == "string" then
    msg = err
  elseif err == nil then
    msg = "error(nil): an error without a message"
  else
    local ok, s = pcall(tostring, err)
    if ok and type(s) == "string" and not sfind(s, "^table: 0x") and not sfind(s, "^userdata: 0x") then
      msg = s
    else
      msg = format("an error object of type %s%s", type(err),
        ok and "" or " whose __tostring failed")
    end
  end
  -- the first frame of the script's own (not C, not this prelude)
  local at
  if co then
    for level = 0, 64 do
      local d = getinfo(co, level, "Sl")
      if not d then break end
      if d.currentline and d.currentline > 0 and d.short_src ~= "mgensim prelude" then
        at = d.short_src .. ":" .. d.currentline
        break
      end
    end
  end
  -- a message positioned in this prelude (a C function it called raised it) belongs to the
  -- script's line
  msg = gsub(msg, "^mgensim prelude:%d+: ", "")
  if at and not sfind(msg, "^[^\n]-:%d+:") then msg = at .. ": " .. msg end
  if co then return traceback(co, msg) end
  return msg
end

-- Where rank i is suspended, for deadlock reports.
local function where(i)
  local co = threads[i]
  if co then return traceback(co) end
  return ""
end

return spawn, start, forget, failure, where, require_slow, unread_args
