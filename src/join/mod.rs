//! `diving join`: the game shell over the network, a terminal front end of a table the host
//! holds (it speaks the [`crate::wire`], and imports nothing of the server). It reads lines like `play` does, sends
//! them to the server, and prints what the server made for its seat: the narration and board
//! as text, or with `--json` the same JSON Lines objects local `--json` play prints. It holds
//! no game and no rules: the commands are parsed and checked on the server.
//!
//! At a terminal it is the shell of local play: the line editor of [`terminal`] (completion,
//! a history of this seat's lines kept in memory only), colours by the same rules, and the
//! board, narration and listings as local play draws them, which the server makes for this
//! terminal's style and width (the `display` of its `join`). What Tab completes — this
//! seat's hand, the table, its legal plays, a question's choices — comes in the view the host
//! pushes with every change. Lines from the server arrive while a line is being typed: they
//! are printed above it.
//!
//! With no room (`diving join HOST:PORT`) it is the host's lobby (`lobby`, private): tables,
//! new ones, ratings; the seat taken there is played by the same code as an invite's, the
//! lobby handing over its reader of the input. [`player`] keeps who you are (name and key,
//! under XDG data); [`board`] lays out a leaderboard, for the lobby and `diving host ratings`.
//! A room's table made in the lobby may wait for its people (`waiting`) and start again
//! (`rematch`, `new_game`): those are shown as they come; `rematch` is a line like any other,
//! sent to the host as a command.

pub mod board;
pub mod lobby;
pub mod player;

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::bail;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::limits::{Line, MAX_LINE_BYTES, NewLines, shown};
use crate::shell::terminal::{self, Terminal, Words};
use crate::table::render::Style;
use crate::wire::limits::RoomLimits;
use crate::wire::server::{Hello, NewGame, Output, Rematch, SeatLine, View, Waiting};
use crate::wire::{ClientMessage, Code, Display, HostLimits, PROTOCOL, READ_BUFFER, RulesetId, ServerMessage};

/// What `diving join` was asked.
#[derive(Debug, Clone, Default)]
pub struct JoinOptions {
    /// `HOST:PORT/ROOM` (or a `ws://` URL).
    pub target: String,
    /// The seat (1-based) and its token; neither: watch.
    pub seat: Option<usize>,
    pub token: Option<String>,
    pub json: bool,
    /// The ruleset the player expects (from `--ruleset`).
    pub ruleset: Option<RulesetId>,
    /// Never use colour (also: `NO_COLOR`).
    pub no_color: bool,
    /// The name to go by in the lobby (`--name`; else the player file's, else asked).
    pub name: Option<String>,
    /// In the lobby: a ruleset to bring (`--ruleset FILE`: its file and the mods it names).
    pub upload: Option<Vec<crate::wire::UploadFile>>,
    /// In the lobby: a transfer code to redeem first (`--transfer CODE`): who it names is
    /// who this terminal is from then on.
    pub transfer: Option<String>,
}

/// The WebSocket URL of an invite's `HOST:PORT/ROOM`.
pub fn url(target: &str) -> anyhow::Result<String> {
    if target.starts_with("wss://") {
        bail!(
            "this diving speaks plain ws://; put a TLS proxy in front of the server and join it with ws:// through a tunnel, or use the host's address"
        );
    }
    let rest = target.strip_prefix("ws://").unwrap_or(target);
    match rest.split_once('/') {
        Some((host, room)) if !host.is_empty() && !room.is_empty() && !room.contains('/') => {
            Ok(format!("ws://{host}/{room}"))
        }
        _ => bail!("'{target}' is not HOST:PORT/ROOM (as the host's invite prints it)"),
    }
}

/// Runs `diving join`: at a terminal as the game shell, else reading lines from the pipe;
/// with no room (`HOST:PORT`), the host's lobby (`join/lobby.rs`).
pub fn join(options: &JoinOptions) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let at_terminal = !options.json && io::stdin().is_terminal();
    if let Some(host) = lobby::host_of(&options.target)? {
        if options.seat.is_some() {
            bail!("--seat and --token name a seat of a room: give HOST:PORT/ROOM (without a room you get the lobby)");
        }
        return runtime.block_on(lobby::run(options, &host, at_terminal));
    }
    if options.name.is_some() {
        bail!("--name is for the lobby (diving join HOST:PORT); an invite's seat already has its player");
    }
    if options.transfer.is_some() {
        bail!("--transfer is redeemed in the lobby: give HOST:PORT (without a room)");
    }
    runtime.block_on(run(options, at_terminal, None))
}

/// What the lobby hands the room it sends its player to: the lines it reads (one reader of
/// the input for the whole run, so no line is lost between the two), at a terminal the line
/// editor's parts, and the player the `join` carries.
struct Handover {
    lines: tokio::sync::mpsc::Receiver<Input>,
    terminal: Option<Editor>,
    player: Option<player::Player>,
}

/// The parts of a line editor that is already reading: where text goes above its line, what
/// it completes, its prompt, the flag that stops it, and what lets it read the next line once
/// the prompt is the right one.
struct Editor {
    console: Console,
    words: Arc<Mutex<Words>>,
    prompt: Arc<Mutex<Prompt>>,
    closed: Arc<std::sync::atomic::AtomicBool>,
    go: std::sync::mpsc::Sender<()>,
}

/// What the reading side sends the network side.
enum Input {
    Line(String),
    /// The terminal is now this many columns wide.
    Width(usize),
}

/// What the prompt says. The game's prompt names this seat's player (or says `watching`) for
/// the whole session and never the game's state: the line editor draws a prompt when it
/// starts reading a line and cannot change it while the line is typed, so a prompt that said
/// `game over` would still say so after a rematch had begun (and one saying whose turn it is
/// would be stale as soon as a bot moved). The state is in the board and the lines above.
#[derive(Debug, Clone, Default)]
struct Prompt {
    /// This seat's player (`None`: watching).
    player: Option<String>,
    /// A prompt of the lobby's (`lobby> `, `your name: `), in place of the game's. While it
    /// is set, the terminal's reader waits after each line until the lobby has dealt with it
    /// (the `go` of [`read_terminal`]), so the next prompt is the one that line led to: the
    /// lobby's again, the name question's, or the seat's.
    lobby: Option<String>,
}

impl Prompt {
    /// The game's prompt for `player`.
    fn game(player: Option<String>) -> Prompt {
        Prompt { player, lobby: None }
    }

    fn text(&self) -> String {
        if let Some(text) = &self.lobby {
            return text.clone();
        }
        match &self.player {
            // The name is the host's word: shown with its control characters escaped.
            Some(name) => format!("{}> ", crate::limits::shown(name, crate::limits::NewLines::Escaped)),
            None => "watching> ".into(),
        }
    }
}

/// Where text goes: standard output, or above the line being edited.
enum Console {
    Stdout,
    Editor(Box<dyn rustyline::ExternalPrinter + Send>),
}

impl Console {
    /// Prints `text`, which may hold what the host sent: only its lines and colours reach the
    /// terminal ([`limits::host_text`]).
    fn print(&mut self, text: &str) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        let text = &crate::limits::host_text(text);
        match self {
            Console::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(text.as_bytes())?;
                out.flush()
            }
            Console::Editor(printer) => printer.print(text.to_string()).map_err(io::Error::other),
        }
    }
}

/// The terminal's side of the shell: what completion offers, the prompt, the board last shown.
struct Shell {
    style: Style,
    words: Arc<Mutex<Words>>,
    prompt: Arc<Mutex<Prompt>>,
    /// (moves played, turn, over) of the board last shown: a board is shown once per change.
    shown: Option<(u64, u64, bool)>,
}

async fn run(options: &JoinOptions, at_terminal: bool, handover: Option<Handover>) -> anyhow::Result<ExitCode> {
    let url = url(&options.target)?;
    let ruleset = options.ruleset.clone();
    let style = crate::shell::terminal_style(options.no_color);
    let display =
        at_terminal.then(|| Display { color: style.color, unicode: style.unicode, width: Some(terminal::columns()) });
    let mut hello = match (options.seat, &options.token) {
        (Some(seat), Some(token)) => ClientMessage::Join {
            protocol: PROTOCOL,
            seat: seat.into(),
            token: token.clone(),
            ruleset,
            display,
            since: None,
            player: None,
            // A terminal lists outcomes when asked ('moves'): its views need none.
            previews: false,
        },
        (None, None) => ClientMessage::Watch { protocol: PROTOCOL, ruleset, display, since: None },
        _ => bail!("--seat and --token go together (the host's invite has both); without them you watch"),
    };
    // A seat the lobby gave is its player's (PROTOCOL.md, *A waiting table*).
    if let (Some(handover), ClientMessage::Join { player, .. }) = (&handover, &mut hello) {
        player.clone_from(&handover.player);
    }
    let (mut sink, mut stream) = connect(&url, &hello.to_text()).await?;
    // A seat whose connection breaks gets back in by itself, with its token (a spectator or
    // a script reading JSON starts again as it likes).
    let rejoins = options.token.is_some() && !options.json;

    // Lines are read with the shell's limits, and at most a few wait to be sent: a pipe that
    // pours lines faster than the server answers waits instead of filling memory.
    let (lines_tx, mut lines) = tokio::sync::mpsc::channel::<Input>(16);
    let mut lines_tx = Some(lines_tx);
    let mut shell: Option<Shell> = None;
    let mut editor = None;
    let mut console = Console::Stdout;
    // The connection ended: the terminal's reader stops at its next line.
    let mut closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The lobby's reader and editor, already running: this room reads from them.
    let mut handed = None;
    if let Some(handover) = handover {
        lines = handover.lines;
        lines_tx = None;
        if let Some(parts) = handover.terminal {
            console = parts.console;
            closed = parts.closed;
            handed = Some((parts.words, parts.prompt, parts.go));
        }
    }
    if !at_terminal && let Some(tx) = lines_tx.take() {
        read_pipe(tx);
    }

    let mut input_open = true;
    let mut over = false;
    let mut connected = true;
    // `quit` was sent (typed, or the input ended): the server answers what came before it,
    // says `bye` and closes, and the client then ends instead of getting back in.
    let mut leaving = false;
    // The `at` of the last `output`: what a return says it saw (`since`), so the host sends
    // the rest and nothing twice.
    let mut seen: Option<usize> = None;
    let mut pace = Pace::new(&HostLimits::default().room());
    // Whether the server said hello: another hello is the answer to getting back in.
    let mut greeted = false;
    // Whether the output answering this connection's join has come.
    let mut answered = false;
    loop {
        tokio::select! {
            message = stream.next(), if connected => {
                // A seat that loses its connection (the host stopped, restarts with `--resume`,
                // or the network broke) tries to get back in.
                let lost = match &message {
                    Some(Ok(Message::Close(frame))) => Some(close_cause(&format!("the server at {url}"), frame.as_ref())),
                    None => Some(close_cause(&format!("the server at {url}"), None)),
                    Some(Err(e)) => Some(format!("the connection to {url} broke: {e}")),
                    Some(Ok(_)) => None,
                };
                if let Some(why) = lost.filter(|_| rejoins && !over && !leaving) {
                    console.print(&format!("({why}; getting back in…)\n"))?;
                    if let (Some(at), ClientMessage::Join { since, .. } | ClientMessage::Watch { since, .. }) =
                        (seen, &mut hello)
                    {
                        *since = Some(at);
                    }
                    match rejoin(&url, &hello.to_text(), &mut console, &mut lines).await? {
                        Some((new_sink, new_stream)) => (sink, stream) = (new_sink, new_stream),
                        None => {
                            connected = false;
                            break;
                        }
                    }
                    continue;
                }
                let text = match message {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(frame))) => {
                        connected = false;
                        if shell.is_none() || !input_open || leaving {
                            break;
                        }
                        // The line editor is waiting for a line: it ends at the next Enter.
                        closed.store(true, std::sync::atomic::Ordering::SeqCst);
                        console.print(&format!("({}; press Enter to leave)\n", close_cause("the server", frame.as_ref())))?;
                        continue;
                    }
                    None => {
                        connected = false;
                        if shell.is_none() || !input_open || leaving {
                            break;
                        }
                        closed.store(true, std::sync::atomic::Ordering::SeqCst);
                        console.print("(the server closed the connection; press Enter to leave)\n")?;
                        continue;
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => bail!("the connection to {url} broke: {e}"),
                };
                let message = ServerMessage::parse(&text).map_err(anyhow::Error::msg)?;
                let mut printed = String::new();
                match message {
                    ServerMessage::Hello(hello) => {
                        pace.follow(&hello.limits);
                        if hello.protocol != PROTOCOL {
                            bail!("the server speaks protocol {}, this diving speaks {PROTOCOL}: use the same version of diving", hello.protocol);
                        }
                        let me = hello.player.clone();
                        if greeted {
                            printed = "(back in the game)\n".to_string();
                        } else if at_terminal && let Some(shell) = &mut shell {
                            // A new game at the table (a rematch): the same shell goes on.
                            printed = title(&hello, style);
                            *shell.prompt.lock().unwrap_or_else(|e| e.into_inner()) = Prompt::game(me);
                            shell.shown = None;
                        } else if at_terminal && let Some((words, prompt, go)) = handed.take() {
                            printed = title(&hello, style);
                            *prompt.lock().unwrap_or_else(|e| e.into_inner()) = Prompt::game(me);
                            // The lobby's reader waits on the line that took the seat: it
                            // reads on under the seat's prompt (and never waits again).
                            let _ = go.send(());
                            shell = Some(Shell { style, words, prompt, shown: None });
                        } else if at_terminal {
                            printed = title(&hello, style);
                            let prompt = Prompt::game(me);
                            let mut term = Terminal::in_memory();
                            if let Some(printer) = term.printer() {
                                console = Console::Editor(printer);
                            }
                            let state = Shell { style, words: term.words(), prompt: Arc::new(Mutex::new(prompt)), shown: None };
                            shell = Some(state);
                            editor = Some(term);
                        } else {
                            printed = hello_text(&hello, options.json);
                        }
                        greeted = true;
                        answered = false;
                    }
                    ServerMessage::Output(output) => {
                        // The output answering a join carries the host's own count: a host
                        // that lost its last moves in a crash counts fewer than we saw, and the
                        // moves after its count are new ones (PROTOCOL.md, `since`).
                        seen = if answered { seen.max(Some(output.at)) } else { Some(output.at) };
                        answered = true;
                        let (text, ended) = output_text(&output, options.json);
                        printed = text;
                        over |= ended;
                        // At a terminal, the view that comes with a change: the board once per
                        // change, what Tab completes, the prompt.
                        if let (Some(shell), Some(view)) = (&mut shell, &output.view) {
                            printed += &shell.view(view);
                            // The first prompt comes under the first board.
                            if let (Some(term), Some(tx)) = (editor.take(), lines_tx.take()) {
                                console.print(&printed)?;
                                printed.clear();
                                read_terminal(term, tx, shell.prompt.clone(), closed.clone(), None);
                            }
                        }
                    }
                    ServerMessage::Waiting(waiting) => {
                        printed = if options.json { format!("{text}\n") } else { waiting_text(&waiting) }
                    }
                    ServerMessage::Rematch(rematch) => {
                        printed = if options.json { format!("{text}\n") } else { rematch_text(&rematch) }
                    }
                    ServerMessage::NewGame(new_game) => {
                        // The table's next game: this seat may have moved on (its token is the
                        // same), and the moves seen count again from the game's first output.
                        if let (Some(n), ClientMessage::Join { seat, since, .. }) = (new_game.seat, &mut hello) {
                            *seat = n.into();
                            *since = None;
                        }
                        seen = None;
                        over = false;
                        greeted = false;
                        printed = if options.json { format!("{text}\n") } else { new_game_text(&new_game) };
                    }
                    // What a terminal of versions 3 to 5 is sent instead of a view.
                    ServerMessage::Screen(_) => {}
                    ServerMessage::Error(refusal) => {
                        let message = shown(&refusal.message, NewLines::Escaped);
                        if refusal.code.is_final() || matches!(refusal.code, Code::Timeout | Code::Dropped) {
                            closed.store(true, std::sync::atomic::Ordering::SeqCst);
                            bail!("{message}");
                        }
                        printed = if options.json {
                            format!("{}\n", json!({ "error": refusal.message, "code": refusal.code }))
                        } else {
                            format!("{} {message}\n", style_of(&shell).error_label())
                        };
                    }
                    // The lobby's messages: not sent to a room's reader.
                    ServerMessage::Lobby(_) | ServerMessage::Seated(_) | ServerMessage::Ratings(_) | ServerMessage::Uploaded(_)
                    | ServerMessage::Transfer(_) | ServerMessage::Identity(_) => {}
                }
                console.print(&printed)?;
                if over && !input_open && shell.is_none() {
                    break;
                }
            }
            line = lines.recv(), if input_open => {
                let line = match line {
                    Some(Input::Line(line)) => line,
                    Some(Input::Width(width)) => {
                        if connected {
                            let message = ClientMessage::Display(Display { color: style.color, unicode: style.unicode, width: Some(width) });
                            sink.send(Message::text(message.to_text())).await?;
                        }
                        continue;
                    }
                    // The end of the input leaves, as `quit` does (and as `play` does at the end
                    // of a script): after the answers to every line before it.
                    None => {
                        input_open = false;
                        if !connected {
                            break;
                        }
                        if leaving {
                            continue;
                        }
                        "quit".to_string()
                    }
                };
                if !connected {
                    break;
                }
                if leaving {
                    continue;
                }
                leaving = is_quit(&line);
                let message = ClientMessage::Command { line, seat: None };
                pace.take().await;
                sink.send(Message::text(message.to_text())).await?;
            }
        }
    }
    if connected {
        let _ = sink.send(Message::Close(None)).await;
    }
    if shell.is_some() {
        console.print("(you left the game; the same invite takes you back)\n")?;
    }
    Ok(ExitCode::SUCCESS)
}

type Sink = futures_util::stream::SplitSink<Socket, Message>;
type Stream = futures_util::stream::SplitStream<Socket>;

/// Keeps a seat's commands within the host's rate (`hello.limits`: `burst` messages, then
/// `per_second`; PROTOCOL.md, *Limits*), a little under it: a script piped into `diving join`
/// faster than that waits its turn instead of having lines refused (`rate`). A person typing
/// never comes near it.
struct Pace {
    tokens: f64,
    burst: f64,
    rate: f64,
    at: tokio::time::Instant,
}

impl Pace {
    fn new(limits: &RoomLimits) -> Pace {
        let mut pace = Pace { tokens: 0.0, burst: 1.0, rate: 1.0, at: tokio::time::Instant::now() };
        pace.set(f64::from(limits.burst), f64::from(limits.per_second));
        pace.tokens = pace.burst;
        pace
    }

    /// The margin covers the `join` and `display` messages sent besides commands.
    fn set(&mut self, burst: f64, per_second: f64) {
        self.burst = (burst - 4.0).max(1.0);
        self.rate = (per_second * 0.9).max(0.5);
        self.tokens = self.tokens.min(self.burst);
    }

    /// The limits a `hello` gives.
    fn follow(&mut self, limits: &RoomLimits) {
        self.set(f64::from(limits.burst), f64::from(limits.per_second));
    }

    /// Waits, if need be, until one more message keeps within the rate.
    async fn take(&mut self) {
        let now = tokio::time::Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        if self.tokens < 1.0 {
            let wait = std::time::Duration::from_secs_f64((1.0 - self.tokens) / self.rate);
            tokio::time::sleep(wait).await;
            self.tokens = 1.0;
            self.at = tokio::time::Instant::now();
        }
        self.tokens -= 1.0;
    }
}
type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the connection and says `hello` (the `join`, `watch` or `lobby` message).
async fn connect(url: &str, hello: &str) -> anyhow::Result<(Sink, Stream)> {
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let (socket, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), false)
        .await
        .map_err(|e| connect_error(url, e))?;
    let (mut sink, stream) = socket.split();
    sink.send(Message::text(hello)).await?;
    Ok((sink, stream))
}

/// Why a connection was not made, said once: what the server answered (its own words, such as
/// "there is no room '9' on this server"), or what the network said.
fn connect_error(url: &str, e: tokio_tungstenite::tungstenite::Error) -> anyhow::Error {
    use tokio_tungstenite::tungstenite::Error;
    match e {
        Error::Http(response) => {
            // A server's answer is outside text: its first line, without control characters,
            // at most 200 characters.
            let said = response.body().as_deref().map(|b| {
                let text = String::from_utf8_lossy(b);
                text.lines().next().unwrap_or("").chars().filter(|c| !c.is_control()).take(200).collect::<String>()
            });
            match said.filter(|s| !s.trim().is_empty()) {
                Some(said) => anyhow::anyhow!("cannot join {url}: {}", said.trim()),
                None => anyhow::anyhow!("cannot join {url}: the server answered {}", response.status()),
            }
        }
        Error::Io(io) => anyhow::anyhow!("cannot connect to {url}: {io}"),
        other => anyhow::anyhow!("cannot connect to {url}: {other}"),
    }
}

/// Seconds between tries to get back in: doubling from one, then every [`REJOIN_MAX_WAIT`].
const REJOIN_FIRST_WAIT: u64 = 1;
const REJOIN_MAX_WAIT: u64 = 10;
/// Tries before giving up (about five minutes: long enough for the host to restart a server
/// with `--resume`).
const REJOIN_TRIES: u32 = 32;

/// Connects again after a broken connection, with the seat's token, until the server answers
/// or [`REJOIN_TRIES`] fail. Lines typed meanwhile are not sent: `quit` (or the end of input)
/// leaves (`None`), anything else is answered with where things stand.
async fn rejoin(
    url: &str,
    hello: &str,
    console: &mut Console,
    lines: &mut tokio::sync::mpsc::Receiver<Input>,
) -> anyhow::Result<Option<(Sink, Stream)>> {
    let mut wait = REJOIN_FIRST_WAIT;
    for attempt in 1..=REJOIN_TRIES {
        let pause = tokio::time::sleep(std::time::Duration::from_secs(wait));
        tokio::pin!(pause);
        loop {
            tokio::select! {
                () = &mut pause => break,
                line = lines.recv() => match line {
                    None => return Ok(None),
                    Some(Input::Line(line)) if is_quit(&line) => return Ok(None),
                    Some(Input::Line(_)) => {
                        console.print("(not connected: getting back in; 'quit' leaves, and the same invite takes you back later)\n")?
                    }
                    Some(Input::Width(_)) => {}
                },
            }
        }
        match connect(url, hello).await {
            Ok(connection) => return Ok(Some(connection)),
            Err(e) => console.print(&format!("(try {attempt} of {REJOIN_TRIES}: {})\n", e.root_cause()))?,
        }
        wait = (wait * 2).min(REJOIN_MAX_WAIT);
    }
    bail!(
        "could not get back in to {url} after {REJOIN_TRIES} tries; the same invite takes you back when the host is up"
    )
}

fn is_quit(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.eq_ignore_ascii_case("quit") || trimmed.eq_ignore_ascii_case("q")
}

fn style_of(shell: &Option<Shell>) -> Style {
    shell.as_ref().map_or(Style::PLAIN, |s| s.style)
}

/// Reads the pipe's lines on a thread of its own.
fn read_pipe(lines_tx: tokio::sync::mpsc::Sender<Input>) {
    std::thread::spawn(move || {
        let mut input = crate::limits::Lines::new(io::stdin().lock());
        while let Ok(Some(line)) = input.next_line() {
            let line = match line {
                Line::Text(text) => text,
                refused => {
                    let message = refused.refusal(input.number()).unwrap_or_default();
                    let _ = writeln!(io::stderr(), "diving join: {message}");
                    continue;
                }
            };
            if lines_tx.blocking_send(Input::Line(line)).is_err() {
                break;
            }
        }
    });
}

/// Reads the terminal's lines with the line editor on a thread of its own, until `quit`, the
/// end of input or the connection's end; tells a change of the terminal's width first.
fn read_terminal(
    mut term: Terminal,
    lines_tx: tokio::sync::mpsc::Sender<Input>,
    prompt: Arc<Mutex<Prompt>>,
    closed: Arc<std::sync::atomic::AtomicBool>,
    go: Option<std::sync::mpsc::Receiver<()>>,
) {
    std::thread::spawn(move || {
        let mut width = terminal::columns();
        loop {
            let now = terminal::columns();
            if now != width {
                width = now;
                if lines_tx.blocking_send(Input::Width(width)).is_err() {
                    return;
                }
            }
            let text = prompt.lock().unwrap_or_else(|e| e.into_inner()).text();
            let line = match term.read(&text) {
                Ok(line) if line.len() > MAX_LINE_BYTES => {
                    let refused = Line::TooLong { bytes: line.len() as u64 };
                    let message = refused.refusal(1).unwrap_or_default().replacen("line 1", "the line", 1);
                    let _ = writeln!(io::stdout(), "error: {message}");
                    continue;
                }
                Ok(line) => line,
                Err(rustyline::error::ReadlineError::Interrupted) => {
                    let _ = writeln!(io::stdout(), "(type 'quit' to leave)");
                    continue;
                }
                // Ctrl-D, or a terminal that failed: leave.
                Err(_) => "quit".to_string(),
            };
            if closed.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            term.remember(&line);
            let quit = is_quit(&line);
            let in_lobby = prompt.lock().unwrap_or_else(|e| e.into_inner()).lobby.is_some();
            if lines_tx.blocking_send(Input::Line(line)).is_err() || quit {
                return;
            }
            // A lobby line: the next prompt is known once the lobby has dealt with it.
            if in_lobby
                && let Some(go) = &go
                && go.recv().is_err()
            {
                return;
            }
        }
    });
}

impl Shell {
    /// Takes a view: what Tab completes and the prompt now; the board (and at the end the
    /// summary) when the game has moved since the last one shown. Returns the text to print.
    fn view(&mut self, view: &View) -> String {
        if let Some(words) = &view.completion {
            *self.words.lock().unwrap_or_else(|e| e.into_inner()) = words.clone();
        }
        let key = (view.at as u64, u64::from(view.turn), view.over);
        if self.shown == Some(key) {
            return String::new();
        }
        self.shown = Some(key);
        let mut text = format!("\n{}\n", view.board.as_deref().unwrap_or(""));
        if view.over {
            for line in view.summary.iter().flatten() {
                text += &format!("{line}\n");
            }
            text += &self.style.dim("the game is over: 'log' shows it all, 'rematch' asks for another, 'quit' leaves.");
            text.push('\n');
        }
        text
    }
}

/// The host's words, shown with their control characters escaped.
fn host_words(text: &str) -> String {
    shown(text, NewLines::Escaped)
}

/// The names of the seats, a bot's marked.
fn seat_names(hello: &Hello) -> Vec<String> {
    hello
        .players
        .iter()
        .enumerate()
        .map(|(s, name)| match hello.bots.get(s).is_some_and(Option::is_some) {
            true => format!("{} (bot)", host_words(name)),
            false => host_words(name),
        })
        .collect()
}

/// The opening lines at a terminal, as local play opens.
fn title(hello: &Hello, style: Style) -> String {
    let dash = if style.unicode { "—" } else { "-" };
    let who = match (&hello.player, hello.seat) {
        (Some(name), Some(seat)) => format!("you play {} (seat {seat})", host_words(name)),
        _ => "you watch".to_string(),
    };
    let mut text = style.bold(&format!("Diving Suits {dash} {}", seat_names(hello).join(" vs ")));
    text.push('\n');
    text += &style.dim(&format!(
        "room {}, ruleset {} ({}); {who}. type 'help' for the commands, 'help rules' for how to play, 'moves' for what you can do, 'say TEXT' to chat, 'quit' to leave.",
        host_words(&hello.room),
        host_words(&hello.ruleset.name),
        host_words(&hello.ruleset.hash),
    ));
    text = crate::table::render::wrap(&text, terminal::columns());
    text.push('\n');
    text
}

fn hello_text(hello: &Hello, json: bool) -> String {
    if json {
        let joined = json!({ "joined": {
            "room": hello.room, "seat": hello.seat, "player": hello.player,
            "players": hello.players, "bots": hello.bots, "ruleset": hello.ruleset, "protocol": hello.protocol,
        }});
        return format!("{joined}\n");
    }
    let players: Vec<String> = hello.players.iter().map(|p| host_words(p)).collect();
    let who = match (&hello.player, hello.seat) {
        (Some(name), Some(seat)) => format!("as {} (seat {seat} of {})", host_words(name), players.len()),
        _ => "to watch".to_string(),
    };
    format!(
        "joined room {} {who}: {}; ruleset {} ({})\ntype 'help' for the commands, 'say TEXT' to chat, 'quit' to leave\n",
        host_words(&hello.room),
        players.join(", "),
        host_words(&hello.ruleset.name),
        host_words(&hello.ruleset.hash),
    )
}

/// A seat's name as a `waiting` or `lobby` message gives it: the player, a bot's spec, or
/// `(open)`; the host's words, with their control characters escaped.
fn seat_name(seat: &SeatLine) -> String {
    match (&seat.player, &seat.bot) {
        (_, Some(bot)) => format!("bot:{}", host_words(bot.strip_prefix("bot:").unwrap_or(bot))),
        (Some(name), None) => host_words(name),
        (None, None) => "(open)".to_string(),
    }
}

fn names(list: &[String]) -> String {
    list.iter().map(|n| host_words(n)).collect::<Vec<_>>().join(", ")
}

/// `waiting`: the table's seats, and how many people it still waits for.
fn waiting_text(waiting: &Waiting) -> String {
    let seats: Vec<String> = waiting.seats.iter().map(|s| format!("{} {}", s.seat, seat_name(s))).collect();
    let room = host_words(&waiting.room);
    let open = waiting.open;
    if open == 0 {
        return format!("every seat at room {room} is taken: {}; the game starts\n", seats.join(", "));
    }
    let s = if open == 1 { "" } else { "s" };
    format!(
        "waiting for {open} more player{s} at room {room}: {} (the game starts when every seat is taken)\n",
        seats.join(", ")
    )
}

/// `rematch`: who asked for another game, and who is still waited for.
fn rematch_text(rematch: &Rematch) -> String {
    let asked = names(&rematch.asked);
    let waiting = names(&rematch.waiting_for);
    match (asked.is_empty(), waiting.is_empty()) {
        (_, true) => format!("{asked} asked for a rematch; everyone agrees: a new game starts\n"),
        (true, false) => format!("a rematch waits for {waiting} ('rematch' asks for one)\n"),
        (false, false) => format!("{asked} asked for a rematch; waiting for {waiting} ('rematch' asks for one)\n"),
    }
}

/// `new_game`: the table's next game, and this connection's seat in it.
fn new_game_text(new_game: &NewGame) -> String {
    let room = host_words(&new_game.room);
    let game = new_game.game;
    match new_game.seat {
        Some(seat) => format!("game {game} at room {room}: a new shuffle; you are seat {seat} now\n"),
        None => format!("game {game} at room {room}: a new shuffle\n"),
    }
}

/// The text of an `output` message; whether it tells that the game ended.
fn output_text(output: &Output, json: bool) -> (String, bool) {
    let over = output.json.iter().any(|l| matches!(l.get("event").and_then(|e| e.as_str()), Some("won" | "draw")));
    let mut text = String::new();
    if json {
        for line in &output.json {
            text += &line.to_string();
            text.push('\n');
        }
    } else {
        for line in &output.text {
            text += line;
            text.push('\n');
        }
    }
    (text, over)
}

/// What a closed connection tells the player: that `who` closed it and, where its close frame
/// says, why, with the code and the reason PROTOCOL.md lists (`1013 behind`: this client fell
/// too far behind; `1001 the server stops`). The reason is the server's text, shown as any
/// text from elsewhere is.
fn close_cause(who: &str, frame: Option<&CloseFrame>) -> String {
    match frame {
        Some(frame) if !frame.reason.is_empty() => {
            let code = u16::from(frame.code);
            format!("{who} closed the connection: {code} {}", shown(&frame.reason, NewLines::Escaped))
        }
        _ => format!("{who} closed the connection"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

    fn frame(code: u16, reason: &str) -> CloseFrame {
        CloseFrame { code: CloseCode::from(code), reason: reason.into() }
    }

    #[test]
    fn a_closed_connection_says_the_code_and_reason_the_server_gave() {
        assert_eq!(
            close_cause("the server at ws://h:1", Some(&frame(1013, "behind"))),
            "the server at ws://h:1 closed the connection: 1013 behind"
        );
        assert_eq!(close_cause("the server", None), "the server closed the connection");
        assert_eq!(close_cause("the server", Some(&frame(1000, ""))), "the server closed the connection");
    }

    #[test]
    fn a_close_reason_reaches_the_terminal_without_its_escape_sequences() {
        let said = close_cause("the server", Some(&frame(1008, "\u{1b}]0;owned\u{7}stop")));
        assert!(!said.contains('\u{1b}') && !said.contains('\u{7}'), "{said:?}");
        assert!(said.ends_with("stop"), "{said:?}");
    }
}
