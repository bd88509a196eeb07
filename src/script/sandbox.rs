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
//! - **A step budget per call** that `pcall` cannot swallow: [`Sandbox::call`] counts the VM's
//!   interrupts (every loop iteration, function call and pattern-matching step). Once the
//!   budget is spent, *every* further interrupt raises an error until the outermost call
//!   returns, and that call then fails with the budget error even if the script caught the
//!   error and returned normally.
//! - **A memory limit** for the whole state: an allocation past it fails, and a call that ends
//!   up near the limit fails the same sticky way as the step budget, as does a `string.rep`
//!   asking for more than a quarter of the limit in one go. The garbage of a failed call is
//!   collected before the next one.
//!
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

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use mlua::chunk::ChunkMode;
use mlua::{FromLuaMulti, Function, IntoLuaMulti, Lua, LuaOptions, StdLib, Table, Value, VmState};

/// How much a sandboxed call may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// VM interrupts (loop iterations, calls, pattern-matching steps) per outermost
    /// [`Sandbox::call`], nested calls included.
    pub steps: u64,
    /// Bytes the whole Lua state may hold.
    pub memory: usize,
}

impl Default for Limits {
    /// One million steps (a few milliseconds of honest work, far more than any handler
    /// needs) and 32 MiB.
    fn default() -> Limits {
        Limits { steps: 1_000_000, memory: 32 << 20 }
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

/// A failure that already carries its own complete message (for example an error from a
/// nested handler); it travels through Lua unchanged and is not located again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Passthrough(pub String);

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

/// The shared counters the interrupt reads.
#[derive(Default)]
struct Meter {
    /// Nesting of budgeted calls; the budget only runs while this is above 0.
    depth: AtomicU32,
    steps: AtomicU64,
    limit: AtomicU64,
    memory: AtomicU64,
    /// Set once the budget or the memory is exhausted; stays set until the outermost call ends.
    tripped: AtomicBool,
    /// Where and why it tripped.
    reason: Mutex<Option<Trip>>,
}

/// A sandboxed Luau state. See the module documentation for the guarantees.
pub struct Sandbox {
    lua: Lua,
    name: String,
    limits: Limits,
    meter: Arc<Meter>,
    /// Between each loaded chunk's environment and the safe globals: what [`Sandbox::expose`] added.
    exposed: Table,
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

impl Sandbox {
    /// A fresh sandbox with the default [`Limits`]. `name` is used in errors that belong to no
    /// loaded file.
    pub fn new(name: &str) -> Result<Sandbox, ScriptError> {
        Sandbox::with_limits(name, Limits::default())
    }

    /// A fresh sandbox with these limits.
    pub fn with_limits(name: &str, limits: Limits) -> Result<Sandbox, ScriptError> {
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
        let meter = Arc::new(Meter::default());
        meter.limit.store(limits.steps, Ordering::Relaxed);
        meter.memory.store(limits.memory as u64, Ordering::Relaxed);
        // `string.rep` can ask for gigabytes in one call, which the memory limit refuses
        // but `pcall` could catch: refuse it up front, in a way `pcall` cannot swallow.
        let string: Table = globals.get("string").map_err(fail)?;
        let rep: Function = string.get("rep").map_err(fail)?;
        let (m, cap) = (meter.clone(), limits.memory / 4);
        let guarded = lua
            .create_function(move |lua, (s, n, sep): (mlua::LuaString, i64, Option<mlua::LuaString>)| {
                let (len, sep_len) =
                    (s.as_bytes().len() as u128, sep.as_ref().map_or(0, |p| p.as_bytes().len()) as u128);
                let n128 = n.max(0) as u128;
                let total = len * n128 + sep_len * n128.saturating_sub(1);
                if total > cap as u128 {
                    return Err(trip(
                        lua,
                        &m,
                        format!("string.rep would build {total} bytes, more than the memory limit allows"),
                    ));
                }
                rep.call::<mlua::LuaString>((s, n, sep))
            })
            .map_err(fail)?;
        string.raw_set("rep", guarded).map_err(fail)?;
        // `string.dump` would turn functions into bytecode: refuse it by name.
        string.raw_set("dump", refusal(&lua, "string.dump").map_err(fail)?).map_err(fail)?;
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
        let m = meter.clone();
        lua.set_interrupt(move |lua| interrupt(lua, &m));
        Ok(Sandbox { lua, name: name.to_string(), limits, meter, exposed })
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
        let setup = |e: mlua::Error| ScriptError::new(file_name, None, flatten(&e).1);
        let env = self.lua.create_table().map_err(setup)?;
        let meta = self.lua.create_table().map_err(setup)?;
        meta.raw_set("__index", self.exposed.clone()).map_err(setup)?;
        meta.raw_set("__metatable", false).map_err(setup)?;
        meta.set_readonly(true);
        env.set_metatable(Some(meta)).map_err(setup)?;
        let function = self
            .lua
            .load(code)
            .set_name(format!("={file_name}"))
            .set_mode(ChunkMode::Text)
            .set_environment(env.clone())
            .into_function()
            .map_err(|e| locate(&e, file_name, None))?;
        let value: Value = self.call_in(&function, (), file_name)?;
        Ok(Loaded { value, env })
    }

    /// Calls `function` within the budget and converts its result. Calls made while another
    /// budgeted call is running (a script calling Rust calling a script) share the outer
    /// call's budget. Errors are located at the line that failed, or else at the function's
    /// definition.
    pub fn call<R: FromLuaMulti>(&self, function: &Function, args: impl IntoLuaMulti) -> Result<R, ScriptError> {
        self.call_in(function, args, &self.name)
    }

    fn call_in<R: FromLuaMulti>(
        &self,
        function: &Function,
        args: impl IntoLuaMulti,
        file: &str,
    ) -> Result<R, ScriptError> {
        let meter = &self.meter;
        let outer = meter.depth.fetch_add(1, Ordering::Relaxed) == 0;
        if outer {
            meter.steps.store(0, Ordering::Relaxed);
            meter.tripped.store(false, Ordering::Relaxed);
            if self.lua.used_memory() as u64 > meter.memory.load(Ordering::Relaxed) / 2 {
                let _ = self.lua.gc_collect();
            }
        }
        let result = function.call::<R>(args);
        meter.depth.fetch_sub(1, Ordering::Relaxed);
        let tripped = outer && meter.tripped.load(Ordering::Relaxed);
        if tripped {
            meter.tripped.store(false, Ordering::Relaxed);
            let (tfile, tline, why) = meter.reason.lock().expect("meter lock").take().unwrap_or_default();
            let _ = self.lua.gc_collect();
            let (dfile, dline) = definition(function);
            let file = tfile.or(dfile).unwrap_or_else(|| file.to_string());
            return Err(ScriptError::new(file, tline.or(dline), why));
        }
        match result {
            Ok(r) => Ok(r),
            Err(e) => {
                if matches!(e, mlua::Error::MemoryError(_)) && outer {
                    let _ = self.lua.gc_collect();
                }
                let (dfile, dline) = definition(function);
                Err(locate(&e, dfile.as_deref().unwrap_or(file), dline))
            }
        }
    }

    /// An error for a Rust function called by the script: `message`, located at the script
    /// line that made the call. Return it as the function's `Err`.
    pub fn raise(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
        match caller(lua, 1) {
            (Some(file), Some(line)) => mlua::Error::external(Passthrough(format!("{file}:{line}: {message}"))),
            (Some(file), None) => mlua::Error::external(Passthrough(format!("{file}: {message}"))),
            _ => mlua::Error::external(Passthrough(message.to_string())),
        }
    }

    /// Bytes the state holds now.
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }
}

/// The file and line of the Lua function `level` frames up from the running Rust function
/// (1 = the script function that called it).
fn caller(lua: &Lua, level: usize) -> (Option<String>, Option<u32>) {
    for level in level..level + 8 {
        let found = lua.inspect_stack(level, |d| {
            let source = d.source();
            if source.what == "C" {
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

fn interrupt(lua: &Lua, meter: &Meter) -> mlua::Result<VmState> {
    if meter.depth.load(Ordering::Relaxed) == 0 {
        return Ok(VmState::Continue);
    }
    if meter.tripped.load(Ordering::Relaxed) {
        return Err(mlua::Error::runtime("the script was stopped"));
    }
    let steps = meter.steps.fetch_add(1, Ordering::Relaxed) + 1;
    let limit = meter.limit.load(Ordering::Relaxed);
    let memory = meter.memory.load(Ordering::Relaxed);
    let why = if steps > limit {
        format!("used up its budget of {limit} steps (an endless loop?)")
    } else if lua.used_memory() as u64 >= memory - memory / 16 {
        format!("used more than the memory limit of {} KiB", memory / 1024)
    } else {
        return Ok(VmState::Continue);
    };
    Err(trip(lua, meter, why))
}

/// Stops the running call for good: every interrupt fails from now until the outermost
/// call returns, and that call reports `why` at the current line.
fn trip(lua: &Lua, meter: &Meter, why: String) -> mlua::Error {
    if meter.depth.load(Ordering::Relaxed) > 0 && !meter.tripped.swap(true, Ordering::Relaxed) {
        let (file, line) = caller(lua, 0);
        *meter.reason.lock().expect("meter lock") = Some((file, line, why.clone()));
    }
    mlua::Error::runtime(why)
}

/// The innermost message of an mlua error and whether it already carries a complete,
/// located message (a [`Passthrough`]).
pub(crate) fn flatten(e: &mlua::Error) -> (bool, String) {
    match e {
        mlua::Error::CallbackError { cause, .. } => flatten(cause),
        mlua::Error::WithContext { cause, .. } => flatten(cause),
        mlua::Error::ExternalError(inner) => match inner.downcast_ref::<Passthrough>() {
            Some(p) => (true, p.0.clone()),
            None => (false, inner.to_string()),
        },
        mlua::Error::RuntimeError(m) => (false, m.split("\nstack traceback:").next().unwrap_or(m).to_string()),
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

/// Turns an mlua error into a located [`ScriptError`]: Lua's own `file:line: message`
/// prefix is split off when present; otherwise `file`/`line` are used.
fn locate(e: &mlua::Error, file: &str, line: Option<u32>) -> ScriptError {
    let (_, message) = flatten(e);
    let mut e = split_location(&message).unwrap_or_else(|| match traceback_location(e) {
        Some((file, line)) => ScriptError::new(file, Some(line), message),
        None => ScriptError::new(file, line, message),
    });
    e.message = lower_first(&e.message);
    e
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

/// The innermost script line of the traceback Luau attached to a runtime error (for errors
/// raised by a library function, whose message carries no location).
fn traceback_location(e: &mlua::Error) -> Option<(String, u32)> {
    let text = match e {
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
            return traceback_location(cause);
        }
        mlua::Error::RuntimeError(m) => m,
        _ => return None,
    };
    let (_, trace) = text.split_once("\nstack traceback:")?;
    trace.lines().map(str::trim).filter(|l| !l.starts_with("[C]")).find_map(|l| {
        let e = split_location(l)?;
        Some((e.file, e.line?))
    })
}

/// Splits `file:line: message` (the last `:digits: ` found before the message).
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
        let sandbox = Sandbox::with_limits("test", Limits { steps: 100_000, memory: 8 << 20 }).unwrap();
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
        let sandbox = Sandbox::with_limits("test", Limits { steps: 10_000, memory: 4 << 20 }).unwrap();
        assert!(sandbox.load("a.lua", "while true do end").is_err());
        assert!(sandbox.load("a.lua", "local t = {} while true do t[#t + 1] = {} end").is_err());
        assert_eq!(sandbox.load("a.lua", "return 7").unwrap().value, Value::Integer(7));
    }
}
