//! The mod writer's tools: `diving check` (a ruleset and its mods read like a compiler would,
//! then smoke games and a random-play [`stress`](mod@stress)), `diving mod new` (a starter mod, its
//! ruleset and a scenario file: [`new`]) and `diving mod test` ([`scenario`] files run
//! against the mod, then the same stress: [`test`](mod@test)) and `diving mod api` (the
//! editor's definition file of the API: [`api`]).
//!
//! Architecture invariant: the mod kit is a client like the shell and the simulator. It
//! plays games only through [`crate::sim`] and [`crate::ruleset::smoke`], so what it finds
//! is what a player or `diving sim` would meet, and every failure it reports comes with the
//! `diving sim` command that replays it.

pub mod api;
pub mod check;
pub mod new;
pub mod scenario;
pub mod stress;
pub mod test;

pub use api::api_command;
pub use check::{CheckOptions, check_command};
pub use new::new_command;
pub use stress::{StressFailure, StressReport, stress};
pub use test::{TestOptions, test_command};
