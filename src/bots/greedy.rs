//! `greedy`: a one-move heuristic that reads the standard rules from the view.
//!
//! Every legal play and the best recovery get a score in tenths of a depth unit, and the best
//! score wins:
//! - a number card that reaches the bottom wins at once, so it is taken straight away;
//! - a number card that would leave the diver with no oxygen (a rescue) is never chosen while
//!   something else is legal; the others score the depth they gain (the deepest move wins),
//!   plus what a Quick push does to its target;
//! - a Jolt scores the swing it causes on a deeper diver, more when they are near the bottom;
//!   a Quick scores its extra depth; a Knot scores a wasted recovery, more on a diver low on
//!   oxygen;
//! - a recovery scores the oxygen it brings, worth more where each move costs more; it keeps
//!   the best cards and puts a face card on top of the discard (face cards match only by suit).
//!
//! It is deterministic: the same view always gives the same action. It assumes the standard
//! effects; with a modded ruleset it still plays legally, only less well.

use std::sync::Arc;

use crate::core::{Action, Card, Diver, Gain, Rank, Rules, Seat, Source, Suit, View};

use super::{Bot, BotError};

/// Score of a play that wins on the spot.
const WIN: i64 = i64::MAX;

/// Sentinel for "no choice yet".
const NONE: i64 = i64::MIN;

/// The greedy bot. Between moves it keeps only reusable buffers and the recovery table of the
/// rules it last played (held by `Arc`, so it is rebuilt whenever the rules change).
#[derive(Debug, Default, Clone)]
pub struct GreedyBot {
    plays: Vec<Action>,
    gains: Option<GainTable>,
    /// Discard-value of each subset of the hand, by mask.
    losses: Vec<i64>,
}

/// The recovery gain (D19) for every count of cards per suit, read once from the rules.
#[derive(Debug, Clone)]
struct GainTable {
    rules: Arc<Rules>,
    /// Counts per suit go up to `base - 1`.
    base: usize,
    gains: Vec<Gain>,
}

impl GainTable {
    fn new(rules: &Arc<Rules>) -> GainTable {
        let base = rules.hand_size.clamp(4, 8) + 1;
        let mut gains = vec![Gain::Amount(0); base.pow(4)];
        let mut cards = Vec::new();
        for (index, gain) in gains.iter_mut().enumerate() {
            cards.clear();
            let mut rest = index;
            for suit in Suit::ALL.iter().rev() {
                let count = rest % base;
                rest /= base;
                cards.extend(std::iter::repeat_n(Card::new(Rank::ACE, *suit), count));
            }
            *gain = rules.recovery_gain(&cards);
        }
        GainTable { rules: Arc::clone(rules), base, gains }
    }

    /// The gain for these counts per suit (S H D C), if they are within the table.
    fn get(&self, counts: [u32; 4]) -> Option<Gain> {
        let mut index = 0;
        for c in counts {
            let c = c as usize;
            if c >= self.base {
                return None;
            }
            index = index * self.base + c;
        }
        Some(self.gains[index])
    }
}

impl GreedyBot {
    pub fn new() -> GreedyBot {
        GreedyBot::default()
    }

    /// The greedy choice for the seat of `view` (it must be that seat's turn).
    pub fn pick(&mut self, view: &View<'_>) -> Action {
        view.legal_plays_into(&mut self.plays);
        let rules = view.rules();
        let me = view.seat();
        let diver = view.diver(me);
        let hand = view.hand();

        let mut best = NONE;
        let mut best_play: Option<usize> = None;
        let mut fallback: Option<usize> = None;
        for (i, action) in self.plays.iter().enumerate() {
            let Action::Play { card, from, target, face_on_top } = *action else { continue };
            let score = score_play(view, rules, &diver, card, from, target, face_on_top);
            match score {
                Some(WIN) => return action.clone(),
                Some(s) if s > best => {
                    best = s;
                    best_play = Some(i);
                }
                Some(_) => {}
                None => {
                    if fallback.is_none() {
                        fallback = Some(i);
                    }
                }
            }
        }

        // A recovery can only win when its best possible score beats the best play.
        if !hand.is_empty() && (best_play.is_none() || recovery_bound(view, rules, &diver) > best) {
            let (recovery_score, recovery) = self.best_recovery(view);
            if best_play.is_none() || recovery_score > best {
                return recovery;
            }
        }
        match best_play.or(fallback) {
            Some(i) => self.plays.swap_remove(i),
            None => Action::Pass,
        }
    }
}

impl GreedyBot {
    /// The best recovery for this diver and its score.
    fn best_recovery(&mut self, view: &View<'_>) -> (i64, Action) {
        let mut best = (NONE, 0u32);
        self.scored_recoveries(view, |score, mask| {
            if score > best.0 {
                best = (score, mask);
            }
        });
        let me = view.diver(view.seat());
        (best.0, recovery_action(view, &me, best.1))
    }

    /// The `k` best recoveries by the greedy score, best first (for the search bot's root).
    pub(crate) fn ranked_recoveries(&mut self, view: &View<'_>, k: usize) -> Vec<Action> {
        if view.hand().is_empty() {
            return Vec::new();
        }
        let mut all = Vec::new();
        self.scored_recoveries(view, |score, mask| all.push((score, mask)));
        // Ties keep mask order, so the ranking is deterministic.
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let me = view.diver(view.seat());
        all.into_iter().take(k).map(|(_, mask)| recovery_action(view, &me, mask)).collect()
    }

    /// Calls `each(score, mask)` for every non-empty subset of the hand (at most 16 cards).
    fn scored_recoveries(&mut self, view: &View<'_>, mut each: impl FnMut(i64, u32)) {
        let rules = view.rules();
        let me = view.diver(view.seat());
        let hand = view.hand();
        let n = hand.len().min(16);
        let knotted = has(me.front, Rank::KING);
        let room = rules.max_oxygen.saturating_sub(me.oxygen);
        let worth = oxygen_worth(rules, me.depth);
        if self.gains.as_ref().is_none_or(|t| !Arc::ptr_eq(&t.rules, view.rules_arc())) {
            self.gains = Some(GainTable::new(view.rules_arc()));
        }
        let table = self.gains.as_ref().expect("just built");
        let mut suit_bits = [0u32; 4];
        for (i, &c) in hand.iter().enumerate().take(n) {
            suit_bits[suit_index(c.suit)] |= 1 << i;
        }
        // The discard value of each subset, built from the subset without its lowest card.
        self.losses.clear();
        self.losses.push(0);
        for mask in 1u32..(1 << n) {
            let low = mask.trailing_zeros() as usize;
            let loss = self.losses[(mask & (mask - 1)) as usize] + AVERAGE_KEEP - keep_value(hand[low]);
            self.losses.push(loss);
        }
        let mut cards = [hand[0]; 16];
        for mask in 1u32..(1 << n) {
            let gain = if knotted {
                0
            } else {
                let counts = suit_bits.map(|b| (b & mask).count_ones());
                let gain = table.get(counts).unwrap_or_else(|| {
                    let mut len = 0;
                    for (i, &c) in hand.iter().enumerate().take(n) {
                        if mask & (1 << i) != 0 {
                            cards[len] = c;
                            len += 1;
                        }
                    }
                    rules.recovery_gain(&cards[..len])
                });
                match gain {
                    Gain::Amount(g) => g.min(room),
                    Gain::Max => room,
                }
            };
            each(i64::from(gain) * worth + self.losses[mask as usize] + RECOVERY_PENALTY, mask);
        }
    }
}

fn suit_index(suit: Suit) -> usize {
    match suit {
        Suit::Spades => 0,
        Suit::Hearts => 1,
        Suit::Diamonds => 2,
        Suit::Clubs => 3,
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> &str {
        "greedy"
    }

    fn start_game(&mut self, _seed: u64) {}

    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError> {
        if view.current() != view.seat() || view.outcome() != crate::core::Outcome::Running {
            return Err(BotError::Failed { name: "greedy".into(), message: "it is not this bot's turn".into() });
        }
        Ok(self.pick(view))
    }
}

fn has(front: &[Card], rank: Rank) -> bool {
    front.iter().any(|c| c.rank == rank)
}

/// A number card's (possibly doubled) value on the current discard top (D8).
pub(crate) fn number_value(card: Card, top: Option<Card>) -> u32 {
    let value = card.value().unwrap_or(0);
    match top {
        Some(t) if t.rank == card.rank || t.suit == card.suit => value * 2,
        _ => value,
    }
}

/// Oxygen after a diver with `oxygen` ends a move at `depth` (0 means a rescue).
fn oxygen_after(rules: &Rules, oxygen: u32, depth: u32) -> u32 {
    oxygen.saturating_sub(rules.band_cost(depth))
}

/// The score of one play, or `None` for a play to avoid while anything else is legal.
fn score_play(
    view: &View<'_>,
    rules: &Rules,
    me: &Diver<'_>,
    card: Card,
    from: Source,
    target: Option<Seat>,
    face_on_top: bool,
) -> Option<i64> {
    let max = rules.max_depth;
    // Taking a table card denies it to the next player; break ties that way.
    let table_bonus = i64::from(matches!(from, Source::Table(_)));
    if card.rank.is_number() {
        let value = number_value(card, view.discard_top());
        if has(me.front, Rank::JACK) {
            // A jolted move goes up: keep the loss small, and put the J on top (D13) so the
            // next player can only match it by suit.
            if !face_on_top {
                return Some(NONE + 1);
            }
            let to = me.depth.saturating_sub(value);
            if oxygen_after(rules, me.oxygen, to) == 0 {
                return None;
            }
            return Some(-(i64::from(value)) * 10 - 5 + table_bonus);
        }
        let quick = has(me.front, Rank::QUEEN);
        let extra = if quick { rules.quick_extra } else { 0 };
        let to = (me.depth + value + extra).min(max);
        if to >= max {
            return Some(WIN);
        }
        let left = oxygen_after(rules, me.oxygen, to);
        if left == 0 {
            return None;
        }
        let mut score = i64::from(to - me.depth) * 10 + table_bonus;
        // Keeping a little oxygen in hand is worth a tie-break.
        score += i64::from(left.min(3));
        if quick {
            score += push_score(view, rules, target?);
        }
        return Some(score);
    }
    match card.rank {
        Rank::JACK => {
            let t = view.diver(target?);
            let lead = i64::from(t.depth.saturating_sub(me.depth));
            let mut score = 60 + lead;
            if t.depth + 28 >= max {
                score += 120;
            }
            Some(score + table_bonus)
        }
        Rank::QUEEN => Some(70 + table_bonus),
        Rank::KING => {
            let t = view.diver(target?);
            let mut score = 45;
            if t.oxygen <= 3 {
                score += 25;
            }
            if t.depth > rules.max_depth / 2 {
                score += 10;
            }
            Some(score + table_bonus)
        }
        // A modded rank: the bot does not know what it does.
        _ => Some(-1000 + table_bonus),
    }
}

/// What a Quick push (D14) on `target` is worth to the pusher.
fn push_score(view: &View<'_>, rules: &Rules, target: Seat) -> i64 {
    let t = view.diver(target);
    let to = (t.depth + rules.quick_push).min(rules.max_depth);
    if to >= rules.max_depth {
        // D21: they would win.
        return -100_000;
    }
    if oxygen_after(rules, t.oxygen, to) == 0 {
        // They would be rescued: all their depth is lost.
        return i64::from(to) * 10;
    }
    -i64::from(rules.quick_push) * 10 + i64::from(rules.band_cost(to)) * 3
}

/// How much a diver wants to keep a card, in tenths; the average card is about 55.
fn keep_value(card: Card) -> i64 {
    match card.rank {
        Rank::JACK => 70,
        Rank::QUEEN => 60,
        Rank::KING => 60,
        r if r.is_number() => i64::from(r.number()) * 10,
        _ => 0,
    }
}

const AVERAGE_KEEP: i64 = 55;

/// What one oxygen is worth, in tenths of depth, for a diver at `depth`: roughly the depth one
/// move covers (7) divided by what a move costs there.
fn oxygen_worth(rules: &Rules, depth: u32) -> i64 {
    70 / i64::from(rules.band_cost(depth).max(1))
}

/// No recovery can score more than this: all the missing oxygen, and every card worth
/// discarding gone.
fn recovery_bound(view: &View<'_>, rules: &Rules, me: &Diver<'_>) -> i64 {
    let room = if has(me.front, Rank::KING) { 0 } else { rules.max_oxygen.saturating_sub(me.oxygen) };
    let discards: i64 = view.hand().iter().map(|&c| (AVERAGE_KEEP - keep_value(c)).max(0)).sum();
    i64::from(room) * oxygen_worth(rules, me.depth) + discards + RECOVERY_PENALTY
}

/// Recovering is worth a little less than its oxygen and cards (it does not move the diver).
const RECOVERY_PENALTY: i64 = -40;

/// The recovery discarding the hand cards in `mask`, with a face card last (on top of the
/// discard a face card matches only by suit, D8) and a Knot on top when knotted.
fn recovery_action(view: &View<'_>, me: &Diver<'_>, mask: u32) -> Action {
    let hand = view.hand();
    let mut chosen: Vec<Card> =
        hand.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &c)| c).collect();
    if let Some(i) = chosen.iter().rposition(|c| !c.rank.is_number()) {
        let face = chosen.remove(i);
        chosen.push(face);
    }
    Action::Recover { cards: chosen, face_on_top: has(me.front, Rank::KING) }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::core::{Game, Registry, Setup, parse_cards};

    /// A two-player game dealt from a stacked deck (hands, table, discard top as in D3, the
    /// rest in full-deck order), with seat 1 put at `depth` and `oxygen` by a turn-start hook.
    fn position(first: &str, depth: i64, oxygen: i64) -> Game {
        let mut deck = parse_cards(first).unwrap();
        for c in crate::core::full_deck(1) {
            if !deck.contains(&c) {
                deck.push(c);
            }
        }
        let mut registry = Registry::standard();
        registry.turn_start.push(Arc::new(move |ctx, _| {
            if ctx.game().turn() == 1 {
                ctx.set_depth(0, depth)?;
                ctx.set_oxygen(0, oxygen)?;
            }
            Ok(())
        }));
        registry.mark_scripted();
        let setup = Setup { names: vec!["a".into(), "b".into()], seed: 1, deck: Some(deck) };
        Game::new(Arc::new(Rules::default()), Arc::new(registry), setup).unwrap()
    }

    fn pick(game: &Game) -> Action {
        GreedyBot::new().pick(&View::new(game, 0))
    }

    #[test]
    fn dives_with_the_deepest_card() {
        // Discard top 2C: 9H is worth 9, 3C doubles to 6.
        let game = position("9H 3C 4S 5D  AH AS AD AC  2H 2S 2D 3D  2C", 0, 10);
        assert_eq!(pick(&game), Action::play("9H".parse().unwrap(), Source::Hand));
    }

    #[test]
    fn takes_the_win() {
        // At 95 a 5 reaches the bottom even though the move would cost the last oxygen.
        let game = position("9H 5C 4S 6D  AH AS AD AC  2H 2S 2D 3D  10C", 95, 1);
        assert_eq!(pick(&game), Action::play("9H".parse().unwrap(), Source::Hand));
    }

    #[test]
    fn recovers_rather_than_be_rescued() {
        // At 60 with 3 oxygen every move costs 3 or 4: all of them end in a rescue.
        let game = position("9H 8C 7S 6D  AH AS AD AC  2H 2S 2D 3D  4C", 60, 3);
        assert!(matches!(pick(&game), Action::Recover { .. }), "{}", pick(&game));
    }

    #[test]
    fn recovery_prefers_a_big_gain_and_puts_a_face_card_on_top() {
        // Three hearts give +4, worth more than keeping the 9.
        let game = position("9H 2H 3H 8C  AH AS AD AC  2S 3S 2D 3D  4C", 60, 3);
        match pick(&game) {
            Action::Recover { mut cards, .. } => {
                cards.sort();
                assert_eq!(cards, parse_cards("2H 3H 9H").unwrap());
            }
            other => panic!("expected a recovery, got {other}"),
        }
        // A lone pair of low cards with a face card: the face card goes last (on top).
        let game = position("2H JH 8C 9S  AH AS AD AC  2S 3S 2D 3D  4C", 60, 3);
        match pick(&game) {
            Action::Recover { cards, .. } => assert_eq!(cards.last().map(|c| c.rank), Some(Rank::JACK), "{cards:?}"),
            other => panic!("expected a recovery, got {other}"),
        }
    }
}
