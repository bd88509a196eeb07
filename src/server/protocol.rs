//! The wire: the messages a client sends (parsed into [`ClientMessage`] with precise errors)
//! and the server's messages (built here as JSON text), the protocol version, the limits,
//! and the ruleset's identity a `hello` states. `PROTOCOL.md` documents each message; a
//! change to one of them changes [`PROTOCOL`].

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ruleset::Ruleset;
use crate::table::json::{self as js, Object};
use crate::table::render::Style;

/// The longest `id` string a client may give a message.
pub const MAX_ID: usize = 64;

/// Puts `id` into a server message made for the connection that sent the message it answers:
/// `{"type":"output",…}` becomes `{"type":"output","id":…,…}` (outputs and errors; others as
/// they are).
pub fn with_id(text: String, id: &Value) -> String {
    for kind in [r#"{"type":"output","#, r#"{"type":"error","#] {
        if let Some(rest) = text.strip_prefix(kind) {
            return format!("{kind}\"id\":{id},{rest}");
        }
    }
    text
}

/// The protocol version this program speaks. Version 2 added the `seat_view` message (the
/// browser seat's snapshot); version 3 what a terminal client asks for (`display`, and
/// `screen` messages for such a client); version 4 `since` in `join` and `watch` (the client
/// says what it last saw, the host sends the rest); version 5 the lobby, tables that wait for
/// their seats (`player` in `join`, the `waiting` message) and rematch.
pub const PROTOCOL: u32 = 5;

/// The first version with `seat_view`.
pub const SEAT_VIEW_SINCE: u32 = 2;
/// The first version with `display` and `screen`.
pub const DISPLAY_SINCE: u32 = 3;
/// The first version with `since` in `join` and `watch`.
pub const RESUME_SINCE: u32 = 4;
/// The first version with the lobby, `player` in `join`, and rematch.
pub const LOBBY_SINCE: u32 = 5;

/// The oldest version the server still serves: each version since only added messages a
/// client asks for, so an older client is served as before.
pub const OLDEST_PROTOCOL: u32 = 1;

/// How much a WebSocket reads at a time, on both ends. The library's default (128 KiB) is
/// zeroed before every read, which was a fifth of the server's time under load; messages
/// are at most a few KiB, and a longer one is read in several goes.
pub const READ_BUFFER: usize = 8 * 1024;

/// The limits every connection is held to (documented in `docs/network.md` and PROTOCOL.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest client message, in bytes; a longer one is refused with an error.
    pub max_message: usize,
    /// A frame or message past this many bytes closes the connection at the WebSocket layer.
    pub hard_max_message: usize,
    /// Messages a connection may send in a burst …
    pub burst: u32,
    /// … and per second after it.
    pub per_second: u32,
    /// Refused messages (too fast, malformed, refused by the game), less accepted ones,
    /// before the connection is dropped ([`Strikes`](super::net::Strikes)).
    pub max_strikes: u32,
    /// Watchers a room holds besides its seats.
    pub spectators: usize,
    /// Open connections the whole server holds (joined or not) …
    pub connections: usize,
    /// … and one address holds.
    pub per_address: usize,
    /// Seconds a new connection has to send its `join` or `watch`.
    pub join_within_secs: u64,
    /// Seconds a connection that is not (yet) a WebSocket has to send each whole request,
    /// from when it was accepted or last answered ([`guard`](super::guard)).
    pub request_within_secs: u64,
    /// The longest `say` text, in characters (after control characters are removed).
    pub chat: usize,
    /// Tables a lobby connection may make (and waiting tables one player may have made) …
    pub tables_per_connection: usize,
    /// … and tables the host holds at once (version 5).
    pub tables: usize,
    /// Seconds a lobby table waiting for people, or finished, stays with no one at it …
    pub idle_secs: u64,
    /// … and a lobby table being played (its game stays in the history, unfinished).
    pub abandoned_secs: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_message: 4096,
            hard_max_message: 65_536,
            burst: 40,
            per_second: 20,
            max_strikes: 50,
            spectators: 16,
            connections: 4096,
            per_address: 64,
            join_within_secs: 10,
            request_within_secs: 10,
            chat: 200,
            tables_per_connection: 3,
            tables: 2000,
            idle_secs: 600,
            abandoned_secs: 3600,
        }
    }
}

impl Limits {
    pub fn to_json(&self) -> Value {
        json!({
            "max_message": self.max_message,
            "per_second": self.per_second,
            "burst": self.burst,
            "spectators": self.spectators,
            "connections": self.connections,
            "per_address": self.per_address,
            "chat": self.chat,
        })
    }
}

/// What names a ruleset across machines: how it was named, a hash of its content (every rule
/// and every mod's code), and its mods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesetId {
    pub name: String,
    pub hash: String,
    #[serde(default)]
    pub mods: Vec<String>,
}

impl RulesetId {
    pub fn of(ruleset: &Ruleset) -> RulesetId {
        let mut text = js::rules("", &ruleset.rules).to_string();
        for m in ruleset.mods.iter() {
            text.push('\0');
            text.push_str(&m.name);
            text.push('\0');
            text.push_str(&m.code);
        }
        RulesetId {
            name: shown_name(&ruleset.name),
            hash: crate::ruleset::content_hash(&text),
            mods: ruleset.mods.iter().map(|m| m.name.clone()).collect(),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({ "name": self.name, "hash": self.hash, "mods": self.mods })
    }
}

/// A ruleset's name as other machines are told it: a shipped ruleset's name, or a file's
/// name without its folders and `.toml` (the host's paths are its own business; a joining
/// player's `--ruleset` file of the same name and content matches it).
fn shown_name(spec: &str) -> String {
    let file = spec.rsplit(['/', '\\']).next().unwrap_or(spec);
    let stem = file.strip_suffix(".toml").unwrap_or(file);
    if stem.is_empty() { spec.to_string() } else { stem.to_string() }
}

/// A message from a client: what the host reads, and what `diving join` writes (an absent
/// field is left out of the text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Take (or take back) a seat: 1-based `seat` and its secret token; `ruleset`, when
    /// given, must be the room's.
    Join {
        protocol: u32,
        seat: usize,
        token: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ruleset: Option<RulesetId>,
        /// A terminal's display (version 3): text for it, and `screen` messages.
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
    /// Ask for the reader's snapshot: its state, the legal moves with their previews, the
    /// pending question and what the cards on the board mean (what the browser seat draws).
    SeatView,
    /// (version 5) Ask for another game at this table once the game is over.
    Rematch,
}

/// A player as a client names them (version 5): a name, and the secret key that makes it theirs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub key: String,
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
    },
    /// Take an open seat of a waiting table.
    Sit {
        room: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<usize>,
    },
    /// Take the seat an invite code names.
    Code { code: String },
    /// A ruleset's leaderboard.
    Ratings { ruleset: String },
}

impl LobbyMessage {
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("a lobby message serialises")
    }

    /// Reads one lobby message, or says plainly what is wrong with it.
    pub fn parse(text: &str) -> Result<LobbyMessage, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        const KINDS: &str = "lobby, create, sit, code or ratings";
        let Some(kind) = value.get("type").and_then(Value::as_str) else {
            return Err(format!("a message needs a \"type\" ({KINDS})"));
        };
        if !matches!(kind, "lobby" | "create" | "sit" | "code" | "ratings") {
            return Err(format!("unknown lobby message type '{kind}' ({KINDS})"));
        }
        let kind = kind.to_string();
        serde_json::from_value(value).map_err(|e| format!("bad '{kind}' message: {e}"))
    }
}

impl ClientMessage {
    /// The message as it goes over the wire (one JSON object).
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("a client message serialises")
    }

    /// Reads one message, or says plainly what is wrong with it.
    pub fn parse(text: &str) -> Result<ClientMessage, String> {
        Self::parse_with_id(text).map(|(message, _)| message)
    }

    /// Reads one message and its `id` (version 4: a number or a string of at most
    /// [`MAX_ID`] characters, given back in the messages that answer it).
    pub fn parse_with_id(text: &str) -> Result<(ClientMessage, Option<Value>), String> {
        let mut value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let id = match value.as_object_mut().and_then(|o| o.remove("id")) {
            None | Some(Value::Null) => None,
            Some(id @ Value::Number(_)) => Some(id),
            Some(Value::String(s)) if s.chars().count() <= MAX_ID => Some(Value::String(s)),
            Some(other) => {
                return Err(format!(
                    "'id' is a number or a string of at most {MAX_ID} characters, not {}",
                    js_text(&other)
                ));
            }
        };
        Self::from_value(value).map(|message| (message, id))
    }

    fn from_value(value: Value) -> Result<ClientMessage, String> {
        let Some(kind) = value.get("type").and_then(Value::as_str) else {
            return Err("a message needs a \"type\" (join, watch, command, say, seat_view, display or rematch)".into());
        };
        if !matches!(kind, "join" | "watch" | "command" | "say" | "seat_view" | "display" | "rematch") {
            return Err(format!(
                "unknown message type '{kind}' (join, watch, command, say, seat_view, display or rematch)"
            ));
        }
        if kind == "join"
            && let Some(seat) = value.get("seat")
            && !seat.as_u64().is_some_and(|n| n >= 1 && usize::try_from(n).is_ok())
        {
            let seat = js_text(seat);
            return Err(format!("bad 'join' message: 'seat' is a seat number (1, 2, …), not {seat}"));
        }
        let kind = kind.to_string();
        serde_json::from_value(value).map_err(|e| format!("bad '{kind}' message: {e}"))
    }
}

/// A client's value as an error message shows it: short, its control characters gone.
fn js_text(value: &Value) -> String {
    let text = value.to_string();
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

    pub fn to_json(&self) -> Value {
        json!({ "color": self.color, "unicode": self.unicode, "width": self.width })
    }
}

/// A protocol error: `{"type":"error","code":…,"message":…}`.
/// `type` comes first (the server counts a connection's refused messages by it).
pub fn error(code: &str, message: &str) -> String {
    Object::one("type", json!("error")).with("code", json!(code)).with("message", json!(message)).to_string()
}

/// Game output for one reader: the JSON Lines objects local `--json` play would print, the
/// same as narrated text, and `at`, the number of moves played so far.
pub fn output(at: usize, lines: &[Object], text: &[String]) -> String {
    /// The message's fields in their order, borrowed: written straight into the text,
    /// without copying the lines into a message object first.
    #[derive(Serialize)]
    struct Output<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        at: usize,
        json: &'a [Object],
        text: &'a [String],
    }
    serde_json::to_string(&Output { kind: "output", at, json: lines, text }).expect("an output serialises")
}

pub use crate::limits::clean_chat;

#[cfg(test)]
mod tests {
    use super::*;

    /// What `diving join` writes is what the host reads: every message it sends comes back
    /// the same through the host's parser, and a field it has no value for is left out.
    #[test]
    fn what_join_writes_the_host_reads() {
        let ruleset = RulesetId { name: "sharks".into(), hash: "abc".into(), mods: vec!["sharks.lua".into()] };
        let display = Display { color: true, unicode: false, width: Some(100) };
        let messages = [
            ClientMessage::Join {
                protocol: PROTOCOL,
                seat: 2,
                token: "t0k".into(),
                ruleset: Some(ruleset.clone()),
                display: Some(display),
                since: Some(7),
                player: Some(Player { name: "ann".into(), key: "k".into() }),
            },
            ClientMessage::Join {
                protocol: PROTOCOL,
                seat: 1,
                token: "t".into(),
                ruleset: None,
                display: None,
                since: None,
                player: None,
            },
            ClientMessage::Watch { protocol: PROTOCOL, ruleset: Some(ruleset), display: None, since: Some(0) },
            ClientMessage::Display(display),
            ClientMessage::Command { line: "play 7h".into(), seat: None },
            ClientMessage::Say { text: "hi".into() },
            ClientMessage::SeatView,
            ClientMessage::Rematch,
        ];
        for message in messages {
            let text = message.to_text();
            assert_eq!(ClientMessage::parse(&text).as_ref(), Ok(&message), "{text}");
            assert!(!text.contains("null"), "an absent field is left out: {text}");
        }
        assert_eq!(
            ClientMessage::Command { line: "moves".into(), seat: None }.to_text(),
            r#"{"type":"command","line":"moves"}"#
        );
    }

    #[test]
    fn messages_are_read_with_plain_errors() {
        assert_eq!(
            ClientMessage::parse(r#"{"type":"command","line":"moves"}"#).unwrap(),
            ClientMessage::Command { line: "moves".into(), seat: None }
        );
        assert!(ClientMessage::parse("{").unwrap_err().starts_with("not JSON"));
        assert!(ClientMessage::parse(r#"{"line":"x"}"#).unwrap_err().contains("needs a \"type\""));
        assert!(ClientMessage::parse(r#"{"type":"dance"}"#).unwrap_err().contains("unknown message type 'dance'"));
        assert!(ClientMessage::parse(r#"{"type":"join","seat":1}"#).unwrap_err().contains("bad 'join' message"));
        assert_eq!(ClientMessage::parse(r#"{"type":"seat_view"}"#).unwrap(), ClientMessage::SeatView);
    }

    #[test]
    fn an_output_lists_its_fields_in_order() {
        let lines = [Object::one("event", json!("passed")).with("player", json!("bob"))];
        assert_eq!(
            output(3, &lines, &["bob passes".into()]),
            r#"{"type":"output","at":3,"json":[{"event":"passed","player":"bob"}],"text":["bob passes"]}"#
        );
    }

    #[test]
    fn an_error_names_its_type_first() {
        assert_eq!(error("rate", "slow down"), r#"{"type":"error","code":"rate","message":"slow down"}"#);
    }

    #[test]
    fn chat_loses_control_characters_and_is_limited() {
        // The whole colour code goes (only its escape character did: "hi[31m there").
        assert_eq!(clean_chat(" hi\u{1b}[31m there\n", 200).unwrap(), "hi there");
        assert_eq!(clean_chat("gg\u{202e}ol\u{200b}\u{feff}", 200).unwrap(), "ggol");
        assert!(clean_chat("\u{7}\n", 200).is_err());
        assert!(clean_chat(&"x".repeat(201), 200).unwrap_err().contains("at most 200"));
        assert_eq!(clean_chat(&"é".repeat(200), 200).unwrap().chars().count(), 200);
    }

    #[test]
    fn a_ruleset_file_is_named_without_the_hosts_folders() {
        assert_eq!(shown_name("/home/host/rules/deep.toml"), "deep");
        assert_eq!(shown_name("rules\\deep.toml"), "deep");
        assert_eq!(shown_name("house"), "house");
    }

    #[test]
    fn the_ruleset_hash_follows_the_rules() {
        let standard = RulesetId::of(&Ruleset::load("standard").unwrap());
        assert_eq!(standard, RulesetId::of(&Ruleset::load("standard").unwrap()));
        let house = RulesetId::of(&Ruleset::load("house").unwrap());
        assert_ne!(standard.hash, house.hash);
    }
}
