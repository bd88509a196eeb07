//! Diving Suits (architecture page: to be written)

pub mod bots;
pub mod cli;
pub mod core;
pub mod repl;
pub mod ruleset;
pub mod save;
pub mod script;
pub mod sim;

use std::process::ExitCode;

use clap::CommandFactory;

use cli::{Cli, Command};

/// Runs the command the user asked for.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let ruleset = cli.ruleset.as_deref();
    let play = cli.play_args().map_err(anyhow::Error::msg)?;
    match &cli.command {
        None | Some(Command::Play(_)) => repl::play(ruleset, cli.json, &play),
        Some(Command::Rules) => repl::print_rules(ruleset, cli.json),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(*shell, &mut Cli::command(), "diving", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Check { file }) => ruleset::check_command(file, cli.json),
        Some(Command::Sim(args)) => sim::run(ruleset, cli.json, args),
    }
}
