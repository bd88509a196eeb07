//! The lobby (`ws://HOST:PORT/lobby`, PROTOCOL.md *The lobby*) as a state machine without
//! I/O, as a [`Room`] is one: the rulesets the host offers, the listing of its tables, the
//! invite codes, who made which waiting table, and every decision about a visitor's message
//! ([`Lobby::receive`]). It knows no socket, no clock and no database: a visitor's name is
//! looked up through the [`Register`] its caller passes in, and what needs the host's other
//! parts — making a table, keeping a seat in a room, reading the ratings — comes back as a
//! [`Request`] the edge carries out (`server::hub`), answering with [`seated`] or a
//! ratings message. So tests drive it directly.
//!
//! Fair under strangers: besides each connection, each player and each address ([`Source`])
//! is held to limits on the tables it makes and keeps waiting and on the new players it
//! brings ([`fair`]), so that a flood from one address never refuses a player
//! from another. The time is an input ([`Lobby::receive`]'s `now`), as a room's is.
//!
//! Invites hold: the open seats a maker keeps for the people they invite (all of them unless
//! the `create` says fewer) each have a code, and are taken only with it (or by the invited
//! player's own link); `sit` takes the other open seats only. A visitor is listed what it
//! may act on: a waiting table only once it has a name, and only if it may sit there or sits
//! there already; tables playing or over to anyone (to watch). A named visitor's own tables
//! (waiting, playing or over, until they close) come first, each with the way back to its
//! seat ([`YourSeat`]: the seat's token, which only the player sitting there is listed).
//!
//! A second device: a named visitor asks for a one-time transfer code ([`Lobby::transfer`],
//! a new one replacing the one before; `revoke` cancels it); redeemed once (`redeem`) within
//! [`HostLimits::transfer_secs`], it gives the redeeming connection the player's name and key
//! (`identity`), which both devices then hold, like a password on two devices. A code that is
//! wrong, used, expired, replaced or revoked is refused saying which, and counts toward its
//! address's tries ([`HostLimits::transfer_attempts_per_hour`]), so that codes cannot be
//! guessed; a code moves a player the host knows, so it is no way around the new keys'
//! limit. The codes live here, in memory: a host that restarts forgets them.
//!
//! A stranger's `create` names only what the host offers: one of its rulesets by `id`, and
//! built-in bots by name (never a Lua bot's path, which would be a file on the host). A
//! ruleset a player brings (`upload`) is checked by the edge (`server::upload`) and then
//! offered like the host's own ([`Lobby::offer`]).

use std::collections::{BTreeMap, HashMap};

use std::time::Instant;

use super::db::{PlayerId, Registered};
use super::fair::{self, Counts, Source};
pub use super::room::BOTS;
use super::room::{Plan, Room, check_player_name};
use crate::core::Seat;
use crate::wire::server::{
    self as msg, Identity, Invite, ModSecrets, Offered, TableLine, TableState, Transfer, TransferCode, You, YourSeat,
};
use crate::wire::{
    Close, Code, HostLimits, Id, LOBBY_SINCE, LobbyMessage, PROTOCOL, Parsed, Player, ServerMessage, TRANSFER_SINCE,
    UploadFile,
};

/// The most seats a lobby table has (the most any shipped ruleset seats).
pub const MAX_SEATS: usize = 8;

/// The most tables one `lobby` message lists (`more_tables` says how many are left out).
pub const MAX_LISTED: usize = 200;

/// The most rulesets brought by players one `lobby` message lists, the latest first (an
/// older one can still be named in `create`, and its leaderboard read).
pub const MAX_UPLOADS_LISTED: usize = 40;

/// A ruleset the host offers.
#[derive(Debug, Clone)]
pub struct HostedRuleset {
    /// What a `create` names it by: its shown name.
    pub id: String,
    /// How the host loads it (a shipped name or a path).
    pub spec: String,
    /// The file's own `name` (`"House rules"`), else the id.
    pub title: String,
    pub about: Option<String>,
    /// The first line of `DIR/balance/ID.txt`, where the host keeps a verdict of `diving sim`.
    pub balance: Option<String>,
    pub seats: (usize, usize),
    /// A ruleset a player brought: the SHA-256 of its files.
    pub hash: Option<String>,
    /// What each of its mods reads and reveals, when the host checked it so.
    pub mods: Vec<ModSecrets>,
}

impl HostedRuleset {
    /// The ruleset as the lobby offers it.
    pub fn offered(&self) -> Offered {
        Offered {
            id: self.id.clone(),
            name: self.title.clone(),
            about: self.about.clone(),
            balance: self.balance.clone(),
            seats: [self.seats.0, self.seats.1],
            hash: self.hash.clone(),
            mods: self.mods.clone(),
        }
    }
}

/// A player the lobby knows: the name they go by and their row in the host's database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Me {
    pub name: String,
    pub player: PlayerId,
}

/// Finds the player a `lobby` hello names by name and key; the flag says whether a key the
/// host does not know may be registered ([`Registered::NotNew`] when not).
pub type Register<'a> = dyn FnMut(&Player, bool) -> Result<Registered, String> + 'a;

/// One lobby connection, as the lobby knows it.
#[derive(Debug, Clone, Default)]
pub struct Visitor {
    /// Where it comes from.
    pub from: Source,
    /// It said `lobby`.
    pub hello: bool,
    /// Who it is (`None`: looking only).
    pub me: Option<Me>,
    /// Tables it made.
    pub made: usize,
    /// The protocol its hello spoke.
    pub protocol: u32,
    /// The key it said hello with (what a transfer code it asks for moves).
    pub key: Option<String>,
}

/// A table as a `create` asks for it, checked against what the host offers.
#[derive(Debug, Clone)]
pub struct Order {
    /// The new room's name (kept for it in the lobby: given back with [`Lobby::unlist`] if
    /// the table cannot be made).
    pub room: String,
    pub spec: String,
    pub plan: Vec<Plan>,
    pub hints: bool,
    /// How many of the open seats (the first ones) are kept for invites, each given a code.
    pub invites: usize,
    /// Who asked: they take seat 1.
    pub maker: Me,
}

/// What the lobby needs of the host's other parts to answer a message.
#[derive(Debug, Clone)]
pub enum Request {
    /// Make this table; `seated` answers the maker once it is kept.
    Create(Order),
    /// Keep seat `seat` (0-based; the first open one when `None`) of `room` for `me`, never
    /// one of `held` (kept for invites: [`Room::reserve`]); `seated` answers once it is kept.
    Sit { room: String, seat: Option<Seat>, held: Vec<Seat>, me: Me },
    /// The leaderboard of a ruleset.
    Ratings { ruleset: String },
    /// A new transfer code for `me`, whose key is `key` ([`Lobby::transfer`]: the edge has
    /// the random source); `transfer` answers.
    Transfer { me: Me, key: String },
    /// Check the ruleset `me` brought and offer it (`server::upload`).
    Upload { files: Vec<UploadFile>, me: Me },
}

/// What a message to the lobby comes to.
#[derive(Debug, Default)]
pub struct LobbyOut {
    /// Messages to the visitor, in order.
    pub sent: Vec<ServerMessage>,
    /// The connection closes after them.
    pub close: Option<Close>,
    /// The message was refused: it counts toward the connection's drop.
    pub refused: bool,
    /// What the edge does next, answering with the message's `id`.
    pub request: Option<(Request, Option<Id>)>,
}

impl LobbyOut {
    fn refuse(code: Code, message: &str, id: Option<Id>) -> LobbyOut {
        LobbyOut { sent: vec![ServerMessage::error(code, message, id)], refused: true, ..LobbyOut::default() }
    }

    fn request(request: Request, id: Option<Id>) -> LobbyOut {
        LobbyOut { request: Some((request, id)), ..LobbyOut::default() }
    }
}

/// A seat of a listed table: its player (`None`: open) and its token.
type SeatHeld = (Option<PlayerId>, Option<String>);

/// How many letters and digits a transfer code has: 31 symbols each, about 59 bits.
pub const TRANSFER_LETTERS: usize = 12;

/// The most spent transfer codes the lobby remembers (to say why one no longer works): past
/// it, a spent code is refused as an unknown one, so that a flood of `transfer` messages
/// cannot grow the host's memory.
pub const MAX_SPENT: usize = 10_000;

/// A transfer code's player, until it expires.
#[derive(Debug, Clone)]
struct Pass {
    player: PlayerId,
    name: String,
    key: String,
    until: Instant,
}

/// Why a transfer code no longer works (kept an hour, to say so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spent {
    Used,
    Expired,
    Replaced,
    Revoked,
}

/// The lobby's state: what every lobby connection is shown, and what it decides.
pub struct Lobby {
    offers: Vec<HostedRuleset>,
    /// It takes rulesets its players bring.
    uploads: bool,
    limits: HostLimits,
    /// Each table's line of the listing, by room number.
    listing: BTreeMap<(usize, String), TableLine>,
    /// Who made each waiting lobby table, and from where (for the limits per player and
    /// per address).
    makers: HashMap<String, (PlayerId, Source)>,
    /// What each address and player did in the last hour.
    counts: Counts,
    /// Each seat of each table: its player and its token (for what a visitor is listed,
    /// and the way back to their own seats).
    seated: HashMap<String, Vec<SeatHeld>>,
    /// The invite code of each open seat given one: `(room, seat)`.
    codes: HashMap<String, (String, Seat)>,
    /// The transfer codes that work, at most one per player …
    transfers: HashMap<String, Pass>,
    /// … and those that no longer do, with when they stopped.
    spent: HashMap<String, (Spent, Instant)>,
    next_room: u64,
}

impl Lobby {
    /// A lobby offering `offers` under `limits`, numbering new rooms on from `last_room`.
    pub fn new(offers: Vec<HostedRuleset>, limits: HostLimits, last_room: u64) -> Lobby {
        Lobby {
            offers,
            uploads: false,
            limits,
            listing: BTreeMap::new(),
            makers: HashMap::new(),
            counts: Counts::default(),
            seated: HashMap::new(),
            codes: HashMap::new(),
            transfers: HashMap::new(),
            spent: HashMap::new(),
            next_room: last_room + 1,
        }
    }

    pub fn offers(&self) -> &[HostedRuleset] {
        &self.offers
    }

    /// Takes rulesets its players bring (`upload`), or not.
    pub fn take_uploads(&mut self, on: bool) {
        self.uploads = on;
    }

    /// Offers `ruleset` too (a ruleset a player brought, checked), unless it is offered
    /// already; whether it is new.
    pub fn offer(&mut self, ruleset: HostedRuleset) -> bool {
        if self.offers.iter().any(|o| o.id == ruleset.id) {
            return false;
        }
        self.offers.push(ruleset);
        true
    }

    /// What new tables may be made with: the host's own rulesets, and those its players
    /// brought while it takes them (a host resumed with `--no-uploads` keeps playing the
    /// tables that have one, but offers none of them again).
    fn offering(&self) -> impl DoubleEndedIterator<Item = &HostedRuleset> {
        self.offers.iter().filter(|o| o.hash.is_none() || self.uploads)
    }

    /// The offer named `id`.
    pub fn offered(&self, id: &str) -> Option<&HostedRuleset> {
        self.offers.iter().find(|o| o.id == id)
    }

    /// The name of the next new room.
    pub fn next_room(&mut self) -> String {
        let id = self.next_room;
        self.next_room += 1;
        id.to_string()
    }

    /// Numbers new rooms past `id` too (a room made at start-up or resumed).
    pub fn seen_room(&mut self, id: &str) {
        if let Ok(n) = id.parse::<u64>() {
            self.next_room = self.next_room.max(n + 1);
        }
    }

    fn key(id: &str) -> (usize, String) {
        (id.len(), id.to_string())
    }

    /// The room's line of the listing is new or changed.
    pub fn list(&mut self, room: &Room) {
        self.listing.insert(Self::key(room.id()), room.summary());
        let seats = room.players().iter().copied().zip(room.tokens().iter().cloned()).collect();
        self.seated.insert(room.id().to_string(), seats);
        if !room.is_waiting() {
            self.makers.remove(room.id());
        }
    }

    /// The room is closed.
    pub fn unlist(&mut self, id: &str) {
        self.listing.remove(&Self::key(id));
        self.seated.remove(id);
        self.makers.remove(id);
        self.codes.retain(|_, (room, _)| room != id);
    }

    /// How many tables the lobby lists (every table the host holds).
    pub fn tables(&self) -> usize {
        self.listing.len()
    }

    /// How many waiting tables `player` made.
    pub fn waiting_made_by(&self, player: PlayerId) -> usize {
        self.makers.values().filter(|(p, _)| *p == player).count()
    }

    /// How many waiting tables were made from `from`.
    pub fn waiting_made_from(&self, from: Source) -> usize {
        self.makers.values().filter(|(_, s)| *s == from).count()
    }

    /// The clock moved on to `now`: what is an hour old is forgotten.
    pub fn tick(&mut self, now: Instant) {
        self.counts.forget(now);
        self.expire(now);
        self.spent.retain(|_, (_, at)| now.saturating_duration_since(*at) < fair::HOUR);
    }

    /// One message from `visitor` (already within the size and rate limits) at `now`:
    /// answered, or a [`Request`] for the edge. `register` finds the player a `lobby` hello
    /// names.
    pub fn receive(
        &mut self,
        visitor: &mut Visitor,
        parsed: Parsed<LobbyMessage>,
        register: &mut Register,
        now: Instant,
    ) -> LobbyOut {
        let id = parsed.id;
        let message = match parsed.message {
            Ok(message) => message,
            Err(e) => return LobbyOut::refuse(Code::Malformed, &e, id),
        };
        let me = match message {
            LobbyMessage::Lobby { protocol, name, key } => {
                return self.hello(visitor, protocol, name, key, register, now, id);
            }
            _ if !visitor.hello => return LobbyOut::refuse(Code::NotJoined, "send 'lobby' first", id),
            LobbyMessage::Ratings { ruleset } => return LobbyOut::request(Request::Ratings { ruleset }, id),
            LobbyMessage::Transfer | LobbyMessage::Revoke | LobbyMessage::Redeem { .. }
                if visitor.protocol < TRANSFER_SINCE =>
            {
                let message = format!(
                    "transfer codes are protocol {TRANSFER_SINCE}'s, and this client said hello in {}",
                    visitor.protocol
                );
                return LobbyOut::refuse(Code::Malformed, &message, id);
            }
            LobbyMessage::Redeem { code } => return self.redeem(visitor, &code, now, id),
            _ => match visitor.me.clone() {
                Some(me) => me,
                None => {
                    return LobbyOut::refuse(Code::Name, "say who you are first: 'lobby' with your name and key", id);
                }
            },
        };
        match message {
            LobbyMessage::Create { ruleset, seats, bots, hints, invites } => {
                if let Err(full) = self.may_make(visitor, &me, now) {
                    return LobbyOut::refuse(Code::Limit, &full, id);
                }
                match self.order(&ruleset, seats, &bots, hints, invites, me) {
                    Ok(mut order) => {
                        order.room = self.next_room();
                        self.makers.insert(order.room.clone(), (order.maker.player, visitor.from));
                        self.counts.made(order.maker.player, visitor.from, now);
                        visitor.made += 1;
                        LobbyOut::request(Request::Create(order), id)
                    }
                    Err(e) => LobbyOut::refuse(Code::Unknown, &e, id),
                }
            }
            LobbyMessage::Sit { room, seat: Some(0) } => {
                LobbyOut::refuse(Code::Unknown, &format!("seats of table {room} are numbered from 1"), id)
            }
            LobbyMessage::Sit { room, seat } => {
                let held = self.held(&room);
                LobbyOut::request(Request::Sit { room, seat: seat.map(|s| s - 1), held, me }, id)
            }
            LobbyMessage::Code { code } => match self.code(&code) {
                Some((room, seat)) => {
                    LobbyOut::request(Request::Sit { room, seat: Some(seat), held: Vec::new(), me }, id)
                }
                None => LobbyOut::refuse(
                    Code::Unknown,
                    "no open seat has that code (a code works until its seat is taken)",
                    id,
                ),
            },
            LobbyMessage::Upload { .. } if !self.uploads => LobbyOut::refuse(
                Code::Upload,
                "this host takes no rulesets from its players (it runs with --no-uploads)",
                id,
            ),
            LobbyMessage::Upload { files } => LobbyOut::request(Request::Upload { files, me }, id),
            LobbyMessage::Transfer => match visitor.key.clone() {
                Some(key) => LobbyOut::request(Request::Transfer { me, key }, id),
                None => LobbyOut::refuse(Code::Name, "say who you are first: 'lobby' with your name and key", id),
            },
            LobbyMessage::Revoke => {
                self.revoke(me.player, now);
                LobbyOut { sent: vec![transfer_message("", None, 0, id)], ..LobbyOut::default() }
            }
            LobbyMessage::Lobby { .. } | LobbyMessage::Ratings { .. } | LobbyMessage::Redeem { .. } => {
                unreachable!("answered above")
            }
        }
    }

    /// Whether `me`, on `visitor`'s connection, may make one more table at `now`: within
    /// the connection's tables, the waiting tables of the player and of the address, the
    /// tables made in the last hour by the player and from the address, and the host's.
    fn may_make(&mut self, visitor: &Visitor, me: &Me, now: Instant) -> Result<(), String> {
        let limits = self.limits;
        if visitor.made >= limits.tables_per_connection
            || self.waiting_made_by(me.player) >= limits.tables_per_connection
        {
            return Err(format!(
                "you have made {} tables already (the most one player makes at a time)",
                limits.tables_per_connection
            ));
        }
        if self.waiting_made_from(visitor.from) >= limits.waiting_per_address {
            return Err(format!(
                "{} tables made from your address wait for players already (the most one address keeps waiting); \
                 sit at one, or wait until one fills or closes",
                limits.waiting_per_address
            ));
        }
        self.counts
            .may_make(me.player, visitor.from, now, limits.tables_per_hour, limits.tables_per_hour_per_address)
            .map_err(|full| full.to_string())?;
        if self.tables() + self.makers.keys().filter(|r| !self.listing.contains_key(&Self::key(r))).count()
            >= limits.tables
        {
            return Err(format!("this host holds {} tables already (its most)", limits.tables));
        }
        Ok(())
    }

    /// `lobby`: who the visitor is (both a name and a key, or neither to look only).
    #[allow(clippy::too_many_arguments)]
    fn hello(
        &mut self,
        visitor: &mut Visitor,
        protocol: u32,
        name: Option<String>,
        key: Option<String>,
        register: &mut Register,
        now: Instant,
        id: Option<Id>,
    ) -> LobbyOut {
        if !(LOBBY_SINCE..=PROTOCOL).contains(&protocol) {
            let message = format!(
                "the lobby speaks protocol {LOBBY_SINCE} to {PROTOCOL}, the client {protocol}: use the same version of diving"
            );
            let mut out = LobbyOut::refuse(Code::Protocol, &message, id);
            out.close = Some(Close::Refused(Code::Protocol));
            return out;
        }
        visitor.hello = true;
        visitor.protocol = protocol;
        visitor.key = None;
        match (name, key) {
            (None, None) => visitor.me = None,
            (Some(name), Some(key)) => {
                if let Err(e) = check_player_name(&name) {
                    return LobbyOut::refuse(Code::Name, &e, id);
                }
                let new = self.counts.may_register(visitor.from, now, self.limits.new_keys_per_hour);
                match register(&Player { name: name.clone(), key: key.clone() }, new.is_ok()) {
                    Ok(Registered::Known(player)) => {
                        // A code made before a change of name moves the name as it is now.
                        for pass in self.transfers.values_mut().filter(|p| p.player == player) {
                            pass.name = name.clone();
                        }
                        visitor.me = Some(Me { name, player });
                        visitor.key = Some(key);
                    }
                    Ok(Registered::New(player)) => {
                        self.counts.registered(visitor.from, now);
                        visitor.me = Some(Me { name, player });
                        visitor.key = Some(key);
                    }
                    Ok(Registered::NotNew) => {
                        let full = new.expect_err("only refused past the limit").to_string();
                        return LobbyOut::refuse(Code::Limit, &full, id);
                    }
                    Err(refused) => return LobbyOut::refuse(Code::Name, &refused, id),
                }
            }
            _ => return LobbyOut::refuse(Code::Malformed, "give both 'name' and 'key', or neither (to look only)", id),
        }
        LobbyOut { sent: vec![self.message(visitor, id)], ..LobbyOut::default() }
    }

    /// The `lobby` message for `visitor`; `id` when it answers its hello.
    pub fn message(&self, visitor: &Visitor, id: Option<Id>) -> ServerMessage {
        // The host's own, then the latest rulesets its players brought.
        let own = self.offering().filter(|o| o.hash.is_none());
        let brought = self.offering().rev().filter(|o| o.hash.is_some()).take(MAX_UPLOADS_LISTED);
        let rulesets: Vec<Offered> = own.chain(brought).map(HostedRuleset::offered).collect();
        // Waiting tables first (they are the ones to sit at), then those playing, then over;
        // at most `MAX_LISTED` in all.
        let rank = |t: &TableLine| match t.state {
            TableState::Waiting => 0,
            TableState::Playing => 1,
            TableState::Over => 2,
        };
        let mut held: HashMap<&str, usize> = HashMap::new();
        for (room, _) in self.codes.values() {
            *held.entry(room.as_str()).or_default() += 1;
        }
        let me = visitor.me.as_ref().map(|me| me.player);
        let mut tables: Vec<TableLine> = self
            .listing
            .values()
            .filter_map(|t| {
                let yours = me.and_then(|me| self.seat_of(&t.room, me));
                if t.state != TableState::Waiting {
                    return Some(TableLine { yours, ..t.clone() });
                }
                me?;
                let invited = held.get(t.room.as_str()).copied().unwrap_or(0).min(t.open);
                (yours.is_some() || t.open > invited).then(|| TableLine {
                    open: t.open - invited,
                    invited,
                    yours,
                    ..t.clone()
                })
            })
            .collect();
        // The visitor's own tables first (never left out), then by state.
        tables.sort_by_key(|t| (t.yours.is_none(), rank(t)));
        let total = tables.len();
        tables.truncate(MAX_LISTED);
        ServerMessage::Lobby(msg::Lobby {
            id,
            protocol: PROTOCOL,
            you: visitor.me.as_ref().map(|me| You { name: me.name.clone() }),
            rulesets,
            bots: BOTS.iter().map(|b| b.to_string()).collect(),
            more_tables: total - tables.len(),
            tables,
            limits: self.limits.lobby(),
            uploads: self.uploads,
        })
    }

    /// The seat `player` has at `room` (the first, if more): the way back to it, for them
    /// alone.
    fn seat_of(&self, room: &str, player: PlayerId) -> Option<YourSeat> {
        let seats = self.seated.get(room)?;
        let seat = seats.iter().position(|(p, _)| *p == Some(player))?;
        let token = seats[seat].1.clone()?;
        Some(YourSeat { seat: seat + 1, path: seat_path(room, seat, &token), token })
    }

    /// Checks a `create` against the offers: the ruleset by id, the seats within its range,
    /// built-in bots only, at least one seat besides the maker's left for… anyone (the maker
    /// takes seat 1), no more seats kept for invites than are open (all when `invites` is
    /// not given).
    pub fn order(
        &self,
        ruleset: &str,
        seats: usize,
        bots: &[String],
        hints: bool,
        invites: Option<usize>,
        maker: Me,
    ) -> Result<Order, String> {
        let Some(offer) = self.offering().find(|o| o.id == ruleset) else {
            let ids: Vec<&str> = self.offering().map(|o| o.id.as_str()).collect();
            return Err(format!("this host offers no ruleset '{ruleset}' (it offers {})", ids.join(", ")));
        };
        let (min, max) = offer.seats;
        if !(min..=max).contains(&seats) {
            return Err(format!("ruleset '{}' seats {min} to {max}, not {seats}", offer.id));
        }
        if bots.len() >= seats {
            return Err(format!("{seats} seats with {} bots leaves no seat for you", bots.len()));
        }
        for bot in bots {
            let bot = bot.strip_prefix("bot:").unwrap_or(bot);
            if !BOTS.contains(&bot) {
                return Err(format!("there is no bot '{bot}' here (bots: {})", BOTS.join(", ")));
            }
        }
        let open = seats - 1 - bots.len();
        let invites = invites.unwrap_or(open);
        if invites > open {
            return Err(format!("{open} seats are open for people, so {invites} cannot be kept for invites"));
        }
        let mut plan = vec![Plan::Taken { name: maker.name.clone(), player: maker.player }];
        plan.extend(std::iter::repeat_n(Plan::Open, seats - 1 - bots.len()));
        plan.extend(
            bots.iter().map(|b| Plan::Bot { spec: b.strip_prefix("bot:").unwrap_or(b).to_string(), player: None }),
        );
        Ok(Order { room: String::new(), spec: offer.spec.clone(), plan, hints, invites, maker })
    }

    /// A new invite code for `seat` of `room`: six letters and digits that cannot be misread
    /// (no 0/O, 1/I/L), from `random` (the caller's source of random bytes).
    pub fn new_code(&mut self, room: &str, seat: Seat, random: &mut dyn FnMut() -> [u8; 6]) -> String {
        loop {
            let code: String = random().iter().map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char).collect();
            if !self.codes.contains_key(&code) {
                self.codes.insert(code.clone(), (room.to_string(), seat));
                return code;
            }
        }
    }

    /// A new transfer code for `me` (whose key is `key`) at `now`, from `random` (the
    /// caller's source of random bytes), replacing the one they had: the code, grouped by
    /// four (`ABCD-EFGH-JKMN`).
    pub fn transfer(
        &mut self,
        me: &Me,
        key: &str,
        now: Instant,
        random: &mut dyn FnMut() -> [u8; TRANSFER_LETTERS],
    ) -> String {
        self.spend_of(me.player, Spent::Replaced, now);
        let until = now + std::time::Duration::from_secs(self.limits.transfer_secs);
        loop {
            let code: String = random().iter().map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char).collect();
            if !self.transfers.contains_key(&code) && !self.spent.contains_key(&code) {
                let pass = Pass { player: me.player, name: me.name.clone(), key: key.to_string(), until };
                self.transfers.insert(code.clone(), pass);
                return grouped(&code);
            }
        }
    }

    /// `player`'s transfer code, if any, is revoked.
    fn revoke(&mut self, player: PlayerId, now: Instant) {
        self.spend_of(player, Spent::Revoked, now);
    }

    fn spend_of(&mut self, player: PlayerId, why: Spent, now: Instant) {
        let theirs: Vec<String> =
            self.transfers.iter().filter(|(_, p)| p.player == player).map(|(c, _)| c.clone()).collect();
        for code in theirs {
            self.transfers.remove(&code);
            self.spend(code, why, now);
        }
    }

    /// `code` no longer works, for `why`: remembered an hour, within [`MAX_SPENT`].
    fn spend(&mut self, code: String, why: Spent, now: Instant) {
        if self.spent.len() < MAX_SPENT {
            self.spent.insert(code, (why, now));
        }
    }

    /// The transfer codes past their time at `now` are expired.
    fn expire(&mut self, now: Instant) {
        let old: Vec<String> = self.transfers.iter().filter(|(_, p)| p.until <= now).map(|(c, _)| c.clone()).collect();
        for code in old {
            self.transfers.remove(&code);
            self.spend(code, Spent::Expired, now);
        }
    }

    /// `redeem`: the visitor becomes the player `code` names, and is told their name and key;
    /// or is told why not (each wrong code counts toward its address's tries).
    fn redeem(&mut self, visitor: &mut Visitor, code: &str, now: Instant, id: Option<Id>) -> LobbyOut {
        if let Err(full) = self.counts.may_try(visitor.from, now, self.limits.transfer_attempts_per_hour) {
            return LobbyOut::refuse(Code::Limit, &full.to_string(), id);
        }
        self.expire(now);
        let code = normal_code(code);
        let Some(pass) = self.transfers.remove(&code) else {
            self.counts.tried_wrong(visitor.from, now);
            let lasts = in_words(self.limits.transfer_secs);
            let why = match self.spent.get(&code).map(|(why, _)| *why) {
                Some(Spent::Used) => "that transfer code was used already (a code works once): make a new one on a device where you have your name".to_string(),
                Some(Spent::Expired) => format!("that transfer code expired (a code works for {lasts}): make a new one on a device where you have your name"),
                Some(Spent::Replaced) => "that transfer code was replaced by a newer one: use the newest code its maker has".to_string(),
                Some(Spent::Revoked) => "that transfer code was revoked by its maker".to_string(),
                None => format!("no transfer code here is that one: a code has {TRANSFER_LETTERS} letters and digits, as ABCD-EFGH-JKMN"),
            };
            return LobbyOut::refuse(Code::Unknown, &why, id);
        };
        self.spend(code, Spent::Used, now);
        visitor.me = Some(Me { name: pass.name.clone(), player: pass.player });
        visitor.key = Some(pass.key.clone());
        let identity = ServerMessage::Identity(Identity { id, name: pass.name, key: pass.key });
        LobbyOut { sent: vec![identity, self.message(visitor, None)], ..LobbyOut::default() }
    }

    /// A code given out before (the host's database keeps them across a restart).
    pub fn keep_code(&mut self, code: &str, room: &str, seat: Seat) {
        self.codes.insert(code.to_string(), (room.to_string(), seat));
    }

    /// The code of `seat` of `room` is used up (the seat is taken).
    pub fn forget_code(&mut self, room: &str, seat: Seat) {
        self.codes.retain(|_, taken| taken != &(room.to_string(), seat));
    }

    /// The seats of `room` kept for invites (each has its code).
    pub fn held(&self, room: &str) -> Vec<Seat> {
        let mut held: Vec<Seat> = self.codes.values().filter(|(r, _)| r == room).map(|(_, s)| *s).collect();
        held.sort_unstable();
        held
    }

    /// The seat an invite code names (case and spaces ignored).
    pub fn code(&self, code: &str) -> Option<(String, Seat)> {
        self.codes.get(&normal_code(code)).cloned()
    }
}

/// The letters and digits of invite and transfer codes: none that can be misread (no 0/O,
/// 1/I/L).
const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A code as typed, as it is kept: its letters and digits, upper case.
fn normal_code(code: &str) -> String {
    code.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_uppercase()
}

/// A transfer code as it is shown: in groups of four.
fn grouped(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    chars.chunks(4).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("-")
}

/// The `transfer` message: `code` (as shown) on `host`, working `secs` more seconds; `None`
/// (after `revoke`): none.
pub fn transfer_message(host: &str, code: Option<&str>, secs: u64, id: Option<Id>) -> ServerMessage {
    ServerMessage::Transfer(Transfer {
        id,
        transfer: code.map(|code| TransferCode {
            code: code.to_string(),
            browser: format!("http://{host}/#transfer={code}"),
            join: format!("diving join {host} --transfer {code}"),
            expires_secs: secs,
        }),
    })
}

/// The `seated` message for `seat` (0-based) of `room` on `host` (the address the client came
/// to), with `invites` for a new table's other people; `id` of the message it answers.
pub fn seated(host: &str, room: &str, seat: Seat, token: &str, invites: Vec<Invite>, id: Option<Id>) -> ServerMessage {
    ServerMessage::Seated(msg::Seated {
        id,
        room: room.to_string(),
        seat: seat + 1,
        token: token.to_string(),
        browser: browser_link(host, room, seat, token),
        join: join_command(host, room, seat, token),
        invites,
    })
}

/// The invite of another person's `seat` at a new table, with its code.
pub fn invite(host: &str, room: &str, seat: Seat, token: &str, code: String) -> Invite {
    Invite {
        seat: seat + 1,
        code,
        token: token.to_string(),
        browser: browser_link(host, room, seat, token),
        join: join_command(host, room, seat, token),
    }
}

fn browser_link(host: &str, room: &str, seat: Seat, token: &str) -> String {
    format!("http://{host}{}", seat_path(room, seat, token))
}

/// The path of a seat's page, with its seat and token.
fn seat_path(room: &str, seat: Seat, token: &str) -> String {
    format!("/{room}#seat={}&token={token}", seat + 1)
}

fn join_command(host: &str, room: &str, seat: Seat, token: &str) -> String {
    format!("diving join {host}/{room} --seat {} --token {token}", seat + 1)
}

/// `n` seconds in words: `10 minutes`, `an hour`, `2 hours`.
pub(super) fn in_words(secs: u64) -> String {
    match secs {
        3600 => "an hour".to_string(),
        s if s % 3600 == 0 => format!("{} hours", s / 3600),
        60 => "a minute".to_string(),
        s if s % 60 == 0 => format!("{} minutes", s / 60),
        s => format!("{s} seconds"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::fair;
    use crate::wire::LobbyMessage as M;
    use std::time::Duration;

    fn ann() -> Me {
        Me { name: "ann".into(), player: 1 }
    }

    fn lobby() -> Lobby {
        Lobby::new(crate::server::offers(&[], None).unwrap(), HostLimits::default(), 0)
    }

    fn parsed(message: M) -> Parsed<M> {
        Parsed { id: Some(Id::Number(7.into())), message: Ok(message) }
    }

    /// Everyone is ann (player 1), whatever the name.
    fn anyone(_: &Player, _: bool) -> Result<Registered, String> {
        Ok(Registered::Known(1))
    }

    /// The time the tests start at.
    fn at() -> Instant {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        *START.get_or_init(Instant::now)
    }

    fn refusal(out: &LobbyOut) -> (Code, String) {
        match &out.sent[..] {
            [ServerMessage::Error(e)] => (e.code, e.message.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_create_names_only_what_the_host_offers() {
        let lobby = lobby();
        assert!(lobby.order("standard", 3, &["greedy".into()], false, None, ann()).is_ok());
        let no = |ruleset: &str, seats: usize, bots: &[&str]| {
            let bots: Vec<String> = bots.iter().map(|b| b.to_string()).collect();
            lobby.order(ruleset, seats, &bots, false, None, ann()).unwrap_err()
        };
        assert_eq!(lobby.order("standard", 4, &[], false, None, ann()).unwrap().invites, 3);
        assert_eq!(lobby.order("standard", 4, &[], false, Some(1), ann()).unwrap().invites, 1);
        let too_many = lobby.order("standard", 3, &["greedy".into()], false, Some(2), ann()).unwrap_err();
        assert_eq!(too_many, "1 seats are open for people, so 2 cannot be kept for invites");
        assert!(no("nope", 2, &[]).contains("no ruleset 'nope'"));
        assert!(no("standard", 9, &[]).contains("2 to 8"));
        assert!(no("standard", 2, &["greedy", "greedy"]).contains("no seat for you"));
        assert!(no("standard", 3, &["/etc/evil.lua"]).contains("no bot"));
    }

    /// A ruleset a player brought is kept (its tables go on after `--resume`), but offered
    /// for new tables only while the host takes uploads.
    #[test]
    fn a_brought_ruleset_is_offered_only_while_uploads_are_taken() {
        let mut lobby = lobby();
        let standard = lobby.offered("standard").unwrap().clone();
        let brought = HostedRuleset { id: "sharks@1494".into(), hash: Some("1494".into()), ..standard };
        assert!(lobby.offer(brought));
        let visitor = Visitor { hello: true, me: Some(ann()), ..Visitor::default() };
        let listed = |lobby: &Lobby| match lobby.message(&visitor, None) {
            ServerMessage::Lobby(listing) => listing.rulesets.iter().map(|r| r.id.clone()).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert!(!listed(&lobby).contains(&"sharks@1494".to_string()), "{:?}", listed(&lobby));
        assert!(listed(&lobby).contains(&"standard".to_string()));
        let refused = lobby.order("sharks@1494", 2, &[], false, None, ann()).unwrap_err();
        assert!(refused.starts_with("this host offers no ruleset 'sharks@1494'"), "{refused}");
        let offers = refused.split_once("(it offers").map(|(_, offers)| offers).unwrap_or_default();
        assert!(offers.contains("standard") && !offers.contains("sharks"), "{refused}");
        lobby.take_uploads(true);
        assert!(listed(&lobby).contains(&"sharks@1494".to_string()));
        assert!(lobby.order("sharks@1494", 2, &[], false, None, ann()).is_ok());
    }

    /// Times are told as people say them (an expired transfer code said "1 minutes").
    #[test]
    fn times_read_as_words() {
        assert_eq!(in_words(60), "a minute");
        assert_eq!(in_words(600), "10 minutes");
        assert_eq!(in_words(3600), "an hour");
        assert_eq!(in_words(7200), "2 hours");
        assert_eq!(in_words(90), "90 seconds");
    }

    #[test]
    fn an_invite_code_is_read_back_whatever_its_case() {
        let mut lobby = Lobby::new(Vec::new(), HostLimits::default(), 0);
        let mut draws = [[0u8; 6], [0u8; 6], [1u8; 6]].into_iter();
        let first = lobby.new_code("4", 1, &mut || draws.next().unwrap());
        assert_eq!(first, "AAAAAA");
        // A code drawn twice is drawn again.
        assert_eq!(lobby.new_code("5", 0, &mut || draws.next().unwrap()), "BBBBBB");
        assert_eq!(lobby.code("aaa aaa"), Some(("4".to_string(), 1)));
        lobby.unlist("4");
        assert_eq!(lobby.code(&first), None);
    }

    #[test]
    fn a_visitor_says_who_it_is_before_anything_else() {
        let mut lobby = lobby();
        let mut visitor = Visitor::default();
        let out = lobby.receive(&mut visitor, parsed(M::Sit { room: "1".into(), seat: None }), &mut anyone, at());
        assert_eq!(refusal(&out).0, Code::NotJoined);
        assert!(out.refused);
        let hello = M::Lobby { protocol: PROTOCOL, name: None, key: None };
        let out = lobby.receive(&mut visitor, parsed(hello), &mut anyone, at());
        match &out.sent[..] {
            [ServerMessage::Lobby(l)] => assert!(l.you.is_none() && l.id == Some(Id::Number(7.into()))),
            other => panic!("{other:?}"),
        }
        // Looking only: no seat, no table.
        let out = lobby.receive(&mut visitor, parsed(M::Code { code: "X".into() }), &mut anyone, at());
        assert_eq!(refusal(&out).0, Code::Name);
        // Ratings need no name.
        let out = lobby.receive(&mut visitor, parsed(M::Ratings { ruleset: "standard".into() }), &mut anyone, at());
        assert!(matches!(out.request, Some((Request::Ratings { .. }, Some(_)))));
        let old = M::Lobby { protocol: LOBBY_SINCE - 1, name: None, key: None };
        let out = lobby.receive(&mut visitor, parsed(old), &mut anyone, at());
        assert_eq!((refusal(&out).0, out.close), (Code::Protocol, Some(Close::Refused(Code::Protocol))));
    }

    #[test]
    fn a_named_visitor_makes_tables_up_to_its_limit_and_sits_by_code() {
        let mut lobby = lobby();
        let mut visitor = Visitor::default();
        let hello = M::Lobby { protocol: PROTOCOL, name: Some("ann".into()), key: Some("k".into()) };
        lobby.receive(&mut visitor, parsed(hello), &mut anyone, at());
        assert_eq!(visitor.me, Some(ann()));
        let create = M::Create { ruleset: "standard".into(), seats: 2, bots: vec![], hints: false, invites: None };
        let out = lobby.receive(&mut visitor, parsed(create.clone()), &mut anyone, at());
        let Some((Request::Create(order), _)) = out.request else { panic!("{out:?}") };
        assert_eq!(order.plan, vec![Plan::Taken { name: "ann".into(), player: 1 }, Plan::Open]);
        visitor.made = HostLimits::default().tables_per_connection;
        let out = lobby.receive(&mut visitor, parsed(create), &mut anyone, at());
        assert_eq!(refusal(&out).0, Code::Limit);
        let code = lobby.new_code("3", 1, &mut || [5u8; 6]);
        let out = lobby.receive(&mut visitor, parsed(M::Code { code }), &mut anyone, at());
        assert!(matches!(out.request, Some((Request::Sit { seat: Some(1), .. }, _))), "{out:?}");
        let out = lobby.receive(&mut visitor, parsed(M::Sit { room: "3".into(), seat: Some(0) }), &mut anyone, at());
        assert_eq!(refusal(&out).0, Code::Unknown);
    }

    #[test]
    fn a_refused_name_is_answered_and_the_visitor_stays() {
        let mut lobby = lobby();
        let mut visitor = Visitor::default();
        let mut taken = |_: &Player, _| Err("the name 'ann' belongs to another player here; pick another".to_string());
        let hello = M::Lobby { protocol: PROTOCOL, name: Some("ann".into()), key: Some("k".into()) };
        let out = lobby.receive(&mut visitor, parsed(hello), &mut taken, at());
        assert_eq!(refusal(&out).0, Code::Name);
        assert_eq!(out.close, None);
        let hello = M::Lobby { protocol: PROTOCOL, name: Some("greedy".into()), key: Some("k".into()) };
        let out = lobby.receive(&mut visitor, parsed(hello), &mut anyone, at());
        assert!(refusal(&out).1.contains("name of a bot"));
        for number in ["-1", "1e3", "+5", "1.5", ".5", "0x1F", "１２３", "１e3"] {
            let hello = M::Lobby { protocol: PROTOCOL, name: Some(number.into()), key: Some("k".into()) };
            let out = lobby.receive(&mut visitor, parsed(hello), &mut anyone, at());
            assert_eq!(
                refusal(&out),
                (
                    Code::Name,
                    format!("'{number}' reads as a number (programs take it for one), so it cannot be a name")
                )
            );
        }
        assert!(check_player_name("Quit").unwrap_err().contains("the command that leaves"));
        for name in ["e1", "Nan", "inf", "Marlow1e3", "x1", "0xZ", "quitter"] {
            assert_eq!(check_player_name(name), Ok(()), "{name}");
        }
    }

    /// A host's players by key, as the database registers them: a new key gets the next id
    /// when it may be registered.
    #[derive(Default)]
    struct Keys(HashMap<String, PlayerId>);

    impl Keys {
        fn register(&mut self, p: &Player, new: bool) -> Result<Registered, String> {
            let next = self.0.len() as PlayerId + 1;
            match self.0.get(&p.key) {
                Some(&id) => Ok(Registered::Known(id)),
                None if !new => Ok(Registered::NotNew),
                None => {
                    self.0.insert(p.key.clone(), next);
                    Ok(Registered::New(next))
                }
            }
        }
    }

    /// A visitor from `from` past its hello as `name` with `key`: its connection, or the
    /// refusal.
    fn arrive(
        lobby: &mut Lobby,
        keys: &mut Keys,
        from: [u8; 4],
        name: &str,
        now: Instant,
    ) -> Result<Visitor, (Code, String)> {
        let mut visitor = Visitor { from: Source::of(from.into()), ..Visitor::default() };
        let hello = M::Lobby { protocol: PROTOCOL, name: Some(name.into()), key: Some(format!("key of {name}")) };
        let out = lobby.receive(&mut visitor, parsed(hello), &mut |p, new| keys.register(p, new), now);
        if out.refused { Err(refusal(&out)) } else { Ok(visitor) }
    }

    /// A `create` of a two-seat table: the room it is made as, or the refusal.
    fn create(lobby: &mut Lobby, visitor: &mut Visitor, now: Instant) -> Result<String, (Code, String)> {
        let create = M::Create { ruleset: "standard".into(), seats: 2, bots: vec![], hints: false, invites: None };
        let out = lobby.receive(visitor, parsed(create), &mut anyone, now);
        match out.request {
            Some((Request::Create(order), _)) => Ok(order.room),
            _ => Err(refusal(&out)),
        }
    }

    /// A flood from one address (a fresh name and key per connection, every table it may)
    /// meets the limits of its address; a player from another address is never refused.
    #[test]
    fn a_flood_from_one_address_never_refuses_a_player_from_another() {
        let limits = HostLimits::default();
        let mut lobby = Lobby::new(crate::server::offers(&[], None).unwrap(), limits, 0);
        let mut keys = Keys::default();
        let flood = [192, 0, 2, 66];
        let mut made = 0;
        let mut refusals = Vec::new();
        for i in 0..50 {
            // A minute between connections: the whole flood within the hour.
            let now = at() + Duration::from_secs(60 * i);
            let mut visitor = match arrive(&mut lobby, &mut keys, flood, &format!("flood{i}"), now) {
                Ok(v) => v,
                Err(refused) => {
                    refusals.push(refused);
                    continue;
                }
            };
            for _ in 0..3 {
                match create(&mut lobby, &mut visitor, now) {
                    Ok(_) => made += 1,
                    Err(refused) => refusals.push(refused),
                }
            }
        }
        // The address keeps at most its waiting tables, and brings at most its new players.
        assert_eq!(made, limits.waiting_per_address);
        assert_eq!(keys.0.len(), limits.new_keys_per_hour);
        assert!(refusals.iter().all(|(code, _)| *code == Code::Limit), "{refusals:?}");
        assert!(refusals.iter().any(|(_, m)| m.contains("from your address wait for players")), "{refusals:?}");
        assert!(refusals.iter().any(|(_, m)| m.contains("new players came from your address")), "{refusals:?}");
        // An honest player from another address: a name, and a table.
        let now = at() + Duration::from_secs(3000);
        let mut honest = arrive(&mut lobby, &mut keys, [198, 51, 100, 7], "marlow", now).unwrap();
        assert!(create(&mut lobby, &mut honest, now).is_ok());
        // A player the host knows comes back from the flooded address, past its new keys.
        assert!(arrive(&mut lobby, &mut keys, flood, "flood0", now).is_ok());
    }

    /// Tables that went on to play count an hour, per player and per address.
    #[test]
    fn tables_made_count_an_hour_per_player_and_per_address() {
        let limits = HostLimits { waiting_per_address: 100, tables_per_connection: 100, ..HostLimits::default() };
        let mut lobby = Lobby::new(crate::server::offers(&[], None).unwrap(), limits, 0);
        let mut keys = Keys::default();
        let home = [203, 0, 113, 1];
        let mut ann = arrive(&mut lobby, &mut keys, home, "ann", at()).unwrap();
        for _ in 0..limits.tables_per_hour {
            let room = create(&mut lobby, &mut ann, at()).unwrap();
            // The table filled and was played: it no longer waits.
            lobby.unlist(&room);
        }
        let (code, refused) = create(&mut lobby, &mut ann, at() + Duration::from_secs(30)).unwrap_err();
        assert_eq!(code, Code::Limit);
        assert!(
            refused.contains("12 tables in the last hour") && refused.ends_with("try again in 60 minutes"),
            "{refused}"
        );
        // Others at the same address make tables up to the address's hourly count.
        let mut made = limits.tables_per_hour;
        for i in 0..3 {
            let mut other = arrive(&mut lobby, &mut keys, home, &format!("diver{i}"), at()).unwrap();
            while let Ok(room) = create(&mut lobby, &mut other, at()) {
                lobby.unlist(&room);
                made += 1;
            }
        }
        assert_eq!(made, limits.tables_per_hour_per_address);
        // An hour on, ann makes tables again.
        assert!(create(&mut lobby, &mut ann, at() + fair::HOUR).is_ok());
    }

    /// A table of `seats` seats made by `maker` (seat 1), the others open.
    fn waiting(id: &str, seats: usize, maker: PlayerId) -> Room {
        let mut plan = vec![Plan::Taken { name: format!("p{maker}"), player: maker }];
        plan.extend(std::iter::repeat_n(Plan::Open, seats - 1));
        Room::waiting(id, "standard", &plan, 1, crate::server::room::RoomOptions::default(), at()).unwrap().0
    }

    fn listed(lobby: &Lobby, visitor: &Visitor) -> Vec<(String, usize, usize)> {
        match lobby.message(visitor, None) {
            ServerMessage::Lobby(l) => l.tables.into_iter().map(|t| (t.room, t.open, t.invited)).collect(),
            other => panic!("{other:?}"),
        }
    }

    /// A seat kept for an invite is not `sit`'s to take, and a table whose open seats are all
    /// kept is listed to its own players only; a stranger without a name is listed no
    /// waiting table.
    #[test]
    fn seats_kept_for_invites_are_not_offered_to_strangers() {
        let mut lobby = lobby();
        // Table 1: two open seats, both kept for invites; table 2: one kept, one open to all.
        lobby.list(&waiting("1", 3, 1));
        lobby.list(&waiting("2", 3, 1));
        let private = [lobby.new_code("1", 1, &mut || [1u8; 6]), lobby.new_code("1", 2, &mut || [2u8; 6])];
        lobby.new_code("2", 1, &mut || [3u8; 6]);
        assert_eq!(lobby.held("1"), vec![1, 2]);
        let mut stranger =
            Visitor { hello: true, me: Some(Me { name: "eve".into(), player: 9 }), ..Visitor::default() };
        assert_eq!(listed(&lobby, &stranger), vec![("2".to_string(), 1, 1)]);
        let maker = Visitor { hello: true, me: Some(Me { name: "p1".into(), player: 1 }), ..Visitor::default() };
        assert_eq!(listed(&lobby, &maker), vec![("1".to_string(), 0, 2), ("2".to_string(), 1, 1)]);
        let nameless = Visitor { hello: true, ..Visitor::default() };
        assert_eq!(listed(&lobby, &nameless), vec![]);
        // `sit` asks for no seat kept for an invite; a code asks for its own.
        let out = lobby.receive(&mut stranger, parsed(M::Sit { room: "1".into(), seat: None }), &mut anyone, at());
        assert!(matches!(out.request, Some((Request::Sit { ref held, .. }, _)) if held == &[1, 2]), "{out:?}");
        let out = lobby.receive(&mut stranger, parsed(M::Code { code: private[1].clone() }), &mut anyone, at());
        assert!(
            matches!(out.request, Some((Request::Sit { seat: Some(2), ref held, .. }, _)) if held.is_empty()),
            "{out:?}"
        );
        // The room refuses a kept seat to a `sit`, and gives an open one.
        let mut room = waiting("3", 3, 1);
        let mut out = crate::server::room::Outbox::default();
        let refused = room.reserve(Some(1), &[1], 9, "eve", &mut out).unwrap_err();
        assert!(refused.contains("kept for a player its maker invited"), "{refused}");
        let refused = room.reserve(None, &[1, 2], 9, "eve", &mut out).unwrap_err();
        assert!(refused.contains("are kept for the players its maker invited"), "{refused}");
        assert_eq!(room.reserve(None, &[1], 9, "eve", &mut out), Ok(2));
    }

    /// A table whose seats are all taken, by players `1..=seats`: it plays at once.
    fn playing(id: &str, seats: usize) -> Room {
        let plan: Vec<Plan> =
            (1..=seats as PlayerId).map(|p| Plan::Taken { name: format!("p{p}"), player: p }).collect();
        let room =
            Room::waiting(id, "standard", &plan, 1, crate::server::room::RoomOptions::default(), at()).unwrap().0;
        assert!(!room.is_waiting());
        room
    }

    /// The tables a visitor is listed as theirs: `(room, seat, token)`.
    fn yours(lobby: &Lobby, visitor: &Visitor) -> Vec<(String, usize, String)> {
        match lobby.message(visitor, None) {
            ServerMessage::Lobby(l) => {
                l.tables.into_iter().filter_map(|t| t.yours.map(|y| (t.room, y.seat, y.token))).collect()
            }
            other => panic!("{other:?}"),
        }
    }

    /// A player's own tables, waiting, playing and over, are listed to them first, each with
    /// its seat's token (the way back after a closed tab); no one else is listed a token, and
    /// a closed table is gone.
    #[test]
    fn your_tables_are_listed_to_you_with_the_way_back_to_your_seat() {
        let mut lobby = lobby();
        // Tables 1 to 3 are someone else's; 4 waits for player 2 (seat 1), 5 plays with
        // player 2 in seat 2.
        for id in ["1", "2", "3"] {
            lobby.list(&waiting(id, 2, 7));
        }
        let (four, five) = (waiting("4", 3, 2), playing("5", 2));
        lobby.list(&four);
        lobby.list(&five);
        let p2 = Visitor { hello: true, me: Some(Me { name: "p2".into(), player: 2 }), ..Visitor::default() };
        let token = |room: &Room, seat: usize| room.tokens()[seat].clone().unwrap();
        assert_eq!(
            yours(&lobby, &p2),
            vec![("4".to_string(), 1, token(&four, 0)), ("5".to_string(), 2, token(&five, 1))]
        );
        match lobby.message(&p2, None) {
            ServerMessage::Lobby(l) => {
                let first: Vec<&str> = l.tables.iter().take(2).map(|t| t.room.as_str()).collect();
                assert_eq!(first, ["4", "5"], "your tables come first");
                let back = l.tables[1].yours.as_ref().unwrap();
                assert_eq!(back.path, format!("/5#seat=2&token={}", token(&five, 1)));
            }
            other => panic!("{other:?}"),
        }
        // A stranger, and a visitor looking only, are listed the playing table with no token.
        let stranger = Visitor { hello: true, me: Some(Me { name: "eve".into(), player: 9 }), ..Visitor::default() };
        let nameless = Visitor { hello: true, ..Visitor::default() };
        for visitor in [&stranger, &nameless] {
            assert_eq!(yours(&lobby, visitor), vec![]);
            let text = lobby.message(visitor, None).to_text();
            assert!(!text.contains(&token(&five, 1)) && !text.contains(&token(&four, 0)), "{text}");
        }
        // Player 1 sits at table 5 too: their own seat, not player 2's.
        let p1 = Visitor { hello: true, me: Some(Me { name: "p1".into(), player: 1 }), ..Visitor::default() };
        assert_eq!(yours(&lobby, &p1), vec![("5".to_string(), 1, token(&five, 0))]);
        lobby.unlist("5");
        assert_eq!(yours(&lobby, &p2), vec![("4".to_string(), 1, token(&four, 0))]);
    }

    /// A visitor of protocol 8 from `from`, past its hello as `name` with `key` (a
    /// known player), or looking only without a name.
    fn arrive_as(lobby: &mut Lobby, from: [u8; 4], who: Option<(&str, &str)>, now: Instant) -> Visitor {
        let mut visitor = Visitor { from: Source::of(from.into()), ..Visitor::default() };
        let (name, key) = who.map_or((None, None), |(n, k)| (Some(n.to_string()), Some(k.to_string())));
        let out = lobby.receive(&mut visitor, parsed(M::Lobby { protocol: PROTOCOL, name, key }), &mut anyone, now);
        assert!(!out.refused, "{out:?}");
        visitor
    }

    /// The code a `transfer` asks for, made as the edge makes it (from `draw`).
    fn make_code(lobby: &mut Lobby, visitor: &mut Visitor, draw: u8, now: Instant) -> String {
        let out = lobby.receive(visitor, parsed(M::Transfer), &mut anyone, now);
        let Some((Request::Transfer { me, key }, _)) = out.request else { panic!("{out:?}") };
        lobby.transfer(&me, &key, now, &mut || [draw; TRANSFER_LETTERS])
    }

    fn redeem(lobby: &mut Lobby, visitor: &mut Visitor, code: &str, now: Instant) -> LobbyOut {
        lobby.receive(visitor, parsed(M::Redeem { code: code.into() }), &mut anyone, now)
    }

    /// A transfer code moves a player's name and key to a visitor who looked only, once; a
    /// used, expired, replaced, revoked or wrong code is refused saying which.
    #[test]
    fn a_transfer_code_moves_who_you_are_once_and_says_why_it_no_longer_works() {
        let mut lobby = lobby();
        let mut ann = arrive_as(&mut lobby, [198, 51, 100, 1], Some(("ann", "k-ann")), at());
        let code = make_code(&mut lobby, &mut ann, 3, at());
        assert_eq!(code, "DDDD-DDDD-DDDD");
        // Another device, looking only, redeems it (case, spaces and dashes do not count).
        let mut phone = arrive_as(&mut lobby, [203, 0, 113, 9], None, at());
        let out = redeem(&mut lobby, &mut phone, "dddd dddd-dddd", at());
        match &out.sent[..] {
            [ServerMessage::Identity(who), ServerMessage::Lobby(l)] => {
                assert_eq!((who.name.as_str(), who.key.as_str(), who.id.is_some()), ("ann", "k-ann", true));
                assert_eq!(l.you, Some(You { name: "ann".into() }));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(phone.me, Some(Me { name: "ann".into(), player: 1 }));
        assert_eq!(phone.key.as_deref(), Some("k-ann"));
        // Both devices are ann: the phone makes a code of its own.
        assert_eq!(make_code(&mut lobby, &mut phone, 4, at()), "EEEE-EEEE-EEEE");
        let mut stranger = arrive_as(&mut lobby, [192, 0, 2, 5], None, at());
        let refused = |out: &LobbyOut| refusal(out);
        assert!(refused(&redeem(&mut lobby, &mut stranger, &code, at())).1.contains("used already"));
        // A new code replaces the old.
        let old = make_code(&mut lobby, &mut ann, 5, at());
        let new = make_code(&mut lobby, &mut ann, 6, at());
        assert!(refused(&redeem(&mut lobby, &mut stranger, &old, at())).1.contains("replaced by a newer one"));
        // Revoked by its maker: `transfer` with none.
        let out = lobby.receive(&mut ann, parsed(M::Revoke), &mut anyone, at());
        assert!(matches!(&out.sent[..], [ServerMessage::Transfer(Transfer { transfer: None, .. })]), "{out:?}");
        assert_eq!(
            refused(&redeem(&mut lobby, &mut stranger, &new, at())),
            (Code::Unknown, "that transfer code was revoked by its maker".into())
        );
        // Past its time.
        let late = make_code(&mut lobby, &mut ann, 7, at());
        let after = at() + Duration::from_secs(HostLimits::default().transfer_secs);
        let mut other = arrive_as(&mut lobby, [192, 0, 2, 6], None, after);
        assert!(
            refused(&redeem(&mut lobby, &mut other, &late, after)).1.contains("expired (a code works for 10 minutes)")
        );
        // A code never made.
        let (code, wrong) = refused(&redeem(&mut lobby, &mut other, "ABCD-ABCD-ABCD", after));
        assert_eq!(code, Code::Unknown);
        assert!(wrong.contains("no transfer code here is that one"), "{wrong}");
        assert_eq!(other.me, None, "a refused code leaves the visitor as it was");
        // A code is asked for by a named visitor only, of protocol 8.
        let mut nameless = arrive_as(&mut lobby, [192, 0, 2, 7], None, at());
        assert_eq!(refusal(&lobby.receive(&mut nameless, parsed(M::Transfer), &mut anyone, at())).0, Code::Name);
        let mut older = Visitor::default();
        let hello = M::Lobby { protocol: TRANSFER_SINCE - 1, name: Some("ann".into()), key: Some("k-ann".into()) };
        lobby.receive(&mut older, parsed(hello), &mut anyone, at());
        assert_eq!(refusal(&lobby.receive(&mut older, parsed(M::Transfer), &mut anyone, at())).0, Code::Malformed);
    }

    /// Spent codes are remembered up to a bound (a flood of `transfer` grows nothing past it);
    /// one spent past it is refused as unknown.
    #[test]
    fn spent_transfer_codes_are_remembered_within_a_bound() {
        let mut lobby = lobby();
        let mut ann = arrive_as(&mut lobby, [198, 51, 100, 1], Some(("ann", "k-ann")), at());
        let mut n: u64 = 0;
        let mut draw = || {
            n += 1;
            let mut bytes = [0u8; TRANSFER_LETTERS];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = ((n >> (5 * i)) % 31) as u8;
            }
            bytes
        };
        let me = ann.me.clone().unwrap();
        let first = lobby.transfer(&me, "k-ann", at(), &mut draw);
        for _ in 0..MAX_SPENT + 5 {
            lobby.transfer(&me, "k-ann", at(), &mut draw);
        }
        assert_eq!(lobby.spent.len(), MAX_SPENT);
        assert_eq!(lobby.transfers.len(), 1, "one code per player");
        let out = redeem(&mut lobby, &mut ann, &first, at());
        assert!(refusal(&out).1.contains("replaced by a newer one"), "{out:?}");
    }

    /// Wrong codes count per address: past the limit even a good code is refused there (so a
    /// code cannot be guessed), while another address redeems it; and a code made before a
    /// change of name moves the name as it is now.
    #[test]
    fn wrong_transfer_codes_are_limited_per_address() {
        let mut lobby = lobby();
        let limit = HostLimits::default().transfer_attempts_per_hour;
        let mut ann = arrive_as(&mut lobby, [198, 51, 100, 1], Some(("ann", "k-ann")), at());
        let code = make_code(&mut lobby, &mut ann, 8, at());
        let mut guesser = arrive_as(&mut lobby, [192, 0, 2, 66], None, at());
        for i in 0..limit {
            let out = redeem(&mut lobby, &mut guesser, &format!("GUESS{i}"), at());
            assert_eq!(refusal(&out).0, Code::Unknown);
        }
        let (code_of, held) = refusal(&redeem(&mut lobby, &mut guesser, &code, at()));
        assert_eq!(code_of, Code::Limit);
        assert!(held.contains("10 wrong transfer codes were tried from your address"), "{held}");
        // Ann's other device, at another address, is not held.
        let mut home = arrive_as(&mut lobby, [203, 0, 113, 2], None, at());
        // Ann renames before it is redeemed: the code moves her new name.
        let rename = M::Lobby { protocol: PROTOCOL, name: Some("anne".into()), key: Some("k-ann".into()) };
        lobby.receive(&mut ann, parsed(rename), &mut anyone, at());
        let out = redeem(&mut lobby, &mut home, &code, at());
        assert!(matches!(&out.sent[0], ServerMessage::Identity(who) if who.name == "anne"), "{out:?}");
        // An hour on, the address may try again.
        let later = at() + fair::HOUR;
        lobby.tick(later);
        assert_eq!(refusal(&redeem(&mut lobby, &mut guesser, "GUESS", later)).0, Code::Unknown);
    }
}
