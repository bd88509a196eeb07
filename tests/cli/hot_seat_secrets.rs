//! Issue 47, items 2 and 3: a hot-seat game's secrets against the peeks a rival tried.
//!
//! - At her own turn alice saves, and opens the save from a pipe: it shows no hand and takes no
//!   move; with `--reveal-hands` it shows them, and bob is told at his next hand-over, as he is
//!   told of the save. A game resumed from the file tells every player too.
//! - `reload` after the mod was edited: the others are told who reloaded and what changed.
//! - Stopping the program (as Ctrl-Z does) while alice has the keyboard: bob is told.
//! - Output that is not a terminal (`| tee game.log`): the game is refused with the reason,
//!   or played with `--reveal-hands`, every player told.
//!
//! Each step waits for the text it expects in a pseudo-terminal (no sleeps).
#![cfg(unix)]

use crate::cli_support;

use std::path::Path;
use std::process::Command;

use rexpect::process::Signal;
use rexpect::session::{Options, PtySession, spawn_with_options};
use serde_json::Value;

const TIMEOUT_MS: u64 = 60_000;

/// The short game's deck: alice holds 10H QH 10C QD, bob 2C 3C KS 5D.
const DEAL: [&str; 4] = ["--seed", "1", "--deck", "@scripts/short-game.deck"];
const ALICES: [&str; 4] = ["10H", "QH", "10C", "QD"];
const BOBS: [&str; 4] = ["2C", "3C", "KS", "5D"];

fn command(program: &str, args: &[&str], home: &Path) -> Command {
    let mut cmd = Command::new(program);
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
    cmd
}

fn spawn(cmd: Command) -> PtySession {
    spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS)).strip_ansi_escape_codes(true)).unwrap()
}

/// `diving ARGS` in a pseudo-terminal, with `home` as its home.
fn start(args: &[&str], home: &Path) -> PtySession {
    spawn(command(assert_cmd::cargo::cargo_bin!("diving").to_str().unwrap(), args, home))
}

/// `diving ARGS` from a pipe fed `input`: exit code, standard output and error.
fn piped(args: &[&str], input: &str, home: &Path) -> (Option<i32>, String, String) {
    let output = cli_support::diving()
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (output.status.code(), text(output.stdout), text(output.stderr))
}

/// Whether `text` names any of `cards`.
fn names_any(text: &str, cards: &[&str]) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| cards.contains(&word))
}

/// `text` on one line, one space between words: as it reads whatever the width it was
/// wrapped at.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Alice's first turn: the first hand-over, then her prompt.
fn alices_turn(p: &mut PtySession) {
    p.exp_string("pass the terminal to alice").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice> ").unwrap();
}

/// Alice plays 10H and hands over to bob; returns what bob is shown up to his prompt.
fn to_bob(p: &mut PtySession) -> String {
    p.send_line("play 10h").unwrap();
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_line("").unwrap();
    p.exp_string("pass the terminal to bob").unwrap();
    p.send_line("").unwrap();
    p.exp_string("bob> ").unwrap()
}

#[test]
fn a_save_opened_elsewhere_shows_no_hand_and_every_player_is_told() {
    let home = tempfile::tempdir().unwrap();
    let peek = home.path().join("peek.json");
    let peek = peek.to_str().unwrap();
    let mut p = start(&[&["--players", "alice,bob"][..], &DEAL].concat(), home.path());
    alices_turn(&mut p);
    p.send_line(&format!("save {peek}")).unwrap();
    p.exp_string("this save at their next turn").unwrap();
    p.exp_string("alice> ").unwrap();

    // Alice opens her save from a pipe: no hand, no move.
    let (code, out, err) = piped(&["--load", peek], "state\nhand\nmoves\nlog\nplay 10h\n", home.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("is a hot-seat game: here it shows no hand and takes no move"), "{out}");
    assert!(out.contains("spectators can only look"), "{out}");
    assert!(!names_any(&out, &ALICES) && !names_any(&out, &BOBS), "a hand is shown: {out}");
    let (code, out, err) = piped(&["--json", "--load", peek], "state\n", home.path());
    assert_eq!(code, Some(0), "{err}");
    let lines = cli_support::json_lines(out.as_bytes());
    assert_eq!(lines[0]["hands"], "hidden", "{out}");
    let state = cli_support::last_state(&lines);
    assert!(state.get("deck").is_none(), "{state}");
    assert!(state["players"].as_array().unwrap().iter().all(|p| p.get("hand").is_none()), "{state}");
    // A replay of the unfinished game shows no hand either.
    let (code, out, err) = piped(&["replay", peek], "end\nboard\n", home.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(!names_any(&out, &ALICES) && !names_any(&out, &BOBS), "{out}");
    let (code, _, err) = piped(&["replay", peek, "--all"], "", home.path());
    assert_eq!(code, Some(2));
    assert!(err.contains("only for a finished game"), "{err}");

    // With --reveal-hands the pipe sees the hands, and the save and the game played on say so.
    let (code, out, err) = piped(&["--load", peek, "--reveal-hands"], "hand\n", home.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("alice's hand: 10H QH 10C QD"), "{out}");
    assert!(out.contains("every player is told so at their next hand-over"), "{out}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(peek).unwrap()).unwrap();
    assert_eq!(saved["version"], 4);
    assert_eq!(saved["hot_seat"], true);
    let whats: Vec<&str> = saved["notices"].as_array().unwrap().iter().map(|n| n["what"].as_str().unwrap()).collect();
    assert_eq!(whats, ["saved", "opened"]);

    let bob = to_bob(&mut p);
    let told = flat(&bob[bob.find("bob, while you were away:").expect("bob is told")..]);
    assert!(told.contains(&format!("alice saved the game to {peek} at turn 1 (a save holds every hand)")), "{told}");
    assert!(
        told.contains("was opened in a pipe or a script with every hand shown (--reveal-hands), at turn 1"),
        "{told}"
    );
    assert!(told.find("while you were away").unwrap() < told.find("bob's hand").unwrap(), "{told}");
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();

    // The game resumed from the save (at a terminal: behind the hand-overs) tells alice what
    // she was not told: the hands shown, and that the game was taken up again.
    let mut p = start(&["--load", peek], home.path());
    p.exp_string("pass the terminal to alice").unwrap();
    p.send_line("").unwrap();
    let alice = p.exp_string("alice> ").unwrap();
    let told = flat(&alice[alice.find("alice, while you were away:").expect("alice is told")..]);
    assert!(told.contains("was opened in a pipe or a script with every hand shown"), "{told}");
    assert!(told.contains(&format!("taken up again at turn 1 from {peek}")), "{told}");
    assert!(!told.contains("alice saved"), "she knows she saved: {told}");
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

/// A ruleset with one mod, in `dir`: a 7 also gives 1 oxygen back (`bonus`).
fn modded_ruleset(dir: &Path, bonus: u32) -> String {
    std::fs::write(
        dir.join("lucky.lua"),
        format!(
            "diving.wrap(7, function(ctx, play, previous)\n  previous(ctx, play)\n  if ctx:is_over() then return end\n  \
             local me = play.player\n  ctx:set_oxygen(me, math.min(ctx:oxygen(me) + {bonus}, ctx:max_oxygen()))\nend)\n"
        ),
    )
    .unwrap();
    let ruleset = dir.join("lucky.toml");
    std::fs::write(&ruleset, "extends = \"standard\"\nmods = [\"lucky.lua\"]\n").unwrap();
    ruleset.to_str().unwrap().to_string()
}

#[test]
fn a_reload_and_a_stop_are_told_to_the_others() {
    let home = tempfile::tempdir().unwrap();
    let ruleset = modded_ruleset(home.path(), 1);
    let mut p = start(&[&["--players", "alice,bob", "--ruleset", &ruleset][..], &DEAL].concat(), home.path());
    alices_turn(&mut p);
    // Alice edits the mod (from another terminal), then reloads.
    modded_ruleset(home.path(), 2);
    p.send_line("reload").unwrap();
    p.exp_string("alice> ").unwrap();
    // The program is stopped and goes on (Ctrl-Z, then `fg`), while alice has the keyboard.
    p.process_mut().signal(Signal::SIGSTOP).unwrap();
    p.process_mut().signal(Signal::SIGCONT).unwrap();
    p.send_line("state").unwrap();
    p.exp_string("alice> ").unwrap();
    let bob = to_bob(&mut p);
    let told = flat(&bob[bob.find("bob, while you were away:").expect("bob is told")..]);
    assert!(told.contains("alice reloaded the rules at turn 1, and they had changed: mod"), "{told}");
    assert!(told.contains("lucky.lua) changed"), "{told}");
    assert!(told.contains("the game was stopped (Ctrl-Z) at turn 1 while alice had the keyboard"), "{told}");
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn hot_seat_output_that_is_not_a_terminal_is_refused_or_shown_to_everyone() {
    let home = tempfile::tempdir().unwrap();
    let diving = assert_cmd::cargo::cargo_bin!("diving").to_str().unwrap().to_string();
    let log = home.path().join("game.log");
    let line = |extra: &str| {
        format!(
            "'{diving}' --players alice,bob --seed 1 --deck @scripts/short-game.deck{extra} | tee '{}'",
            log.display()
        )
    };
    let mut p = spawn(command("sh", &["-c", &line("")], home.path()));
    p.exp_string("standard output is not a terminal").unwrap();
    p.exp_string("--reveal-hands").unwrap();
    p.exp_eof().unwrap();

    // Asked for: played, and every player is told at their hand-over that the hands go there.
    let mut p = spawn(command("sh", &["-c", &line(" --reveal-hands")], home.path()));
    p.exp_string("pass the terminal to alice").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice, while you were away:").unwrap();
    p.exp_string("every hand of this game is also written to a pipe or file").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    let kept = std::fs::read_to_string(&log).unwrap();
    assert!(kept.contains("alice's hand"), "{kept}");
}
