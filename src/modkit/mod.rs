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

/// What a long check is doing, for a person waiting at a terminal: one line on stderr,
/// replaced by the next and wiped by [`Progress::done`]. Nothing is written when stderr is
/// not a terminal (a pipe, a test, a script reading the report), so reports stay exact.
pub(crate) struct Progress {
    shown: bool,
}

impl Progress {
    pub(crate) fn new() -> Progress {
        use std::io::IsTerminal;
        Progress { shown: std::io::stderr().is_terminal() }
    }

    /// Says what runs now (a few words, e.g. `stress: 420 games…`).
    pub(crate) fn now(&self, what: &str) {
        if self.shown {
            use std::io::Write;
            let _ = write!(std::io::stderr(), "\r\x1b[K{what}");
        }
    }

    /// Wipes the line, before the report is printed.
    pub(crate) fn done(&self) {
        self.now("");
    }
}
