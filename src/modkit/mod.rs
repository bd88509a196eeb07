//! The mod writer's tools: `diving check` (a ruleset and its mods read like a compiler would,
//! then smoke games and a random-play [`stress`]).
//!
//! Architecture invariant: the mod kit is a client like the shell and the simulator. It
//! plays games only through [`crate::sim`] and [`crate::ruleset::smoke`], so what it finds
//! is what a player or `diving sim` would meet, and every failure it reports comes with the
//! `diving sim` command that replays it.

pub mod check;
pub mod stress;

pub use check::{CheckOptions, check_command};
pub use stress::{StressFailure, StressReport, stress};
