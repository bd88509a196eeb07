//! Lua at the edge: the [`Sandbox`] every piece of untrusted Lua runs in, and the mod layer
//! that turns a ruleset's Lua files into entries of the core's effect registry.
//!
//! The core knows nothing of Lua: a mod's handlers reach it only as [`Effect`](crate::core::Effect)
//! implementations and hook closures, and they change a game only through
//! [`Ctx`](crate::core::Ctx)'s checked methods.
//!
//! No `unsafe` here: a handler reaches the game through an owned loan
//! ([`Lent`](crate::core::Lent)) or a copy, never through a pointer.

#![forbid(unsafe_code)]

mod api;
mod args;
mod convert;
pub mod mods;
mod names;
mod open;
pub mod sandbox;

pub use mods::{ModError, ModSource, load_mods};
pub use sandbox::{Limits, Loaded, Sandbox, ScriptError};
