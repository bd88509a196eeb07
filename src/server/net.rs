//! The network edge of the host: the axum routes (a WebSocket upgrade per room,
//! `ws://HOST:PORT/ROOM`, and the lobby's, `/lobby`; the same addresses without the upgrade,
//! and `/`, serve the browser page of [`web`]), the `Origin` check, the headers of every
//! answer, the runtime, and the [`Server`] that holds it all: started on a listener guarded
//! at the door ([`super::guard`]), ticking the away timer and closing idle lobby tables,
//! stopped by a signal or once every game is over. A connection is served by
//! `server::connection`; what the connections share is the `server::hub`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::sync::{Notify, watch};

use super::connection::{Endpoint, serve};
use super::db::Db;
use super::guard::{Door, Guarded};
pub use super::hub::ServerConfig;
use super::hub::{Hosted, Hub, lock, register};
use super::keeper::Keeper;
use super::lobby::Lobby;
use super::room::Room;
use super::upload;
use super::web;
use crate::wire::READ_BUFFER;

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
        let mut hosted_rooms = HashMap::new();
        let known = db.rooms().map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        for mut room in rooms {
            if !known.contains(room.id()) {
                new.extend(register(&mut db, &mut room).map_err(|e| std::io::Error::other(format!("{e:#}")))?);
            }
            hosted_rooms.insert(room.id().to_string(), Arc::new(Mutex::new(Hosted::new(room))));
        }
        db.commit(&new).map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        let lobby = match &config.lobby {
            None => None,
            Some(offers) => {
                let last = db.last_room().map_err(|e| std::io::Error::other(format!("{e:#}")))?;
                let mut lobby = Lobby::new(offers.clone(), config.limits, last);
                lobby.take_uploads(config.uploads);
                // The rulesets players brought before (registered so that their tables load).
                for offer in upload::restore(&db).map_err(|e| std::io::Error::other(format!("{e:#}")))? {
                    lobby.offer(offer);
                }
                for (code, room, seat) in db.codes().map_err(|e| std::io::Error::other(format!("{e:#}")))? {
                    if hosted_rooms.contains_key(&room) {
                        lobby.keep_code(&code, &room, seat);
                    }
                }
                for hosted in hosted_rooms.values() {
                    let hosted = lock(hosted);
                    lobby.seen_room(hosted.room.id());
                    lobby.list(&hosted.room);
                }
                Some(Mutex::new(lobby))
            }
        };
        let db = Arc::new(Mutex::new(db));
        let dir = config.dir.clone();
        let (stop, _) = watch::channel(false);
        let hub = Arc::new(Hub {
            rooms: RwLock::new(hosted_rooms),
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
            listing: watch::channel(0).0,
            quota: Default::default(),
            checking: tokio::sync::Semaphore::new(1),
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
                        for hosted in pass.all_hosted() {
                            if let Ok(mut hosted) = hosted.try_lock() {
                                let out = hosted.room.tick(Instant::now());
                                pass.deliver(&mut hosted, out);
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
            .fallback(elsewhere)
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
        self.hub.hosted(id).map(|hosted| f(&mut lock(&hosted).room))
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
        for hosted in self.hub.all_hosted() {
            let mut hosted = lock(&hosted);
            let out = hosted.room.tick(now);
            self.hub.deliver(&mut hosted, out);
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
        self.hub.hosted(id).is_some_and(|hosted| matches!(hosted.try_lock(), Err(std::sync::TryLockError::WouldBlock)))
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

/// Any other path (`/1/`, a link cut or typed with a slash too many): the page of a table the
/// host does not hold, named by the path, which leads back to the lobby; it was an empty 404.
async fn elsewhere(State(hub): State<Arc<Hub>>, uri: axum::http::Uri) -> Response {
    let limits = hub.config.limits;
    web::no_room(uri.path().trim_start_matches('/'), limits.idle_secs, limits.abandoned_secs)
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
    let Some(hosted) = hub.hosted(&room) else {
        if ws.is_err() {
            let limits = hub.config.limits;
            return web::no_room(&room, limits.idle_secs, limits.abandoned_secs);
        }
        return (StatusCode::NOT_FOUND, format!("there is no room '{room}' on this server\n")).into_response();
    };
    let Ok(ws) = ws else {
        let limits = hub.config.limits;
        return web::seat_page(limits.idle_secs, limits.abandoned_secs);
    };
    if let Err(message) = origin_allowed(&headers, &hub.config.allow_origins) {
        return (StatusCode::FORBIDDEN, message).into_response();
    }
    door.upgrading();
    let max = hub.config.limits.hard_max_message;
    ws.max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| serve(hub, socket, Endpoint::Room(hosted)))
}

/// Whether a connection may be opened by the page it comes from. A browser names the page's
/// origin (`Origin`); any web page a player visits could otherwise open a connection to a
/// host on their machine (and fill its spectator hosted_rooms). Allowed: no `Origin` (not a
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
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| serve(hub, socket, Endpoint::Lobby { host, peer: door.peer }))
}
