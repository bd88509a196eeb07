//! The lobby (protocol 5) on loopback: a table made there waits for its seats, is taken by
//! an invite code, played to the end, rematched with the seats turned, and rated; names are
//! kept by their keys; the limits hold under a flood of creations; idle tables close; and a
//! resumed host brings back its lobby tables, waiting ones included; a player goes back to
//! their own seat from the lobby, listed there to them alone, and moves to a second device
//! with a one-time transfer code.

use crate::server_support;

use std::time::{Duration, Instant};

use diving::server::net::{Server, ServerConfig};
use diving::wire::{HostLimits as Limits, PROTOCOL};
use serde_json::{Value, json};
use server_support::*;

const ANN: &str = "0123456789abcdef0123456789abcdef";
const BOB: &str = "fedcba9876543210fedcba9876543210";

fn lobby_config(dir: Option<&std::path::Path>, limits: Limits) -> ServerConfig {
    ServerConfig {
        dir: dir.map(|d| d.to_path_buf()),
        limits,
        lobby: Some(diving::server::offers(&[], None).unwrap()),
        ..ServerConfig::default()
    }
}

/// A lobby connection, past its hello: the first `lobby` message.
pub(crate) async fn visit(server: &Server, name: Option<&str>, key: &str) -> (Client, Value) {
    let mut c = Client::connect(server, "lobby").await;
    let mut hello = json!({"type": "lobby", "protocol": PROTOCOL});
    if let Some(name) = name {
        hello["name"] = json!(name);
        hello["key"] = json!(key);
    }
    c.send(hello).await;
    let first = c.recv().await.unwrap();
    (c, first)
}

pub(crate) async fn next_of(c: &mut Client, kind: &str) -> Value {
    c.until(|m| m["type"] == kind || m["type"] == "error").await
}

/// Takes a seat a `seated` message gives, as `name`; returns the first message.
pub(crate) async fn take(server: &Server, seated: &Value, name: &str, key: &str) -> (Client, Value) {
    let room = seated["room"].as_str().unwrap();
    let mut c = Client::connect(server, room).await;
    c.send(json!({
        "type": "join", "protocol": PROTOCOL, "seat": seated["seat"], "token": seated["token"],
        "player": {"name": name, "key": key},
    }))
    .await;
    let first = c.recv().await.unwrap();
    (c, first)
}

/// Plays whoever's turn it is with the first legal move until the game is over (every
/// client answers its own turns); returns every message the clients received.
pub(crate) async fn play_out(clients: &mut [(&str, &mut Client)]) -> Vec<String> {
    for _ in 0..2000 {
        for (name, c) in clients.iter_mut() {
            c.command("state").await;
            let m = c.until(|m| has(m, "state")).await;
            let state = lines(&m).into_iter().find_map(|l| l.get("state").cloned()).unwrap();
            if state["over"] == true {
                return clients.iter().flat_map(|(_, c)| c.received.iter().cloned()).collect();
            }
            if state["current"] != *name {
                continue;
            }
            c.command("moves").await;
            let m = c.until(|m| has(m, "moves")).await;
            let first = lines(&m)[0]["moves"][0].as_str().unwrap().to_string();
            c.command(&first).await;
            c.until(|m| lines(m).iter().any(|l| l.get("event").is_some() || l.get("error").is_some())).await;
        }
    }
    let last: Vec<&String> = clients[0].1.received.iter().rev().take(6).collect();
    panic!("the game did not end: {last:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_table_waits_for_its_seats_plays_rematches_and_is_rated() {
    let dir = tempfile::tempdir().unwrap();
    // Slow enough for the test's own polling.
    let limits = Limits { per_second: 1000, burst: 1000, ..Limits::default() };
    let server = serve(Vec::new(), lobby_config(Some(dir.path()), limits)).await;
    let (mut ann, first) = visit(&server, Some("ann"), ANN).await;
    assert_eq!(first["type"], "lobby", "{first}");
    assert_eq!(first["you"]["name"], "ann");
    assert!(first["rulesets"].as_array().unwrap().iter().any(|r| r["id"] == "standard"));
    ann.send(json!({"type": "create", "ruleset": "standard", "seats": 3, "bots": ["greedy"], "hints": false})).await;
    let seated = next_of(&mut ann, "seated").await;
    assert_eq!(seated["type"], "seated", "{seated}");
    assert_eq!(seated["seat"], 1);
    let invites = seated["invites"].as_array().unwrap();
    assert_eq!(invites.len(), 1, "one seat for a person besides the maker's: {seated}");
    let code = invites[0]["code"].as_str().unwrap().to_string();
    assert!(
        invites[0]["browser"]
            .as_str()
            .unwrap()
            .contains(&format!("#seat=2&token={}", invites[0]["token"].as_str().unwrap()))
    );
    let listed = next_of(&mut ann, "lobby").await;
    let table = &listed["tables"][0];
    // Its open seat is kept for the invite: listed to ann, as kept.
    let counts = (table["state"].as_str(), table["open"].as_u64(), table["invited"].as_u64());
    assert_eq!(counts, (Some("waiting"), Some(0), Some(1)), "{listed}");

    // The maker sits down: the table waits, and commands wait with it.
    let (mut ann_seat, waiting) = take(&server, &seated, "ann", ANN).await;
    assert_eq!(waiting["type"], "waiting", "{waiting}");
    assert_eq!(waiting["open"], 1);
    ann_seat.command("moves").await;
    let refused = ann_seat.recv().await.unwrap();
    assert_eq!(refused["code"], "waiting", "{refused}");

    // Bob, another key, cannot be "Ann"; as bob he takes the seat by its code.
    let (mut bob, first) = visit(&server, Some("Ann"), BOB).await;
    assert_eq!((first["type"].as_str(), first["code"].as_str()), (Some("error"), Some("name")), "{first}");
    bob.send(json!({"type": "lobby", "protocol": PROTOCOL, "name": "bob", "key": BOB})).await;
    next_of(&mut bob, "lobby").await;
    bob.send(json!({"type": "code", "code": code.to_lowercase()})).await;
    let bob_seated = next_of(&mut bob, "seated").await;
    assert_eq!(bob_seated["seat"], 2, "{bob_seated}");
    // The seat is bob's from now on: no one else gets its token, or takes it with the token.
    let (mut nobody, _) = visit(&server, None, "").await;
    nobody.send(json!({"type": "sit", "room": seated["room"]})).await;
    assert_eq!(next_of(&mut nobody, "seated").await["code"], "name");
    let (mut eve, _) = visit(&server, Some("eve"), &"e".repeat(32)).await;
    eve.send(json!({"type": "sit", "room": seated["room"]})).await;
    assert_eq!(next_of(&mut eve, "seated").await["code"], "full");
    eve.send(json!({"type": "code", "code": code})).await;
    assert_eq!(next_of(&mut eve, "seated").await["code"], "unknown", "a code is used up with its seat");
    let mut thief = Client::connect(&server, seated["room"].as_str().unwrap()).await;
    thief.send(json!({"type": "join", "protocol": PROTOCOL, "seat": 2, "token": bob_seated["token"]})).await;
    assert_eq!(thief.recv().await.unwrap()["code"], "player");
    let (_, refused) = take(&server, &bob_seated, "eve", &"e".repeat(32)).await;
    assert_eq!(refused["code"], "seat", "{refused}");
    let (mut bob_seat, hello) = take(&server, &bob_seated, "bob", BOB).await;
    // The last seat taken deals the game: everyone gets a hello.
    let hello = if hello["type"] == "waiting" { next_of(&mut bob_seat, "hello").await } else { hello };
    assert_eq!(hello["players"], json!(["ann", "bob", "greedy"]), "{hello}");
    let ann_hello = next_of(&mut ann_seat, "hello").await;
    assert_eq!(ann_hello["seat"], 1);
    // Told once that every seat is taken (when bob's was kept, not again when he came).
    let full = ann_seat.received.iter().filter(|m| m.contains(r#""type":"waiting""#) && m.contains(r#""open":0"#));
    assert_eq!(full.count(), 1, "{:#?}", ann_seat.received);
    // A player who left the page goes back to their own seat from the lobby, by their key;
    // a stranger asking for the playing table is refused, and sees no token.
    ann.send(json!({"type": "sit", "room": seated["room"]})).await;
    let back = next_of(&mut ann, "seated").await;
    assert_eq!((back["seat"].clone(), back["token"].clone()), (json!(1), seated["token"].clone()), "{back}");
    eve.send(json!({"type": "sit", "room": seated["room"]})).await;
    let refused = next_of(&mut eve, "seated").await;
    assert_eq!(refused["code"], "full", "{refused}");
    assert!(!refused.to_string().contains(seated["token"].as_str().unwrap()), "{refused}");

    play_out(&mut [("ann", &mut ann_seat), ("bob", &mut bob_seat)]).await;

    // A rematch asked by one waits for the other; then the seats turn one on.
    ann_seat.send(json!({"type": "rematch"})).await;
    let asked = next_of(&mut bob_seat, "rematch").await;
    assert_eq!((asked["asked"].clone(), asked["waiting_for"].clone()), (json!(["ann"]), json!(["bob"])), "{asked}");
    // Bob's page reloads meanwhile: it is told which game this is, and who asked already.
    drop(bob_seat);
    let (mut bob_seat, hello) = take(&server, &bob_seated, "bob", BOB).await;
    assert_eq!((hello["type"].as_str(), hello["game"].as_u64()), (Some("hello"), Some(1)), "{hello}");
    assert_eq!(next_of(&mut bob_seat, "rematch").await, asked);
    bob_seat.command("rematch").await;
    let new_game = next_of(&mut ann_seat, "new_game").await;
    assert_eq!((new_game["game"].as_u64(), new_game["seat"].as_u64()), (Some(2), Some(3)), "{new_game}");
    let hello = next_of(&mut ann_seat, "hello").await;
    assert_eq!(hello["players"], json!(["bob", "greedy", "ann"]), "{hello}");
    assert_eq!(hello["game"], 2);
    // The old invite still opens bob's seat, whatever number it names now.
    drop(bob_seat);
    let (mut bob_again, first) = take(&server, &bob_seated, "bob", BOB).await;
    assert_eq!((first["type"].as_str(), first["seat"].as_u64()), (Some("hello"), Some(1)), "{first}");

    // The first game is rated: each seat has one game, the winner above the loser.
    server.sync().await;
    ann.send(json!({"type": "ratings", "ruleset": "standard"})).await;
    let board = next_of(&mut ann, "ratings").await;
    let rows = board["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{board}");
    assert!(rows.iter().all(|r| r["games"] == 1), "{board}");
    assert!(rows[0]["rating"].as_f64() > rows[2]["rating"].as_f64(), "{board}");
    let recent = &board["recent"][0];
    assert_eq!(recent["places"][0]["place"], 1, "{board}");
    // The answer carries its id; a ruleset the host neither offers nor rated is no board at
    // all (it answered an empty one), and a house one offered but never played is an empty one.
    ann.send(json!({"type": "ratings", "ruleset": "standard", "id": "r-1"})).await;
    assert_eq!(next_of(&mut ann, "ratings").await["id"], "r-1");
    ann.send(json!({"type": "ratings", "ruleset": "nope", "id": "r-2"})).await;
    let refused = next_of(&mut ann, "error").await;
    assert_eq!((refused["code"].as_str(), &refused["id"]), (Some("unknown"), &json!("r-2")), "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("no ruleset 'nope'"), "{refused}");
    ann.send(json!({"type": "ratings", "ruleset": "house"})).await;
    assert_eq!(next_of(&mut ann, "ratings").await["rows"], json!([]));
    // Its save is kept, as a finished game's always was.
    assert!(dir.path().join(format!("{}.save.json", seated["room"].as_str().unwrap())).is_file());
    bob_again.command("quit").await;
    server.stop().await.unwrap();

    // Resumed: the table is back at its second game, and the ratings stay.
    let rooms = resumed(dir.path());
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms[0].game_number(), 2);
    let db = diving::server::db::Db::open_existing(dir.path()).unwrap();
    assert_eq!(db.leaderboard("standard").unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_tables_meets_the_limits_and_idle_tables_close() {
    let limits = Limits { tables: 5, tables_per_connection: 2, idle_secs: 60, ..Limits::default() };
    let server = serve(Vec::new(), lobby_config(None, limits)).await;
    let create = json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": [], "hints": false});
    // Someone who has not said who they are makes nothing.
    let (mut nobody, _) = visit(&server, None, "").await;
    nobody.send(create.clone()).await;
    assert_eq!(next_of(&mut nobody, "seated").await["code"], "name");
    // A stranger names nothing the host does not offer: no other ruleset, no Lua bot's path.
    let (mut e, _) = visit(&server, Some("eve"), &"e".repeat(32)).await;
    e.send(json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": ["/tmp/x.lua"]})).await;
    assert_eq!(next_of(&mut e, "seated").await["code"], "unknown");
    e.send(json!({"type": "create", "ruleset": "../../etc/passwd", "seats": 2})).await;
    assert!(next_of(&mut e, "seated").await["message"].as_str().unwrap().contains("offers no ruleset"));
    let mut made = 0;
    let mut refused = Vec::new();
    for i in 0..4 {
        let key = format!("{i:032x}");
        let (mut c, _) = visit(&server, Some(&format!("diver{}", ["a", "b", "c", "d"][i])), &key).await;
        for _ in 0..3 {
            c.send(create.clone()).await;
            let m = next_of(&mut c, "seated").await;
            if m["type"] == "seated" {
                made += 1;
            } else {
                refused.push(m["message"].as_str().unwrap().to_string());
                assert_eq!(m["code"], "limit", "{m}");
            }
        }
    }
    assert_eq!(made, 5, "{refused:?}");
    assert!(refused.iter().any(|r| r.contains("2 tables already")), "{refused:?}");
    assert!(refused.iter().any(|r| r.contains("holds 5 tables")), "{refused:?}");
    assert_eq!(server.room_ids().len(), 5);
    // No one sat at them: a minute later they close, and the lobby lists none.
    server.tick(Instant::now() + Duration::from_secs(61));
    assert!(server.room_ids().is_empty(), "{:?}", server.room_ids());
    let (_, listed) = visit(&server, None, "").await;
    assert_eq!(listed["tables"], json!([]), "{listed}");
    server.stop().await.unwrap();
}

/// A flooding client from one address (a fresh name and key per connection, every table it
/// may make) meets its address's limits; an honest player from another address (127.0.0.2)
/// is never refused, names themselves and makes a table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_address_never_refuses_a_player_from_another() {
    let limits = Limits { waiting_per_address: 4, new_keys_per_hour: 5, ..Limits::default() };
    let server = serve(Vec::new(), lobby_config(None, limits)).await;
    let create = json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": [], "hints": false});
    let hello = |name: &str| json!({"type": "lobby", "protocol": PROTOCOL, "name": name, "key": format!("{:0>32}", name.len())});
    let (mut made, mut refused) = (0, Vec::new());
    for i in 0..8 {
        let mut c = Client::connect_from(&server, "lobby", [127, 0, 0, 1].into()).await;
        let name = format!("flood{}", "x".repeat(i));
        c.send(hello(&name)).await;
        let first = c.recv().await.unwrap();
        if first["type"] == "error" {
            refused.push(first);
            continue;
        }
        for _ in 0..3 {
            c.send(create.clone()).await;
            let m = next_of(&mut c, "seated").await;
            if m["type"] == "seated" { made += 1 } else { refused.push(m) }
        }
    }
    assert_eq!(made, 4, "{refused:?}");
    assert!(refused.iter().all(|m| m["code"] == "limit"), "{refused:?}");
    assert!(refused.iter().any(|m| m["message"].as_str().unwrap().contains("new players came from your address")));
    let mut honest = Client::connect_from(&server, "lobby", [127, 0, 0, 2].into()).await;
    honest.send(json!({"type": "lobby", "protocol": PROTOCOL, "name": "marlow", "key": ANN})).await;
    let first = honest.recv().await.unwrap();
    assert_eq!(first["you"]["name"], "marlow", "{first}");
    honest.send(create).await;
    let seated = next_of(&mut honest, "seated").await;
    assert_eq!(seated["type"], "seated", "{seated}");
    server.stop().await.unwrap();
}

/// A seat-stealing client: a named stranger's `sit` takes no seat kept for an invite, by
/// number or not, and is not listed the table; the invited friend's code still seats them.
/// A table open to anyone (`invites: 0`) is listed, and `sit` takes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_kept_for_an_invite_is_taken_only_with_its_code() {
    let server = serve(Vec::new(), lobby_config(None, Limits::default())).await;
    let (mut ann, _) = visit(&server, Some("ann"), ANN).await;
    ann.send(json!({"type": "create", "ruleset": "standard", "seats": 2})).await;
    let seated = next_of(&mut ann, "seated").await;
    let code = seated["invites"][0]["code"].as_str().unwrap().to_string();
    let room = seated["room"].clone();
    let (mut eve, listed) = visit(&server, Some("eve"), &"e".repeat(32)).await;
    assert_eq!(listed["tables"], json!([]), "a table kept for invites is not listed to a stranger: {listed}");
    let (_, looking) = visit(&server, None, "").await;
    assert_eq!(looking["tables"], json!([]), "{looking}");
    for sit in [json!({"type": "sit", "room": room}), json!({"type": "sit", "room": room, "seat": 2})] {
        eve.send(sit).await;
        let refused = next_of(&mut eve, "seated").await;
        assert_eq!(refused["code"], "full", "{refused}");
        assert!(refused["message"].as_str().unwrap().contains("invited"), "{refused}");
    }
    let (mut bob, _) = visit(&server, Some("bob"), BOB).await;
    bob.send(json!({"type": "code", "code": code})).await;
    let bob_seated = next_of(&mut bob, "seated").await;
    assert_eq!(bob_seated["seat"], 2, "{bob_seated}");

    // Open to anyone: listed to a named stranger, who sits.
    ann.send(json!({"type": "create", "ruleset": "standard", "seats": 2, "invites": 0})).await;
    let open = next_of(&mut ann, "seated").await;
    assert_eq!(open["invites"], json!(null), "no seat kept, no invite: {open}");
    let (mut eve, listed) = visit(&server, Some("eve"), &"e".repeat(32)).await;
    let line = listed["tables"].as_array().unwrap().iter().find(|t| t["room"] == open["room"]).cloned();
    assert_eq!(line.map(|t| t["open"].clone()), Some(json!(1)), "{listed}");
    // A seat taken, or one the table does not have, is refused in those words (both were
    // 'seat N of table R is not open').
    let room = open["room"].as_str().unwrap();
    for (seat, says) in [
        (1, format!("seat 1 of table {room} is taken")),
        (9, format!("table {room} has no seat 9 (its seats are 1 to 2)")),
    ] {
        eve.send(json!({"type": "sit", "room": room, "seat": seat})).await;
        let refused = next_of(&mut eve, "seated").await;
        assert_eq!(
            (refused["code"].as_str(), refused["message"].as_str()),
            (Some("full"), Some(says.as_str())),
            "{refused}"
        );
    }
    eve.send(json!({"type": "sit", "room": open["room"]})).await;
    assert_eq!(next_of(&mut eve, "seated").await["seat"], 2);
    server.stop().await.unwrap();
}

/// A host brought back keeps its waiting tables: their invite links, and the codes it gave
/// out, still seat the people they were given to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_host_keeps_its_waiting_tables_and_their_invites_and_codes() {
    let dir = tempfile::tempdir().unwrap();
    let config = lobby_config(Some(dir.path()), Limits::default());
    let server = serve(Vec::new(), config.clone()).await;
    let (mut ann, _) = visit(&server, Some("ann"), ANN).await;
    ann.send(json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": [], "hints": false})).await;
    let seated = next_of(&mut ann, "seated").await;
    let (_ann_seat, waiting) = take(&server, &seated, "ann", ANN).await;
    assert_eq!(waiting["type"], "waiting");
    server.sync().await;
    server.stop().await.unwrap();

    let server = serve(resumed(dir.path()), config).await;
    // The code given out before the restart still seats its holder.
    let (mut bob_lobby, _) = visit(&server, Some("bob"), BOB).await;
    bob_lobby.send(json!({"type": "code", "code": seated["invites"][0]["code"]})).await;
    let invite = next_of(&mut bob_lobby, "seated").await;
    assert_eq!((invite["room"].as_str(), invite["seat"].as_u64()), (seated["room"].as_str(), Some(2)), "{invite}");
    assert_eq!(invite["token"], seated["invites"][0]["token"], "{invite}");
    let (mut bob, first) = take(&server, &invite, "bob", BOB).await;
    let hello = if first["type"] == "waiting" { next_of(&mut bob, "hello").await } else { first };
    assert_eq!(hello["players"], json!(["ann", "bob"]), "{hello}");
    // A new table is numbered past the old one.
    let (mut ann, _) = visit(&server, Some("ann"), ANN).await;
    ann.send(json!({"type": "create", "ruleset": "standard", "seats": 2})).await;
    let second = next_of(&mut ann, "seated").await;
    assert_ne!(second["room"], seated["room"], "{second}");
    server.stop().await.unwrap();
}

/// Clients older than the lobby (protocol 4) know no waiting, rematch or player: they may
/// not take a lobby table's seat, nor watch a table that waits for its seats, and are told
/// which version to use; a client of the lobby's version watches the waiting table.
#[test]
fn clients_older_than_the_lobby_are_told_to_use_its_version() {
    use diving::server::room::{Plan, Room, RoomOptions};
    let now = Instant::now();
    let plan = [Plan::Taken { name: "ann".into(), player: 1 }, Plan::Open];
    let (mut room, _) = Room::waiting("t1", "standard", &plan, 7, RoomOptions::default(), now).unwrap();
    let token = room.tokens()[0].clone().unwrap();
    let old = diving::wire::LOBBY_SINCE - 1;
    let refusal = |out: &diving::server::room::Outbox, conn: u64| {
        assert_eq!(out.closed(), vec![conn], "{:?}", out.sent);
        let error: Value = serde_json::from_str(&out.texts()[0].1).unwrap();
        assert_eq!(error["code"], "protocol", "{error}");
        error["message"].as_str().unwrap().to_string()
    };
    let watch = room.receive(1, &json!({"type": "watch", "protocol": old}).to_string(), now);
    let lobby = diving::wire::LOBBY_SINCE;
    assert_eq!(refusal(&watch, 1), format!("room t1 waits for its seats: watch it with protocol {lobby}"));
    let join = json!({"type": "join", "protocol": old, "seat": 1, "token": token});
    let join = room.receive(2, &join.to_string(), now);
    assert_eq!(refusal(&join, 2), format!("room t1 was made in the lobby: join it with protocol {lobby}"));
    let watch = room.receive(3, &json!({"type": "watch", "protocol": PROTOCOL}).to_string(), now);
    assert!(watch.close.is_empty(), "{:?}", watch.sent);
    assert!(watch.texts()[0].1.contains("\"waiting\""), "{:?}", watch.sent);
}

/// A lobby table being played that everyone has left closes after `abandoned_secs`, not
/// after `idle_secs` (a break is not an end); its moves stay in the database. A host brought
/// back counts that time from its start for such a table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_lobby_game_closes_after_its_own_time() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { idle_secs: 60, abandoned_secs: 600, ..Limits::default() };
    let config = lobby_config(Some(dir.path()), limits);
    let server = serve(Vec::new(), config.clone()).await;
    let (mut ann, first) = visit(&server, Some("ann"), ANN).await;
    assert_eq!(first["limits"]["abandoned_secs"], 600, "{first}");
    ann.send(json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": ["greedy"], "hints": false})).await;
    let seated = next_of(&mut ann, "seated").await;
    let room = seated["room"].as_str().unwrap().to_string();
    let (mut seat, hello) = take(&server, &seated, "ann", ANN).await;
    assert_eq!(hello["type"], "hello", "the game is dealt: {hello}");
    seat.command("moves").await;
    seat.until(|m| m["type"] == "output").await;
    drop(seat);
    drop(ann);
    // The room hears of the leave on its own time: wait for it (a bounded number of turns).
    let mut turns = 0;
    while server.with_room(&room, |r| r.empty_since().is_none()).unwrap_or(false) {
        turns += 1;
        assert!(turns < 100_000, "the room never saw its seat leave");
        tokio::task::yield_now().await;
    }
    let left = server.with_room(&room, |r| r.empty_since().unwrap()).unwrap();
    server.tick(left + Duration::from_secs(61));
    assert_eq!(server.room_ids(), vec![room.clone()], "a game in play outlasts idle_secs");
    server.sync().await;
    server.stop().await.unwrap();

    // Brought back, the table is as empty as it was left, from the host's start.
    let server = serve(resumed(dir.path()), config).await;
    let since = server.with_room(&room, |r| r.empty_since()).unwrap().expect("no one is at a table brought back");
    server.tick(since + Duration::from_secs(61));
    assert_eq!(server.room_ids(), vec![room.clone()]);
    server.tick(since + Duration::from_secs(601));
    assert!(server.room_ids().is_empty(), "{:?}", server.room_ids());
    server.stop().await.unwrap();
}

/// Issue 46 item 4, with two terminal-like clients: Ann leaves her seat mid-game (a closed
/// tab); the lobby lists her table to her with the way back to her seat (its token), and to a
/// stranger without it. A transfer code moves her to a second device, which looked only: it
/// is told her name and key, is listed her seat, and plays on from the game as it stands. The
/// code works once; a revoked one says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_goes_back_to_their_seat_from_the_lobby_and_moves_to_a_second_device() {
    let limits = Limits { per_second: 1000, burst: 1000, ..Limits::default() };
    let server = serve(Vec::new(), lobby_config(None, limits)).await;
    let (mut ann, _) = visit(&server, Some("ann"), ANN).await;
    ann.send(json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": ["greedy"], "hints": false})).await;
    let seated = next_of(&mut ann, "seated").await;
    let token = seated["token"].as_str().unwrap().to_string();
    let room = seated["room"].as_str().unwrap().to_string();
    // Ann plays her first move (seat 1 starts), then closes the tab.
    let (mut seat, hello) = take(&server, &seated, "ann", ANN).await;
    assert_eq!(hello["type"], "hello", "{hello}");
    let play_first = async |c: &mut Client| {
        c.command("moves").await;
        let m = c.until(|m| has(m, "moves")).await;
        let first = lines(&m)[0]["moves"][0].as_str().unwrap().to_string();
        c.command(&first).await;
        c.until(|m| lines(m).iter().any(|l| l.get("event").is_some())).await;
    };
    play_first(&mut seat).await;
    drop(seat);
    drop(ann);

    // Back in the lobby: her table, playing, with her seat's way back.
    let (_ann, lobby) = visit(&server, Some("ann"), ANN).await;
    let table = &lobby["tables"][0];
    assert_eq!((table["room"].as_str(), table["state"].as_str()), (Some(room.as_str()), Some("playing")), "{lobby}");
    assert_eq!(table["yours"], json!({"seat": 1, "token": token, "path": format!("/{room}#seat=1&token={token}")}));
    // A stranger sees the table to watch, and no token.
    let (mut bob, lobby) = visit(&server, Some("bob"), BOB).await;
    assert_eq!(lobby["tables"][0]["room"], room.as_str());
    assert!(lobby["tables"][0].get("yours").is_none(), "{lobby}");
    assert!(!lobby.to_string().contains(&token), "a stranger is listed the seat's token: {lobby}");

    // A transfer code, redeemed by a second device that looked only.
    let (mut ann, _) = visit(&server, Some("ann"), ANN).await;
    ann.send(json!({"type": "transfer", "id": 1})).await;
    let made = next_of(&mut ann, "transfer").await;
    let code = made["transfer"]["code"].as_str().unwrap().to_string();
    assert_eq!(made["transfer"]["expires_secs"], 600, "{made}");
    assert!(made["transfer"]["join"].as_str().unwrap().ends_with(&format!("--transfer {code}")), "{made}");
    assert!(made["transfer"]["browser"].as_str().unwrap().ends_with(&format!("/#transfer={code}")), "{made}");
    let (mut phone, first) = visit(&server, None, "").await;
    assert!(first["you"].is_null() && first["tables"][0].get("yours").is_none(), "{first}");
    phone.send(json!({"type": "redeem", "code": code.to_lowercase()})).await;
    let identity = next_of(&mut phone, "identity").await;
    assert_eq!((identity["name"].as_str(), identity["key"].as_str()), (Some("ann"), Some(ANN)), "{identity}");
    let listed = next_of(&mut phone, "lobby").await;
    assert_eq!(listed["you"]["name"], "ann");
    assert_eq!(listed["tables"][0]["yours"]["token"], token.as_str(), "{listed}");
    // The second device takes the seat back, as it stands, and plays on.
    let back = json!({"room": room, "seat": 1, "token": listed["tables"][0]["yours"]["token"]});
    let (mut second, hello) = take(&server, &back, "ann", ANN).await;
    assert_eq!((hello["type"].as_str(), hello["seat"].as_u64()), (Some("hello"), Some(1)), "{hello}");
    let caught_up = second.until(|m| m["type"] == "output").await;
    assert!(caught_up["at"].as_u64().unwrap() >= 1, "the game as it stands, with ann's move: {caught_up}");
    play_first(&mut second).await;

    // Used once: the code is refused to the next, saying so; a revoked one says that.
    bob.send(json!({"type": "redeem", "code": code})).await;
    let used = next_of(&mut bob, "error").await;
    assert_eq!(used["code"], "unknown", "{used}");
    assert!(used["message"].as_str().unwrap().contains("used already"), "{used}");
    ann.send(json!({"type": "transfer"})).await;
    let again = next_of(&mut ann, "transfer").await["transfer"]["code"].as_str().unwrap().to_string();
    ann.send(json!({"type": "revoke"})).await;
    assert_eq!(next_of(&mut ann, "transfer").await["transfer"], Value::Null);
    bob.send(json!({"type": "redeem", "code": again})).await;
    let revoked = next_of(&mut bob, "error").await;
    assert!(revoked["message"].as_str().unwrap().contains("revoked by its maker"), "{revoked}");
    server.stop().await.unwrap();
}
