//! Saved games on disk: the versioned JSON format, written atomically, read back with errors
//! that name the file.
//!
//! A save holds what is needed to replay the game exactly — ruleset, seed, players, the
//! initial deck (top first) and every action — plus a snapshot of the state the replay must
//! reach. Checking that snapshot is the loader's job (it needs the rules engine); this module
//! only moves bytes and checks the envelope.
//!
//! The format is fixed here, not by the core, which knows no serde: cards are written as the
//! JSON layer writes them ([`CardJson`]) and actions through their mirror [`ActionJson`].

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::json::{CardJson, SourceJson, card_list};
use crate::core::{Action, Card, Cards, Seat};

/// The format version this program writes and reads.
pub const VERSION: u32 = 1;

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
    pub seed: u64,
    pub players: Vec<SavedPlayer>,
    /// The deck before the deal, top first.
    #[serde(with = "card_list")]
    pub deck: Vec<Card>,
    /// Every action, in order.
    #[serde(with = "action_list")]
    pub actions: Vec<Action>,
    /// The state the actions lead to (the JSON `state` object).
    pub state: serde_json::Value,
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
            Action::Recover { ref cards, face_on_top } => ActionJson::Recover { cards: cards.clone(), face_on_top },
            Action::Pass => ActionJson::Pass,
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
        }
    }
}

/// A list of [`Action`]s as [`ActionJson`], for `#[serde(with = "action_list")]`.
mod action_list {
    use super::*;

    pub fn serialize<S: Serializer>(actions: &[Action], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(actions.iter().map(ActionJson::from))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Action>, D::Error> {
        Ok(Vec::<ActionJson>::deserialize(d)?.into_iter().map(Action::from).collect())
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

/// Writes `save` to `path` atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over the target. A failure leaves any earlier file untouched.
pub fn write(path: &Path, save: &SaveFile) -> Result<(), SaveError> {
    let err = |e: std::io::Error| SaveError::new(path, format!("cannot save: {e}"));
    let mut text = serde_json::to_string_pretty(save).expect("save files serialise");
    text.push('\n');
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().ok_or_else(|| SaveError::new(path, "cannot save: not a file name"))?;
    let tmp = dir.join(format!(".{}.{}.tmp", file_name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(err)
}

/// Reads and checks the envelope of a save file (not yet the game in it).
pub fn read(path: &Path) -> Result<SaveFile, SaveError> {
    let text = fs::read_to_string(path).map_err(|e| SaveError::new(path, format!("cannot read the save file: {e}")))?;
    parse(path, &text)
}

/// [`read`] on text already in memory; `path` is for messages.
pub fn parse(path: &Path, text: &str) -> Result<SaveFile, SaveError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| SaveError::new(path, format!("not a readable save file (corrupt or truncated: {e})")))?;
    if value.get("kind").and_then(|k| k.as_str()) != Some(KIND) {
        return Err(SaveError::new(path, "not a Diving Suits save file"));
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == VERSION as u64 => {}
        Some(v) => {
            return Err(SaveError::new(
                path,
                format!("saved in format version {v}, but this diving reads version {VERSION}"),
            ));
        }
        None => return Err(SaveError::new(path, "the save file has no format version")),
    }
    serde_json::from_value(value).map_err(|e| SaveError::new(path, format!("damaged save file: {e}")))
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
            seed: 9,
            players: vec![
                SavedPlayer { name: "alice".into(), bot: None },
                SavedPlayer { name: "greedy".into(), bot: Some("greedy".into()) },
            ],
            deck: crate::core::full_deck(1),
            actions: vec![Action::Pass],
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
            Action::Recover { cards: [card("4S")].into_iter().collect(), face_on_top: true },
            Action::Pass,
        ];
        let text = serde_json::to_string(&save).unwrap();
        let expected = concat!(
            r#""deck":["10H","AS"],"actions":["#,
            r#"{"action":"play","card":"7H","from":"hand"},"#,
            r#"{"action":"play","card":"JD","from":{"table":3},"target":1,"face_on_top":true},"#,
            r#"{"action":"recover","cards":["2C","3C"]},"#,
            r#"{"action":"recover","cards":["4S"],"face_on_top":true},"#,
            r#"{"action":"pass"}]"#,
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
                "unknown variant `dive`, expected one of `play`, `recover`, `pass`",
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
            assert_eq!(err, format!("x.json: damaged save file: {expected}"));
        }
    }

    #[test]
    fn bad_files_are_refused_with_the_file_named() {
        let p = Path::new("x.json");
        let good = serde_json::to_string(&sample()).unwrap();
        let cases = [
            (&good[..good.len() / 2], "corrupt or truncated"),
            ("{}", "not a Diving Suits save"),
            (&good.replace("\"version\":1", "\"version\":99"), "version 99"),
            (&good.replace("\"seed\":9", "\"seed\":\"nine\""), "damaged"),
        ];
        for (text, expected) in cases {
            let err = parse(p, text).unwrap_err().to_string();
            assert!(err.starts_with("x.json: "), "{err}");
            assert!(err.contains(expected), "{err}");
        }
    }
}
