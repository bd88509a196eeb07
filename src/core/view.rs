//! What one seat may see ([`View`]): its own hand, the table, the discard pile, the counts,
//! and every diver's depth, oxygen and cards in front — never another hand or the deck order.
//!
//! Bots receive a `View`, not a [`Game`], so they cannot peek. A search bot that needs a full
//! game to simulate asks for [`View::sample`]: the hidden cards dealt at random, consistent
//! with everything the seat has seen.

use std::sync::Arc;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::action::{Action, Seat};
use super::card::{Card, full_deck};
use super::forecast::Forecast;
use super::game::Game;
use super::legal::Moves;
use super::rules::Rules;
use super::state::{Outcome, Player, State};
use super::tables::Tables;

/// The seed the hidden cards of a [`View::forecast`] are dealt with.
const FORECAST_SEED: u64 = 0x00F0_CA57;

/// A diver as everyone can see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Diver<'a> {
    pub depth: u32,
    pub oxygen: u32,
    pub hand_size: usize,
    pub front: &'a [Card],
    front_ranks: u16,
}

impl Diver<'_> {
    /// Whether a card of `rank` lies in front of this diver.
    #[inline]
    pub fn has_front(&self, rank: crate::core::Rank) -> bool {
        self.front_ranks & (1 << rank.number()) != 0
    }
}

/// One seat's window on a game.
#[derive(Clone, Copy)]
pub struct View<'a> {
    game: &'a Game,
    seat: Seat,
}

impl<'a> View<'a> {
    pub fn new(game: &'a Game, seat: Seat) -> View<'a> {
        View { game, seat }
    }
    /// The seat looking.
    pub fn seat(&self) -> Seat {
        self.seat
    }
    pub fn rules(&self) -> &'a Rules {
        self.game.rules()
    }
    /// The shared rules, for clients that cache what they derive from them (compare with
    /// [`Arc::ptr_eq`]).
    pub fn rules_arc(&self) -> &'a Arc<Rules> {
        self.game.rules_arc()
    }
    /// The per-ruleset tables (oxygen cost by depth, recovery gain), shared by every game of
    /// the ruleset (compare with [`Arc::ptr_eq`] to cache what you derive from them).
    pub fn tables(&self) -> &'a Arc<Tables> {
        self.game.tables()
    }
    pub fn names(&self) -> &'a [String] {
        self.game.names()
    }
    pub fn hand(&self) -> &'a [Card] {
        &self.game.player(self.seat).hand
    }
    pub fn table(&self) -> &'a [Option<Card>] {
        self.game.table()
    }
    /// The discard pile, bottom first (public: everyone saw each card go there).
    pub fn discard_pile(&self) -> &'a [Card] {
        self.game.discard_pile()
    }
    pub fn discard_top(&self) -> Option<Card> {
        self.game.discard_top()
    }
    pub fn deck_size(&self) -> usize {
        self.game.deck_size()
    }
    pub fn player_count(&self) -> usize {
        self.game.player_count()
    }
    /// `seat` and their teammates (`seat` alone without teams).
    pub fn team_of(&self, seat: Seat) -> super::seats::Seats {
        self.game.team_of(seat)
    }
    /// `seat`'s teammates, not `seat` (nobody without teams).
    pub fn teammates(&self, seat: Seat) -> super::seats::Seats {
        self.game.teammates(seat)
    }
    pub fn diver(&self, seat: Seat) -> Diver<'a> {
        let p = self.game.player(seat);
        Diver {
            depth: p.depth,
            oxygen: p.oxygen,
            hand_size: p.hand.len(),
            front: &p.front,
            front_ranks: p.front_ranks(),
        }
    }
    pub fn current(&self) -> Seat {
        self.game.current()
    }
    pub fn turn(&self) -> u32 {
        self.game.turn()
    }
    /// Whether play goes round the table backwards.
    pub fn is_reversed(&self) -> bool {
        self.game.is_reversed()
    }
    /// Who moves after this turn by the built-in order (D4, a reversal, a turn given; a
    /// mod's own `next_turn` may say otherwise when the turn ends).
    pub fn next_in_order(&self) -> Seat {
        self.game.next_in_order()
    }
    pub fn outcome(&self) -> Outcome {
        self.game.outcome()
    }
    /// What this seat may do now ([`Moves`]): empty when it is not its turn (what is legal
    /// depends only on what the seat can see).
    pub fn moves(&self) -> Moves<'a> {
        if self.game.current() == self.seat { self.game.moves() } else { Moves::none() }
    }

    /// The legal actions, when it is this seat's turn ([`View::moves`]).
    pub fn legal_actions(&self) -> Vec<Action> {
        self.moves().to_vec()
    }

    /// Whether the hooks a planner asks about (oxygen cost, recovery gain, win check) are the
    /// built-in ones, so that [`View::tables`] answers what they would
    /// ([`Registry::plans_from_tables`](super::Registry::plans_from_tables)).
    #[inline]
    pub fn plans_from_tables(&self) -> bool {
        self.game.registry().plans_from_tables()
    }

    /// Whether a planner that knows the built-in cards knows what every play does
    /// ([`Registry::plays_as_modelled`](super::Registry::plays_as_modelled)).
    #[inline(always)]
    pub fn plays_as_modelled(&self) -> bool {
        self.game.registry().plays_as_modelled()
    }

    /// Whether it knows what a play of `rank` does
    /// ([`Registry::plays_rank_as_modelled`](super::Registry::plays_rank_as_modelled)).
    pub fn plays_rank_as_modelled(&self, rank: super::card::Rank) -> bool {
        self.game.registry().plays_rank_as_modelled(rank)
    }

    /// Which of those hooks are the built-in ones, each answered by the tables.
    pub fn builtin_planning(&self) -> super::effects::Planning {
        self.game.registry().builtin_planning()
    }

    /// Questions about moves for the hooks in force ([`Forecast`]), asked on a position
    /// consistent with what this seat sees: the hidden cards dealt by a fixed seed, so the
    /// answers depend only on what the seat has seen.
    pub fn forecast(&self) -> Forecast {
        Forecast::new(self.sample(FORECAST_SEED))
    }

    /// Whether this seat's hand holds two copies of one card (several decks only).
    pub fn hand_has_repeats(&self) -> bool {
        self.game.hand_has_repeats(self.seat)
    }

    /// A full game consistent with this view: the cards this seat cannot see (other hands and
    /// the deck) are shuffled with `seed` and dealt back into the same places. Like any copy
    /// of a game, it runs on its own copy of what the registry keeps outside the game (a
    /// mod's Lua globals), so playing on it changes nothing here.
    pub fn sample(&self, seed: u64) -> Game {
        let mut hidden = full_deck(self.game.decks());
        let mut remove = |card: &Card| {
            if let Some(i) = hidden.iter().position(|c| c == card) {
                hidden.swap_remove(i);
            }
        };
        self.hand().iter().for_each(&mut remove);
        self.table().iter().flatten().for_each(&mut remove);
        self.discard_pile().iter().for_each(&mut remove);
        for p in self.game.players() {
            p.front.iter().for_each(&mut remove);
        }
        hidden.sort_unstable();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        hidden.shuffle(&mut rng);
        let players: Vec<Player> = self
            .game
            .players()
            .iter()
            .enumerate()
            .map(|(s, p)| {
                let hand = if s == self.seat {
                    p.hand.clone()
                } else {
                    (0..p.hand.len()).map(|_| hidden.pop().expect("conserved")).collect()
                };
                let mut p = p.clone();
                p.hand = hand;
                p
            })
            .collect();
        self.game.with_state(State::from_parts(self.game, players, hidden, seed))
    }
}
