//! `--plot FILE.svg`: an SVG chart of a simulation, drawn with `plotters` (SVG backend only).
//! Left: the distribution of game lengths; right: win rates by seat and by bot with their 95%
//! confidence intervals. With a baseline, its figures are drawn beside the ruleset's.

use std::path::Path;

use plotters::prelude::*;

use super::report::Report;
use super::stats::{Rate, Tally, wilson};

const RULESET_COLOUR: RGBColor = RGBColor(31, 119, 180);
const BASELINE_COLOUR: RGBColor = RGBColor(255, 127, 14);

/// Draws the chart for `report` into `path`.
pub fn write_svg(path: &Path, report: &Report<'_>) -> anyhow::Result<()> {
    let svg = render(report)?;
    std::fs::write(path, svg)?;
    Ok(())
}

/// The chart as SVG text.
pub fn render(report: &Report<'_>) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let (left, right) = root.split_horizontally(560);
        let baseline = report.result.baseline.as_ref().map(|(b, _)| b);
        draw_lengths(&left, report, baseline)?;
        draw_wins(&right, report, baseline)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

fn draw_error<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the chart: {e}")
}

/// One bar group per histogram bin (the ruleset, then the baseline beside it).
fn draw_lengths<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    report: &Report<'_>,
    baseline: Option<&Tally>,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let tally = &report.result.tally;
    // Bin both tallies on the same edges: those of the longer-running one.
    let (low, high) = match baseline {
        Some(b) => (tally.length_quantile(0.0).min(b.length_quantile(0.0)), tally.max_turns.max(b.max_turns)),
        None => (tally.length_quantile(0.0), tally.max_turns),
    };
    let bins = 30u32;
    let width = ((high.saturating_sub(low) + 1).div_ceil(bins)).max(1);
    let count = |t: &Tally| -> Vec<(u32, f64)> {
        let edges = (0..bins).map(|i| low + i * width);
        edges
            .map(|from| {
                let games: u64 = (from..from + width).map(|x| t.lengths[(x as usize).min(t.lengths.len() - 1)]).sum();
                (from, games as f64 / t.games.max(1) as f64)
            })
            .collect()
    };
    let ours = count(tally);
    let theirs = baseline.map(count);
    let top = ours.iter().chain(theirs.iter().flatten()).map(|x| x.1).fold(0.0, f64::max).max(1e-6) * 1.1;
    let x_end = low + bins * width;
    let mut chart = ChartBuilder::on(area)
        .caption("Game length", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(low as f64..x_end as f64, 0.0..top)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc("turns")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("share of games")
        .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
        .draw()
        .map_err(draw_error)?;
    let split = if theirs.is_some() { 0.5 } else { 1.0 };
    let w = f64::from(width);
    chart
        .draw_series(ours.iter().map(|&(from, share)| {
            let x = f64::from(from);
            Rectangle::new([(x, 0.0), (x + w * split, share)], RULESET_COLOUR.filled())
        }))
        .map_err(draw_error)?
        .label(report.ruleset.name.clone())
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], RULESET_COLOUR.filled()));
    if let (Some(theirs), Some(b)) = (theirs, report.baseline) {
        chart
            .draw_series(theirs.iter().map(|&(from, share)| {
                let x = f64::from(from) + w * split;
                Rectangle::new([(x, 0.0), (x + w * split, share)], BASELINE_COLOUR.filled())
            }))
            .map_err(draw_error)?
            .label(b.name.clone())
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], BASELINE_COLOUR.filled()));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(draw_error)?;
    Ok(())
}

/// A bar: its label and its win rate with the interval.
type Bar = (String, Rate);

/// A bar per seat and per bot, with the 95% interval as a whisker.
fn draw_wins<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    report: &Report<'_>,
    baseline: Option<&Tally>,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let players = &report.config.players;
    let groups = |t: &Tally| -> Vec<Bar> {
        let mut out: Vec<Bar> =
            t.seat_wins.iter().enumerate().map(|(s, &w)| (format!("seat {}", s + 1), wilson(w, t.games))).collect();
        out.extend(super::report::bot_wins(players, t).into_iter().map(|(bot, _, _, rate)| (bot, rate)));
        out
    };
    let ours = groups(&report.result.tally);
    let theirs = baseline.map(groups);
    let n = ours.len();
    // Bar `i` is centred on x = i, so the axis labels (at whole numbers) name the bars.
    let labels: Vec<String> = ours.iter().map(|(label, _)| label.clone()).collect();
    let name = |x: &f64| -> String {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 {
            labels.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut chart = ChartBuilder::on(area)
        .caption("Win rate (95% CI)", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..1.0)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n + 1)
        .x_label_formatter(&name)
        .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
        .draw()
        .map_err(draw_error)?;
    let series: Vec<(&Vec<Bar>, RGBColor, f64)> = match &theirs {
        Some(theirs) => vec![(&ours, RULESET_COLOUR, -0.4), (theirs, BASELINE_COLOUR, 0.0)],
        None => vec![(&ours, RULESET_COLOUR, -0.3)],
    };
    let bar = if theirs.is_some() { 0.4 } else { 0.6 };
    for (bars, colour, offset) in series {
        for (i, (_, r)) in bars.iter().enumerate() {
            let x = i as f64 + offset;
            chart
                .draw_series(std::iter::once(Rectangle::new([(x, 0.0), (x + bar, r.rate)], colour.filled())))
                .map_err(draw_error)?;
            let mid = x + bar / 2.0;
            let whisker = vec![(mid, r.low), (mid, r.high)];
            chart.draw_series(std::iter::once(PathElement::new(whisker, BLACK.stroke_width(2)))).map_err(draw_error)?;
        }
    }
    Ok(())
}
