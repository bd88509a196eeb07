//! What the rules in force would answer for a move being weighed ([`Forecast`]): the oxygen a
//! move would cost, what a discard would bring back, whether a depth would win — asked of the
//! registry's hooks, whatever a mod made of them, without changing the game.
//!
//! A planner (a bot) reads the per-ruleset [`Tables`](super::Tables) while the hooks are the
//! built-in ones ([`Registry::plans_from_tables`]): they answer from the tables and the depth
//! alone, so the tables are the answer, worked out once. When a mod replaced one of them, the
//! planner asks a `Forecast` instead. Each question runs the hook on a scratch copy of a
//! position consistent with what the seat sees ([`View::sample`](super::View::sample) with a
//! fixed seed), so the answer depends on nothing the seat cannot see, the hook may change the
//! copy as it likes (its events go nowhere), and the game itself is untouched.
//!
//! The position is the one before the move, brought as close to the hook's moment as the
//! question says: the diver at the depth asked about for the cost and the win check (as after
//! a move, D10, D11), the cards out of the hand and on the discard pile for the gain (as in a
//! recovery, D19).
//!
//! A planner that does not know what a play does (a mod's card, or a hook acting on its
//! moves: [`Registry::plays_as_modelled`]) asks [`Forecast::play`] for the position after it
//! under the rules in force, and [`Forecast::play_modelled`] for the position its model of
//! the rules expects (the built-in card), and weighs the difference.

use std::sync::Arc;

use super::action::{Action, ActionError, Seat};
use super::card::Card;
use super::ctx::{Context, Hooks};
use super::effects::Registry;
use super::error::EffectError;
use super::event::Event;
use super::game::Game;
use super::rules::Gain;
use super::state::State;

/// Questions about moves put to the hooks in force, on a copy of one seat's view of a game
/// (see the module doc). Made by [`View::forecast`](super::View::forecast).
pub struct Forecast {
    /// The position asked about: the hidden cards dealt as the seat could imagine them.
    game: Game,
    /// The copy each question runs on, reused from one question to the next.
    scratch: State,
}

impl Forecast {
    pub(super) fn new(game: Game) -> Forecast {
        let scratch = game.state().clone();
        Forecast { game, scratch }
    }

    /// The registry whose hooks answer.
    pub fn registry(&self) -> &Arc<Registry> {
        self.game.registry()
    }

    /// What `card` would be worth to `seat` playing it now, before doubling (D8, or the mod's
    /// hook).
    pub fn card_value(&mut self, seat: Seat, card: Card) -> Result<u32, EffectError> {
        self.fresh(seat)?;
        let registry = Arc::clone(self.game.registry());
        Context::new(&mut self.scratch, &registry, &mut ()).card_value(seat, card)
    }

    /// The oxygen `seat` would spend after a move ending at `depth` (D10, or the mod's hook).
    pub fn cost(&mut self, seat: Seat, depth: u32) -> Result<u32, EffectError> {
        self.at_depth(seat, depth)?;
        let registry = Arc::clone(self.game.registry());
        registry.cost(&mut Context::new(&mut self.scratch, &registry, &mut ()), seat, depth)
    }

    /// Whether `seat` would have won on reaching `depth` (D11, or the mod's hook).
    pub fn wins_at(&mut self, seat: Seat, depth: u32) -> Result<bool, EffectError> {
        self.at_depth(seat, depth)?;
        let registry = Arc::clone(self.game.registry());
        registry.won(&mut Context::new(&mut self.scratch, &registry, &mut ()), seat)
    }

    /// What `seat` would gain by discarding `cards` from their hand in a recovery (D19, or
    /// the mod's hook), before the Knot (D16) and the maximum: the hook's own answer.
    pub fn gain(&mut self, seat: Seat, cards: &[Card]) -> Result<Gain, EffectError> {
        self.fresh(seat)?;
        for &card in cards {
            let hand = &mut self.scratch.players[seat].hand;
            if let Some(i) = hand.iter().position(|&c| c == card) {
                hand.remove(i);
            }
            self.scratch.discard.push(card);
        }
        let registry = Arc::clone(self.game.registry());
        registry.gain_of(&mut Context::new(&mut self.scratch, &registry, &mut ()), seat, cards)
    }

    /// What playing `action` leads to under the rules in force: a copy of the position
    /// after it, and the events it made (the next turn's start hooks included). A refusal or
    /// a failing entry comes back as the engine's error. The position itself is untouched.
    pub fn play(&self, action: &Action) -> Result<(Game, Vec<Event>), ActionError> {
        let mut game = self.game.clone();
        let mut events = Vec::new();
        game.apply(action, &mut events)?;
        Ok((game, events))
    }

    /// What a planner's model says `action` leads to: the play resolved, unchecked, under
    /// [`Registry::modelled`] for its rank (the card's built-in entry, no after-move hook, the
    /// built-in rescue). Compared with [`Forecast::play`], it shows what the rules in force
    /// add to the model; for a pass-through wrap, nothing.
    pub fn play_modelled(&self, action: &Action) -> Result<(Game, Vec<Event>), ActionError> {
        let rank = match action {
            Action::Play { card, .. } => card.rank,
            _ => return self.play(action),
        };
        // The copy's own registry is held while the game runs on what is made of it, so that
        // the state it keeps outside the game (a mod's Lua) is not handed to another copy.
        let copy = Registry::for_copy(self.game.registry());
        let mut game = self.game.with_registry(Arc::new(copy.modelled(rank)));
        let mut events = Vec::new();
        let result = game.apply_unchecked(action, &mut events);
        drop(copy);
        result.map(|()| (game, events))
    }

    /// The scratch copy made equal to the position again, with `seat` checked.
    fn fresh(&mut self, seat: Seat) -> Result<(), EffectError> {
        if seat >= self.game.player_count() {
            return Err(EffectError::new(format!("there is no player {}", seat + 1)));
        }
        self.scratch.clone_from(self.game.state());
        Ok(())
    }

    /// The scratch copy with `seat`'s diver at `depth` (within the ocean).
    fn at_depth(&mut self, seat: Seat, depth: u32) -> Result<(), EffectError> {
        self.fresh(seat)?;
        let max = self.scratch.rules().max_depth;
        self.scratch.players[seat].depth = depth.min(max);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Planning, Rules, View};

    /// Built-in hooks answer through a forecast what the tables say, and asking changes nothing.
    #[test]
    fn built_in_hooks_answer_as_the_tables() {
        let game = Game::standard(&["a", "b", "c"], 7).unwrap();
        let before = game.clone();
        let view = View::new(&game, 1);
        assert!(view.plans_from_tables());
        assert_eq!(view.builtin_planning(), Planning { value: true, cost: true, gain: true, win: true });
        let mut forecast = view.forecast();
        let rules = Rules::default();
        for depth in 0..=rules.max_depth {
            assert_eq!(forecast.cost(2, depth), Ok(game.tables().cost(depth)), "depth {depth}");
            assert_eq!(forecast.wins_at(0, depth), Ok(depth >= rules.max_depth), "depth {depth}");
        }
        let hand = view.hand().to_vec();
        for mask in 1..1u32 << hand.len() {
            let cards = crate::core::cards_in_mask(&hand, mask);
            assert_eq!(forecast.gain(1, &cards), Ok(game.tables().gain(&cards)), "{cards:?}");
        }
        assert_eq!(forecast.cost(3, 10), Err(EffectError::new("there is no player 4")));
        assert!(game == before, "a forecast changed the game");
    }

    /// A replaced hook is asked, on a position where the diver is at the depth asked about.
    #[test]
    fn a_replaced_hook_is_asked() {
        let mut registry = Registry::standard();
        registry.set_oxygen_cost(Arc::new(|ctx, player, depth| Ok(depth / 10 + ctx.state().player(player).depth % 7)));
        registry.set_win_check(Arc::new(|ctx, player| Ok(ctx.state().player(player).depth >= 50)));
        registry.set_recovery_gain(Arc::new(|ctx, _, cards| {
            Ok(Gain::Amount(cards.len() as u32 + ctx.state().discard_pile().len() as u32))
        }));
        let setup = crate::core::Setup { names: vec!["a".into(), "b".into()], seed: 3, deck: None };
        let game = Game::new(Arc::new(Rules::default()), Arc::new(registry), setup).unwrap();
        let view = View::new(&game, 0);
        assert!(!view.plans_from_tables());
        assert_eq!(view.builtin_planning(), Planning { value: true, cost: false, gain: false, win: false });
        let mut forecast = view.forecast();
        assert_eq!(forecast.cost(0, 64), Ok(6 + 64 % 7));
        assert_eq!(forecast.wins_at(1, 49), Ok(false));
        assert_eq!(forecast.wins_at(1, 50), Ok(true));
        let two = &view.hand()[..2];
        let pile = view.discard_pile().len() as u32;
        assert_eq!(forecast.gain(0, two), Ok(Gain::Amount(2 + pile + 2)));
    }
}
