//! Save, load and continue: a resumed game is the game that was saved, and a damaged save is
//! refused (exit 2, the file named, nothing else done).

use crate::cli_support;

use std::path::Path;

use cli_support::*;
use serde_json::{Value, json};

fn short_script() -> Vec<String> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/short-game.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#') && l.trim() != "state")
        .map(String::from)
        .collect()
}

fn run(args: &[&str], stdin: String) -> (Option<i32>, Vec<Value>, String) {
    let output = diving().args(args).write_stdin(stdin).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let lines = if output.status.success() { json_lines(&output.stdout) } else { Vec::new() };
    (output.status.code(), lines, stderr)
}

const SHORT: [&str; 9] =
    ["--json", "play", "--players", "alice,bob", "--seed", "77", "--deck", "@scripts/short-game.deck", "--no-color"];

/// Saves the short game after its first `moves` moves into `dir/name`.
fn save_after(moves: usize, dir: &Path, name: &str) -> std::path::PathBuf {
    let file = dir.join(name);
    let mut script = short_script()[..moves].join("\n");
    script += &format!("\nsave {}\n", file.display());
    let (code, lines, _) = run(&SHORT, script);
    assert_eq!(code, Some(0));
    assert_eq!(lines.last().unwrap(), &json!({ "saved": file.display().to_string() }));
    file
}

#[test]
fn save_then_load_then_continue_is_the_uninterrupted_game() {
    let script = short_script();
    let (_, whole, _) = run(&SHORT, script.join("\n") + "\nstate\n");
    let dir = tempfile::tempdir().unwrap();
    for cut in [0, 1, 6, 12] {
        let file = save_after(cut, dir.path(), &format!("cut{cut}.json"));
        let rest = script[cut..].join("\n") + "\nstate\n";
        let (code, resumed, stderr) = run(&["--json", "--load", file.to_str().unwrap()], rest);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(resumed[0]["event"], "resumed");
        assert_eq!(resumed[0]["loaded"], file.display().to_string());
        assert_eq!(last_state(&resumed), last_state(&whole), "cut after {cut} moves");
        // The resumed half tells the same story as the end of the whole game.
        let tail: Vec<&Value> = resumed.iter().filter(|l| l.get("event").is_some_and(|e| e != "resumed")).collect();
        let whole_events: Vec<&Value> = whole.iter().filter(|l| l.get("event").is_some()).collect();
        assert_eq!(tail[..], whole_events[whole_events.len() - tail.len()..]);
    }
}

#[test]
fn a_game_against_a_bot_resumes_with_the_bot_playing_the_same_moves() {
    let args = ["--json", "play", "--players", "alice,bot:random", "--seed", "5", "--deck", "@scripts/short-game.deck"];
    let moves = ["play 10H", "play QH", "play 10C", "play QD"];
    let (_, whole, _) = run(&args, moves.join("\n") + "\nstate\n");
    assert!(errors(&whole).is_empty(), "{:?}", errors(&whole));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bot.json");
    let (_, _, _) = run(&args, format!("{}\n{}\nsave {}\n", moves[0], moves[1], file.display()));
    let (code, resumed, stderr) =
        run(&["--json", "--load", file.to_str().unwrap()], format!("{}\n{}\nstate\n", moves[2], moves[3]));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(last_state(&resumed), last_state(&whole));
}

#[test]
fn a_save_file_is_versioned_json_with_the_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    let file = save_after(3, dir.path(), "game.json");
    let save: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(save["version"], 4);
    assert_eq!(save["ruleset"], "standard");
    // Every save is a replay: the rules' content hash, the mods (none) and a hash per step.
    assert!(save["rules_hash"].as_str().unwrap().starts_with("fnv1a64:"), "{save}");
    assert_eq!(save["mods"], json!([]));
    assert_eq!(save["steps"].as_array().unwrap().len(), 3);
    assert_eq!(save["seed"], 77);
    assert_eq!(save["players"], json!([{"name": "alice"}, {"name": "bob"}]));
    assert_eq!(save["deck"].as_array().unwrap().len(), 52);
    assert_eq!(save["deck"][0], "10H");
    assert_eq!(save["actions"].as_array().unwrap().len(), 3);
    assert_eq!(save["state"]["turn"], 4);
    // Written atomically: nothing else is left in the directory.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_damaged_save_is_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let good_file = save_after(4, dir.path(), "good.json");
    let good = std::fs::read_to_string(&good_file).unwrap();
    let value: Value = serde_json::from_str(&good).unwrap();
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut v = value.clone();
        f(&mut v);
        serde_json::to_string_pretty(&v).unwrap()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("truncated.json", good[..good.len() / 2].to_string(), "corrupt or truncated"),
        ("empty.json", String::new(), "corrupt or truncated"),
        ("text.json", "hello".into(), "not a Diving Suits save file (a save is one JSON object"),
        ("list.json", "[1,2,3]".into(), "not a Diving Suits save file (a save is one JSON object"),
        ("other.json", "{\"version\": 1}".into(), "not a Diving Suits save file"),
        ("future.json", edit(&|v| v["version"] = json!(5)), "format version 5"),
        ("noversion.json", edit(&|v| v.as_object_mut().unwrap().retain(|k, _| k != "version")), "no format version"),
        ("negative.json", edit(&|v| v["version"] = json!(-1)), "format version must be a whole number, not -1"),
        ("textversion.json", edit(&|v| v["version"] = json!("2")), "format version must be a whole number, not \"2\""),
        ("badcard.json", edit(&|v| v["deck"][0] = json!("11H")), "damaged save file"),
        ("shortdeck.json", edit(&|v| v["deck"].as_array_mut().unwrap().truncate(51)), "stacked deck"),
        ("edited.json", edit(&|v| v["state"]["players"][0]["depth"] = json!(99)), "does not match"),
        (
            "illegal.json",
            edit(&|v| v["actions"][0] = json!({"action": "play", "card": "KD", "from": "hand"})),
            "move 1 ('play KD') cannot be replayed: KD is not in your hand",
        ),
        ("ruleset.json", edit(&|v| v["ruleset"] = json!("/nonexistent/house.toml")), "/nonexistent/house.toml"),
    ];
    for (name, text, reason) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let output = diving().args(["--load", path.to_str().unwrap()]).write_stdin("state\n").output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(output.stdout.is_empty(), "{name}: {}", String::from_utf8_lossy(&output.stdout));
        assert!(stderr.contains(&path.display().to_string()), "{name}: {stderr}");
        assert!(stderr.contains(reason), "{name}: expected '{reason}' in {stderr}");
    }
}

/// A game saved after it ended is offered to the replay viewer, not to `--load`.
#[test]
fn a_finished_game_is_saved_with_the_command_that_watches_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("done.json");
    let out = diving()
        .args(["--players", "bot:greedy,bot:random", "--seed", "4"])
        .write_stdin(format!("save {}\n", file.display()))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("wins!"), "{text}");
    assert!(text.contains("(watch it with: diving replay "), "{text}");
    assert!(!text.contains("--load"), "{text}");
}

/// A save names its ruleset file by where it was; when the file has moved, loading says so and
/// how to name it, and `--ruleset` with the new place resumes the game.
#[test]
fn a_save_whose_ruleset_file_moved_says_how_to_name_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("house.toml");
    std::fs::write(&first, "quick_push = 2\n").unwrap();
    let file = dir.path().join("g.json");
    let args = ["--json", "--ruleset", first.to_str().unwrap(), "play", "--players", "alice,bob", "--seed", "5"];
    let (code, lines, _) = run(&args, format!("save {}\n", file.display()));
    assert_eq!((code, lines.last()), (Some(0), Some(&json!({ "saved": file.display().to_string() }))));

    let moved = dir.path().join("moved.toml");
    std::fs::rename(&first, &moved).unwrap();
    let (code, _, stderr) = run(&["--json", "--load", file.to_str().unwrap()], String::new());
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains(&format!("cannot load ruleset '{}': no such file", first.display()))
            && stderr.contains("if the ruleset file has moved, name it with --ruleset FILE"),
        "{stderr}"
    );
    let (code, _, stderr) =
        run(&["--json", "--ruleset", moved.to_str().unwrap(), "--load", file.to_str().unwrap()], String::new());
    assert_eq!(code, Some(0), "{stderr}");
}

/// Issue 47: a version 4 save of a hot-seat game (`tests/fixtures/save-v4-hot-seat.json`:
/// three moves, a reload, the save) opens in a pipe without a hand; with `--reveal-hands` it is
/// the saved game exactly, and the file then records that its hands were shown (so the fixture
/// is opened from a copy).
#[test]
fn a_hot_seat_save_of_format_4_opens_without_a_hand_unless_asked() {
    let fixture = "tests/fixtures/save-v4-hot-seat.json";
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    assert_eq!((saved["version"].clone(), saved["hot_seat"].clone()), (json!(4), json!(true)));
    let (code, lines, err) = run(&["--load", fixture, "--json"], "state\n".into());
    assert_eq!(code, Some(0), "{err}");
    let state = lines.iter().find_map(|l| l.get("state")).unwrap();
    assert_eq!(state["turn"], 3);
    assert!(state.get("deck").is_none() && state["players"][0].get("hand").is_none(), "{state}");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.json");
    std::fs::copy(fixture, &copy).unwrap();
    // The reveal is also recorded for a window playing the game: in this test's own home.
    let output = diving()
        .args(["--load", copy.to_str().unwrap(), "--json", "--reveal-hands"])
        .env("HOME", dir.path())
        .env_remove("XDG_STATE_HOME")
        .write_stdin("state\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = json_lines(&output.stdout);
    let mut state = lines.iter().find_map(|l| l.get("state")).unwrap().clone();
    // The state gained a key since the fixture was saved (everyone who won, none here).
    assert_eq!(state.as_object_mut().unwrap().remove("winners"), Some(json!([])));
    assert_eq!(state, saved["state"], "the replayed game is the saved one");
    let copied: Value = serde_json::from_str(&std::fs::read_to_string(&copy).unwrap()).unwrap();
    let whats: Vec<&str> = copied["notices"].as_array().unwrap().iter().map(|n| n["what"].as_str().unwrap()).collect();
    assert_eq!(whats, ["reloaded", "saved", "opened"]);
    assert_eq!(copied["notices"][2]["how"], "with --json");
}

/// Saves written by earlier versions and by this one still load and replay (fixtures in
/// `tests/fixtures/`: format 2, whose step hashes are over the JSON text, a finished and an
/// unfinished game; format 3, over the canonical encoding). Each goes on where it stood.
#[test]
fn saves_of_every_format_still_load() {
    for (file, version, turn) in [("save-v2.json", 2, 55), ("save-v2-running.json", 2, 13), ("save-v3.json", 3, 55)] {
        let path = format!("tests/fixtures/{file}");
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(saved["version"], version, "{file}");
        let (code, lines, err) = run(&["--load", &path, "--json"], "state\n".into());
        assert_eq!(code, Some(0), "{file}: {err}");
        let state = lines.iter().find_map(|l| l.get("state")).unwrap_or_else(|| panic!("{file}: no state"));
        assert_eq!(state["turn"], turn, "{file}");
        // The state gained keys since these were saved (everyone who won): the rest is the same.
        let mut state = state.clone();
        let winners = state.as_object_mut().unwrap().remove("winners").unwrap();
        assert_eq!(winners, json!(saved["state"]["winner"].as_str().into_iter().collect::<Vec<_>>()), "{file}");
        assert_eq!(state, saved["state"], "{file}: the replayed game is the saved one");
    }
    // The same game in both formats: the same moves, other step hashes (format 3 does not
    // hash the JSON text).
    let read = |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap() };
    let (v2, v3) = (read("tests/fixtures/save-v2.json"), read("tests/fixtures/save-v3.json"));
    assert_eq!(v2["actions"], v3["actions"]);
    assert_ne!(v2["steps"][0], v3["steps"][0]);
}

/// A format-2 save whose step hash was edited is still caught, at that move.
#[test]
fn an_edited_step_of_an_old_save_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut saved: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/save-v2-running.json").unwrap()).unwrap();
    saved["steps"][4] = json!("0123456789abcdef");
    let path = dir.path().join("edited.json");
    std::fs::write(&path, saved.to_string()).unwrap();
    let (code, _, err) = run(&["--load", path.to_str().unwrap()], "state\n".into());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("move 5 ") && err.contains("does not replay as recorded"), "{err}");
}
