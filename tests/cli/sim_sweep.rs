//! `diving sim --sweep`: every combination is played paired with the ruleset on the same
//! seeds (a point equal to the ruleset differs in no game), the totals do not depend on
//! `--jobs`, the JSON, CSV and chart hold every point and measure, a sweep file reads like
//! the options, and bad axes are refused with their reason.

use assert_cmd::Command;
use serde_json::Value;

fn sim(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("diving").expect("binary").arg("sim").args(args).assert()
}

fn json(args: &[&str]) -> Value {
    let out = sim(&[args, &["--json"]].concat()).success().get_output().stdout.clone();
    serde_json::from_str(&String::from_utf8(out).expect("utf-8")).expect("valid JSON")
}

const SWEEP: [&str; 8] = ["--games", "30", "--seed", "5", "--sweep", "quick_extra=4..12:4", "--sweep", "hand_size=4,5"];

#[test]
fn every_combination_is_paired_on_the_same_seeds() {
    let one = json(&[&SWEEP[..], &["--jobs", "1"]].concat());
    let two = json(&[&SWEEP[..], &["--jobs", "2"]].concat());
    assert_eq!(one["points"], two["points"], "totals depend on --jobs");
    let points = one["points"].as_array().unwrap();
    assert_eq!(points.len(), 6);
    let values: Vec<(u64, u64)> = points
        .iter()
        .map(|p| (p["values"]["quick_extra"].as_u64().unwrap(), p["values"]["hand_size"].as_u64().unwrap()))
        .collect();
    assert_eq!(values, [(4, 4), (4, 5), (8, 4), (8, 5), (12, 4), (12, 5)]);
    for p in points {
        for key in ["seat-balance", "first-seat", "length", "draws", "rescues", "lead-changes", "decisiveness"] {
            let m = &p["measures"][key];
            let (v, lo, hi) = (m["value"].as_f64().unwrap(), m["low"].as_f64().unwrap(), m["high"].as_f64().unwrap());
            assert!(lo <= v && v <= hi, "{key}: {m}");
        }
        assert!(p["measures"]["lead-changes"]["value"].as_f64().unwrap() > 0.0, "the lead changes hands: {p}");
        assert!(p["measures"]["decisiveness"]["value"].as_f64().unwrap() > 0.0, "{p}");
    }
    // quick_extra 8 and hand_size 4 are the standard numbers: the same games, no difference.
    let standard = &points[2];
    assert_eq!(standard["paired"]["differing_games"], 0, "{standard}");
    assert_eq!(standard["paired"]["turns"]["mean"], 0.0);
    assert_ne!(points[0]["paired"]["differing_games"], 0);
}

#[test]
fn table_csv_and_chart_hold_every_point() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("sweep.svg");
    let out = sim(&[&SWEEP[..], &["--plot", svg.to_str().unwrap()]].concat()).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("quick_extra  hand_size"), "{text}");
    assert_eq!(text.lines().filter(|l| l.trim_start().starts_with(char::is_numeric)).count(), 6, "{text}");
    let chart = std::fs::read_to_string(&svg).unwrap();
    for title in ["seat-balance", "lead-changes", "decisiveness", "hand_size=5"] {
        assert!(chart.contains(title), "the chart has no {title}");
    }
    let out = sim(&[&SWEEP[..], &["--csv"]].concat()).success().get_output().stdout.clone();
    let csv = String::from_utf8(out).unwrap();
    assert_eq!(csv.lines().next(), Some("quick_extra,hand_size,measure,value,low,high"));
    assert_eq!(csv.lines().count(), 1 + 6 * 7);
}

#[test]
fn a_sweep_file_reads_like_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("quick.sweep");
    std::fs::write(&file, "# which Quick bonus?\nquick_extra = 4..12:4\n\nhand_size = 4, 5  # and hands\n").unwrap();
    let from_file = json(&["--games", "30", "--seed", "5", "--sweep-file", file.to_str().unwrap()]);
    assert_eq!(from_file["points"], json(&SWEEP)["points"]);
    std::fs::write(&file, "quick_extra = 4..12:4\nspeed = 3\n").unwrap();
    sim(&["--games", "3", "--sweep-file", file.to_str().unwrap()])
        .code(2)
        .stderr(predicates::str::contains("quick.sweep:2: 'speed' is not a number a sweep can vary"));
}

#[test]
fn bad_axes_are_refused_with_their_reason() {
    for (axis, says) in [
        ("quick_extra=9..3", "the range 9..3 is empty"),
        ("quick_extra", "write NAME=VALUES"),
        ("max_oxygen=0..2000", "more than 400 values"),
        ("max_oxygen=0", "sweep point max_oxygen=0"),
    ] {
        sim(&["--games", "3", "--sweep", axis]).code(2).stderr(predicates::str::contains(says));
    }
}

/// Regression: seat 1's edge counted the draws as its losses, so identical bots under a turn
/// cap that draws nearly every game were given an edge of -0.49 (±0.016). It is measured over
/// the decided games, and with none decided there is no edge to measure.
#[test]
fn seat_one_edge_leaves_the_draws_out() {
    let v = json(&["--games", "200", "--players", "greedy,greedy", "--sweep", "max_turns=1,20"]);
    let points = v["points"].as_array().unwrap();
    let measure = |p: usize, key: &str| points[p]["measures"][key].clone();
    // A cap of 1 turn: every game drawn.
    assert_eq!(measure(0, "draws")["value"], 1.0);
    let none = measure(0, "first-seat");
    assert!(none["value"].is_null() && none["low"].is_null() && none["high"].is_null(), "{none}");
    assert!(measure(0, "seat-balance")["value"].is_null(), "no seat won, no gap: {}", points[0]);
    assert!(measure(0, "decisiveness")["value"].is_null(), "no winner, no margin: {}", points[0]);
    // A cap of 20 turns: nearly every game drawn; the few decided split evenly, within chance.
    assert!(measure(1, "draws")["value"].as_f64().unwrap() > 0.9, "{}", points[1]);
    let edge = measure(1, "first-seat");
    let (low, high) = (edge["low"].as_f64().unwrap(), edge["high"].as_f64().unwrap());
    assert!(low < 0.0 && 0.0 < high, "identical bots have no edge: {edge}");

    let args = ["--games", "20", "--sweep", "max_turns=1"];
    let text = String::from_utf8(sim(&args).success().get_output().stdout.clone()).unwrap();
    assert!(text.lines().any(|l| l.trim_start().starts_with('1') && l.contains("no decided game")), "{text}");
    let csv = String::from_utf8(sim(&[&args[..], &["--csv"]].concat()).success().get_output().stdout.clone()).unwrap();
    assert!(csv.lines().any(|l| l == "1,first-seat,,,"), "{csv}");
}
