//! `diving sim --sweep NAME=VALUES`: the paired report for every combination of some rules'
//! numbers, on the same seeds, with the balance measures a house-rule writer asks about.
//!
//! Each axis names a number of the rules ([`PARAMETERS`]) and its values (`4..16:2`,
//! `4..16`, `4,5`); a sweep file holds one axis a line. Every combination is played as a
//! variant of the ruleset (its mods included) against the ruleset itself (or `--baseline`) on
//! the same seeds and deals, so each point carries a paired comparison as well as its own
//! figures. The measures ([`measures`]), each with a 95% confidence interval:
//! - `seat-balance`: the largest gap between two seats' shares of the decided games (left out
//!   when none was decided, like `first-seat`);
//! - `first-seat`: seat 1's share of the decided games less a fair share (1 / players): a
//!   draw is no game lost by seat 1, so it is left out rather than counted against it. The
//!   interval is Wilson's on seat 1's wins out of the decided games; with none decided there
//!   is no edge to measure, and the measure is left out;
//! - `length`: turns per game; `draws`: the share of games drawn at the turn cap;
//! - `rescues`: rescues per game; `lead-changes`: times per game the lead (the strictly
//!   deepest diver) passed to another diver;
//! - `decisiveness`: how far ahead of the next diver the winner ends, in depth units (left
//!   out, like `first-seat`, when no game was decided).
//!
//! Output: a table, `--json`, `--csv` (one row per point and measure) and `--plot`: an SVG
//! with each measure against the first axis, one line per combination of the others, and its
//! confidence band.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use plotters::prelude::*;
use serde_json::{Value, json};

use super::stats::{Moments, Tally, wilson};
use super::{SimConfig, SimError, SimOptions, SimResult, progress_bar, simulate_balance};
use crate::core::{Gain, Rules, SuitPattern};
use crate::limits::{self, FileKind};
use crate::ruleset::Ruleset;

/// The numbers of the rules a sweep can vary, as the ruleset files name them.
pub const PARAMETERS: [&str; 8] =
    ["quick_extra", "quick_push", "hand_size", "table_size", "max_oxygen", "max_depth", "max_turns", "decks"];

/// Most combinations one sweep may play.
pub const MAX_POINTS: usize = 400;

/// One varied number and the values it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    pub name: String,
    pub values: Vec<u32>,
}

/// Reads `NAME=FROM..TO[:STEP]` (both ends included) or `NAME=V1,V2,…`.
pub fn parse_axis(spec: &str) -> Result<Axis, String> {
    let (name, values) =
        spec.split_once('=').ok_or_else(|| format!("'{spec}': write NAME=VALUES, e.g. quick_extra=4..16:2"))?;
    let name = name.trim();
    if !PARAMETERS.contains(&name) {
        return Err(format!("'{name}' is not a number a sweep can vary (one of: {})", PARAMETERS.join(", ")));
    }
    let number = |text: &str| {
        text.trim().parse::<u32>().map_err(|_| format!("{name}: '{}' is not a whole number ≥ 0", text.trim()))
    };
    let values = values.trim();
    let values: Vec<u32> = if let Some((from, rest)) = values.split_once("..") {
        let (to, step) = match rest.split_once(':') {
            Some((to, step)) => (to, number(step)?),
            None => (rest, 1),
        };
        let (from, to) = (number(from)?, number(to)?);
        if step == 0 {
            return Err(format!("{name}: the step must be at least 1"));
        }
        if from > to {
            return Err(format!("{name}: the range {from}..{to} is empty (write the smaller end first)"));
        }
        (from..=to).step_by(step as usize).take(MAX_POINTS + 1).collect()
    } else {
        values.split(',').map(number).collect::<Result<_, _>>()?
    };
    if values.len() > MAX_POINTS {
        return Err(format!("{name}: more than {MAX_POINTS} values"));
    }
    Ok(Axis { name: name.to_string(), values })
}

/// The axes of a sweep file: one `NAME = VALUES` a line; blank lines and `#` comments skipped.
pub fn read_sweep_file(path: &Path) -> Result<Vec<Axis>, String> {
    let text =
        limits::read_text(path, FileKind::Ruleset).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut axes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let spec: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        axes.push(parse_axis(&spec).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?);
    }
    if axes.is_empty() {
        return Err(format!("{}: no axis (write a line like quick_extra = 4..16:2)", path.display()));
    }
    Ok(axes)
}

/// Sets the rules' number `name` to `value`.
fn set(rules: &mut Rules, name: &str, value: u32) {
    match name {
        "quick_extra" => rules.quick_extra = value,
        "quick_push" => rules.quick_push = value,
        "hand_size" => {
            rules.hand_size = value as usize;
            fill_recovery(rules);
        }
        "table_size" => rules.table_size = value as usize,
        "max_oxygen" => rules.max_oxygen = value,
        "max_depth" => {
            // The last band ends at the bottom.
            if let Some(last) = rules.oxygen_bands.last_mut() {
                last.to = value;
            }
            rules.max_depth = value;
        }
        "max_turns" => rules.max_turns = value,
        "decks" => rules.decks = Some(value),
        _ => unreachable!("parse_axis accepts only PARAMETERS"),
    }
}

/// Gives every suit pattern a hand of the rules' size can discard a gain, where the table has
/// none: the best gain of a pattern it contains (a discard of `3+2` gains at least what its
/// `3` would). A sweep of `hand_size` past the table's patterns plays that way.
fn fill_recovery(rules: &mut Rules) {
    let counts = |p: &SuitPattern| -> Vec<u32> {
        let text = p.to_string();
        if text == "none" { Vec::new() } else { text.split('+').filter_map(|c| c.parse().ok()).collect() }
    };
    // Sorted largest first, a pattern fits in another when each count does.
    let fits =
        |inner: &[u32], outer: &[u32]| inner.len() <= outer.len() && inner.iter().zip(outer).all(|(i, o)| i <= o);
    let rank = |g: &Gain| match g {
        Gain::Amount(n) => u64::from(*n),
        Gain::Max => u64::MAX,
    };
    for pattern in SuitPattern::all_up_to(rules.hand_size) {
        if rules.recovery.contains_key(&pattern) {
            continue;
        }
        let outer = counts(&pattern);
        let best = rules
            .recovery
            .iter()
            .filter(|(p, _)| fits(&counts(p), &outer))
            .map(|(_, g)| *g)
            .max_by_key(rank)
            .unwrap_or(Gain::Amount(0));
        rules.recovery.insert(pattern, best);
    }
}

/// `ruleset` with the numbers of one point.
pub fn variant(ruleset: &Ruleset, names: &[&str], values: &[u32]) -> Ruleset {
    let mut rules = (*ruleset.rules).clone();
    for (name, &value) in names.iter().zip(values) {
        set(&mut rules, name, value);
    }
    Ruleset { rules: Arc::new(rules), ..ruleset.clone() }
}

/// Every combination of the axes' values, the first axis changing slowest.
pub fn combinations(axes: &[Axis]) -> Vec<Vec<u32>> {
    let mut points = vec![Vec::new()];
    for axis in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                axis.values.iter().map(move |&v| {
                    let mut p = p.clone();
                    p.push(v);
                    p
                })
            })
            .collect();
    }
    points
}

/// A measure with its 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measure {
    pub key: &'static str,
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// The measures' keys and how the table heads them.
pub const MEASURES: [(&str, &str); 7] = [
    ("seat-balance", "seat gap"),
    ("first-seat", "seat 1 edge"),
    ("length", "turns"),
    ("draws", "draws"),
    ("rescues", "rescues"),
    ("lead-changes", "lead changes"),
    ("decisiveness", "margin"),
];

fn mean(key: &'static str, m: &Moments) -> Measure {
    let (value, hw) = (m.mean(), m.half_width());
    Measure { key, value, low: value - hw, high: value + hw }
}

/// The measure with this key among `ms`, if it was measured.
pub fn find<'m>(ms: &'m [Measure], key: &str) -> Option<&'m Measure> {
    ms.iter().find(|m| m.key == key)
}

/// The balance measures of one ruleset's games (a tally made by [`simulate_balance`]), in the
/// order of [`MEASURES`]; one with nothing to measure is left out (the seat gap, seat 1's
/// edge and the winner's margin, when no game was decided).
pub fn measures(tally: &Tally) -> Vec<Measure> {
    // Both seat measures are over the decided games: conditioned on how many were decided,
    // the seats' wins among them are one multinomial. Over all games the draws read as every
    // seat's losses: 98% draws gave seat 1 an "edge" of -0.49, and a ruleset that draws every
    // game a seat gap of 0, a perfect balance that `tune` could aim at.
    let decided: u64 = tally.seat_wins.iter().sum();
    let n = decided.max(1) as f64;
    let seats = tally.seat_wins.len().max(1);
    let rate = |s: usize| tally.seat_wins[s] as f64 / n;
    let (most, least) = (0..seats)
        .fold((0, 0), |(hi, lo), s| (if rate(s) > rate(hi) { s } else { hi }, if rate(s) < rate(lo) { s } else { lo }));
    // The gap between two seats' shares of one multinomial: var = (p + q - (p - q)²) / n.
    let (p, q) = (rate(most), rate(least));
    let gap = p - q;
    let hw = 1.96 * ((p + q - gap * gap).max(0.0) / n).sqrt();
    let balance =
        (decided > 0).then_some(Measure { key: "seat-balance", value: gap, low: (gap - hw).max(0.0), high: gap + hw });
    // Seat 1 against its fair share of the decided games: its wins among them are binomial,
    // so Wilson's interval holds.
    let fair = 1.0 / seats as f64;
    let first = (decided > 0).then(|| {
        let r = wilson(tally.seat_wins[0], decided);
        Measure { key: "first-seat", value: r.rate - fair, low: r.low - fair, high: r.high - fair }
    });
    let draws = wilson(tally.draws, tally.games);
    [
        balance,
        first,
        Some(mean("length", &tally.turns)),
        Some(Measure { key: "draws", value: draws.rate, low: draws.low, high: draws.high }),
        Some(mean("rescues", &tally.rescues)),
        Some(mean("lead-changes", &tally.lead_changes)),
        (tally.margins.n > 0).then(|| mean("decisiveness", &tally.margins)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// What a report says of a measure with nothing to measure.
pub fn unmeasured(key: &str) -> &'static str {
    match key {
        "seat-balance" | "first-seat" | "decisiveness" => "no decided game",
        _ => "not measured",
    }
}

/// One combination's games: its values (in axis order) and the paired run.
#[derive(Debug, Clone)]
pub struct Point {
    pub values: Vec<u32>,
    pub result: SimResult,
}

impl Point {
    pub fn measures(&self) -> Vec<Measure> {
        measures(&self.result.tally)
    }
}

/// Plays every combination of `axes` as a variant of `ruleset` against `baseline` (the
/// ruleset itself when `None`) on the same seeds.
pub fn sweep(
    config: &SimConfig,
    ruleset: &Ruleset,
    baseline: Option<&Ruleset>,
    axes: &[Axis],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Point>, SimError> {
    check_axes(axes).map_err(SimError::Setup)?;
    let names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
    let base = baseline.unwrap_or(ruleset);
    combinations(axes)
        .into_iter()
        .map(|values| {
            let variant = variant(ruleset, &names, &values);
            let point = names.iter().zip(&values).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ");
            let result = simulate_balance(config, &variant, Some(base), progress).map_err(|e| match e {
                SimError::Setup(message) => SimError::Setup(format!("sweep point {point}: {message}")),
                other => other,
            })?;
            Ok(Point { values, result })
        })
        .collect()
}

/// The axes must name distinct numbers and make at most [`MAX_POINTS`] combinations.
fn check_axes(axes: &[Axis]) -> Result<(), String> {
    if axes.is_empty() {
        return Err("a sweep needs at least one axis".into());
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name == a.name) {
            return Err(format!("{} is swept twice", a.name));
        }
    }
    let count = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len()).filter(|&n| n <= MAX_POINTS));
    match count {
        Some(_) => Ok(()),
        None => Err(format!("the sweep makes more than {MAX_POINTS} combinations")),
    }
}

/// `diving sim --sweep …`: plays the sweep and writes its table, JSON or CSV (and chart).
pub fn run(ruleset: Option<&str>, json: bool, args: &SimOptions) -> anyhow::Result<ExitCode> {
    let mut axes = match &args.sweep_file {
        Some(path) => read_sweep_file(path).map_err(anyhow::Error::msg)?,
        None => Vec::new(),
    };
    for spec in &args.sweep {
        axes.push(parse_axis(spec).map_err(|e| anyhow::anyhow!("--sweep {e}"))?);
    }
    check_axes(&axes).map_err(|e| anyhow::anyhow!("--sweep: {e}"))?;
    let rules_spec = ruleset.unwrap_or("standard");
    let ruleset = Ruleset::load(rules_spec).with_context(|| format!("cannot load ruleset '{rules_spec}'"))?;
    let baseline = match &args.baseline {
        Some(spec) => Some(Ruleset::load(spec).with_context(|| format!("cannot load baseline ruleset '{spec}'"))?),
        None => None,
    };
    let config = super::config_of(args)?;
    super::check_plot_path(args.plot.as_deref())?;
    let points = combinations(&axes).len() as u64;
    let bar = progress_bar(points * config.games * 2);
    let result = sweep(&config, &ruleset, baseline.as_ref(), &axes, &|n| bar.inc(n));
    bar.finish_and_clear();
    let points = match result {
        Ok(points) => points,
        Err(SimError::Setup(message)) => anyhow::bail!(message),
        Err(e @ SimError::Game { .. }) => {
            let _ = writeln!(std::io::stderr(), "diving: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let base_name = baseline.as_ref().unwrap_or(&ruleset).name.clone();
    let sweep = Sweep { config: &config, ruleset: &ruleset, baseline: &base_name, axes: &axes, points: &points };
    let text = if json {
        serde_json::to_string(&sweep.json()).expect("JSON") + "\n"
    } else if args.csv {
        sweep.csv()
    } else {
        sweep.text()
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("cannot write the report")?;
    if let Some(path) = &args.plot {
        let svg = sweep.svg()?;
        std::fs::write(path, svg).with_context(|| format!("cannot write the chart to {}", path.display()))?;
        if !json && !args.csv {
            writeln!(out, "chart written to {}", path.display()).context("cannot write the report")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A finished sweep, for its reports.
pub struct Sweep<'a> {
    pub config: &'a SimConfig,
    pub ruleset: &'a Ruleset,
    /// The name of what every point was paired with.
    pub baseline: &'a str,
    pub axes: &'a [Axis],
    pub points: &'a [Point],
}

/// A measure with its 95% interval: `value ±half-width` when the interval is centred on the
/// value (as shown), else `value (low–high)` — a rate near 0 or a seat gap, whose interval
/// cannot reach below 0, would otherwise seem to.
fn ci(m: &Measure) -> String {
    let digits = if m.key == "seat-balance" || m.key == "first-seat" || m.key == "draws" { 3 } else { 1 };
    let shown = |x: f64| format!("{x:.digits$}");
    let (below, above) = (m.value - m.low, m.high - m.value);
    if shown(below) == shown(above) {
        format!("{} ±{}", shown(m.value), shown(below))
    } else {
        format!("{} ({}–{})", shown(m.value), shown(m.low), shown(m.high))
    }
}

impl Sweep<'_> {
    /// The table: one row per combination.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "sweep of {} on ruleset {}: {} combinations × {} games ({} players: {}), each paired with {} on seeds {}…",
            self.axes.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(" × "),
            self.ruleset.name,
            self.points.len(),
            self.config.games,
            self.config.players.len(),
            self.config.players.join(", "),
            self.baseline,
            self.config.seed,
        );
        let _ = writeln!(
            s,
            "figures are means or rates with their 95% half-widths, or their 95% intervals where those are not centred on them; Δ is paired against {}\n",
            self.baseline
        );
        let mut head: Vec<String> = self.axes.iter().map(|a| a.name.clone()).collect();
        head.extend(MEASURES.iter().map(|(_, h)| h.to_string()));
        head.push("Δ turns".into());
        head.push("Δ seat 1 wins".into());
        let mut rows = vec![head];
        for p in self.points {
            let mut row: Vec<String> = p.values.iter().map(|v| v.to_string()).collect();
            let ms = p.measures();
            row.extend(MEASURES.iter().map(|(key, _)| find(&ms, key).map_or_else(|| unmeasured(key).to_string(), ci)));
            let (_, paired) = p.result.baseline.as_ref().expect("a sweep pairs every point");
            row.push(format!("{:+.1} ±{:.1}", paired.turns.mean(), paired.turns.half_width()));
            let s1 = &paired.seat_wins[0];
            row.push(format!("{:+.3} ±{:.3}", s1.mean(), s1.half_width()));
            rows.push(row);
        }
        let widths: Vec<usize> =
            (0..rows[0].len()).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
        for row in &rows {
            let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
            let _ = writeln!(s, "{}", cells.join("  ").trim_end());
        }
        s
    }

    /// The sweep as one JSON object.
    pub fn json(&self) -> Value {
        let points: Vec<Value> = self
            .points
            .iter()
            .map(|p| {
                let values: serde_json::Map<String, Value> =
                    self.axes.iter().zip(&p.values).map(|(a, v)| (a.name.clone(), json!(v))).collect();
                let ms = p.measures();
                let measures: serde_json::Map<String, Value> = MEASURES
                    .iter()
                    .map(|(key, _)| {
                        let m = find(&ms, key);
                        (
                            key.to_string(),
                            json!({ "value": m.map(|m| m.value), "low": m.map(|m| m.low), "high": m.map(|m| m.high) }),
                        )
                    })
                    .collect();
                let (_, paired) = p.result.baseline.as_ref().expect("paired");
                let diff = |m: &Moments| json!({ "mean": m.mean(), "half_width": m.half_width() });
                json!({
                    "values": values,
                    "games": p.result.tally.games,
                    "measures": measures,
                    "paired": {
                        "turns": diff(&paired.turns),
                        "rescues": diff(&paired.rescues),
                        "draws": diff(&paired.draws),
                        "seat_wins": paired.seat_wins.iter().map(diff).collect::<Vec<_>>(),
                        "differing_games": paired.differing,
                    },
                })
            })
            .collect();
        json!({
            "ruleset": self.ruleset.name,
            "baseline": self.baseline,
            "players": self.config.players,
            "games_per_point": self.config.games,
            "seed": self.config.seed,
            "axes": self.axes.iter().map(|a| json!({ "name": a.name, "values": a.values })).collect::<Vec<_>>(),
            "points": points,
        })
    }

    /// One row per point and measure: the axes' values, the measure, its value and interval.
    pub fn csv(&self) -> String {
        let mut s = String::new();
        let names: Vec<&str> = self.axes.iter().map(|a| a.name.as_str()).collect();
        let _ = writeln!(s, "{},measure,value,low,high", names.join(","));
        for p in self.points {
            let values: Vec<String> = p.values.iter().map(|v| v.to_string()).collect();
            let ms = p.measures();
            for (key, _) in MEASURES {
                match find(&ms, key) {
                    Some(m) => {
                        let _ = writeln!(s, "{},{key},{:.6},{:.6},{:.6}", values.join(","), m.value, m.low, m.high);
                    }
                    None => {
                        let _ = writeln!(s, "{},{key},,,", values.join(","));
                    }
                }
            }
        }
        s
    }

    /// Each measure against the first axis, one line per combination of the other axes, with
    /// its confidence band.
    pub fn svg(&self) -> anyhow::Result<String> {
        let draw_error = |e: &dyn std::fmt::Display| anyhow::anyhow!("cannot draw the chart: {e}");
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (1200, 640)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| draw_error(&e))?;
            let panels = root.split_evenly((2, 4));
            let axis = &self.axes[0];
            // Series: the points sharing the values of the other axes.
            let mut series: Vec<(Vec<u32>, Vec<&Point>)> = Vec::new();
            for p in self.points {
                let rest = p.values[1..].to_vec();
                match series.iter_mut().find(|(r, _)| *r == rest) {
                    Some((_, ps)) => ps.push(p),
                    None => series.push((rest, vec![p])),
                }
            }
            let (x0, x1) =
                (axis.values.iter().min().copied().unwrap_or(0), axis.values.iter().max().copied().unwrap_or(1));
            let x1 = if x1 == x0 { x0 + 1 } else { x1 };
            for (k, (key, title)) in MEASURES.iter().enumerate() {
                // A point with nothing to measure is left out of its line and band (none
                // measured: an empty panel).
                let all: Vec<Measure> = self.points.iter().filter_map(|p| find(&p.measures(), key).copied()).collect();
                let (lo, hi) = if all.is_empty() {
                    (0.0, 1.0)
                } else {
                    (
                        all.iter().map(|m| m.low).fold(f64::INFINITY, f64::min),
                        all.iter().map(|m| m.high).fold(f64::NEG_INFINITY, f64::max),
                    )
                };
                let pad = ((hi - lo) * 0.1).max(1e-3);
                let mut chart = ChartBuilder::on(&panels[k])
                    .caption(format!("{title} ({key})"), ("sans-serif", 15))
                    .margin(8)
                    .x_label_area_size(28)
                    .y_label_area_size(48)
                    .build_cartesian_2d(f64::from(x0)..f64::from(x1), (lo - pad)..(hi + pad))
                    .map_err(|e| draw_error(&e))?;
                chart
                    .configure_mesh()
                    .x_desc(axis.name.as_str())
                    .light_line_style(WHITE)
                    .draw()
                    .map_err(|e| draw_error(&e))?;
                for (i, (rest, points)) in series.iter().enumerate() {
                    let colour = Palette99::pick(i).to_rgba();
                    let ms: Vec<(f64, Measure)> = points
                        .iter()
                        .filter_map(|p| Some((f64::from(p.values[0]), *find(&p.measures(), key)?)))
                        .collect();
                    let mut band: Vec<(f64, f64)> = ms.iter().map(|(x, m)| (*x, m.high)).collect();
                    band.extend(ms.iter().rev().map(|(x, m)| (*x, m.low)));
                    chart
                        .draw_series(std::iter::once(Polygon::new(band, colour.mix(0.18).filled())))
                        .map_err(|e| draw_error(&e))?;
                    let label = self.axes[1..]
                        .iter()
                        .zip(rest)
                        .map(|(a, v)| format!("{}={v}", a.name))
                        .collect::<Vec<_>>()
                        .join(" ");
                    let line = chart
                        .draw_series(std::iter::once(PathElement::new(
                            ms.iter().map(|(x, m)| (*x, m.value)).collect::<Vec<_>>(),
                            colour.stroke_width(2),
                        )))
                        .map_err(|e| draw_error(&e))?;
                    if !label.is_empty() {
                        line.label(label).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], colour));
                    }
                }
                if series.len() > 1 {
                    chart
                        .configure_series_labels()
                        .background_style(WHITE.mix(0.8))
                        .border_style(BLACK)
                        .label_font(("sans-serif", 11))
                        .draw()
                        .map_err(|e| draw_error(&e))?;
                }
            }
            root.present().map_err(|e| draw_error(&e))?;
        }
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_read_ranges_steps_and_lists() {
        assert_eq!(parse_axis("quick_extra=4..16:4").unwrap().values, [4, 8, 12, 16]);
        assert_eq!(parse_axis("hand_size=4,5").unwrap().values, [4, 5]);
        assert_eq!(parse_axis("max_oxygen=6..8").unwrap().values, [6, 7, 8]);
        for (bad, says) in [
            ("quick_extra", "NAME=VALUES"),
            ("speed=1,2", "not a number a sweep can vary"),
            ("quick_extra=4..2", "is empty"),
            ("quick_extra=4..8:0", "step"),
            ("quick_extra=x", "'x' is not a whole number"),
            ("quick_extra=0..100000", "more than 400"),
        ] {
            let e = parse_axis(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    /// An interval centred on its value is shown as a half-width; one that is not (a rate
    /// near 0, a seat gap) as its ends, so it does not seem to reach below 0.
    #[test]
    fn an_interval_not_centred_on_its_value_is_shown_by_its_ends() {
        let m = |key, value, low, high| Measure { key, value, low, high };
        assert_eq!(ci(&m("length", 42.2, 41.1, 43.3)), "42.2 ±1.1");
        assert_eq!(ci(&m("draws", 0.0, 0.0, 0.0038)), "0.000 (0.000–0.004)");
        assert_eq!(ci(&m("seat-balance", 0.024, 0.0012, 0.0671)), "0.024 (0.001–0.067)");
        assert_eq!(ci(&m("first-seat", 0.012, -0.019, 0.043)), "0.012 ±0.031");
    }

    #[test]
    fn combinations_vary_the_first_axis_slowest() {
        let axes = [parse_axis("quick_extra=1,2").unwrap(), parse_axis("hand_size=4,5,6").unwrap()];
        assert_eq!(combinations(&axes), [[1, 4], [1, 5], [1, 6], [2, 4], [2, 5], [2, 6]]);
        assert_eq!(check_axes(&[axes[0].clone(), axes[0].clone()]), Err("quick_extra is swept twice".into()));
    }

    /// A larger hand gets gains for the patterns the table lacks, from the patterns in them.
    #[test]
    fn a_larger_hand_gains_what_its_best_part_gains() {
        let mut rules = Rules::default();
        set(&mut rules, "hand_size", 6);
        rules.validate_for(2).unwrap();
        let gain = |p: &str| rules.recovery[&SuitPattern::parse(p).unwrap()];
        assert_eq!(gain("3+2"), Gain::Amount(4));
        assert_eq!(gain("2+2+2"), Gain::Amount(3));
        assert_eq!(gain("5"), Gain::Max);
        assert_eq!(gain("2"), Gain::Amount(2));
    }

    /// The measures follow from the totals: a seat that wins 3 games in 4 leaves a gap of a
    /// half, and its edge over a fair share is a quarter.
    #[test]
    fn measures_follow_from_the_totals() {
        let mut t = Tally::new(2);
        for (i, winner) in [0, 0, 0, 1].into_iter().enumerate() {
            let record = super::super::GameRecord {
                winner: Some(winner),
                turns: 30 + i as u32,
                lead_changes: 2,
                margin: 10,
                ..Default::default()
            };
            t.observe(&record, 0);
            t.observe_balance(&record);
        }
        let m = measures(&t);
        let get = |k: &str| find(&m, k).unwrap().value;
        assert_eq!(get("seat-balance"), 0.5);
        assert_eq!(get("first-seat"), 0.25);
        assert_eq!(get("length"), 31.5);
        assert_eq!(get("lead-changes"), 2.0);
        assert_eq!(get("decisiveness"), 10.0);
        assert_eq!(get("draws"), 0.0);
        assert!(m.iter().all(|x| x.low <= x.value && x.value <= x.high), "{m:?}");
    }

    fn tally_of(winners: &[Option<usize>]) -> Tally {
        let mut t = Tally::new(2);
        for &winner in winners {
            let record = super::super::GameRecord { winner, draw: winner.is_none(), turns: 20, ..Default::default() };
            t.observe(&record, 0);
            t.observe_balance(&record);
        }
        t
    }

    /// Regression: a draw is no game lost by seat 1. Two seats that win one game each in 100
    /// have no edge; counted over all games, seat 1 was 0.49 short of its half.
    #[test]
    fn draws_are_not_seat_one_losses() {
        let mut winners = vec![None; 98];
        winners.extend([Some(0), Some(1)]);
        let m = measures(&tally_of(&winners));
        let edge = find(&m, "first-seat").unwrap();
        assert_eq!(edge.value, 0.0);
        assert!(edge.low < 0.0 && 0.0 < edge.high, "{edge:?}");
        assert_eq!(find(&m, "seat-balance").unwrap().value, 0.0);
        // Seat 1 winning every decided game has the whole of the other seat's share, and the
        // whole gap: over all games the draws halved it.
        let m = measures(&tally_of(&[None, None, Some(0), Some(0)]));
        assert_eq!(find(&m, "first-seat").unwrap().value, 0.5);
        assert_eq!(find(&m, "seat-balance").unwrap().value, 1.0);
    }

    /// With every game drawn there is no edge to measure, and the reports say so.
    #[test]
    fn all_draws_leave_no_edge_to_measure() {
        let m = measures(&tally_of(&[None; 10]));
        assert_eq!(find(&m, "first-seat"), None);
        assert_eq!(find(&m, "seat-balance"), None, "no seat won: nothing to balance, not a perfect balance");
        assert_eq!(find(&m, "decisiveness"), None, "no winner, no margin");
        assert_eq!(find(&m, "draws").unwrap().value, 1.0);
        assert_eq!(unmeasured("first-seat"), "no decided game");
    }
}
