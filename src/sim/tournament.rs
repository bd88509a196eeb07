//! `diving tournament`: a round-robin among bots under one ruleset or several, rated for
//! multi-player games with Weng-Lin (the `skillratings` crate), each rating with its
//! uncertainty.
//!
//! Every set of `--seats` distinct bots is a table; each table plays `--games` games with the
//! seats rotating, so every bot plays every seat equally often. Game `i` of every table is
//! dealt with seed `seed + i`, so the tables see the same deals. A game ranks its players:
//! the winner first, then the others by their final depth (ties share a place; a draw ranks
//! everyone by depth). The games are played in parallel and their rankings rated in one fixed
//! order (game by game, table by table), so the ratings do not depend on `--jobs`. A byte per
//! seat per game is kept for the ratings; the other statistics are folded into totals.
//!
//! The **skill-versus-luck** measure is the chance, by the ratings, that the top-rated bot
//! beats the bottom-rated one in a game of two: 50% would be a game of pure luck, 100% one of
//! pure skill.
//!
//! **Rulesets as players.** Every seat of a game plays under the same rules, so with several
//! `--ruleset`s an entrant is a bot under a ruleset (`greedy@house`), and a table is a set of
//! bots under one ruleset. Every ruleset plays the same tables on the same seeds (the same
//! deals when the deck sizes match), so the comparison is paired. Each ruleset's entrants are
//! rated as a pool of their own: ratings of different pools are not comparable, but their
//! skill-versus-luck measures are, and the rulesets are ranked by it. Its 95% intervals come
//! from [`RESAMPLES`] bootstrap resamples of the game numbers, drawn from the seed and shared
//! by every ruleset, so the differences between rulesets are paired too.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{Value, json};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, expected_score, weng_lin_multi_team};

use super::stats::{GameRecord, Tally};
use super::sweep::{Measure, measures};
use super::{Arena, SimConfig, SimError, block_command, block_size, progress_bar, progress_bar_of, reproduce_command};
use crate::bots::derive_seed;
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

/// Most tables one tournament may hold (per ruleset).
pub const MAX_TABLES: usize = 500;

/// Bootstrap resamples of the games behind the intervals of the rulesets' skill versus luck.
pub const RESAMPLES: usize = 200;

/// An entrant's standing.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// The bot, as `--bots` names it.
    pub bot: String,
    /// How the report names it: the bot, or with several rulesets `bot@ruleset`.
    pub entrant: String,
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

/// The bots under one ruleset, rated among themselves.
#[derive(Debug, Clone)]
pub struct Pool {
    /// The ruleset as the user named it.
    pub ruleset: String,
    /// Best first (by rating).
    pub standings: Vec<Standing>,
    /// By the ratings, the chance that the top-rated bot beats the bottom-rated one.
    pub skill_vs_luck: f64,
    /// The pool's games by seat: wins, lengths, draws.
    pub tally: Tally,
}

/// A ruleset's place in the ranking by skill versus luck, with 95% bootstrap intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Index into [`Tournament::pools`].
    pub pool: usize,
    pub low: f64,
    pub high: f64,
    /// The paired difference from the first ruleset's skill versus luck and its interval
    /// (0 for the first itself).
    pub behind: Measure,
}

/// A finished tournament.
#[derive(Debug, Clone)]
pub struct Tournament {
    /// One per ruleset, in the order given.
    pub pools: Vec<Pool>,
    pub tables: Vec<Vec<usize>>,
    /// Games per ruleset.
    pub games: u64,
    /// With several rulesets, after [`Tournament::rank`]: the rulesets, most skill first.
    pub ranking: Vec<Ranked>,
    /// Per pool, the places of its games, for the resamples of [`Tournament::rank`].
    played: Vec<Played>,
}

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

/// One ruleset's played games: per table, the places of game `i` by seat at `i * seats ..`.
type Played = Vec<Vec<u8>>;

/// Rates one pool's games, taken game by game in `order` (game numbers) and table by table:
/// each bot's rating, games and wins, by bot index.
fn rate(
    played: &Played,
    tables: &[Vec<usize>],
    bots: usize,
    order: impl Iterator<Item = usize>,
) -> Vec<(WengLinRating, u64, u64)> {
    let config = WengLinConfig::new();
    let mut rated = vec![(WengLinRating::new(), 0, 0); bots];
    for g in order {
        for (table, places) in tables.iter().zip(played) {
            let k = table.len();
            let rotation = g % k;
            let game = &places[g * k..(g + 1) * k];
            let teams: Vec<[WengLinRating; 1]> = (0..k).map(|s| [rated[table[(s + rotation) % k]].0]).collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(game)
                .map(|(team, &place)| (&team[..], MultiTeamOutcome::new(usize::from(place))))
                .collect();
            let sole_first = game.iter().filter(|&&p| p == 1).count() == 1;
            for (s, new) in weng_lin_multi_team(&ranked, &config).into_iter().enumerate() {
                let r = &mut rated[table[(s + rotation) % k]];
                r.0 = new[0];
                r.1 += 1;
                r.2 += u64::from(game[s] == 1 && sole_first);
            }
        }
    }
    rated
}

/// By the ratings, the chance that the top-rated bot beats the bottom-rated one (the first and
/// last of `ratings` sorted best first, ties in bot order).
fn skill_vs_luck(ratings: &[WengLinRating]) -> f64 {
    let mut order: Vec<&WengLinRating> = ratings.iter().collect();
    order.sort_by(|a, b| b.rating.total_cmp(&a.rating));
    expected_score(order[0], order[order.len() - 1], &WengLinConfig::new()).0
}

/// The value at quantile `q` of sorted `values` (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The 95% interval of `values` around `value`.
fn interval(key: &'static str, value: f64, mut values: Vec<f64>) -> Measure {
    values.sort_by(f64::total_cmp);
    Measure { key, value, low: quantile(&values, 0.025), high: quantile(&values, 0.975) }
}

/// Ranks the pools by skill versus luck. Every resample draws `games` game numbers with
/// replacement (from `seed`, the same for every pool) and rates each pool again on them, in
/// game order; the spread of the resampled measures gives each interval, and their paired
/// differences the interval of each ruleset's gap to the first. `progress` is called as each
/// resample is done.
fn rank(
    pools: &[Pool],
    played: &[Played],
    tables: &[Vec<usize>],
    bots: usize,
    games: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<Ranked> {
    let resampled: Vec<Vec<f64>> = (0..RESAMPLES as u64)
        .into_par_iter()
        .map(|b| {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, b));
            let mut order: Vec<usize> = (0..games).map(|_| rng.random_range(0..games) as usize).collect();
            order.sort_unstable();
            let measures = played
                .iter()
                .map(|p| {
                    let ratings: Vec<WengLinRating> =
                        rate(p, tables, bots, order.iter().copied()).into_iter().map(|r| r.0).collect();
                    skill_vs_luck(&ratings)
                })
                .collect();
            progress(1);
            measures
        })
        .collect();
    let mut order: Vec<usize> = (0..pools.len()).collect();
    order.sort_by(|&a, &b| pools[b].skill_vs_luck.total_cmp(&pools[a].skill_vs_luck));
    let first = order[0];
    order
        .into_iter()
        .map(|p| {
            let own = interval("skill-vs-luck", pools[p].skill_vs_luck, resampled.iter().map(|r| r[p]).collect());
            let gap = pools[p].skill_vs_luck - pools[first].skill_vs_luck;
            let behind = interval("behind", gap, resampled.iter().map(|r| r[p] - r[first]).collect());
            Ranked { pool: p, low: own.low, high: own.high, behind }
        })
        .collect()
}

/// Plays the round-robin under every ruleset and rates each ruleset's pool; with several,
/// [`Tournament::rank`] then ranks the rulesets.
pub fn play(
    options: &TournamentOptions,
    rulesets: &[Ruleset],
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
    if rulesets.is_empty() {
        return Err(SimError::Setup("a tournament needs a ruleset".into()));
    }
    for (i, r) in rulesets.iter().enumerate() {
        if rulesets[..i].iter().any(|o| o.name == r.name) {
            return Err(SimError::Setup(format!("ruleset {} is named twice", r.name)));
        }
    }
    let tables = tables(n, k);
    if tables.len() > MAX_TABLES {
        return Err(SimError::Setup(format!("more than {MAX_TABLES} tables: name fewer bots or more seats")));
    }
    for ruleset in rulesets {
        ruleset.rules.validate_for(k).map_err(|e| SimError::Setup(format!("ruleset {}: {e}", ruleset.name)))?;
    }
    let several = rulesets.len() > 1;
    let entrant = |b: usize, r: usize| match several {
        true => format!("{}@{}", options.bots[b], rulesets[r].name),
        false => options.bots[b].clone(),
    };
    // The blocks of games: per ruleset, per table, from game `first`.
    let block = block_size(k);
    let mut jobs_list: Vec<(usize, usize, u64)> = Vec::new();
    for r in 0..rulesets.len() {
        for t in 0..tables.len() {
            let mut first = 0;
            while first < options.games {
                jobs_list.push((r, t, first));
                first += block;
            }
        }
    }
    let stop = AtomicBool::new(false);
    let tallies = Mutex::new(vec![Tally::new(k); rulesets.len()]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| SimError::Setup(format!("cannot start {jobs} worker threads: {e}")))?;
    let play_block = |&(r, t, first): &(usize, usize, u64)| -> Result<Vec<u8>, SimError> {
        if stop.load(Ordering::Relaxed) {
            return Ok(Vec::new());
        }
        let ruleset = &rulesets[r];
        let config = SimConfig {
            games: options.games,
            players: tables[t].iter().map(|&b| options.bots[b].clone()).collect(),
            seed: options.seed,
            jobs: 1,
            rotate: true,
            max_turns: options.max_turns,
        };
        // A fresh arena, so a mod's Lua variables reach only the later games of this block.
        let mut arena = Arena::new(ruleset, &config)?;
        let mut record = GameRecord::default();
        let mut tally = Tally::new(k);
        let last = (first + block).min(options.games);
        let mut out = Vec::with_capacity((last - first) as usize * k);
        for i in first..last {
            let seed = options.seed.wrapping_add(i);
            let rotation = (i % k as u64) as usize;
            if let Err(message) = arena.play(seed, rotation, &mut record) {
                stop.store(true, Ordering::Relaxed);
                let reproduce = if ruleset.mods.is_empty() {
                    reproduce_command(&config, ruleset, None, seed, rotation)
                } else {
                    block_command(&config, ruleset, None, options.seed.wrapping_add(first), i - first + 1)
                };
                return Err(SimError::Game { game: i, seed, message, reproduce });
            }
            tally.observe(&record, rotation);
            let depths: Vec<u32> = (0..k).map(|s| arena.game().player(s).depth).collect();
            out.extend(places(&record, &depths).into_iter().map(|p| p as u8));
        }
        tallies.lock().unwrap_or_else(|p| p.into_inner())[r].merge(&tally);
        progress(last - first);
        Ok(out)
    };
    let blocks: Vec<Result<Vec<u8>, SimError>> = pool.install(|| jobs_list.par_iter().map(play_block).collect());
    // Per ruleset, per table, its games in order. The first failure in block order is reported.
    let mut played: Vec<Played> = vec![vec![Vec::new(); tables.len()]; rulesets.len()];
    for ((r, t, _), block) in jobs_list.iter().zip(blocks) {
        played[*r][*t].extend(block?);
    }
    let tallies = tallies.into_inner().unwrap_or_else(|p| p.into_inner());
    let pools: Vec<Pool> = rulesets
        .iter()
        .zip(&played)
        .zip(tallies)
        .enumerate()
        .map(|(r, ((ruleset, played), tally))| {
            let rated = rate(played, &tables, n, 0..options.games as usize);
            let skill_vs_luck = skill_vs_luck(&rated.iter().map(|x| x.0).collect::<Vec<_>>());
            let mut standings: Vec<Standing> = rated
                .into_iter()
                .enumerate()
                .map(|(b, (rating, games, wins))| Standing {
                    bot: options.bots[b].clone(),
                    entrant: entrant(b, r),
                    rating,
                    games,
                    wins,
                })
                .collect();
            standings.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating));
            Pool { ruleset: ruleset.name.clone(), standings, skill_vs_luck, tally }
        })
        .collect();
    Ok(Tournament { pools, games: options.games * tables.len() as u64, tables, ranking: Vec::new(), played })
}

/// The measure of `tally` with this key (see [`measures`]).
fn measure(tally: &Tally, key: &str) -> Measure {
    measures(tally).into_iter().find(|m| m.key == key).expect("a known measure")
}

impl Tournament {
    /// With several rulesets, ranks them by skill versus luck with bootstrap intervals
    /// ([`RESAMPLES`] resamples of the games drawn from `options.seed`, on `jobs` threads);
    /// `progress` is called as each resample is done. Nothing to do with one ruleset.
    pub fn rank(
        &mut self,
        options: &TournamentOptions,
        jobs: usize,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(), SimError> {
        if self.pools.len() < 2 {
            return Ok(());
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build()
            .map_err(|e| SimError::Setup(format!("cannot start {jobs} worker threads: {e}")))?;
        let (bots, games, seed) = (options.bots.len(), options.games, options.seed);
        self.ranking = pool.install(|| rank(&self.pools, &self.played, &self.tables, bots, games, seed, progress));
        Ok(())
    }

    pub fn text(&self, options: &TournamentOptions) -> String {
        if self.pools.len() == 1 {
            return self.text_one(&self.pools[0], options);
        }
        let mut s = String::new();
        let names: Vec<&str> = self.pools.iter().map(|p| p.ruleset.as_str()).collect();
        let _ = writeln!(
            s,
            "tournament under {} rulesets ({}): {} bots under each, {} tables of {} seats × {} games per ruleset \
             ({} games), seats rotating; game i of every table under every ruleset is dealt with seed {} + i",
            self.pools.len(),
            names.join(", "),
            options.bots.len(),
            self.tables.len(),
            options.seats,
            options.games,
            self.games * self.pools.len() as u64,
            options.seed
        );
        let _ = writeln!(
            s,
            "an entrant is a bot under a ruleset; each ruleset's entrants are rated as a pool of their own, \
             so ratings compare within a ruleset, never across"
        );
        let width = self.width();
        for pool in &self.pools {
            let (turns, gap, draws) =
                (measure(&pool.tally, "length"), measure(&pool.tally, "seat-balance"), measure(&pool.tally, "draws"));
            let _ = writeln!(
                s,
                "\nruleset {}: {:.1} ±{:.1} turns, seat gap {:.1} ±{:.1} points, draws {:.1}%\n",
                pool.ruleset,
                turns.value,
                turns.high - turns.value,
                100.0 * gap.value,
                100.0 * (gap.high - gap.value),
                100.0 * draws.value
            );
            self.standings(&mut s, pool, "entrant", width);
            let (top, bottom) = (&pool.standings[0], &pool.standings[pool.standings.len() - 1]);
            let _ = writeln!(
                s,
                "  skill versus luck: by the ratings, {} beats {} in {:.0}% of two-player games",
                top.entrant,
                bottom.entrant,
                100.0 * pool.skill_vs_luck
            );
        }
        let _ = writeln!(
            s,
            "\nwhich ruleset rewards skill most: skill versus luck (50% is pure luck, 100% pure skill), with 95% \
             intervals from {RESAMPLES} resamples of the games, the same games for every ruleset (seed {})\n",
            options.seed
        );
        let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(7).max(7);
        let _ =
            writeln!(s, "  rank  ruleset{}  skill vs luck      95% CI    behind the first (95% CI)", " ".repeat(w - 7));
        for (i, r) in self.ranking.iter().enumerate() {
            let pool = &self.pools[r.pool];
            let _ = write!(
                s,
                "  {:>4}  {:<w$}  {:>13.1}%  {:>4.1}–{:.1}%",
                i + 1,
                pool.ruleset,
                100.0 * pool.skill_vs_luck,
                100.0 * r.low,
                100.0 * r.high
            );
            if i > 0 {
                let b = &r.behind;
                let verdict = if b.high < 0.0 { "rewards skill less" } else { "not told apart" };
                let _ = write!(
                    s,
                    "    {:+.1} points ({:+.1} … {:+.1}): {verdict}",
                    100.0 * b.value,
                    100.0 * b.low,
                    100.0 * b.high
                );
            }
            s.push('\n');
        }
        let alike: Vec<&str> =
            self.ranking.iter().filter(|r| r.low == r.high).map(|r| self.pools[r.pool].ruleset.as_str()).collect();
        if !alike.is_empty() {
            let _ = writeln!(
                s,
                "\n{}: every resample gave the same measure (as when one bot wins every game), so the interval has no \
                 width; a bot closer in strength to the top one would tell more",
                alike.join(", ")
            );
        }
        s
    }

    /// The report of a tournament under one ruleset.
    fn text_one(&self, pool: &Pool, options: &TournamentOptions) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "tournament on ruleset {}: {} bots, {} tables of {} seats × {} games ({} games), seats rotating\n",
            pool.ruleset,
            pool.standings.len(),
            self.tables.len(),
            options.seats,
            options.games,
            self.games
        );
        self.standings(&mut s, pool, "bot", self.width());
        let (top, bottom) = (&pool.standings[0], &pool.standings[pool.standings.len() - 1]);
        let _ = writeln!(
            s,
            "\nskill versus luck: by the ratings, {} beats {} in {:.0}% of two-player games (50% is pure luck, 100% pure skill)",
            top.entrant,
            bottom.entrant,
            100.0 * pool.skill_vs_luck
        );
        s
    }

    /// A pool's table of standings, its first column headed `head`.
    fn standings(&self, s: &mut String, pool: &Pool, head: &str, width: usize) {
        let _ = writeln!(
            s,
            "  rank  {head}{}  rating (μ ± σ)   μ − 3σ   games   wins",
            " ".repeat(width.saturating_sub(head.chars().count()))
        );
        for (i, st) in pool.standings.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:>4}  {:<w$}  {:>6.2} ± {:<5.2}  {:>7.2}  {:>6}  {:>5.1}%",
                i + 1,
                st.entrant,
                st.rating.rating,
                st.rating.uncertainty,
                st.conservative(),
                st.games,
                100.0 * st.wins as f64 / st.games.max(1) as f64,
                w = width
            );
        }
    }

    /// The width of the entrant column: the longest name, and at least the head's.
    fn width(&self) -> usize {
        let head = if self.pools.len() == 1 { 3 } else { 7 };
        let names = self.pools.iter().flat_map(|p| &p.standings);
        names.map(|s| s.entrant.chars().count()).max().unwrap_or(head).max(head)
    }

    pub fn json(&self, options: &TournamentOptions) -> Value {
        let tables: Vec<Vec<String>> =
            self.tables.iter().map(|t| t.iter().map(|&b| options.bots[b].clone()).collect()).collect();
        if self.pools.len() == 1 {
            let pool = &self.pools[0];
            return json!({
                "ruleset": pool.ruleset,
                "seats": options.seats,
                "games_per_table": options.games,
                "seed": options.seed,
                "tables": tables,
                "standings": pool.standings.iter().map(|s| json!({
                    "bot": s.bot,
                    "rating": s.rating.rating,
                    "uncertainty": s.rating.uncertainty,
                    "conservative": s.conservative(),
                    "games": s.games,
                    "wins": s.wins,
                })).collect::<Vec<_>>(),
                "skill_vs_luck": pool.skill_vs_luck,
            });
        }
        let range = |m: &Measure| json!({ "value": m.value, "low": m.low, "high": m.high });
        json!({
            "rulesets": self.pools.iter().map(|p| p.ruleset.clone()).collect::<Vec<_>>(),
            "seats": options.seats,
            "games_per_table": options.games,
            "seed": options.seed,
            "tables": tables,
            "pools": self.pools.iter().map(|pool| json!({
                "ruleset": pool.ruleset,
                "standings": pool.standings.iter().map(|s| json!({
                    "entrant": s.entrant,
                    "bot": s.bot,
                    "rating": s.rating.rating,
                    "uncertainty": s.rating.uncertainty,
                    "conservative": s.conservative(),
                    "games": s.games,
                    "wins": s.wins,
                })).collect::<Vec<_>>(),
                "skill_vs_luck": pool.skill_vs_luck,
                "length": range(&measure(&pool.tally, "length")),
                "seat_balance": range(&measure(&pool.tally, "seat-balance")),
                "draws": range(&measure(&pool.tally, "draws")),
            })).collect::<Vec<_>>(),
            "resamples": RESAMPLES,
            "ranking": self.ranking.iter().map(|r| json!({
                "ruleset": self.pools[r.pool].ruleset,
                "skill_vs_luck": { "value": self.pools[r.pool].skill_vs_luck, "low": r.low, "high": r.high },
                "behind_first": range(&r.behind),
            })).collect::<Vec<_>>(),
        })
    }
}

/// `diving tournament`: every bot under every ruleset named (`standard` without one).
pub fn run(rulesets: &[String], json_out: bool, options: &TournamentOptions) -> anyhow::Result<ExitCode> {
    let standard = ["standard".to_string()];
    let specs = if rulesets.is_empty() { &standard[..] } else { rulesets };
    let rulesets = specs
        .iter()
        .map(|spec| Ruleset::load(spec).with_context(|| format!("cannot load ruleset '{spec}'")))
        .collect::<anyhow::Result<Vec<Ruleset>>>()?;
    let tables = tables(options.bots.len(), options.seats.min(options.bots.len())).len() as u64;
    let games = options.games.saturating_mul(tables).saturating_mul(rulesets.len() as u64);
    let jobs = limits::jobs(options.jobs, games.max(1)).map_err(anyhow::Error::msg)?;
    let bar = progress_bar(games);
    let result = play(options, &rulesets, jobs, &|n| bar.inc(n));
    bar.finish_and_clear();
    let result = result.and_then(|mut t| {
        let bar = progress_bar_of(if rulesets.len() > 1 { RESAMPLES as u64 } else { 0 }, "resamples");
        let ranked = t.rank(options, jobs, &|n| bar.inc(n));
        bar.finish_and_clear();
        ranked.map(|()| t)
    });
    let tournament = match result {
        Ok(t) => t,
        Err(SimError::Setup(message)) => anyhow::bail!(message),
        Err(e @ SimError::Game { .. }) => {
            let _ = writeln!(std::io::stderr(), "diving: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let text = if json_out {
        serde_json::to_string(&tournament.json(options)).expect("JSON") + "\n"
    } else {
        tournament.text(options)
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

    /// Places for `games` games of one table of two: bot 1 wins game `g` when `wins(g)`.
    fn two_bots(games: usize, wins: impl Fn(usize) -> bool) -> Played {
        let places = (0..games).flat_map(|g| {
            // Seat s holds bot (s + g % 2) % 2.
            let bot1_seat = (1 + g % 2) % 2;
            let first = if wins(g) { bot1_seat } else { 1 - bot1_seat };
            (0..2).map(move |s| if s == first { 1 } else { 2 })
        });
        vec![places.collect()]
    }

    #[test]
    fn a_pool_the_strong_bot_always_wins_ranks_above_a_coin_toss() {
        let tables = vec![vec![0, 1]];
        let played = vec![two_bots(60, |g| g % 2 == 0), two_bots(60, |_| true)];
        let pools: Vec<Pool> = played
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let rated = rate(p, &tables, 2, 0..60);
                assert_eq!(rated[1].1, 60);
                Pool {
                    ruleset: format!("r{i}"),
                    standings: Vec::new(),
                    skill_vs_luck: skill_vs_luck(&rated.iter().map(|r| r.0).collect::<Vec<_>>()),
                    tally: Tally::new(2),
                }
            })
            .collect();
        assert!(pools[0].skill_vs_luck < 0.6 && pools[1].skill_vs_luck > 0.9, "{pools:?}");
        let ranking = rank(&pools, &played, &tables, 2, 60, 7, &|_| {});
        assert_eq!(ranking.iter().map(|r| r.pool).collect::<Vec<_>>(), [1, 0]);
        assert_eq!((ranking[0].behind.value, ranking[0].behind.low, ranking[0].behind.high), (0.0, 0.0, 0.0));
        let coin = &ranking[1];
        assert!(coin.low < pools[0].skill_vs_luck && pools[0].skill_vs_luck < coin.high, "{coin:?}");
        assert!(coin.behind.high < 0.0, "{coin:?}");
        assert_eq!(ranking, rank(&pools, &played, &tables, 2, 60, 7, &|_| {}), "the same seed, the same intervals");
    }
}
