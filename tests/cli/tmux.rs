//! Issue 47's test in a real terminal: a game in a tmux pane, the pane closed mid-game (tmux
//! sends the program SIGHUP, as a closed window does), and the next `diving`, in a new pane,
//! offers the game back at the same move, with the same hand.
//!
//! tmux runs on a socket of its own in a temporary folder, with no configuration
//! (`-f /dev/null`), and is stopped when the test ends. Its screen is read with
//! `capture-pane`, until it shows what the step waits for (a bounded wait for a condition,
//! never a fixed sleep). Without tmux on PATH (`apt-get install tmux`) the test says plainly
//! that it did not run and passes, unless `DIVING_REQUIRE_TMUX` is set (as `.ci/run` does):
//! then a missing tmux fails it.
#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a step may take before the test fails (a debug build on a busy machine).
const STEP: Duration = Duration::from_secs(60);

/// A tmux server of the test's own, stopped when dropped.
struct Tmux {
    socket: PathBuf,
    home: PathBuf,
}

impl Tmux {
    fn command(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"])
            .args(args)
            .env("HOME", &self.home)
            .env("LANG", "C")
            .env("NO_COLOR", "1")
            .env_remove("LC_ALL")
            .env_remove("LC_CTYPE")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("STY")
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    }

    fn run(&self, args: &[&str]) {
        let out = self.command(args);
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// Starts the server: a session of 100 columns by 30 rows whose first window waits (so
    /// the server stays when a game's pane is closed).
    fn start(&self) {
        self.run(&["new-session", "-d", "-x", "100", "-y", "30", "-s", "test", "-n", "keep", "cat"]);
    }

    /// A new window running `diving ARGS` in the repository's folder.
    fn diving(&self, window: &str, args: &str) {
        let diving = assert_cmd::cargo::cargo_bin!("diving");
        let line = format!("exec '{}' {args}", diving.display());
        self.run(&["new-window", "-d", "-n", window, "-c", env!("CARGO_MANIFEST_DIR"), &line]);
    }

    /// The screen of `window`, its wrapped lines joined.
    fn screen(&self, window: &str) -> String {
        let out = self.command(&["capture-pane", "-p", "-J", "-t", &format!("test:{window}")]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen of `window` once `ready` holds for it.
    fn wait_until(&self, window: &str, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen(window);
            if ready(&screen) {
                return screen;
            }
            assert!(start.elapsed() < STEP, "waited {STEP:?} for {what}; the screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_for(&self, window: &str, text: &str) -> String {
        self.wait_until(window, text, |screen| screen.contains(text))
    }

    fn keys(&self, window: &str, keys: &[&str]) {
        let target = format!("test:{window}");
        self.run(&[&["send-keys", "-t", &target][..], keys].concat());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command(&["kill-server"]);
    }
}

/// tmux, or `None` (said on stderr) when it is missing and the test may be skipped.
fn tmux_or_skip() -> Option<()> {
    match Command::new("tmux").arg("-V").output() {
        Ok(out) if out.status.success() => Some(()),
        _ if std::env::var_os("DIVING_REQUIRE_TMUX").is_some() => {
            panic!("the tmux test must run (DIVING_REQUIRE_TMUX is set), but tmux is not on PATH")
        }
        _ => {
            let note = "\ntmux test NOT RUN: tmux is not on PATH (install it: apt-get install tmux)\n";
            let _ = std::io::stderr().lock().write_all(note.as_bytes());
            None
        }
    }
}

/// The last line of `screen` that starts with `start`, trimmed.
fn last_line<'a>(screen: &'a str, start: &str) -> &'a str {
    screen.lines().map(str::trim).rev().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no {start}: {screen}"))
}

fn kept_games(home: &Path) -> Vec<String> {
    let dir = home.join(".local/state/diving/games");
    std::fs::read_dir(dir)
        .map_or(Vec::new(), |d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
}

#[test]
fn a_pane_closed_mid_game_is_offered_back_at_the_same_move() {
    let Some(()) = tmux_or_skip() else { return };
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let tmux = Tmux { socket: dir.path().join("tmux.sock"), home: home.clone() };

    tmux.start();
    tmux.diving("first", "--seed 11");
    tmux.wait_for("first", "you> ");
    tmux.keys("first", &["play 8s", "Enter"]);
    tmux.wait_for("first", "you play 8S");
    tmux.keys("first", &["play ah", "Enter"]);
    // The move, the bot's answer, and the board of the next turn with the prompt under it.
    let before = tmux.wait_until("first", "the turn after 'play ah'", |screen| {
        screen
            .find("you play AH")
            .is_some_and(|at| screen[at..].contains("your hand:") && screen.trim_end().ends_with("you>"))
    });
    let turn = last_line(&before, "turn ").to_string();
    let hand = last_line(&before, "your hand:").to_string();
    assert!(turn.ends_with("you to play"), "{turn}");

    // The pane is closed mid-game: tmux hangs up on the program.
    tmux.run(&["kill-pane", "-t", "test:first"]);
    // The program has ended once the game's lock is free: `--resume` no longer says the game
    // is open elsewhere.
    let start = Instant::now();
    loop {
        let out =
            Command::new(assert_cmd::cargo::cargo_bin!("diving")).arg("--resume").env("HOME", &home).output().unwrap();
        let list = String::from_utf8_lossy(&out.stdout).into_owned();
        if !list.contains("open in another window") {
            break;
        }
        assert!(start.elapsed() < STEP, "the closed pane's program never let the game go: {list}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(kept_games(&home).len(), 2, "{:?}", kept_games(&home));

    tmux.diving("second", "");
    let offer = tmux.wait_for("second", "resume it?");
    let number = turn.split(" - ").next().unwrap();
    assert!(offer.contains(&format!("you, greedy (bot) - {number}, you to play")), "{offer}");
    tmux.keys("second", &["Enter"]);
    let after = tmux.wait_until("second", "the resumed game's board", |screen| {
        screen.find("resumed the game kept on disk").is_some_and(|at| screen[at..].contains("your hand:"))
    });
    assert_eq!(last_line(&after, "turn "), turn);
    assert_eq!(last_line(&after, "your hand:"), hand);
    tmux.keys("second", &["quit", "Enter"]);
}
