//! What the connections share ([`Hub`]): the rooms (each [`Hosted`]: the [`Room`] and the
//! writers of its connections), the lobby, the database and the [`Keeper`]. A room call's
//! outcome is delivered here ([`Hub::deliver`]: its changes to the keeper, its messages to
//! their writers once committed); the lobby's [`Request`]s are carried out here (a table
//! made, a seat kept, a leaderboard read, a ruleset a player brought checked and offered:
//! [`super::upload`]); idle lobby tables are closed here.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use super::db::{Change, Db, Finish, SeatRow, Unkeyed};
pub(super) use super::keeper::lock_db;
use super::keeper::{Delivery, Keeper, log_error};
use super::link::{Link, Out};
use super::lobby::HostedRuleset;
use super::lobby::{self, Lobby, Me, Order, Request, Visitor};
use super::room::{Conn, Kept, Outbox, Plan, Room, RoomOptions};
use super::upload::{self, Quota};
use crate::core::Seat;
use crate::script::stop_when;
use crate::table::record;
use crate::table::save::ActionJson;
use crate::wire::server::{Ratings, Uploaded};
use crate::wire::{Code, HostLimits, Id, LobbyMessage, Parsed, Player, ServerMessage, UploadFile};

/// A room as the hub holds it: the room, the writers of its connections, and what of it is
/// kept in the database.
pub(super) struct Hosted {
    pub room: Room,
    pub senders: HashMap<Conn, Link>,
    /// How many of the current game's moves are in the database or handed to the [`Keeper`].
    kept: usize,
    /// The last of the table's games whose result is handed to the keeper.
    rated: u32,
    /// The game changed while the server was stopping (work cut short: its Lua stopped, its
    /// bots playing on what was left): that change is not kept, the database keeps the game
    /// as it was before.
    cut: bool,
    /// Deliveries of this room that wait for the keeper: while there are any, the room's
    /// next messages wait behind them, so that they leave in the order the room made them.
    queued: Arc<AtomicUsize>,
}

impl Hosted {
    pub(super) fn new(room: Room) -> Hosted {
        let kept = room.session().entries().len();
        let rated = if room.is_over() { room.game_number() } else { room.game_number() - 1 };
        Hosted { room, senders: HashMap::new(), kept, rated, cut: false, queued: Arc::new(AtomicUsize::new(0)) }
    }
}

/// The rooms, by name: the lobby makes new ones, and idle lobby tables are closed.
pub(super) type Rooms = RwLock<HashMap<String, Arc<Mutex<Hosted>>>>;

pub(super) fn lock(hosted: &Mutex<Hosted>) -> MutexGuard<'_, Hosted> {
    // A panic while a room was locked leaves the room as it was after its last whole call.
    hosted.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the Lua of a room's work says when the server stops under it.
const STOPPING: &str = "the host is stopping";

/// Runs `work` on the room of `hosted` with the room locked, on a blocking thread of the
/// runtime, never on its async workers: a room whose mods or bots think for long (up to their
/// budgets: a second per Lua call, a search's budget per bot move) holds up its own
/// connections, whose messages wait their turn, and no other room. While it runs, the Lua
/// it calls stops at once when the server stops ([`stop_when`]), so a stop waits for no
/// room's Lua.
///
/// Every call into a [`Room`] from the connections and the away timer goes through here.
pub(super) async fn in_room<T: Send + 'static>(
    hub: &Arc<Hub>,
    hosted: &Arc<Mutex<Hosted>>,
    work: impl FnOnce(&Hub, &mut Hosted) -> T + Send + 'static,
) -> T {
    let (hub, hosted) = (hub.clone(), hosted.clone());
    let task = tokio::task::spawn_blocking(move || {
        let _stop = stop_when(hub.stopping.clone(), STOPPING);
        work(&hub, &mut lock(&hosted))
    });
    match task.await {
        Ok(value) => value,
        // A panic in the room's work ends the connection's task, as it did on the worker.
        Err(e) => {
            std::panic::resume_unwind(e.try_into_panic().unwrap_or_else(|_| Box::new("the room's work was cancelled")))
        }
    }
}

/// How the server runs.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// Keep every game here, move by move, in the database ([`super::db::FILE`]), and each
    /// finished game's save file.
    pub dir: Option<PathBuf>,
    pub limits: HostLimits,
    /// Stop once every game is over and every client has left …
    pub stop_when_done: bool,
    /// … and no client came back for this long (a page reloaded on a finished game shows it
    /// again: its result and log).
    pub stay: Duration,
    /// How often the away timer looks (`None`: never; tests tick rooms themselves).
    pub tick: Option<Duration>,
    /// Origins (`http://HOST:PORT`) whose pages may open a connection, besides the page of
    /// the address the connection came to; `*` lets any.
    pub allow_origins: Vec<String>,
    /// Serve the lobby (`/lobby`), offering these rulesets (`None`: no lobby).
    pub lobby: Option<Vec<HostedRuleset>>,
    /// How the lobby's tables run (the away bot; their limits and hints are the server's and
    /// the table's).
    pub room: RoomOptions,
    /// The lobby takes rulesets its players bring (`upload`; `diving host --no-uploads`
    /// turns it off).
    pub uploads: bool,
    /// Say on the host's console (standard error), a line each, when a lobby table opens or
    /// closes and a game starts or ends: names, rulesets and results only, never a card.
    pub console: bool,
}

/// What came of a message within the limits.
pub(super) struct Handled {
    /// It was refused: it counts toward the drop.
    pub refused: bool,
    /// The connection is closed (its close queued).
    pub closed: bool,
}

/// Everything the connections share.
pub(super) struct Hub {
    pub rooms: Rooms,
    /// The address the server listens on.
    pub addr: SocketAddr,
    pub config: ServerConfig,
    pub next: AtomicU64,
    pub open: AtomicUsize,
    pub done: Notify,
    pub stop: watch::Sender<bool>,
    /// Set when the server stops (before `stop` is sent): the Lua of a room's work stops.
    pub stopping: Arc<AtomicBool>,
    /// Commits what the rooms change, then sends their messages.
    pub keeper: Arc<Keeper>,
    pub db: Arc<Mutex<Db>>,
    /// The lobby, on a host that serves one. Locked after a room, never before one.
    pub lobby: Option<Mutex<Lobby>>,
    /// Bumped at each change of the lobby's listing: lobby connections send it again.
    pub listing: watch::Sender<u64>,
    /// The rulesets players brought in the last hour (the limits per address and player).
    pub quota: Quota,
    /// One ruleset brought is checked at a time.
    pub checking: tokio::sync::Semaphore,
}

/// The seats of a room as the database keeps them.
pub(super) fn seat_rows(room: &Room) -> Vec<SeatRow> {
    let bots = room.session().bots();
    room.tokens()
        .iter()
        .zip(room.players())
        .enumerate()
        .map(|(s, (token, player))| SeatRow {
            token: token.clone(),
            bot: bots.get(s).cloned().flatten(),
            player: *player,
        })
        .collect()
}

/// The save file of a table's game: `ROOM.save.json` for its first game, `ROOM~N.save.json`
/// for game N.
pub fn export_path(dir: &std::path::Path, room: &str, game: u32) -> std::path::PathBuf {
    if game <= 1 { dir.join(format!("{room}.save.json")) } else { dir.join(format!("{room}~{game}.save.json")) }
}

/// The places of a finished game, with each seat's player, for the ratings.
fn places(room: &Room) -> Option<Vec<Finish>> {
    let game = room.session().game();
    let depths: Vec<u32> = game.players().iter().map(|p| p.depth).collect();
    // A team's win counts for each member: every winner shares first place.
    let winners = game.winners();
    let places = crate::sim::tournament::finishing_places(winners, &depths);
    room.players()
        .iter()
        .enumerate()
        .map(|(seat, player)| {
            Some(Finish { seat, player: (*player)?, place: places[seat], won: winners.contains(seat) })
        })
        .collect()
}

/// A room new to the database: its seats' players (a guest under each person's seat name, a
/// bot by its spec), its table, and its game as it stands.
pub(super) fn register(db: &mut Db, room: &mut Room) -> anyhow::Result<Vec<Change>> {
    let game = room.session().game();
    let bots = room.session().bots().to_vec();
    let mut players = room.players().to_vec();
    for (s, bot) in bots.iter().enumerate() {
        if players[s].is_none() {
            players[s] = Some(match bot {
                Some(spec) => db.unkeyed(Unkeyed::Bot, spec)?,
                None => db.unkeyed(Unkeyed::Guest, game.name(s))?,
            });
        }
    }
    room.set_players(players);
    let id = room.id().to_string();
    Ok(vec![
        Change::Table {
            room: id.clone(),
            spec: room.spec().to_string(),
            ruleset: room.ruleset().name.clone(),
            lobby: room.is_lobby(),
            hints: room.allows_hints(),
            seats: seat_rows(room),
        },
        Change::Dealt {
            room: id,
            game: room.game_number(),
            setup: Box::new(room.session().to_save()),
            seats: seat_rows(room),
        },
    ])
}

impl Hub {
    pub(super) fn hosted(&self, id: &str) -> Option<Arc<Mutex<Hosted>>> {
        self.rooms.read().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }

    pub(super) fn all_hosted(&self) -> Vec<Arc<Mutex<Hosted>>> {
        self.rooms.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }

    /// A connection opens: its number.
    pub(super) fn opened(&self) {
        self.open.fetch_add(1, Ordering::SeqCst);
    }

    pub(super) fn next_conn(&self) -> Conn {
        self.next.fetch_add(1, Ordering::SeqCst)
    }

    /// A connection closed: the host may be done.
    pub(super) async fn closed(self: &Arc<Hub>) {
        self.open.fetch_sub(1, Ordering::SeqCst);
        let hub = self.clone();
        let _ = tokio::task::spawn_blocking(move || hub.check_done()).await;
    }

    /// The room's line of the lobby's listing changed: lobby connections are sent it again.
    pub(super) fn list(&self, room: &Room) {
        if let Some(lobby) = &self.lobby {
            lobby.lock().unwrap_or_else(|e| e.into_inner()).list(room);
            self.listing.send_modify(|v| *v += 1);
        }
    }

    fn lobby(&self) -> Option<MutexGuard<'_, Lobby>> {
        self.lobby.as_ref().map(|l| l.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Keeps, logs and sends what a room call produced. Called with the room locked, so
    /// messages leave in the order the room made them: what changed is handed to the
    /// [`Keeper`] here, and the messages with it, sent once it is committed.
    pub(super) fn deliver(&self, hosted: &mut Hosted, mut out: Outbox) {
        let mut changes = Vec::new();
        let mut exports = Vec::new();
        let changed = out.changed || !out.records.is_empty();
        let mut listed = out.listed;
        let stopping = self.stopping.load(Ordering::SeqCst);
        if stopping {
            // Work the stop cut short (its Lua stopped under it: a bot "cannot move", a play
            // fails "the host is stopping"): what it did is not kept, so nobody is told of it,
            // nor of what it said; its connections close with 1001 and come back to the game
            // as the database keeps it.
            if changed || !out.log.is_empty() || !out.sent.is_empty() {
                let id = hosted.room.id();
                self.say(&format!("room {id}: its work was cut short by the stop; the game is kept as it was before"));
            }
            hosted.cut |= changed;
            out.sent.clear();
            out.log.clear();
        } else if changed {
            let id = hosted.room.id().to_string();
            let game = hosted.room.game_number();
            for record in &out.records {
                match *record {
                    Kept::Sat { seat, player } => changes.push(Change::Sat { room: id.clone(), seat, player }),
                    Kept::Dealt => {
                        let names = hosted.room.session().game().names().join(", ");
                        self.say(&format!("room {id}: game {game} starts: {names}"));
                        let setup = Box::new(hosted.room.session().to_save());
                        hosted.kept = setup.actions.len();
                        changes.push(Change::Dealt { room: id.clone(), game, setup, seats: seat_rows(&hosted.room) });
                    }
                }
            }
            let entries = hosted.room.session().entries();
            if entries.len() > hosted.kept && !hosted.room.is_waiting() {
                let moves = entries[hosted.kept..]
                    .iter()
                    .map(|e| (record::step_text(e.step), ActionJson::from(&e.action)))
                    .collect();
                changes.push(Change::Moves { room: id.clone(), game, first: hosted.kept, moves });
                hosted.kept = entries.len();
            }
            if hosted.room.is_over() && hosted.rated < game && !hosted.room.is_waiting() {
                hosted.rated = game;
                let over = hosted.room.session().game();
                let winners: Vec<&str> =
                    (0..over.names().len()).filter(|s| over.winners().contains(*s)).map(|s| over.name(s)).collect();
                let won = if winners.is_empty() {
                    "no one won".to_string()
                } else {
                    format!("{} won", winners.join(" and "))
                };
                self.say(&format!("room {id}: game {game} is over: {won}"));
                match places(&hosted.room) {
                    Some(places) => {
                        let ruleset = hosted.room.ruleset().name.clone();
                        changes.push(Change::Finished { room: id.clone(), game, ruleset, places });
                    }
                    None => log_error(&format!("room {id}"), "a seat has no player, so the game is not rated"),
                }
                if let Some(dir) = &self.config.dir {
                    exports.push((export_path(dir, &id, game), hosted.room.session().to_save()));
                }
                listed = true;
            }
        }
        if listed {
            self.list(&hosted.room);
        }
        for line in out.log {
            eprintln!("diving host: {line}");
        }
        let mut sends = Vec::with_capacity(out.sent.len() + out.close.len());
        for (to, message) in out.sent {
            if let Some(link) = hosted.senders.get(&to) {
                sends.push((link.clone(), Out::Message(Box::new(message))));
            }
        }
        for (c, why) in out.close {
            if let Some(link) = hosted.senders.remove(&c) {
                sends.push((link, Out::Close(why)));
            }
        }
        if changes.is_empty() && exports.is_empty() && hosted.queued.load(Ordering::SeqCst) == 0 {
            for (link, out) in sends {
                link.send(out);
            }
            return;
        }
        hosted.queued.fetch_add(1, Ordering::SeqCst);
        let delivery = Delivery { sends, queued: Some(hosted.queued.clone()) };
        self.keeper.hand(changes, exports, delivery);
    }

    /// One line on the host's console, when it has one ([`ServerConfig::console`]).
    fn say(&self, line: &str) {
        if self.config.console {
            eprintln!("diving host: {}", crate::limits::shown(line, crate::limits::NewLines::Escaped));
        }
    }

    pub(super) fn check_done(&self) {
        if self.is_done() {
            self.done.notify_one();
        }
    }

    /// Stops the server: its connections close, and the Lua of any room's work stops at once.
    pub(super) fn halt(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = self.stop.send(true);
    }

    /// Every game over and every client gone, on a server that stops then (waits for a room
    /// busy with work: call it off the async workers).
    pub(super) fn is_done(&self) -> bool {
        self.config.stop_when_done
            && self.open.load(Ordering::SeqCst) == 0
            && self.all_hosted().iter().all(|s| lock(s).room.is_over())
    }

    /// Closes the lobby tables that waited, or stood finished, with no one at them for
    /// `idle_secs` (at `now`): they leave the listing, and are not resumed.
    pub(super) fn close_idle(&self, now: Instant) {
        match self.lobby() {
            Some(mut lobby) => lobby.tick(now),
            None => return,
        }
        let idle = Duration::from_secs(self.config.limits.idle_secs);
        let abandoned = Duration::from_secs(self.config.limits.abandoned_secs);
        let mut closed = Vec::new();
        for hosted in self.all_hosted() {
            let Ok(hosted) = hosted.try_lock() else { continue };
            let room = &hosted.room;
            let after = if room.is_waiting() || room.is_over() { idle } else { abandoned };
            let quiet = room.empty_since().is_some_and(|since| now.saturating_duration_since(since) >= after);
            if room.is_lobby() && quiet {
                closed.push(room.id().to_string());
            }
        }
        if closed.is_empty() {
            return;
        }
        let mut rooms = self.rooms.write().unwrap_or_else(|e| e.into_inner());
        for id in &closed {
            rooms.remove(id);
        }
        drop(rooms);
        for id in &closed {
            self.say(&format!("room {id}: closed, with no one at it"));
        }
        let changes = closed.iter().map(|id| Change::Closed { room: id.clone() }).collect();
        if let Some(mut lobby) = self.lobby() {
            for id in &closed {
                lobby.unlist(id);
            }
        }
        self.listing.send_modify(|v| *v += 1);
        self.keeper.hand(changes, Vec::new(), Delivery { sends: Vec::new(), queued: None });
    }

    /// A new subscription to the lobby's listing's changes.
    pub(super) fn lobby_changes(&self) -> watch::Receiver<u64> {
        self.listing.subscribe()
    }

    /// The `lobby` message for `visitor` now (`None`: this host has no lobby).
    pub(super) fn lobby_message(&self, visitor: &Visitor) -> Option<ServerMessage> {
        self.lobby().map(|lobby| lobby.message(visitor, None))
    }

    /// One message to the lobby from `visitor`, who came to `host`: decided by the lobby
    /// ([`Lobby::receive`], off the async workers: a name is looked up in the database), then
    /// what it requests carried out.
    pub(super) async fn lobby_receive(
        self: &Arc<Hub>,
        visitor: &mut Visitor,
        parsed: Parsed<LobbyMessage>,
        host: &str,
        peer: std::net::IpAddr,
        link: &Link,
    ) -> Handled {
        let hub = self.clone();
        let mut asking = visitor.clone();
        let decided = tokio::task::spawn_blocking(move || {
            let db = hub.db.clone();
            let mut register = |p: &Player, new: bool| lock_db(&db).register(&p.name, &p.key, new).map_err(|e| e.0);
            let out = hub.lobby().map(|mut lobby| lobby.receive(&mut asking, parsed, &mut register, Instant::now()));
            (out, asking)
        })
        .await;
        let Ok((Some(out), after)) = decided else {
            link.message(ServerMessage::error(Code::Unknown, "this host has no lobby", None));
            return Handled { refused: true, closed: false };
        };
        *visitor = after;
        for message in out.sent {
            link.message(message);
        }
        if let Some(why) = out.close {
            link.close(why);
            return Handled { refused: out.refused, closed: true };
        }
        let Some((request, id)) = out.request else { return Handled { refused: out.refused, closed: false } };
        let answer = match request {
            Request::Ratings { ruleset } => self.ratings(ruleset, id.clone()).await.map(|board| link.message(board)),
            Request::Create(order) => match self.create_table(order, host, link.clone(), id.clone()).await {
                Ok(()) => Ok(()),
                Err(e) if e.contains("tables already") => Err((Code::Limit, e)),
                Err(e) => Err((Code::Unknown, e)),
            },
            Request::Sit { room, seat, held, me } => {
                self.sit(me, &room, seat, &held, host, link.clone(), id.clone()).await
            }
            Request::Upload { files, me } => self.upload(files, me, peer, link.clone(), id.clone()).await,
            Request::Transfer { me, key } => {
                let code = self.lobby().map(|mut l| l.transfer(&me, &key, Instant::now(), &mut random_transfer));
                let secs = self.config.limits.transfer_secs;
                link.message(lobby::transfer_message(host, code.as_deref(), secs, id.clone()));
                Ok(())
            }
        };
        match answer {
            Ok(()) => Handled { refused: false, closed: false },
            Err((code, message)) => {
                link.message(ServerMessage::error(code, message, id));
                Handled { refused: true, closed: false }
            }
        }
    }

    /// The leaderboard of `ruleset`: refused for a ruleset this host neither
    /// offers nor has rated games of.
    async fn ratings(self: &Arc<Hub>, ruleset: String, id: Option<Id>) -> Result<ServerMessage, (Code, String)> {
        let offered: Vec<String> =
            self.lobby().map(|l| l.offers().iter().map(|o| o.id.clone()).collect()).unwrap_or_default();
        let db = self.db.clone();
        let board = tokio::task::spawn_blocking(move || {
            let db = lock_db(&db);
            let rated = db.rated_rulesets()?;
            if !offered.contains(&ruleset) && !rated.contains(&ruleset) {
                let mut known = offered;
                for r in rated {
                    if !known.contains(&r) {
                        known.push(r);
                    }
                }
                return Ok(Err(format!("this host has no ruleset '{ruleset}' (its rulesets: {})", known.join(", "))));
            }
            let board = db.board(&ruleset)?;
            anyhow::Ok(Ok(Ratings { id, ..board }))
        })
        .await;
        match board {
            Ok(Ok(Ok(board))) => Ok(ServerMessage::Ratings(board)),
            Ok(Ok(Err(unknown))) => Err((Code::Unknown, unknown)),
            Ok(Err(e)) => Err((Code::Unknown, format!("cannot read the ratings: {e:#}"))),
            Err(_) => Err((Code::Unknown, "cannot read the ratings".into())),
        }
    }

    /// `upload`: the ruleset `me` brought, checked off the rooms' threads within the host's
    /// limits ([`upload::check_within`]), kept in the database and offered; `uploaded` reaches
    /// them once it is committed. A ruleset the host has already is answered at once.
    async fn upload(
        self: &Arc<Hub>,
        files: Vec<UploadFile>,
        me: Me,
        peer: std::net::IpAddr,
        link: Link,
        id: Option<Id>,
    ) -> Result<(), (Code, String)> {
        let limits = self.config.limits;
        let bundle = Arc::new(upload::bundle_of(files, &limits)?);
        let known = |hub: &Hub| hub.lobby().and_then(|l| l.offered(&bundle.id()).map(HostedRuleset::offered));
        let answer = |ruleset, known| ServerMessage::Uploaded(Uploaded { id: id.clone(), ruleset, known });
        if let Some(ruleset) = known(self) {
            link.message(answer(ruleset, true));
            return Ok(());
        }
        self.quota.take(&limits, peer, me.player, Instant::now()).map_err(|e| (Code::Limit, e))?;
        let within = Duration::from_secs(limits.upload_check_secs);
        let Ok(Ok(_one)) = tokio::time::timeout(within, self.checking.acquire()).await else {
            return Err((Code::Upload, "the host is busy checking other rulesets; try again in a minute".into()));
        };
        // Brought by another meanwhile.
        if let Some(ruleset) = known(self) {
            link.message(answer(ruleset, true));
            return Ok(());
        }
        let checked = upload::check_within(bundle, within).await?;
        crate::ruleset::bundle::register(checked.bundle.clone());
        let offered = checked.hosted.offered();
        if let Some(mut lobby) = self.lobby() {
            lobby.offer(checked.hosted);
        }
        self.listing.send_modify(|v| *v += 1);
        eprintln!("diving host: {} brought the ruleset {} ({})", me.name, checked.stored.id, checked.stored.hash);
        let change = Change::Ruleset { stored: Box::new(checked.stored), player: me.player };
        let delivery = Delivery { sends: vec![(link, Out::Message(Box::new(answer(offered, false))))], queued: None };
        self.keeper.hand(vec![change], Vec::new(), delivery);
        Ok(())
    }

    /// Makes a table from a checked `create`: the room, its line in the listing, invite codes
    /// for its open seats; `seated` reaches the maker once the table is committed.
    async fn create_table(self: &Arc<Hub>, order: Order, host: &str, link: Link, id: Option<Id>) -> Result<(), String> {
        let hub = self.clone();
        let host = host.to_string();
        let room = order.room.clone();
        let made = tokio::task::spawn_blocking(move || hub.make_table(order, &host, link, id))
            .await
            .unwrap_or_else(|_| Err("the table could not be made".into()));
        if made.is_err()
            && let Some(mut lobby) = self.lobby()
        {
            // The room's name and its place in the limits go back.
            lobby.unlist(&room);
        }
        made
    }

    fn make_table(&self, order: Order, host: &str, link: Link, id: Option<Id>) -> Result<(), String> {
        let room_id = order.room.clone();
        let mut options = self.config.room.clone();
        options.limits = self.config.limits;
        options.allow_hints = order.hints;
        let seed = rand::random::<u64>() >> 12;
        // Bots are rated too, under their spec.
        let mut plan = order.plan.clone();
        {
            let mut db = lock_db(&self.db);
            for seat in &mut plan {
                if let Plan::Bot { spec, player } = seat {
                    *player = db.unkeyed(Unkeyed::Bot, spec).ok();
                }
            }
        }
        let (room, out) = Room::waiting(&room_id, &order.spec, &plan, seed, options, Instant::now())?;
        let mut invites = Vec::new();
        let mut codes = Vec::new();
        {
            let mut lobby = self.lobby().expect("checked above");
            for seat in room.open_seats().into_iter().take(order.invites) {
                let token = room.tokens()[seat].clone().unwrap_or_default();
                let code = lobby.new_code(&room_id, seat, &mut random_code);
                codes.push(Change::Code { code: code.clone(), room: room_id.clone(), seat });
                invites.push(lobby::invite(host, &room_id, seat, &token, code));
            }
        }
        let token = room.tokens()[0].clone().unwrap_or_default();
        let table = Change::Table {
            room: room_id.clone(),
            spec: order.spec.clone(),
            ruleset: room.ruleset().name.clone(),
            lobby: true,
            hints: order.hints,
            seats: seat_rows(&room),
        };
        let message = lobby::seated(host, &room_id, 0, &token, invites, id);
        let hosted = Arc::new(Mutex::new(Hosted::new(room)));
        let mut guard = lock(&hosted);
        {
            // Counted again where the table goes in: creations at once all passed the
            // lobby's count before it.
            let mut rooms = self.rooms.write().unwrap_or_else(|e| e.into_inner());
            if rooms.len() >= self.config.limits.tables {
                return Err(format!("this host holds {} tables already (its most)", self.config.limits.tables));
            }
            rooms.insert(room_id.clone(), hosted.clone());
        }
        self.list(&guard.room);
        let open = guard.room.open_seats().len();
        let bots = guard.room.session().bots().iter().flatten().count();
        self.say(&format!(
            "room {room_id}: {} opened a table of {} ({} seats: {open} open, {bots} bot{})",
            order.maker.name,
            guard.room.ruleset().name,
            guard.room.players().len(),
            if bots == 1 { "" } else { "s" }
        ));
        guard.queued.fetch_add(1, Ordering::SeqCst);
        let delivery =
            Delivery { sends: vec![(link, Out::Message(Box::new(message)))], queued: Some(guard.queued.clone()) };
        self.keeper.hand(std::iter::once(table).chain(codes).collect(), Vec::new(), delivery);
        self.deliver(&mut guard, out);
        Ok(())
    }

    /// `sit` (or `code`): an open seat of a waiting table (`seat` 0-based, or the first open
    /// one) is kept for this player ([`Room::reserve`]), and its token reaches them once that
    /// is committed; no one else is given it.
    #[allow(clippy::too_many_arguments)]
    async fn sit(
        self: &Arc<Hub>,
        me: Me,
        room: &str,
        seat: Option<Seat>,
        held: &[Seat],
        host: &str,
        link: Link,
        id: Option<Id>,
    ) -> Result<(), (Code, String)> {
        let Some(hosted) = self.hosted(room) else {
            return Err((Code::Unknown, format!("there is no table '{room}' on this host")));
        };
        let (room_id, host, held) = (room.to_string(), host.to_string(), held.to_vec());
        in_room(self, &hosted, move |hub, hosted| {
            let mut out = Outbox::default();
            let seat = hosted.room.reserve(seat, &held, me.player, &me.name, &mut out).map_err(|e| (Code::Full, e))?;
            if let Some(mut lobby) = hub.lobby() {
                lobby.forget_code(&room_id, seat);
            }
            let token = hosted.room.tokens()[seat].clone().unwrap_or_default();
            hub.deliver(hosted, out);
            // After the seat's commit, behind the room's messages.
            hosted.queued.fetch_add(1, Ordering::SeqCst);
            let seated = lobby::seated(&host, &room_id, seat, &token, Vec::new(), id);
            let delivery =
                Delivery { sends: vec![(link, Out::Message(Box::new(seated)))], queued: Some(hosted.queued.clone()) };
            hub.keeper.hand(Vec::new(), Vec::new(), delivery);
            Ok(())
        })
        .await
    }
}

/// Random bytes for a transfer code, from the operating system's RNG.
fn random_transfer() -> [u8; lobby::TRANSFER_LETTERS] {
    let mut bytes = [0u8; lobby::TRANSFER_LETTERS];
    getrandom::fill(&mut bytes).expect("the operating system's RNG works");
    bytes
}

/// Six random bytes for an invite code, from the operating system's RNG.
fn random_code() -> [u8; 6] {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).expect("the operating system's RNG works");
    bytes
}
