//! The game shell: the interactive REPL, the script/JSON mode, save/load/undo. A client of the
//! core: it parses text into actions, renders events and state into text, and holds no rules.

use std::process::ExitCode;

use crate::cli::PlayArgs;

/// `diving play`: runs a game in the REPL, or from a script / pipe.
pub fn play(ruleset: Option<&str>, json: bool, args: &PlayArgs) -> anyhow::Result<ExitCode> {
    let _ = (ruleset, json, args);
    anyhow::bail!("the game shell is not written yet")
}

/// `diving rules`: prints the rules in force.
pub fn print_rules(ruleset: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let _ = (ruleset, json);
    anyhow::bail!("not written yet")
}
