//! The host's games directory: where a finished game's save file goes ([`save_path`]), the
//! lock a running host holds there ([`LOCK_FILE`], [`lock`]), and the reader of a directory an
//! older `diving host` kept before the database ([`super::db`]) held the games: per room
//! `ROOM.save.json` (the ordinary save format) and `ROOM.seats.json` (the seat tokens), and the
//! journal, `journal-NNNNNN.jsonl`, one line per move of any room since that room's save was
//! written. [`load_all`] reads the saves and plays each room's journal lines on (a line cut
//! short by a crash is reported and skipped, any other damage is an error naming the line);
//! [`Games::compact`] writes the saves again and removes the journals, and the host then takes
//! the games into its database. The writing half ([`save_seats`], [`journal_lines`]) stays
//! for the tests that build such a directory.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::core::Action;
use crate::table::record;
use crate::table::render;
use crate::table::save::{self, ActionJson, SaveFile};
use crate::table::session::{Entry, Session};

/// The seat file of a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seats {
    pub room: String,
    /// The token of each seat a person plays; `None` for bots.
    pub tokens: Vec<Option<String>>,
}

/// The lock a host holds on its games directory while it runs ([`lock`]).
pub const LOCK_FILE: &str = "host.lock";

/// Takes the games directory `dir` for this host until the returned file is dropped, or says
/// that another `diving host` holds it: two hosts of the same games would both take the same
/// seats' moves and write them into one journal, which then no longer resumes.
pub fn lock(dir: &Path) -> anyhow::Result<fs::File> {
    let path = dir.join(LOCK_FILE);
    let file = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).with_context(|| {
        format!("cannot take the games directory {}: cannot open {}", dir.display(), path.display())
    })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(fs::TryLockError::WouldBlock) => anyhow::bail!(
            "{} is in use by another diving host (it holds {}): stop that one first, or host in another --dir",
            dir.display(),
            path.display()
        ),
        Err(fs::TryLockError::Error(e)) => Err(e).with_context(|| {
            format!("cannot take the games directory {}: cannot lock {}", dir.display(), path.display())
        }),
    }
}

pub fn save_path(dir: &Path, room: &str) -> PathBuf {
    dir.join(format!("{room}.save.json"))
}

fn seats_path(dir: &Path, room: &str) -> PathBuf {
    dir.join(format!("{room}.seats.json"))
}

/// Saves the game of `room` (atomically).
pub fn save_game(dir: &Path, room: &str, session: &Session) -> anyhow::Result<()> {
    write_game(dir, room, &session.to_save())
}

/// Writes `save` as room `room`'s game file (atomically).
pub fn write_game(dir: &Path, room: &str, save: &SaveFile) -> anyhow::Result<()> {
    save::write(&save_path(dir, room), save)?;
    Ok(())
}

/// Removes the temporaries that saves of games killed while writing left in `dir`, reading it
/// once: after it a room's save in `dir` (not through a symlink to elsewhere) is written with
/// `save::write_again`, which does not read the directory again (the keeper does so).
pub fn remove_stale_temporaries(dir: &Path) {
    save::remove_stale_temporaries_in(dir, |name| name.ends_with(b".save.json"));
}

/// Writes the seat file of a room (atomically, owner-only on Unix).
pub fn save_seats(dir: &Path, seats: &Seats) -> anyhow::Result<()> {
    let path = seats_path(dir, &seats.room);
    let tmp = dir.join(format!(".{}.seats.tmp", seats.room));
    let text = serde_json::to_string_pretty(seats)? + "\n";
    {
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        file.sync_all()?;
    }
    fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// One line of the journal: move `number` (the first is 1) of `room`, with the hash of its
/// step ([`record::step_hash`]), which its replay must give.
#[derive(Debug, Serialize, Deserialize)]
struct JournalLine {
    room: String,
    #[serde(rename = "move")]
    number: usize,
    step: String,
    #[serde(flatten)]
    action: ActionJson,
}

/// The journal of generation `generation`.
pub fn journal_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("journal-{generation:06}.jsonl"))
}

/// The journals in `dir`, oldest first, with their generations.
pub fn journals(dir: &Path) -> anyhow::Result<Vec<(u64, PathBuf)>> {
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

/// Appends to `out` the journal lines of `entries`, moves `first + 1` on of `room`.
pub fn journal_lines(out: &mut Vec<u8>, room: &str, first: usize, entries: &[Entry]) {
    for (i, entry) in entries.iter().enumerate() {
        let line = JournalLine {
            room: room.to_string(),
            number: first + i + 1,
            step: record::step_text(entry.step),
            action: ActionJson::from(&entry.action),
        };
        serde_json::to_writer(&mut *out, &line).expect("a journal line is plain data");
        out.push(b'\n');
    }
}

/// Makes what was renamed or removed in `dir` durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// The games of a directory, as `--resume` finds them.
pub struct Games {
    /// Every room, sorted by name.
    pub rooms: Vec<(Seats, Session)>,
    /// What was found damaged and recovered from (a journal line cut short by a crash).
    pub notes: Vec<String>,
    /// The rooms that took moves from the journal.
    journaled: BTreeSet<String>,
    journals: Vec<PathBuf>,
}

impl Games {
    /// Writes the save of every room the journal moved on, then removes the journals: the
    /// directory holds the games in saves alone again. A journal is removed only once every
    /// save is written.
    pub fn compact(&self, dir: &Path) -> anyhow::Result<()> {
        if self.journals.is_empty() {
            return Ok(());
        }
        for (seats, session) in &self.rooms {
            if self.journaled.contains(&seats.room) {
                save_game(dir, &seats.room, session)?;
            }
        }
        sync_dir(dir).with_context(|| format!("cannot write {}", dir.display()))?;
        for path in &self.journals {
            fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
        sync_dir(dir).with_context(|| format!("cannot write {}", dir.display()))?;
        Ok(())
    }
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
                if !session.replays(line.number - 1, &line.step) {
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
            if !session.replays(line.number - 1, &line.step) {
                anyhow::bail!(
                    "{}: move {} of room {} ('{text}') does not replay as recorded (step {}, now {step})",
                    at(),
                    line.number,
                    line.room,
                    line.step
                );
            }
            games.journaled.insert(line.room);
        }
        games.journals.push(path);
    }
    Ok(())
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
pub fn load_all(dir: &Path) -> anyhow::Result<Games> {
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
        let game = save_path(dir, room);
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
            let game = save_path(dir, room);
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
    let mut games = Games { rooms: Vec::new(), notes, journaled: BTreeSet::new(), journals: Vec::new() };
    let mut by_name: HashMap<String, &mut Session> = rooms.iter_mut().map(|(s, g)| (s.room.clone(), g)).collect();
    replay_journals(dir, &mut by_name, &left_out, &mut games)?;
    games.rooms = rooms;
    Ok(games)
}
