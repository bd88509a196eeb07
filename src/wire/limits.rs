//! The limits every connection to a host is held to ([`HostLimits`]), and the parts of them
//! a host states: to a room's reader in its `hello` ([`RoomLimits`]), to a lobby visitor in
//! every `lobby` message ([`LobbyLimits`]). PROTOCOL.md (*Limits*) and `docs/network.md` list
//! them.

use serde::{Deserialize, Serialize};

/// The limits of a host: what its connections, rooms and lobby hold to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostLimits {
    /// The longest client message, in bytes; a longer one is refused with an error.
    pub max_message: usize,
    /// A frame or message past this many bytes closes the connection at the WebSocket layer.
    pub hard_max_message: usize,
    /// Messages a connection may send in a burst …
    pub burst: u32,
    /// … and per second after it.
    pub per_second: u32,
    /// Refused messages (too fast, malformed, refused by the game), less accepted ones,
    /// before the connection is dropped.
    pub max_strikes: u32,
    /// Watchers a room holds besides its seats.
    pub spectators: usize,
    /// Open connections the whole host holds (joined or not) …
    pub connections: usize,
    /// … and one address holds.
    pub per_address: usize,
    /// Seconds a new connection has to say hello (`join`, `watch` or `lobby`).
    pub join_within_secs: u64,
    /// Seconds a connection that is not (yet) a WebSocket has to send each whole request,
    /// from when it was accepted or last answered.
    pub request_within_secs: u64,
    /// The longest `say` text, in characters (after control characters are removed).
    pub chat: usize,
    /// Tables a lobby connection may make (and waiting tables one player may have made) …
    pub tables_per_connection: usize,
    /// … and tables the host holds at once (version 5).
    pub tables: usize,
    /// Waiting tables made from one address (an IPv6 address's /64 prefix) at once …
    pub waiting_per_address: usize,
    /// … tables one player makes in an hour …
    pub tables_per_hour: usize,
    /// … tables made from one address in an hour …
    pub tables_per_hour_per_address: usize,
    /// … and new players (keys the host did not know) one address brings in an hour.
    pub new_keys_per_hour: usize,
    /// Seconds a lobby table waiting for people, or finished, stays with no one at it …
    pub idle_secs: u64,
    /// … and a lobby table being played (its game stays in the history, unfinished).
    pub abandoned_secs: u64,
    /// (version 7) Files a ruleset brought to the lobby may have (its TOML and Lua files) …
    pub upload_files: usize,
    /// … bytes in one of them …
    pub upload_file_bytes: usize,
    /// … and bytes in all of them.
    pub upload_bytes: usize,
    /// The longest `upload` message, in bytes (the files' text escaped as JSON); at most
    /// `hard_max_message`.
    pub upload_message: usize,
    /// Rulesets one address may bring in an hour …
    pub uploads_per_address: usize,
    /// … and one player (by key).
    pub uploads_per_player: usize,
    /// Seconds the host gives the check of a ruleset brought to it (loading, smoke games,
    /// balance games): past them it is refused.
    pub upload_check_secs: u64,
    /// (version 8) Seconds a transfer code works …
    pub transfer_secs: u64,
    /// … and codes that were wrong (unknown, used, expired or revoked) one address may try
    /// in an hour: past them even a good one is refused until the hour is over.
    pub transfer_attempts_per_hour: usize,
}

impl Default for HostLimits {
    fn default() -> HostLimits {
        HostLimits {
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
            waiting_per_address: 6,
            tables_per_hour: 12,
            tables_per_hour_per_address: 30,
            new_keys_per_hour: 10,
            idle_secs: 600,
            abandoned_secs: 3600,
            upload_files: 8,
            upload_file_bytes: 24 * 1024,
            upload_bytes: 32 * 1024,
            upload_message: 64 * 1024,
            uploads_per_address: 10,
            uploads_per_player: 5,
            upload_check_secs: 30,
            transfer_secs: 600,
            transfer_attempts_per_hour: 10,
        }
    }
}

/// The limits a room's `hello` states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomLimits {
    pub max_message: usize,
    pub per_second: u32,
    pub burst: u32,
    pub spectators: usize,
    pub connections: usize,
    pub per_address: usize,
    pub chat: usize,
}

/// The limits every `lobby` message states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyLimits {
    pub tables_per_connection: usize,
    pub tables: usize,
    /// The limits per address and per hour (a host older than them states none).
    #[serde(default)]
    pub waiting_per_address: usize,
    #[serde(default)]
    pub tables_per_hour: usize,
    #[serde(default)]
    pub tables_per_hour_per_address: usize,
    #[serde(default)]
    pub new_keys_per_hour: usize,
    pub idle_secs: u64,
    pub abandoned_secs: u64,
    pub max_message: usize,
    pub per_second: u32,
    pub burst: u32,
    /// (version 7) The bounds of a ruleset brought to the lobby.
    #[serde(default)]
    pub upload_files: usize,
    #[serde(default)]
    pub upload_file_bytes: usize,
    #[serde(default)]
    pub upload_bytes: usize,
    #[serde(default)]
    pub uploads_per_player: usize,
    /// (version 8) How long a transfer code works, and the wrong codes an address may try in
    /// an hour.
    #[serde(default)]
    pub transfer_secs: u64,
    #[serde(default)]
    pub transfer_attempts_per_hour: usize,
}

/// [`HostLimits::NAMES`] and [`HostLimits::set`], from the list of its fields.
macro_rules! limits_by_name {
    ($($field:ident),* $(,)?) => {
        impl HostLimits {
            /// Every limit's name, as `diving host --limit NAME=N` takes it (its field's).
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Sets the limit called `name` (its field's name, `-` or `_` between its words)
            /// to `value`; says why not when there is no such limit or it cannot hold `value`.
            /// [`HostLimits::check`] then says whether they hold together.
            pub fn set(&mut self, name: &str, value: u64) -> Result<(), String> {
                let field = name.replace('-', "_");
                if !Self::NAMES.contains(&field.as_str()) {
                    return Err(format!("there is no limit '{name}' (the limits: {})", Self::NAMES.join(", ")));
                }
                // No watchers is a choice; none of anything else shuts the host.
                if value == 0 && field != "spectators" {
                    return Err(format!("{name} must be at least 1"));
                }
                let too_large = || format!("{name}: {value} is too large");
                match field.as_str() {
                    $(stringify!($field) => self.$field = value.try_into().map_err(|_| too_large())?,)*
                    _ => unreachable!("a name of NAMES"),
                }
                Ok(())
            }
        }
    };
}

limits_by_name!(
    max_message,
    hard_max_message,
    burst,
    per_second,
    max_strikes,
    spectators,
    connections,
    per_address,
    join_within_secs,
    request_within_secs,
    chat,
    tables_per_connection,
    tables,
    waiting_per_address,
    tables_per_hour,
    tables_per_hour_per_address,
    new_keys_per_hour,
    idle_secs,
    abandoned_secs,
    upload_files,
    upload_file_bytes,
    upload_bytes,
    upload_message,
    uploads_per_address,
    uploads_per_player,
    upload_check_secs,
    transfer_secs,
    transfer_attempts_per_hour,
);

impl HostLimits {
    /// Whether the limits hold together: no message allowed past the size that closes the
    /// connection, no file of an upload larger than the whole.
    pub fn check(&self) -> Result<(), String> {
        let bounds = [
            ("max_message", self.max_message, "hard_max_message", self.hard_max_message),
            ("upload_message", self.upload_message, "hard_max_message", self.hard_max_message),
            ("upload_file_bytes", self.upload_file_bytes, "upload_bytes", self.upload_bytes),
        ];
        for (small, a, large, b) in bounds {
            if a > b {
                return Err(format!("{small} ({a}) cannot be more than {large} ({b})"));
            }
        }
        Ok(())
    }

    /// The bounds of a ruleset brought to the lobby.
    pub fn upload_bounds(&self) -> crate::ruleset::Bounds {
        crate::ruleset::Bounds {
            files: self.upload_files,
            file_bytes: self.upload_file_bytes,
            bytes: self.upload_bytes,
        }
    }

    pub fn room(&self) -> RoomLimits {
        RoomLimits {
            max_message: self.max_message,
            per_second: self.per_second,
            burst: self.burst,
            spectators: self.spectators,
            connections: self.connections,
            per_address: self.per_address,
            chat: self.chat,
        }
    }

    pub fn lobby(&self) -> LobbyLimits {
        LobbyLimits {
            tables_per_connection: self.tables_per_connection,
            tables: self.tables,
            waiting_per_address: self.waiting_per_address,
            tables_per_hour: self.tables_per_hour,
            tables_per_hour_per_address: self.tables_per_hour_per_address,
            new_keys_per_hour: self.new_keys_per_hour,
            idle_secs: self.idle_secs,
            abandoned_secs: self.abandoned_secs,
            max_message: self.max_message,
            per_second: self.per_second,
            burst: self.burst,
            upload_files: self.upload_files,
            upload_file_bytes: self.upload_file_bytes,
            upload_bytes: self.upload_bytes,
            uploads_per_player: self.uploads_per_player,
            transfer_secs: self.transfer_secs,
            transfer_attempts_per_hour: self.transfer_attempts_per_hour,
        }
    }
}
