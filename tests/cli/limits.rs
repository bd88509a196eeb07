//! Bounded input and checked output (issue 14): one test per way outside input or a failed
//! write used to panic, hang, grow without bound or fail silently. Each asserts the message,
//! the exit status and that nothing panicked; time is bounded by the limits themselves
//! (`diving::limits`), never by a clock.

use crate::cli_support;

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cli_support::*;
use diving::limits;
use serde_json::{Value, json};

/// What a run of `diving` gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
    let output = diving().args(args).write_stdin(stdin.into()).output().unwrap();
    let run = Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "{args:?} panicked: {}", run.stderr);
    run
}

/// `args` are refused before anything starts: exit 2, nothing on stdout, `message` on stderr.
fn refused(args: &[&str], message: &str) {
    let r = run(args, "state\n");
    assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
    assert!(r.stdout.is_empty(), "{args:?} printed: {}", r.stdout);
    assert!(r.stderr.contains(message), "{args:?}: expected '{message}' in: {}", r.stderr);
}

/// `diving` with stdout on `/dev/full`: a failed write must end with a message and exit 2.
fn to_dev_full(args: &[&str], stdin: &str, message: &str) {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(message), "{args:?}: expected '{message}' in: {stderr}");
    assert!(stderr.contains("No space left on device"), "{args:?}: {stderr}");
}

const GAME: [&str; 6] = ["--json", "play", "--players", "alice,bob", "--seed", "3"];

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn link_to_dev_zero(dir: &Path, name: &str) -> PathBuf {
    let link = dir.join(name);
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    link
}

/// A save of a short game (alice and bob, two moves), as JSON to edit.
fn a_save(dir: &Path) -> (PathBuf, Value) {
    let file = dir.join("game.json");
    let r = run(&GAME, format!("moves\nsave {}\n", file.display()));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let save: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    (file, save)
}

// ----- 1. names -----

#[test]
fn a_name_of_70000_characters_is_refused_not_a_panic() {
    let long = "a".repeat(70_000);
    let players = format!("{long},bob");
    refused(&["play", "--players", &players], "is 70000 characters long; a name may have at most 32");
    // The board itself copes with any name it is given (a width `format!` cannot take).
    let seating = vec![
        diving::table::session::Seating { name: long.clone(), bot: None },
        diving::table::session::Seating { name: "bob".into(), bot: None },
    ];
    let session = diving::table::session::Session::new("standard", seating, 1, None).unwrap();
    let mut shell = diving::shell::front::Shell::script(session, Vec::new(), false);
    assert!(shell.board().contains(&long));
    shell.line("state", &mut diving::shell::front::NoPrompter);
}

#[test]
fn a_loaded_save_gets_the_checks_players_gets() {
    let dir = tmp();
    let (file, save) = a_save(dir.path());
    let cases: [(&str, Value, &str); 9] = [
        ("2", json!(null), "'2' is a number"),
        ("3C", json!(null), "'3C' is a card, so it cannot name a player"),
        ("hand", json!(null), "'hand' is a word of the play command"),
        ("t1", json!(null), "'t1' is a word of the play command"),
        ("a\nb", json!(null), "'a\\nb' holds a control or invisible character"),
        ("\u{1b}[2Jx", json!(null), "'\\u{1b}[2Jx' holds a control or invisible character"),
        (&"z".repeat(70_000), json!(null), "is 70000 characters long"),
        ("nope", json!("nope"), "unknown bot 'nope'"),
        ("mcts", json!("mcts:4000000000"), "4000000000 iterations is more than the 100000"),
    ];
    for (name, bot, message) in cases {
        let mut edited = save.clone();
        edited["players"][1] = json!({ "name": name, "bot": bot });
        if bot.is_null() {
            edited["players"][1].as_object_mut().unwrap().remove("bot");
        }
        std::fs::write(&file, serde_json::to_string(&edited).unwrap()).unwrap();
        let r = run(&["--json", "--load", file.to_str().unwrap()], "state\n");
        assert_eq!(r.code, Some(2), "{name:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{name:?}: {}", r.stdout);
        let expected = format!("{}: damaged save file: player 2", file.display());
        assert!(r.stderr.contains(&expected), "{name:?}: {}", r.stderr);
        assert!(r.stderr.contains(message), "{name:?}: expected '{message}' in {}", r.stderr);
        assert!(r.stderr.lines().count() == 1, "one line: {}", r.stderr);
    }
}

// ----- 2. lines -----

#[test]
fn a_100_mb_line_is_refused_and_the_game_goes_on() {
    const SIZE: usize = 100 * 1024 * 1024;
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(GAME)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Streamed from a generator: never held in memory, here or (thanks to the cap) there.
    let writer = std::thread::spawn(move || {
        let block = vec![b'x'; 1 << 20];
        stdin.write_all(b"state\n").unwrap();
        for _ in 0..SIZE / block.len() {
            stdin.write_all(&block).unwrap();
        }
        stdin.write_all(b"\nstate\n").unwrap();
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let lines = json_lines(&output.stdout);
    assert_eq!(
        errors(&lines),
        [format!("line 2 is too long ({SIZE} bytes; a command may have at most {}): ignored", limits::MAX_LINE_BYTES)]
    );
    let states = states(&lines);
    assert_eq!(states.len(), 2, "the game went on after the line");
    assert_eq!(states[0], states[1], "and the line changed nothing");
}

#[test]
fn input_that_is_not_text_stops_with_exit_2() {
    let stop = "runs past 8192 bytes with NUL bytes in it: the input is not text, so it is not read further";
    let mut input = b"state\n".to_vec();
    input.extend(vec![0u8; 20_000]);
    input.extend(b"\nstate\n");
    let r = run(&GAME, input);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("line 2 {stop}")), "{}", r.stderr);
    assert_eq!(states(&json_lines(r.stdout.as_bytes())).len(), 1, "nothing after it is read");
    // /dev/zero itself on stdin: an endless line of NUL bytes, refused after the limit.
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let output = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(GAME)
        .stdin(zero)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("line 1 {stop}")), "{stderr}");
    // A short line with a NUL byte is refused like a bad command, and the game goes on.
    let r = run(&GAME, b"\0\nstate\n".to_vec());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let lines = json_lines(r.stdout.as_bytes());
    assert_eq!(errors(&lines), ["line 1 holds a NUL byte: ignored"]);
    assert_eq!(states(&lines).len(), 1);
}

#[test]
fn scripts_must_be_regular_files() {
    refused(
        &["play", "--players", "a,b", "--script", "/dev/zero"],
        "cannot read script /dev/zero: not a regular file (it is a device)",
    );
    let dir = tmp();
    let dir_arg = dir.path().to_str().unwrap();
    refused(&["play", "--players", "a,b", "--script", dir_arg], "not a regular file (it is a directory)");
}

// ----- 3. files -----

#[test]
fn dev_zero_is_refused_as_each_kind_of_file() {
    let dir = tmp();
    let d = dir.path();
    let zero_toml = link_to_dev_zero(d, "zero.toml");
    let zero_lua = link_to_dev_zero(d, "zero.lua");
    let zero_deck = link_to_dev_zero(d, "zero.deck");
    let zero_save = link_to_dev_zero(d, "zero.json");
    std::fs::write(d.join("extends.toml"), "extends = \"zero.toml\"\n").unwrap();
    std::fs::write(d.join("mods.toml"), "mods = [\"zero.lua\"]\n").unwrap();
    let device = "not a regular file (it is a device)";
    let p = |p: &Path| p.to_str().unwrap().to_string();
    refused(&["rules", "--ruleset", &p(&zero_toml)], device);
    refused(
        &["rules", "--ruleset", &p(&d.join("extends.toml"))],
        &format!("`extends`: cannot read '{}': {device}", p(&zero_toml)),
    );
    refused(
        &["rules", "--ruleset", &p(&d.join("mods.toml"))],
        &format!("`mods`: cannot read mod '{}': {device}", p(&zero_lua)),
    );
    refused(&["sim", "--games", "1", "--baseline", &p(&zero_toml)], device);
    refused(&["play", "--players", &format!("a,bot:{}", p(&zero_lua))], &format!("cannot read the script: {device}"));
    refused(&["play", "--players", "a,b", "--deck", &format!("@{}", p(&zero_deck))], device);
    refused(&["play", "--load", &p(&zero_save)], &format!("{}: cannot read the save file: {device}", p(&zero_save)));
    // A save whose ruleset is /dev/zero.
    let (file, mut save) = a_save(d);
    save["ruleset"] = json!(p(&zero_toml));
    std::fs::write(&file, serde_json::to_string(&save).unwrap()).unwrap();
    refused(&["play", "--load", &p(&file)], device);
}

#[test]
fn a_file_over_its_kinds_limit_is_refused_before_it_is_read() {
    let dir = tmp();
    for (kind, name) in [(limits::FileKind::Save, "big.json"), (limits::FileKind::Ruleset, "big.toml")] {
        let path = dir.path().join(name);
        // Sparse: the size is there, the bytes are not.
        let max = kind.max_bytes().unwrap();
        std::fs::File::create(&path).unwrap().set_len(max + 1).unwrap();
        let arg = path.to_str().unwrap();
        let message = format!("too large for {}: {} bytes or more, the limit is {max}", kind.what(), max + 1);
        let args: Vec<&str> =
            if kind == limits::FileKind::Save { vec!["play", "--load", arg] } else { vec!["rules", "--ruleset", arg] };
        refused(&args, &message);
    }
}

#[test]
fn a_save_with_too_many_moves_is_refused_while_it_is_read() {
    let dir = tmp();
    let (file, mut save) = a_save(dir.path());
    let pass = json!({ "action": "pass" });
    save["actions"] = Value::Array(vec![pass; limits::MAX_SAVED_MOVES + 1]);
    std::fs::write(&file, serde_json::to_string(&save).unwrap()).unwrap();
    refused(
        &["play", "--load", file.to_str().unwrap()],
        "damaged save file: more than 50000 moves (a save holds at most that many)",
    );
}

#[test]
fn a_save_of_empty_step_hashes_is_refused_while_it_is_read() {
    // Issue 35: 4.5 MB of `"", "", …` took ~111 MB before the count of steps was compared
    // with the count of moves.
    let dir = tmp();
    let (file, mut save) = a_save(dir.path());
    save["steps"] = Value::Array(vec![json!(""); 1_500_000]);
    let text = serde_json::to_string(&save).unwrap();
    assert!(text.len() > 4_500_000, "{}", text.len());
    std::fs::write(&file, text).unwrap();
    refused(
        &["play", "--load", file.to_str().unwrap()],
        &format!("{}: damaged save file: more than 50000 step hashes (a save holds at most", file.display()),
    );
}

#[test]
fn a_deep_dotted_key_is_blamed_on_itself_not_on_extends() {
    // Issue 35: the parser gives no place for a key past its depth, and the key on line 1
    // (`extends`) took the blame.
    let dir = tmp();
    let file = dir.path().join("deep.toml");
    let key = vec!["a"; 200].join(".");
    std::fs::write(&file, format!("extends = \"standard\"\nname = \"deep\"\n  {key} = 1\n")).unwrap();
    let shown = format!("{}…", &key[..limits::MAX_QUOTED_CHARS]);
    refused(
        &["rules", "--ruleset", file.to_str().unwrap()],
        &format!("deep.toml:3:3: `{shown}`: a dotted key of 200 parts is nested too deeply"),
    );
    std::fs::write(&file, format!("extends = \"standard\"\n[{key}]\nx = 1\n")).unwrap();
    refused(
        &["rules", "--ruleset", file.to_str().unwrap()],
        &format!("deep.toml:2:2: `{shown}`: a dotted key of 200 parts is nested too deeply"),
    );
}

#[test]
fn a_directory_given_to_extends_is_named_as_a_directory() {
    // Issue 35: `extends = "rules"` beside a folder `rules/` was called an unknown shipped
    // ruleset.
    let dir = tmp();
    let d = dir.path();
    std::fs::create_dir(d.join("rules")).unwrap();
    std::fs::create_dir(d.join("base.toml")).unwrap();
    for base in ["rules", "./rules", "base.toml"] {
        std::fs::write(d.join("top.toml"), format!("extends = \"{base}\"\n")).unwrap();
        let shown = base.strip_prefix("./").unwrap_or(base);
        refused(
            &["rules", "--ruleset", d.join("top.toml").to_str().unwrap()],
            &format!("top.toml:1:11: `extends`: '{}' is a directory, not a ruleset file", d.join(shown).display()),
        );
    }
    // A shipped name stays the shipped ruleset even beside a folder of that name.
    std::fs::create_dir(d.join("meters")).unwrap();
    std::fs::write(d.join("top.toml"), "extends = \"meters\"\n").unwrap();
    let r = run(&["rules", "--ruleset", d.join("top.toml").to_str().unwrap()], "");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}

#[test]
fn extends_chains_and_mod_lists_are_bounded() {
    let dir = tmp();
    let d = dir.path();
    for i in 0..=limits::MAX_EXTENDS_DEPTH {
        let text =
            if i == limits::MAX_EXTENDS_DEPTH { String::new() } else { format!("extends = \"r{}.toml\"\n", i + 1) };
        std::fs::write(d.join(format!("r{i}.toml")), text).unwrap();
    }
    refused(
        &["rules", "--ruleset", d.join("r0.toml").to_str().unwrap()],
        "`extends`: more than 16 rulesets extend one another",
    );
    std::fs::write(d.join("m.lua"), "-- nothing\n").unwrap();
    let list = vec!["\"m.lua\""; limits::MAX_MODS + 1].join(", ");
    std::fs::write(d.join("mods.toml"), format!("mods = [{list}]\n")).unwrap();
    refused(&["rules", "--ruleset", d.join("mods.toml").to_str().unwrap()], "`mods`: more than 64 mods in all");
}

// ----- 4. bot specs and player lists -----

#[test]
fn bot_specs_are_checked_with_the_same_limits_everywhere() {
    refused(&["play", "--players", "a,bot:nope"], "unknown bot 'nope'");
    refused(&["play", "--players", "a,bot:mcts:4000000000"], "4000000000 iterations is more than the 100000");
    refused(
        &["sim", "--games", "1", "--players", "greedy,mcts:4000000000"],
        "4000000000 iterations is more than the 100000",
    );
    let many = vec!["a"; limits::MAX_PLAYERS + 1].join(",");
    refused(&["play", "--players", &many], "--players: 65 players listed; no ruleset seats more than 64");
}

// ----- 5. words -----

#[test]
fn a_long_word_is_refused_at_once_with_a_short_message() {
    // Under the line limit, so it reaches the parser: no did-you-mean over all of it.
    let word = "paly".repeat(2000);
    let lines = json_game("alice,bob", "", &format!("{word}\n"));
    let errors = errors(&lines);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].starts_with("unknown command 'palypaly"), "{}", errors[0]);
    assert!(errors[0].chars().count() < 100, "{}", errors[0]);
    assert!(!errors[0].contains("did you mean"));
}

// ----- 6. --jobs -----

#[test]
fn jobs_are_refused_above_the_maximum_and_never_more_than_the_games() {
    refused(&["sim", "--games", "2", "--jobs", "1000"], "--jobs 1000 is more than the 256 worker threads");
    let r = run(&["sim", "--games", "2", "--jobs", "200", "--json"], "");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["jobs"], 2);
}

// ----- 7. output -----

#[test]
fn a_full_disk_ends_with_a_message_and_exit_2() {
    to_dev_full(&["sim", "--games", "2"], "", "cannot write the report");
    to_dev_full(&["completions", "bash"], "", "cannot write the completions");
    to_dev_full(&GAME, "state\n", "cannot write the game's output");
    to_dev_full(&["play", "--players", "alice,bob", "--seed", "3"], "state\n", "cannot write the game's output");
    to_dev_full(&["rules"], "", "cannot write the rules");
    to_dev_full(&["check", "standard"], "", "cannot write the check's report");
}

// ----- 8, 9. saves -----

/// Runs the game and saves with `save ARG` (raw bytes); returns the one answer.
fn save_as(arg: &[u8]) -> Value {
    let mut script = b"save ".to_vec();
    script.extend_from_slice(arg);
    script.push(b'\n');
    let r = run(&GAME, script);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let lines = json_lines(r.stdout.as_bytes());
    lines.last().unwrap().clone()
}

#[test]
fn a_killed_saves_temporary_file_is_removed_by_the_next_save() {
    let dir = tmp();
    let target = dir.path().join("game.json");
    // Above Linux's largest PID (2^22): no process can have it, as after a SIGKILL.
    let stale = dir.path().join(".game.json.4194305.tmp");
    let live = dir.path().join(format!(".game.json.{}.tmp", std::process::id()));
    let other = dir.path().join(".other.json.4194305.tmp");
    for f in [&stale, &live, &other] {
        std::fs::write(f, "{").unwrap();
    }
    assert_eq!(save_as(target.as_os_str().as_bytes()), json!({ "saved": target.display().to_string() }));
    assert!(!stale.exists(), "the dead save's temporary file is gone");
    assert!(live.exists(), "a running process's is kept");
    assert!(other.exists(), "another name's is kept");
}

#[test]
fn save_writes_through_a_symlink_and_refuses_what_is_not_a_file() {
    let dir = tmp();
    let d = dir.path();
    let real = d.join("real.json");
    std::fs::write(&real, "old").unwrap();
    let link = d.join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    save_as(link.as_os_str().as_bytes());
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
    assert!(std::fs::read_to_string(&real).unwrap().contains("diving-suits save"), "its target holds the save");

    let dangling = d.join("dangling.json");
    std::os::unix::fs::symlink(d.join("missing/nothing.json"), &dangling).unwrap();
    let fifo = d.join("fifo.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cases = [
        (&dangling, "cannot save: it is a symlink to a file that does not exist"),
        (&fifo, "cannot save: not a regular file (it is a FIFO)"),
        (&d.to_path_buf(), "cannot save: not a regular file (it is a directory)"),
    ];
    for (path, message) in cases {
        let answer = save_as(path.as_os_str().as_bytes());
        assert_eq!(answer, json!({ "error": format!("{}: {message}", path.display()) }));
    }
    let fifo_type = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&fifo_type), "the FIFO is still a FIFO");
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.as_bytes().ends_with(b".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file is left: {leftovers:?}");
}

#[test]
fn a_save_name_that_is_not_utf8_is_refused_not_mangled() {
    let dir = tmp();
    let mut name = dir.path().as_os_str().as_bytes().to_vec();
    name.extend_from_slice(b"/caf\xe9.json");
    assert_eq!(save_as(&name), json!({ "error": "line 1 is not UTF-8 text: ignored" }));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no file, mangled or not");
}

#[test]
fn sim_refuses_a_plot_path_that_is_a_directory_before_playing() {
    let dir = tmp();
    // A million games would take minutes: refused first, so this returns at once.
    refused(
        &["sim", "--games", "1000000", "--plot", dir.path().to_str().unwrap()],
        "--plot: cannot write the chart to",
    );
}

// ----- 10. history and save size -----

#[test]
fn the_undo_history_keeps_actions_not_games() {
    use diving::table::session::{Entry, Seating, Session};
    // A copy of the game per move cost ~1.15 KB; an entry is now its action and events.
    assert!(std::mem::size_of::<Entry>() <= 80, "{}", std::mem::size_of::<Entry>());
    let seating =
        || vec![Seating { name: "r1".into(), bot: Some("random".into()) }, Seating { name: "r2".into(), bot: None }];
    let mut session = Session::new("standard", seating(), 11, None).unwrap();
    let mut games = Vec::new();
    for _ in 0..30 {
        if session.game().is_over() {
            break;
        }
        if session.is_bot(session.game().current()) {
            session.bot_move().unwrap().unwrap();
            continue;
        }
        let action = session.game().legal_actions()[0];
        games.push(session.game().clone());
        session.apply(action).unwrap();
    }
    // Every undo rebuilds exactly the game before the person's move.
    assert!(games.len() > 5);
    while let Some(before) = games.pop() {
        let undone = session.undo(false).unwrap();
        assert!(!undone.is_empty());
        assert_eq!(session.game(), &before);
    }
}

// ----- docs/limits.md -----

/// `12345` as docs/limits.md writes it: `12,345`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn the_limits_page_lists_every_limit_with_its_number() {
    let section = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/limits.md")).unwrap();
    let numbers = [
        limits::MAX_LINE_BYTES as u64,
        limits::MAX_SUGGESTION_CHARS as u64,
        limits::MAX_QUOTED_CHARS as u64,
        limits::MAX_NAME_CHARS as u64,
        limits::MAX_PLAYERS as u64,
        limits::MAX_BOT_SPEC_BYTES as u64,
        limits::MAX_MCTS_ITERATIONS as u64,
        limits::MAX_JOBS as u64,
        limits::MAX_SAVED_MOVES as u64,
        limits::MAX_EXTENDS_DEPTH as u64,
        limits::MAX_MODS as u64,
        diving::core::Cards::CAPACITY as u64,
        limits::MAX_MESSAGE_CHARS as u64,
        diving::core::state::MAX_LISTED_CARDS as u64,
    ];
    for n in numbers {
        assert!(section.contains(&grouped(n)), "docs/limits.md does not give {}", grouped(n));
    }
    // The lobby's tables, in their own row, as the host's defaults are.
    let row =
        section.lines().find(|l| l.starts_with("| a host's lobby tables |")).expect("a row for the lobby's tables");
    let host = diving::wire::HostLimits::default();
    for (n, what) in [
        (host.tables_per_connection, "made by one connection"),
        (host.tables, "held by the host"),
        (host.waiting_per_address, "waiting at once"),
        (host.tables_per_hour_per_address, "made an hour"),
        (host.new_keys_per_hour, "new players an hour"),
        (host.tables_per_hour, "made by one player an hour"),
    ] {
        assert!(
            row.contains(&format!("{} {what}", grouped(n as u64))),
            "docs/limits.md does not give {n} {what}: {row}"
        );
    }
    assert_eq!((host.idle_secs, host.abandoned_secs), (600, 3600), "docs/limits.md says 10 minutes and an hour: {row}");
    for kind in limits::FileKind::ALL {
        if let Some(bytes) = kind.max_bytes() {
            let shown = if bytes >= 1 << 20 { format!("{} MiB", bytes >> 20) } else { format!("{} KiB", bytes >> 10) };
            assert!(section.contains(&shown), "docs/limits.md does not give {shown} for {}", kind.what());
        }
    }
}
