//! The terminal's autosave: every game played at the terminal is kept on disk as it goes, so a
//! closed window loses nothing. The next `diving` offers the unfinished games back, and
//! `diving --resume` lists them (`--resume N` takes one up, `--forget N` lets one go).
//!
//! Where: `$XDG_STATE_HOME/diving/games`, else `~/.local/state/diving/games` (a folder only
//! its owner may open). A game is kept as a save file — the replay format of [`save`],
//! versioned, so anything that loads a save loads it — named after the game's key
//! ([`Session::key`]): `KEY.json` (`KEY-2.json` … for another copy of the same game, such as
//! one resumed from a save made earlier). It is written whole through a temporary file after
//! every change and before the change is shown (as the host commits each move before its
//! answer): a window closed at any moment keeps every move its players saw. A finished
//! game's file is removed.
//!
//! While a program plays a kept game it holds a lock on `NAME.lock` (released by the system
//! however the program ends), so two windows never write one file and the list says which
//! games are open elsewhere. `KEY.notices` gathers, one JSON line each, the notices other
//! programs record about the game (a save of it opened with every hand shown); the program
//! playing it takes them in at its next hand-over. The file goes with the last kept copy of its
//! game (a finished game, `--forget`), and one left without any (its game never resumed) is
//! removed when the list is next read: the save the notice came from records it itself.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::limits::{self, FileKind};
use crate::table::notice::Notice;
use crate::table::save::{self, SaveFile};
use crate::table::session::Session;

/// `$XDG_STATE_HOME/diving/games`, else `~/.local/state/diving/games`; `None` without either
/// (then nothing is kept).
pub fn games_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_STATE_HOME").map(PathBuf::from).filter(|p| p.is_absolute()) {
        Some(dir) => dir,
        None => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".local/state"),
    };
    Some(base.join("diving").join("games"))
}

/// A game being kept on disk by this program.
pub struct Autosave {
    /// `NAME.json`.
    path: PathBuf,
    /// The game's key, for its notices file.
    key: String,
    /// The lock on `NAME.lock`, held while the game is played here.
    _lock: File,
    /// What the file holds: the session's changes, notices and tellings when it was written.
    written: Option<(u64, usize, usize)>,
    /// Whether this program has written the file already (the first write also clears what
    /// a killed program may have left beside it).
    wrote: bool,
    /// The game ended and its files are gone.
    done: bool,
}

/// Why a game cannot be kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotKept {
    /// No home or state folder to keep it in.
    Nowhere,
    /// The folder cannot be made or written: why.
    Failed(String),
}

impl std::fmt::Display for NotKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotKept::Nowhere => f.write_str("neither XDG_STATE_HOME nor HOME is set"),
            NotKept::Failed(why) => f.write_str(why),
        }
    }
}

impl Autosave {
    /// Starts keeping `session`: in the file it was resumed from (`resumed`, a kept game's
    /// file this program now holds the lock of), else in a new file named after its key.
    pub fn start(session: &Session, resumed: Option<Resumed>) -> Result<Autosave, NotKept> {
        let key = session.key();
        if let Some(Resumed { path, lock }) = resumed {
            return Ok(Autosave { path, key, _lock: lock, written: None, wrote: false, done: false });
        }
        Autosave::start_in(&games_dir().ok_or(NotKept::Nowhere)?, session)
    }

    /// Starts keeping `session` in a new file of `dir`.
    fn start_in(dir: &Path, session: &Session) -> Result<Autosave, NotKept> {
        let key = session.key();
        let dir = dir.to_path_buf();
        make_private_dir(&dir).map_err(|e| NotKept::Failed(format!("cannot make {}: {e}", dir.display())))?;
        for n in 1..=1000 {
            let name = if n == 1 { key.clone() } else { format!("{key}-{n}") };
            let path = dir.join(format!("{name}.json"));
            if path.exists() {
                continue;
            }
            match lock(&dir.join(format!("{name}.lock"))) {
                Ok(Some(lock)) => {
                    return Ok(Autosave { path, key, _lock: lock, written: None, wrote: false, done: false });
                }
                Ok(None) => continue,
                Err(e) => return Err(NotKept::Failed(format!("cannot lock a file in {}: {e}", dir.display()))),
            }
        }
        Err(NotKept::Failed(format!("{} holds a thousand copies of this game", dir.display())))
    }

    /// Writes the game if it changed since the last write; removes its files once it is over
    /// (a game without a move is not written at all).
    pub fn keep(&mut self, session: &Session) -> Result<(), String> {
        if self.done {
            return Ok(());
        }
        if session.game().is_over() {
            self.done = true;
            self.forget_files();
            return Ok(());
        }
        let told = session.notices().iter().map(|n| n.told.len()).sum();
        let mark = (session.changes(), session.notices().len(), told);
        if session.entries().is_empty() || self.written == Some(mark) {
            return Ok(());
        }
        let file = session.to_save();
        let written = if self.wrote { save::write_again(&self.path, &file) } else { save::write(&self.path, &file) };
        written.map_err(|e| e.to_string())?;
        self.wrote = true;
        self.written = Some(mark);
        Ok(())
    }

    /// Takes in the notices other programs recorded about this game since it started here.
    pub fn take_notices(&self, session: &mut Session) {
        for notice in recorded_elsewhere(&self.key) {
            session.take_in(notice);
        }
    }

    /// The file the game is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn forget_files(&self) {
        let _ = fs::remove_file(&self.path);
        let _ = fs::remove_file(self.path.with_extension("lock"));
        if let Some(dir) = self.path.parent() {
            forget_unkept_notices(dir, &self.key);
        }
    }
}

impl Drop for Autosave {
    /// A game that never got a move has no file: its lock file goes too.
    fn drop(&mut self) {
        if !self.path.exists() {
            let _ = fs::remove_file(self.path.with_extension("lock"));
        }
    }
}

/// A kept game this program has taken up: its file, and the lock that makes it this
/// program's.
pub struct Resumed {
    pub path: PathBuf,
    pub lock: File,
}

/// A kept game, as the list shows it.
pub struct Kept {
    /// `NAME.json`.
    pub path: PathBuf,
    pub save: SaveFile,
    pub modified: SystemTime,
    /// Being played in another window (its lock is held).
    pub in_use: bool,
}

impl Kept {
    /// `alice, bob (hot-seat) - turn 12, bob to play - ruleset standard - saved 3 minutes ago`,
    /// every name [`limits::shown`] (the file may have been edited).
    pub fn line(&self, now: SystemTime, dash: &str) -> String {
        let players: Vec<String> = self
            .save
            .players
            .iter()
            .map(|p| match &p.bot {
                Some(_) => format!("{} (bot)", p.name),
                None => p.name.clone(),
            })
            .collect();
        let state = &self.save.state;
        let turn = state["turn"].as_u64().unwrap_or(0);
        let current = state["current"].as_str().unwrap_or("?");
        let hot_seat = if self.save.hot_seat { " (hot-seat)" } else { "" };
        let ruleset = Path::new(&self.save.ruleset)
            .file_name()
            .map_or(self.save.ruleset.clone(), |n| n.to_string_lossy().into_owned());
        let mut line = format!(
            "{}{hot_seat} {dash} turn {turn}, {current} to play {dash} ruleset {ruleset} {dash} {}",
            players.join(", "),
            ago(self.modified, now)
        );
        if self.in_use {
            line += " (open in another window)";
        }
        limits::shown(&line, limits::NewLines::Escaped)
    }

    /// Takes the game up: its lock, unless another window holds it.
    pub fn take(&self) -> Result<Resumed, String> {
        match lock(&self.path.with_extension("lock")) {
            Ok(Some(lock)) => Ok(Resumed { path: self.path.clone(), lock }),
            Ok(None) => Err("this game is open in another window: play it there (or quit it there first)".into()),
            Err(e) => Err(format!("cannot lock {}: {e}", self.path.with_extension("lock").display())),
        }
    }

    /// Lets the game go: its files are removed (refused while another window plays it).
    pub fn forget(&self) -> Result<(), String> {
        let resumed = self.take()?;
        let _ = fs::remove_file(&resumed.path);
        let _ = fs::remove_file(resumed.path.with_extension("lock"));
        drop(resumed);
        if let (Some(dir), Some(key)) =
            (self.path.parent(), self.path.file_stem().and_then(|s| key_of(&s.to_string_lossy())))
        {
            forget_unkept_notices(dir, &key);
        }
        Ok(())
    }
}

/// The unfinished games kept, the most recently played first. A file that cannot be read as
/// a save is left out (and left alone).
pub fn kept_games() -> Vec<Kept> {
    games_dir().map_or_else(Vec::new, |dir| kept_games_in(&dir))
}

/// [`kept_games`] of `dir`.
fn kept_games_in(dir: &Path) -> Vec<Kept> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let entries: Vec<fs::DirEntry> = entries.flatten().collect();
    // The lock of a game that never got a move, left by a program that was killed.
    for entry in &entries {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "lock")
            && !path.with_extension("json").exists()
            && let Ok(Some(_held)) = lock(&path)
        {
            let _ = fs::remove_file(&path);
        }
    }
    // The notices of a game no longer kept (never resumed, or let go by an older diving).
    for entry in &entries {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "notices")
            && let Some(key) = path.file_stem().map(|s| s.to_string_lossy().into_owned())
        {
            forget_unkept_notices(dir, &key);
        }
    }
    let mut games: Vec<Kept> = entries
        .into_iter()
        .filter(|e| {
            e.path().extension().is_some_and(|x| x == "json") && !e.file_name().to_string_lossy().starts_with('.')
        })
        .filter_map(|e| {
            let path = e.path();
            let save = save::read(&path).ok()?;
            if save.state["over"].as_bool() != Some(false) {
                return None;
            }
            let modified = e.metadata().ok()?.modified().ok()?;
            let in_use = matches!(lock(&path.with_extension("lock")), Ok(None));
            Some(Kept { path, save, modified, in_use })
        })
        .collect();
    games.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
    games
}

/// The kept game `which` names: its number in [`kept_games`]' list (from 1), or its file's
/// name (`KEY` or `KEY.json`).
pub fn find(games: &[Kept], which: &str) -> Result<usize, String> {
    let which = which.trim();
    if games.is_empty() {
        return Err("no unfinished game is kept".into());
    }
    if let Ok(n) = which.parse::<usize>() {
        return match n {
            1.. if n <= games.len() => Ok(n - 1),
            _ => Err(format!("there is no game {n}: the list has 1 to {}", games.len())),
        };
    }
    let name = which.strip_suffix(".json").unwrap_or(which);
    games
        .iter()
        .position(|g| g.path.file_stem().is_some_and(|s| s == name))
        .ok_or_else(|| format!("no kept game is called '{}' (diving --resume lists them)", limits::quoted(which)))
}

/// Records `notice` about the game `key` for the program that plays (or will resume) it.
pub fn record_elsewhere(key: &str, notice: &Notice) -> Result<(), String> {
    let dir = games_dir().ok_or_else(|| NotKept::Nowhere.to_string())?;
    make_private_dir(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let path = dir.join(format!("{key}.notices"));
    let line = serde_json::to_string(notice).expect("a notice serialises") + "\n";
    // One write of one line, appended: lines of two programs never interleave.
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()).and_then(|()| f.sync_all()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The key of the game a kept file's name (`KEY` or `KEY-N`, without `.json`) is of.
fn key_of(stem: &str) -> Option<String> {
    let key = match stem.rsplit_once('-') {
        Some((key, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => key,
        _ => stem,
    };
    (!key.is_empty()).then(|| key.to_string())
}

/// Removes `KEY.notices` from `dir` unless a copy of the game `key` is still kept there: its
/// `KEY.json` or `KEY-N.json`, or the lock of a window playing it that has not written it yet.
fn forget_unkept_notices(dir: &Path, key: &str) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let kept = entries.flatten().any(|e| {
        let path = e.path();
        path.extension().is_some_and(|x| x == "json" || x == "lock")
            && path.file_stem().and_then(|s| key_of(&s.to_string_lossy())).as_deref() == Some(key)
    });
    if !kept {
        let _ = fs::remove_file(dir.join(format!("{key}.notices")));
    }
}

/// The notices other programs recorded about the game `key` (a line that does not read as
/// one is skipped).
fn recorded_elsewhere(key: &str) -> Vec<Notice> {
    let Some(dir) = games_dir() else { return Vec::new() };
    let Ok(text) = limits::read_text(&dir.join(format!("{key}.notices")), FileKind::Save) else { return Vec::new() };
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

/// `3 minutes ago`, `2 hours ago`, `5 days ago` (`just now` under a minute).
fn ago(then: SystemTime, now: SystemTime) -> String {
    let seconds = now.duration_since(then).map_or(0, |d| d.as_secs());
    let (n, unit) = match seconds {
        0..60 => return "saved just now".into(),
        60..3600 => (seconds / 60, "minute"),
        3600..86_400 => (seconds / 3600, "hour"),
        _ => (seconds / 86_400, "day"),
    };
    format!("saved {n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

/// The lock on `path` (made if missing), or `None` when another program holds it.
fn lock(path: &Path) -> std::io::Result<Option<File>> {
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Makes `dir` (and its parents) if missing; a folder made here is its owner's only.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kept after every move (a game without a move is not written); a second copy of the
    /// same game gets a file of its own; once the game is over its files are gone.
    #[test]
    fn a_game_is_kept_move_by_move_and_let_go_when_it_ends() {
        use crate::table::session::Seating;
        let dir = tempfile::tempdir().unwrap();
        let seats = ["alice", "bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/short-game.deck")).unwrap();
        let cards: String = text.lines().map(|l| l.split('#').next().unwrap()).collect::<Vec<_>>().join(" ");
        let deck = crate::core::parse_cards(&cards).unwrap();
        let mut session = Session::new("standard", seats, 1, Some(deck)).unwrap();
        let mut kept = Autosave::start_in(dir.path(), &session).unwrap();
        let key = session.key();
        kept.keep(&session).unwrap();
        assert_eq!(files(dir.path()), [format!("{key}.lock")]);
        let copy = Autosave::start_in(dir.path(), &session).unwrap();
        assert_eq!(copy.path(), dir.path().join(format!("{key}-2.json")));
        drop(copy);
        assert_eq!(files(dir.path()), [format!("{key}.lock")], "a copy without a move leaves nothing");
        let mut moves = 0;
        while !session.game().is_over() {
            assert!(moves < 5000, "the game ends");
            let action = session.game().legal_actions()[0];
            session.apply(action).unwrap();
            moves += 1;
            kept.keep(&session).unwrap();
            if !session.game().is_over() {
                let saved = save::read(kept.path()).unwrap();
                assert_eq!(saved.actions.len(), moves);
                assert!(saved.hot_seat == session.hot_seat());
                assert_eq!(files(dir.path()), [format!("{key}.json"), format!("{key}.lock")]);
            }
        }
        assert!(files(dir.path()).is_empty(), "{:?}", files(dir.path()));
    }

    /// `KEY.notices` is kept while a copy of its game is: a kept file, or a window playing it
    /// that has not written it yet. `--forget` of the last copy removes it, and one left with
    /// no game at all goes when the list is read.
    #[test]
    fn a_games_notices_go_with_its_last_kept_copy() {
        use crate::table::session::Seating;
        let dir = tempfile::tempdir().unwrap();
        let seats = ["alice", "bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
        let mut session = Session::new("standard", seats, 7, None).unwrap();
        session.apply(session.game().legal_actions()[0]).unwrap();
        let key = session.key();
        for _ in 0..2 {
            Autosave::start_in(dir.path(), &session).unwrap().keep(&session).unwrap();
        }
        let notices = dir.path().join(format!("{key}.notices"));
        fs::write(&notices, "").unwrap();
        let orphan = dir.path().join("00000000deadbeef.notices");
        fs::write(&orphan, "").unwrap();

        let games = kept_games_in(dir.path());
        assert_eq!(games.len(), 2);
        assert!(!orphan.exists(), "the notices of a game not kept stay: {:?}", files(dir.path()));
        assert!(notices.exists());
        games[0].forget().unwrap();
        assert!(notices.exists(), "a copy of the game is still kept");
        let playing = Autosave::start_in(dir.path(), &session).unwrap();
        kept_games_in(dir.path())[0].forget().unwrap();
        assert!(notices.exists(), "a window plays the game");
        drop(playing);
        assert!(kept_games_in(dir.path()).is_empty());
        assert!(files(dir.path()).is_empty(), "{:?}", files(dir.path()));
    }

    #[test]
    fn a_kept_files_name_tells_its_games_key() {
        assert_eq!(key_of("0123456789abcdef").as_deref(), Some("0123456789abcdef"));
        assert_eq!(key_of("0123456789abcdef-12").as_deref(), Some("0123456789abcdef"));
        assert_eq!(key_of("0123456789abcdef-x").as_deref(), Some("0123456789abcdef-x"));
        assert_eq!(key_of("0123456789abcdef-").as_deref(), Some("0123456789abcdef-"));
        assert_eq!(key_of(""), None);
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn ages_read_as_people_say_them() {
        let now = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        let at = |s: u64| now - std::time::Duration::from_secs(s);
        assert_eq!(ago(at(5), now), "saved just now");
        assert_eq!(ago(at(60), now), "saved 1 minute ago");
        assert_eq!(ago(at(3 * 3600 + 5), now), "saved 3 hours ago");
        assert_eq!(ago(at(2 * 86_400), now), "saved 2 days ago");
        assert_eq!(ago(now + std::time::Duration::from_secs(9), now), "saved just now");
    }
}
