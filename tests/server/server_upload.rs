//! Rulesets brought to the lobby (protocol 7, `upload`; issue 43 item 6) on loopback: the
//! sharks example brought by a player is checked, offered with what its mods read and
//! reveal, played to the end by two people, rated under its own name (with its hash), kept
//! in the database and offered again by a resumed host, which replays its table; a ruleset
//! too big, with too many files, with a Lua syntax error, or with a mod that burns its
//! budget is refused naming the file (and line); the limits per player hold; and a host
//! with uploads off refuses them.

use crate::server_lobby::{next_of, play_out, take, visit};
use crate::server_support;

use diving::server::net::ServerConfig;
use diving::wire::{HostLimits as Limits, PROTOCOL};
use serde_json::{Value, json};
use server_support::*;

const ANN: &str = "0123456789abcdef0123456789abcdef";
const BOB: &str = "fedcba9876543210fedcba9876543210";

fn upload_config(dir: Option<&std::path::Path>, limits: Limits) -> ServerConfig {
    ServerConfig {
        dir: dir.map(|d| d.to_path_buf()),
        limits,
        lobby: Some(diving::server::offers(&[], None).unwrap()),
        uploads: true,
        ..ServerConfig::default()
    }
}

/// The files of an example ruleset, as a player's client sends them.
fn example(name: &str) -> Value {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets/examples").join(name);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.push(json!({"name": name, "text": std::fs::read_to_string(&path).unwrap()}));
        }
    }
    json!(files)
}

fn upload(files: Value) -> Value {
    json!({"type": "upload", "files": files, "id": "up"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sharks_example_brought_by_a_player_is_played_rated_kept_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { per_second: 1000, burst: 1000, ..Limits::default() };
    let config = upload_config(Some(dir.path()), limits);
    let server = serve(Vec::new(), config.clone()).await;
    let (mut ann, first) = visit(&server, Some("ann"), ANN).await;
    assert_eq!(first["uploads"], true, "{first}");
    ann.send(upload(example("sharks"))).await;
    let uploaded = next_of(&mut ann, "uploaded").await;
    assert_eq!((uploaded["type"].as_str(), uploaded["id"].as_str()), (Some("uploaded"), Some("up")), "{uploaded}");
    let offered = &uploaded["ruleset"];
    let id = offered["id"].as_str().unwrap().to_string();
    let hash = offered["hash"].as_str().unwrap();
    assert!(id.starts_with("sharks@") && hash.starts_with(&id["sharks@".len()..]), "{offered}");
    assert_eq!(offered["name"], "Sharks", "{offered}");
    assert_eq!(offered["seats"], json!([2, 8]), "{offered}");
    assert!(offered["balance"].as_str().unwrap().contains("greedy"), "{offered}");
    assert_eq!(
        offered["mods"],
        json!([{"name": "sharks", "reads": "no hidden card", "reveals": true}]),
        "what its mod reads and reveals: {offered}"
    );
    assert_eq!(uploaded["known"], false);
    // Everyone's lobby offers it now.
    let listed = ann.until(|m| m["type"] == "lobby").await;
    assert!(listed["rulesets"].as_array().unwrap().iter().any(|r| r["id"] == id.as_str()), "{listed}");
    // Bob brings the same files: it is the same ruleset, known, not checked again.
    let (mut bob, _) = visit(&server, Some("bob"), BOB).await;
    bob.send(upload(example("sharks"))).await;
    let again = next_of(&mut bob, "uploaded").await;
    assert_eq!((again["known"].as_bool(), again["ruleset"]["id"].as_str()), (Some(true), Some(id.as_str())));

    // A greedy bot in the third seat ends the game in good time (the people play their
    // first listed move).
    ann.send(json!({"type": "create", "ruleset": id, "seats": 3, "bots": ["greedy"]})).await;
    let seated = next_of(&mut ann, "seated").await;
    assert_eq!(seated["type"], "seated", "{seated}");
    let (mut ann_seat, _) = take(&server, &seated, "ann", ANN).await;
    bob.send(json!({"type": "code", "code": seated["invites"][0]["code"]})).await;
    let bob_seated = next_of(&mut bob, "seated").await;
    let (mut bob_seat, hello) = take(&server, &bob_seated, "bob", BOB).await;
    let hello = if hello["type"] == "waiting" { next_of(&mut bob_seat, "hello").await } else { hello };
    assert_eq!(hello["ruleset"]["name"], id.as_str(), "the table names the ruleset with its hash: {hello}");
    let told = play_out(&mut [("ann", &mut ann_seat), ("bob", &mut bob_seat)]).await;
    assert!(told.iter().any(|t| t.contains("a shark bites")), "the sharks bit, and every seat was told");

    // Rated under its own name, which holds its hash.
    server.sync().await;
    ann.send(json!({"type": "ratings", "ruleset": id})).await;
    let board = next_of(&mut ann, "ratings").await;
    assert_eq!(board["rows"].as_array().map(Vec::len), Some(3), "{board}");
    ann.send(json!({"type": "ratings", "ruleset": "sharks"})).await;
    assert_eq!(next_of(&mut ann, "error").await["code"], "unknown", "no ruleset is called plain 'sharks'");
    // The finished game's save names the ruleset it played.
    let save =
        std::fs::read_to_string(dir.path().join(format!("{}.save.json", seated["room"].as_str().unwrap()))).unwrap();
    assert!(save.contains(&format!("upload:{id}")), "{save}");
    server.stop().await.unwrap();

    // Resumed: the ruleset is offered again, its table replayed, its ratings kept.
    let rooms = resumed(dir.path());
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms[0].ruleset().name, id);
    let server = serve(rooms, config).await;
    let (mut ann, first) = visit(&server, Some("ann"), ANN).await;
    assert!(first["rulesets"].as_array().unwrap().iter().any(|r| r["id"] == id.as_str() && r["hash"] == hash));
    ann.send(json!({"type": "ratings", "ruleset": id})).await;
    assert_eq!(next_of(&mut ann, "ratings").await["rows"].as_array().map(Vec::len), Some(3));
    server.stop().await.unwrap();
}

/// A refusal's code and message, for an upload of `files`.
async fn refusal(c: &mut Client, files: Value) -> (String, String) {
    c.send(upload(files)).await;
    let m = next_of(c, "uploaded").await;
    assert_eq!((m["type"].as_str(), m["id"].as_str()), (Some("error"), Some("up")), "{m}");
    (m["code"].as_str().unwrap().to_string(), m["message"].as_str().unwrap().to_string())
}

fn ruleset_with(lua: &str) -> Value {
    json!([
        {"name": "ruleset.toml", "text": "extends = \"standard\"\nname = \"Trouble\"\nmods = [\"trouble.lua\"]\n"},
        {"name": "trouble.lua", "text": lua},
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_rulesets_name_the_file_and_the_line_and_change_nothing() {
    let limits = Limits { upload_files: 3, upload_file_bytes: 2000, upload_bytes: 3000, ..Limits::default() };
    let server = serve(Vec::new(), upload_config(None, limits)).await;
    let (mut ann, first) = visit(&server, Some("ann"), ANN).await;
    let offered = first["rulesets"].clone();

    // Too big: one file, then all of them.
    let big = ruleset_with(&format!("-- {}\n", "x".repeat(2100)));
    let (code, message) = refusal(&mut ann, big).await;
    assert_eq!(code, "too_big");
    assert!(message.starts_with("trouble.lua: ") && message.contains("at most 2000 bytes"), "{message}");
    // Too many files.
    let mut many = example("sharks");
    for i in 0..2 {
        many.as_array_mut().unwrap().push(json!({"name": format!("extra{i}.lua"), "text": ""}));
    }
    let (code, message) = refusal(&mut ann, many).await;
    assert_eq!(code, "too_big");
    assert!(message.contains("at most 3 files"), "{message}");
    // A file of the host's disk cannot be named: not by a folder, nor by `mods`.
    let (code, message) = refusal(&mut ann, json!([{"name": "../ruleset.toml", "text": ""}])).await;
    assert!(code == "upload" && message.contains("plain file name"), "{message}");
    let host = tempfile::tempdir().unwrap();
    let secret = host.path().join("secret.lua");
    std::fs::write(&secret, "the host's secret = = 1\n").unwrap();
    let spy = json!([{"name": "r.toml", "text": format!("mods = [{:?}]\n", secret.display().to_string())}]);
    let (_, message) = refusal(&mut ann, spy).await;
    assert!(message.starts_with("r.toml:1:") && message.contains("upload holds no file"), "{message}");
    assert!(!message.contains("secret ="), "{message}");
    // A Lua syntax error, named by its file and line as `diving check` names it.
    let (code, message) = refusal(&mut ann, ruleset_with("local x = 1\nlocal y = = 2\n")).await;
    assert_eq!(code, "upload");
    assert!(message.starts_with("trouble.lua:2: error:"), "{message}");
    // A mod that burns its budget on every turn is stopped by it, and refused naming it.
    let burner = "diving.manifest{ name = \"burner\", version = \"1.0.0\", api = 1 }\n\
                  diving.on_turn_start(function(ctx, player)\n  while true do end\nend)\n";
    let (code, message) = refusal(&mut ann, ruleset_with(burner)).await;
    assert_eq!(code, "upload");
    assert!(message.starts_with("trouble.lua:3:"), "{message}");
    // Nothing was offered.
    ann.send(json!({"type": "lobby", "protocol": PROTOCOL, "name": "ann", "key": ANN})).await;
    let listed = next_of(&mut ann, "lobby").await;
    assert_eq!(listed["rulesets"], offered);
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_are_limited_per_player_and_can_be_turned_off() {
    let limits = Limits { uploads_per_player: 1, ..Limits::default() };
    let server = serve(Vec::new(), upload_config(None, limits)).await;
    let (mut ann, _) = visit(&server, Some("ann"), ANN).await;
    let (code, _) = refusal(&mut ann, ruleset_with("local x = = 1\n")).await;
    assert_eq!(code, "upload", "a refused ruleset counts too: its check cost the host");
    let (code, message) = refusal(&mut ann, example("sharks")).await;
    assert_eq!(code, "limit");
    assert!(message.contains("in the last hour"), "{message}");
    server.stop().await.unwrap();

    let server = serve(Vec::new(), ServerConfig { uploads: false, ..upload_config(None, Limits::default()) }).await;
    let (mut ann, first) = visit(&server, Some("ann"), ANN).await;
    assert_eq!(first["uploads"], false);
    let (code, message) = refusal(&mut ann, example("sharks")).await;
    assert_eq!(code, "upload");
    assert!(message.contains("--no-uploads"), "{message}");
    // An upload's size is the lobby's other messages' limit on such a host.
    let (code, _) = refusal(&mut ann, ruleset_with(&"-- x\n".repeat(2000))).await;
    assert_eq!(code, "too_big");
    server.stop().await.unwrap();
}

/// `diving join HOST:PORT --ruleset FILE` brings the ruleset (the file and its mods), and its
/// `new` makes a table with it.
#[test]
fn diving_join_brings_its_ruleset_and_makes_a_table_with_it() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = runtime.block_on(serve(Vec::new(), upload_config(None, Limits::default())));
    let home = tempfile::tempdir().unwrap();
    let sharks = concat!(env!("CARGO_MANIFEST_DIR"), "/rulesets/examples/sharks/ruleset.toml");
    let out = assert_cmd::Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .args(["join", &server.addr.to_string(), "--name", "ann", "--ruleset", sharks])
        .env("XDG_DATA_HOME", home.path())
        .env("HOME", home.path())
        .write_stdin("new --bots greedy\nquit\n")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("the host offers your ruleset as sharks@"), "{stdout}");
    assert!(stdout.contains("mod sharks: reads no hidden card; reveals cards to the table"), "{stdout}");
    assert!(stdout.contains("you have seat 1"), "{stdout}");
    let rooms = server.room_ids();
    assert_eq!(rooms.len(), 1);
    let name = server.with_room(&rooms[0], |r| r.ruleset().name.clone()).unwrap();
    assert!(name.starts_with("sharks@"), "{name}");
    runtime.block_on(server.stop()).unwrap();
}
