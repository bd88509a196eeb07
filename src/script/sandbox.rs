//! The Lua sandbox: one Luau state that untrusted code (a mod, a Lua bot) can run in without
//! reading a file, hanging the program, eating the memory or changing what other code sees.
//!
//! # What a [`Sandbox`] guarantees
//! - **Only safe libraries**: `string`, `table`, `math`, `utf8` and the harmless base functions
//!   (`assert error getmetatable ipairs next pairs pcall rawequal rawget rawlen rawset select
//!   setmetatable tonumber tostring type typeof unpack xpcall`). There is no `io`, `os`,
//!   `require`, `load`/`loadstring`/`dofile`, `debug`, `getfenv`/`setfenv`, `collectgarbage`,
//!   `gcinfo`, `newproxy`, `print`, `coroutine`, and Luau has no `string.dump`.
//! - **Text only**: code is compiled from source (`ChunkMode::Text`); bytecode is refused.
//! - **Frozen shared state**: Luau's sandbox mode makes the libraries, the globals and the
//!   built-in metatables read-only; the string metatable is also hidden from `getmetatable`.
//!   Each [`Sandbox::load`] gets its own environment table for its globals, so two files loaded
//!   into one sandbox cannot see or overwrite each other's globals. Values you
//!   [`expose`](Sandbox::expose) are frozen too.
//! - **One step budget per call into Lua, per thread**: [`Sandbox::call`] counts the VM's
//!   interrupts (every loop iteration, function call and pattern-matching step) *and* the work
//!   done inside the library: every string and table function whose work grows with its input
//!   is wrapped so that it is charged first, one step per [`BYTES_PER_STEP`] bytes or per
//!   element it touches (a `table.move` over a billion slots is refused before it starts). A
//!   caught error costs [`ERROR_STEPS`]. Calls made while another budgeted call runs on the
//!   same thread (a hook of another sandbox run by a `ctx` function) share its budget. The
//!   script layer can also put a *pool* over several calls (`pool`), the cap of one turn.
//!   Pattern searches (`find`, `match`, `gmatch`, `gsub`) are charged by a bound on the work
//!   the matcher may do between two interrupts (`pattern_steps`: `n * m` bytes for a plain
//!   search or a pattern with a bracket class, `%b` or `%f`), and `tonumber` by its string.
//! - **A wall-clock bound per call** ([`Limits::time`], one second by default): what the VM
//!   does in one step without counting it (`a < b` on two huge strings, a pattern stretch)
//!   is stopped by the clock, read every [`CLOCK_EVERY`] interrupts and at every charge, and
//!   fails like the budget, at the running line. It is 25 to 50 times what an honest
//!   budget's worth of steps takes, so honest code never meets it (and games stay the same
//!   for the same seed); a call the clock stops is hostile or broken either way.
//! - **Same seed, same game**: `pairs` and `next` stop the call (like a limit, uncatchably)
//!   at a key that is a table, a function or another value known by its address (their order
//!   is that of their memory addresses, which change from run to run), and `tostring` (and
//!   `string.format`'s `%s`) writes such a value as `table #3`, numbered in the order the
//!   state first wrote them, never its address. A generalized `for k, v in t` is not seen by
//!   them: `diving check` plays a game twice to find that.
//! - **Stopped from outside**: while a [`stop_when`] guard lives on a thread, its calls stop
//!   as soon as the guard's flag is set (a server that stops ends a room's Lua this way),
//!   failing like the budget.
//! - **Nothing can catch a limit**: once the budget is spent, *every* further interrupt,
//!   charge and `pcall` return raises the error again until the outermost call returns, and
//!   that call fails with the budget error even if the script caught it. `pcall` and `xpcall`
//!   are wrapped: a memory error they catch trips the call the same way.
//! - **A memory limit** for the state, and optionally a total for a [`MemoryGroup`] of
//!   sandboxes (one per mod): what a state *holds* is judged, not its garbage. A state that
//!   reaches [`COLLECT_AT`] of its limit (or takes the group past its total) is collected at
//!   that interrupt, and the call fails only if what it still holds is within a sixteenth of
//!   its limit (in its own name) or still takes the group past its total (naming the sandbox
//!   that holds the most). The allocator refuses to go past the limit itself: one instruction
//!   that asks for that much between two interrupts (one huge `..`) fails at its own line,
//!   located by the handler every call runs under before the stack unwinds. `string.rep`
//!   asking for more than a quarter of the limit in one go fails up front. A call starts by
//!   collecting a state that holds more than half its limit.
//! - **Attribution from the stack**: a failure is located from the Lua call stack (Luau's
//!   traceback of the failing call, or the debug info of the calling line for errors raised
//!   by Rust functions), never from the text of the message; an error value that is not a
//!   string is described (`error value: a table`).

//! # How to use it (for a Lua bot, say)
//! ```
//! use diving::script::Sandbox;
//!
//! let sandbox = Sandbox::new("bots/cautious.lua").unwrap();
//! let loaded = sandbox.load("bots/cautious.lua", "return { choose = function(n) return n * 2 end }").unwrap();
//! let bot: mlua::Table = match loaded.value {
//!     mlua::Value::Table(t) => t,
//!     _ => panic!("the bot must return a table"),
//! };
//! let choose: mlua::Function = bot.get("choose").unwrap();
//! let answer: i64 = sandbox.call(&choose, 21).unwrap();
//! assert_eq!(answer, 42);
//! ```
//! Rust functions you give the script ([`Sandbox::lua`] → `create_function`) should report a
//! misuse with [`Sandbox::raise`], so the message names the script's file and line.
//!
//! A `Sandbox` is `Send + Sync`, but its budget assumes one caller at a time: give each
//! thread its own sandbox (they are cheap: well under a millisecond to build).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mlua::chunk::ChunkMode;
use mlua::{FromLuaMulti, Function, IntoLuaMulti, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};

/// Bytes a library function may touch for one step of the budget.
pub const BYTES_PER_STEP: u64 = 64;
/// Bytes a state grows by between two interrupts that cost a step: what the VM itself
/// copies (`..` builds a new string) is charged this way, more lightly than library work,
/// which is charged again here for what it allocates.
pub const GROWN_BYTES_PER_STEP: u64 = 256;
/// Steps a caught error costs (an error is far dearer than a step: ~100 per call's budget).
pub const ERROR_STEPS: u64 = 10_000;
/// The wall-clock time of one outermost call in [`Limits::default`]: 25 to 50 times what a
/// million honest steps take, so only work the steps cannot see reaches it.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1);
/// Interrupts between two looks at the clock (a look costs about as much as an interrupt).
pub const CLOCK_EVERY: u32 = 16;
/// A state is collected at an interrupt once it holds this part of its memory limit (three
/// quarters), so what a mod holds is told from its garbage before the allocator refuses
/// (it refuses at the limit, where no collection runs).
pub const COLLECT_AT: (u64, u64) = (3, 4);
/// After a collection, the next one waits until the state has grown by this part of its
/// limit (a sixteenth): what keeps a state just under its limit from being collected at
/// every interrupt.
pub const COLLECT_EVERY: u64 = 16;
/// Longest error message kept, in characters (the rest is cut off with "…").
pub const MAX_MESSAGE: usize = 400;

/// How much a sandboxed call may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Steps (VM interrupts: loop iterations, calls, pattern-matching steps; plus the charged
    /// work of library functions and caught errors) per outermost [`Sandbox::call`], nested
    /// calls included.
    pub steps: u64,
    /// Bytes the Lua state may hold: the allocator's limit; a call whose state still holds
    /// within a sixteenth of it after a collection fails.
    pub memory: usize,
    /// Wall-clock time per outermost [`Sandbox::call`], nested calls included: the bound on
    /// work the steps do not see one by one (two huge strings compared by `<`, a long pattern
    /// stretch between two interrupts). Checked every [`CLOCK_EVERY`] interrupts and at every
    /// charge, so a call stops within a few milliseconds of it.
    pub time: Duration,
}

impl Default for Limits {
    /// One million steps (20 to 40 ms of honest work on a release build, far more than any
    /// handler needs), 32 MiB and one second.
    fn default() -> Limits {
        Limits { steps: 1_000_000, memory: 32 << 20, time: DEFAULT_TIME }
    }
}

/// A script failure, located: `file:line: message` (no line when none is known).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file, line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ScriptError {
    /// The file name given to [`Sandbox::load`] (or to [`Sandbox::new`] when no file is known).
    pub file: String,
    pub line: Option<u32>,
    /// Lower case, no location.
    pub message: String,
}

impl ScriptError {
    pub fn new(file: impl Into<String>, line: Option<u32>, message: impl Into<String>) -> ScriptError {
        ScriptError { file: file.into(), line, message: message.into() }
    }
}

/// A failure located where it was raised (from the stack, by [`Sandbox::raise`]) or a nested
/// handler's complete failure; it travels through Lua unchanged and is not located again. An
/// empty `file` means "where the call failed" (filled in by the call that reports it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Passthrough(pub ScriptError);

/// What [`Sandbox::load`] produced.
#[derive(Debug)]
pub struct Loaded {
    /// What the chunk returned (`nil` when it returned nothing).
    pub value: Value,
    /// The chunk's own global environment (its globals live here; reads fall through to the
    /// exposed values and the safe libraries).
    pub env: Table,
}

/// Where a call was stopped (file, line) and why.
type Trip = (Option<String>, Option<u32>, String);

/// The budget of the calls running on this thread (shared by every sandbox on it, so a call
/// nested in another sandbox's call spends the same budget).
struct Meter {
    /// Nesting of budgeted calls; the budget only runs while this is above 0.
    depth: Cell<u32>,
    steps: Cell<u64>,
    limit: Cell<u64>,
    /// Whether the running call's limit is what was left of the pool.
    pooled: Cell<bool>,
    /// Whether the running call's limit is what was left of the open decisions
    /// ([`super::decision`]).
    decided: Cell<bool>,
    /// Set once the budget or the memory is exhausted; stays set until the outermost call ends.
    tripped: Cell<bool>,
    /// Where and why it tripped.
    reason: RefCell<Option<Trip>>,
    /// Steps left for the outermost calls to come (and its size), while a pool is open.
    pool: Cell<Option<(u64, u64)>>,
    /// When the running outermost call must have ended, and its time limit.
    deadline: Cell<Option<(Instant, Duration)>>,
    /// Interrupts since the clock was last read.
    ticks: Cell<u32>,
    /// Set from elsewhere to stop every call on this thread at once, and why ([`stop_when`]).
    stop: RefCell<Option<(Arc<AtomicBool>, &'static str)>>,
    /// Steps spent on this thread so far, by every outermost call and every copy of a mod's
    /// globals ([`steps_spent`]).
    spent: Cell<u64>,
}

thread_local! {
    static METER: Meter = const {
        Meter {
            depth: Cell::new(0),
            steps: Cell::new(0),
            limit: Cell::new(0),
            pooled: Cell::new(false),
            decided: Cell::new(false),
            tripped: Cell::new(false),
            reason: RefCell::new(None),
            pool: Cell::new(None),
            deadline: Cell::new(None),
            ticks: Cell::new(0),
            stop: RefCell::new(None),
            spent: Cell::new(0),
        }
    };
}

/// Steps spent on this thread so far, by every outermost call (what it was charged, nested
/// calls included, a call that failed too) and every copy of a mod's globals (charged by
/// what it copied): what a search measures its budget per move with. Deterministic: the
/// same work on the same game counts the same, whatever the clock.
pub fn steps_spent() -> u64 {
    METER.with(|m| m.spent.get())
}

/// Counts `steps` of work done outside a call (a copy of a mod's globals) in [`steps_spent`].
pub(crate) fn spend(steps: u64) {
    METER.with(|m| m.spent.set(m.spent.get().saturating_add(steps)));
}

/// While it lives, every budgeted call on this thread fails as soon as `flag` is set, with
/// `why` as its message, at the running line ([`stop_when`]).
pub struct StopWhen {
    previous: Option<(Arc<AtomicBool>, &'static str)>,
}

/// Makes every budgeted call on this thread, from now until the guard is dropped, stop as
/// soon as `flag` is set (seen at the next look at the clock: within [`CLOCK_EVERY`]
/// interrupts or one charge) and fail with `why`; a call started once it is set fails at
/// once. What a server uses to stop a room's Lua when it stops (`why`: "the host is
/// stopping"): like the budget, nothing the script does can catch it.
pub fn stop_when(flag: Arc<AtomicBool>, why: &'static str) -> StopWhen {
    StopWhen { previous: METER.with(|m| m.stop.replace(Some((flag, why)))) }
}

impl Drop for StopWhen {
    fn drop(&mut self) {
        let previous = self.previous.take();
        METER.with(|m| m.stop.replace(previous));
    }
}

/// Why work with Lua on this thread must stop now, if it must ([`stop_when`]): what a copy of
/// a game checks before it copies the mods' globals, which no budgeted call covers.
pub(crate) fn stopping() -> Option<&'static str> {
    METER.with(stop_reason)
}

/// Why calls on this thread must stop now, if they must ([`stop_when`]).
fn stop_reason(m: &Meter) -> Option<&'static str> {
    m.stop.borrow().as_ref().filter(|(flag, _)| flag.load(Ordering::Relaxed)).map(|(_, why)| *why)
}

/// A cap on the steps of several outermost calls on this thread: the script layer opens one
/// for the handlers of one turn. Each outermost call may use at most what is left.
pub(crate) mod pool {
    use super::METER;

    /// Opens a pool with `left` of its `size` steps still to spend (replacing any open one).
    pub(crate) fn open(left: u64, size: u64) {
        METER.with(|m| m.pool.set(Some((left, size))));
    }

    /// Closes the pool and returns the steps it had left.
    pub(crate) fn close() -> Option<u64> {
        METER.with(|m| m.pool.take().map(|(left, _)| left))
    }
}

/// The memory of several sandboxes (one per mod of a game) together: each holds what its own
/// state holds, as of the end of its last call, and the running one what it holds now.
#[derive(Debug)]
pub struct MemoryGroup {
    total: u64,
    held: AtomicU64,
    members: Mutex<Vec<Arc<Holding>>>,
}

impl MemoryGroup {
    /// A group whose sandboxes may hold `total` bytes together.
    pub fn new(total: usize) -> Arc<MemoryGroup> {
        Arc::new(MemoryGroup { total: total as u64, held: AtomicU64::new(0), members: Mutex::new(Vec::new()) })
    }

    /// The member that holds the most, counting `running` at `used` bytes.
    fn biggest(&self, running: &Holding, used: u64) -> (String, u64) {
        let members = self.members.lock().unwrap_or_else(|p| p.into_inner());
        let mut best = (running.name.clone(), used);
        for m in members.iter() {
            let held = m.held.load(Ordering::Relaxed);
            if !std::ptr::eq(&**m, running) && held > best.1 {
                best = (m.name.clone(), held);
            }
        }
        best
    }
}

/// What one sandbox holds, for its group.
#[derive(Debug)]
struct Holding {
    name: String,
    held: AtomicU64,
    group: Option<Arc<MemoryGroup>>,
    /// What the state held at the last interrupt: memory it grew by since is charged as
    /// work (a string built by `..` is copied by the VM, where no library function counts it).
    seen: AtomicU64,
    /// What the state must hold before it is collected again in this call: what it held after
    /// the last collection plus [`COLLECT_EVERY`] of its limit (0 at the start of a call).
    next_collect: AtomicU64,
}

impl Holding {
    /// Records that the state now holds `used` bytes.
    fn record(&self, used: u64) {
        let old = self.held.swap(used, Ordering::Relaxed);
        if let Some(group) = &self.group {
            if used >= old {
                group.held.fetch_add(used - old, Ordering::Relaxed);
            } else {
                group.held.fetch_sub(old - used, Ordering::Relaxed);
            }
        }
    }
}

/// A sandboxed Luau state. See the module documentation for the guarantees.
pub struct Sandbox {
    lua: Lua,
    name: String,
    limits: Limits,
    holding: Arc<Holding>,
    /// Between each loaded chunk's environment and the safe globals: what [`Sandbox::expose`] added.
    exposed: Table,
    /// The library's own `xpcall` (the scripts' is wrapped), and the handler every call runs
    /// under ([`Sandbox::call`]): it writes the traceback the failure is located by, and
    /// locates running out of memory, which leaves no traceback otherwise.
    xpcall: Function,
    on_error: Function,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox").field("name", &self.name).field("limits", &self.limits).finish_non_exhaustive()
    }
}

/// The base functions a script keeps; every other global is removed.
const SAFE_GLOBALS: &[&str] = &[
    "assert",
    "error",
    "getmetatable",
    "ipairs",
    "next",
    "pairs",
    "pcall",
    "rawequal",
    "rawget",
    "rawlen",
    "rawset",
    "select",
    "setmetatable",
    "tonumber",
    "tostring",
    "type",
    "typeof",
    "unpack",
    "xpcall",
    "_VERSION",
    "string",
    "table",
    "math",
    "utf8",
];

/// Functions of standard Lua that the sandbox leaves out, refused by name when called.
const REFUSED_FUNCTIONS: &[&str] = &[
    "require",
    "load",
    "loadstring",
    "dofile",
    "loadfile",
    "getfenv",
    "setfenv",
    "collectgarbage",
    "newproxy",
    "print",
];
/// Libraries of standard Lua that the sandbox leaves out, refused by name when used.
const REFUSED_LIBRARIES: &[&str] = &["io", "os", "debug", "package", "coroutine", "_G"];

/// Why `name` is left out, for its refusal.
fn why(name: &str) -> &'static str {
    match name {
        "io" | "os" | "dofile" | "loadfile" | "require" | "package" => {
            "mods and bots run in a sandbox that cannot reach files, programs, the clock or the environment"
        }
        "load" | "loadstring" | "string.dump" => "the sandbox runs only the source text of its files",
        "print" => "write to the game log with ctx:say instead",
        _ => "the sandbox leaves it out so scripts cannot escape or disturb each other",
    }
}

/// A function that refuses to run, naming itself.
fn refusal(lua: &Lua, name: &'static str) -> mlua::Result<Function> {
    lua.create_function(move |lua, _: mlua::Variadic<Value>| -> mlua::Result<()> {
        Err(Sandbox::raise(lua, format!("`{name}` is not available: {}", why(name))))
    })
}

/// The name of the sandbox's own chunks (library wrappers): frames of it are skipped when a
/// failure is located, so it lands on the script's line.
const OWN_CHUNK: &str = "[sandbox]";

/// Wraps `pcall` and `xpcall` so that a limit they catch is raised again (`after`), and every
/// string, table and utf8 function whose work grows with its input so that the work is
/// charged first (`charge`, in steps). Work the function's result shows (a string built) is
/// charged after. Arguments of the wrong type are passed on unchanged, so the library's own
/// error messages are kept.
const WRAPPERS: &str = r##"
local charge, charge_pattern, after, string, table, utf8, pcall, xpcall, rawlen, type, select, log, tonumber =
  charge, charge_pattern, after, string, table, utf8, pcall, xpcall, rawlen, type, select, math.log, tonumber
local next, pairs, tostring, setmetatable, address_ordered, find0, format0, unpack0 =
  next, pairs, tostring, setmetatable, address_ordered, string.find, string.format, table.unpack
local B = BYTES
-- The handler every call runs under: an error of Rust's (a userdata, which scripts cannot
-- make) goes on untouched, so a panic under a handler is not taken out of it.
local on_error = on_error
on_error_wrapped = function(e) if type(e) == "userdata" then return e end return on_error(e) end
local function bytes(v) if type(v) == "string" then return #v end return 0 end
local function size(t) if type(t) == "table" then return rawlen(t) end return 0 end
local function num(v, d) if type(v) == "number" then return v end return d end
local function span(i, j, n)
  local from, to = num(i, 1), num(j, n)
  if from < 0 then from = n + from + 1 end
  if to < 0 then to = n + to + 1 end
  if to < from then return 0 end
  return to - from + 1
end
local function args(...)
  local n, total = select("#", ...), 0
  charge(n)
  local all = { ... }
  for i = 1, n do total += bytes(all[i]) end
  return total
end
local function out(result, ...) charge(bytes(result) / B) return result, ... end

pcall_wrapped = function(f, ...) return after(pcall(f, ...)) end
xpcall_wrapped = function(f, h, ...) return after(xpcall(f, h, ...)) end
tonumber_wrapped = function(...) charge(bytes((...)) / B) return tonumber(...) end

-- Values whose identity is a memory address: as keys their order in `next` is the order of
-- their addresses, and `tostring` would write the address. Both change from run to run.
local by_address = { table = true, ["function"] = true, userdata = true, thread = true, buffer = true }
local function next_w(t, k)
  local key, value = next(t, k)
  if by_address[type(key)] then address_ordered(type(key)) end
  return key, value
end
next_wrapped = next_w
pairs_wrapped = function(t, ...)
  if type(t) ~= "table" then return pairs(t, ...) end
  return next_w, t, nil
end
-- `table: 0x55d…` becomes `table #3`: numbered in the order the state first wrote them.
local numbers, count = setmetatable({}, { __mode = "k" }), 0
local function tostring_w(...)
  local text = tostring(...)
  local v = ...
  if by_address[type(v)] and type(text) == "string" and find0(text, "^%a+: 0x%x+$") then
    local n = numbers[v]
    if not n then count += 1 n = count numbers[v] = n end
    return type(v) .. " #" .. n
  end
  return text
end
tostring_wrapped = tostring_w

local s = {}
for _, name in { "find", "match", "gmatch" } do
  local f = string[name]
  s[name] = function(a, p, ...) charge_pattern(a, p, name == "find", (select(2, ...))) return f(a, p, ...) end
end
for _, name in { "lower", "upper", "reverse", "byte", "len", "unpack", "split" } do
  local f = string[name]
  if f then s[name] = function(a, b, ...) charge((bytes(a) + bytes(b)) / B) return f(a, b, ...) end end
end
for _, name in { "sub" } do
  local f = string[name]
  s[name] = function(...) return out(f(...)) end
end
for _, name in { "format", "pack", "char" } do
  local f = string[name]
  if f then s[name] = function(...) charge(args(...) / B) return out(f(...)) end end
end
s.format = function(f, ...)
  local n, all = select("#", ...), { ... }
  for i = 1, n do if by_address[type(all[i])] then all[i] = tostring_w(all[i]) end end
  charge(args(f, ...) / B)
  return out(format0(f, unpack0(all, 1, n)))
end
local gsub = string.gsub
s.gsub = function(a, p, r, ...) charge_pattern(a, p, false, false) charge(bytes(r) / B) return out(gsub(a, p, r, ...)) end
local split = string.split
if split then
  s.split = function(a, sep) charge((bytes(a) + bytes(sep)) / B) local t = split(a, sep) charge(size(t)) return t end
end
for name, f in s do string[name] = f end

local t = {}
local concat, insert, remove, move, sort, unpack_, create, clone, find, clear, maxn, pack =
  table.concat, table.insert, table.remove, table.move, table.sort, table.unpack, table.create, table.clone,
  table.find, table.clear, table.maxn, table.pack
t.concat = function(l, sep, i, j) charge(span(i, j, size(l))) return out(concat(l, sep, i, j)) end
t.insert = function(l, ...) if select("#", ...) >= 2 then charge(size(l)) end return insert(l, ...) end
t.remove = function(l, ...) if select("#", ...) >= 1 then charge(size(l)) end return remove(l, ...) end
t.move = function(a1, f, e, d, a2)
  if type(f) == "number" and type(e) == "number" and e >= f then charge(e - f + 1) end
  return move(a1, f, e, d, a2)
end
t.sort = function(l, ...) local n = size(l) charge(n + n * log(n + 1, 2)) return sort(l, ...) end
t.unpack = function(l, i, j) charge(span(i, j, size(l))) return unpack_(l, i, j) end
t.create = function(n, ...) charge(num(n, 0)) return create(n, ...) end
t.clone = function(l) charge(size(l)) return clone(l) end
t.find = function(l, ...) charge(size(l)) return find(l, ...) end
t.clear = function(l) charge(size(l)) return clear(l) end
if maxn then t.maxn = function(l) charge(size(l)) return maxn(l) end end
t.pack = function(...) charge(select("#", ...)) return pack(...) end
for name, f in t do table[name] = f end
unpack_wrapped = t.unpack

local u = {}
for _, name in { "codepoint", "len", "offset", "codes" } do
  local f = utf8[name]
  u[name] = function(a, ...) charge(bytes(a) / B) return f(a, ...) end
end
local char = utf8.char
u.char = function(...) charge(select("#", ...)) return char(...) end
for name, f in u do utf8[name] = f end
"##;

impl Sandbox {
    /// A fresh sandbox with the default [`Limits`]. `name` is used in errors that belong to no
    /// loaded file.
    pub fn new(name: &str) -> Result<Sandbox, ScriptError> {
        Sandbox::with_limits(name, Limits::default())
    }

    /// A fresh sandbox with these limits.
    pub fn with_limits(name: &str, limits: Limits) -> Result<Sandbox, ScriptError> {
        Sandbox::in_group(name, limits, None)
    }

    /// A fresh sandbox with these limits, whose memory also counts towards `group`'s total.
    pub fn in_group(name: &str, limits: Limits, group: Option<&Arc<MemoryGroup>>) -> Result<Sandbox, ScriptError> {
        let fail = |e: mlua::Error| ScriptError::new(name, None, format!("cannot set up the sandbox: {e}"));
        let libs = StdLib::STRING | StdLib::TABLE | StdLib::MATH | StdLib::UTF8;
        let lua = Lua::new_with(libs, LuaOptions::default()).map_err(fail)?;
        let globals = lua.globals();
        let mut remove = Vec::new();
        for pair in globals.pairs::<Value, Value>() {
            let (key, _) = pair.map_err(fail)?;
            let keep = matches!(&key, Value::String(s) if SAFE_GLOBALS.iter().any(|g| s.as_bytes() == g.as_bytes()));
            if !keep {
                remove.push(key);
            }
        }
        for key in remove {
            globals.raw_set(key, Value::Nil).map_err(fail)?;
        }
        let string: Table = globals.get("string").map_err(fail)?;
        // `string.rep` can ask for gigabytes in one call, which the memory limit refuses
        // but `pcall` could catch: refuse it up front, in a way `pcall` cannot swallow.
        let rep: Function = string.get("rep").map_err(fail)?;
        let cap = limits.memory / 4;
        let guarded = lua
            .create_function(move |lua, (s, n, sep): (mlua::LuaString, i64, Option<mlua::LuaString>)| {
                let (len, sep_len) =
                    (s.as_bytes().len() as u128, sep.as_ref().map_or(0, |p| p.as_bytes().len()) as u128);
                let n128 = n.max(0) as u128;
                let total = len * n128 + sep_len * n128.saturating_sub(1);
                if total > cap as u128 {
                    return Err(METER.with(|m| {
                        trip(
                            lua,
                            m,
                            None,
                            format!("string.rep would build {total} bytes, more than the memory limit allows"),
                        )
                    }));
                }
                charge(lua, (total / BYTES_PER_STEP as u128) as u64)?;
                rep.call::<mlua::LuaString>((s, n, sep))
            })
            .map_err(fail)?;
        string.raw_set("rep", guarded).map_err(fail)?;
        // `string.dump` would turn functions into bytecode: refuse it by name.
        string.raw_set("dump", refusal(&lua, "string.dump").map_err(fail)?).map_err(fail)?;
        let xpcall: Function = globals.get("xpcall").map_err(fail)?;
        let memory = limits.memory;
        let on_error = lua.create_function(move |lua, e| on_error(lua, e, memory)).map_err(fail)?;
        let on_error = Sandbox::wrap_library(&lua, on_error).map_err(fail)?;
        // Hide the string metatable (it is also made read-only by the sandbox below).
        let string_meta: Option<Table> = lua.load("return getmetatable('')").eval().map_err(fail)?;
        if let Some(meta) = string_meta {
            meta.raw_set("__metatable", false).map_err(fail)?;
        }
        lua.sandbox(true).map_err(fail)?;

        let exposed = lua.create_table().map_err(fail)?;
        let meta = lua.create_table().map_err(fail)?;
        meta.raw_set("__index", lua.globals()).map_err(fail)?;
        meta.raw_set("__metatable", false).map_err(fail)?;
        meta.set_readonly(true);
        exposed.set_metatable(Some(meta)).map_err(fail)?;
        // What a script from elsewhere may reach for gets a clear refusal, not "attempt to
        // call a nil value".
        for name in REFUSED_FUNCTIONS {
            exposed.raw_set(*name, refusal(&lua, name).map_err(fail)?).map_err(fail)?;
        }
        for name in REFUSED_LIBRARIES {
            let library = lua.create_table().map_err(fail)?;
            let library_meta = lua.create_table().map_err(fail)?;
            let index = lua
                .create_function(move |lua, (_, key): (Value, Value)| -> mlua::Result<()> {
                    let key = key.to_string().unwrap_or_default();
                    Err(Sandbox::raise(lua, format!("`{name}.{key}` is not available: {}", why(name))))
                })
                .map_err(fail)?;
            library_meta.raw_set("__index", index).map_err(fail)?;
            library_meta.raw_set("__metatable", false).map_err(fail)?;
            library_meta.set_readonly(true);
            library.set_metatable(Some(library_meta)).map_err(fail)?;
            library.set_readonly(true);
            exposed.raw_set(*name, library).map_err(fail)?;
        }
        exposed.set_readonly(true);

        lua.set_memory_limit(limits.memory).map_err(fail)?;
        let holding = Arc::new(Holding {
            name: name.to_string(),
            held: AtomicU64::new(0),
            group: group.cloned(),
            seen: AtomicU64::new(0),
            next_collect: AtomicU64::new(0),
        });
        if let Some(group) = group {
            group.members.lock().unwrap_or_else(|p| p.into_inner()).push(Arc::clone(&holding));
        }
        holding.record(lua.used_memory() as u64);
        let (h, memory) = (Arc::clone(&holding), limits.memory as u64);
        lua.set_interrupt(move |lua| interrupt(lua, &h, memory));
        Ok(Sandbox { lua, name: name.to_string(), limits, holding, exposed, xpcall, on_error })
    }

    /// Replaces `pcall`, `xpcall`, `unpack` and the library functions that do unbounded work
    /// with the charged versions of [`WRAPPERS`]; returns the calls' error handler, which
    /// passes Rust errors by and gives the rest to `on_error`.
    fn wrap_library(lua: &Lua, on_error: Function) -> mlua::Result<Function> {
        let globals = lua.globals();
        let charge_fn = lua.create_function(|lua, steps: f64| charge(lua, steps.max(0.0).ceil() as u64))?;
        let after = lua.create_function(|lua, values: MultiValue| {
            METER.with(|m| {
                if m.tripped.get() {
                    return Err(stopped());
                }
                if matches!(values.front(), Some(Value::Boolean(false))) {
                    let memory = match values.get(1) {
                        Some(Value::String(s)) => s.as_bytes().as_ref() == b"not enough memory",
                        Some(Value::Error(e)) => matches!(flatten_error(e), mlua::Error::MemoryError(_)),
                        _ => false,
                    };
                    if memory {
                        return Err(trip(
                            lua,
                            m,
                            None,
                            "ran out of memory (the sandbox's memory limit), inside pcall".into(),
                        ));
                    }
                    charge_in(lua, m, ERROR_STEPS)?;
                }
                Ok(values)
            })
        })?;
        let pattern_fn = lua.create_function(|lua, (s, p, find, plain): (Value, Value, bool, Value)| {
            let bytes = |v: &Value| match v {
                Value::String(s) => s.as_bytes().len() as u64,
                _ => 0,
            };
            let pattern = match &p {
                Value::String(p) => p.as_bytes().to_vec(),
                _ => Vec::new(),
            };
            let plain = !matches!(plain, Value::Nil | Value::Boolean(false));
            charge(lua, pattern_steps(bytes(&s), &pattern, find, plain))
        })?;
        let ordered = lua.create_function(|lua, kind: String| -> mlua::Result<()> {
            Err(METER.with(|m| trip(lua, m, None, address_order_message(&kind))))
        })?;
        globals.raw_set("address_ordered", ordered)?;
        globals.raw_set("charge_pattern", pattern_fn)?;
        globals.raw_set("charge", charge_fn)?;
        globals.raw_set("after", after)?;
        globals.raw_set("BYTES", BYTES_PER_STEP as i64)?;
        globals.raw_set("on_error", on_error)?;
        lua.load(WRAPPERS).set_name(format!("={OWN_CHUNK}")).exec()?;
        for (wrapped, name) in [
            ("pcall_wrapped", "pcall"),
            ("xpcall_wrapped", "xpcall"),
            ("unpack_wrapped", "unpack"),
            ("tonumber_wrapped", "tonumber"),
            ("next_wrapped", "next"),
            ("pairs_wrapped", "pairs"),
            ("tostring_wrapped", "tostring"),
        ] {
            let f: Value = globals.raw_get(wrapped)?;
            globals.raw_set(name, f)?;
            globals.raw_set(wrapped, Value::Nil)?;
        }
        let handler: Function = globals.raw_get("on_error_wrapped")?;
        for name in ["charge", "charge_pattern", "after", "address_ordered", "BYTES", "on_error", "on_error_wrapped"] {
            globals.raw_set(name, Value::Nil)?;
        }
        Ok(handler)
    }

    /// The Lua state, to create tables and Rust functions for the script. Do not turn the
    /// sandbox off or remove its interrupt.
    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    /// The sandbox's name (as given to [`Sandbox::new`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Makes `value` a global that every chunk loaded afterwards can read (not write). A table
    /// is frozen (made read-only; tables inside it are not: freeze them with
    /// [`Sandbox::freeze`] first).
    pub fn expose(&self, name: &str, value: impl mlua::IntoLua) -> Result<(), ScriptError> {
        let value = value.into_lua(&self.lua).map_err(|e| self.setup_error(e))?;
        if let Value::Table(t) = &value {
            t.set_readonly(true);
        }
        self.exposed.set_readonly(false);
        let result = self.exposed.raw_set(name, value);
        self.exposed.set_readonly(true);
        result.map_err(|e| self.setup_error(e))
    }

    /// Makes a table read-only for scripts (writes raise "attempt to modify a readonly
    /// table") and hides its metatable.
    pub fn freeze(&self, table: &Table) -> Result<(), ScriptError> {
        if let Some(meta) = table.metatable() {
            meta.set_readonly(false);
            meta.raw_set("__metatable", false).map_err(|e| self.setup_error(e))?;
            meta.set_readonly(true);
        }
        table.set_readonly(true);
        Ok(())
    }

    fn setup_error(&self, e: mlua::Error) -> ScriptError {
        ScriptError::new(&self.name, None, flatten(&e).1)
    }

    /// Compiles `code` (text only) as the file `file_name` and runs it once, within the
    /// budget, in an environment of its own. Syntax and run-time errors are located in
    /// `file_name`.
    pub fn load(&self, file_name: &str, code: &str) -> Result<Loaded, ScriptError> {
        self.run_chunk(file_name, code, ChunkMode::Text)
    }

    /// Compiles `code` for [`Sandbox::load_compiled`]: the bytecode of text the program has
    /// already loaded once with [`Sandbox::load`] (never bytecode from outside).
    pub(crate) fn compile(file_name: &str, code: &str) -> Result<Vec<u8>, ScriptError> {
        mlua::chunk::Compiler::new().compile(code).map_err(|e| locate(&e, file_name, None))
    }

    /// Runs bytecode made by [`Sandbox::compile`] like [`Sandbox::load`] runs text: a fresh
    /// environment, within the budget.
    pub(crate) fn load_compiled(&self, file_name: &str, bytecode: &[u8]) -> Result<Loaded, ScriptError> {
        self.run_chunk(file_name, bytecode, ChunkMode::Binary)
    }

    /// Runs `chunk` (of `mode`) as the file `file_name` once, within the budget, in an
    /// environment of its own.
    fn run_chunk(
        &self,
        file_name: &str,
        chunk: impl mlua::chunk::AsChunk,
        mode: ChunkMode,
    ) -> Result<Loaded, ScriptError> {
        let setup = |e: mlua::Error| ScriptError::new(file_name, None, flatten(&e).1);
        let env = self.environment().map_err(setup)?;
        let function = self
            .lua
            .load(chunk)
            .set_name(format!("={file_name}"))
            .set_mode(mode)
            .set_environment(env.clone())
            .into_function()
            .map_err(|e| locate(&e, file_name, None))?;
        let value: Value = self.call_in(&function, (), file_name)?;
        Ok(Loaded { value, env })
    }

    /// A new environment for a chunk: its own globals over the exposed values.
    fn environment(&self) -> mlua::Result<Table> {
        let env = self.lua.create_table()?;
        let meta = self.lua.create_table()?;
        meta.raw_set("__index", self.exposed.clone())?;
        meta.raw_set("__metatable", false)?;
        meta.set_readonly(true);
        env.set_metatable(Some(meta))?;
        Ok(env)
    }

    /// Calls `function` within the budget and converts its result. Calls made while another
    /// budgeted call is running on this thread (a script calling Rust calling a script, in
    /// this sandbox or another) share the outer call's budget. Errors are located from the
    /// stack at the line that failed, or else at the function's definition.
    pub fn call<R: FromLuaMulti>(&self, function: &Function, args: impl IntoLuaMulti) -> Result<R, ScriptError> {
        self.call_in(function, args, &self.name)
    }

    fn call_in<R: FromLuaMulti>(
        &self,
        function: &Function,
        args: impl IntoLuaMulti,
        file: &str,
    ) -> Result<R, ScriptError> {
        self.call_then(function, file, |f| {
            let mut all = args.into_lua_multi(&self.lua)?;
            all.push_front(Value::Function(self.on_error.clone()));
            all.push_front(Value::Function(f.clone()));
            let mut out: MultiValue = self.xpcall.call(all)?;
            match out.pop_front() {
                Some(Value::Boolean(true)) => R::from_lua_multi(out, &self.lua),
                _ => Err(match out.pop_front() {
                    Some(Value::Error(e)) => *e,
                    Some(Value::String(s)) => mlua::Error::RuntimeError(s.to_string_lossy()),
                    other => mlua::Error::RuntimeError(format!("{other:?}")),
                }),
            }
        })
    }

    /// Runs `call` (which calls `function` and converts what it returned) within the budget.
    fn call_then<R>(
        &self,
        function: &Function,
        file: &str,
        call: impl FnOnce(&Function) -> mlua::Result<R>,
    ) -> Result<R, ScriptError> {
        let outer = METER.with(|m| {
            let outer = m.depth.get() == 0;
            if outer {
                m.steps.set(0);
                m.ticks.set(0);
                m.deadline.set(Some((Instant::now() + self.limits.time, self.limits.time)));
                m.tripped.set(false);
                m.reason.replace(None);
                self.holding.next_collect.store(0, Ordering::Relaxed);
                match m.pool.get() {
                    Some((left, _)) if left < self.limits.steps => {
                        m.limit.set(left);
                        m.pooled.set(true);
                    }
                    _ => {
                        m.limit.set(self.limits.steps);
                        m.pooled.set(false);
                    }
                }
                // The open decisions' total caps the call too (a spent one stops it at once).
                m.decided.set(false);
                if let Some(left) = super::decision::left().map(|l| l.saturating_sub(super::decision::CALL_STEPS))
                    && left < m.limit.get()
                {
                    m.limit.set(left);
                    m.decided.set(true);
                    m.pooled.set(false);
                }
            }
            m.depth.set(m.depth.get() + 1);
            outer
        });
        if outer && self.lua.used_memory() > self.limits.memory / 2 {
            let _ = self.lua.gc_collect();
        }
        let halted = if outer { METER.with(stop_reason) } else { None };
        let result = match halted {
            Some(why) => Err(mlua::Error::runtime(why)),
            None => call(function),
        };
        let trip = METER.with(|m| {
            m.depth.set(m.depth.get() - 1);
            if !outer {
                return None;
            }
            if let Some((left, size)) = m.pool.get() {
                m.pool.set(Some((left.saturating_sub(m.steps.get()), size)));
            }
            m.spent.set(m.spent.get().saturating_add(m.steps.get()));
            super::decision::charge(&self.name, m.steps.get() + super::decision::CALL_STEPS);
            if m.tripped.replace(false) { Some(m.reason.take().unwrap_or_default()) } else { None }
        });
        if outer {
            self.holding.record(self.lua.used_memory() as u64);
        }
        if let Some((tfile, tline, why)) = trip {
            let _ = self.lua.gc_collect();
            self.holding.record(self.lua.used_memory() as u64);
            let (dfile, dline) = definition(function);
            let located = tfile.is_some();
            let file = tfile.or(dfile).unwrap_or_else(|| file.to_string());
            return Err(ScriptError::new(file, if located { tline } else { dline }, why));
        }
        match result {
            Ok(r) => Ok(r),
            Err(e) => {
                if matches!(e, mlua::Error::MemoryError(_)) && outer {
                    let _ = self.lua.gc_collect();
                    self.holding.record(self.lua.used_memory() as u64);
                }
                let (dfile, dline) = definition(function);
                Err(locate(&e, dfile.as_deref().unwrap_or(file), dline))
            }
        }
    }

    /// An error for a Rust function called by the script: `message`, located at the script
    /// line that made the call (from the stack). Return it as the function's `Err`.
    pub fn raise(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
        let (file, line) = caller(lua, 1);
        let message = truncate(&message.to_string());
        mlua::Error::external(Passthrough(ScriptError { file: file.unwrap_or_default(), line, message }))
    }

    /// The line of the script that called the running Rust function (from the stack).
    pub(crate) fn calling_line(lua: &Lua) -> Option<u32> {
        caller(lua, 1).1
    }

    /// Bytes the state holds now.
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }
}

/// The handler of every call ([`Sandbox::call`]), run by `xpcall` where the error was raised,
/// before the stack unwinds: it writes a string error's traceback (as mlua's own handler
/// does), passes a Rust error on, and trips the call at the running line when the allocator
/// refused (mlua's handler writes no traceback then, and one big `..` past the limit was
/// placed at the function's first line).
fn on_error(lua: &Lua, e: Value, memory: usize) -> mlua::Result<Value> {
    if let Value::String(s) = &e
        && s.as_bytes().as_ref() == b"not enough memory"
    {
        METER.with(|m| {
            let _ = trip(lua, m, None, format!("used more than the memory limit of {} KiB", memory / 1024));
        });
        return Ok(e);
    }
    let text = match &e {
        Value::Error(_) => return Ok(e),
        Value::String(s) => s.to_string_lossy(),
        other => other.to_string().unwrap_or_else(|_| format!("error value: a {}", other.type_name())),
    };
    Ok(Value::String(lua.traceback(Some(&text), 0)?))
}

/// Why `pairs`/`next` stop at a key of type `kind` (a table, a function …).
fn address_order_message(kind: &str) -> String {
    format!(
        "pairs or next reached a key that is a {kind}: such keys come in the order of their memory addresses, \
         which change from run to run, so the same seed would not give the same game (key tables by strings or \
         numbers, or keep the {kind}s in a list)"
    )
}

/// The characters that make `string.find` match a pattern rather than search for the text.
const PATTERN_SPECIALS: &[u8] = b"^$*+?.([%-";

/// The steps a pattern search of `subject` bytes for `pattern` is charged up front: a bound
/// on the work the matcher may do between two interrupts (it interrupts once per start
/// position and per backtracking step, never inside one stretch of matching).
/// - a plain search (`find` with `plain`, or a pattern without special characters) compares
///   the pattern at each place it could start: `(n - m + 1) * m` bytes;
/// - a bracket class (`[...]`), a balance (`%b`) or a frontier (`%f`) may scan the subject
///   once per pattern byte without an interrupt (`^[aaa…b]*` compares each subject byte with
///   the whole class): `n * m` bytes;
/// - any other pattern reads the subject and the pattern once per stretch: `n + m` bytes.
///
/// Each, like every library charge, at [`BYTES_PER_STEP`] bytes a step. What the matcher
/// does over many stretches is counted by the interrupts, and stopped by the clock.
pub(crate) fn pattern_steps(subject: u64, pattern: &[u8], find: bool, plain: bool) -> u64 {
    let m = pattern.len() as u64;
    let searched = find && (plain || !pattern.iter().any(|b| PATTERN_SPECIALS.contains(b)));
    let scanned = if searched {
        (subject + 1).saturating_sub(m).saturating_mul(m)
    } else if pattern.contains(&b'[') || pattern.windows(2).any(|w| w == b"%b" || w == b"%f") {
        subject.saturating_mul(m)
    } else {
        0
    };
    scanned.saturating_add(subject + m) / BYTES_PER_STEP
}

/// Charges `steps` to the running call's budget (nothing when no budgeted call runs): an
/// error that trips the call once the budget is spent.
pub(crate) fn charge(lua: &Lua, steps: u64) -> mlua::Result<()> {
    METER.with(|m| charge_in(lua, m, steps))
}

fn charge_in(lua: &Lua, m: &Meter, steps: u64) -> mlua::Result<()> {
    if m.depth.get() == 0 {
        return Ok(());
    }
    if m.tripped.get() {
        return Err(stopped());
    }
    let total = m.steps.get().saturating_add(steps);
    m.steps.set(total);
    if total > m.limit.get() {
        return Err(trip(lua, m, None, budget_message(m)));
    }
    check_clock(lua, m)
}

/// Fails the running call once its wall-clock time is up, or once it must stop ([`stop_when`]).
fn check_clock(lua: &Lua, m: &Meter) -> mlua::Result<()> {
    m.ticks.set(0);
    if let Some(why) = stop_reason(m) {
        return Err(trip(lua, m, None, why.to_string()));
    }
    match m.deadline.get() {
        Some((deadline, time)) if Instant::now() > deadline => Err(trip(
            lua,
            m,
            None,
            format!(
                "used up its time budget of {} ms (work the step budget does not count one by one: huge strings \
                 compared, searched or converted?)",
                time.as_millis()
            ),
        )),
        _ => Ok(()),
    }
}

fn budget_message(m: &Meter) -> String {
    if m.decided.get() {
        return super::decision::spent_message();
    }
    match m.pool.get() {
        Some((_, size)) if m.pooled.get() => {
            format!("used up the turn's budget of {size} steps (all the handlers of one turn together)")
        }
        _ => format!("used up its budget of {} steps (an endless loop?)", m.limit.get()),
    }
}

/// The error every interrupt raises once the call is stopped (the reason is reported by the
/// outermost call).
fn stopped() -> mlua::Error {
    mlua::Error::runtime("the script was stopped")
}

/// The file and line of the Lua function `level` frames up from the running Rust function
/// (1 = the script function that called it), skipping the sandbox's own wrappers.
fn caller(lua: &Lua, level: usize) -> (Option<String>, Option<u32>) {
    for level in level..level + 12 {
        let found = lua.inspect_stack(level, |d| {
            let source = d.source();
            if source.what == "C" || source.short_src.as_deref() == Some(OWN_CHUNK) {
                return None;
            }
            let file = source.short_src.as_deref().map(str::to_string);
            Some((file, d.current_line().map(|l| l as u32)))
        });
        match found {
            None => break,
            Some(None) => continue,
            Some(Some(found)) => return found,
        }
    }
    (None, None)
}

/// Where `function` was defined.
fn definition(function: &Function) -> (Option<String>, Option<u32>) {
    let info = function.info();
    if info.what == "C" {
        return (None, None);
    }
    (info.short_src, info.line_defined.map(|l| l as u32))
}

fn interrupt(lua: &Lua, own: &Holding, memory: u64) -> mlua::Result<VmState> {
    METER.with(|m| {
        if m.depth.get() == 0 {
            return Ok(VmState::Continue);
        }
        if m.tripped.get() {
            return Err(stopped());
        }
        let used = lua.used_memory() as u64;
        // One step for the interrupt, and the memory the state grew by since the last one.
        let grown = used.saturating_sub(own.seen.swap(used, Ordering::Relaxed));
        let steps = m.steps.get() + 1 + grown / GROWN_BYTES_PER_STEP;
        m.steps.set(steps);
        if steps > m.limit.get() {
            return Err(trip(lua, m, None, budget_message(m)));
        }
        let ticks = m.ticks.get() + 1;
        m.ticks.set(ticks);
        if ticks >= CLOCK_EVERY {
            check_clock(lua, m)?;
        }
        if let Some(why) = over_memory(lua, m, own, memory, used) {
            return Err(why);
        }
        Ok(VmState::Continue)
    })
}

/// Whether the state, holding `used` bytes, is over its own limit or takes its group over
/// the group's total: the error that trips the call if it is. Garbage is not counted: a state
/// that holds [`COLLECT_AT`] of its limit, or takes the group over its total, is collected
/// first and judged by what it holds then; until it has grown by [`COLLECT_EVERY`] of its
/// limit since, it is not judged again (the allocator's limit bounds it meanwhile). A full
/// collection here is safe: an interrupt comes where the VM steps its own collector (loop
/// back edges, calls and returns, with the running frame's registers all on the stack it
/// marks).
fn over_memory(lua: &Lua, m: &Meter, own: &Holding, memory: u64, mut used: u64) -> Option<mlua::Error> {
    let others = |own: &Holding, group: &MemoryGroup| {
        group.held.load(Ordering::Relaxed).saturating_sub(own.held.load(Ordering::Relaxed))
    };
    let group_over = |used: u64| own.group.as_ref().is_some_and(|g| others(own, g) + used > g.total);
    if used < own.next_collect.load(Ordering::Relaxed) {
        return None;
    }
    if used >= memory / COLLECT_AT.1 * COLLECT_AT.0 || group_over(used) {
        let _ = lua.gc_collect();
        used = lua.used_memory() as u64;
        own.seen.store(used, Ordering::Relaxed);
        own.next_collect.store(used.saturating_add(memory / COLLECT_EVERY), Ordering::Relaxed);
    }
    if used >= memory - memory / 16 {
        return Some(trip(lua, m, None, format!("used more than the memory limit of {} KiB", memory / 1024)));
    }
    if !group_over(used) {
        return None;
    }
    let group = own.group.as_ref()?;
    let (holder, held) = group.biggest(own, used);
    let mut why = format!(
        "holds {} KiB, the most of all the mods, which together hold more than their limit of {} KiB",
        held / 1024,
        group.total / 1024
    );
    if holder == own.name {
        // The running mod holds the most: the error is at its running line.
        return Some(trip(lua, m, None, why));
    }
    // Another mod holds the most, but none of its lines is running: it kept the memory in an
    // earlier call or while its file loaded. Say so, and where the running mod went over the
    // total.
    let running = match caller(lua, 0) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file,
        _ => own.name.clone(),
    };
    why.push_str(&format!(
        " (no line: it kept that memory in an earlier call or while its file loaded; the total was passed at \
         {running})"
    ));
    Some(trip(lua, m, Some(holder), why))
}

/// Stops the running call for good: every interrupt fails from now until the outermost
/// call returns, and that call reports `why` at the current line (or in the file `at`).
fn trip(lua: &Lua, m: &Meter, at: Option<String>, why: String) -> mlua::Error {
    if m.depth.get() > 0 && !m.tripped.replace(true) {
        let (file, line) = match at {
            Some(file) => (Some(file), None),
            None => caller(lua, 0),
        };
        m.reason.replace(Some((file, line, why.clone())));
    }
    mlua::Error::runtime(why)
}

/// The innermost error of a chain of callback and context errors.
fn flatten_error(e: &mlua::Error) -> &mlua::Error {
    match e {
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => flatten_error(cause),
        other => other,
    }
}

/// The innermost message of an mlua error and whether it already carries a complete,
/// located message (a [`Passthrough`]).
pub(crate) fn flatten(e: &mlua::Error) -> (bool, String) {
    match e {
        mlua::Error::CallbackError { cause, .. } => flatten(cause),
        mlua::Error::WithContext { cause, .. } => flatten(cause),
        mlua::Error::ExternalError(inner) => match inner.downcast_ref::<Passthrough>() {
            Some(p) if p.0.file.is_empty() => (true, p.0.message.clone()),
            Some(p) => (true, p.0.to_string()),
            None => (false, inner.to_string()),
        },
        mlua::Error::RuntimeError(m) => {
            (false, m.rsplit_once("\nstack traceback:").map_or(m.as_str(), |(m, _)| m).to_string())
        }
        mlua::Error::SyntaxError { message, .. } => (false, message.clone()),
        mlua::Error::MemoryError(_) => (false, "ran out of memory (the sandbox's memory limit)".into()),
        mlua::Error::BadArgument { to, pos, name, cause } => {
            let what = match (to, name) {
                (Some(to), Some(name)) => format!("bad argument #{pos} ({name}) to {to}"),
                (Some(to), None) => format!("bad argument #{pos} to {to}"),
                _ => format!("bad argument #{pos}"),
            };
            let (_, inner) = flatten(cause);
            (false, format!("{what}: {inner}"))
        }
        mlua::Error::FromLuaConversionError { from, to, message } => {
            let extra = message.as_deref().map(|m| format!(" ({m})")).unwrap_or_default();
            (false, format!("expected {to}, got {from}{extra}"))
        }
        other => (false, other.to_string()),
    }
}

/// The [`Passthrough`] an error carries, if any.
fn passthrough(e: &mlua::Error) -> Option<&ScriptError> {
    match flatten_error(e) {
        mlua::Error::ExternalError(inner) => inner.downcast_ref::<Passthrough>().map(|p| &p.0),
        _ => None,
    }
}

/// Turns an mlua error into a [`ScriptError`] located from the stack: the place a Rust
/// function raised it ([`Passthrough`]), or the innermost script frame of the traceback Luau
/// wrote when the error was thrown, else `file`/`line` (the failing function's definition).
/// The message is never read for a location: a prefix Luau's `error` added is dropped only
/// when it is the place the stack gives; a forged one stays part of the message.
fn locate(e: &mlua::Error, file: &str, line: Option<u32>) -> ScriptError {
    if let Some(p) = passthrough(e) {
        let mut p = p.clone();
        if p.file.is_empty() {
            p.file = file.to_string();
            p.line = p.line.or(line);
        }
        return p;
    }
    if let mlua::Error::SyntaxError { message, .. } = flatten_error(e) {
        // The compiler's own prefix, from the chunk name the sandbox gave.
        let mut e = split_location(message).unwrap_or_else(|| ScriptError::new(file, None, message.clone()));
        e.message = lower_first(&truncate(&e.message));
        return e;
    }
    let (_, message) = flatten(e);
    let (file, line) = match traceback_location(e) {
        Some((file, line)) => (file, Some(line)),
        None => (file.to_string(), line),
    };
    let own = match line {
        Some(l) => format!("{file}:{l}: "),
        None => format!("{file}: "),
    };
    let message = message.strip_prefix(&own).unwrap_or(&message);
    ScriptError::new(file, line, lower_first(&truncate(&describe_error_value(message))))
}

/// What Luau's `tostring` wrote for an error value that is not a string, in words:
/// `table: 0x55d…` → `error value: a table`.
fn describe_error_value(message: &str) -> String {
    if message == "nil" {
        return "error value: nil".into();
    }
    for kind in ["table", "function", "userdata", "thread", "buffer", "vector"] {
        if let Some(address) = message.strip_prefix(kind).and_then(|r| r.strip_prefix(": 0x"))
            && !address.is_empty()
            && address.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return format!("error value: a {kind}");
        }
    }
    message.to_string()
}

/// `message` cut to [`MAX_MESSAGE`] characters, without control characters.
pub(crate) fn truncate(message: &str) -> String {
    let mut out: String = message.chars().filter(|c| !c.is_control() || *c == '\n').take(MAX_MESSAGE).collect();
    if message.chars().count() > MAX_MESSAGE {
        out.push('…');
    }
    out
}

/// `Expected identifier` → `expected identifier` (the project's messages are lower case),
/// leaving words like `J` or `NaN` alone.
fn lower_first(message: &str) -> String {
    let mut chars = message.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => {
            first.to_lowercase().chain(std::iter::once(second)).chain(chars).collect()
        }
        _ => message.to_string(),
    }
}

/// The innermost script frame of the traceback Luau wrote when the error was thrown (the
/// last one in the text: a message cannot forge it), skipping library and sandbox frames.
fn traceback_location(e: &mlua::Error) -> Option<(String, u32)> {
    let text = match e {
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
            return traceback_location(cause);
        }
        mlua::Error::RuntimeError(m) => m,
        _ => return None,
    };
    let (_, trace) = text.rsplit_once("\nstack traceback:")?;
    trace.lines().map(str::trim).filter(|l| !l.starts_with("[C]") && !l.starts_with(OWN_CHUNK)).find_map(|l| {
        let e = split_location(l)?;
        Some((e.file, e.line?))
    })
}

/// Splits `file:line: message` (the first `:digits: ` found). Use it only on text the program
/// wrote itself (a compiler message, a nested handler's located error), never to locate a
/// script's own message.
pub(crate) fn split_location(message: &str) -> Option<ScriptError> {
    let bytes = message.as_bytes();
    let mut i = 0;
    while let Some(off) = message[i..].find(':') {
        let colon = i + off;
        let digits_end = bytes[colon + 1..].iter().position(|b| !b.is_ascii_digit()).map(|p| colon + 1 + p);
        if let Some(end) = digits_end
            && end > colon + 1
            && message[end..].starts_with(": ")
            && colon > 0
        {
            let file = &message[..colon];
            let line = message[colon + 1..end].parse().ok()?;
            let rest = message[end + 2..].trim_end();
            return Some(ScriptError::new(file, Some(line), rest));
        }
        i = colon + 1;
    }
    None
}

#[allow(dead_code)]
fn assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<Sandbox>();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(code: &str) -> Result<Value, ScriptError> {
        let sandbox =
            Sandbox::with_limits("test", Limits { steps: 100_000, memory: 8 << 20, ..Limits::default() }).unwrap();
        sandbox.load("t.lua", code).map(|l| l.value)
    }

    #[test]
    fn plain_code_runs() {
        assert_eq!(run("return 1 + 2").unwrap(), Value::Integer(3));
    }

    #[test]
    fn unsafe_globals_are_gone() {
        // Left-out functions and libraries refuse by name; nothing of theirs can run.
        for name in REFUSED_FUNCTIONS {
            let e = run(&format!("return {name}('x')")).unwrap_err().to_string();
            assert!(e.contains(&format!("`{name}` is not available")), "{name}: {e}");
        }
        for name in REFUSED_LIBRARIES {
            let e = run(&format!("return {name}.anything")).unwrap_err().to_string();
            assert!(e.contains(&format!("`{name}.anything` is not available")), "{name}: {e}");
            assert!(run(&format!("{name}.x = 1")).is_err(), "{name} is read-only");
        }
        let listed: Vec<&str> = REFUSED_FUNCTIONS.iter().chain(REFUSED_LIBRARIES).copied().collect();
        for name in ["io", "os", "require", "load", "loadstring", "dofile", "debug", "getfenv", "setfenv"] {
            assert!(listed.contains(&name), "{name} is refused by name");
        }
        for name in ["gcinfo", "unknown_global"] {
            assert_eq!(run(&format!("return {name} == nil")).unwrap(), Value::Boolean(true), "{name}");
        }
        let e = run("return string.dump(function() end)").unwrap_err().to_string();
        assert!(e.contains("`string.dump` is not available"), "{e}");
    }

    #[test]
    fn errors_are_located() {
        let e = run("local x = 1\nerror('boom')").unwrap_err();
        assert_eq!(e.to_string(), "t.lua:2: boom");
        let e = run("local x = \n").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("t.lua", Some(2)), "{e}");
    }

    #[test]
    fn an_endless_loop_in_pcall_is_stopped() {
        let e = run("while true do pcall(function() while true do end end) end").unwrap_err();
        assert!(e.message.contains("budget"), "{e}");
        let e = run("pcall(function() while true do end end) return 1").unwrap_err();
        assert!(e.message.contains("budget"), "{e}");
    }

    #[test]
    fn memory_is_limited() {
        let e = run("local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 100) .. i end").unwrap_err();
        assert!(e.message.contains("memory") || e.message.contains("budget"), "{e}");
        let e = run("local s = string.rep('x', 1e9) return #s").unwrap_err();
        assert!(e.message.contains("memory") || e.message.contains("too large"), "{e}");
    }

    #[test]
    fn a_string_rep_bomb_cannot_be_caught() {
        let e = run(
            "local ok = pcall(string.rep, 'x', 1e9)\nlocal ok2 = pcall(function() return ('y'):rep(1e9) end)\nreturn 1",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        assert!(e.message.contains("string.rep would build 1000000000 bytes"), "{e}");
        assert_eq!(run("return #string.rep('ab', 3)").unwrap(), Value::Integer(6));
    }

    #[test]
    fn split_location_reads_lua_prefixes() {
        let e = split_location("mods/a.lua:12: attempt to index nil").unwrap();
        assert_eq!((e.file.as_str(), e.line, e.message.as_str()), ("mods/a.lua", Some(12), "attempt to index nil"));
        assert!(split_location("no location here").is_none());
    }

    #[test]
    fn shared_metatables_and_libraries_are_frozen() {
        for code in [
            "getmetatable('').__index = {}",
            "string.upper = nil",
            "rawset(string, 'x', 1)",
            "setmetatable(string, {})",
            "math.pi = 3",
        ] {
            assert!(run(code).is_err(), "{code} should fail");
        }
        assert_eq!(run("return getmetatable('')").unwrap(), Value::Boolean(false));
    }

    #[test]
    fn bytecode_is_refused() {
        let sandbox = Sandbox::new("test").unwrap();
        let bytecode = mlua::chunk::Compiler::new().compile("return 1").unwrap();
        let code = String::from_utf8_lossy(&bytecode).into_owned();
        assert!(sandbox.load("b.lua", &code).is_err());
    }

    #[test]
    fn a_slow_pattern_is_stopped_by_the_budget() {
        let e = run("local s = string.rep('a', 5000) return string.find(s, '.-.-.-.-.-.-b')").unwrap_err();
        assert!(e.message.contains("budget"), "{e}");
    }

    #[test]
    fn each_load_has_its_own_globals_and_exposed_values_are_read_only() {
        let sandbox = Sandbox::new("test").unwrap();
        let api = sandbox.lua().create_table().unwrap();
        api.set("answer", 42).unwrap();
        sandbox.expose("api", api).unwrap();
        sandbox.load("a.lua", "x = api.answer").unwrap();
        assert_eq!(sandbox.load("b.lua", "return x").unwrap().value, Value::Nil);
        let e = sandbox.load("c.lua", "api.answer = 1").unwrap_err();
        assert!(e.to_string().starts_with("c.lua:1:"), "{e}");
        assert!(sandbox.load("d.lua", "api = 1 return api").is_ok(), "a chunk may shadow a global locally");
    }

    #[test]
    fn raise_names_the_calling_line() {
        let sandbox = Sandbox::new("test").unwrap();
        let f =
            sandbox.lua().create_function(|lua, ()| -> mlua::Result<()> { Err(Sandbox::raise(lua, "no")) }).unwrap();
        sandbox.expose("fail", f).unwrap();
        let e = sandbox.load("r.lua", "local a = 1\n\nfail()").unwrap_err();
        assert_eq!(e.to_string(), "r.lua:3: no");
        let e = sandbox.load("r.lua", "local ok, e = pcall(fail) error(e, 0)").unwrap_err();
        assert_eq!(e.to_string(), "r.lua:1: no");
    }

    #[test]
    fn the_sandbox_is_usable_after_a_failure() {
        let sandbox =
            Sandbox::with_limits("test", Limits { steps: 10_000, memory: 4 << 20, ..Limits::default() }).unwrap();
        assert!(sandbox.load("a.lua", "while true do end").is_err());
        assert!(sandbox.load("a.lua", "local t = {} while true do t[#t + 1] = {} end").is_err());
        assert_eq!(sandbox.load("a.lua", "return 7").unwrap().value, Value::Integer(7));
    }

    #[test]
    fn work_inside_the_library_is_charged() {
        for code in [
            "table.move({}, 1, 2^40, 2)",
            "local s = string.rep('x', 1e6) for i = 1, 1e6 do string.find(s, 'y', 1, true) end",
            "local s = string.rep('x', 1e6) for i = 1, 1e6 do local t = s:sub(2) end",
            "local t = table.create(1e5, 0) for i = 1, 1e6 do table.insert(t, 1, i) table.remove(t, 1) end",
            "local t = table.create(1e5, 'x') for i = 1, 1e6 do local s = table.concat(t) end",
            "local t = table.create(1e5, 1) for i = 1, 1e6 do pcall(table.unpack, t) end",
        ] {
            let e = run(code).unwrap_err();
            assert!(e.message.contains("budget"), "{code}: {e}");
            assert_eq!(e.line, Some(1), "{code}: {e}");
        }
        let joined = run("return table.concat({'a', 'b'}, '-') .. ('abc'):sub(2) == 'a-bbc'").unwrap();
        assert_eq!(joined, Value::Boolean(true));
    }

    #[test]
    fn a_caught_error_costs_many_steps() {
        let e = run("for i = 1, 1e7 do pcall(error, 'x') end").unwrap_err();
        assert!(e.message.contains("budget"), "{e}");
    }

    #[test]
    fn pcall_cannot_catch_the_memory_limit() {
        let sandbox =
            Sandbox::with_limits("test", Limits { steps: 1 << 40, memory: 8 << 20, ..Limits::default() }).unwrap();
        let run = |code: &str| sandbox.load("t.lua", code).map(|l| l.value);
        let e =
            run("local ok = pcall(function() local t = {} for i = 1, 1e8 do t[i] = i end end)\nreturn 1").unwrap_err();
        assert!(e.message.contains("memory"), "{e}");
        let e = run("local ok = pcall(table.create, 1e7, 0)\nreturn 1").unwrap_err();
        assert!(e.message.contains("memory"), "{e}");
        assert_eq!(e.line, Some(1), "{e}");
        assert_eq!(run("return select(2, pcall(error, {code = 7})).code").unwrap(), Value::Integer(7));
    }

    #[test]
    fn a_location_in_the_message_is_not_believed() {
        let e = run("local x = 1\nerror('mod other.lua:1: it was them', 0)").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("t.lua", Some(2)), "{e}");
        assert_eq!(e.message, "mod other.lua:1: it was them");
        let e = run("error('x\\nstack traceback:\\n\\tother.lua:1: in function f', 0)").unwrap_err();
        assert_eq!(e.file, "t.lua", "{e}");
    }

    #[test]
    fn error_values_that_are_not_strings_are_described() {
        let e = run("\nerror({})").unwrap_err();
        assert_eq!(e.to_string(), "t.lua:2: error value: a table");
        let e = run("error(nil)").unwrap_err();
        assert_eq!(e.to_string(), "t.lua:1: error value: nil");
    }

    #[test]
    fn long_messages_are_cut() {
        let e = run("error(string.rep('x', 1e6))").unwrap_err();
        assert!(e.message.chars().count() <= MAX_MESSAGE + 1, "{}", e.message.len());
    }

    /// Issue 35: keys known by their address came in address order, and `tostring` wrote
    /// the address, so the same seed gave different games.
    #[test]
    fn pairs_refuses_keys_ordered_by_address_and_tostring_writes_no_address() {
        for code in [
            "local t = { [{}] = 1 }\nfor k in pairs(t) do end",
            "local t = { [function() end] = 1 }\nlocal k = next(t)",
            "local t = { [{}] = 1 }\nlocal ok = pcall(function() for k in pairs(t) do end end) return ok",
        ] {
            let e = run(code).unwrap_err();
            assert_eq!(e.line, Some(2), "{code}: {e}");
            assert!(e.message.starts_with("pairs or next reached a key that is a "), "{code}: {e}");
        }
        let sum = run("local n = 0 for k, v in pairs({ a = 1, b = 2, 3 }) do n += v end return n").unwrap();
        assert_eq!(sum, Value::Integer(6));
        let same = "local a, b = {}, {}\nlocal s = tostring(a) .. ' ' .. tostring(b) .. ' ' .. string.format('%s', a)\n\
                    return s == 'table #1 table #2 table #1'";
        assert_eq!(run(same).unwrap(), Value::Boolean(true));
        let own = "return tostring(setmetatable({}, { __tostring = function() return 'mine' end })) == 'mine'";
        assert_eq!(run(own).unwrap(), Value::Boolean(true));
    }

    /// What a server that stops does to a room's running Lua.
    #[test]
    fn a_stop_flag_stops_a_call_and_every_call_after_it() {
        let flag = Arc::new(AtomicBool::new(true));
        let _stop = stop_when(flag.clone(), "the host is stopping");
        let e = run("local n = 0\nwhile true do n += 1 end").unwrap_err();
        assert_eq!(e.message, "the host is stopping", "{e}");
        flag.store(false, Ordering::SeqCst);
        assert_eq!(run("return 1").unwrap(), Value::Integer(1));
    }

    /// Issue 35: the limit counted uncollected garbage, so a mod holding half of it at a
    /// time was refused; and one `..` past the limit was placed at the function's first line.
    #[test]
    fn garbage_is_collected_before_the_memory_limit_refuses() {
        let sandbox = Sandbox::new("test").unwrap();
        let churn = "local window, chunk = {}, string.rep('y', 1024 * 1024)\n\
                     for i = 1, 100 do window[i % 16] = chunk .. i end\n\
                     return #window";
        assert_eq!(sandbox.load("churn.lua", churn).unwrap().value, Value::Integer(15));
        let hold = "local kept, chunk = {}, string.rep('y', 1024 * 1024)\n\
                    for i = 1, 100 do kept[i] = chunk .. i end\n\
                    return #kept";
        let e = sandbox.load("hold.lua", hold).unwrap_err();
        assert_eq!(e.to_string(), "hold.lua:2: used more than the memory limit of 32768 KiB");
        let jump = "local big = string.rep('x', 7 * 1024 * 1024)\nlocal n = #big\n\
                    local huge = big .. big .. big .. big .. big\nreturn #huge";
        let e = sandbox.load("jump.lua", jump).unwrap_err();
        assert_eq!(e.to_string(), "jump.lua:3: used more than the memory limit of 32768 KiB");
        let f: Function = sandbox
            .load("f.lua", "local big = string.rep('x', 7 * 1024 * 1024)\nreturn function()\n  local n = 1\n  return big .. big .. big .. big .. big\nend")
            .unwrap()
            .value
            .as_function()
            .cloned()
            .unwrap();
        let e = sandbox.call::<Value>(&f, ()).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("f.lua", Some(4)), "{e}");
        assert_eq!(sandbox.load("after.lua", "return 7").unwrap().value, Value::Integer(7));
    }

    #[test]
    fn memory_is_charged_to_the_sandbox_that_holds_it() {
        let group = MemoryGroup::new(12 << 20);
        let limits = Limits { steps: 10_000_000, memory: 8 << 20, ..Limits::default() };
        let hoarder = Sandbox::in_group("hoard.lua", limits, Some(&group)).unwrap();
        let innocent = Sandbox::in_group("innocent.lua", limits, Some(&group)).unwrap();
        hoarder.load("hoard.lua", "keep = {} for i = 1, 6 do keep[i] = string.rep(tostring(i), 1e6) end").unwrap();
        innocent.load("innocent.lua", "local t = {} for i = 1, 1e4 do t[i] = i end").unwrap();
        let e = innocent.load("innocent.lua", "local t = {} for i = 1, 1e6 do t[i] = {} end").unwrap_err();
        assert!(e.message.contains("most of all the mods"), "{e}");
        assert_eq!(e.file, "hoard.lua", "{e}");
    }
}
