//! The wire: every message between a host (`diving host`) and its clients (`diving join`,
//! the browser page, anyone's client written from `PROTOCOL.md`), typed both ways and
//! written to text in one place. [`client`] what clients send (read with plain errors),
//! [`server`] what a host sends, [`code`] why a message is refused and why a connection
//! closes, [`limits`] what a connection is held to; here the protocol's versions and what
//! names a ruleset across machines ([`RulesetId`]).
//!
//! Architecture invariant: the wire knows no socket and no server. It is an edge module (it
//! names serde; the core does not), built on the table's JSON contract; the host
//! ([`crate::server`]) and `diving join` ([`crate::join`]) both depend on it, and neither
//! client imports anything of the server (`tests/engine/architecture.rs`). `PROTOCOL.md`
//! documents every message type and error code these enums have, and nothing else (a test
//! reads it).

pub mod client;
pub mod code;
pub mod limits;
pub mod server;

use serde::{Deserialize, Serialize};

use crate::ruleset::Ruleset;
use crate::table::json as js;

pub use client::{ClientMessage, Display, Id, LobbyMessage, Parsed, Player, SeatAsked, UploadFile, check_key};
pub use code::{Close, Code};
pub use limits::HostLimits;
pub use server::ServerMessage;

/// The protocol version this program speaks. Version 2 added the `seat_view` message (the
/// browser seat's snapshot); version 3 what a terminal client asks for (`display`, and
/// `screen` messages for such a client); version 4 `since` in `join` and `watch` (the client
/// says what it last saw, the host sends the rest); version 5 the lobby, tables that wait for
/// their seats (`player` in `join`, the `waiting` message) and rematch; version 6 moves sent as
/// listed actions (`move`, with the state id they were listed at) and views pushed (each
/// reader's `view` in the `output` that tells a change); version 7 rulesets brought to the
/// lobby (`upload`, `uploaded`); version 8 the way back and a second device (each visitor's
/// own tables listed with their seat, `yours`, and transfer codes: `transfer`, `revoke`,
/// `redeem`).
pub const PROTOCOL: u32 = 8;

/// The first version with `seat_view`.
pub const SEAT_VIEW_SINCE: u32 = 2;
/// The first version with `display` and `screen`.
pub const DISPLAY_SINCE: u32 = 3;
/// The first version with `since` in `join` and `watch`, and `id`.
pub const RESUME_SINCE: u32 = 4;
/// The first version with the lobby, `player` in `join`, and rematch.
pub const LOBBY_SINCE: u32 = 5;
/// The first version with `move` and views pushed.
pub const VIEW_SINCE: u32 = 6;
/// The first version with `upload`.
pub const UPLOAD_SINCE: u32 = 7;
/// The first version with `yours` in the lobby's tables and transfer codes.
pub const TRANSFER_SINCE: u32 = 8;

/// The oldest version a host still serves: each version since only added messages a client
/// asks for, so an older client is served as before.
pub const OLDEST_PROTOCOL: u32 = 1;

/// How much a WebSocket reads at a time, on both ends. The library's default (128 KiB) is
/// zeroed before every read, which was a fifth of the host's time under load; messages are
/// at most a few KiB, and a longer one is read in several goes.
pub const READ_BUFFER: usize = 8 * 1024;

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
}

/// A ruleset's name as other machines are told it: a shipped ruleset's name, or a file's
/// name without its folders and `.toml` (the host's paths are its own business; a joining
/// player's `--ruleset` file of the same name and content matches it).
fn shown_name(spec: &str) -> String {
    // A ruleset a player brought is named by its id, which holds its hash.
    if let Some(id) = spec.strip_prefix(crate::ruleset::bundle::SPEC_PREFIX) {
        return id.to_string();
    }
    let file = spec.rsplit(['/', '\\']).next().unwrap_or(spec);
    let stem = file.strip_suffix(".toml").unwrap_or(file);
    if stem.is_empty() { spec.to_string() } else { stem.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

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
