//! The balance simulator: bots play many seeded games in parallel and the statistics are
//! streamed into a report.

use std::process::ExitCode;

use crate::cli::SimArgs;

/// `diving sim`.
pub fn run(ruleset: Option<&str>, json: bool, args: &SimArgs) -> anyhow::Result<ExitCode> {
    let _ = (ruleset, json, args);
    anyhow::bail!("the simulator is not written yet")
}
