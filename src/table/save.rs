//! Saved games on disk: the versioned JSON format, written atomically, read back with errors
//! that name the file.
//!
//! A save holds what is needed to replay the game exactly — ruleset, seed, players, the
//! initial deck (top first) and every action — plus a snapshot of the state the replay must
//! reach. Since version 2 every save is also a replay file: it records the content hash of
//! the rules and of every mod ([`super::record`]), the hash of every step (so a replay under
//! changed rules names the first move that went otherwise), where a branched game left its
//! original, and whether hints are off. Version 4 adds whether the game was played hot-seat
//! (several people at one terminal: such a save opens only behind the hand-overs, or
//! showing no hand) and the [`Notice`]s of what happened to it besides its moves. Versions 1
//! to 3 are still read (version 1 files lack the records). Checking the snapshot is the loader's job (it needs the rules engine); this
//! module only moves bytes and checks the envelope.
//!
//! The format is fixed here, not by the core, which knows no serde: cards are written as the
//! JSON layer writes them ([`CardJson`]) and actions through their mirror [`ActionJson`].

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::json::{ActionNameJson, CardJson, SourceJson, card_list};
use super::notice::Notice;
use super::record::ModRecord;
use crate::core::{Action, Card, Cards, Seat};
use crate::limits::{self, FileKind};

/// The format version this program writes (4: `hot_seat` and `notices`; 3: step hashes over
/// the canonical encoding of [`super::record::step_hash`]; 2 hashed the JSON text, and is
/// still read and checked). A version 3 reader refuses a version 4 file rather than show the
/// hands of a hot-seat game.
pub const VERSION: u32 = 4;
/// The oldest format version this program still reads (1: no ruleset, mod or step records).
pub const OLDEST_VERSION: u32 = 1;

/// What identifies a file as a Diving Suits save.
pub const KIND: &str = "diving-suits save";

/// One player at the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedPlayer {
    pub name: String,
    /// The bot spec (`greedy`, `scripts/cautious.lua` …) for a computer player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
}

/// A whole saved game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveFile {
    pub version: u32,
    pub kind: String,
    /// The ruleset as it was named (`standard`, a path …).
    pub ruleset: String,
    /// The content hash of the rules in force ([`super::record::rules_hash`]); `None` in a
    /// version 1 file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_hash: Option<String>,
    /// The mods the game ran with, in load order, with the hash of each; `None` in a version
    /// 1 file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mods: Option<Vec<ModRecord>>,
    pub seed: u64,
    pub players: Vec<SavedPlayer>,
    /// The deck before the deal, top first.
    #[serde(with = "card_list")]
    pub deck: Vec<Card>,
    /// Set when the game is a branch of another one: it starts where that one stood.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<BranchRecord>,
    /// Every action, in order (after the branch point, for a branch).
    #[serde(with = "action_list")]
    pub actions: Vec<Action>,
    /// The hash of every step ([`super::record::step_hash`], 16 hex digits), one per action:
    /// what the replay of each move must give. Empty in a version 1 file. Read with the
    /// same bound as the actions (one step per move).
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "step_list::deserialize")]
    pub steps: Vec<String>,
    /// Hints were switched off for this game (`--no-hints`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub no_hints: bool,
    /// Several people played this game at one terminal: it opens only as a hot-seat game
    /// behind its hand-overs, or showing no hand (version 4).
    #[serde(default, skip_serializing_if = "is_false")]
    pub hot_seat: bool,
    /// What happened to the game besides its moves, and who was told (version 4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<Notice>,
    /// The state the actions lead to (the JSON `state` object).
    pub state: serde_json::Value,
}

/// Where a branched game starts: the original game's setup (the fields of the file) with
/// these moves played, then, with `seed`, the deck (the cards not yet drawn) shuffled by it
/// ([`crate::core::Game::with_deck_shuffled`]); without `seed` the deck stays as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchRecord {
    #[serde(with = "action_list")]
    pub moves: Vec<Action>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// An [`Action`] as saved: tagged `"action"`, snake_case, and a choice left out when it is
/// the default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ActionJson {
    Play {
        card: CardJson,
        from: SourceJson,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Seat>,
        #[serde(default, skip_serializing_if = "is_false")]
        face_on_top: bool,
    },
    Recover {
        #[serde(with = "card_list")]
        cards: Cards,
        #[serde(default, skip_serializing_if = "is_false")]
        face_on_top: bool,
    },
    Pass,
    /// A mod's action: `{"action":"act","name":"buddy","target":1}` (the target a seat
    /// number from 0), or `{"action":"act","name":"toss","card":"7H"}`; what it does not
    /// name is left out.
    Act {
        name: ActionNameJson,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Seat>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<CardJson>,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl From<&Action> for ActionJson {
    fn from(action: &Action) -> ActionJson {
        match *action {
            Action::Play { card, from, target, face_on_top } => {
                ActionJson::Play { card: CardJson(card), from: from.into(), target, face_on_top }
            }
            Action::Recover { cards, face_on_top } => ActionJson::Recover { cards, face_on_top },
            Action::Pass => ActionJson::Pass,
            Action::Act { name, target, card } => {
                ActionJson::Act { name: ActionNameJson(name), target, card: card.map(CardJson) }
            }
        }
    }
}

impl From<ActionJson> for Action {
    fn from(action: ActionJson) -> Action {
        match action {
            ActionJson::Play { card, from, target, face_on_top } => {
                Action::Play { card: card.0, from: from.into(), target, face_on_top }
            }
            ActionJson::Recover { cards, face_on_top } => Action::Recover { cards, face_on_top },
            ActionJson::Pass => Action::Pass,
            ActionJson::Act { name, target, card } => Action::Act { name: name.0, target, card: card.map(|c| c.0) },
        }
    }
}

/// A list of [`Action`]s as [`ActionJson`], for `#[serde(with = "action_list")]`.
mod action_list {
    use super::*;

    pub fn serialize<S: Serializer>(actions: &[Action], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(actions.iter().map(ActionJson::from))
    }

    /// Stops at the first action past [`limits::MAX_SAVED_MOVES`], before reading the rest.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Action>, D::Error> {
        struct Bounded;
        impl<'de> serde::de::Visitor<'de> for Bounded {
            type Value = Vec<Action>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Action>, A::Error> {
                let mut actions = Vec::new();
                while let Some(action) = seq.next_element::<ActionJson>()? {
                    if actions.len() == limits::MAX_SAVED_MOVES {
                        return Err(serde::de::Error::custom(format_args!(
                            "more than {} moves (a save holds at most that many)",
                            limits::MAX_SAVED_MOVES
                        )));
                    }
                    actions.push(Action::from(action));
                }
                Ok(actions)
            }
        }
        d.deserialize_seq(Bounded)
    }
}

/// The step hashes, for `#[serde(deserialize_with = "step_list::deserialize")]`.
mod step_list {
    use super::*;

    /// Stops at the first step past [`limits::MAX_SAVED_MOVES`], before reading the rest (a
    /// file of nothing but empty hashes, `"", "", …`, would otherwise hold twenty times its
    /// size in memory before the count of steps and moves is compared).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        struct Bounded;
        impl<'de> serde::de::Visitor<'de> for Bounded {
            type Value = Vec<String>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of step hashes")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
                let mut steps = Vec::new();
                while let Some(step) = seq.next_element::<String>()? {
                    if steps.len() == limits::MAX_SAVED_MOVES {
                        return Err(serde::de::Error::custom(format_args!(
                            "more than {} step hashes (a save holds at most that many moves, one hash each)",
                            limits::MAX_SAVED_MOVES
                        )));
                    }
                    steps.push(step);
                }
                Ok(steps)
            }
        }
        d.deserialize_seq(Bounded)
    }
}

/// A save file that could not be written or read.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct SaveError {
    pub path: PathBuf,
    pub message: String,
}

impl SaveError {
    pub fn new(path: &Path, message: impl Into<String>) -> SaveError {
        SaveError { path: path.to_path_buf(), message: message.into() }
    }
}

/// Writes `save` to `path` atomically: a temporary file `.NAME.PID.tmp` in the target's
/// directory, flushed to disk, then renamed over the target. A failure leaves any earlier
/// file untouched and removes the temporary file.
///
/// - A symlink is written through: the file it points to is replaced (keeping its
///   permissions), the link stays. A link to nothing is refused.
/// - A target that is not a regular file (a directory, a FIFO, a device) is refused.
/// - SIGINT, SIGTERM, SIGHUP and SIGQUIT are held while the temporary file exists and act
///   once it is gone, so a caught signal never leaves it behind.
/// - Temporary files of this name left by a save that was killed (SIGKILL, a crash, a power
///   cut) are removed, when no process with their PID is running.
/// - A game of more than [`limits::MAX_SAVED_MOVES`] moves is refused.
pub fn write(path: &Path, save: &SaveFile) -> Result<(), SaveError> {
    write_with(path, save, true)
}

/// [`write`](fn@write) for a writer that saves the same file again and again (the game server saves
/// its rooms again when its journal rolls over and when it stops): its first [`write`](fn@write) of the file in this process removed the
/// stale temporaries of this name, so the directory is not read again (reading a directory
/// of a thousand games took longer than writing the save).
pub fn write_again(path: &Path, save: &SaveFile) -> Result<(), SaveError> {
    write_with(path, save, false)
}

fn write_with(path: &Path, save: &SaveFile, clean: bool) -> Result<(), SaveError> {
    let moves = save.actions.len() + save.branch.as_ref().map_or(0, |b| b.moves.len());
    if moves > limits::MAX_SAVED_MOVES {
        return Err(SaveError::new(
            path,
            format!(
                "cannot save: the game has {} moves, more than the {} a save holds",
                moves,
                limits::MAX_SAVED_MOVES
            ),
        ));
    }
    let mut text = serde_json::to_string_pretty(save).map_err(|e| SaveError::new(path, format!("cannot save: {e}")))?;
    text.push('\n');
    replace(path, &text, clean)
}

/// Writes `text` to `path` as [`write`](fn@write) writes a save: whole or not at all, through a
/// temporary file that no caught signal leaves behind (the command history, the autosaves).
pub fn write_text(path: &Path, text: &str) -> Result<(), SaveError> {
    replace(path, text, true)
}

/// [`write_text`] for a file written again and again by this process ([`write_again`]).
pub fn write_text_again(path: &Path, text: &str) -> Result<(), SaveError> {
    replace(path, text, false)
}

fn replace(path: &Path, text: &str, clean: bool) -> Result<(), SaveError> {
    let target = target_of(path)?;
    let err = |e: std::io::Error| SaveError::new(path, format!("cannot save: {e}"));
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target.file_name().ok_or_else(|| SaveError::new(path, "cannot save: not a file name"))?;
    if clean {
        remove_stale_temporaries(&dir, file_name);
    }
    let tmp = dir.join(temporary_name(file_name, std::process::id()));
    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let _held = signals::Held::new();
    let mut file = fs::OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(|e| {
        // The file is made beside the target first: say where that failed, not just why.
        let shown = dir.display();
        match fs::metadata(&dir) {
            Err(_) => SaveError::new(path, format!("cannot save: there is no folder '{shown}'")),
            Ok(_) => SaveError::new(path, format!("cannot save: cannot make a file in '{shown}': {e}")),
        }
    })?;
    let written = (|| {
        file.write_all(text.as_bytes())?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.map_err(err)
}

/// Where a save to `path` goes: `path`, or the file a symlink there points to. Refused: a
/// link to nothing, and anything that is not a regular file.
fn target_of(path: &Path) -> Result<PathBuf, SaveError> {
    let refuse = |why: String| Err(SaveError::new(path, format!("cannot save: {why}")));
    let target = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            let above = path.ancestors().skip(1).find(|p| p.is_file()).unwrap_or(path);
            return refuse(format!("'{}' is not a folder", above.display()));
        }
        Err(e) => return refuse(e.to_string()),
        Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(target) => target,
            Err(_) => return refuse("it is a symlink to a file that does not exist".into()),
        },
        Ok(_) => path.to_path_buf(),
    };
    match limits::check_regular(&target) {
        Ok(_) => Ok(target),
        Err(e) => refuse(e.to_string()),
    }
}

/// `.NAME.PID.tmp`, made of the name's bytes as they are (a name that is not UTF-8 is kept).
fn temporary_name(file_name: &OsStr, pid: u32) -> OsString {
    let mut name = OsString::from(".");
    name.push(file_name);
    name.push(format!(".{pid}.tmp"));
    name
}

/// Removes `.NAME.PID.tmp` files in `dir` whose PID is not a running process (checked in
/// `/proc`; without `/proc` nothing is removed) or is ours (no save of ours is under way).
/// A file whose PID was reused by another process stays until that one ends. Best effort:
/// errors are ignored.
fn remove_stale_temporaries(dir: &Path, file_name: &OsStr) {
    remove_stale(dir, |name| name == file_name.as_bytes());
}

/// Removes, in one reading of `dir`, the stale temporaries (as [`write()`] removes those of its
/// file) of every file whose name `saved` accepts. After it, a writer that saves many files of
/// `dir` may save each with [`write_again`]: a directory of a thousand games is read once
/// instead of once a file.
pub fn remove_stale_temporaries_in(dir: &Path, saved: impl Fn(&[u8]) -> bool) {
    remove_stale(dir, saved);
}

fn remove_stale(dir: &Path, saved: impl Fn(&[u8]) -> bool) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.as_bytes().strip_prefix(b".").and_then(|rest| rest.strip_suffix(b".tmp")) else {
            continue;
        };
        let Some(dot) = rest.iter().rposition(|&b| b == b'.') else { continue };
        let (file_name, pid) = (&rest[..dot], &rest[dot + 1..]);
        if !saved(file_name) {
            continue;
        }
        let Some(pid) = std::str::from_utf8(pid).ok().and_then(|p| p.parse::<u32>().ok()) else { continue };
        // One of our own PID is left from a killed process that had it before us.
        let alive = pid != std::process::id() && Path::new(&format!("/proc/{pid}")).exists();
        if !alive && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Holding the signals that would end the program while a save's temporary file exists.
mod signals {
    /// While it lives, SIGINT, SIGTERM, SIGHUP and SIGQUIT wait (on this thread, the one that
    /// saves); dropping it restores the mask, and a waiting signal acts then.
    pub struct Held {
        old: Option<libc::sigset_t>,
    }

    const SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

    impl Held {
        pub fn new() -> Held {
            // SAFETY: `sigset_t` is plain data that `sigemptyset` initialises; the calls only
            // read and write the two sets on this stack frame and this thread's signal mask.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                let mut old: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                for signal in SIGNALS {
                    libc::sigaddset(&mut set, signal);
                }
                let ok = libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old) == 0;
                Held { old: ok.then_some(old) }
            }
        }
    }

    impl Drop for Held {
        fn drop(&mut self) {
            if let Some(old) = &self.old {
                // SAFETY: restores the mask saved by `new` on this thread.
                unsafe {
                    libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
                }
            }
        }
    }

    #[cfg(test)]
    /// Whether SIGTERM is blocked on this thread now.
    pub fn sigterm_blocked() -> bool {
        // SAFETY: reads this thread's mask into a set on the stack.
        unsafe {
            let mut now: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut now);
            libc::sigismember(&now, libc::SIGTERM) == 1
        }
    }
}

/// Reads and checks the envelope of a save file (not yet the game in it). The file must be a
/// regular file of at most [`FileKind::Save`]'s size.
pub fn read(path: &Path) -> Result<SaveFile, SaveError> {
    let text = limits::read_text(path, FileKind::Save)
        .map_err(|e| SaveError::new(path, format!("cannot read the save file: {e}")))?;
    parse(path, &text)
}

/// The first fields of a save, read before the rest so an unknown file is named as such.
#[derive(Deserialize)]
struct Envelope {
    kind: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

/// [`read`] on text already in memory; `path` is for messages. The text is read straight into
/// a [`SaveFile`] (no tree of the whole file is built), and the actions stop at the limit.
pub fn parse(path: &Path, text: &str) -> Result<SaveFile, SaveError> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if !body.is_empty() && !body.starts_with('{') {
        return Err(SaveError::new(path, "not a Diving Suits save file (a save is one JSON object, in braces)"));
    }
    let envelope: Envelope = serde_json::from_str(text)
        .map_err(|e| SaveError::new(path, format!("not a readable save file (corrupt or truncated: {e})")))?;
    if envelope.kind.as_ref().and_then(|k| k.as_str()) != Some(KIND) {
        return Err(SaveError::new(path, "not a Diving Suits save file"));
    }
    match envelope.version.as_ref().and_then(|v| v.as_u64()) {
        Some(v) if (OLDEST_VERSION as u64..=VERSION as u64).contains(&v) => {}
        Some(v) => {
            return Err(SaveError::new(
                path,
                format!("saved in format version {v}, but this diving reads versions {OLDEST_VERSION} to {VERSION}"),
            ));
        }
        None => {
            let why = match &envelope.version {
                None => "the save file has no format version".to_string(),
                Some(v) => format!(
                    "the save file's format version must be a whole number, not {}",
                    limits::quoted(&v.to_string())
                ),
            };
            return Err(SaveError::new(path, why));
        }
    }
    serde_json::from_str(text).map_err(|e| {
        // serde_json ends its message with the place; say it the way the rest of ours do.
        let message = e.to_string();
        let place = format!(" at line {} column {}", e.line(), e.column());
        let message = message.strip_suffix(&place).unwrap_or(&message);
        SaveError::new(path, format!("damaged save file: {message} (line {}, column {})", e.line(), e.column()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Source;

    fn sample() -> SaveFile {
        SaveFile {
            version: VERSION,
            kind: KIND.into(),
            ruleset: "standard".into(),
            rules_hash: Some("fnv1a64:0123456789abcdef".into()),
            mods: Some(vec![ModRecord {
                name: "x".into(),
                version: "0.0.0".into(),
                path: "mods/x.lua".into(),
                hash: "fnv1a64:0000000000000001".into(),
            }]),
            seed: 9,
            players: vec![
                SavedPlayer { name: "alice".into(), bot: None },
                SavedPlayer { name: "greedy".into(), bot: Some("greedy".into()) },
            ],
            deck: crate::core::full_deck(1),
            branch: None,
            actions: vec![Action::Pass],
            steps: vec!["00000000000000ff".into()],
            no_hints: false,
            hot_seat: false,
            notices: Vec::new(),
            state: serde_json::json!({"turn": 1}),
        }
    }

    #[test]
    fn write_then_read_gives_the_same_save() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.json");
        write(&path, &sample()).unwrap();
        assert_eq!(read(&path).unwrap(), sample());
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    /// A save that cannot be made says where: a folder that is not there, or one no file
    /// can be made in (it said only "No such file or directory" for both).
    #[test]
    fn a_save_that_cannot_be_made_names_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere");
        let err = write(&missing.join("game.json"), &sample()).unwrap_err().to_string();
        assert!(err.ends_with(&format!("cannot save: there is no folder '{}'", missing.display())), "{err}");
        let file = dir.path().join("file");
        fs::write(&file, "").unwrap();
        let err = write(&file.join("game.json"), &sample()).unwrap_err().to_string();
        assert!(err.ends_with(&format!("cannot save: '{}' is not a folder", file.display())), "{err}");
        // /proc takes no new files, even from root.
        if cfg!(target_os = "linux") {
            let err = write(Path::new("/proc/game.json"), &sample()).unwrap_err().to_string();
            assert!(err.contains("cannot save: cannot make a file in '/proc': "), "{err}");
        }
    }

    /// An edited save whose recovery names more cards than any hand holds is refused with
    /// the bound, not cut short (the loader names the file).
    #[test]
    fn a_saved_recovery_of_too_many_cards_is_refused_with_the_bound() {
        let cards = vec!["\"2H\""; 17].join(", ");
        let text = format!("{{\"action\": \"recover\", \"cards\": [{cards}]}}");
        let err = serde_json::from_str::<ActionJson>(&text).unwrap_err().to_string();
        assert!(err.starts_with("a recovery names at most 16 cards (found 17)"), "{err}");
    }

    #[test]
    fn signals_are_held_only_while_saving() {
        assert!(!signals::sigterm_blocked());
        {
            let _held = signals::Held::new();
            assert!(signals::sigterm_blocked());
        }
        assert!(!signals::sigterm_blocked());
    }

    #[test]
    fn a_game_longer_than_a_save_holds_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.json");
        let mut save = sample();
        save.actions = vec![Action::Pass; limits::MAX_SAVED_MOVES + 1];
        let err = write(&path, &save).unwrap_err().to_string();
        assert!(err.ends_with("cannot save: the game has 50001 moves, more than the 50000 a save holds"), "{err}");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// Actions and cards keep the form save files have always had: cards as D1 text, actions
    /// tagged `"action"`, choices left out when they are the default.
    #[test]
    fn actions_keep_their_saved_form() {
        let card = |text: &str| -> Card { text.parse().unwrap() };
        let mut save = sample();
        save.deck = vec![card("10H"), card("AS")];
        save.actions = vec![
            Action::play(card("7H"), Source::Hand),
            Action::Play { card: card("JD"), from: Source::Table(3), target: Some(1), face_on_top: true },
            Action::recover(vec![card("2C"), card("3C")]),
            Action::Recover { cards: Cards::try_from([card("4S")]).unwrap(), face_on_top: true },
            Action::Pass,
            Action::Act { name: "buddy".parse().unwrap(), target: Some(2), card: None },
            Action::Act { name: "shout".parse().unwrap(), target: None, card: None },
            Action::Act { name: "toss".parse().unwrap(), target: None, card: Some(card("7H")) },
        ];
        let text = serde_json::to_string(&save).unwrap();
        let expected = concat!(
            r#""deck":["10H","AS"],"actions":["#,
            r#"{"action":"play","card":"7H","from":"hand"},"#,
            r#"{"action":"play","card":"JD","from":{"table":3},"target":1,"face_on_top":true},"#,
            r#"{"action":"recover","cards":["2C","3C"]},"#,
            r#"{"action":"recover","cards":["4S"],"face_on_top":true},"#,
            r#"{"action":"pass"},"#,
            r#"{"action":"act","name":"buddy","target":2},"#,
            r#"{"action":"act","name":"shout"},"#,
            r#"{"action":"act","name":"toss","card":"7H"}]"#,
        );
        assert!(text.contains(expected), "{text}");
        assert_eq!(parse(Path::new("x.json"), &text).unwrap(), save);
    }

    /// What a damaged deck or action says is part of the message a player sees.
    #[test]
    fn damaged_actions_and_cards_say_what_is_wrong() {
        let good = serde_json::to_string(&sample()).unwrap();
        let pass = r#"{"action":"pass"}"#;
        let cases = [
            (
                good.replace(pass, r#"{"action":"dive"}"#),
                "unknown variant `dive`, expected one of `play`, `recover`, `pass`, `act`",
            ),
            (
                good.replace(pass, r#"{"action":"act","name":"Buddy"}"#),
                "an action's name is 1 to 15 characters: a lower-case letter, then letters, digits, `_` or `-` (got \"Buddy\")",
            ),
            (good.replace(pass, r#"{"act":"pass"}"#), "missing field `action`"),
            (good.replace(pass, r#"{"action":"play","card":"7H"}"#), "missing field `from`"),
            (
                good.replace(pass, r#"{"action":"play","card":"ZZ","from":"hand"}"#),
                "'ZZ' is not a card (write rank then suit, like 7H, 10S, TD, QC or A♠)",
            ),
            (
                good.replace(pass, r#"{"action":"play","card":"7H","from":"pocket"}"#),
                "unknown variant `pocket`, expected `hand` or `table`",
            ),
            (
                good.replace(pass, r#"{"action":"recover","cards":"7H"}"#),
                "invalid type: string \"7H\", expected a sequence",
            ),
            (
                good.replace(pass, r#"{"action":"play","card":7,"from":"hand"}"#),
                "invalid type: integer `7`, expected a string",
            ),
            (
                good.replacen(r#""AS""#, r#""1X""#, 1),
                "'1X' is not a card (write rank then suit, like 7H, 10S, TD, QC or A♠)",
            ),
        ];
        for (text, expected) in cases {
            let err = parse(Path::new("x.json"), &text).unwrap_err().to_string();
            let start = format!("x.json: damaged save file: {expected} (line 1, column ");
            assert!(err.starts_with(&start), "{err}");
        }
    }

    /// A version 1 file (no records) is still read, and reads as a save without them.
    #[test]
    fn version_1_files_are_read() {
        let mut old = sample();
        old.version = 1;
        old.rules_hash = None;
        old.mods = None;
        old.steps = Vec::new();
        let text = serde_json::to_string(&old).unwrap();
        assert!(!text.contains("rules_hash") && !text.contains("steps"), "{text}");
        assert_eq!(parse(Path::new("x.json"), &text).unwrap(), old);
    }

    #[test]
    fn bad_files_are_refused_with_the_file_named() {
        let p = Path::new("x.json");
        let good = serde_json::to_string(&sample()).unwrap();
        let cases = [
            (&good[..good.len() / 2], "corrupt or truncated"),
            ("{}", "not a Diving Suits save"),
            (&good.replace("\"version\":4", "\"version\":99"), "version 99"),
            (&good.replace("\"seed\":9", "\"seed\":\"nine\""), "damaged"),
        ];
        for (text, expected) in cases {
            let err = parse(p, text).unwrap_err().to_string();
            assert!(err.starts_with("x.json: "), "{err}");
            assert!(err.contains(expected), "{err}");
        }
    }
}
