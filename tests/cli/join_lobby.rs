//! `diving join HOST:PORT`, the terminal lobby, driven through a pipe: who you are (the player
//! file under `XDG_DATA_HOME`, a refused name asked again, `--name` refused with status 2,
//! moved to another terminal with `transfer` and `--transfer CODE`)
//! against a host that plays the lobby's part of PROTOCOL.md message by message, so each
//! step is checked as the client sends it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;

use diving::wire::PROTOCOL;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

/// A running `diving join`, its output read line by line on a thread of its own.
pub struct Joined {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line printed so far.
    pub printed: Vec<String>,
}

impl Joined {
    pub fn spawn(args: &[&str], data_home: &std::path::Path) -> Joined {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
            .args(args)
            .env("XDG_DATA_HOME", data_home)
            .env("HOME", data_home)
            .env_remove("NO_COLOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Joined { child, stdin, lines, printed: Vec::new() }
    }

    /// The lines printed until one contains `what` (that one last); fails after [`WAIT`].
    pub fn until(&mut self, what: &str) -> Vec<String> {
        let deadline = std::time::Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.printed.push(line.clone());
                    let found = line.contains(what);
                    seen.push(line);
                    if found {
                        return seen;
                    }
                }
                Err(e) => {
                    let last = &self.printed[self.printed.len().saturating_sub(40)..];
                    panic!("no line with {what:?} ({e}); the last lines printed: {last:#?}")
                }
            }
        }
    }

    /// Sends a line at once: `diving join` keeps to the host's rate itself (a game answered
    /// turn by turn is two lines a turn, far over 20 a second).
    pub fn line(&mut self, line: &str) {
        writeln!(self.stdin.as_mut().expect("the input is open"), "{line}").unwrap();
    }

    /// Ends the input, then waits (at most [`WAIT`]) for the exit: its status code, stderr,
    /// and every line it printed.
    pub fn finish(mut self) -> (Option<i32>, String, Vec<String>) {
        drop(self.stdin.take());
        self.exit()
    }

    /// Waits (at most [`WAIT`]) for it to end by itself, its input still open.
    pub fn exit(mut self) -> (Option<i32>, String, Vec<String>) {
        let deadline = std::time::Instant::now() + WAIT;
        let mut stderr = self.child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
            let _ = tx.send(text);
        });
        let err = rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()));
        let Ok(err) = err else {
            let _ = self.child.kill();
            panic!("diving join did not end within {}s of its input's end", WAIT.as_secs());
        };
        let status = self.child.wait().unwrap();
        // The reader ends at the output's end, which came with the exit.
        while let Ok(line) = self.lines.recv_timeout(WAIT) {
            self.printed.push(line);
        }
        (status.code(), err, self.printed)
    }
}

/// The longest a test waits for one line or message (a hung client fails the test; nothing
/// sleeps).
const WAIT: std::time::Duration = std::time::Duration::from_secs(30);

type Socket = WebSocketStream<tokio::net::TcpStream>;

/// The host's side of one connection: accepted on `/lobby` (any other path fails the test).
async fn accept(listener: &TcpListener) -> Socket {
    let (stream, _) = tokio::time::timeout(WAIT, listener.accept()).await.expect("diving join connects").unwrap();
    // The callback's type is tungstenite's, large error and all.
    #[allow(clippy::result_large_err)]
    let check = |request: &tokio_tungstenite::tungstenite::handshake::server::Request, response| {
        assert_eq!(request.uri().path(), "/lobby");
        Ok(response)
    };
    tokio_tungstenite::accept_hdr_async(stream, check).await.unwrap()
}

async fn recv(ws: &mut Socket) -> Value {
    loop {
        match tokio::time::timeout(WAIT, ws.next()).await.expect("diving join sends in time") {
            Some(Ok(Message::Text(text))) => return serde_json::from_str(&text).unwrap(),
            Some(Ok(Message::Close(_))) | None => panic!("diving join closed the lobby"),
            Some(Ok(_)) => continue,
            Some(Err(e)) => panic!("{e}"),
        }
    }
}

async fn send(ws: &mut Socket, message: Value) {
    ws.send(Message::text(message.to_string())).await.unwrap();
}

fn lobby(you: &str) -> Value {
    json!({
        "type": "lobby", "protocol": PROTOCOL, "you": {"name": you},
        "rulesets": [{"id": "standard", "name": "Standard", "about": "The rules as decided.", "balance": null, "seats": [2, 8]}],
        "bots": ["greedy"], "tables": [], "more_tables": 0,
        "limits": {"tables_per_connection": 3, "tables": 2000, "idle_secs": 600, "abandoned_secs": 3600,
                   "max_message": 4096, "per_second": 20, "burst": 40},
    })
}

/// `quit` at the name question leaves (as Ctrl-D does at a terminal, which the reader turns
/// into `quit`): it is never taken for a name, and nothing is kept.
#[test]
fn quit_at_the_name_question_leaves_and_is_not_a_name() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let data = tempfile::tempdir().unwrap();
    let mut join = Joined::spawn(&["join", &addr], data.path());
    // The question says the host's own limit on a name's length (it said 24 of the 32).
    let max = diving::limits::MAX_NAME_CHARS;
    join.until(&format!("what name do you go by here? (one word, at most {max} characters;"));
    join.line("quit");
    let (status, stderr, _) = join.exit();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(!data.path().join("diving").join("player.json").exists(), "no name, no player kept");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the host was never asked");
}

/// A hello the host refuses for a reason other than the name (`limit`: too many new players
/// from one address) ends `join` with the host's words: it kept the prompt, read no line
/// (not even `quit`) and waited for a lobby that never came.
#[test]
fn a_hello_refused_for_a_limit_ends_join_with_the_reason() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let data = tempfile::tempdir().unwrap();
    let mut join = Joined::spawn(&["join", &addr, "--name", "ann"], data.path());
    let mut ws = runtime.block_on(accept(&listener));
    assert_eq!(runtime.block_on(recv(&mut ws))["name"], "ann");
    let refusal = "10 new players came from your address in the last hour (the most one address brings in an hour); come back under a name you have played here, or try again in 48 minutes";
    runtime.block_on(send(&mut ws, json!({"type": "error", "code": "limit", "message": refusal})));
    join.line("quit");
    let (status, stderr, _) = join.exit();
    assert_ne!(status, Some(0), "{stderr}");
    assert!(stderr.contains(refusal), "{stderr}");
    assert!(!data.path().join("diving").join("player.json").exists(), "a refused player is not kept");
    drop(ws);
}

#[test]
fn a_refused_name_is_asked_again_and_the_name_the_host_took_is_kept_with_the_key() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let data = tempfile::tempdir().unwrap();
    let file = data.path().join("diving").join("player.json");

    let mut join = Joined::spawn(&["join", &addr], data.path());
    join.until("what name do you go by");
    join.line("ann");
    let mut ws = runtime.block_on(accept(&listener));
    let hello = runtime.block_on(recv(&mut ws));
    assert_eq!(
        (hello["type"].as_str(), hello["protocol"].as_u64(), hello["name"].as_str()),
        (Some("lobby"), Some(PROTOCOL.into()), Some("ann"))
    );
    let key = hello["key"].as_str().unwrap().to_string();
    assert!(key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()), "{hello}");
    let refusal = "the name 'ann' belongs to another player here; pick another";
    runtime.block_on(send(&mut ws, json!({"type": "error", "code": "name", "message": refusal})));
    join.until(refusal);
    join.until("what name do you go by");
    assert!(!file.exists(), "a refused name is not kept");

    join.line("ann2");
    let mut ws = runtime.block_on(accept(&listener));
    let hello = runtime.block_on(recv(&mut ws));
    assert_eq!((hello["name"].as_str(), hello["key"].as_str()), (Some("ann2"), Some(key.as_str())), "the same key");
    runtime.block_on(send(&mut ws, lobby("ann2")));
    let shown = join.until("type 'help'");
    assert!(shown.iter().any(|l| l == &format!("lobby of {addr} - you are ann2")), "{shown:#?}");
    assert!(shown.iter().any(|l| l == "no tables yet: 'new' makes one"), "{shown:#?}");
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(kept, json!({"name": "ann2", "key": key}));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }

    // The lobby's commands are its messages; a typo is answered without asking the host.
    join.line("new standard --seats 9");
    join.until("error: standard seats 2 to 8 players, not 9");
    join.line("ratings");
    assert_eq!(runtime.block_on(recv(&mut ws)), json!({"type": "ratings", "ruleset": "standard"}));
    let board = json!({"type": "ratings", "ruleset": "standard",
        "rows": [{"rank": 1, "player": "ann2", "bot": false, "rating": 1.25, "mu": 23.75, "uncertainty": 7.5, "games": 1, "wins": 1}],
        "recent": []});
    runtime.block_on(send(&mut ws, board));
    join.until("ratings for standard");
    let row = join.until("ann2");
    assert_eq!(row.last().unwrap().split_whitespace().collect::<Vec<_>>(), ["1", "ann2", "1.25", "7.50", "1", "1"]);
    join.line("new --bots greedy");
    let create = runtime.block_on(recv(&mut ws));
    assert_eq!(
        create,
        json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": ["greedy"], "hints": false})
    );
    // The next line waits for the answer: it is not read as a lobby command meanwhile.
    join.line("tables");
    let refusal = "this connection made 3 tables already (the most one may)";
    runtime.block_on(send(&mut ws, json!({"type": "error", "code": "limit", "message": refusal})));
    let answers = join.until("type 'help'");
    assert_eq!(answers[0], format!("error: {refusal}"), "{answers:#?}");
    assert_eq!(answers[1], format!("lobby of {addr} - you are ann2"), "{answers:#?}");
    let (code, err, _) = join.finish();
    assert_eq!(code, Some(0), "{err}");

    // Next time the file says who this is: no name is asked.
    let join = Joined::spawn(&["join", &addr], data.path());
    let mut ws = runtime.block_on(accept(&listener));
    let hello = runtime.block_on(recv(&mut ws));
    assert_eq!((hello["name"].as_str(), hello["key"].as_str()), (Some("ann2"), Some(key.as_str())));
    runtime.block_on(send(&mut ws, lobby("ann2")));
    let (code, err, printed) = join.finish();
    assert_eq!(code, Some(0), "{err}");
    assert!(!printed.iter().any(|l| l.contains("what name")), "{printed:#?}");
}

#[test]
fn a_name_given_with_name_that_the_host_refuses_ends_with_its_reason_and_status_2() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let data = tempfile::tempdir().unwrap();
    let join = Joined::spawn(&["join", &addr, "--name", "bob"], data.path());
    let mut ws = runtime.block_on(accept(&listener));
    let hello = runtime.block_on(recv(&mut ws));
    assert_eq!(hello["name"], "bob");
    let refusal = "'bob' looks too much like 'B0b', another player's name here; pick another";
    runtime.block_on(send(&mut ws, json!({"type": "error", "code": "name", "message": refusal})));
    let (code, err, _) = join.exit();
    assert_eq!(code, Some(2));
    assert_eq!(err.trim_end(), format!("diving: {refusal}"));
    assert!(!data.path().join("diving").join("player.json").exists());
}

/// A real host with no table made at start-up: `diving host --json --port 0`, its address
/// read from its `listening` line. Killed when dropped.
struct Host {
    child: Child,
    /// `127.0.0.1:PORT`.
    addr: String,
    /// What it said on its console (standard error) so far, and a bell rung at each line.
    console: std::sync::Arc<(std::sync::Mutex<Vec<String>>, std::sync::Condvar)>,
}

impl Host {
    fn start(dir: &std::path::Path) -> Host {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
            .args(["host", "--json", "--bind", "127.0.0.1", "--port", "0", "--dir"])
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let console = std::sync::Arc::new((std::sync::Mutex::new(Vec::new()), std::sync::Condvar::new()));
        let said = console.clone();
        let err = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                said.0.lock().unwrap().push(line);
                said.1.notify_all();
            }
        });
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let listening: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        let ws = listening["listening"]["ws"].as_str().unwrap_or_else(|| panic!("{listening}"));
        let addr = ws.strip_prefix("ws://").unwrap().trim_end_matches('/').to_string();
        // The rest of its output is read (and dropped), so a full pipe never holds it up.
        std::thread::spawn(move || for _ in out.lines() {});
        Host { child, addr, console }
    }
}

impl Host {
    /// Its console once it has said every line of `lines` (at most [`WAIT`] later): a client
    /// may see a game start before the host's console line about it is read.
    fn console_with(&self, lines: &[String]) -> Vec<String> {
        let (said, bell) = &*self.console;
        let missing = |console: &mut Vec<String>| lines.iter().any(|l| !console.contains(l));
        let (console, _) = bell.wait_timeout_while(said.lock().unwrap(), WAIT, missing).unwrap();
        console.clone()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The player file's `{name, key}` under `data`.
fn kept(data: &std::path::Path, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(data.join("diving").join(file)).unwrap()).unwrap()
}

/// A second terminal through the real host: ann's `transfer` prints a code, its command and
/// its link; `--transfer CODE` at another terminal (one that was zed) makes it ann — her key
/// in its player file, zed's kept beside it — and her table is listed there with her seat; the
/// code works once, and a used one ends `diving join` with the host's reason.
#[test]
fn a_transfer_code_moves_a_player_to_another_terminal_once() {
    let games = tempfile::tempdir().unwrap();
    let (first, second, third) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let host = Host::start(games.path());
    let addr = host.addr.clone();

    let mut ann = Joined::spawn(&["join", &addr, "--name", "ann"], first.path());
    ann.until("type 'help'");
    ann.line("new standard --seats 2 --bots greedy");
    ann.until("joined room");
    ann.line("quit");
    ann.finish();
    let mut ann = Joined::spawn(&["join", &addr], first.path());
    ann.until("your seat 1: back to it with 'sit 1'");
    ann.until("type 'help'");
    ann.line("transfer");
    let made = ann.until("your transfer code: ").pop().unwrap();
    let code = made["your transfer code: ".len()..].split(' ').next().unwrap().to_string();
    assert_eq!(code.len(), 14, "{made}");
    assert!(made.ends_with("(it works once, for the next 10 minutes)"), "{made}");
    ann.until(&format!("at another terminal: diving join {addr} --transfer {code}"));
    ann.until(&format!("in a browser: http://{addr}/#transfer={code}"));
    ann.until("whoever redeems it is ann there too");
    ann.line("quit");
    ann.finish();

    let mut zed = Joined::spawn(&["join", &addr, "--name", "zed"], second.path());
    zed.until("you are zed");
    zed.line("quit");
    zed.finish();
    let zed = kept(second.path(), "player.json");
    let mut moved = Joined::spawn(&["join", &addr, "--transfer", &code.to_lowercase()], second.path());
    moved.until("the transfer code is used: you are ann here now");
    moved.until("(this terminal was zed: that player's key is kept in");
    moved.until("you are ann");
    moved.until("your seat 1: back to it with 'sit 1'");
    moved.line("quit");
    let (status, _, _) = moved.finish();
    assert_eq!(status, Some(0));
    assert_eq!(kept(second.path(), "player.json"), kept(first.path(), "player.json"), "ann's name and key");
    assert_eq!(kept(second.path(), "player.json.old"), zed, "zed's key is not lost");

    let again = Joined::spawn(&["join", &addr, "--transfer", &code], third.path());
    let (status, err, _) = again.finish();
    assert_ne!(status, Some(0));
    assert!(err.contains("the host refused the transfer code: that transfer code was used already"), "{err}");
    assert!(!third.path().join("diving").join("player.json").exists(), "nothing is kept from a refused code");
    drop(host);
}

/// From the lobby to the leaderboard through the real host: ann makes a table with a greedy
/// bot, is seated at once (the bot needs no invite), plays the whole game from the pipe by
/// taking the first legal move on each of her turns, and then the lobby's `ratings` and
/// `diving host --dir DIR ratings` both show her with one game.
#[test]
fn a_table_made_in_the_lobby_is_played_to_the_end_and_rated() {
    let games = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let host = Host::start(games.path());
    let addr = host.addr.clone();

    let mut join = Joined::spawn(&["join", &addr, "--name", "ann"], data.path());
    join.until("you are ann");
    join.until("type 'help'");
    join.line("new standard --seats 2 --bots greedy");
    let seated = join.until("you have seat");
    assert!(seated.last().unwrap().starts_with("you have seat 1 at room "), "{seated:#?}");
    join.until("joined room");

    // ann's turns: each one's first legal move, until someone reaches the bottom.
    let mut moves = 0;
    let winner = loop {
        let line = join.until("").pop().unwrap();
        if line.contains("the bottom and win") {
            break line;
        }
        if !(line.starts_with("-- turn ") && line.ends_with(": ann --")) {
            continue;
        }
        join.line("moves");
        join.until("legal moves for ann:");
        let first = join.until("").pop().unwrap();
        join.line(first.trim());
        moves += 1;
        assert!(moves < 400, "the game does not end: {:#?}", join.printed);
    };
    assert!(winner.contains("ann") || winner.contains("greedy"), "{winner}");
    assert!(moves >= 5, "a whole game takes ann more than {moves} moves");

    // A rematch: the bot always agrees, so the next game starts at once, the seats turned
    // one on (ann is seat 2 now), and the game is greeted as a new one.
    join.line("rematch");
    join.until("ann asked for a rematch; everyone agrees: a new game starts");
    let new_game = join.until("a new shuffle").pop().unwrap();
    assert!(new_game.starts_with("game 2 at room ") && new_game.ends_with("you are seat 2 now"), "{new_game}");
    let hello = join.until("joined room").pop().unwrap();
    assert!(hello.contains("as ann (seat 2 of 2): greedy, ann"), "{hello}");
    join.until("-- turn 1: greedy --");
    join.line("quit");
    let (code, err, printed) = join.finish();
    assert_eq!(code, Some(0), "{err}\n{printed:#?}");

    // The host's console said, a line each, that the table opened and each game started and
    // ended, naming no card.
    let room = new_game.split_whitespace().nth(4).unwrap().trim_end_matches(':').to_string();
    let lines = [
        format!("diving host: room {room}: ann opened a table of standard (2 seats: 0 open, 1 bot)"),
        format!("diving host: room {room}: game 1 starts: ann, greedy"),
        format!("diving host: room {room}: game 2 starts: greedy, ann"),
    ];
    let console = host.console_with(&lines);
    for said in lines {
        assert_eq!(console.iter().filter(|l| **l == said).count(), 1, "{said}: {console:#?}");
    }
    let over = console.iter().filter(|l| l.starts_with(&format!("diving host: room {room}: game 1 is over: "))).count();
    assert_eq!(over, 1, "{console:#?}");
    let cards = ["AC", "KH", "QS", "7D", "10C"];
    assert!(!console.iter().any(|l| l.split_whitespace().any(|w| cards.contains(&w))), "{console:#?}");

    // The lobby's board, with the name and key the file kept.
    let mut again = Joined::spawn(&["join", &addr], data.path());
    again.until("you are ann");
    again.line("ratings standard");
    again.until("ratings for standard");
    let board = again.until("recent results");
    let ann: Vec<&str> =
        board.iter().find(|l| l.contains(" ann ")).expect("ann is on the board").split_whitespace().collect();
    assert_eq!((ann[1], ann[4]), ("ann", "1"), "{board:#?}");
    assert!(board.iter().any(|l| l.contains(" bot:greedy ")), "{board:#?}");
    let (code, err, _) = again.finish();
    assert_eq!(code, Some(0), "{err}");

    // And the host's own, read from its database while it runs.
    let out = Command::new(assert_cmd::cargo::cargo_bin!("diving"))
        .args(["host", "--dir"])
        .arg(games.path())
        .args(["ratings", "--ruleset", "standard"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ann: Vec<&str> =
        text.lines().find(|l| l.contains(" ann ")).expect("ann is on the board").split_whitespace().collect();
    assert_eq!((ann[1], ann[4]), ("ann", "1"), "{text}");
    drop(host);
}

/// At a terminal: the name asked at its own prompt, the lobby's prompt, and the seat a `new`
/// takes played in the game shell by the same line editor (the board with this seat's hand,
/// the seat's prompt), until `quit`.
#[cfg(unix)]
#[test]
fn at_a_terminal_the_lobby_hands_its_line_editor_to_the_seat() {
    use rexpect::session::{Options, spawn_with_options};
    let games = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let host = Host::start(games.path());
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("diving"));
    cmd.args(["join", &host.addr]).env("XDG_DATA_HOME", data.path()).env("HOME", data.path());
    cmd.env("TERM", "xterm").env("NO_COLOR", "1").env("LANG", "C").env_remove("LC_ALL").env_remove("LC_CTYPE");
    let options = Options::new().timeout_ms(Some(WAIT.as_millis() as u64)).strip_ansi_escape_codes(true);
    let mut p = spawn_with_options(cmd, options).unwrap();
    p.exp_string("what name do you go by").unwrap();
    p.exp_string("your name: ").unwrap();
    p.send_line("carol").unwrap();
    p.exp_string("you are carol").unwrap();
    p.exp_string("lobby> ").unwrap();
    p.send_line("new standard --bots greedy").unwrap();
    p.exp_string("you have seat 1 at room").unwrap();
    p.exp_string("Diving Suits - carol vs greedy (bot)").unwrap();
    let board = p.exp_string("carol's hand:").unwrap();
    assert!(board.contains("turn 1 - carol to play"), "{board}");
    p.exp_string("carol> ").unwrap();
    p.send_line("quit").unwrap();
    p.exp_string("you left the game").unwrap();
    p.exp_eof().unwrap();
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(data.path().join("diving/player.json")).unwrap()).unwrap();
    assert_eq!(kept["name"], "carol");
}
