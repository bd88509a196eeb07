//! The Lua API of mods, one module per area, each with one `register` function that adds
//! the area's functions to its table. The list of areas is here and nowhere else: [`CTX`],
//! [`MATH`] and [`DIVING`], set up in that order by [`install`].
//!
//! - `ctx`, the object every handler is called with: [`ctx_read`] (allowed everywhere),
//!   [`ctx_write`] (in `resolve` handlers and hooks), [`turns`] (the order of play),
//!   [`teams`] (teams and results) and [`piles`] (the discard pile and the deck);
//! - `math`: Luau's, with the game's seeded `random` ([`math`]);
//! - `diving`, the table a mod file registers with while it loads: [`manifest`] (what the
//!   mod says about itself), [`rules`] (`version`, `rules`), [`cards`] (`rank`, `suit`, `value`), [`effects`] (`effect`, `wrap`), [`actions`]
//!   (`action`) and [`hooks`] (`on_turn_start` … `win_check`).
//!
//! A name none of them holds is refused with the closest real one ([`unknown`]).
//!
//! Areas convert Lua values with [`super::convert`] and reach the game only through
//! [`super::open`].

mod actions;
mod cards;
mod ctx_read;
mod ctx_write;
pub mod doc;
mod effects;
mod hooks;
mod manifest;
mod math;
mod piles;
mod rules;
mod teams;
mod turns;
mod unknown;

pub use actions::RESERVED;

use std::sync::{Arc, OnceLock, Weak};

use mlua::{FromLuaMulti, Function, IntoLuaMulti, Lua, Table, Value};

use crate::core::{EffectError, ModId, Play, Rules};

use super::args::HandlerArgs;
use super::building::Building;
use super::names::CardNames;
use super::open::{Caller, CtxObject, Owner, Script};
use super::sandbox::{Sandbox, ScriptError, flatten};

/// What the areas of `ctx` and `math` build on.
pub(crate) struct CtxEnv {
    pub(crate) owner: Owner,
    pub(crate) names: Arc<CardNames>,
    /// The mod whose `ctx` this is (what it is told of hidden cards is its knowledge).
    pub(crate) id: ModId,
}

/// What the areas of `diving` build on.
pub(crate) struct DivingEnv<'a> {
    pub(crate) rules: &'a Rules,
    pub(crate) shared: &'a Arc<Shared>,
    pub(crate) building: &'a Building,
}

/// An area's `register`: adds its functions to the table, with what they build on.
type Area<E> = fn(&Lua, &Table, &E) -> mlua::Result<()>;
type CtxArea = Area<CtxEnv>;
type DivingArea = fn(&Lua, &Table, &DivingEnv<'_>) -> mlua::Result<()>;

/// The areas of `ctx`.
const CTX: &[CtxArea] = &[ctx_read::register, ctx_write::register, turns::register, teams::register, piles::register];
/// The areas of `math`.
const MATH: &[CtxArea] = &[math::register];
/// The areas of `diving`.
const DIVING: &[DivingArea] =
    &[manifest::register, rules::register, cards::register, effects::register, actions::register, hooks::register];

/// What every handler of one Lua state shares.
pub(crate) struct Shared {
    pub(crate) sandbox: Sandbox,
    pub(crate) owner: Owner,
    pub(crate) names: Arc<CardNames>,
    pub(crate) args: Arc<HandlerArgs>,
    /// What the mods of this registry share while they run.
    pub(crate) script: Arc<Script>,
    /// The mod file's globals, once it has loaded.
    pub(crate) env: OnceLock<Table>,
    /// The mod, by its place in the load order.
    pub(crate) id: ModId,
}

impl Shared {
    /// Calls handler `f` in the sandbox; its error is located (`mod <file>:<line>: …`).
    pub(crate) fn call<R: FromLuaMulti>(&self, f: &Function, args: impl IntoLuaMulti) -> Result<R, EffectError> {
        if let Some(why) = self.script.broken() {
            // Why a copy of the game could not be made names what a mod holds (which global,
            // how many MiB): its choice, which can follow a card it knows. The file is
            // everyone's; the rest only the host's log, `check` and `sim` read (the audit of
            // issue 43).
            let (place, rest) = why.split_once(": ").unwrap_or((&why, ""));
            return Err(EffectError::located(place, None, rest, crate::core::Secret::deck()));
        }
        self.sandbox.call(f, args).map_err(|e| self.failure(e))
    }

    /// A failure of this mod's handler: its file is public; its line and message may tell of
    /// what the mod knows now (a mod's `error("…")` is its words, and the line it fails at
    /// its choice, [`EffectError::located`]).
    pub(crate) fn failure(&self, e: ScriptError) -> EffectError {
        EffectError::located(&format!("mod {}", e.file), e.line, &e.message, super::open::secret_now(self.id))
    }

    /// Calls a `targets` or `playable` function like [`Shared::call`], with the mod's globals
    /// read-only: listing the moves must not change what the mod keeps, or a game would go
    /// differently depending on how often its moves were listed (a `moves` command, a bot).
    pub(crate) fn call_reading<R: FromLuaMulti>(
        &self,
        f: &Function,
        args: impl IntoLuaMulti,
    ) -> Result<R, EffectError> {
        let Some(env) = self.env.get() else {
            return self.call(f, args);
        };
        let was = env.is_readonly();
        env.set_readonly(true);
        let result = self.call(f, args);
        env.set_readonly(was);
        result.map_err(|e| {
            if crate::core::Viewer::Everyone.failure(&e).ends_with("attempt to modify a readonly table") {
                e.noted(
                    " (targets and playable functions only read: they cannot change the mod's globals, see \"What \
                     a mod may keep\" in MODDING.md)",
                )
            } else {
                e
            }
        })
    }

    pub(crate) fn lua(&self) -> &Lua {
        self.sandbox.lua()
    }

    /// A failure of the API's own work for this mod (making a handler's arguments), in its
    /// file's name.
    pub(crate) fn lua_error(&self, e: mlua::Error) -> EffectError {
        EffectError::new(format!("mod {}: {}", self.sandbox.name(), flatten(&e).1))
    }

    /// A new ctx object, for one call of a hook or of a targets or playable function.
    pub(crate) fn ctx(&self) -> Result<CtxObject, EffectError> {
        let table = self.args.ctx().map_err(|e| self.lua_error(e))?;
        Ok(CtxObject { owner: self.owner, table, script: Arc::clone(&self.script) })
    }

    /// A new ctx object and `play` table, for one call of a resolve handler.
    pub(crate) fn play(&self, play: &Play) -> Result<(CtxObject, Table), EffectError> {
        let (table, play) = self.args.play(play).map_err(|e| self.lua_error(e))?;
        Ok((CtxObject { owner: self.owner, table, script: Arc::clone(&self.script) }, play))
    }
}

/// Sets up the whole API in `sandbox` for mods of a game with `rules`, registering into
/// `building`: `ctx`, then the globals `math` and `diving`. `script` is what the mods of the
/// registry share.
pub(crate) fn install(
    sandbox: Sandbox,
    rules: &Rules,
    building: &Building,
    script: &Arc<Script>,
    id: ModId,
) -> Result<Arc<Shared>, ScriptError> {
    let setup = |e: mlua::Error| ScriptError::new("mods", None, flatten(&e).1);
    let lua = sandbox.lua().clone();
    let (owner, names) = (Owner::new(), Arc::new(CardNames::new(&lua).map_err(setup)?));
    let env = CtxEnv { owner, names: Arc::clone(&names), id };
    let ctx = fill(&lua, CTX, &env).map_err(setup)?;
    // Every handler's ctx is a `table.clone` of this table, metatable included.
    unknown::refuse_unknown(&lua, &ctx, "ctx:", false).map_err(setup)?;
    ctx.set_readonly(true);
    let math = fill(&lua, MATH, &env).map_err(setup)?;
    let args = Arc::new(HandlerArgs::new(&lua, &names, &ctx).map_err(setup)?);
    let shared = Arc::new(Shared { sandbox, owner, names, args, script: Arc::clone(script), env: OnceLock::new(), id });
    let env = DivingEnv { rules, shared: &shared, building };
    let diving = fill(&lua, DIVING, &env).map_err(setup)?;
    unknown::refuse_unknown(&lua, &diving, "diving.", true).map_err(setup)?;
    shared.sandbox.expose("diving", diving)?;
    shared.sandbox.freeze(&math)?;
    shared.sandbox.expose("math", math)?;
    shared.sandbox.expose("ctx", stray_ctx(&lua).map_err(setup)?)?;
    Ok(shared)
}

/// The global `ctx`: what a file that uses `ctx` outside a handler (at its top level, where
/// there is no game yet) finds. Every name it is asked for is an error that says so, at the
/// calling line, where there would be "attempt to index nil with 'depth'". A handler's own
/// `ctx` parameter hides it.
fn stray_ctx(lua: &Lua) -> mlua::Result<Table> {
    let stray = lua.create_table()?;
    let meta = lua.create_table()?;
    let refuse = lua.create_function(|lua, _: mlua::MultiValue| -> mlua::Result<()> {
        Err(Sandbox::raise(
            lua,
            "ctx can only be used while a handler runs: call ctx functions inside the functions you register \
             with diving.effect, diving.wrap or a hook (they are given ctx), not at the top level of the mod file",
        ))
    })?;
    meta.raw_set("__index", refuse.clone())?;
    meta.raw_set("__newindex", refuse)?;
    meta.raw_set("__metatable", false)?;
    meta.set_readonly(true);
    stray.set_metatable(Some(meta))?;
    Ok(stray)
}

/// The names the sandbox registers, as a mod sees them: `diving.NAME` (functions and
/// values) and `ctx:NAME`, each sorted. Read from the tables `install`'s areas fill, so the
/// editor's definition file ([`definitions`]) cannot miss one unnoticed.
pub fn registered() -> Result<Vec<String>, ScriptError> {
    let setup = |e: mlua::Error| ScriptError::new("mods", None, flatten(&e).1);
    let sandbox = Sandbox::in_group("api", super::sandbox::Limits::default(), None)?;
    let lua = sandbox.lua().clone();
    let (owner, names) = (Owner::new(), Arc::new(CardNames::new(&lua).map_err(setup)?));
    let env = CtxEnv { owner, names: Arc::clone(&names), id: ModId(0) };
    let ctx = fill(&lua, CTX, &env).map_err(setup)?;
    let args = Arc::new(HandlerArgs::new(&lua, &names, &ctx).map_err(setup)?);
    let script = Arc::new(Script::default());
    let shared = Arc::new(Shared { sandbox, owner, names, args, script, env: OnceLock::new(), id: ModId(0) });
    let building = Building::new(true);
    let env = DivingEnv { rules: &Rules::default(), shared: &shared, building: &building };
    let diving = fill(&lua, DIVING, &env).map_err(setup)?;
    let keys = |table: &Table, prefix: &str| -> mlua::Result<Vec<String>> {
        let mut keys = Vec::new();
        for pair in table.pairs::<Value, Value>() {
            if let (Value::String(key), _) = pair? {
                keys.push(format!("{prefix}{}", key.to_string_lossy()));
            }
        }
        keys.sort();
        Ok(keys)
    };
    let mut all = keys(&diving, "diving.").map_err(setup)?;
    all.extend(keys(&ctx, "ctx:").map_err(setup)?);
    Ok(all)
}

/// The editor's definition file: LuaCATS annotations (`---@meta`) of every name the
/// sandbox registers ([`registered`]) that `doc::DOCS` documents, for an editor with the
/// Lua language server to complete and check a mod. Names without a doc are left out.
pub fn definitions() -> Result<String, ScriptError> {
    use std::fmt::Write;
    let names = registered()?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "---@meta diving\n-- The Diving Suits mod API {}, for editors (LuaCATS annotations, as the Lua language server reads them).\n-- Written by `diving mod api`: do not edit; MODDING.md is the guide.\n",
        super::API_VERSION
    );
    out.push_str(doc::TYPES);
    out.push_str("\n---@class diving.Ctx\nlocal ctx = {}\n\n---@class diving.Diving\ndiving = {}\n\n");
    for name in &names {
        let Some(entry) = doc::DOCS.iter().find(|d| d.name == name) else { continue };
        let _ = writeln!(out, "--- {}", entry.doc);
        match name.split_once(':') {
            Some((_, method)) => {
                let params = split_top(entry.params);
                for p in &params {
                    let _ = writeln!(out, "---@param {p}");
                }
                for r in split_top(entry.returns) {
                    let _ = writeln!(out, "---@return {r}");
                }
                let args: Vec<&str> = params.iter().map(|p| p.split(' ').next().unwrap_or(p)).collect();
                let _ = writeln!(out, "function ctx:{method}({}) end\n", args.join(", "));
            }
            None if entry.params.is_empty() && entry.returns.is_empty() => {
                let kind = match name.as_str() {
                    "diving.rules" => "diving.Rules",
                    _ => "integer",
                };
                let _ = writeln!(out, "---@type {kind}\n{name} = nil\n");
            }
            None => {
                let params = split_top(entry.params);
                for p in &params {
                    // `fn fun(…)`: the name, then the type (which may hold ", ").
                    let _ = writeln!(out, "---@param {p}");
                }
                for r in split_top(entry.returns) {
                    let _ = writeln!(out, "---@return {r}");
                }
                let args: Vec<&str> = params.iter().map(|p| p.split(' ').next().unwrap_or(p)).collect();
                let _ = writeln!(out, "function {name}({}) end\n", args.join(", "));
            }
        }
    }
    Ok(out)
}

/// `text` split at its commas outside brackets (a `fun(a: x, b: y)` type stays whole),
/// without empty parts.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '<' | '{' => depth += 1,
            ')' | '>' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// A new table with the functions of `areas`.
fn fill<E>(lua: &Lua, areas: &[Area<E>], env: &E) -> mlua::Result<Table> {
    let table = lua.create_table()?;
    for register in areas {
        register(lua, &table, env)?;
    }
    Ok(table)
}

/// The shared state of a `diving` function, gone once the registry it built is dropped.
fn upgrade(lua: &Lua, shared: &Weak<Shared>) -> mlua::Result<Arc<Shared>> {
    shared.upgrade().ok_or_else(|| Sandbox::raise(lua, "the mods are unloaded"))
}

/// The caller of ctx function `name` of `owner`, called on `this`; an error when it was not
/// called with a colon (`ctx:depth(1)`, not `ctx.depth(1)`).
fn caller<'a>(lua: &Lua, owner: Owner, this: &'a Value, name: &str) -> mlua::Result<Caller<'a>> {
    match this {
        Value::Table(t) => Ok(Caller { owner, ctx: Some(t) }),
        _ => Err(Sandbox::raise(lua, format!("call ctx functions with a colon: ctx:{name}(…)"))),
    }
}

/// The ctx functions and the arguments made from them in a bare sandbox, for tests of the slot.
#[cfg(test)]
pub(crate) fn ctx_for_tests(lua: &Lua) -> mlua::Result<(Owner, HandlerArgs)> {
    let (owner, names) = (Owner::new(), CardNames::new(lua)?);
    let functions = fill(lua, CTX, &CtxEnv { owner, names: Arc::new(CardNames::new(lua)?), id: ModId(0) })?;
    Ok((owner, HandlerArgs::new(lua, &names, &functions)?))
}
