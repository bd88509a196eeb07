//! The single source of legality: [`Moves`], what the current seat may do now, and
//! [`check`], whether one action is legal.
//!
//! Both read what a card offers from the same place: a built-in card answers with
//! `Builtin::offer`, the code the built-in entries' own `aim` runs; any other entry is
//! asked through the registry (once per listing when its answer does not depend on the card). Everything else — the list of legal
//! actions, counts, the random bot's pick, greedy's scan, `View` — is a fold over `Moves`.
//!
//! The actions mods registered ([`Action::Act`]) are listed last, before a pass: each rule is
//! asked once per argument it may take (its reason for a refused one is what [`check`]
//! returns). With no such action, listing them is one test of an empty slice.

use smallvec::SmallVec;

use super::action::{Action, ActionError, ActionName, Seat, Source, cards_in_mask};
use super::aim::Aim;
use super::builtin::Builtin;
use super::card::Card;
use super::effects::{ASK, ActionArg, Effect, Registry};
use super::error::EffectError;
use super::knowledge::Words;
use super::seats::Seats;
use super::state::State;

/// A card the current player can play now, and what playing it offers. Sixteen bytes: a
/// listing copies a handful of these every turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Playable {
    pub card: Card,
    /// The table slot it lies in, or [`IN_HAND`] (`table_size` is at most 16).
    slot: u8,
    /// Whether the player chooses the discard order: each play is then listed twice, the
    /// plain order first and then with the card on top.
    order_choice: bool,
    /// Whether a play must name one of `seats` as its target.
    targeted: bool,
    /// How many plays the card offers (at most 63 targets, twice each).
    plays: u8,
    seats: Seats,
}

/// `Playable::slot` of a hand card.
const IN_HAND: u8 = u8::MAX;

impl Playable {
    /// `card` from `from`, offering `targets` (one of which a play must name; `None`: it
    /// takes no target) and, if `order_choice`, the discard order.
    pub fn new(card: Card, from: Source, targets: Option<Seats>, order_choice: bool) -> Playable {
        let slot = match from {
            Source::Hand => IN_HAND,
            Source::Table(slot) => u8::try_from(slot).expect("table slots are at most 16"),
        };
        let plays = targets.map_or(1, |seats| seats.len()) << usize::from(order_choice);
        Playable {
            card,
            slot,
            order_choice,
            targeted: targets.is_some(),
            plays: u8::try_from(plays).expect("at most 63 targets"),
            seats: targets.unwrap_or_default(),
        }
    }

    /// This offer for `card` at `slot` (a table slot or [`IN_HAND`]).
    #[inline(always)]
    fn placed(self, card: Card, slot: u8) -> Playable {
        Playable { card, slot, ..self }
    }

    /// Where the card is.
    #[inline]
    pub fn from(self) -> Source {
        if self.slot == IN_HAND { Source::Hand } else { Source::Table(self.slot as usize) }
    }

    /// The seats it can target, one of which a play must name (`None`: it takes no target).
    #[inline]
    pub fn targets(self) -> Option<Seats> {
        self.targeted.then_some(self.seats)
    }

    /// Whether the player chooses the discard order (each play is listed twice).
    #[inline]
    pub fn order_choice(self) -> bool {
        self.order_choice
    }

    /// How many plays this card offers.
    #[inline]
    pub fn play_count(self) -> usize {
        usize::from(self.plays)
    }

    /// Play `i` of this card's plays (`i < self.play_count()`), in listing order: targets in
    /// seat order, and for each the plain order, then the card on top.
    pub fn play(self, i: usize) -> Action {
        debug_assert!(i < self.play_count(), "play {i} of {self:?}");
        let face_on_top = self.order_choice && i & 1 == 1;
        let target = self.targets().map(|seats| {
            let mut bits = seats.0;
            for _ in 0..i >> usize::from(self.order_choice) {
                bits &= bits - 1;
            }
            bits.trailing_zeros() as Seat
        });
        Action::Play { card: self.card, from: self.from(), target, face_on_top }
    }

    /// Calls `each(target, face_on_top)` for every play of this card, in listing order.
    #[inline(always)]
    pub fn each_play(self, mut each: impl FnMut(Option<Seat>, bool)) {
        let mut one = |target| {
            each(target, false);
            if self.order_choice {
                each(target, true);
            }
        };
        match self.targets() {
            None => one(None),
            Some(seats) => seats.iter().for_each(|t| one(Some(t))),
        }
    }
}

/// What the current seat may do now, in the order every listing uses: the plays of each
/// distinct hand card, then of each table card (per card: targets in seat order, the plain
/// discard order before the card on top); then the recoveries, one per distinct set of hand
/// cards in mask order (K on top first when the player may choose); then the actions mods
/// registered (in the order added; per action, naming nothing first when it may, then its
/// targets in seat order, or its hand cards in hand order); `pass` only when nothing else is
/// legal (D22). Empty when the game is over or it is not the asking seat's turn.
///
/// A listing is what each card's rank offers and which cards are playable, not a list of
/// actions: with the built-in cards it works out four offers (number, J, Q, K) in one pass
/// over the divers, and a card then costs a table read when it is counted and when it is
/// visited. The playable cards are a bit set over the hand and the table, visited in order.
/// Entries are asked while the listing is made, once per listing when their answer does not
/// depend on the card (else once per card, and that answer is kept), and never again.
#[derive(Debug, Clone)]
pub struct Moves<'a> {
    hand: &'a [Card],
    table: &'a [Option<Card>],
    /// What the built-in cards offer (by `Builtin` order; `None`: blocked): offers 0 to 3.
    builtin: [Option<Playable>; 4],
    /// Per rank (by number), the index of its cards' offer, as the registry gives it: a
    /// built-in offer, or [`ASK`] for a rank whose entry is asked. Once an entry was asked,
    /// `answers.slots` holds them instead.
    slots: &'a [u16; 16],
    /// What asking entries gave; `None` while no entry was asked (a listing of built-in
    /// cards allocates nothing, and stays small enough to be copied without `memcpy`).
    answers: Option<Box<Answers>>,
    /// The playable cards: bit `i` for hand card `i`, bit [`TABLE`] + `s` for table slot `s`.
    /// A repeated hand card is listed at its first copy only.
    listed: u32,
    /// How many plays the listed cards offer.
    play_count: usize,
    /// Whether recoveries are listed: the game runs and the hand is not empty.
    recover: bool,
    /// Whether the hand holds two copies of a card (several decks): then a repeated card is
    /// listed once, and some masks name the same cards and only the first is listed.
    repeats: bool,
    /// Whether a recovery offers the discard order (two actions per set of cards).
    order_choice: bool,
    /// Whether `pass` is the one legal action.
    pass: bool,
}

/// What a listing's entries answered ([`Moves::answers`]).
#[derive(Debug, Clone)]
struct Answers {
    /// `Moves::slots`, with each asked rank's offer, or [`PER_CARD`] where each card has its
    /// own.
    slots: [u16; 16],
    /// The entries' answers: offers 4 and on.
    other: Vec<Option<Playable>>,
    /// The offer of each card whose rank answers card by card, by its place in `listed`.
    card_offers: [u16; 32],
    /// The first entry that failed to answer (its cards are not listed): what a client that
    /// lists moves reports instead of hiding the cards ([`Moves::failure`]).
    failure: Option<EffectError>,
    /// The listed actions mods registered ([`Action::Act`]), in listing order.
    acts: Vec<Action>,
}

/// `Moves::slots`: the rank's entry answers card by card (its aim looks at the card).
const PER_CARD: u16 = u16::MAX - 1;
/// The first bit of the table's slots in `Moves::listed`: a hand holds fewer than 16 cards
/// and a table at most 16 slots.
const TABLE: usize = 16;
const _: () = assert!(super::rules::MAX_HAND_SIZE < TABLE, "a hand's cards fit below the table's bits");
const _: () = assert!(TABLE + super::rules::MAX_TABLE_SIZE <= 32, "a table's cards fit in the listing's bits");

impl<'a> Moves<'a> {
    /// Nothing is legal (the game is over, or it is another seat's turn).
    pub fn none() -> Moves<'a> {
        Moves {
            hand: &[],
            table: &[],
            builtin: [None; 4],
            slots: &[ASK; 16],
            answers: None,
            listed: 0,
            play_count: 0,
            recover: false,
            repeats: false,
            order_choice: false,
            pass: false,
        }
    }

    /// What the current player of `state` may do under `registry`.
    pub fn of(state: &'a State, registry: &'a Registry) -> Moves<'a> {
        if state.is_over() {
            return Moves::none();
        }
        let me = state.current();
        let hand = &state.player(me).hand[..];
        let recover = !hand.is_empty();
        // The built-in cards' offers are worked out at once; an entry is asked when a card of
        // its rank is first seen, as `Asked::ask` says.
        let targetable = state.targetable(me);
        let mut moves = Moves {
            hand,
            table: state.table(),
            builtin: Builtin::ALL.map(|b| {
                b.offer_among(state, me, targetable)
                    .ok()
                    .map(|(targets, order)| Playable::new(NO_CARD, Source::Hand, targets, order))
            }),
            slots: registry.aim_slots(),
            recover,
            repeats: state.hand_has_repeats(me),
            order_choice: recover && registry.recovery_order_choice(state, me),
            ..Moves::none()
        };
        // An open built-in offer has at least one play, so its play count (0 when closed)
        // says both whether and how much a card of its kind can be played: a card of a
        // built-in rank is counted without a branch.
        let builtin_plays = moves.builtin.map(|offer| offer.map_or(0, Playable::play_count));
        let mut asked = Asked { state, registry, by_entry: SmallVec::new() };
        let (mut listed, mut play_count) = (0u32, 0);
        let mut list = |moves: &mut Moves<'a>, card: Card, at: usize| {
            let offer = moves.slot(card);
            let (open, plays) = match builtin_plays.get(usize::from(offer)) {
                Some(&plays) => (plays != 0, plays),
                None => moves.asked_plays(&mut asked, card, at, offer),
            };
            listed |= u32::from(open) << at;
            play_count += plays;
        };
        if moves.repeats {
            for (i, &card) in hand.iter().enumerate() {
                // A repeated card is listed once, at its first copy.
                if !hand[..i].contains(&card) {
                    list(&mut moves, card, i);
                }
            }
        } else {
            for (i, &card) in hand.iter().enumerate() {
                list(&mut moves, card, i);
            }
        }
        for (slot, card) in state.table().iter().enumerate() {
            if let Some(card) = *card {
                list(&mut moves, card, TABLE + slot);
            }
        }
        moves.listed = listed;
        moves.play_count = play_count;
        // With the standard rules, one test of an empty slice.
        if !registry.actions().is_empty() {
            moves.list_acts(state, registry);
        }
        moves.pass = listed == 0 && !recover && moves.acts().is_empty();
        moves
    }

    /// Lists the actions mods registered that the current player may take now: each asked
    /// per argument, once per listing. A rule that fails to answer lists nothing and is kept
    /// as the listing's failure.
    #[inline(never)]
    fn list_acts(&mut self, state: &State, registry: &Registry) {
        let me = state.current();
        let hand = &state.player(me).hand[..];
        for entry in registry.actions() {
            let none = entry.arg.allows_none().then_some((None, None));
            let seats = entry.arg.seats(state.player_count(), me).map(|s| (Some(s), None));
            let cards = entry.arg.cards(hand).map(|c| (None, Some(c)));
            for (target, card) in none.into_iter().chain(seats).chain(cards) {
                match entry.rule.legal(state, me, target, card) {
                    Ok(Ok(())) => self.answers().acts.push(Action::Act { name: entry.name, target, card }),
                    Ok(Err(_)) => {}
                    Err(failure) => {
                        self.answers().failure.get_or_insert(failure);
                        break;
                    }
                }
            }
        }
    }

    /// The listed actions mods registered, in listing order (empty with the standard rules).
    #[inline]
    pub fn acts(&self) -> &[Action] {
        match &self.answers {
            None => &[],
            Some(answers) => &answers.acts,
        }
    }

    /// Whether `card` (at place `at` of `listed`), whose rank's offer is not a built-in one
    /// (`offer`: an entry's answer, or the entry to ask), can be played, and how many plays
    /// it offers.
    #[inline(never)]
    fn asked_plays(&mut self, asked: &mut Asked<'_>, card: Card, at: usize, mut offer: u16) -> (bool, usize) {
        if offer >= PER_CARD {
            offer = asked.ask(self, card, at);
        }
        self.offer(offer).map_or((false, 0), |p| (true, p.play_count()))
    }

    /// The listed card at place `at` of `listed`, with what it offers.
    #[inline(always)]
    fn playable_at(&self, at: usize) -> Playable {
        let (card, slot) = match self.hand.get(at) {
            Some(&card) => (card, IN_HAND),
            None => (self.table[at - TABLE].unwrap_or(NO_CARD), (at - TABLE) as u8),
        };
        let mut offer = self.slot(card);
        if offer == PER_CARD
            && let Some(answers) = &self.answers
        {
            offer = answers.card_offers[at];
        }
        // A card is listed only when its offer is open.
        self.offer(offer).unwrap_or(CLOSED).placed(card, slot)
    }

    /// The index of `card`'s offer ([`Moves::slots`]).
    #[inline(always)]
    fn slot(&self, card: Card) -> u16 {
        match &self.answers {
            None => self.slots[rank_slot(card)],
            Some(answers) => answers.slots[rank_slot(card)],
        }
    }

    /// What asking entries gave, made at the first entry asked.
    fn answers(&mut self) -> &mut Answers {
        let slots = self.slots;
        self.answers.get_or_insert_with(|| {
            Box::new(Answers {
                slots: *slots,
                other: Vec::new(),
                card_offers: [ASK; 32],
                failure: None,
                acts: Vec::new(),
            })
        })
    }

    /// Offer `i`.
    #[inline(always)]
    fn offer(&self, i: u16) -> Option<Playable> {
        match self.builtin.get(usize::from(i)) {
            Some(offer) => *offer,
            None => self.answers.as_ref().and_then(|answers| answers.other[usize::from(i) - 4]),
        }
    }

    /// The playable cards, each once with what it offers, in listing order.
    #[inline]
    pub fn playable(&self) -> Playables<'_, 'a> {
        Playables { moves: self, left: self.listed }
    }

    /// How many plays are listed.
    #[inline]
    pub fn play_count(&self) -> usize {
        self.play_count
    }

    /// Calls `each(card, from, target, face_on_top)` for every listed play, in order.
    #[inline]
    pub fn each_play(&self, mut each: impl FnMut(Card, Source, Option<Seat>, bool)) {
        for p in self.playable() {
            p.each_play(|target, face_on_top| each(p.card, p.from(), target, face_on_top));
        }
    }

    /// The hand the recoveries are masks over (bit `i` = hand card `i`).
    pub fn hand(&self) -> &'a [Card] {
        self.hand
    }

    /// The listed recoveries as masks over [`Moves::hand`], in listing order (each stands for
    /// [`Moves::per_recovery`] actions).
    pub fn recovery_masks(&self) -> impl Iterator<Item = u32> + '_ {
        // A hand holds at most 13 cards (an entry draws it up to MAX_HAND_SIZE, then the played
        // card is replaced, D6), so there are at most 2¹³ − 1 masks; 31 bounds the shift.
        let n = if self.recover { self.hand.len().min(31) } else { 0 };
        (1u32..(1 << n)).filter(move |&mask| !self.repeats || first_mask_for_cards(self.hand, mask))
    }

    /// How many sets of cards can be recovered with.
    pub fn recovery_count(&self) -> usize {
        match (self.recover, self.repeats) {
            (false, _) => 0,
            (true, false) => (1usize << self.hand.len().min(31)) - 1,
            (true, true) => self.recovery_masks().count(),
        }
    }

    /// Whether a recovery lets the player put the K in front of them on top (each set of
    /// cards is then listed twice: K on top first).
    pub fn recovery_order_choice(&self) -> bool {
        self.order_choice
    }

    /// Actions listed per set of recovered cards: 2 with the order choice, else 1.
    pub fn per_recovery(&self) -> usize {
        1 << usize::from(self.order_choice)
    }

    /// The recovery of the cards in `mask`.
    pub fn recovery(&self, mask: u32, face_on_top: bool) -> Action {
        Action::Recover { cards: cards_in_mask(self.hand, mask), face_on_top }
    }

    /// The first registry entry (a mod's) that failed to say whether and how its card can be
    /// played while this listing was made, if one did: its cards are not listed, and a client
    /// that lists moves reports this rather than hide them. The failure is a value of the
    /// listing: nothing else carries it.
    pub fn failure(&self) -> Option<&EffectError> {
        self.answers.as_ref().and_then(|answers| answers.failure.as_ref())
    }

    /// Whether passing is the one legal action.
    pub fn is_pass_only(&self) -> bool {
        self.pass
    }

    /// How many actions are listed.
    #[inline]
    pub fn len(&self) -> usize {
        if self.pass {
            return 1;
        }
        self.play_count + self.recovery_count() * self.per_recovery() + self.acts().len()
    }

    /// Whether nothing is legal (the game is over or it is not this seat's turn).
    #[inline]
    pub fn is_empty(&self) -> bool {
        !self.pass && !self.recover && self.listed == 0 && self.acts().is_empty()
    }

    /// Action `i` of the listing (`i < self.len()`), built alone.
    pub fn nth(&self, i: usize) -> Option<Action> {
        if self.pass {
            return (i == 0).then_some(Action::Pass);
        }
        let mut rest = i;
        if rest < self.play_count {
            for p in self.playable() {
                match rest.checked_sub(p.play_count()) {
                    Some(after) => rest = after,
                    None => return Some(p.play(rest)),
                }
            }
        }
        rest -= self.play_count;
        if !self.acts().is_empty() {
            let recoveries = self.recovery_count() * self.per_recovery();
            if rest >= recoveries {
                return self.acts().get(rest - recoveries).copied();
            }
        }
        let knotted = self.order_choice;
        // Two actions per mask with the order choice (K on top first); a shift, not a division.
        let m = rest >> usize::from(knotted);
        let mask = if self.repeats { self.recovery_masks().nth(m)? } else { u32::try_from(m + 1).ok()? };
        if !self.recover || (mask as usize) >= 1 << self.hand.len().min(31) {
            return None;
        }
        Some(self.recovery(mask, knotted && rest.is_multiple_of(2)))
    }

    /// Every listed action, in order.
    pub fn to_vec(&self) -> Vec<Action> {
        let mut out = Vec::with_capacity(self.play_count + 15);
        self.each_play(|card, from, target, face_on_top| out.push(Action::Play { card, from, target, face_on_top }));
        for mask in self.recovery_masks() {
            if self.order_choice {
                out.push(self.recovery(mask, true));
            }
            out.push(self.recovery(mask, false));
        }
        out.extend_from_slice(self.acts());
        if self.pass {
            out.push(Action::Pass);
        }
        out
    }
}

/// The playable cards of a listing, in its order ([`Moves::playable`]).
#[derive(Debug, Clone)]
pub struct Playables<'m, 'a> {
    moves: &'m Moves<'a>,
    /// The places of `Moves::listed` not visited yet.
    left: u32,
}

impl Iterator for Playables<'_, '_> {
    type Item = Playable;

    #[inline(always)]
    fn next(&mut self) -> Option<Playable> {
        if self.left == 0 {
            return None;
        }
        let at = self.left.trailing_zeros() as usize;
        self.left &= self.left - 1;
        Some(self.moves.playable_at(at))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.left.count_ones() as usize;
        (n, Some(n))
    }

    /// The `n`th card left, without visiting the ones before it.
    #[inline]
    fn nth(&mut self, n: usize) -> Option<Playable> {
        for _ in 0..n.min(32) {
            self.left &= self.left.wrapping_sub(1);
        }
        self.next()
    }
}

impl ExactSizeIterator for Playables<'_, '_> {}

/// The index of `card`'s rank in per-rank tables of 16 (its number).
#[inline(always)]
fn rank_slot(card: Card) -> usize {
    usize::from(card.rank.number()) & 15
}

/// The card an offer carries before it is placed (never listed).
const NO_CARD: Card = Card { rank: super::card::Rank::ACE, suit: super::card::Suit::Clubs };

/// An offer of no play (never listed).
const CLOSED: Playable =
    Playable { card: NO_CARD, slot: IN_HAND, order_choice: false, targeted: false, plays: 0, seats: Seats(0) };

/// Whether `mask` is the first subset (in mask order) of `hand` holding exactly its cards:
/// with repeated cards, a later mask that swaps one copy for another names the same cards.
fn first_mask_for_cards(hand: &[Card], mask: u32) -> bool {
    // A mask is canonical when, for each repeated card, it takes the earliest copies.
    for (i, c) in hand.iter().enumerate() {
        if mask & (1 << i) == 0 {
            continue;
        }
        // Taking copy i while skipping an earlier copy j of the same card is not canonical.
        if hand[..i].iter().enumerate().any(|(j, d)| d == c && mask & (1 << j) == 0) {
            return false;
        }
    }
    true
}

/// The entries a listing being made has asked.
struct Asked<'a> {
    state: &'a State,
    registry: &'a Registry,
    /// The offers of entries whose aim ignores the card, by entry address.
    by_entry: SmallVec<[(usize, u16); 2]>,
}

impl Asked<'_> {
    /// Where in `moves`' offers the answer for `card` (at place `at`) is, the first time a
    /// card of its rank is seen (or each time, for an entry that answers card by card, whose
    /// answer is kept by place): an entry is asked once
    /// per listing when its aim ignores the card (and then for every rank it serves), else
    /// for this card. For the ranks no built-in card answers.
    #[inline(never)]
    fn ask(&mut self, moves: &mut Moves<'_>, card: Card, at: usize) -> u16 {
        let rank = rank_slot(card);
        let entry = match self.registry.aim_of(card.rank) {
            Ok(builtin) => return builtin as u16,
            Err(entry) => entry,
        };
        if !entry.aim_ignores_card() {
            let offer = self.answer(moves, entry, card);
            let answers = moves.answers();
            answers.slots[rank] = PER_CARD;
            answers.card_offers[at] = offer;
            return offer;
        }
        let key = (entry as *const dyn Effect).cast::<()>() as usize;
        let offer = match self.by_entry.iter().find(|(k, _)| *k == key) {
            Some(&(_, offer)) => offer,
            None => {
                let offer = self.answer(moves, entry, card);
                self.by_entry.push((key, offer));
                offer
            }
        };
        moves.answers().slots[rank] = offer;
        offer
    }

    /// Where `entry`'s answer for `card` is in `moves`' offers, added if new (an entry that
    /// failed to answer offers nothing).
    fn answer(&self, moves: &mut Moves<'_>, entry: &dyn Effect, card: Card) -> u16 {
        let offer = match entry.aim(self.state, self.state.current(), card) {
            Ok(Aim::Open { targets, order_choice }) => {
                Some(Playable::new(NO_CARD, Source::Hand, targets, order_choice))
            }
            Ok(Aim::Blocked(_)) => None,
            Err(failure) => {
                moves.answers().failure.get_or_insert(failure);
                None
            }
        };
        let other = &mut moves.answers().other;
        let at = 4 + other.iter().position(|o| *o == offer).unwrap_or_else(|| {
            other.push(offer);
            other.len() - 1
        });
        // At most one offer per listed card, and there are at most 52 × 16 cards (`decks`).
        u16::try_from(at).expect("fewer offers than cards")
    }
}

/// Whether `action` is legal for the current player of `state` under `registry`: `Ok`, or
/// the reason it is not.
pub fn check(state: &State, registry: &Registry, action: &Action) -> Result<(), ActionError> {
    if state.is_over() {
        return Err(ActionError::GameOver);
    }
    let me = state.player(state.current());
    match action {
        Action::Play { card, from, target, face_on_top } => {
            let card = *card;
            match *from {
                Source::Hand => {
                    if !me.hand.contains(&card) {
                        return Err(ActionError::NotInHand { card });
                    }
                }
                Source::Table(slot) => match state.table().get(slot) {
                    None => return Err(ActionError::NoSuchSlot { slot }),
                    Some(c) if *c != Some(card) => return Err(ActionError::NotOnTable { card, slot }),
                    Some(_) => {}
                },
            }
            // The same answer the listing reads, for this one card.
            let aim = match registry.aim_of(card.rank) {
                Ok(builtin) => builtin.aim(state, state.current()),
                Err(entry) => entry.aim(state, state.current(), card).map_err(ActionError::Script)?,
            };
            let (targets, order_choice) = match aim {
                Aim::Blocked(reason) => return Err(ActionError::NotPlayable { card, reason }),
                Aim::Open { targets, order_choice } => (targets, order_choice),
            };
            if *face_on_top && !order_choice {
                return Err(ActionError::NoOrderChoice);
            }
            match (targets, *target) {
                (None, None) => Ok(()),
                (None, Some(_)) => Err(ActionError::NoTargetTaken { card }),
                (Some(options), None) => Err(ActionError::TargetNeeded { card, options: options.iter().collect() }),
                (Some(options), Some(t)) if options.contains(t) => Ok(()),
                (Some(_), Some(t)) => {
                    Err(ActionError::BadTarget { card, target: t, reason: target_reason(state, registry, card, t) })
                }
            }
        }
        Action::Recover { cards, face_on_top } => {
            if cards.is_empty() {
                return Err(ActionError::EmptyRecovery);
            }
            // Each named card must match its own hand card (no allocation: a bit per card).
            let mut used = 0u64;
            for card in cards {
                let found = me.hand.iter().enumerate().position(|(i, c)| c == card && used & (1 << i) == 0);
                match found {
                    Some(i) if i < 64 => used |= 1 << i,
                    _ => return Err(ActionError::NotInHand { card: *card }),
                }
            }
            if *face_on_top && !registry.recovery_order_choice(state, state.current()) {
                return Err(ActionError::NoOrderChoice);
            }
            Ok(())
        }
        Action::Act { name, target, card } => check_act(state, registry, *name, *target, *card),
        Action::Pass => {
            if Moves::of(state, registry).is_pass_only() {
                Ok(())
            } else {
                Err(ActionError::CannotPass)
            }
        }
    }
}

/// Whether the current player may take the registered action `name` at `target` or with
/// `card`.
fn check_act(
    state: &State,
    registry: &Registry,
    name: ActionName,
    target: Option<Seat>,
    card: Option<Card>,
) -> Result<(), ActionError> {
    let entry = registry.action(name).ok_or(ActionError::NoSuchAction { name })?;
    let me = state.current();
    let allowed = |t: Seat| entry.arg.seats(state.player_count(), me).any(|s| s == t);
    let takes_card = matches!(entry.arg, ActionArg::Card { .. });
    if target.is_some() && !matches!(entry.arg, ActionArg::Diver { .. }) {
        return Err(ActionError::ActNoTargetTaken { name });
    }
    match (card, takes_card) {
        (Some(_), false) => return Err(ActionError::ActNoCardTaken { name }),
        (Some(card), true) if !state.player(me).hand.contains(&card) => return Err(ActionError::NotInHand { card }),
        (None, true) if !entry.arg.allows_none() => return Err(ActionError::ActCardNeeded { name }),
        _ => {}
    }
    match (entry.arg, target) {
        (ActionArg::Diver { .. }, None) if !entry.arg.allows_none() => {
            let options = entry
                .arg
                .seats(state.player_count(), me)
                .filter(|&t| matches!(entry.rule.legal(state, me, Some(t), None), Ok(Ok(()))))
                .collect();
            return Err(ActionError::ActTargetNeeded { name, options });
        }
        (_, Some(t)) if !allowed(t) => {
            let reason = if t >= state.player_count() {
                Words::public(format!("there are only {} players", state.player_count()))
            } else {
                Words::public("you cannot target yourself")
            };
            return Err(ActionError::ActBadTarget { name, target: t, reason });
        }
        _ => {}
    }
    match entry.rule.legal(state, me, target, card).map_err(ActionError::Script)? {
        Ok(()) => Ok(()),
        Err(reason) => Err(match (target, card) {
            (Some(target), _) => ActionError::ActBadTarget { name, target, reason },
            (None, Some(card)) => ActionError::ActBadCard { name, card, reason },
            (None, None) => ActionError::ActNotAllowed { name, reason },
        }),
    }
}

fn target_reason(state: &State, registry: &Registry, card: Card, target: Seat) -> Words {
    if target >= state.player_count() {
        return Words::public(format!("there are only {} players", state.player_count()));
    }
    if target == state.current() {
        return Words::public("you cannot target yourself");
    }
    registry.target_refusal(state, state.current(), card, target)
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Arc;

    use crate::core::{ActionEntry, ActionRule, Ctx, Event, Game, Rules, Setup};

    /// A test action, `gift PLAYER`: give 1 oxygen to a deeper diver.
    struct Gift;

    impl ActionRule for Gift {
        fn legal(
            &self,
            state: &State,
            player: Seat,
            target: Option<Seat>,
            _: Option<Card>,
        ) -> Result<Result<(), Words>, EffectError> {
            let t = target.expect("gift names a diver");
            if state.player(t).depth <= state.player(player).depth {
                return Ok(Err(Words::public(format!("{} is not deeper than you", state.name(t)))));
            }
            Ok(Ok(()))
        }

        fn resolve(
            &self,
            ctx: &mut Ctx<'_>,
            player: Seat,
            target: Option<Seat>,
            _: Option<Card>,
        ) -> Result<(), EffectError> {
            let t = target.expect("checked");
            let (mine, theirs) = (ctx.state().player(player).oxygen, ctx.state().player(t).oxygen);
            ctx.set_oxygen(player, i64::from(mine) - 1)?;
            ctx.set_oxygen(t, i64::from(theirs.min(9)) + 1)
        }
    }

    /// An action whose rule cannot answer.
    struct Broken;

    impl ActionRule for Broken {
        fn legal(
            &self,
            _: &State,
            _: Seat,
            _: Option<Seat>,
            _: Option<Card>,
        ) -> Result<Result<(), Words>, EffectError> {
            Err(EffectError::new("mod broken.lua:3: it failed"))
        }

        fn resolve(&self, _: &mut Ctx<'_>, _: Seat, _: Option<Seat>, _: Option<Card>) -> Result<(), EffectError> {
            Err(EffectError::new("mod broken.lua:7: it failed"))
        }
    }

    fn entry(name: &str, arg: ActionArg, rule: impl ActionRule + 'static) -> ActionEntry {
        ActionEntry { name: name.parse().unwrap(), arg, describe: "a test".into(), rule: Arc::new(rule) }
    }

    fn game_with(entries: Vec<ActionEntry>) -> Game {
        let mut registry = Registry::standard();
        for e in entries {
            registry.add_action(e).unwrap();
        }
        let setup = Setup { names: vec!["ann".into(), "bob".into(), "cy".into()], seed: 3, deck: None };
        Game::new(Arc::new(Rules::default()), Arc::new(registry), setup).unwrap()
    }

    fn gift(target: Seat) -> Action {
        Action::Act { name: "gift".parse().unwrap(), target: Some(target), card: None }
    }

    /// A mod's action is listed after the recoveries, once per diver its rule allows; every
    /// fold of the listing agrees, every listed action checks, and it resolves as an event.
    #[test]
    fn a_registered_action_is_listed_checked_and_resolved() {
        let other = ActionArg::Diver { me: false, optional: false };
        let mut game = game_with(vec![entry("gift", other, Gift)]);
        assert!(game.moves().acts().is_empty(), "nobody is deeper at the start");
        assert_eq!(
            game.check(&gift(1)),
            Err(ActionError::ActBadTarget {
                name: "gift".parse().unwrap(),
                target: 1,
                reason: "bob is not deeper than you".into()
            })
        );
        let first =
            game.legal_actions().into_iter().find(|a| matches!(a, Action::Play { card, .. } if card.rank.is_number()));
        let first = first.expect("a number card to play");
        game.apply(&first, &mut ()).unwrap();
        // Bob's turn: ann is deeper, cy is not.
        let moves = game.moves();
        assert_eq!(moves.acts(), [gift(0)]);
        let all = moves.to_vec();
        assert_eq!(all.len(), moves.len());
        assert_eq!(all.last(), Some(&gift(0)), "after the recoveries");
        for (i, a) in all.iter().enumerate() {
            assert_eq!(moves.nth(i).as_ref(), Some(a), "nth {i}");
            assert_eq!(game.check(a), Ok(()), "{a}");
        }
        assert_eq!(moves.nth(all.len()), None);
        let before = game.clone();
        let refused = game.apply(&gift(2), &mut Vec::new());
        assert!(
            matches!(&refused, Err(ActionError::ActBadTarget { reason, .. }) if *reason == Words::public("cy is not deeper than you"))
        );
        assert_eq!(game, before, "a refusal changes nothing");
        assert_eq!(
            game.check(&gift(1)).unwrap_err().to_string(),
            "player 2 is not a valid target for gift: you cannot target yourself"
        );
        let none = Action::Act { name: "gift".parse().unwrap(), target: None, card: None };
        assert_eq!(
            game.check(&none),
            Err(ActionError::ActTargetNeeded { name: "gift".parse().unwrap(), options: vec![0] })
        );
        let unknown = Action::Act { name: "hug".parse().unwrap(), target: None, card: None };
        assert_eq!(game.check(&unknown), Err(ActionError::NoSuchAction { name: "hug".parse().unwrap() }));

        let mut events = Vec::new();
        game.apply(&gift(0), &mut events).unwrap();
        assert_eq!(events[0], Event::Acted { player: 1, name: "gift".parse().unwrap(), target: Some(0), card: None });
        assert_eq!(game.player(1).oxygen, 9);
        assert!(matches!(events.last(), Some(Event::TurnStarted { player: 2, .. })), "{events:?}");
    }

    /// A rule that fails to answer lists nothing and the listing keeps its failure; taking
    /// the action fails and changes nothing.
    #[test]
    fn a_failing_action_rule_is_the_listings_failure_and_changes_nothing() {
        let mut game = game_with(vec![entry("oops", ActionArg::None, Broken)]);
        let moves = game.moves();
        assert!(moves.acts().is_empty());
        assert_eq!(moves.failure().map(|f| f.to_string()).as_deref(), Some("mod broken.lua:3: it failed"));
        let before = game.clone();
        let oops = Action::Act { name: "oops".parse().unwrap(), target: None, card: None };
        let mut events = Vec::new();
        assert_eq!(
            game.apply(&oops, &mut events),
            Err(ActionError::Script(EffectError::new("mod broken.lua:3: it failed")))
        );
        assert_eq!((game == before, events.len()), (true, 0));
    }

    /// Two actions cannot share a name; a standard listing has none and asks nothing.
    #[test]
    fn action_names_are_unique_and_the_standard_listing_has_none() {
        let mut registry = Registry::standard();
        registry.add_action(entry("oops", ActionArg::None, Broken)).unwrap();
        assert!(registry.add_action(entry("oops", ActionArg::None, Gift)).unwrap_err().contains("registered already"));
        assert!(!registry.is_native());
        let game = Game::standard(&["ann", "bob"], 1).unwrap();
        assert!(game.registry().actions().is_empty());
        assert!(game.moves().acts().is_empty() && game.moves().failure().is_none());
    }

    /// A listing is returned by value every turn: at 192 bytes it was copied out with a
    /// `memcpy` whose stores the caller's first reads then waited on (random games ran 7–10%
    /// slower). What only mods need lives behind `answers`.
    #[test]
    fn a_listing_stays_small_enough_to_copy_without_memcpy() {
        assert!(std::mem::size_of::<Moves<'_>>() <= 128, "{} bytes", std::mem::size_of::<Moves<'_>>());
    }
}
