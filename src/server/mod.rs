//! The game server (`diving host`): play with friends elsewhere (its terminal client,
//! `diving join`, is [`crate::join`]). The server is the only authority: games, rulesets and
//! mods run only here, and each connection receives what its seat (or a spectator) may see,
//! made by the core's [`Viewer`](crate::core::Viewer) through the table's JSON layer and
//! narrator, with its view after every change; a client sends the moves its view lists, or
//! lines of the game shell.
//!
//! Code map (the messages, versions and limits are the wire's, [`crate::wire`], documented
//! in `PROTOCOL.md`). The state machines, without I/O: [`room`] one game (seats, tokens,
//! watchers, questions, away bots, chat, a lobby table's wait for its seats, rematch);
//! [`lobby`] the lobby (what it offers and lists, invite codes, every decision about a
//! visitor's message); [`view`] a reader's view. The edge: [`net`] the routes and the
//! [`net::Server`]; `connection` one loop for every connection and its limits; `link` its
//! writer; `hub` what the connections share; `keeper` the thread that commits each change
//! before its messages leave; [`guard`] the listener (the connection limit and the request
//! deadline, at the door); [`db`] the host's SQLite database (players, tables, moves,
//! results, ratings, and the lock on the games directory); [`export_path`] where a finished
//! game's save goes; [`import`] an older host's directory,
//! taken into the database once; [`web`] the browser page. This module turns the host's
//! options into rooms (new, or resumed from the database: [`resume`]) and prints the invites.
//!
//! Nothing but the command line depends on this module (`join` shares only the wire with
//! it), and it imports nothing from the shell: rooms are tables ([`crate::table`]) with
//! connections (checked by `tests/engine/architecture.rs`).

mod connection;
pub mod db;
pub mod fair;
pub mod guard;
mod hub;
pub mod import;
mod keeper;
mod link;
pub mod lobby;
pub mod net;
pub mod room;
pub mod upload;
pub mod view;
pub mod web;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::bots;
use crate::table::seating::{self, read_deck};
use crate::table::session::Session;
use crate::wire::HostLimits;
pub use hub::export_path;
use net::{Server, ServerConfig};
use room::{Room, RoomOptions, new_token};

/// How long `diving host` goes on serving once every game is over and everyone has left, for
/// a player who reloads the page or joins again to see the result and the log (named in
/// `docs/network.md`).
pub const FINISHED_STAY: Duration = Duration::from_secs(600);

/// What `diving host` was asked, as plain values.
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    pub ruleset: Option<String>,
    /// Every `--ruleset` given: the lobby offers them besides the shipped ones.
    pub rulesets: Vec<String>,
    /// Seats as `play --players` gives them (names, `bot:SPEC`).
    pub players: Option<Vec<String>>,
    /// Or: this many seats, the last ones played by `bots`.
    pub seats: Option<usize>,
    pub bots: Vec<String>,
    pub seed: Option<u64>,
    pub deck: Option<String>,
    /// How many games to hold (each with the same options; room `i` uses seed + i).
    pub rooms: usize,
    pub bind: String,
    pub port: u16,
    /// Where every game is saved.
    pub dir: PathBuf,
    /// Bring back the games saved in this directory.
    pub resume: Option<PathBuf>,
    /// `bot:SPEC`: plays for a seat that is away for `away_after`.
    pub away: Option<String>,
    pub away_after: Duration,
    /// Let seats ask for `hint` and `review` (off by default).
    pub allow_hints: bool,
    /// Origins whose pages may open connections besides the host's own (`*`: any).
    pub allow_origins: Vec<String>,
    /// The lobby takes rulesets its players bring (`--no-uploads` turns it off).
    pub uploads: bool,
    /// What connections, rooms and the lobby hold to (`--limit NAME=N` changes one).
    pub limits: HostLimits,
    /// Print the invites (and the last line) as JSON Lines.
    pub json: bool,
}

/// The seats of a hosted game: `--players`, or `--seats N` with `--bots` in the last seats.
pub fn seat_list(players: Option<&[String]>, seats: Option<usize>, bots: &[String]) -> anyhow::Result<Vec<String>> {
    match (players, seats) {
        (Some(_), Some(_)) => bail!("give either --players or --seats (with --bots), not both"),
        (Some(_), None) if !bots.is_empty() => bail!("--bots goes with --seats; in --players write bot:NAME"),
        (Some(list), None) => Ok(list.to_vec()),
        (None, seats) => {
            let seats = seats.unwrap_or(bots.len() + 2);
            if bots.len() >= seats {
                bail!("--seats {seats} with {} bots leaves no seat for a person", bots.len());
            }
            let people = seats - bots.len();
            let mut list: Vec<String> = (1..=people).map(|i| format!("player{i}")).collect();
            list.extend(bots.iter().map(|b| format!("bot:{}", b.strip_prefix("bot:").unwrap_or(b))));
            Ok(list)
        }
    }
}

/// The host's limits, the defaults changed by `--limit NAME=N` (each given: `waiting_per_address=20`).
pub fn host_limits(given: &[String]) -> anyhow::Result<HostLimits> {
    let mut limits = HostLimits::default();
    for item in given {
        let shown = crate::limits::quoted(item);
        let Some((name, value)) = item.split_once('=') else {
            bail!("--limit takes NAME=N (like waiting_per_address=20), not '{shown}'");
        };
        let value: u64 =
            value.trim().parse().map_err(|_| anyhow::anyhow!("--limit '{shown}': the value is not a whole number"))?;
        limits
            .set(name.trim(), value)
            .map_err(|e| anyhow::anyhow!("--limit: {}", crate::limits::shown(&e, crate::limits::NewLines::Escaped)))?;
    }
    limits.check().map_err(|e| anyhow::anyhow!("--limit: {e}"))?;
    Ok(limits)
}

/// Parses `60s`, `2m`, `1h` or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let n: u64 = number.parse().map_err(|_| format!("'{text}' is not a duration (like 60s, 2m or 1h)"))?;
    let secs = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(format!("'{text}' is not a duration (like 60s, 2m or 1h)")),
    };
    Ok(Duration::from_secs(secs))
}

/// `diving host`: makes (or resumes) the rooms, prints the invites, serves until every game
/// is over and every player has left (and [`FINISHED_STAY`] has passed without one coming
/// back).
pub fn host(options: &HostOptions) -> anyhow::Result<ExitCode> {
    let away_bot = match &options.away {
        None => None,
        Some(spec) => {
            let Some(bot) = spec.strip_prefix("bot:") else {
                bail!("--away takes bot:NAME (like bot:greedy), not '{spec}'");
            };
            bots::from_spec(bot, 0).map_err(|e| anyhow::anyhow!("--away: {e}"))?;
            Some(bot.to_string())
        }
    };
    let room_options = RoomOptions {
        away_bot,
        away_after: options.away_after,
        limits: options.limits,
        allow_hints: options.allow_hints,
    };
    // Held until the host ends: no other host may run the same games meanwhile.
    let lock;
    let (dir, db, rooms, lobby) = match &options.resume {
        Some(dir) => {
            if options.players.is_some() || options.seats.is_some() || options.seed.is_some() || options.deck.is_some()
            {
                bail!(
                    "--resume brings back the saved games as they were: it cannot be combined with --players, --seats, --seed or --deck"
                );
            }
            if !dir.is_dir() {
                bail!("there is no games directory {} to resume", dir.display());
            }
            lock = db::lock(dir)?;
            let (db, rooms) = resume(dir, &room_options)?;
            // A host of the lobby resumes as one; a host of start-up tables stops, as it did,
            // once their games are over.
            let lobby = rooms.is_empty() || rooms.iter().any(Room::is_lobby);
            (dir.clone(), db, rooms, lobby)
        }
        None => {
            let lobby = options.players.is_none() && options.seats.is_none() && options.bots.is_empty();
            // These shape the tables made at start-up; a lobby's tables are made by its
            // players (and shuffled by the host), so they would be dropped without a word.
            let for_start_up: Vec<&str> = [
                ("--seed", options.seed.is_some()),
                ("--deck", options.deck.is_some()),
                ("--rooms", options.rooms > 1),
            ]
            .into_iter()
            .filter_map(|(flag, set)| set.then_some(flag))
            .collect();
            if lobby && !for_start_up.is_empty() {
                bail!(
                    "{} set up the tables made at start-up: give --players or --seats too (with no seats given, \
                     `diving host` serves a lobby, whose tables its players make and the host shuffles)",
                    for_start_up.join(", ")
                );
            }
            std::fs::create_dir_all(&options.dir)
                .with_context(|| format!("cannot make the games directory {}", options.dir.display()))?;
            lock = db::lock(&options.dir)?;
            let db = db::Db::open(&options.dir)?;
            let rooms = if lobby { Vec::new() } else { new_rooms(options, &room_options, &db)? };
            (options.dir.clone(), db, rooms, lobby)
        }
    };
    let offers = if lobby {
        let mut offered = offers(&options.rulesets, Some(&dir))?;
        // What the mods of each read and reveal, as the lobby says it (their smoke games).
        upload::note_secrets(&mut offered);
        Some(offered)
    } else {
        None
    };
    let runtime = net::runtime()?;
    let stopped_by_signal = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind((options.bind.as_str(), options.port))
            .await
            .with_context(|| format!("cannot listen on {}:{}", options.bind, options.port))?;
        let config = ServerConfig {
            dir: Some(dir.clone()),
            limits: options.limits,
            stop_when_done: !lobby,
            stay: FINISHED_STAY,
            allow_origins: options.allow_origins.clone(),
            tick: Some(Duration::from_secs(1)),
            lobby: offers,
            room: room_options,
            uploads: options.uploads,
            console: true,
        };
        let server = Server::start_with(listener, rooms, config, db)?;
        // Ctrl-C or SIGTERM stops the host as the end of every game does: connections
        // closed, every game in its save, the journal removed.
        let signal = stop_signals();
        print_invites(&server, &server.room_ids(), &dir, lobby, options.json)?;
        let stopper = server.stopper();
        // Set before the stop it causes, so it is set by the time the server has stopped.
        let signalled = Arc::new(AtomicBool::new(false));
        let noted = signalled.clone();
        let signals = tokio::spawn(async move {
            signal.await;
            noted.store(true, Ordering::SeqCst);
            stopper.stop();
        });
        server.wait().await?;
        signals.abort();
        anyhow::Ok(signalled.load(Ordering::SeqCst))
    })?;
    let how = if stopped_by_signal {
        format!(
            "stopped: every game is saved in {0}; diving host --resume {0} brings them back with the same invites",
            dir.display()
        )
    } else {
        format!(
            "every game is over and everyone has left (no one came back for {} minutes); the games are in {}",
            FINISHED_STAY.as_secs() / 60,
            dir.display()
        )
    };
    if options.json {
        let done = if stopped_by_signal { "signal" } else { "done" };
        writeln!(std::io::stdout(), "{}", serde_json::json!({ "stopped": done, "dir": dir.display().to_string() }))?;
    } else {
        writeln!(std::io::stdout(), "{how}")?;
    }
    drop(lock);
    Ok(ExitCode::SUCCESS)
}

/// The rulesets offered: the shipped ones and `extra` (the host's `--ruleset` files), each
/// loaded once to check it. An `extra` that does not load is an error.
pub fn offers(extra: &[String], dir: Option<&std::path::Path>) -> anyhow::Result<Vec<lobby::HostedRuleset>> {
    let mut specs: Vec<String> = crate::ruleset::shipped_names().map(String::from).collect();
    for spec in extra {
        if !specs.contains(spec) {
            specs.push(spec.clone());
        }
    }
    let mut offers: Vec<lobby::HostedRuleset> = Vec::new();
    for spec in specs {
        let loaded =
            crate::ruleset::Ruleset::load(&spec).map_err(|e| anyhow::anyhow!("cannot load ruleset '{spec}': {e}"))?;
        let id = crate::wire::RulesetId::of(&loaded).name;
        if offers.iter().any(|o| o.id == id) {
            anyhow::bail!("two rulesets offered are both named '{id}': rename one of the files");
        }
        let balance = dir
            .map(|d| d.join("balance").join(format!("{id}.txt")))
            .and_then(|path| std::fs::read_to_string(path).ok())
            .and_then(|text| {
                text.lines().map(str::trim).find(|l| !l.is_empty()).map(|l| l.chars().take(200).collect())
            });
        let seats = (loaded.rules.min_players.max(2), loaded.rules.max_players.min(lobby::MAX_SEATS));
        let title = loaded.title.clone().unwrap_or_else(|| id.clone());
        offers.push(lobby::HostedRuleset {
            id,
            spec,
            title,
            about: loaded.description.clone(),
            balance,
            seats,
            hash: None,
            mods: Vec::new(),
        });
    }
    Ok(offers)
}

/// Listens for Ctrl-C (SIGINT) and SIGTERM from now on: the future ends at the first of them
/// (never, for one that cannot be listened for). Made before the invites are printed, so a
/// signal sent once they are seen is not missed.
#[cfg(unix)]
fn stop_signals() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt()).ok();
    let terminate = signal(SignalKind::terminate()).ok();
    let wait = |listener: Option<Signal>| async move {
        match listener {
            Some(mut listener) => {
                listener.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    async move {
        tokio::select! {
            () = wait(interrupt) => {}
            () = wait(terminate) => {}
        }
    }
}

/// [`stop_signals`] where there are no Unix signals: Ctrl-C only.
#[cfg(not(unix))]
fn stop_signals() -> impl std::future::Future<Output = ()> {
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// The tables made at start-up (`--players`, `--seats`, `--rooms`); [`Server::start_with`]
/// writes them into the database.
fn new_rooms(options: &HostOptions, room_options: &RoomOptions, db: &db::Db) -> anyhow::Result<Vec<Room>> {
    let list = seat_list(options.players.as_deref(), options.seats, &options.bots)?;
    let seating = seating::seating(Some(&list))?;
    if seating.iter().all(|s| s.bot.is_some()) {
        bail!("every seat is a bot: host a game with at least one person (or use diving sim)");
    }
    let spec = options.ruleset.as_deref().unwrap_or("standard");
    let deck = options.deck.as_deref().map(read_deck).transpose()?;
    // 52 bits, like `play`; from the OS, never shown to a client.
    let base = options.seed.unwrap_or_else(|| rand::random::<u64>() >> 12);
    let held = db.rooms()?;
    let mut rooms = Vec::new();
    for i in 0..options.rooms.max(1) {
        let id = (i + 1).to_string();
        if held.contains(&id) || export_path(&options.dir, &id, 1).exists() {
            bail!(
                "{} already holds a game of room {id}: resume it with --resume {0}, or host in another --dir",
                options.dir.display()
            );
        }
        let session = Session::new(spec, seating.clone(), base.wrapping_add(i as u64), deck.clone())
            .map_err(anyhow::Error::msg)?;
        let tokens: Vec<Option<String>> = seating.iter().map(|s| s.bot.is_none().then(new_token)).collect();
        rooms.push(Room::new(&id, session, tokens, room_options.clone()));
    }
    Ok(rooms)
}

/// The tables to resume from `dir`: those of its database, each game replayed from its setup
/// and every move checked against its recorded step. A directory an older `diving host` kept
/// (saves, seat files and a journal, no table in the database) is first taken into the
/// database ([`import`]), once: its files stay as they are, and are not read again.
pub fn resume(dir: &std::path::Path, room_options: &RoomOptions) -> anyhow::Result<(db::Db, Vec<Room>)> {
    let mut db = db::Db::open(dir)?;
    // The rulesets players brought, before the tables that play them are replayed.
    upload::restore(&db)?;
    if db.rooms()?.is_empty() {
        if !import::holds_old_games(dir) {
            bail!("no saved games in {} (it has no ROOM.seats.json, and {} holds no table)", dir.display(), db::FILE);
        }
        for note in import::import(dir, &mut db)? {
            eprintln!("diving host: {note}");
        }
        eprintln!(
            "diving host: the games of an older diving host in {} are taken into {} (their files stay as they are)",
            dir.display(),
            dir.join(db::FILE).display()
        );
    }
    // Every table closed: a lobby with nothing to bring back.
    let stored = db.tables()?;
    let mut rooms = Vec::new();
    for table in stored {
        let mut options = room_options.clone();
        options.allow_hints = table.hints;
        let tokens: Vec<Option<String>> = table.seats.iter().map(|s| s.token.clone()).collect();
        let players: Vec<Option<db::PlayerId>> = table.seats.iter().map(|s| s.player).collect();
        let at = format!("{} room {} game {}", dir.join(db::FILE).display(), table.room, table.game);
        let room = match table.current {
            Some((setup, moves)) => {
                let session = replay(&at, setup, &moves)?;
                Room::new(&table.room, session, tokens, options).resumed(
                    table.game,
                    None,
                    players,
                    table.lobby,
                    Instant::now(),
                )
            }
            None => {
                let plan: Vec<room::Plan> = table
                    .seats
                    .iter()
                    .zip(&table.names)
                    .map(|(seat, name)| match (&seat.bot, seat.player, name) {
                        (Some(spec), player, _) => room::Plan::Bot { spec: spec.clone(), player },
                        (None, Some(player), Some(name)) => room::Plan::Taken { name: name.clone(), player },
                        _ => room::Plan::Open,
                    })
                    .collect();
                let seed = rand::random::<u64>() >> 12;
                let (room, _) =
                    Room::waiting(&table.room, &table.spec, &plan, seed, options, std::time::Instant::now())
                        .map_err(|e| anyhow::anyhow!("{at}: cannot seat the table again: {e}"))?;
                room.with_tokens(tokens)
            }
        };
        rooms.push(room);
    }
    Ok((db, rooms))
}

/// A game from its setup and its moves, each checked to replay as recorded.
fn replay(
    at: &str,
    setup: crate::table::save::SaveFile,
    moves: &[(String, crate::table::save::ActionJson)],
) -> anyhow::Result<Session> {
    let mut session = Session::from_save(setup, std::path::Path::new(at), None)?;
    for (step, action) in moves {
        let number = session.entries().len() + 1;
        let action = crate::core::Action::from(action.clone());
        let text = crate::table::render::command_for(session.game(), &action);
        if let Err(e) = session.apply(action) {
            let reason = crate::table::render::action_error(session.game(), &e, crate::core::Viewer::Everyone);
            bail!("{at}: move {number} ('{text}') cannot be replayed: {reason}");
        }
        if !session.replays(number - 1, step) {
            bail!("{at}: move {number} ('{text}') does not replay as recorded (step {step})");
        }
    }
    Ok(session)
}

/// The invites as JSON Lines (`diving host --json`): one `listening` object, then one per room.
fn print_json_invites(server: &Server, ids: &[String], dir: &std::path::Path, lobby: bool) -> anyhow::Result<()> {
    use serde_json::json;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let addr = server.addr;
    let listening = json!({ "listening": {
        "ws": format!("ws://{addr}"), "browser": format!("http://{addr}/"), "dir": dir.display().to_string(),
        "every_interface": addr.ip().is_unspecified(),
        "lobby": lobby.then(|| format!("http://{addr}/")),
    }});
    writeln!(out, "{listening}")?;
    for id in ids {
        server
            .with_room(id, |room| -> std::io::Result<()> {
                let game = room.session().game();
                let seats: Vec<serde_json::Value> = room
                    .tokens()
                    .iter()
                    .enumerate()
                    .filter_map(|(seat, token)| {
                        let token = token.as_ref()?;
                        Some(json!({
                            "seat": seat + 1, "player": game.name(seat), "token": token,
                            "join": format!("diving join {addr}/{id} --seat {} --token {token}", seat + 1),
                            "browser": format!("http://{addr}/{id}#seat={}&token={token}", seat + 1),
                        }))
                    })
                    .collect();
                let line = json!({ "room": {
                    "id": id, "players": game.names(), "ruleset": room.ruleset().name, "seats": seats,
                    "watch": format!("diving join {addr}/{id}"), "watch_browser": format!("http://{addr}/{id}"),
                }});
                writeln!(out, "{line}")
            })
            .transpose()?;
    }
    out.flush()?;
    Ok(())
}

fn print_invites(
    server: &Server,
    ids: &[String],
    dir: &std::path::Path,
    lobby: bool,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        return print_json_invites(server, ids, dir, lobby);
    }
    // Buffered: a thousand rooms' lines written one by one took a write each.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let addr = server.addr;
    writeln!(
        out,
        "diving host: listening on ws://{addr} (browser seat: http://{addr}/); games saved in {}",
        dir.display()
    )?;
    if addr.ip().is_unspecified() {
        writeln!(out, "(bound to every interface: give friends this machine's address instead of {})", addr.ip())?;
    }
    if lobby {
        writeln!(
            out,
            "lobby: http://{addr}/ in a browser (or diving join {addr} at a terminal): make a table there, and send friends its invite links"
        )?;
    }
    for id in ids {
        server
            .with_room(id, |room| -> std::io::Result<()> {
                let game = room.session().game();
                writeln!(out, "room {id} ({}, ruleset {}):", game.names().join(", "), room.ruleset().name)?;
                for (seat, token) in room.tokens().iter().enumerate() {
                    if let Some(token) = token {
                        writeln!(
                            out,
                            "  {}: diving join {addr}/{id} --seat {} --token {token}",
                            game.name(seat),
                            seat + 1
                        )?;
                        writeln!(out, "    or in a browser: http://{addr}/{id}#seat={}&token={token}", seat + 1)?;
                    }
                }
                writeln!(out, "  watch: diving join {addr}/{id}  (or http://{addr}/{id} in a browser)")
            })
            .transpose()?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_and_bots_make_the_player_list() {
        let list = seat_list(None, Some(3), &["greedy".into()]).unwrap();
        assert_eq!(list, ["player1", "player2", "bot:greedy"]);
        assert!(seat_list(None, Some(1), &["greedy".into()]).is_err());
        assert!(seat_list(Some(&["a".into()]), Some(2), &[]).is_err());
    }

    /// `--limit NAME=N`: any limit by its name (every field has one), with a message naming
    /// what is wrong otherwise.
    #[test]
    fn a_host_changes_its_limits_by_name() {
        let limits =
            host_limits(&["waiting_per_address=20".into(), "tables-per-hour-per-address = 90".into()]).unwrap();
        assert_eq!((limits.waiting_per_address, limits.tables_per_hour_per_address), (20, 90));
        assert_eq!(limits.tables, HostLimits::default().tables);
        assert_eq!(host_limits(&["spectators=0".into()]).unwrap().spectators, 0, "a host may take no watchers");
        let refused = |given: &str| host_limits(&[given.to_string()]).unwrap_err().to_string();
        assert_eq!(
            refused("waiting_per_address"),
            "--limit takes NAME=N (like waiting_per_address=20), not 'waiting_per_address'"
        );
        assert_eq!(refused("tables=many"), "--limit 'tables=many': the value is not a whole number");
        assert_eq!(refused("tables=-1"), "--limit 'tables=-1': the value is not a whole number");
        assert_eq!(refused("tables=0"), "--limit: tables must be at least 1");
        assert_eq!(refused("burst=4294967296"), "--limit: burst: 4294967296 is too large");
        assert!(refused("tabels=3").starts_with("--limit: there is no limit 'tabels' (the limits: max_message, "));
        assert!(refused("\u{1b}[2J=3").contains("\\u{1b}"), "{}", refused("\u{1b}[2J=3"));
        assert_eq!(
            refused("max_message=70000"),
            "--limit: max_message (70000) cannot be more than hard_max_message (65536)"
        );
        // Every field of HostLimits has its name (its Debug lists them all), and
        // docs/network.md gives each with its default.
        let debug = format!("{:?}", HostLimits::default());
        let fields: Vec<(&str, &str)> = debug
            .trim_start_matches("HostLimits {")
            .trim_end_matches('}')
            .split(',')
            .filter_map(|f| f.split_once(':'))
            .map(|(name, value)| (name.trim(), value.trim()))
            .collect();
        let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, HostLimits::NAMES, "a limit without a name");
        let docs = include_str!("../../docs/network.md").split_whitespace().collect::<Vec<_>>().join(" ");
        for (name, value) in fields {
            assert!(docs.contains(&format!("`{name}` {value}")), "docs/network.md does not give `{name}` {value}");
        }
    }

    #[test]
    fn durations_read_like_people_write_them() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert!(parse_duration("soon").is_err());
    }
}
