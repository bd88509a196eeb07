//! Why a host refuses a message ([`Code`], the `code` of an `error`), and why it closes a
//! connection ([`Close`], the status and reason of its close frame). Each code has its
//! meaning here, once: PROTOCOL.md documents the same list (a test checks that it does), and
//! the browser page reads what it needs of it from the host (`/assets/wire.js`).

use serde::{Deserialize, Serialize};

/// The code of an `error` message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// Not JSON, an unknown type, a missing or bad field, a binary frame, or a message of a
    /// later version than the connection's.
    Malformed,
    /// A message before `join` or `watch` (or before `lobby`).
    NotJoined,
    /// A second `join` or `watch` on one connection.
    Joined,
    /// A message past the size limit.
    TooBig,
    /// Messages faster than the rate limit.
    Rate,
    /// Too many refused messages: the connection closes.
    Dropped,
    /// No hello in time: the connection closes.
    Timeout,
    /// A version this host does not speak: the connection closes.
    Protocol,
    /// The `ruleset` given is not the room's: the connection closes.
    Ruleset,
    /// No such seat, a bot's, or not a seat number: the connection closes.
    Seat,
    /// The wrong token for the seat: the connection closes.
    Token,
    /// The room holds its most spectators (closes), or a lobby table has no open seat.
    Full,
    /// A new connection took this seat: this one closes.
    Replaced,
    /// A command at a table that waits for its seats (the connection stays).
    Waiting,
    /// A `join` to an open seat of a lobby table without `player`: the connection closes.
    Player,
    /// A name another key owns, one that looks like it, or one that breaks the name rules
    /// (in a room the connection closes; in the lobby it stays: say `lobby` again).
    Name,
    /// Too many tables (the lobby).
    Limit,
    /// No such ruleset, bot, table or code (the lobby).
    Unknown,
    /// (version 6) A `move` listed at a state the game has moved on from: look again.
    Stale,
    /// (version 7) A ruleset brought to the host is refused: it breaks a bound, does not load,
    /// or fails its check (the message names the file and line), or the host takes none.
    Upload,
}

impl Code {
    /// Every code, in the order PROTOCOL.md lists them.
    pub const ALL: [Code; 20] = [
        Code::Malformed,
        Code::NotJoined,
        Code::Joined,
        Code::TooBig,
        Code::Rate,
        Code::Dropped,
        Code::Timeout,
        Code::Protocol,
        Code::Ruleset,
        Code::Seat,
        Code::Token,
        Code::Full,
        Code::Replaced,
        Code::Waiting,
        Code::Player,
        Code::Name,
        Code::Limit,
        Code::Unknown,
        Code::Stale,
        Code::Upload,
    ];

    /// The code as it goes over the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Malformed => "malformed",
            Code::NotJoined => "not_joined",
            Code::Joined => "joined",
            Code::TooBig => "too_big",
            Code::Rate => "rate",
            Code::Dropped => "dropped",
            Code::Timeout => "timeout",
            Code::Protocol => "protocol",
            Code::Ruleset => "ruleset",
            Code::Seat => "seat",
            Code::Token => "token",
            Code::Full => "full",
            Code::Replaced => "replaced",
            Code::Waiting => "waiting",
            Code::Player => "player",
            Code::Name => "name",
            Code::Limit => "limit",
            Code::Unknown => "unknown",
            Code::Stale => "stale",
            Code::Upload => "upload",
        }
    }

    /// Whether the same hello is refused again however often it is sent: a client does not
    /// reconnect after it (the page stops, `diving join` ends with its message).
    pub fn is_final(self) -> bool {
        matches!(self, Code::Protocol | Code::Ruleset | Code::Seat | Code::Token | Code::Full | Code::Replaced)
    }

    /// Whether it asks who the client is: no player given for a seat that needs one, or a
    /// name refused (a client asks for a name and says hello again).
    pub fn asks_who(self) -> bool {
        matches!(self, Code::Player | Code::Name)
    }

    /// Whether it counts toward the connection's drop (PROTOCOL.md, *What counts toward the
    /// drop*): every refusal but a stale move, which a client cannot avoid (the game moved on
    /// while its move was on its way).
    pub fn counts(self) -> bool {
        self != Code::Stale
    }

    /// Whether it refuses the name the client gave (another must be picked).
    pub fn refuses_name(self) -> bool {
        self == Code::Name
    }

    /// Whether it refuses a seat link for good: a wrong token, or a seat that is not the
    /// client's to take (another player's, a bot's, or none). The page says what happened and
    /// why, and leads to the lobby and to watching the room.
    pub fn refuses_seat(self) -> bool {
        matches!(self, Code::Seat | Code::Token)
    }

    /// Whether it refuses the token given for a seat (the link was made for another seat or
    /// another table, or is cut short).
    pub fn refuses_token(self) -> bool {
        self == Code::Token
    }

    /// Whether the seat was taken by a new connection (the same seat opened in another tab,
    /// browser or terminal): the page says so, and offers to take it back.
    pub fn moved_elsewhere(self) -> bool {
        self == Code::Replaced
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the host closes a connection: its close frame's status and reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Close {
    /// 1000 `bye`: the client said `quit`.
    Bye,
    /// 1001: the host stops.
    Stopping,
    /// 1008 (policy) with the error's code as the reason: an error that ends the connection.
    Refused(Code),
    /// 1009 `too_big`: a frame or message past the hard limit.
    TooBig,
    /// 1007 `not_utf8`: a text frame that is not UTF-8.
    NotUtf8,
    /// 1002 `protocol_error`: a frame that breaks the WebSocket protocol (a continuation of
    /// nothing, reserved bits set, an unmasked frame …).
    ProtocolError,
    /// 1013 `behind`: the reader fell 256 messages behind; take the seat again (with `since`)
    /// for the rest.
    Behind,
}

impl Close {
    /// The close frame's status code and reason.
    pub fn status(self) -> (u16, &'static str) {
        match self {
            Close::Bye => (1000, "bye"),
            Close::Stopping => (1001, "the server stops"),
            Close::Refused(code) => (1008, code.as_str()),
            Close::TooBig => (1009, "too_big"),
            Close::NotUtf8 => (1007, "not_utf8"),
            Close::ProtocolError => (1002, "protocol_error"),
            Close::Behind => (1013, "behind"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_written_as_serde_writes_it() {
        for code in Code::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), serde_json::json!(code.as_str()));
            assert_eq!(serde_json::from_value::<Code>(serde_json::json!(code.as_str())).unwrap(), code);
        }
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len(), "each code once");
    }

    #[test]
    fn a_seat_link_refused_for_good_is_final() {
        for code in Code::ALL {
            assert!(!code.refuses_seat() || code.is_final(), "{code}");
            assert!(!code.refuses_token() || code.refuses_seat(), "{code}");
        }
        assert!(Code::Token.refuses_token() && Code::Seat.refuses_seat() && !Code::Seat.refuses_token());
        assert!(Code::Replaced.moved_elsewhere() && Code::Replaced.is_final() && !Code::Replaced.refuses_seat());
    }

    #[test]
    fn a_close_says_its_cause() {
        assert_eq!(Close::Refused(Code::Dropped).status(), (1008, "dropped"));
        assert_eq!(Close::NotUtf8.status().0, 1007);
        assert_eq!(Close::TooBig.status(), (1009, "too_big"));
    }
}
