//! Load test for `diving host`, on loopback, stopping by itself: ROOMS players (default 200)
//! at once, each a person over the protocol against a greedy bot, each playing GAMES games
//! (`--games`, default 4) one after another in a room of its own, so ROOMS games are played at
//! once; every person plays as fast as the server answers (asks `moves`, plays the first)
//! until its game ends, or with `--pace MS` waits MS milliseconds before each command (a
//! table of quick players, not a closed loop).
//! Prints the action latency (command sent → its output received) percentiles, the wall
//! time, the CPU time the process (server and players together) spent during the run, and
//! the load average before it (other work on the machine shares its cores).
//!
//! `--browser`: each player is a browser seat instead (version 6, as the page joins: views
//! pushed with every listed move's preview, after every change; it sends the first listed
//! move as a `move`, and asks for nothing). `--hostile`: one more player plays beside them at
//! a table whose mod burns about 850,000 steps at every turn's start (within its budget), so
//! that every decision there — its listing with the previews, the bot's move — spends what
//! its budget allows; its figures are given apart, the others' are those that count.
//!
//! `cargo run --release --example load -- 1000 [--games 4] [--pace 500] [--browser]
//! [--hostile]` (the figures `docs/network.md` quotes).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use diving::server::net::{self, Server, ServerConfig};
use diving::server::room::{Room, RoomOptions, new_token};
use diving::table::session::{Seating, Session};
use diving::wire::{HostLimits as Limits, LOBBY_SINCE, PROTOCOL, READ_BUFFER};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use tokio::sync::Barrier;
use tokio_tungstenite::connect_async_with_config;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// What a player reads of a server message: the fields it acts on; the rest is skipped
/// without being built, so the measuring client costs the server's two cores little.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    json: Vec<Line<'a>>,
    /// (a browser seat) The view pushed with a change.
    #[serde(default)]
    view: Option<ViewIn>,
}

/// What a browser seat reads of its view: the state it shows and the first listed move.
#[derive(Deserialize)]
struct ViewIn {
    game: u32,
    at: usize,
    over: bool,
    moves: Vec<ListedIn>,
}

#[derive(Deserialize)]
struct ListedIn {
    index: usize,
}

/// How a player plays.
#[derive(Clone, Copy, PartialEq)]
enum Client {
    /// `diving join` of version 5: asks `moves`, sends the first as a line.
    Lines,
    /// The browser seat (version 6): sends the first move its pushed view lists.
    Browser,
}

/// One of an output's JSON Lines objects, as much as a player needs of it.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default, borrow)]
    event: Option<Cow<'a, str>>,
    #[serde(default)]
    player: Option<Value>,
    #[serde(default)]
    moves: Option<Vec<String>>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

/// What one player saw: when its room's `hello` came, when its game ended, and each action:
/// when it was sent and how long its answer took (ms).
struct Played {
    joined: Instant,
    ended: Instant,
    actions: Vec<(Instant, f64)>,
}

/// The longest a player waits for one message before the run stops, and for every player to
/// have joined: the load test stops by itself, naming what it waited for, instead of hanging
/// (a player that fails to join would leave the others waiting at the start for ever).
const STALLED: Duration = Duration::from_secs(60);
const JOINING: Duration = Duration::from_secs(300);

/// `what` within `limit`, or the run stops (a panic in a player ends the example).
async fn within<T>(limit: Duration, room: &str, waited: &str, what: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(limit, what).await {
        Ok(done) => done,
        Err(_) => panic!("room {room}: waited {} s for {waited}; stopping", limit.as_secs()),
    }
}

/// Plays the games of `rooms` (room, token) one after another, each to its end; the first
/// once every player has joined its first room (`start`).
async fn player(
    addr: std::net::SocketAddr,
    rooms: Vec<(String, String)>,
    pace: Option<Duration>,
    client: Client,
    start: Arc<Barrier>,
    latencies: Arc<std::sync::Mutex<Vec<(Instant, f64)>>>,
) -> Played {
    let mut joined = None;
    let mut start = Some(start);
    for (room, token) in rooms {
        let first = game(addr, &room, &token, pace, client, start.take(), &latencies).await;
        joined.get_or_insert(first);
    }
    let actions = std::mem::take(&mut *latencies.lock().unwrap());
    Played { joined: joined.expect("a player plays a game"), ended: Instant::now(), actions }
}

/// Plays one game (as fast as answered, or at `pace`), adding each action to `latencies` as it
/// is answered (the hostile table's are read while it plays);
/// after the room's `hello`, waits at `start` if given. Returns when it began to play.
async fn game(
    addr: std::net::SocketAddr,
    room: &str,
    token: &str,
    pace: Option<Duration>,
    client: Client,
    start: Option<Arc<Barrier>>,
    latencies: &std::sync::Mutex<Vec<(Instant, f64)>>,
) -> Instant {
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let (mut ws, _) = within(
        STALLED,
        room,
        "the connection",
        connect_async_with_config(format!("ws://{addr}/{room}"), Some(config), true),
    )
    .await
    .unwrap_or_else(|e| panic!("room {room}: cannot connect: {e}"));
    // A client of version 5 asks for the moves and sends lines; the browser seat is pushed its
    // view, with the previews, and sends moves.
    let join = match client {
        Client::Lines => json!({"type": "join", "protocol": LOBBY_SINCE, "seat": 1, "token": token}),
        Client::Browser => json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": token, "previews": true}),
    };
    ws.send(Message::text(join.to_string())).await.unwrap();
    if let Some(start) = start {
        // The hello; what happened so far and the turn follow it.
        let Some(Ok(Message::Text(hello))) = within(STALLED, room, "its hello", ws.next()).await else {
            panic!("room {room}: no hello")
        };
        let kind = serde_json::from_str::<Incoming>(&hello).map(|m| m.kind == "hello");
        assert!(kind.unwrap_or(false), "room {room}: {hello}");
        // A player that failed to join never arrives: the others stop instead of waiting.
        within(JOINING, room, "every player to join", start.wait()).await;
    }
    let began = Instant::now();
    let mut sent_at: Option<Instant> = None;
    let mut mine = false;
    let mut waiting = false;
    while let Some(Ok(m)) = within(STALLED, room, "an answer", ws.next()).await {
        let Message::Text(text) = m else { continue };
        let message: Incoming = serde_json::from_str(&text).unwrap();
        assert!(
            message.kind != "error" && message.json.first().is_none_or(|l| l.error.is_none()),
            "room {room}: {text}"
        );
        if let Some(t) = sent_at.take() {
            latencies.lock().unwrap().push((t, t.elapsed().as_secs_f64() * 1000.0));
        }
        if client == Client::Browser {
            let Some(view) = message.view else { continue };
            if view.over {
                break;
            }
            let Some(first) = view.moves.first() else { continue };
            if let Some(pace) = pace {
                tokio::time::sleep(pace).await;
            }
            sent_at = Some(Instant::now());
            let m = json!({"type": "move", "at": view.at, "game": view.game, "index": first.index});
            ws.send(Message::text(m.to_string())).await.unwrap();
            continue;
        }
        let mut over = false;
        let mut moves = None;
        for l in message.json {
            let event = l.event.as_deref();
            if event == Some("turn_started") {
                mine = l.player.as_ref().and_then(Value::as_str) == Some("alice");
                waiting = false;
            }
            over |= matches!(event, Some("won" | "draw"));
            if let Some(m) = l.moves {
                moves = m.into_iter().next();
            }
        }
        if over {
            break;
        }
        let line = match moves {
            Some(first) if mine => first,
            _ if mine && !waiting => "moves".to_string(),
            _ => continue,
        };
        waiting = true;
        if let Some(pace) = pace {
            tokio::time::sleep(pace).await;
        }
        sent_at = Some(Instant::now());
        ws.send(Message::text(json!({"type": "command", "line": line}).to_string())).await.unwrap();
    }
    began
}

/// The 50th and 99th percentiles and the largest of `latencies` (sorted here).
fn percentiles(latencies: &mut [f64]) -> (f64, f64, f64) {
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pct = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
    (pct(0.5), pct(0.99), latencies[latencies.len() - 1])
}

/// The allocator of the `diving` binary (`src/main.rs`), so the server here runs as
/// `diving host` does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rooms: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(200);
    let games: usize = args
        .iter()
        .position(|a| a == "--games")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(4)
        .max(1);
    let pace = args
        .iter()
        .position(|a| a == "--pace")
        .and_then(|i| args.get(i + 1))
        .and_then(|ms| ms.parse().ok())
        .map(Duration::from_millis);
    let client = if args.iter().any(|a| a == "--browser") { Client::Browser } else { Client::Lines };
    let hostile = args.iter().any(|a| a == "--hostile");
    // The server runs as `diving host` runs it (`net::runtime`: two workers). The players run
    // on a runtime of their own, as clients elsewhere would: they still take their share of the
    // same cores, but a player waiting to be scheduled does not wait in the server's queue too.
    // It takes ready sockets a few at a time as the server's does, so that players answered
    // are served first come first served too (a player elsewhere has a machine of its own).
    let runtime = net::runtime().unwrap();
    let players = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_io_events_per_tick(net::READY_AT_ONCE)
        .thread_name("players")
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // The players here are as fast as the server: lift the per-connection rate limit.
        // Every player comes from this machine's address.
        let limits = Limits { connections: 2 * rooms + 16, per_address: 2 * rooms + 16, per_second: 1_000_000, burst: 1_000_000, ..Limits::default() };
        let dir = std::env::temp_dir().join(format!("diving-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // The hostile table's ruleset: the standard one with a mod that burns about 850,000
        // steps at every turn's start (`tests/mods/runtime/burn-hook.lua`).
        let burning = dir.join("burning.toml");
        std::fs::write(dir.join("burn.lua"), "diving.on_turn_start(function(ctx, player)\n  local n = 0\n  for i = 1, 850000 do\n    n += 1\n  end\nend)\n").unwrap();
        std::fs::write(&burning, "extends = \"standard\"\nmods = [\"burn.lua\"]\n").unwrap();
        // It plays as many games as it can while the others play (it is stopped when they end).
        let hostile_games = if hostile { games * 4 } else { 0 };
        let mut list = Vec::new();
        let mut tokens = Vec::new();
        for i in 0..rooms * games + hostile_games {
            let seating = vec![
                Seating { name: "alice".into(), bot: None },
                Seating { name: "greedy".into(), bot: Some("greedy".into()) },
            ];
            let spec = if i < rooms * games { "standard".to_string() } else { burning.display().to_string() };
            let session = Session::new(&spec, seating, 1000 + i as u64, None).unwrap();
            let token = new_token();
            tokens.push(token.clone());
            let options = RoomOptions { limits, ..RoomOptions::default() };
            list.push(Room::new(&(i + 1).to_string(), session, vec![Some(token), None], options));
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let config = ServerConfig { dir: Some(dir.clone()), limits, stop_when_done: true, tick: None, ..ServerConfig::default() };
        let server = Server::start(listener, list, config).unwrap();
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        let load = load.split(' ').take(3).collect::<Vec<_>>().join(" ");
        let start = Instant::now();
        let cpu0 = cpu_seconds();
        // Player p plays rooms p + 1, p + 1 + ROOMS, p + 1 + 2 ROOMS …
        let mut lists = vec![Vec::new(); rooms];
        let mut burning_rooms = Vec::new();
        for (i, token) in tokens.into_iter().enumerate() {
            if i < rooms * games {
                lists[i % rooms].push(((i + 1).to_string(), token));
            } else {
                burning_rooms.push(((i + 1).to_string(), token));
            }
        }
        // The players start together, once all have joined (a thousand joins take a while).
        let together = Arc::new(Barrier::new(rooms + usize::from(hostile)));
        let tasks: Vec<_> = lists
            .into_iter()
            .map(|list| players.spawn(player(server.addr, list, pace, client, together.clone(), Arc::default())))
            .collect();
        let burnt = Arc::new(std::sync::Mutex::new(Vec::new()));
        let hostile_task = hostile.then(|| {
            players.spawn(player(server.addr, burning_rooms, pace, client, together.clone(), burnt.clone()))
        });
        let mut played = Vec::new();
        for t in tasks {
            played.push(t.await.unwrap());
        }
        let wall = start.elapsed();
        let cpu = cpu_seconds() - cpu0;
        let stopping = Instant::now();
        let burnt: Vec<(Instant, f64)> = std::mem::take(&mut *burnt.lock().unwrap());
        if let Some(task) = hostile_task {
            // Its games are not over: the host is stopped rather than waited for.
            task.abort();
            server.stop().await.unwrap();
        } else {
            server.wait().await.unwrap();
        }
        let stopping = stopping.elapsed();
        let _ = std::fs::remove_dir_all(&dir);
        let mut all: Vec<f64> = played.iter().flat_map(|p| p.actions.iter().map(|a| a.1)).collect();
        let count = all.len();
        let (p50, p99, max) = percentiles(&mut all);
        println!(
            "{rooms} rooms at once ({games} games each, {} rooms in all; every move committed before its answer; {}), {}: {count} actions in {:.1}s: {:.0} actions/s; latency ms p50 {p50:.1} p99 {p99:.1} max {max:.1}; CPU {cpu:.2}s ({:.0} µs an action, server and players); stopped in {:.1}s; load average before {load}",
            rooms * games,
            match client {
                Client::Lines => "players of version 5, asking `moves` and sending lines",
                Client::Browser => "browser seats, pushed their view with its previews after every change, sending moves",
            },
            match pace {
                Some(p) => format!("each player waiting {} ms before each command", p.as_millis()),
                None => "every player as fast as the server answers".to_string(),
            },
            wall.as_secs_f64(),
            count as f64 / wall.as_secs_f64(),
            cpu * 1e6 / count as f64,
            stopping.as_secs_f64(),
        );
        // The players end one after another: meanwhile fewer than ROOMS games are played at
        // once. The figures of ROOMS concurrent games are those of the actions sent between
        // the start and the first player's end.
        let from = played.iter().map(|p| p.joined).max().unwrap();
        let to = played.iter().map(|p| p.ended).min().unwrap();
        let mut within: Vec<f64> =
            played.iter().flat_map(|p| p.actions.iter().filter(|a| a.0 >= from && a.0 < to).map(|a| a.1)).collect();
        if within.is_empty() {
            println!("  no moment had all {rooms} players playing (one ended before the last began)");
        } else {
            let span = to.duration_since(from).as_secs_f64();
            let n = within.len();
            let mean = within.iter().sum::<f64>() / n as f64;
            let (p50, p99, max) = percentiles(&mut within);
            println!(
                "  while all {rooms} players played ({span:.1}s): {n} actions, {:.0} actions/s; latency ms p50 {p50:.1} mean {mean:.1} p99 {p99:.1} max {max:.1}",
                n as f64 / span
            );
            if hostile {
                let mut hot: Vec<f64> = burnt.iter().filter(|a| a.0 >= from && a.0 < to).map(|a| a.1).collect();
                if hot.is_empty() {
                    println!("  the hostile table made no action meanwhile");
                } else {
                    let n = hot.len();
                    let (p50, p99, max) = percentiles(&mut hot);
                    println!("  the hostile table meanwhile (apart): {n} actions; latency ms p50 {p50:.1} p99 {p99:.1} max {max:.1}");
                }
            }
        }
    });
}

/// The CPU time of this process so far (user and system, from `/proc/self/stat`, in the
/// kernel's clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
