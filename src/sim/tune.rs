//! `diving tune RULESET --vary NAME=VALUES … --target "…"`: searches the rules' numbers for
//! the combination that best meets a target, by successive halving on paired seeds, and
//! writes it as a ruleset with the evidence that it beats the start.
//!
//! The candidates are every combination of the `--vary` axes (the syntax of
//! [`sweep::parse_axis`]; at most [`MAX_CANDIDATES`], drawn by the seed from a larger grid),
//! plus the ruleset's own numbers. Each round plays every surviving candidate on the same new
//! seeds and keeps the better half by the target's loss, so the budget (in games) goes to
//! the promising ones. A fifth of the budget is kept back: the winner and the start then play
//! the same fresh seeds, and each term of the target is judged on those games' 95% intervals,
//! never on the games that chose the winner.
//!
//! A target is a list of terms separated by commas: a measure of [`sweep::MEASURES`] alone
//! (`seat-balance`: as close to 0 as may be) or with a range (`length 30..40`: anywhere in
//! it). A term's loss is its distance from the goal in units of 5 points for a rate
//! (`seat-balance`, `first-seat`, `draws`), of the range's width for a range, and of 1
//! otherwise; the target's loss is the sum. A term with nothing to measure (`seat-balance` or
//! `first-seat` when no game was decided) is infinitely far from its goal: such a candidate is
//! dropped before any measured one, so a rule that draws every game never wins a tuning.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::stats::Tally;
use super::sweep::{self, Axis, MEASURES, Measure, find, measures, unmeasured};
use super::{Shared, SimConfig, SimError, progress_bar, simulate_balance};
use crate::core::{Gain, Rules};
use crate::limits;
use crate::ruleset::Ruleset;

/// Most candidates one search considers.
pub const MAX_CANDIDATES: usize = 81;

/// What `diving tune` was asked for, as plain values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuneOptions {
    pub ruleset: String,
    pub vary: Vec<String>,
    pub target: String,
    /// Games for the whole search, the evidence included.
    pub budget: u64,
    pub players: Vec<String>,
    pub seed: u64,
    pub jobs: Option<usize>,
    pub max_turns: u32,
    /// Where the tuned ruleset goes (default: `NAME-tuned.toml` here).
    pub out: Option<PathBuf>,
}

/// One term of a target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Term {
    pub key: &'static str,
    /// `Some`: anywhere in this range; `None`: as close to 0 as may be.
    pub range: Option<(f64, f64)>,
}

/// Reads a target: `seat-balance, length 30..40`.
pub fn parse_target(text: &str) -> Result<Vec<Term>, String> {
    let keys: Vec<&str> = MEASURES.iter().map(|(k, _)| *k).collect();
    let mut terms: Vec<Term> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut words = part.split_whitespace();
        let name = words.next().unwrap_or_default();
        let key = *keys
            .iter()
            .find(|k| **k == name)
            .ok_or_else(|| format!("'{name}' is not a measure (one of: {})", keys.join(", ")))?;
        let range = match words.next() {
            None => None,
            Some(r) => {
                let bad = || format!("{name}: '{r}' is not a range like 30..40");
                let (lo, hi) = r.split_once("..").ok_or_else(bad)?;
                let (lo, hi): (f64, f64) = (lo.parse().map_err(|_| bad())?, hi.parse().map_err(|_| bad())?);
                if lo.is_nan() || hi.is_nan() || lo > hi {
                    return Err(format!("{name}: the range {r} is empty"));
                }
                Some((lo, hi))
            }
        };
        if let Some(extra) = words.next() {
            return Err(format!("{name}: unexpected '{extra}' (write a measure and at most a range)"));
        }
        if terms.iter().any(|t| t.key == key) {
            return Err(format!("{key} is named twice"));
        }
        terms.push(Term { key, range });
    }
    if terms.is_empty() {
        return Err(format!(
            "the target names no measure (e.g. \"seat-balance, length 30..40\"; measures: {})",
            keys.join(", ")
        ));
    }
    Ok(terms)
}

impl Term {
    fn scale(&self) -> f64 {
        match self.range {
            Some((lo, hi)) => (hi - lo).max(1.0),
            None if matches!(self.key, "seat-balance" | "first-seat" | "draws") => 0.05,
            None => 1.0,
        }
    }

    /// How far `value` is from the goal, in the term's units.
    pub fn loss(&self, value: f64) -> f64 {
        let distance = match self.range {
            Some((lo, hi)) => (lo - value).max(value - hi).max(0.0),
            None => value.abs(),
        };
        distance / self.scale()
    }

    /// The least and the most loss of any value in `m`'s interval (the loss is convex).
    fn loss_bounds(&self, m: &Measure) -> (f64, f64) {
        let goal = match self.range {
            Some((lo, hi)) => m.value.clamp(lo, hi),
            None => 0.0,
        };
        (self.loss(goal.clamp(m.low, m.high)), self.loss(m.low).max(self.loss(m.high)))
    }
}

/// The target's loss for a tally; infinite when a term has nothing to measure.
pub fn loss(terms: &[Term], tally: &Tally) -> f64 {
    let ms = measures(tally);
    terms.iter().map(|t| find(&ms, t.key).map_or(f64::INFINITY, |m| t.loss(m.value))).sum()
}

/// The ruleset's own value of a number a sweep can vary.
fn value_of(rules: &Rules, name: &str) -> u32 {
    match name {
        "quick_extra" => rules.quick_extra,
        "quick_push" => rules.quick_push,
        "hand_size" => rules.hand_size as u32,
        "table_size" => rules.table_size as u32,
        "max_oxygen" => rules.max_oxygen,
        "max_depth" => rules.max_depth,
        "max_turns" => rules.max_turns,
        "decks" => rules.decks.unwrap_or(1),
        _ => unreachable!("parse_axis accepts only sweep::PARAMETERS"),
    }
}

/// One round of the search: how many candidates played how many games each, and the best.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    pub candidates: usize,
    pub games: u64,
    pub best: Vec<u32>,
    pub best_loss: f64,
}

/// A finished search.
#[derive(Debug, Clone)]
pub struct Tuned {
    pub names: Vec<String>,
    pub start: Vec<u32>,
    pub best: Vec<u32>,
    pub rounds: Vec<Round>,
    /// Games played by the search (the evidence not included).
    pub search_games: u64,
    /// The evidence: the best and the start on the same fresh seeds, and their pairing.
    pub best_tally: Tally,
    pub start_tally: Tally,
    pub paired: super::Paired,
    pub candidates: usize,
}

/// Searches `axes` for the numbers that best meet `terms`, within `budget` games.
pub fn tune(
    config: &SimConfig,
    ruleset: &Ruleset,
    axes: &[Axis],
    terms: &[Term],
    budget: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tuned, SimError> {
    let names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
    let start: Vec<u32> = names.iter().map(|n| value_of(&ruleset.rules, n)).collect();
    let mut grid = sweep::combinations(axes);
    if grid.len() > MAX_CANDIDATES {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        grid.shuffle(&mut rng);
        grid.truncate(MAX_CANDIDATES);
        grid.sort();
    }
    if !grid.contains(&start) {
        grid.push(start.clone());
    }
    let candidates = grid.len();
    let rounds_needed = (usize::BITS - (candidates.max(2) - 1).leading_zeros()) as u64;
    let search_budget = budget - budget / 5;
    let per_round = search_budget / rounds_needed;
    let n = config.players.len();
    let mut alive: Vec<(Vec<u32>, Tally)> = grid.into_iter().map(|v| (v, Tally::new(n))).collect();
    let (mut seed, mut search_games, mut rounds) = (config.seed, 0u64, Vec::new());
    while alive.len() > 1 || rounds.is_empty() {
        // Whole rotations, so every seat is played equally often by every bot.
        let games = (per_round / alive.len() as u64).max(2 * n as u64) / n as u64 * n as u64;
        let round = SimConfig { games, seed, ..config.clone() };
        for (values, tally) in &mut alive {
            let variant = sweep::variant(ruleset, &names, values);
            let point = names.iter().zip(values.iter()).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ");
            let result = simulate_balance(&round, &variant, None, progress).map_err(|e| match e {
                SimError::Setup(message) => SimError::Setup(format!("candidate {point}: {message}")),
                other => other,
            })?;
            tally.merge(&result.tally);
            search_games += games;
        }
        seed = seed.wrapping_add(games);
        // Stable: equal losses keep the grid's order.
        alive.sort_by(|a, b| loss(terms, &a.1).total_cmp(&loss(terms, &b.1)));
        rounds.push(Round {
            candidates: alive.len(),
            games,
            best: alive[0].0.clone(),
            best_loss: loss(terms, &alive[0].1),
        });
        alive.truncate(alive.len().div_ceil(2).max(1));
        if rounds.len() as u64 > rounds_needed {
            break;
        }
    }
    let best = alive.swap_remove(0).0;
    // The evidence: fresh seeds, the start as the baseline of a paired run.
    let evidence_games = ((budget / 5) / n as u64 * n as u64).max(n as u64);
    let check = SimConfig { games: evidence_games, seed, ..config.clone() };
    let result = simulate_balance(&check, &sweep::variant(ruleset, &names, &best), Some(ruleset), progress)?;
    let (start_tally, paired) = result.baseline.expect("paired with the start");
    Ok(Tuned {
        names: names.iter().map(|s| s.to_string()).collect(),
        start,
        best,
        rounds,
        search_games,
        best_tally: result.tally,
        start_tally,
        paired,
        candidates,
    })
}

/// What the evidence says of one term (`None`: nothing to measure in those games).
fn judgement(term: &Term, start: Option<&Measure>, best: Option<&Measure>) -> &'static str {
    let (Some(start), Some(best)) = (start, best) else {
        return "cannot tell (nothing to measure)";
    };
    let (best_least, best_most) = term.loss_bounds(best);
    let (start_least, start_most) = term.loss_bounds(start);
    if best_most < start_least {
        "better (the intervals part)"
    } else if start_most < best_least {
        "worse (the intervals part)"
    } else {
        "no clear difference"
    }
}

fn show(key: &str, m: Option<&Measure>) -> String {
    let Some(m) = m else {
        return unmeasured(key).to_string();
    };
    let digits = if matches!(m.key, "seat-balance" | "first-seat" | "draws") { 3 } else { 1 };
    format!("{:.d$} [{:.d$}, {:.d$}]", m.value, m.low, m.high, d = digits)
}

fn point(names: &[String], values: &[u32]) -> String {
    names.iter().zip(values).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ")
}

impl Tuned {
    /// What the best's games share with the start's on one seed.
    fn shared(&self, ruleset: &Ruleset) -> Shared {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let players = self.best_tally.seat_wins.len();
        Shared::of(&sweep::variant(ruleset, &names, &self.best).rules, &ruleset.rules, players)
    }

    pub fn text(&self, ruleset: &Ruleset, target: &str, terms: &[Term], config: &SimConfig, out: &Path) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "tuning {} on ruleset {} toward: {target}\n{} candidates by successive halving, {} games ({} players: {})",
            self.names.join(" × "),
            ruleset.name,
            self.candidates,
            self.search_games,
            config.players.len(),
            config.players.join(", ")
        );
        for (i, r) in self.rounds.iter().enumerate() {
            let _ = writeln!(
                s,
                "round {}: {} candidates × {} games, best {} (loss {:.3})",
                i + 1,
                r.candidates,
                r.games,
                point(&self.names, &r.best),
                r.best_loss
            );
        }
        let _ = writeln!(s, "\nbest:  {}\nstart: {}", point(&self.names, &self.best), point(&self.names, &self.start));
        let deals = match self.shared(ruleset) {
            Shared::Deals => "the same deals for both".to_string(),
            Shared::Shuffles(d) => format!("the same shuffles for both, but the deals differ: {}", d.join(", ")),
            Shared::Seeds(d) => format!("the deals differ: {}", d.join(", ")),
        };
        let _ = writeln!(s, "\nevidence: {} games each on fresh seeds, {deals} (95% intervals)", self.best_tally.games);
        let (bm, sm) = (measures(&self.best_tally), measures(&self.start_tally));
        let mut rows = vec![["term".to_string(), "start".into(), "best".into(), "verdict".into()]];
        for t in terms {
            let (b, st) = (find(&bm, t.key), find(&sm, t.key));
            let name = match t.range {
                Some((lo, hi)) => format!("{} {lo}..{hi}", t.key),
                None => t.key.to_string(),
            };
            rows.push([name, show(t.key, st), show(t.key, b), judgement(t, st, b).to_string()]);
        }
        let widths: Vec<usize> = (0..4).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
        for r in &rows {
            let _ = writeln!(
                s,
                "  {:<w0$}  {:>w1$}  {:>w2$}  {}",
                r[0],
                r[1],
                r[2],
                r[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
        }
        let verdicts: Vec<&str> = terms.iter().map(|t| judgement(t, find(&sm, t.key), find(&bm, t.key))).collect();
        let better = verdicts.iter().filter(|v| v.starts_with("better")).count();
        let worse = verdicts.iter().filter(|v| v.starts_with("worse")).count();
        let _ = writeln!(
            s,
            "  overall: {}",
            match (better, worse) {
                (0, 0) => "the evidence does not show the best beating the start (more --budget narrows the intervals)"
                    .to_string(),
                (b, 0) => format!("the best beats the start on {b} of {} terms and loses on none", terms.len()),
                (b, w) => format!("the best beats the start on {b} terms and loses on {w}: a trade-off"),
            }
        );
        let _ = writeln!(
            s,
            "  target loss: start {:.3}, best {:.3}",
            loss(terms, &self.start_tally),
            loss(terms, &self.best_tally)
        );
        let turns = &self.paired.turns;
        let _ = writeln!(s, "  paired, best − start: {:+.1} ± {:.1} turns per game", turns.mean(), turns.half_width());
        for (seat, m) in self.paired.seat_wins.iter().enumerate() {
            let _ =
                writeln!(s, "  paired, best − start: seat {} wins {:+.3} ± {:.3}", seat + 1, m.mean(), m.half_width());
        }
        let _ = writeln!(s, "\nwrote {}", out.display());
        s
    }

    pub fn json(&self, ruleset: &Ruleset, target: &str, terms: &[Term], out: &Path) -> Value {
        let values = |v: &[u32]| -> serde_json::Map<String, Value> {
            self.names.iter().zip(v).map(|(n, x)| (n.clone(), json!(x))).collect()
        };
        let (bm, sm) = (measures(&self.best_tally), measures(&self.start_tally));
        let shared = self.shared(ruleset);
        let interval = |m: Option<&Measure>| json!({ "value": m.map(|m| m.value), "low": m.map(|m| m.low), "high": m.map(|m| m.high) });
        let evidence: Vec<Value> = terms
            .iter()
            .map(|t| {
                let (b, st) = (find(&bm, t.key), find(&sm, t.key));
                json!({
                    "measure": t.key,
                    "range": t.range.map(|(lo, hi)| json!([lo, hi])),
                    "start": interval(st),
                    "best": interval(b),
                    "verdict": judgement(t, st, b),
                })
            })
            .collect();
        json!({
            "ruleset": ruleset.name,
            "target": target,
            "candidates": self.candidates,
            "search_games": self.search_games,
            "rounds": self.rounds.iter().map(|r| json!({
                "candidates": r.candidates, "games": r.games, "best": values(&r.best), "loss": r.best_loss,
            })).collect::<Vec<_>>(),
            "start": values(&self.start),
            "best": values(&self.best),
            "evidence": {
                "games": self.best_tally.games,
                "terms": evidence,
                "loss": { "start": loss(terms, &self.start_tally), "best": loss(terms, &self.best_tally) },
                "paired_turns": { "mean": self.paired.turns.mean(), "half_width": self.paired.turns.half_width() },
                "shared": shared.key(),
                "deals_differ": shared.differences(),
            },
            "written": out.display().to_string(),
        })
    }
}

/// The tuned ruleset as a TOML file extending the start.
pub fn ruleset_file(ruleset: &Ruleset, names: &[String], best: &[u32], target: &str) -> String {
    let base = match std::fs::canonicalize(&ruleset.name) {
        Ok(path) if Path::new(&ruleset.name).is_file() => path.display().to_string(),
        _ => ruleset.name.clone(),
    };
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let tuned = sweep::variant(ruleset, &name_refs, best);
    let mut s = format!(
        "# Tuned by `diving tune` from {} toward: {}\n# (its report holds the evidence)\n\nextends = {}\n",
        ruleset.name,
        target.replace('\n', " "),
        toml_string(&base)
    );
    for (name, value) in names.iter().zip(best) {
        let _ = writeln!(s, "{name} = {value}");
    }
    if names.iter().any(|n| n == "max_depth") {
        let bands: Vec<String> = tuned.rules.oxygen_bands.iter().map(|b| format!("[{}, {}]", b.to, b.cost)).collect();
        let _ = writeln!(s, "oxygen_bands = [{}]", bands.join(", "));
    }
    if names.iter().any(|n| n == "hand_size") {
        let _ = writeln!(s, "\n[recovery]");
        for (pattern, gain) in &tuned.rules.recovery {
            let gain = match gain {
                Gain::Amount(n) => n.to_string(),
                Gain::Max => "\"max\"".into(),
            };
            let _ = writeln!(s, "{} = {gain}", toml_string(&pattern.to_string()));
        }
    }
    s
}

fn toml_string(text: &str) -> String {
    let escaped: String = text
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            c => vec![c],
        })
        .collect();
    format!("\"{escaped}\"")
}

/// `diving tune`.
pub fn run(json_out: bool, args: &TuneOptions) -> anyhow::Result<ExitCode> {
    let axes = args
        .vary
        .iter()
        .map(|spec| sweep::parse_axis(spec).map_err(|e| anyhow::anyhow!("--vary {e}")))
        .collect::<anyhow::Result<Vec<Axis>>>()?;
    if axes.is_empty() {
        anyhow::bail!("--vary: name at least one number to tune, e.g. --vary quick_extra=0..20");
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name == a.name) {
            anyhow::bail!("--vary: {} is named twice", a.name);
        }
    }
    let terms = parse_target(&args.target).map_err(|e| anyhow::anyhow!("--target: {e}"))?;
    let ruleset = Ruleset::load(&args.ruleset).with_context(|| format!("cannot load ruleset '{}'", args.ruleset))?;
    let n = args.players.len().max(1) as u64;
    if args.budget < 10 * n {
        anyhow::bail!("--budget: {} games are too few for a search (at least {})", args.budget, 10 * n);
    }
    let jobs = limits::jobs(args.jobs, args.budget).map_err(anyhow::Error::msg)?;
    let config = SimConfig {
        games: args.budget,
        players: args.players.iter().map(|p| p.trim().to_string()).collect(),
        seed: args.seed,
        jobs,
        rotate: true,
        max_turns: args.max_turns,
    };
    let out = match &args.out {
        Some(path) => path.clone(),
        None => {
            let stem =
                Path::new(&args.ruleset).file_stem().map_or("ruleset".into(), |s| s.to_string_lossy().into_owned());
            PathBuf::from(format!("{stem}-tuned.toml"))
        }
    };
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        anyhow::bail!("--out: cannot write {}: there is no folder {}", out.display(), dir.display());
    }
    let bar = progress_bar(args.budget);
    let result = tune(&config, &ruleset, &axes, &terms, args.budget, &|g| bar.inc(g));
    bar.finish_and_clear();
    let tuned = match result {
        Ok(tuned) => tuned,
        Err(SimError::Setup(message)) => anyhow::bail!(message),
        Err(e @ SimError::Game { .. }) => {
            let _ = writeln!(std::io::stderr(), "diving: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let file = ruleset_file(&ruleset, &tuned.names, &tuned.best, &args.target);
    std::fs::write(&out, &file).with_context(|| format!("cannot write the tuned ruleset to {}", out.display()))?;
    // The file must read back as the ruleset that was judged.
    let names: Vec<&str> = tuned.names.iter().map(String::as_str).collect();
    let expected = sweep::variant(&ruleset, &names, &tuned.best);
    let written = Ruleset::load(&out.display().to_string())
        .with_context(|| format!("the tuned ruleset {} does not read back", out.display()))?;
    if written.rules != expected.rules {
        anyhow::bail!("the tuned ruleset {} reads back as other rules than the ones tuned", out.display());
    }
    let text = if json_out {
        serde_json::to_string(&tuned.json(&ruleset, &args.target, &terms, &out)).expect("JSON") + "\n"
    } else {
        tuned.text(&ruleset, &args.target, &terms, &config, &out)
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).context("cannot write the report")?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_read_measures_and_ranges() {
        let terms = parse_target("seat-balance, length 30..40").unwrap();
        assert_eq!(
            terms,
            [Term { key: "seat-balance", range: None }, Term { key: "length", range: Some((30.0, 40.0)) }]
        );
        assert_eq!(terms[1].loss(35.0), 0.0);
        assert_eq!(terms[1].loss(45.0), 0.5);
        assert_eq!(terms[0].loss(0.1), 2.0);
        for (bad, says) in [
            ("", "names no measure"),
            ("speed", "'speed' is not a measure"),
            ("length 40..30", "is empty"),
            ("length 30-40", "not a range"),
            ("length 30..40 turns", "unexpected 'turns'"),
            ("length, length 1..2", "named twice"),
        ] {
            let e = parse_target(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    /// The judgement compares the whole intervals: overlapping ones are no evidence.
    #[test]
    fn only_parted_intervals_are_evidence() {
        let term = Term { key: "length", range: Some((30.0, 40.0)) };
        let m = |value: f64, hw: f64| Measure { key: "length", value, low: value - hw, high: value + hw };
        assert_eq!(judgement(&term, Some(&m(50.0, 1.0)), Some(&m(38.0, 1.0))), "better (the intervals part)");
        assert_eq!(judgement(&term, Some(&m(42.0, 2.0)), Some(&m(41.0, 2.0))), "no clear difference");
        assert_eq!(judgement(&term, Some(&m(35.0, 1.0)), Some(&m(45.0, 1.0))), "worse (the intervals part)");
        assert_eq!(judgement(&term, None, Some(&m(35.0, 1.0))), "cannot tell (nothing to measure)");
    }
}
