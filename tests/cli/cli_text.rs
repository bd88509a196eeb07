//! Text-mode narration over stacked decks: one readable line per thing that happened, for
//! each face card, the table, a recovery and a rescue.

use crate::cli_support;

use cli_support::*;

#[test]
fn jolt_narration() {
    let out =
        text_game("alice,bob", "10H 5C JD 2S  JS 2D 3D 4D  AS 6H 7H 8H  10S", "play 10h\nplay js\nplay 5c over\n");
    assert!(out.contains("alice plays 10H on 10S - doubled to 20: depth 0 -> 20, oxygen 10 -> 9\n"), "{out}");
    assert!(out.contains("bob plays JS in front of alice\n"), "{out}");
    assert!(
        out.contains(
            "alice plays 5C - jolted, goes up: depth 20 -> 15, oxygen 9 -> 8 (JS now tops the discard pile)\n"
        ),
        "{out}"
    );
}

#[test]
fn quick_narration_and_the_missing_choice() {
    let deck = "QH 5C 6C 7C  2D 8D 9D 10D  3S 8S 9S 10S  AS 2S 4S 5S  9H";
    let out = text_game("alice,bob,carol", deck, "play qh\nplay 2d\nplay 3s\nplay 5c\nplay 5c carol\n");
    assert!(out.contains("alice plays QH and keeps it in front\n"), "{out}");
    assert!(out.contains("error: 5C needs a player: bob or carol (e.g. play 5C bob)\n"), "{out}");
    assert!(out.contains("alice plays 5C - quick, +8: depth 0 -> 13, oxygen 10 -> 9\n"), "{out}");
    assert!(
        out.contains("alice's Quick pushes carol down 4: depth 3 -> 7, oxygen 9 -> 8 (QH now tops the discard pile)\n"),
        "{out}"
    );
}

#[test]
fn knot_and_recovery_narration() {
    let deck = "KS 2H 3H 4C  5D 6H 7C 8S  AS AH AD AC  9S";
    let out = text_game("alice,bob", deck, "play 2h\nplay 5d\nplay ks\nrecover 6h 7c over\nrecover 3h 4c\n");
    assert!(out.contains("alice plays KS in front of bob\n"), "{out}");
    assert!(out.contains("bob recovers with 6H 7C - knotted! no oxygen, 9 -> 9\n"), "{out}");
    assert!(out.contains("alice recovers with 3H 4C (all suits different: +1), oxygen 9 -> 10\n"), "{out}");
    assert!(out.contains("alice draws "), "script mode names every draw: {out}");
}

#[test]
fn table_play_narration() {
    let out = text_game("alice,bob", "10H QH 10C QD 2C 3C KS 5D AS 2D 3H 4D 10S", "play as\n");
    assert!(
        out.contains("alice plays AS from table slot 1 on 10S - doubled to 2: depth 0 -> 2, oxygen 10 -> 9\n"),
        "{out}"
    );
    assert!(out.contains("table slot 1 is refilled with 2S\n"), "{out}");
}

#[test]
fn rescue_narration() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("thin-air.toml");
    std::fs::write(&rules, "extends = \"standard\"\nmax_oxygen = 1\n").unwrap();
    let output = diving()
        .args(["play", "--ruleset", rules.to_str().unwrap(), "--players", "alice,bob", "--seed", "1"])
        .args(["--deck", &stacked("2H 3H 4H 5H  2S 3S 4S 5S  AS AH AD AC  9C")])
        .write_stdin("play 2h\n")
        .output()
        .unwrap();
    let out = String::from_utf8(output.stdout).unwrap();
    assert!(
        out.contains(
            "alice plays 2H: depth 0 -> 2, oxygen 1 -> 0 - out of oxygen! rescued to the surface with 1 oxygen\n"
        ),
        "{out}"
    );
}

#[test]
fn plain_output_has_no_colour_or_symbols() {
    let out = text_game("alice,bob", "10H QH 10C QD 2C 3C KS 5D AS 2D 3H 4D 10S", "play 10h\nstate\nmoves\nlog\n");
    assert!(!out.contains('\x1b'), "{out}");
    assert!(!out.contains(['♠', '♥', '♦', '♣', '→', '█']), "{out}");
}

#[test]
fn the_hand_command_says_your_hand_to_you() {
    let out = text_game("you,bob", "10H 5C JD 2S  JS 2D 3D 4D  AS 6H 7H 8H  10S", "hand\n");
    assert!(out.contains("your hand: 10H 5C JD 2S\n"), "{out}");
    let out = text_game("alice,bob", "10H 5C JD 2S  JS 2D 3D 4D  AS 6H 7H 8H  10S", "hand\n");
    assert!(out.contains("alice's hand: 10H 5C JD 2S\n"), "{out}");
}

/// Issue 32: a Quick that wins ends the game at once (D20), so its Q is never put on the
/// pile; the final board showed it `front: QS`, as if a Quick were still to come. It says the
/// Q was used; the JSON state keeps it where it lies, as the engine does.
#[test]
fn after_a_winning_quick_the_board_shows_the_q_used() {
    let deck = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/short-game.deck")).unwrap();
    let top: String = deck.lines().map(|l| l.split('#').next().unwrap()).collect::<Vec<_>>().join(" ");
    let moves = "play 10H\nplay 2C\nplay QH\nplay 3C\nplay 10C\nplay KS\nplay QD\nplay 5D\nplay 10D\nrecover 6H 7H\nplay QS\nplay 8H\nplay 9H\nstate\n";
    let out = text_game("alice,bob", &top, moves);
    assert!(out.contains("quick, +8: depth 76 -> 100 - reaches the bottom and wins!"), "{out}");
    let board = &out[out.rfind("turn 13 - alice won").unwrap()..];
    assert!(board.contains("front: KS  QS used"), "{board}");
    assert!(!board.contains("front: KS QS"), "{board}");
    let lines = json_game("alice,bob", &top, moves);
    assert_eq!(player(last_state(&lines), "alice")["front"], serde_json::json!(["KS", "QS"]));
}
