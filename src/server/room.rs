//! One game on the server, as a state machine without I/O: connections join seats or watch,
//! send lines, leave; the room answers with the messages to send ([`Outbox`]). It knows no
//! socket, no clock (the caller passes `now`) and no file (it says when the game changed, and
//! the caller saves it), so tests drive it directly, away timers included.
//!
//! Everything a connection receives about the game is made here for its reader: events through
//! the JSON layer's [`js::event`] and the shell's [`Narrator`] with the reader's [`Viewer`],
//! the state through [`js::state_for`], moves through the seat's [`View`], the browser seat's
//! snapshot through [`web::seat_view`] (a pure function of the game and the reader). No message carries
//! the seed, the deck or a hand its reader may not see; bot warnings (which can name a bot's
//! cards) go to the host's log only.

use std::time::{Duration, Instant};

use serde_json::json;

use super::protocol::{
    self, ClientMessage, DISPLAY_SINCE, Display, Limits, OLDEST_PROTOCOL, PROTOCOL, RESUME_SINCE, RulesetId,
    SEAT_VIEW_SINCE,
};
use super::web;
use crate::bots;
use crate::core::{Action, Event, Seat, View, Viewer};
use crate::repl::hint;
use crate::repl::json::{self as js, Object};
use crate::repl::parse::{self, Command};
use crate::repl::render::{self, Narrator, Style};
use crate::repl::session::Session;
use crate::repl::shell::{self, Play};

/// A connection, numbered by the server.
pub type Conn = u64;

/// Bot moves in a row after which the room stops and waits (a runaway mod).
const BOT_MOVES_LIMIT: usize = 100_000;

/// The shell's commands a network game refuses (the host saves every move).
const NOT_IN_NETWORK_GAMES: [&str; 4] = ["undo", "save", "reload", "again"];

/// What `say` does, as the room's help lists it.
const SAY_HELP: &str = "chat to the table: say TEXT";

/// What the room wants done after a call.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Text messages to send, in order.
    pub sent: Vec<(Conn, String)>,
    /// Connections to close after their messages.
    pub close: Vec<Conn>,
    /// The game changed: save it.
    pub changed: bool,
    /// Lines for the host's log (never sent to a client).
    pub log: Vec<String>,
    /// The message was refused (a protocol error, or a command the game refuses): it counts
    /// toward the connection's drop.
    pub refused: bool,
}

impl Outbox {
    fn send(&mut self, to: Conn, text: String) {
        self.sent.push((to, text));
    }

    /// A protocol error to the sender: the message is refused.
    fn refuse(&mut self, to: Conn, code: &str, message: &str) {
        self.refused = true;
        self.send(to, protocol::error(code, message));
    }
}

/// How a room runs.
#[derive(Debug, Clone)]
pub struct RoomOptions {
    /// The bot that plays for a seat away longer than `away_after` (`None`: the game waits).
    pub away_bot: Option<String>,
    pub away_after: Duration,
    pub limits: Limits,
    /// Whether a seat may ask for `hint` (on its turn) and `review` (once the game is over):
    /// `diving host --allow-hints`. Off by default.
    pub allow_hints: bool,
}

impl Default for RoomOptions {
    fn default() -> RoomOptions {
        RoomOptions {
            away_bot: None,
            away_after: Duration::from_secs(60),
            limits: Limits::default(),
            allow_hints: false,
        }
    }
}

/// One seat's connection and absence.
#[derive(Debug, Clone, Default)]
struct SeatState {
    conn: Option<Conn>,
    /// Since when the seat is away (set when its connection drops).
    away_since: Option<Instant>,
    /// The away bot plays for it.
    bot_playing: bool,
    /// How many moves this seat has been told of (`None`: never joined): what a client of
    /// versions 1 to 3, which does not say what it saw, is sent on its return.
    told: Option<usize>,
}

/// A target question waiting for its seat's answer.
#[derive(Debug, Clone)]
struct Pending {
    seat: Seat,
    action: Action,
    question: String,
    options: Vec<Seat>,
}

/// Who a connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Seat(Seat),
    Spectator,
}

/// How a reader's text is made: plain, with a line when a turn starts and nothing wrapped
/// (a script or a pipe), or for a terminal as local play draws it (its style and width, the
/// turn shown by the board of a `screen` message instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Look {
    style: Style,
    width: Option<usize>,
    terminal: bool,
}

impl Look {
    const PLAIN: Look = Look { style: Style::PLAIN, width: None, terminal: false };

    fn of(display: Option<Display>) -> Look {
        match display {
            None => Look::PLAIN,
            Some(d) => Look { style: d.style(), width: d.width(), terminal: true },
        }
    }

    fn wrap(&self, text: &str) -> String {
        match self.width {
            Some(width) => render::wrap(text, width),
            None => text.to_string(),
        }
    }

    fn error(&self, message: &str) -> String {
        self.wrap(&format!("{} {message}", self.style.error_label()))
    }
}

/// What a `join` or `watch` asks besides the seat.
struct Hello {
    version: u32,
    ruleset: Option<RulesetId>,
    look: Look,
    /// The moves the client says it has seen (version 4).
    since: Option<usize>,
}

impl Hello {
    /// A `join` or `watch` as the client's version reads it: a `display` from version 3 on,
    /// `since` from version 4 on (an older client's is an unknown field, ignored).
    fn new(version: u32, ruleset: Option<RulesetId>, display: Option<Display>, since: Option<usize>) -> Hello {
        let display = display.filter(|_| version >= DISPLAY_SINCE);
        let since = since.filter(|_| version >= RESUME_SINCE);
        Hello { version, ruleset, look: Look::of(display), since }
    }
}

/// A joined connection.
#[derive(Debug, Clone, Copy)]
struct Reader {
    conn: Conn,
    role: Role,
    look: Look,
    /// The protocol version it speaks: it is sent no message of a later one.
    version: u32,
}

/// A game with its seats, tokens and watchers.
pub struct Room {
    id: String,
    session: Session,
    ruleset: RulesetId,
    /// The secret token of each seat people play (`None` for bot seats).
    tokens: Vec<Option<String>>,
    seats: Vec<SeatState>,
    /// Joined connections, in join order.
    conns: Vec<Reader>,
    pending: Option<Pending>,
    options: RoomOptions,
}

impl Room {
    /// A room for `session`; `tokens[seat]` is the token of each seat a person plays.
    pub fn new(id: &str, session: Session, tokens: Vec<Option<String>>, options: RoomOptions) -> Room {
        let seats = vec![SeatState::default(); session.game().player_count()];
        let ruleset = RulesetId::of(session.ruleset());
        let mut room =
            Room { id: id.to_string(), session, ruleset, tokens, seats, conns: Vec::new(), pending: None, options };
        // Bots that move first (or a resumed game waiting on a bot) play now.
        let mut out = Outbox::default();
        room.run_bots(&mut out);
        room
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn tokens(&self) -> &[Option<String>] {
        &self.tokens
    }

    pub fn ruleset(&self) -> &RulesetId {
        &self.ruleset
    }

    pub fn is_over(&self) -> bool {
        self.session.game().is_over()
    }

    /// How many connections have joined.
    pub fn joined(&self) -> usize {
        self.conns.len()
    }

    /// Whether `conn` has joined (a seat or to watch).
    pub fn has(&self, conn: Conn) -> bool {
        self.role(conn).is_some()
    }

    fn role(&self, conn: Conn) -> Option<Role> {
        self.reader(conn).map(|r| r.role)
    }

    fn reader(&self, conn: Conn) -> Option<&Reader> {
        self.conns.iter().find(|r| r.conn == conn)
    }

    fn look_of(&self, conn: Conn) -> Look {
        self.reader(conn).map_or(Look::PLAIN, |r| r.look)
    }

    fn version_of(&self, conn: Conn) -> u32 {
        self.reader(conn).map_or(OLDEST_PROTOCOL, |r| r.version)
    }

    fn viewer(role: Role) -> Viewer {
        match role {
            Role::Seat(s) => Viewer::Seat(s),
            Role::Spectator => Viewer::Spectator,
        }
    }

    fn at(&self) -> usize {
        self.session.entries().len()
    }

    /// One message from `conn` (already within the size and rate limits).
    pub fn receive(&mut self, conn: Conn, text: &str, now: Instant) -> Outbox {
        let mut out = Outbox::default();
        let (message, id) = match ClientMessage::parse_with_id(text) {
            Ok(m) => m,
            Err(e) => {
                out.refuse(conn, "malformed", &e);
                return out;
            }
        };
        self.handle(conn, message, now, &mut out);
        // What answers a message with an `id` carries it (version 4).
        if let Some(id) = id.filter(|_| self.version_of(conn) >= RESUME_SINCE) {
            for (to, text) in &mut out.sent {
                if *to == conn {
                    *text = protocol::with_id(std::mem::take(text), &id);
                }
            }
        }
        out
    }

    fn handle(&mut self, conn: Conn, message: ClientMessage, now: Instant, out: &mut Outbox) {
        match (message, self.role(conn)) {
            (ClientMessage::Join { protocol, seat, token, ruleset, display, since }, None) => {
                self.join(conn, Hello::new(protocol, ruleset, display, since), seat, &token, now, out)
            }
            (ClientMessage::Watch { protocol, ruleset, display, since }, None) => {
                self.watch(conn, Hello::new(protocol, ruleset, display, since), out)
            }
            (ClientMessage::Display(_), Some(_)) if self.version_of(conn) < DISPLAY_SINCE => {
                out.refuse(conn, "malformed", "'display' is a message of protocol 3 on")
            }
            (ClientMessage::SeatView, Some(_)) if self.version_of(conn) < SEAT_VIEW_SINCE => {
                out.refuse(conn, "malformed", "'seat_view' is a message of protocol 2 on")
            }
            (ClientMessage::Display(display), Some(_)) => {
                if let Some(reader) = self.conns.iter_mut().find(|r| r.conn == conn) {
                    reader.look = Look::of(Some(display));
                }
            }
            (ClientMessage::Join { .. } | ClientMessage::Watch { .. }, Some(_)) => {
                out.refuse(conn, "joined", "this connection has already joined; open another one")
            }
            (_, None) => out.refuse(conn, "not_joined", "send 'join' or 'watch' first"),
            (ClientMessage::Command { line, seat }, Some(role)) => match (role, seat) {
                (Role::Seat(mine), Some(asked)) if asked != mine + 1 => {
                    let message = format!("this connection plays seat {}, not seat {asked}", mine + 1);
                    self.reply_error(conn, role, &message, out);
                }
                (Role::Spectator, _) if !is_read_only(&line) => {
                    self.reply_error(conn, role, "spectators can only look (state, log, help)", out);
                }
                (Role::Seat(mine), _) => self.command(conn, mine, &line, out),
                (Role::Spectator, _) => self.look(conn, role, &line, out),
            },
            (ClientMessage::Say { text }, Some(role)) => self.say(conn, role, &text, out),
            (ClientMessage::SeatView, Some(role)) => self.seat_view(conn, role, out),
        }
    }

    /// The browser seat's snapshot for `conn` ([`web::seat_view`]), with its pending question.
    fn seat_view(&self, conn: Conn, role: Role, out: &mut Outbox) {
        let game = self.session.game();
        let question = match (role, &self.pending) {
            (Role::Seat(s), Some(p)) if p.seat == s => {
                let names: Vec<&str> = p.options.iter().map(|&s| game.name(s)).collect();
                Some(Object::one("text", json!(p.question)).with("options", json!(names)))
            }
            _ => None,
        };
        let view = web::seat_view(&self.session, Self::viewer(role), question);
        self.reply(conn, vec![Object::one("seat_view", view)], Vec::new(), out);
    }

    /// `conn` is gone (closed, dropped, replaced).
    pub fn leave(&mut self, conn: Conn, now: Instant) -> Outbox {
        let mut out = Outbox::default();
        let Some(role) = self.role(conn) else { return out };
        self.conns.retain(|r| r.conn != conn);
        if let Role::Seat(seat) = role
            && self.seats[seat].conn == Some(conn)
        {
            self.seats[seat].conn = None;
            if !self.is_over() {
                self.seats[seat].away_since = Some(now);
                let name = self.session.game().name(seat).to_string();
                let after = match &self.options.away_bot {
                    Some(bot) => format!(" (bot {bot} plays for them after {}s)", self.options.away_after.as_secs()),
                    None => String::new(),
                };
                let line = Object::one("away", Object::one("player", json!(name)));
                self.tell_all(&[line], &[format!("{name} is away{after}")], &mut out);
            }
        }
        out
    }

    /// Lets the away bot take over the seats away for long enough.
    pub fn tick(&mut self, now: Instant) -> Outbox {
        let mut out = Outbox::default();
        let Some(bot) = self.options.away_bot.clone() else { return out };
        if self.is_over() {
            return out;
        }
        let mut took_over = false;
        for seat in 0..self.seats.len() {
            let s = &self.seats[seat];
            if s.bot_playing || s.conn.is_some() {
                continue;
            }
            if let Some(since) = s.away_since
                && now.saturating_duration_since(since) >= self.options.away_after
            {
                self.seats[seat].bot_playing = true;
                took_over = true;
                if self.pending.as_ref().is_some_and(|p| p.seat == seat) {
                    self.pending = None;
                }
                let name = self.session.game().name(seat).to_string();
                let line = Object::one("away_bot", Object::one("player", json!(name)).with("bot", json!(bot)));
                self.tell_all(&[line], &[format!("bot {bot} plays for {name} until they return")], &mut out);
            }
        }
        if took_over {
            let from = self.at();
            self.run_bots(&mut out);
            self.tell_moves(from, &mut out);
            self.tell_screens(&mut out);
        }
        out
    }

    fn join(&mut self, conn: Conn, hello: Hello, seat: usize, token: &str, now: Instant, out: &mut Outbox) {
        if let Err(e) = self.check_hello(&hello) {
            out.send(conn, e);
            out.close.push(conn);
            return;
        }
        let n = self.seats.len();
        let refuse = |out: &mut Outbox, code: &str, message: String| {
            out.send(conn, protocol::error(code, &message));
            out.close.push(conn);
        };
        if seat == 0 || seat > n {
            return refuse(out, "seat", format!("there is no seat {seat} in room {} (seats are 1 to {n})", self.id));
        }
        let s = seat - 1;
        let Some(expected) = &self.tokens[s] else {
            return refuse(out, "seat", format!("seat {seat} is played by a bot"));
        };
        if !same_secret(expected.as_bytes(), token.as_bytes()) {
            return refuse(out, "token", format!("wrong token for seat {seat} of room {}", self.id));
        }
        let _ = now;
        if let Some(old) = self.seats[s].conn.take() {
            self.conns.retain(|r| r.conn != old);
            out.send(old, protocol::error("replaced", &format!("seat {seat} was taken by a new connection")));
            out.close.push(old);
        }
        self.conns.push(Reader { conn, role: Role::Seat(s), look: hello.look, version: hello.version });
        let was_away = self.seats[s].away_since.take().is_some();
        let bot_was_playing = std::mem::take(&mut self.seats[s].bot_playing);
        self.seats[s].conn = Some(conn);
        out.send(conn, self.hello(hello.version, Some(s)));
        let name = self.session.game().name(s).to_string();
        if was_away {
            let line = Object::one("back", Object::one("player", json!(name)));
            let text =
                if bot_was_playing { format!("{name} is back (the bot stops)") } else { format!("{name} is back") };
            self.tell_others(conn, &[line], &[text], out);
        }
        let from = if hello.version >= RESUME_SINCE { hello.since } else { self.seats[s].told };
        self.catch_up(conn, Role::Seat(s), from, out);
    }

    fn watch(&mut self, conn: Conn, hello: Hello, out: &mut Outbox) {
        if let Err(e) = self.check_hello(&hello) {
            out.send(conn, e);
            out.close.push(conn);
            return;
        }
        let watching = self.conns.iter().filter(|r| r.role == Role::Spectator).count();
        if watching >= self.options.limits.spectators {
            let message = format!("room {} has {watching} spectators already (the most it holds)", self.id);
            out.send(conn, protocol::error("full", &message));
            out.close.push(conn);
            return;
        }
        self.conns.push(Reader { conn, role: Role::Spectator, look: hello.look, version: hello.version });
        out.send(conn, self.hello(hello.version, None));
        self.catch_up(conn, Role::Spectator, hello.since, out);
    }

    fn check_hello(&self, hello: &Hello) -> Result<(), String> {
        let version = hello.version;
        if !(OLDEST_PROTOCOL..=PROTOCOL).contains(&version) {
            return Err(protocol::error(
                "protocol",
                &format!(
                    "this server speaks protocol {PROTOCOL} (and {OLDEST_PROTOCOL} to {PROTOCOL}), the client speaks protocol {version}: use the same version of diving"
                ),
            ));
        }
        if let Some(asked) = &hello.ruleset {
            let mine = &self.ruleset;
            let name_differs = !asked.name.is_empty() && asked.name != mine.name;
            let hash_differs = !asked.hash.is_empty() && asked.hash != mine.hash;
            if name_differs || hash_differs {
                return Err(protocol::error(
                    "ruleset",
                    &format!(
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

    /// `hello`, in the version the client speaks.
    fn hello(&self, version: u32, seat: Option<Seat>) -> String {
        let game = self.session.game();
        json!({
            "type": "hello",
            "protocol": version,
            "room": self.id,
            "seat": seat.map(|s| s + 1),
            "player": seat.map(|s| game.name(s)),
            "players": game.names(),
            "bots": self.session.bots(),
            "ruleset": self.ruleset.to_json(),
            "limits": self.options.limits.to_json(),
        })
        .to_string()
    }

    /// What a joining reader needs: the moves after the first `told` (everything since the
    /// game began when `None`), and, on a return, the current state; a pending question.
    /// `told` is what the client said it saw (`since`, protocol 4), or what an older client
    /// was last sent; one past the moves the host has (a host that lost its last moves) is
    /// taken as them all.
    fn catch_up(&mut self, conn: Conn, role: Role, told: Option<usize>, out: &mut Outbox) {
        let viewer = Self::viewer(role);
        let look = self.look_of(conn);
        let told = told.map(|k| k.min(self.at()));
        let mut events = Vec::new();
        let from = match told {
            None => {
                events = self.session.start_events();
                0
            }
            Some(k) => k,
        };
        for e in &self.session.entries()[from..] {
            events.extend(e.events.iter().cloned());
        }
        let (mut lines, mut text) = self.render(&events, viewer, look);
        if told.is_some() {
            let missed = self.at() - from;
            if let Role::Seat(s) = role {
                let name = self.session.game().name(s).to_string();
                let news = match missed {
                    0 => "nothing was played while you were away".to_string(),
                    1 => "1 move since you left".to_string(),
                    n => format!("{n} moves since you left"),
                };
                text.insert(0, look.wrap(&format!("welcome back, {name}: {news}")));
                let line = Object::one("player", json!(name)).with("missed", json!(missed));
                lines.insert(0, Object::one("rejoined", line));
            }
            lines.push(Object::one("state", self.state(viewer)));
            // A terminal is shown the board by the screen that follows.
            if !look.terminal {
                text.push(self.board(viewer, look));
            }
        }
        if let (Role::Seat(s), Some(p)) = (role, &self.pending)
            && p.seat == s
        {
            lines.push(self.question_object(p));
            text.push(look.wrap(&p.question));
        }
        if let Role::Seat(s) = role {
            self.seats[s].told = Some(self.at());
        }
        out.send(conn, protocol::output(self.at(), &lines, &text));
        if look.terminal {
            out.send(conn, self.screen(role, look));
        }
    }

    fn state(&self, viewer: Viewer) -> Object {
        js::state_for(self.session.game(), self.session.bots(), viewer)
    }

    fn board(&self, viewer: Viewer, look: Look) -> String {
        render::board(self.session.game(), look.style, self.session.bots(), viewer, look.width).trim_end().to_string()
    }

    /// What a terminal shows around the narration (protocol 3): the board as this reader may
    /// see it, the end-of-game summary, and what Tab completes — the reader's hand, the
    /// table, its legal plays as the commands that play them, a pending question's choices.
    fn screen(&self, role: Role, look: Look) -> String {
        let game = self.session.game();
        let viewer = Self::viewer(role);
        let pending = self.pending.as_ref().filter(|p| Role::Seat(p.seat) == role);
        let (hand, plays) = match role {
            Role::Seat(seat) => {
                let hand: Vec<String> = game.player(seat).hand.iter().map(ToString::to_string).collect();
                let plays: Vec<String> = if game.is_over() || game.current() != seat || pending.is_some() {
                    Vec::new()
                } else {
                    View::new(game, seat)
                        .legal_actions()
                        .iter()
                        .filter(|a| matches!(a, Action::Play { .. }))
                        .map(|a| render::command_for(game, a))
                        .collect()
                };
                (hand, plays)
            }
            Role::Spectator => (Vec::new(), Vec::new()),
        };
        let table: Vec<String> = game.table().iter().flatten().map(ToString::to_string).collect();
        let choices = pending.map(|p| p.options.iter().map(|&s| game.name(s).to_string()).collect::<Vec<_>>());
        let summary: Vec<String> = if game.is_over() {
            shell::summary_lines(&self.session).iter().map(|l| look.wrap(l)).collect()
        } else {
            Vec::new()
        };
        Object::one("type", json!("screen"))
            .with("at", json!(self.at()))
            .with("turn", json!(game.turn()))
            .with("current", json!((!game.is_over()).then(|| game.name(game.current()))))
            .with("over", json!(game.is_over()))
            .with("board", json!(self.board(viewer, look)))
            .with("summary", json!(summary))
            .with("completion", json!({ "hand": hand, "table": table, "plays": plays, "choices": choices }))
            .to_string()
    }

    /// A `screen` to every terminal reader.
    fn tell_screens(&self, out: &mut Outbox) {
        for r in self.conns.iter().filter(|r| r.look.terminal) {
            out.send(r.conn, self.screen(r.role, r.look));
        }
    }

    /// A `screen` to `conn`, if it is a terminal.
    fn send_screen(&self, conn: Conn, out: &mut Outbox) {
        if let Some(r) = self.reader(conn).filter(|r| r.look.terminal) {
            out.send(conn, self.screen(r.role, r.look));
        }
    }

    fn question_object(&self, p: &Pending) -> Object {
        let game = self.session.game();
        let names: Vec<&str> = p.options.iter().map(|&s| game.name(s)).collect();
        Object::one("question", Object::one("text", json!(p.question)).with("options", json!(names)))
    }

    /// Events as `viewer` sees them: JSON Lines objects and narration.
    fn render(&self, events: &[Event], viewer: Viewer, look: Look) -> (Vec<Object>, Vec<String>) {
        let game = self.session.game();
        let lines = events.iter().map(|e| js::event(game, e, viewer)).collect();
        let narrator = Narrator {
            names: game.names(),
            rules: game.rules(),
            style: look.style,
            viewer,
            turn_lines: !look.terminal,
        };
        let text = narrator.lines(events).iter().map(|l| look.wrap(l)).collect();
        (lines, text)
    }

    fn reply(&self, conn: Conn, lines: Vec<Object>, text: Vec<String>, out: &mut Outbox) {
        out.send(conn, protocol::output(self.at(), &lines, &text));
    }

    /// A command refused (out of turn, illegal, unknown, not for a spectator): an `error`
    /// object in an `output`, which counts toward the connection's drop.
    fn reply_error(&self, conn: Conn, _role: Role, message: &str, out: &mut Outbox) {
        out.refused = true;
        let text = self.look_of(conn).error(message);
        self.reply(conn, vec![Object::one("error", json!(message))], vec![text], out);
    }

    fn tell_all(&self, lines: &[Object], text: &[String], out: &mut Outbox) {
        for r in &self.conns {
            let text: Vec<String> = text.iter().map(|t| r.look.wrap(t)).collect();
            out.send(r.conn, protocol::output(self.at(), lines, &text));
        }
    }

    fn tell_others(&self, me: Conn, lines: &[Object], text: &[String], out: &mut Outbox) {
        for r in self.conns.iter().filter(|r| r.conn != me) {
            let text: Vec<String> = text.iter().map(|t| r.look.wrap(t)).collect();
            out.send(r.conn, protocol::output(self.at(), lines, &text));
        }
    }

    /// Tells every reader the moves from `from` on, each as it may see them.
    fn tell_moves(&mut self, from: usize, out: &mut Outbox) {
        if from >= self.at() {
            return;
        }
        out.changed = true;
        let events: Vec<Event> = self.session.entries()[from..].iter().flat_map(|e| e.events.iter().cloned()).collect();
        let mut told = Vec::new();
        for r in &self.conns {
            let (lines, text) = self.render(&events, Self::viewer(r.role), r.look);
            out.send(r.conn, protocol::output(self.at(), &lines, &text));
            if let Role::Seat(s) = r.role {
                told.push(s);
            }
        }
        let at = self.at();
        for s in told {
            self.seats[s].told = Some(at);
        }
    }

    /// One line from the player in `seat`.
    fn command(&mut self, conn: Conn, seat: Seat, line: &str, out: &mut Outbox) {
        let asked = self.pending.as_ref().is_some_and(|p| p.seat == seat);
        self.command_line(conn, seat, line, out);
        // Another command dropped the question: Tab completes commands again.
        if asked && self.pending.is_none() && !out.sent.iter().any(|(c, t)| *c == conn && is_screen(t)) {
            self.send_screen(conn, out);
        }
    }

    fn command_line(&mut self, conn: Conn, seat: Seat, line: &str, out: &mut Outbox) {
        let role = Role::Seat(seat);
        if let Some(text) = say_text(line) {
            return self.say(conn, role, text, out);
        }
        if let Some(p) = self.pending.clone().filter(|p| p.seat == seat) {
            self.pending = None;
            match shell::answer_target(self.session.game(), line) {
                Ok(target) => {
                    let mut action = p.action;
                    if let Action::Play { target: t, .. } = &mut action {
                        *t = Some(target);
                    }
                    return self.play(conn, seat, action, out);
                }
                // Another command instead of an answer drops the question and runs.
                Err(_) if matches!(parse::parse(line), Ok(Some(_))) => {}
                Err(message) => {
                    let message = format!("{message} (the question is dropped; play the card again)");
                    self.reply_error(conn, role, &message, out);
                    return self.send_screen(conn, out);
                }
            }
        }
        let command = match parse::parse(line) {
            Ok(Some(c)) => c,
            Ok(None) => return,
            Err(message) => return self.reply_error(conn, role, &message, out),
        };
        let action = match command {
            Command::Play { card, place, target, over } => {
                if let Err(message) = self.check_turn(seat) {
                    return self.reply_error(conn, role, &message, out);
                }
                match shell::play_action(self.session.game(), card, place, target, over) {
                    Ok(Play::Ready(action)) => action,
                    Ok(Play::Ask { action, options, question }) => {
                        let p = Pending { seat, action, question, options };
                        let text = self.look_of(conn).wrap(&p.question);
                        self.reply(conn, vec![self.question_object(&p)], vec![text], out);
                        self.pending = Some(p);
                        // Tab now completes the choices.
                        self.send_screen(conn, out);
                        return;
                    }
                    Err(message) => return self.reply_error(conn, role, &message, out),
                }
            }
            Command::Recover { cards, over } => Action::Recover { cards, face_on_top: over },
            Command::Pass => Action::Pass,
            Command::Moves => return self.moves(conn, seat, out),
            Command::Hand => {
                let game = self.session.game();
                let name = game.name(seat).to_string();
                let cards = game.player(seat).hand.clone();
                let list: Vec<String> = cards.iter().map(ToString::to_string).collect();
                let look = self.look_of(conn);
                let text = look.wrap(&format!("{} hand: {}", render::possessive(&name), look.style.cards(&cards)));
                let line = Object::one("hand", Object::one("player", json!(name)).with("cards", json!(list)));
                return self.reply(conn, vec![line], vec![text], out);
            }
            Command::Hint | Command::Review if !self.options.allow_hints => {
                let message = "hints and reviews are off in this network game (the host can allow them: diving host --allow-hints)";
                return self.reply_error(conn, role, message, out);
            }
            Command::Hint => return self.hint(conn, seat, out),
            Command::Review => return self.review(conn, seat, out),
            // NOT_IN_NETWORK_GAMES, which the room's help leaves out.
            Command::Undo | Command::Save(_) | Command::Reload | Command::Again(_) => {
                let word = line.split_whitespace().next().unwrap_or("").to_lowercase();
                let message = format!("'{word}' is not available in a network game (the host saves every move)");
                return self.reply_error(conn, role, &message, out);
            }
            Command::State | Command::Log | Command::Help(_) | Command::Quit => {
                return self.look(conn, role, line, out);
            }
        };
        if let Err(message) = self.check_turn(seat) {
            return self.reply_error(conn, role, &message, out);
        }
        self.play(conn, seat, action, out);
    }

    /// `hint` for `seat`, on its turn, from its view only ([`hint::suggestions`]).
    fn hint(&self, conn: Conn, seat: Seat, out: &mut Outbox) {
        if let Err(message) = self.check_turn(seat) {
            return self.reply_error(conn, Role::Seat(seat), &format!("no hint: {message}"), out);
        }
        let game = self.session.game();
        match hint::suggestions(game, self.session.ruleset(), hint::HINT_PLAYOUTS) {
            Ok(list) => {
                let moves: Vec<serde_json::Value> =
                    list.iter().map(|s| json!({ "move": s.command, "win": s.win, "playouts": s.playouts })).collect();
                let name = game.name(seat).to_string();
                let line =
                    Object::one("hint", json!({ "player": name, "playouts": hint::HINT_PLAYOUTS, "moves": moves }));
                self.reply(conn, vec![line], hint::hint_lines(&name, &list, hint::HINT_PLAYOUTS), out);
            }
            Err(e) => self.reply_error(conn, Role::Seat(seat), &format!("no hint: {e}"), out),
        }
    }

    /// `review` of `seat`'s own moves, once the game is over.
    fn review(&self, conn: Conn, seat: Seat, out: &mut Outbox) {
        let game = self.session.game();
        if !game.is_over() {
            return self.reply_error(conn, Role::Seat(seat), "review is for a finished game (try 'hint')", out);
        }
        let result = self.session.games_before_moves().and_then(|before| {
            hint::review(&before, self.session.entries(), &[seat], self.session.ruleset(), hint::REVIEW_PLAYOUTS)
        });
        match result {
            Ok((found, looked)) => {
                let list: Vec<serde_json::Value> = found.iter().map(|f| hint::finding_json(game, f)).collect();
                let line =
                    Object::one("review", json!({ "moves": looked, "playouts": hint::REVIEW_PLAYOUTS, "worse": list }));
                self.reply(conn, vec![line], hint::review_lines(game, &found, looked, &[seat]), out);
            }
            Err(e) => self.reply_error(conn, Role::Seat(seat), &format!("cannot review: {e}"), out),
        }
    }

    fn check_turn(&self, seat: Seat) -> Result<(), String> {
        let game = self.session.game();
        if game.is_over() {
            return Err("the game is over".into());
        }
        if game.current() != seat {
            return Err(format!("it is {}'s turn, not yours", game.name(game.current())));
        }
        Ok(())
    }

    fn play(&mut self, conn: Conn, seat: Seat, action: Action, out: &mut Outbox) {
        let from = self.at();
        if let Err(e) = self.session.apply(action) {
            let message = render::action_error(self.session.game(), &e);
            self.reply_error(conn, Role::Seat(seat), &message, out);
            // A question this answered is gone.
            return self.send_screen(conn, out);
        }
        self.run_bots(out);
        self.tell_moves(from, out);
        self.tell_screens(out);
    }

    /// The commands that only look: state, log, help, quit.
    fn look(&mut self, conn: Conn, role: Role, line: &str, out: &mut Outbox) {
        let viewer = Self::viewer(role);
        let look = self.look_of(conn);
        match parse::parse(line) {
            Ok(Some(Command::State)) => {
                self.reply(conn, vec![Object::one("state", self.state(viewer))], vec![self.board(viewer, look)], out)
            }
            Ok(Some(Command::Log)) => {
                let mut all = self.session.start_events();
                for e in self.session.entries() {
                    all.extend(e.events.iter().cloned());
                }
                // The log narrates every turn, at a terminal too.
                let (lines, text) = self.render(&all, viewer, Look { terminal: false, ..look });
                self.reply(conn, vec![Object::one("log", lines)], text, out);
            }
            Ok(Some(Command::Help(topic))) => match self.help_text(topic.as_deref()) {
                Ok(text) => {
                    let text = look.wrap(&text);
                    let lines = vec![Object::one("help", json!(text))];
                    self.reply(conn, lines, text.lines().map(String::from).collect(), out);
                }
                Err(message) => self.reply_error(conn, role, &message, out),
            },
            Ok(Some(Command::Quit)) => {
                self.reply(conn, vec![Object::one("bye", json!(true))], vec!["bye".into()], out);
                out.close.push(conn);
            }
            Ok(None) => {}
            Ok(Some(_)) => self.reply_error(conn, role, "spectators can only look (state, log, help)", out),
            Err(message) => self.reply_error(conn, role, &message, out),
        }
    }

    /// `help` in this room: the shell's, less what a network game does not take, with `say`.
    fn help_text(&self, topic: Option<&str>) -> Result<String, String> {
        let refused = |word: &str| {
            NOT_IN_NETWORK_GAMES.contains(&word) || (!self.options.allow_hints && matches!(word, "hint" | "review"))
        };
        match topic {
            None => {
                let mut commands: Vec<(&str, &str)> =
                    parse::COMMANDS.iter().copied().filter(|(word, _)| !refused(word)).collect();
                let at = commands.iter().position(|(word, _)| *word == "help").unwrap_or(commands.len());
                commands.insert(at, ("say", SAY_HELP));
                Ok(shell::command_list_help(&commands))
            }
            Some(t) if t.eq_ignore_ascii_case("say") => {
                Ok(format!("say TEXT\n  {SAY_HELP} (everyone in the room sees it)\n"))
            }
            Some(t) => {
                let mut text = shell::help_text(Some(t), self.session.game())?;
                if let Some(word) = parse::command_word(t).filter(|word| refused(word)) {
                    text += &format!("('{word}' is not available in this network game)\n");
                }
                Ok(text)
            }
        }
    }

    fn moves(&self, conn: Conn, seat: Seat, out: &mut Outbox) {
        let game = self.session.game();
        let actions = View::new(game, seat).legal_actions();
        let list: Vec<String> = actions.iter().map(|a| render::command_for(game, a)).collect();
        let look = self.look_of(conn);
        let mut text = Vec::new();
        if game.is_over() {
            text.push("no moves: the game is over".to_string());
        } else if game.current() != seat {
            text.push(format!("no moves: it is {}'s turn", game.name(game.current())));
        } else if look.terminal {
            // The listing local play prints, with each move's outcome as this seat may see it.
            text.extend(shell::moves_lines(&self.session, &actions, look.style, Viewer::Seat(seat), look.width));
        } else {
            text.push(format!("legal moves for {}:", game.name(seat)));
            text.extend(list.iter().map(|l| format!("  {l}")));
        }
        self.reply(conn, vec![Object::one("moves", json!(list))], text, out);
    }

    fn say(&mut self, conn: Conn, role: Role, text: &str, out: &mut Outbox) {
        let Role::Seat(seat) = role else {
            return self.reply_error(conn, role, "spectators cannot chat", out);
        };
        match protocol::clean_chat(text, self.options.limits.chat) {
            Ok(text) => {
                let name = self.session.game().name(seat).to_string();
                let line = Object::one("chat", Object::one("player", json!(name)).with("text", json!(text)));
                self.tell_all(&[line], &[format!("{name} says: {text}")], out);
            }
            Err(message) => self.reply_error(conn, role, &message, out),
        }
    }

    /// Lets bot seats, and the away bot for seats it plays, move until a person is to move.
    fn run_bots(&mut self, out: &mut Outbox) {
        for _ in 0..BOT_MOVES_LIMIT {
            let game = self.session.game();
            if game.is_over() {
                return;
            }
            let seat = game.current();
            if self.session.is_bot(seat) {
                match self.session.bot_move() {
                    Some(Ok(m)) => out.log.extend(m.warning.map(|w| format!("room {}: {w}", self.id))),
                    Some(Err(message)) => return out.log.push(format!("room {}: {message}", self.id)),
                    None => return,
                }
            } else if self.seats[seat].bot_playing
                && let Some(spec) = self.options.away_bot.clone()
            {
                if let Err(message) = self.away_move(seat, &spec) {
                    return out.log.push(format!("room {}: {message}", self.id));
                }
            } else {
                return;
            }
        }
        out.log.push(format!("room {}: the bots stopped after many moves in a row", self.id));
    }

    /// The away bot's move for `seat`: its choice, or the first legal action that applies.
    fn away_move(&mut self, seat: Seat, spec: &str) -> Result<(), String> {
        let game = self.session.game();
        let seed =
            (self.session.seed() ^ ((game.turn() as u64) << 8) ^ seat as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let choice = bots::from_spec(spec, seed).and_then(|mut b| b.choose(&View::new(game, seat)));
        if let Ok(action) = choice
            && self.session.apply(action).is_ok()
        {
            return Ok(());
        }
        for action in self.session.game().legal_actions() {
            if self.session.apply(action).is_ok() {
                return Ok(());
            }
        }
        Err(format!("{} cannot move: no legal action applies", self.session.game().name(seat)))
    }
}

/// The text of a `say` line, if it is one.
fn say_text(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    let word = trimmed.split_whitespace().next()?;
    word.eq_ignore_ascii_case("say").then(|| &trimmed[word.len()..])
}

fn is_screen(message: &str) -> bool {
    message.starts_with(r#"{"type":"screen""#)
}

/// Whether a spectator may send this line.
fn is_read_only(line: &str) -> bool {
    matches!(parse::parse(line), Ok(None | Some(Command::State | Command::Log | Command::Help(_) | Command::Quit)))
}

/// Compares two secrets in time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A new secret token: 128 bits from the operating system's RNG, as hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's RNG works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
