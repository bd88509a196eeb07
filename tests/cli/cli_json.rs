//! The scripting contract in JSON mode, over stacked decks: a whole game, each face card,
//! recovery, table plays, and the shape of events and state.

use crate::cli_support;

use cli_support::*;
use serde_json::json;

#[test]
fn the_short_example_game_is_won_by_alice() {
    let output = diving()
        .args(["--json", "play", "--players", "alice,bob", "--seed", "1"])
        .args(["--deck", "@scripts/short-game.deck", "--script", "scripts/short-game.txt"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let lines = json_lines(&output.stdout);
    assert_eq!(lines[0], json!({"event": "turn_started", "player": "alice", "turn": 1}));
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
    assert_eq!(events(&lines, "won"), [&json!({"event": "won", "player": "alice"})]);
    let state = last_state(&lines);
    assert_eq!(state["winner"], "alice");
    assert_eq!(state["turn"], 13);
    assert_eq!(state["draw"], false);
    assert_eq!(player(state, "alice")["depth"], 100);
    // Every line is an event or the state.
    assert!(lines.iter().all(|l| l.get("event").is_some() || l.get("state").is_some()));
}

#[test]
fn state_has_every_contract_field() {
    let lines = json_game("alice,bob", "10H QH 10C QD 2C 3C KS 5D AS 2D 3H 4D 10S", "state\n");
    let state = last_state(&lines);
    assert_eq!(state["turn"], 1);
    assert_eq!(state["current"], "alice");
    assert_eq!(state["winner"], json!(null));
    assert_eq!(state["draw"], false);
    assert_eq!(state["deck_size"], 39);
    assert_eq!(state["deck"].as_array().unwrap().len(), 39);
    assert_eq!(state["discard_size"], 1);
    assert_eq!(state["discard_top"], "10S");
    assert_eq!(state["table"], json!(["AS", "2D", "3H", "4D"]));
    let players = state["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    assert_eq!(
        (&players[0]["name"], &players[0]["depth"], &players[0]["oxygen"]),
        (&json!("alice"), &json!(0), &json!(10))
    );
    assert_eq!(players[0]["hand"], json!(["10H", "QH", "10C", "QD"]));
    assert_eq!(players[1]["hand"], json!(["2C", "3C", "KS", "5D"]));
    assert_eq!(players[0]["front"], json!([]));
}

#[test]
fn a_number_card_event_names_players_and_cards() {
    let lines = json_game("alice,bob", "10H QH 10C QD 2C 3C KS 5D AS 2D 3H 4D 10S", "play 10h\n");
    let played: Vec<_> = lines.iter().skip(1).take(6).cloned().collect();
    assert_eq!(
        played,
        [
            json!({"event": "played", "player": "alice", "card": "10H", "from": "hand"}),
            json!({"event": "doubled", "player": "alice", "card": "10H", "on": "10S", "value": 20}),
            json!({"event": "discarded", "card": "10H"}),
            json!({"event": "moved", "player": "alice", "from": 0, "to": 20}),
            json!({"event": "breathed", "player": "alice", "from": 10, "to": 9}),
            json!({"event": "drew", "player": "alice", "card": "2S"}),
        ]
    );
    assert_eq!(lines.last().unwrap(), &json!({"event": "turn_started", "player": "bob", "turn": 2}));
}

const JOLT_DECK: &str = "10H 5C JD 2S  JS 2D 3D 4D  AS 6H 7H 8H  10S";

#[test]
fn jolt_turns_the_next_number_card_upwards_with_the_j_below_by_default() {
    let lines = json_game("alice,bob", JOLT_DECK, "play 10h\nplay js\nplay 5c\nstate\n");
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
    // The only diver deeper than bob is alice: the target is chosen for him.
    assert_eq!(
        events(&lines, "placed"),
        [&json!({"event": "placed", "player": "bob", "target": "alice", "card": "JS"})]
    );
    assert_eq!(events(&lines, "jolted"), [&json!({"event": "jolted", "player": "alice"})]);
    let state = last_state(&lines);
    assert_eq!(player(state, "alice")["depth"], 15);
    assert_eq!(player(state, "alice")["oxygen"], 8);
    assert_eq!(player(state, "alice")["front"], json!([]));
    assert_eq!(state["discard_top"], "5C");
}

#[test]
fn jolt_with_over_puts_the_j_on_top() {
    let lines = json_game("alice,bob", JOLT_DECK, "play 10h\nplay js\nplay 5c over\nstate\n");
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
    assert_eq!(last_state(&lines)["discard_top"], "JS");
}

#[test]
fn jolt_needs_a_deeper_diver() {
    let lines = json_game("alice,bob", JOLT_DECK, "play jd\n");
    assert_eq!(
        errors(&lines),
        ["JD cannot be played now: a Jolt needs another diver deeper than you with no J in front"]
    );
}

const QUICK_DECK: &str = "QH 5C 6C 7C  2D 8D 9D 10D  3S 8S 9S 10S  AS 2S 4S 5S  9H";

#[test]
fn quick_asks_whom_to_push_when_there_is_a_choice() {
    let script = "play qh\nplay 2d\nplay 3s\nplay 5c\nplay 5c alice\nplay 5c 7\nplay 5c dave\nplay 5C @3\nstate\n";
    let lines = json_game("alice,bob,carol", QUICK_DECK, script);
    assert_eq!(
        errors(&lines),
        [
            "5C needs a player: bob or carol (e.g. play 5C bob)",
            "alice cannot be targeted with 5C: you cannot target yourself",
            "there is no seat 7 (seats are 1 to 3)",
            "there is no player called 'dave' (players: alice, bob, carol)",
        ]
    );
    assert_eq!(events(&lines, "quickened"), [&json!({"event": "quickened", "player": "alice", "extra": 8})]);
    assert_eq!(events(&lines, "pushed"), [&json!({"event": "pushed", "player": "alice", "target": "carol", "by": 4})]);
    let state = last_state(&lines);
    assert_eq!(player(state, "alice")["depth"], 13);
    assert_eq!(player(state, "carol")["depth"], 7);
    // The Q goes over the number card.
    assert_eq!(state["discard_top"], "QH");
}

#[test]
fn quick_pushes_the_only_other_diver_without_asking() {
    let lines = json_game("alice,bob", "QH 5C 6C 7C  2D 8D 9D 10D  AS 2S 4S 5S  9H", "play qh\nplay 2d\nplay 5c\n");
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
    assert_eq!(events(&lines, "pushed"), [&json!({"event": "pushed", "player": "alice", "target": "bob", "by": 4})]);
}

const KNOT_DECK: &str = "KS 2H 3H 4C  5D 6H 7C 8S  AS AH AD AC  9S";

#[test]
fn knot_cancels_the_next_recovery_and_over_puts_the_k_on_top() {
    let script = "recover 2h over\nplay 2h\nplay 5d\nplay ks\nrecover 6h 7c over\nstate\n";
    let lines = json_game("alice,bob", KNOT_DECK, script);
    assert_eq!(errors(&lines), ["'over' is only possible when a J or K in front of you is used up by this move"]);
    assert_eq!(
        events(&lines, "placed"),
        [&json!({"event": "placed", "player": "alice", "target": "bob", "card": "KS"})]
    );
    assert_eq!(events(&lines, "knotted"), [&json!({"event": "knotted", "player": "bob"})]);
    assert_eq!(
        events(&lines, "recovered"),
        [&json!({"event": "recovered", "player": "bob", "cards": ["6H", "7C"], "gain": 0, "from": 9, "to": 9})]
    );
    let state = last_state(&lines);
    assert_eq!(state["discard_top"], "KS");
    assert_eq!(player(state, "bob")["front"], json!([]));
}

#[test]
fn recovery_gains_follow_the_suit_pattern() {
    let deck = "2H 3H 4H 5H  2S 3S 4S 5D  AS AH AD AC  KS  6C 7C 6D 7D  8D 9C 10C";
    let script = "recover 2h 3h 4h 5h\nrecover 2s 3s 4s\nrecover 6c 7c 6d 7d\nrecover 5d 8d\nrecover 8s\n";
    let lines = json_game("alice,bob", deck, script);
    assert!(errors(&lines).is_empty(), "{:?}", errors(&lines));
    let gains: Vec<_> = events(&lines, "recovered").iter().map(|e| e["gain"].clone()).collect();
    assert_eq!(gains, [json!("max"), json!(4), json!(3), json!(2), json!(1)]);
}

#[test]
fn a_card_only_on_the_table_is_played_from_the_table() {
    let lines = json_game("alice,bob", "10H QH 10C QD 2C 3C KS 5D AS 2D 3H 4D 10S", "play as\nstate\n");
    assert_eq!(lines[1], json!({"event": "played", "player": "alice", "card": "AS", "from": {"table": 0}}));
    assert_eq!(events(&lines, "refilled"), [&json!({"event": "refilled", "slot": 0, "card": "2S"})]);
    assert_eq!(last_state(&lines)["table"], json!(["2S", "2D", "3H", "4D"]));
}

#[test]
fn moves_lists_the_legal_actions_as_commands() {
    let lines = json_game("alice,bob", KNOT_DECK, "moves\n");
    let moves: Vec<&str> = lines[1]["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert!(moves.contains(&"play KS bob"), "{moves:?}");
    assert!(moves.contains(&"play AS t1"), "{moves:?}");
    assert!(moves.contains(&"recover 2H 3H 4C"), "{moves:?}");
    assert!(!moves.contains(&"pass"));
}

#[test]
fn hand_log_help_and_reload_answer_in_json() {
    let lines = json_game("alice,bob", KNOT_DECK, "hand\nplay 2h\nlog\nhelp\nhelp play\nreload\n");
    assert_eq!(lines[1], json!({"hand": {"player": "alice", "cards": ["KS", "2H", "3H", "4C"]}}));
    let log = lines.iter().find_map(|l| l.get("log")).unwrap().as_array().unwrap();
    assert_eq!(log[0], json!({"event": "turn_started", "player": "alice", "turn": 1}));
    assert!(log.iter().any(|e| e["event"] == "played"));
    let helps: Vec<_> = lines.iter().filter_map(|l| l.get("help")).collect();
    assert_eq!(helps.len(), 2);
    assert!(helps[1].as_str().unwrap().contains("over"));
    let reload = lines.iter().find_map(|l| l.get("reload")).unwrap();
    assert_eq!(reload["identical"], true);
    assert_eq!(reload["moves"], 1);
}

#[test]
fn undo_takes_back_the_last_move() {
    let lines = json_game("alice,bob", KNOT_DECK, "state\nplay 2h\nundo\nstate\nundo\n");
    let states = states(&lines);
    assert_eq!(states[0], states[1]);
    let undone = lines.iter().find_map(|l| l.get("undone")).unwrap();
    assert_eq!(undone, &json!(["alice play 2H"]));
    assert_eq!(errors(&lines), ["nothing to undo"]);
}

#[test]
fn a_random_seed_is_printed_and_replays_the_same_deal() {
    let output = diving().args(["--json", "--players", "alice,bob"]).write_stdin("state\n").output().unwrap();
    let lines = json_lines(&output.stdout);
    assert_eq!(lines[0]["event"], "seeded", "the seed comes first, as an event");
    let seed = lines[0]["seed"].as_u64().expect("the seed comes first");
    let again = diving()
        .args(["--json", "--players", "alice,bob", "--seed", &seed.to_string()])
        .write_stdin("state\n")
        .output()
        .unwrap();
    assert_eq!(last_state(&lines), last_state(&json_lines(&again.stdout)));
}

#[test]
fn the_default_game_is_you_against_a_bot_that_moves_by_itself() {
    let output = diving().args(["--json", "--seed", "4"]).write_stdin("recover 2h\nmoves\nstate\n").output().unwrap();
    let lines = json_lines(&output.stdout);
    let state = last_state(&lines);
    let names: Vec<_> = state["players"].as_array().unwrap().iter().map(|p| p["name"].clone()).collect();
    assert_eq!(names[0], "you");
    assert!(names[1] == "greedy" || names[1] == "random", "{names:?}");
    assert!(state["players"][1]["bot"].is_string());
    // Whatever you did, it is your turn again: the bot moved after you.
    assert_eq!(state["current"], "you");
}

#[test]
fn bots_play_a_whole_game_on_their_own() {
    let output = diving()
        .args(["--json", "--seed", "11", "--players", "bot:random,bot:random"])
        .write_stdin("state\n")
        .output()
        .unwrap();
    let lines = json_lines(&output.stdout);
    let state = last_state(&lines);
    assert_eq!(state["over"], true);
    assert_eq!(state["players"][1]["name"], "random2");
    let winner = state["winner"].as_str().unwrap();
    assert_eq!(events(&lines, "won")[0]["player"], winner);
}

#[test]
fn quit_ends_a_script() {
    let lines = json_game("alice,bob", KNOT_DECK, "quit\nstate\n");
    assert_eq!(lines.len(), 1, "{lines:?}");
}
