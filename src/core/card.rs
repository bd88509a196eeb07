//! Cards: ranks, suits, the D1 notation (parse and display) and the ordered deck(s) of D2.
//!
//! A [`Card`] is two bytes and `Copy`. With several decks, identical cards are
//! interchangeable: nothing in the engine tells two `7H` apart.

use std::fmt;
use std::str::FromStr;

/// A card rank, 1 (ace) to 13 (king).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    pub const ACE: Rank = Rank(1);
    pub const TEN: Rank = Rank(10);
    pub const JACK: Rank = Rank(11);
    pub const QUEEN: Rank = Rank(12);
    pub const KING: Rank = Rank(13);

    /// Every rank, ace to king.
    pub fn all() -> impl Iterator<Item = Rank> {
        (1..=13).map(Rank)
    }

    /// The rank with this number (1 = ace … 13 = king), if there is one.
    pub fn new(n: u8) -> Option<Rank> {
        (1..=13).contains(&n).then_some(Rank(n))
    }

    /// 1 for an ace up to 13 for a king.
    pub fn number(self) -> u8 {
        self.0
    }

    /// A, 2 … 10 are number cards; J, Q, K are face cards.
    pub fn is_number(self) -> bool {
        self.0 <= 10
    }

    /// The D1 symbol: `A 2 … 10 J Q K`.
    pub fn symbol(self) -> &'static str {
        ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"][self.0 as usize - 1]
    }

    /// Reads a rank as D1 writes it (`A`, `2` … `10`, `T`, `J`, `Q`, `K`; `1` for an ace),
    /// in any case.
    pub fn parse(text: &str) -> Option<Rank> {
        let n = match text.to_ascii_uppercase().as_str() {
            "A" | "1" => 1,
            "T" | "10" => 10,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            d if d.len() == 1 && d.as_bytes()[0].is_ascii_digit() => d.parse().ok()?,
            _ => return None,
        };
        Rank::new(n)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// A suit: spades, hearts, diamonds, clubs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Spades,
    Hearts,
    Diamonds,
    Clubs,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    /// The D1 letter: `S H D C`.
    pub fn letter(self) -> char {
        match self {
            Suit::Spades => 'S',
            Suit::Hearts => 'H',
            Suit::Diamonds => 'D',
            Suit::Clubs => 'C',
        }
    }

    /// The suit symbol `♠ ♥ ♦ ♣`, for output where Unicode is on.
    pub fn symbol(self) -> char {
        match self {
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
            Suit::Diamonds => '♦',
            Suit::Clubs => '♣',
        }
    }

    /// Hearts and diamonds are red.
    pub fn is_red(self) -> bool {
        matches!(self, Suit::Hearts | Suit::Diamonds)
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    fn parse(c: char) -> Option<Suit> {
        Some(match c.to_ascii_uppercase() {
            'S' | '♠' | '♤' => Suit::Spades,
            'H' | '♥' | '♡' => Suit::Hearts,
            'D' | '♦' | '♢' => Suit::Diamonds,
            'C' | '♣' | '♧' => Suit::Clubs,
            _ => return None,
        })
    }
}

/// One playing card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: Rank,
    pub suit: Suit,
}

impl Card {
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// The card's face value as a number card in the standard rules (ace = 1 … 10); face
    /// cards have none. What a card is worth in a game is the rules' value
    /// ([`Tables::value`](super::Tables::value)), which a ruleset or a mod may change.
    pub fn value(self) -> Option<u32> {
        self.rank.is_number().then_some(self.rank.number() as u32)
    }

    /// Whether this card doubles when played on `top` (D8): it matches the top card by rank
    /// or by suit.
    #[inline(always)]
    pub fn doubles_on(self, top: Option<Card>) -> bool {
        top.is_some_and(|t| t.rank == self.rank || t.suit == self.suit)
    }

    /// How far this card moves a diver when played on `top` (D8): a number card's value,
    /// doubled when it [doubles](Card::doubles_on); 0 for a face card. Worked out without a
    /// branch on whether it doubles, which is random.
    #[inline(always)]
    pub fn value_on(self, top: Option<Card>) -> u32 {
        self.value().unwrap_or(0) << u32::from(self.doubles_on(top))
    }

    /// Rank and suit in one number: equal cards have equal keys. Comparing keys takes no
    /// branch, where `==` compares rank, then suit.
    #[inline(always)]
    pub(crate) fn key(self) -> u16 {
        u16::from(self.rank.number()) << 8 | self.suit.index() as u16
    }

    /// The D1 text with suit symbols instead of letters (`10♥`), for terminals with Unicode.
    pub fn symbolic(self) -> String {
        format!("{}{}", self.rank, self.suit.symbol())
    }
}

impl fmt::Display for Card {
    /// The D1 text without symbols: `10H`, `QS`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank, self.suit.letter())
    }
}

/// Why a card's text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a card (write rank then suit, like 7H, 10S, TD, QC or A♠)")]
pub struct CardParseError {
    pub text: String,
}

impl FromStr for Card {
    type Err = CardParseError;

    /// Reads D1 notation: case-insensitive, `T` or `10` for ten, suit letter or symbol last.
    fn from_str(text: &str) -> Result<Card, CardParseError> {
        let err = || CardParseError { text: text.to_string() };
        let trimmed = text.trim();
        let suit_char = trimmed.chars().last().ok_or_else(err)?;
        let suit = Suit::parse(suit_char).ok_or_else(err)?;
        let rank_text = &trimmed[..trimmed.len() - suit_char.len_utf8()];
        let rank = Rank::parse(rank_text).ok_or_else(err)?;
        Ok(Card { rank, suit })
    }
}

/// `decks` standard 52-card decks in a fixed order (suits S H D C, ranks A … K), before shuffling.
pub fn full_deck(decks: u32) -> Vec<Card> {
    let mut cards = Vec::with_capacity(52 * decks as usize);
    for _ in 0..decks {
        for suit in Suit::ALL {
            for rank in Rank::all() {
                cards.push(Card { rank, suit });
            }
        }
    }
    cards
}

/// Reads a whitespace- or comma-separated list of cards, such as a stacked deck.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, CardParseError> {
    text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()).map(str::parse).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d8_a_card_doubles_on_a_top_of_its_rank_or_suit() {
        let c = |t: &str| t.parse::<Card>().unwrap();
        assert_eq!(c("7S").value_on(Some(c("7H"))), 14, "same rank");
        assert_eq!(c("7S").value_on(Some(c("2S"))), 14, "same suit");
        assert_eq!(c("7S").value_on(Some(c("KS"))), 14, "a face card on top matches by suit");
        assert_eq!(c("7S").value_on(Some(c("8H"))), 7);
        assert_eq!(c("7S").value_on(None), 7);
        assert_eq!(c("QS").value_on(Some(c("2S"))), 0, "a face card moves nobody");
        assert!(!c("7S").doubles_on(None));
    }

    #[test]
    fn keys_are_equal_exactly_when_cards_are() {
        let deck = full_deck(1);
        for a in &deck {
            for b in &deck {
                assert_eq!(a.key() == b.key(), a == b, "{a} and {b}");
            }
        }
    }

    fn card(t: &str) -> Card {
        t.parse().unwrap()
    }

    #[test]
    fn d1_parses_every_spelling() {
        let ten_hearts = Card::new(Rank::TEN, Suit::Hearts);
        for text in ["10H", "10h", "TH", "th", "t♥", "10♡", " 10H "] {
            assert_eq!(card(text), ten_hearts, "{text}");
        }
        assert_eq!(card("as"), Card::new(Rank::ACE, Suit::Spades));
        assert_eq!(card("1S"), Card::new(Rank::ACE, Suit::Spades));
        assert_eq!(card("q♣"), Card::new(Rank::QUEEN, Suit::Clubs));
    }

    #[test]
    fn d1_rejects_non_cards() {
        for text in ["", "H", "10", "11H", "0S", "1OH", "7X", "KK", "JOKER", "77H"] {
            assert!(text.parse::<Card>().is_err(), "{text}");
        }
    }

    #[test]
    fn d1_output_uses_10_upper_case_and_symbols_only_on_request() {
        assert_eq!(card("th").to_string(), "10H");
        assert_eq!(card("qs").to_string(), "QS");
        assert_eq!(card("th").symbolic(), "10♥");
    }

    #[test]
    fn d2_several_decks_hold_each_card_once_per_deck() {
        let deck = full_deck(2);
        assert_eq!(deck.len(), 104);
        assert_eq!(deck.iter().filter(|&&c| c == card("7H")).count(), 2);
    }
}
