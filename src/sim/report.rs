//! The simulator's report as text (for people), JSON (one object) and CSV (one row per
//! statistic), plus the plain-English verdict of a paired run.

use std::fmt::Write;

use serde_json::{Value, json};

use super::stats::{KIND_KEYS, KINDS, Moments, Paired, Rate, Tally, wilson};
use super::{SimConfig, SimResult};
use crate::ruleset::Ruleset;

/// Everything a report needs.
pub struct Report<'a> {
    pub config: &'a SimConfig,
    pub ruleset: &'a Ruleset,
    pub baseline: Option<&'a Ruleset>,
    pub result: &'a SimResult,
}

/// A bot spec and how many seats it holds, in first-seen order.
fn distinct_bots(players: &[String]) -> Vec<(String, usize)> {
    let mut bots: Vec<(String, usize)> = Vec::new();
    for p in players {
        match bots.iter_mut().find(|(name, _)| name == p) {
            Some((_, seats)) => *seats += 1,
            None => bots.push((p.clone(), 1)),
        }
    }
    bots
}

/// Wins of each distinct bot, the seat-games it played, and its win rate per seat-game with
/// a 95% interval. A game has one winner, so a bot's seats are not independent trials: the
/// interval is Wilson's over the games (did this bot win it?), divided by its seats. Counted
/// as independent, two identical bots got an interval around the 50% they cannot miss.
pub(super) fn bot_wins(players: &[String], tally: &Tally) -> Vec<(String, u64, u64, Rate)> {
    distinct_bots(players)
        .into_iter()
        .map(|(name, seats)| {
            let wins = players.iter().zip(&tally.player_wins).filter(|(p, _)| **p == name).map(|(_, w)| *w).sum();
            let k = seats as f64;
            let played = tally.games * seats as u64;
            // In teams, several of a bot's seats can share one win: the interval is then
            // Wilson's over the games of its share of the wins.
            let (low, high) = if tally.team_wins.is_empty() {
                let per_game = wilson(wins, tally.games);
                (per_game.low / k, per_game.high / k)
            } else {
                let share = wilson((wins as f64 / k).round() as u64, tally.games);
                (share.low, share.high)
            };
            let rate = Rate {
                count: wins,
                total: played,
                rate: if played == 0 { 0.0 } else { wins as f64 / played as f64 },
                low,
                high,
            };
            (name, wins, played, rate)
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// A signed difference in percentage points with its half-width.
fn points(m: &Moments) -> String {
    let (mean, hw) = (m.mean() * 100.0, m.half_width() * 100.0);
    if hw < 0.1 && mean.abs() < 1.0 {
        format!("{mean:+.2} ± {hw:.2} points")
    } else {
        format!("{mean:+.1} ± {hw:.1} points")
    }
}

/// Whether a paired difference is distinguishable from zero at 95%.
fn significant(m: &Moments) -> bool {
    m.sum != 0 && m.mean().abs() > m.half_width()
}

/// A ratio in words: `3.0× as often`, `half as often`.
fn times(ratio: f64) -> String {
    if ratio >= 1.0 { format!("{ratio:.1}× as often") } else { format!("{:.0}% less often", (1.0 - ratio) * 100.0) }
}

/// The histogram of game lengths in at most `bins` bars, `(from, to, games)`: equal bars from
/// the shortest game to the 99th percentile, and one last bar for the long tail.
pub fn length_bins(tally: &Tally, bins: usize) -> Vec<(u32, u32, u64)> {
    if tally.games == 0 {
        return Vec::new();
    }
    let last = tally.lengths.len() - 1;
    let count = |from: u32, to: u32| -> u64 {
        let (from, to) = (from as usize, to as usize);
        if from > last {
            return 0;
        }
        tally.lengths[from..=to.min(last)].iter().sum()
    };
    let low = tally.length_quantile(0.0);
    let body_end = tally.length_quantile(0.99).max(low);
    let width = (body_end - low + 1).div_ceil(bins.saturating_sub(1).max(1) as u32).max(1);
    let mut out = Vec::new();
    let mut from = low;
    while from <= body_end {
        let to = from + width - 1;
        out.push((from, to, count(from, to)));
        from = to + 1;
    }
    if tally.max_turns >= from {
        // The tail, and every game longer than the histogram counts exactly.
        out.push((from, tally.max_turns, tally.lengths[(from as usize).min(last)..].iter().sum()));
    }
    out
}

/// The seeds of `games` games from `first` (game i plays `first + i`, past the largest seed
/// on from 0): `5…7`, or `18446744073709551614…18446744073709551615, then 0…1`.
fn seed_range(first: u64, games: u64) -> String {
    let span = |a: u64, b: u64| if a == b { a.to_string() } else { format!("{a}…{b}") };
    let last = first.wrapping_add(games.saturating_sub(1));
    if last >= first { span(first, last) } else { format!("{}, then {}", span(first, u64::MAX), span(0, last)) }
}

impl Report<'_> {
    fn players(&self) -> &[String] {
        &self.config.players
    }

    fn tally(&self) -> &Tally {
        &self.result.tally
    }

    /// The turn cap the games were played with: the ruleset's own when it is lower.
    fn cap(&self) -> u32 {
        match self.ruleset.rules.max_turns {
            0 => self.config.max_turns,
            own => own.min(self.config.max_turns),
        }
    }

    /// What this run's games share with the baseline's.
    fn shared(&self, baseline: &Ruleset) -> super::Shared {
        super::Shared::of(&self.ruleset.rules, &baseline.rules, self.players().len())
    }

    /// The headline verdict of a paired run.
    pub fn verdict(&self) -> Option<String> {
        let (base, paired) = self.result.baseline.as_ref()?;
        Some(verdict(self.tally(), base, paired))
    }

    /// The report for people.
    pub fn text(&self) -> String {
        let t = self.tally();
        let c = self.config;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} game{} of {} with {} (seed{} {}, {} job{}{})",
            t.games,
            if t.games == 1 { "" } else { "s" },
            self.ruleset.name,
            self.players().join(", "),
            if c.games == 1 { "" } else { "s" },
            seed_range(c.seed, c.games),
            c.jobs,
            if c.jobs == 1 { "" } else { "s" },
            if c.rotate { ", seats rotate" } else { "" },
        );
        self.write_tally_text(&mut o, t);
        if let (Some(base_rules), Some((base, paired))) = (self.baseline, self.result.baseline.as_ref()) {
            let _ = writeln!(o, "\nPaired with {} on {}:", base_rules.name, self.shared(base_rules).phrase());
            let (a, b) = (short_name(&self.ruleset.name), short_name(&base_rules.name));
            let _ = writeln!(o, "  {:<22} {:>10} {:>10}   difference (95% CI)", "", a, b);
            for s in 0..self.players().len() {
                let _ = writeln!(
                    o,
                    "  {:<22} {:>10} {:>10}   {}",
                    format!("seat {} wins", s + 1),
                    pct(wilson(t.seat_wins[s], t.games).rate),
                    pct(wilson(base.seat_wins[s], base.games).rate),
                    points(&paired.seat_wins[s])
                );
            }
            let _ = writeln!(
                o,
                "  {:<22} {:>10} {:>10}   {}",
                "draws",
                pct(wilson(t.draws, t.games).rate),
                pct(wilson(base.draws, base.games).rate),
                points(&paired.draws)
            );
            let _ = writeln!(
                o,
                "  {:<22} {:>10.1} {:>10.1}   {:+.1} ± {:.1} turns",
                "game length (turns)",
                t.turns.mean(),
                base.turns.mean(),
                paired.turns.mean(),
                paired.turns.half_width()
            );
            let _ = writeln!(
                o,
                "  {:<22} {:>10.2} {:>10.2}   {:+.2} ± {:.2}",
                "rescues per game",
                t.rescues.mean(),
                base.rescues.mean(),
                paired.rescues.mean(),
                paired.rescues.half_width()
            );
            for (k, name) in KINDS.iter().enumerate() {
                let _ = writeln!(
                    o,
                    "  {:<22} {:>10.2} {:>10.2}   {:+.2} ± {:.2}",
                    format!("{name} per game"),
                    t.per_game(t.kind_plays(k)),
                    base.per_game(base.kind_plays(k)),
                    paired.kinds[k].mean(),
                    paired.kinds[k].half_width()
                );
            }
            let _ = writeln!(o, "\nVerdict: {}", verdict(t, base, paired));
        }
        let _ = writeln!(
            o,
            "\nSpeed: {:.2} s, {} games/s, {} turns/s",
            self.result.elapsed.as_secs_f64(),
            thousands(self.result.games_per_second()),
            thousands(self.result.turns_per_second())
        );
        o
    }

    fn write_tally_text(&self, o: &mut String, t: &Tally) {
        let _ = writeln!(o, "\nWins by seat              wins    rate   95% CI");
        if !t.team_wins.is_empty() {
            let _ = writeln!(o, "  (a team's win counts for each of its seats; by team below)");
        }
        for (s, &w) in t.seat_wins.iter().enumerate() {
            let r = wilson(w, t.games);
            let who = if self.config.rotate { String::new() } else { format!(" ({})", self.players()[s]) };
            let _ = writeln!(
                o,
                "  {:<22} {:>6} {:>7}   {}–{}",
                format!("seat {}{who}", s + 1),
                w,
                pct(r.rate),
                pct(r.low),
                pct(r.high)
            );
        }
        for (team, seats, wins, r) in self.team_wins(t) {
            let _ = writeln!(
                o,
                "  {:<22} {:>6} {:>7}   {}–{}",
                format!("team {} (seats {seats})", team + 1),
                wins,
                pct(r.rate),
                pct(r.low),
                pct(r.high)
            );
        }
        let _ = writeln!(o, "Wins by bot");
        for (name, wins, _, r) in bot_wins(self.players(), t) {
            let _ = writeln!(o, "  {:<22} {:>6} {:>7}   {}–{}", name, wins, pct(r.rate), pct(r.low), pct(r.high));
        }
        let d = wilson(t.draws, t.games);
        let _ = writeln!(
            o,
            "Draws (turn cap {})    {:>6} {:>7}   {}–{}",
            self.cap(),
            t.draws,
            pct(d.rate),
            pct(d.low),
            pct(d.high)
        );
        let _ = writeln!(
            o,
            "\nGame length (turns): mean {:.1}, median {}, p90 {}, max {}",
            t.turns.mean(),
            t.length_quantile(0.5),
            t.length_quantile(0.9),
            t.max_turns
        );
        let bins = length_bins(t, 12);
        let top = bins.iter().map(|b| b.2).max().unwrap_or(0).max(1);
        for (from, to, count) in bins {
            let bar = "#".repeat(((count * 40).div_ceil(top)) as usize);
            let _ = writeln!(o, "  {:>5}–{:<5} {:<40} {}", from, to, bar, count);
        }
        let _ = write!(o, "\nPer game: {:.2} rescues, {:.2} recoveries", t.rescues.mean(), t.per_game(t.recoveries));
        // A mod's actions, when the rules have any that were taken.
        if t.acts > 0 {
            let _ = write!(o, ", {:.2} mod actions", t.per_game(t.acts));
        }
        let _ = writeln!(o);
        let kinds: Vec<String> =
            KINDS.iter().enumerate().map(|(k, name)| format!("{name} {:.2}", t.per_game(t.kind_plays(k)))).collect();
        let _ = writeln!(o, "Cards played per game: {}", kinds.join(", "));
    }

    /// Each team's wins (`team` from 0), its seats in words (`1, 3`) and its win rate, when
    /// the games were played in teams. The seats are the ruleset's teams (alternating round
    /// the table); a mod that sets teams of its own is counted by its team numbers.
    fn team_wins(&self, t: &Tally) -> Vec<(usize, String, u64, Rate)> {
        let players = self.players().len();
        t.team_wins
            .iter()
            .enumerate()
            .map(|(team, &wins)| {
                let seats = match self.ruleset.rules.teams {
                    Some(rule) => {
                        let seats: Vec<String> =
                            (0..players).filter(|&s| rule.team_of(s) == team).map(|s| (s + 1).to_string()).collect();
                        seats.join(", ")
                    }
                    None => "set by a mod".to_string(),
                };
                (team, seats, wins, wilson(wins, t.games))
            })
            .collect()
    }

    fn tally_json(&self, t: &Tally) -> Value {
        let seats: Vec<Value> = t
            .seat_wins
            .iter()
            .enumerate()
            .map(|(s, &w)| {
                let r = wilson(w, t.games);
                json!({"seat": s + 1, "wins": w, "rate": r.rate, "low": r.low, "high": r.high})
            })
            .collect();
        let bots: Vec<Value> = bot_wins(self.players(), t)
            .into_iter()
            .map(|(name, wins, played, r)| {
                json!({"bot": name, "wins": wins, "games": played, "rate": r.rate, "low": r.low, "high": r.high})
            })
            .collect();
        let histogram: Vec<Value> = length_bins(t, 12)
            .into_iter()
            .map(|(from, to, count)| json!({"from": from, "to": to, "games": count}))
            .collect();
        let mut plays = serde_json::Map::new();
        for (k, key) in KIND_KEYS.iter().enumerate() {
            plays.insert(key.to_string(), json!(t.per_game(t.kind_plays(k))));
        }
        let teams: Vec<Value> = self
            .team_wins(t)
            .into_iter()
            .map(|(team, seats, wins, r)| {
                json!({"team": team + 1, "seats": seats, "wins": wins, "rate": r.rate, "low": r.low, "high": r.high})
            })
            .collect();
        let d = wilson(t.draws, t.games);
        json!({
            "games": t.games,
            "seats": seats,
            "teams": teams,
            "bots": bots,
            "draws": {"games": t.draws, "rate": d.rate, "low": d.low, "high": d.high},
            "length": {
                "mean": t.turns.mean(),
                "median": t.length_quantile(0.5),
                "p90": t.length_quantile(0.9),
                "max": t.max_turns,
                "histogram": histogram,
            },
            "rescues_per_game": t.rescues.mean(),
            "recoveries_per_game": t.per_game(t.recoveries),
            "mod_actions_per_game": t.per_game(t.acts),
            "plays_per_game": Value::Object(plays),
        })
    }

    fn paired_json(paired: &Paired, t: &Tally, base: &Tally) -> Value {
        let diff = |m: &Moments| json!({"mean": m.mean(), "half_width": m.half_width(), "significant": significant(m)});
        let seats: Vec<Value> = paired.seat_wins.iter().map(diff).collect();
        let mut kinds = serde_json::Map::new();
        for (k, key) in KIND_KEYS.iter().enumerate() {
            kinds.insert(key.to_string(), diff(&paired.kinds[k]));
        }
        json!({
            "games": paired.games,
            "differing_games": paired.differing,
            "seat_wins": seats,
            "draws": diff(&paired.draws),
            "turns": diff(&paired.turns),
            "rescues": diff(&paired.rescues),
            "plays": Value::Object(kinds),
            "verdict": verdict(t, base, paired),
        })
    }

    /// The report as one JSON object (one line).
    pub fn json(&self) -> String {
        let c = self.config;
        let mut root = json!({
            "ruleset": self.ruleset.name,
            "players": c.players,
            "seed": c.seed,
            "games": c.games,
            "jobs": c.jobs,
            "rotate": c.rotate,
            "max_turns": c.max_turns,
            "results": self.tally_json(self.tally()),
            "speed": {
                "seconds": self.result.elapsed.as_secs_f64(),
                "games_per_second": self.result.games_per_second(),
                "turns_per_second": self.result.turns_per_second(),
            },
        });
        if let (Some(b), Some((base, paired))) = (self.baseline, self.result.baseline.as_ref()) {
            root["baseline"] = json!({"ruleset": b.name, "results": self.tally_json(base)});
            root["paired"] = Report::paired_json(paired, self.tally(), base);
            let shared = self.shared(b);
            root["paired"]["shared"] = json!(shared.key());
            root["paired"]["deals_differ"] = json!(shared.differences());
        }
        format!("{root}\n")
    }

    /// The report as CSV: `section,key,value,low,high`, one row per statistic.
    pub fn csv(&self) -> String {
        let mut o = String::from("section,key,value,low,high\n");
        let mut row = |section: &str, key: &str, value: String, low: String, high: String| {
            let _ = writeln!(o, "{section},{},{value},{low},{high}", csv_field(key));
        };
        let e = String::new;
        let mut tally_rows = |prefix: &str, t: &Tally| {
            row(&format!("{prefix}games"), "all", t.games.to_string(), e(), e());
            for (s, &w) in t.seat_wins.iter().enumerate() {
                let r = wilson(w, t.games);
                row(
                    &format!("{prefix}seat_win_rate"),
                    &(s + 1).to_string(),
                    r.rate.to_string(),
                    r.low.to_string(),
                    r.high.to_string(),
                );
            }
            for (team, _, _, r) in self.team_wins(t) {
                let (rate, low, high) = (r.rate.to_string(), r.low.to_string(), r.high.to_string());
                row(&format!("{prefix}team_win_rate"), &(team + 1).to_string(), rate, low, high);
            }
            for (name, _, _, r) in bot_wins(self.players(), t) {
                row(&format!("{prefix}bot_win_rate"), &name, r.rate.to_string(), r.low.to_string(), r.high.to_string());
            }
            let d = wilson(t.draws, t.games);
            row(&format!("{prefix}draw_rate"), "all", d.rate.to_string(), d.low.to_string(), d.high.to_string());
            row(&format!("{prefix}length"), "mean", t.turns.mean().to_string(), e(), e());
            row(&format!("{prefix}length"), "median", t.length_quantile(0.5).to_string(), e(), e());
            row(&format!("{prefix}length"), "p90", t.length_quantile(0.9).to_string(), e(), e());
            row(&format!("{prefix}length"), "max", t.max_turns.to_string(), e(), e());
            row(&format!("{prefix}per_game"), "rescues", t.rescues.mean().to_string(), e(), e());
            row(&format!("{prefix}per_game"), "recoveries", t.per_game(t.recoveries).to_string(), e(), e());
            row(&format!("{prefix}per_game"), "mod_actions", t.per_game(t.acts).to_string(), e(), e());
            for (k, key) in KIND_KEYS.iter().enumerate() {
                row(&format!("{prefix}plays_per_game"), key, t.per_game(t.kind_plays(k)).to_string(), e(), e());
            }
        };
        tally_rows("", self.tally());
        if let Some((base, _)) = self.result.baseline.as_ref() {
            tally_rows("baseline_", base);
        }
        if let Some((_, paired)) = self.result.baseline.as_ref() {
            let mut diff = |key: String, m: &Moments| {
                let (mean, hw) = (m.mean(), m.half_width());
                row("difference", &key, mean.to_string(), (mean - hw).to_string(), (mean + hw).to_string());
            };
            for (s, m) in paired.seat_wins.iter().enumerate() {
                diff(format!("seat_{}_win_rate", s + 1), m);
            }
            diff("draw_rate".into(), &paired.draws);
            diff("length".into(), &paired.turns);
            diff("rescues_per_game".into(), &paired.rescues);
            for (k, key) in KIND_KEYS.iter().enumerate() {
                diff(format!("{key}_plays_per_game"), &paired.kinds[k]);
            }
        }
        row("speed", "games_per_second", self.result.games_per_second().to_string(), e(), e());
        row("speed", "turns_per_second", self.result.turns_per_second().to_string(), e(), e());
        o
    }
}

/// A ruleset name short enough for a report column: `rulesets/house.toml` → `house`.
fn short_name(name: &str) -> String {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = file.strip_suffix(".toml").unwrap_or(file);
    stem.chars().take(10).collect()
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

/// `1234567.8` → `1,234,568`.
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The plain-English verdict: every difference the paired games show at 95% confidence.
pub fn verdict(t: &Tally, base: &Tally, paired: &Paired) -> String {
    if paired.differing == 0 {
        return "no difference: both rulesets played exactly the same games".into();
    }
    let mut parts = Vec::new();
    // With two players the second seat only mirrors the first.
    let seats = if paired.seat_wins.len() == 2 { 1 } else { paired.seat_wins.len() };
    for (s, m) in paired.seat_wins.iter().enumerate().take(seats) {
        if significant(m) {
            parts.push(format!(
                "seat {} wins {} → {} ± {:.1}",
                s + 1,
                pct(wilson(base.seat_wins[s], base.games).rate),
                pct(wilson(t.seat_wins[s], t.games).rate),
                m.half_width() * 100.0
            ));
        }
    }
    let (turns, base_turns) = (t.turns.mean(), base.turns.mean());
    if significant(&paired.turns) && base_turns > 0.0 {
        let change = paired.turns.mean() / base_turns;
        let how = if change >= 1.0 {
            format!("{:.1}× as long", 1.0 + change)
        } else if change < 0.0 {
            format!("{:.0}% shorter", -change * 100.0)
        } else {
            format!("{:.0}% longer", change * 100.0)
        };
        parts.push(format!("games are {how} ({base_turns:.1} → {turns:.1} turns)"));
    }
    if significant(&paired.draws) {
        parts.push(format!(
            "draws {} → {}",
            pct(wilson(base.draws, base.games).rate),
            pct(wilson(t.draws, t.games).rate)
        ));
    }
    if significant(&paired.rescues) {
        parts.push(format!("rescues per game {:.2} → {:.2}", base.rescues.mean(), t.rescues.mean()));
    }
    // Card kinds: compared per turn, so that longer games alone do not count as "more often".
    let turns_total = t.turns.sum.max(1) as f64;
    let base_turns_total = base.turns.sum.max(1) as f64;
    for (k, name) in ["number cards are", "Jolt is", "Quick is", "Knot is"].iter().enumerate() {
        if !significant(&paired.kinds[k]) {
            continue;
        }
        let (before, after) = (base.kind_plays(k), t.kind_plays(k));
        if before == 0 {
            parts.push(format!("{name} now played ({:.2} per game, never before)", t.per_game(after)));
        } else if after == 0 {
            parts.push(format!("{name} no longer played"));
        } else {
            let ratio = (after as f64 / turns_total) / (before as f64 / base_turns_total);
            if (ratio - 1.0).abs() >= 0.1 {
                parts.push(format!("{name} now played {} per turn", times(ratio)));
            }
        }
    }
    if parts.is_empty() {
        return format!("no significant difference over {} paired games", paired.games);
    }
    parts.join("; ")
}
