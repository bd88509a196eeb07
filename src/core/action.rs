//! What a player can do on a turn ([`Action`], D5) and why an action may be refused
//! ([`ActionError`]).

use std::fmt;

use smallvec::SmallVec;

use super::card::{Card, Rank, Suit};

/// The cards a recovery names, in discard order. Held inline up to a full hand
/// ([`MAX_HAND_SIZE`](super::rules::MAX_HAND_SIZE)), so an action is built and dropped without
/// touching the heap; serialized as a plain list.
pub type Cards = SmallVec<[Card; INLINE_CARDS]>;

/// How many cards [`Cards`] holds without allocating.
const INLINE_CARDS: usize = 12;

/// The cards of `hand` picked by `mask` (bit `i` = hand card `i`, for the first 32 cards), in
/// hand order: how recoveries given as hand masks become [`Cards`]. Built without a branch per
/// card, since bots pick masks at random and a random mask defeats the branch predictor, and
/// for a hand that fits [`Cards`] straight into its inline buffer (copying a slice in called
/// `memcpy` on every recovery).
pub fn cards_in_mask(hand: &[Card], mask: u32) -> Cards {
    let blank = Card::new(Rank::ACE, Suit::Spades);
    if hand.len() <= INLINE_CARDS {
        let mut buf = [blank; 16];
        let mut len = 0;
        for (i, &card) in hand.iter().enumerate() {
            buf[len & 15] = card;
            len += ((mask >> i) & 1) as usize;
        }
        let inline: [Card; INLINE_CARDS] = buf[..INLINE_CARDS].try_into().expect("16 cards hold 12");
        return Cards::from_buf_and_len(inline, len);
    }
    let mut buf = [blank; 32];
    let mut len = 0;
    for (i, &card) in hand.iter().take(32).enumerate() {
        buf[len & 31] = card;
        len += ((mask >> i) & 1) as usize;
    }
    Cards::from_slice(&buf[..len])
}

/// A seat at the table: 0 is the first player named (D4).
pub type Seat = usize;

/// Where a played card comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    Hand,
    /// A table slot, 0-based (players see slots 1…4).
    Table(usize),
}

/// One turn (D5).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// Play `card` from the hand or a table slot.
    Play {
        card: Card,
        from: Source,
        /// The Jolt or Knot target, or the player a triggered Quick pushes. `None` when the
        /// play needs no choice.
        target: Option<Seat>,
        /// When this number card triggers a Jolt: put the J on top of the number card
        /// instead of below it (D13; default below).
        face_on_top: bool,
    },
    /// Discard these hand cards in this order (the last ends on top) and draw as many (D19).
    Recover {
        cards: Cards,
        /// When knotted: put the K on top of the discarded cards instead of below (D16).
        face_on_top: bool,
    },
    /// Only when nothing else is legal (D22).
    Pass,
}

impl Action {
    /// A play with no choices.
    pub fn play(card: Card, from: Source) -> Action {
        Action::Play { card, from, target: None, face_on_top: false }
    }

    /// A play aimed at (or pushing) `target`.
    pub fn play_at(card: Card, from: Source, target: Seat) -> Action {
        Action::Play { card, from, target: Some(target), face_on_top: false }
    }

    /// A recovery with the default discard order.
    pub fn recover(cards: impl Into<Cards>) -> Action {
        Action::Recover { cards: cards.into(), face_on_top: false }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Play { card, from, target, face_on_top } => {
                write!(f, "play {card}")?;
                if let Source::Table(slot) = from {
                    write!(f, " table{}", slot + 1)?;
                }
                if let Some(t) = target {
                    write!(f, " @{}", t + 1)?;
                }
                if *face_on_top {
                    f.write_str(" on-top")?;
                }
                Ok(())
            }
            Action::Recover { cards, face_on_top } => {
                f.write_str("recover")?;
                for c in cards {
                    write!(f, " {c}")?;
                }
                if *face_on_top {
                    f.write_str(" on-top")?;
                }
                Ok(())
            }
            Action::Pass => f.write_str("pass"),
        }
    }
}

/// Why the engine refused an action. The game is exactly as it was before.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("the game is over")]
    GameOver,
    #[error("{card} is not in your hand")]
    NotInHand { card: Card },
    #[error("table slot {} does not hold {card}", slot + 1)]
    NotOnTable { card: Card, slot: usize },
    #[error("there is no table slot {}", slot + 1)]
    NoSuchSlot { slot: usize },
    #[error("{card} needs a target: one of {}", list_seats(options))]
    TargetNeeded { card: Card, options: Vec<Seat> },
    #[error("{card} takes no target")]
    NoTargetTaken { card: Card },
    #[error("player {} is not a valid target for {card}: {reason}", target + 1)]
    BadTarget { card: Card, target: Seat, reason: String },
    #[error("{card} cannot be played now: {reason}")]
    NotPlayable { card: Card, reason: String },
    #[error("the discard order can only be chosen when a face card in front of you is used up")]
    NoOrderChoice,
    #[error("recover needs at least one card")]
    EmptyRecovery,
    #[error("you can only pass when you have no cards and no table card can be played")]
    CannotPass,
    /// A scripted effect or hook failed; nothing it did is kept.
    #[error("{0}")]
    Script(String),
}

fn list_seats(seats: &[Seat]) -> String {
    let parts: Vec<String> = seats.iter().map(|s| format!("player {}", s + 1)).collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::parse_cards;

    #[test]
    fn cards_in_mask_takes_the_masked_cards_in_hand_order() {
        let hand = parse_cards("AS 2H 3D 4C 5S").unwrap();
        let cards = |mask| cards_in_mask(&hand, mask).iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
        assert_eq!(cards(0b10110), "2H 3D 5S");
        assert_eq!(cards(0b00001), "AS");
        assert_eq!(cards(0), "");
        assert_eq!(cards(u32::MAX), "AS 2H 3D 4C 5S");
    }

    /// Hands that fit the inline buffer and hands that do not give the same answer as a
    /// plain filter.
    #[test]
    fn cards_in_mask_matches_a_filter_for_every_hand_length() {
        let deck = crate::core::full_deck(1);
        for len in [0, 1, 4, 11, 12, 13, 20, 32, 40] {
            let hand = &deck[..len];
            for mask in [0, 1, 0b1010_1010, 0x0fff, 0x1000, 0xdead_beef, u32::MAX] {
                let expected: Vec<Card> =
                    hand.iter().take(32).enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, &c)| c).collect();
                assert_eq!(cards_in_mask(hand, mask).to_vec(), expected, "{len} cards, mask {mask:#x}");
            }
        }
    }
}
