//! The `diving` binary as users and scripts meet it: the shell, JSON mode, saves, replays, limits, the simulator's commands.
//!
//! One test crate of a few (each links the whole library once); each module is one purpose,
//! named as the file it lives in.

#[path = "../support/cli.rs"]
mod cli_support;
#[path = "../support/common.rs"]
mod common;

mod cli_errors;
mod cli_json;
mod cli_pipe;
mod cli_readme;
mod cli_save;
mod cli_scripts;
mod cli_terminal_safety;
mod cli_text;
mod help_layout;
mod host_ratings;
mod hot_seat_secrets;
mod join_lobby;
mod kept_games;
mod limits;
mod repl_fuzz;
mod repl_pty;
mod replay;
mod sim_cli;
mod sim_sweep;
mod sim_tournament;
mod sim_tune;
mod table_guidance;
mod tmux;
