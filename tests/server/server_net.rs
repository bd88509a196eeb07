//! The server on loopback: a whole game of two people over the protocol and a bot seat,
//! the same as the same seed played locally; a seat dropped in the middle of a question and
//! back; a server stopped and resumed from its directory with the tokens still good; the away
//! bot on an injected clock; and each hostile client. Servers stop by themselves.

use crate::server_support;

use std::time::{Duration, Instant};

use diving::core::{Seat, View};
use diving::server::net::ServerConfig;
use diving::server::room::RoomOptions;
use diving::shell::front::{NoPrompter, Shell};
use diving::table::command::{self, Play};
use diving::table::render;
use diving::table::session::Session;
use diving::wire::{HostLimits as Limits, PROTOCOL};
use serde_json::{Value, json};
use server_support::*;
use tokio_tungstenite::tungstenite::Message;

const SEED: u64 = 424_242_424_242;

/// Plays a seat to the end: on its turn, asks for `moves` and plays the first.
async fn play_first_moves(mut c: Client, me: String) -> Client {
    let mut asked = false;
    let mut mine = false;
    loop {
        let Some(m) = c.recv().await else { panic!("{me}: the server closed") };
        let mut over = false;
        for l in lines(&m) {
            if l["event"] == "turn_started" {
                mine = l["player"] == me.as_str();
                asked = false;
            }
            over |= l["event"] == "won" || l["event"] == "draw";
            if let Some(moves) = l["moves"].as_array()
                && mine
            {
                let first = moves[0].as_str().unwrap().to_string();
                c.command(&first).await;
            }
            assert!(l.get("error").is_none(), "{me}: {l}");
        }
        if over {
            return c;
        }
        if mine && !asked {
            asked = true;
            c.command("moves").await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_over_the_protocol_is_the_game_played_locally() {
    let players = ["alice", "bob", "bot:greedy"];
    let server = serve(vec![room("1", &players, SEED, RoomOptions::default())], ServerConfig::default()).await;
    let (alice, hello) = Client::join(&server, "1", 0).await;
    assert_eq!(hello["player"], "alice");
    assert_eq!(hello["protocol"], PROTOCOL);
    assert!(hello["ruleset"]["hash"].as_str().unwrap().starts_with("fnv1a64:"));
    let (bob, _) = Client::join(&server, "1", 1).await;
    let alice = tokio::spawn(play_first_moves(alice, "alice".into()));
    let bob = tokio::spawn(play_first_moves(bob, "bob".into()));
    let (alice, bob) = (alice.await.unwrap(), bob.await.unwrap());
    let remote = server.with_room("1", |r| r.session().to_save()).unwrap();
    let remote_session = Session::from_save(remote.clone(), std::path::Path::new("remote"), None).unwrap();
    assert!(remote_session.game().winner().is_some() || remote_session.game().is_over());

    // The same seed at one terminal: the same people's commands through the local shell.
    let local = Session::new("standard", seating(&players), SEED, None).unwrap();
    let mut shell = Shell::script(local, Vec::new(), true);
    shell.start();
    let before = remote_session.games_before_moves().unwrap();
    for (e, before) in remote_session.entries().iter().zip(&before).filter(|(e, _)| e.seat != 2) {
        let line = render::command_for(before, &e.action);
        shell.line(&line, &mut NoPrompter);
    }
    assert_eq!(shell.session().to_save().actions, remote.actions, "the same moves");
    assert_eq!(shell.session().game(), remote_session.game(), "the same game");
    let local_lines: Vec<Value> =
        String::from_utf8(shell.out().clone()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Each client received exactly the local JSON Lines events, with others' draws hidden.
    for (seat, client) in [(0, &alice), (1, &bob)] {
        let name = ["alice", "bob"][seat];
        let expected: Vec<Value> = local_lines
            .iter()
            .filter(|l| l.get("event").is_some())
            .map(|l| {
                let mut l = l.clone();
                if l["event"] == "drew" && l["player"] != name {
                    l.as_object_mut().unwrap().remove("card");
                }
                l
            })
            .collect();
        let got: Vec<Value> = client
            .received
            .iter()
            .flat_map(|t| lines(&serde_json::from_str(t).unwrap()))
            .filter(|l| l.get("event").is_some())
            .collect();
        assert_eq!(got, expected, "{name}'s events");
        let sent: Vec<String> = remote_session
            .entries()
            .iter()
            .zip(&before)
            .filter(|(e, _)| e.seat == seat)
            .map(|(e, before)| render::command_for(before, &e.action))
            .collect();
        assert_no_leak(&remote_session, Some(seat), &client.received, &sent);
    }
    drop((alice, bob));
    server.stop().await.unwrap();
}

/// A game played to its end gets its whole save while the host still runs, so `diving replay`
/// or `--load` on the file sees every move without a `--resume` (the journal alone would hold
/// the last moves until the host stops).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_has_its_whole_save_before_the_host_stops() {
    let dir = tempfile::tempdir().unwrap();
    let r = room("1", &["alice", "bot:greedy"], SEED, RoomOptions::default());
    let config = ServerConfig { dir: Some(dir.path().to_path_buf()), ..ServerConfig::default() };
    let server = serve(vec![r], config).await;
    let (alice, _) = Client::join(&server, "1", 0).await;
    let alice = play_first_moves(alice, "alice".into()).await;
    server.sync().await;
    let played = server.with_room("1", |r| r.session().to_save()).unwrap();
    let saved = diving::table::save::read(&diving::server::export_path(dir.path(), "1", 1)).unwrap();
    assert_eq!(saved.actions, played.actions, "the save holds the whole game");
    assert_eq!(saved.steps, played.steps);
    drop(alice);
    server.stop().await.unwrap();
}

/// A seed whose first player can play a card that asks for a target among several players.
fn question_seed(players: &[&str]) -> (u64, String) {
    for seed in 1.. {
        let s = Session::new("standard", seating(players), seed, None).unwrap();
        let game = s.game();
        for card in game.player(game.current()).hand.iter() {
            if let Ok(Play::Ask { .. }) =
                command::play_action(game, *card, diving::table::parse::Place::Hand, None, false)
            {
                return (seed, format!("play {card}"));
            }
        }
    }
    unreachable!()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_dropped_in_a_question_gets_the_view_the_news_and_the_question_back() {
    let players = ["alice", "bob", "carol"];
    let (seed, play) = question_seed(&players);
    let server = serve(vec![room("1", &players, seed, RoomOptions::default())], ServerConfig::default()).await;
    let (mut alice, _) = Client::join(&server, "1", 0).await;
    alice.recv().await.unwrap();
    let (mut bob, _) = Client::join(&server, "1", 1).await;
    bob.recv().await.unwrap();
    alice.command(&play).await;
    let q = alice.until(|m| has(m, "question")).await;
    let question = lines(&q).into_iter().find(|l| l.get("question").is_some()).unwrap();
    let options = question["question"]["options"].as_array().unwrap().clone();
    assert!(options.len() >= 2, "{question}");
    let since = alice.seen();
    drop(alice);
    let away = bob.until(|m| has(m, "away")).await;
    assert_eq!(lines(&away)[0]["away"]["player"], "alice");
    // Back with the token and what it saw: the view, the news and the question.
    let (mut alice, _) = Client::rejoin(&server, "1", 0, since).await;
    let back = alice.recv().await.unwrap();
    let l = lines(&back);
    assert_eq!(l[0]["rejoined"]["player"], "alice");
    let state = l.iter().find_map(|l| l.get("state")).expect("the state");
    assert!(state["players"][0]["hand"].is_array());
    assert!(state["players"][1].get("hand").is_none());
    assert!(state.get("deck").is_none());
    assert_eq!(l.last().unwrap()["question"], question["question"]);
    assert!(has(&bob.until(|m| has(m, "back")).await, "back"));
    // The answer plays the card.
    let before = server.with_room("1", |r| r.session().entries().len()).unwrap();
    alice.command(options[1].as_str().unwrap()).await;
    alice.until(|m| lines(m).iter().any(|l| l["event"] == "played")).await;
    assert_eq!(server.with_room("1", |r| r.session().entries().len()).unwrap(), before + 1);
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_server_resumes_its_games_and_the_tokens_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let players = ["alice", "bot:greedy"];
    let r = room("1", &players, SEED, RoomOptions::default());
    let tokens = r.tokens().to_vec();
    let config = ServerConfig { dir: Some(dir.path().to_path_buf()), ..ServerConfig::default() };
    let server = serve(vec![r], config.clone()).await;
    let (alice, _) = Client::join(&server, "1", 0).await;
    // A few moves, then the server goes away.
    let mut alice = alice;
    for _ in 0..3 {
        alice.command("moves").await;
        let m = alice.until(|m| has(m, "moves")).await;
        let first = lines(&m)[0]["moves"][0].as_str().unwrap().to_string();
        alice.command(&first).await;
        alice.until(|m| lines(m).iter().any(|l| l["event"] == "turn_started")).await;
    }
    let game = server.with_room("1", |r| r.session().game().clone()).unwrap();
    assert_eq!(server.with_room("1", |r| r.session().entries().len()).unwrap() % 2, 0);
    server.stop().await.unwrap();
    assert!(alice.recv().await.is_none(), "the connection closes with the server");

    let rooms = resumed(dir.path());
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms[0].tokens(), &tokens[..]);
    assert_eq!(rooms[0].session().game(), &game, "the game intact");
    let server = serve(rooms, config).await;
    let (mut alice, _) = Client::join(&server, "1", 0).await;
    let back = alice.recv().await.unwrap();
    assert!(lines(&back).iter().any(|l| l.get("event").is_some()), "what happened, from the start");
    alice.command("moves").await;
    let m = alice.until(|m| has(m, "moves")).await;
    assert!(!lines(&m)[0]["moves"].as_array().unwrap().is_empty());
    server.stop().await.unwrap();
}

/// A host killed at any moment leaves its games in its database: every room made at
/// start-up is there before the first invite is used, and each move is there before anyone
/// is told of it. The copy taken right after the last answer (what a `kill -9` then leaves:
/// the database and its write-ahead log) resumes every room, tokens and moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_killed_after_an_answer_resumes_every_room_and_move_from_its_database() {
    let dir = tempfile::tempdir().unwrap();
    let rooms: Vec<_> =
        ["1", "2", "3"].iter().map(|id| room(id, &["alice", "bot:greedy"], SEED, RoomOptions::default())).collect();
    let tokens: Vec<Vec<Option<String>>> = rooms.iter().map(|r| r.tokens().to_vec()).collect();
    let config = ServerConfig { dir: Some(dir.path().to_path_buf()), ..ServerConfig::default() };
    let server = serve(rooms, config).await;
    let (mut alice, _) = Client::join(&server, "2", 0).await;
    for _ in 0..3 {
        alice.command("moves").await;
        let m = alice.until(|m| has(m, "moves")).await;
        let first = lines(&m)[0]["moves"][0].as_str().unwrap().to_string();
        alice.command(&first).await;
        alice.until(|m| lines(m).iter().any(|l| l["event"] == "turn_started")).await;
    }
    // Killed now, right after the answer: no `sync`, nothing flushed on purpose.
    let told = alice.seen() as usize;
    let crashed = tempfile::tempdir().unwrap();
    copy_dir(dir.path(), crashed.path());
    let moves = server.with_room("2", |r| r.session().entries().len()).unwrap();
    assert_eq!(told, moves);
    server.stop().await.unwrap();
    let back = resumed(crashed.path());
    let ids: Vec<&str> = back.iter().map(|r| r.id()).collect();
    assert_eq!(ids, ["1", "2", "3"]);
    for (room, tokens) in back.iter().zip(&tokens) {
        assert_eq!(room.tokens(), &tokens[..], "room {}", room.id());
        let expected = if room.id() == "2" { moves } else { 0 };
        assert_eq!(room.session().entries().len(), expected, "room {}", room.id());
    }
}

/// Copies the files of `from` into `to`.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// An older host's directory (saves, seat files, a journal: `tests/fixtures/old-host`, one
/// room saved in format 2 with its own step hashes, one in format 3) is taken into the
/// database at `--resume`, once, with the journal's moves; from then on the database is the
/// host's, and the old files are neither read nor changed. A last line cut short is lost
/// and said; any other damage is an error naming the file and line, as is a missing seat file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_of_an_older_host_is_imported_into_the_database_once() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/old-host");
    let old = |dir: &std::path::Path| {
        copy_dir(&fixture, dir);
        std::fs::remove_file(dir.join("README.md")).unwrap();
    };
    // What each room holds: its save's moves, then the journal's.
    let expected = |room: &str, lost: usize| -> Session {
        let path = fixture.join(format!("{room}.save.json"));
        let mut session = Session::from_save(diving::table::save::read(&path).unwrap(), &path, None).unwrap();
        let journal = std::fs::read_to_string(fixture.join("journal-000001.jsonl")).unwrap();
        let lines: Vec<Value> =
            journal.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|l| l["room"] == room).collect();
        for line in &lines[..lines.len() - lost] {
            let action: diving::table::save::ActionJson = serde_json::from_value(line.clone()).unwrap();
            session.apply(action.into()).unwrap();
        }
        session
    };

    let dir = tempfile::tempdir().unwrap();
    old(dir.path());
    let journal = dir.path().join("journal-000001.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    // A damaged line before the last is an error that names it, and nothing is taken in.
    let mut damaged: Vec<&str> = text.lines().collect();
    damaged[1] = "{\"room\":\"1\",\"mo";
    std::fs::write(&journal, damaged.join("\n") + "\n").unwrap();
    let error = diving::server::resume(dir.path(), &RoomOptions::default()).err().unwrap().to_string();
    assert!(error.contains("journal-000001.jsonl line 2") && error.contains("damaged"), "{error}");
    // A save whose seat file is gone names that file.
    std::fs::write(&journal, &text).unwrap();
    let seats = dir.path().join("1.seats.json");
    let kept = std::fs::read(&seats).unwrap();
    std::fs::remove_file(&seats).unwrap();
    let error = diving::server::resume(dir.path(), &RoomOptions::default()).err().unwrap().to_string();
    assert!(error.contains("has no 1.seats.json") && error.contains("room 1"), "{error}");
    std::fs::write(&seats, kept).unwrap();

    // The last line cut in half: its move (room 2's last) is lost, every one before it is back.
    std::fs::write(&journal, &text[..text.len() - 20]).unwrap();
    let before: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "jsonl"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    // Every move taken in, in order (room 1's bot then moves, as a resumed room's bots do).
    let taken_in = |room: &diving::server::room::Room, lost: usize| {
        let want: Vec<_> = expected(room.id(), lost).entries().iter().map(|e| e.action).collect();
        assert_eq!(want.len(), 4 + 5 - lost, "room {}", room.id());
        let got: Vec<_> = room.session().entries().iter().map(|e| e.action).take(want.len()).collect();
        assert_eq!(got, want, "room {}", room.id());
    };
    let rooms = resumed(dir.path());
    assert_eq!(rooms.len(), 2);
    for (room, lost) in rooms.iter().zip([0, 1]) {
        taken_in(room, lost);
    }
    for (path, bytes) in &before {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "{path} is left as it was");
    }
    // Its tokens still open its seats, and its games play on: room 2's next mover moves.
    let next = expected("2", 1);
    let (mover, action) = (next.game().current(), View::new(next.game(), next.game().current()).legal_actions()[0]);
    let config = ServerConfig { dir: Some(dir.path().to_path_buf()), ..ServerConfig::default() };
    let server = serve(rooms, config).await;
    let (mut alice, hello) = Client::join(&server, "1", 0).await;
    assert_eq!(hello["player"], "alice");
    let (mut seat, _) = Client::join(&server, "2", mover).await;
    seat.command(&render::command_for(next.game(), &action)).await;
    seat.until(|m| m["type"] == "output" && m["at"].as_u64() == Some(4 + 5)).await;
    alice.command("state").await;
    server.stop().await.unwrap();

    // Taken in once: the database is the host's now, the old files are not read again.
    for (path, _) in &before {
        std::fs::remove_file(path).unwrap();
    }
    let again = resumed(dir.path());
    assert_eq!(again.len(), 2);
    for (room, lost) in again.iter().zip([0, 1]) {
        taken_in(room, lost);
    }
    assert_eq!(again[1].session().entries().get(4 + 5 - 1).map(|e| e.action), Some(action), "the move played on");
}

/// Issue 33: a move the away bot made was narrated as the player's own ("alice plays 7H").
/// The other reader is told it was the stand-in bot, and so is the player in the catch-up
/// on their return; the moves people make are told as before.
#[test]
fn moves_the_away_bot_made_are_told_as_the_stand_in_bots() {
    let options =
        RoomOptions { away_bot: Some("greedy".into()), away_after: Duration::from_secs(60), ..RoomOptions::default() };
    let mut room = room("1", &["alice", "bob"], SEED, options);
    let t0 = Instant::now();
    let join = |seat: usize, room: &diving::server::room::Room, since: Option<usize>| {
        let mut m = json!({"type": "join", "protocol": PROTOCOL, "seat": seat + 1, "token": room.tokens()[seat].clone().unwrap()});
        if let Some(since) = since {
            m["since"] = json!(since);
        }
        m.to_string()
    };
    let first: Seat = room.session().game().current();
    let other = 1 - first;
    let name = room.session().game().name(first).to_string();
    room.receive(1, &join(first, &room, None), t0);
    room.receive(2, &join(other, &room, None), t0);
    room.leave(1, t0);
    let out = room.tick(t0 + Duration::from_secs(60));
    assert!(room.session().by_stand_in(0), "the bot moved for the absent seat");
    let stand_in = format!("{name}'s stand-in bot ");
    let told: Vec<String> = out
        .texts()
        .into_iter()
        .filter(|(to, t)| *to == 2 && t.contains(r#""type":"output""#))
        .map(|(_, t)| t)
        .collect();
    assert!(told.iter().any(|t| t.contains(&stand_in)), "{told:?}");
    for own in [format!("{name} plays"), format!("{name} recovers")] {
        assert!(!told.iter().any(|t| t.contains(&own)), "{own}: {told:?}");
    }
    // The other seat moves itself: told as its own (and the bot moves again for the away one).
    let game = room.session().game();
    let other_name = game.name(other).to_string();
    let action = View::new(game, other).legal_actions()[0];
    let line = render::command_for(game, &action);
    let out = room.receive(2, &json!({"type": "command", "line": line}).to_string(), t0 + Duration::from_secs(61));
    let mine: String = out.texts().iter().map(|(_, t)| t.as_str()).collect();
    assert!(!mine.contains(&format!("{other_name}'s stand-in")), "{mine}");
    assert!(mine.contains(&format!(r#""text":["{other_name} "#)), "{mine}");
    // Back, having seen nothing since it left: its catch-up tells the bot's move as the bot's.
    let out = room.receive(3, &join(first, &room, Some(0)), t0 + Duration::from_secs(62));
    let back: String = out.texts().iter().filter(|(to, _)| *to == 3).map(|(_, t)| t.as_str()).collect();
    assert!(back.contains(&stand_in), "{back}");
    assert!(back.contains(r#""missed":"#), "{back}");
}

#[test]
fn the_away_bot_plays_for_an_absent_seat_after_the_timeout_until_it_returns() {
    let options =
        RoomOptions { away_bot: Some("greedy".into()), away_after: Duration::from_secs(60), ..RoomOptions::default() };
    let mut room = room("1", &["alice", "bob"], SEED, options);
    let t0 = Instant::now();
    let join = |seat: usize, room: &diving::server::room::Room| {
        json!({"type": "join", "protocol": PROTOCOL, "seat": seat + 1, "token": room.tokens()[seat].clone().unwrap()})
            .to_string()
    };
    let first: Seat = room.session().game().current();
    let other = 1 - first;
    room.receive(1, &join(first, &room), t0);
    room.receive(2, &join(other, &room), t0);
    let out = room.leave(1, t0);
    assert!(out.texts().iter().any(|(to, t)| *to == 2 && t.contains(r#""away":"#)));
    assert!(room.tick(t0 + Duration::from_secs(59)).sent.is_empty(), "not yet");
    assert_eq!(room.session().entries().len(), 0);
    let out = room.tick(t0 + Duration::from_secs(60));
    assert!(out.texts().iter().any(|(_, t)| t.contains("away_bot")));
    assert!(out.changed);
    assert!(!room.session().entries().is_empty(), "the bot moved for the absent seat");
    assert_ne!(room.session().game().current(), first);
    // Back: the bot stops; the seat's turn waits for its player again.
    room.receive(3, &join(first, &room), t0 + Duration::from_secs(61));
    let moves = room.session().entries().len();
    let game = room.session().game();
    let action = View::new(game, other).legal_actions()[0];
    let line = render::command_for(game, &action);
    room.receive(2, &json!({"type": "command", "line": line}).to_string(), t0 + Duration::from_secs(62));
    if !room.is_over() && room.session().game().current() == first {
        room.tick(t0 + Duration::from_secs(600));
        assert_eq!(room.session().entries().len(), moves + 1, "no bot move for a seat that is back");
    }
}

#[test]
fn a_host_may_allow_hints_for_the_seat_to_move_only() {
    let options = RoomOptions { allow_hints: true, ..RoomOptions::default() };
    let mut room = room("1", &["alice", "bob"], SEED, options);
    let t0 = Instant::now();
    let join = |seat: usize, room: &diving::server::room::Room| {
        json!({"type": "join", "protocol": PROTOCOL, "seat": seat + 1, "token": room.tokens()[seat].clone().unwrap()})
            .to_string()
    };
    let first: Seat = room.session().game().current();
    room.receive(1, &join(first, &room), t0);
    room.receive(2, &join(1 - first, &room), t0);
    let command = |line: &str| json!({"type": "command", "line": line}).to_string();
    let out = room.receive(1, &command("hint"), t0);
    assert!(out.texts().iter().any(|(to, t)| *to == 1 && t.contains("estimated win chance")), "{:?}", out.sent);
    assert!(out.sent.iter().all(|(to, _)| *to == 1), "the hint goes to its seat only");
    let out = room.receive(2, &command("hint"), t0);
    assert!(out.texts().iter().any(|(to, t)| *to == 2 && t.contains("no hint: it is")), "{:?}", out.sent);
    let out = room.receive(1, &command("review"), t0);
    assert!(out.texts().iter().any(|(_, t)| t.contains("review is for a finished game")), "{:?}", out.sent);
    assert!(room.session().entries().is_empty(), "asking changes nothing");
}

fn error_code(m: &Value) -> Option<&str> {
    (m["type"] == "error").then(|| m["code"].as_str().unwrap())
}

fn command_error(m: &Value) -> Option<String> {
    lines(m).iter().find_map(|l| l["error"].as_str().map(String::from))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_clients_get_clear_errors_and_the_game_goes_on() {
    // No refill (`per_second: 0`): how many messages pass must not depend on how fast this
    // machine sends them, or a slow run lets a token back in and resets the strikes.
    let limits = Limits { connections: 8, burst: 10, per_second: 0, max_strikes: 30, ..Limits::default() };
    let options = RoomOptions { limits, ..RoomOptions::default() };
    let players = ["alice", "bob"];
    let config = ServerConfig { limits, ..ServerConfig::default() };
    let server = serve(vec![room("1", &players, SEED, options)], config).await;
    // No such room (asked first: a connection holds one of the 8 until the server has seen it
    // close, so after the limit is reached below, a new one may still be refused for a moment).
    let mut nowhere = tokio_tungstenite::connect_async(format!("ws://{}/nope", server.addr)).await;
    assert!(nowhere.as_mut().unwrap_err().to_string().contains("404"));
    let current = server.with_room("1", |r| r.session().game().current()).unwrap();
    let (mut mover, _) = Client::join(&server, "1", current).await;
    mover.recv().await.unwrap();
    let (mut other, _) = Client::join(&server, "1", 1 - current).await;
    other.recv().await.unwrap();

    // Not joined, malformed, wrong type, binary.
    let mut stranger = Client::connect(&server, "1").await;
    stranger.command("moves").await;
    assert_eq!(error_code(&stranger.recv().await.unwrap()), Some("not_joined"));
    stranger.send_raw(Message::text("{not json")).await.unwrap();
    assert_eq!(error_code(&stranger.recv().await.unwrap()), Some("malformed"));
    stranger.send(json!({"type": "teleport"})).await;
    assert!(stranger.recv().await.unwrap()["message"].as_str().unwrap().contains("unknown message type"));
    stranger.send_raw(Message::binary(vec![0u8, 1, 2])).await.unwrap();
    assert_eq!(error_code(&stranger.recv().await.unwrap()), Some("malformed"));
    // Oversized: refused; far past the hard limit: dropped.
    stranger.command(&"x".repeat(5000)).await;
    assert_eq!(error_code(&stranger.recv().await.unwrap()), Some("too_big"));
    // A wrong token, a bot's or missing seat, another protocol: refused and closed.
    for (seat, token, protocol, code) in
        [(1, "0".repeat(32), PROTOCOL, "token"), (9, "x".into(), PROTOCOL, "seat"), (1, "x".into(), 99, "protocol")]
    {
        let mut c = Client::connect(&server, "1").await;
        c.send(json!({"type": "join", "protocol": protocol, "seat": seat, "token": token})).await;
        let m = c.recv().await.unwrap();
        assert_eq!(error_code(&m), Some(code), "{m}");
        assert!(c.recv().await.is_none(), "closed after {code}");
    }
    let mut c = Client::connect(&server, "1").await;
    let wrong = json!({"name": "house", "hash": "fnv1a64:0"});
    c.send(json!({"type": "watch", "protocol": PROTOCOL, "ruleset": wrong})).await;
    let m = c.recv().await.unwrap();
    assert_eq!(error_code(&m), Some("ruleset"));
    assert!(m["message"].as_str().unwrap().contains("plays ruleset 'standard'"), "{m}");
    let mut huge = Client::connect(&server, "1").await;
    let _ = huge.send_raw(Message::text("y".repeat(100_000))).await;
    let m = huge.recv().await.unwrap();
    assert_eq!(error_code(&m), Some("too_big"), "{m}");
    assert!(huge.recv().await.is_none(), "dropped");

    // Out of turn, and for another seat.
    other.command("pass").await;
    assert!(command_error(&other.recv().await.unwrap()).unwrap().contains("turn, not yours"));
    other.send(json!({"type": "command", "line": "moves", "seat": current + 1})).await;
    assert!(command_error(&other.recv().await.unwrap()).unwrap().contains("not seat"));
    other.command("undo").await;
    assert!(command_error(&other.recv().await.unwrap()).unwrap().contains("not available in a network game"));
    // Hints would be a bot playing for the seat: refused unless the host allows them.
    for word in ["hint", "review"] {
        mover.command(word).await;
        assert!(
            command_error(&mover.recv().await.unwrap())
                .unwrap()
                .contains("hints and reviews are off in this network game")
        );
    }

    // Chat: escape sequences (whole) and control characters removed, length limited.
    other.send(json!({"type": "say", "text": "hi\u{1b}[2J\u{7} all"})).await;
    let m = mover.until(|m| has(m, "chat")).await;
    assert_eq!(lines(&m)[0]["chat"]["text"], "hi all");
    other.command(&format!("say {}", "z".repeat(300))).await;
    let m = other.until(|m| command_error(m).is_some()).await;
    assert!(command_error(&m).unwrap().contains("at most 200"));

    // A flood: refused past the rate, then dropped.
    // Exactly the burst and then the strikes that drop it: a message sent after the drop would
    // lie unread when the server closes, and the kernel would answer with a reset that throws
    // away the replies still on their way.
    let mut flood = Client::connect(&server, "1").await;
    for _ in 0..10 + 30 {
        if flood.send_raw(Message::text(r#"{"type":"command","line":"state"}"#)).await.is_err() {
            break;
        }
    }
    let mut codes = Vec::new();
    while let Some(m) = flood.recv().await {
        codes.push(error_code(&m).unwrap_or("").to_string());
    }
    assert!(codes.iter().any(|c| c == "rate"), "{codes:?}");
    assert!(codes.iter().any(|c| c == "dropped"), "{codes:?}");

    // Too many connections: the server refuses the upgrade.
    let mut held = Vec::new();
    let mut refused = false;
    for _ in 0..10 {
        match tokio_tungstenite::connect_async(format!("ws://{}/1", server.addr)).await {
            Ok((ws, _)) => held.push(ws),
            Err(e) => {
                assert!(e.to_string().contains("503"), "{e}");
                refused = true;
                break;
            }
        }
    }
    assert!(refused, "connections past the limit are refused");
    drop(held);

    // Through all of it the game went on for the players.
    mover.command("moves").await;
    let m = mover.until(|m| has(m, "moves")).await;
    let first = lines(&m)[0]["moves"][0].as_str().unwrap().to_string();
    mover.command(&first).await;
    let m = other.until(|m| lines(m).iter().any(|l| l["event"] == "turn_started")).await;
    assert!(lines(&m).iter().all(|l| l.get("error").is_none()));
    assert_eq!(server.with_room("1", |r| r.session().entries().len()).unwrap(), 1);
    server.stop().await.unwrap();
}

// Protocol 2: a terminal's screen, and version 1 clients still served.

fn two_people() -> diving::server::room::Room {
    let seating = ["alice", "bob"].map(|n| diving::table::session::Seating { name: n.into(), bot: None }).to_vec();
    let session = Session::new("standard", seating, 7, None).unwrap();
    let tokens = vec![Some("a".repeat(32)), Some("b".repeat(32))];
    diving::server::room::Room::new("1", session, tokens, RoomOptions::default())
}

fn join_room(room: &mut diving::server::room::Room, conn: u64, seat: usize, version: u32, display: bool) -> Vec<Value> {
    let display = display.then(|| json!({"color": false, "unicode": false, "width": 80}));
    let token = room.tokens()[seat - 1].clone().unwrap();
    let hello = json!({"type": "join", "protocol": version, "seat": seat, "token": token, "display": display});
    let out = room.receive(conn, &hello.to_string(), Instant::now());
    out.texts().iter().filter(|(c, _)| *c == conn).map(|(_, t)| serde_json::from_str(t).unwrap()).collect()
}

/// What a terminal completes and shows, for one reader: its own legal plays and hand, the
/// board as it may see it. A terminal of versions 3 to 5 is sent it as a `screen`; one of
/// version 6 finds it in the view each change pushes.
#[test]
fn a_terminal_room_reader_is_sent_what_it_completes_with_its_own_legal_plays() {
    for version in [diving::wire::LOBBY_SINCE, PROTOCOL] {
        let mut room = two_people();
        let current = room.session().game().current();
        // What a terminal reader is told of the game: a screen, or the view in an output.
        let told = |received: &[Value]| -> Value {
            if version < diving::wire::VIEW_SINCE {
                received.iter().find(|m| m["type"] == "screen").expect("a screen").clone()
            } else {
                assert!(received.iter().all(|m| m["type"] != "screen"), "v{version}: no screen");
                received.iter().find_map(|m| m.get("view").cloned()).expect("a view")
            }
        };
        let received = join_room(&mut room, 1, current + 1, version, true);
        let screen = told(&received);
        let game = room.session().game();
        let listed: Vec<String> = View::new(game, current)
            .legal_actions()
            .iter()
            .filter(|a| matches!(a, diving::core::Action::Play { .. }))
            .map(|a| render::command_for(game, a))
            .collect();
        assert!(!listed.is_empty());
        assert_eq!(screen["completion"]["plays"], json!(listed), "v{version}");
        let hand: Vec<String> = game.player(current).hand.iter().map(ToString::to_string).collect();
        assert_eq!(screen["completion"]["hand"], json!(hand));
        assert_eq!(screen["current"], json!(game.name(current)));
        // The other seat, not to move, completes no plays, and sees only its own hand.
        let other = 1 - current;
        let received = join_room(&mut room, 2, other + 1, version, true);
        let screen = told(&received);
        assert_eq!(screen["completion"]["plays"], json!([]));
        let board = screen["board"].as_str().unwrap();
        let game = room.session().game();
        assert!(board.contains(&format!("{}'s hand", game.name(other))), "{board}");
        assert!(!board.contains(&format!("{}'s hand", game.name(current))), "{board}");
    }
}

#[test]
fn a_version_1_client_is_served_as_before_and_an_unknown_version_is_refused() {
    let mut room = two_people();
    let received = join_room(&mut room, 1, 1, 1, false);
    assert_eq!(received[0]["protocol"], 1);
    assert!(received.iter().all(|m| m["type"] != "screen"));
    let received = join_room(&mut room, 2, 2, PROTOCOL + 1, false);
    assert_eq!(received[0]["code"], "protocol");
}

/// `diving join` gets back in by itself when the server goes away and comes back on the same
/// address from its directory (`--resume`), with the seat's token, and plays on.
#[test]
fn a_joined_seat_gets_back_in_by_itself_when_the_server_comes_back() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let r = room("1", &["alice", "bot:greedy"], SEED, RoomOptions::default());
    let token = r.tokens()[0].clone().unwrap();
    let config = ServerConfig { dir: Some(dir.path().to_path_buf()), ..ServerConfig::default() };
    let server = runtime.block_on(serve(vec![r], config.clone()));
    let addr = server.addr;

    let mut join = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .args(["join", &format!("{addr}/1"), "--seat", "1", "--token", &token])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = join.stdin.take().unwrap();
    let mut out = BufReader::new(join.stdout.take().unwrap()).lines().map(Result::unwrap);
    let mut until = |what: &str| {
        let mut seen = Vec::new();
        for line in out.by_ref() {
            let found = line.contains(what);
            seen.push(line);
            if found {
                return seen;
            }
        }
        panic!("the client ended before {what:?}: {seen:#?}");
    };
    until("-- turn 1: alice --");

    // The server stops (its game saved), then comes back from its directory on the same port.
    runtime.block_on(server.stop()).unwrap();
    until("getting back in");
    let listener = runtime.block_on(tokio::net::TcpListener::bind(addr)).unwrap();
    let rooms = resumed(dir.path());
    let server = runtime.block_on(async { diving::server::net::Server::start(listener, rooms, config) }).unwrap();
    until("(back in the game)");

    // It said what it saw: it is told it missed nothing, and nothing is printed again.
    writeln!(stdin, "moves").unwrap();
    let back = until("legal moves for alice");
    assert!(back.iter().any(|l| l == "welcome back, alice: nothing was played while you were away"), "{back:#?}");
    assert!(!back.iter().any(|l| l.contains("-- turn 1")), "printed again: {back:#?}");
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    assert!(join.wait().unwrap().success());
    runtime.block_on(server.stop()).unwrap();
}

/// `diving join` from a pipe leaves once its input ends, after printing the answers to its
/// lines (it waited for the game's end), and a `quit` line comes after the answers before it
/// (with `--json` the `moves` answer was never printed).
#[test]
fn a_piped_join_prints_every_answer_and_leaves_when_its_input_ends() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let r = room("1", &["alice", "bot:greedy"], SEED, RoomOptions::default());
    let token = r.tokens()[0].clone().unwrap();
    let server = runtime.block_on(serve(vec![r], ServerConfig::default()));
    let addr = server.addr;
    let run = |input: &'static str, json: bool| {
        let mut args = vec!["join".to_string(), format!("{addr}/1"), "--seat".into(), "1".into(), "--token".into()];
        args.push(token.clone());
        if json {
            args.push("--json".into());
        }
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let pid = child.id();
        std::thread::spawn(move || tx.send(child.wait_with_output()));
        match rx.recv_timeout(WAIT) {
            Ok(out) => out.unwrap(),
            Err(_) => {
                let _ = Command::new("kill").arg(pid.to_string()).status();
                panic!("diving join is still running {}s after its input {input:?} ended", WAIT.as_secs());
            }
        }
    };
    let out = run("state\n", false);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("alice's hand:") || stdout.contains("hand"), "the state is printed: {stdout}");

    let out = run("moves\nquit\n", true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let moves: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l.get("moves").is_some())
        .collect();
    assert_eq!(moves.len(), 1, "the moves answer, once: {stdout}");
    assert!(!moves[0]["moves"].as_array().unwrap().is_empty(), "{stdout}");
    assert!(stdout.contains(r#"{"bye":true}"#), "{stdout}");

    // A script far faster than the host's rate (20 a second after a burst of 40): `diving
    // join` keeps to the rate itself, so every line is answered and none refused.
    let many: &'static str = Box::leak("moves\n".repeat(70).into_boxed_str());
    let out = run(many, true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(!stdout.contains("too many messages"), "a line was refused for its rate: {stdout}");
    let answered = stdout.lines().filter(|l| l.starts_with(r#"{"moves":"#)).count();
    assert_eq!(answered, 70, "{stdout}");
    runtime.block_on(server.stop()).unwrap();
}

/// `diving join` to a room the server does not hold says so in the server's words (it said
/// "HTTP error: 404 Not Found"), and a refused connection is said once.
#[test]
fn joining_a_room_that_is_not_there_names_it() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let r = room("1", &["alice", "bot:greedy"], SEED, RoomOptions::default());
    let server = runtime.block_on(serve(vec![r], ServerConfig::default()));
    let addr = server.addr;
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .args(["join", &format!("{addr}/9"), "--seat", "1", "--token", "x"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot join ws://") && stderr.contains(": there is no room '9' on this server"),
        "{stderr}"
    );
    runtime.block_on(server.stop()).unwrap();

    // Nothing listens there now.
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .args(["join", &format!("{addr}/1"), "--seat", "1", "--token", "x"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("refused").count(), 1, "{stderr}");
}

/// A hostile host can colour what `diving join` prints, and do nothing else to the joining
/// player's terminal: no clearing the screen, no moving the cursor, no new window title.
#[test]
fn a_hostile_host_cannot_drive_the_joining_terminal() {
    use futures_util::{SinkExt, StreamExt};
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let host = runtime.spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
        let hello = json!({
            "type": "hello", "protocol": PROTOCOL, "room": "1\x1b[2J", "seat": 1, "player": "alice",
            "players": ["alice", "\x1b]0;pwned\x07bob"], "bots": [null, null],
            "ruleset": { "name": "standard", "hash": "0" },
            "limits": { "max_message": 4096, "per_second": 20, "burst": 40, "spectators": 16,
                        "connections": 4096, "per_address": 64, "chat": 200 },
        });
        let output = json!({
            "type": "output",
            "at": 1,
            "text": ["\x1b[1mbold\x1b[0m \x1b[Hhome \x1b[31;1mred\x1b[0m\r\u{202e}"],
            "json": [{ "event": "won", "player": "alice" }],
        });
        for message in [hello, output] {
            ws.send(Message::text(message.to_string())).await.unwrap();
        }
        // Read what the client sends until it leaves: closing with its `join` unread would
        // reset the connection, and a reset can overtake what was sent.
        let _ = tokio::time::timeout(Duration::from_secs(30), async { while ws.next().await.is_some() {} }).await;
    });
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .args(["join", &format!("{addr}/1"), "--seat", "1", "--token", "x"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    runtime.block_on(host).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The colours stay; everything else a terminal would act on is written out.
    assert!(stdout.contains("\x1b[1mbold\x1b[0m") && stdout.contains("\x1b[31;1mred\x1b[0m"), "{stdout:?}");
    let without_colours = stdout.replace("\x1b[1m", "").replace("\x1b[0m", "").replace("\x1b[31;1m", "");
    assert!(!without_colours.contains(['\x1b', '\x07', '\r', '\u{202e}']), "{stdout:?}");
    assert!(stdout.contains("\\u{1b}[Hhome") && stdout.contains("\\u{1b}]0;pwned\\u{7}bob"), "{stdout:?}");
}

/// Every connection counts toward the limit, finished request or not, and one that does not
/// send its whole request in time is closed: connections that sent half a request used to
/// stay open for ever, outside the limit, until the host ran out of file descriptors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_count_toward_the_limit_and_are_closed_in_time() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let limits = Limits { connections: 3, request_within_secs: 1, ..Limits::default() };
    let options = RoomOptions { limits, ..RoomOptions::default() };
    let config = ServerConfig { limits, ..ServerConfig::default() };
    let server = serve(vec![room("1", &["alice", "bob"], SEED, options)], config).await;
    let mut half = Vec::new();
    for _ in 0..3 {
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        stream.write_all(b"GET /1 HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        half.push(stream);
    }
    // The server takes connections in order: these three fill it.
    let refused = tokio_tungstenite::connect_async(format!("ws://{}/1", server.addr)).await.unwrap_err();
    assert!(refused.to_string().contains("503"), "{refused}");
    for mut stream in half {
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "a half-sent request is closed after its second");
    }
    // The players get in.
    let (mut alice, _) = Client::join(&server, "1", 0).await;
    assert!(alice.recv().await.is_some());
    server.stop().await.unwrap();
}

/// `help` in a network game lists what the room takes: `say`, in the list; not the commands
/// it refuses (`undo`, `save`, `reload`, `again`; `hint` and `review` unless allowed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_in_a_network_game_lists_what_the_room_takes() {
    for allow_hints in [false, true] {
        let options = RoomOptions { allow_hints, ..RoomOptions::default() };
        let server = serve(vec![room("1", &["alice", "bob"], SEED, options)], ServerConfig::default()).await;
        let (mut alice, _) = Client::join(&server, "1", 0).await;
        alice.command("help").await;
        let m = alice.until(|m| has(m, "help")).await;
        let text = lines(&m)[0]["help"].as_str().unwrap().to_string();
        let words: Vec<&str> =
            text.lines().filter_map(|l| l.strip_prefix("  ")).filter_map(|l| l.split_whitespace().next()).collect();
        for word in ["play", "recover", "moves", "state", "log", "say", "help", "quit"] {
            assert!(words.contains(&word), "{word} missing: {text}");
        }
        for word in ["undo", "save", "reload", "again"] {
            assert!(!words.contains(&word), "{word} listed: {text}");
        }
        assert_eq!(words.contains(&"hint"), allow_hints, "{text}");
        assert!(words.iter().position(|w| *w == "say") < words.iter().position(|w| *w == "quit"), "{text}");
        assert!(text.trim_end().ends_with("'help J' a card."), "the list ends with the footer: {text}");
        alice.command("help undo").await;
        let m = alice.until(|m| has(m, "help")).await;
        assert!(lines(&m)[0]["help"].as_str().unwrap().contains("'undo' is not available in this network game"));
        alice.command("help say").await;
        let m = alice.until(|m| has(m, "help")).await;
        assert!(lines(&m)[0]["help"].as_str().unwrap().contains("chat to the table"));
        server.stop().await.unwrap();
    }
}

/// A finished game stays viewable after its last reader leaves (a reload of the page of a
/// game with one person and bots stopped the host): the server goes on for its `stay`, and a
/// reader that comes back is sent the whole game, its result included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_stays_viewable_after_everyone_leaves() {
    let r = room("1", &["bot:greedy", "bot:random"], SEED, RoomOptions::default());
    assert!(r.is_over(), "two bots play the whole game when the room is made");
    let config = ServerConfig { stop_when_done: true, stay: Duration::from_secs(3600), ..ServerConfig::default() };
    let server = serve(vec![r], config).await;
    for visit in 0..3 {
        let mut c = Client::connect(&server, "1").await;
        c.send(json!({"type": "watch", "protocol": PROTOCOL})).await;
        assert_eq!(c.recv().await.expect("the host still serves")["type"], "hello", "visit {visit}");
        let history = c.recv().await.unwrap();
        assert!(
            lines(&history).iter().any(|l| l["event"] == "won" || l["event"] == "draw"),
            "visit {visit}: {history}"
        );
        drop(c);
        // The server has seen the reader go (a wait for that, not a timing assertion).
        let deadline = Instant::now() + WAIT;
        while server.connections() > 0 {
            assert!(Instant::now() < deadline, "the reader's leave was seen");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    server.stop().await.unwrap();
}
