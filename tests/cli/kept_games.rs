//! Issue 47, item 1: a game at the terminal is kept on disk as it goes. The terminal is closed
//! mid-game (SIGHUP, as a closed window sends); the next `diving` offers the game back at the
//! same move, with the same hand; `diving --resume` lists it and `--forget` lets it go; the
//! history holds every line typed, and nothing temporary is left beside either file.
//!
//! Each step waits for the text it expects in a pseudo-terminal (no sleeps).
#![cfg(unix)]

use crate::cli_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use rexpect::process::Signal;
use rexpect::session::{Options, PtySession, spawn_with_options};

const TIMEOUT_MS: u64 = 60_000;

/// `diving ARGS` in a pseudo-terminal, with `home` as its home (the state and data folders
/// inside it).
fn start(args: &[&str], home: &Path) -> PtySession {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("diving"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env("LANG", "C")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("STY")
        .env("HOME", home);
    spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS)).strip_ansi_escape_codes(true)).unwrap()
}

/// `diving ARGS` from a pipe, with `home` as its home: exit code and standard output.
fn piped(args: &[&str], home: &Path) -> (Option<i32>, String) {
    let output = cli_support::diving()
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    (output.status.code(), String::from_utf8(output.stdout).unwrap() + &String::from_utf8(output.stderr).unwrap())
}

pub(crate) fn games_dir(home: &Path) -> PathBuf {
    home.join(".local/state/diving/games")
}

/// The files of `dir`, by name.
pub(crate) fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// The last line of `text` that starts with `start`.
fn last_line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines().rev().find(|l| l.trim_start().starts_with(start)).unwrap_or_else(|| panic!("no {start}: {text}"))
}

#[test]
fn a_closed_terminal_loses_no_move_and_the_next_diving_offers_the_game_back() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(&["--seed", "11"], home.path());
    p.exp_string("the game is kept as it goes").unwrap();
    p.exp_string("you> ").unwrap();
    p.send_line("play 8s").unwrap();
    p.exp_string("you> ").unwrap();
    p.send_line("play ah").unwrap();
    let before = p.exp_string("you> ").unwrap();
    let turn = last_line(&before, "turn ").to_string();
    let hand = last_line(&before, "your hand:").to_string();
    assert!(turn.ends_with("you to play"), "{turn}");
    // The window is closed: the program is sent SIGHUP in the middle of the game.
    p.process_mut().signal(Signal::SIGHUP).unwrap();
    p.process_mut().wait().unwrap();

    let games = games_dir(home.path());
    let kept = names(&games);
    assert_eq!(kept.len(), 2, "the game and its lock: {kept:?}");
    assert!(kept[0].ends_with(".json") && kept[1].ends_with(".lock"), "{kept:?}");
    let history = std::fs::read_to_string(home.path().join(".local/share/diving/history")).unwrap();
    assert!(history.contains("play 8s\nplay ah\n"), "every line typed is in the history: {history}");
    assert_eq!(names(&home.path().join(".local/share/diving")), ["history"], "nothing temporary beside it");

    // The next `diving` offers the game back, at the same move with the same hand.
    let mut p = start(&[], home.path());
    p.exp_string("an unfinished game is kept:").unwrap();
    let offered = p.exp_string("resume it?").unwrap();
    let number = turn.split(" - ").next().unwrap();
    assert!(offered.contains(&format!("you, greedy (bot) - {number}, you to play - ruleset standard")), "{offered}");
    p.send_line("").unwrap();
    p.exp_string("resumed the game kept on disk").unwrap();
    let resumed = p.exp_string("you> ").unwrap();
    assert_eq!(last_line(&resumed, "turn "), turn);
    assert_eq!(last_line(&resumed, "your hand:"), hand);
    // Leaving loses nothing (and nothing was played since it was resumed): the game stays
    // kept, and `quit` says so without asking.
    p.send_line("quit").unwrap();
    p.exp_string("the game is kept: 'diving --resume' takes it up again").unwrap();
    p.exp_eof().unwrap();

    let (code, list) = piped(&["--resume"], home.path());
    assert_eq!(code, Some(0), "{list}");
    assert!(list.contains(&format!("  1  you, greedy (bot) - {number}, you to play")), "{list}");
    let (code, json) = piped(&["--resume", "--json"], home.path());
    assert_eq!(code, Some(0), "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["kept"][0]["current"], "you");
    assert_eq!(json["kept"][0]["open_elsewhere"], false);
    let (code, out) = piped(&["--resume", "2"], home.path());
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("there is no game 2: the list has 1 to 1"), "{out}");
    let (code, out) = piped(&["--forget", "1"], home.path());
    assert_eq!(code, Some(0), "{out}");
    assert!(names(&games).is_empty(), "{:?}", names(&games));
    let (_, list) = piped(&["--resume"], home.path());
    assert!(list.starts_with("no unfinished game is kept"), "{list}");
}

/// A kept game being played in another window is neither offered nor taken up twice (a
/// finished game's files are removed: `autosave`'s own tests).
#[test]
fn a_game_open_in_another_window_is_not_offered_nor_taken_up_twice() {
    let home = tempfile::tempdir().unwrap();
    let mut p =
        start(&["--players", "alice,bot:random", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    p.exp_string("alice> ").unwrap();
    assert_eq!(names(&games_dir(home.path())).len(), 2);
    let (code, list) = piped(&["--resume"], home.path());
    assert_eq!(code, Some(0));
    assert!(list.contains("(open in another window)"), "{list}");
    let mut other = start(&["--resume", "1"], home.path());
    other.exp_string("this game is open in another window").unwrap();
    other.exp_eof().unwrap();
    // A plain `diving` starts a new game at once: there is nothing to offer.
    let mut other = start(&[], home.path());
    other.exp_string("Diving Suits - you vs greedy (bot)").unwrap();
    other.exp_string("you> ").unwrap();
    other.send_line("quit").unwrap();
    other.exp_eof().unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
    // Now nobody plays it: it is offered.
    let (_, list) = piped(&["--resume"], home.path());
    assert!(
        list.contains("  1  alice, random (bot) - turn 3, alice to play") && !list.contains("another window"),
        "{list}"
    );
}
