//! Load test for `diving host`, on loopback, stopping by itself: ROOMS rooms (default 200),
//! each a person over the protocol against a greedy bot; every person plays as fast as the
//! server answers (asks `moves`, plays the first) until its game ends, or with `--pace MS`
//! waits MS milliseconds before each command (a table of quick players, not a closed loop).
//! Prints the action latency (command sent → its output received) percentiles, the wall
//! time, the CPU time the process (server and players together) spent during the run, and
//! the load average before it (other work on the machine shares its cores).
//!
//! `cargo run --release --example load -- 1000 [--pace 500]` (the figures the README quotes).

use std::borrow::Cow;
use std::time::{Duration, Instant};

use diving::repl::session::{Seating, Session};
use diving::server::net::{Server, ServerConfig};
use diving::server::protocol::{Limits, PROTOCOL, READ_BUFFER};
use diving::server::room::{Room, RoomOptions, new_token};
use diving::server::store;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
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

async fn player(addr: std::net::SocketAddr, room: String, token: String, pace: Option<Duration>) -> Vec<f64> {
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let (mut ws, _) =
        tokio_tungstenite::connect_async_with_config(format!("ws://{addr}/{room}"), Some(config), true).await.unwrap();
    let join = json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": token});
    ws.send(Message::text(join.to_string())).await.unwrap();
    let mut latencies = Vec::new();
    let mut sent_at: Option<Instant> = None;
    let mut mine = false;
    let mut waiting = false;
    while let Some(Ok(m)) = ws.next().await {
        let Message::Text(text) = m else { continue };
        let message: Incoming = serde_json::from_str(&text).unwrap();
        assert!(
            message.kind != "error" && message.json.first().is_none_or(|l| l.error.is_none()),
            "room {room}: {text}"
        );
        if let Some(t) = sent_at.take() {
            latencies.push(t.elapsed().as_secs_f64() * 1000.0);
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
    latencies
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rooms: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(200);
    let pace = args
        .iter()
        .position(|a| a == "--pace")
        .and_then(|i| args.get(i + 1))
        .and_then(|ms| ms.parse().ok())
        .map(Duration::from_millis);
    // The server runs as `diving host` runs it, on two workers. The players run on a runtime of
    // their own, as clients elsewhere would: they still take their share of the same cores, but
    // a player waiting to be scheduled does not wait in the server's queue too.
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let players = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("players")
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // The players here are as fast as the server: lift the per-connection rate limit.
        let limits = Limits { connections: rooms + 16, per_second: 1_000_000, burst: 1_000_000, ..Limits::default() };
        let dir = std::env::temp_dir().join(format!("diving-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut list = Vec::new();
        let mut tokens = Vec::new();
        for i in 0..rooms {
            let seating = vec![
                Seating { name: "alice".into(), bot: None },
                Seating { name: "greedy".into(), bot: Some("greedy".into()) },
            ];
            let session = Session::new("standard", seating, 1000 + i as u64, None).unwrap();
            // Saved before the room opens, as `diving host` does: the server journals its moves.
            store::save_game(&dir, &(i + 1).to_string(), &session).unwrap();
            let token = new_token();
            tokens.push(token.clone());
            let options = RoomOptions { limits, ..RoomOptions::default() };
            list.push(Room::new(&(i + 1).to_string(), session, vec![Some(token), None], options));
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let config = ServerConfig { dir: Some(dir.clone()), limits, stop_when_done: true, tick: None };
        let server = Server::start(listener, list, config).unwrap();
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        let load = load.split(' ').take(3).collect::<Vec<_>>().join(" ");
        let start = Instant::now();
        let cpu0 = cpu_seconds();
        let tasks: Vec<_> = tokens
            .into_iter()
            .enumerate()
            .map(|(i, t)| players.spawn(player(server.addr, (i + 1).to_string(), t, pace)))
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        let wall = start.elapsed();
        let cpu = cpu_seconds() - cpu0;
        let stopping = Instant::now();
        server.wait().await.unwrap();
        let stopping = stopping.elapsed();
        let _ = std::fs::remove_dir_all(&dir);
        all.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
        println!(
            "{rooms} concurrent rooms (every move journaled), {}, {} actions in {:.1}s: {:.0} actions/s; latency ms p50 {:.1} p99 {:.1} max {:.1}; CPU {cpu:.2}s ({:.0} µs an action, server and players); saves written at the stop in {:.1}s; load average before {load}",
            match pace {
                Some(p) => format!("each player waiting {} ms before each command", p.as_millis()),
                None => "every player as fast as the server answers".to_string(),
            },
            all.len(),
            wall.as_secs_f64(),
            all.len() as f64 / wall.as_secs_f64(),
            pct(0.5),
            pct(0.99),
            all[all.len() - 1],
            cpu * 1e6 / all.len() as f64,
            stopping.as_secs_f64(),
        );
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
