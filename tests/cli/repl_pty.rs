//! The interactive REPL in a pseudo-terminal: help, tab completion, a complete hot-seat turn
//! with the hand hidden from the next player, a game against a bot, and quitting.
//!
//! Every step waits for the text it expects (generous timeouts, no sleeps), so the test is as
//! fast as the program and does not depend on timing.
#![cfg(unix)]

use crate::cli_support;

use std::process::Command;

use rexpect::session::{Options, PtySession, spawn_with_options};

const TIMEOUT_MS: u64 = 60_000;

fn start(args: &[&str], home: &std::path::Path) -> PtySession {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("diving"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env("LANG", "C")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"));
    spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS)).strip_ansi_escape_codes(true)).unwrap()
}

#[test]
fn a_hot_seat_turn_with_help_completion_and_hidden_hands() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(&["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    p.exp_string("Diving Suits - alice vs bob").unwrap();
    // Even the first hand waits for its player.
    let opening = p.exp_string("pass the terminal to alice. alice, press Enter when ready").unwrap();
    assert!(!opening.contains("hand"), "a hand is shown before the first hand-over: {opening}");
    p.send_line("").unwrap();
    let board = p.exp_string("alice> ").unwrap();
    assert!(board.contains("turn 1 - alice to play"), "{board}");
    assert!(board.contains("alice's hand: 10H QH 10C QD"), "{board}");
    assert!(!board.contains("bob's hand"), "bob's hand is shown to alice: {board}");

    p.send_line("help").unwrap();
    p.exp_string("commands (any case").unwrap();
    p.exp_string("'help COMMAND' tells more").unwrap();
    p.exp_string("alice> ").unwrap();

    // Tab completes the command word (the only one starting with "pla").
    p.send("pla\t").unwrap();
    p.flush().unwrap();
    p.exp_string("play ").unwrap();
    p.send_line("10H").unwrap();
    p.exp_string("alice plays 10H on 10S - doubled to 20: depth 0 -> 20, oxygen 10 -> 9").unwrap();
    p.exp_string("alice draws 10D").unwrap();

    // The hand-over: alice hides her hand, bob takes the terminal. A command typed here is
    // not lost without a word.
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_line("play 10D").unwrap();
    p.exp_string("'play 10D' was not read: this is the hand-over, press Enter alone").unwrap();
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_line("").unwrap();
    p.exp_string("pass the terminal to bob").unwrap();
    p.send_line("").unwrap();
    p.exp_string("bob, since your last turn:").unwrap();
    let recap_and_board = p.exp_string("bob> ").unwrap();
    assert!(recap_and_board.contains("alice draws a card"), "{recap_and_board}");
    assert!(!recap_and_board.contains("10D"), "alice's draw is shown to bob: {recap_and_board}");
    assert!(recap_and_board.contains("bob's hand: 2C 3C KS 5D"), "{recap_and_board}");
    assert!(!recap_and_board.contains("alice's hand"), "{recap_and_board}");

    // `state` does not show alice's hand either.
    p.send_line("state").unwrap();
    let state = p.exp_string("bob> ").unwrap();
    assert!(state.contains("bob's hand") && !state.contains("alice's hand"), "{state}");

    // Tab completes a card: 5D is the only card in hand or on the table starting with 5.
    p.send("play 5\t").unwrap();
    p.flush().unwrap();
    p.exp_string("play 5D ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("bob plays 5D: depth 0 -> 5, oxygen 10 -> 9").unwrap();
    p.exp_string("bob: press Enter to end your turn").unwrap();
    p.send_line("").unwrap();
    p.exp_string("pass the terminal to alice").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice> ").unwrap();

    // Quitting an unsaved game asks first.
    p.send_line("quit").unwrap();
    p.exp_string("quit now? the game is kept and 'diving' offers it back [y/N]").unwrap();
    p.send_line("n").unwrap();
    p.exp_string("not quitting").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn a_bot_moves_by_itself_and_its_hand_stays_hidden() {
    let home = tempfile::tempdir().unwrap();
    let mut p =
        start(&["--players", "alice,bot:random", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    p.exp_string("Diving Suits - alice vs random (bot)").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    p.exp_string("alice plays 10H").unwrap();
    let after = p.exp_string("alice> ").unwrap();
    assert!(after.contains("random "), "the bot's move is narrated: {after}");
    assert!(after.contains("turn 3 - alice to play"), "{after}");
    assert!(!after.contains("random's hand"), "{after}");
    // Undo would let alice play another card and draw the 10D she has seen: refused.
    p.send_line("undo").unwrap();
    p.exp_string("cannot undo: a card was drawn from the deck since").unwrap();
    p.exp_string("alice> ").unwrap();
    // End of input (Ctrl-D) on an unsaved game asks too; the end of input again quits.
    p.send_control('d').unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
    // The history was kept in the data directory.
    let history = std::fs::read_to_string(home.path().join("data/diving/history")).unwrap();
    assert!(history.contains("play 10h"), "{history}");
}

/// Ctrl-C while the computer thinks (the terminal is out of the line editor's raw mode, so it
/// is a SIGINT) used to end the program and lose the game unsaved. Now the move is finished,
/// the shell says Ctrl-C stopped nothing, and the game goes on.
#[test]
fn ctrl_c_while_a_bot_thinks_loses_nothing() {
    let home = tempfile::tempdir().unwrap();
    let mut p =
        start(&["--players", "alice,bot:mcts:20000", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    // Narrated before the bot starts its search, which takes a while.
    p.exp_string("alice plays 10H").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("(Ctrl-C: the game goes on, nothing was left half-done; type 'quit' to leave)").unwrap();
    let after = p.exp_string("alice> ").unwrap();
    assert!(after.contains("turn 3 - alice to play"), "the bot moved: {after}");
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn a_missing_choice_is_asked_for() {
    let home = tempfile::tempdir().unwrap();
    let deck = cli_support::stacked("QH 5C 6C 7C  2D 8D 9D 10D  3S 8S 9S 10S  AS 2S 4S 5S  9H");
    let mut p = start(&["--players", "alice,bot:random,bot:random", "--seed", "1", "--deck", &deck], home.path());
    p.exp_string("alice> ").unwrap();
    p.send_line("play qh").unwrap();
    p.exp_string("alice plays QH and keeps it in front").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play 5c").unwrap();
    p.exp_string("5C: whom does your Quick push down? (random or random2; Enter: cancel) ").unwrap();
    p.send_line("random2").unwrap();
    p.exp_string("alice's Quick pushes random2 down 4").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("yes").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn a_resumed_hot_seat_game_hands_the_terminal_to_the_player_to_move() {
    let home = tempfile::tempdir().unwrap();
    let save = home.path().join("game.json");
    let output = cli_support::diving()
        .args(["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"])
        .write_stdin(format!("play 10h\nsave {}\n", save.display()))
        .output()
        .unwrap();
    assert!(output.status.success());
    let mut p = start(&["--load", save.to_str().unwrap()], home.path());
    p.exp_string("resumed").unwrap();
    let before = p.exp_string("pass the terminal to bob").unwrap();
    assert!(!before.contains("hand"), "no hand is shown before the hand-over: {before}");
    p.send_line("").unwrap();
    let board = p.exp_string("bob> ").unwrap();
    assert!(board.contains("bob's hand: 2C 3C KS 5D") && !board.contains("alice's hand"), "{board}");
    // Nothing changed since the save: quitting does not ask.
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 15, secrecy 1: after the hand-over, neither ↑ nor Ctrl-R shows bob what alice typed
/// (`play qh zed` names a card in her hand), and nothing is written to the history file.
#[test]
fn hot_seat_history_is_per_seat_and_never_written() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(&["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    p.exp_string("press Enter when ready").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play qh zed").unwrap();
    p.exp_string("there is no player called 'zed'").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_line("").unwrap();
    p.exp_string("pass the terminal to bob").unwrap();
    p.send_line("").unwrap();
    p.exp_string("bob> ").unwrap();
    // ↑ twice, then Enter: with alice's history this would run `play qh zed` or `play 10h`.
    // (Each line waits for the prompt: the line editor drops keys typed before it.)
    p.send("\x1b[A\x1b[A").unwrap();
    p.send_line("").unwrap();
    let after_up = p.exp_string("bob> ").unwrap();
    // (Ctrl-R searches this same editor history: `each_seat_has_its_own_history` in
    // src/repl/terminal.rs checks that it holds bob's lines only.)
    p.send_line("hand").unwrap();
    assert!(!after_up.to_lowercase().contains("qh"), "alice's typing reached bob: {after_up}");
    let seen = p.exp_string("bob's hand: 2C 3C KS 5D").unwrap();
    assert!(!seen.to_lowercase().contains("qh"), "alice's typing reached bob: {seen}");
    assert!(!seen.contains("zed") && !seen.contains("10h"), "alice's typing reached bob: {seen}");
    p.exp_string("bob> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
    assert!(!home.path().join("data/diving/history").exists(), "a hot-seat game wrote the history file");
}

/// Issue 15, secrecy 2: Ctrl-C or Ctrl-D at a hand-over prompt clears the screen (the hand is
/// on it) and asks like `quit`, offering to save; answering no goes back to the hand-over.
/// Run where the game cannot be kept on disk (no `HOME`, no `XDG_STATE_HOME`), so the question
/// is the one of an unsaved game (issue 47 keeps every game at the terminal as it goes).
#[test]
fn ctrl_c_and_ctrl_d_at_a_hand_over_clear_the_screen_and_ask() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("diving"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"])
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env("LANG", "C")
        .env_remove("HOME")
        .env_remove("XDG_STATE_HOME")
        .env("XDG_DATA_HOME", home.path().join("data"));
    // Escape codes kept: the screen clearing is what is checked.
    let mut p = spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS))).unwrap();
    p.exp_string("press Enter when ready").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_control('c').unwrap();
    let before =
        p.exp_string("the game is not saved; quit anyway? [y/N] (or type a file name to save and quit)").unwrap();
    let cleared = before.rfind("\x1b[2J\x1b[3J").expect("the screen is cleared before the question");
    assert!(!before[cleared..].contains("hand"), "{before:?}");
    p.send_line("n").unwrap();
    p.exp_string("not quitting").unwrap();
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_control('d').unwrap();
    p.exp_string("quit anyway?").unwrap();
    let save = home.path().join("kept game.json");
    p.send_line(save.to_str().unwrap()).unwrap();
    let saved = p.exp_string("kept game.json')").unwrap();
    assert!(saved.contains("(resume with: diving --load"), "{saved}");
    p.exp_eof().unwrap();
    assert!(save.exists());
}

/// Issue 15, secrecy under every key: after the hand-over, nothing bob can reach holds alice's
/// typing or her hidden cards. Alice's hand is 10H QH 10C QD; she types a rejected `play qh
/// zed`, cuts a `play qd` with Ctrl-U (the editor keeps cut text for Ctrl-Y), plays 10H and
/// draws 10D. Then bob tries ↑, Ctrl-R and Ctrl-Y at his hand-over prompt and at his own
/// prompt, Tab completion, `log`, and a play of her card.
#[test]
fn after_the_hand_over_no_key_reaches_the_previous_seats_typing() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(&["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    p.exp_string("press Enter when ready").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play qh zed").unwrap();
    p.exp_string("there is no player called 'zed'").unwrap();
    p.exp_string("alice> ").unwrap();
    // Typed, then cut: a move she thought better of.
    p.send("play qd").unwrap();
    p.send_control('u').unwrap();
    p.send_line("hand").unwrap();
    p.exp_string("alice's hand: 10H QH 10C QD").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_line("").unwrap();
    p.exp_string("pass the terminal to bob. bob, press Enter when ready").unwrap();
    // At the hand-over prompt: ↑, then Ctrl-Y, then Enter (the line there is ignored).
    p.send("\x1b[A").unwrap();
    p.send_control('y').unwrap();
    p.send_line("").unwrap();
    let mut seen = p.exp_string("bob> ").unwrap();
    // At bob's prompt: Ctrl-R with a piece of her rejected line (`h z`, of `play qh zed`);
    // Enter runs what it found.
    p.send_control('r').unwrap();
    p.send("h z").unwrap();
    p.send_line("").unwrap();
    seen += &p.exp_string("bob> ").unwrap();
    // Ctrl-Y: what she cut would be pasted; Enter runs it.
    p.send_control('y').unwrap();
    p.send_line("").unwrap();
    seen += &p.exp_string("bob> ").unwrap();
    // Tab after `play `: bob's hand and the table only (the listing is shown above the line).
    p.send("play \t\t").unwrap();
    p.flush().unwrap();
    seen += &p.exp_string("5D").unwrap();
    seen += &p.exp_string("bob> play ").unwrap();
    p.send_control('u').unwrap();
    p.send_line("log").unwrap();
    seen += &p.exp_string("alice draws a card").unwrap();
    seen += &p.exp_string("bob> ").unwrap();
    for secret in ["zed", "qh", "qd", "10c", "10d", "there is no player"] {
        assert!(!seen.to_lowercase().contains(secret), "bob could reach {secret:?}:\n{seen}");
    }
    // An error about her card names only what bob typed.
    p.send_line("play qd").unwrap();
    let error = p.exp_string("bob> ").unwrap();
    assert!(error.contains("error:") && !error.contains("alice"), "{error}");
    assert!(!error.contains("QH") && !error.contains("10C") && !error.contains("10D"), "{error}");
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
}

/// Ends `prev`'s turn at a hot-seat hand-over and gives the terminal to `next`; returns what
/// `next` sees up to their prompt.
fn hand_over(p: &mut PtySession, prev: &str, next: &str) -> String {
    p.exp_string(&format!("{prev}: press Enter to end your turn")).unwrap();
    p.send_line("").unwrap();
    p.exp_string(&format!("pass the terminal to {next}. {next}, press Enter when ready")).unwrap();
    p.send_line("").unwrap();
    p.exp_string(&format!("{next}> ")).unwrap()
}

/// Issue 32, leaks 1 and 4: with two people at the terminal the seed (which gives every hand
/// away to `printf state | diving --seed N`) is not printed before the first hand-over, nor
/// by `again`; it is shown when the game ends, so it can be replayed. `save` says the file
/// shows every hand.
#[test]
fn a_hot_seat_game_keeps_its_seed_until_it_ends() {
    let home = tempfile::tempdir().unwrap();
    let mut p = start(&["--players", "alice,bob", "--deck", "@scripts/short-game.deck"], home.path());
    let opening = p.exp_string("pass the terminal to alice. alice, press Enter when ready").unwrap();
    assert!(opening.contains("Diving Suits - alice vs bob"), "{opening}");
    assert!(!opening.contains("seed"), "the seed is on the shared screen: {opening}");
    p.send_line("").unwrap();
    p.exp_string("alice> ").unwrap();
    let moves = [
        "play 10H",
        "play 2C",
        "play QH",
        "play 3C",
        "play 10C",
        "play KS",
        "play QD",
        "play 5D",
        "play 10D",
        "recover 6H 7H",
        "play QS",
        "play 8H",
    ];
    let names = ["alice", "bob"];
    let mut seen = String::new();
    for (i, line) in moves.iter().enumerate() {
        if i == 1 {
            // bob saves: the file holds every hand, and the program says so.
            let file = home.path().join("g.json");
            p.send_line(&format!("save {}", file.display())).unwrap();
            seen += &p.exp_string("this file shows every hand: keep it from the players").unwrap();
            p.exp_string("bob> ").unwrap();
        }
        p.send_line(line).unwrap();
        seen += &hand_over(&mut p, names[i % 2], names[(i + 1) % 2]);
    }
    assert!(!seen.contains("seed"), "{seen}");
    p.send_line("play 9H").unwrap();
    p.exp_string("alice won in 13 turns.").unwrap();
    let end = p.exp_string("game over> ").unwrap();
    let seed_line = end.lines().find(|l| l.contains("(replay with --seed ")).expect("the seed at the end");
    let seed = seed_line.trim().strip_prefix("seed ").unwrap().split(' ').next().unwrap();
    assert!(seed.parse::<u64>().is_ok(), "{seed_line}");

    // `again`: a new game whose seed is not printed (not even flashed before the hand-over).
    p.send_line("again").unwrap();
    let again = p.exp_string("pass the terminal to alice. alice, press Enter when ready").unwrap();
    assert!(again.contains("a new game: alice, bob (its seed is shown when it ends)"), "{again}");
    assert!(!again.contains("--seed"), "{again}");
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

/// Issue 32, item 6: with an empty deck a move draws nothing, so undo is allowed; bob's undo
/// at the start of his turn used to take back alice's move and hand her the turn without a
/// word. Undo takes back only your own move. (A ruleset whose deal takes the whole deck; a Q
/// kept in front puts nothing on the discard pile, so nothing is reshuffled to draw.)
#[test]
fn hot_seat_undo_takes_back_only_your_own_move() {
    let home = tempfile::tempdir().unwrap();
    let standard = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rulesets/standard.toml")).unwrap();
    let full = standard
        .replace("hand_size = 4 ", "hand_size = 6 ")
        .replace("table_size = 4 ", "table_size = 3 ")
        .replace("decks = \"auto\"", "decks = 1")
        .replace(
            "\"4\" = \"max\"",
            "\"4\" = \"max\"\n\"2+2+2\" = 3\n\"3+2\" = 4\n\"3+3\" = 4\n\"4+2\" = \"max\"\n\"5\" = \"max\"\n\"6\" = \"max\"",
        );
    let ruleset = home.path().join("whole-deck.toml");
    std::fs::write(&ruleset, full).unwrap();
    let bots = ["bot:random"; 6].join(",");
    let players = format!("alice,bob,{bots}");
    let mut p = start(
        &[
            "--ruleset",
            ruleset.to_str().unwrap(),
            "--players",
            &players,
            "--seed",
            "1",
            "--deck",
            "@scripts/short-game.deck",
        ],
        home.path(),
    );
    p.exp_string("pass the terminal to alice").unwrap();
    p.send_line("").unwrap();
    let board = p.exp_string("alice> ").unwrap();
    assert!(board.contains("deck 0"), "{board}");
    p.send_line("play qh").unwrap();
    p.exp_string("alice plays QH and keeps it in front").unwrap();
    hand_over(&mut p, "alice", "bob");
    p.send_line("undo").unwrap();
    let refused = p.exp_string("bob> ").unwrap();
    assert!(refused.contains("cannot undo: alice moved last, and undo takes back only your own move"), "{refused}");
    assert!(!refused.contains("took back"), "{refused}");
    p.send_line("state").unwrap();
    let state = p.exp_string("bob> ").unwrap();
    assert!(state.contains("bob to play") && state.contains("front: QH"), "{state}");
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 32, leak 5: GNU screen ignores `ESC[3J`, so its scrollback kept the previous hand.
/// The secret part of a turn is drawn on the alternate screen (never kept in a scrollback),
/// left and wiped before the next hand-over.
#[test]
fn a_hot_seat_turn_is_drawn_on_the_alternate_screen() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("diving"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"])
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env("LANG", "C")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"));
    // Escape codes kept: the screen switching is what is checked.
    let mut p = spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS))).unwrap();
    let opening = p.exp_string("press Enter when ready").unwrap();
    assert!(!opening.contains("\x1b[?1049h"), "{opening:?}");
    p.send_line("").unwrap();
    let turn = p.exp_string("alice> ").unwrap();
    let entered = turn.find("\x1b[?1049h").expect("the turn is drawn on the alternate screen");
    let hand = turn.find("alice's hand").unwrap();
    assert!(entered < hand, "{turn:?}");
    p.send_line("play 10h").unwrap();
    p.exp_string("alice: press Enter to end your turn").unwrap();
    p.send_line("").unwrap();
    let between = p.exp_string("pass the terminal to bob").unwrap();
    let left = between.find("\x1b[?1049l").expect("the alternate screen is left before the hand-over");
    assert!(!between[left..].contains("hand"), "{between:?}");
    p.send_line("").unwrap();
    let bob = p.exp_string("bob> ").unwrap();
    assert!(bob.find("\x1b[?1049h").unwrap() < bob.find("bob's hand").unwrap(), "{bob:?}");
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    let end = p.exp_eof().unwrap();
    assert!(end.contains("\x1b[?1049l"), "the alternate screen is left when the game is: {end:?}");
}

/// Issue 32: Ctrl-C at "quit anyway? [y/N]" means no, as everywhere else; and the history file
/// is replaced by a rename, never truncated and rewritten in place (closing the terminal
/// window mid-write left it at 0 bytes): the file after the game is a new one, holding the
/// old lines and the new.
#[test]
fn ctrl_c_at_quit_is_no_and_the_history_is_replaced_whole() {
    use std::os::unix::fs::MetadataExt;
    let home = tempfile::tempdir().unwrap();
    let history = home.path().join("data/diving/history");
    std::fs::create_dir_all(history.parent().unwrap()).unwrap();
    std::fs::write(&history, "#V2\nmoves\n").unwrap();
    // Held open, so that its inode is not freed and given to a later file of the same folder
    // (the history is now written at every line: issue 47).
    let original = std::fs::File::open(&history).unwrap();
    let inode = original.metadata().unwrap().ino();
    let mut p =
        start(&["--players", "alice,bot:random", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    p.exp_string("alice plays 10H").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("not quitting").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
    let kept = std::fs::read_to_string(&history).unwrap();
    assert!(kept.contains("moves") && kept.contains("play 10h"), "{kept}");
    assert_ne!(std::fs::metadata(&history).unwrap().ino(), inode, "the history was rewritten in place");
    assert_eq!(original.metadata().unwrap().len(), "#V2\nmoves\n".len() as u64, "the old file was changed");
    let leftovers: Vec<_> = std::fs::read_dir(history.parent().unwrap()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
}

/// Sets the pseudo-terminal's size, as a terminal window being resized does (the program
/// gets SIGWINCH).
fn resize(p: &PtySession, columns: u16, rows: u16) {
    use std::os::fd::AsRawFd;
    let master = p.process().get_file_handle().unwrap();
    let size = libc::winsize { ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCSWINSZ only reads the `winsize` it is given; `master` is an open descriptor
    // of the pseudo-terminal for the length of the call.
    assert_eq!(unsafe { libc::ioctl(master.as_raw_fd(), libc::TIOCSWINSZ, &size) }, 0);
}

/// The lines of a stretch of pseudo-terminal output, as they end up on the screen (the line
/// editor's carriage returns dropped).
fn screen_lines(text: &str) -> Vec<String> {
    text.split('\n').map(|l| l.rsplit('\r').find(|part| !part.is_empty()).unwrap_or("").to_string()).collect()
}

/// Issue 32: after a resize the next command was still laid out for the old width (the width
/// was read before the prompt, while the window changed during it).
#[test]
fn after_a_resize_the_next_command_is_laid_out_for_the_new_width() {
    let home = tempfile::tempdir().unwrap();
    let mut p =
        start(&["--players", "alice,bot:random", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    resize(&p, 120, 40);
    p.exp_string("alice> ").unwrap();
    p.send_line("state").unwrap();
    let wide = p.exp_string("alice> ").unwrap();
    // 120 columns: 20-cell depth bars.
    assert!(wide.contains("depth   0 ...................."), "{wide}");
    // The window shrinks while the prompt waits.
    resize(&p, 40, 20);
    p.send_line("state").unwrap();
    let narrow = p.exp_string("alice> ").unwrap();
    let board: Vec<String> = screen_lines(&narrow).into_iter().filter(|l| !l.contains("state")).collect();
    assert!(board.iter().any(|l| l.contains("1 alice")), "{narrow}");
    for line in &board {
        assert!(diving::table::render::display_width(line) <= 40, "{line:?} in:\n{narrow}");
    }
    assert!(!narrow.contains("....."), "no bars at 40 columns: {narrow}");
    // And back: the next command is wide again.
    resize(&p, 120, 40);
    p.send_line("state").unwrap();
    let again = p.exp_string("alice> ").unwrap();
    assert!(again.contains("depth   0 ...................."), "{again}");
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 32: `help rules` is longer than a 24-row screen: at a terminal it is shown a
/// screenful at a time, `-- more --` between; `q` stops there.
#[test]
fn help_rules_pages_at_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    let mut p =
        start(&["--players", "alice,bot:random", "--seed", "1", "--deck", "@scripts/short-game.deck"], home.path());
    resize(&p, 80, 24);
    p.exp_string("alice> ").unwrap();
    p.send_line("help rules").unwrap();
    let first = p.exp_string("-- more --").unwrap();
    assert!(first.contains("How to play"), "{first}");
    assert!(!first.contains("'state' shows the board"), "the whole text at once: {first}");
    p.send_line("").unwrap();
    p.exp_string("'state' shows the board").unwrap();
    p.exp_string("alice> ").unwrap();
    // Stopped at the first question: the rest is not shown.
    p.send_line("help rules").unwrap();
    p.exp_string("-- more --").unwrap();
    p.send_line("q").unwrap();
    let stopped = p.exp_string("alice> ").unwrap();
    assert!(!stopped.contains("'state' shows the board"), "{stopped}");
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 32: the replay viewer read lines raw (↑ printed `^[[A`, Ctrl-L `^L`) and cut its help
/// and errors mid-word. It edits lines as the shell does and lays its text out for the width.
#[test]
fn the_replay_viewer_edits_lines_and_fits_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let save = home.path().join("game.json");
    let moves: Vec<&str> = SHORT_GAME_MOVES.to_vec();
    let output = cli_support::diving()
        .args(["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"])
        .write_stdin(format!("{}\nsave {}\n", moves.join("\n"), save.display()))
        .output()
        .unwrap();
    assert!(output.status.success());
    let mut p = start(&["replay", save.to_str().unwrap()], home.path());
    resize(&p, 40, 20);
    p.exp_string("replay 0/13> ").unwrap();
    p.send_line("next").unwrap();
    p.exp_string("replay 1/13> ").unwrap();
    // ↑ brings back `next`; Enter runs it.
    p.send("\x1b[A").unwrap();
    p.send_line("").unwrap();
    let up = p.exp_string("replay 2/13> ").unwrap();
    assert!(!up.contains("^[[A") && !up.contains("[A"), "{up:?}");
    // Ctrl-L clears the screen and draws the prompt again; it is not typed into the line.
    p.send_control('l').unwrap();
    p.exp_string("replay 2/13> ").unwrap();
    p.send_line("board").unwrap();
    let board = p.exp_string("replay 2/13> ").unwrap();
    assert!(!board.contains("^L") && board.contains("turn 3"), "{board:?}");
    // Help and errors at 40 columns, cut at word boundaries.
    p.send_line("help").unwrap();
    let help = p.exp_string("replay 2/13> ").unwrap();
    p.send_line("goto 99").unwrap();
    let error = p.exp_string("replay 2/13> ").unwrap();
    assert!(error.contains("there is no turn 99"), "{error}");
    for text in [&help, &error] {
        for line in screen_lines(text) {
            assert!(diving::table::render::display_width(&line) <= 40, "{line:?} in:\n{text}");
        }
    }
    assert!(help.contains("branch"), "{help}");
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

/// The short game of `scripts/short-game.txt`: alice wins at move 13.
const SHORT_GAME_MOVES: [&str; 13] = [
    "play 10H",
    "play 2C",
    "play QH",
    "play 3C",
    "play 10C",
    "play KS",
    "play QD",
    "play 5D",
    "play 10D",
    "recover 6H 7H",
    "play QS",
    "play 8H",
    "play 9H",
];

/// Issue 32: the terminal echoes Ctrl-C as `^C` where the cursor is; while a bot thought,
/// the next line ran on from it (`^Cmcts plays …`). The shell starts a new line first. (The
/// pseudo-terminal echoes control characters, as a terminal does.)
#[test]
fn ctrl_c_while_a_bot_thinks_does_not_run_into_the_next_line() {
    let home = tempfile::tempdir().unwrap();
    // The terminal's echo is turned on (rexpect turns it off) before the program starts.
    let mut cmd = Command::new("sh");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["-c", "stty echo echoctl && exec \"$0\" \"$@\""])
        .arg(assert_cmd::cargo::cargo_bin!("diving"))
        .args(["--players", "alice,bot:mcts:20000", "--seed", "1", "--deck", "@scripts/short-game.deck"])
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env("LANG", "C")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"));
    let mut p =
        spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS)).strip_ansi_escape_codes(true)).unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("play 10h").unwrap();
    p.exp_string("alice plays 10H").unwrap();
    p.exp_string("alice draws 10D").unwrap();
    p.send_control('c').unwrap();
    let before = p.exp_string("(Ctrl-C: the game goes on").unwrap();
    let echoed = before.find("^C").expect("the terminal echoes Ctrl-C");
    let after = &before[echoed + 2..];
    assert!(after.starts_with('\n') || after.starts_with("\r\n"), "the next line runs on from ^C: {before:?}");
    p.exp_string("alice> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("quit now?").unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
}

/// Issue 47, item 4: in a hot-seat turn (on the alternate screen, which keeps no scrollback)
/// `log` showed only its last screenful. It pages through everything this seat may see, a
/// key at a time: space on, `b` back; and a line typed at `-- more --` is not swallowed: the
/// pager stops and the line goes on at the prompt.
#[test]
fn the_log_pages_back_and_forth_and_a_line_typed_at_more_goes_on_at_the_prompt() {
    let home = tempfile::tempdir().unwrap();
    // Ten moves of the short game, saved from a pipe; then taken up at the terminal.
    let save = home.path().join("ten.json");
    let moves = [
        "play 10H",
        "play 2C",
        "play QH",
        "play 3C",
        "play 10C",
        "play KS",
        "play QD",
        "play 5D",
        "play 10D",
        "recover 6H 7H",
    ];
    let script = format!("{}\nsave {}\n", moves.join("\n"), save.display());
    cli_support::diving()
        .args(["--players", "alice,bob", "--seed", "1", "--deck", "@scripts/short-game.deck"])
        .write_stdin(script)
        .assert()
        .success();
    let mut p = start(&["--load", save.to_str().unwrap()], home.path());
    resize(&p, 80, 12);
    p.exp_string("pass the terminal to alice").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("log").unwrap();
    let first = p.exp_string("-- more -- (11 of ").unwrap();
    assert!(first.contains("-- turn 1: alice --"), "{first}");
    p.send(" ").unwrap();
    p.flush().unwrap();
    let second = p.exp_string("-- more -- (22 of ").unwrap();
    assert!(!second.contains("-- turn 1: alice --"), "{second}");
    p.send("b").unwrap();
    p.flush().unwrap();
    let back = p.exp_string("-- more -- (11 of ").unwrap();
    assert!(back.contains("-- turn 1: alice --"), "{back}");
    // Every page is what alice may see: bob's draws are not named.
    for page in [&first, &second, &back] {
        assert!(page.contains("bob draws a card") || !page.contains("bob draws"), "{page}");
    }
    // Typing a command at `-- more --`: the pager stops, the typing is at the prompt.
    p.send("stat").unwrap();
    p.flush().unwrap();
    p.exp_string("alice> stat").unwrap();
    p.send_line("e").unwrap();
    p.exp_string("turn 11 - alice to play").unwrap();
    p.exp_string("alice> ").unwrap();
    // To the end with space: the last page, then the prompt.
    p.send_line("log").unwrap();
    for _ in 0..20 {
        match p.exp_any(vec![
            rexpect::ReadUntil::String("-- more --".into()),
            rexpect::ReadUntil::String("alice> ".into()),
        ]) {
            Ok((_, found)) if found == "alice> " => break,
            Ok(_) => {
                p.send(" ").unwrap();
                p.flush().unwrap();
            }
            Err(e) => panic!("{e}"),
        }
    }
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}
