//! Streamed statistics: every game is folded into integer totals the moment it ends, so memory
//! stays flat however many games run, and totals merged from any number of workers in any
//! order are identical (integer sums commute; no floating point until the report).

use crate::core::{Rank, Seat, Seats};

/// Game lengths up to this many turns are counted exactly; longer games share the last bucket.
pub const LENGTH_BUCKETS: usize = 10_000;

/// The card kinds the report counts.
pub const KINDS: [&str; 4] = ["number cards", "Jolt (J)", "Quick (Q)", "Knot (K)"];
/// Short names of [`KINDS`] for the verdict and machine output.
pub const KIND_KEYS: [&str; 4] = ["number", "jolt", "quick", "knot"];

/// The kind of a rank: 0 for A–10, then J, Q, K.
pub fn kind_of(rank: Rank) -> usize {
    match rank.number() {
        11 => 1,
        12 => 2,
        13 => 3,
        _ => 0,
    }
}

/// What one finished game contributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// The diver whose move won, and everyone who won with them (their team).
    pub winner: Option<Seat>,
    pub winners: Seats,
    /// The winners' team, when the game was played in teams.
    pub team: Option<usize>,
    pub draw: bool,
    pub turns: u32,
    pub rescues: u32,
    pub recoveries: u32,
    /// Actions a mod added, taken.
    pub acts: u32,
    /// Cards played, by rank (index 0 = ace … 12 = king).
    pub plays: [u32; 13],
    /// Times the lead (the strictly deepest diver) passed to another diver, and how far the
    /// winner ended ahead of the next diver: measured by a sweep only, else 0.
    pub lead_changes: u32,
    pub margin: u32,
}

impl GameRecord {
    pub fn clear(&mut self) {
        *self = GameRecord::default();
    }

    /// Everyone who won (`winners`, or the `winner` alone for a record that names only them).
    pub fn winning_seats(&self) -> Seats {
        match (self.winners.is_empty(), self.winner) {
            (true, Some(w)) => Seats(1 << w),
            _ => self.winners,
        }
    }

    pub fn kind_plays(&self, kind: usize) -> u32 {
        (0..13).filter(|&r| kind_of(Rank::new(r as u8 + 1).expect("rank")) == kind).map(|r| self.plays[r]).sum()
    }
}

/// A running sum of an integer statistic and of its square.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Moments {
    pub n: u64,
    pub sum: i128,
    pub sum_sq: u128,
}

impl Moments {
    pub fn add(&mut self, x: i64) {
        self.n += 1;
        self.sum += i128::from(x);
        self.sum_sq += (i128::from(x) * i128::from(x)) as u128;
    }

    pub fn merge(&mut self, other: &Moments) {
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.sum as f64 / self.n as f64 }
    }

    /// The half-width of the 95% confidence interval of the mean (normal approximation).
    pub fn half_width(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let mean = self.sum as f64 / n;
        let var = ((self.sum_sq as f64 - n * mean * mean) / (n - 1.0)).max(0.0);
        1.96 * (var / n).sqrt()
    }
}

/// The totals of one ruleset's games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    pub games: u64,
    /// Wins by seat (0-based); a team's win counts for each member.
    pub seat_wins: Vec<u64>,
    /// Wins by player, the position in `--players` (differs from the seat when seats rotate).
    pub player_wins: Vec<u64>,
    /// Wins by team (from 0), when the games were played in teams; else empty.
    pub team_wins: Vec<u64>,
    pub draws: u64,
    pub turns: Moments,
    pub max_turns: u32,
    /// Game lengths: `lengths[t]` games lasted `t` turns (the last bucket: that many or more).
    pub lengths: Vec<u64>,
    pub rescues: Moments,
    pub recoveries: u64,
    /// Actions a mod added, taken.
    pub acts: u64,
    pub plays: [u64; 13],
    /// Lead changes per game, and the winner's margin per won game (depth units): measured
    /// by a sweep ([`Tally::observe_balance`]), else empty.
    pub lead_changes: Moments,
    pub margins: Moments,
}

impl Tally {
    pub fn new(players: usize) -> Tally {
        Tally {
            games: 0,
            seat_wins: vec![0; players],
            player_wins: vec![0; players],
            team_wins: Vec::new(),
            draws: 0,
            turns: Moments::default(),
            max_turns: 0,
            lengths: vec![0; LENGTH_BUCKETS + 1],
            rescues: Moments::default(),
            recoveries: 0,
            acts: 0,
            plays: [0; 13],
            lead_changes: Moments::default(),
            margins: Moments::default(),
        }
    }

    /// Adds what a sweep measures beyond [`Tally::observe`] of the same game.
    pub fn observe_balance(&mut self, record: &GameRecord) {
        self.lead_changes.add(i64::from(record.lead_changes));
        if record.winner.is_some() {
            self.margins.add(i64::from(record.margin));
        }
    }

    /// Adds a game whose seat `s` was played by player `(s + rotation) % players`.
    pub fn observe(&mut self, record: &GameRecord, rotation: usize) {
        let n = self.seat_wins.len();
        self.games += 1;
        for s in record.winning_seats().iter() {
            self.seat_wins[s] += 1;
            self.player_wins[(s + rotation) % n] += 1;
        }
        if let Some(team) = record.team {
            if self.team_wins.len() <= team {
                self.team_wins.resize(team + 1, 0);
            }
            self.team_wins[team] += 1;
        }
        self.draws += u64::from(record.draw);
        self.turns.add(i64::from(record.turns));
        self.max_turns = self.max_turns.max(record.turns);
        self.lengths[(record.turns as usize).min(LENGTH_BUCKETS)] += 1;
        self.rescues.add(i64::from(record.rescues));
        self.recoveries += u64::from(record.recoveries);
        self.acts += u64::from(record.acts);
        for (total, &n) in self.plays.iter_mut().zip(&record.plays) {
            *total += u64::from(n);
        }
    }

    pub fn merge(&mut self, other: &Tally) {
        self.games += other.games;
        for (a, b) in self.seat_wins.iter_mut().zip(&other.seat_wins) {
            *a += b;
        }
        for (a, b) in self.player_wins.iter_mut().zip(&other.player_wins) {
            *a += b;
        }
        if self.team_wins.len() < other.team_wins.len() {
            self.team_wins.resize(other.team_wins.len(), 0);
        }
        for (a, b) in self.team_wins.iter_mut().zip(&other.team_wins) {
            *a += b;
        }
        self.draws += other.draws;
        self.turns.merge(&other.turns);
        self.max_turns = self.max_turns.max(other.max_turns);
        for (a, b) in self.lengths.iter_mut().zip(&other.lengths) {
            *a += b;
        }
        self.rescues.merge(&other.rescues);
        self.recoveries += other.recoveries;
        self.acts += other.acts;
        for (a, b) in self.plays.iter_mut().zip(&other.plays) {
            *a += b;
        }
        self.lead_changes.merge(&other.lead_changes);
        self.margins.merge(&other.margins);
    }

    /// The smallest length `t` with at least `q` of the games lasting `t` turns or fewer.
    pub fn length_quantile(&self, q: f64) -> u32 {
        if self.games == 0 {
            return 0;
        }
        let needed = (q * self.games as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (t, &count) in self.lengths.iter().enumerate() {
            seen += count;
            if seen >= needed {
                return t as u32;
            }
        }
        self.max_turns
    }

    /// Cards of each kind played, in total.
    pub fn kind_plays(&self, kind: usize) -> u64 {
        (0..13).filter(|&r| kind_of(Rank::new(r as u8 + 1).expect("rank")) == kind).map(|r| self.plays[r]).sum()
    }

    /// Per game, for a total.
    pub fn per_game(&self, total: u64) -> f64 {
        if self.games == 0 { 0.0 } else { total as f64 / self.games as f64 }
    }
}

/// Differences between two rulesets played on the same seeds: each statistic is the
/// per-game difference (ruleset − baseline), so the deal's luck cancels out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    pub games: u64,
    /// Games whose records differ in anything at all.
    pub differing: u64,
    pub seat_wins: Vec<Moments>,
    pub draws: Moments,
    pub turns: Moments,
    pub rescues: Moments,
    pub kinds: [Moments; 4],
}

impl Paired {
    pub fn new(players: usize) -> Paired {
        Paired {
            games: 0,
            differing: 0,
            seat_wins: vec![Moments::default(); players],
            draws: Moments::default(),
            turns: Moments::default(),
            rescues: Moments::default(),
            kinds: [Moments::default(); 4],
        }
    }

    pub fn observe(&mut self, ruleset: &GameRecord, baseline: &GameRecord) {
        self.games += 1;
        self.differing += u64::from(ruleset != baseline);
        for (s, m) in self.seat_wins.iter_mut().enumerate() {
            let won = |r: &GameRecord| i64::from(r.winning_seats().contains(s));
            m.add(won(ruleset) - won(baseline));
        }
        self.draws.add(i64::from(ruleset.draw) - i64::from(baseline.draw));
        self.turns.add(i64::from(ruleset.turns) - i64::from(baseline.turns));
        self.rescues.add(i64::from(ruleset.rescues) - i64::from(baseline.rescues));
        for (k, m) in self.kinds.iter_mut().enumerate() {
            m.add(i64::from(ruleset.kind_plays(k)) - i64::from(baseline.kind_plays(k)));
        }
    }

    pub fn merge(&mut self, other: &Paired) {
        self.games += other.games;
        self.differing += other.differing;
        for (a, b) in self.seat_wins.iter_mut().zip(&other.seat_wins) {
            a.merge(b);
        }
        self.draws.merge(&other.draws);
        self.turns.merge(&other.turns);
        self.rescues.merge(&other.rescues);
        for (a, b) in self.kinds.iter_mut().zip(&other.kinds) {
            a.merge(b);
        }
    }
}

/// A proportion with its 95% Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub count: u64,
    pub total: u64,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

/// `count` successes out of `total`, with the 95% Wilson interval.
pub fn wilson(count: u64, total: u64) -> Rate {
    if total == 0 {
        return Rate { count, total, rate: 0.0, low: 0.0, high: 1.0 };
    }
    let z = 1.96f64;
    let n = total as f64;
    let p = count as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    // At 0 or all of them the bound is exactly 0 or 1; computed, it can come out as
    // 0.9999999999999999.
    let low = if count == 0 { 0.0 } else { (centre - half).max(0.0) };
    let high = if count >= total { 1.0 } else { (centre + half).min(1.0) };
    Rate { count, total, rate: p, low, high }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_known_interval() {
        // 50 of 100: 40.4%–59.6%.
        let r = wilson(50, 100);
        assert!((r.low - 0.4038).abs() < 1e-3 && (r.high - 0.5962).abs() < 1e-3, "{r:?}");
        let none = wilson(0, 10);
        assert_eq!(none.low, 0.0);
        assert!(none.high > 0.2 && none.high < 0.35);
        // None or all: the bound is exactly 0 or 1, whatever the count.
        for total in 1..3000 {
            assert_eq!(wilson(total, total).high, 1.0, "{total} of {total}");
            assert_eq!(wilson(0, total).low, 0.0, "0 of {total}");
        }
    }

    #[test]
    fn quantiles_come_from_the_histogram() {
        let mut t = Tally::new(2);
        for turns in [10, 20, 30, 40, 50, 60, 70, 80, 90, 100] {
            t.observe(&GameRecord { winner: Some(0), turns, ..GameRecord::default() }, 0);
        }
        assert_eq!(t.length_quantile(0.5), 50);
        assert_eq!(t.length_quantile(0.9), 90);
        assert_eq!(t.max_turns, 100);
        assert_eq!(t.turns.mean(), 55.0);
    }

    #[test]
    fn merging_in_any_order_gives_the_same_totals() {
        let records: Vec<GameRecord> = (0..30u32)
            .map(|i| GameRecord {
                winner: Some((i % 3) as usize % 2),
                turns: 20 + i,
                rescues: i % 4,
                ..GameRecord::default()
            })
            .collect();
        let fold = |order: &[usize]| {
            let mut total = Tally::new(2);
            for chunk in order.chunks(7) {
                let mut part = Tally::new(2);
                for &i in chunk {
                    part.observe(&records[i], i % 2);
                }
                total.merge(&part);
            }
            total
        };
        let forward: Vec<usize> = (0..30).collect();
        let backward: Vec<usize> = (0..30).rev().collect();
        assert_eq!(fold(&forward), fold(&backward));
    }
}
