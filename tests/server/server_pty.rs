//! `diving join` at a terminal (a pseudo-terminal) against a loopback server: the opening,
//! the board with this seat's hand only, Tab completing a command and a card from what the
//! server sent, a bot's move arriving while the prompt waits, local play's `moves` listing,
//! and leaving.
//!
//! Every step waits for the text it expects (generous timeouts, no sleeps).
#![cfg(unix)]

use crate::server_support;

use std::process::Command;

use diving::server::net::{Server, ServerConfig};
use diving::server::room::{Room, RoomOptions, new_token};
use diving::table::seating::read_deck;
use diving::table::session::Session;
use rexpect::session::{Options, PtySession, spawn_with_options};
use server_support::{Client, seating};

const TIMEOUT_MS: u64 = 60_000;

/// A server on loopback with one room: alice (a person) against a greedy bot, dealt from the
/// short game's stacked deck (alice holds 10H QH 10C QD; the table is AS 2D 3H 4D).
fn serve(runtime: &tokio::runtime::Runtime) -> (Server, String) {
    let deck = read_deck(&format!("@{}/scripts/short-game.deck", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let session = Session::new("standard", seating(&["alice", "bot:greedy"]), 1, Some(deck)).unwrap();
    let token = new_token();
    let room = Room::new("1", session, vec![Some(token.clone()), None], RoomOptions::default());
    let server = runtime.block_on(async { server_support::serve(vec![room], ServerConfig::default()).await });
    (server, token)
}

fn join(server: &Server, token: &str, extra: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("diving"));
    cmd.args(["join", &format!("{}/1", server.addr), "--seat", "1", "--token", token]).args(extra);
    cmd
}

fn start(cmd: Command) -> PtySession {
    let mut cmd = cmd;
    cmd.env("TERM", "xterm").env("NO_COLOR", "1").env("LANG", "C").env_remove("LC_ALL").env_remove("LC_CTYPE");
    spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS)).strip_ansi_escape_codes(true)).unwrap()
}

#[test]
fn a_remote_seat_plays_in_the_shell_with_completion_from_the_server() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let _guard = runtime.enter();
    let (server, token) = serve(&runtime);
    let mut p = start(join(&server, &token, &[]));
    p.exp_string("Diving Suits - alice vs greedy (bot)").unwrap();
    let board = p.exp_string("alice> ").unwrap();
    assert!(board.contains("turn 1 - alice to play"), "{board}");
    assert!(board.contains("alice's hand: 10H QH 10C QD"), "{board}");
    assert!(!board.contains("greedy's hand"), "the bot's hand is shown: {board}");
    assert!(!board.contains("2C 3C KS 5D"), "the bot's cards are shown: {board}");

    // Tab completes the command word, then a card: 3H is the only card in alice's hand or on
    // the table starting with 3 (the words come from the server's `screen`).
    p.send("pla\t").unwrap();
    p.flush().unwrap();
    p.exp_string("play ").unwrap();
    p.send("3\t").unwrap();
    p.flush().unwrap();
    p.exp_string("play 3H ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("alice plays 3H").unwrap();
    // The bot moves by itself, and the board comes round again.
    p.exp_string("greedy plays 10D from table slot 3").unwrap();
    let after = p.exp_string("alice's hand: 10H QH 10C QD").unwrap();
    assert!(after.contains("turn 3 - alice to play"), "{after}");
    assert!(!after.contains("greedy's hand"), "{after}");
    p.exp_string("alice> ").unwrap();

    // `moves` is local play's listing, with each move's outcome.
    p.send_line("moves").unwrap();
    p.exp_string("legal moves for alice:").unwrap();
    p.exp_string("->").unwrap();
    p.exp_string("alice> ").unwrap();
    // What is not available over the network says so.
    p.send_line("undo").unwrap();
    p.exp_string("error: 'undo' is not available in a network game").unwrap();
    p.exp_string("alice> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("you left the game").unwrap();
    p.exp_eof().unwrap();
    runtime.block_on(server.stop()).unwrap();
}

/// The prompt names the seat's player all through a game, its end and a rematch: the line
/// editor cannot redraw a prompt while a line is read, so one that said `game over` was still
/// showing it after the rematch had begun (issue 46).
#[test]
fn the_prompt_is_the_players_through_the_end_and_a_rematch() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let _guard = runtime.enter();
    let deck = read_deck(&format!("@{}/scripts/short-game.deck", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let session = Session::new("standard", seating(&["alice", "bob"]), 1, Some(deck)).unwrap();
    let token = new_token();
    let room = Room::new("1", session, vec![Some(token.clone()), Some(new_token())], RoomOptions::default());
    let server = runtime.block_on(async { server_support::serve(vec![room], ServerConfig::default()).await });
    let (mut bob, _) = runtime.block_on(Client::join(&server, "1", 1));
    let mut p = start(join(&server, &token, &[]));
    p.exp_string("alice> ").unwrap();

    // scripts/short-game.txt, alice at this terminal and bob over the protocol; each move
    // waits until alice's terminal has shown the one before it.
    let moves = [
        ("alice", "play 10H", "alice plays 10H"),
        ("bob", "play 2C", "bob plays 2C"),
        ("alice", "play QH", "alice plays QH"),
        ("bob", "play 3C", "bob plays 3C"),
        ("alice", "play 10C", "alice plays 10C"),
        ("bob", "play KS", "bob plays KS"),
        ("alice", "play QD", "alice plays QD"),
        ("bob", "play 5D", "bob plays 5D"),
        ("alice", "play 10D", "alice plays 10D"),
        ("bob", "recover 6H 7H", "bob recovers with 6H 7H"),
        ("alice", "play QS", "alice plays QS"),
        ("bob", "play 8H", "bob plays 8H"),
    ];
    let mut shown = String::new();
    for (who, line, told) in moves {
        match who {
            "alice" => {
                p.send_line(line).unwrap();
            }
            _ => runtime.block_on(bob.command(line)),
        }
        shown += &p.exp_string(told).unwrap();
    }
    p.send_line("play 9H").unwrap();
    shown += &p.exp_string("alice won in 13 turns").unwrap();
    shown += &p.exp_string("the game is over").unwrap();
    p.send_line("rematch").unwrap();
    shown += &p.exp_string("waiting for bob").unwrap();
    runtime.block_on(bob.command("rematch"));
    shown += &p.exp_string("a new game starts").unwrap();
    shown += &p.exp_string("Diving Suits - bob vs alice").unwrap();
    shown += &p.exp_string("alice's hand").unwrap();
    shown += &p.exp_string("alice> ").unwrap();
    // The new game (bob begins it, D4) is played at the same prompt.
    p.send_line("moves").unwrap();
    shown += &p.exp_string("no moves: it is bob's turn").unwrap();
    shown += &p.exp_string("alice> ").unwrap();
    assert!(!shown.contains("game over>"), "a prompt said the game was over:\n{shown}");
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
    runtime.block_on(server.stop()).unwrap();
}
