//! What clients send: to a room ([`ClientMessage`]) and to the lobby ([`LobbyMessage`]),
//! each read here with a plain error naming what is wrong ([`ClientMessage::parse`]), and
//! written here by `diving join` ([`ClientMessage::to_text`]). Any message may carry an
//! [`Id`] (version 4), which the host gives back on what answers it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::RulesetId;
use crate::table::render::Style;

/// The longest `id` string a client may give a message.
pub const MAX_ID: usize = 64;

/// A message's `id`: a number, or a string of at most [`MAX_ID`] characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    Number(serde_json::Number),
    Text(String),
}

/// A message from a client to a room: what the host reads, and what `diving join` writes (an
/// absent field is left out of the text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Take (or take back) a seat: 1-based `seat` and its secret token; `ruleset`, when
    /// given, must be the room's.
    Join {
        protocol: u32,
        seat: SeatAsked,
        token: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ruleset: Option<RulesetId>,
        /// A terminal's display (version 3): text for it, and what a terminal shows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display: Option<Display>,
        /// (version 4) The `at` of the last `output` this client received in this room: the
        /// host sends what came after it (`None`: everything since the game began).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<usize>,
        /// (version 5) Who takes the seat: needed for an open seat of a table made in the
        /// lobby.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        player: Option<Player>,
        /// (version 6) Each listed move in the views pushed comes with its preview (what it
        /// would do); without it the previews are empty, and cost the host nothing.
        #[serde(default, skip_serializing_if = "is_false")]
        previews: bool,
    },
    /// Watch the room's public view.
    Watch {
        protocol: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ruleset: Option<RulesetId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display: Option<Display>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<usize>,
    },
    /// The terminal changed (its width, after a resize): text from now on is made for this.
    Display(Display),
    /// One line of the game shell (`play 7h`, `moves`, `state`, the answer to a question …).
    /// `seat`, when given, must be the connection's own.
    Command {
        line: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<usize>,
    },
    /// Chat to the table.
    Say { text: String },
    /// Ask for the reader's view: its state, the legal moves with their previews, the
    /// pending question and what the cards on the board mean (what the browser seat draws).
    SeatView,
    /// (version 5) Ask for another game at this table once the game is over.
    Rematch,
    /// (version 6) Make the move listed `index`th in the reader's view of the state `at`
    /// moves in (of the table's game `game`, when given): refused as `stale` once the game has
    /// moved on from that state.
    Move {
        at: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game: Option<u32>,
        index: usize,
    },
}

impl ClientMessage {
    /// Every `type` a client sends a room, in PROTOCOL.md's order.
    pub const KINDS: [&str; 8] = ["join", "rematch", "watch", "display", "command", "move", "say", "seat_view"];

    /// The message's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            ClientMessage::Join { .. } => "join",
            ClientMessage::Rematch => "rematch",
            ClientMessage::Watch { .. } => "watch",
            ClientMessage::Display(_) => "display",
            ClientMessage::Command { .. } => "command",
            ClientMessage::Move { .. } => "move",
            ClientMessage::Say { .. } => "say",
            ClientMessage::SeatView => "seat_view",
        }
    }

    /// The message as it goes over the wire (one JSON object).
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("a client message serialises")
    }

    /// Reads one message and its `id`, or says plainly what is wrong with it (the `id` is
    /// read first, so that a refusal carries it too).
    pub fn parse(text: &str) -> Parsed<ClientMessage> {
        parse(text, &Self::KINDS, "message")
    }
}

fn is_false(b: &bool) -> bool {
    !b
}

/// A seat number as a client gave it: a number, or what it sent instead, which the room
/// refuses with the `seat` code ("not a seat number"), as it does a number that is no seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatAsked {
    Number(u64),
    Not(String),
}

impl From<usize> for SeatAsked {
    fn from(seat: usize) -> SeatAsked {
        SeatAsked::Number(seat as u64)
    }
}

impl Serialize for SeatAsked {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SeatAsked::Number(n) => s.serialize_u64(*n),
            SeatAsked::Not(text) => s.serialize_str(text),
        }
    }
}

impl<'de> Deserialize<'de> for SeatAsked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SeatAsked, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(match value.as_u64() {
            Some(n) => SeatAsked::Number(n),
            None => SeatAsked::Not(shown(&value)),
        })
    }
}

/// A player as a client names them (version 5): a name, and the secret key that makes it theirs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub key: String,
}

/// Whether `key` is a key a client may give: 32 to 64 hex digits.
pub fn check_key(key: &str) -> Result<(), String> {
    if (32..=64).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err("a player key is 32 to 64 hex digits (the page and diving join make one)".into())
    }
}

/// A message to the lobby (`ws://HOST:PORT/lobby`, version 5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyMessage {
    /// The first message: who this is (both or neither).
    Lobby {
        protocol: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// Make a table (the sender takes seat 1).
    Create {
        ruleset: String,
        seats: usize,
        #[serde(default)]
        bots: Vec<String>,
        #[serde(default)]
        hints: bool,
        /// How many of the open seats are kept for the people the maker invites (each has
        /// an invite code and link, and is taken only with them); the others are open to
        /// anyone in the lobby. All of them when not given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        invites: Option<usize>,
    },
    /// Take an open seat of a waiting table (not one kept for an invite).
    Sit {
        room: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<usize>,
    },
    /// Take the seat an invite code names.
    Code { code: String },
    /// A ruleset's leaderboard.
    Ratings { ruleset: String },
    /// (version 7) Bring a ruleset: its TOML file and the Lua files it names.
    Upload { files: Vec<UploadFile> },
    /// (version 8) A one-time code that moves who you are (your name and key) to another
    /// browser or terminal; a new one replaces the one before.
    Transfer,
    /// (version 8) Cancel your transfer code.
    Revoke,
    /// (version 8) Become the player a transfer code names, on this connection and device.
    Redeem { code: String },
}

/// A file of an uploaded ruleset: its plain file name and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadFile {
    pub name: String,
    pub text: String,
}

impl LobbyMessage {
    /// Every `type` a client sends the lobby, in PROTOCOL.md's order.
    pub const KINDS: [&str; 9] =
        ["lobby", "create", "sit", "code", "ratings", "upload", "transfer", "revoke", "redeem"];

    /// The message's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            LobbyMessage::Lobby { .. } => "lobby",
            LobbyMessage::Create { .. } => "create",
            LobbyMessage::Sit { .. } => "sit",
            LobbyMessage::Code { .. } => "code",
            LobbyMessage::Ratings { .. } => "ratings",
            LobbyMessage::Upload { .. } => "upload",
            LobbyMessage::Transfer => "transfer",
            LobbyMessage::Revoke => "revoke",
            LobbyMessage::Redeem { .. } => "redeem",
        }
    }

    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("a lobby message serialises")
    }

    /// Reads one lobby message and its `id`, or says plainly what is wrong with it.
    pub fn parse(text: &str) -> Parsed<LobbyMessage> {
        parse(text, &Self::KINDS, "lobby message")
    }
}

/// A message as read: its `id` (when it has a good one) and the message, or why it is not one.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<T> {
    pub id: Option<Id>,
    pub message: Result<T, String>,
}

/// The `id` of a message refused before it is read (too fast, too big), when it has a good one.
pub fn id_of(text: &str) -> Option<Id> {
    let value: Value = serde_json::from_str(text).ok()?;
    match value.get("id")? {
        Value::Number(n) => Some(Id::Number(n.clone())),
        Value::String(s) if s.chars().count() <= MAX_ID => Some(Id::Text(s.clone())),
        _ => None,
    }
}

/// Reads a message of one of `kinds` (`what` names them in errors).
fn parse<T: serde::de::DeserializeOwned>(text: &str, kinds: &[&str], what: &str) -> Parsed<T> {
    let mut value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return Parsed { id: None, message: Err(format!("not JSON: {e}")) },
    };
    let id = match value.as_object_mut().and_then(|o| o.remove("id")) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(Id::Number(n)),
        Some(Value::String(s)) if s.chars().count() <= MAX_ID => Some(Id::Text(s)),
        Some(other) => {
            let message = format!("'id' is a number or a string of at most {MAX_ID} characters, not {}", shown(&other));
            return Parsed { id: None, message: Err(message) };
        }
    };
    let list = or_list(kinds);
    let message = match value.get("type").and_then(Value::as_str) {
        None => Err(format!("a {what} needs a \"type\" ({list})")),
        Some(kind) if !kinds.contains(&kind) => Err(format!("unknown {what} type '{}' ({list})", shown_str(kind))),
        Some(kind) => {
            let kind = kind.to_string();
            serde_json::from_value(value).map_err(|e| format!("bad '{kind}' message: {e}"))
        }
    };
    Parsed { id, message }
}

fn or_list(kinds: &[&str]) -> String {
    match kinds.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => kinds.join(""),
    }
}

/// A client's value as an error message shows it: short, its control characters gone.
fn shown(value: &Value) -> String {
    shown_str(&value.to_string())
}

fn shown_str(text: &str) -> String {
    let mut shown: String = text.chars().filter(|c| !c.is_control()).take(40).collect();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    shown
}

/// How a terminal client shows text (version 3): with colour, with Unicode (suit symbols,
/// bars), and how many columns wide (text is wrapped and the board laid out for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Display {
    #[serde(default)]
    pub color: bool,
    #[serde(default)]
    pub unicode: bool,
    #[serde(default)]
    pub width: Option<usize>,
}

impl Display {
    /// The narrowest and widest terminals text is laid out for (a width outside is clamped).
    pub const WIDTHS: std::ops::RangeInclusive<usize> = 20..=500;

    pub fn style(&self) -> Style {
        Style { color: self.color, unicode: self.unicode }
    }

    pub fn width(&self) -> Option<usize> {
        self.width.map(|w| w.clamp(*Self::WIDTHS.start(), *Self::WIDTHS.end()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::PROTOCOL;

    /// What `diving join` writes is what the host reads: every message it sends comes back
    /// the same through the host's parser, and a field it has no value for is left out.
    #[test]
    fn what_join_writes_the_host_reads() {
        let ruleset = RulesetId { name: "sharks".into(), hash: "abc".into(), mods: vec!["sharks.lua".into()] };
        let display = Display { color: true, unicode: false, width: Some(100) };
        let messages = [
            ClientMessage::Join {
                protocol: PROTOCOL,
                seat: 2.into(),
                token: "t0k".into(),
                ruleset: Some(ruleset.clone()),
                display: Some(display),
                since: Some(7),
                player: Some(Player { name: "ann".into(), key: "k".into() }),
                previews: true,
            },
            ClientMessage::Join {
                protocol: PROTOCOL,
                seat: 1.into(),
                token: "t".into(),
                ruleset: None,
                display: None,
                since: None,
                player: None,
                previews: false,
            },
            ClientMessage::Watch { protocol: PROTOCOL, ruleset: Some(ruleset), display: None, since: Some(0) },
            ClientMessage::Display(display),
            ClientMessage::Command { line: "play 7h".into(), seat: None },
            ClientMessage::Say { text: "hi".into() },
            ClientMessage::SeatView,
            ClientMessage::Rematch,
            ClientMessage::Move { at: 12, game: Some(2), index: 3 },
            ClientMessage::Move { at: 0, game: None, index: 0 },
        ];
        let mut kinds = Vec::new();
        for message in messages {
            let text = message.to_text();
            assert_eq!(ClientMessage::parse(&text).message.as_ref(), Ok(&message), "{text}");
            assert!(!text.contains("null"), "an absent field is left out: {text}");
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value["type"], message.kind(), "{text}");
            kinds.push(message.kind());
        }
        kinds.sort_unstable();
        kinds.dedup();
        let mut all = ClientMessage::KINDS.to_vec();
        all.sort_unstable();
        assert_eq!(kinds, all, "every kind is written and read");
        assert_eq!(
            ClientMessage::Command { line: "moves".into(), seat: None }.to_text(),
            r#"{"type":"command","line":"moves"}"#
        );
    }

    #[test]
    fn messages_are_read_with_plain_errors_and_keep_their_id() {
        let read = |text: &str| ClientMessage::parse(text);
        assert_eq!(
            read(r#"{"type":"command","line":"moves"}"#).message,
            Ok(ClientMessage::Command { line: "moves".into(), seat: None })
        );
        assert!(read("{").message.unwrap_err().starts_with("not JSON"));
        assert!(read(r#"{"line":"x"}"#).message.unwrap_err().contains("needs a \"type\""));
        let dance = read(r#"{"type":"dance","id":4}"#);
        assert!(dance.message.unwrap_err().contains("unknown message type 'dance'"));
        assert_eq!(dance.id, Some(Id::Number(4.into())), "a refusal is matched by its id too");
        assert!(read(r#"{"type":"join","seat":1}"#).message.unwrap_err().contains("bad 'join' message"));
        assert_eq!(read(r#"{"type":"seat_view","id":"a"}"#).message, Ok(ClientMessage::SeatView));
        assert!(read(r#"{"type":"seat_view","id":[1]}"#).message.unwrap_err().contains("'id' is a number"));
    }

    #[test]
    fn a_seat_that_is_not_a_number_is_kept_for_the_room_to_refuse() {
        let join = |seat: &str| match ClientMessage::parse(&format!(
            r#"{{"type":"join","protocol":5,"seat":{seat},"token":"t"}}"#
        ))
        .message
        {
            Ok(ClientMessage::Join { seat, .. }) => seat,
            other => panic!("{other:?}"),
        };
        assert_eq!(join("0"), SeatAsked::Number(0));
        assert_eq!(join("3"), SeatAsked::Number(3));
        assert_eq!(join("-1"), SeatAsked::Not("-1".into()));
        assert_eq!(join(r#""two""#), SeatAsked::Not(r#""two""#.into()));
    }

    #[test]
    fn lobby_messages_are_read_like_room_messages() {
        assert_eq!(
            LobbyMessage::parse(r#"{"type":"sit","room":"3","id":9}"#),
            Parsed { id: Some(Id::Number(9.into())), message: Ok(LobbyMessage::Sit { room: "3".into(), seat: None }) }
        );
        let unknown = LobbyMessage::parse(r#"{"type":"join"}"#).message.unwrap_err();
        assert_eq!(
            unknown,
            "unknown lobby message type 'join' (lobby, create, sit, code, ratings, upload, transfer, revoke or redeem)"
        );
        assert_eq!(LobbyMessage::parse(r#"{"type":"transfer"}"#).message, Ok(LobbyMessage::Transfer));
        assert_eq!(LobbyMessage::Revoke.to_text(), r#"{"type":"revoke"}"#);
        assert_eq!(
            LobbyMessage::parse(r#"{"type":"redeem","code":"ABCD"}"#).message,
            Ok(LobbyMessage::Redeem { code: "ABCD".into() })
        );
    }
}
