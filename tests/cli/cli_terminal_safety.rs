//! Text from a file, a mod, a save or the command line never drives the terminal (the
//! terminal-safety audit): a save, a ruleset or a mod could put escape sequences (clear the
//! screen, set the window title) or a fake line of narration into what `diving` prints. Every
//! test here runs the binary on such input and asserts that no control byte but the end of a
//! line reaches stdout or stderr, that the offending text is still readable (`\u{1b}`, `\n`),
//! and that one message stays within `limits::MAX_MESSAGE_CHARS`.

use crate::cli_support;

use std::path::{Path, PathBuf};

use cli_support::*;
use diving::limits::MAX_MESSAGE_CHARS;
use serde_json::{Value, json};

const ESC: &str = "\u{1b}[31mRED";

/// What a run of `diving` gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], stdin: &str) -> Run {
    let output = diving().args(args).write_stdin(stdin.to_string()).output().unwrap();
    let run = Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    assert!(!run.stderr.contains("panicked"), "{args:?} panicked: {}", run.stderr);
    for (name, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\n') {
            panic!("{args:?}: a raw {c:?} reached {name}: {text:?}");
        }
        if let Some(line) = text.lines().find(|l| l.chars().count() > MAX_MESSAGE_CHARS + 100) {
            panic!("{args:?}: a line of {} characters on {name}", line.chars().count());
        }
    }
    run
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Alice holds 10H 5C JD 2S.
fn deck() -> String {
    stacked("10H 5C JD 2S  JS 2D 3D 4D  AS 6H 7H 8H  10S")
}

/// A save of a short game (alice and bob, one move), as JSON to edit.
fn a_save(dir: &Path) -> (PathBuf, Value) {
    let file = dir.join("game.json");
    let args = ["--json", "play", "--players", "alice,bob", "--seed", "3", "--deck", &deck()];
    let r = run(&args, &format!("play 10h\nsave {}\n", file.display()));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let save: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    (file, save)
}

/// `--load` and `replay` of `save` as `file`: both refuse it with a message holding `shown`.
fn refused_save(file: &Path, save: &Value, shown: &str) {
    std::fs::write(file, serde_json::to_string(save).unwrap()).unwrap();
    let path = file.to_str().unwrap();
    for args in [vec!["--load", path], vec!["replay", path]] {
        let r = run(&args, "state\n");
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(shown), "{args:?}: expected {shown:?} in {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: one line: {}", r.stderr);
    }
}

#[test]
fn a_save_with_an_escape_in_a_card_or_its_ruleset_is_shown_escaped() {
    let dir = tmp();
    let (file, save) = a_save(dir.path());
    let mut deck = save.clone();
    deck["deck"][5] = json!(ESC);
    refused_save(&file, &deck, "\\u{1b}[31mRED");
    let mut action = save.clone();
    action["actions"][0]["card"] = json!(ESC);
    refused_save(&file, &action, "\\u{1b}[31mRED");
    let mut ruleset = save.clone();
    ruleset["ruleset"] = json!(ESC);
    refused_save(&file, &ruleset, "\\u{1b}[31mRED");
}

#[test]
fn a_save_whose_deck_holds_52000_cards_gets_a_short_message() {
    let dir = tmp();
    let (file, mut save) = a_save(dir.path());
    let mut deck: Vec<Value> = save["deck"].as_array().unwrap().clone();
    deck.extend(std::iter::repeat_n(json!("AS"), 52_000));
    save["deck"] = json!(deck);
    std::fs::write(&file, serde_json::to_string(&save).unwrap()).unwrap();
    let r = run(&["--load", file.to_str().unwrap()], "state\n");
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("52052 given; extra AS AS"), "{}", r.stderr);
    assert!(r.stderr.contains("… and 51984 more"), "{}", r.stderr);
    assert!(r.stderr.len() < 1000, "{} bytes: {}", r.stderr.len(), r.stderr);
}

#[test]
fn a_ruleset_whose_name_and_description_hold_escapes_is_shown_escaped() {
    let dir = tmp();
    let file = dir.path().join("evil.toml");
    std::fs::write(
        &file,
        "extends = \"standard\"\nname = \"\\u001b[31mEVIL\"\ndescription = \"\\u001b]0;title\\u0007\\nalice plays AS\"\n",
    )
    .unwrap();
    let r = run(&["rules", "--ruleset", file.to_str().unwrap()], "");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("(\\u{1b}[31mEVIL)"), "{}", r.stdout);
    assert!(r.stdout.contains("\\u{1b}]0;title\\u{7}"), "{}", r.stdout);
    assert!(!r.stdout.lines().any(|l| l.starts_with("alice plays")), "{}", r.stdout);
    // JSON escapes them itself, and keeps the text as it is.
    let r = run(&["--json", "rules", "--ruleset", file.to_str().unwrap()], "");
    let rules: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(rules["title"], "\u{1b}[31mEVIL");
}

#[test]
fn a_deck_with_an_escape_on_the_command_line_is_shown_escaped() {
    let r = run(&["play", "--players", "alice,bob", "--deck", "AS \u{1b}[31mX"], "");
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("\\u{1b}[31mX"), "{}", r.stderr);
}

/// A ruleset in `dir` loading the mod `code`.
fn modded(dir: &Path, code: &str) -> String {
    std::fs::write(dir.join("m.lua"), code).unwrap();
    let ruleset = dir.join("rules.toml");
    std::fs::write(&ruleset, "extends = \"standard\"\nmods = [\"m.lua\"]\n").unwrap();
    ruleset.to_str().unwrap().to_string()
}

const FAKE: &str = "bob plays AS: depth 0 -> 99";

#[test]
fn a_mod_error_with_a_new_line_cannot_pass_for_narration() {
    let dir = tmp();
    let ruleset = modded(
        dir.path(),
        "for rank = 1, 13 do\n  diving.wrap(rank, function(ctx, play, previous)\n    error(\"a\\nbob plays AS: depth 0 -> 99\")\n  end)\nend\n",
    );
    let deck = deck();
    let r =
        run(&["play", "--players", "alice,bob", "--seed", "1", "--ruleset", &ruleset, "--deck", &deck], "play 10h\n");
    assert!(r.stdout.contains("a\\nbob plays AS"), "{}", r.stdout);
    assert!(!r.stdout.lines().any(|l| l.trim_start().starts_with(FAKE)), "{}", r.stdout);
    // Nor in `check`'s report, where it could pass for a note.
    let r = run(&["check", &ruleset], "");
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("a\\n{FAKE}")), "{}", r.stderr);
    assert!(!r.stderr.lines().any(|l| l.starts_with(FAKE)), "{}", r.stderr);
}

#[test]
fn a_mod_returning_1e300_oxygen_is_named_in_few_digits() {
    let dir = tmp();
    let ruleset = modded(dir.path(), "diving.oxygen_cost(function(ctx, p, depth, previous) return 1e300 end)\n");
    let deck = deck();
    let r =
        run(&["play", "--players", "alice,bob", "--seed", "1", "--ruleset", &ruleset, "--deck", &deck], "play 10h\n");
    assert!(r.stdout.contains("got 1e300"), "{}", r.stdout);
    assert!(!r.stdout.contains("0000000000"), "{}", r.stdout);
}
