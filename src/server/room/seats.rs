//! Who sits where: a connection joins a seat (with its token, and at a lobby table as its
//! player) or watches; a lobby visitor's open seat is kept for them ([`Room::reserve`]); what
//! the lobby lists of the table. Tokens are compared in constant time, and names follow the
//! lobby's rules ([`check_player_name`]).

use std::time::Instant;

use serde_json::json;

use super::{Arrival, Conn, Identify, Kept, Outbox, Reader, Role, Room};
use crate::core::Seat;
use crate::server::db::{PlayerId, skeleton};
use crate::table::json::Object;
use crate::table::seating;
use crate::wire::server::{SeatLine, TableLine, TableState};
use crate::wire::{Code, LOBBY_SINCE, OLDEST_PROTOCOL, PROTOCOL, Player, RESUME_SINCE, SeatAsked};

impl Room {
    /// The open seats of a waiting table, 0-based.
    pub fn open_seats(&self) -> Vec<Seat> {
        match &self.waiting {
            Some(names) => (0..names.len()).filter(|&s| names[s].is_none()).collect(),
            None => Vec::new(),
        }
    }

    /// Who sits where: the people (or `None` for an open seat) and the bots.
    pub(super) fn seat_lines(&self) -> Vec<SeatLine> {
        let bots = self.session().bots();
        let names: Vec<Option<String>> = match &self.waiting {
            Some(names) => names.clone(),
            None => self.session().game().names().iter().cloned().map(Some).collect(),
        };
        names
            .into_iter()
            .enumerate()
            .map(|(s, player)| SeatLine { seat: s + 1, player, bot: bots.get(s).cloned().flatten() })
            .collect()
    }

    /// What the lobby lists of this table (PROTOCOL.md, *The lobby*).
    pub fn summary(&self) -> TableLine {
        let state = if self.is_waiting() {
            TableState::Waiting
        } else if self.is_over() {
            TableState::Over
        } else {
            TableState::Playing
        };
        TableLine {
            room: self.id.clone(),
            ruleset: self.ruleset.name.clone(),
            about: self.session().ruleset().description.clone(),
            game: self.game,
            state,
            seats: self.seat_lines(),
            open: self.open_seats().len(),
            invited: 0,
            watch: format!("/{}", self.id),
            yours: None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn join(
        &mut self,
        conn: Conn,
        arrival: Arrival,
        seat: SeatAsked,
        token: &str,
        now: Instant,
        identify: &mut Identify,
        out: &mut Outbox,
    ) {
        if let Err((code, message)) = self.check_arrival(&arrival, true) {
            return out.end(conn, code, &message);
        }
        let n = self.seats.len();
        let refuse = |out: &mut Outbox, code: Code, message: String| out.end(conn, code, &message);
        let seat = match seat {
            SeatAsked::Number(seat) if (1..=n as u64).contains(&seat) => seat as usize,
            SeatAsked::Number(seat) => {
                return refuse(
                    out,
                    Code::Seat,
                    format!("there is no seat {seat} in room {} (seats are 1 to {n})", self.id),
                );
            }
            SeatAsked::Not(text) => {
                return refuse(
                    out,
                    Code::Seat,
                    format!("{text} is not a seat number (seats of room {} are 1 to {n})", self.id),
                );
            }
        };
        // Seats move on at each rematch: a token names its seat, whatever number it came with.
        let mine = |s: usize| self.tokens[s].as_ref().is_some_and(|t| same_secret(t.as_bytes(), token.as_bytes()));
        let s = match (0..n).find(|&s| mine(s)) {
            Some(s) => s,
            None if self.tokens[seat - 1].is_none() => {
                return refuse(out, Code::Seat, format!("seat {seat} is played by a bot"));
            }
            None => return refuse(out, Code::Token, format!("wrong token for seat {seat} of room {}", self.id)),
        };
        let seat = s + 1;
        // Whether this join takes an open seat (a seat kept from the lobby is named already).
        let takes_open = self.waiting.as_ref().is_some_and(|names| names[s].is_none());
        if let Some(player) = &arrival.player {
            match self.claim(s, player, identify) {
                Ok(()) => {}
                Err((code, message)) => return refuse(out, code, message),
            }
        } else if self.waiting.as_ref().is_some_and(|names| names[s].is_none()) {
            return refuse(
                out,
                Code::Player,
                format!("seat {seat} of room {} is open: say who takes it (join with 'player': name and key)", self.id),
            );
        } else if self.lobby {
            // A lobby seat is its player's: the token alone (which an invite carries) is not
            // enough to take it over.
            return refuse(
                out,
                Code::Player,
                format!(
                    "seat {seat} of room {} is taken: join as the player who took it ('player': name and key)",
                    self.id
                ),
            );
        }
        if let Some(old) = self.seats[s].conn.take() {
            self.conns.retain(|r| r.conn != old);
            out.end(old, Code::Replaced, &format!("seat {seat} was taken by a new connection"));
        }
        self.conns.push(Reader::new(conn, Role::Seat(s), &arrival));
        self.empty_since = None;
        self.seats[s].conn = Some(conn);
        if self.is_waiting() {
            // The others were told when the seat was kept: only a seat taken now is news.
            if takes_open {
                self.tell_waiting(out);
            } else {
                out.send(conn, self.waiting_message());
            }
            self.deal_if_seated(rand::random::<u64>() >> 12, out);
            return;
        }
        let was_away = self.seats[s].away_since.take().is_some();
        let bot_was_playing = std::mem::take(&mut self.seats[s].bot_playing);
        self.table.set_away(s, false);
        let _ = now;
        out.send(conn, self.hello(arrival.version, Some(s)));
        let name = self.session().game().name(s).to_string();
        if was_away {
            let line = Object::one("back", Object::one("player", json!(name)));
            let text =
                if bot_was_playing { format!("{name} is back (the bot stops)") } else { format!("{name} is back") };
            self.tell_others(conn, &[line], &[text], out);
        }
        let from = if arrival.version >= RESUME_SINCE { arrival.since } else { self.seats[s].told };
        self.catch_up(conn, Role::Seat(s), from, out);
        // A page reloaded after the game is told who asked for another already.
        if arrival.version >= LOBBY_SINCE && self.is_over() && self.rematch.iter().any(|&r| r) {
            out.send(conn, self.rematch_message());
        }
    }

    /// `player` takes seat `s`, or shows it is theirs: an open seat of a waiting table is
    /// taken under their name (no other seat's name may look like it); a taken seat must be
    /// theirs; at a table made at start-up the seat is rated as theirs from now on.
    pub(super) fn claim(&mut self, s: Seat, player: &Player, identify: &mut Identify) -> Result<(), (Code, String)> {
        let seat = s + 1;
        check_player_name(&player.name).map_err(|e| (Code::Name, e))?;
        let open = self.waiting.as_ref().is_some_and(|names| names[s].is_none());
        if open {
            // Before the host's players are asked, so that a refused name makes no player.
            self.check_look_alike(&player.name).map_err(|e| (Code::Name, e))?;
        }
        let id = identify(player).map_err(|e| (Code::Name, e))?;
        if open {
            return self.sit_open(s, id, &player.name).map_err(|e| (Code::Seat, e));
        }
        match self.players[s] {
            Some(owner) if self.lobby && owner != id => {
                Err((Code::Seat, format!("seat {seat} of room {} is another player's", self.id)))
            }
            _ => {
                self.players[s] = Some(id);
                Ok(())
            }
        }
    }

    /// Keeps an open seat of a waiting table (`seat`, or the first open one) for `player`
    /// (named `name`), who asked for it in the lobby: no one else can take it, and its token
    /// goes to them only. Its seat, or why not.
    ///
    /// A player who has a seat here already (waiting, playing or over) is given that seat
    /// back, and nothing changes: someone who closed the page or quit `diving join` goes back
    /// to their own game from the lobby, recognised by their key.
    ///
    /// The seats in `held` are kept for the people the table's maker invited: they are not
    /// taken this way (their invite code passes none).
    pub fn reserve(
        &mut self,
        seat: Option<Seat>,
        held: &[Seat],
        player: PlayerId,
        name: &str,
        out: &mut Outbox,
    ) -> Result<Seat, String> {
        if let Some(mine) = self.players.iter().position(|p| *p == Some(player))
            && seat.is_none_or(|asked| asked == mine)
        {
            return Ok(mine);
        }
        let open = self.open_seats();
        if !self.is_waiting() || open.is_empty() {
            return Err(format!(
                "table {} has no open seat (it is playing or over: watch it at /{})",
                self.id, self.id
            ));
        }
        let free: Vec<Seat> = open.iter().copied().filter(|s| !held.contains(s)).collect();
        let s = match seat {
            Some(s) if held.contains(&s) && open.contains(&s) => {
                return Err(format!(
                    "seat {} of table {} is kept for a player its maker invited (it is taken with its invite code)",
                    s + 1,
                    self.id
                ));
            }
            Some(s) if open.contains(&s) => s,
            Some(s) if s >= self.players.len() => {
                return Err(format!(
                    "table {} has no seat {} (its seats are 1 to {})",
                    self.id,
                    s.saturating_add(1),
                    self.players.len()
                ));
            }
            Some(s) => return Err(format!("seat {} of table {} is taken", s + 1, self.id)),
            None => match free.first() {
                Some(&s) => s,
                None => {
                    return Err(format!(
                        "the open seats of table {} are kept for the players its maker invited (each is taken with its invite code)",
                        self.id
                    ));
                }
            },
        };
        self.sit_open(s, player, name)?;
        out.records.push(Kept::Sat { seat: s, player });
        out.listed = true;
        self.tell_waiting(out);
        Ok(s)
    }

    /// Whether `name` may sit at this waiting table: no name seated here looks like it (the
    /// host's rule for players' names, [`skeleton`]).
    pub(super) fn check_look_alike(&self, name: &str) -> Result<(), String> {
        let mut taken = self.waiting.iter().flatten().flatten();
        match taken.find(|t| skeleton(t) == skeleton(name)) {
            Some(other) => Err(format!("'{other}' sits at table {} already: pick another name", self.id)),
            None => Ok(()),
        }
    }

    /// `player`, named `name`, takes open seat `s` of this waiting table, unless they have a
    /// seat at it already or a name there looks like theirs.
    pub(super) fn sit_open(&mut self, s: Seat, player: PlayerId, name: &str) -> Result<(), String> {
        if self.players.contains(&Some(player)) {
            return Err(format!("you have a seat at table {} already; seat {} is for someone else", self.id, s + 1));
        }
        self.check_look_alike(name)?;
        if let Some(names) = &mut self.waiting {
            names[s] = Some(name.to_string());
        }
        self.players[s] = Some(player);
        Ok(())
    }

    pub(super) fn watch(&mut self, conn: Conn, arrival: Arrival, out: &mut Outbox) {
        if let Err((code, message)) = self.check_arrival(&arrival, false) {
            return out.end(conn, code, &message);
        }
        let watching = self.conns.iter().filter(|r| r.role == Role::Spectator).count();
        if watching >= self.options.limits.spectators {
            let message = format!("room {} has {watching} spectators already (the most it holds)", self.id);
            return out.end(conn, Code::Full, &message);
        }
        self.conns.push(Reader::new(conn, Role::Spectator, &arrival));
        self.empty_since = None;
        if self.is_waiting() {
            out.send(conn, self.waiting_message());
            return;
        }
        out.send(conn, self.hello(arrival.version, None));
        self.catch_up(conn, Role::Spectator, arrival.since, out);
    }

    /// Whether a client may come in with `arrival` to take a seat (`joining`) or watch: a
    /// version the server speaks (a lobby table's seats, and a table still waiting for its
    /// seats, need the lobby's version: older clients know no waiting, rematch or player),
    /// and the room's ruleset.
    pub(super) fn check_arrival(&self, arrival: &Arrival, joining: bool) -> Result<(), (Code, String)> {
        let version = arrival.version;
        if !(OLDEST_PROTOCOL..=PROTOCOL).contains(&version) {
            return Err((
                Code::Protocol,
                format!(
                    "this server speaks protocol {PROTOCOL} (and {OLDEST_PROTOCOL} to {PROTOCOL}), the client speaks protocol {version}: use the same version of diving"
                ),
            ));
        }
        if version < LOBBY_SINCE {
            let why = if joining && (self.lobby || self.is_waiting()) {
                Some("was made in the lobby: join it")
            } else if self.is_waiting() {
                Some("waits for its seats: watch it")
            } else {
                None
            };
            if let Some(why) = why {
                return Err((Code::Protocol, format!("room {} {why} with protocol {LOBBY_SINCE}", self.id)));
            }
        }
        if let Some(asked) = &arrival.ruleset {
            let mine = &self.ruleset;
            let name_differs = !asked.name.is_empty() && asked.name != mine.name;
            let hash_differs = !asked.hash.is_empty() && asked.hash != mine.hash;
            if name_differs || hash_differs {
                return Err((
                    Code::Ruleset,
                    format!(
                        "room {} plays ruleset '{}' ({}, mods: {}), not '{}' ({}): join without --ruleset, or get the host's ruleset",
                        self.id,
                        mine.name,
                        mine.hash,
                        if mine.mods.is_empty() { "none".to_string() } else { mine.mods.join(", ") },
                        asked.name,
                        asked.hash
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The bots a lobby table may seat.
pub const BOTS: [&str; 3] = ["greedy", "random", "mcts"];

/// Whether `name` can be a player's in the lobby: the name rules of `--players`, nothing a
/// seat list would read as a bot (`bot:greedy`, or a bot's own name), and nothing a program
/// reads as a number (`-1`, `1e3`, `0x1F`, full-width `１２`): a client written in a language
/// that takes such text for a number would show or compare it as one.
pub fn check_player_name(name: &str) -> Result<(), String> {
    seating::check_name(name)?;
    let plain: String = unicode_normalization::UnicodeNormalization::nfkc(name).collect();
    let hex = plain.strip_prefix("0x").or_else(|| plain.strip_prefix("0X"));
    if plain.chars().any(|c| c.is_ascii_digit())
        && (plain.parse::<f64>().is_ok() || hex.is_some_and(|h| u64::from_str_radix(h, 16).is_ok()))
    {
        return Err(format!("'{name}' reads as a number (programs take it for one), so it cannot be a name"));
    }
    if name.contains(':') {
        return Err(format!("'{name}' has a ':' (bot:NAME names a bot), which a player's name cannot have"));
    }
    if ["quit", "q"].iter().any(|q| q.eq_ignore_ascii_case(name)) {
        return Err(format!("'{name}' is the command that leaves, so it cannot be a name"));
    }
    if BOTS.iter().any(|b| b.eq_ignore_ascii_case(name)) {
        return Err(format!("'{name}' is the name of a bot; pick another"));
    }
    Ok(())
}

/// Compares two secrets in time that does not depend on where they differ.
pub(super) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A new secret token: 128 bits from the operating system's RNG, as hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's RNG works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
