//! Helpers for the CLI transcript tests: stacked decks, running `diving` on a script, reading
//! its JSON Lines back.
#![allow(dead_code)]

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

/// The `diving` binary, run in the repository root.
pub fn diving() -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("diving");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd.env_remove("NO_COLOR");
    cmd
}

/// A full 52-card stacked deck: `top` (top first), then every other card in a fixed order.
pub fn stacked(top: &str) -> String {
    let top: Vec<String> = top.split_whitespace().map(|c| c.to_uppercase()).collect();
    let mut deck = top.clone();
    for suit in ["S", "H", "D", "C"] {
        for rank in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] {
            let card = format!("{rank}{suit}");
            if !top.contains(&card) {
                deck.push(card);
            }
        }
    }
    assert_eq!(deck.len(), 52, "the top cards must be distinct cards");
    deck.join(" ")
}

/// Runs a game in JSON mode with these players on a stacked deck, feeding `script` on stdin.
pub fn json_game(players: &str, top: &str, script: &str) -> Vec<Value> {
    let output = diving()
        .args(["--json", "play", "--seed", "1", "--players", players, "--deck", &stacked(top)])
        .write_stdin(script)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    json_lines(&output.stdout)
}

/// Runs a game in text mode, like [`json_game`]; returns stdout.
pub fn text_game(players: &str, top: &str, script: &str) -> String {
    let output = diving()
        .args(["play", "--seed", "1", "--players", players, "--deck", &stacked(top)])
        .write_stdin(script)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Parses JSON Lines; every line must be one JSON object.
pub fn json_lines(stdout: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(stdout).unwrap();
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            assert!(v.is_object(), "not an object: {line}");
            v
        })
        .collect()
}

/// The `state` objects, in order.
pub fn states(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter_map(|l| l.get("state")).collect()
}

/// The last `state` object.
pub fn last_state(lines: &[Value]) -> &Value {
    states(lines).pop().expect("a state line")
}

/// The error messages, in order.
pub fn errors(lines: &[Value]) -> Vec<String> {
    lines.iter().filter_map(|l| l.get("error")).map(|e| e.as_str().unwrap().to_string()).collect()
}

/// The events of one kind, in order.
pub fn events<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["event"] == kind).collect()
}

/// A player's object in a state.
pub fn player<'a>(state: &'a Value, name: &str) -> &'a Value {
    state["players"].as_array().unwrap().iter().find(|p| p["name"] == name).expect("player in state")
}
