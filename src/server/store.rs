//! The host's games on disk, one pair of files per room in one directory: `ROOM.save.json`,
//! the game in the ordinary save format (written atomically by [`save::write`] after every
//! change), and `ROOM.seats.json`, the seat tokens (written once, readable by the owner
//! only). `diving host --resume DIR` reads them back.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::repl::save::{self, SaveFile};
use crate::repl::session::Session;

/// The seat file of a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seats {
    pub room: String,
    /// The token of each seat a person plays; `None` for bots.
    pub tokens: Vec<Option<String>>,
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

/// Writes a room's game again, after a [`write_game`] of it by this process (see
/// [`save::write_again`]).
pub fn rewrite_game(dir: &Path, room: &str, save: &SaveFile) -> anyhow::Result<()> {
    save::write_again(&save_path(dir, room), save)?;
    Ok(())
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

/// Every room saved in `dir`, with its game replayed and checked, sorted by room name.
pub fn load_all(dir: &Path) -> anyhow::Result<Vec<(Seats, Session)>> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot read the games directory {}", dir.display()))?;
    let mut rooms = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
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
    if rooms.is_empty() {
        anyhow::bail!("no saved games in {} (it has no ROOM.seats.json)", dir.display());
    }
    rooms.sort_by(|a, b| a.0.room.cmp(&b.0.room));
    Ok(rooms)
}
