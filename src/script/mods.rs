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
//! The registry also gets a [`Copier`]: a copy of a game (a bot's look-ahead, a preview)
//! runs with the same mods loaded into Lua states of its own, with the globals of this
//! registry's mods copied in, so what the copy plays never reaches this game's Lua states
//! (`rulesets/MODDING.md`, *What a mod may keep*). The same copy, taken before a scripted
//! action, is how a failed one goes back: its globals are copied back into the game's own
//! Lua states, whose top-level locals stay as they were.
//!
//! Architecture invariant: the Lua state never holds a strong reference to anything that owns
//! it (previous entries are reached through `Weak`), so dropping the registry frees the state.

use std::sync::{Arc, Mutex};

use mlua::Table;

use crate::core::{Aim, Card, Copier, Ctx, Effect, EffectError, ModId, Play, Rank, Registry, Rules, Seat, State};

use super::api::{self, Shared};
use super::building::{Building, Owned};
use super::copy;
use super::decision;
use super::manifest::Manifest;
use super::open::Script;
use super::sandbox::{self, Limits, MemoryGroup, Sandbox, ScriptError, flatten};

/// Bytes all the mods of a game may hold together (each has its own Lua state, with the
/// memory limit of [`Limits::default`]).
pub const TOTAL_MEMORY: usize = decision::MEMORY as usize;

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
/// native standard registry (no Lua at all). A copy of a game running with it gets its own
/// Lua states, with a copy of the mods' globals.
pub fn load_mods(rules: &Rules, mods: &[ModSource]) -> Result<Registry, ModError> {
    Ok(load_watched(rules, mods)?.0)
}

/// [`load_mods`], and a [`CopyWatch`] over the copies of games the registry makes.
pub fn load_watched(rules: &Rules, mods: &[ModSource]) -> Result<(Registry, CopyWatch), ModError> {
    if mods.is_empty() {
        return Ok((Registry::standard(), CopyWatch::default()));
    }
    let watch = CopyWatch::default();
    let registry = load_copyable(rules, mods, watch.clone())?.0;
    Ok((registry, watch))
}

/// The first time a copy of a game running with a registry could not be given its mods'
/// globals (a global nested too deep or too big to copy): the mod, and why. A copy that
/// cannot be made fails every handler it runs, naming the mod; but a bot's look-ahead takes a
/// failing copy for a poor move and plays on, so `diving check` asks here.
#[derive(Debug, Clone, Default)]
pub struct CopyWatch(Arc<Mutex<Option<ScriptError>>>);

impl CopyWatch {
    /// The first copy failure, located in the mod's file (no line: the globals are copied as
    /// a whole, after the lines that built them ran).
    pub fn failure(&self) -> Option<ModError> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone().map(ModError)
    }

    fn note(&self, failure: ScriptError) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(failure);
    }
}

/// [`load`], and the copier that gives each copy of a game its own Lua states (its failures
/// noted in `watch`).
fn load_copyable(rules: &Rules, mods: &[ModSource], watch: CopyWatch) -> Result<(Registry, Vec<LoadedMod>), ModError> {
    let (mut registry, loaded) = load(rules, mods)?;
    registry.set_copier(Arc::new(Copies {
        rules: rules.clone(),
        sources: mods.to_vec(),
        mods: loaded.clone(),
        pool: Mutex::new(Vec::new()),
        watch,
    }));
    Ok((registry, loaded))
}

/// One loaded mod file: what its handlers share, and its globals.
#[derive(Clone)]
struct LoadedMod {
    shared: Arc<Shared>,
    env: Table,
}

/// Who sets which entry of the registry `mods` build, in registration order: each mod's
/// cards (replaced or wrapped), words, actions and hooks, with its file and line. For
/// `diving check`, which lists them.
pub fn owners(rules: &Rules, mods: &[ModSource]) -> Result<Vec<Owned>, ModError> {
    Ok(load_owned(rules, mods)?.2)
}

/// Loads `mods` into a registry of their own (one sandbox per file, one memory total).
fn load(rules: &Rules, mods: &[ModSource]) -> Result<(Registry, Vec<LoadedMod>), ModError> {
    load_owned(rules, mods).map(|(registry, loaded, _)| (registry, loaded))
}

/// [`load`], and who set which entry.
fn load_owned(rules: &Rules, mods: &[ModSource]) -> Result<(Registry, Vec<LoadedMod>, Vec<Owned>), ModError> {
    let building = Building::new(false);
    let group = MemoryGroup::new(TOTAL_MEMORY);
    let script = Arc::new(Script::default());
    let mut loaded = Vec::with_capacity(mods.len());
    let mut names = Vec::with_capacity(mods.len());
    for (i, source) in mods.iter().enumerate() {
        let sandbox = Sandbox::in_group(&source.name, Limits::default(), Some(&group)).map_err(ModError)?;
        let id = ModId(u8::try_from(i).map_err(|_| {
            ModError(ScriptError::new(&source.name, None, format!("a ruleset loads at most {} mods", u8::MAX)))
        })?);
        let shared = api::install(sandbox, rules, &building, &script, id).map_err(ModError)?;
        building.next_file(&source.name);
        let env = shared.sandbox.load(&source.name, &source.code).map_err(ModError)?.env;
        let _ = shared.env.set(env.clone());
        loaded.push(LoadedMod { shared, env });
        names.push(Arc::from(building.mod_name()));
    }
    let mut registry = building.take_registry();
    registry.name_mods(names);
    Ok((registry, loaded, building.owners()))
}

/// Copies of a game with mods kept in reserve: the mods loaded again into Lua states of
/// their own, each used by one copy of the game at a time. A copy gets one no other game
/// uses, with the globals of this registry's mods copied in ([`super::copy`]) and the turn's
/// use of the budget as it stands, so the copy plays on as the game would, and nothing it
/// does reaches this registry's Lua states.
struct Copies {
    rules: Rules,
    sources: Vec<ModSource>,
    mods: Vec<LoadedMod>,
    /// Registries loaded for copies, with their mods; one a copy of a game still holds (its
    /// `Arc` is held elsewhere) is in use.
    pool: Mutex<Vec<(Arc<Registry>, Vec<LoadedMod>)>>,
    /// Where a copy that could not be made is noted.
    watch: CopyWatch,
}

/// Most registries kept for copies of one game while no copy uses them.
const KEPT_COPIES: usize = 4;

impl Copier for Copies {
    fn copy(&self) -> Arc<Registry> {
        // Work that must stop (a host stopping under a room's search) makes no more copies:
        // copying the globals is no budgeted call, and a search copying megabytes of them
        // per playout went on for half a minute after its Lua calls had stopped.
        if let Some(why) = super::sandbox::stopping() {
            return Arc::new(refusing(why.to_string()));
        }
        // A copy made once the decision's budget is spent is one that cannot run.
        if decision::left() == Some(0) {
            let name = self.mods.first().map_or("mods", |m| m.shared.sandbox.name());
            return Arc::new(refusing(format!("mod {name}: {}", decision::spent_message())));
        }
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        let mut free = pool.iter().enumerate().filter(|(_, (r, _))| Arc::strong_count(r) == 1).map(|(i, _)| i);
        let index = match free.next() {
            Some(i) => {
                // Keep a few unused ones for the next copies; let the rest go (all after `i`,
                // so removing them from the back leaves `i` in place).
                let extra: Vec<usize> = free.skip(KEPT_COPIES - 1).collect();
                for &j in extra.iter().rev() {
                    pool.swap_remove(j);
                }
                i
            }
            None => match load_copyable(&self.rules, &self.sources, CopyWatch::default()) {
                Ok((registry, mods)) => {
                    pool.push((Arc::new(registry), mods));
                    pool.len() - 1
                }
                Err(e) => return Arc::new(refusing(format!("{e} (loading the mods again for a copy of the game)"))),
            },
        };
        let (registry, mods) = &pool[index];
        let mut failure = None;
        // A copy is work of the decision that makes it (a bot's look-ahead, a preview).
        if let Some(first) = self.mods.first() {
            decision::charge(first.shared.sandbox.name(), decision::COPY_STEPS);
        }
        for (from, to) in self.mods.iter().zip(mods) {
            if failure.is_some() {
                break;
            }
            if decision::left() == Some(0) {
                failure = Some(format!("mod {}: {}", from.shared.sandbox.name(), decision::spent_message()));
                break;
            }
            let before = sandbox::steps_spent();
            let copied = copy::copy_globals(to.shared.lua(), &from.env, &to.env);
            decision::charge(from.shared.sandbox.name(), sandbox::steps_spent() - before);
            if let Err(e) = copied {
                let error = ScriptError::new(
                    from.shared.sandbox.name(),
                    None,
                    format!("its globals could not be copied into a copy of the game: {}", flatten(&e).1),
                );
                self.watch.note(error.clone());
                failure = Some(ModError(error).to_string());
            }
        }
        // What the mods hold with the copies a decision makes: every registry of the pool (the
        // ones in use and the few kept for the next copies) holds a copy of the globals, and
        // they count towards the mods' total as the game's own do.
        if failure.is_none()
            && let Some(limit) = decision::memory()
        {
            let copies = pool.iter().flat_map(|(_, mods)| mods);
            let held: usize = self.mods.iter().chain(copies).map(|m| m.shared.sandbox.used_memory()).sum();
            if held as u64 > limit {
                let biggest = self.mods.iter().max_by_key(|m| m.shared.sandbox.used_memory());
                let (name, each) =
                    biggest.map_or(("the mods", 0), |m| (m.shared.sandbox.name(), m.shared.sandbox.used_memory()));
                let error = ScriptError::new(
                    name,
                    None,
                    format!(
                        "the mods and the copies of the game made for one decision ({}) hold {} MiB, more than the {} \
                         MiB the mods may hold together: its globals hold {} MiB, copied into each",
                        decision::what().unwrap_or_default(),
                        held >> 20,
                        limit >> 20,
                        each >> 20
                    ),
                );
                self.watch.note(error.clone());
                failure = Some(ModError(error).to_string());
            }
        }
        if let (Some(from), Some(to)) = (self.mods.first(), mods.first()) {
            to.shared.script.copy_from(&from.shared.script, failure);
        }
        Arc::clone(registry)
    }

    fn restore(&self, kept: &Registry) -> bool {
        let pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        let Some((_, copies)) = pool.iter().find(|(registry, _)| std::ptr::eq(Arc::as_ptr(registry), kept)) else {
            // A refusing registry: the copy could not be made.
            return false;
        };
        if copies.first().is_some_and(|m| m.shared.script.broken().is_some()) {
            return false;
        }
        // The copy's globals back into this registry's Lua states, in place of whatever the
        // failed handlers left there; each state's own locals and functions stay its own.
        for (from, to) in copies.iter().zip(&self.mods) {
            if copy::copy_globals(to.shared.lua(), &from.env, &to.env).is_err() {
                return false;
            }
        }
        // And the turn's use of the budget as it stood before the action.
        if let (Some(from), Some(to)) = (copies.first(), self.mods.first()) {
            to.shared.script.copy_from(&from.shared.script, None);
        }
        true
    }
}

/// A registry on which every card and every turn fails with `why`: what a copy of a game
/// runs with when the mods cannot be loaded for it (they loaded once, so this is a machine
/// out of memory, not a mod), so that the copy fails loudly instead of running other rules.
fn refusing(why: String) -> Registry {
    let why: Arc<str> = why.into();
    let mut registry = Registry::standard();
    let effect: Arc<dyn Effect> = Arc::new(Refused(Arc::clone(&why)));
    for rank in Rank::all() {
        registry.set_effect(rank, Arc::clone(&effect));
    }
    registry.add_turn_start(Arc::new(move |_: &mut Ctx<'_>, _| Err(EffectError::new(why.to_string()))));
    registry
}

/// The entry of every rank in a [`refusing`] registry.
struct Refused(Arc<str>);

impl Effect for Refused {
    fn aim(&self, _: &State, _: Seat, _: Card) -> Result<Aim, EffectError> {
        Err(EffectError::new(self.0.to_string()))
    }

    fn resolve(&self, _: &mut Ctx<'_>, _: Play) -> Result<(), EffectError> {
        Err(EffectError::new(self.0.to_string()))
    }
}
/// The manifest of `source`: what its `diving.manifest{ … }` says, or
/// [`Manifest::default_for`] its file when it declares none. The file runs only until it
/// declares its manifest or registers its first entry (nothing is registered), in a sandbox of
/// its own; an error before that (a syntax error, a bad manifest, a mod needing a newer API)
/// is the mod's load error.
pub fn read_manifest(rules: &Rules, source: &ModSource) -> Result<Manifest, ModError> {
    let building = Building::new(true);
    let sandbox = Sandbox::in_group(&source.name, Limits::default(), None).map_err(ModError)?;
    let shared = api::install(sandbox, rules, &building, &Arc::new(Script::default()), ModId(0)).map_err(ModError)?;
    let loaded = shared.sandbox.load(&source.name, &source.code);
    let (stopped, manifest) = building.manifest_read();
    match (loaded, stopped) {
        (Err(e), false) => Err(ModError(e)),
        _ => Ok(manifest.unwrap_or_else(|| Manifest::default_for(&source.name))),
    }
}
