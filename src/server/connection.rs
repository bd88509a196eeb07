//! One connection, to a room or to the lobby, in one loop ([`serve`]): the limits every
//! connection is held to (a message's size, the rate, refused messages against accepted
//! ones, the time to say hello), its writer (which writes each message once, and the close
//! frame that says why it ends), and handing each message within the limits to the room
//! ([`super::room::Room::receive_as`], on a blocking thread) or to the lobby
//! ([`super::lobby::Lobby::receive`]). What to answer is theirs; this module only moves
//! messages.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket};
use futures_util::StreamExt;
use tokio::sync::watch;

use super::fair::Source;
use super::hub::{Handled, Hosted, Hub, in_room, lock_db};
use super::link::{Link, spawn_writer};
use super::lobby::Visitor;
use crate::wire::{Close, Code, HostLimits, Id, LobbyMessage, Player, ServerMessage};

/// Refused messages against accepted ones: each refused message (malformed, too big, too
/// fast, or a command the game refuses: out of turn, illegal, a spectator's play) counts one
/// up, each accepted one one down; at `max` the connection is dropped. A client that is
/// refused now and then is never dropped; one that sends mostly refused messages is, even
/// with accepted ones between them (any accepted message used to start the count again).
#[derive(Debug, Clone)]
pub struct Strikes {
    count: u32,
    max: u32,
}

impl Strikes {
    pub fn new(max: u32) -> Strikes {
        Strikes { count: 0, max }
    }

    /// Counts one message; whether the connection must be dropped now.
    pub fn count(&mut self, refused: bool) -> bool {
        self.count = if refused { self.count + 1 } else { self.count.saturating_sub(1) };
        self.count >= self.max
    }

    /// Why the connection is dropped.
    pub fn message(&self) -> String {
        format!("too many refused messages ({} more refused than accepted)", self.max)
    }
}

/// A token bucket: `burst` messages at once, `per_second` after.
#[derive(Debug, Clone)]
pub struct Bucket {
    tokens: f64,
    burst: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    pub fn new(limits: &HostLimits, now: Instant) -> Bucket {
        Bucket { tokens: limits.burst as f64, burst: limits.burst as f64, rate: limits.per_second as f64, last: now }
    }

    /// Whether one more message may pass at `now`.
    pub fn allow(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What a connection is connected to.
pub(super) enum Endpoint {
    Room(Arc<Mutex<Hosted>>),
    /// The lobby; `host` is the address the client came to (the links a `seated` gives),
    /// `peer` the one it came from.
    Lobby {
        host: String,
        peer: std::net::IpAddr,
    },
}

/// A connection's side of its endpoint: the room it is in, or who it is in the lobby.
enum Side {
    Room { hosted: Arc<Mutex<Hosted>>, joined: bool },
    Lobby { host: String, peer: std::net::IpAddr, visitor: Visitor, listing: watch::Receiver<u64> },
}

impl Side {
    /// Whether the client said hello (`join`/`watch`, or `lobby`).
    fn greeted(&self) -> bool {
        match self {
            Side::Room { joined, .. } => *joined,
            Side::Lobby { visitor, .. } => visitor.hello,
        }
    }

    /// What a client that did not say hello in time is told.
    fn hello_needed(&self, within: u64) -> String {
        match self {
            Side::Room { .. } => format!("send 'join' or 'watch' within {within}s"),
            Side::Lobby { .. } => format!("send 'lobby' within {within}s"),
        }
    }

    /// The longest message the client may send: a lobby that takes rulesets its players bring
    /// reads an `upload` up to its own limit (any other message is held to `max_message`).
    fn max_message(&self, hub: &Hub) -> usize {
        let limits = &hub.config.limits;
        match self {
            Side::Lobby { .. } if hub.config.uploads => limits.upload_message.max(limits.max_message),
            _ => limits.max_message,
        }
    }

    /// Waits for news the client is sent unasked: a lobby visitor the listing again once it
    /// changed (changes within 200 ms come as one message); a room's reader never (the room
    /// sends its news itself).
    async fn news(&mut self, hub: &Hub) -> Option<ServerMessage> {
        match self {
            Side::Room { .. } => std::future::pending().await,
            Side::Lobby { visitor, listing, .. } => {
                listing.changed().await.ok()?;
                tokio::time::sleep(Duration::from_millis(200)).await;
                listing.borrow_and_update();
                hub.lobby_message(visitor)
            }
        }
    }

    /// One message within the limits: answered. Whether it was refused.
    async fn receive(&mut self, hub: &Arc<Hub>, conn: u64, link: &Link, text: String) -> Handled {
        match self {
            Side::Room { hosted, joined } => {
                let (refused, has) = in_room(hub, hosted, move |hub, hosted| {
                    let db = hub.db.clone();
                    let mut identify = |p: &Player| lock_db(&db).person(&p.name, &p.key).map_err(|e| e.0);
                    let out = hosted.room.receive_as(conn, &text, Instant::now(), &mut identify);
                    let refused = out.refused;
                    let has = hosted.room.has(conn);
                    hub.deliver(hosted, out);
                    (refused, has)
                })
                .await;
                *joined |= has;
                Handled { refused, closed: false }
            }
            Side::Lobby { host, peer, visitor, .. } => {
                let parsed = LobbyMessage::parse(&text);
                let max = hub.config.limits.max_message;
                if text.len() > max && !matches!(parsed.message, Ok(LobbyMessage::Upload { .. })) {
                    let message = format!("a message may have at most {max} bytes; this one has {}", text.len());
                    link.message(ServerMessage::error(Code::TooBig, message, parsed.id));
                    return Handled { refused: true, closed: false };
                }
                hub.lobby_receive(visitor, parsed, host, *peer, link).await
            }
        }
    }

    /// The connection ends.
    async fn leave(self, hub: &Arc<Hub>, conn: u64) {
        if let Side::Room { hosted, .. } = self {
            in_room(hub, &hosted, move |hub, hosted| {
                let out = hosted.room.leave(conn, Instant::now());
                hosted.senders.remove(&conn);
                hub.deliver(hosted, out);
            })
            .await;
        }
    }
}

/// Serves one connection until it ends: the client leaves or breaks, the host stops, or the
/// client is refused for good.
pub(super) async fn serve(hub: Arc<Hub>, socket: WebSocket, endpoint: Endpoint) {
    hub.opened();
    let conn = hub.next_conn();
    let limits = hub.config.limits;
    let (sink, mut stream) = socket.split();
    let (link, rx) = Link::new();
    let mut side = match endpoint {
        Endpoint::Room(hosted) => {
            let sender = link.clone();
            in_room(&hub, &hosted, move |_, hosted| hosted.senders.insert(conn, sender)).await;
            Side::Room { hosted, joined: false }
        }
        Endpoint::Lobby { host, peer } => {
            let visitor = Visitor { from: Source::of(peer), ..Visitor::default() };
            Side::Lobby { host, peer, visitor, listing: hub.lobby_changes() }
        }
    };
    let mut writer = spawn_writer(sink, rx);
    let mut stop = hub.stop.subscribe();
    let mut bucket = Bucket::new(&limits, Instant::now());
    let hello_by = tokio::time::Instant::now() + Duration::from_secs(limits.join_within_secs);
    let mut strikes = Strikes::new(limits.max_strikes);
    let mut writer_done = false;
    loop {
        let greeted = side.greeted();
        let next = tokio::select! {
            m = stream.next() => m,
            _ = &mut writer => {
                writer_done = true;
                break;
            }
            _ = stop.changed() => break,
            _ = tokio::time::sleep_until(hello_by), if !greeted => {
                link.message(ServerMessage::error(Code::Timeout, side.hello_needed(limits.join_within_secs), None));
                link.close(Close::Refused(Code::Timeout));
                break;
            }
            news = side.news(&hub), if greeted => {
                match news {
                    Some(message) => link.message(message),
                    None => break,
                }
                continue;
            }
        };
        let refused = match admit(next, &mut bucket, &limits, side.max_message(&hub)) {
            Received::Nothing => continue,
            Received::End => break,
            Received::Closing(why, message) => {
                if let Some(message) = message {
                    link.message(*message);
                }
                link.close(why);
                break;
            }
            Received::Refused(code, message, id) => {
                link.message(ServerMessage::error(code, message, id));
                true
            }
            Received::Text(text) => {
                let handled = side.receive(&hub, conn, &link, text).await;
                if handled.closed {
                    break;
                }
                handled.refused
            }
        };
        if strikes.count(refused) {
            link.message(ServerMessage::error(Code::Dropped, strikes.message(), None));
            link.close(Close::Refused(Code::Dropped));
            break;
        }
    }
    side.leave(&hub, conn).await;
    drop(link);
    // The writer sends what is queued, then closes.
    if !writer_done && tokio::time::timeout(Duration::from_secs(5), &mut writer).await.is_err() {
        // A client that stopped reading holds its writer in a send for ever: the socket goes.
        writer.abort();
    }
    hub.closed().await;
}

/// What a frame a connection received is to it (room or lobby alike).
enum Received {
    /// A text within the limits, to answer.
    Text(String),
    /// Refused (binary, over the rate, too big): the error's code, message and the `id` of
    /// the message refused, when it has one.
    Refused(Code, String, Option<Id>),
    /// A ping or pong.
    Nothing,
    /// The connection closes for this cause, after this message: a message past the hard
    /// limit, which the socket does not even read (1009), a text frame that is not UTF-8
    /// (1007), or a frame that breaks the WebSocket protocol (1002).
    Closing(Close, Option<Box<ServerMessage>>),
    /// The connection closed or failed.
    End,
}

/// Admits a received frame under the connection's limits (PROTOCOL.md, *Limits*): only a text
/// within the rate and the size goes on to the room or the lobby.
fn admit(
    frame: Option<Result<Message, axum::Error>>,
    bucket: &mut Bucket,
    limits: &HostLimits,
    max: usize,
) -> Received {
    match frame {
        Some(Ok(Message::Text(text))) if !bucket.allow(Instant::now()) => Received::Refused(
            Code::Rate,
            format!("too many messages: at most {} a second (bursts of {})", limits.per_second, limits.burst),
            crate::wire::client::id_of(&text),
        ),
        Some(Ok(Message::Text(text))) if text.len() > max => Received::Refused(
            Code::TooBig,
            format!("a message may have at most {max} bytes; this one has {}", text.len()),
            crate::wire::client::id_of(&text),
        ),
        Some(Ok(Message::Text(text))) => Received::Text(text.to_string()),
        Some(Ok(Message::Binary(_))) => {
            Received::Refused(Code::Malformed, "send text messages (JSON), not binary ones".to_string(), None)
        }
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => Received::Nothing,
        Some(Err(e)) => refused_frame(e, limits).unwrap_or(Received::End),
        Some(Ok(Message::Close(_))) | None => Received::End,
    }
}

/// How the connection ends after a frame the WebSocket layer refused (`None`: the socket
/// failed, or the peer went away, and nothing can be told).
fn refused_frame(e: axum::Error, limits: &HostLimits) -> Option<Received> {
    use axum_tungstenite::error::{CapacityError, Error, ProtocolError};
    let e = e.into_inner();
    match e.downcast_ref::<Error>()? {
        // The socket's own limit (`hard_max_message`).
        Error::Capacity(CapacityError::MessageTooLong { .. }) => {
            let message = format!(
                "a message may have at most {} bytes; this one has more, so the connection closes",
                limits.max_message
            );
            Some(Received::Closing(Close::TooBig, Some(Box::new(ServerMessage::error(Code::TooBig, message, None)))))
        }
        // A text frame that is not UTF-8.
        Error::Utf8(_) => Some(Received::Closing(Close::NotUtf8, None)),
        // The peer is gone (its TCP connection closed without a close frame).
        Error::Protocol(ProtocolError::ResetWithoutClosingHandshake) => None,
        // A frame that breaks the protocol: the connection cannot go on, and is told why.
        Error::Protocol(_) => Some(Received::Closing(Close::ProtocolError, None)),
        _ => None,
    }
}
