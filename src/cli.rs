//! The command line: every option and subcommand of `diving`, parsed with clap, and the
//! dispatch to the client that serves each one. No rules here.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::join::{self, JoinOptions};
use crate::modkit;
use crate::ruleset;
use crate::server::{self, HostOptions};
use crate::shell::{self, PlayOptions};
use crate::sim::{self, SimOptions};
use crate::wire::RulesetId;

/// Diving Suits: a card race to the bottom of the ocean.
#[derive(Debug, Parser)]
#[command(name = "diving", version, about)]
pub struct Cli {
    /// Ruleset to play: a TOML file, or a shipped ruleset by name (standard, meters, big-table, house);
    /// `diving tournament` takes it more than once, to pit the rulesets against each other
    #[arg(long, global = true, value_name = "FILE|NAME", action = clap::ArgAction::Append)]
    pub ruleset: Vec<String>,

    /// Answer in JSON Lines (one object per line)
    #[arg(long, global = true)]
    pub json: bool,

    /// The play options given without a subcommand (`diving --players a,b`); see [`Cli::play_args`].
    #[command(flatten)]
    pub play: PlayArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The process's arguments, read like `Cli::parse` does (which prints its own errors and
    /// exits 2), refusing `--ruleset` given both before and after the command word: clap keeps
    /// only the later ones, so the earlier would be dropped without a word.
    pub fn from_args() -> anyhow::Result<Cli> {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        let cli = Cli::parse_from(&args);
        let written = args
            .iter()
            .skip(1)
            .take_while(|a| *a != "--")
            .filter(|a| *a == "--ruleset" || a.to_string_lossy().starts_with("--ruleset="))
            .count();
        if written > cli.ruleset.len() {
            anyhow::bail!(
                "--ruleset is given both before and after the command word, and only the later ones would count: \
                 give every --ruleset in one place (after `diving tournament` to pit several against each other)"
            );
        }
        Ok(cli)
    }

    /// The options of the game to play: those given after `play`, or at the top level
    /// (`diving --seed 3` and `diving --seed 3 play` both work). The same option in both
    /// places, or play options before another subcommand, are refused.
    pub fn play_args(&self) -> Result<PlayArgs, String> {
        let top = &self.play;
        let given: Vec<&str> = [
            ("--players", top.players.is_some()),
            ("--seed", top.seed.is_some()),
            ("--deck", top.deck.is_some()),
            ("--script", top.script.is_some()),
            ("--load", top.load.is_some()),
            ("--no-color", top.no_color),
            ("--no-hints", top.no_hints),
            ("--resume", top.resume.is_some()),
            ("--forget", top.forget.is_some()),
            ("--reveal-hands", top.reveal_hands),
        ]
        .into_iter()
        .filter_map(|(flag, set)| set.then_some(flag))
        .collect();
        let sub = match &self.command {
            None => return Ok(top.clone()),
            Some(Command::Play(sub)) => sub,
            Some(_) if given.is_empty() => return Ok(PlayArgs::default()),
            Some(_) => {
                return Err(format!("{} can only be used with `play` (or with no subcommand)", given.join(", ")));
            }
        };
        fn pick<T: Clone>(flag: &str, top: &Option<T>, sub: &Option<T>) -> Result<Option<T>, String> {
            match (top, sub) {
                (Some(_), Some(_)) => Err(format!("{flag} is given twice (before and after `play`)")),
                _ => Ok(sub.clone().or_else(|| top.clone())),
            }
        }
        Ok(PlayArgs {
            players: pick("--players", &top.players, &sub.players)?,
            seed: pick("--seed", &top.seed, &sub.seed)?,
            deck: pick("--deck", &top.deck, &sub.deck)?,
            script: pick("--script", &top.script, &sub.script)?,
            load: pick("--load", &top.load, &sub.load)?,
            no_color: top.no_color || sub.no_color,
            no_hints: top.no_hints || sub.no_hints,
            resume: pick("--resume", &top.resume, &sub.resume)?,
            forget: pick("--forget", &top.forget, &sub.forget)?,
            reveal_hands: top.reveal_hands || sub.reveal_hands,
        })
    }
}

/// Runs the command the user asked for.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if cli.ruleset.len() > 1 && !matches!(cli.command, Some(Command::Tournament(_))) {
        anyhow::bail!(
            "--ruleset is given {} times: only `diving tournament` plays several rulesets (`diving sim` compares two \
             with --baseline)",
            cli.ruleset.len()
        );
    }
    let ruleset = cli.ruleset.first().map(String::as_str);
    let play = cli.play_args().map_err(anyhow::Error::msg)?;
    match &cli.command {
        None | Some(Command::Play(_)) => shell::play(ruleset, cli.json, &play.into()),
        Some(Command::Rules) => shell::print_rules(ruleset, cli.json),
        Some(Command::Replay(args)) => shell::replay::run(ruleset, cli.json, &args.clone().into()),
        Some(Command::Completions { shell }) => {
            // Into memory first: `generate` panics on a failed write.
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "diving", &mut script);
            let mut out = std::io::stdout().lock();
            out.write_all(&script).and_then(|()| out.flush()).context("cannot write the completions")?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Check { file, games, seed }) => {
            let options = modkit::CheckOptions { json: cli.json, games: *games, seed: *seed };
            modkit::check_command(check_target(file.as_deref(), ruleset)?, options)
        }
        Some(Command::Mod { command: ModCommand::New { name } }) => modkit::new_command(name, std::path::Path::new("")),
        Some(Command::Mod { command: ModCommand::Api { file } }) => modkit::api_command(file),
        Some(Command::Mod { command: ModCommand::Test { files, games, seed } }) => {
            let options = modkit::TestOptions {
                files: files.clone(),
                ruleset: ruleset.map(String::from),
                games: *games,
                seed: *seed,
                json: cli.json,
            };
            modkit::test_command(&options)
        }
        Some(Command::Sim(args)) => sim::run(ruleset, cli.json, &args.into()),
        Some(Command::Tournament(args)) => {
            let TournamentArgs { bots, seats, games, seed, jobs, max_turns, pairing, rounds } = args.clone();
            let pairing = match (pairing, rounds) {
                (PairingArg::RoundRobin, None) => sim::tournament::Pairing::RoundRobin,
                (PairingArg::RoundRobin, Some(_)) => anyhow::bail!("--rounds is for --pairing swiss"),
                // Enough rounds for a knockout to find a winner, and one more.
                (PairingArg::Swiss, rounds) => sim::tournament::Pairing::Swiss {
                    rounds: rounds.unwrap_or(usize::BITS - bots.len().saturating_sub(1).leading_zeros() + 1),
                },
            };
            let options = sim::tournament::TournamentOptions {
                bots,
                seats: seats as usize,
                games,
                seed,
                jobs,
                max_turns,
                pairing,
            };
            sim::tournament::run(&cli.ruleset, cli.json, &options)
        }
        Some(Command::Tune(args)) => sim::tune::run(cli.json, &tune_options(args, ruleset)?),
        Some(Command::Host(args)) => match args.command {
            Some(HostCommand::Ratings) => host_ratings(args, ruleset, cli.json),
            None => server::host(&host_options(args, ruleset, &cli.ruleset, cli.json)?),
        },
        Some(Command::Join(args)) => {
            // At a room, --ruleset is the ruleset the player expects; in the lobby, one they bring.
            let lobby = join::lobby::host_of(&args.target)?.is_some();
            let (expect, upload) = match ruleset {
                Some(spec) if lobby => (None, Some(join::lobby::ruleset_files(spec)?)),
                Some(spec) => (
                    Some(RulesetId::of(
                        &ruleset::Ruleset::load(spec)
                            .map_err(|e| anyhow::anyhow!("cannot load ruleset '{spec}': {e}"))?,
                    )),
                    None,
                ),
                None => (None, None),
            };
            let JoinArgs { target, seat, token, no_color, name, transfer } = args.clone();
            let options =
                JoinOptions { target, seat, token, json: cli.json, ruleset: expect, no_color, name, upload, transfer };
            join::join(&options)
        }
    }
}

/// The ruleset `diving check` reads: its argument or `--ruleset`, and only one of them.
fn check_target<'a>(file: Option<&'a str>, ruleset: Option<&'a str>) -> anyhow::Result<&'a str> {
    match (file, ruleset) {
        (Some(file), Some(other)) if file != other => {
            anyhow::bail!("check was given two rulesets, '{file}' and --ruleset '{other}': name one")
        }
        (Some(file), _) | (None, Some(file)) => Ok(file),
        (None, None) => anyhow::bail!("name the ruleset to check: diving check FILE (a TOML file or a shipped name)"),
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a game in the interactive shell (the default)
    Play(PlayArgs),
    /// Print the rules in force
    Rules,
    /// Step through a saved or finished game (any save file), or write it as an HTML page
    Replay(ReplayArgs),
    /// Print shell completions
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Check a ruleset and its mods, then play seeded smoke games and a random-play stress
    Check {
        /// The ruleset file (or shipped name); without it, the one given with --ruleset
        file: Option<String>,
        /// Stress games per player count and bot mix (0: smoke games only)
        #[arg(long, default_value_t = modkit::check::GAMES)]
        games: u64,
        /// First seed of the stress games
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Tools for mod writers: a starter mod, scenario tests
    Mod {
        #[command(subcommand)]
        command: ModCommand,
    },
    /// Let bots play many games and report the balance
    Sim(SimArgs),
    /// Search rules numbers for a target (successive halving on paired seeds) and write the best
    Tune(TuneArgs),
    /// Round-robin (or Swiss rounds) among bots, rated with Weng-Lin (rating ± uncertainty) and a
    /// skill-versus-luck measure; with several --ruleset, every bot under every ruleset, and the rulesets
    /// ranked by skill versus luck
    Tournament(TournamentArgs),
    /// Host games for players elsewhere: with no seats given, a lobby where friends make tables,
    /// rematch and see ratings (http://HOST:PORT/); with --players or --seats, a table made now
    /// and an invite per open seat (`diving host --dir DIR ratings` prints the leaderboards)
    Host(HostArgs),
    /// Join a hosted game with an invite (or watch it without --seat and --token); HOST:PORT alone:
    /// the host's lobby
    Join(JoinArgs),
}

#[derive(Debug, Subcommand)]
pub enum ModCommand {
    /// Write a starter mod NAME/NAME.lua with its manifest, a ruleset loading it and a scenario file
    New {
        /// The mod's name: lower-case letters, digits, - and _
        name: String,
    },
    /// Write the mod API as a LuaCATS definition file, for an editor to complete and check mods
    Api {
        /// Where to write it (`-`: standard output)
        #[arg(default_value = modkit::api::FILE)]
        file: PathBuf,
    },
    /// Run scenario files against a mod, then a random-play stress
    Test {
        /// Scenario files (default: tests/*.toml); each names its ruleset, or give --ruleset
        files: Vec<PathBuf>,
        /// Stress games per player count and bot mix (0: the scenarios only)
        #[arg(long, default_value_t = modkit::test::GAMES)]
        games: u64,
        /// First seed of the stress games
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Debug, Clone, Args)]
pub struct HostArgs {
    /// Player names in seat order, comma-separated; `bot:NAME` for a computer player
    #[arg(long, value_delimiter = ',', value_name = "NAMES", conflicts_with = "seats")]
    pub players: Option<Vec<String>>,
    /// Number of seats (people get player1, player2 …; the last seats go to --bots)
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=8))]
    pub seats: Option<u32>,
    /// Bots in the last seats, comma-separated (with --seats): greedy, random, mcts …
    #[arg(long, value_delimiter = ',', value_name = "BOTS")]
    pub bots: Vec<String>,
    /// Seed of the first room's shuffle (room i uses seed + i - 1; default: random, never sent to players)
    #[arg(long)]
    pub seed: Option<u64>,
    /// A stacked deck for every room, top first (as for play)
    #[arg(long, value_name = "CARDS|@FILE")]
    pub deck: Option<String>,
    /// How many games (rooms) to hold
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = at_least_one::<usize>)]
    pub rooms: usize,
    /// Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// Port to listen on (0: any free port)
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Directory the games are kept in, every move committed before it is answered (diving.sqlite), with each finished game's save
    #[arg(long, default_value = "diving-games", value_name = "DIR")]
    pub dir: PathBuf,
    /// Bring back the games saved in DIR (their tokens still work)
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Let a bot play for a seat that is away (bot:greedy) …
    #[arg(long, value_name = "bot:NAME")]
    pub away: Option<String>,
    /// … after it has been away this long (60s, 2m)
    #[arg(long, default_value = "60s", value_parser = server::parse_duration)]
    pub away_after: std::time::Duration,
    /// Let every seat ask for `hint` on its turn and `review` after the game (off by default)
    #[arg(long)]
    pub allow_hints: bool,
    /// Let pages from this origin (`http://example.com:8080`, or `*` for any) open connections;
    /// by default only the host's own page may (comma-separated, or given again)
    #[arg(long, value_delimiter = ',', value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Take no rulesets from the lobby's players (by default they may bring their own: each is
    /// checked as `diving check` does and played in the sandbox, within its budgets)
    #[arg(long)]
    pub no_uploads: bool,
    /// Change one of the host's limits (given again or comma-separated), e.g.
    /// waiting_per_address=20 for many players behind one address; every name and its
    /// default: docs/network.md, "Limits"
    #[arg(long, value_delimiter = ',', value_name = "NAME=N")]
    pub limit: Vec<String>,
    #[command(subcommand)]
    pub command: Option<HostCommand>,
}

/// What `diving host` does instead of hosting.
#[derive(Debug, Clone, Copy, Subcommand)]
pub enum HostCommand {
    /// Print the leaderboards kept in --dir's database (every rated ruleset, or --ruleset R's
    /// only; --json: one line each) and exit; no host is started
    Ratings,
}

/// `diving host --dir DIR ratings`: reads the database only, so the hosting options would be
/// dropped without a word; they are refused instead.
fn host_ratings(args: &HostArgs, ruleset: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let given: Vec<&str> = [
        ("--players", args.players.is_some()),
        ("--seats", args.seats.is_some()),
        ("--bots", !args.bots.is_empty()),
        ("--seed", args.seed.is_some()),
        ("--deck", args.deck.is_some()),
        ("--resume", args.resume.is_some()),
        ("--away", args.away.is_some()),
        ("--allow-hints", args.allow_hints),
        ("--allow-origin", !args.allow_origin.is_empty()),
        ("--no-uploads", args.no_uploads),
        ("--limit", !args.limit.is_empty()),
    ]
    .into_iter()
    .filter_map(|(flag, set)| set.then_some(flag))
    .collect();
    if !given.is_empty() {
        anyhow::bail!(
            "{} cannot go with `diving host ratings`, which only reads --dir's database (and --ruleset, --json)",
            given.join(", ")
        );
    }
    // The host's database read here, each board laid out as `diving join` shows the lobby's.
    let boards = server::db::boards(&args.dir, ruleset)?;
    let mut out = std::io::stdout().lock();
    if boards.is_empty() && !json {
        writeln!(out, "no rated games in {} yet", args.dir.display())?;
    }
    for (i, board) in boards.iter().enumerate() {
        if json {
            writeln!(out, "{}", serde_json::to_string(board)?)?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            write!(out, "{}", join::board::text(board))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn host_options(
    args: &HostArgs,
    ruleset: Option<&str>,
    rulesets: &[String],
    json: bool,
) -> anyhow::Result<HostOptions> {
    let HostArgs {
        players,
        seats,
        bots,
        seed,
        deck,
        rooms,
        bind,
        port,
        dir,
        resume,
        away,
        away_after,
        allow_hints,
        allow_origin,
        no_uploads,
        limit,
        command: _,
    } = args.clone();
    Ok(HostOptions {
        ruleset: ruleset.map(String::from),
        rulesets: rulesets.to_vec(),
        players,
        seats: seats.map(|s| s as usize),
        bots,
        seed,
        deck,
        rooms,
        bind,
        port,
        dir,
        resume,
        away,
        away_after,
        allow_hints,
        allow_origins: allow_origin,
        uploads: !no_uploads,
        limits: server::host_limits(&limit)?,
        json,
    })
}

#[derive(Debug, Clone, Args)]
pub struct ReplayArgs {
    /// The game: a file written by `save` (every save is a replay)
    pub file: PathBuf,
    /// See the game as this seat did (a name or seat number): its own hand only
    #[arg(long = "as", value_name = "SEAT", conflicts_with = "all")]
    pub seat: Option<String>,
    /// See every hand (a finished game only); without --as or --all, the public view
    #[arg(long)]
    pub all: bool,
    /// Write the game as one self-contained HTML page instead, from the chosen viewpoint
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Read the viewer's commands from this file instead of the terminal
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Never use colour (also: the NO_COLOR environment variable)
    #[arg(long)]
    pub no_color: bool,
}

/// Destructured, so an option added here cannot be forgotten on the way to the viewer.
impl From<ReplayArgs> for shell::replay::ReplayOptions {
    fn from(args: ReplayArgs) -> shell::replay::ReplayOptions {
        let ReplayArgs { file, seat, all, html, script, no_color } = args;
        shell::replay::ReplayOptions { file, seat, all, html, script, no_color }
    }
}

#[derive(Debug, Clone, Args)]
pub struct JoinArgs {
    /// Where the game is: HOST:PORT/ROOM, as the invite prints it; HOST:PORT alone opens the
    /// host's lobby (its tables, new tables, ratings: type 'help' there)
    pub target: String,
    /// Your seat (from the invite)
    #[arg(long, requires = "token")]
    pub seat: Option<usize>,
    /// Your seat's secret token (from the invite)
    #[arg(long, requires = "seat")]
    pub token: Option<String>,
    /// Never use colour (also: the NO_COLOR environment variable)
    #[arg(long)]
    pub no_color: bool,
    /// In the lobby: the name you go by (kept with your player key in
    /// $XDG_DATA_HOME/diving/player.json; asked for the first time when not given)
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// In the lobby: become the player a transfer code names (made with 'transfer' in the
    /// lobby of a device where you have your name, or the page's "Use on another device"):
    /// their name and key are kept here in place of this terminal's
    #[arg(long, value_name = "CODE", conflicts_with = "name")]
    pub transfer: Option<String>,
}

#[derive(Debug, Clone, Default, Args)]
pub struct PlayArgs {
    /// Player names in seat order, comma-separated: as many as the ruleset allows (2–8 in the
    /// standard rules; `diving rules` says, up to 64 in a house ruleset); `bot:NAME` for a computer player:
    /// bot:random (or bot:easy), bot:greedy (bot:normal), bot:mcts (bot:hard), bot:mcts:N
    /// (N playouts) or bot:FILE.lua (default: you,bot:greedy)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub players: Option<Vec<String>>,
    /// Seed for the shuffle and reshuffles (default: random, printed so the game can be replayed)
    #[arg(long)]
    pub seed: Option<u64>,
    /// A stacked deck, top first: seat 1 takes the top cards (4 in the standard rules), then
    /// seat 2 …, then the table slots and the first discard (rule D3); all the ruleset's
    /// cards, given as "AS 2H …"
    /// or as @FILE (a file holding them)
    #[arg(long, value_name = "CARDS|@FILE")]
    pub deck: Option<String>,
    /// Read commands from this file instead of the terminal
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Resume a saved game
    #[arg(long, value_name = "FILE")]
    pub load: Option<PathBuf>,
    /// Never use colour (also: the NO_COLOR environment variable)
    #[arg(long)]
    pub no_color: bool,
    /// Turn `hint` off for this game (a save keeps it off)
    #[arg(long)]
    pub no_hints: bool,
    /// Take up an unfinished game kept at the terminal (its number in the list, or its
    /// name); alone, list them
    #[arg(long, value_name = "GAME", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,
    /// Let a kept unfinished game go (its number in `--resume`'s list, or its name)
    #[arg(long, value_name = "GAME")]
    pub forget: Option<String>,
    /// Show every hand of a hot-seat game where it cannot be hidden: its save opened in a
    /// pipe or with --json, or played with output that is not a terminal (every player is told)
    #[arg(long)]
    pub reveal_hands: bool,
}

/// Destructured, so an option added here cannot be forgotten on the way to the shell.
impl From<PlayArgs> for PlayOptions {
    fn from(args: PlayArgs) -> PlayOptions {
        let PlayArgs { players, seed, deck, script, load, no_color, no_hints, resume, forget, reveal_hands } = args;
        PlayOptions { players, seed, deck, script, load, no_color, no_hints, resume, forget, reveal_hands }
    }
}

#[derive(Debug, Clone, Args)]
pub struct SimArgs {
    /// Games to play
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true, value_parser = at_least_one::<u64>)]
    pub games: u64,
    /// Bots in seat order, comma-separated: random, greedy, mcts, mcts:ITERATIONS, or a .lua bot
    #[arg(long, value_delimiter = ',', default_value = "greedy,greedy")]
    pub players: Vec<String>,
    /// First seed; game i (from 0) uses seed + i
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores; at most 256, and no more than the games)
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one::<usize>)]
    pub jobs: Option<usize>,
    /// Write one CSV row per statistic instead of the report
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Write an SVG chart of game lengths and win rates
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Compare against this ruleset on the same seeds (the same deals when both deal as many
    /// cards from as many decks)
    #[arg(long, value_name = "FILE|NAME")]
    pub baseline: Option<String>,
    /// Turn cap for simulated games (a draw after this many turns; a lower cap in the ruleset wins)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: u32,
    /// Rotate the seats every game, so each bot plays each seat equally often
    #[arg(long)]
    pub rotate: bool,
    /// Sweep a number of the rules: NAME=FROM..TO, NAME=FROM..TO:STEP or NAME=V1,V2 (repeat for more axes;
    /// NAME is quick_extra, quick_push, hand_size, table_size, max_oxygen, max_depth, max_turns
    /// or decks). Plays every combination paired with the ruleset (or --baseline) on the same
    /// seeds and reports seat balance, length, draws, rescues, lead changes and decisiveness
    #[arg(long, value_name = "NAME=VALUES")]
    pub sweep: Vec<String>,
    /// Read sweep axes from a file, one NAME = VALUES a line (# comments)
    #[arg(long, value_name = "FILE")]
    pub sweep_file: Option<PathBuf>,
}

/// Destructured, so an option added here cannot be forgotten on the way to the simulator.
impl From<&SimArgs> for SimOptions {
    fn from(args: &SimArgs) -> SimOptions {
        let SimArgs { games, players, seed, jobs, csv, plot, baseline, max_turns, rotate, sweep, sweep_file } =
            args.clone();
        SimOptions { games, players, seed, jobs, csv, plot, baseline, max_turns, rotate, sweep, sweep_file }
    }
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "Example: diving tune house.toml --vary quick_extra=0..20 --vary max_oxygen=6..14 \
--target \"seat-balance, length 30..40\" --budget 20000")]
pub struct TuneArgs {
    /// The ruleset to start from (a TOML file or a shipped name); without it, --ruleset or standard
    pub file: Option<String>,
    /// A number to tune and its values: NAME=FROM..TO, NAME=FROM..TO:STEP or NAME=V1,V2 (repeat for more)
    #[arg(long, value_name = "NAME=VALUES", required = true)]
    pub vary: Vec<String>,
    /// What to aim for: measures, each alone (as close to 0 as may be) or with a range, e.g.
    /// "seat-balance, length 30..40"; measures: seat-balance, first-seat, length, draws,
    /// rescues, lead-changes, decisiveness
    #[arg(long)]
    pub target: String,
    /// Games for the whole search; a fifth is kept to check the best against the start
    #[arg(long, default_value_t = 20_000)]
    pub budget: u64,
    /// Bots in seat order, comma-separated (seats rotate every game)
    #[arg(long, value_delimiter = ',', default_value = "greedy,greedy")]
    pub players: Vec<String>,
    /// First seed
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores)
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one::<usize>)]
    pub jobs: Option<usize>,
    /// Turn cap for simulated games
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: u32,
    /// Where to write the tuned ruleset (default: NAME-tuned.toml here)
    #[arg(long, value_name = "FILE.toml")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "Example: diving tournament --bots random,greedy,mcts:50 --ruleset standard --ruleset house \
--ruleset my.toml\n\nWith several --ruleset, an entrant is a bot under a ruleset (greedy@house): every ruleset plays the \
same tables on the same seeds, each ruleset's entrants are rated among themselves, and the rulesets are ranked by \
skill versus luck with 95% bootstrap intervals.")]
pub struct TournamentArgs {
    /// The bots, comma-separated: random, greedy, mcts, mcts:ITERATIONS, or .lua bots
    #[arg(long, value_delimiter = ',', default_value = "random,greedy,mcts:50")]
    pub bots: Vec<String>,
    /// Players per game: every set of this many bots is a table
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..=8))]
    pub seats: u32,
    /// Games per table (seats rotate)
    #[arg(long, default_value_t = 200, allow_negative_numbers = true, value_parser = at_least_one::<u64>)]
    pub games: u64,
    /// How tables are drawn: every set of --seats bots once (round-robin), or --rounds rounds
    /// that each seat bots of like rating so far together, avoiding tables already played (swiss)
    #[arg(long, value_enum, default_value_t = PairingArg::RoundRobin)]
    pub pairing: PairingArg,
    /// Rounds of a Swiss tournament (default: ⌈log₂ bots⌉ + 1); round r's game i uses seed + r × games + i
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one::<u32>)]
    pub rounds: Option<u32>,
    /// First seed; game i of every table uses seed + i
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores)
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one::<usize>)]
    pub jobs: Option<usize>,
    /// Turn cap for the games
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: u32,
}

/// How `diving tournament` draws its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PairingArg {
    RoundRobin,
    Swiss,
}

fn tune_options(args: &TuneArgs, ruleset: Option<&str>) -> anyhow::Result<sim::tune::TuneOptions> {
    let file = match (&args.file, ruleset) {
        (Some(file), Some(other)) if file != other => {
            anyhow::bail!("tune was given two rulesets, '{file}' and --ruleset '{other}': name one")
        }
        (Some(file), _) => file.clone(),
        (None, spec) => spec.unwrap_or("standard").to_string(),
    };
    let TuneArgs { vary, target, budget, players, seed, jobs, max_turns, out, .. } = args.clone();
    Ok(sim::tune::TuneOptions { ruleset: file, vary, target, budget, players, seed, jobs, max_turns, out })
}

/// A whole number of at least 1.
fn at_least_one<N: std::str::FromStr + PartialEq + From<u8>>(text: &str) -> Result<N, String> {
    match text.parse::<N>() {
        Ok(n) if n == N::from(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("must be a whole number of at least 1".into()),
    }
}
