//! The network edge of the server: an axum WebSocket endpoint per room (`ws://HOST:PORT/ROOM`;
//! the same address without the upgrade, and `/`, serve the browser seat of [`web`]),
//! one task per connection, the limits (message size, rate, refused messages; connections,
//! connections per address and slow requests in [`guard`](super::guard)), the `Origin` check,
//! the headers of every answer, the close statuses, the away timer,
//! and keeping each game on disk move by move (the `Saver`). The game itself is the [`Room`]'s; this module
//! only moves its messages.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{Notify, mpsc, watch};

use super::db::{Change, Db, Place, PlayerId, SeatRow, Unkeyed};
use super::guard::{Door, Guarded};
use super::lobby::{Lobby, Offer, Order};
use super::protocol::{self, LOBBY_SINCE, Limits, LobbyMessage, PROTOCOL};
use super::room::{Conn, Outbox, Plan, Record, Room, RoomOptions};
use super::store;
use super::web;
use crate::core::Seat;
use crate::script::stop_when;
use crate::table::record;
use crate::table::save::{ActionJson, SaveFile};

/// What a connection's writer is asked to do.
enum Out {
    Text(String),
    /// Close with this status code and reason (the error code that ended it, or `bye`).
    Close(u16, String),
}

/// The close status of a connection the server ends: 1000 for a `quit`, 1001 for a server
/// that stops, 1008 (policy) for one refused or dropped, with the error's code as the reason.
fn close_status(last: Option<&str>) -> (u16, String) {
    match last.and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok()) {
        Some(v) if v["type"] == "error" => (1008, v["code"].as_str().unwrap_or("error").to_string()),
        _ => (1000, "bye".to_string()),
    }
}

/// A connection's writer, as the room's messages reach it.
#[derive(Clone)]
struct Link {
    tx: mpsc::Sender<Out>,
    /// Set once a message could not be queued (a reader 256 messages behind): it is sent
    /// nothing more, so what it was sent has no gap.
    behind: Arc<AtomicBool>,
}

impl Link {
    fn new(tx: mpsc::Sender<Out>) -> Link {
        Link { tx, behind: Arc::new(AtomicBool::new(false)) }
    }

    fn send(&self, out: Out) {
        if self.behind.load(Ordering::Relaxed) {
            return;
        }
        if self.tx.try_send(out).is_err() {
            self.behind.store(true, Ordering::Relaxed);
        }
    }
}

/// A room with the writers of its connections.
struct Slot {
    room: Room,
    senders: HashMap<Conn, Link>,
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

impl Slot {
    fn new(room: Room) -> Slot {
        let kept = room.session().entries().len();
        let rated = if room.is_over() { room.game_number() } else { room.game_number() - 1 };
        Slot { room, senders: HashMap::new(), kept, rated, cut: false, queued: Arc::new(AtomicUsize::new(0)) }
    }
}

/// The rooms, by name: the lobby makes new ones, and idle lobby tables are closed.
type Rooms = RwLock<HashMap<String, Arc<Mutex<Slot>>>>;

/// The most sockets the runtime takes ready from the kernel at once: see [`runtime`].
pub const READY_AT_ONCE: usize = 16;

/// The runtime `diving host` serves on: two workers, taking at most [`READY_AT_ONCE`]
/// ready sockets from the kernel at a time.
///
/// Tokio's default takes up to 1,024. Under load (a thousand players, each answering the
/// moment it is answered) that put hundreds of connections' tasks at once on a worker's queue,
/// which holds 256: the oldest half went to the back of the shared queue, which a worker reads
/// only once every 61 tasks while its own queue has any. Those connections waited several
/// times longer than the others: with 1,000 rooms the median answer took 10 ms and the 99th
/// percentile 100 ms. Taking a few at a time leaves the rest in the kernel's list of ready
/// sockets, which is first come first served, so every connection waits about as long as
/// the others.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_io_events_per_tick(READY_AT_ONCE)
        .max_blocking_threads(ROOM_THREADS)
        .enable_all()
        .build()
}

/// How many rooms' work runs at once on the blocking threads; the rest waits its turn. Tokio's default
/// (512) let 1,000 busy rooms start hundreds of threads, whose stacks and switches took
/// most of the time (the load example: 11,800 actions/s, p99 417 ms; with 16, 22,700 and
/// 77 ms; 4 gave the same as 16). Sixteen keep both cores busy and leave room for up to
/// fifteen rooms whose Lua runs long (each call stops within its second) while the others
/// are served.
pub const ROOM_THREADS: usize = 16;

/// How the server runs.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// Keep every game here, move by move, in the database ([`super::db::FILE`]), and each finished
    /// game's save file.
    pub dir: Option<PathBuf>,
    pub limits: Limits,
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
    pub lobby: Option<Vec<Offer>>,
    /// How the lobby's tables run (the away bot; their limits and hints are the server's and
    /// the table's).
    pub room: RoomOptions,
}

/// Everything the connections share.
struct Hub {
    rooms: Rooms,
    /// The address the server listens on.
    addr: SocketAddr,
    config: ServerConfig,
    next: AtomicU64,
    open: AtomicUsize,
    done: Notify,
    stop: watch::Sender<bool>,
    /// Set when the server stops (before `stop` is sent): the Lua of a room's work stops.
    stopping: Arc<AtomicBool>,
    /// Commits what the rooms change, then sends their messages.
    keeper: Arc<Keeper>,
    db: Arc<Mutex<Db>>,
    lobby: Option<Lobby>,
}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    // A panic while a room was locked leaves the room as it was after its last whole call.
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the Lua of a room's work says when the server stops under it.
const STOPPING: &str = "the host is stopping";

/// Runs `work` on the room of `slot` with the room locked, on a blocking thread of the
/// runtime, never on its async workers: a room whose mods or bots think for long (up to their
/// budgets: a second per Lua call, a search's budget per bot move) holds up its own
/// connections, whose messages wait their turn, and no other room. While it runs, the Lua
/// it calls stops at once when the server stops ([`stop_when`]), so a stop waits for no
/// room's Lua.
///
/// Every call into a [`Room`] from the connections and the away timer goes through here.
async fn in_room<T: Send + 'static>(
    hub: &Arc<Hub>,
    slot: &Arc<Mutex<Slot>>,
    work: impl FnOnce(&Hub, &mut Slot) -> T + Send + 'static,
) -> T {
    let (hub, slot) = (hub.clone(), slot.clone());
    let task = tokio::task::spawn_blocking(move || {
        let _stop = stop_when(hub.stopping.clone(), STOPPING);
        work(&hub, &mut lock(&slot))
    });
    match task.await {
        Ok(value) => value,
        // A panic in the room's work ends the connection's task, as it did on the worker.
        Err(e) => {
            std::panic::resume_unwind(e.try_into_panic().unwrap_or_else(|_| Box::new("the room's work was cancelled")))
        }
    }
}

/// Keeps the games in the host's database ([`db`]), on a thread of its own, away from the
/// rooms' locks and the async workers. What a room call changed (a table made, a seat taken,
/// a game dealt, its moves, a result) is handed over with the messages it made; the keeper
/// commits everything waiting, of every room, in one transaction (one `fsync` however many
/// rooms moved), and only then sends those messages. So **no one is told of a move the
/// database does not hold**: a host killed at any moment loses only moves no one heard of.
/// A finished game's save file (`ROOM.save.json`, `ROOM~N.save.json`) is written after its
/// commit, for `diving replay` and `--load`.
struct Keeper {
    state: Mutex<Keeping>,
    /// Wakes the writer (work or stop) and those waiting for it to be idle.
    changed: Condvar,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    db: Arc<Mutex<Db>>,
}

/// A room call's messages, sent once its changes are committed.
struct Delivery {
    sends: Vec<(Link, Out)>,
    /// The room's count of deliveries waiting, taken down once these are sent.
    queued: Option<Arc<AtomicUsize>>,
}

/// What waits for the writer.
#[derive(Default)]
struct Keeping {
    changes: Vec<Change>,
    /// Finished games' save files.
    exports: Vec<(PathBuf, SaveFile)>,
    deliveries: Vec<Delivery>,
    writing: bool,
    stop: bool,
}

fn lock_keeping(keeper: &Keeper) -> MutexGuard<'_, Keeping> {
    keeper.state.lock().unwrap_or_else(|e| e.into_inner())
}

fn lock_db(db: &Mutex<Db>) -> MutexGuard<'_, Db> {
    db.lock().unwrap_or_else(|e| e.into_inner())
}

fn is_symlink(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn log_error(what: &str, e: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "diving host: {what}: {e:#}");
}

impl Keeper {
    fn start(db: Arc<Mutex<Db>>, dir: Option<PathBuf>) -> Arc<Keeper> {
        let keeper = Arc::new(Keeper {
            state: Mutex::new(Keeping::default()),
            changed: Condvar::new(),
            thread: Mutex::new(None),
            db,
        });
        let this = Arc::clone(&keeper);
        let thread = std::thread::Builder::new()
            .name("diving-keeper".into())
            .spawn(move || this.run(dir))
            .expect("the keeper thread starts");
        *keeper.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread);
        keeper
    }

    /// Hands over a room call's changes, files and messages.
    fn hand(&self, changes: Vec<Change>, exports: Vec<(PathBuf, SaveFile)>, delivery: Delivery) {
        let mut state = lock_keeping(self);
        state.changes.extend(changes);
        state.exports.extend(exports);
        state.deliveries.push(delivery);
        if !state.writing {
            self.changed.notify_all();
        }
    }

    /// Returns once everything handed over is committed and sent.
    fn flush(&self) {
        let mut state = lock_keeping(self);
        while !state.changes.is_empty() || !state.deliveries.is_empty() || !state.exports.is_empty() || state.writing {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Commits and sends what is handed over, then stops the writer thread.
    fn stop(&self) {
        lock_keeping(self).stop = true;
        self.changed.notify_all();
        if let Some(thread) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = thread.join();
        }
    }

    fn run(&self, dir: Option<PathBuf>) {
        if let Some(dir) = &dir {
            store::remove_stale_temporaries(dir);
        }
        let mut state = lock_keeping(self);
        loop {
            if !state.changes.is_empty() || !state.deliveries.is_empty() || !state.exports.is_empty() {
                state.writing = true;
                let changes = std::mem::take(&mut state.changes);
                let deliveries = std::mem::take(&mut state.deliveries);
                // A save file waits until no room's messages do: writing a file (and making it
                // durable) takes a millisecond or more, and a thousand games ending together
                // held every room's answers up behind their files (p99 240 ms in the load
                // example). One file at a time between batches.
                let exports = if changes.is_empty() && deliveries.is_empty() {
                    state.exports.pop().into_iter().collect()
                } else {
                    Vec::new()
                };
                drop(state);
                self.write(&changes, exports, deliveries);
                state = lock_keeping(self);
                state.writing = false;
                self.changed.notify_all();
                continue;
            }
            if state.stop {
                return;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn write(&self, changes: &[Change], exports: Vec<(PathBuf, SaveFile)>, deliveries: Vec<Delivery>) {
        if !changes.is_empty() {
            let mut db = lock_db(&self.db);
            // Once more after a failure (a disk briefly full, a lock held by a reader); then
            // the games go on, and the host's log says what is not kept.
            if let Err(first) = db.commit(changes)
                && let Err(e) = db.commit(changes)
            {
                log_error(&format!("cannot keep {} changes in the database (first: {first:#})", changes.len()), e);
            }
        }
        for delivery in deliveries {
            for (link, out) in delivery.sends {
                link.send(out);
            }
            if let Some(queued) = delivery.queued {
                queued.fetch_sub(1, Ordering::SeqCst);
            }
        }
        for (path, save) in exports {
            // The directory's stale temporaries went when the keeper began (`run`): a save is
            // written without reading the directory again (a thousand times, a thousand
            // entries each), unless it is a link to elsewhere, whose own directory is looked at.
            let written = if is_symlink(&path) {
                crate::table::save::write(&path, &save)
            } else {
                crate::table::save::write_again(&path, &save)
            };
            if let Err(e) = written {
                log_error(&format!("cannot write {}", path.display()), e);
            }
        }
    }
}

/// The seats of a room as the database keeps them.
fn seat_rows(room: &Room) -> Vec<SeatRow> {
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
pub fn export_path(dir: &std::path::Path, room: &str, game: u32) -> PathBuf {
    if game <= 1 { store::save_path(dir, room) } else { dir.join(format!("{room}~{game}.save.json")) }
}

/// The places of a finished game, with each seat's player, for the ratings.
fn places(room: &Room) -> Option<Vec<Place>> {
    let game = room.session().game();
    let depths: Vec<u32> = game.players().iter().map(|p| p.depth).collect();
    let winner = game.winner();
    let places = crate::sim::tournament::finishing_places(winner, &depths);
    room.players()
        .iter()
        .enumerate()
        .map(|(seat, player)| Some(Place { seat, player: (*player)?, place: places[seat], won: winner == Some(seat) }))
        .collect()
}

impl Hub {
    fn slot(&self, id: &str) -> Option<Arc<Mutex<Slot>>> {
        self.rooms.read().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }

    fn slots(&self) -> Vec<Arc<Mutex<Slot>>> {
        self.rooms.read().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }

    fn room_count(&self) -> usize {
        self.rooms.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Keeps, logs and sends what a room call produced. Called with the room locked, so
    /// messages leave in the order the room made them: what changed is handed to the
    /// [`Keeper`] here, and the messages with it, sent once it is committed.
    fn deliver(&self, slot: &mut Slot, out: Outbox) {
        let mut changes = Vec::new();
        let mut exports = Vec::new();
        let changed = out.changed || !out.records.is_empty();
        if changed && self.stopping.load(Ordering::SeqCst) {
            slot.cut = true;
        } else if changed {
            let id = slot.room.id().to_string();
            let game = slot.room.game_number();
            for record in &out.records {
                match *record {
                    Record::Sat { seat, player } => changes.push(Change::Sat { room: id.clone(), seat, player }),
                    Record::Dealt => {
                        let setup = Box::new(slot.room.session().to_save());
                        slot.kept = setup.actions.len();
                        changes.push(Change::Dealt { room: id.clone(), game, setup, seats: seat_rows(&slot.room) });
                    }
                }
            }
            let entries = slot.room.session().entries();
            if entries.len() > slot.kept && !slot.room.is_waiting() {
                let moves = entries[slot.kept..]
                    .iter()
                    .map(|e| (record::step_text(e.step), ActionJson::from(&e.action)))
                    .collect();
                changes.push(Change::Moves { room: id.clone(), game, first: slot.kept, moves });
                slot.kept = entries.len();
            }
            if slot.room.is_over() && slot.rated < game && !slot.room.is_waiting() {
                slot.rated = game;
                match places(&slot.room) {
                    Some(places) => {
                        let ruleset = slot.room.ruleset().name.clone();
                        changes.push(Change::Finished { room: id.clone(), game, ruleset, places });
                    }
                    None => log_error(&format!("room {id}"), "a seat has no player, so the game is not rated"),
                }
                if let Some(dir) = &self.config.dir {
                    exports.push((export_path(dir, &id, game), slot.room.session().to_save()));
                }
                if let Some(lobby) = &self.lobby {
                    lobby.list(&slot.room);
                }
            }
        }
        if out.listed
            && let Some(lobby) = &self.lobby
        {
            lobby.list(&slot.room);
        }
        for line in out.log {
            eprintln!("diving host: {line}");
        }
        let mut closing = Vec::new();
        for c in &out.close {
            let last = out.sent.iter().rev().find(|(to, _)| to == c).map(|(_, t)| t.as_str());
            closing.push((*c, close_status(last)));
        }
        let mut sends = Vec::with_capacity(out.sent.len() + closing.len());
        for (to, text) in out.sent {
            if let Some(link) = slot.senders.get(&to) {
                sends.push((link.clone(), Out::Text(text)));
            }
        }
        for (c, (code, reason)) in closing {
            if let Some(link) = slot.senders.remove(&c) {
                sends.push((link, Out::Close(code, reason)));
            }
        }
        if changes.is_empty() && exports.is_empty() && slot.queued.load(Ordering::SeqCst) == 0 {
            for (link, out) in sends {
                link.send(out);
            }
            return;
        }
        slot.queued.fetch_add(1, Ordering::SeqCst);
        let delivery = Delivery { sends, queued: Some(slot.queued.clone()) };
        self.keeper.hand(changes, exports, delivery);
    }

    fn check_done(&self) {
        if self.is_done() {
            self.done.notify_one();
        }
    }

    /// [`Hub::check_done`] from async code: on a blocking thread, as it waits for each room.
    async fn check_done_later(self: &Arc<Hub>) {
        let hub = self.clone();
        let _ = tokio::task::spawn_blocking(move || hub.check_done()).await;
    }

    /// Stops the server: its connections close, and the Lua of any room's work stops at once.
    fn halt(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = self.stop.send(true);
    }

    /// Every game over and every client gone, on a server that stops then (waits for a room
    /// busy with work: call it off the async workers).
    fn is_done(&self) -> bool {
        self.config.stop_when_done
            && self.open.load(Ordering::SeqCst) == 0
            && self.slots().iter().all(|s| lock(s).room.is_over())
    }

    /// Closes the lobby tables that waited, or stood finished, with no one at them for
    /// `idle_secs` (at `now`): they leave the listing, and are not resumed.
    fn close_idle(&self, now: Instant) {
        let Some(lobby) = &self.lobby else { return };
        let idle = Duration::from_secs(self.config.limits.idle_secs);
        let abandoned = Duration::from_secs(self.config.limits.abandoned_secs);
        let mut closed = Vec::new();
        for slot in self.slots() {
            let Ok(slot) = slot.try_lock() else { continue };
            let room = &slot.room;
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
        let changes = closed.iter().map(|id| Change::Closed { room: id.clone() }).collect();
        for id in &closed {
            lobby.unlist(id);
        }
        self.keeper.hand(changes, Vec::new(), Delivery { sends: Vec::new(), queued: None });
    }
}

/// Stops a running server ([`Server::stopper`]).
pub struct Stopper(Arc<Hub>);

impl Stopper {
    /// Closes every connection and stops the server; its games are saved as at any stop.
    pub fn stop(&self) {
        self.0.halt();
    }
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    hub: Arc<Hub>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Serves `rooms` on `listener` (on the current tokio runtime), keeping the games in the
    /// database of `config.dir` (made there if it is not; in memory without a directory).
    pub fn start(listener: tokio::net::TcpListener, rooms: Vec<Room>, config: ServerConfig) -> std::io::Result<Server> {
        let db = match &config.dir {
            Some(dir) => Db::open(dir).map_err(|e| std::io::Error::other(format!("{e:#}")))?,
            None => Db::in_memory(),
        };
        Server::start_with(listener, rooms, config, db)
    }

    /// [`Server::start`] with the database open already (`diving host` read the games to
    /// resume from it). A room the database does not hold is written into it first, as a
    /// new table with its game as it stands.
    pub fn start_with(
        listener: tokio::net::TcpListener,
        rooms: Vec<Room>,
        config: ServerConfig,
        mut db: Db,
    ) -> std::io::Result<Server> {
        let addr = listener.local_addr()?;
        let mut new = Vec::new();
        let mut slots = HashMap::new();
        let known = db.rooms().map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        for mut room in rooms {
            if !known.contains(room.id()) {
                new.extend(register(&mut db, &mut room).map_err(|e| std::io::Error::other(format!("{e:#}")))?);
            }
            slots.insert(room.id().to_string(), Arc::new(Mutex::new(Slot::new(room))));
        }
        db.commit(&new).map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        let lobby = match &config.lobby {
            None => None,
            Some(offers) => {
                let last = db.last_room().map_err(|e| std::io::Error::other(format!("{e:#}")))?;
                let lobby = Lobby::new(offers.clone(), last);
                for (code, room, seat) in db.codes().map_err(|e| std::io::Error::other(format!("{e:#}")))? {
                    if slots.contains_key(&room) {
                        lobby.keep_code(&code, &room, seat);
                    }
                }
                for slot in slots.values() {
                    let slot = lock(slot);
                    lobby.seen_room(slot.room.id());
                    lobby.list(&slot.room);
                }
                Some(lobby)
            }
        };
        let db = Arc::new(Mutex::new(db));
        let dir = config.dir.clone();
        let (stop, _) = watch::channel(false);
        let hub = Arc::new(Hub {
            rooms: RwLock::new(slots),
            addr,
            config,
            next: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            done: Notify::new(),
            stop,
            stopping: Arc::new(AtomicBool::new(false)),
            keeper: Keeper::start(db.clone(), dir),
            db,
            lobby,
        });
        if let Some(every) = hub.config.tick {
            let hub = hub.clone();
            tokio::spawn(async move {
                let mut stop = hub.stop.subscribe();
                let mut interval = tokio::time::interval(every);
                loop {
                    tokio::select! {
                        _ = interval.tick() => {}
                        _ = stop.changed() => return,
                    }
                    // Off the async workers; a room busy with work is looked at next time, so
                    // that it holds up no other room's timer.
                    let pass = hub.clone();
                    let _ = tokio::task::spawn_blocking(move || {
                        for slot in pass.slots() {
                            if let Ok(mut slot) = slot.try_lock() {
                                let out = slot.room.tick(Instant::now());
                                pass.deliver(&mut slot, out);
                            }
                        }
                        pass.close_idle(Instant::now());
                    })
                    .await;
                }
            });
        }
        let app = Router::new()
            .route("/", get(web::index))
            .route("/assets/{file}", get(web::asset))
            .route("/lobby", get(lobby_upgrade))
            .route("/{room}", get(upgrade))
            .layer(axum::middleware::map_response(web::secure))
            .with_state(hub.clone());
        let shutdown = {
            let hub = hub.clone();
            // Subscribed now, not when the task first runs: a server stopped at once (before
            // its task ran) would otherwise never see the stop.
            let mut stop = hub.stop.subscribe();
            async move {
                if *stop.borrow_and_update() {
                    return;
                }
                loop {
                    tokio::select! {
                        _ = hub.done.notified() => {}
                        _ = stop.changed() => break,
                    }
                    // Done: stays a while for a client that comes back (each one that leaves
                    // again notifies anew), then stops if no one did.
                    tokio::select! {
                        () = tokio::time::sleep(hub.config.stay) => {}
                        _ = stop.changed() => break,
                    }
                    let done = hub.clone();
                    if tokio::task::spawn_blocking(move || done.is_done()).await.unwrap_or(false) {
                        break;
                    }
                }
                hub.halt();
            }
        };
        hub.check_done();
        let limits = hub.config.limits;
        let within = Duration::from_secs(limits.request_within_secs);
        let listener = Guarded::new(listener, limits.connections, limits.per_address, within);
        let app = app.into_make_service_with_connect_info::<Door>();
        let task = tokio::spawn(async move { axum::serve(listener, app).with_graceful_shutdown(shutdown).await });
        Ok(Server { addr, hub, task })
    }

    /// Runs `f` on a room (for the host and tests).
    pub fn with_room<T>(&self, id: &str, f: impl FnOnce(&mut Room) -> T) -> Option<T> {
        self.hub.slot(id).map(|slot| f(&mut lock(&slot).room))
    }

    /// The rooms' names, in their order (`1`, `2`, … `10`).
    pub fn room_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.hub.rooms.read().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
        ids.sort_by_key(|id| (id.len(), id.clone()));
        ids
    }

    /// Lets the away timer look now, at `now`, and closes the lobby tables idle by then (tests
    /// drive the clock this way).
    pub fn tick(&self, now: Instant) {
        for slot in self.hub.slots() {
            let mut slot = lock(&slot);
            let out = slot.room.tick(now);
            self.hub.deliver(&mut slot, out);
        }
        self.hub.close_idle(now);
    }

    /// Open connections.
    pub fn connections(&self) -> usize {
        self.hub.open.load(Ordering::SeqCst)
    }

    /// A handle that stops this server from elsewhere (a signal's task), as [`Server::stop`]
    /// does; [`Server::wait`] then returns once the games are saved.
    pub fn stopper(&self) -> Stopper {
        Stopper(self.hub.clone())
    }

    /// Closes every connection and stops.
    pub async fn stop(self) -> std::io::Result<()> {
        self.hub.halt();
        self.wait().await
    }

    /// Whether room `id` is running work now (a command, its mods and bots): what a test of
    /// a busy room waits for.
    pub fn is_busy(&self, id: &str) -> bool {
        self.hub.slot(id).is_some_and(|slot| matches!(slot.try_lock(), Err(std::sync::TryLockError::WouldBlock)))
    }

    /// Waits until everything the rooms changed so far is committed and its messages sent.
    pub async fn sync(&self) {
        let keeper = self.hub.keeper.clone();
        let _ = tokio::task::spawn_blocking(move || keeper.flush()).await;
    }

    /// Waits until the server stops (every game over and every client gone, if so configured),
    /// and everything the rooms changed is committed.
    pub async fn wait(self) -> std::io::Result<()> {
        let served = self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)));
        let keeper = self.hub.keeper.clone();
        tokio::task::spawn_blocking(move || keeper.stop()).await.map_err(std::io::Error::other)?;
        served
    }
}

/// A room new to the database: its seats' players (a guest under each person's seat name, a
/// bot by its spec), its table, and its game as it stands.
fn register(db: &mut Db, room: &mut Room) -> anyhow::Result<Vec<Change>> {
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

/// `GET /ROOM`: a WebSocket upgrade joins the room; a plain request gets the browser seat.
/// The connection already holds one of the server's permits ([`guard`](super::guard)).
async fn upgrade(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(door): ConnectInfo<Door>,
    Path(room): Path<String>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Some(slot) = hub.slot(&room) else {
        return (StatusCode::NOT_FOUND, format!("there is no room '{room}' on this server\n")).into_response();
    };
    let Ok(ws) = ws else { return web::page() };
    if let Err(message) = origin_allowed(&headers, &hub.config.allow_origins) {
        return (StatusCode::FORBIDDEN, message).into_response();
    }
    door.upgrading();
    let max = hub.config.limits.hard_max_message;
    ws.max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(protocol::READ_BUFFER)
        .on_upgrade(move |socket| connection(hub, slot, socket))
}

/// Whether a connection may be opened by the page it comes from. A browser names the page's
/// origin (`Origin`); any web page a player visits could otherwise open a connection to a
/// host on their machine (and fill its spectator slots). Allowed: no `Origin` (not a
/// browser: `diving join`, scripts), the host's own page (the origin's address is the one the
/// request came to, its `Host`), and the origins the host allows (`--allow-origin`).
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> Result<(), String> {
    let Some(origin) = headers.get(header::ORIGIN) else { return Ok(()) };
    let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
    if allowed.iter().any(|a| a == "*" || a.trim_end_matches('/').eq_ignore_ascii_case(origin)) {
        return Ok(());
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let authority = origin.split_once("://").map_or("", |(_, rest)| rest);
    if !host.is_empty() && authority.eq_ignore_ascii_case(host) {
        return Ok(());
    }
    let shown: String = origin.chars().filter(|c| !c.is_control()).take(100).collect();
    Err(format!(
        "a page from '{shown}' may not connect to this host (only its own page may; the host can allow others with --allow-origin)\n"
    ))
}

/// Refused messages against accepted ones: each refused message (malformed, too big, too
/// fast, or a command the game refuses: out of turn, illegal, a spectator's play) counts one
/// up, each accepted one one down; at `max` the connection is dropped. A client that is
/// refused now and then is never dropped; one that sends mostly refused messages is, even
/// with accepted ones between them (any accepted message used to start the count again).
#[derive(Debug, Clone)]
pub struct Strikes {
    count: u32,
    max: u32,
}

impl Strikes {
    pub fn new(max: u32) -> Strikes {
        Strikes { count: 0, max }
    }

    /// Counts one message; whether the connection must be dropped now.
    pub fn count(&mut self, refused: bool) -> bool {
        self.count = if refused { self.count + 1 } else { self.count.saturating_sub(1) };
        self.count >= self.max
    }

    /// Why the connection is dropped.
    pub fn message(&self) -> String {
        format!("too many refused messages ({} more refused than accepted)", self.max)
    }
}

/// A token bucket: `burst` messages at once, `per_second` after.
#[derive(Debug, Clone)]
pub struct Bucket {
    tokens: f64,
    burst: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    pub fn new(limits: &Limits, now: Instant) -> Bucket {
        Bucket { tokens: limits.burst as f64, burst: limits.burst as f64, rate: limits.per_second as f64, last: now }
    }

    /// Whether one more message may pass at `now`.
    pub fn allow(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

async fn connection(hub: Arc<Hub>, slot: Arc<Mutex<Slot>>, socket: WebSocket) {
    hub.open.fetch_add(1, Ordering::SeqCst);
    let conn = hub.next.fetch_add(1, Ordering::SeqCst);
    let limits = hub.config.limits;
    let (sink, mut stream) = socket.split();
    let (tx, rx) = mpsc::channel::<Out>(256);
    let sender = Link::new(tx.clone());
    in_room(&hub, &slot, move |_, slot| slot.senders.insert(conn, sender)).await;
    let mut writer = spawn_writer(sink, rx);
    let mut stop = hub.stop.subscribe();
    let mut bucket = Bucket::new(&limits, Instant::now());
    let join_by = tokio::time::Instant::now() + Duration::from_secs(limits.join_within_secs);
    let mut joined = false;
    let mut strikes = Strikes::new(limits.max_strikes);
    let mut writer_done = false;
    let own = tx;
    let refuse = |code: &str, message: &str| {
        let _ = own.try_send(Out::Text(protocol::error(code, message)));
    };
    let close = |code: u16, reason: &str| {
        let _ = own.try_send(Out::Close(code, reason.to_string()));
    };
    loop {
        let next = tokio::select! {
            m = stream.next() => m,
            _ = &mut writer => {
                writer_done = true;
                break;
            }
            _ = stop.changed() => break,
            _ = tokio::time::sleep_until(join_by), if !joined => {
                refuse("timeout", &format!("send 'join' or 'watch' within {}s", limits.join_within_secs));
                close(1008, "timeout");
                break;
            }
        };
        let refused = match screen(next, &mut bucket, &limits) {
            Received::Nothing => continue,
            Received::End => break,
            Received::Overflow(message) => {
                refuse("too_big", &message);
                close(1009, "too_big");
                break;
            }
            Received::Refused(code, message) => {
                refuse(code, &message);
                true
            }
            Received::Text(text) => {
                let (refused, has) = in_room(&hub, &slot, move |hub, slot| {
                    let db = hub.db.clone();
                    let mut identify = |p: &protocol::Player| lock_db(&db).person(&p.name, &p.key).map_err(|e| e.0);
                    let out = slot.room.receive_as(conn, &text, Instant::now(), &mut identify);
                    let refused = out.refused;
                    let has = slot.room.has(conn);
                    hub.deliver(slot, out);
                    (refused, has)
                })
                .await;
                joined |= has;
                refused
            }
        };
        if strikes.count(refused) {
            refuse("dropped", &strikes.message());
            close(1008, "dropped");
            break;
        }
    }
    in_room(&hub, &slot, move |hub, slot| {
        let out = slot.room.leave(conn, Instant::now());
        slot.senders.remove(&conn);
        hub.deliver(slot, out);
    })
    .await;
    drop(own);
    // The writer sends what is queued, then closes.
    if !writer_done {
        let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    }
    hub.open.fetch_sub(1, Ordering::SeqCst);
    hub.check_done_later().await;
}

/// What a frame a connection received is to it (room or lobby alike).
enum Received {
    /// A text within the limits, to answer.
    Text(axum::extract::ws::Utf8Bytes),
    /// Refused (binary, over the rate, too big): the error's code and message.
    Refused(&'static str, String),
    /// A ping or pong.
    Nothing,
    /// A message past the hard limit, which the socket does not even read: why, and the
    /// connection closes with status 1009 (too big).
    Overflow(String),
    /// The connection closed or failed.
    End,
}

/// Screens a received frame with the connection's limits (PROTOCOL.md, *Limits*): only a text
/// within the rate and the size goes on to the room or the lobby.
fn screen(frame: Option<Result<Message, axum::Error>>, bucket: &mut Bucket, limits: &Limits) -> Received {
    match frame {
        Some(Ok(Message::Text(_))) if !bucket.allow(Instant::now()) => Received::Refused(
            "rate",
            format!("too many messages: at most {} a second (bursts of {})", limits.per_second, limits.burst),
        ),
        Some(Ok(Message::Text(text))) if text.len() > limits.max_message => Received::Refused(
            "too_big",
            format!("a message may have at most {} bytes; this one has {}", limits.max_message, text.len()),
        ),
        Some(Ok(Message::Text(text))) => Received::Text(text),
        Some(Ok(Message::Binary(_))) => {
            Received::Refused("malformed", "send text messages (JSON), not binary ones".to_string())
        }
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => Received::Nothing,
        // The socket's own limit (`hard_max_message`): tungstenite says "Message too long".
        Some(Err(e)) if e.to_string().contains("too long") => Received::Overflow(format!(
            "a message may have at most {} bytes; this one has more, so the connection closes",
            limits.max_message
        )),
        Some(Ok(Message::Close(_)) | Err(_)) | None => Received::End,
    }
}

/// `GET /lobby`: a WebSocket upgrade opens the lobby; a plain request gets the page.
async fn lobby_upgrade(
    State(hub): State<Arc<Hub>>,
    ConnectInfo(door): ConnectInfo<Door>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    if hub.lobby.is_none() {
        return (StatusCode::NOT_FOUND, "this host has no lobby\n").into_response();
    }
    let Ok(ws) = ws else { return web::page() };
    if let Err(message) = origin_allowed(&headers, &hub.config.allow_origins) {
        return (StatusCode::FORBIDDEN, message).into_response();
    }
    // The links a `seated` gives name the address the client came to.
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("").to_string();
    let host = if host.is_empty() || !host.chars().all(|c| c.is_ascii_graphic()) { hub.addr.to_string() } else { host };
    door.upgrading();
    let max = hub.config.limits.hard_max_message;
    ws.max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(protocol::READ_BUFFER)
        .on_upgrade(move |socket| lobby_connection(hub, socket, host))
}

/// Sends a connection's messages until it closes (or is told to close), then its close frame.
fn spawn_writer(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Out>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut status = (1001, "the server stops".to_string());
        while let Some(out) = rx.recv().await {
            match out {
                Out::Text(text) => {
                    if sink.send(Message::Text(text.into())).await.is_err() {
                        return;
                    }
                }
                Out::Close(code, reason) => {
                    status = (code, reason);
                    break;
                }
            }
        }
        let frame = CloseFrame { code: status.0, reason: status.1.into() };
        let _ = sink.send(Message::Close(Some(frame))).await;
    })
}

/// Who a lobby connection is.
#[derive(Default)]
struct Visitor {
    hello: bool,
    me: Option<(String, PlayerId)>,
    /// Tables this connection made.
    made: usize,
}

/// What a lobby message is answered with: messages to the sender (sent once what they tell
/// of is committed, for a new table), and whether it was refused.
struct Answer {
    texts: Vec<String>,
    refused: bool,
    close: bool,
}

impl Answer {
    fn one(text: String) -> Answer {
        Answer { texts: vec![text], refused: false, close: false }
    }

    fn refuse(code: &str, message: &str) -> Answer {
        Answer { texts: vec![protocol::error(code, message)], refused: true, close: false }
    }
}

async fn lobby_connection(hub: Arc<Hub>, socket: WebSocket, host: String) {
    hub.open.fetch_add(1, Ordering::SeqCst);
    let limits = hub.config.limits;
    let (sink, mut stream) = socket.split();
    let (tx, rx) = mpsc::channel::<Out>(256);
    let link = Link::new(tx.clone());
    let mut writer = spawn_writer(sink, rx);
    let lobby_version = hub.lobby.as_ref().map(|l| l.version.subscribe());
    let Some(mut listing) = lobby_version else { return };
    let mut stop = hub.stop.subscribe();
    let mut bucket = Bucket::new(&limits, Instant::now());
    let hello_by = tokio::time::Instant::now() + Duration::from_secs(limits.join_within_secs);
    let mut strikes = Strikes::new(limits.max_strikes);
    let mut visitor = Visitor::default();
    let mut writer_done = false;
    loop {
        let next = tokio::select! {
            m = stream.next() => m,
            _ = &mut writer => {
                writer_done = true;
                break;
            }
            _ = stop.changed() => break,
            _ = tokio::time::sleep_until(hello_by), if !visitor.hello => {
                link.send(Out::Text(protocol::error("timeout", &format!("send 'lobby' within {}s", limits.join_within_secs))));
                link.send(Out::Close(1008, "timeout".into()));
                break;
            }
            changed = listing.changed(), if visitor.hello => {
                if changed.is_err() {
                    break;
                }
                // Many changes at once (a busy host) are told in one message.
                tokio::time::sleep(Duration::from_millis(200)).await;
                listing.borrow_and_update();
                if let Some(lobby) = &hub.lobby {
                    link.send(Out::Text(lobby.message(visitor.me.as_ref().map(|m| m.0.as_str()), &limits)));
                }
                continue;
            }
        };
        let answer = match screen(next, &mut bucket, &limits) {
            Received::Nothing => continue,
            Received::End => break,
            Received::Overflow(message) => {
                link.send(Out::Text(protocol::error("too_big", &message)));
                link.send(Out::Close(1009, "too_big".into()));
                break;
            }
            Received::Refused(code, message) => Answer::refuse(code, &message),
            Received::Text(text) => match LobbyMessage::parse(&text) {
                Err(e) => Answer::refuse("malformed", &e),
                Ok(message) => lobby_answer(&hub, &mut visitor, message, &host, &link).await,
            },
        };
        for text in answer.texts {
            link.send(Out::Text(text));
        }
        if answer.close {
            let (code, reason) = (1008, "protocol".to_string());
            link.send(Out::Close(code, reason));
            break;
        }
        if strikes.count(answer.refused) {
            link.send(Out::Text(protocol::error("dropped", &strikes.message())));
            link.send(Out::Close(1008, "dropped".into()));
            break;
        }
    }
    drop(link);
    drop(tx);
    if !writer_done {
        let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    }
    hub.open.fetch_sub(1, Ordering::SeqCst);
    hub.check_done_later().await;
}

/// Answers one lobby message (PROTOCOL.md, *The lobby*).
async fn lobby_answer(hub: &Arc<Hub>, visitor: &mut Visitor, message: LobbyMessage, host: &str, link: &Link) -> Answer {
    let Some(lobby) = &hub.lobby else { return Answer::refuse("unknown", "this host has no lobby") };
    let limits = hub.config.limits;
    match message {
        LobbyMessage::Lobby { protocol, name, key } => {
            if !(LOBBY_SINCE..=PROTOCOL).contains(&protocol) {
                let mut answer = Answer::refuse(
                    "protocol",
                    &format!(
                        "the lobby speaks protocol {LOBBY_SINCE} to {PROTOCOL}, the client {protocol}: use the same version of diving"
                    ),
                );
                answer.close = true;
                return answer;
            }
            visitor.hello = true;
            match (name, key) {
                (None, None) => visitor.me = None,
                (Some(name), Some(key)) => {
                    if let Err(e) = super::room::check_player_name(&name) {
                        return Answer::refuse("name", &e);
                    }
                    let db = hub.db.clone();
                    let asked = name.clone();
                    let found = tokio::task::spawn_blocking(move || lock_db(&db).person(&asked, &key)).await;
                    match found {
                        Ok(Ok(id)) => visitor.me = Some((name, id)),
                        Ok(Err(refused)) => return Answer::refuse("name", &refused.0),
                        Err(_) => return Answer::refuse("name", "the host could not look the name up"),
                    }
                }
                _ => return Answer::refuse("malformed", "give both 'name' and 'key', or neither (to look only)"),
            }
            Answer::one(lobby.message(visitor.me.as_ref().map(|m| m.0.as_str()), &limits))
        }
        _ if !visitor.hello => Answer::refuse("not_joined", "send 'lobby' first"),
        LobbyMessage::Create { ruleset, seats, bots, hints } => {
            let Some((name, player)) = visitor.me.clone() else {
                return Answer::refuse("name", "say who you are first: 'lobby' with your name and key");
            };
            if visitor.made >= limits.tables_per_connection
                || lobby.waiting_made_by(player) >= limits.tables_per_connection
            {
                return Answer::refuse(
                    "limit",
                    &format!(
                        "you have made {} tables already (the most one player makes at a time)",
                        limits.tables_per_connection
                    ),
                );
            }
            if hub.room_count() >= limits.tables {
                return Answer::refuse(
                    "limit",
                    &format!("this host holds {} tables already (its most)", limits.tables),
                );
            }
            let order = match lobby.order(&ruleset, seats, &bots, hints, (&name, player)) {
                Ok(order) => order,
                Err(e) => return Answer::refuse("unknown", &e),
            };
            let made = create_table(hub, order, player, host, link.clone()).await;
            match made {
                Ok(()) => {
                    visitor.made += 1;
                    Answer { texts: Vec::new(), refused: false, close: false }
                }
                Err(e) if e.contains("tables already") => Answer::refuse("limit", &e),
                Err(e) => Answer::refuse("unknown", &e),
            }
        }
        LobbyMessage::Sit { .. } | LobbyMessage::Code { .. } if visitor.me.is_none() => {
            Answer::refuse("name", "say who you are first: 'lobby' with your name and key")
        }
        LobbyMessage::Sit { room, seat: Some(0) } => {
            Answer::refuse("unknown", &format!("seats of table {room} are numbered from 1"))
        }
        LobbyMessage::Sit { room, seat } => {
            sit(hub, visitor.me.clone().expect("checked above"), &room, seat.map(|s| s - 1), host, link.clone()).await
        }
        LobbyMessage::Code { code } => match lobby.code(&code) {
            Some((room, seat)) => {
                sit(hub, visitor.me.clone().expect("checked above"), &room, Some(seat), host, link.clone()).await
            }
            None => Answer::refuse("unknown", "no open seat has that code (a code works until its seat is taken)"),
        },
        LobbyMessage::Ratings { ruleset } => {
            let db = hub.db.clone();
            let board = tokio::task::spawn_blocking(move || {
                let db = lock_db(&db);
                Ok::<_, anyhow::Error>((db.leaderboard(&ruleset)?, db.recent(&ruleset, 20)?, ruleset))
            })
            .await;
            match board {
                Ok(Ok((rows, recent, ruleset))) => {
                    let recent: Vec<serde_json::Value> = recent
                        .iter()
                        .map(|r| {
                            let places: Vec<serde_json::Value> =
                                r.places.iter().map(|(p, place)| serde_json::json!({ "player": p, "place": place })).collect();
                            serde_json::json!({ "room": r.room, "game": r.game, "finished": r.finished, "places": places })
                        })
                        .collect();
                    Answer::one(
                        serde_json::json!({ "type": "ratings", "ruleset": ruleset, "rows": rows, "recent": recent })
                            .to_string(),
                    )
                }
                Ok(Err(e)) => Answer::refuse("unknown", &format!("cannot read the ratings: {e:#}")),
                Err(_) => Answer::refuse("unknown", "cannot read the ratings"),
            }
        }
    }
}

/// The `seated` message for `seat` (0-based) of `room`, with `invites` for a new table.
fn seated(host: &str, room: &str, seat: Seat, token: &str, invites: Vec<serde_json::Value>) -> String {
    let mut message = serde_json::json!({
        "type": "seated", "room": room, "seat": seat + 1, "token": token,
        "browser": format!("http://{host}/{room}#seat={}&token={token}", seat + 1),
        "join": format!("diving join {host}/{room} --seat {} --token {token}", seat + 1),
    });
    if !invites.is_empty() {
        message["invites"] = serde_json::Value::Array(invites);
    }
    message.to_string()
}

/// Makes a table from a checked `create`: the room, its line in the listing, invite codes
/// for its open seats; `seated` reaches the maker once the table is committed.
async fn create_table(hub: &Arc<Hub>, order: Order, maker: PlayerId, host: &str, link: Link) -> Result<(), String> {
    let Some(_) = &hub.lobby else { return Err("this host has no lobby".into()) };
    let hub = hub.clone();
    let host = host.to_string();
    tokio::task::spawn_blocking(move || {
        let lobby = hub.lobby.as_ref().expect("checked above");
        let id = lobby.next_room();
        let mut options = hub.config.room.clone();
        options.limits = hub.config.limits;
        options.allow_hints = order.hints;
        let seed = rand::random::<u64>() >> 12;
        // Bots are rated too, under their spec.
        let mut plan = order.plan.clone();
        {
            let mut db = lock_db(&hub.db);
            for seat in &mut plan {
                if let Plan::Bot { spec, player } = seat {
                    *player = db.unkeyed(Unkeyed::Bot, spec).ok();
                }
            }
        }
        let (room, out) = Room::waiting(&id, &order.spec, &plan, seed, options, Instant::now())?;
        let mut invites = Vec::new();
        let mut codes = Vec::new();
        for seat in room.open_seats() {
            let token = room.tokens()[seat].clone().unwrap_or_default();
            let code = lobby.new_code(&id, seat);
            codes.push(Change::Code { code: code.clone(), room: id.clone(), seat });
            let mut invite: serde_json::Value =
                serde_json::from_str(&seated(&host, &id, seat, &token, Vec::new())).expect("a seated message is JSON");
            invite["code"] = serde_json::json!(code);
            if let Some(o) = invite.as_object_mut() {
                o.remove("type");
                o.remove("room");
            }
            invites.push(invite);
        }
        let token = room.tokens()[0].clone().unwrap_or_default();
        let table = Change::Table {
            room: id.clone(),
            spec: order.spec.clone(),
            ruleset: room.ruleset().name.clone(),
            lobby: true,
            hints: order.hints,
            seats: seat_rows(&room),
        };
        let message = seated(&host, &id, 0, &token, invites);
        let slot = Arc::new(Mutex::new(Slot::new(room)));
        {
            let mut guard = lock(&slot);
            {
                // Counted again where the table goes in: creations at once all passed the
                // count before it.
                let mut rooms = hub.rooms.write().unwrap_or_else(|e| e.into_inner());
                if rooms.len() >= hub.config.limits.tables {
                    return Err(format!("this host holds {} tables already (its most)", hub.config.limits.tables));
                }
                rooms.insert(id.clone(), slot.clone());
            }
            lobby.made(&id, maker);
            lobby.list(&guard.room);
            guard.queued.fetch_add(1, Ordering::SeqCst);
            let delivery = Delivery { sends: vec![(link, Out::Text(message))], queued: Some(guard.queued.clone()) };
            hub.keeper.hand(std::iter::once(table).chain(codes).collect(), Vec::new(), delivery);
            hub.deliver(&mut guard, out);
        }
        Ok(())
    })
    .await
    .unwrap_or_else(|_| Err("the table could not be made".into()))
}

/// `sit` (or `code`): an open seat of a waiting table (`seat` 0-based, or the first open
/// one) is kept for this player ([`Room::reserve`]), and its token reaches them once that is
/// committed; no one else is given it.
async fn sit(hub: &Arc<Hub>, me: (String, PlayerId), room: &str, seat: Option<Seat>, host: &str, link: Link) -> Answer {
    let Some(slot) = hub.slot(room) else {
        return Answer::refuse("unknown", &format!("there is no table '{room}' on this host"));
    };
    let (id, host) = (room.to_string(), host.to_string());
    let answer = in_room(hub, &slot, move |hub, slot| {
        let mut out = Outbox::default();
        let seat = match slot.room.reserve(seat, me.1, &me.0, &mut out) {
            Ok(seat) => seat,
            Err(e) => return Some(e),
        };
        if let Some(lobby) = &hub.lobby {
            lobby.forget_code(&id, seat);
        }
        let token = slot.room.tokens()[seat].clone().unwrap_or_default();
        hub.deliver(slot, out);
        // After the seat's commit, behind the room's messages.
        slot.queued.fetch_add(1, Ordering::SeqCst);
        let delivery = Delivery {
            sends: vec![(link, Out::Text(seated(&host, &id, seat, &token, Vec::new())))],
            queued: Some(slot.queued.clone()),
        };
        hub.keeper.hand(Vec::new(), Vec::new(), delivery);
        None
    })
    .await;
    match answer {
        None => Answer { texts: Vec::new(), refused: false, close: false },
        Some(e) => Answer::refuse("full", &e),
    }
}
