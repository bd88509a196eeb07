//! `diving tournament`: a round-robin (or Swiss rounds) among bots under one ruleset or
//! several, rated for multi-player games with Weng-Lin (the `skillratings` crate), each rating
//! with its uncertainty.
//!
//! Every set of `--seats` distinct bots is a table; each table plays `--games` games with the
//! seats rotating, so every bot plays every seat equally often. Game `i` of every table is
//! dealt with seed `seed + i`, so the tables see the same deals. A game ranks its players:
//! the winner first, then the others by their final depth (ties share a place; a draw ranks
//! everyone by depth from second place, so a draw has no first place and counts nobody's
//! win). The games are played in parallel and their rankings rated in one fixed
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
//!
//! **Swiss rounds** (`--pairing swiss --rounds N`) instead of the round-robin: each round
//! seats bots of like rating so far together, avoiding tables already played, and the bots
//! left over sit out in turn (`swiss_tables`). Round `r`'s game `i` is dealt with seed
//! `seed + r × games + i`. A round is drawn from the ratings after the rounds before it, so
//! each ruleset's pool is seated by its own ratings; the resamples keep the tables each round
//! had.

use std::collections::HashSet;
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
use crate::core::Seats;
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
    pub pairing: Pairing,
}

/// How the tables are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// One round of every set of `seats` bots.
    RoundRobin,
    /// This many rounds, each seating bots of like rating together (`swiss_tables`).
    Swiss { rounds: u32 },
}

/// Most tables one tournament may hold (per ruleset and round).
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
    /// Those two bots (their indices), whom every resample of the pool compares again.
    pub pair: (usize, usize),
    /// The pool's games by seat: wins, lengths, draws.
    pub tally: Tally,
    /// Its rounds, in order (one for a round-robin).
    pub rounds: Vec<Round>,
}

/// One round of a pool: its tables (bot indices) and how their games ended.
#[derive(Debug, Clone, Default)]
pub struct Round {
    pub tables: Vec<Vec<usize>>,
    /// Per table, the places of game `i` by seat at `i * seats ..`: a byte per seat per game.
    places: Vec<Vec<u8>>,
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
    /// Games per ruleset.
    pub games: u64,
    /// With several rulesets, after [`Tournament::rank`]: the rulesets, most skill first.
    pub ranking: Vec<Ranked>,
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

/// The places of one game, by seat: the winners first (a team's win is each member's: they
/// share first place), the others by final depth. A draw has no winner, so its places start
/// at 2: the deepest diver of a draw is not counted as winning it. (Ratings compare places only
/// with each other, so this leaves them as they were.)
fn places(record: &GameRecord, depths: &[u32]) -> Vec<usize> {
    finishing_places(record.winning_seats(), depths)
}

/// The places (as `places` gives them) of a game won by `winners` (none: a draw) with these
/// final depths: the one ranking the balance lab's ratings and the host's (`diving host`) use.
pub fn finishing_places(winners: Seats, depths: &[u32]) -> Vec<usize> {
    // Winners tie at first place whatever their depths; the others rank by depth.
    let key = |s: usize| if winners.contains(s) { (true, 0) } else { (false, depths[s]) };
    let first = if winners.is_empty() { 2 } else { 1 };
    (0..depths.len()).map(|s| first + (0..depths.len()).filter(|&o| key(o) > key(s)).count()).collect()
}

/// Each bot's rating, games and wins, by bot index.
type Rated = Vec<(WengLinRating, u64, u64)>;

/// Rates game `i` of every table of `round`, table by table.
fn fold(rated: &mut Rated, round: &Round, i: usize, config: &WengLinConfig) {
    for (table, places) in round.tables.iter().zip(&round.places) {
        let k = table.len();
        let rotation = i % k;
        let game = &places[i * k..(i + 1) * k];
        let teams: Vec<[WengLinRating; 1]> = (0..k).map(|s| [rated[table[(s + rotation) % k]].0]).collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(game)
            .map(|(team, &place)| (&team[..], MultiTeamOutcome::new(usize::from(place))))
            .collect();
        for (s, new) in weng_lin_multi_team(&ranked, config).into_iter().enumerate() {
            let r = &mut rated[table[(s + rotation) % k]];
            r.0 = new[0];
            r.1 += 1;
            // First place is a win (a team's win counts for each member; a draw has none).
            r.2 += u64::from(game[s] == 1);
        }
    }
}

/// Rates one pool's games, taken in `order`: game numbers counted across the rounds
/// (`games` a round), each game table by table.
fn rate(rounds: &[Round], bots: usize, games: usize, order: impl Iterator<Item = usize>) -> Rated {
    let config = WengLinConfig::new();
    let mut rated = vec![(WengLinRating::new(), 0, 0); bots];
    for g in order {
        fold(&mut rated, &rounds[g / games], g % games, &config);
    }
    rated
}

/// The tables of a Swiss round: the bots best-rated first (ties in bot order); the `bots mod
/// seats` with the fewest byes so far sit out (the lowest-rated of them), and each table
/// seats the best bot left with the next best it has not yet sat with as that table, going
/// back to an earlier table when that leaves no new table for the bots after it
/// ([`seat_new`]). Only when no seating of new tables exists (or the search runs out of
/// steps) does a table repeat: then each table seats the best bot left with the next best it
/// has not yet sat with, else simply the next best. A table lists its bots in index order.
fn swiss_tables(rated: &Rated, k: usize, met: &HashSet<Vec<usize>>, byes: &mut [u32]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..rated.len()).collect();
    order.sort_by(|&a, &b| rated[b].0.rating.total_cmp(&rated[a].0.rating));
    let mut out_by: Vec<usize> = order.iter().rev().copied().collect();
    out_by.sort_by_key(|&b| byes[b]);
    let out: Vec<usize> = out_by.into_iter().take(order.len() % k).collect();
    for &b in &out {
        byes[b] += 1;
    }
    let mut left: Vec<usize> = order.into_iter().filter(|b| !out.contains(b)).collect();
    if let Some(tables) = seat_new(&left, k, met, &mut 100_000) {
        return tables;
    }
    let mut seated = Vec::new();
    while !left.is_empty() {
        let (head, rest) = (left[0], &left[1..]);
        // The first `k - 1` of the rest, in rank order, that make a new table: a bounded search.
        let mut pick: Vec<usize> = (0..k - 1).collect();
        let mut chosen = pick.clone();
        for _ in 0..10_000 {
            let mut table: Vec<usize> = std::iter::once(head).chain(pick.iter().map(|&i| rest[i])).collect();
            table.sort_unstable();
            if !met.contains(&table) {
                chosen = pick.clone();
                break;
            }
            // The next combination of `k - 1` positions in `rest`, if any.
            let Some(j) = (0..k - 1).rev().find(|&j| pick[j] + k < rest.len() + j + 1) else { break };
            pick[j] += 1;
            for l in j + 1..k - 1 {
                pick[l] = pick[l - 1] + 1;
            }
        }
        let mut table: Vec<usize> = std::iter::once(head).chain(chosen.iter().map(|&i| rest[i])).collect();
        table.sort_unstable();
        left.retain(|b| !table.contains(b));
        seated.push(table);
    }
    seated
}

/// `left` (best first) seated at tables of `k` that were never played: the best bot left with
/// the best-ranked others that make a new table, the later tables seated the same way, and
/// the next choice for a table whenever the bots after it cannot all sit at new tables.
/// `None` when there is no such seating, or none was found within `steps` tables tried.
fn seat_new(left: &[usize], k: usize, met: &HashSet<Vec<usize>>, steps: &mut u32) -> Option<Vec<Vec<usize>>> {
    let Some((&head, rest)) = left.split_first() else { return Some(Vec::new()) };
    if rest.len() < k - 1 {
        return None;
    }
    // Positions in `rest` of the others at the table, in combination order.
    let mut pick: Vec<usize> = (0..k - 1).collect();
    loop {
        *steps = steps.checked_sub(1)?;
        let mut table: Vec<usize> = std::iter::once(head).chain(pick.iter().map(|&i| rest[i])).collect();
        table.sort_unstable();
        if !met.contains(&table) {
            let others: Vec<usize> = rest.iter().copied().filter(|b| !table.contains(b)).collect();
            if let Some(mut tables) = seat_new(&others, k, met, steps) {
                tables.insert(0, table);
                return Some(tables);
            }
        }
        let j = (0..k - 1).rev().find(|&j| pick[j] + k < rest.len() + j + 1)?;
        pick[j] += 1;
        for l in j + 1..k - 1 {
            pick[l] = pick[l - 1] + 1;
        }
    }
}

/// By the ratings, the chance that the top-rated bot beats the bottom-rated one (the first and
/// last of `ratings` sorted best first, ties in bot order).
fn skill_vs_luck(ratings: &[WengLinRating]) -> f64 {
    skill_between(ratings, extremes(ratings))
}

/// The top-rated and the bottom-rated bot of `ratings` (their indices; ties in bot order).
fn extremes(ratings: &[WengLinRating]) -> (usize, usize) {
    let mut order: Vec<usize> = (0..ratings.len()).collect();
    order.sort_by(|&a, &b| ratings[b].rating.total_cmp(&ratings[a].rating));
    (order[0], order[order.len() - 1])
}

/// By `ratings`, the chance that bot `pair.0` beats bot `pair.1` in a game of two.
fn skill_between(ratings: &[WengLinRating], pair: (usize, usize)) -> f64 {
    expected_score(&ratings[pair.0], &ratings[pair.1], &WengLinConfig::new()).0
}

/// The value at quantile `q` of sorted `values` (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The 95% interval of `values` (a measure's resamples) around `value` (the measure): their
/// 2.5% and 97.5% quantiles, shifted by how far their median lies from the measure. The shift
/// is the resampling's own bias (the measure's curve near 100% is not straight), which would
/// otherwise put the measure outside its own interval (96.7% shown with 96.8–98.1%: issue
/// 44); the spread is the resamples'.
fn interval(key: &'static str, value: f64, mut values: Vec<f64>) -> Measure {
    values.sort_by(f64::total_cmp);
    let shift = value - quantile(&values, 0.5);
    // A chance stays within 0…1, a difference of two within −1…1.
    let (floor, ceiling) = if key == "skill-vs-luck" { (0.0, 1.0) } else { (-1.0, 1.0) };
    let bound = |x: f64| x.clamp(floor, ceiling);
    Measure { key, value, low: bound(quantile(&values, 0.025) + shift), high: bound(quantile(&values, 0.975) + shift) }
}

/// Ranks the pools by skill versus luck. Every resample draws as many game numbers as were
/// played (counted across the rounds, `games` a round) with replacement (from `seed`, the same
/// for every pool) and rates each pool again on them, in game order, on the tables each round
/// had (a Swiss round is not drawn again); the spread of the resampled measures gives each interval, and their paired
/// differences the interval of each ruleset's gap to the first. `progress` is called as each
/// resample is done.
fn rank(pools: &[Pool], bots: usize, games: usize, seed: u64, progress: &(dyn Fn(u64) + Sync)) -> Vec<Ranked> {
    let total = games * pools[0].rounds.len();
    let resampled: Vec<Vec<f64>> = (0..RESAMPLES as u64)
        .into_par_iter()
        .map(|b| {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, b));
            let mut order: Vec<usize> = (0..total).map(|_| rng.random_range(0..total)).collect();
            order.sort_unstable();
            let measures = pools
                .iter()
                .map(|p| {
                    let ratings: Vec<WengLinRating> =
                        rate(&p.rounds, bots, games, order.iter().copied()).into_iter().map(|r| r.0).collect();
                    // The pool's own top and bottom bots, compared again: the best and the
                    // worst of each resample would be a maximum over noise, biased up, and
                    // its interval could miss the measure itself (96.7% shown with 96.8–98.1%).
                    skill_between(&ratings, p.pair)
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

/// Plays the tournament under every ruleset and rates each ruleset's pool; with several,
/// [`Tournament::rank`] then ranks the rulesets. Round `r`'s game `i` at every table is dealt
/// with seed `seed + r × games + i`; a Swiss round is drawn from the ratings after the rounds
/// before it, so the rounds are played one after another, each in parallel.
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
    let (every, rounds) = match options.pairing {
        Pairing::RoundRobin => (tables(n, k), 1),
        Pairing::Swiss { rounds } => (Vec::new(), rounds as usize),
    };
    if every.len() > MAX_TABLES || n / k > MAX_TABLES {
        return Err(SimError::Setup(format!("more than {MAX_TABLES} tables: name fewer bots or more seats")));
    }
    if rounds == 0 {
        return Err(SimError::Setup("a Swiss tournament needs at least one round".into()));
    }
    for ruleset in rulesets {
        ruleset.rules.validate_for(k).map_err(|e| SimError::Setup(format!("ruleset {}: {e}", ruleset.name)))?;
    }
    let several = rulesets.len() > 1;
    let entrant = |b: usize, r: usize| match several {
        true => format!("{}@{}", options.bots[b], rulesets[r].name),
        false => options.bots[b].clone(),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| SimError::Setup(format!("cannot start {jobs} worker threads: {e}")))?;
    let config = WengLinConfig::new();
    let block = block_size(k);
    let games = options.games as usize;
    let mut rated: Vec<Rated> = vec![vec![(WengLinRating::new(), 0, 0); n]; rulesets.len()];
    let mut played: Vec<Vec<Round>> = vec![Vec::new(); rulesets.len()];
    let mut met: Vec<HashSet<Vec<usize>>> = vec![HashSet::new(); rulesets.len()];
    let mut byes: Vec<Vec<u32>> = vec![vec![0; n]; rulesets.len()];
    let tallies = Mutex::new(vec![Tally::new(k); rulesets.len()]);
    for round in 0..rounds {
        let base = options.seed.wrapping_add(round as u64 * options.games);
        let seatings: Vec<Vec<Vec<usize>>> = (0..rulesets.len())
            .map(|r| match options.pairing {
                Pairing::RoundRobin => every.clone(),
                Pairing::Swiss { .. } => swiss_tables(&rated[r], k, &met[r], &mut byes[r]),
            })
            .collect();
        // The blocks of games: per ruleset, per table, from game `first`.
        let mut jobs_list: Vec<(usize, usize, u64)> = Vec::new();
        for (r, seating) in seatings.iter().enumerate() {
            for t in 0..seating.len() {
                let mut first = 0;
                while first < options.games {
                    jobs_list.push((r, t, first));
                    first += block;
                }
            }
        }
        let stop = AtomicBool::new(false);
        let play_block = |&(r, t, first): &(usize, usize, u64)| -> Result<Vec<u8>, SimError> {
            if stop.load(Ordering::Relaxed) {
                return Ok(Vec::new());
            }
            let ruleset = &rulesets[r];
            let config = SimConfig {
                games: options.games,
                players: seatings[r][t].iter().map(|&b| options.bots[b].clone()).collect(),
                seed: base,
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
                let seed = base.wrapping_add(i);
                let rotation = (i % k as u64) as usize;
                if let Err(message) = arena.play(seed, rotation, &mut record) {
                    stop.store(true, Ordering::Relaxed);
                    let reproduce = if ruleset.mods.is_empty() {
                        reproduce_command(&config, ruleset, None, seed, rotation)
                    } else {
                        block_command(&config, ruleset, None, base.wrapping_add(first), i - first + 1)
                    };
                    let game = round as u64 * options.games + i;
                    return Err(SimError::Game { game, seed, message, reproduce });
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
        let mut places: Vec<Vec<Vec<u8>>> = seatings.iter().map(|s| vec![Vec::new(); s.len()]).collect();
        for ((r, t, _), block) in jobs_list.iter().zip(blocks) {
            places[*r][*t].extend(block?);
        }
        for (r, (tables, places)) in seatings.into_iter().zip(places).enumerate() {
            let round = Round { tables, places };
            for i in 0..games {
                fold(&mut rated[r], &round, i, &config);
            }
            met[r].extend(round.tables.iter().cloned());
            played[r].push(round);
        }
    }
    let tallies = tallies.into_inner().unwrap_or_else(|p| p.into_inner());
    let pools: Vec<Pool> = rulesets
        .iter()
        .zip(rated)
        .zip(played.into_iter().zip(tallies))
        .enumerate()
        .map(|(r, ((ruleset, rated), (rounds, tally)))| {
            let ratings: Vec<WengLinRating> = rated.iter().map(|x| x.0).collect();
            let (skill_vs_luck, pair) = (skill_vs_luck(&ratings), extremes(&ratings));
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
            Pool { ruleset: ruleset.name.clone(), standings, skill_vs_luck, pair, tally, rounds }
        })
        .collect();
    let tables: u64 = pools[0].rounds.iter().map(|r| r.tables.len() as u64).sum();
    Ok(Tournament { pools, games: options.games * tables, ranking: Vec::new() })
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
        let (bots, games, seed) = (options.bots.len(), options.games as usize, options.seed);
        self.ranking = pool.install(|| rank(&self.pools, bots, games, seed, progress));
        Ok(())
    }

    pub fn text(&self, options: &TournamentOptions) -> String {
        if self.pools.len() == 1 {
            return self.text_one(&self.pools[0], options);
        }
        let mut s = String::new();
        let names: Vec<&str> = self.pools.iter().map(|p| p.ruleset.as_str()).collect();
        let seeds = match options.pairing {
            Pairing::RoundRobin => {
                format!("game i of every table under every ruleset is dealt with seed {} + i", options.seed)
            }
            Pairing::Swiss { .. } => format!(
                "game i of round r at every table under every ruleset is dealt with seed {} + r × {} + i; each ruleset's \
                 rounds are seated by its own ratings",
                options.seed, options.games
            ),
        };
        let _ = writeln!(
            s,
            "tournament under {} rulesets ({}): {} bots under each, {} per ruleset ({} games), seats rotating; {seeds}",
            self.pools.len(),
            names.join(", "),
            options.bots.len(),
            self.layout(options),
            self.games * self.pools.len() as u64,
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
                "\nruleset {}: {:.1} ±{:.1} turns, seat gap {:.1} points (95% CI {:.1}–{:.1}), draws {:.1}%\n",
                pool.ruleset,
                turns.value,
                turns.high - turns.value,
                100.0 * gap.value,
                100.0 * gap.low,
                100.0 * gap.high,
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
             intervals from {RESAMPLES} resamples of the games, {} (seed {})\n",
            match options.pairing {
                Pairing::RoundRobin => "the same tables and seeds for every ruleset",
                Pairing::Swiss { .. } =>
                    "the same seeds for every ruleset (each seats its Swiss rounds by its own ratings)",
            },
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
        let swiss = match options.pairing {
            Pairing::RoundRobin => "",
            Pairing::Swiss { .. } => "; each round seats bots of like rating together",
        };
        let _ = writeln!(
            s,
            "tournament on ruleset {}: {} bots, {} ({} games), seats rotating{swiss}\n",
            pool.ruleset,
            pool.standings.len(),
            self.layout(options),
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

    /// How the games were laid out: `3 tables of 2 seats × 200 games` (`1 table …`), or with Swiss rounds
    /// `4 Swiss rounds of 2 tables …`.
    fn layout(&self, options: &TournamentOptions) -> String {
        let tables = self.pools[0].rounds[0].tables.len();
        let plural = if tables == 1 { "" } else { "s" };
        let layout = format!("{tables} table{plural} of {} seats × {} games", options.seats, options.games);
        match options.pairing {
            Pairing::RoundRobin => layout,
            Pairing::Swiss { rounds } => format!("{rounds} Swiss rounds of {layout}"),
        }
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
        /// A standing; its `entrant` (bot@ruleset) is named when there are several rulesets.
        fn standing_json(s: &Standing, entrant: bool) -> Value {
            let mut out = json!({
                "bot": s.bot,
                "rating": s.rating.rating,
                "uncertainty": s.rating.uncertainty,
                "conservative": s.conservative(),
                "games": s.games,
                "wins": s.wins,
            });
            if entrant {
                out["entrant"] = json!(s.entrant);
            }
            out
        }
        let names = |tables: &[Vec<usize>]| -> Vec<Vec<String>> {
            tables.iter().map(|t| t.iter().map(|&b| options.bots[b].clone()).collect()).collect()
        };
        let rounds = |pool: &Pool| pool.rounds.iter().map(|r| names(&r.tables)).collect::<Vec<_>>();
        let swiss = matches!(options.pairing, Pairing::Swiss { .. });
        if self.pools.len() == 1 {
            let pool = &self.pools[0];
            let mut out = json!({
                "ruleset": pool.ruleset,
                "seats": options.seats,
                "games_per_table": options.games,
                "seed": options.seed,
                "standings": pool.standings.iter().map(|s| standing_json(s, false)).collect::<Vec<_>>(),
                "skill_vs_luck": pool.skill_vs_luck,
            });
            if swiss {
                out["pairing"] = json!("swiss");
                out["rounds"] = json!(rounds(pool));
            } else {
                out["tables"] = json!(names(&pool.rounds[0].tables));
            }
            return out;
        }
        let range = |m: &Measure| json!({ "value": m.value, "low": m.low, "high": m.high });
        let mut out = json!({
            "rulesets": self.pools.iter().map(|p| p.ruleset.clone()).collect::<Vec<_>>(),
            "seats": options.seats,
            "games_per_table": options.games,
            "seed": options.seed,
            "pairing": if swiss { "swiss" } else { "round-robin" },
            "pools": self.pools.iter().map(|pool| {
                let mut out = json!({
                "ruleset": pool.ruleset,
                "standings": pool.standings.iter().map(|s| standing_json(s, true)).collect::<Vec<_>>(),
                "skill_vs_luck": pool.skill_vs_luck,
                "length": range(&measure(&pool.tally, "length")),
                "seat_balance": range(&measure(&pool.tally, "seat-balance")),
                "draws": range(&measure(&pool.tally, "draws")),
                });
                if swiss {
                    out["rounds"] = json!(rounds(pool));
                }
                out
            }).collect::<Vec<_>>(),
            "resamples": RESAMPLES,
            "ranking": self.ranking.iter().map(|r| json!({
                "ruleset": self.pools[r.pool].ruleset,
                "skill_vs_luck": { "value": self.pools[r.pool].skill_vs_luck, "low": r.low, "high": r.high },
                "behind_first": range(&r.behind),
            })).collect::<Vec<_>>(),
        });
        if !swiss {
            out["tables"] = json!(names(&self.pools[0].rounds[0].tables));
        }
        out
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
    let (n, k) = (options.bots.len(), options.seats);
    let tables = match options.pairing {
        Pairing::RoundRobin => tables(n, k.min(n)).len() as u64,
        Pairing::Swiss { rounds } => u64::from(rounds).saturating_mul((n / k.max(1)) as u64),
    };
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
        assert_eq!(places(&draw, &[10, 10]), [2, 2]);
        // A team's win: every member shares first place, whatever their depth.
        let team = GameRecord { winner: Some(2), winners: Seats(0b0101), team: Some(0), ..GameRecord::default() };
        assert_eq!(places(&team, &[40, 60, 100, 70]), [1, 4, 1, 3]);
        let round = Round { tables: vec![vec![0, 1, 2, 3]], places: vec![vec![1, 4, 1, 3]] };
        let rated = rate(std::slice::from_ref(&round), 4, 1, 0..1);
        assert_eq!(rated.iter().map(|r| r.2).collect::<Vec<_>>(), [1, 0, 1, 0], "a team's win counts for each member");
    }

    /// Regression: the deepest diver of a draw was counted as its winner in the wins column.
    #[test]
    fn a_draw_counts_nobody_as_winning_it_and_rates_like_before() {
        let draw = GameRecord { draw: true, ..GameRecord::default() };
        let game: Vec<u8> = places(&draw, &[30, 70]).into_iter().map(|p| p as u8).collect();
        assert_eq!(game, [3, 2]);
        let round = Round { tables: vec![vec![0, 1]], places: vec![game] };
        let rated = rate(std::slice::from_ref(&round), 2, 1, 0..1);
        assert_eq!((rated[0].2, rated[1].2), (0, 0), "no wins in a draw");
        // The same order from place 1 rates exactly the same.
        let from_one = Round { tables: vec![vec![0, 1]], places: vec![vec![2, 1]] };
        let before = rate(std::slice::from_ref(&from_one), 2, 1, 0..1);
        assert_eq!((rated[0].0, rated[1].0), (before[0].0, before[1].0));
        assert_eq!(before[1].2, 1, "a real first place is a win");
    }

    /// Two rounds of `games` games at one table of two: bot 1 wins game `g` (counted across
    /// the rounds) when `wins(g)`.
    fn two_bots(games: usize, wins: impl Fn(usize) -> bool) -> Vec<Round> {
        let round = |r: usize| {
            let places = (0..games).flat_map(|i| {
                // Seat s holds bot (s + i % 2) % 2.
                let bot1_seat = (1 + i % 2) % 2;
                let first = if wins(r * games + i) { bot1_seat } else { 1 - bot1_seat };
                (0..2).map(move |s| if s == first { 1 } else { 2 })
            });
            Round { tables: vec![vec![0, 1]], places: vec![places.collect()] }
        };
        vec![round(0), round(1)]
    }

    #[test]
    fn a_pool_the_strong_bot_always_wins_ranks_above_a_coin_toss() {
        let pools: Vec<Pool> = [two_bots(30, |g| g % 2 == 0), two_bots(30, |_| true)]
            .into_iter()
            .enumerate()
            .map(|(i, rounds)| {
                let rated = rate(&rounds, 2, 30, 0..60);
                assert_eq!((rated[1].1, rated[1].2), (60, if i == 0 { 30 } else { 60 }));
                Pool {
                    ruleset: format!("r{i}"),
                    standings: Vec::new(),
                    skill_vs_luck: skill_vs_luck(&rated.iter().map(|r| r.0).collect::<Vec<_>>()),
                    pair: extremes(&rated.iter().map(|r| r.0).collect::<Vec<_>>()),
                    tally: Tally::new(2),
                    rounds,
                }
            })
            .collect();
        assert!(pools[0].skill_vs_luck < 0.6 && pools[1].skill_vs_luck > 0.9, "{pools:?}");
        let ranking = rank(&pools, 2, 30, 7, &|_| {});
        assert_eq!(ranking.iter().map(|r| r.pool).collect::<Vec<_>>(), [1, 0]);
        assert_eq!((ranking[0].behind.value, ranking[0].behind.low, ranking[0].behind.high), (0.0, 0.0, 0.0));
        let coin = &ranking[1];
        assert!(coin.low < pools[0].skill_vs_luck && pools[0].skill_vs_luck < coin.high, "{coin:?}");
        assert!(coin.behind.high < 0.0, "{coin:?}");
        assert_eq!(ranking, rank(&pools, 2, 30, 7, &|_| {}), "the same seed, the same intervals");
    }

    /// The reported case: resamples all above the measure still give an interval around it,
    /// as wide as theirs.
    #[test]
    fn an_interval_holds_its_measure_even_when_the_resamples_lean_away() {
        let resamples: Vec<f64> = (0..200).map(|i| 0.968 + 0.013 * f64::from(i) / 199.0).collect();
        let m = interval("skill-vs-luck", 0.967, resamples);
        assert!(m.low <= 0.967 && 0.967 <= m.high, "{m:?}");
        assert!((m.high - m.low - (0.981 - 0.968) * 0.95).abs() < 1e-3, "the resamples' spread: {m:?}");
    }

    /// Every measure lies inside its own interval: the resamples compare the pool's own top
    /// and bottom bots. Taking the best and the worst of each resample (a maximum over noise,
    /// biased up) put 96.7% outside its interval 96.8–98.1% (issue 44); here, a strong bot
    /// and five of equal strength, which of them is the worst being noise.
    #[test]
    fn a_skill_measure_lies_inside_its_own_interval() {
        let bots = 6;
        let tables = tables(bots, 2);
        let games = 40;
        let pools: Vec<Pool> = (0..4u64)
            .map(|p| {
                let mut rng = ChaCha8Rng::seed_from_u64(p);
                // Seat 0 holds the table's first bot (`rate` turns the seats game by game).
                let places = tables
                    .iter()
                    .map(|table| {
                        (0..games)
                            .flat_map(|i| {
                                let first = table[i % 2];
                                let wins = rng.random_bool(if first == 0 {
                                    0.97
                                } else if table[(i + 1) % 2] == 0 {
                                    0.03
                                } else {
                                    0.5
                                });
                                if wins { [1, 2] } else { [2, 1] }
                            })
                            .collect()
                    })
                    .collect();
                let rounds = vec![Round { tables: tables.clone(), places }];
                let rated: Vec<WengLinRating> = rate(&rounds, bots, games, 0..games).into_iter().map(|r| r.0).collect();
                Pool {
                    ruleset: format!("r{p}"),
                    standings: Vec::new(),
                    skill_vs_luck: skill_vs_luck(&rated),
                    pair: extremes(&rated),
                    tally: Tally::new(2),
                    rounds,
                }
            })
            .collect();
        for ranked in rank(&pools, bots, games, 3, &|_| {}) {
            let value = pools[ranked.pool].skill_vs_luck;
            assert!(ranked.low <= value && value <= ranked.high, "{value} outside {ranked:?}");
        }
    }

    #[test]
    fn a_swiss_round_seats_the_best_with_the_next_best_not_yet_met() {
        let rated: Rated = [10.0, 40.0, 30.0, 20.0, 5.0]
            .into_iter()
            .map(|r| (WengLinRating { rating: r, uncertainty: 5.0 }, 0, 0))
            .collect();
        let mut byes = vec![0, 0, 0, 0, 1];
        // Bot 4 is last but has sat out before: bot 0, the last without a bye, sits out.
        assert_eq!(swiss_tables(&rated, 2, &HashSet::new(), &mut byes), [vec![1, 2], vec![3, 4]]);
        assert_eq!(byes, [1, 0, 0, 0, 1]);
        let met: HashSet<Vec<usize>> = [vec![1, 2]].into_iter().collect();
        let mut byes = vec![1; 5];
        assert_eq!(swiss_tables(&rated, 2, &met, &mut byes), [vec![1, 3], vec![0, 2]]);
        // Tables of three: the best with the next two that make a table not yet played, and
        // the next such choice when the first would leave an old table for the rest.
        let rated: Rated =
            (0..6).map(|b| (WengLinRating { rating: 60.0 - 10.0 * b as f64, uncertainty: 5.0 }, 0, 0)).collect();
        let met: HashSet<Vec<usize>> = [vec![0, 1, 2], vec![2, 4, 5]].into_iter().collect();
        assert_eq!(swiss_tables(&rated, 3, &met, &mut [0; 6]), [vec![0, 1, 4], vec![2, 3, 5]]);
        // When every table is old, the next best.
        let met: HashSet<Vec<usize>> = [vec![0, 1, 2], vec![3, 4, 5]].into_iter().collect();
        assert_eq!(swiss_tables(&rated[..3].to_vec(), 3, &met, &mut [0; 3]), [vec![0, 1, 2]]);
    }

    /// Regression (found by an audit): seating the best bot first with the next best it had
    /// not met left the last two at a table they had already played, though new tables for
    /// everyone existed.
    #[test]
    fn a_swiss_round_repeats_no_table_while_new_ones_can_seat_everyone() {
        let rated: Rated =
            (0..4).map(|b| (WengLinRating { rating: 40.0 - 10.0 * b as f64, uncertainty: 5.0 }, 0, 0)).collect();
        let met: HashSet<Vec<usize>> = [vec![0, 1], vec![2, 3], vec![1, 3]].into_iter().collect();
        assert_eq!(swiss_tables(&rated, 2, &met, &mut [0; 4]), [vec![0, 3], vec![1, 2]]);
        // Every pairing played: the old tables, best with best.
        let met: HashSet<Vec<usize>> =
            [vec![0, 1], vec![2, 3], vec![0, 2], vec![1, 3], vec![0, 3], vec![1, 2]].into_iter().collect();
        assert_eq!(swiss_tables(&rated, 2, &met, &mut [0; 4]), [vec![0, 1], vec![2, 3]]);
    }
}
