//! Lua at the edge: the [`Sandbox`] every piece of untrusted Lua runs in, and the mod layer
//! that turns a ruleset's Lua files into entries of the core's effect registry.
//!
//! The core knows nothing of Lua: a mod's handlers reach it only as [`Effect`](crate::core::Effect)
//! implementations and hook closures, and they change a game only through
//! [`Ctx`](crate::core::Ctx)'s checked methods.
//!
//! - [`sandbox`]: the Luau state, its limits and how errors are located;
//! - [`mods`]: loading mod files into a registry, and reading their manifests first;
//! - `building`: what the files build while they load (the registry, what a file declared);
//! - [`manifest`]: what a mod says about itself (name, version, API, requires, conflicts);
//! - `api`: the Lua API, one module per area (`ctx` reading and changing, `math`, the
//!   `diving` table's rules, cards, effects and hooks), listed in one place, and the editor's
//!   definition file made from what it registers ([`definitions`]);
//! - `open`: which game the running handler may touch (the thread-local slot);
//! - `convert`: Lua values to typed Rust, with precise errors;
//! - `copy`: a mod's globals copied into the Lua state of a copy of the game;
//! - [`decision`]: one budget of mod work per decision (a listing, a preview, a bot's move),
//!   shared by every call and copy it makes;
//! - `names` and `args`: cards, the `ctx` object and the `play` table as Lua values.
//!
//! No `unsafe` here: a handler reaches the game through an owned loan
//! ([`Lent`](crate::core::Lent)) or a copy, never through a pointer.

#![forbid(unsafe_code)]

mod api;
mod args;
mod building;
mod convert;
mod copy;
pub mod decision;
pub mod manifest;
pub mod mods;
mod names;
mod open;
pub mod sandbox;

pub use api::{RESERVED, definitions, registered};
pub use building::Owned;
pub use decision::{Decision, decide, decide_apart, decide_with};
pub use manifest::{API_VERSION, Manifest};
pub use mods::{CopyWatch, ModError, ModSource, load_mods, load_watched, owners, read_manifest};
pub use sandbox::{Limits, Loaded, Sandbox, ScriptError, StopWhen, stop_when};
