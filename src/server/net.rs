//! The network edge of the server: an axum WebSocket endpoint per room (`ws://HOST:PORT/ROOM`;
//! the same address without the upgrade, and `/`, serve the browser seat of [`web`]),
//! one task per connection, the limits (message size, rate, connections), the away timer,
//! and saving each game after every change. The game itself is the [`Room`]'s; this module
//! only moves its messages.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, watch};

use super::protocol::{self, Limits};
use super::room::{Conn, Outbox, Room};
use super::store;
use super::web;
use crate::repl::save::SaveFile;

/// What a connection's writer is asked to do.
enum Out {
    Text(String),
    Close,
}

/// A room with the writers of its connections.
struct Slot {
    room: Room,
    senders: HashMap<Conn, mpsc::Sender<Out>>,
}

/// How the server runs.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// Save every game here after every change.
    pub dir: Option<PathBuf>,
    pub limits: Limits,
    /// Stop once every game is over and every client has left.
    pub stop_when_done: bool,
    /// How often the away timer looks (`None`: never; tests tick rooms themselves).
    pub tick: Option<Duration>,
}

/// Everything the connections share.
struct Hub {
    rooms: HashMap<String, Arc<Mutex<Slot>>>,
    config: ServerConfig,
    permits: Arc<Semaphore>,
    next: AtomicU64,
    open: AtomicUsize,
    done: Notify,
    stop: watch::Sender<bool>,
    /// Writes the saves, when the server keeps a games directory.
    saver: Option<Arc<Saver>>,
}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    // A panic while a room was locked leaves the room as it was after its last whole call.
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes the rooms' saves on a thread of its own, away from the rooms' locks and the async
/// workers: writing a save ends with an fsync, which took a millisecond or more and held up
/// every room behind it. A room's newest save replaces one still waiting to be written, so a
/// room that moves faster than the disk writes its latest game, and after a crash at most the
/// moves of the last write are lost (the save format holds every action up to it).
struct Saver {
    state: Mutex<Saving>,
    /// Wakes the writer (work or stop) and those waiting for it to be idle.
    changed: Condvar,
}

#[derive(Default)]
struct Saving {
    pending: HashMap<String, SaveFile>,
    writing: bool,
    stop: bool,
}

impl Saver {
    fn start(dir: PathBuf) -> Arc<Saver> {
        let saver = Arc::new(Saver { state: Mutex::new(Saving::default()), changed: Condvar::new() });
        let writer = Arc::clone(&saver);
        std::thread::spawn(move || writer.run(&dir));
        saver
    }

    /// Queues `save` as room `room`'s newest.
    fn save(&self, room: &str, save: SaveFile) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.pending.insert(room.to_string(), save);
        self.changed.notify_all();
    }

    /// Returns once every queued save is written.
    fn flush(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while !state.pending.is_empty() || state.writing {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Writes what is queued, then stops the writer thread.
    fn stop(&self) {
        self.flush();
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stop = true;
        self.changed.notify_all();
    }

    fn run(&self, dir: &std::path::Path) {
        // The rooms written once already: their stale temporary files are gone.
        let mut written = std::collections::HashSet::new();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if !state.pending.is_empty() {
                let batch = std::mem::take(&mut state.pending);
                state.writing = true;
                drop(state);
                for (room, save) in batch {
                    let result = if written.contains(&room) {
                        store::rewrite_game(dir, &room, &save)
                    } else {
                        written.insert(room.clone());
                        store::write_game(dir, &room, &save)
                    };
                    if let Err(e) = result {
                        let _ = writeln!(std::io::stderr(), "diving host: room {room}: {e:#}");
                    }
                }
                state = self.state.lock().unwrap_or_else(|e| e.into_inner());
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
}

impl Hub {
    /// Saves, logs and sends what a room call produced. Called with the room locked, so
    /// messages leave in the order the room made them; the save is made here (in order too)
    /// and written by the [`Saver`].
    fn deliver(&self, slot: &mut Slot, out: Outbox) {
        if out.changed
            && let Some(saver) = &self.saver
        {
            saver.save(slot.room.id(), slot.room.session().to_save());
        }
        for line in out.log {
            eprintln!("diving host: {line}");
        }
        for (to, text) in out.sent {
            if let Some(tx) = slot.senders.get(&to)
                && tx.try_send(Out::Text(text)).is_err()
            {
                // A reader this far behind is dropped rather than held in memory.
                slot.senders.remove(&to);
            }
        }
        for c in out.close {
            if let Some(tx) = slot.senders.remove(&c) {
                let _ = tx.try_send(Out::Close);
            }
        }
    }

    fn check_done(&self) {
        if self.config.stop_when_done
            && self.open.load(Ordering::SeqCst) == 0
            && self.rooms.values().all(|s| lock(s).room.is_over())
        {
            self.done.notify_one();
        }
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
        let rooms = rooms
            .into_iter()
            .map(|room| (room.id().to_string(), Arc::new(Mutex::new(Slot { room, senders: HashMap::new() }))))
            .collect();
        let (stop, _) = watch::channel(false);
        let saver = config.dir.clone().map(Saver::start);
        let hub = Arc::new(Hub {
            rooms,
            permits: Arc::new(Semaphore::new(config.limits.connections)),
            config,
            next: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            done: Notify::new(),
            stop,
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
                    for slot in hub.rooms.values() {
                        let mut slot = lock(slot);
                        let out = slot.room.tick(Instant::now());
                        hub.deliver(&mut slot, out);
                    }
                }
            });
        }
        let app = Router::new()
            .route("/", get(web::index))
            .route("/assets/{file}", get(web::asset))
            .route("/{room}", get(upgrade))
            .with_state(hub.clone());
        let shutdown = {
            let hub = hub.clone();
            async move {
                let mut stop = hub.stop.subscribe();
                tokio::select! {
                    _ = hub.done.notified() => {}
                    _ = stop.changed() => {}
                }
                let _ = hub.stop.send(true);
            }
        };
        hub.check_done();
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

    /// Closes every connection and stops.
    pub async fn stop(self) -> std::io::Result<()> {
        let _ = self.hub.stop.send(true);
        self.wait().await
    }

    /// Waits until the server stops (every game over and every client gone, if so configured),
    /// and every save is written.
    pub async fn wait(self) -> std::io::Result<()> {
        let served = self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)));
        if let Some(saver) = self.hub.saver.clone() {
            tokio::task::spawn_blocking(move || saver.stop()).await.map_err(std::io::Error::other)?;
        }
        served
    }
}

/// `GET /ROOM`: a WebSocket upgrade joins the room; a plain request gets the browser seat.
async fn upgrade(
    State(hub): State<Arc<Hub>>,
    Path(room): Path<String>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Some(slot) = hub.rooms.get(&room).cloned() else {
        return (StatusCode::NOT_FOUND, format!("there is no room '{room}' on this server\n")).into_response();
    };
    let Ok(ws) = ws else { return web::page() };
    let Ok(permit) = hub.permits.clone().try_acquire_owned() else {
        let text =
            format!("the server holds {} connections, its most; try again later\n", hub.config.limits.connections);
        return (StatusCode::SERVICE_UNAVAILABLE, text).into_response();
    };
    let max = hub.config.limits.hard_max_message;
    ws.max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(protocol::READ_BUFFER)
        .on_upgrade(move |socket| connection(hub, slot, socket, permit))
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

async fn connection(hub: Arc<Hub>, slot: Arc<Mutex<Slot>>, socket: WebSocket, permit: OwnedSemaphorePermit) {
    let _permit = permit;
    hub.open.fetch_add(1, Ordering::SeqCst);
    let conn = hub.next.fetch_add(1, Ordering::SeqCst);
    let limits = hub.config.limits;
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::channel::<Out>(256);
    lock(&slot).senders.insert(conn, tx.clone());
    let mut writer = tokio::spawn(async move {
        while let Some(out) = rx.recv().await {
            match out {
                Out::Text(text) => {
                    if sink.send(Message::Text(text.into())).await.is_err() {
                        return;
                    }
                }
                Out::Close => break,
            }
        }
        let _ = sink.send(Message::Close(None)).await;
    });
    let mut stop = hub.stop.subscribe();
    let mut bucket = Bucket::new(&limits, Instant::now());
    let join_by = tokio::time::Instant::now() + Duration::from_secs(limits.join_within_secs);
    let mut joined = false;
    let mut strikes = 0;
    let mut writer_done = false;
    let own = tx;
    let refuse = |code: &str, message: &str| {
        let _ = own.try_send(Out::Text(protocol::error(code, message)));
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
                break;
            }
        };
        let text = match next {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Binary(_))) => {
                strikes += 1;
                refuse("malformed", "send text messages (JSON), not binary ones");
                if strikes >= limits.max_strikes {
                    break;
                }
                continue;
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
        };
        if !bucket.allow(Instant::now()) {
            strikes += 1;
            let message =
                format!("too many messages: at most {} a second (bursts of {})", limits.per_second, limits.burst);
            refuse("rate", &message);
            if strikes >= limits.max_strikes {
                refuse("dropped", "too many refused messages in a row");
                break;
            }
            continue;
        }
        if text.len() > limits.max_message {
            strikes += 1;
            refuse(
                "too_big",
                &format!("a message may have at most {} bytes; this one has {}", limits.max_message, text.len()),
            );
            if strikes >= limits.max_strikes {
                break;
            }
            continue;
        }
        let mut slot = lock(&slot);
        let out = slot.room.receive(conn, &text, Instant::now());
        let refused = out.sent.iter().any(|(to, t)| *to == conn && t.starts_with(r#"{"type":"error""#));
        strikes = if refused { strikes + 1 } else { 0 };
        joined |= slot.room.has(conn);
        hub.deliver(&mut slot, out);
        if strikes >= limits.max_strikes {
            break;
        }
    }
    {
        let mut slot = lock(&slot);
        let out = slot.room.leave(conn, Instant::now());
        slot.senders.remove(&conn);
        hub.deliver(&mut slot, out);
    }
    drop(own);
    // The writer sends what is queued, then closes.
    if !writer_done {
        let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    }
    hub.open.fetch_sub(1, Ordering::SeqCst);
    hub.check_done();
}
