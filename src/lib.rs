//! Diving Suits (architecture page: to be written)

pub mod bots;
pub mod cli;
pub mod core;
pub mod ruleset;

use std::process::ExitCode;

/// Runs the command the user asked for.
pub fn run(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        _ => anyhow::bail!("not implemented yet"),
    }
}
