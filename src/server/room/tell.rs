//! What each reader is told: its `hello` in its version, the catch-up that starts it off (or
//! takes it back after a return), each move as it may see it, and with every change its view
//! (version 6) or a terminal's `screen` (versions 3 to 5).

use serde_json::json;

use super::{Conn, Outbox, Reader, Role, Room};
use crate::core::{Seat, Viewer};
use crate::server::view;
use crate::table::completion::Words;
use crate::table::json::{self as js, Object};
use crate::table::reply::{question_json, summary_lines_styled};
use crate::table::{self as tables};
use crate::wire::server::{self as msg};
use crate::wire::{LOBBY_SINCE, ServerMessage, VIEW_SINCE};

impl Room {
    /// `seat_view` (versions 2 to 5; a reader of version 6 is pushed its view): the reader's
    /// view, in an `output` of its own.
    pub(super) fn seat_view(&self, conn: Conn, role: Role, out: &mut Outbox) {
        let view = view::view(&self.table, Self::caller(role), self.game, None, true);
        let view = serde_json::to_value(&view).expect("a view serialises");
        self.reply(conn, vec![Object::one("seat_view", view)], Vec::new(), out);
    }

    /// The view a reader of version 6 is pushed (none for an older one).
    pub(super) fn view_for(&self, reader: &Reader) -> Option<Box<msg::View>> {
        (reader.version >= VIEW_SINCE).then(|| {
            let terminal = reader.terminal().then(|| reader.look());
            let caller = Self::caller(reader.role);
            Box::new(view::view(&self.table, caller, self.game, terminal.as_ref(), reader.previews))
        })
    }

    /// `hello`, in the version the client speaks.
    pub(super) fn hello(&self, version: u32, seat: Option<Seat>) -> ServerMessage {
        let game = self.session().game();
        ServerMessage::Hello(msg::Hello {
            protocol: version,
            room: self.id.clone(),
            seat: seat.map(|s| s + 1),
            player: seat.map(|s| game.name(s).to_string()),
            players: game.names().to_vec(),
            bots: self.session().bots().to_vec(),
            ruleset: self.ruleset.clone(),
            limits: self.options.limits.room(),
            // Which of the table's games this is (a rematch is the next one).
            game: (version >= LOBBY_SINCE).then_some(self.game),
        })
    }

    /// What a joining reader needs: the moves after the first `told` (everything since the
    /// game began when `None`), and, on a return, the current state; a pending question.
    /// `told` is what the client said it saw (`since`, protocol 4), or what an older client
    /// was last sent; one past the moves the host has (a host that lost its last moves) is
    /// taken as them all.
    pub(super) fn catch_up(&mut self, conn: Conn, role: Role, told: Option<usize>, out: &mut Outbox) {
        let viewer = self.viewer(role);
        let look = self.look_of(conn);
        let terminal = self.reader(conn).is_some_and(Reader::terminal);
        // A client that saw more moves than the host has: the host lost its last moves.
        let lost = told.map_or(0, |k| k.saturating_sub(self.at()));
        let told = told.map(|k| k.min(self.at()));
        let from = told.unwrap_or(0);
        let (mut lines, mut text) = self.render_moves(from, told.is_none(), viewer, &look);
        if told.is_some() {
            let missed = self.at() - from;
            if let Role::Seat(s) = role {
                let name = self.session().game().name(s).to_string();
                let news = match missed {
                    0 => "nothing was played while you were away".to_string(),
                    1 => "1 move since you left".to_string(),
                    n => format!("{n} moves since you left"),
                };
                text.insert(0, look.wrap(&format!("welcome back, {name}: {news}")));
                let mut line = Object::one("player", json!(name)).with("missed", json!(missed));
                if lost > 0 {
                    line = line.with("lost", json!(lost));
                }
                lines.insert(0, Object::one("rejoined", line));
            }
            if lost > 0 {
                let moves = if lost == 1 { "move" } else { "moves" };
                text.insert(0, look.wrap(&format!(
                    "(the host lost the last {lost} {moves} you saw when it stopped abruptly: the game goes on from before {})",
                    if lost == 1 { "it" } else { "them" }
                )));
            }
            lines.push(Object::one("state", self.state(viewer)));
            // A terminal is shown the board by the screen that follows.
            if !terminal {
                text.push(self.board(viewer, &look));
            }
        }
        if let Some(q) = self.table.question(Self::caller(role)) {
            lines.push(Object::one("question", question_json(&q)));
            text.push(look.wrap(&q.text()));
        }
        if let Role::Seat(s) = role {
            self.seats[s].told = Some(self.at());
        }
        let view = self.reader(conn).and_then(|r| self.view_for(r));
        out.output_viewed(conn, self.at(), lines, text, view);
        self.send_screen(conn, out);
    }

    pub(super) fn state(&self, viewer: Viewer) -> Object {
        js::state_for(&crate::core::Observation::of(self.session().game(), viewer), self.session().bots())
    }

    pub(super) fn board(&self, viewer: Viewer, look: &tables::Look) -> String {
        self.table.board(viewer, look).trim_end().to_string()
    }

    /// What a terminal shows around the narration (protocol 3): the board as this reader may
    /// see it, the end-of-game summary, and what Tab completes — the reader's hand, the
    /// table, its legal plays as the commands that play them, a pending question's choices.
    pub(super) fn screen(&self, role: Role, look: &tables::Look) -> ServerMessage {
        let game = self.session().game();
        let viewer = self.viewer(role);
        let pending = self.table.question(Self::caller(role));
        let seat = match role {
            Role::Seat(seat) => Some(seat),
            Role::Spectator => None,
        };
        let summary: Vec<String> = if game.is_over() {
            summary_lines_styled(self.session(), look.style).iter().map(|l| look.wrap(l)).collect()
        } else {
            Vec::new()
        };
        ServerMessage::Screen(msg::Screen {
            at: self.at(),
            turn: game.turn(),
            current: (!game.is_over()).then(|| game.name(game.current()).to_string()),
            over: game.is_over(),
            board: self.board(viewer, look),
            summary,
            completion: Words::of(game, seat, pending.as_ref()),
        })
    }

    /// A `screen` to every terminal reader of versions 3 to 5 (a later one has it in its view).
    pub(super) fn tell_screens(&self, out: &mut Outbox) {
        for r in self.conns.iter().filter(|r| r.screened()) {
            out.send(r.conn, self.screen(r.role, &r.look()));
        }
    }

    /// A `screen` to `conn`, if it is a terminal of versions 3 to 5.
    pub(super) fn send_screen(&self, conn: Conn, out: &mut Outbox) {
        if let Some(r) = self.reader(conn).filter(|r| r.screened()) {
            out.send(conn, self.screen(r.role, &r.look()));
        }
    }

    /// What changed for `conn` alone (a question asked or dropped): its view (version 6),
    /// or its screen (a terminal of versions 3 to 5).
    pub(super) fn tell_view(&self, conn: Conn, out: &mut Outbox) {
        match self.reader(conn).and_then(|r| self.view_for(r)) {
            Some(view) => out.output_viewed(conn, self.at(), Vec::new(), Vec::new(), Some(view)),
            None => self.send_screen(conn, out),
        }
    }

    /// Events as `viewer` sees them: JSON Lines objects and narration.
    /// The moves from `from` on (after the game's start when `with_start`) as `viewer` may
    /// read them, a stand-in bot's move told as the bot's ([`Table::told`]).
    pub(super) fn render_moves(
        &self,
        from: usize,
        with_start: bool,
        viewer: Viewer,
        look: &tables::Look,
    ) -> (Vec<Object>, Vec<String>) {
        let told = self.table.told(from..self.at(), with_start, viewer, look, look.turn_lines);
        (told.json, told.text)
    }

    pub(super) fn reply(&self, conn: Conn, lines: Vec<Object>, text: Vec<String>, out: &mut Outbox) {
        out.output(conn, self.at(), lines, text);
    }

    /// A command refused (out of turn, illegal, unknown, not for a spectator): an `error`
    /// object in an `output`, which counts toward the connection's drop.
    pub(super) fn reply_error(&self, conn: Conn, _role: Role, message: &str, out: &mut Outbox) {
        out.refused = true;
        let text = self.look_of(conn).error(message);
        self.reply(conn, vec![Object::one("error", json!(message))], vec![text], out);
    }

    pub(super) fn tell_all(&self, lines: &[Object], text: &[String], out: &mut Outbox) {
        for r in &self.conns {
            let text: Vec<String> = text.iter().map(|t| r.look().wrap(t)).collect();
            out.output(r.conn, self.at(), lines.to_vec(), text);
        }
    }

    pub(super) fn tell_others(&self, me: Conn, lines: &[Object], text: &[String], out: &mut Outbox) {
        for r in self.conns.iter().filter(|r| r.conn != me) {
            let text: Vec<String> = text.iter().map(|t| r.look().wrap(t)).collect();
            out.output(r.conn, self.at(), lines.to_vec(), text);
        }
    }

    /// Tells every reader the moves from `from` on, each as it may see them.
    pub(super) fn tell_moves(&mut self, from: usize, out: &mut Outbox) {
        if from >= self.at() {
            return;
        }
        out.changed = true;
        let mut told = Vec::new();
        for r in &self.conns {
            let (lines, text) = self.render_moves(from, false, self.viewer(r.role), &r.look());
            out.output_viewed(r.conn, self.at(), lines, text, self.view_for(r));
            if let Role::Seat(s) = r.role {
                told.push(s);
            }
        }
        let at = self.at();
        for s in told {
            self.seats[s].told = Some(at);
        }
    }
}
