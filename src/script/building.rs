//! What the mod files of a game build while they load ([`Building`]): the registry they
//! register into, and what the file being loaded has declared so far (its manifest, its first
//! registration). The Lua API (`super::api`) registers through it; [`super::mods`] makes one
//! for each load and takes the registry when the files are loaded.

use std::sync::{Arc, Mutex};

use mlua::Lua;

use super::manifest::Manifest;
use super::sandbox::Sandbox;
use crate::core::Registry;

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
    pub(crate) fn new(manifest_only: bool) -> Building {
        Building {
            registry: Arc::new(Mutex::new(Some(Registry::standard()))),
            head: Arc::new(Mutex::new(Head { manifest_only, ..Head::default() })),
        }
    }

    /// Starts on the next file: it has declared and registered nothing yet.
    pub(crate) fn next_file(&self) {
        let mut head = self.head.lock().expect("manifest lock");
        *head = Head { manifest_only: head.manifest_only, ..Head::default() };
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
