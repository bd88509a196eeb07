//! Limits one client could defeat (issue #33, item 7): a flood of connections from one
//! address, refused messages between accepted ones, pages of other sites opening
//! connections, and the headers of every answer, error pages included.

use crate::server_support;

use diving::server::net::ServerConfig;
use diving::server::room::RoomOptions;
use diving::wire::{HostLimits as Limits, PROTOCOL};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use server_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

/// One HTTP request on a new connection: the status, the head (lower case) and the body.
async fn request(addr: std::net::SocketAddr, text: &str) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(text.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut response)).await.expect("the server answers").unwrap();
    let response = String::from_utf8_lossy(&response).to_string();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.split_whitespace().nth(1).unwrap_or("0").parse().unwrap_or(0);
    (status, head.to_lowercase(), body.to_string())
}

fn get(addr: std::net::SocketAddr, path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
}

fn upgrade(addr: std::net::SocketAddr, path: &str, origin: Option<&str>) -> String {
    let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
    format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{origin}\r\n"
    )
}

fn secured(head: &str) -> bool {
    head.contains("x-content-type-options: nosniff") && head.contains("content-security-policy: default-src 'none'")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_has_the_security_headers_and_an_upgrade_to_the_root_is_refused() {
    let server =
        serve(vec![room("1", &["alice", "bot:greedy"], 7, RoomOptions::default())], ServerConfig::default()).await;
    let addr = server.addr;
    for (path, status) in [("/", 200), ("/1", 200), ("/9", 404), ("/assets/nope.js", 404), ("/a/b/c", 404)] {
        let (got, head, _) = request(addr, &get(addr, path)).await;
        assert_eq!(got, status, "{path}");
        assert!(secured(&head), "{path}: {head}");
    }
    // A WebSocket to `/` was answered 200 with the page.
    let (status, head, body) = request(addr, &upgrade(addr, "/", None)).await;
    assert_eq!(status, 404, "{head}");
    assert!(body.contains("ws://HOST:PORT/ROOM"), "{body}");
    assert!(secured(&head), "{head}");
    server.stop().await.unwrap();

    // A refusal at the door (the server full) has them too.
    let limits = Limits { connections: 1, ..Limits::default() };
    let config = ServerConfig { limits, ..ServerConfig::default() };
    let server = serve(vec![room("1", &["alice", "bot:greedy"], 7, RoomOptions::default())], config).await;
    let held = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (status, head, _) = request(server.addr, &get(server.addr, "/")).await;
    assert_eq!(status, 503);
    assert!(secured(&head), "{head}");
    drop(held);
    server.stop().await.unwrap();
}

/// One address's idle connections take at most `per_address` of the server's: a player from
/// another address still gets in (4,100 from one address made every new player get 503).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_every_connection() {
    let limits = Limits { connections: 20, per_address: 5, ..Limits::default() };
    let config = ServerConfig { limits, ..ServerConfig::default() };
    let options = RoomOptions { limits, ..RoomOptions::default() };
    let server = serve(vec![room("1", &["alice", "bot:greedy"], 7, options)], config).await;
    let mut flood = Vec::new();
    for _ in 0..5 {
        flood.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
    }
    let (status, _, body) = request(server.addr, &get(server.addr, "/")).await;
    assert_eq!(status, 503);
    assert!(body.contains("this address holds 5 connections"), "{body}");
    assert_eq!(limits.per_address, 5);
    // From another loopback address: in.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    let url = format!("ws://{}/1", server.addr).into_client_request().unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async(url, stream).await.expect("another address gets in");
    let token = token(&server, "1", 0);
    ws.send(Message::text(json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": token}).to_string()))
        .await
        .unwrap();
    let Some(Ok(Message::Text(hello))) = ws.next().await else { panic!("no hello") };
    let hello: Value = serde_json::from_str(&hello).unwrap();
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["limits"]["per_address"], 5);
    drop(flood);
    server.stop().await.unwrap();
}

/// The next close frame (every message before it skipped).
async fn close_frame(
    c: &mut tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
) -> Option<CloseFrame> {
    loop {
        match tokio::time::timeout(WAIT, c.next()).await.expect("the server answers") {
            Some(Ok(Message::Close(frame))) => return frame,
            Some(Ok(_)) => continue,
            _ => return None,
        }
    }
}

/// Game refusals count toward the drop, accepted messages between them do not start the count
/// again, and the drop is said (`dropped`) and given a close status, whatever was refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_messages_drop_a_connection_even_between_accepted_ones() {
    let limits = Limits { max_strikes: 20, burst: 10_000, ..Limits::default() };
    let config = ServerConfig { limits, ..ServerConfig::default() };
    let options = RoomOptions { limits, ..RoomOptions::default() };
    let server = serve(vec![room("1", &["alice", "bot:greedy"], 7, options)], config).await;
    let url = format!("ws://{}/1", server.addr);

    // A spectator playing cards (refused), with a `state` (accepted) after every two: one
    // more refused than accepted every three messages. It sends up to the message that
    // should drop it and no further: one sent after the drop could reach a closed socket and
    // reset the connection before the close frame was read (as it did on a loaded machine).
    let (mut spy, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    spy.send(Message::text(json!({"type": "watch", "protocol": PROTOCOL}).to_string())).await.unwrap();
    let mut count = 0u32;
    let mut sent = 0;
    while count < limits.max_strikes {
        let refused = sent % 3 != 2;
        let line = if refused { "play 7h" } else { "state" };
        spy.send(Message::text(json!({"type": "command", "line": line}).to_string())).await.unwrap();
        sent += 1;
        count = if refused { count + 1 } else { count - 1 };
    }
    assert_eq!(sent, 56, "twenty more refused than accepted");
    let mut dropped = false;
    let mut frame = None;
    while let Ok(Some(m)) = tokio::time::timeout(WAIT, spy.next()).await {
        match m {
            Ok(Message::Text(t)) => dropped |= t.contains(r#""code":"dropped""#),
            Ok(Message::Close(f)) => {
                frame = f;
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert!(dropped, "the spectator was told it was dropped");
    let frame = frame.expect("a close frame");
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1008, "dropped"));

    // Malformed messages: `dropped` is said too (it was only after a rate drop).
    let (mut garbage, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    for _ in 0..20 {
        garbage.send(Message::text("{nope")).await.unwrap();
    }
    let mut codes = Vec::new();
    while let Ok(Some(Ok(Message::Text(t)))) = tokio::time::timeout(WAIT, garbage.next()).await {
        codes.push(serde_json::from_str::<Value>(&t).unwrap()["code"].as_str().unwrap().to_string());
    }
    assert_eq!(codes.len(), 21, "{codes:?}");
    assert_eq!(codes.last().unwrap(), "dropped");

    // A seat refused now and then plays on.
    let (mut alice, _) = Client::join(&server, "1", 0).await;
    for _ in 0..60 {
        alice.command("play ZZ").await;
        alice.command("state").await;
    }
    alice.command("moves").await;
    alice.until(|m| has(m, "moves")).await;
    server.stop().await.unwrap();
}

/// A refusal that ends a connection closes it with status 1008 and the error's code; `quit`
/// with 1000 (they closed with no status, 1005); a message too big to read with 1009.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_close_with_a_status() {
    let server =
        serve(vec![room("1", &["alice", "bot:greedy"], 7, RoomOptions::default())], ServerConfig::default()).await;
    let url = format!("ws://{}/1", server.addr);
    let (mut c, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    c.send(Message::text(json!({"type": "join", "protocol": PROTOCOL, "seat": 1, "token": "x"}).to_string()))
        .await
        .unwrap();
    let frame = close_frame(&mut c).await.expect("a close frame");
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1008, "token"));
    let (mut c, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    c.send(Message::text(json!({"type": "watch", "protocol": PROTOCOL}).to_string())).await.unwrap();
    c.send(Message::text(json!({"type": "command", "line": "quit"}).to_string())).await.unwrap();
    let frame = close_frame(&mut c).await.expect("a close frame");
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1000, "bye"));
    // A message past what the socket reads at all: 1009, too big.
    let (mut c, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let huge = "x".repeat(Limits::default().hard_max_message + 1);
    c.send(Message::text(json!({"type": "watch", "protocol": PROTOCOL, "pad": huge}).to_string())).await.unwrap();
    let frame = close_frame(&mut c).await.expect("a close frame");
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1009, "too_big"));
    // A text frame that is not UTF-8: 1007 (it said 1001, "the server stops").
    let (mut c, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let bytes: &[u8] = b"{\"type\":\"watch\",\"x\":\"\xff\xfe\"}";
    let frame = tokio_tungstenite::tungstenite::protocol::frame::Frame::message(
        bytes.to_vec(),
        tokio_tungstenite::tungstenite::protocol::frame::coding::OpCode::Data(
            tokio_tungstenite::tungstenite::protocol::frame::coding::Data::Text,
        ),
        true,
    );
    c.send(Message::Frame(frame)).await.unwrap();
    let frame = close_frame(&mut c).await.expect("a close frame");
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1007, "not_utf8"));
    // A frame that breaks the protocol (a continuation of nothing): 1002 (it said 1001).
    let (mut c, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let frame = tokio_tungstenite::tungstenite::protocol::frame::Frame::message(
        b"{}".to_vec(),
        tokio_tungstenite::tungstenite::protocol::frame::coding::OpCode::Data(
            tokio_tungstenite::tungstenite::protocol::frame::coding::Data::Continue,
        ),
        true,
    );
    c.send(Message::Frame(frame)).await.unwrap();
    let frame = close_frame(&mut c).await.expect("a close frame");
    assert_eq!((u16::from(frame.code), frame.reason.as_str()), (1002, "protocol_error"));
    server.stop().await.unwrap();
}

/// Every answer carries the `id` of the message it answers, a refusal before the message is
/// read included: too fast (`rate`) or too big (`too_big`), as PROTOCOL.md promises (a client
/// matching answers by id waited for ever).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_before_a_message_is_read_carry_its_id() {
    // No refill: the fourth message is one too many however slowly the machine runs.
    let limits = Limits { burst: 3, per_second: 0, ..Limits::default() };
    let config = ServerConfig { limits, ..ServerConfig::default() };
    let options = RoomOptions { limits, ..RoomOptions::default() };
    let server = serve(vec![room("1", &["alice", "bot:greedy"], 7, options)], config).await;
    let (mut c, _) = tokio_tungstenite::connect_async(format!("ws://{}/1", server.addr)).await.unwrap();
    c.send(Message::text(json!({"type": "watch", "protocol": PROTOCOL}).to_string())).await.unwrap();
    let big = "x".repeat(limits.max_message);
    c.send(Message::text(json!({"type": "command", "line": big, "id": "big"}).to_string())).await.unwrap();
    for n in 0..3 {
        c.send(Message::text(json!({"type": "command", "line": "state", "id": n}).to_string())).await.unwrap();
    }
    let mut refused = Vec::new();
    while refused.len() < 2 {
        let Some(Ok(Message::Text(t))) = tokio::time::timeout(WAIT, c.next()).await.unwrap() else { panic!("closed") };
        let m: Value = serde_json::from_str(&t).unwrap();
        if m["type"] == "error" {
            refused.push((m["code"].as_str().unwrap().to_string(), m["id"].clone()));
        }
    }
    assert_eq!(refused[0], ("too_big".to_string(), json!("big")), "{refused:?}");
    // Three pass (the watch, the big one, state 0): state 1 is one too many.
    assert_eq!(refused[1], ("rate".to_string(), json!(1)), "{refused:?}");
    server.stop().await.unwrap();
}

/// A page of another site cannot open a connection (any page a player visits could watch a
/// host on their machine, or fill its spectator slots); the host's own page, a client that is
/// not a browser (no `Origin`) and the origins the host allows can.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_checks_the_origin_of_the_page() {
    let config = ServerConfig { allow_origins: vec!["http://friend.example:8080".into()], ..ServerConfig::default() };
    let server = serve(vec![room("1", &["alice", "bot:greedy"], 7, RoomOptions::default())], config).await;
    let addr = server.addr;
    let own = format!("http://{addr}");
    for (origin, status) in [
        (None, 101),
        (Some(own.as_str()), 101),
        (Some("http://friend.example:8080"), 101),
        (Some("http://evil.example"), 403),
        (Some("null"), 403),
        (Some("http://127.0.0.1:1"), 403),
    ] {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(upgrade(addr, "/1", origin).as_bytes()).await.unwrap();
        let mut head = vec![0u8; 4096];
        let n = tokio::time::timeout(WAIT, stream.read(&mut head)).await.unwrap().unwrap();
        let head = String::from_utf8_lossy(&head[..n]).to_string();
        let got: u16 = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(got, status, "origin {origin:?}: {head}");
        if status == 403 {
            assert!(head.contains("--allow-origin"), "{head}");
        }
    }
    server.stop().await.unwrap();
}

/// `diving host --limit NAME=N` changes the host's limits: the lobby states them, and a
/// mistyped one stops the host before it starts, naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_started_with_limit_states_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_diving"))
        .args(["host", "--port", "0", "--limit", "waiting_per_adress=20"])
        .arg("--dir")
        .arg(dir.path().join("games"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("there is no limit 'waiting_per_adress'"), "{stderr}");

    let mut host = std::process::Command::new(env!("CARGO_BIN_EXE_diving"))
        .args(["--json", "host", "--port", "0", "--bind", "127.0.0.1"])
        .args(["--limit", "waiting_per_address=20,new-keys-per-hour=100", "--limit", "spectators=0"])
        .arg("--dir")
        .arg(dir.path().join("games"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufRead::lines(std::io::BufReader::new(host.stdout.take().unwrap()));
    let listening: Value = serde_json::from_str(&out.next().unwrap().unwrap()).unwrap();
    let ws = listening["listening"]["ws"].as_str().unwrap();
    let (mut socket, _) = tokio_tungstenite::connect_async(format!("{ws}/lobby")).await.unwrap();
    socket.send(Message::text(json!({"type": "lobby", "protocol": PROTOCOL}).to_string())).await.unwrap();
    let lobby = loop {
        match tokio::time::timeout(WAIT, socket.next()).await.expect("the lobby answers") {
            Some(Ok(Message::Text(text))) => break serde_json::from_str::<Value>(&text).unwrap(),
            Some(Ok(_)) => continue,
            other => panic!("{other:?}"),
        }
    };
    let _ = host.kill();
    let _ = host.wait();
    assert_eq!(lobby["type"], "lobby", "{lobby}");
    assert_eq!(lobby["limits"]["waiting_per_address"], 20, "{lobby}");
    assert_eq!(lobby["limits"]["new_keys_per_hour"], 100, "{lobby}");
    assert_eq!(lobby["limits"]["tables"], Limits::default().tables, "{lobby}");
}
