//! What one viewer may know of a game, as one value: [`Observation::of`]. Every renderer —
//! the text board, the JSON state, the browser seat's view, a replay and its page — reads the
//! game through it, so none of them asks [`Viewer::sees_hand`] or decides whether the deck is
//! shown: a hand it may not see is not there (`None`), and the deck's order appears only for
//! [`Viewer::Everyone`].
//!
//! Everything public is here too (depths, oxygen, cards in front, hand sizes, the table, the
//! discard pile, the deck's size, the turn and outcome, the names, rules and registry), so a
//! renderer needs nothing else of the game.

use super::action::Seat;
use super::card::Card;
use super::effects::Registry;
use super::event::Event;
use super::game::Game;
use super::rules::Rules;
use super::seats::Seats;
use super::state::{Outcome, Teams};
use super::visibility::{Seen, Viewer};

/// A game as one viewer may see it.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'g> {
    game: &'g Game,
    viewer: Viewer,
}

/// One diver as a viewer sees it: everything but a hand it may not see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeenDiver<'g> {
    pub seat: Seat,
    pub name: &'g str,
    pub depth: u32,
    pub oxygen: u32,
    pub front: &'g [Card],
    pub hand_size: usize,
    /// The hand, when this viewer may see it.
    pub hand: Option<&'g [Card]>,
    /// The diver's team (from 0), when the game is played in teams.
    pub team: Option<usize>,
}

impl<'g> Observation<'g> {
    /// `game` as `viewer` may see it.
    pub fn of(game: &'g Game, viewer: Viewer) -> Observation<'g> {
        Observation { game, viewer }
    }

    pub fn viewer(&self) -> Viewer {
        self.viewer
    }

    /// `seat`'s hand, when this viewer may see it.
    pub fn hand(&self, seat: Seat) -> Option<&'g [Card]> {
        self.viewer.sees_hand(seat).then(|| self.game.player(seat).hand.as_slice())
    }

    /// The deck, top first, for a viewer who sees every card; `None` for anyone else.
    pub fn deck(&self) -> Option<Vec<Card>> {
        (self.viewer == Viewer::Everyone).then(|| self.game.deck().collect())
    }

    /// What `event` looks like to this viewer.
    pub fn event<'e>(&self, event: &'e Event) -> Seen<'e> {
        self.viewer.sees(event)
    }

    /// Each diver in seat order.
    pub fn divers(&self) -> impl Iterator<Item = SeenDiver<'g>> + '_ {
        (0..self.game.player_count()).map(|seat| self.diver(seat))
    }

    /// One diver.
    pub fn diver(&self, seat: Seat) -> SeenDiver<'g> {
        let p = self.game.player(seat);
        SeenDiver {
            seat,
            name: self.game.name(seat),
            depth: p.depth,
            oxygen: p.oxygen,
            front: &p.front,
            hand_size: p.hand.len(),
            hand: self.hand(seat),
            team: self.game.teams().map(|t| t.team(seat)),
        }
    }

    pub fn player_count(&self) -> usize {
        self.game.player_count()
    }

    pub fn names(&self) -> &'g [String] {
        self.game.names()
    }

    pub fn name(&self, seat: Seat) -> &'g str {
        self.game.name(seat)
    }

    pub fn rules(&self) -> &'g Rules {
        self.game.rules()
    }

    pub fn registry(&self) -> &'g Registry {
        self.game.registry()
    }

    pub fn turn(&self) -> u32 {
        self.game.turn()
    }

    pub fn current(&self) -> Seat {
        self.game.current()
    }

    /// Whether play goes round the table backwards.
    pub fn is_reversed(&self) -> bool {
        self.game.is_reversed()
    }

    /// Who moves after this turn by the built-in order (D4, reversals and turns given).
    pub fn next_in_order(&self) -> Seat {
        self.game.next_in_order()
    }

    /// Whether an effect changed the order of play (a reversal, a turn given).
    pub fn order_changed(&self) -> bool {
        self.game.is_reversed() || self.game.given_turn().is_some()
    }

    pub fn outcome(&self) -> Outcome {
        self.game.outcome()
    }

    pub fn is_over(&self) -> bool {
        self.game.is_over()
    }

    pub fn winner(&self) -> Option<Seat> {
        self.game.winner()
    }

    /// Everyone who won (the winner's team, a shared win).
    pub fn winners(&self) -> Seats {
        self.game.winners()
    }

    /// The teams, when the game is played in teams.
    pub fn teams(&self) -> Option<&'g Teams> {
        self.game.teams()
    }

    pub fn table(&self) -> &'g [Option<Card>] {
        self.game.table()
    }

    pub fn discard_pile(&self) -> &'g [Card] {
        self.game.discard_pile()
    }

    pub fn discard_top(&self) -> Option<Card> {
        self.game.discard_top()
    }

    pub fn deck_size(&self) -> usize {
        self.game.deck_size()
    }
}
