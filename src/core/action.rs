//! What a player can do on a turn ([`Action`], D5) and why an action may be refused
//! ([`ActionError`]).

use std::fmt;

use super::card::{Card, Rank, Suit};
use super::error::EffectError;
use super::knowledge::Words;
use super::rules::MAX_HAND_SIZE;

/// The cards a recovery names, in discard order: at most [`Cards::CAPACITY`], which is more
/// than a hand ever holds, kept inline. So an action is `Copy`, and an event that carries a
/// recovery's cards costs nothing when the sink ignores it. Compares, hashes and prints as
/// the list it holds.
#[derive(Clone, Copy)]
pub struct Cards {
    len: u8,
    /// `cards[..len]` are the cards; the rest is unused.
    cards: [Card; Cards::CAPACITY],
}

/// A recovery that names more cards than [`Cards`] holds (no hand holds that many).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a recovery names at most {} cards (found {found}); a hand holds at most {}", Cards::CAPACITY, MAX_HAND_SIZE + 1)]
pub struct TooManyCards {
    pub found: usize,
}

/// What fills the unused places of a [`Cards`].
const BLANK: Card = Card { rank: Rank::ACE, suit: Suit::Spades };

impl Cards {
    /// The most cards a recovery can name. A hand holds at most `MAX_HAND_SIZE + 1` cards (an
    /// entry draws it up to the bound, then the played card is replaced, D6).
    pub const CAPACITY: usize = 16;

    /// No cards.
    pub const fn new() -> Cards {
        Cards { len: 0, cards: [BLANK; Cards::CAPACITY] }
    }

    /// These cards, if there are at most [`Cards::CAPACITY`].
    pub fn from_slice(cards: &[Card]) -> Result<Cards, TooManyCards> {
        let mut out = Cards::new();
        out.cards.get_mut(..cards.len()).ok_or(TooManyCards { found: cards.len() })?.copy_from_slice(cards);
        out.len = cards.len() as u8;
        Ok(out)
    }

    /// Adds `card` at the end, if there is room.
    pub fn push(&mut self, card: Card) -> Result<(), TooManyCards> {
        let slot =
            self.cards.get_mut(usize::from(self.len)).ok_or(TooManyCards { found: usize::from(self.len) + 1 })?;
        *slot = card;
        self.len += 1;
        Ok(())
    }

    pub fn as_slice(&self) -> &[Card] {
        &self.cards[..usize::from(self.len)]
    }

    pub fn as_mut_slice(&mut self) -> &mut [Card] {
        &mut self.cards[..usize::from(self.len)]
    }
}

const _: () = assert!(MAX_HAND_SIZE < Cards::CAPACITY, "a full hand fits a recovery's cards");

impl Default for Cards {
    fn default() -> Cards {
        Cards::new()
    }
}

impl std::ops::Deref for Cards {
    type Target = [Card];

    fn deref(&self) -> &[Card] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for Cards {
    fn deref_mut(&mut self) -> &mut [Card] {
        self.as_mut_slice()
    }
}

impl<'a> IntoIterator for &'a Cards {
    type Item = &'a Card;
    type IntoIter = std::slice::Iter<'a, Card>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for Cards {
    fn eq(&self, other: &Cards) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Cards {}

impl std::hash::Hash for Cards {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl fmt::Debug for Cards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl TryFrom<&[Card]> for Cards {
    type Error = TooManyCards;

    fn try_from(cards: &[Card]) -> Result<Cards, TooManyCards> {
        Cards::from_slice(cards)
    }
}

impl TryFrom<Vec<Card>> for Cards {
    type Error = TooManyCards;

    fn try_from(cards: Vec<Card>) -> Result<Cards, TooManyCards> {
        Cards::from_slice(&cards)
    }
}

impl<const N: usize> TryFrom<[Card; N]> for Cards {
    type Error = TooManyCards;

    fn try_from(cards: [Card; N]) -> Result<Cards, TooManyCards> {
        Cards::from_slice(&cards)
    }
}

/// The cards of `hand` picked by `mask` (bit `i` = hand card `i`), in hand order: how
/// recoveries given as hand masks become [`Cards`]. Built without a branch per card, since
/// bots pick masks at random and a random mask defeats the branch predictor. Only the first
/// [`Cards::CAPACITY`] hand cards can be picked (a hand holds fewer).
pub fn cards_in_mask(hand: &[Card], mask: u32) -> Cards {
    let mut out = Cards::new();
    let mut len = 0;
    for (i, &card) in hand.iter().take(Cards::CAPACITY).enumerate() {
        out.cards[len & (Cards::CAPACITY - 1)] = card;
        len += ((mask >> i) & 1) as usize;
    }
    // `len` reaches CAPACITY only when every one of CAPACITY cards is picked.
    out.len = len as u8;
    out
}

pub use super::seats::Seat;

/// Where a played card comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    Hand,
    /// A table slot, 0-based (players see slots 1…4).
    Table(usize),
}

/// One turn (D5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// An action a mod registered ([`Registry::add_action`](super::Registry::add_action)),
    /// by its name, with its one argument when it takes one: a seat, or a card of the hand.
    Act { name: ActionName, target: Option<Seat>, card: Option<Card> },
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

    /// A recovery of `cards` with the default discard order. For tests and examples: it
    /// panics past [`Cards::CAPACITY`] cards; input from outside goes through
    /// [`Cards::from_slice`].
    pub fn recover(cards: impl AsRef<[Card]>) -> Action {
        let cards = Cards::from_slice(cards.as_ref()).expect("a recovery of at most Cards::CAPACITY cards");
        Action::Recover { cards, face_on_top: false }
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
            Action::Act { name, target, card } => {
                f.write_str(name.as_str())?;
                if let Some(t) = target {
                    write!(f, " @{}", t + 1)?;
                }
                if let Some(c) = card {
                    write!(f, " {c}")?;
                }
                Ok(())
            }
        }
    }
}

/// The name of an action a mod registered (`buddy`): 1 to [`ActionName::CAPACITY`]
/// characters, a lower-case ASCII letter then letters, digits, `_` or `-`, kept inline so that
/// an [`Action`] stays `Copy` and names its registry entry without a registry at hand (a save,
/// a JSON line, the shell's words). Compares and hashes as its text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActionName {
    len: u8,
    /// `bytes[..len]` is the name; the rest are zeros.
    bytes: [u8; ActionName::CAPACITY],
}

/// Why a text cannot be an action's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "an action's name is 1 to {} characters: a lower-case letter, then letters, digits, `_` or `-` (got \"{shown}\")",
    ActionName::CAPACITY
)]
pub struct BadActionName {
    /// The text, cut to a line.
    pub shown: String,
}

impl ActionName {
    /// The longest name.
    pub const CAPACITY: usize = 15;

    /// `text` as a name, if it is one.
    pub fn new(text: &str) -> Result<ActionName, BadActionName> {
        let bad = || BadActionName { shown: text.chars().filter(|c| !c.is_control()).take(40).collect() };
        let mut chars = text.bytes();
        let first_ok = chars.next().is_some_and(|b| b.is_ascii_lowercase());
        let rest_ok = chars.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if !first_ok || !rest_ok || text.len() > ActionName::CAPACITY {
            return Err(bad());
        }
        let mut bytes = [0; ActionName::CAPACITY];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Ok(ActionName { len: text.len() as u8, bytes })
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }
}

impl fmt::Display for ActionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for ActionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl std::str::FromStr for ActionName {
    type Err = BadActionName;

    fn from_str(text: &str) -> Result<ActionName, BadActionName> {
        ActionName::new(text)
    }
}

/// A card being played, as the effect sees it: already out of the hand or slot, not yet
/// anywhere else. The effect must put it somewhere (discard or someone's front).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Play {
    pub player: Seat,
    pub card: Card,
    pub from: Source,
    pub target: Option<Seat>,
    pub face_on_top: bool,
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
    BadTarget { card: Card, target: Seat, reason: Words },
    #[error("{card} cannot be played now: {reason}")]
    NotPlayable { card: Card, reason: Words },
    #[error("the discard order can only be chosen when a face card in front of you is used up")]
    NoOrderChoice,
    #[error("recover needs at least one card")]
    EmptyRecovery,
    #[error("you can only pass when you have no cards and no table card can be played")]
    CannotPass,
    /// No action of this name is registered.
    #[error("there is no action called {name}")]
    NoSuchAction { name: ActionName },
    #[error("{name} needs a target: one of {}", list_seats(options))]
    ActTargetNeeded { name: ActionName, options: Vec<Seat> },
    #[error("{name} takes no target")]
    ActNoTargetTaken { name: ActionName },
    #[error("player {} is not a valid target for {name}: {reason}", target + 1)]
    ActBadTarget { name: ActionName, target: Seat, reason: Words },
    #[error("{name} cannot be taken now: {reason}")]
    ActNotAllowed { name: ActionName, reason: Words },
    #[error("{name} needs a card from your hand")]
    ActCardNeeded { name: ActionName },
    #[error("{name} takes no card")]
    ActNoCardTaken { name: ActionName },
    #[error("{card} cannot be used for {name}: {reason}")]
    ActBadCard { name: ActionName, card: Card, reason: Words },
    /// A scripted effect or hook failed; nothing it did is kept.
    #[error("{0}")]
    Script(EffectError),
}

impl ActionError {
    /// Whether the error tells of nothing hidden (every viewer reads all of it).
    pub fn is_public(&self) -> bool {
        match self {
            ActionError::BadTarget { reason, .. }
            | ActionError::NotPlayable { reason, .. }
            | ActionError::ActBadTarget { reason, .. }
            | ActionError::ActNotAllowed { reason, .. }
            | ActionError::ActBadCard { reason, .. } => reason.secret().is_public(),
            ActionError::Script(e) => e.secret_part().is_public(),
            _ => true,
        }
    }
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
    fn an_action_name_is_a_short_lower_case_word() {
        for good in ["buddy", "a", "pass-air", "x_2", "abcdefghijklmno"] {
            assert_eq!(ActionName::new(good).unwrap().as_str(), good);
        }
        for bad in ["", "Buddy", "2x", "bud dy", "abcdefghijklmnop", "é", "-x"] {
            assert!(ActionName::new(bad).is_err(), "{bad:?}");
        }
        let name = ActionName::new("buddy").unwrap();
        assert_eq!(Action::Act { name, target: Some(1), card: None }.to_string(), "buddy @2");
        assert_eq!(Action::Act { name, target: None, card: None }.to_string(), "buddy");
        let card = Some("7H".parse().unwrap());
        assert_eq!(Action::Act { name, target: None, card }.to_string(), "buddy 7H");
    }

    #[test]
    fn cards_in_mask_takes_the_masked_cards_in_hand_order() {
        let hand = parse_cards("AS 2H 3D 4C 5S").unwrap();
        let cards = |mask| cards_in_mask(&hand, mask).iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
        assert_eq!(cards(0b10110), "2H 3D 5S");
        assert_eq!(cards(0b00001), "AS");
        assert_eq!(cards(0), "");
        assert_eq!(cards(u32::MAX), "AS 2H 3D 4C 5S");
    }

    /// Every hand length up to past the capacity gives the same answer as a plain filter over
    /// the first [`Cards::CAPACITY`] cards.
    #[test]
    fn cards_in_mask_matches_a_filter_for_every_hand_length() {
        let deck = crate::core::full_deck(1);
        for len in [0, 1, 4, 11, 12, 13, 15, 16, 17, 20, 32, 40] {
            let hand = &deck[..len];
            for mask in [0, 1, 0b1010_1010, 0x0fff, 0x1000, 0xffff, 0x1_ffff, 0xdead_beef, u32::MAX] {
                let expected: Vec<Card> = hand
                    .iter()
                    .take(Cards::CAPACITY)
                    .enumerate()
                    .filter(|(i, _)| mask >> i & 1 == 1)
                    .map(|(_, &c)| c)
                    .collect();
                assert_eq!(cards_in_mask(hand, mask).to_vec(), expected, "{len} cards, mask {mask:#x}");
            }
        }
    }

    #[test]
    fn cards_hold_up_to_their_capacity_and_say_so_past_it() {
        let deck = crate::core::full_deck(1);
        let full = Cards::from_slice(&deck[..Cards::CAPACITY]).unwrap();
        assert_eq!(full.as_slice(), &deck[..Cards::CAPACITY]);
        let err = Cards::from_slice(&deck[..Cards::CAPACITY + 1]).unwrap_err();
        assert_eq!(err, TooManyCards { found: Cards::CAPACITY + 1 });
        assert_eq!(err.to_string(), "a recovery names at most 16 cards (found 17); a hand holds at most 13");
        let mut cards = full;
        assert_eq!(cards.push(deck[20]), Err(TooManyCards { found: Cards::CAPACITY + 1 }));
        assert_eq!(cards, full, "a refused push changes nothing");
    }

    /// Only the listed cards count: two lists that differ in their unused places are equal.
    #[test]
    fn cards_compare_by_the_cards_they_hold() {
        let hand = parse_cards("AS 2H 3D").unwrap();
        let picked = cards_in_mask(&hand, 0b001);
        assert_eq!(picked, Cards::from_slice(&hand[..1]).unwrap());
        assert_eq!(format!("{picked:?}"), format!("{:?}", &hand[..1]));
    }
}
