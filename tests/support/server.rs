//! Helpers for the server tests: rooms and servers on loopback, a protocol client that
//! records every byte it receives, and the leak oracle — the cards a seat may have seen by
//! the time a message was sent, from the full states of the game (every `before` of the
//! session's log, and the game now).

#![allow(dead_code)]

use std::collections::HashSet;
use std::time::Duration;

use diving::core::{Card, Game, Seat, Seen, Viewer};
use diving::server::net::{Server, ServerConfig};
use diving::server::room::{Room, RoomOptions, new_token};
use diving::table::json;
use diving::table::session::{Seating, Session};
use diving::wire::PROTOCOL;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The longest a test waits for one message (a hung server fails the test, it never sleeps).
pub const WAIT: Duration = Duration::from_secs(20);

pub fn seating(players: &[&str]) -> Vec<Seating> {
    players
        .iter()
        .map(|p| match p.strip_prefix("bot:") {
            Some(bot) => Seating { name: bot.to_string(), bot: Some(bot.to_string()) },
            None => Seating { name: p.to_string(), bot: None },
        })
        .collect()
}

pub fn room(id: &str, players: &[&str], seed: u64, options: RoomOptions) -> Room {
    let seating = seating(players);
    let tokens = seating.iter().map(|s| s.bot.is_none().then(new_token)).collect();
    let session = Session::new("standard", seating, seed, None).unwrap();
    Room::new(id, session, tokens, options)
}

pub async fn serve(rooms: Vec<Room>, config: ServerConfig) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::start(listener, rooms, config).unwrap()
}

/// The rooms `diving host --resume DIR` brings back (from the database of `dir`).
pub fn resumed(dir: &std::path::Path) -> Vec<Room> {
    diving::server::resume(dir, &RoomOptions::default()).unwrap().1
}

pub fn token(server: &Server, room: &str, seat: usize) -> String {
    server.with_room(room, |r| r.tokens()[seat].clone().unwrap()).unwrap()
}

/// A protocol client that keeps every message it received.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub received: Vec<String>,
}

impl Client {
    pub async fn connect(server: &Server, room: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/{room}", server.addr)).await.unwrap();
        Client { ws, received: Vec::new() }
    }

    /// Connects from the loopback address `from` (`127.0.0.2`: another machine, as the
    /// host's limits per address see it).
    pub async fn connect_from(server: &Server, room: &str, from: std::net::IpAddr) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind((from, 0).into()).unwrap();
        let stream = socket.connect(server.addr).await.unwrap();
        let url = format!("ws://{}/{room}", server.addr);
        let (ws, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream)).await.unwrap();
        Client { ws, received: Vec::new() }
    }

    /// Connects and takes `seat` (0-based) with its token; returns the hello.
    pub async fn join(server: &Server, room: &str, seat: usize) -> (Client, Value) {
        let mut c = Client::connect(server, room).await;
        let token = token(server, room, seat);
        c.send(json!({"type": "join", "protocol": PROTOCOL, "seat": seat + 1, "token": token})).await;
        let hello = c.recv().await.unwrap();
        assert_eq!(hello["type"], "hello", "{hello}");
        (c, hello)
    }

    /// Connects to `url` (`ws://HOST:PORT/ROOM`, as a real host's invites give it) and takes
    /// `seat` (1-based, as the invites number it) with `token`; returns the hello.
    pub async fn join_url(url: &str, seat: u64, token: &str) -> (Client, Value) {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let mut c = Client { ws, received: Vec::new() };
        c.send(json!({"type": "join", "protocol": PROTOCOL, "seat": seat, "token": token})).await;
        let hello = c.recv().await.unwrap();
        assert_eq!(hello["type"], "hello", "{hello}");
        (c, hello)
    }

    /// Takes `seat` back (0-based), saying it saw the moves up to `since` (protocol 4).
    pub async fn rejoin(server: &Server, room: &str, seat: usize, since: u64) -> (Client, Value) {
        let mut c = Client::connect(server, room).await;
        let token = token(server, room, seat);
        c.send(json!({"type": "join", "protocol": PROTOCOL, "seat": seat + 1, "token": token, "since": since})).await;
        let hello = c.recv().await.unwrap();
        assert_eq!(hello["type"], "hello", "{hello}");
        (c, hello)
    }

    /// The highest `at` of the outputs received: what a return says it saw.
    pub fn seen(&self) -> u64 {
        self.received
            .iter()
            .filter_map(|t| serde_json::from_str::<Value>(t).ok())
            .filter(|m| m["type"] == "output")
            .filter_map(|m| m["at"].as_u64())
            .max()
            .unwrap_or(0)
    }

    pub async fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).await.unwrap();
    }

    pub async fn send_raw(&mut self, m: Message) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.ws.send(m).await
    }

    pub async fn command(&mut self, line: &str) {
        self.send(json!({"type": "command", "line": line})).await;
    }

    /// The next message (`None`: the server closed the connection).
    pub async fn recv(&mut self) -> Option<Value> {
        loop {
            let m = tokio::time::timeout(WAIT, self.ws.next()).await.expect("the server answers in time");
            match m {
                Some(Ok(Message::Text(t))) => {
                    self.received.push(t.to_string());
                    return Some(serde_json::from_str(&t).unwrap());
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Messages until one satisfies `f` (which gets each in turn).
    pub async fn until(&mut self, mut f: impl FnMut(&Value) -> bool) -> Value {
        loop {
            let m = self.recv().await.expect("the connection stays open");
            if f(&m) {
                return m;
            }
        }
    }
}

/// The JSON Lines objects of an `output` message.
pub fn lines(m: &Value) -> Vec<Value> {
    m["json"].as_array().cloned().unwrap_or_default()
}

/// Whether an output has an object with `key`.
pub fn has(m: &Value, key: &str) -> bool {
    lines(m).iter().any(|l| l.get(key).is_some())
}

/// Every card `seat` (`None`: a spectator) could see in `game`.
pub fn visible(game: &Game, seat: Option<Seat>) -> Vec<Card> {
    let mut cards: Vec<Card> = game.table().iter().flatten().copied().collect();
    cards.extend(game.discard_pile().iter().copied());
    for (s, p) in game.players().iter().enumerate() {
        cards.extend(p.front.iter().copied());
        if Some(s) == seat {
            cards.extend(p.hand.iter().copied());
        }
    }
    cards
}

/// The leak oracle: `seen[at]` is every card `seat` could have seen once `at` moves were
/// played (one deck: a card is itself): the cards in its hand and face up in every state
/// between moves, and the cards named by each move's events that the core's
/// [`Viewer::sees`] shows it whole (a card discarded and reshuffled within one move).
pub fn seen_by_move(session: &Session, seat: Option<Seat>) -> Vec<HashSet<Card>> {
    let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
    let game = session.game();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let before = session.games_before_moves().expect("the session replays");
    for (entry, before) in session.entries().iter().zip(&before) {
        seen.extend(visible(before, seat));
        out.push(seen.clone());
        for e in &entry.events {
            if let Seen::Whole(e) = viewer.sees(e) {
                seen.extend(cards_named(&json::event(game, e, Viewer::Everyone).to_string()));
            }
        }
    }
    seen.extend(visible(game, seat));
    out.push(seen);
    out
}

/// The cards a message names (tokens written like `10H`, `QS`).
pub fn cards_named(text: &str) -> Vec<Card> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| {
            let (rank, suit) = t.split_at(t.len().saturating_sub(1));
            matches!(suit, "S" | "H" | "D" | "C")
                && matches!(rank, "A" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "10" | "J" | "Q" | "K")
        })
        .map(|t| t.parse().unwrap())
        .collect()
}

/// Asserts no message names a card its reader could not have seen when it was sent, nor the
/// seed. Each message carries `at`, the moves played when it was made (0 if none). Cards the
/// reader named itself (`sent`: its commands, echoed in a refusal) are allowed.
pub fn assert_no_leak(session: &Session, seat: Option<Seat>, received: &[String], sent: &[String]) {
    let echoed: HashSet<Card> = sent.iter().flat_map(|t| cards_named(t)).collect();
    let seen = seen_by_move(session, seat);
    let seed = session.seed().to_string();
    for text in received {
        let v: Value = serde_json::from_str(text).unwrap();
        let at = v["at"].as_u64().unwrap_or(0) as usize;
        let allowed = &seen[at.min(seen.len() - 1)];
        for card in cards_named(text) {
            assert!(
                allowed.contains(&card) || echoed.contains(&card),
                "seat {seat:?} was sent {card}, hidden at move {at}: {text}"
            );
        }
        assert!(!text.contains(&seed), "the seed {seed} was sent to {seat:?}: {text}");
    }
}

#[test]
fn the_card_scan_finds_cards_and_nothing_else() {
    let found = cards_named(r#"{"hand":["10H","QS"]} table 1:4S alice t2 AS10 greedy"#);
    assert_eq!(found, ["10H".parse::<Card>().unwrap(), "QS".parse().unwrap(), "4S".parse().unwrap()]);
}
