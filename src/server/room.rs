//! One game on the server, as a state machine without I/O: connections join seats or watch,
//! send lines, leave; the room answers with the messages to send ([`Outbox`]). It knows no
//! socket, no clock (the caller passes `now`) and no file (it says when the game changed, and
//! the caller saves it), so tests drive it directly, away timers included.
//!
//! A room is a [`Table`] with connections: every line a seat or spectator sends goes to the
//! table's one interpreter ([`Table::line`], under [`Policy::network`]), and the room delivers
//! the replies — the moves to every reader, chat to the room, bot warnings to the host's log,
//! the rest to the sender — each rendered for its reader by [`Table::render`] with the
//! reader's [`Viewer`] (which the table decides). The browser seat's snapshot comes from
//! [`web::seat_view`] (a pure function of the game and the reader). No message carries
//! the seed, the deck or a hand its reader may not see; bot warnings (which can name a bot's
//! cards) go to the host's log only.

use std::time::{Duration, Instant};

use serde_json::json;

use super::db::PlayerId;
use super::view;
use crate::core::{Seat, Viewer};
use crate::table::completion::Words;
use crate::table::json::{self as js, Object};
use crate::table::render::{self, Style};
use crate::table::reply::{question_json, summary_lines_styled};
use crate::table::seating::{self, Seating};
use crate::table::session::Session;
use crate::table::{self as tables, Caller, Policy, Rendered, Reply, Table};
use crate::wire::server::{self as msg, SeatLine, TableLine, TableState};
use crate::wire::{
    ClientMessage, Close, Code, DISPLAY_SINCE, Display, HostLimits, Id, LOBBY_SINCE, OLDEST_PROTOCOL, PROTOCOL, Player,
    RESUME_SINCE, RulesetId, SEAT_VIEW_SINCE, SeatAsked, ServerMessage, VIEW_SINCE,
};

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
    pub records: Vec<Record>,
    /// What the lobby lists of this table changed (its seats, its state).
    pub listed: bool,
    /// The connection whose message is being answered and that message's `id`: every
    /// `output` and `error` made for that connection while it is answered carries it.
    answering: Option<(Conn, Id)>,
}

/// A change to a table that the host's database keeps ([`super::db::Change`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
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

/// How a reader's text is made: plain, with a line when a turn starts and nothing wrapped
/// (a script or a pipe), or for a terminal as local play draws it (its style and width, the
/// turn shown by the board of a `screen` message instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Look {
    style: Style,
    width: Option<usize>,
    terminal: bool,
    /// Its views' listed moves come with their previews (version 6, asked for).
    previews: bool,
}

impl Look {
    const PLAIN: Look = Look { style: Style::PLAIN, width: None, terminal: false, previews: false };

    fn of(display: Option<Display>) -> Look {
        match display {
            None => Look::PLAIN,
            Some(d) => Look { style: d.style(), width: d.width(), terminal: true, previews: false },
        }
    }

    fn wrap(&self, text: &str) -> String {
        match self.width {
            Some(width) => render::wrap(text, width),
            None => text.to_string(),
        }
    }

    /// The table's look for this reader: a terminal is shown the turn on its board and
    /// each move's outcome in `moves`.
    fn table(&self) -> tables::Look {
        tables::Look {
            style: self.style,
            width: self.width,
            turn_lines: !self.terminal,
            previews: self.terminal,
            board_follows: self.terminal,
        }
    }
}

/// What a `join` or `watch` asks besides the seat.
struct Hello {
    version: u32,
    ruleset: Option<RulesetId>,
    look: Look,
    /// The moves the client says it has seen (version 4).
    since: Option<usize>,
    /// Who the client says it is (version 5).
    player: Option<Player>,
}

impl Hello {
    /// A `join` or `watch` as the client's version reads it: a `display` from version 3 on,
    /// `since` from version 4 on (an older client's is an unknown field, ignored).
    fn new(version: u32, ruleset: Option<RulesetId>, display: Option<Display>, since: Option<usize>) -> Hello {
        let display = display.filter(|_| version >= DISPLAY_SINCE);
        let since = since.filter(|_| version >= RESUME_SINCE);
        Hello { version, ruleset, look: Look::of(display), since, player: None }
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

impl Reader {
    /// A terminal sent `screen` messages (versions 3 to 5; a later one has them in its view).
    fn screened(&self) -> bool {
        self.look.terminal && self.version < VIEW_SINCE
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

    /// The open seats of a waiting table, 0-based.
    pub fn open_seats(&self) -> Vec<Seat> {
        match &self.waiting {
            Some(names) => (0..names.len()).filter(|&s| names[s].is_none()).collect(),
            None => Vec::new(),
        }
    }

    /// Who sits where: the people (or `None` for an open seat) and the bots.
    fn seat_lines(&self) -> Vec<SeatLine> {
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
            watch: format!("/{}", self.id),
        }
    }

    /// Deals the waiting table's game once every seat is taken: each joined connection is
    /// sent its `hello` and the game's start.
    fn deal_if_seated(&mut self, seed: u64, out: &mut Outbox) {
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
    fn begin(&mut self, session: Session, out: &mut Outbox) {
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
        out.records.push(Record::Dealt);
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
    fn waiting_message(&self) -> ServerMessage {
        ServerMessage::Waiting(msg::Waiting {
            room: self.id.clone(),
            seats: self.seat_lines(),
            open: self.open_seats().len(),
        })
    }

    fn tell_waiting(&self, out: &mut Outbox) {
        let message = self.waiting_message();
        for r in &self.conns {
            out.send(r.conn, message.clone());
        }
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

    fn look_of(&self, conn: Conn) -> Look {
        self.reader(conn).map_or(Look::PLAIN, |r| r.look)
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
                let mut hello = Hello::new(protocol, ruleset, display, since);
                hello.player = player.filter(|_| protocol >= LOBBY_SINCE);
                hello.look.previews = previews && protocol >= VIEW_SINCE;
                self.join(conn, hello, seat, &token, now, identify, out)
            }
            (ClientMessage::Watch { protocol, ruleset, display, since }, None) => {
                self.watch(conn, Hello::new(protocol, ruleset, display, since), out)
            }
            (ClientMessage::Display(_), Some(_)) if self.version_of(conn) < DISPLAY_SINCE => {
                out.refuse(conn, Code::Malformed, "'display' is a message of protocol 3 on")
            }
            (ClientMessage::SeatView, Some(_)) if self.version_of(conn) < SEAT_VIEW_SINCE => {
                out.refuse(conn, Code::Malformed, "'seat_view' is a message of protocol 2 on")
            }
            (ClientMessage::Display(display), Some(_)) => {
                if let Some(reader) = self.conns.iter_mut().find(|r| r.conn == conn) {
                    reader.look = Look { previews: reader.look.previews, ..Look::of(Some(display)) };
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

    /// `seat_view` (versions 2 to 5; a reader of version 6 is pushed its view): the reader's
    /// view, in an `output` of its own.
    fn seat_view(&self, conn: Conn, role: Role, out: &mut Outbox) {
        let view = view::view(&self.table, Self::caller(role), self.game, None, true);
        let view = serde_json::to_value(&view).expect("a view serialises");
        self.reply(conn, vec![Object::one("seat_view", view)], Vec::new(), out);
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

    /// The view a reader of version 6 is pushed (none for an older one).
    fn view_for(&self, reader: &Reader) -> Option<Box<msg::View>> {
        (reader.version >= VIEW_SINCE).then(|| {
            let terminal = reader.look.terminal.then(|| reader.look.table());
            let caller = Self::caller(reader.role);
            Box::new(view::view(&self.table, caller, self.game, terminal.as_ref(), reader.look.previews))
        })
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

    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        conn: Conn,
        hello: Hello,
        seat: SeatAsked,
        token: &str,
        now: Instant,
        identify: &mut Identify,
        out: &mut Outbox,
    ) {
        if let Err((code, message)) = self.check_hello(&hello, true) {
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
        if let Some(player) = &hello.player {
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
        self.conns.push(Reader { conn, role: Role::Seat(s), look: hello.look, version: hello.version });
        self.empty_since = None;
        self.seats[s].conn = Some(conn);
        if self.is_waiting() {
            self.tell_waiting(out);
            self.deal_if_seated(rand::random::<u64>() >> 12, out);
            return;
        }
        let was_away = self.seats[s].away_since.take().is_some();
        let bot_was_playing = std::mem::take(&mut self.seats[s].bot_playing);
        self.table.set_away(s, false);
        let _ = now;
        out.send(conn, self.hello(hello.version, Some(s)));
        let name = self.session().game().name(s).to_string();
        if was_away {
            let line = Object::one("back", Object::one("player", json!(name)));
            let text =
                if bot_was_playing { format!("{name} is back (the bot stops)") } else { format!("{name} is back") };
            self.tell_others(conn, &[line], &[text], out);
        }
        let from = if hello.version >= RESUME_SINCE { hello.since } else { self.seats[s].told };
        self.catch_up(conn, Role::Seat(s), from, out);
        // A page reloaded after the game is told who asked for another already.
        if hello.version >= LOBBY_SINCE && self.is_over() && self.rematch.iter().any(|&r| r) {
            out.send(conn, self.rematch_message());
        }
    }

    /// `player` takes seat `s`, or shows it is theirs: an open seat of a waiting table is
    /// taken under their name (no other seat's name may look like it); a taken seat must be
    /// theirs; at a table made at start-up the seat is rated as theirs from now on.
    fn claim(&mut self, s: Seat, player: &Player, identify: &mut Identify) -> Result<(), (Code, String)> {
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
    pub fn reserve(
        &mut self,
        seat: Option<Seat>,
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
        let s = match seat {
            None => open[0],
            Some(s) if open.contains(&s) => s,
            Some(s) => return Err(format!("seat {} of table {} is not open", s + 1, self.id)),
        };
        self.sit_open(s, player, name)?;
        out.records.push(Record::Sat { seat: s, player });
        out.listed = true;
        self.tell_waiting(out);
        Ok(s)
    }

    /// Whether `name` may sit at this waiting table: no name seated here looks like it (the
    /// host's rule for players' names, [`super::db::skeleton`]).
    fn check_look_alike(&self, name: &str) -> Result<(), String> {
        let mut taken = self.waiting.iter().flatten().flatten();
        match taken.find(|t| super::db::skeleton(t) == super::db::skeleton(name)) {
            Some(other) => Err(format!("'{other}' sits at table {} already: pick another name", self.id)),
            None => Ok(()),
        }
    }

    /// `player`, named `name`, takes open seat `s` of this waiting table, unless they have a
    /// seat at it already or a name there looks like theirs.
    fn sit_open(&mut self, s: Seat, player: PlayerId, name: &str) -> Result<(), String> {
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

    /// A seat asks for another game at this table once this one is over; when every person
    /// has asked, it is dealt ([`Room::rematch_now`]).
    fn ask_rematch(&mut self, conn: Conn, role: Role, out: &mut Outbox) {
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
    fn rematch_message(&self) -> ServerMessage {
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

    fn watch(&mut self, conn: Conn, hello: Hello, out: &mut Outbox) {
        if let Err((code, message)) = self.check_hello(&hello, false) {
            return out.end(conn, code, &message);
        }
        let watching = self.conns.iter().filter(|r| r.role == Role::Spectator).count();
        if watching >= self.options.limits.spectators {
            let message = format!("room {} has {watching} spectators already (the most it holds)", self.id);
            return out.end(conn, Code::Full, &message);
        }
        self.conns.push(Reader { conn, role: Role::Spectator, look: hello.look, version: hello.version });
        self.empty_since = None;
        if self.is_waiting() {
            out.send(conn, self.waiting_message());
            return;
        }
        out.send(conn, self.hello(hello.version, None));
        self.catch_up(conn, Role::Spectator, hello.since, out);
    }

    /// Whether a client may come in with `hello` to take a seat (`joining`) or watch: a
    /// version the server speaks (a lobby table's seats, and a table still waiting for its
    /// seats, need the lobby's version: older clients know no waiting, rematch or player),
    /// and the room's ruleset.
    fn check_hello(&self, hello: &Hello, joining: bool) -> Result<(), (Code, String)> {
        let version = hello.version;
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
        if let Some(asked) = &hello.ruleset {
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

    /// `hello`, in the version the client speaks.
    fn hello(&self, version: u32, seat: Option<Seat>) -> ServerMessage {
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
    fn catch_up(&mut self, conn: Conn, role: Role, told: Option<usize>, out: &mut Outbox) {
        let viewer = self.viewer(role);
        let look = self.look_of(conn);
        // A client that saw more moves than the host has: the host lost its last moves.
        let lost = told.map_or(0, |k| k.saturating_sub(self.at()));
        let told = told.map(|k| k.min(self.at()));
        let from = told.unwrap_or(0);
        let (mut lines, mut text) = self.render_moves(from, told.is_none(), viewer, look);
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
            if !look.terminal {
                text.push(self.board(viewer, look));
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

    fn state(&self, viewer: Viewer) -> Object {
        js::state_for(&crate::core::Observation::of(self.session().game(), viewer), self.session().bots())
    }

    fn board(&self, viewer: Viewer, look: Look) -> String {
        self.table.board(viewer, &look.table()).trim_end().to_string()
    }

    /// What a terminal shows around the narration (protocol 3): the board as this reader may
    /// see it, the end-of-game summary, and what Tab completes — the reader's hand, the
    /// table, its legal plays as the commands that play them, a pending question's choices.
    fn screen(&self, role: Role, look: Look) -> ServerMessage {
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
    fn tell_screens(&self, out: &mut Outbox) {
        for r in self.conns.iter().filter(|r| r.screened()) {
            out.send(r.conn, self.screen(r.role, r.look));
        }
    }

    /// A `screen` to `conn`, if it is a terminal of versions 3 to 5.
    fn send_screen(&self, conn: Conn, out: &mut Outbox) {
        if let Some(r) = self.reader(conn).filter(|r| r.screened()) {
            out.send(conn, self.screen(r.role, r.look));
        }
    }

    /// What changed for `conn` alone (a question asked or dropped): its view (version 6),
    /// or its screen (a terminal of versions 3 to 5).
    fn tell_view(&self, conn: Conn, out: &mut Outbox) {
        match self.reader(conn).and_then(|r| self.view_for(r)) {
            Some(view) => out.output_viewed(conn, self.at(), Vec::new(), Vec::new(), Some(view)),
            None => self.send_screen(conn, out),
        }
    }

    /// Events as `viewer` sees them: JSON Lines objects and narration.
    /// The moves from `from` on (after the game's start when `with_start`) as `viewer` may
    /// read them, a stand-in bot's move told as the bot's ([`Table::told`]).
    fn render_moves(&self, from: usize, with_start: bool, viewer: Viewer, look: Look) -> (Vec<Object>, Vec<String>) {
        let look = look.table();
        let told = self.table.told(from..self.at(), with_start, viewer, &look, look.turn_lines);
        (told.json, told.text)
    }

    fn reply(&self, conn: Conn, lines: Vec<Object>, text: Vec<String>, out: &mut Outbox) {
        out.output(conn, self.at(), lines, text);
    }

    /// A command refused (out of turn, illegal, unknown, not for a spectator): an `error`
    /// object in an `output`, which counts toward the connection's drop.
    fn reply_error(&self, conn: Conn, _role: Role, message: &str, out: &mut Outbox) {
        out.refused = true;
        let text = self.look_of(conn).table().error(message);
        self.reply(conn, vec![Object::one("error", json!(message))], vec![text], out);
    }

    fn tell_all(&self, lines: &[Object], text: &[String], out: &mut Outbox) {
        for r in &self.conns {
            let text: Vec<String> = text.iter().map(|t| r.look.wrap(t)).collect();
            out.output(r.conn, self.at(), lines.to_vec(), text);
        }
    }

    fn tell_others(&self, me: Conn, lines: &[Object], text: &[String], out: &mut Outbox) {
        for r in self.conns.iter().filter(|r| r.conn != me) {
            let text: Vec<String> = text.iter().map(|t| r.look.wrap(t)).collect();
            out.output(r.conn, self.at(), lines.to_vec(), text);
        }
    }

    /// Tells every reader the moves from `from` on, each as it may see them.
    fn tell_moves(&mut self, from: usize, out: &mut Outbox) {
        if from >= self.at() {
            return;
        }
        out.changed = true;
        let mut told = Vec::new();
        for r in &self.conns {
            let (lines, text) = self.render_moves(from, false, self.viewer(r.role), r.look);
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
                Reply::Chat { .. } => {
                    for r in &self.conns {
                        let told = self.table.render(reply, self.viewer(r.role), &r.look.table());
                        out.output(r.conn, self.at(), told.json, told.text);
                    }
                }
                reply => {
                    out.refused |= matches!(reply, Reply::Refused(_));
                    asked |= matches!(reply, Reply::Question(_));
                    bye |= matches!(reply, Reply::Quit);
                    let told = self.table.render(reply, viewer, &look.table());
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
        for reply in replies {
            if let Reply::BotWarning(message) | Reply::BotStuck(message) = reply {
                out.log.push(format!("room {}: {message}", self.id));
            }
        }
    }
}

/// The bots a lobby table may seat.
pub const BOTS: [&str; 3] = ["greedy", "random", "mcts"];

/// Whether `name` can be a player's in the lobby: the name rules of `--players`, and nothing
/// a seat list would read as a bot (`bot:greedy`, or a bot's own name).
pub fn check_player_name(name: &str) -> Result<(), String> {
    seating::check_name(name)?;
    if name.contains(':') {
        return Err(format!("'{name}' has a ':' (bot:NAME names a bot), which a player's name cannot have"));
    }
    if BOTS.iter().any(|b| b.eq_ignore_ascii_case(name)) {
        return Err(format!("'{name}' is the name of a bot; pick another"));
    }
    Ok(())
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
