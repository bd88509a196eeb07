//! `diving tournament`: a round-robin among bots on one ruleset, rated for multi-player
//! games with Weng-Lin (the `skillratings` crate), each rating with its uncertainty.
//!
//! Every set of `--seats` distinct bots is a table; each table plays `--games` games with the
//! seats rotating, so every bot plays every seat equally often. Game `i` of every table is
//! dealt with seed `seed + i`, so the tables see the same deals. A game ranks its players:
//! the winner first, then the others by their final depth (ties share a place; a draw ranks
//! everyone by depth). The games are played in parallel and their rankings rated in one fixed
//! order (game by game, table by table), so the ratings do not depend on `--jobs`.
//!
//! The **skill-versus-luck** measure is the chance, by the ratings, that the top-rated bot
//! beats the bottom-rated one in a game of two: 50% would be a game of pure luck, 100% one of
//! pure skill.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use rayon::prelude::*;
use serde_json::{Value, json};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, expected_score, weng_lin_multi_team};

use super::stats::GameRecord;
use super::{Arena, SimConfig, SimError, block_size, progress_bar};
use crate::limits;
use crate::ruleset::Ruleset;

/// What `diving tournament` was asked for, as plain values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentOptions {
    pub bots: Vec<String>,
    /// Players per game.
    pub seats: usize,
    /// Games per table.
    pub games: u64,
    pub seed: u64,
    pub jobs: Option<usize>,
    pub max_turns: u32,
}

/// Most tables one tournament may hold.
pub const MAX_TABLES: usize = 500;

/// A bot's standing.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub bot: String,
    pub rating: WengLinRating,
    pub games: u64,
    pub wins: u64,
}

impl Standing {
    /// The rating less three uncertainties: a bot is this good with about 99.7% confidence.
    pub fn conservative(&self) -> f64 {
        self.rating.rating - 3.0 * self.rating.uncertainty
    }
}

/// A finished tournament.
#[derive(Debug, Clone)]
pub struct Tournament {
    /// Best first (by rating).
    pub standings: Vec<Standing>,
    pub tables: Vec<Vec<usize>>,
    pub games: u64,
    /// By the ratings, the chance that the top-rated bot beats the bottom-rated one.
    pub skill_vs_luck: f64,
}

/// One game's players (bot indices) with their places, by seat.
type Placed = Vec<(usize, usize)>;

/// Every set of `k` of `0..n`, in lexicographic order.
fn tables(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut pick = Vec::with_capacity(k);
    fn walk(from: usize, n: usize, k: usize, pick: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if pick.len() == k {
            out.push(pick.clone());
            return;
        }
        for i in from..n {
            if out.len() > MAX_TABLES {
                return;
            }
            pick.push(i);
            walk(i + 1, n, k, pick, out);
            pick.pop();
        }
    }
    walk(0, n, k, &mut pick, &mut out);
    out
}

/// The places of one game, by seat: the winner first, the others by final depth.
fn places(record: &GameRecord, depths: &[u32]) -> Vec<usize> {
    let key = |s: usize| (record.winner == Some(s), depths[s]);
    (0..depths.len()).map(|s| 1 + (0..depths.len()).filter(|&o| key(o) > key(s)).count()).collect()
}

/// Plays the round-robin and rates it.
pub fn play(
    options: &TournamentOptions,
    ruleset: &Ruleset,
    jobs: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tournament, SimError> {
    let (n, k) = (options.bots.len(), options.seats);
    if k < 2 {
        return Err(SimError::Setup("a game needs at least two seats".into()));
    }
    if n < k {
        return Err(SimError::Setup(format!("{k} seats need at least {k} different bots (got {n})")));
    }
    for (i, b) in options.bots.iter().enumerate() {
        if options.bots[..i].contains(b) {
            return Err(SimError::Setup(format!("bot {b} is named twice")));
        }
    }
    let tables = tables(n, k);
    if tables.len() > MAX_TABLES {
        return Err(SimError::Setup(format!("more than {MAX_TABLES} tables: name fewer bots or more seats")));
    }
    ruleset.rules.validate_for(k).map_err(|e| SimError::Setup(format!("ruleset {}: {e}", ruleset.name)))?;
    // Per table, per game: each seat's bot (by index) and place.
    let block = block_size(k);
    let mut jobs_list: Vec<(usize, u64)> = Vec::new();
    for t in 0..tables.len() {
        let mut first = 0;
        while first < options.games {
            jobs_list.push((t, first));
            first += block;
        }
    }
    let stop = AtomicBool::new(false);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| SimError::Setup(format!("cannot start {jobs} worker threads: {e}")))?;
    let play_block = |&(t, first): &(usize, u64)| -> Result<Vec<Placed>, SimError> {
        if stop.load(Ordering::Relaxed) {
            return Ok(Vec::new());
        }
        let players: Vec<String> = tables[t].iter().map(|&b| options.bots[b].clone()).collect();
        let config = SimConfig {
            games: options.games,
            players,
            seed: options.seed,
            jobs: 1,
            rotate: true,
            max_turns: options.max_turns,
        };
        let mut arena = Arena::new(ruleset, &config)?;
        let mut record = GameRecord::default();
        let mut out = Vec::new();
        let last = (first + block).min(options.games);
        for i in first..last {
            let seed = options.seed.wrapping_add(i);
            let rotation = (i % k as u64) as usize;
            if let Err(message) = arena.play(seed, rotation, &mut record) {
                stop.store(true, Ordering::Relaxed);
                let players = (0..k).map(|s| config.players[(s + rotation) % k].as_str()).collect::<Vec<_>>().join(",");
                return Err(SimError::Game {
                    game: i,
                    seed,
                    message,
                    reproduce: format!("diving sim --games 1 --jobs 1 --seed {seed} --players {players}"),
                });
            }
            let depths: Vec<u32> = (0..k).map(|s| arena.game().player(s).depth).collect();
            let places = places(&record, &depths);
            out.push((0..k).map(|s| (tables[t][(s + rotation) % k], places[s])).collect());
        }
        progress(last - first);
        Ok(out)
    };
    let blocks: Vec<Result<Vec<Placed>, SimError>> = pool.install(|| jobs_list.par_iter().map(play_block).collect());
    // Per table, its games in order.
    let mut by_table: Vec<Vec<Placed>> = vec![Vec::new(); tables.len()];
    for ((t, _), block) in jobs_list.iter().zip(blocks) {
        by_table[*t].extend(block?);
    }
    let config = WengLinConfig::new();
    let mut standings: Vec<Standing> = options
        .bots
        .iter()
        .map(|b| Standing { bot: b.clone(), rating: WengLinRating::new(), games: 0, wins: 0 })
        .collect();
    for g in 0..options.games as usize {
        for games in &by_table {
            let game = &games[g];
            let teams: Vec<[WengLinRating; 1]> = game.iter().map(|&(b, _)| [standings[b].rating]).collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> =
                teams.iter().zip(game).map(|(team, &(_, place))| (&team[..], MultiTeamOutcome::new(place))).collect();
            let rated = weng_lin_multi_team(&ranked, &config);
            for (&(b, place), new) in game.iter().zip(rated) {
                let s = &mut standings[b];
                s.rating = new[0];
                s.games += 1;
                s.wins += u64::from(place == 1 && game.iter().filter(|(_, p)| *p == 1).count() == 1);
            }
        }
    }
    standings.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating));
    let (top, bottom) = (&standings[0].rating, &standings[standings.len() - 1].rating);
    let skill_vs_luck = expected_score(top, bottom, &config).0;
    Ok(Tournament { standings, games: options.games * tables.len() as u64, tables, skill_vs_luck })
}

impl Tournament {
    pub fn text(&self, ruleset: &Ruleset, options: &TournamentOptions) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "tournament on ruleset {}: {} bots, {} tables of {} seats × {} games ({} games), seats rotating\n",
            ruleset.name,
            self.standings.len(),
            self.tables.len(),
            options.seats,
            options.games,
            self.games
        );
        let _ = writeln!(
            s,
            "  rank  bot{}  rating (μ ± σ)   μ − 3σ   games   wins",
            " ".repeat(self.width().saturating_sub(3))
        );
        for (i, st) in self.standings.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:>4}  {:<w$}  {:>6.2} ± {:<5.2}  {:>7.2}  {:>6}  {:>5.1}%",
                i + 1,
                st.bot,
                st.rating.rating,
                st.rating.uncertainty,
                st.conservative(),
                st.games,
                100.0 * st.wins as f64 / st.games.max(1) as f64,
                w = self.width()
            );
        }
        let (top, bottom) = (&self.standings[0], &self.standings[self.standings.len() - 1]);
        let _ = writeln!(
            s,
            "\nskill versus luck: by the ratings, {} beats {} in {:.0}% of two-player games (50% is pure luck, 100% pure skill)",
            top.bot,
            bottom.bot,
            100.0 * self.skill_vs_luck
        );
        s
    }

    fn width(&self) -> usize {
        self.standings.iter().map(|s| s.bot.chars().count()).max().unwrap_or(3).max(3)
    }

    pub fn json(&self, ruleset: &Ruleset, options: &TournamentOptions) -> Value {
        json!({
            "ruleset": ruleset.name,
            "seats": options.seats,
            "games_per_table": options.games,
            "seed": options.seed,
            "tables": self.tables.iter().map(|t| t.iter().map(|&b| options.bots[b].clone()).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "standings": self.standings.iter().map(|s| json!({
                "bot": s.bot,
                "rating": s.rating.rating,
                "uncertainty": s.rating.uncertainty,
                "conservative": s.conservative(),
                "games": s.games,
                "wins": s.wins,
            })).collect::<Vec<_>>(),
            "skill_vs_luck": self.skill_vs_luck,
        })
    }
}

/// `diving tournament`.
pub fn run(ruleset: Option<&str>, json_out: bool, options: &TournamentOptions) -> anyhow::Result<ExitCode> {
    let spec = ruleset.unwrap_or("standard");
    let ruleset = Ruleset::load(spec).with_context(|| format!("cannot load ruleset '{spec}'"))?;
    let tables = tables(options.bots.len(), options.seats.min(options.bots.len())).len() as u64;
    let jobs = limits::jobs(options.jobs, options.games.saturating_mul(tables.max(1))).map_err(anyhow::Error::msg)?;
    let bar = progress_bar(options.games.saturating_mul(tables));
    let result = play(options, &ruleset, jobs, &|n| bar.inc(n));
    bar.finish_and_clear();
    let tournament = match result {
        Ok(t) => t,
        Err(SimError::Setup(message)) => anyhow::bail!(message),
        Err(e @ SimError::Game { .. }) => {
            let _ = writeln!(std::io::stderr(), "diving: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let text = if json_out {
        serde_json::to_string(&tournament.json(&ruleset, options)).expect("JSON") + "\n"
    } else {
        tournament.text(&ruleset, options)
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("cannot write the report")?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_every_set_of_seats() {
        assert_eq!(tables(3, 2), [[0, 1], [0, 2], [1, 2]]);
        assert_eq!(tables(4, 3).len(), 4);
    }

    #[test]
    fn the_winner_places_first_and_the_rest_by_depth() {
        let won = GameRecord { winner: Some(2), ..GameRecord::default() };
        assert_eq!(places(&won, &[40, 60, 100, 60]), [4, 2, 1, 2]);
        let draw = GameRecord { draw: true, ..GameRecord::default() };
        assert_eq!(places(&draw, &[10, 10]), [1, 1]);
    }
}
