//! The network edge of the server: an axum WebSocket endpoint per room (`ws://HOST:PORT/ROOM`;
//! the same address without the upgrade, and `/`, serve the browser seat of [`web`]),
//! one task per connection, the limits (message size, rate, refused messages; connections,
//! connections per address and slow requests in [`guard`](super::guard)), the `Origin` check,
//! the headers of every answer, the close statuses, the away timer,
//! and keeping each game on disk move by move (the `Saver`). The game itself is the [`Room`]'s; this module
//! only moves its messages.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
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

use super::guard::{Door, Guarded};
use super::protocol::{self, Limits};
use super::room::{Conn, Outbox, Room};
use super::store;
use super::web;
use crate::script::stop_when;
use crate::table::save::SaveFile;

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

/// A room with the writers of its connections.
struct Slot {
    room: Room,
    senders: HashMap<Conn, mpsc::Sender<Out>>,
    /// How many of the room's moves are in its save or given to the [`Saver`]; `None` while
    /// the room has no save of its game (its next change is written as a whole save).
    kept: Option<usize>,
    /// The game changed while the server was stopping (work cut short: its Lua stopped, its
    /// bots playing on what was left): that change is not saved, the room's save and journal
    /// keep the game as it was before.
    cut: bool,
}

impl Slot {
    fn new(room: Room, kept: Option<usize>) -> Slot {
        Slot { room, senders: HashMap::new(), kept, cut: false }
    }
}

/// The rooms, by name.
type Rooms = HashMap<String, Arc<Mutex<Slot>>>;

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
    /// Keep every game here, move by move (saves and a journal, see [`store`]).
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
    /// The rooms are new and nothing of them is in `dir` yet: the saver writes each one's save
    /// and then its seat file, before any move's journal line, while the host prints the
    /// invites (writing those 2,000 files first kept a thousand rooms' invites 4–6 s away).
    pub new_rooms: bool,
}

/// Everything the connections share.
struct Hub {
    rooms: Arc<Rooms>,
    config: ServerConfig,
    next: AtomicU64,
    open: AtomicUsize,
    done: Notify,
    stop: watch::Sender<bool>,
    /// Set when the server stops (before `stop` is sent): the Lua of a room's work stops.
    stopping: Arc<AtomicBool>,
    /// Writes the saves, when the server keeps a games directory.
    saver: Option<Arc<Saver>>,
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

/// Keeps the games on disk, on a thread of its own, away from the rooms' locks and the async
/// workers (an fsync takes a millisecond or more). Each move becomes a line of the journal
/// ([`store`]), and the writer appends every line waiting, of every room, and makes them
/// durable with one fsync: a move costs its line, not a save of the whole game, and however
/// many rooms move, one fsync covers the batch. A room's whole save is written first thing for
/// a new room, then its seat file ([`ServerConfig::new_rooms`]), when it
/// changes without a save of its game in the directory (the journal's lines follow a save),
/// when its game ends (once a game, so that a finished game's file is whole), when the
/// journal rolls over ([`store::JOURNAL_ROLL`]) and when the server stops, which leaves the
/// saves alone in the directory.
///
/// The rooms' answers do not wait for the disk: a host killed loses the moves not yet handed
/// to the file (those since the last batch), a power cut also those of the batch not yet
/// made durable by its fsync, never an earlier one (`--resume` plays the journal on from the
/// saves).
struct Saver {
    state: Mutex<Saving>,
    /// Wakes the writer (work or stop) and those waiting for it to be idle.
    changed: Condvar,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// What waits for the writer.
#[derive(Default)]
struct Saving {
    /// Journal lines, and the rooms they are of.
    lines: Vec<u8>,
    lines_of: HashSet<String>,
    /// Whole saves, the newest of each room.
    saves: HashMap<String, SaveFile>,
    /// Seat files of new rooms, written after the saves waiting with them.
    seats: Vec<store::Seats>,
    writing: bool,
    stop: bool,
}

/// What the writer thread keeps.
struct Writer {
    dir: PathBuf,
    rooms: Arc<Rooms>,
    /// The journal being appended to, its generation and size, and the size past which it
    /// rolls over.
    journal: Option<std::fs::File>,
    generation: u64,
    size: u64,
    roll_at: u64,
    /// The generations this writer began and has not removed.
    own: Vec<u64>,
    /// Rooms with lines in the current journal that no later save of theirs covers.
    in_journal: HashSet<String>,
    /// Rooms whose save this writer wrote, with its moves.
    saved: HashMap<String, usize>,
}

fn lock_state(saver: &Saver) -> MutexGuard<'_, Saving> {
    saver.state.lock().unwrap_or_else(|e| e.into_inner())
}

fn is_symlink(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn log_error(what: &str, e: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "diving host: {what}: {e:#}");
}

impl Saver {
    fn start(dir: PathBuf, rooms: Arc<Rooms>) -> Arc<Saver> {
        Saver::rolling_at(dir, rooms, store::JOURNAL_ROLL)
    }

    /// [`Saver::start`] with a journal that rolls over past `roll_at` bytes.
    fn rolling_at(dir: PathBuf, rooms: Arc<Rooms>, roll_at: u64) -> Arc<Saver> {
        let saver =
            Arc::new(Saver { state: Mutex::new(Saving::default()), changed: Condvar::new(), thread: Mutex::new(None) });
        // A journal of an earlier run is never appended to or removed by this one.
        let generation = store::journals(&dir).ok().and_then(|j| j.last().map(|(g, _)| *g)).unwrap_or(0) + 1;
        let writer = Writer {
            dir,
            rooms,
            journal: None,
            generation,
            size: 0,
            roll_at,
            own: Vec::new(),
            in_journal: HashSet::new(),
            saved: HashMap::new(),
        };
        let this = Arc::clone(&saver);
        let thread = std::thread::Builder::new()
            .name("diving-saver".into())
            .spawn(move || this.run(writer))
            .expect("the saver thread starts");
        *saver.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread);
        saver
    }

    /// Queues the journal lines of `entries`, the moves `first + 1` on of `room`.
    fn journal(&self, room: &str, first: usize, entries: &[crate::table::session::Entry]) {
        let mut lines = Vec::with_capacity(160 * entries.len());
        store::journal_lines(&mut lines, room, first, entries);
        let mut state = lock_state(self);
        state.lines.extend_from_slice(&lines);
        if !state.lines_of.contains(room) {
            state.lines_of.insert(room.to_string());
        }
        if !state.writing {
            self.changed.notify_all();
        }
    }

    /// Queues `save` as room `room`'s newest whole save.
    fn save(&self, room: &str, save: SaveFile) {
        let mut state = lock_state(self);
        state.saves.insert(room.to_string(), save);
        if !state.writing {
            self.changed.notify_all();
        }
    }

    /// Queues the first save and the seat file of a new room (written in that order, before
    /// any journal line queued after them).
    fn create(&self, room: &str, save: SaveFile, seats: store::Seats) {
        let mut state = lock_state(self);
        state.saves.insert(room.to_string(), save);
        state.seats.push(seats);
        if !state.writing {
            self.changed.notify_all();
        }
    }

    /// Returns once everything queued is written.
    fn flush(&self) {
        let mut state = lock_state(self);
        while !state.lines.is_empty() || !state.saves.is_empty() || !state.seats.is_empty() || state.writing {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Writes what is queued, the save of every room the journal holds moves of, removes the
    /// journal, and stops the writer thread.
    fn stop(&self) {
        lock_state(self).stop = true;
        self.changed.notify_all();
        if let Some(thread) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = thread.join();
        }
    }

    fn run(&self, mut writer: Writer) {
        // Once for every room: reading a directory of a thousand games once a save took a
        // fifth of the server's CPU while games ended.
        store::remove_stale_temporaries(&writer.dir);
        let mut state = lock_state(self);
        loop {
            if !state.lines.is_empty() || !state.saves.is_empty() || !state.seats.is_empty() {
                state.writing = true;
                drop(state);
                writer.drain(self);
                writer.roll(self);
                state = lock_state(self);
                state.writing = false;
                self.changed.notify_all();
                continue;
            }
            if state.stop {
                drop(state);
                writer.close();
                return;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Writer {
    /// Writes the saves waiting, then the seat files of new rooms (a seat file is found by
    /// `--resume` with its save beside it), then appends the lines waiting to the journal (a
    /// room's lines follow its save and seats) and makes them durable.
    fn drain(&mut self, saver: &Saver) {
        let (saves, seats, lines, lines_of) = {
            let mut state = lock_state(saver);
            (
                std::mem::take(&mut state.saves),
                std::mem::take(&mut state.seats),
                std::mem::take(&mut state.lines),
                std::mem::take(&mut state.lines_of),
            )
        };
        for (room, save) in saves {
            if self.write_save(&room, &save) {
                self.in_journal.remove(&room);
            }
        }
        if !seats.is_empty() {
            for seat_file in seats {
                // Without its save a seat file would stop `--resume`: it waits for the save.
                if !self.saved.contains_key(&seat_file.room) {
                    continue;
                }
                if let Err(e) = store::save_seats(&self.dir, &seat_file) {
                    log_error(&format!("room {}", seat_file.room), e);
                }
            }
            if let Err(e) = store::sync_dir(&self.dir) {
                log_error(&format!("cannot write {}", self.dir.display()), e);
            }
        }
        if lines.is_empty() {
            return;
        }
        match self.append(&lines) {
            Ok(()) => self.in_journal.extend(lines_of),
            Err(e) => {
                log_error(
                    &format!("cannot write the journal {}", store::journal_path(&self.dir, self.generation).display()),
                    e,
                );
                // Their moves are not in the journal: their saves must hold them.
                for room in lines_of {
                    self.snapshot(&room);
                }
            }
        }
    }

    /// Writes `save` of `room`, unless this writer wrote one with more moves already.
    /// Whether the room's save now holds the moves of `save`.
    fn write_save(&mut self, room: &str, save: &SaveFile) -> bool {
        let moves = save.actions.len();
        let result = match self.saved.get(room) {
            Some(&written) if written >= moves => return true,
            // The stale temporaries of the directory went when the writer began (`run`); a
            // save that is a link to elsewhere has its own directory looked at once.
            None if is_symlink(&store::save_path(&self.dir, room)) => store::write_game(&self.dir, room, save),
            _ => store::rewrite_game(&self.dir, room, save),
        };
        match result {
            Ok(()) => {
                self.saved.insert(room.to_string(), moves);
                true
            }
            Err(e) => {
                log_error(&format!("room {room}"), e);
                false
            }
        }
    }

    /// Writes the save of `room` as it stands now (not a room whose work the server's stop
    /// cut short: its save and the journal hold it as it was before).
    fn snapshot(&mut self, room: &str) -> bool {
        let Some(slot) = self.rooms.get(room) else { return true };
        let save = {
            let slot = lock(slot);
            if slot.cut {
                return false;
            }
            slot.room.session().to_save()
        };
        self.write_save(room, &save)
    }

    /// Appends `lines` to the journal and makes them durable; on a failure the journal is
    /// cut back to where it was, so no half line is left before the next ones.
    fn append(&mut self, lines: &[u8]) -> std::io::Result<()> {
        if self.journal.is_none() {
            let path = store::journal_path(&self.dir, self.generation);
            let file = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
            self.size = file.metadata()?.len();
            self.own.push(self.generation);
            self.journal = Some(file);
            store::sync_dir(&self.dir)?;
        }
        let file = self.journal.as_mut().expect("opened above");
        let written = file.write_all(lines).and_then(|()| file.sync_data());
        if written.is_err() {
            let _ = file.set_len(self.size);
        } else {
            self.size += lines.len() as u64;
        }
        written
    }

    /// Checked after each batch: past `roll_at` bytes ([`store::JOURNAL_ROLL`]), begins a new
    /// journal, writes the saves of the rooms the old one holds moves of (writing what comes
    /// in meanwhile to the new one), then removes the old one.
    fn roll(&mut self, saver: &Saver) {
        if self.size < self.roll_at {
            return;
        }
        let rooms = std::mem::take(&mut self.in_journal);
        let old: Vec<u64> = std::mem::take(&mut self.own);
        self.journal = None;
        self.generation += 1;
        self.size = 0;
        let mut all = true;
        for room in rooms {
            all &= self.snapshot(&room);
            self.drain(saver);
        }
        self.remove(old, all);
    }

    /// Removes the journals of `generations` once `saved` (every room they hold moves of has
    /// its save); otherwise keeps them for `--resume`.
    fn remove(&mut self, generations: Vec<u64>, saved: bool) {
        if !saved {
            self.own.extend(generations);
            return;
        }
        if let Err(e) = store::sync_dir(&self.dir) {
            self.own.extend(generations);
            return log_error(&format!("cannot write {}", self.dir.display()), e);
        }
        for generation in generations {
            let path = store::journal_path(&self.dir, generation);
            if let Err(e) = std::fs::remove_file(&path) {
                log_error(&format!("cannot remove {}", path.display()), e);
            }
        }
        let _ = store::sync_dir(&self.dir);
    }

    /// At the server's stop: every room's save holds all its moves, and the journal goes.
    fn close(&mut self) {
        let rooms = std::mem::take(&mut self.in_journal);
        let mut all = true;
        for room in rooms {
            all &= self.snapshot(&room);
        }
        self.journal = None;
        let own = std::mem::take(&mut self.own);
        self.remove(own, all);
    }
}

impl Hub {
    /// Saves, logs and sends what a room call produced. Called with the room locked, so
    /// messages leave in the order the room made them; the new moves (or the whole save) are
    /// handed to the [`Saver`] here, in order too.
    fn deliver(&self, slot: &mut Slot, out: Outbox) {
        if out.changed && self.stopping.load(Ordering::SeqCst) {
            slot.cut = true;
        } else if out.changed
            && let Some(saver) = &self.saver
        {
            let session = slot.room.session();
            let moves = session.entries().len();
            match slot.kept {
                // A finished game gets its whole save, once: whoever opens the file (`diving
                // replay`, `--load`) finds the whole game without a `--resume`.
                Some(kept) if kept <= moves && !slot.room.is_over() => {
                    saver.journal(slot.room.id(), kept, &session.entries()[kept..]);
                }
                _ => saver.save(slot.room.id(), session.to_save()),
            }
            slot.kept = Some(moves);
        }
        for line in out.log {
            eprintln!("diving host: {line}");
        }
        let mut closing = Vec::new();
        for c in &out.close {
            let last = out.sent.iter().rev().find(|(to, _)| to == c).map(|(_, t)| t.as_str());
            closing.push((*c, close_status(last)));
        }
        for (to, text) in out.sent {
            if let Some(tx) = slot.senders.get(&to)
                && tx.try_send(Out::Text(text)).is_err()
            {
                // A reader this far behind is dropped rather than held in memory.
                slot.senders.remove(&to);
            }
        }
        for (c, (code, reason)) in closing {
            if let Some(tx) = slot.senders.remove(&c) {
                let _ = tx.try_send(Out::Close(code, reason));
            }
        }
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
            && self.rooms.values().all(|s| lock(s).room.is_over())
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
    /// Serves `rooms` on `listener` (on the current tokio runtime).
    pub fn start(listener: tokio::net::TcpListener, rooms: Vec<Room>, config: ServerConfig) -> std::io::Result<Server> {
        let addr = listener.local_addr()?;
        let rooms: Arc<Rooms> = Arc::new(
            rooms
                .into_iter()
                .map(|room| {
                    // A new room's save is written first thing, with no move (below).
                    let kept = match config.dir.as_deref() {
                        Some(_) if config.new_rooms => Some(0),
                        Some(dir) => store::saved_moves(dir, room.id(), room.session()),
                        None => None,
                    };
                    (room.id().to_string(), Arc::new(Mutex::new(Slot::new(room, kept))))
                })
                .collect(),
        );
        let (stop, _) = watch::channel(false);
        let saver = config.dir.clone().map(|dir| Saver::start(dir, rooms.clone()));
        if let Some(saver) = saver.as_ref().filter(|_| config.new_rooms) {
            let mut ids: Vec<&String> = rooms.keys().collect();
            ids.sort_by_key(|id| (id.len(), id.as_str()));
            for id in ids {
                let slot = lock(&rooms[id]);
                let seats = store::Seats { room: id.clone(), tokens: slot.room.tokens().to_vec() };
                saver.create(id, slot.room.session().to_save(), seats);
            }
        }
        let hub = Arc::new(Hub {
            rooms,
            config,
            next: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            done: Notify::new(),
            stop,
            stopping: Arc::new(AtomicBool::new(false)),
            saver,
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
                        for slot in pass.rooms.values() {
                            if let Ok(mut slot) = slot.try_lock() {
                                let out = slot.room.tick(Instant::now());
                                pass.deliver(&mut slot, out);
                            }
                        }
                    })
                    .await;
                }
            });
        }
        let app = Router::new()
            .route("/", get(web::index))
            .route("/assets/{file}", get(web::asset))
            .route("/{room}", get(upgrade))
            .layer(axum::middleware::map_response(web::secure))
            .with_state(hub.clone());
        let shutdown = {
            let hub = hub.clone();
            async move {
                let mut stop = hub.stop.subscribe();
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
        self.hub.rooms.get(id).map(|slot| f(&mut lock(slot).room))
    }

    /// Lets the away timer look now, at `now` (tests drive the clock this way).
    pub fn tick(&self, now: Instant) {
        for slot in self.hub.rooms.values() {
            let mut slot = lock(slot);
            let out = slot.room.tick(now);
            self.hub.deliver(&mut slot, out);
        }
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
        self.hub.rooms.get(id).is_some_and(|slot| matches!(slot.try_lock(), Err(std::sync::TryLockError::WouldBlock)))
    }

    /// Waits until every move made so far is on disk (in a save or the journal): what a crash
    /// now would leave behind.
    pub async fn sync(&self) {
        if let Some(saver) = self.hub.saver.clone() {
            let _ = tokio::task::spawn_blocking(move || saver.flush()).await;
        }
    }

    /// Waits until the server stops (every game over and every client gone, if so configured),
    /// and every game is in its save (the journal removed).
    pub async fn wait(self) -> std::io::Result<()> {
        let served = self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)));
        if let Some(saver) = self.hub.saver.clone() {
            tokio::task::spawn_blocking(move || saver.stop()).await.map_err(std::io::Error::other)?;
        }
        served
    }
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
    let Some(slot) = hub.rooms.get(&room).cloned() else {
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
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::channel::<Out>(256);
    let sender = tx.clone();
    in_room(&hub, &slot, move |_, slot| slot.senders.insert(conn, sender)).await;
    let mut writer = tokio::spawn(async move {
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
    });
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
        let text = match next {
            Some(Ok(Message::Text(text))) => Some(text),
            Some(Ok(Message::Binary(_))) => {
                refuse("malformed", "send text messages (JSON), not binary ones");
                None
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
        };
        let refused = match text {
            None => true,
            Some(_) if !bucket.allow(Instant::now()) => {
                let message =
                    format!("too many messages: at most {} a second (bursts of {})", limits.per_second, limits.burst);
                refuse("rate", &message);
                true
            }
            Some(text) if text.len() > limits.max_message => {
                let message =
                    format!("a message may have at most {} bytes; this one has {}", limits.max_message, text.len());
                refuse("too_big", &message);
                true
            }
            Some(text) => {
                let (refused, has) = in_room(&hub, &slot, move |hub, slot| {
                    let out = slot.room.receive(conn, &text, Instant::now());
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
            refuse(
                "dropped",
                &format!("too many refused messages ({} more refused than accepted)", limits.max_strikes),
            );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::room::RoomOptions;
    use crate::table::session::{Seating, Session};

    /// Rooms of two bots (their whole game is played when the room is made), each saved as
    /// it was dealt, as `diving host` saves a new room.
    fn rooms(dir: &std::path::Path, count: u64) -> Arc<Rooms> {
        let mut rooms = Rooms::new();
        for i in 0..count {
            let seating = ["ann", "bob"].map(|n| Seating { name: n.into(), bot: Some("greedy".into()) }).to_vec();
            let session = Session::new("standard", seating, 7 + i, None).unwrap();
            let id = (i + 1).to_string();
            store::save_seats(dir, &store::Seats { room: id.clone(), tokens: vec![None, None] }).unwrap();
            store::save_game(dir, &id, &session).unwrap();
            let room = Room::new(&id, session, vec![None, None], RoomOptions::default());
            rooms.insert(id, Arc::new(Mutex::new(Slot::new(room, Some(0)))));
        }
        Arc::new(rooms)
    }

    /// Hands each room's moves to the saver as the hub does, one room a batch, and waits until
    /// each batch is written.
    fn journal_all(saver: &Saver, rooms: &Rooms) {
        for (id, slot) in rooms {
            saver.journal(id, 0, lock(slot).room.session().entries());
            saver.flush();
        }
    }

    fn moves_saved(dir: &std::path::Path, room: &str) -> usize {
        crate::table::save::read(&store::save_path(dir, room)).unwrap().actions.len()
    }

    #[test]
    fn a_journal_past_its_size_rolls_over_into_the_saves_and_goes() {
        let dir = tempfile::tempdir().unwrap();
        let rooms = rooms(dir.path(), 3);
        let saver = Saver::rolling_at(dir.path().to_path_buf(), rooms.clone(), 1);
        journal_all(&saver, &rooms);
        // Every room's save now holds its whole game; the journal that held them is gone.
        for (id, slot) in rooms.iter() {
            assert_eq!(moves_saved(dir.path(), id), lock(slot).room.session().entries().len(), "room {id}");
        }
        assert!(store::journals(dir.path()).unwrap().is_empty());
        saver.stop();
        let games = store::load_all(dir.path()).unwrap();
        for (seats, session) in &games.rooms {
            assert_eq!(session.game(), lock(&rooms[&seats.room]).room.session().game());
        }
    }

    #[test]
    fn a_stop_writes_the_saves_and_removes_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let rooms = rooms(dir.path(), 2);
        let saver = Saver::start(dir.path().to_path_buf(), rooms.clone());
        journal_all(&saver, &rooms);
        // Before the stop the moves are in the journal only, and a resume finds them there.
        assert_eq!(moves_saved(dir.path(), "1"), 0);
        assert_eq!(store::journals(dir.path()).unwrap().len(), 1);
        let before = store::load_all(dir.path()).unwrap();
        saver.stop();
        assert!(store::journals(dir.path()).unwrap().is_empty());
        let after = store::load_all(dir.path()).unwrap();
        for ((_, a), (_, b)) in before.rooms.iter().zip(&after.rooms) {
            assert!(!a.entries().is_empty());
            assert_eq!(a.game(), b.game());
        }
    }
}
