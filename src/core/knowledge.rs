//! What mods know of hidden cards, and so who may read what they write ([`Knowledge`],
//! [`Secret`], [`Words`]).
//!
//! A mod is told of hidden cards in a few ways: the card a diver draws (`on_draw`), the hand of
//! the player whose turn it is (`ctx:hand`), a probe of that hand (`ctx:take_hand`), a card of
//! the mover's hand it is asked about (`playable`, an action's `legal`). What it is told is
//! *knowledge it holds*: it can keep it in a global and write it out much later. So the core
//! keeps, per mod, which hidden cards it was told of and where they lie ([`Knowledge`]), and
//! follows them as they move between hidden places (a card known in the deck and then drawn
//! is known in the drawer's hand). Knowledge ends when the card becomes visible (played,
//! discarded, placed, refilled, revealed): everyone knows it then.
//!
//! Every text a mod writes — narration, a refusal reason, an error message — is [`Words`]:
//! the text and its [`Secret`], the hidden places whose cards its writer knew of at that
//! moment. A viewer reads it only if it may see every one of those places
//! ([`Viewer::reads`](super::Viewer::reads)); everyone else gets a neutral line. Words are not
//! searched for card names: what the writer *knew* decides, as in information-flow systems.
//! A rule that must tell the table something hidden does so with an explicit reveal
//! ([`Event::Revealed`](super::Event::Revealed)), a public event: the card is then visible and
//! no longer anyone's secret.
//!
//! What stays public by design is a rule's visible consequence: an oxygen change a mod makes
//! after a draw is a change everyone sees (that is the rule), and whether an action is legal
//! is part of the listing. Text is held to more because it can say anything.
//!
//! The knowledge is part of the [`State`](super::State): a copy of the game (a bot's
//! look-ahead) carries it with the mods' globals, a refused action leaves it as it was, and a
//! replay rebuilds it. A sample of what a seat cannot see ([`View::sample`](super::View::sample))
//! deals the hidden cards otherwise, while the mods' globals still hold what they were told:
//! there the knowledge is kept by place and never ends.

use std::borrow::Cow;
use std::fmt;

use super::card::Card;
use super::seats::{Seat, Seats};

/// A mod of a game, by its place in the load order (0 is the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModId(pub u8);

/// The hidden places a text may tell of: hands (by seat) and the deck. Empty: the text tells
/// of nothing hidden, and everyone may read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Secret {
    hands: Seats,
    deck: bool,
}

impl Secret {
    /// Tells of nothing hidden.
    pub const NONE: Secret = Secret { hands: Seats(0), deck: false };

    /// Tells of `seat`'s hand.
    pub fn hand(seat: Seat) -> Secret {
        Secret { hands: Seats(1 << seat), deck: false }
    }

    /// Tells of the deck (whose cards nobody at the table sees).
    pub fn deck() -> Secret {
        Secret { hands: Seats(0), deck: true }
    }

    /// What either tells of.
    pub fn union(self, other: Secret) -> Secret {
        Secret { hands: Seats(self.hands.0 | other.hands.0), deck: self.deck || other.deck }
    }

    /// Whether it tells of nothing hidden.
    pub fn is_public(self) -> bool {
        self.hands.is_empty() && !self.deck
    }

    /// The hands it tells of.
    pub fn hands(self) -> Seats {
        self.hands
    }

    /// Whether it tells of the deck.
    pub fn tells_of_deck(self) -> bool {
        self.deck
    }
}

/// A text a mod wrote, with the [`Secret`] it may tell of. Its text is read through a
/// [`Viewer`](super::Viewer) ([`Viewer::read`](super::Viewer::read)): there is no other way to
/// get at it, except [`Words::len`] for limits. `Display` shows the text only when it is
/// public, and otherwise a neutral line, so that a text printed without a viewer leaks
/// nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    text: Cow<'static, str>,
    secret: Secret,
}

impl Words {
    /// A text that tells of nothing hidden (the built-in rules' reasons).
    pub fn public(text: impl Into<Cow<'static, str>>) -> Words {
        Words { text: text.into(), secret: Secret::NONE }
    }

    /// A text that may tell of `secret`.
    pub fn new(text: impl Into<Cow<'static, str>>, secret: Secret) -> Words {
        Words { text: text.into(), secret }
    }

    pub fn secret(&self) -> Secret {
        self.secret
    }

    /// Its length in bytes (for the limits on narration).
    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The text, for the viewer module alone (which decides who reads it).
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// These words with their text replaced (kept where it is cut or cleaned), the secret
    /// unchanged.
    pub fn map(self, f: impl FnOnce(&str) -> String) -> Words {
        Words { text: Cow::Owned(f(&self.text)), secret: self.secret }
    }
}

/// A literal of the program's own: public.
impl From<&'static str> for Words {
    fn from(text: &'static str) -> Words {
        Words::public(text)
    }
}

/// What a reader who may not read a mod's words is shown instead.
pub const WITHHELD: &str = "(a mod's words, which may tell of cards you cannot see)";

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.secret.is_public() { f.write_str(&self.text) } else { f.write_str(WITHHELD) }
    }
}

/// A hidden place a card can lie in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    Hand(Seat),
    Deck,
}

impl Hidden {
    fn secret(self) -> Secret {
        match self {
            Hidden::Hand(seat) => Secret::hand(seat),
            Hidden::Deck => Secret::deck(),
        }
    }
}

/// One thing a mod knows: that `card` lies in `place` (one copy of it), or, with no card,
/// something of `place` it keeps for good (in a sample, [`Knowledge::by_place`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    by: ModId,
    place: Hidden,
    card: Option<Card>,
}

/// How a mod came to know hidden cards, for `diving check` and the rules page to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Learned {
    /// It was told a card drawn into a hand (`on_draw`).
    pub drawn: bool,
    /// It read the hand of the player whose turn it is (`ctx:hand`), or was asked about one
    /// of its cards (`playable`, `targets`, an action's `legal` or card).
    pub hand: bool,
    /// It probed a hand for a card (`ctx:take_hand`).
    pub probe: bool,
    /// It revealed hidden cards to the table (`ctx:reveal`).
    pub revealed: bool,
}

impl Learned {
    /// Adds what `other` learned.
    pub fn join(&mut self, other: Learned) {
        self.drawn |= other.drawn;
        self.hand |= other.hand;
        self.probe |= other.probe;
        self.revealed |= other.revealed;
    }
}

impl Learned {
    /// What it was told, in a player's words (`the cards drawn, the mover's hand`), or
    /// `no hidden card`.
    pub fn reads(self) -> String {
        let parts: Vec<&str> = [
            (self.drawn, "the cards drawn into hands"),
            (self.hand, "the mover's hand"),
            (self.probe, "probes of the mover's hand"),
        ]
        .into_iter()
        .filter_map(|(on, what)| on.then_some(what))
        .collect();
        if parts.is_empty() { "no hidden card".into() } else { parts.join(", ") }
    }
}

/// How a mod was told a hidden card, for [`Learned`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Told {
    Drawn,
    Hand,
    Probe,
}

/// What every mod of a game knows of its hidden cards. Nothing at all in a game without mods
/// (no mod ⇒ nothing to know): then it holds no allocation, and every method returns after one
/// test — the engine asks it on every card drawn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Knowledge {
    /// `None` until a mod learns or shows something, and again once all of it is forgotten,
    /// so that two states that know the same compare equal.
    held: Option<Box<Held>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Held {
    known: Vec<Known>,
    /// Cards revealed to the table and still in their hands: public, so nobody learns them.
    public: Vec<(Seat, Card)>,
    /// Per mod (by id), how it came to know what it knew.
    learned: Vec<Learned>,
}

impl Held {
    fn is_empty(&self) -> bool {
        self.known.is_empty() && self.public.is_empty() && self.learned.is_empty()
    }

    fn count(&self, by: ModId, place: Hidden, card: Card) -> usize {
        self.known.iter().filter(|k| k.by == by && k.place == place && k.card == Some(card)).count()
    }
}

impl Knowledge {
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.held.is_none()
    }

    /// What is held, made when something is first learned.
    fn held(&mut self) -> &mut Held {
        self.held.get_or_insert_with(Box::default)
    }

    /// How each mod came to know hidden cards, by id (a mod missing from the end learned
    /// nothing).
    pub fn learned(&self) -> &[Learned] {
        self.held.as_ref().map_or(&[], |h| &h.learned)
    }

    fn note(&mut self, by: ModId, how: impl FnOnce(&mut Learned)) {
        let learned = &mut self.held().learned;
        let i = usize::from(by.0);
        if learned.len() <= i {
            learned.resize(i + 1, Learned::default());
        }
        how(&mut learned[i]);
    }

    /// `by` is told, `how`, that `card` lies in `seat`'s hand (`hand` is that hand now).
    pub(super) fn learn(&mut self, by: ModId, how: Told, seat: Seat, card: Card, hand: &[Card]) {
        self.note(by, |l| match how {
            Told::Drawn => l.drawn = true,
            Told::Hand => l.hand = true,
            Told::Probe => l.probe = true,
        });
        let held = self.held();
        let public = held.public.iter().filter(|&&(s, c)| s == seat && c == card).count();
        let in_hand = hand.iter().filter(|&&c| c == card).count();
        let known = held.count(by, Hidden::Hand(seat), card);
        // Only copies that are in the hand and not shown to the table are news.
        if known + public < in_hand {
            held.known.push(Known { by, place: Hidden::Hand(seat), card: Some(card) });
        }
    }

    /// A card moved from one hidden place to another (the deck into a hand): whoever knew it
    /// there knows it here.
    pub(super) fn moved(&mut self, card: Card, from: Hidden, to: Hidden) {
        let Some(held) = &mut self.held else { return };
        let knew: Vec<ModId> =
            held.known.iter().filter(|k| k.place == from && k.card == Some(card)).map(|k| k.by).collect();
        for by in knew {
            held.known.push(Known { by, place: to, card: Some(card) });
        }
    }

    /// `by` showed the table that `card` is in `seat`'s hand: nobody's secret any more.
    pub(super) fn reveal(&mut self, by: ModId, seat: Seat, card: Card) {
        self.note(by, |l| l.revealed = true);
        let held = self.held();
        held.public.push((seat, card));
        let mut mods: Vec<ModId> = held.known.iter().map(|k| k.by).collect();
        mods.sort_unstable();
        mods.dedup();
        for m in mods {
            if let Some(i) =
                held.known.iter().position(|k| k.by == m && k.place == Hidden::Hand(seat) && k.card == Some(card))
            {
                held.known.remove(i);
            }
        }
    }

    /// How many copies of `card` in `seat`'s hand were shown to the table (and are still
    /// there).
    pub(super) fn shown(&self, seat: Seat, card: Card) -> usize {
        self.held.as_ref().map_or(0, |held| held.public.iter().filter(|&&(s, c)| s == seat && c == card).count())
    }

    /// `card` is about to come hidden into `seat`'s hand, which holds `held` copies of it now:
    /// the copies shown there that have left since are no longer shown, so the new one is not
    /// taken for shown (what was shown is otherwise forgotten only when asked,
    /// [`Knowledge::forget_visible`]).
    pub(super) fn arrives(&mut self, seat: Seat, card: Card, held: usize) {
        let Some(held_now) = &mut self.held else { return };
        let mut kept = 0;
        held_now.public.retain(|&(s, c)| {
            if s != seat || c != card {
                return true;
            }
            kept += 1;
            kept <= held
        });
    }

    /// `card` went face up into `seat`'s hand (taken from the discard pile): everyone saw it,
    /// so in that hand it is nobody's secret.
    pub(super) fn made_public(&mut self, seat: Seat, card: Card) {
        self.held().public.push((seat, card));
    }

    /// `to` learns all that `from` knows (it was handed an answer `from` worked out).
    pub(super) fn share(&mut self, from: ModId, to: ModId) {
        let Some(held) = &mut self.held else { return };
        if from == to {
            return;
        }
        let theirs: Vec<Known> = held.known.iter().filter(|k| k.by == from).map(|&k| Known { by: to, ..k }).collect();
        held.known.extend(theirs);
        if let Some(&learned) = held.learned.get(usize::from(from.0)) {
            self.note(to, |l| l.join(learned));
        }
    }

    /// Drops what became visible: a known card no longer where it was known (or no longer in as
    /// many copies), and a revealed card no longer in its hand. `hand` and `deck` count the
    /// copies of a card in a hand and in the deck now.
    pub(super) fn forget_visible(&mut self, count_in: impl Fn(Hidden, Card) -> usize) {
        let Some(held) = &mut self.held else { return };
        // Revealed cards that left their hand.
        let mut kept: Vec<(Seat, Card)> = Vec::with_capacity(held.public.len());
        for &(seat, card) in &held.public {
            let shown = kept.iter().filter(|&&(s, c)| s == seat && c == card).count();
            if shown < count_in(Hidden::Hand(seat), card) {
                kept.push((seat, card));
            }
        }
        held.public = kept;
        // Known cards: at most as many copies as lie there, less those shown to the table.
        let mut kept: Vec<Known> = Vec::with_capacity(held.known.len());
        for &k in &held.known {
            let Some(card) = k.card else {
                kept.push(k);
                continue;
            };
            let public = match k.place {
                Hidden::Hand(seat) => held.public.iter().filter(|&&(s, c)| s == seat && c == card).count(),
                Hidden::Deck => 0,
            };
            let already = kept.iter().filter(|j| j.by == k.by && j.place == k.place && j.card == Some(card)).count();
            if already + public < count_in(k.place, card) {
                kept.push(k);
            }
        }
        held.known = kept;
        if held.is_empty() {
            self.held = None;
        }
    }

    /// What `by`'s words may tell of now (once what became visible is forgotten).
    pub fn secret_of(&self, by: ModId) -> Secret {
        let Some(held) = &self.held else { return Secret::NONE };
        held.known.iter().filter(|k| k.by == by).fold(Secret::NONE, |s, k| s.union(k.place.secret()))
    }

    /// The same knowledge kept by place, for a copy of the game whose hidden cards are dealt
    /// otherwise (a sample): each mod knows something of every place it knew a card in, for
    /// as long as the copy lasts.
    pub(super) fn by_place(&self) -> Knowledge {
        let Some(held) = &self.held else { return Knowledge::default() };
        let mut known: Vec<Known> = Vec::new();
        for k in &held.known {
            let kept = Known { card: None, ..*k };
            if !known.contains(&kept) {
                known.push(kept);
            }
        }
        let held = Held { known, public: Vec::new(), learned: held.learned.clone() };
        Knowledge { held: (!held.is_empty()).then(|| Box::new(held)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::parse_cards;

    fn card(s: &str) -> Card {
        s.parse().unwrap()
    }

    const A: ModId = ModId(0);
    const B: ModId = ModId(1);

    #[test]
    fn a_known_card_is_a_secret_until_it_leaves_the_hand() {
        let hand = parse_cards("7H 9C").unwrap();
        let mut k = Knowledge::default();
        k.learn(A, Told::Drawn, 1, card("7H"), &hand);
        assert_eq!(k.secret_of(A), Secret::hand(1));
        assert_eq!(k.secret_of(B), Secret::NONE, "another mod was told nothing");
        // Still held: still a secret.
        k.forget_visible(
            |place, c| if place == Hidden::Hand(1) { hand.iter().filter(|&&h| h == c).count() } else { 0 },
        );
        assert_eq!(k.secret_of(A), Secret::hand(1));
        // Played: everyone saw it.
        k.forget_visible(|place, c| usize::from(place == Hidden::Hand(1) && c == card("9C")));
        assert_eq!(k.secret_of(A), Secret::NONE);
    }

    #[test]
    fn a_card_known_in_the_deck_is_known_in_the_hand_it_is_drawn_into() {
        let mut k = Knowledge {
            held: Some(Box::new(Held {
                known: vec![Known { by: A, place: Hidden::Deck, card: Some(card("QS")) }],
                ..Default::default()
            })),
        };
        k.moved(card("QS"), Hidden::Deck, Hidden::Hand(2));
        k.forget_visible(|place, c| usize::from(place == Hidden::Hand(2) && c == card("QS")));
        assert_eq!(k.secret_of(A), Secret::hand(2));
    }

    #[test]
    fn a_revealed_card_is_nobodys_secret_and_cannot_be_learned_again() {
        let hand = parse_cards("7H 9C").unwrap();
        let mut k = Knowledge::default();
        k.learn(A, Told::Drawn, 0, card("7H"), &hand);
        k.learn(B, Told::Hand, 0, card("7H"), &hand);
        k.reveal(A, 0, card("7H"));
        assert_eq!((k.secret_of(A), k.secret_of(B)), (Secret::NONE, Secret::NONE));
        k.learn(B, Told::Hand, 0, card("7H"), &hand);
        assert_eq!(k.secret_of(B), Secret::NONE, "the table knows it already");
        k.learn(B, Told::Hand, 0, card("9C"), &hand);
        assert_eq!(k.secret_of(B), Secret::hand(0));
        assert!(k.learned()[0].revealed && k.learned()[0].drawn && k.learned()[1].hand);
    }

    #[test]
    fn two_copies_of_a_card_are_two_secrets() {
        // Two decks: seat 0 holds two 7H; A knows both, one is played.
        let hand = parse_cards("7H 7H").unwrap();
        let mut k = Knowledge::default();
        k.learn(A, Told::Hand, 0, card("7H"), &hand);
        k.learn(A, Told::Hand, 0, card("7H"), &hand);
        k.learn(A, Told::Hand, 0, card("7H"), &hand);
        k.forget_visible(|place, c| usize::from(place == Hidden::Hand(0) && c == card("7H")));
        assert_eq!(k.secret_of(A), Secret::hand(0), "one copy is still held");
        k.forget_visible(|_, _| 0);
        assert_eq!(k.secret_of(A), Secret::NONE);
    }

    #[test]
    fn an_answer_handed_over_carries_what_its_writer_knew() {
        let hand = parse_cards("KD").unwrap();
        let mut k = Knowledge::default();
        k.learn(A, Told::Hand, 3, card("KD"), &hand);
        k.share(A, B);
        assert_eq!(k.secret_of(B), Secret::hand(3));
    }

    #[test]
    fn in_a_sample_knowledge_is_kept_by_place() {
        let hand = parse_cards("KD").unwrap();
        let mut k = Knowledge::default();
        k.learn(A, Told::Hand, 3, card("KD"), &hand);
        let mut sample = k.by_place();
        sample.forget_visible(|_, _| 0);
        assert_eq!(sample.secret_of(A), Secret::hand(3), "the hand was dealt otherwise, the mod still knows");
    }

    #[test]
    fn words_show_their_text_without_a_viewer_only_when_public() {
        assert_eq!(Words::public("no room").to_string(), "no room");
        assert_eq!(Words::new("bob holds 7H", Secret::hand(1)).to_string(), WITHHELD);
    }
}
