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
//! [`read_manifest`] runs a mod file only as far as its `diving.manifest{ … }` (or its first
//! registration, for a mod without one), registering nothing, so that a ruleset can resolve
//! its set of mods before loading them.
//!
//! Architecture invariant: the Lua state never holds a strong reference to anything that owns
//! it (previous entries are reached through `Weak`), so dropping the registry frees the state.

use std::sync::{Arc, Mutex};

use mlua::Lua;

use crate::core::{Registry, Rules};

use super::api;
use super::manifest::Manifest;
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
    let building = Building::new(false);
    let group = MemoryGroup::new(TOTAL_MEMORY);
    for source in mods {
        let sandbox = Sandbox::in_group(&source.name, Limits::default(), Some(&group)).map_err(ModError)?;
        let shared = api::install(sandbox, rules, &building).map_err(ModError)?;
        building.next_file();
        shared.sandbox.load(&source.name, &source.code).map_err(ModError)?;
    }
    let registry = building.registry.lock().expect("registry lock").take().expect("registry present until here");
    Ok(registry)
}

/// The manifest of `source`: what its `diving.manifest{ … }` says, or
/// [`Manifest::default_for`] its file when it declares none. The file runs only until it
/// declares its manifest or registers its first entry (nothing is registered), in a sandbox of
/// its own; an error before that (a syntax error, a bad manifest, a mod needing a newer API)
/// is the mod's load error.
pub fn read_manifest(rules: &Rules, source: &ModSource) -> Result<Manifest, ModError> {
    let building = Building::new(true);
    let sandbox = Sandbox::in_group(&source.name, Limits::default(), None).map_err(ModError)?;
    let shared = api::install(sandbox, rules, &building).map_err(ModError)?;
    let loaded = shared.sandbox.load(&source.name, &source.code);
    let head = building.head.lock().expect("manifest lock");
    match (loaded, head.stopped) {
        (Err(e), false) => Err(ModError(e)),
        _ => Ok(head.manifest.clone().unwrap_or_else(|| Manifest::default_for(&source.name))),
    }
}

/// The registry the mod files register into while they load (taken when they are loaded),
/// and what the file being loaded has declared so far.
#[derive(Clone)]
pub(crate) struct Building {
    registry: Arc<Mutex<Option<Registry>>>,
    head: Arc<Mutex<Head>>,
}

/// What a mod file has done so far at its top level.
#[derive(Default)]
struct Head {
    /// Reading the manifest only: the first declaration or registration stops the file.
    manifest_only: bool,
    /// Set once the file was stopped that way.
    stopped: bool,
    manifest: Option<Manifest>,
    /// The first `diving.<what>` registration of the file.
    first_registration: Option<String>,
}

impl Building {
    fn new(manifest_only: bool) -> Building {
        Building {
            registry: Arc::new(Mutex::new(Some(Registry::standard()))),
            head: Arc::new(Mutex::new(Head { manifest_only, ..Head::default() })),
        }
    }

    /// Starts on the next file: it has declared and registered nothing yet.
    fn next_file(&self) {
        let mut head = self.head.lock().expect("manifest lock");
        *head = Head { manifest_only: head.manifest_only, ..Head::default() };
    }

    /// Stops a file whose manifest has been read (only when reading manifests).
    fn stop(head: &mut Head, lua: &Lua) -> mlua::Error {
        head.stopped = true;
        Sandbox::raise(lua, "the file was read up to its manifest")
    }

    /// Records the file's `diving.manifest`: once, before any registration.
    pub(crate) fn declare(&self, lua: &Lua, manifest: Manifest) -> mlua::Result<()> {
        if self.registry.lock().expect("registry lock").is_none() {
            return Err(Sandbox::raise(lua, "diving.manifest can only be called while the mod file loads"));
        }
        let mut head = self.head.lock().expect("manifest lock");
        if let Some(first) = &head.first_registration {
            return Err(Sandbox::raise(
                lua,
                format!("diving.manifest must come first in the file, before diving.{first}"),
            ));
        }
        if head.manifest.is_some() {
            return Err(Sandbox::raise(lua, "diving.manifest is called twice (a file declares one manifest)"));
        }
        head.manifest = Some(manifest);
        if head.manifest_only {
            return Err(Building::stop(&mut head, lua));
        }
        Ok(())
    }

    /// Runs `f` on the registry being built, for `diving.<what>`, or fails when the mod files
    /// have finished loading.
    pub(crate) fn change(
        &self,
        lua: &Lua,
        what: &str,
        f: impl FnOnce(&mut Registry) -> mlua::Result<()>,
    ) -> mlua::Result<()> {
        {
            let mut head = self.head.lock().expect("manifest lock");
            if head.manifest_only {
                return Err(Building::stop(&mut head, lua));
            }
            head.first_registration.get_or_insert_with(|| what.to_string());
        }
        let mut guard = self.registry.lock().expect("registry lock");
        match guard.as_mut() {
            Some(registry) => f(registry),
            None => Err(Sandbox::raise(lua, format!("diving.{what} can only be called while the mod file loads"))),
        }
    }
}
