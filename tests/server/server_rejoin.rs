//! Nothing lost on a return, nothing twice (issue #33, item 1): a seat that leaves right after
//! each of its moves — by a clean close, by dropping the socket, by a TCP reset — and comes
//! back saying what it last saw (`since`, protocol 4) is sent every event of the game exactly
//! once, across any number of returns (200 in one test, most without a move between them,
//! many after the end) and a host stopped and resumed from its directory. Each
//! test counts every event the seat received against the events of the game as its seat sees
//! them.

use crate::server_support;

use diving::core::Viewer;
use diving::server::net::{Server, ServerConfig};
use diving::server::room::RoomOptions;
use diving::table::json as js;
use diving::table::session::Session;
use diving::wire::PROTOCOL;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use server_support::*;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// How a connection ends after a move.
#[derive(Debug, Clone, Copy)]
enum Leave {
    /// A WebSocket close frame.
    Close,
    /// The socket dropped without a close frame (FIN).
    Drop,
    /// A TCP reset (SO_LINGER 0): what the server had not read yet may be lost with it.
    Reset,
}

/// What one seat received over all its connections.
#[derive(Default)]
struct Seen {
    /// Every event object, in the order received.
    events: Vec<Value>,
    /// The highest `at` of an `output`.
    at: Option<u64>,
    /// Each `rejoined.missed` with the moves that output covered (`at` − `since`).
    returns: Vec<(u64, u64)>,
    over: bool,
}

impl Seen {
    fn take(&mut self, m: &Value, since: Option<u64>) {
        if m["type"] != "output" {
            return;
        }
        let at = m["at"].as_u64().unwrap();
        for l in lines(m) {
            if l.get("event").is_some() {
                self.over |= l["event"] == "won" || l["event"] == "draw";
                self.events.push(l.clone());
            }
            if let Some(missed) = l["rejoined"]["missed"].as_u64() {
                self.returns.push((missed, at - since.expect("a return said what it saw")));
            }
        }
        self.at = self.at.max(Some(at));
    }
}

async fn open(server: &Server, token: &str, since: Option<u64>) -> Socket {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/1", server.addr)).await.unwrap();
    let mut join = json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": token});
    if let Some(at) = since {
        join["since"] = json!(at);
    }
    ws.send(Message::text(join.to_string())).await.unwrap();
    ws
}

/// The next message on `ws`, kept in `seen` (`None`: closed).
async fn next(ws: &mut Socket, seen: &mut Seen, since: Option<u64>) -> Option<Value> {
    loop {
        match tokio::time::timeout(WAIT, ws.next()).await.expect("the server answers in time") {
            Some(Ok(Message::Text(t))) => {
                let m: Value = serde_json::from_str(&t).unwrap();
                seen.take(&m, since);
                return Some(m);
            }
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => continue,
        }
    }
}

/// One connection: joins (saying what was seen), asks for `moves`, plays the first and leaves
/// as `leave` says. Returns whether the game is over.
async fn one_visit(server: &Server, token: &str, seen: &mut Seen, leave: Leave) -> bool {
    visit(server, token, seen, leave, true).await
}

/// [`one_visit`], playing only when `play` says so (else it leaves once the moves came).
async fn visit(server: &Server, token: &str, seen: &mut Seen, leave: Leave, play: bool) -> bool {
    let since = seen.at;
    let mut ws = open(server, token, since).await;
    let hello = next(&mut ws, seen, since).await.expect("hello");
    assert_eq!(hello["type"], "hello", "{hello}");
    ws.send(Message::text(json!({"type": "command", "line": "moves"}).to_string())).await.unwrap();
    let moves = loop {
        let m = next(&mut ws, seen, since).await.expect("the moves");
        if let Some(l) = lines(&m).into_iter().find(|l| l.get("moves").is_some()) {
            break l["moves"].as_array().unwrap().clone();
        }
    };
    if moves.is_empty() {
        assert!(seen.over, "no moves while the game goes on");
        return true;
    }
    if play {
        let first = moves[0].as_str().unwrap();
        ws.send(Message::text(json!({"type": "command", "line": first}).to_string())).await.unwrap();
    }
    match leave {
        Leave::Close => {
            let _ = ws.close(None).await;
        }
        Leave::Drop => drop(ws),
        Leave::Reset => {
            if let MaybeTlsStream::Plain(tcp) = ws.get_ref() {
                tcp.set_zero_linger().unwrap();
            }
            drop(ws);
        }
    }
    false
}

/// The events of the whole game as `seat` sees them: what it must have received, once each.
fn expected(session: &Session, seat: usize) -> Vec<Value> {
    let game = session.game();
    let mut all = session.start_events();
    for e in session.entries() {
        all.extend(e.events.iter().cloned());
    }
    all.iter().map(|e| serde_json::to_value(js::event(game, e, Viewer::Seat(seat))).unwrap()).collect()
}

fn check(seen: &Seen, want: &[Value]) {
    assert_eq!(
        seen.events.len(),
        want.len(),
        "every event once: {} received, {} in the game",
        seen.events.len(),
        want.len()
    );
    assert_eq!(seen.events, want, "the events in order");
    for (missed, covered) in &seen.returns {
        assert_eq!(missed, covered, "rejoined.missed says how many moves the return sent");
    }
}

const LEAVES: [Leave; 3] = [Leave::Close, Leave::Drop, Leave::Reset];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_leaves_after_every_move_receives_every_event_once() {
    for seed in [11, 12, 13] {
        let server =
            serve(vec![room("1", &["alice", "bot:greedy"], seed, RoomOptions::default())], ServerConfig::default())
                .await;
        let token = token(&server, "1", 0);
        let mut seen = Seen::default();
        let mut visits = 0;
        while !one_visit(&server, &token, &mut seen, LEAVES[visits % 3]).await {
            visits += 1;
            assert!(visits < 500, "the game ends");
        }
        assert!(visits >= 5, "seed {seed}: only {visits} returns");
        assert_eq!(seen.returns.len(), visits, "each return is told as one");
        let want = server.with_room("1", |r| expected(r.session(), 0)).unwrap();
        check(&seen, &want);
        server.stop().await.unwrap();
    }
}

/// A host stopped and resumed from its directory: the seat's returns to the new server are
/// sent what came after what it saw, never the game again from move 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn returns_across_a_resumed_host_send_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let r = room("1", &["alice", "bot:greedy"], 21, RoomOptions::default());
    let token = r.tokens()[0].clone().unwrap();
    let config = ServerConfig { dir: Some(dir.path().to_path_buf()), ..ServerConfig::default() };
    let mut server = serve(vec![r], config.clone()).await;
    let mut seen = Seen::default();
    let mut visits = 0;
    loop {
        // Every fourth return finds a host that was stopped and resumed in between.
        if visits % 4 == 3 {
            server.stop().await.unwrap();
            server = serve(resumed(dir.path()), config.clone()).await;
        }
        if one_visit(&server, &token, &mut seen, LEAVES[visits % 3]).await {
            break;
        }
        visits += 1;
        assert!(visits < 500, "the game ends");
    }
    assert!(visits >= 8, "only {visits} returns");
    let want = server.with_room("1", |r| expected(r.session(), 0)).unwrap();
    check(&seen, &want);
    server.stop().await.unwrap();
}

/// The client's `since` is taken at its word within the game: one past the host's moves (a
/// host that lost its last moves in a crash) is sent nothing more and told it missed none,
/// and how many moves the host lost (`lost`), with the answer's `at` the host's own count, so
/// that the client counts on from there (an outside client kept its old `since` and missed
/// the moves played again after the crash).
#[test]
fn a_since_past_the_hosts_moves_is_sent_nothing_and_told_what_was_lost() {
    let mut room = room("1", &["alice", "bot:greedy"], 5, RoomOptions::default());
    let token = room.tokens()[0].clone().unwrap();
    let now = std::time::Instant::now();
    let join = json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": token, "since": 9});
    let out = room.receive(1, &join.to_string(), now);
    let output: Value = serde_json::from_str(&out.texts()[1].1).unwrap();
    let l = lines(&output);
    assert_eq!(l[0]["rejoined"]["missed"], 0, "{output}");
    let at = output["at"].as_u64().unwrap();
    assert!(at < 9, "{output}");
    assert_eq!(l[0]["rejoined"]["lost"], 9 - at, "{output}");
    assert!(output["text"].to_string().contains("the host lost the last"), "{output}");
    assert!(l.iter().all(|l| l.get("event").is_none()), "{output}");
    assert!(l.iter().any(|l| l.get("state").is_some()));
    // A return that saw no more than the host has is told of no loss.
    let join = json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": token, "since": at});
    let out = room.receive(2, &join.to_string(), now);
    let output: Value =
        serde_json::from_str(out.texts().iter().rev().find(|(c, _)| *c == 2).unwrap().1.as_str()).unwrap();
    assert!(lines(&output)[0]["rejoined"].get("lost").is_none(), "{output}");
}

/// 200 returns, a move on every seventh, leaving by a clean close, a dropped socket or a reset
/// in turn (in another rhythm than the moves), on past the end of the game; and the same with
/// the host stopped and brought back from its directory (what `--resume` does) every 20
/// returns while the game runs. Every event the seat may see arrives exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_returns_with_and_without_moves_receive_every_event_once() {
    for resume in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let r = room("1", &["alice", "bot:greedy"], 31, RoomOptions::default());
        let token = r.tokens()[0].clone().unwrap();
        let config = ServerConfig { dir: Some(dir.path().to_path_buf()), ..ServerConfig::default() };
        let mut server = serve(vec![r], config.clone()).await;
        let mut seen = Seen::default();
        let (mut restarts, mut over_at) = (0, None);
        for visits in 0..200 {
            if resume && visits % 20 == 19 && !seen.over {
                server.stop().await.unwrap();
                server = serve(resumed(dir.path()), config.clone()).await;
                restarts += 1;
            }
            let leave = LEAVES[(visits + visits / 3) % 3];
            if visit(&server, &token, &mut seen, leave, visits % 7 == 0).await && over_at.is_none() {
                over_at = Some(visits);
            }
        }
        let over_at = over_at.expect("the game ends within 200 returns");
        assert!(over_at >= 50, "resume {resume}: the game ended after {over_at} returns");
        assert!(!resume || restarts >= 2, "only {restarts} restarts before the end");
        assert_eq!(seen.returns.len(), 199, "resume {resume}: each return is told as one");
        let want = server.with_room("1", |r| expected(r.session(), 0)).unwrap();
        check(&seen, &want);
        server.stop().await.unwrap();
    }
}
