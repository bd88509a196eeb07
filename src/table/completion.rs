//! What Tab completes for one reader ([`Words`]): its own hand, the table, its legal plays as
//! the commands that make them, and the players a pending question allows. Worked out once,
//! here, from what the reader may see ([`Observation`]) and the core's listing: the shell's
//! line editor completes from it, and so does `diving join` (the host sends it).

use serde::{Deserialize, Serialize};

use crate::core::{Action, Game, Observation, Seat, View, Viewer};
use crate::table::command::Question;
use crate::table::render;

/// What Tab completion offers, refreshed whenever the game moves (by the shell, or by what a
/// host sends `diving join`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Words {
    pub hand: Vec<String>,
    pub table: Vec<String>,
    /// Every legal play, as the command that plays it (`play 7H t2 bob over`): after a card,
    /// completion offers the words that can follow it, as the core's listing has them. A
    /// mod's listed actions are here too, as they are typed (`buddy bob`).
    pub plays: Vec<String>,
    /// While a question asks for one of these (a player), completion offers only them.
    pub choices: Option<Vec<String>>,
}

impl Words {
    /// What `seat` (`None`: a spectator) completes in `game` while `question` waits for its
    /// answer: its hand as it may see it, the table, its plays when it is to move and no
    /// question waits.
    pub fn of(game: &Game, seat: Option<Seat>, question: Option<&Question>) -> Words {
        let hand = seat
            .and_then(|s| Observation::of(game, Viewer::Seat(s)).hand(s))
            .map(|cards| cards.iter().map(ToString::to_string).collect())
            .unwrap_or_default();
        let plays = match seat {
            Some(s) if !game.is_over() && game.current() == s && question.is_none() => View::new(game, s)
                .legal_actions()
                .iter()
                .filter(|a| matches!(a, Action::Play { .. } | Action::Act { .. }))
                .map(|a| render::command_for(game, a))
                .collect(),
            _ => Vec::new(),
        };
        Words {
            hand,
            table: game.table().iter().flatten().map(ToString::to_string).collect(),
            plays,
            choices: question.map(|q| q.options().to_vec()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::seating::Seating;
    use crate::table::session::Session;

    fn game() -> Session {
        let seats = ["alice", "bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
        Session::new("standard", seats, 3, None).unwrap()
    }

    #[test]
    fn a_seat_completes_its_own_hand_and_plays_on_its_turn_only() {
        let session = game();
        let game = session.game();
        let current = game.current();
        let other = 1 - current;
        let mover = Words::of(game, Some(current), None);
        assert_eq!(mover.hand.len(), View::new(game, current).hand().len());
        assert!(!mover.plays.is_empty() && mover.plays.iter().all(|p| p.starts_with("play ")));
        let waiting = Words::of(game, Some(other), None);
        assert!(waiting.plays.is_empty(), "no plays out of turn");
        assert!(waiting.hand.iter().all(|c| !mover.hand.contains(c)), "each sees its own hand");
        let spectator = Words::of(game, None, None);
        assert!(spectator.hand.is_empty() && spectator.plays.is_empty());
        assert_eq!(spectator.table, mover.table);
        let asked = Question::Target {
            card: "KC".parse().unwrap(),
            role: "who".into(),
            options: vec!["bob".into()],
            problem: None,
        };
        let answering = Words::of(game, Some(current), Some(&asked));
        assert!(answering.plays.is_empty());
        assert_eq!(answering.choices, Some(vec!["bob".to_string()]));
    }
}
