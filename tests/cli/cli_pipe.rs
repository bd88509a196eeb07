//! A program holding a conversation with the game through a pipe: each answer arrives before
//! the next command is sent (output is flushed after every command), and `reload` picks up a
//! ruleset file changed in the middle of the game.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

struct Conversation {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Conversation {
    fn start(args: &[&str]) -> Conversation {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Conversation { child, stdin, stdout }
    }

    /// Reads lines until one has `key`; returns every line read.
    fn until(&mut self, key: &str) -> Vec<Value> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the game ended while waiting for '{key}'");
            let value: Value = serde_json::from_str(&line).unwrap();
            let done = value.get(key).is_some();
            lines.push(value);
            if done {
                return lines;
            }
        }
    }

    /// Sends one command, then `state`, and returns everything up to the state.
    fn say(&mut self, command: &str) -> Vec<Value> {
        writeln!(self.stdin, "{command}\nstate").unwrap();
        self.stdin.flush().unwrap();
        self.until("state")
    }

    fn finish(mut self) {
        drop(self.stdin);
        assert!(self.child.wait().unwrap().success());
    }
}

#[test]
fn each_answer_comes_before_the_next_question() {
    let mut game = Conversation::start(&["--json", "--players", "alice,bob", "--seed", "8"]);
    for _ in 0..20 {
        let moves = game.say("moves");
        let Some(first) = moves.iter().find_map(|l| l.get("moves")).unwrap().get(0) else {
            break; // the game is over
        };
        let first = first.as_str().unwrap().to_string();
        let answer = game.say(&first);
        assert!(answer.iter().all(|l| l.get("error").is_none()), "{first}: {answer:?}");
    }
    game.finish();
}

#[test]
fn reload_reports_the_first_move_a_changed_ruleset_plays_differently() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("deep.toml");
    std::fs::write(&rules, "extends = \"standard\"\nname = \"Deep\"\n").unwrap();
    let deck = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/short-game.deck")).unwrap();
    let deck: String = deck.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join(" ");
    let mut game = Conversation::start(&[
        "--json",
        "--ruleset",
        rules.to_str().unwrap(),
        "--players",
        "alice,bob",
        "--seed",
        "1",
        "--deck",
        &deck,
    ]);
    game.until("event");
    for command in ["play 10H", "play 2C", "play QH", "play 3C", "play 10C"] {
        game.say(command);
    }
    let same = game.say("reload");
    let report = same.iter().find_map(|l| l.get("reload")).unwrap();
    assert_eq!(report["identical"], true, "{report}");
    assert_eq!(report["moves"], 5);

    // A Quick now adds 20: the fifth move (alice's 10C) goes deeper than it did.
    std::fs::write(&rules, "extends = \"standard\"\nname = \"Deep\"\nquick_extra = 20\n").unwrap();
    let changed = game.say("reload");
    let report = changed.iter().find_map(|l| l.get("reload")).unwrap();
    assert_eq!(report["identical"], false, "{report}");
    assert_eq!(report["changed_move"], 5);
    assert_eq!(report["player"], "alice");
    assert_eq!(report["action"], "play 10C bob");
    let state = changed.last().unwrap()["state"].clone();
    assert_eq!(state["players"][0]["depth"], 60, "the new game is kept: 20 + 20 doubled + 20");

    // A ruleset that no longer loads is an error, and the game goes on as it was.
    std::fs::write(&rules, "extends = \"standard\"\nquick_extra = \"lots\"\n").unwrap();
    let broken = game.say("reload");
    assert!(broken.iter().any(|l| l.get("error").is_some()), "{broken:?}");
    assert_eq!(broken.last().unwrap()["state"], state);
    game.finish();
}

/// Regression: when the reader closed its end of the output pipe, script mode went on reading
/// (and, fed by `yes`, spun forever). It must stop at the first answer nobody can read.
#[test]
fn the_game_stops_when_nobody_reads_its_output() {
    let mut talk = Conversation::start(&["--json", "--players", "a,b", "--seed", "1"]);
    let mut first = String::new();
    talk.stdout.read_line(&mut first).unwrap();
    drop(talk.stdout);
    let line = b"moves\n".repeat(1000);
    // Far more input than any pipe buffer holds: only a game that quit refuses it.
    let refused = (0..2000).any(|_| talk.stdin.write_all(&line).is_err());
    assert!(refused, "the game read all its input although its output was closed");
    assert!(talk.child.wait().unwrap().success());
}
