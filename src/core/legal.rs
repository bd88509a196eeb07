//! The single source of legality: [`Moves`], what the current seat may do now, and
//! [`check`], whether one action is legal.
//!
//! Both read what a card offers from the same place: a built-in card answers from one pass
//! over the divers (`Reach`, shared with the built-in entries' own `aim`), any other entry is
//! asked through the registry (once per listing when its answer does not depend on the card). Everything else — the list of legal
//! actions, counts, the random bot's pick, greedy's scan, `View` — is a fold over `Moves`.

use smallvec::SmallVec;

use super::action::{Action, ActionError, Seat, Source, cards_in_mask};
use super::card::Card;
use super::effects::{Aim, Builtin, Effect, Reach, Registry, Seats};
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
        Playable { card, slot, order_choice, targeted: targets.is_some(), seats: targets.unwrap_or_default() }
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
        play_count(self.targets(), self.order_choice)
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
/// cards in mask order (K on top first when the player may choose); `pass` only when nothing
/// else is legal (D22). Empty when the game is over or it is not the asking seat's turn.
///
/// Cards whose entries answer alike share one answer: with the built-in cards a listing
/// works out at most four offers (number, J, Q, K), and a card costs a table read.
#[derive(Debug, Clone)]
pub struct Moves<'a> {
    hand: &'a [Card],
    /// The playable cards in listing order, each with what it offers.
    plays: SmallVec<[Playable; 8]>,
    /// How many plays `plays` expand to.
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

/// What the cards of a rank offer while a listing is made: an index into its [`Offers`], or
/// one of these.
const BLOCKED: u16 = u16::MAX;
/// Each card of the rank has its own answer (its entry's aim looks at the card).
const PER_CARD: u16 = u16::MAX - 1;
/// No card of the rank was seen yet.
const UNSEEN: u16 = u16::MAX - 2;

/// What a listing being made knows: what each rank offers so far.
struct Listing<'l, 'a> {
    aims: &'l mut Aims<'a>,
    offers: &'l mut Offers,
    by_rank: &'l mut [u16; 13],
}

/// What a card offers, and how many plays that makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Offer {
    targets: Option<Seats>,
    order_choice: bool,
    plays: usize,
}

impl Offer {
    fn new(targets: Option<Seats>, order_choice: bool) -> Offer {
        Offer { targets, order_choice, plays: play_count(targets, order_choice) }
    }
}

/// How many plays a card with these choices offers: one per target (or one without), twice
/// with the order choice.
#[inline(always)]
fn play_count(targets: Option<Seats>, order_choice: bool) -> usize {
    targets.map_or(1, |seats| seats.len()) << usize::from(order_choice)
}

impl<'a> Moves<'a> {
    /// Nothing is legal (the game is over, or it is another seat's turn).
    pub fn none() -> Moves<'a> {
        Moves {
            hand: &[],
            plays: SmallVec::new(),
            play_count: 0,
            recover: false,
            repeats: false,
            order_choice: false,
            pass: false,
        }
    }

    /// What the current player of `state` may do under `registry`.
    pub fn of(state: &'a State, registry: &Registry) -> Moves<'a> {
        if state.is_over() {
            return Moves::none();
        }
        let me = state.current();
        let hand = &state.player(me).hand[..];
        let recover = !hand.is_empty();
        // Filled in place: the list is the bulk of a `Moves`, and building it apart moved it.
        let mut moves = Moves {
            hand,
            recover,
            repeats: state.hand_has_repeats(me),
            order_choice: recover && registry.recovery_order_choice(state, me),
            ..Moves::none()
        };
        let mut aims = Aims::new(state, registry);
        // The built-in cards' offers are worked out at once for every rank they serve; other
        // entries are asked when a card of theirs is seen.
        let mut offers = Offers::default();
        let kinds = Builtin::ALL.map(|b| match aims.builtin[b as usize] {
            Ok((targets, order_choice)) => {
                offers.builtin[b as usize] = Offer::new(targets, order_choice);
                b as u16
            }
            Err(_) => BLOCKED,
        });
        let mut by_rank = [UNSEEN; 13];
        for (offer, kind) in by_rank.iter_mut().zip(registry.aim_kinds()) {
            if let Some(kind) = kind {
                *offer = kinds[*kind as usize];
            }
        }
        let mut listing = Listing { aims: &mut aims, offers: &mut offers, by_rank: &mut by_rank };
        for (i, &card) in hand.iter().enumerate() {
            // A repeated card is listed once, at its first copy.
            if !moves.repeats || !hand[..i].contains(&card) {
                moves.list(&mut listing, card, Source::Hand);
            }
        }
        for (slot, card) in state.table().iter().enumerate() {
            if let Some(card) = *card {
                moves.list(&mut listing, card, Source::Table(slot));
            }
        }
        moves.pass = moves.plays.is_empty() && !recover;
        moves
    }

    /// Lists `card` when it can be played now.
    #[inline(always)]
    fn list(&mut self, listing: &mut Listing<'_, '_>, card: Card, from: Source) {
        let rank = card.rank.number() as usize - 1;
        if listing.by_rank[rank] == UNSEEN {
            listing.by_rank[rank] = listing.aims.rank_offer(card, listing.offers);
        }
        let mut offer = listing.by_rank[rank];
        if offer == PER_CARD {
            offer = listing.aims.card_offer(card, listing.offers);
        }
        if offer != BLOCKED {
            let Offer { targets, order_choice, plays } = *listing.offers.get(offer);
            self.play_count += plays;
            self.plays.push(Playable::new(card, from, targets, order_choice));
        }
    }

    /// The playable cards, each once with what it offers, in listing order.
    pub fn playable(&self) -> &[Playable] {
        &self.plays
    }

    /// How many plays are listed.
    #[inline]
    pub fn play_count(&self) -> usize {
        self.play_count
    }

    /// Calls `each(card, from, target, face_on_top)` for every listed play, in order.
    #[inline]
    pub fn each_play(&self, mut each: impl FnMut(Card, Source, Option<Seat>, bool)) {
        for p in &self.plays {
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
        // A recovery names at most 31 cards here (hands hold at most 12, MAX_HAND_SIZE).
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
        self.play_count + self.recovery_count() * self.per_recovery()
    }

    /// Whether nothing is legal (the game is over or it is not this seat's turn).
    #[inline]
    pub fn is_empty(&self) -> bool {
        !self.pass && !self.recover && self.plays.is_empty()
    }

    /// Action `i` of the listing (`i < self.len()`), built alone.
    pub fn nth(&self, i: usize) -> Option<Action> {
        if self.pass {
            return (i == 0).then_some(Action::Pass);
        }
        let mut rest = i;
        for &p in &self.plays {
            match rest.checked_sub(p.play_count()) {
                Some(after) => rest = after,
                None => return Some(p.play(rest)),
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
        if self.pass {
            out.push(Action::Pass);
        }
        out
    }
}

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

/// What cards offer the current player while a listing is made: the built-in cards' answers
/// (from `Reach`, as `check` reads them) and the entries' answers, asked once where they can.
struct Aims<'a> {
    state: &'a State,
    registry: &'a Registry,
    /// What each built-in card offers now (by [`Builtin`] order), worked out once.
    builtin: [Result<(Option<Seats>, bool), &'static str>; 4],
    /// The offers of entries whose aim ignores the card, by entry address.
    by_entry: Vec<(usize, u16)>,
}

impl<'a> Aims<'a> {
    #[inline(always)]
    fn new(state: &'a State, registry: &'a Registry) -> Aims<'a> {
        let reach = Reach::new(state, state.current());
        Aims { state, registry, builtin: Builtin::ALL.map(|b| b.offer(&reach)), by_entry: Vec::new() }
    }

    /// What every card of `card`'s rank offers, as an index into `offers` (added if new), or
    /// [`BLOCKED`]; [`PER_CARD`] when the rank's entry answers card by card. For the ranks a
    /// built-in card does not answer (those are worked out up front).
    #[inline(never)]
    fn rank_offer(&mut self, card: Card, offers: &mut Offers) -> u16 {
        match self.registry.aim_of(card.rank) {
            Ok(builtin) => self.builtin_offer(builtin),
            Err(entry) if entry.aim_ignores_card() => self.entry_offer(entry, card, offers),
            Err(_) => PER_CARD,
        }
    }

    /// What `card` offers, asked of its rank's entry (one that failed to answer offers
    /// nothing).
    fn card_offer(&mut self, card: Card, offers: &mut Offers) -> u16 {
        let entry = match self.registry.aim_of(card.rank) {
            Ok(builtin) => return self.builtin_offer(builtin),
            Err(entry) => entry,
        };
        match entry.aim(self.state, self.state.current(), card) {
            Ok(Aim::Open { targets, order_choice }) => offers.add(Offer::new(targets, order_choice)),
            _ => BLOCKED,
        }
    }

    /// Where a built-in card's offer stands in a listing's offers (its own slot), or
    /// [`BLOCKED`].
    fn builtin_offer(&self, builtin: Builtin) -> u16 {
        if self.builtin[builtin as usize].is_ok() { builtin as u16 } else { BLOCKED }
    }

    /// What an entry whose aim ignores the card offers, asked once per listing.
    #[inline(never)]
    fn entry_offer(&mut self, entry: &dyn Effect, card: Card, offers: &mut Offers) -> u16 {
        let key = (entry as *const dyn Effect).cast::<()>() as usize;
        if let Some(&(_, offer)) = self.by_entry.iter().find(|(k, _)| *k == key) {
            return offer;
        }
        let offer = self.card_offer(card, offers);
        self.by_entry.push((key, offer));
        offer
    }
}

/// What the cards of a listing offer: one slot per built-in card (by [`Builtin`] order),
/// then the distinct answers of other entries.
#[derive(Debug, Clone, Default)]
struct Offers {
    builtin: [Offer; 4],
    /// Index `i` here is offer `4 + i`.
    other: Vec<Offer>,
}

impl Offers {
    #[inline(always)]
    fn get(&self, offer: u16) -> &Offer {
        match self.builtin.get(offer as usize) {
            Some(offer) => offer,
            None => &self.other[offer as usize - 4],
        }
    }

    /// The index of `offer` among the other entries' offers, added if it is not there.
    fn add(&mut self, offer: Offer) -> u16 {
        let at = self.other.iter().position(|o| *o == offer).unwrap_or_else(|| {
            self.other.push(offer);
            self.other.len() - 1
        });
        // At most one offer per visible card, and there are at most 52 × 16 cards (`decks`).
        u16::try_from(at + 4).expect("fewer offers than cards")
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
                Ok(builtin) => builtin.aim(&Reach::new(state, state.current())),
                Err(entry) => entry.aim(state, state.current(), card).map_err(|e| ActionError::Script(e.0))?,
            };
            let (targets, order_choice) = match aim {
                Aim::Blocked(reason) => return Err(ActionError::NotPlayable { card, reason: reason.into_owned() }),
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
        Action::Pass => {
            if Moves::of(state, registry).is_pass_only() {
                Ok(())
            } else {
                Err(ActionError::CannotPass)
            }
        }
    }
}

fn target_reason(state: &State, registry: &Registry, card: Card, target: Seat) -> String {
    if target >= state.player_count() {
        return format!("there are only {} players", state.player_count());
    }
    if target == state.current() {
        return "you cannot target yourself".into();
    }
    registry.target_refusal(state, state.current(), card, target)
}
