//! The real `diving host` killed with SIGKILL between moves, again and again: after each
//! kill, `--resume` brings back every move a client was answered (the host commits a move
//! before it tells anyone of it), the tokens still work, and a game answered as won is in the
//! ratings. The kills come right after an answer arrives, when the host has nothing more to
//! do: nothing is flushed on purpose, and a host that answered first and wrote after would
//! lose the move.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use diving::server::db::Db;
use diving::wire::PROTOCOL;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::server_support::WAIT;

/// A host that is killed when dropped.
struct Host {
    child: Child,
    addr: String,
    token: String,
}

impl Host {
    /// `diving host --json --port 0 ARGS`, once it has printed its room.
    fn start(args: &[&str]) -> Host {
        let mut child = Command::new(env!("CARGO_BIN_EXE_diving"))
            .args(["host", "--json", "--bind", "127.0.0.1", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut addr = None;
        let token = loop {
            let line: Value = serde_json::from_str(&out.next().expect("the host prints its room").unwrap()).unwrap();
            if let Some(ws) = line["listening"]["ws"].as_str() {
                addr = Some(ws.trim_start_matches("ws://").to_string());
            }
            if let Some(token) = line["room"]["seats"][0]["token"].as_str() {
                break token.to_string();
            }
        };
        std::thread::spawn(move || out.for_each(drop));
        Host { child, addr: addr.expect("a listening line"), token }
    }

    /// SIGKILL: the host gets no chance to write anything more.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn recv(ws: &mut Socket) -> Value {
    loop {
        match tokio::time::timeout(WAIT, ws.next()).await.expect("the host answers in time") {
            Some(Ok(Message::Text(t))) => return serde_json::from_str(&t).unwrap(),
            Some(Ok(_)) => continue,
            other => panic!("the connection ended: {other:?}"),
        }
    }
}

async fn send(ws: &mut Socket, v: Value) {
    ws.send(Message::text(v.to_string())).await.unwrap();
}

fn objects(m: &Value) -> Vec<Value> {
    m["json"].as_array().cloned().unwrap_or_default()
}

/// Plays seat 1 with its first legal move `turns` times (or to the end); returns the moves
/// it was answered (the highest `at`) and whether the game was answered as over. Each
/// connection plays a few turns only, so that it stays within the host's message rate.
async fn play(host: &Host, since: Option<u64>, turns: usize) -> (u64, bool) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/1", host.addr)).await.unwrap();
    let mut join = json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": host.token});
    if let Some(since) = since {
        join["since"] = json!(since);
    }
    send(&mut ws, join).await;
    assert_eq!(recv(&mut ws).await["type"], "hello");
    let mut at = recv(&mut ws).await["at"].as_u64().unwrap();
    for _ in 0..turns {
        send(&mut ws, json!({"type": "command", "line": "moves"})).await;
        let moves = loop {
            let m = recv(&mut ws).await;
            if let Some(moves) = objects(&m).iter().find_map(|l| l["moves"].as_array().cloned()) {
                break moves;
            }
        };
        assert!(!moves.is_empty(), "seat 1 is to move");
        send(&mut ws, json!({"type": "command", "line": moves[0]})).await;
        // The answer: the move's output (and the bot's reply with it) or the end.
        loop {
            let m = recv(&mut ws).await;
            let lines = objects(&m);
            assert!(lines.iter().all(|l| l.get("error").is_none()), "{m}");
            at = at.max(m["at"].as_u64().unwrap_or(0));
            if lines.iter().any(|l| l["event"] == "won" || l["event"] == "draw") {
                return (at, true);
            }
            if lines.iter().any(|l| l["event"] == "turn_started" && l["player"] == "alice") {
                break;
            }
        }
    }
    (at, false)
}

/// The moves of room 1 that `--resume` would bring back now.
fn kept(dir: &std::path::Path) -> u64 {
    let rooms = diving::server::resume(dir, &diving::server::room::RoomOptions::default()).unwrap().1;
    rooms[0].session().entries().len() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_killed_between_moves_keeps_every_answered_move_and_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().to_str().unwrap();
    let mut host = Host::start(&["--players", "alice,bot:greedy", "--seed", "5", "--dir", games]);
    let mut since = None;
    let mut kills = 0;
    let over = loop {
        let (at, over) = play(&host, since, 1 + kills % 5).await;
        host.kill();
        kills += 1;
        assert_eq!(kept(dir.path()), at, "after kill {kills}: every answered move is kept");
        if over {
            break at;
        }
        since = Some(at);
        host = Host::start(&["--resume", games]);
    };
    assert!(kills >= 3, "the game took {kills} kills");
    // The win was answered, so it is rated.
    let board = Db::open_existing(dir.path()).unwrap().leaderboard("standard").unwrap();
    let players: Vec<(&str, u32)> = board.iter().map(|s| (s.player.as_str(), s.games)).collect();
    assert!(players.contains(&("alice", 1)) && players.contains(&("bot:greedy", 1)), "{players:?} after {over} moves");
}
