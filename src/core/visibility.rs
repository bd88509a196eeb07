//! What a seat may see: the one place that decides it. A [`Viewer`] is a seat, a spectator,
//! or everyone (a finished game shown whole); [`Viewer::sees_hand`] says whose hand it sees,
//! and [`Viewer::sees`] what an [`Event`] looks like to it.
//!
//! Everything else is public: depths, oxygen, cards in front, the table, the discard pile,
//! the number of cards in each hand and in the deck. Hidden are the other hands, the deck
//! order and the seed; the only events that name a hidden card are [`Event::Drew`] and
//! [`Event::Returned`] from a hand (every other card an event names is face up on the table,
//! the pile or in front of a diver, or was: a card taken from the pile into a hand). The
//! hot-seat shell, the JSON layer and (next) the server show events through this; a bot sees
//! the state through a [`View`](super::View), which has no accessor for what is hidden.

use super::action::Seat;
use super::event::Event;

/// Who is looking at a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// A player: sees their own hand.
    Seat(Seat),
    /// Someone watching: sees no hand.
    Spectator,
    /// Every card (a finished game, a scripted game whose driver sees everything).
    Everyone,
}

/// An event as one viewer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen<'e> {
    /// The whole event: it names nothing this viewer may not see.
    Whole(&'e Event),
    /// `player` drew a card this viewer may not see.
    HiddenDraw { player: Seat },
    /// `player` put a card from their hand back into the deck, which this viewer may not see.
    HiddenReturn { player: Seat },
}

impl Viewer {
    /// Whether this viewer sees the cards in `seat`'s hand.
    #[inline]
    pub fn sees_hand(self, seat: Seat) -> bool {
        match self {
            Viewer::Seat(me) => me == seat,
            Viewer::Spectator => false,
            Viewer::Everyone => true,
        }
    }

    /// What `event` looks like to this viewer.
    pub fn sees(self, event: &Event) -> Seen<'_> {
        match *event {
            Event::Drew { player, .. } if !self.sees_hand(player) => Seen::HiddenDraw { player },
            Event::Returned { player: Some(player), .. } if !self.sees_hand(player) => Seen::HiddenReturn { player },
            _ => Seen::Whole(event),
        }
    }
}
