//! The balance simulator: bots play many seeded games in parallel and the statistics are
//! streamed into a report.
//!
//! Game `i` is dealt with seed `seed + i`, and the bot in seat `s` is seeded from that game seed
//! and `s`, so a game is the same whichever worker plays it. Workers fold finished games into
//! integer totals ([`stats`]) and the totals are merged at the end: the report is identical for
//! any `--jobs`. Nothing is kept per game, so memory stays flat.
//!
//! With `--baseline`, every game is played twice, once per ruleset, on the same seed (the same
//! shuffle when the deck sizes match, the same deal when the hand and table sizes do too:
//! [`Shared`]) with identically seeded bots, and the per-game differences give the paired
//! report.
//!
//! Architecture invariant: the simulator is a client of the core like the REPL. It asks the
//! core for legality and outcomes, and a bot's illegal choice or a failing mod stops the whole
//! run with the seed that reproduces it.

pub mod plot;
pub mod report;
pub mod stats;
pub mod sweep;
pub mod tournament;
pub mod tune;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::bots::{self, Bot, derive_seed};
use crate::core::{ActionError, DealShape, Event, EventSink, Game, Outcome, Rules, Setup, View, Viewer};
use crate::limits;
use crate::ruleset::Ruleset;
use crate::script::decision;

pub use stats::{GameRecord, Paired, Tally};

/// What `diving sim` was asked for: its options of the command line, as plain values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimOptions {
    /// Games to play.
    pub games: u64,
    /// Bot specs in seat order.
    pub players: Vec<String>,
    /// First seed; game `i` uses `seed + i`.
    pub seed: u64,
    /// Worker threads (default: all cores).
    pub jobs: Option<usize>,
    /// One CSV row per statistic instead of the report.
    pub csv: bool,
    /// Write an SVG chart here.
    pub plot: Option<PathBuf>,
    /// Compare against this ruleset on the same seeds (and deals, when they deal alike).
    pub baseline: Option<String>,
    /// Turn cap for simulated games.
    pub max_turns: u32,
    /// Rotate the seats every game.
    pub rotate: bool,
    /// Axes of a sweep (`NAME=VALUES`, see [`sweep`]); with `sweep_file`, a sweep is run
    /// instead of one report.
    pub sweep: Vec<String>,
    pub sweep_file: Option<PathBuf>,
}

/// What to simulate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimConfig {
    pub games: u64,
    /// Bot specs in seat order (as `bots::from_spec` reads them).
    pub players: Vec<String>,
    /// Game `i` uses seed `seed + i`.
    pub seed: u64,
    /// Worker threads.
    pub jobs: usize,
    /// Rotate the seats each game (game `i` seats player `p` at `(p - i) mod n`), so every bot
    /// plays every seat equally often.
    pub rotate: bool,
    /// Turn cap (D23); the ruleset's own cap applies if it is lower.
    pub max_turns: u32,
}

/// Why a simulation stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Setup(String),
    /// A game failed: a bot erred or chose an illegal action, or a mod failed.
    #[error("game {} (seed {seed}) failed: {message}\nreproduce it with: {reproduce}", game + 1)]
    Game { game: u64, seed: u64, message: String, reproduce: String },
}

/// A finished simulation.
#[derive(Debug, Clone)]
pub struct SimResult {
    pub tally: Tally,
    /// The baseline's totals and the paired differences, with `--baseline`.
    pub baseline: Option<(Tally, Paired)>,
    pub elapsed: Duration,
}

impl SimResult {
    /// Games played per second of wall-clock time (both rulesets with a baseline).
    pub fn games_per_second(&self) -> f64 {
        let games = self.tally.games + self.baseline.as_ref().map_or(0, |(b, _)| b.games);
        games as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Turns played per second.
    pub fn turns_per_second(&self) -> f64 {
        let turns = self.tally.turns.sum + self.baseline.as_ref().map_or(0, |(b, _)| b.turns.sum);
        turns as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// What the games of two rulesets on one seed share, for the paired reports: the seed always,
/// the shuffle when they deal from as many decks, and the whole deal (hands, table, discard)
/// when the hand and table sizes match too. The differences are worded ruleset against
/// baseline: `2 decks against 1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shared {
    Deals,
    Shuffles(Vec<String>),
    Seeds(Vec<String>),
}

impl Shared {
    /// What `ruleset` and `baseline` share when `players` divers play them on one seed.
    pub fn of(ruleset: &Rules, baseline: &Rules, players: usize) -> Shared {
        let (a, b): (DealShape, DealShape) = (ruleset.deal_shape(players), baseline.deal_shape(players));
        let mut differ = Vec::new();
        if a.decks != b.decks {
            differ.push(format!("{} deck{} against {}", a.decks, if a.decks == 1 { "" } else { "s" }, b.decks));
        }
        if a.hand_size != b.hand_size {
            differ.push(format!("hands of {} cards against {}", a.hand_size, b.hand_size));
        }
        if a.table_size != b.table_size {
            differ.push(format!(
                "{} table slot{} against {}",
                a.table_size,
                if a.table_size == 1 { "" } else { "s" },
                b.table_size
            ));
        }
        match (a.decks == b.decks, differ.is_empty()) {
            (_, true) => Shared::Deals,
            (true, false) => Shared::Shuffles(differ),
            (false, false) => Shared::Seeds(differ),
        }
    }

    /// `deals`, `shuffles` or `seeds`: the most the two rulesets' games have in common.
    pub fn key(&self) -> &'static str {
        match self {
            Shared::Deals => "deals",
            Shared::Shuffles(_) => "shuffles",
            Shared::Seeds(_) => "seeds",
        }
    }

    /// How the deals differ (none when they are the same).
    pub fn differences(&self) -> &[String] {
        match self {
            Shared::Deals => &[],
            Shared::Shuffles(d) | Shared::Seeds(d) => d,
        }
    }

    /// `the same seeds and deals`; `the same seeds (the deals differ: 2 decks against 1)`.
    pub fn phrase(&self) -> String {
        match self {
            Shared::Deals => "the same seeds and deals".into(),
            Shared::Shuffles(d) => format!("the same seeds and shuffles (the deals differ: {})", d.join(", ")),
            Shared::Seeds(d) => format!("the same seeds (the deals differ: {})", d.join(", ")),
        }
    }
}

/// `diving sim`.
pub fn run(ruleset: Option<&str>, json: bool, args: &SimOptions) -> anyhow::Result<ExitCode> {
    if !args.sweep.is_empty() || args.sweep_file.is_some() {
        return sweep::run(ruleset, json, args);
    }
    let rules_spec = ruleset.unwrap_or("standard");
    let ruleset = Ruleset::load(rules_spec).with_context(|| format!("cannot load ruleset '{rules_spec}'"))?;
    let baseline = match &args.baseline {
        Some(spec) => Some(Ruleset::load(spec).with_context(|| format!("cannot load baseline ruleset '{spec}'"))?),
        None => None,
    };
    let config = config_of(args)?;
    check_plot_path(args.plot.as_deref())?;
    let bar = progress_bar(config.games * if baseline.is_some() { 2 } else { 1 });
    let result = simulate(&config, &ruleset, baseline.as_ref(), &|n| bar.inc(n));
    bar.finish_and_clear();
    let result = match result {
        Ok(result) => result,
        Err(SimError::Setup(message)) => anyhow::bail!(message),
        Err(e @ SimError::Game { .. }) => {
            let _ = writeln!(std::io::stderr(), "diving: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let report = report::Report { config: &config, ruleset: &ruleset, baseline: baseline.as_ref(), result: &result };
    let text = if json {
        report.json()
    } else if args.csv {
        report.csv()
    } else {
        report.text()
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("cannot write the report")?;
    if let Some(path) = &args.plot {
        plot::write_svg(path, &report).with_context(|| format!("cannot write the chart to {}", path.display()))?;
        if !json && !args.csv {
            writeln!(out, "chart written to {}", path.display())
                .and_then(|()| out.flush())
                .context("cannot write the report")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The simulation the options ask for.
fn config_of(args: &SimOptions) -> anyhow::Result<SimConfig> {
    let jobs = limits::jobs(args.jobs, args.games).map_err(anyhow::Error::msg)?;
    Ok(SimConfig {
        games: args.games,
        players: args.players.iter().map(|p| p.trim().to_string()).collect(),
        seed: args.seed,
        jobs,
        rotate: args.rotate,
        max_turns: args.max_turns,
    })
}

/// Refuses a `--plot` file that cannot be written, before the run rather than after an hour
/// of games.
fn check_plot_path(path: Option<&std::path::Path>) -> anyhow::Result<()> {
    if let Some(path) = path {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !dir.is_dir() {
            anyhow::bail!("--plot: cannot write the chart to {}: there is no folder {}", path.display(), dir.display());
        }
        if path.exists()
            && let Err(e) = limits::check_regular(path)
        {
            anyhow::bail!("--plot: cannot write the chart to {}: {e}", path.display());
        }
    }
    Ok(())
}

/// A progress bar with rate and ETA on stderr, only when stderr is a terminal.
fn progress_bar(len: u64) -> indicatif::ProgressBar {
    progress_bar_of(len, "games")
}

/// [`progress_bar`] counting `unit`s (`games`, `resamples`).
fn progress_bar_of(len: u64, unit: &'static str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    let template = format!("{{bar:40.cyan/blue}} {{human_pos}}/{{human_len}} {unit}  {{rate}}  ETA {{eta}}");
    let style = indicatif::ProgressStyle::with_template(&template)
        .map(|style| {
            style.with_key("rate", move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} {unit}/s", state.per_sec());
            })
        })
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// What the simulator counts of a game's events: cards played by rank, rescues,
/// recoveries and a mod's actions. It is the sink the games are applied with, so no event is kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// [`Event::Played`], by rank (index 0 = ace … 12 = king).
    pub plays: [u32; 13],
    /// [`Event::Rescued`].
    pub rescues: u32,
    /// [`Event::Recovered`].
    pub recoveries: u32,
    /// [`Event::Acted`]: actions a mod added, taken.
    pub acts: u32,
}

impl EventSink for EventCounts {
    #[inline(always)]
    fn push(&mut self, event: Event) {
        match event {
            Event::Played { card, .. } => self.plays[card.rank.number() as usize - 1] += 1,
            Event::Rescued { .. } => self.rescues += 1,
            Event::Recovered { .. } => self.recoveries += 1,
            Event::Acted { .. } => self.acts += 1,
            _ => {}
        }
    }
}

/// [`EventCounts`] and the leader's story, for the balance measures of a sweep
/// ([`simulate_balance`]): how often the lead passed to another diver. The plain simulator
/// does not follow the lead (it would cost a little on every move).
#[derive(Debug, Clone, Default)]
struct BalanceCounts {
    counts: EventCounts,
    depths: Vec<u32>,
    /// The diver strictly deepest the last time one was (ties keep the lead where it was).
    leader: Option<usize>,
    lead_changes: u32,
}

impl EventSink for BalanceCounts {
    fn push(&mut self, event: Event) {
        if let Event::Moved { player, to, .. } = event
            && let Some(depth) = self.depths.get_mut(player)
        {
            *depth = to;
            let (mut best, mut deepest) = (0, 0);
            for (seat, &d) in self.depths.iter().enumerate() {
                if d > deepest {
                    (best, deepest) = (seat, d);
                }
            }
            let held = self.leader.map_or(0, |l| self.depths[l]);
            if deepest > held && self.leader != Some(best) {
                self.lead_changes += u32::from(self.leader.is_some());
                self.leader = Some(best);
            }
        }
        self.counts.push(event);
    }
}

/// One ruleset's table: a game whose buffers are reused and the bots (one per player). Games
/// are applied with [`EventCounts`] as the sink, so no event is kept. Each worker thread
/// builds its own (a Lua registry is not shared). Public for the benchmarks, which time
/// exactly what the simulator runs.
pub struct Arena {
    game: Game,
    /// Whether the registry runs Lua mods (and is loaded afresh for every block of games).
    mods: bool,
    bots: Vec<Box<dyn Bot>>,
    /// Per seat, in the game being played: the bot that takes it.
    bot_at: Vec<usize>,
}

impl Arena {
    pub fn new(ruleset: &Ruleset, config: &SimConfig) -> Result<Arena, SimError> {
        let setup_err = |e: String| SimError::Setup(format!("ruleset {}: {e}", ruleset.name));
        let cap = match ruleset.rules.max_turns {
            0 => config.max_turns,
            own => own.min(config.max_turns),
        };
        let rules = Arc::new(Rules { max_turns: cap, ..(*ruleset.rules).clone() });
        let registry = ruleset.registry().map_err(|e| setup_err(e.to_string()))?;
        let names = (1..=config.players.len()).map(|i| format!("seat{i}")).collect();
        let game = Game::new(rules, registry, Setup { names, seed: config.seed, deck: None })
            .map_err(|e| setup_err(e.to_string()))?;
        let bots = config
            .players
            .iter()
            .map(|spec| bots::from_spec(spec, 0).map_err(|e| SimError::Setup(e.to_string())))
            .collect::<Result<Vec<Box<dyn Bot>>, _>>()?;
        Ok(Arena { game, mods: !ruleset.mods.is_empty(), bots, bot_at: Vec::new() })
    }

    /// The game being (or last) played.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Loads the ruleset's mods afresh (a new Lua state), so nothing a mod kept in its Lua
    /// variables carries over from the games played before. Nothing to do without mods.
    pub fn reload_mods(&mut self, ruleset: &Ruleset) -> Result<(), SimError> {
        if self.mods {
            let registry = ruleset.registry().map_err(|e| SimError::Setup(format!("ruleset {}: {e}", ruleset.name)))?;
            self.game = self.game.with_registry(registry);
        }
        Ok(())
    }

    /// Plays one game with `seed`, seat `s` taken by player `(s + rotation) % n`.
    pub fn play(&mut self, seed: u64, rotation: usize, record: &mut GameRecord) -> Result<(), String> {
        let mut counts = EventCounts::default();
        self.play_with(seed, rotation, record, &mut counts)?;
        record.plays = counts.plays;
        record.rescues = counts.rescues;
        record.recoveries = counts.recoveries;
        record.acts = counts.acts;
        Ok(())
    }

    /// [`Arena::play`], also measuring the lead changes and the winner's margin.
    pub fn play_balance(&mut self, seed: u64, rotation: usize, record: &mut GameRecord) -> Result<(), String> {
        // Every diver starts at the surface (D3).
        let mut counts = BalanceCounts { depths: vec![0; self.bots.len()], ..BalanceCounts::default() };
        self.play_with(seed, rotation, record, &mut counts)?;
        record.plays = counts.counts.plays;
        record.rescues = counts.counts.rescues;
        record.recoveries = counts.counts.recoveries;
        record.acts = counts.counts.acts;
        record.lead_changes = counts.lead_changes;
        if let Some(winner) = record.winner {
            let depth = |s: usize| self.game.player(s).depth;
            let runner_up = (0..self.bots.len()).filter(|&s| s != winner).map(depth).max().unwrap_or(0);
            record.margin = depth(winner).saturating_sub(runner_up);
        }
        Ok(())
    }

    fn play_with<S: EventSink>(
        &mut self,
        seed: u64,
        rotation: usize,
        record: &mut GameRecord,
        counts: &mut S,
    ) -> Result<(), String> {
        record.clear();
        self.game.restart(seed).map_err(|e| e.to_string())?;
        let n = self.bots.len();
        self.bot_at.clear();
        self.bot_at.extend((0..n).map(|seat| (seat + rotation) % n));
        for (seat, &b) in self.bot_at.iter().enumerate() {
            self.bots[b].start_game(derive_seed(seed, seat as u64));
        }
        // With mods, the game and each bot's move have a budget of mod work
        // ([`crate::script::decision`]); the standard rules run no Lua, and open none.
        let _game = self.mods.then(|| decision::decide_with(format!("game seed {seed}"), decision::GAME_STEPS));
        loop {
            match self.game.outcome() {
                Outcome::Running => {}
                Outcome::Won { by, winners } => {
                    record.winner = Some(by);
                    record.winners = winners;
                    record.team = self.game.teams().map(|t| t.team(by));
                    break;
                }
                Outcome::Draw => {
                    record.draw = true;
                    break;
                }
            }
            let seat = self.game.current();
            let b = self.bot_at[seat];
            let bot = &mut self.bots[b];
            // The action is used where `choose` left it: moving it out of the `Result` read
            // back freshly written bytes at an odd offset and stalled every turn.
            let chosen = if self.mods {
                let _move = decision::decide_with(format!("{}'s move", bot.name()), decision::BOT_STEPS);
                bot.choose(&View::new(&self.game, seat))
            } else {
                bot.choose(&View::new(&self.game, seat))
            };
            // A card whose mod cannot say whether it is playable is reported, not hidden (only
            // a mod's entry can fail to answer).
            if self.mods
                && let Some(failure) = self.game.moves().failure()
            {
                let failure = Viewer::Everyone.failure(failure);
                return Err(format!("a mod failed while {} listed the moves: {failure}", bot.name()));
            }
            let action = match &chosen {
                Ok(action) => action,
                // The simulator shows every card: the mod's message in full.
                Err(crate::bots::BotError::ModFailed { name, action, error }) => {
                    let error = Viewer::Everyone.failure(error);
                    return Err(format!("a mod failed on '{action}' while bot {name} weighed it: {error}"));
                }
                Err(e) => return Err(e.to_string()),
            };
            if let Err(e) = self.game.apply(action, counts) {
                return Err(match e {
                    ActionError::Script(message) => {
                        format!("a mod failed on '{action}' by {}: {}", bot.name(), Viewer::Everyone.failure(&message))
                    }
                    other => format!(
                        "bot {} (seat {}) chose an illegal action '{action}': {}",
                        bot.name(),
                        seat + 1,
                        Viewer::Everyone.error(&other)
                    ),
                });
            }
        }
        record.turns = self.game.turn();
        Ok(())
    }
}

/// One worker's share of the totals.
struct Share {
    tally: Tally,
    baseline: Option<(Tally, Paired)>,
}

/// Plays `config.games` games (twice each with a baseline) and returns the merged totals.
/// `progress` is called with the number of games just finished.
pub fn simulate(
    config: &SimConfig,
    ruleset: &Ruleset,
    baseline: Option<&Ruleset>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SimResult, SimError> {
    simulate_measuring(config, ruleset, baseline, false, progress)
}

/// [`simulate`], also measuring what a sweep reports beyond it: lead changes and the winner's
/// margin ([`Tally::lead_changes`], [`Tally::margins`]).
pub fn simulate_balance(
    config: &SimConfig,
    ruleset: &Ruleset,
    baseline: Option<&Ruleset>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SimResult, SimError> {
    simulate_measuring(config, ruleset, baseline, true, progress)
}

fn simulate_measuring(
    config: &SimConfig,
    ruleset: &Ruleset,
    baseline: Option<&Ruleset>,
    balance: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SimResult, SimError> {
    let n = config.players.len();
    if n < 2 {
        return Err(SimError::Setup("a simulation needs at least two players".into()));
    }
    if config.max_turns == 0 {
        return Err(SimError::Setup("the turn cap must be at least 1".into()));
    }
    for r in std::iter::once(ruleset).chain(baseline) {
        r.rules.validate_for(n).map_err(|e| SimError::Setup(format!("ruleset {}: {e}", r.name)))?;
    }
    // Build one arena up front so a bad bot or ruleset fails before any thread starts.
    Arena::new(ruleset, config)?;
    if let Some(b) = baseline {
        Arena::new(b, config)?;
    }

    let jobs = config.jobs.max(1);
    // With Lua mods, games are played in fixed blocks, each from freshly loaded mods: what a
    // mod keeps in its variables can only reach the later games of its block, whatever
    // `--jobs` is, and a failure is reproduced by replaying its block from the start.
    let stateful = has_mods(ruleset, baseline);
    let chunk = if stateful { block_size(n) } else { (config.games / (jobs as u64 * 32)).clamp(1, 512) };
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<(u64, String)>> = Mutex::new(None);
    let start = Instant::now();

    let worker = || -> Result<Share, SimError> {
        let mut arena = Arena::new(ruleset, config)?;
        let mut base_arena = baseline.map(|b| Arena::new(b, config)).transpose()?;
        let mut share = Share { tally: Tally::new(n), baseline: baseline.map(|_| (Tally::new(n), Paired::new(n))) };
        let (mut record, mut base_record) = (GameRecord::default(), GameRecord::default());
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let first = next.fetch_add(chunk, Ordering::Relaxed);
            if first >= config.games {
                break;
            }
            let last = (first + chunk).min(config.games);
            if stateful {
                arena.reload_mods(ruleset)?;
                if let (Some(base), Some(b)) = (base_arena.as_mut(), baseline) {
                    base.reload_mods(b)?;
                }
            }
            for i in first..last {
                let seed = config.seed.wrapping_add(i);
                let rotation = if config.rotate { (i % n as u64) as usize } else { 0 };
                let played = if balance {
                    arena.play_balance(seed, rotation, &mut record)
                } else {
                    arena.play(seed, rotation, &mut record)
                };
                let mut failed = played.err();
                if failed.is_none()
                    && let (Some(base), Some((tally, paired))) = (base_arena.as_mut(), share.baseline.as_mut())
                {
                    let played = if balance {
                        base.play_balance(seed, rotation, &mut base_record)
                    } else {
                        base.play(seed, rotation, &mut base_record)
                    };
                    match played {
                        Ok(()) => {
                            tally.observe(&base_record, rotation);
                            if balance {
                                tally.observe_balance(&base_record);
                            }
                            paired.observe(&record, &base_record);
                        }
                        Err(e) => failed = Some(format!("baseline: {e}")),
                    }
                }
                if let Some(message) = failed {
                    stop.store(true, Ordering::Relaxed);
                    let mut slot = failure.lock().unwrap_or_else(|p| p.into_inner());
                    if slot.as_ref().is_none_or(|(g, _)| i < *g) {
                        *slot = Some((i, message));
                    }
                    return Ok(share);
                }
                share.tally.observe(&record, rotation);
                if balance {
                    share.tally.observe_balance(&record);
                }
            }
            progress((last - first) * if baseline.is_some() { 2 } else { 1 });
        }
        Ok(share)
    };

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| SimError::Setup(format!("cannot start {jobs} worker threads: {e}")))?;
    let shares = pool.broadcast(|_| worker());
    let elapsed = start.elapsed();

    if let Some((game, message)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        let seed = config.seed.wrapping_add(game);
        let reproduce = if stateful {
            let start = game - game % block_size(n);
            block_command(config, ruleset, baseline, config.seed.wrapping_add(start), game - start + 1)
        } else {
            let rotation = if config.rotate { (game % n as u64) as usize } else { 0 };
            reproduce_command(config, ruleset, baseline, seed, rotation)
        };
        return Err(SimError::Game { game, seed, message, reproduce });
    }
    let mut tally = Tally::new(n);
    let mut base = baseline.map(|_| (Tally::new(n), Paired::new(n)));
    for share in shares {
        let share = share?;
        tally.merge(&share.tally);
        if let (Some((bt, bp)), Some((st, sp))) = (base.as_mut(), share.baseline.as_ref()) {
            bt.merge(st);
            bp.merge(sp);
        }
    }
    Ok(SimResult { tally, baseline: base, elapsed })
}

/// Whether either ruleset runs Lua mods.
fn has_mods(ruleset: &Ruleset, baseline: Option<&Ruleset>) -> bool {
    std::iter::once(ruleset).chain(baseline).any(|r| !r.mods.is_empty())
}

/// Games per block of a simulation with Lua mods: about 256, a multiple of the number of
/// players so that a block starts with the same seat rotation as the run.
pub fn block_size(players: usize) -> u64 {
    let n = players.max(1) as u64;
    n * (256 / n).max(1)
}

/// The `diving sim` command line that replays a block from its start (seed `seed`) up to
/// and including its `games`-th game.
fn block_command(config: &SimConfig, ruleset: &Ruleset, baseline: Option<&Ruleset>, seed: u64, games: u64) -> String {
    let mut cmd = format!("diving sim --games {games} --jobs 1 --seed {seed} --players {}", config.players.join(","));
    if config.rotate {
        cmd.push_str(" --rotate");
    }
    with_rules(cmd, config, ruleset, baseline)
}

/// `cmd` with the options naming the rules it ran with.
fn with_rules(mut cmd: String, config: &SimConfig, ruleset: &Ruleset, baseline: Option<&Ruleset>) -> String {
    if ruleset.name != "standard" {
        cmd.push_str(&format!(" --ruleset {}", ruleset.name));
    }
    if let Some(b) = baseline {
        cmd.push_str(&format!(" --baseline {}", b.name));
    }
    cmd.push_str(&format!(" --max-turns {}", config.max_turns));
    cmd
}

/// The `diving sim` command line that replays just this game.
fn reproduce_command(
    config: &SimConfig,
    ruleset: &Ruleset,
    baseline: Option<&Ruleset>,
    seed: u64,
    rotation: usize,
) -> String {
    let n = config.players.len();
    let players: Vec<&str> = (0..n).map(|s| config.players[(s + rotation) % n].as_str()).collect();
    let cmd = format!("diving sim --games 1 --jobs 1 --seed {seed} --players {}", players.join(","));
    with_rules(cmd, config, ruleset, baseline)
}
