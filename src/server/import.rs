//! An older host's games directory, taken into the database once ([`import`]): what
//! `diving host` kept before its SQLite database ([`super::db`]) held the games. Per room,
//! `ROOM.save.json` (the ordinary save format, 1 to 3) and `ROOM.seats.json` (the seat
//! tokens), and the journal, `journal-NNNNNN.jsonl`, one line per move of any room since that
//! room's save was written. Each save is replayed and checked as a save is; each journal line
//! is played on and checked against the step it recorded (of its host's format: the canonical
//! hash, or, for a host of save format 2, the hash over the JSON text, [`legacy::step_hash`],
//! computed here and nowhere else). A line cut short by a crash is reported and skipped; any
//! other damage is an error naming the file and line. The games then go into the database as
//! its tables, in one transaction, and the old files are left as they are: from then on the
//! database is the host's. No host writes these files any more.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

use super::db::{self, Db};
use super::hub::register;
use super::room::{Room, RoomOptions};
use crate::core::Action;
use crate::table::render;
use crate::table::save::{self, ActionJson};
use crate::table::session::Session;
use crate::table::{legacy, record};

/// Whether `dir` holds the files of an older host (a seat file or a journal).
pub fn holds_old_games(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".seats.json") || (name.starts_with("journal-") && name.ends_with(".jsonl"))
        })
    })
}

/// Takes the games of the older host's directory `dir` into `db` (one transaction): each
/// room a table, its game as it stands after the journal's moves. What was found damaged and
/// recovered from is returned, to be told.
pub fn import(dir: &Path, db: &mut Db) -> anyhow::Result<Vec<String>> {
    let games = load_all(dir)?;
    let mut changes = Vec::new();
    for (seats, session) in games.rooms {
        let mut room = Room::new(&seats.room, session, seats.tokens, RoomOptions::default());
        changes.extend(register(db, &mut room)?);
    }
    db.commit(&changes).with_context(|| format!("cannot take the games of {} into {}", dir.display(), db::FILE))?;
    Ok(games.notes)
}

/// The seat file of a room.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
struct Seats {
    room: String,
    /// The token of each seat a person plays; `None` for bots.
    tokens: Vec<Option<String>>,
}

/// The games of an older host's directory, as found.
struct Games {
    /// Every room (its seat file, its game), sorted by name.
    rooms: Vec<(Seats, Session)>,
    /// What was found damaged and recovered from (a journal line cut short by a crash).
    notes: Vec<String>,
}

/// One line of the journal: move `number` (the first is 1) of `room`, with the hash of its
/// step ([`record::step_hash`]), which its replay must give.
#[derive(Debug, Deserialize)]
struct JournalLine {
    room: String,
    #[serde(rename = "move")]
    number: usize,
    step: String,
    #[serde(flatten)]
    action: ActionJson,
}

/// The journals in `dir`, oldest first, with their generations.
fn journals(dir: &Path) -> anyhow::Result<Vec<(u64, PathBuf)>> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot read the games directory {}", dir.display()))?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let generation = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("journal-"))
            .and_then(|n| n.strip_suffix(".jsonl"))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(generation) = generation {
            found.push((generation, path));
        }
    }
    found.sort();
    Ok(found)
}

/// Plays the journals of `dir` on from the saved games in `rooms`.
fn replay_journals(
    dir: &Path,
    rooms: &mut HashMap<String, &mut Session>,
    left_out: &BTreeSet<String>,
    games: &mut Games,
) -> anyhow::Result<()> {
    let journals = journals(dir)?;
    let newest = journals.last().map(|(g, _)| *g);
    for (generation, path) in journals {
        let text = fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let count = text.split_inclusive('\n').count();
        for (i, raw) in text.split_inclusive('\n').enumerate() {
            let at = || format!("{} line {}", path.display(), i + 1);
            let line: JournalLine = match serde_json::from_str(raw.trim_end_matches('\n')) {
                Ok(line) => line,
                // A crash while the newest journal was written can cut its last line short:
                // the moves before it are whole.
                Err(_) if Some(generation) == newest && i + 1 == count && !raw.ends_with('\n') => {
                    games.notes.push(format!(
                        "{}: the last line was cut short (the host stopped while writing it); the move it held is lost, every move before it is back",
                        at()
                    ));
                    break;
                }
                Err(e) => anyhow::bail!("{}: not a journal line ({e}); the journal is damaged", at()),
            };
            let Some(session) = rooms.get_mut(&line.room) else {
                // A room played in was never new: its seat file is missing.
                if left_out.contains(&line.room) {
                    return Err(no_seats(dir, &line.room));
                }
                anyhow::bail!("{}: names room '{}', which has no saved game in {}", at(), line.room, dir.display());
            };
            let moves = session.entries().len();
            if line.number == 0 {
                anyhow::bail!("{}: move 0 of room {}: moves count from 1; the journal is damaged", at(), line.room);
            }
            if line.number <= moves {
                // Written before the room's save: the save has it.
                let step = record::step_text(session.entries()[line.number - 1].step);
                if !replays(session, line.number - 1, &line.step) {
                    anyhow::bail!(
                        "{}: move {} of room {} is not the saved one (step {}, saved {step}); the journal is damaged",
                        at(),
                        line.number,
                        line.room,
                        line.step
                    );
                }
                continue;
            }
            if line.number > moves + 1 {
                anyhow::bail!(
                    "{}: move {} of room {} follows move {moves}: the moves between are missing; the journal is damaged",
                    at(),
                    line.number,
                    line.room
                );
            }
            let action = Action::from(line.action);
            let text = render::command_for(session.game(), &action);
            if let Err(e) = session.apply(action) {
                let reason = render::action_error(session.game(), &e, crate::core::Viewer::Everyone);
                anyhow::bail!(
                    "{}: move {} of room {} ('{text}') cannot be replayed: {reason}",
                    at(),
                    line.number,
                    line.room
                );
            }
            let step = record::step_text(session.entries()[line.number - 1].step);
            if !replays(session, line.number - 1, &line.step) {
                anyhow::bail!(
                    "{}: move {} of room {} ('{text}') does not replay as recorded (step {}, now {step})",
                    at(),
                    line.number,
                    line.room,
                    line.step
                );
            }
        }
    }
    Ok(())
}

/// Whether `recorded` is the step of move `index` (from 0) of `session`: its canonical hash,
/// or the hash over the JSON text of its state and events that hosts of save format 2 wrote
/// in their journals (worked out only here, only when the canonical one differs).
fn replays(session: &Session, index: usize, recorded: &str) -> bool {
    let Some(entry) = session.entries().get(index) else { return false };
    if record::step_text(entry.step) == recorded {
        return true;
    }
    // The game the move left: the current one after the last move, else the one before the next.
    let after = if index + 1 == session.entries().len() {
        Some(session.game().clone())
    } else {
        session.games_before_moves().ok().and_then(|mut games| games.get_mut(index + 1).map(|g| g.clone()))
    };
    after.is_some_and(|game| record::step_text(legacy::step_hash(&game, session.bots(), &entry.events)) == recorded)
}

fn seats_path(dir: &Path, room: &str) -> std::path::PathBuf {
    dir.join(format!("{room}.seats.json"))
}

/// A save without its seats cannot be resumed (nobody could take a seat): which file is missing.
fn no_seats(dir: &Path, room: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{} has no {}: the seats' tokens of room {room} are in it, and its game cannot be resumed without them",
        dir.display(),
        seats_path(dir, room).file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    )
}

/// Every room saved in `dir`, with its game replayed and checked, and played on by the
/// journal's lines; sorted by room name.
fn load_all(dir: &Path) -> anyhow::Result<Games> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot read the games directory {}", dir.display()))?;
    let mut rooms = Vec::new();
    // The rooms whose save is here: each needs its seats.
    let mut saved = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        if let Some(room) = name.strip_suffix(".save.json") {
            saved.push(room.to_string());
        }
        let Some(room) = name.strip_suffix(".seats.json") else { continue };
        // A seat file is a few tokens; a save's limit is far more than it needs.
        let text = crate::limits::read_text(&path, crate::limits::FileKind::Save)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let seats: Seats =
            serde_json::from_str(&text).with_context(|| format!("{}: not a seat file", path.display()))?;
        if seats.room != room {
            anyhow::bail!("{}: names room '{}', not '{room}'", path.display(), seats.room);
        }
        let game = dir.join(format!("{room}.save.json"));
        let session = Session::from_save(save::read(&game)?, &game, None)?;
        if session.game().player_count() != seats.tokens.len() {
            anyhow::bail!(
                "{}: {} seats for a game of {}",
                path.display(),
                seats.tokens.len(),
                session.game().player_count()
            );
        }
        rooms.push((seats, session));
    }
    // A save without its seats cannot be resumed (nobody could take a seat): say which file
    // is missing rather than leave the room out. Only a new room's save, with no move, may
    // lack them: a host that stopped in its first seconds, before its saver had written every
    // new room's seat file after the room's save (`ServerConfig::new_rooms`), left it so.
    let mut notes = Vec::new();
    let mut left_out = BTreeSet::new();
    for room in &saved {
        if !rooms.iter().any(|(seats, _)| &seats.room == room) {
            let game = dir.join(format!("{room}.save.json"));
            if save::read(&game).is_ok_and(|s| s.actions.is_empty() && s.branch.is_none()) {
                notes.push(format!(
                    "room {room} is left out: the host stopped before its seat file was written (no one had played in it); {} can be removed",
                    game.display()
                ));
                left_out.insert(room.clone());
                continue;
            }
            return Err(no_seats(dir, room));
        }
    }
    if rooms.is_empty() {
        anyhow::bail!("no saved games in {} (it has no ROOM.seats.json)", dir.display());
    }
    rooms.sort_by(|a, b| a.0.room.cmp(&b.0.room));
    let mut games = Games { rooms: Vec::new(), notes };
    let mut by_name: HashMap<String, &mut Session> = rooms.iter_mut().map(|(s, g)| (s.room.clone(), g)).collect();
    replay_journals(dir, &mut by_name, &left_out, &mut games)?;
    games.rooms = rooms;
    Ok(games)
}
