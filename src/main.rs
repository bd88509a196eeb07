//! The `diving` binary: parse the command line, run the client it names, map failure to an
//! exit status (2 for bad arguments, an unreadable ruleset or save).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = diving::cli::Cli::parse();
    match diving::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("diving: {e:#}");
            ExitCode::from(2)
        }
    }
}
