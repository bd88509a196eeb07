//! The browser seat without a browser: the host serves the page and its assets (and still
//! upgrades the same address to the protocol), the invite prints a browser link that opens
//! the seat, and the `seat_view` snapshots the page draws name no card their reader cannot
//! see, list exactly the seat's legal moves, and preview each as the game would play it.

use crate::server_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use diving::core::{View, Viewer};
use diving::server::net::ServerConfig;
use diving::server::room::{Outbox, Room, RoomOptions, new_token};
use diving::table::render;
use diving::table::session::Session;
use diving::wire::PROTOCOL;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use server_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `GET path` over plain HTTP/1.1: the status, the headers (lower case) and the body.
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut response)).await.expect("the server answers").unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head.to_lowercase(), body.to_string())
}

#[tokio::test]
async fn the_page_and_its_assets_answer_beside_the_protocol() {
    let server =
        serve(vec![room("1", &["alice", "bot:greedy"], 7, RoomOptions::default())], ServerConfig::default()).await;
    for path in ["/", "/1"] {
        let (status, head, body) = get(server.addr, path).await;
        assert_eq!(status, 200, "{path}");
        assert!(head.contains("content-type: text/html; charset=utf-8"), "{path}: {head}");
        assert!(head.contains("content-security-policy: default-src 'none'; script-src 'self'"), "{head}");
        assert!(body.contains("<title>Diving Suits</title>"), "{path}");
        // Everything the page loads comes from this server: no other host is named.
        assert!(!body.contains("http://") && !body.contains("https://") && !body.contains("src=\"//"), "{body}");
        // Every asset it names answers, and every module a script imports (from this host).
        let mut assets: Vec<String> = body.split('"').filter(|s| s.starts_with("/assets/")).map(String::from).collect();
        let mut seen = Vec::new();
        while let Some(asset) = assets.pop() {
            if seen.contains(&asset) {
                continue;
            }
            let (status, head, body) = get(server.addr, &asset).await;
            assert_eq!(status, 200, "{asset}");
            let kind = if asset.ends_with(".js") { "text/javascript" } else { "text/css" };
            assert!(head.contains(kind), "{asset}: {head}");
            assert!(!body.contains("https://") && !body.contains("http://"), "{asset} loads nothing else");
            for line in body.lines().filter(|l| l.starts_with("import ")) {
                let from = line.split('"').nth(1).unwrap_or_default();
                let module =
                    from.strip_prefix("./").unwrap_or_else(|| panic!("{asset} imports {from}: not of this host"));
                assets.push(format!("/assets/{module}"));
            }
            seen.push(asset);
        }
        assert!(seen.len() >= 6, "the page, its style and its modules: {seen:?}");
    }
    let (_, _, wire) = get(server.addr, "/assets/wire.js").await;
    assert!(wire.contains(&format!("protocol: {PROTOCOL},")), "the page speaks this protocol: {wire}");
    // A seat's page says when the host closes a table, in its own limits' words (the page of a
    // seat link it refuses says why); the lobby's page states them in its `lobby` messages.
    let (_, _, seat) = get(server.addr, "/1").await;
    assert!(seat.contains("<body data-idle=\"10 minutes\" data-abandoned=\"an hour\" "), "{seat}");
    assert!(!get(server.addr, "/").await.2.contains("data-idle="));
    assert!(wire.contains("\"refuses_seat\":true") && wire.contains("refusesToken: (code)"), "{wire}");
    // They are the host's limits, not the defaults: a host whose tables close sooner says so.
    let limits = diving::wire::HostLimits { idle_secs: 300, abandoned_secs: 7200, ..Default::default() };
    let other = serve(
        vec![room("1", &["alice", "bot:greedy"], 7, RoomOptions::default())],
        ServerConfig { limits, ..ServerConfig::default() },
    )
    .await;
    let (_, _, seat) = get(other.addr, "/1").await;
    assert!(seat.contains("<body data-idle=\"5 minutes\" data-abandoned=\"2 hours\" "), "{seat}");
    other.stop().await.unwrap();
    for (path, status) in [("/assets/nope.js", 404), ("/2", 404), ("/1/x", 404)] {
        assert_eq!(get(server.addr, path).await.0, status, "{path}");
    }
    // An unknown room (an expired invite, a closed table) is a page: what happened, why, and
    // the way back to the lobby; the name in the link is shown as text, never as markup.
    let (status, head, body) = get(server.addr, "/4242").await;
    assert_eq!(status, 404);
    assert!(head.contains("content-type: text/html; charset=utf-8"), "{head}");
    assert!(body.contains("<h1>There is no table 4242 here</h1>"), "{body}");
    assert!(body.contains("no one has been at it for 10 minutes") && body.contains("an hour after"), "{body}");
    assert!(body.contains("<a href=\"/\">Back to the lobby</a>"), "{body}");
    // So is a path with a slash too many (a link cut or typed wrong), which was an empty 404.
    let (status, head, body) = get(server.addr, "/1/").await;
    assert_eq!(status, 404);
    assert!(head.contains("content-type: text/html; charset=utf-8"), "{head}");
    assert!(body.contains("<h1>There is no table 1/ here</h1>"), "{body}");
    assert!(body.contains("<a href=\"/\">Back to the lobby</a>"), "{body}");
    let (_, _, body) = get(server.addr, "/%3Cscript%3Ex%3C%2Fscript%3E").await;
    assert!(body.contains("&lt;script&gt;x&lt;/script&gt;") && !body.contains("<script>"), "{body}");
    // The same address still upgrades to the protocol.
    let (mut c, hello) = Client::join(&server, "1", 0).await;
    assert_eq!(hello["seat"], 1);
    c.send(json!({"type": "seat_view"})).await;
    let view = c.until(|m| has(m, "seat_view")).await;
    let view = &lines(&view)[0]["seat_view"];
    assert_eq!(view["seat"], 1);
    assert_eq!(view["state"]["players"][0]["hand"].as_array().unwrap().len(), 4);
    assert!(view["state"]["players"][1].get("hand").is_none());
    server.stop().await.unwrap();
}

/// A mod's action over the network: the seat's view lists it as a button (`kind` `act`, its
/// command and the mod's line), and the seat sends that command through the table.
#[tokio::test]
async fn a_seat_sees_and_sends_a_mods_action() {
    let seating = seating(&["alice", "bob"]);
    let tokens = seating.iter().map(|_| Some(diving::server::room::new_token())).collect();
    let session =
        diving::table::session::Session::new("rulesets/examples/buddy-line/ruleset.toml", seating, 1, None).unwrap();
    let room = diving::server::room::Room::new("1", session, tokens, RoomOptions::default());
    let server = serve(vec![room], ServerConfig::default()).await;
    let (mut alice, _) = Client::join(&server, "1", 0).await;
    let (mut bob, _) = Client::join(&server, "1", 1).await;
    alice.command("play 7d t1").await;
    bob.until(|m| lines(m).iter().any(|l| l["event"] == "turn_started" && l["player"] == "bob")).await;
    bob.send(json!({"type": "seat_view"})).await;
    let view = bob.until(|m| has(m, "seat_view")).await;
    let moves = lines(&view)[0]["seat_view"]["moves"].as_array().unwrap().clone();
    let act = moves.iter().find(|m| m["kind"] == "act").unwrap_or_else(|| panic!("no act in {moves:?}"));
    assert_eq!((act["name"].as_str(), act["target"].as_str()), (Some("buddy"), Some("alice")));
    assert_eq!(act["command"], "buddy alice");
    assert!(act["describe"].as_str().unwrap().starts_with("buddy PLAYER: instead of playing"), "{act}");
    bob.command(act["command"].as_str().unwrap()).await;
    let done = alice.until(|m| lines(m).iter().any(|l| l["event"] == "acted")).await;
    let acted = lines(&done).into_iter().find(|l| l["event"] == "acted").unwrap();
    assert_eq!((acted["player"].as_str(), acted["target"].as_str()), (Some("bob"), Some("alice")));
    let text = done["text"].as_array().unwrap().iter().filter_map(|t| t.as_str()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("bob chooses buddy alice"), "{text}");
    server.stop().await.unwrap();
}

#[test]
fn the_invite_prints_a_browser_link_that_opens_the_seat() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Command::new(env!("CARGO_BIN_EXE_diving"))
        .args(["host", "--players", "alice,bot:greedy", "--port", "0", "--seed", "3", "--dir"])
        .arg(dir.path().join("games"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(host.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    let link = loop {
        let line = out.next().expect("the host prints its invites").unwrap();
        printed.push(line.clone());
        if let Some(link) = line.trim().strip_prefix("or in a browser: ") {
            break link.to_string();
        }
    };
    // The link holds the seat and token of the `diving join` line above it.
    let join = &printed[printed.len() - 2];
    let token = join.rsplit(' ').next().unwrap();
    assert!(join.contains("--seat 1 --token"), "{join}");
    assert!(link.ends_with(&format!("/1#seat=1&token={token}")), "{link}");
    let address = link.strip_prefix("http://").unwrap().split('/').next().unwrap().parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (status, _, body) = runtime.block_on(get(address, "/1"));
    // The host was started by this test: stop it (its game is not over).
    host.kill().unwrap();
    host.wait().unwrap();
    assert_eq!(status, 200);
    assert!(body.contains("/assets/main.js"));
    assert!(printed[0].contains(&format!("browser seat: http://{address}/")), "{printed:?}");
}

fn record(received: &mut [Vec<String>], out: Outbox) {
    for (to, text) in out.texts() {
        received[to as usize].push(text);
    }
}

/// The `seat_view` objects among a reader's messages.
fn views(received: &[String]) -> Vec<Value> {
    received
        .iter()
        .map(|t| serde_json::from_str::<Value>(t).unwrap())
        .flat_map(|m| lines(&m))
        .filter_map(|l| l.get("seat_view").cloned())
        .collect()
}

/// Random games through rooms; after every move each seat and a spectator ask for their
/// `seat_view`. No message names a card its reader could not have seen by then (the leak
/// oracle of `server_support`), and each view lists exactly the seat's legal moves with the
/// preview the game itself gives (`Session::preview` on the real game, read for the seat),
/// and, with mods, still names no hidden card.
#[test]
fn seat_views_show_only_what_the_seat_may_see_and_preview_its_moves() {
    let now = Instant::now();
    let mut checked = 0;
    for g in 0..6u64 {
        let seed = 424_242_000 + g;
        let players: &[&str] = if g % 2 == 0 { &["alice", "bob", "bot:greedy"] } else { &["alice", "bob"] };
        let humans = players.iter().filter(|p| !p.starts_with("bot:")).count();
        // The last game runs the house rules, whose Lua mods may look at hidden cards: there
        // the previews (made on the seat's sample) may differ from the real game's.
        let ruleset = if g == 5 { "house" } else { "standard" };
        let tokens = players.iter().map(|p| (!p.starts_with("bot:")).then(new_token)).collect();
        let session = Session::new(ruleset, seating(players), seed, None).unwrap();
        let mut room = Room::new("1", session, tokens, RoomOptions::default());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let spectator = humans as u64 + 1;
        let mut received = vec![Vec::new(); humans + 2];
        let mut sent: Vec<Vec<String>> = vec![Vec::new(); humans + 2];
        for s in 0..humans {
            let token = room.tokens()[s].clone().unwrap();
            let join = json!({"type": "join", "protocol": PROTOCOL, "seat": s + 1, "token": token}).to_string();
            record(&mut received, room.receive(s as u64 + 1, &join, now));
        }
        let watch = json!({"type": "watch", "protocol": PROTOCOL}).to_string();
        record(&mut received, room.receive(spectator, &watch, now));
        let ask = json!({"type": "seat_view"}).to_string();
        let most = if ruleset == "standard" { 600 } else { 12 };
        for _ in 0..most {
            for conn in 1..=spectator {
                let before = received[conn as usize].len();
                record(&mut received, room.receive(conn, &ask, now));
                let view = views(&received[conn as usize][before..]);
                assert_eq!(view.len(), 1, "one seat_view answers");
                let view = &view[0];
                let game = room.session().game();
                let seat = (conn != spectator).then(|| conn as usize - 1);
                assert_eq!(view["seat"], json!(seat.map(|s| s + 1)));
                let expected: Vec<(String, String)> = match seat {
                    Some(s) if !game.is_over() && game.current() == s => View::new(game, s)
                        .legal_actions()
                        .iter()
                        .map(|a| {
                            // With mods every preview loads them afresh (slow in a debug build):
                            // the house game checks the moves and the leaks, not the previews.
                            let preview = match ruleset {
                                "standard" => {
                                    let events = room.session().preview(a).unwrap();
                                    render::preview(game, &events, Viewer::Seat(s))
                                }
                                _ => String::new(),
                            };
                            (render::command_for(game, a), preview)
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let got: Vec<(String, String)> = view["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| (m["command"].as_str().unwrap().to_string(), m["preview"].as_str().unwrap().to_string()))
                    .collect();
                if ruleset == "standard" {
                    assert_eq!(got, expected, "seed {seed}, turn {}", game.turn());
                } else {
                    let commands = |list: &[(String, String)]| list.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>();
                    assert_eq!(commands(&got), commands(&expected), "seed {seed}, turn {}", game.turn());
                }
                for (i, p) in view["state"]["players"].as_array().unwrap().iter().enumerate() {
                    assert_eq!(p.get("hand").is_some(), seat == Some(i), "only the seat's own hand");
                }
                assert!(view["state"].get("deck").is_none(), "no deck order");
                checked += 1;
            }
            if room.is_over() {
                break;
            }
            let game = room.session().game();
            let current = game.current();
            let actions = View::new(game, current).legal_actions();
            let line = render::command_for(game, actions.choose(&mut rng).unwrap());
            // Now and then an illegal line or a question left open, as a page might send.
            let line = if rng.random_bool(0.05) { "play AS".to_string() } else { line };
            sent[current + 1].push(line.clone());
            record(
                &mut received,
                room.receive(current as u64 + 1, &json!({"type": "command", "line": line}).to_string(), now),
            );
        }
        for conn in 1..=spectator as usize {
            let seat = (conn as u64 != spectator).then(|| conn - 1);
            assert_no_leak(room.session(), seat, &received[conn], &sent[conn]);
        }
    }
    assert!(checked > 250, "only {checked} views were checked");
}

/// A second host of the same games directory is refused while the first runs: both took the
/// same seats' moves into one journal, which then no longer resumed.
#[test]
fn a_second_host_of_the_same_games_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    let host = Stopped::serving(&["--players", "alice,bot:greedy", "--seed", "3", "--dir"], &games);
    for resume in [true, false] {
        let mut second = Command::new(env!("CARGO_BIN_EXE_diving"));
        second.args(["host", "--port", "0"]);
        if resume {
            second.arg("--resume").arg(&games);
        } else {
            second.args(["--players", "alice,bot:greedy", "--dir"]).arg(&games);
        }
        let second = within(second, Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert_eq!(second.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("is in use by another diving host"), "{stderr}");
    }
    drop(host);
    // Once it is gone, the games resume.
    Stopped::serving(&["--resume"], &games);
}

/// A host process, stopped when the test is done with it (or fails).
struct Stopped(std::process::Child);

impl Stopped {
    /// `diving host --port 0 ARGS GAMES`, once it has printed its invites.
    fn serving(args: &[&str], games: &std::path::Path) -> Stopped {
        let mut host = Stopped(
            Command::new(env!("CARGO_BIN_EXE_diving"))
                .args(["host", "--port", "0"])
                .args(args)
                .arg(games)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let mut out = BufReader::new(host.0.stdout.take().unwrap()).lines();
        while !out.next().expect("the host prints its invites").unwrap().contains("or in a browser: ") {}
        // Read on to the end: a host whose output is closed stops at its next line (the
        // invites go on), and the test would see a host that is not running.
        std::thread::spawn(move || out.for_each(drop));
        host
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `command` to its end, or kills it after `limit` and fails (a host that starts runs
/// until its games end).
fn within(mut command: Command, limit: Duration) -> std::process::Output {
    let child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg(id.to_string()).status();
            panic!("{command:?} was still running after {limit:?}");
        }
    }
}

/// SIGTERM (and Ctrl-C, SIGINT) stops the host as the end of its games does: it says so, every
/// game is in its save and the journal is gone, and the games resume. It used to die on the
/// spot, leaving the journal for `--resume` to fold in.
#[test]
fn a_signal_stops_the_host_with_every_game_saved() {
    for signal in ["-TERM", "-INT"] {
        let dir = tempfile::tempdir().unwrap();
        let games = dir.path().join("games");
        let mut child = Command::new(env!("CARGO_BIN_EXE_diving"))
            .args(["host", "--port", "0", "--players", "alice,bot:greedy", "--seed", "3", "--dir"])
            .arg(&games)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
        while !out.next().expect("the host prints its invites").unwrap().contains("or in a browser: ") {}
        Command::new("kill").arg(signal).arg(child.id().to_string()).status().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rest: Vec<String> = out.map_while(Result::ok).collect();
            let _ = tx.send((child.wait(), rest));
        });
        let (status, rest) = rx.recv_timeout(Duration::from_secs(60)).expect("the host stops");
        assert_eq!(status.unwrap().code(), Some(0), "{signal}: {rest:?}");
        assert!(rest.iter().any(|l| l.starts_with("stopped: every game is saved in")), "{signal}: {rest:?}");
        assert!(games.join(diving::server::db::FILE).is_file(), "{signal}: the games are in the database");
        Stopped::serving(&["--resume"], &games);
    }
}

/// `diving host --json` prints its invites as JSON Lines (they were plain text, though
/// `--help` lists `--json`): a `listening` object, then a `room` object with each seat's token,
/// join line and browser link.
#[test]
fn host_json_prints_the_invites_as_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Command::new(env!("CARGO_BIN_EXE_diving"))
        .args(["--json", "host", "--players", "alice,bob,bot:greedy", "--port", "0", "--seed", "3", "--dir"])
        .arg(dir.path().join("games"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(host.stdout.take().unwrap()).lines();
    let mut next = || -> Value { serde_json::from_str(&out.next().expect("a line").unwrap()).expect("JSON") };
    let listening = next();
    let room = next();
    host.kill().unwrap();
    host.wait().unwrap();
    let ws = listening["listening"]["ws"].as_str().unwrap();
    assert!(ws.starts_with("ws://127.0.0.1:"), "{listening}");
    let room = &room["room"];
    assert_eq!(room["id"], "1");
    assert_eq!(room["players"], json!(["alice", "bob", "greedy"]));
    let seats = room["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 2, "the bot's seat has no invite: {room}");
    let token = seats[1]["token"].as_str().unwrap();
    assert_eq!(seats[1]["player"], "bob");
    let addr = ws.strip_prefix("ws://").unwrap();
    assert_eq!(seats[1]["join"], format!("diving join {addr}/1 --seat 2 --token {token}"));
    assert_eq!(seats[1]["browser"], format!("http://{addr}/1#seat=2&token={token}"));
}

/// A mod's own words for a card reach the browser seat: the card help the page shows for a
/// K in the hand is what the heavy-knot mod says of it (`diving.describe`), not the plain
/// Knot's, as in `help K` and on the text board.
#[test]
fn the_browser_seat_shows_what_a_mod_says_a_card_does() {
    use diving::core::Rank;
    use diving::table::session::Seating;
    let seats = || ["alice", "bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
    let with_a_king = |spec: &str| {
        (0..200)
            .map(|seed| Session::new(spec, seats(), seed, None).unwrap())
            .find(|s| s.game().player(0).hand.iter().any(|c| c.rank == Rank::KING))
            .expect("a deal with a K in alice's hand")
    };
    let king_help = |session: &Session| {
        let view = diving::server::view::of(session, Viewer::Seat(0), &[], None, 1, false);
        view.card_help.get("K").unwrap_or_else(|| panic!("the K is explained: {view:?}")).clone()
    };
    let help = king_help(&with_a_king("rulesets/examples/heavy-knot/ruleset.toml"));
    assert!(help.starts_with("K (changed by a mod): "), "{help}");
    assert!(help.contains("each of their moves costs 1 more oxygen"), "{help}");
    assert!(!help.contains("Knot"), "not the plain Knot's words: {help}");
    // The standard game's K keeps the plain words.
    assert!(king_help(&with_a_king("standard")).starts_with("K (Knot)"));
}
