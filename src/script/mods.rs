//! Mods: Lua files that change the game by registering entries in the core's
//! [`Registry`] through the `diving` table (the API reference is `rulesets/MODDING.md`).
//!
//! [`load_mods`] builds one [`Sandbox`] per mod file (so the memory a mod holds is charged to
//! it, and the mods share a [`MemoryGroup`] total), sets up the Lua API in each
//! (`script::api`), loads the files in order and hands back the registry they registered
//! into: a Lua effect entry for `diving.effect` / `diving.wrap`, a hook closure for the
//! others. Each entry keeps the previous entry it replaced (Rust side), and hands it to the Lua
//! handler as a `previous` function, so mods chain. Handlers run through
//! `script::open`, which opens the game to them for the duration of the call.
//!
//! Architecture invariant: the Lua state never holds a strong reference to anything that owns
//! it (previous entries are reached through `Weak`), so dropping the registry frees the state.

use std::sync::{Arc, Mutex};

use mlua::Lua;

use crate::core::{Registry, Rules};

use super::api;
use super::sandbox::{Limits, MemoryGroup, Sandbox, ScriptError};

/// Bytes all the mods of a game may hold together (each has its own Lua state, with the
/// memory limit of [`Limits::default`]).
pub const TOTAL_MEMORY: usize = 64 << 20;

/// One mod file: the name errors use and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModSource {
    /// How errors name the file (`rulesets/mods/shark.lua`).
    pub name: String,
    pub code: Arc<str>,
}

/// A mod that could not be loaded or registered: `mod <file>:<line>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("mod {0}")]
pub struct ModError(pub ScriptError);

/// Builds the registry for `rules` with `mods` loaded in order. With no mods, this is the
/// native standard registry (no Lua at all).
pub fn load_mods(rules: &Rules, mods: &[ModSource]) -> Result<Registry, ModError> {
    if mods.is_empty() {
        return Ok(Registry::standard());
    }
    let building = Building(Arc::new(Mutex::new(Some(Registry::standard()))));
    let group = MemoryGroup::new(TOTAL_MEMORY);
    for source in mods {
        let sandbox = Sandbox::in_group(&source.name, Limits::default(), Some(&group)).map_err(ModError)?;
        let shared = api::install(sandbox, rules, &building).map_err(ModError)?;
        shared.sandbox.load(&source.name, &source.code).map_err(ModError)?;
    }
    let registry = building.0.lock().expect("registry lock").take().expect("registry present until here");
    Ok(registry)
}

/// The registry the mod files register into while they load (taken when they are loaded).
#[derive(Clone)]
pub(crate) struct Building(Arc<Mutex<Option<Registry>>>);

impl Building {
    /// Runs `f` on the registry being built, for `diving.<what>`, or fails when the mod files
    /// have finished loading.
    pub(crate) fn change(
        &self,
        lua: &Lua,
        what: &str,
        f: impl FnOnce(&mut Registry) -> mlua::Result<()>,
    ) -> mlua::Result<()> {
        let mut guard = self.0.lock().expect("registry lock");
        match guard.as_mut() {
            Some(registry) => f(registry),
            None => Err(Sandbox::raise(lua, format!("diving.{what} can only be called while the mod file loads"))),
        }
    }
}
