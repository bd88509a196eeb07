//! The per-ruleset tables ([`Tables`]): what the rules say about oxygen, worked out once per
//! ruleset so that the engine, the bots and the Lua bot prelude read one table instead of
//! each searching the rules' lists (or keeping a copy of their own).
//!
//! [`Rules::band_cost`] and [`Rules::recovery_gain`] are the definitions; a table answers
//! the same with one read (a unit test compares them on every depth and every discard).

use std::sync::Arc;

use super::card::{Card, Rank, Suit};
use super::rules::{Gain, Rules};

/// The rules of a game and what is looked up from them on every move: the oxygen cost of
/// each depth (D10) and the recovery gain of each count of cards per suit (D19).
#[derive(Debug)]
pub struct Tables {
    rules: Arc<Rules>,
    /// By depth, up to `max_depth` (empty when that is beyond [`COST_TABLE_DEPTH`]).
    costs: Vec<u32>,
    /// By [`Tables::gain_index`], for discards of fewer than `base` cards (empty when hands
    /// are too large for a table).
    gains: Vec<Gain>,
    /// Counts per suit go up to `base - 1`: one more than the hand size.
    base: usize,
    /// What one card of each suit adds to an index: `base` to the power of the suit's index.
    steps: [usize; 4],
    /// What each rank is worth (D8), by rank number (16 slots, so a read needs no check).
    values: [u32; 16],
}

/// Depths beyond this are costed through the rules instead of a table.
const COST_TABLE_DEPTH: u32 = 4096;

/// Hands up to this size get a gain table (`(size + 1)^4` entries).
const GAIN_TABLE_HAND: usize = 8;

impl Tables {
    /// Works the tables out for `rules`.
    pub fn new(rules: Arc<Rules>) -> Tables {
        let costs = if rules.max_depth <= COST_TABLE_DEPTH {
            (0..=rules.max_depth).map(|depth| rules.band_cost(depth)).collect()
        } else {
            Vec::new()
        };
        let base = rules.hand_size + 1;
        let steps = [1, base, base * base, base * base * base];
        let mut gains = Vec::new();
        if rules.hand_size <= GAIN_TABLE_HAND {
            // Only discards a hand can make are asked (the rest of the table stays unread).
            gains = vec![Gain::Amount(0); base.pow(4)];
            let mut cards = Vec::new();
            for (index, gain) in gains.iter_mut().enumerate() {
                let counts = steps.map(|step| index / step % base);
                if counts.iter().sum::<usize>() > rules.hand_size {
                    continue;
                }
                cards.clear();
                for (suit, count) in Suit::ALL.into_iter().zip(counts) {
                    cards.extend(std::iter::repeat_n(Card::new(Rank::ACE, suit), count));
                }
                *gain = rules.recovery_gain(&cards);
            }
        }
        let mut values = [0; 16];
        for rank in Rank::all() {
            values[usize::from(rank.number())] = rules.value(rank);
        }
        Tables { rules, costs, gains, base, steps, values }
    }

    /// The rules these tables were worked out from.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The shared rules (compare with [`Arc::ptr_eq`] to cache what you derive from them).
    pub fn rules_arc(&self) -> &Arc<Rules> {
        &self.rules
    }

    /// What `card` is worth when it moves a diver ([`Rules::value`]): the one place every
    /// built-in rule, forecast and bot reads a value from (a mod's `card_value` hook asks it
    /// as `previous`).
    #[inline(always)]
    pub fn value(&self, card: Card) -> u32 {
        self.values[usize::from(card.rank.number()) & 15]
    }

    /// How far `card` moves a diver when played on `top` (D8): its [value](Tables::value),
    /// doubled when it [doubles](Card::doubles_on). Without a branch on whether it doubles,
    /// which is random.
    #[inline(always)]
    pub fn value_on(&self, card: Card, top: Option<Card>) -> u32 {
        self.value(card) << u32::from(card.doubles_on(top))
    }

    /// The oxygen a diver spends after a move that ends at `depth` ([`Rules::band_cost`]).
    #[inline(always)]
    pub fn cost(&self, depth: u32) -> u32 {
        match self.costs.get(depth as usize) {
            Some(&cost) => cost,
            None => self.rules.band_cost(depth),
        }
    }

    /// The oxygen that discarding `cards` brings ([`Rules::recovery_gain`]).
    #[inline(always)]
    pub fn gain(&self, cards: &[Card]) -> Gain {
        if cards.len() < self.base && !self.gains.is_empty() {
            let index = cards.iter().map(|c| self.steps[c.suit.index()]).sum::<usize>();
            return self.gains[index];
        }
        self.rules.recovery_gain(cards)
    }

    /// The gain of a discard given by its index (the sum of [`Tables::gain_step`] over its
    /// cards), when the ruleset has a gain table and the discard is small enough for it
    /// (`None` otherwise: ask [`Tables::gain`]).
    /// For bots that add up the index of many subsets of one hand.
    #[inline(always)]
    pub fn gain_at(&self, index: usize) -> Option<Gain> {
        self.gains.get(index).copied()
    }

    /// What one card of `suit` adds to a discard's index in the gain table: a discard's index
    /// is the sum over its cards. `None` when the ruleset has no gain table.
    pub fn gain_step(&self, suit: Suit) -> Option<usize> {
        (!self.gains.is_empty()).then(|| self.steps[suit.index()])
    }

    /// How many cards a discard may hold to be looked up by index (`base - 1`): discards of
    /// more cards are answered by [`Tables::gain`] through the rules.
    pub fn indexed_cards(&self) -> usize {
        self.base - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rules::{Band, SuitPattern};

    /// The tables answer as the rules do, for every depth and every discard a hand can make,
    /// with and without a table.
    #[test]
    fn tables_answer_as_the_rules_do() {
        let house = |hand_size: usize| {
            let recovery = SuitPattern::all_up_to(hand_size)
                .into_iter()
                .enumerate()
                .map(|(i, p)| (p, if i % 4 == 3 { Gain::Max } else { Gain::Amount(i as u32 % 5) }))
                .collect();
            Rules { hand_size, recovery, ..Rules::default() }
        };
        let deep = Rules {
            max_depth: 5000,
            oxygen_bands: vec![Band { to: 30, cost: 2 }, Band { to: 5000, cost: 7 }],
            ..Rules::default()
        };
        for rules in [Rules::default(), house(6), house(8), house(10), deep] {
            let tables = Tables::new(Arc::new(rules.clone()));
            for depth in 0..=rules.max_depth {
                assert_eq!(tables.cost(depth), rules.band_cost(depth), "depth {depth}");
            }
            // Every count of cards per suit a hand can discard.
            let n = rules.hand_size;
            for counts in (0..(n + 1).pow(4)).map(|i| [0, 1, 2, 3].map(|s| i / (n + 1).pow(s) % (n + 1))) {
                if counts.iter().sum::<usize>() > n {
                    continue;
                }
                let cards: Vec<Card> = Suit::ALL
                    .into_iter()
                    .zip(counts)
                    .flat_map(|(suit, k)| Rank::all().take(k).map(move |rank| Card::new(rank, suit)))
                    .collect();
                assert_eq!(tables.gain(&cards), rules.recovery_gain(&cards), "{cards:?}");
                if let Some(steps) = Suit::ALL.map(|s| tables.gain_step(s)).into_iter().collect::<Option<Vec<_>>>() {
                    let index: usize = cards.iter().map(|c| steps[c.suit.index()]).sum();
                    assert_eq!(tables.gain_at(index), Some(rules.recovery_gain(&cards)), "{cards:?} by index");
                }
            }
        }
    }
}
