//! `diving join HOST:PORT`: the host's lobby at a terminal or from a pipe (PROTOCOL.md, *The
//! lobby*), over `ws://HOST:PORT/lobby`. It says who you are ([`super::player`]: a name and
//! the key kept under XDG data), shows the open tables and the rulesets the host offers
//! (again whenever the host sends a new `lobby`), and reads the lobby's commands: `new`,
//! `sit`, `code`, `transfer`, `ratings`, `watch`, `tables`, `help`, `quit`. Taking a seat (`seated`)
//! prints the invites of a new table, then plays that seat as `diving join HOST:PORT/ROOM
//! --seat N --token T` does, its `join` carrying the player, with the same reader of the
//! input: a pipe's next lines are the game's.
//!
//! A second device: `transfer` asks the host for a one-time code that moves who you are (your
//! name and key) to another terminal or browser, and `transfer revoke` cancels it; `diving
//! join HOST:PORT --transfer CODE` redeems one ([`redeem`]) before anything else, keeping the
//! player it names in the player file (the one it replaces is kept beside it, as
//! `player.json.old`).
//!
//! With `--ruleset FILE` it brings that ruleset (the file and the mods it names: `upload`,
//! version 7) as soon as the lobby is shown; once the host offers it (`uploaded`), `new`
//! makes a table with it unless told another.
//!
//! It holds no tables and checks no rules the host does not state: a `new` is checked against
//! what the `lobby` message offers (rulesets, their seat counts, bots) so a typo is answered
//! at once, and everything else is the host's to refuse.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::bail;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc::Receiver;
use tokio_tungstenite::tungstenite::Message;

use super::player::{self, Player, new_player};
use super::{Console, Editor, Handover, Input, JoinOptions, Prompt, board};
use crate::limits::{NewLines, shown};
use crate::ruleset::Ruleset;
use crate::shell::terminal::Terminal;
use crate::wire::server::{Lobby, Offered, Seated, Transfer};
use crate::wire::{Code, LobbyMessage, PROTOCOL, ServerMessage, UploadFile};

/// The lobby's prompt at a terminal.
const PROMPT: &str = "lobby> ";
/// The prompt of the name question.
const NAME_PROMPT: &str = "your name: ";

/// The host of a target that names no room (`HOST:PORT`, `ws://HOST:PORT/`): the lobby's;
/// `None` for `HOST:PORT/ROOM`.
pub fn host_of(target: &str) -> anyhow::Result<Option<String>> {
    if target.starts_with("wss://") {
        // The room parser words it.
        super::url(target)?;
    }
    let rest = target.strip_prefix("ws://").unwrap_or(target);
    let (host, room) = rest.split_once('/').unwrap_or((rest, ""));
    if !room.is_empty() {
        return Ok(None);
    }
    if host.is_empty() {
        bail!("'{target}' is not HOST:PORT (the lobby) or HOST:PORT/ROOM (as the host's invite prints it)");
    }
    Ok(Some(host.to_string()))
}

/// The files of the ruleset `spec` names, as `upload` sends them: its TOML file and the mods
/// it loads that are not shipped (a host has those), each by its file name. The ruleset is
/// read here first, so a mistake is told at once, as `diving check` tells it.
pub fn ruleset_files(spec: &str) -> anyhow::Result<Vec<UploadFile>> {
    let ruleset = Ruleset::load(spec).map_err(|e| anyhow::anyhow!("{}", e.of_loading(spec).compiler_line()))?;
    let Some(file) = ruleset.file.as_deref().filter(|f| crate::ruleset::embedded_file(f).is_none()) else {
        bail!("'{spec}' is a shipped ruleset: every host offers it ('new {spec}' in the lobby)");
    };
    let base = |path: &str| path.rsplit(['/', '\\']).next().unwrap_or(path).to_string();
    let text = crate::limits::read_text(std::path::Path::new(file), crate::limits::FileKind::Ruleset)?;
    let mut files = vec![UploadFile { name: base(file), text }];
    for m in ruleset.mods.iter().filter(|m| crate::ruleset::embedded_file(&m.name).is_none()) {
        files.push(UploadFile { name: base(&m.name), text: m.code.to_string() });
    }
    Ok(files)
}

fn host_words(text: &str) -> String {
    shown(text, NewLines::Escaped)
}

/// What a lobby command line asks for.
#[derive(Debug, Clone, PartialEq)]
enum Asked {
    /// A message to the host.
    Send(LobbyMessage),
    /// Text to print (help, the lobby again).
    Print(String),
    Watch(String),
    Quit,
}

/// The lobby's commands (`help` prints this).
const HELP: &str = "\
commands in the lobby:
  new [RULESET] [--seats N] [--bots a,b] [--hints] [--open]
                     make a table and take seat 1 (default: the first ruleset listed, 2 seats,
                     no bots, no hints); the bots take the last seats, the others are kept
                     for the people you invite (each seat's code or link), or with --open
                     anyone in the lobby may sit there
  sit ROOM [SEAT]    take an open seat of a waiting table (the first open one without SEAT;
                     not one kept for an invite), or go back to your own seat at a table
                     (waiting, playing or over: the tables listed with 'your seat')
  code CODE          take the seat an invite code names
  transfer           a one-time code that moves who you are (name and key) to another terminal
                     ('diving join HOST:PORT --transfer CODE') or browser (its link): both are
                     you then; a new code replaces the old
  transfer revoke    cancel your transfer code
  ratings [RULESET]  the leaderboard (default: the first ruleset listed)
  watch ROOM         watch a table
  tables             show the tables and rulesets again
  help               this list
  quit               leave
once seated you play as in any game ('help' there); when it is over, 'rematch' asks for another
";

/// Reads one lobby line against the lobby last shown.
fn command(line: &str, lobby: Option<&Lobby>, host: &str) -> Result<Asked, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = words.split_first() else { return Ok(Asked::Print(String::new())) };
    let rulesets = lobby.map(|l| l.rulesets.as_slice()).unwrap_or_default();
    let first_ruleset = || rulesets.first().map(|r| r.id.clone()).ok_or("the host offers no ruleset yet");
    match first.to_lowercase().as_str() {
        "help" | "?" => Ok(Asked::Print(HELP.to_string())),
        "quit" | "q" | "exit" => Ok(Asked::Quit),
        "tables" | "lobby" | "list" => Ok(Asked::Print(lobby.map(|l| lobby_text(l, host)).unwrap_or_default())),
        "new" => new_table(rest, lobby).map(Asked::Send),
        "sit" => match rest {
            [room] => Ok(Asked::Send(LobbyMessage::Sit { room: room.to_string(), seat: None })),
            [room, seat] => match seat.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(Asked::Send(LobbyMessage::Sit { room: room.to_string(), seat: Some(n) })),
                _ => Err(format!("'{seat}' is not a seat number (1, 2, …)")),
            },
            _ => Err("sit takes a room and maybe a seat: sit ROOM [SEAT]".into()),
        },
        "transfer" => match rest {
            [] => Ok(Asked::Send(LobbyMessage::Transfer)),
            [word] if word.eq_ignore_ascii_case("revoke") => Ok(Asked::Send(LobbyMessage::Revoke)),
            _ => Err("transfer makes a code, and 'transfer revoke' cancels it".into()),
        },
        "code" => match rest {
            [code] => Ok(Asked::Send(LobbyMessage::Code { code: code.to_string() })),
            _ => Err("code takes the invite's code: code CODE".into()),
        },
        "ratings" => match rest {
            [] => Ok(Asked::Send(LobbyMessage::Ratings { ruleset: first_ruleset()? })),
            [ruleset] => Ok(Asked::Send(LobbyMessage::Ratings { ruleset: ruleset.to_string() })),
            _ => Err("ratings takes at most one ruleset: ratings [RULESET]".into()),
        },
        "watch" => match rest {
            [room] => Ok(Asked::Watch(room.to_string())),
            _ => Err("watch takes a room: watch ROOM".into()),
        },
        other => Err(format!("unknown command '{}' in the lobby (type 'help' for the list)", host_words(other))),
    }
}

/// `new [RULESET] [--seats N] [--bots a,b] [--hints]` as a `create` message, checked against
/// what the lobby offers.
fn new_table(words: &[&str], lobby: Option<&Lobby>) -> Result<LobbyMessage, String> {
    let rulesets = lobby.map(|l| l.rulesets.as_slice()).unwrap_or_default();
    let ids: Vec<&str> = rulesets.iter().map(|r| r.id.as_str()).collect();
    let (mut ruleset, mut seats, mut bots, mut hints, mut invites) = (None, None, Vec::new(), false, None);
    let mut words = words.iter();
    while let Some(&word) = words.next() {
        match word {
            "--seats" => {
                let n = words.next().ok_or("--seats needs a number: --seats N")?;
                seats = Some(n.parse::<usize>().map_err(|_| format!("--seats takes a number, not '{n}'"))?);
            }
            "--bots" => {
                let list = words.next().ok_or("--bots needs bot names: --bots greedy,random")?;
                bots = list
                    .split(',')
                    .filter(|b| !b.is_empty())
                    .map(|b| b.strip_prefix("bot:").unwrap_or(b).to_string())
                    .collect();
            }
            "--hints" => hints = true,
            "--open" => invites = Some(0),
            flag if flag.starts_with("--") => {
                return Err(format!("new takes --seats N, --bots a,b, --hints and --open, not '{}'", host_words(flag)));
            }
            name if ruleset.is_none() => ruleset = Some(name.to_string()),
            extra => return Err(format!("new takes one ruleset (found '{}' after it)", host_words(extra))),
        }
    }
    let ruleset = match ruleset {
        Some(r) if ids.contains(&r.as_str()) => r,
        Some(r) => {
            return Err(format!("the host offers no ruleset '{}' (it offers: {})", host_words(&r), ids.join(", ")));
        }
        None => ids.first().ok_or("the host offers no ruleset yet")?.to_string(),
    };
    let [min, max] = rulesets.iter().find(|r| r.id == ruleset).map_or([2, 8], |r| r.seats);
    let seats = seats.unwrap_or(min.max(2));
    if !(min..=max).contains(&seats) {
        return Err(format!("{ruleset} seats {min} to {max} players, not {seats}"));
    }
    if bots.len() >= seats {
        return Err(format!("{} bots at {seats} seats leave no seat for you", bots.len()));
    }
    let offered: Vec<&str> = lobby.map(|l| l.bots.iter().map(String::as_str).collect()).unwrap_or_default();
    if let Some(unknown) = bots.iter().find(|b| !offered.is_empty() && !offered.contains(&b.as_str())) {
        return Err(format!("the host has no bot '{}' (it has: {})", host_words(unknown), offered.join(", ")));
    }
    Ok(LobbyMessage::Create { ruleset, seats, bots, hints, invites })
}

/// A ruleset offered, as the lobby lists it: its line, its balance, what its mods read.
fn offered_text(r: &Offered) -> String {
    let (id, name) = (host_words(&r.id), host_words(&r.name));
    let mut out = format!(
        "  {id}{}, {}-{} seats: {}\n",
        if name == id { String::new() } else { format!(" ({name})") },
        r.seats[0],
        r.seats[1],
        host_words(r.about.as_deref().unwrap_or("")),
    );
    if let Some(balance) = &r.balance {
        out += &format!("    balance: {}\n", host_words(balance));
    }
    for m in &r.mods {
        let reveals = if m.reveals { "reveals cards to the table" } else { "reveals nothing" };
        out += &format!("    mod {}: reads {}; {reveals}\n", host_words(&m.name), host_words(&m.reads));
    }
    out
}

/// Puts the ruleset `id` first among those offered: the one `new` and `ratings` take when
/// none is named (the ruleset the player brought).
fn brought_first(lobby: &mut Lobby, id: &str) {
    if let Some(i) = lobby.rulesets.iter().position(|r| r.id == id) {
        let mine = lobby.rulesets.remove(i);
        lobby.rulesets.insert(0, mine);
    }
}

/// The lobby as text: who you are, the tables, the rulesets and bots offered.
fn lobby_text(lobby: &Lobby, host: &str) -> String {
    let mut out = String::new();
    if let Some(you) = &lobby.you {
        out += &format!("lobby of {host} - you are {}\n", host_words(&you.name));
    }
    if lobby.tables.is_empty() {
        out += "no tables yet: 'new' makes one\n";
    } else {
        out += "tables:\n";
    }
    for table in &lobby.tables {
        let room = host_words(&table.room);
        let seats: Vec<String> = table.seats.iter().map(|s| format!("{} {}", s.seat, super::seat_name(s))).collect();
        let (open, invited) = (table.open, table.invited);
        let state =
            serde_json::to_value(table.state).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        out += &format!(
            "  room {room}: {} game {}, {}{} - {}\n",
            host_words(&table.ruleset),
            table.game,
            state,
            match (open, invited) {
                (0, 0) => String::new(),
                (0, _) => format!(" ({invited} kept for invites)"),
                (_, 0) => format!(" ({open} open: sit {room})"),
                _ => format!(" ({open} open: sit {room}; {invited} kept for invites)"),
            },
            seats.join(", "),
        );
        if let Some(about) = table.about.as_deref().filter(|a| !a.is_empty()) {
            out += &format!("    {}\n", host_words(about));
        }
        if let Some(yours) = &table.yours {
            out += &format!("    your seat {}: back to it with 'sit {room}'\n", yours.seat);
        }
        out += &format!("    watch: diving join {host}/{room}  (or 'watch {room}')\n");
    }
    if !lobby.rulesets.is_empty() {
        out += "rulesets ('new RULESET'):\n";
    }
    for r in &lobby.rulesets {
        out += &offered_text(r);
    }
    let bots: Vec<String> = lobby.bots.iter().map(|b| host_words(b)).collect();
    if !bots.is_empty() {
        out += &format!("bots ('new --bots a,b'): {}\n", bots.join(", "));
    }
    out += "type 'help' for the lobby's commands\n";
    out
}

/// `seated`: where you sit and, for a table you made, the invites for the other seats.
fn seated_text(seated: &Seated) -> String {
    let mut out = format!(
        "you have seat {} at room {} (in a browser: {})\n",
        seated.seat,
        host_words(&seated.room),
        host_words(&seated.browser)
    );
    if !seated.invites.is_empty() {
        out += "invite the others (each seat's code, command or link is its own):\n";
    }
    for invite in &seated.invites {
        out += &format!(
            "  seat {}: 'code {}' in this lobby, or: {}\n    or in a browser: {}\n",
            invite.seat,
            host_words(&invite.code),
            host_words(&invite.join),
            host_words(&invite.browser)
        );
    }
    out
}

/// `transfer`: your code and the ways to redeem it, or that you have none.
fn transfer_text(transfer: &Transfer, name: &str) -> String {
    let Some(t) = &transfer.transfer else {
        return "you have no transfer code now: the one you made no longer works\n".to_string();
    };
    let code = host_words(&t.code);
    format!(
        "your transfer code: {code} (it works once, for the next {} minutes)\n  \
         at another terminal: {}\n  in a browser: {}\n\
         whoever redeems it is {} there too, and this terminal stays so; \
         'transfer revoke' cancels it, 'transfer' makes a new one in its place\n",
        t.expires_secs.div_ceil(60),
        host_words(&t.join),
        host_words(&t.browser),
        host_words(name),
    )
}

/// `--transfer CODE`: redeems the code at the lobby `url` (looking only until then): the
/// player it names, or the host's reason why not.
pub async fn redeem(url: &str, code: &str) -> anyhow::Result<Player> {
    let hello = LobbyMessage::Lobby { protocol: PROTOCOL, name: None, key: None };
    let (mut sink, mut stream) = super::connect(url, &hello.to_text()).await?;
    sink.send(Message::text(LobbyMessage::Redeem { code: code.to_string() }.to_text())).await?;
    while let Some(message) = stream.next().await {
        let text = match message {
            Ok(Message::Text(text)) => text,
            Ok(Message::Close(_)) => break,
            Ok(_) => continue,
            Err(e) => bail!("the connection to {url} broke: {e}"),
        };
        match ServerMessage::parse(&text).map_err(anyhow::Error::msg)? {
            ServerMessage::Identity(who) => {
                let _ = sink.send(Message::Close(None)).await;
                crate::wire::check_key(&who.key).map_err(anyhow::Error::msg)?;
                return Ok(Player { name: who.name, key: who.key });
            }
            ServerMessage::Error(refusal) => {
                bail!("the host refused the transfer code: {}", host_words(&refusal.message))
            }
            _ => {}
        }
    }
    bail!("the host at {url} closed the lobby before it answered the transfer code")
}

/// Keeps `player`, redeemed from a transfer code, at `path`; a different player kept there
/// before is moved beside it (`player.json.old`), never lost. What to tell the player.
fn keep_transferred(path: &std::path::Path, stored: Option<&Player>, player: &Player) -> anyhow::Result<String> {
    let mut said = format!("the transfer code is used: you are {} here now\n", host_words(&player.name));
    if let Some(old) = stored.filter(|old| old.key != player.key) {
        let kept = path.with_extension("json.old");
        player::save(&kept, old)?;
        said += &format!(
            "(this terminal was {}: that player's key is kept in {})\n",
            host_words(&old.name),
            kept.display()
        );
    }
    player::save(path, player)?;
    Ok(said)
}

/// The terminal's reader waits after each lobby line until the lobby lets it read the next
/// (so that it reads it under the prompt that line led to); a pipe's reader never waits.
struct Hold {
    go: std::sync::mpsc::Sender<()>,
    at_terminal: bool,
    /// The reader waits.
    held: bool,
}

impl Hold {
    /// A line came from the reader: it now waits.
    fn read(&mut self) {
        self.held = self.at_terminal;
    }

    /// The prompt is the one the next line is read under: let the reader go on.
    fn release(&mut self) {
        if std::mem::take(&mut self.held) {
            let _ = self.go.send(());
        }
    }
}

fn set_prompt(prompt: &Mutex<Prompt>, text: &str) {
    prompt.lock().unwrap_or_else(|e| e.into_inner()).lobby = Some(text.into());
}

/// What the name question came to.
enum Named {
    Name(String),
    /// `quit` (or Ctrl-D at a terminal): the player leaves. It is never taken for a name.
    Quit,
    /// The input ended.
    Ended,
}

/// Asks for a name, on the lobby's reader. The prompt is the lobby's again once the name is
/// given, and the reader waits for the lobby's answer.
async fn ask_name(
    console: &mut Console,
    prompt: &Arc<Mutex<Prompt>>,
    lines: &mut Receiver<Input>,
    hold: &mut Hold,
) -> anyhow::Result<Named> {
    set_prompt(prompt, NAME_PROMPT);
    hold.release();
    let max = crate::limits::MAX_NAME_CHARS;
    console.print(&format!(
        "what name do you go by here? (one word, at most {max} characters; kept with your player key)\n"
    ))?;
    loop {
        match lines.recv().await {
            None => return Ok(Named::Ended),
            Some(Input::Width(_)) => continue,
            Some(Input::Line(line)) => {
                hold.read();
                let name = line.trim();
                if super::is_quit(name) {
                    return Ok(Named::Quit);
                }
                if name.is_empty() {
                    console.print("a name, please (or 'quit' to leave)\n")?;
                    hold.release();
                    continue;
                }
                set_prompt(prompt, PROMPT);
                return Ok(Named::Name(name.to_string()));
            }
        }
    }
}

/// Runs the lobby of `host` until the player leaves it, or takes a seat (then plays it) or
/// watches a table.
pub(super) async fn run(options: &JoinOptions, host: &str, at_terminal: bool) -> anyhow::Result<ExitCode> {
    let url = format!("ws://{host}/lobby");
    let path = player::path()?;
    let stored = player::load(&path)?;

    // One reader of the input for the lobby and the seat it leads to.
    let (tx, mut lines) = tokio::sync::mpsc::channel::<Input>(16);
    let prompt = Arc::new(Mutex::new(Prompt { lobby: Some(PROMPT.into()), ..Prompt::game(None) }));
    let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut console = Console::Stdout;
    let mut words = None;
    if options.name.is_none() && options.transfer.is_none() && stored.is_none() {
        set_prompt(&prompt, NAME_PROMPT);
    }
    let (go, go_rx) = std::sync::mpsc::channel();
    let mut hold = Hold { go: go.clone(), at_terminal, held: false };
    if at_terminal {
        let mut term = Terminal::in_memory();
        if let Some(printer) = term.printer() {
            console = Console::Editor(printer);
        }
        words = Some(term.words());
        super::read_terminal(term, tx, prompt.clone(), closed.clone(), Some(go_rx));
    } else {
        super::read_pipe(tx);
    }

    let transferred = match &options.transfer {
        Some(code) => {
            let player = redeem(&url, code).await?;
            console.print(&keep_transferred(&path, stored.as_ref(), &player)?)?;
            Some(player)
        }
        None => None,
    };
    let stored = transferred.or(stored);
    let mut me = match (&options.name, &stored) {
        (Some(name), Some(p)) => Player { name: name.clone(), key: p.key.clone() },
        (Some(name), None) => new_player(name)?,
        (None, Some(p)) => p.clone(),
        (None, None) => match ask_name(&mut console, &prompt, &mut lines, &mut hold).await? {
            Named::Name(name) => new_player(&name)?,
            Named::Quit => return Ok(ExitCode::SUCCESS),
            Named::Ended => {
                bail!("the input ended before a name was given (diving join HOST:PORT --name NAME gives one)")
            }
        },
    };
    let mut saved = stored;
    // The ruleset to bring (`--ruleset FILE`), sent once the lobby is shown; then its id.
    let mut upload = options.upload.clone();
    let mut uploading = false;
    let mut brought: Option<String> = None;

    loop {
        let hello = LobbyMessage::Lobby { protocol: PROTOCOL, name: Some(me.name.clone()), key: Some(me.key.clone()) };
        let (mut sink, mut stream) = super::connect(&url, &hello.to_text()).await?;
        let mut lobby: Option<Lobby> = None;
        // A line waits for the lobby, and for the answer to the message the line before sent
        // (seated, ratings or an error): a pipe's lines are answered in their order, and a
        // line meant for the seat a `new` takes is not read as a lobby command.
        let mut answered = true;
        let renamed = 'connection: loop {
            tokio::select! {
                message = stream.next() => {
                    let text = match message {
                        Some(Ok(Message::Text(text))) => text,
                        Some(Ok(Message::Close(_))) | None => bail!("the host at {host} closed the lobby"),
                        Some(Ok(_)) => continue,
                        Some(Err(e)) => bail!("the connection to {url} broke: {e}"),
                    };
                    let message = ServerMessage::parse(&text).map_err(anyhow::Error::msg)?;
                    if options.json && message.code().is_none() {
                        console.print(&format!("{text}\n"))?;
                    }
                    match message {
                        ServerMessage::Lobby(listing) => {
                            if listing.protocol != PROTOCOL {
                                bail!("the host speaks protocol {}, this diving speaks {PROTOCOL}: use the same version of diving", listing.protocol);
                            }
                            // The host took the name: it is kept, with the key, for next time.
                            if listing.you.is_some() && saved.as_ref() != Some(&me) {
                                player::save(&path, &me)?;
                                saved = Some(me.clone());
                            }
                            if !options.json {
                                console.print(&lobby_text(&listing, host))?;
                            }
                            let mut listing = listing;
                            if let Some(id) = &brought {
                                brought_first(&mut listing, id);
                            }
                            lobby = Some(listing);
                            if let Some(files) = upload.take() {
                                if !options.json {
                                    console.print("bringing your ruleset: the host checks it first…\n")?;
                                }
                                sink.send(Message::text(LobbyMessage::Upload { files }.to_text())).await?;
                                uploading = true;
                                answered = false;
                            }
                            if answered {
                                hold.release();
                            }
                        }
                        ServerMessage::Uploaded(uploaded) => {
                            answered = true;
                            uploading = false;
                            hold.release();
                            let id = uploaded.ruleset.id.clone();
                            if !options.json {
                                let had = if uploaded.known { " (it had it already)" } else { "" };
                                console.print(&format!(
                                    "the host offers your ruleset as {}{had}: 'new' makes a table with it\n{}",
                                    host_words(&id),
                                    offered_text(&uploaded.ruleset)
                                ))?;
                            }
                            if let Some(listing) = lobby.as_mut() {
                                // Offered before the next `lobby` lists it.
                                if !listing.rulesets.iter().any(|r| r.id == id) {
                                    listing.rulesets.push(uploaded.ruleset.clone());
                                }
                                brought_first(listing, &id);
                            }
                            brought = Some(id);
                        }
                        ServerMessage::Transfer(transfer) => {
                            answered = true;
                            hold.release();
                            if !options.json {
                                console.print(&transfer_text(&transfer, &me.name))?;
                            }
                        }
                        ServerMessage::Ratings(ratings) => {
                            answered = true;
                            hold.release();
                            if !options.json {
                                console.print(&board::text(&ratings))?;
                            }
                        }
                        ServerMessage::Seated(seated) => {
                            if !options.json {
                                console.print(&seated_text(&seated))?;
                            }
                            let _ = sink.send(Message::Close(None)).await;
                            let seat = JoinOptions {
                                target: format!("{host}/{}", seated.room),
                                seat: Some(seated.seat),
                                token: Some(seated.token),
                                ruleset: None,
                                name: None,
                                ..options.clone()
                            };
                            let editor = words.map(|words| Editor { console, words, prompt, closed, go: go.clone() });
                            let handover = Handover { lines, terminal: editor, player: Some(me) };
                            return super::run(&seat, at_terminal, Some(handover)).await;
                        }
                        ServerMessage::Error(refusal) => {
                            answered = true;
                            if std::mem::take(&mut uploading) {
                                bail!("the host refused your ruleset: {}", host_words(&refusal.message));
                            }
                            let message = host_words(&refusal.message);
                            if refusal.code == Code::Name {
                                if options.name.is_some() {
                                    bail!("{message}");
                                }
                                console.print(&format!("{message}\n"))?;
                                break 'connection true;
                            }
                            // Before the lobby no line is read: a refused hello (`limit`: too
                            // many new players from this address) left the prompt deaf.
                            if lobby.is_none()
                                || matches!(refusal.code, Code::Protocol | Code::Timeout | Code::Dropped | Code::Replaced)
                            {
                                bail!("{message}");
                            }
                            hold.release();
                            if options.json {
                                console.print(&format!("{text}\n"))?;
                            } else {
                                console.print(&format!("error: {message}\n"))?;
                            }
                        }
                        _ => {}
                    }
                }
                line = lines.recv(), if lobby.is_some() && answered => {
                    let line = match line {
                        Some(Input::Line(line)) => line,
                        Some(Input::Width(_)) => continue,
                        None => break 'connection false,
                    };
                    hold.read();
                    match command(&line, lobby.as_ref(), host) {
                        Ok(Asked::Send(message)) => {
                            sink.send(Message::text(message.to_text())).await?;
                            answered = false;
                        }
                        Ok(Asked::Print(text)) => {
                            console.print(&text)?;
                            hold.release();
                        }
                        Ok(Asked::Quit) => break 'connection false,
                        Ok(Asked::Watch(room)) => {
                            let _ = sink.send(Message::Close(None)).await;
                            let watch = JoinOptions { target: format!("{host}/{room}"), seat: None, token: None, name: None, ..options.clone() };
                            let editor = words.map(|words| Editor { console, words, prompt, closed, go: go.clone() });
                            let handover = Handover { lines, terminal: editor, player: None };
                            return super::run(&watch, at_terminal, Some(handover)).await;
                        }
                        Err(message) => {
                            console.print(&format!("error: {message}\n"))?;
                            hold.release();
                        }
                    }
                }
            }
        };
        let _ = sink.send(Message::Close(None)).await;
        if !renamed {
            closed.store(true, std::sync::atomic::Ordering::SeqCst);
            return Ok(ExitCode::SUCCESS);
        }
        match ask_name(&mut console, &prompt, &mut lines, &mut hold).await? {
            Named::Name(name) => me.name = name,
            Named::Quit | Named::Ended => return Ok(ExitCode::SUCCESS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn lobby() -> Lobby {
        serde_json::from_value(json!({
            "type": "lobby", "protocol": 5, "you": {"name": "ann"},
            "rulesets": [
                {"id": "standard", "name": "Standard", "about": "The rules as decided.", "balance": null, "seats": [2, 8]},
                {"id": "duel", "name": "Duel", "about": "Two divers.", "balance": "seat 1 wins 51%", "seats": [2, 2]},
            ],
            "bots": ["random", "greedy", "mcts"],
            "tables": [{"room": "3", "ruleset": "standard", "about": "The rules as decided.", "game": 1, "state": "waiting",
                        "seats": [{"seat": 1, "player": "bob", "bot": null}, {"seat": 2, "player": null, "bot": null},
                                  {"seat": 3, "player": null, "bot": "greedy"}],
                        "open": 1, "watch": "/3"}],
            "more_tables": 0,
            "limits": {"tables_per_connection": 3, "tables": 2000, "idle_secs": 600, "abandoned_secs": 3600,
                       "max_message": 4096, "per_second": 20, "burst": 40},
        }))
        .unwrap()
    }

    /// The message a line sends, as it goes over the wire.
    fn sent(asked: Asked) -> Value {
        match asked {
            Asked::Send(message) => serde_json::to_value(message).unwrap(),
            other => panic!("{other:?} sends nothing"),
        }
    }

    #[test]
    fn hosts_without_a_room_are_the_lobbys() {
        assert_eq!(host_of("127.0.0.1:7878").unwrap().as_deref(), Some("127.0.0.1:7878"));
        assert_eq!(host_of("ws://127.0.0.1:7878/").unwrap().as_deref(), Some("127.0.0.1:7878"));
        assert_eq!(host_of("127.0.0.1:7878/4").unwrap(), None);
        assert!(host_of("/").is_err());
        assert!(host_of("wss://example.com").is_err());
    }

    #[test]
    fn new_is_a_create_checked_against_the_lobby() {
        let l = lobby();
        let create = |line: &str| command(line, Some(&l), "h:1");
        assert_eq!(
            sent(create("new").unwrap()),
            json!({"type": "create", "ruleset": "standard", "seats": 2, "bots": [], "hints": false})
        );
        assert_eq!(
            sent(create("new standard --seats 3 --bots bot:greedy,random --hints").unwrap()),
            json!({"type": "create", "ruleset": "standard", "seats": 3, "bots": ["greedy", "random"], "hints": true})
        );
        assert_eq!(
            create("new sharks").unwrap_err(),
            "the host offers no ruleset 'sharks' (it offers: standard, duel)"
        );
        assert_eq!(create("new duel --seats 3").unwrap_err(), "duel seats 2 to 2 players, not 3");
        assert_eq!(
            create("new --seats 2 --bots greedy,greedy").unwrap_err(),
            "2 bots at 2 seats leave no seat for you"
        );
        assert_eq!(
            create("new --bots shark").unwrap_err(),
            "the host has no bot 'shark' (it has: random, greedy, mcts)"
        );
        assert_eq!(create("new --seats two").unwrap_err(), "--seats takes a number, not 'two'");
        assert_eq!(
            create("new --colour").unwrap_err(),
            "new takes --seats N, --bots a,b, --hints and --open, not '--colour'"
        );
        assert_eq!(sent(create("new --open").unwrap())["invites"], 0, "an open table keeps no seat for invites");
    }

    #[test]
    fn the_other_commands_are_their_messages() {
        let l = lobby();
        let c = |line: &str| command(line, Some(&l), "h:1");
        assert_eq!(sent(c("sit 3").unwrap()), json!({"type": "sit", "room": "3"}));
        assert_eq!(sent(c("SIT 3 2").unwrap()), json!({"type": "sit", "room": "3", "seat": 2}));
        assert_eq!(c("sit 3 x").unwrap_err(), "'x' is not a seat number (1, 2, …)");
        assert_eq!(sent(c("code ab12").unwrap()), json!({"type": "code", "code": "ab12"}));
        assert_eq!(sent(c("ratings").unwrap()), json!({"type": "ratings", "ruleset": "standard"}));
        assert_eq!(sent(c("ratings duel").unwrap()), json!({"type": "ratings", "ruleset": "duel"}));
        assert_eq!(c("watch 3").unwrap(), Asked::Watch("3".into()));
        assert_eq!(c("quit").unwrap(), Asked::Quit);
        assert!(matches!(c("help").unwrap(), Asked::Print(text) if text.contains("sit ROOM [SEAT]")));
        assert_eq!(c("dance").unwrap_err(), "unknown command 'dance' in the lobby (type 'help' for the list)");
    }

    #[test]
    fn the_lobby_shows_its_tables_rulesets_and_bots() {
        let text = lobby_text(&lobby(), "127.0.0.1:7878");
        let expected = "\
lobby of 127.0.0.1:7878 - you are ann
tables:
  room 3: standard game 1, waiting (1 open: sit 3) - 1 bob, 2 (open), 3 bot:greedy
    The rules as decided.
    watch: diving join 127.0.0.1:7878/3  (or 'watch 3')
rulesets ('new RULESET'):
  standard (Standard), 2-8 seats: The rules as decided.
  duel (Duel), 2-2 seats: Two divers.
    balance: seat 1 wins 51%
bots ('new --bots a,b'): random, greedy, mcts
type 'help' for the lobby's commands
";
        assert_eq!(text, expected);
    }

    /// A table you sit at is listed with your seat, and `sit ROOM` is the way back to it.
    #[test]
    fn your_table_says_your_seat_and_the_way_back() {
        let mut l = lobby();
        l.tables[0].state = crate::wire::server::TableState::Playing;
        l.tables[0].yours =
            Some(crate::wire::server::YourSeat { seat: 1, token: "t0k".into(), path: "/3#seat=1&token=t0k".into() });
        let text = lobby_text(&l, "h:1");
        assert!(text.contains("  room 3: standard game 1, playing"), "{text}");
        assert!(text.contains("    your seat 1: back to it with 'sit 3'\n"), "{text}");
        assert!(!text.contains("t0k"), "the token is not printed: {text}");
        let c = |line: &str| command(line, Some(&l), "h:1");
        assert_eq!(sent(c("sit 3").unwrap()), json!({"type": "sit", "room": "3"}));
    }
}
