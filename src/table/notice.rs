//! What happened to a game besides its moves, that every person at its table must be told:
//! a save made (a save holds every hand), the rules reloaded (and what changed), the game
//! resumed from a file, a save of it opened with every hand shown, the game suspended
//! (Ctrl-Z) while someone had the keyboard.
//!
//! A [`Notice`] is kept with the game and written in its saves (and autosaves), with the seats
//! already told; a hot-seat terminal tells each person the notices they were not told at
//! their next hand-over. Nothing here can stop someone who has the keyboard from reading
//! the game's files: what it ensures is that the others learn it was possible.

use serde::{Deserialize, Serialize};

use crate::core::{Game, Seat};
use crate::limits;

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Happening {
    /// `save FILE` (or a file name given when leaving).
    Saved { file: String },
    /// `reload`: the ruleset and its mods read again; `changes` names what differs from the
    /// rules the game was played under until then (empty: nothing).
    Reloaded {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        changes: Vec<String>,
    },
    /// The game was left and taken up again from `file`.
    Resumed { file: String },
    /// A save of this game (`file`) was opened showing every hand (`--reveal-hands`), `how`
    /// (in a pipe, with --json, at a terminal whose output goes elsewhere).
    Opened { file: String, how: String },
    /// Every hand of this hot-seat game is also shown `how` (`--reveal-hands`: its output is
    /// not a terminal).
    Shown { how: String },
    /// The program was stopped (Ctrl-Z) and went on later: meanwhile the game's files could
    /// be read.
    Suspended,
}

/// One thing that happened, when and by whom, and who was told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// The turn it happened in.
    pub turn: u32,
    /// The seat at the keyboard, when one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<Seat>,
    #[serde(flatten)]
    pub what: Happening,
    /// The seats that have been told (the one who did it is, at once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub told: Vec<Seat>,
}

impl Notice {
    /// What happened, in a sentence for `game`'s players (a file name is [`limits::shown`]:
    /// it may come from a save).
    pub fn text(&self, game: &Game) -> String {
        let name = |seat: Seat| {
            if seat < game.player_count() { game.name(seat).to_string() } else { format!("seat {}", seat + 1) }
        };
        let who = self.by.map(name);
        let shown = |text: &str| limits::shown(text, limits::NewLines::Escaped);
        let turn = self.turn;
        match (&self.what, who) {
            (Happening::Saved { file }, Some(who)) => {
                format!("{who} saved the game to {} at turn {turn} (a save holds every hand)", shown(file))
            }
            (Happening::Saved { file }, None) => {
                format!("the game was saved to {} at turn {turn} (a save holds every hand)", shown(file))
            }
            (Happening::Reloaded { changes }, who) => {
                let who = who.map_or("the rules were reloaded".to_string(), |w| format!("{w} reloaded the rules"));
                if changes.is_empty() {
                    format!("{who} at turn {turn}; they had not changed")
                } else {
                    format!("{who} at turn {turn}, and they had changed: {}", shown(&changes.join("; ")))
                }
            }
            (Happening::Resumed { file }, _) => {
                format!("the game was left, then taken up again at turn {turn} from {}", shown(file))
            }
            (Happening::Opened { file, how }, _) => format!(
                "a save of this game, {}, was opened {} with every hand shown (--reveal-hands), at turn {turn}",
                shown(file),
                shown(how)
            ),
            (Happening::Shown { how }, _) => {
                format!("from turn {turn} every hand of this game is also written {} (--reveal-hands)", shown(how))
            }
            (Happening::Suspended, Some(who)) => format!(
                "the game was stopped (Ctrl-Z) at turn {turn} while {who} had the keyboard: meanwhile its files \
                 could be read"
            ),
            (Happening::Suspended, None) => format!(
                "the game was stopped (Ctrl-Z) at turn {turn}, at a hand-over: meanwhile its files could be read"
            ),
        }
    }

    /// Whether `other` is the same happening (what, when and by whom), whoever was told.
    pub fn same(&self, other: &Notice) -> bool {
        self.turn == other.turn && self.by == other.by && self.what == other.what
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_says_what_happened_when_and_by_whom() {
        let game = Game::standard(&["alice", "bob"], 1).unwrap();
        let saved =
            Notice { turn: 12, by: Some(0), what: Happening::Saved { file: "peek.json".into() }, told: vec![0] };
        assert_eq!(saved.text(&game), "alice saved the game to peek.json at turn 12 (a save holds every hand)");
        let reload = Notice {
            turn: 13,
            by: Some(1),
            what: Happening::Reloaded { changes: vec!["mod mods/x.lua changed".into()] },
            told: vec![],
        };
        assert_eq!(
            reload.text(&game),
            "bob reloaded the rules at turn 13, and they had changed: mod mods/x.lua changed"
        );
        let json = serde_json::to_string(&saved).unwrap();
        assert_eq!(json, r#"{"turn":12,"by":0,"what":"saved","file":"peek.json","told":[0]}"#);
        assert_eq!(serde_json::from_str::<Notice>(&json).unwrap(), saved);
        // A file name from a save cannot drive the terminal.
        let odd = Notice { turn: 1, by: None, what: Happening::Saved { file: "a\u{1b}[2Jb".into() }, told: vec![] };
        assert!(odd.text(&game).contains("a\\u{1b}[2Jb"), "{}", odd.text(&game));
    }
}
