//! What the mod files of a game build while they load ([`Building`]): the registry they
//! register into, and what the file being loaded has declared so far (its manifest, its first
//! registration). The Lua API (`super::api`) registers through it; [`super::mods`] makes one
//! for each load and takes the registry when the files are loaded.

use std::sync::{Arc, Mutex};

use mlua::Lua;

use super::manifest::Manifest;
use super::sandbox::Sandbox;
use crate::core::{ActionName, Rank, Registry};

/// The registry the mod files register into while they load (taken when they are loaded),
/// and what the file being loaded has declared so far.
#[derive(Clone)]
pub(crate) struct Building {
    registry: Arc<Mutex<Option<Registry>>>,
    head: Arc<Mutex<Head>>,
    /// Every `diving.effect` so far, by rank: which file replaced it, where, and as which mod.
    replaced: Arc<Mutex<Vec<Replacement>>>,
    /// Every `diving.action` so far: its name, and which file registered it where.
    actions: Arc<Mutex<Vec<Registered>>>,
    /// Every registration so far, in order: who set which entry.
    owners: Arc<Mutex<Vec<Owned>>>,
}

/// A mod's action, where it was registered: its name, the file and the line.
type Registered = (ActionName, String, Option<u32>);

/// One rank's entry replaced (not wrapped) by a mod file.
struct Replacement {
    rank: Rank,
    file: String,
    line: Option<u32>,
    by: String,
    /// The mods its manifest says it loads `before`.
    before: Vec<String>,
}

/// Who set one entry of the registry, as `diving check` lists it: the entry (`7`, `action
/// buddy`, `hook oxygen_cost`), how (`replaces`, `wraps`, `describes`, `adds`), and the mod,
/// its file and the line of the registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owned {
    pub entry: String,
    pub how: &'static str,
    pub by: String,
    pub file: String,
    pub line: Option<u32>,
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
    /// The file being loaded, as errors name it.
    file: String,
}

impl Building {
    pub(crate) fn new(manifest_only: bool) -> Building {
        Building {
            registry: Arc::new(Mutex::new(Some(Registry::standard()))),
            head: Arc::new(Mutex::new(Head { manifest_only, ..Head::default() })),
            replaced: Arc::new(Mutex::new(Vec::new())),
            actions: Arc::new(Mutex::new(Vec::new())),
            owners: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Starts on the next file, `file`: it has declared and registered nothing yet.
    pub(crate) fn next_file(&self, file: &str) {
        let mut head = self.head.lock().expect("manifest lock");
        *head = Head { manifest_only: head.manifest_only, file: file.to_string(), ..Head::default() };
    }

    /// Checks that `diving.effect` on `rank` replaces no entry another mod replaced, unless
    /// this mod declares that it comes after that one (`requires` it): two mods replacing one
    /// card would leave only the later one in force, without a word. Then records it.
    pub(crate) fn check_replacement(&self, lua: &Lua, rank: Rank) -> mlua::Result<()> {
        let head = self.head.lock().expect("manifest lock");
        if head.manifest_only {
            return Ok(());
        }
        let me = head.manifest.clone().unwrap_or_else(|| Manifest::default_for(&head.file));
        let mut replaced = self.replaced.lock().expect("replacements lock");
        // Declared in order: this mod requires the earlier one or comes after it, or the
        // earlier one comes before it.
        let ordered = |earlier: &Replacement| {
            me.requires.iter().any(|(name, _)| *name == earlier.by)
                || me.after.contains(&earlier.by)
                || earlier.before.contains(&me.name)
        };
        if let Some(earlier) = replaced.iter().rev().find(|r| r.rank == rank && r.file != head.file)
            && !ordered(earlier)
        {
            let at = earlier.line.map_or(String::new(), |l| format!(":{l}"));
            return Err(Sandbox::raise(
                lua,
                format!(
                    "diving.effect({rank}) replaces the {rank} that mod {}{at} ({}) already replaced, so only one of \
                     them would be in force: use diving.wrap to build on it, or say in this mod's manifest that it \
                     comes after it (after = {{ \"{}\" }})",
                    earlier.file, earlier.by, earlier.by
                ),
            ));
        }
        let line = Sandbox::calling_line(lua);
        replaced.push(Replacement { rank, file: head.file.clone(), line, by: me.name.clone(), before: me.before });
        Ok(())
    }

    /// Checks that no action called `name` was registered before (by this mod or another),
    /// naming where it was; then records this one.
    pub(crate) fn check_action(&self, lua: &Lua, name: ActionName) -> mlua::Result<()> {
        let head = self.head.lock().expect("manifest lock");
        if head.manifest_only {
            return Ok(());
        }
        let mut actions = self.actions.lock().expect("actions lock");
        let line = Sandbox::calling_line(lua);
        if let Some((_, file, at)) = actions.iter().find(|(n, ..)| *n == name) {
            let at = at.map_or(String::new(), |l| format!(":{l}"));
            return Err(Sandbox::raise(
                lua,
                format!(
                    "diving.action(\"{name}\") is already the action of mod {file}{at}: two actions cannot share a \
                     name (rename one)"
                ),
            ));
        }
        actions.push((name, head.file.clone(), line));
        Ok(())
    }

    /// Records that the file being loaded sets `entry` (`how`: replaces, wraps …), at the
    /// calling line, for `diving check`'s list of who owns what.
    pub(crate) fn own(&self, lua: &Lua, entry: String, how: &'static str) {
        let head = self.head.lock().expect("manifest lock");
        if head.manifest_only {
            return;
        }
        let by = head.manifest.as_ref().map_or_else(|| Manifest::default_for(&head.file).name, |m| m.name.clone());
        let owned = Owned { entry, how, by, file: head.file.clone(), line: Sandbox::calling_line(lua) };
        self.owners.lock().expect("owners lock").push(owned);
    }

    /// The name of the file being loaded, as its manifest says (or made from its file name).
    pub(crate) fn mod_name(&self) -> String {
        let head = self.head.lock().expect("manifest lock");
        head.manifest.as_ref().map_or_else(|| Manifest::default_for(&head.file).name, |m| m.name.clone())
    }

    /// Who set which entry, in the order the mods registered.
    pub(crate) fn owners(&self) -> Vec<Owned> {
        self.owners.lock().expect("owners lock").clone()
    }

    /// Stops a file whose manifest has been read (only when reading manifests).
    fn stop(head: &mut Head, lua: &Lua) -> mlua::Error {
        head.stopped = true;
        Sandbox::raise(lua, "the file was read up to its manifest")
    }

    /// The registry the files registered into, once they are loaded (later registrations
    /// are refused: they happen after loading).
    pub(crate) fn take_registry(&self) -> Registry {
        self.registry.lock().expect("registry lock").take().expect("registry present until here")
    }

    /// When reading a manifest only: whether the file was stopped at its manifest or first
    /// registration, and the manifest it declared, if any.
    pub(crate) fn manifest_read(&self) -> (bool, Option<Manifest>) {
        let head = self.head.lock().expect("manifest lock");
        (head.stopped, head.manifest.clone())
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
