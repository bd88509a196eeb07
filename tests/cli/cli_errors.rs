//! Every rejected input gets a one-line reason and leaves the game exactly as it was; bad
//! arguments exit with status 2 before anything else happens.

use crate::cli_support;

use cli_support::*;
use serde_json::json;

/// alice holds KS JS 2H 3H; bob 5D 6H 7C 8S; the table AS AH AD AC; the discard starts with 9S.
const DECK: &str = "KS JS 2H 3H  5D 6H 7C 8S  AS AH AD AC  9S";

/// Each bad line, and the reason it must be given.
const BAD: &[(&str, &str)] = &[
    ("paly 2h", "unknown command 'paly' (did you mean 'play'? type 'help' for the list)"),
    ("dance", "unknown command 'dance' (type 'help' for the list)"),
    ("play", "play needs a card: play CARD [table|tN] [PLAYER] [over]"),
    ("play 7x", "'7x' is not a card (write rank then suit, like 7H, 10S, TD, QC or A♠)"),
    ("play 11h", "'11h' is not a card (write rank then suit, like 7H, 10S, TD, QC or A♠)"),
    ("play 9c", "9C is neither in your hand nor on the table"),
    ("play as hand", "AS is not in your hand"),
    ("play 2h table", "2H is not on the table"),
    ("play as t2", "table slot 2 does not hold AS"),
    ("play as t9", "there is no table slot 9"),
    ("play as t0", "table slots are numbered from 1"),
    ("play 2h over", "'over' is only possible when a J or K in front of you is used up by this move"),
    ("play 2h bob", "2H takes no player here"),
    ("play 2h bob carol", "only one player can be named (found 'carol' after the first)"),
    ("play js", "JS cannot be played now: a Jolt needs another diver deeper than you with no J in front"),
    ("play ks alice", "alice cannot be targeted with KS: you cannot target yourself"),
    ("play ks zed", "there is no player called 'zed' (players: alice, bob)"),
    ("play ks 5", "there is no seat 5 (seats are 1 to 2)"),
    ("play ks 0", "'0' is not a seat number (seats are numbered from 1)"),
    ("recover", "recover needs at least one card from your hand: recover CARD…"),
    ("recover 9c", "9C is not in your hand"),
    ("recover 2h 2h", "2H is named more often than you hold it (1 in your hand)"),
    ("foo", "unknown command 'foo' (type 'help' for the list)"),
    ("recover 2h over", "'over' is only possible when a J or K in front of you is used up by this move"),
    ("recover over 2h", "'over' goes at the end: recover CARD… over"),
    ("pass", "you can only pass when you have no cards and no table card can be played"),
    ("undo", "nothing to undo"),
    ("moves please", "'moves' takes nothing after it (found 'please')"),
    (
        "help dance",
        "no help for 'dance' (help rules, help J, help Q, help K, help over, or a command: play, recover, pass, moves, state, hand, log, undo, hint, review, save, reload, help, again, quit)",
    ),
    ("save", "save needs a file name: save FILE"),
];

#[test]
fn every_rejected_command_gives_its_reason_and_changes_nothing() {
    let mut script = String::from("state\n");
    for (line, _) in BAD {
        script += line;
        script += "\nstate\n";
    }
    let lines = json_game("alice,bob", DECK, &script);
    let expected: Vec<&str> = BAD.iter().map(|(_, reason)| *reason).collect();
    assert_eq!(errors(&lines), expected);
    let states = states(&lines);
    assert_eq!(states.len(), BAD.len() + 1);
    assert!(states.iter().all(|s| *s == states[0]), "a rejected command changed the game");
    // Exactly one line per rejected command: its error.
    assert_eq!(lines.len(), 1 + 2 * BAD.len() + 1);
}

#[test]
fn text_mode_prints_errors_as_error_lines_on_stdout() {
    let out = text_game("alice,bob", DECK, "paly 2h\nplay 9c\n");
    assert!(out.contains("error: unknown command 'paly' (did you mean 'play'? type 'help' for the list)\n"), "{out}");
    assert!(out.contains("error: 9C is neither in your hand nor on the table\n"), "{out}");
}

#[test]
fn a_save_that_fails_is_an_error_and_the_game_goes_on() {
    let lines = json_game("alice,bob", DECK, "save /nonexistent-dir/x.json\nplay 2h\n");
    let errs = errors(&lines);
    assert_eq!(errs.len(), 1);
    assert!(errs[0].starts_with("/nonexistent-dir/x.json: cannot save:"), "{errs:?}");
    assert_eq!(events(&lines, "played").len(), 1);
}

#[test]
fn after_a_win_play_commands_are_errors() {
    let mut script = std::fs::read_to_string("scripts/short-game.txt").unwrap();
    script += "play 2s\nrecover 2s\npass\nmoves\n";
    let output = diving()
        .args(["--json", "play", "--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"])
        .write_stdin(script)
        .output()
        .unwrap();
    let lines = json_lines(&output.stdout);
    assert_eq!(last_state(&lines)["winner"], "alice");
    assert_eq!(errors(&lines), ["the game is over", "the game is over", "the game is over"]);
    assert_eq!(lines.last().unwrap(), &json!({"moves": []}));
}

#[test]
fn nothing_panics_on_odd_input() {
    let script = "\u{0}\n\u{feff}play 2h\n@@@\nplay @\nplay 2h @\nrecover ,\n   \n#\nplay 10♥ t\nplay 2h t 2 t 3\n";
    let output = diving()
        .args(["--json", "play", "--players", "alice,bob", "--seed", "1", "--deck", &stacked(DECK)])
        .write_stdin(script.as_bytes().iter().chain(&[0xff, 0xfe, b'\n']).copied().collect::<Vec<u8>>())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let lines = json_lines(&output.stdout);
    assert!(!errors(&lines).is_empty());
}

fn fails_with(args: &[&str], message: &str) {
    let output = diving().args(args).write_stdin("state\n").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?} printed: {}", String::from_utf8_lossy(&output.stdout));
    assert!(stderr.contains(message), "{args:?}: expected '{message}' in: {stderr}");
}

#[test]
fn bad_arguments_exit_2_with_a_clear_message() {
    fails_with(&["--players", "alice"], "this ruleset is for 2 to 8 players, not 1");
    fails_with(&["--players", "a,b,c,d,e,f,g,h,i"], "this ruleset is for 2 to 8 players, not 9");
    fails_with(&["--players", "alice,Alice"], "two players are called 'Alice'");
    fails_with(&["--players", "alice,bot:nosuch"], "unknown bot 'nosuch'");
    fails_with(&["--players", "alice,42"], "'42' is a number");
    fails_with(&["--players", "alice,bob", "--deck", "AS 2S"], "the stacked deck must hold exactly the 52 cards");
    fails_with(&["--players", "alice,bob", "--deck", &format!("{} AS", stacked(""))], "extra AS");
    fails_with(&["--players", "alice,bob", "--deck", "AS 2Z"], "'2Z' is not a card");
    fails_with(&["--players", "alice,bob", "--deck", "@/nonexistent/deck"], "--deck: cannot read /nonexistent/deck");
    fails_with(&["--players", "alice,bob", "--ruleset", "/nonexistent/rules.toml"], "/nonexistent/rules.toml");
    fails_with(
        &["--players", "alice,bob", "--script", "/nonexistent/script.txt"],
        "cannot read script /nonexistent/script.txt",
    );
    fails_with(&["--load", "/nonexistent/save.json"], "/nonexistent/save.json: cannot read the save file");
    fails_with(&["--load", "x.json", "--seed", "3"], "cannot be combined");
    fails_with(&["--seed", "minus-one"], "invalid value 'minus-one'");
    fails_with(&["rules", "--ruleset", "/nonexistent/rules.toml"], "/nonexistent/rules.toml");
}

#[test]
fn a_player_cannot_be_named_like_a_word_of_the_play_command() {
    for name in ["table", "t1", "hand", "over"] {
        let players = format!("{name},bob");
        let out = diving().args(["--players", &players, "--seed", "1"]).write_stdin("state\n").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("'{name}'")) && stderr.contains("play command"), "{stderr}");
    }
}

#[test]
fn a_simulation_needs_at_least_one_game_and_one_job() {
    fails_with(&["sim", "--games", "0"], "'--games <GAMES>': must be at least 1");
    fails_with(&["sim", "--jobs", "0"], "'--jobs <JOBS>': must be at least 1");
    fails_with(&["sim", "--jobs", "two"], "must be a whole number of at least 1");
    // A negative count is a value, not an unknown option.
    fails_with(&["sim", "--games", "-1"], "'--games <GAMES>': must be a whole number of at least 1");
}

#[test]
fn a_chart_that_cannot_be_written_is_refused_before_the_games_run() {
    fails_with(&["sim", "--games", "5", "--plot", "/no/such/folder/chart.svg"], "there is no folder /no/such/folder");
}

/// A ruleset the default table (you and one bot) cannot play says how to seat it, with a
/// table of the right size that then starts.
#[test]
fn a_ruleset_for_more_players_says_how_to_seat_them() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("six.toml");
    std::fs::write(&rules, "extends = \"standard\"\nname = \"six\"\nmin_players = 6\nmax_players = 6\n").unwrap();
    let rules = rules.to_str().unwrap();
    let out = diving().args(["--ruleset", rules]).write_stdin("").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let example = "--players you,bot:greedy,bot:greedy,bot:greedy,bot:greedy,bot:greedy";
    assert!(err.contains("not 2 (without --players the game seats you and one bot") && err.contains(example), "{err}");
    let players = example.strip_prefix("--players ").unwrap();
    diving().args(["--ruleset", rules, "--players", players]).write_stdin("quit\n").assert().success();
}
