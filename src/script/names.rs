//! Cards as Lua values: the 52 card names, made once per Lua state so that handing a card to
//! Lua allocates nothing, and the card numbers (1…52) a card crosses as where a string would
//! cost more (the `play` table, [`super::args`]).

use mlua::{Lua, LuaString};

use crate::core::{Card, Rank, Suit};

/// The card names of one Lua state.
pub(crate) struct CardNames {
    /// By card number − 1.
    cards: Vec<LuaString>,
}

impl CardNames {
    pub(crate) fn new(lua: &Lua) -> mlua::Result<CardNames> {
        let cards = CardNames::all().map(|card| lua.create_string(card.to_string())).collect::<mlua::Result<_>>()?;
        Ok(CardNames { cards })
    }

    /// The name of `card` (`"7H"`).
    pub(crate) fn card(&self, card: Card) -> LuaString {
        self.cards[CardNames::number(card) as usize - 1].clone()
    }

    /// The names in card-number order.
    pub(crate) fn names(&self) -> impl Iterator<Item = LuaString> + '_ {
        self.cards.iter().cloned()
    }

    /// Every card in card-number order: [`CardNames::number`] is its position, from 1.
    pub(crate) fn all() -> impl Iterator<Item = Card> {
        Suit::ALL.into_iter().flat_map(|suit| Rank::all().map(move |rank| Card::new(rank, suit)))
    }

    /// A card's number, 1…52, in the order of [`CardNames::all`].
    pub(crate) fn number(card: Card) -> i64 {
        (card.suit.index() * 13 + card.rank.number() as usize) as i64
    }

    /// The card with this number (see [`CardNames::number`]).
    pub(crate) fn numbered(number: i64) -> Option<Card> {
        let i = usize::try_from(number.checked_sub(1)?).ok()?;
        let suit = *Suit::ALL.get(i / 13)?;
        Some(Card::new(Rank::new((i % 13 + 1) as u8)?, suit))
    }
}

/// The letter a suit is written with.
pub(crate) fn suit_letter(suit: Suit) -> &'static str {
    match suit {
        Suit::Spades => "S",
        Suit::Hearts => "H",
        Suit::Diamonds => "D",
        Suit::Clubs => "C",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_numbers_run_1_to_52_in_card_order() {
        for (i, card) in CardNames::all().enumerate() {
            assert_eq!(CardNames::number(card), i as i64 + 1, "{card}");
            assert_eq!(CardNames::numbered(i as i64 + 1), Some(card));
        }
        assert_eq!(CardNames::all().count(), 52);
        assert_eq!(CardNames::numbered(0), None);
        assert_eq!(CardNames::numbered(53), None);
    }
}
