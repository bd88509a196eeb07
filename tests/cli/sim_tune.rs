//! `diving tune`: the search finds a setting that clearly meets a target, writes it as a
//! ruleset that reads back as the rules it judged, reports the evidence, is reproducible from
//! its seed, and refuses bad input with its reason.

use assert_cmd::Command;
use serde_json::Value;

fn tune(dir: &std::path::Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("diving").expect("binary").current_dir(dir).arg("tune").args(args).assert()
}

const ARGS: [&str; 10] =
    ["--vary", "quick_extra=8,40", "--target", "length 0..22", "--budget", "400", "--seed", "3", "--jobs", "2"];

#[test]
fn a_clear_target_is_found_written_and_shown_with_its_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let out = tune(dir.path(), &[&["standard"], &ARGS[..], &["--json"]].concat()).success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["best"]["quick_extra"], 40, "{v}");
    assert_eq!(v["start"]["quick_extra"], 8);
    let term = &v["evidence"]["terms"][0];
    assert_eq!(term["verdict"], "better (the intervals part)", "{term}");
    assert!(term["best"]["high"].as_f64().unwrap() < term["start"]["low"].as_f64().unwrap(), "{term}");
    assert!(v["evidence"]["paired_turns"]["mean"].as_f64().unwrap() < 0.0);
    // The written ruleset reads back with the tuned number.
    let file = dir.path().join("standard-tuned.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("extends = \"standard\"") && text.contains("quick_extra = 40"), "{text}");
    let rules =
        Command::cargo_bin("diving").unwrap().args(["--json", "--ruleset", file.to_str().unwrap(), "rules"]).assert();
    let rules: Value = serde_json::from_slice(&rules.success().get_output().stdout).unwrap();
    assert!(rules.to_string().contains("\"quick_extra\":40"), "{rules}");
    // The same seed, the same search.
    let again =
        tune(dir.path(), &[&["standard"], &ARGS[..], &["--json"]].concat()).success().get_output().stdout.clone();
    let again: Value = serde_json::from_slice(&again).unwrap();
    assert_eq!(v["rounds"], again["rounds"]);
}

#[test]
fn the_text_report_names_the_rounds_and_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = tune(dir.path(), &[&["standard"], &ARGS[..], &["--out", "short.toml"]].concat())
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for part in [
        "round 1: 2 candidates",
        "best:  quick_extra=40",
        "start: quick_extra=8",
        "better (the intervals part)",
        "wrote short.toml",
    ] {
        assert!(text.contains(part), "no '{part}' in:\n{text}");
    }
    assert!(dir.path().join("short.toml").is_file());
}

#[test]
fn bad_input_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (vec!["--vary", "speed=1,2", "--target", "length"], "--vary 'speed' is not a number"),
        (vec!["--vary", "quick_extra=1,2", "--target", "fun"], "--target: 'fun' is not a measure"),
        (vec!["--vary", "quick_extra=1,2", "--target", "length", "--budget", "5"], "too few"),
        (vec!["--vary", "quick_extra=1,2", "--target", "length", "--out", "nowhere/x.toml"], "there is no folder"),
        (vec!["nosuch.toml", "--vary", "quick_extra=1,2", "--target", "length"], "cannot load ruleset 'nosuch.toml'"),
    ] {
        tune(dir.path(), &args).code(2).stderr(predicates::str::contains(says));
    }
}
