//! One game on the server, as a state machine without I/O: connections join seats or watch,
//! send lines, leave; the room answers with the messages to send ([`Outbox`]). It knows no
//! socket, no clock (the caller passes `now`) and no file (it says when the game changed, and
//! the caller saves it), so tests drive it directly, away timers included.
//!
//! A room is a [`Table`] with connections: every line a seat or spectator sends goes to the
//! table's one interpreter ([`Table::line`], under [`Policy::network`]), a listed move to its
//! listing ([`Table::play_listed`]), and the room delivers the replies — the moves to every
//! reader, chat to the room, bot warnings to the host's log, the rest to the sender — each
//! rendered for its reader by [`Table::render`] with the reader's [`Viewer`] (which the table
//! decides), and with each change the reader's view ([`super::view`]). No message carries the
//! seed, the deck or a hand its reader may not see; bot warnings (which can name a bot's cards)
//! go to the host's log only.
//!
//! Its parts: here what a room is and how a message is dispatched; `seats` who sits where
//! (joining, watching, the lobby's seats, tokens and names); `tell` what each reader is told
//! (hello, its catch-up, moves, views, screens); `rematch` a table's games (waiting for its
//! seats, dealing, the next game).

use std::time::{Duration, Instant};

mod rematch;
mod seats;
mod tell;

use serde_json::json;

use super::db::PlayerId;
use crate::core::{Seat, Viewer};
use crate::table::json::Object;
use crate::table::seating::{self, Seating};
use crate::table::session::Session;
use crate::table::{self as tables, Caller, Policy, Rendered, Reply, Table};
use crate::wire::server as msg;
use crate::wire::{
    ClientMessage, Close, Code, DISPLAY_SINCE, Display, HostLimits, Id, LOBBY_SINCE, OLDEST_PROTOCOL, Player,
    RESUME_SINCE, RulesetId, SEAT_VIEW_SINCE, ServerMessage, VIEW_SINCE,
};

pub use seats::{BOTS, check_player_name, new_token};

/// A connection, numbered by the server.
pub type Conn = u64;

/// What the room wants done after a call.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Messages to send, in order, each made whole for its reader (the edge writes them).
    pub sent: Vec<(Conn, ServerMessage)>,
    /// Connections to close after their messages, and why.
    pub close: Vec<(Conn, Close)>,
    /// The game changed: save it.
    pub changed: bool,
    /// Lines for the host's log (never sent to a client).
    pub log: Vec<String>,
    /// The message was refused (a protocol error, or a command the game refuses): it counts
    /// toward the connection's drop.
    pub refused: bool,
    /// What the host's database must hear of (a seat taken, a game dealt).
    pub records: Vec<Kept>,
    /// What the lobby lists of this table changed (its seats, its state).
    pub listed: bool,
    /// The connection whose message is being answered and that message's `id`: every
    /// `output` and `error` made for that connection while it is answered carries it.
    answering: Option<(Conn, Id)>,
}

/// A change to a table that the host's database keeps ([`super::db::Change`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// A person took the open seat `seat`.
    Sat { seat: Seat, player: PlayerId },
    /// A new game was dealt at the table (the last seat was taken, or a rematch): its setup
    /// and seats are the room's now.
    Dealt,
}

/// Finds (or makes) the player a client names, or says why the name cannot be theirs: the
/// host's database behind a function, so that the room stays without I/O.
pub type Identify<'a> = dyn FnMut(&Player) -> Result<PlayerId, String> + 'a;

/// For a host that keeps no players: every name is refused.
fn no_players(_: &Player) -> Result<PlayerId, String> {
    Err("this host keeps no players".into())
}

impl Outbox {
    /// The messages as they go over the wire, each with its reader.
    pub fn texts(&self) -> Vec<(Conn, String)> {
        self.sent.iter().map(|(to, message)| (*to, message.to_text())).collect()
    }

    /// The connections to close.
    pub fn closed(&self) -> Vec<Conn> {
        self.close.iter().map(|(conn, _)| *conn).collect()
    }

    /// Queues `message` for `to`; an answer to the message being answered carries its `id`.
    fn send(&mut self, to: Conn, mut message: ServerMessage) {
        if let Some((conn, id)) = &self.answering
            && *conn == to
        {
            match &mut message {
                ServerMessage::Output(output) => output.id = Some(id.clone()),
                ServerMessage::Error(refusal) => refusal.id = Some(id.clone()),
                _ => {}
            }
        }
        self.sent.push((to, message));
    }

    /// Game output for one reader.
    fn output(&mut self, to: Conn, at: usize, json: Vec<Object>, text: Vec<String>) {
        self.send(to, ServerMessage::Output(msg::Output { id: None, at, json, text, view: None }));
    }

    /// Game output for one reader that tells a change, with its view (version 6).
    fn output_viewed(
        &mut self,
        to: Conn,
        at: usize,
        json: Vec<Object>,
        text: Vec<String>,
        view: Option<Box<msg::View>>,
    ) {
        self.send(to, ServerMessage::Output(msg::Output { id: None, at, json, text, view }));
    }

    /// A protocol error to the sender: the message is refused.
    fn refuse(&mut self, to: Conn, code: Code, message: &str) {
        self.refused = true;
        self.send(to, ServerMessage::error(code, message, None));
    }

    /// An error that ends the connection: sent, then the connection closes with its code.
    fn end(&mut self, to: Conn, code: Code, message: &str) {
        self.send(to, ServerMessage::error(code, message, None));
        self.close.push((to, Close::Refused(code)));
    }
}

/// How a room runs.
#[derive(Debug, Clone)]
pub struct RoomOptions {
    /// The bot that plays for a seat away longer than `away_after` (`None`: the game waits).
    pub away_bot: Option<String>,
    pub away_after: Duration,
    pub limits: HostLimits,
    /// Whether a seat may ask for `hint` (on its turn) and `review` (once the game is over):
    /// `diving host --allow-hints`. Off by default.
    pub allow_hints: bool,
}

impl Default for RoomOptions {
    fn default() -> RoomOptions {
        RoomOptions {
            away_bot: None,
            away_after: Duration::from_secs(60),
            limits: HostLimits::default(),
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

/// Who a connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Seat(Seat),
    Spectator,
}

/// What a `join` or `watch` asks besides the seat.
struct Arrival {
    version: u32,
    ruleset: Option<RulesetId>,
    /// A terminal's display (version 3).
    display: Option<Display>,
    /// Its views' listed moves with their previews (version 6).
    previews: bool,
    /// The moves the client says it has seen (version 4).
    since: Option<usize>,
    /// Who the client says it is (version 5).
    player: Option<Player>,
}

impl Arrival {
    /// A `join` or `watch` as the client's version reads it: a `display` from version 3 on,
    /// `since` from version 4 on (an older client's is an unknown field, ignored).
    fn new(version: u32, ruleset: Option<RulesetId>, display: Option<Display>, since: Option<usize>) -> Arrival {
        let display = display.filter(|_| version >= DISPLAY_SINCE);
        let since = since.filter(|_| version >= RESUME_SINCE);
        Arrival { version, ruleset, display, previews: false, since, player: None }
    }
}

/// A joined connection: who it is, how its text is made, and the version it speaks.
#[derive(Debug, Clone, Copy)]
struct Reader {
    conn: Conn,
    role: Role,
    /// A terminal's display (`None`: plain text, a line when a turn starts, nothing wrapped:
    /// a script or a pipe).
    display: Option<Display>,
    /// Its views' listed moves come with their previews (version 6, asked for).
    previews: bool,
    /// The protocol version it speaks: it is sent no message of a later one.
    version: u32,
}

impl Reader {
    fn new(conn: Conn, role: Role, arrival: &Arrival) -> Reader {
        Reader { conn, role, display: arrival.display, previews: arrival.previews, version: arrival.version }
    }

    /// Whether it is a terminal (it gave a `display`).
    fn terminal(&self) -> bool {
        self.display.is_some()
    }

    /// A terminal sent `screen` messages (versions 3 to 5; a later one has them in its view).
    fn screened(&self) -> bool {
        self.terminal() && self.version < VIEW_SINCE
    }

    /// How the table renders for it ([`look_for`]).
    fn look(&self) -> tables::Look {
        look_for(self.display)
    }
}

/// How the table renders for a reader with `display`: a terminal as local play draws it (its
/// style and width, the turn shown by its board, each move's outcome in `moves`); without
/// one, plain, with a line when a turn starts and nothing wrapped.
fn look_for(display: Option<Display>) -> tables::Look {
    match display {
        None => tables::Look { turn_lines: true, previews: false, ..tables::Look::SCRIPT },
        Some(d) => {
            tables::Look { style: d.style(), width: d.width(), turn_lines: false, previews: true, board_follows: true }
        }
    }
}

/// A game with its seats, tokens and watchers.
pub struct Room {
    id: String,
    /// The seated game and its one interpreter ([`Table::line`]).
    table: Table,
    ruleset: RulesetId,
    /// The secret token of each seat people play (`None` for bot seats).
    tokens: Vec<Option<String>>,
    seats: Vec<SeatState>,
    /// Joined connections, in join order.
    conns: Vec<Reader>,
    options: RoomOptions,
    /// The ruleset as the host named it (for the next game at the table).
    spec: String,
    /// Which of the table's games this is, from 1.
    game: u32,
    /// Each seat's player in the host's database (persons, guests, bots); `None` for a seat
    /// no one has taken, or a room the database was not told of.
    players: Vec<Option<PlayerId>>,
    /// A table made in the lobby: a seat is taken by a player (`join` with `player`).
    lobby: bool,
    /// While the table waits for people: each seat's name (a bot's, or the person's who took
    /// it; `None` open). The game in `table` is a stand-in until then, never shown.
    waiting: Option<Vec<Option<String>>>,
    /// Once the game is over: the seats that asked for another.
    rematch: Vec<bool>,
    /// Since when no connection is in the room (`None`: someone is).
    empty_since: Option<Instant>,
}

/// A seat of a table made in the lobby ([`Room::waiting`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// A person's seat, open until someone takes it.
    Open,
    /// A person's seat, taken.
    Taken { name: String, player: PlayerId },
    /// A bot (its spec, like `greedy`).
    Bot { spec: String, player: Option<PlayerId> },
}

impl Room {
    /// A room for `session`; `tokens[seat]` is the token of each seat a person plays.
    pub fn new(id: &str, session: Session, tokens: Vec<Option<String>>, options: RoomOptions) -> Room {
        let seats = vec![SeatState::default(); session.game().player_count()];
        let ruleset = RulesetId::of(session.ruleset());
        let mut table = Table::new(session, Policy::network(options.allow_hints, options.limits.chat));
        table.set_away_bot(options.away_bot.clone());
        // Bots that move first (or a resumed game waiting on a bot) play now.
        table.run_bots(&mut Vec::new());
        let n = seats.len();
        let spec = table.session().spec().to_string();
        Room {
            id: id.to_string(),
            table,
            ruleset,
            tokens,
            seats,
            conns: Vec::new(),
            options,
            spec,
            game: 1,
            players: vec![None; n],
            lobby: false,
            waiting: None,
            rematch: vec![false; n],
            empty_since: None,
        }
    }

    /// A table made in the lobby, waiting for the people of its open seats (each person's
    /// seat gets a token): its game is dealt once every seat is taken, at once if none is
    /// open. `seed` deals that game.
    pub fn waiting(
        id: &str,
        spec: &str,
        plan: &[Plan],
        seed: u64,
        options: RoomOptions,
        now: Instant,
    ) -> Result<(Room, Outbox), String> {
        if plan.len() < 2 {
            return Err("a table needs at least 2 seats".into());
        }
        // The stand-in game checks the ruleset and the bots, and seats the table until the
        // game is dealt; its names are never shown.
        let stand_in: Vec<Seating> = plan
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Plan::Bot { spec, .. } => Seating { name: format!("seat{}", i + 1), bot: Some(spec.clone()) },
                _ => Seating { name: format!("seat{}", i + 1), bot: None },
            })
            .collect();
        let session = Session::new(spec, stand_in, seed, None)?;
        let tokens = plan.iter().map(|p| (!matches!(p, Plan::Bot { .. })).then(new_token)).collect();
        let mut room = Room::new(id, session, tokens, options);
        let names: Vec<Option<String>> = plan
            .iter()
            .map(|p| match p {
                Plan::Open => None,
                Plan::Taken { name, .. } => Some(name.clone()),
                Plan::Bot { spec, .. } => Some(spec.clone()),
            })
            .collect();
        // Bots are named as `--players bot:SPEC` names them (numbered when two are alike).
        let listed: Vec<String> = plan
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Plan::Bot { spec, .. } => format!("bot:{spec}"),
                Plan::Taken { name, .. } => name.clone(),
                Plan::Open => format!("seat{}", i + 1),
            })
            .collect();
        let named = seating::seating(Some(&listed)).map_err(|e| e.to_string())?;
        let names = names
            .into_iter()
            .zip(&named)
            .map(|(name, seat)| name.map(|n| if seat.bot.is_some() { seat.name.clone() } else { n }))
            .collect();
        room.players = plan
            .iter()
            .map(|p| match p {
                Plan::Open => None,
                Plan::Taken { player, .. } => Some(*player),
                Plan::Bot { player, .. } => *player,
            })
            .collect();
        room.lobby = true;
        room.waiting = Some(names);
        room.empty_since = Some(now);
        let mut out = Outbox::default();
        room.deal_if_seated(seed, &mut out);
        Ok((room, out))
    }

    /// A resumed table: which of its games this is, its seats' players, and whether it was
    /// made in the lobby (`names`: a waiting table's seats, `None` once its game is dealt).
    pub fn resumed(
        mut self,
        game: u32,
        names: Option<Vec<Option<String>>>,
        players: Vec<Option<PlayerId>>,
        lobby: bool,
        now: Instant,
    ) -> Room {
        self.game = game;
        self.lobby = lobby;
        self.players = players;
        if lobby {
            // No one is at a table brought back until someone comes: an abandoned or finished
            // lobby table closes in its time after a restart too.
            self.empty_since = Some(now);
        }
        if names.is_some() {
            self.waiting = names;
        }
        self
    }

    /// The room with these seat tokens (a resumed waiting table keeps the ones it gave).
    pub fn with_tokens(mut self, tokens: Vec<Option<String>>) -> Room {
        if tokens.len() == self.tokens.len() {
            self.tokens = tokens;
        }
        self
    }

    /// Tells the room who each seat's player is in the host's database.
    pub fn set_players(&mut self, players: Vec<Option<PlayerId>>) {
        self.players = players;
    }

    pub fn players(&self) -> &[Option<PlayerId>] {
        &self.players
    }

    /// Which of the table's games is on, from 1.
    pub fn game_number(&self) -> u32 {
        self.game
    }

    /// Whether the table waits for people to take its seats.
    pub fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    /// The names of a waiting table's seats (`None` open).
    pub fn waiting_names(&self) -> Option<&[Option<String>]> {
        self.waiting.as_deref()
    }

    /// Whether seats may ask for `hint` and `review`.
    pub fn allows_hints(&self) -> bool {
        self.options.allow_hints
    }

    pub fn is_lobby(&self) -> bool {
        self.lobby
    }

    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// Since when the room has had no connection (`None`: it has one now).
    pub fn empty_since(&self) -> Option<Instant> {
        self.empty_since
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn session(&self) -> &Session {
        self.table.session()
    }

    pub fn tokens(&self) -> &[Option<String>] {
        &self.tokens
    }

    pub fn ruleset(&self) -> &RulesetId {
        &self.ruleset
    }

    pub fn is_over(&self) -> bool {
        self.session().game().is_over()
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

    /// How the table renders for `conn` (plain for one that has not joined).
    fn look_of(&self, conn: Conn) -> tables::Look {
        look_for(self.reader(conn).and_then(|r| r.display))
    }

    fn version_of(&self, conn: Conn) -> u32 {
        self.reader(conn).map_or(OLDEST_PROTOCOL, |r| r.version)
    }

    fn caller(role: Role) -> Caller {
        match role {
            Role::Seat(s) => Caller::Seat(s),
            Role::Spectator => Caller::Spectator,
        }
    }

    /// What `role` may see: the table decides ([`Table::viewer`]).
    fn viewer(&self, role: Role) -> Viewer {
        self.table.viewer(Self::caller(role))
    }

    fn at(&self) -> usize {
        self.session().entries().len()
    }

    /// One message from `conn` (already within the size and rate limits), on a host that
    /// keeps no players.
    pub fn receive(&mut self, conn: Conn, text: &str, now: Instant) -> Outbox {
        self.receive_as(conn, text, now, &mut no_players)
    }

    /// [`Room::receive`], with the host's players: `identify` finds the player a `join`
    /// names.
    pub fn receive_as(&mut self, conn: Conn, text: &str, now: Instant, identify: &mut Identify) -> Outbox {
        let mut out = Outbox::default();
        let parsed = ClientMessage::parse(text);
        // What answers a message with an `id` carries it (version 4): a reader of an older
        // version, which has no `id`, is sent none.
        let version = match (self.reader(conn), &parsed.message) {
            (Some(reader), _) => Some(reader.version),
            (None, Ok(ClientMessage::Join { protocol, .. } | ClientMessage::Watch { protocol, .. })) => Some(*protocol),
            (None, _) => None,
        };
        out.answering = parsed.id.filter(|_| version.is_none_or(|v| v >= RESUME_SINCE)).map(|id| (conn, id));
        match parsed.message {
            Ok(message) => self.handle(conn, message, now, identify, &mut out),
            Err(e) => out.refuse(conn, Code::Malformed, &e),
        }
        out
    }

    fn handle(&mut self, conn: Conn, message: ClientMessage, now: Instant, identify: &mut Identify, out: &mut Outbox) {
        match (message, self.role(conn)) {
            (ClientMessage::Join { protocol, seat, token, ruleset, display, since, player, previews }, None) => {
                let mut arrival = Arrival::new(protocol, ruleset, display, since);
                arrival.player = player.filter(|_| protocol >= LOBBY_SINCE);
                arrival.previews = previews && protocol >= VIEW_SINCE;
                self.join(conn, arrival, seat, &token, now, identify, out)
            }
            (ClientMessage::Watch { protocol, ruleset, display, since }, None) => {
                self.watch(conn, Arrival::new(protocol, ruleset, display, since), out)
            }
            (ClientMessage::Display(_), Some(_)) if self.version_of(conn) < DISPLAY_SINCE => {
                out.refuse(conn, Code::Malformed, "'display' is a message of protocol 3 on")
            }
            (ClientMessage::SeatView, Some(_)) if self.version_of(conn) < SEAT_VIEW_SINCE => {
                out.refuse(conn, Code::Malformed, "'seat_view' is a message of protocol 2 on")
            }
            (ClientMessage::Display(display), Some(_)) => {
                if let Some(reader) = self.conns.iter_mut().find(|r| r.conn == conn) {
                    reader.display = Some(display);
                }
            }
            (ClientMessage::Join { .. } | ClientMessage::Watch { .. }, Some(_)) => {
                out.refuse(conn, Code::Joined, "this connection has already joined; open another one")
            }
            (_, None) => out.refuse(conn, Code::NotJoined, "send 'join' or 'watch' first"),
            (ClientMessage::Rematch, Some(_)) if self.version_of(conn) < LOBBY_SINCE => {
                out.refuse(conn, Code::Malformed, "'rematch' is a message of protocol 5 on")
            }
            (ClientMessage::Move { .. }, Some(_)) if self.version_of(conn) < VIEW_SINCE => {
                out.refuse(conn, Code::Malformed, "'move' is a message of protocol 6 on")
            }
            (_, Some(_)) if self.is_waiting() => {
                let open = self.open_seats().len();
                let message =
                    format!("the game starts when every seat is taken ({open} of {} still open)", self.seats.len());
                out.refuse(conn, Code::Waiting, &message);
            }
            (ClientMessage::Rematch, Some(role)) => self.ask_rematch(conn, role, out),
            (ClientMessage::Move { at, game, index }, Some(role)) => self.play_listed(conn, role, at, game, index, out),
            (ClientMessage::Command { line, seat }, Some(role)) => match (role, seat) {
                (Role::Seat(mine), Some(asked)) if asked != mine + 1 => {
                    let message = format!("this connection plays seat {}, not seat {asked}", mine + 1);
                    self.reply_error(conn, role, &message, out);
                }
                _ => self.command(conn, role, &line, out),
            },
            (ClientMessage::Say { text }, Some(role)) => self.say(conn, role, &text, out),
            (ClientMessage::SeatView, Some(role)) => self.seat_view(conn, role, out),
        }
    }

    /// `move` (version 6): the `index`th move of the reader's view of the state `at` moves in
    /// (of the table's game `game`): made as listed, or refused as `stale` once the game has
    /// moved on from that state (a stale move is no fault: it does not count toward the drop).
    fn play_listed(&mut self, conn: Conn, role: Role, at: usize, game: Option<u32>, index: usize, out: &mut Outbox) {
        if at != self.at() || game.is_some_and(|g| g != self.game) {
            let message = format!(
                "the game has moved on since the view you moved from (game {} at move {at}; it is at move {} of game {}): look again",
                game.unwrap_or(self.game),
                self.at(),
                self.game
            );
            out.send(conn, ServerMessage::error(Code::Stale, message, None));
            return;
        }
        let caller = Self::caller(role);
        let from = self.at();
        let mut replies = Vec::new();
        self.table.play_listed(caller, index, &mut replies);
        self.deliver(conn, role, &replies, from, out);
    }

    /// `conn` is gone (closed, dropped, replaced).
    pub fn leave(&mut self, conn: Conn, now: Instant) -> Outbox {
        let mut out = Outbox::default();
        let Some(role) = self.role(conn) else { return out };
        self.conns.retain(|r| r.conn != conn);
        if self.conns.is_empty() {
            self.empty_since = Some(now);
        }
        if self.is_waiting() {
            return out;
        }
        if let Role::Seat(seat) = role
            && self.seats[seat].conn == Some(conn)
        {
            self.seats[seat].conn = None;
            if !self.is_over() {
                self.seats[seat].away_since = Some(now);
                let name = self.session().game().name(seat).to_string();
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
        if self.is_over() || self.is_waiting() {
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
                self.table.set_away(seat, true);
                let name = self.session().game().name(seat).to_string();
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

    /// One line from the player in `seat` (or a spectator): the table interprets it.
    fn command(&mut self, conn: Conn, role: Role, line: &str, out: &mut Outbox) {
        let caller = Self::caller(role);
        let asked = self.table.question(caller).is_some();
        let from = self.at();
        let mut replies = Vec::new();
        self.table.line(caller, line, &mut replies);
        let told = self.deliver(conn, role, &replies, from, out);
        // Another command dropped the question: the view has none (Tab completes commands again).
        if asked && self.table.question(caller).is_none() && !told {
            self.tell_view(conn, out);
        }
    }

    /// What the table answered `conn`: the moves made go to every reader (each as it may
    /// see them), chat to the room, bot warnings to the host's log, the rest to `conn`.
    /// Whether `conn` was sent a new screen.
    fn deliver(&mut self, conn: Conn, role: Role, replies: &[Reply], from: usize, out: &mut Outbox) -> bool {
        let look = self.look_of(conn);
        let viewer = self.viewer(role);
        let mut mine = Rendered::default();
        let mut moved = false;
        let mut asked = false;
        let mut bye = false;
        let mut rematch = false;
        for reply in replies {
            match reply {
                Reply::Opened(_) | Reply::Moved { .. } => moved = true,
                Reply::Rematch => rematch = true,
                Reply::BotWarning(message) | Reply::BotStuck(message) => {
                    out.log.push(format!("room {}: {message}", self.id))
                }
                Reply::ModFailed { .. } => self.tell_mod_failure(reply, out),
                Reply::Chat { .. } => {
                    for r in &self.conns {
                        let told = self.table.render(reply, self.viewer(r.role), &r.look());
                        out.output(r.conn, self.at(), told.json, told.text);
                    }
                }
                reply => {
                    out.refused |= matches!(reply, Reply::Refused(_));
                    asked |= matches!(reply, Reply::Question(_));
                    bye |= matches!(reply, Reply::Quit);
                    let told = self.table.render(reply, viewer, &look);
                    mine.json.extend(told.json);
                    mine.text.extend(told.text);
                }
            }
        }
        if !mine.json.is_empty() || !mine.text.is_empty() {
            // A question asked is a change: the asker's view has it (Tab completes its choices).
            let view = if asked { self.reader(conn).and_then(|r| self.view_for(r)) } else { None };
            out.output_viewed(conn, self.at(), mine.json, mine.text, view);
        }
        if bye {
            out.close.push((conn, Close::Bye));
        }
        if asked {
            self.send_screen(conn, out);
        }
        if moved {
            self.tell_moves(from, out);
            self.tell_screens(out);
        }
        if rematch {
            if self.version_of(conn) < LOBBY_SINCE {
                self.reply_error(conn, role, "'rematch' is a message of protocol 5 on", out);
            } else {
                self.ask_rematch(conn, role, out);
            }
        }
        asked || moved
    }

    fn say(&mut self, conn: Conn, role: Role, text: &str, out: &mut Outbox) {
        let mut replies = Vec::new();
        self.table.chat(Self::caller(role), text, &mut replies);
        let from = self.at();
        self.deliver(conn, role, &replies, from, out);
    }

    /// Lets bot seats, and the away bot for seats it plays, move until a person is to move.
    fn run_bots(&mut self, out: &mut Outbox) {
        let mut replies = Vec::new();
        self.table.run_bots(&mut replies);
        for reply in &replies {
            match reply {
                Reply::BotWarning(message) | Reply::BotStuck(message) => {
                    out.log.push(format!("room {}: {message}", self.id));
                }
                Reply::ModFailed { .. } => self.tell_mod_failure(reply, out),
                _ => {}
            }
        }
    }

    /// A mod's failure found in play (a bot weighing a listed move, a bot's move): told to
    /// every reader as it may read it, and logged whole (the host sees every card).
    fn tell_mod_failure(&self, reply: &Reply, out: &mut Outbox) {
        if let Reply::ModFailed { what, error } = reply {
            out.log.push(format!("room {}: a mod failed {what}: {}", self.id, Viewer::Everyone.failure(error)));
        }
        for r in &self.conns {
            let told = self.table.render(reply, self.viewer(r.role), &r.look());
            out.output(r.conn, self.at(), told.json, told.text);
        }
    }
}
