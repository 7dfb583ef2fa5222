-- Loaded once per simulation, before any rank runs. It receives the engine's raw primitives
-- and the compiled workload body, defines the API functions that may block (they yield the
-- rank's coroutine back to the engine), and returns what the engine needs to start and resume
-- ranks. Users never see this file; the API is documented in lua/mgen.d.lua.
local G, raw, body = ...

local create, resume, status, yield = coroutine.create, coroutine.resume, coroutine.status, coroutine.yield
local traceback, tostring, select, concat = debug.traceback, tostring, select, table.concat
local poll_now, complete_now, write = raw.poll, raw.complete, raw.write

-- Blocking calls: the engine decides at once when it can (the condition is already met);
-- otherwise it records what the rank waits for and the rank yields until that happens.
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

function G.MGEN_Send(dest, bytes, tag)
  Wait(Isend(dest, bytes, tag))
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

-- print from a rank goes to stderr with the rank and its simulated time.
function G.print(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  write(concat(parts, "\t"))
end

local threads = {}
local fresh = {} -- environments of ranks not yet started, handed over at their first resume
local env_mt = { __index = G }

-- Creates rank i's coroutine with its own global environment.
local function spawn(i)
  local env = setmetatable({}, env_mt)
  env._G = env
  threads[i] = create(body)
  fresh[i] = env
end

-- Resumes rank i: 0 = it blocked, 1 = it finished, 2 = it failed (with a message and traceback).
local function run(i)
  local co = threads[i]
  local env = fresh[i]
  if env then fresh[i] = nil end
  local ok, err = resume(co, env)
  if not ok then
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

-- Where rank i is suspended, for deadlock reports.
local function where(i)
  local co = threads[i]
  if co then return traceback(co) end
  return ""
end

return spawn, run, where
