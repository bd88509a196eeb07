//! A table's games: a lobby table waits for its people, then its game is dealt; once a game
//! is over every person may ask for another, and the next is dealt with the seats turned one
//! on (D4), each keeping its token and player.

use super::{Conn, Kept, Outbox, Reader, Role, Room};
use crate::core::Seat;
use crate::table::seating::Seating;
use crate::table::session::Session;
use crate::table::{Policy, Table};
use crate::wire::server::{self as msg};
use crate::wire::{LOBBY_SINCE, RulesetId, ServerMessage};

impl Room {
    /// Deals the waiting table's game once every seat is taken: each joined connection is
    /// sent its `hello` and the game's start.
    pub(super) fn deal_if_seated(&mut self, seed: u64, out: &mut Outbox) {
        let Some(names) = &self.waiting else { return };
        if names.iter().any(Option::is_none) {
            return;
        }
        let seating: Vec<Seating> = names
            .iter()
            .zip(self.session().bots())
            .map(|(name, bot)| Seating { name: name.clone().unwrap_or_default(), bot: bot.clone() })
            .collect();
        match Session::new(&self.spec, seating, seed, None) {
            Ok(session) => {
                self.waiting = None;
                self.begin(session, out);
            }
            // The names were checked as each seat was taken; a ruleset file changed since
            // the table was made is told to the host.
            Err(e) => out.log.push(format!("room {}: cannot deal the game: {e}", self.id)),
        }
    }

    /// Seats `session` at the table (a first game, or a rematch): its bots move, and every
    /// joined connection is sent its `hello` and the game from its start.
    pub(super) fn begin(&mut self, session: Session, out: &mut Outbox) {
        let mut table = Table::new(session, Policy::network(self.options.allow_hints, self.options.limits.chat));
        table.set_away_bot(self.options.away_bot.clone());
        for (s, seat) in self.seats.iter().enumerate() {
            if seat.bot_playing {
                table.set_away(s, true);
            }
        }
        self.table = table;
        self.ruleset = RulesetId::of(self.session().ruleset());
        self.rematch = vec![false; self.seats.len()];
        self.run_bots(out);
        out.records.push(Kept::Dealt);
        out.changed = true;
        out.listed = true;
        let readers: Vec<Reader> = self.conns.clone();
        for r in readers {
            let seat = match r.role {
                Role::Seat(s) => Some(s),
                Role::Spectator => None,
            };
            out.send(r.conn, self.hello(r.version, seat));
            self.catch_up(r.conn, r.role, None, out);
        }
    }

    /// The `waiting` message: who sits where, how many seats are open.
    pub(super) fn waiting_message(&self) -> ServerMessage {
        ServerMessage::Waiting(msg::Waiting {
            room: self.id.clone(),
            seats: self.seat_lines(),
            open: self.open_seats().len(),
        })
    }

    pub(super) fn tell_waiting(&self, out: &mut Outbox) {
        let message = self.waiting_message();
        for r in &self.conns {
            out.send(r.conn, message.clone());
        }
    }

    /// A seat asks for another game at this table once this one is over; when every person
    /// has asked, it is dealt ([`Room::rematch_now`]).
    pub(super) fn ask_rematch(&mut self, conn: Conn, role: Role, out: &mut Outbox) {
        let Role::Seat(s) = role else {
            return self.reply_error(conn, role, "spectators cannot ask for a rematch", out);
        };
        if !self.is_over() {
            return self.reply_error(conn, role, "the game is not over: a rematch can be asked for once it is", out);
        }
        self.rematch[s] = true;
        let message = self.rematch_message();
        for r in self.conns.iter().filter(|r| r.version >= LOBBY_SINCE) {
            out.send(r.conn, message.clone());
        }
        let everyone = (0..self.seats.len()).all(|p| self.tokens[p].is_none() || self.rematch[p]);
        if everyone {
            self.rematch_now(rand::random::<u64>() >> 12, out);
        }
    }

    /// Who asked for a rematch, and who it waits for (people only: bots always agree).
    pub(super) fn rematch_message(&self) -> ServerMessage {
        let game = self.session().game();
        let people: Vec<Seat> = (0..self.seats.len()).filter(|&s| self.tokens[s].is_some()).collect();
        let names = |asked: bool| {
            people.iter().filter(|&&p| self.rematch[p] == asked).map(|&p| game.name(p).to_string()).collect()
        };
        ServerMessage::Rematch(msg::Rematch { asked: names(true), waiting_for: names(false) })
    }

    /// The next game at this table, dealt with `seed`: the seats turned one on (the old seat 2
    /// is the new seat 1, D4), each keeping its token and player; every joined connection is
    /// told its new seat (`new_game`), then sent its `hello` and the game's start.
    pub fn rematch_now(&mut self, seed: u64, out: &mut Outbox) {
        let n = self.seats.len();
        let game = self.session().game();
        let mut seating: Vec<Seating> = game
            .names()
            .iter()
            .zip(self.session().bots())
            .map(|(name, bot)| Seating { name: name.clone(), bot: bot.clone() })
            .collect();
        seating.rotate_left(1);
        let session = match Session::new(&self.spec, seating, seed, None) {
            Ok(session) => session,
            Err(e) => {
                out.log.push(format!("room {}: cannot deal a rematch: {e}", self.id));
                return;
            }
        };
        self.tokens.rotate_left(1);
        self.players.rotate_left(1);
        self.seats.rotate_left(1);
        for seat in &mut self.seats {
            seat.told = None;
        }
        for r in &mut self.conns {
            if let Role::Seat(s) = r.role {
                r.role = Role::Seat((s + n - 1) % n);
            }
        }
        self.game += 1;
        for r in self.conns.iter().filter(|r| r.version >= LOBBY_SINCE) {
            let seat = match r.role {
                Role::Seat(s) => Some(s + 1),
                Role::Spectator => None,
            };
            let message = msg::NewGame { room: self.id.clone(), game: self.game, seat };
            out.send(r.conn, ServerMessage::NewGame(message));
        }
        self.begin(session, out);
    }
}
