//! The game state ([`Game`]), the single entry point that changes it ([`Game::apply`]), the
//! single source of legality ([`Game::legal_actions`] / [`Game::check`]), and the mutation
//! API effects use ([`Ctx`]).
//!
//! Invariants, checked by the tests after every action:
//! - cards are conserved: hands + table + discard + deck + fronts = 52 × decks;
//! - depth stays in `0..=max_depth`, oxygen in `0..=max_oxygen`;
//! - nobody has two cards of the same rank in front (D17);
//! - a refused action leaves the game exactly as it was;
//! - the same rules, registry, setup and actions give the same game and the same events.

use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::action::{Action, ActionError, Seat, Source, cards_in_mask};
use super::card::{Card, Rank, Suit, full_deck};
use super::effects::{Aim, Effect, EffectError, Play, Registry, Seats};
use super::event::{Event, EventCounts, Sink};
use super::rules::{Gain, Rules, RulesError};

/// One diver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    pub depth: u32,
    pub oxygen: u32,
    pub hand: Vec<Card>,
    /// Cards placed in front of this diver (J, Q, K …), oldest first.
    pub front: Vec<Card>,
    /// The ranks of `front` as a set (bit `r` for rank number `r`; D17 allows one card per
    /// rank), kept by the engine wherever `front` changes. Bots ask it every turn: scanning
    /// fronts of varying length mispredicted.
    front_ranks: u16,
}

impl Player {
    fn new(oxygen: u32, hand: Vec<Card>) -> Player {
        Player { depth: 0, oxygen, hand, front: Vec::new(), front_ranks: 0 }
    }

    /// Whether a card of `rank` lies in front of this diver.
    #[inline]
    pub fn has_front(&self, rank: Rank) -> bool {
        debug_assert_eq!(self.front_ranks, ranks_of(&self.front), "front ranks out of step");
        self.front_ranks & (1 << rank.number()) != 0
    }

    /// The ranks in front of this diver, bit `r` for rank number `r`.
    pub fn front_ranks(&self) -> u16 {
        self.front_ranks
    }
}

/// Removes the first `card` in `hand`, keeping the order of the others (`card` must be
/// there). Without a branch on where it is, which is random: finding it with `position` and
/// closing the gap with `remove` mispredicted and called `memmove` on every action.
#[inline(always)]
fn remove_first(hand: &mut Vec<Card>, card: Card) {
    let len = hand.len();
    let mut at = len;
    for (i, c) in hand.iter().enumerate() {
        at = std::hint::select_unpredictable((c.key() == card.key()) & (at == len), i, at);
    }
    assert!(at < len, "checked: {card} is in the hand");
    for i in 0..len - 1 {
        hand[i] = std::hint::select_unpredictable(i >= at, hand[i + 1], hand[i]);
    }
    hand.pop();
}

/// The rank set of `cards`.
fn ranks_of(cards: &[Card]) -> u16 {
    cards.iter().fold(0, |set, c| set | 1 << c.rank.number())
}

/// How the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Running,
    Won(Seat),
    /// The turn cap was reached (D23).
    Draw,
}

/// How to start a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// Player names in seat order (D4).
    pub names: Vec<String>,
    /// Seeds the game's RNG: the shuffle (when no deck is given) and every reshuffle.
    pub seed: u64,
    /// A stacked deck, top first, dealt as in D3. Must hold exactly the ruleset's cards.
    pub deck: Option<Vec<Card>>,
}

/// Why a game could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("player names must not be empty")]
    EmptyName,
    #[error("two players are called '{0}'")]
    DuplicateName(String),
    #[error("the stacked deck must hold exactly the {expected} cards of {decks} deck(s): {problem}")]
    Deck { expected: usize, decks: u32, problem: String },
    #[error("{0}")]
    Hook(EffectError),
}

/// A whole game: rules, behaviour, and state.
#[derive(Clone)]
pub struct Game {
    rules: Arc<Rules>,
    /// Tables worked out from `rules` when the game is set up, shared by its clones.
    lookups: Arc<Lookups>,
    registry: Arc<Registry>,
    names: Arc<[String]>,
    players: Vec<Player>,
    table: Vec<Option<Card>>,
    /// Bottom first: the last card is the top.
    discard: Vec<Card>,
    /// Bottom first: the last card is the top, the next to be drawn.
    deck: Vec<Card>,
    current: Seat,
    turn: u32,
    outcome: Outcome,
    decks: u32,
    seed: u64,
    rng: ChaCha8Rng,
    /// A spare copy for undoing a failed scripted action, reused from one action to the next.
    undo: Undo,
}

/// The spare copy a game keeps for undoing a failed scripted action. Not part of the game:
/// a cloned game starts without one.
#[derive(Default)]
struct Undo(Option<Box<Game>>);

impl Clone for Undo {
    fn clone(&self) -> Undo {
        Undo(None)
    }
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("players", &self.players)
            .field("table", &self.table)
            .field("discard", &self.discard)
            .field("deck", &self.deck)
            .field("current", &self.current)
            .field("turn", &self.turn)
            .field("outcome", &self.outcome)
            .finish_non_exhaustive()
    }
}

/// Two games are equal when everything a player or the future could tell apart is equal:
/// the state, the rules and the RNG position.
impl PartialEq for Game {
    fn eq(&self, other: &Game) -> bool {
        self.players == other.players
            && self.table == other.table
            && self.discard == other.discard
            && self.deck == other.deck
            && self.current == other.current
            && self.turn == other.turn
            && self.outcome == other.outcome
            && self.names == other.names
            && self.rng == other.rng
            && *self.rules == *other.rules
    }
}

impl Game {
    /// Deals a new game (D3) and starts seat 1's turn (D4).
    pub fn new(rules: Arc<Rules>, registry: Arc<Registry>, setup: Setup) -> Result<Game, SetupError> {
        rules.validate()?;
        let n = setup.names.len();
        rules.validate_for(n)?;
        for (i, name) in setup.names.iter().enumerate() {
            if name.trim().is_empty() {
                return Err(SetupError::EmptyName);
            }
            if setup.names[..i].iter().any(|other| other.eq_ignore_ascii_case(name)) {
                return Err(SetupError::DuplicateName(name.clone()));
            }
        }
        let decks = rules.decks_for(n);
        let mut rng = ChaCha8Rng::seed_from_u64(setup.seed);
        let mut order = match setup.deck {
            Some(deck) => {
                check_permutation(&deck, decks)?;
                deck
            }
            None => {
                let mut deck = full_deck(decks);
                deck.shuffle(&mut rng);
                deck
            }
        };
        // `order` is top first; the engine keeps the top last.
        order.reverse();
        let mut deck = order;
        let mut players = Vec::with_capacity(n);
        for _ in 0..n {
            let hand: Vec<Card> = (0..rules.hand_size).map(|_| deck.pop().expect("validated: enough cards")).collect();
            players.push(Player::new(rules.max_oxygen, hand));
        }
        let table = (0..rules.table_size).map(|_| deck.pop()).collect();
        let discard = vec![deck.pop().expect("validated: enough cards")];
        let mut game = Game {
            lookups: Arc::new(Lookups::new(&rules)),
            rules,
            registry,
            names: setup.names.into(),
            players,
            table,
            discard,
            deck,
            current: 0,
            turn: 1,
            outcome: Outcome::Running,
            decks,
            seed: setup.seed,
            rng,
            undo: Undo::default(),
        };
        // The opening turn's events are not returned: count them into nothing.
        let registry = Arc::clone(&game.registry);
        game.start_turn(&registry, &mut Sink::Counts(&mut EventCounts::default())).map_err(SetupError::Hook)?;
        Ok(game)
    }

    /// Deals a new game with the same rules, registry and players, shuffled with `seed`: the
    /// game [`Game::new`] would deal with `deck: None`, reusing this game's buffers (for
    /// simulations that play many games).
    pub fn restart(&mut self, seed: u64) -> Result<(), SetupError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        self.deck.clear();
        for _ in 0..self.decks {
            for suit in Suit::ALL {
                self.deck.extend(Rank::all().map(|rank| Card { rank, suit }));
            }
        }
        self.deck.shuffle(&mut rng);
        // The shuffled order is top first; the engine keeps the top last.
        self.deck.reverse();
        let (hand_size, max_oxygen) = (self.rules.hand_size, self.rules.max_oxygen);
        for p in &mut self.players {
            p.depth = 0;
            p.oxygen = max_oxygen;
            p.front.clear();
            p.front_ranks = 0;
            p.hand.clear();
            for _ in 0..hand_size {
                p.hand.push(self.deck.pop().expect("validated: enough cards"));
            }
        }
        for slot in &mut self.table {
            *slot = self.deck.pop();
        }
        self.discard.clear();
        self.discard.push(self.deck.pop().expect("validated: enough cards"));
        self.current = 0;
        self.turn = 1;
        self.outcome = Outcome::Running;
        self.seed = seed;
        self.rng = rng;
        let registry = Arc::clone(&self.registry);
        self.start_turn(&registry, &mut Sink::Counts(&mut EventCounts::default())).map_err(SetupError::Hook)
    }

    /// A standard game with these names and seed.
    pub fn standard(names: &[&str], seed: u64) -> Result<Game, SetupError> {
        let setup = Setup { names: names.iter().map(|s| s.to_string()).collect(), seed, deck: None };
        Game::new(Arc::new(Rules::default()), Arc::new(Registry::standard()), setup)
    }

    // ----- reading -----

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    pub fn rules_arc(&self) -> &Arc<Rules> {
        &self.rules
    }
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }
    pub fn names(&self) -> &[String] {
        &self.names
    }
    pub fn name(&self, seat: Seat) -> &str {
        &self.names[seat]
    }
    /// The seat of the player with this name (case-insensitive).
    pub fn seat_of(&self, name: &str) -> Option<Seat> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
    }
    pub fn players(&self) -> &[Player] {
        &self.players
    }
    pub fn player(&self, seat: Seat) -> &Player {
        &self.players[seat]
    }
    pub fn player_count(&self) -> usize {
        self.players.len()
    }
    /// Every seat but `seat`.
    pub fn others(&self, seat: Seat) -> Seats {
        (0..self.players.len()).filter(|&s| s != seat).collect()
    }
    pub fn table(&self) -> &[Option<Card>] {
        &self.table
    }
    /// The discard pile, bottom first.
    pub fn discard_pile(&self) -> &[Card] {
        &self.discard
    }
    pub fn discard_top(&self) -> Option<Card> {
        self.discard.last().copied()
    }
    /// The deck, top first.
    pub fn deck(&self) -> impl DoubleEndedIterator<Item = Card> + ExactSizeIterator + '_ {
        self.deck.iter().rev().copied()
    }
    pub fn deck_size(&self) -> usize {
        self.deck.len()
    }
    /// Whose turn it is (after a win: the winner's turn, which ended the game).
    pub fn current(&self) -> Seat {
        self.current
    }
    /// The number of the turn being played, from 1.
    pub fn turn(&self) -> u32 {
        self.turn
    }
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }
    pub fn is_over(&self) -> bool {
        self.outcome != Outcome::Running
    }
    pub fn winner(&self) -> Option<Seat> {
        match self.outcome {
            Outcome::Won(s) => Some(s),
            _ => None,
        }
    }
    /// How many 52-card decks are in play.
    pub fn decks(&self) -> u32 {
        self.decks
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Whether `seat`'s hand holds two copies of one card (only possible with several decks;
    /// with one deck this is answered without looking at the hand).
    #[inline]
    pub fn hand_has_repeats(&self, seat: Seat) -> bool {
        if self.decks == 1 {
            return false;
        }
        let hand = &self.players[seat].hand;
        hand.iter().enumerate().any(|(i, c)| hand[..i].contains(c))
    }

    /// Every card in the game, wherever it is (for conservation checks).
    pub fn card_count(&self) -> usize {
        self.players.iter().map(|p| p.hand.len() + p.front.len()).sum::<usize>()
            + self.table.iter().flatten().count()
            + self.discard.len()
            + self.deck.len()
    }

    /// A copy of this game that runs with another registry (used by `reload` and tests).
    pub fn with_registry(&self, registry: Arc<Registry>) -> Game {
        Game { registry, ..self.clone() }
    }

    // ----- legality -----

    /// Every legal action for the current player. Recoveries are listed once per set of
    /// cards (in hand order); [`Game::check`] also accepts them in any other order.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.legal_actions_into(&mut out);
        out
    }

    /// [`Game::legal_actions`] into a reused buffer (cleared first).
    pub fn legal_actions_into(&self, out: &mut Vec<Action>) {
        self.legal_plays_into(out);
        if self.is_over() {
            return;
        }
        let me = self.current;
        let hand = &self.players[me].hand;
        let knotted = self.players[me].has_front(Rank::KING);
        self.each_recovery_mask(|mask| {
            let cards = cards_in_mask(hand, mask);
            if knotted {
                out.push(Action::Recover { cards: cards.clone(), face_on_top: true });
            }
            out.push(Action::Recover { cards, face_on_top: false });
        });
        if out.is_empty() {
            out.push(Action::Pass);
        }
    }

    /// The recoveries [`Game::legal_actions`] lists, as masks over the current player's hand
    /// (bit `i` = hand card `i`), in the same order, into a reused buffer (cleared first). When
    /// the player is knotted, each mask stands for two actions: K on top, then K below. Bots
    /// use this to pick a recovery without building every one.
    pub fn recovery_masks_into(&self, out: &mut Vec<u32>) {
        out.clear();
        if !self.is_over() {
            let n = self.players[self.current].hand.len().min(31);
            out.reserve((1 << n) - 1);
            self.each_recovery_mask(|mask| out.push(mask));
        }
    }

    /// Calls `each` with every listed recovery mask: each distinct set of hand cards once.
    fn each_recovery_mask(&self, mut each: impl FnMut(u32)) {
        let hand = &self.players[self.current].hand;
        // A recovery names at most 31 cards here (hands hold at most 12, MAX_HAND_SIZE).
        let n = hand.len().min(31);
        if !self.hand_has_repeats(self.current) {
            (1u32..(1 << n)).for_each(each);
            return;
        }
        for mask in 1u32..(1 << n) {
            // With a repeated card (several decks), two masks can name the same cards.
            if first_mask_for_cards(hand, mask) {
                each(mask);
            }
        }
    }

    /// The legal plays only (no recoveries, no pass), into a reused buffer (cleared first).
    /// A recovery with any non-empty set of hand cards is always legal too (D19, D22); bots
    /// that build their own recovery use this to avoid listing every subset.
    pub fn legal_plays_into(&self, out: &mut Vec<Action>) {
        out.clear();
        self.for_each_legal_play(|card, from, target, face_on_top| {
            out.push(Action::Play { card, from, target, face_on_top });
        });
    }

    /// Calls `each(card, from, target, face_on_top)` for every legal play, in the order
    /// [`Game::legal_plays_into`] lists them, without building the list (bots that score
    /// every play and keep one).
    #[inline]
    pub fn for_each_legal_play(&self, mut each: impl FnMut(Card, Source, Option<Seat>, bool)) {
        // The dispatch of `for_each_opening`, written out: visiting the plays through its
        // per-card callback left the closures un-inlined and cost the greedy simulation
        // about 10% more instructions.
        if self.is_over() {
            return;
        }
        if self.registry.has_native_aims() {
            let aims = NativeAims::new(self);
            self.visit_all_plays(
                |game, card| {
                    let opening = aims.opening(card.rank);
                    debug_assert_eq!(opening, AimCache::default().aim(game, card), "native aim of {card}");
                    opening
                },
                &mut each,
            );
            return;
        }
        let mut asked = AimCache::default();
        self.visit_all_plays(|game, card| asked.aim(game, card), &mut each);
    }

    /// Visits the plays of every distinct hand card, then of every table card, with what
    /// `opening` says each card offers.
    #[inline(always)]
    fn visit_all_plays(
        &self,
        mut opening: impl FnMut(&Game, Card) -> Opening,
        each: &mut impl FnMut(Card, Source, Option<Seat>, bool),
    ) {
        let hand = &self.players[self.current].hand;
        let repeats = self.hand_has_repeats(self.current);
        for (i, &card) in hand.iter().enumerate() {
            // A repeated card is listed once, at its first copy.
            if !repeats || !hand[..i].contains(&card) {
                visit_plays(card, Source::Hand, opening(self, card), each);
            }
        }
        for (slot, card) in self.table.iter().enumerate() {
            if let Some(card) = *card {
                visit_plays(card, Source::Table(slot), opening(self, card), each);
            }
        }
    }

    /// The cards the current player can play now, each once with what it offers, in the
    /// order [`Game::legal_plays_into`] lists their plays, into a reused buffer (cleared
    /// first). A bot can count or pick plays card by card instead of visiting each.
    pub fn playable_cards_into(&self, out: &mut Vec<Playable>) {
        out.clear();
        self.for_each_opening(|card, from, opening| {
            if let Some((targets, order_choice)) = opening {
                out.push(Playable { card, from, targets, order_choice });
            }
        });
    }

    /// How many plays [`Game::legal_plays_into`] would list, without listing them (the random
    /// bot draws one index from the plays and recoveries, and usually lands on a recovery).
    pub fn legal_play_count(&self) -> usize {
        if self.is_over() {
            return 0;
        }
        if !self.registry.has_native_aims() {
            let mut count = 0;
            self.for_each_opening(|_, _, opening| count += play_count(opening));
            return count;
        }
        // With the built-in entries every card of a class (number, J, Q, K) offers the same
        // plays, so it is enough to count the cards of each class. The four counts are packed
        // 16 bits apart in one register: counting in an array made each card wait for the
        // previous store.
        let mut packed = 0u64;
        self.each_listed_card(|card, _| packed += 1u64 << (16 * card.rank.number().saturating_sub(10)));
        let aims = NativeAims::new(self);
        let count = [Rank::ACE, Rank::JACK, Rank::QUEEN, Rank::KING]
            .iter()
            .enumerate()
            .map(|(class, &rank)| (packed >> (16 * class) & 0xffff) as usize * play_count(aims.opening(rank)))
            .sum();
        debug_assert_eq!(count, {
            let mut plays = Vec::new();
            self.legal_plays_into(&mut plays);
            plays.len()
        });
        count
    }

    /// Calls `each(card, from, opening)` for every distinct hand card, then every table card,
    /// with what it offers the current player (`None`: it cannot be played).
    #[inline(always)]
    fn for_each_opening(&self, mut each: impl FnMut(Card, Source, Opening)) {
        if self.is_over() {
            return;
        }
        if self.registry.has_native_aims() {
            // The built-in entries' answers, worked out in one pass without dynamic calls.
            let aims = NativeAims::new(self);
            self.visit_all_cards(
                |game, card| {
                    let opening = aims.opening(card.rank);
                    debug_assert_eq!(opening, AimCache::default().aim(game, card), "native aim of {card}");
                    opening
                },
                &mut each,
            );
            return;
        }
        // Entries whose aim ignores the card (all built-in ones; every number card shares
        // one) are asked once per listing, remembered by entry.
        let mut asked = AimCache::default();
        self.visit_all_cards(|game, card| asked.aim(game, card), &mut each);
    }

    /// Visits every distinct hand card, then every table card, with what `opening` says it
    /// offers.
    #[inline(always)]
    fn visit_all_cards(
        &self,
        mut opening: impl FnMut(&Game, Card) -> Opening,
        each: &mut impl FnMut(Card, Source, Opening),
    ) {
        self.each_listed_card(|card, from| each(card, from, opening(self, card)));
    }

    /// Calls `each(card, from)` for every distinct hand card, then every table card: the
    /// cards a listing of plays goes through, in its order.
    #[inline(always)]
    fn each_listed_card(&self, mut each: impl FnMut(Card, Source)) {
        let hand = &self.players[self.current].hand;
        let repeats = self.hand_has_repeats(self.current);
        for (i, &card) in hand.iter().enumerate() {
            // A repeated card is listed once, at its first copy.
            if !repeats || !hand[..i].contains(&card) {
                each(card, Source::Hand);
            }
        }
        for (slot, card) in self.table.iter().enumerate() {
            if let Some(card) = *card {
                each(card, Source::Table(slot));
            }
        }
    }

    /// What each class of card (number, J, Q, K) offers the current player, when every
    /// rank's `aim` is the built-in entry's ([`Registry::has_native_aims`]; a wrap may still
    /// change what a card does): then every card of a class offers the same plays, and a bot
    /// can score a class once instead of every play. `None` otherwise, or when the game is
    /// over.
    pub fn class_offers(&self) -> Option<ClassOffers> {
        if self.is_over() || !self.registry.has_native_aims() {
            return None;
        }
        let aims = NativeAims::new(self);
        let offer = |rank| aims.opening(rank).map(|(targets, order_choice)| Offer { targets, order_choice });
        Some(ClassOffers {
            number: offer(Rank::ACE),
            jolt: offer(Rank::JACK),
            quick: offer(Rank::QUEEN),
            knot: offer(Rank::KING),
        })
    }

    /// Whether `action` is legal now; `Ok` carries what the engine needs to resolve it.
    pub fn check(&self, action: &Action) -> Result<(), ActionError> {
        self.checked(action).map(|_| ())
    }

    fn checked(&self, action: &Action) -> Result<Option<Seats>, ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let me = &self.players[self.current];
        match action {
            Action::Play { card, from, target, face_on_top } => {
                let card = *card;
                match *from {
                    Source::Hand => {
                        if !me.hand.contains(&card) {
                            return Err(ActionError::NotInHand { card });
                        }
                    }
                    Source::Table(slot) => match self.table.get(slot) {
                        None => return Err(ActionError::NoSuchSlot { slot }),
                        Some(c) if *c != Some(card) => return Err(ActionError::NotOnTable { card, slot }),
                        Some(_) => {}
                    },
                }
                let aim = self
                    .registry
                    .effect_ref(card.rank)
                    .aim(self, self.current, card)
                    .map_err(|e| ActionError::Script(e.0))?;
                match aim {
                    Aim::Blocked(reason) => Err(ActionError::NotPlayable { card, reason: reason.into_owned() }),
                    Aim::Open { targets, order_choice } => {
                        if *face_on_top && !order_choice {
                            return Err(ActionError::NoOrderChoice);
                        }
                        match (targets, *target) {
                            (None, None) => Ok(None),
                            (None, Some(_)) => Err(ActionError::NoTargetTaken { card }),
                            (Some(options), None) => {
                                Err(ActionError::TargetNeeded { card, options: options.iter().collect() })
                            }
                            (Some(options), Some(t)) if !options.contains(t) => {
                                Err(ActionError::BadTarget { card, target: t, reason: self.target_reason(card, t) })
                            }
                            (Some(options), Some(_)) => Ok(Some(options)),
                        }
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
                if *face_on_top && !me.has_front(Rank::KING) {
                    return Err(ActionError::NoOrderChoice);
                }
                Ok(None)
            }
            Action::Pass => {
                let mut options = Vec::new();
                self.legal_actions_into(&mut options);
                if options == [Action::Pass] { Ok(None) } else { Err(ActionError::CannotPass) }
            }
        }
    }

    fn target_reason(&self, card: Card, target: Seat) -> String {
        if target >= self.players.len() {
            return format!("there are only {} players", self.players.len());
        }
        if target == self.current {
            return "you cannot target yourself".into();
        }
        let t = &self.players[target];
        match card.rank {
            Rank::JACK if t.has_front(Rank::JACK) => "they already have a J in front".into(),
            Rank::JACK => "they are not deeper than you".into(),
            Rank::KING => "they already have a K in front".into(),
            _ => "the rules do not allow it".into(),
        }
    }

    // ----- changing -----

    /// Plays `action` for the current player and returns what happened. A refused action
    /// returns the reason and leaves the game exactly as it was.
    pub fn apply(&mut self, action: &Action) -> Result<Vec<Event>, ActionError> {
        let mut events = Vec::new();
        self.apply_into(action, &mut events)?;
        Ok(events)
    }

    /// [`Game::apply`], appending the events to `events` (on error, `events` is as it was).
    pub fn apply_into(&mut self, action: &Action, events: &mut Vec<Event>) -> Result<(), ActionError> {
        let mark = events.len();
        let result = self.apply_sink(action, Sink::Log(events));
        if result.is_err() {
            events.truncate(mark);
        }
        result
    }

    /// [`Game::apply_into`] without building the events: adds to `counts` what counting the
    /// events would (on error, `counts` is as it was). The simulator's quiet path.
    pub fn apply_counted(&mut self, action: &Action, counts: &mut EventCounts) -> Result<(), ActionError> {
        let before = *counts;
        let result = self.apply_sink(action, Sink::Counts(counts));
        if result.is_err() {
            *counts = before;
        }
        result
    }

    /// [`Game::apply_legal_into`] without building the events, as [`Game::apply_counted`].
    pub fn apply_legal_counted(&mut self, action: &Action, counts: &mut EventCounts) -> Result<(), ActionError> {
        if self.registry.is_native() {
            return self.resolve_legal(action, Sink::Counts(counts));
        }
        let before = *counts;
        let result = self.apply_listed(action, Sink::Counts(counts));
        if result.is_err() {
            *counts = before;
        }
        result
    }

    /// [`Game::apply_sink`] for an action taken from this game's listing: without the
    /// legality check while every rank's `aim` is the built-in one
    /// ([`Registry::has_native_aims`]), which the listing and the check both ask (debug
    /// builds check anyway). Kept out of line: the simulator's loop inlines the native path
    /// beside it.
    #[inline(never)]
    fn apply_listed(&mut self, action: &Action, events: Sink<'_>) -> Result<(), ActionError> {
        if !self.registry.has_native_aims() {
            return self.apply_sink(action, events);
        }
        debug_assert_eq!(self.check(action), Ok(()), "'{action}' is listed as legal but is not");
        self.resolve_restoring(action, events)
    }

    /// Resolves an action known to be legal with the native registry: no check (debug builds
    /// still make it) and no undo copy, since the native entries do not fail on a legal action.
    fn resolve_legal(&mut self, action: &Action, mut events: Sink<'_>) -> Result<(), ActionError> {
        debug_assert!(self.registry.is_native());
        debug_assert_eq!(self.check(action), Ok(()), "'{action}' is listed as legal but is not");
        // `resolve` needs the registry beside `&mut self`. The other paths clone the `Arc` for
        // that, but two atomic operations per action are measurable on this, the simulator's
        // path (about 5% of a random game's time).
        let registry: *const Registry = Arc::as_ptr(&self.registry);
        // SAFETY: the registry is its own allocation, kept alive by `self.registry`, and
        // nothing replaces or drops that `Arc` while an action resolves: `Ctx` (all an effect
        // or hook gets) has no way to reach it, and the only writers of the field
        // (`copy_from`, `with_registry`, the undo swap in `apply_sink`) run outside `resolve`.
        // The shared borrow is of the registry, not of the `Game`, so it does not alias the
        // `&mut self` that `resolve` takes.
        let registry = unsafe { &*registry };
        self.resolve(registry, action, &mut events).map_err(|e| ActionError::Script(e.0))
    }

    /// Checks and resolves `action`, sending its events to `events`; on error the game is
    /// restored (the caller restores its sink).
    fn apply_sink(&mut self, action: &Action, events: Sink<'_>) -> Result<(), ActionError> {
        self.checked(action)?;
        self.resolve_restoring(action, events)
    }

    /// Resolves a legal `action`, sending its events to `events`; when it runs scripted code
    /// and that fails, the game is restored (the caller restores its sink).
    fn resolve_restoring(&mut self, action: &Action, mut events: Sink<'_>) -> Result<(), ActionError> {
        // A scripted entry may fail half-way: keep a copy to go back to (in a reused buffer).
        let mut before = (!self.registry.resolves_natively(action)).then(|| {
            let mut copy = self.undo.0.take().unwrap_or_else(|| Box::new(self.clone()));
            copy.copy_from(self);
            copy
        });
        // One handle on the registry for the whole action, so hooks need no clones of their own.
        let registry = Arc::clone(&self.registry);
        let result = self.resolve(&registry, action, &mut events);
        if let Err(e) = result {
            if let Some(before) = before.as_mut() {
                std::mem::swap(self, before);
            }
            // The copy (now holding the failed state) is the buffer for the next one.
            if before.is_some() {
                self.undo.0 = before;
            }
            return Err(ActionError::Script(e.0));
        }
        // Keep the buffer, also across actions that needed no copy.
        if before.is_some() {
            self.undo.0 = before;
        }
        Ok(())
    }

    /// [`Game::apply_into`] for an action taken from this game's [`Game::legal_actions`] now
    /// (as the built-in bots do). The legality check is skipped while every rank's `aim` is
    /// the built-in one, which the listing used too (debug builds still make it); the undo
    /// copy is made as [`Game::apply_into`] makes it. Other registries go through
    /// [`Game::apply_into`].
    pub fn apply_legal_into(&mut self, action: &Action, events: &mut Vec<Event>) -> Result<(), ActionError> {
        if self.registry.is_native() {
            return self.resolve_legal(action, Sink::Log(events));
        }
        let mark = events.len();
        let result = self.apply_listed(action, Sink::Log(events));
        if result.is_err() {
            events.truncate(mark);
        }
        result
    }

    /// Makes this game equal to `other`, reusing this game's buffers.
    fn copy_from(&mut self, other: &Game) {
        // Destructured, so that a new field cannot be forgotten here.
        let Game {
            rules,
            lookups,
            registry,
            names,
            players,
            table,
            discard,
            deck,
            current,
            turn,
            outcome,
            decks,
            seed,
            rng,
            undo: _,
        } = other;
        if !Arc::ptr_eq(&self.rules, rules) {
            self.rules = Arc::clone(rules);
        }
        if !Arc::ptr_eq(&self.lookups, lookups) {
            self.lookups = Arc::clone(lookups);
        }
        if !Arc::ptr_eq(&self.registry, registry) {
            self.registry = Arc::clone(registry);
        }
        if !Arc::ptr_eq(&self.names, names) {
            self.names = Arc::clone(names);
        }
        self.players.truncate(players.len());
        for (i, p) in players.iter().enumerate() {
            match self.players.get_mut(i) {
                Some(mine) => {
                    mine.depth = p.depth;
                    mine.oxygen = p.oxygen;
                    mine.hand.clone_from(&p.hand);
                    mine.front.clone_from(&p.front);
                    mine.front_ranks = p.front_ranks;
                }
                None => self.players.push(p.clone()),
            }
        }
        self.table.clone_from(table);
        self.discard.clone_from(discard);
        self.deck.clone_from(deck);
        self.current = *current;
        self.turn = *turn;
        self.outcome = *outcome;
        self.decks = *decks;
        self.seed = *seed;
        self.rng.clone_from(rng);
    }

    fn resolve(&mut self, registry: &Registry, action: &Action, events: &mut Sink<'_>) -> Result<(), EffectError> {
        let player = self.current;
        match action {
            Action::Play { card, from, target, face_on_top } => {
                let card = *card;
                match *from {
                    Source::Hand => remove_first(&mut self.players[player].hand, card),
                    Source::Table(slot) => self.table[slot] = None,
                }
                events.push(Event::Played { player, card, from: *from });
                let play = Play { player, card, from: *from, target: *target, face_on_top: *face_on_top };
                registry
                    .effect_ref(card.rank)
                    .resolve(&mut Ctx { game: self, events: events.reborrow(), registry }, play)?;
                if !self.is_over() {
                    // D6: replacements come after the effect.
                    match *from {
                        Source::Hand => {
                            if let Some(c) = self.draw(events) {
                                self.players[player].hand.push(c);
                                events.push(Event::Drew { player, card: c });
                            }
                        }
                        Source::Table(slot) => {
                            if let Some(c) = self.draw(events) {
                                self.table[slot] = Some(c);
                                events.push(Event::Refilled { slot, card: c });
                            }
                        }
                    }
                }
            }
            Action::Recover { cards, face_on_top } => {
                let from = self.players[player].oxygen;
                let knot = if self.players[player].has_front(Rank::KING) {
                    let mut ctx = Ctx { game: self, events: events.reborrow(), registry };
                    let k = ctx.take_front(player, Rank::KING).expect("checked: K in front");
                    ctx.emit(Event::Knotted { player });
                    Some(k)
                } else {
                    None
                };
                if let (Some(k), false) = (knot, face_on_top) {
                    self.put_discard(k, events);
                }
                // Each card leaves the hand for the pile in one loop (its length is random).
                for &card in cards {
                    remove_first(&mut self.players[player].hand, card);
                    self.put_discard(card, events);
                }
                if let (Some(k), true) = (knot, face_on_top) {
                    self.put_discard(k, events);
                }
                let gain = match knot {
                    Some(_) => Gain::Amount(0),
                    None if registry.builtin_recovery_gain() => self.lookups.recovery_gain(&self.rules, cards),
                    None => (registry.recovery_gain)(
                        &mut Ctx { game: self, events: events.reborrow(), registry },
                        player,
                        cards,
                    )?,
                };
                let max = self.rules.max_oxygen;
                let to = match gain {
                    Gain::Amount(n) => from.saturating_add(n).min(max),
                    Gain::Max => max,
                };
                self.players[player].oxygen = to;
                events.recovered(player, cards, gain, from, to);
                for _ in 0..cards.len() {
                    match self.draw(events) {
                        Some(c) => {
                            self.players[player].hand.push(c);
                            events.push(Event::Drew { player, card: c });
                        }
                        None => break,
                    }
                }
            }
            Action::Pass => events.push(Event::Passed { player }),
        }
        if self.is_over() {
            return Ok(());
        }
        let cap = self.rules.max_turns;
        if cap > 0 && self.turn >= cap {
            self.outcome = Outcome::Draw;
            events.push(Event::Draw { turns: self.turn });
            return Ok(());
        }
        // The next seat, without a division.
        let next = self.current + 1;
        self.current = if next == self.players.len() { 0 } else { next };
        self.turn += 1;
        self.start_turn(registry, events)
    }

    // Inlined, as is `draw`: each runs once or more every action, and as calls they cost a
    // register save and restore each time (+2% greedy, +3% random games).
    #[inline(always)]
    fn start_turn(&mut self, registry: &Registry, events: &mut Sink<'_>) -> Result<(), EffectError> {
        let player = self.current;
        events.push(Event::TurnStarted { player, turn: self.turn });
        for hook in &registry.turn_start {
            hook(&mut Ctx { game: self, events: events.reborrow(), registry }, player)?;
            if self.is_over() {
                break;
            }
        }
        Ok(())
    }

    fn put_discard(&mut self, card: Card, events: &mut Sink<'_>) {
        self.discard.push(card);
        events.push(Event::Discarded { card });
    }

    /// Takes the top card of the deck, reshuffling the discards (all but the top) when the
    /// deck is empty (D7). `None` when there is nothing to draw.
    #[inline(always)]
    fn draw(&mut self, events: &mut Sink<'_>) -> Option<Card> {
        if self.deck.is_empty() && self.discard.len() > 1 {
            let top = self.discard.pop().expect("len > 1");
            std::mem::swap(&mut self.deck, &mut self.discard);
            self.discard.push(top);
            self.deck.shuffle(&mut self.rng);
            events.push(Event::Reshuffled { cards: self.deck.len() });
        }
        self.deck.pop()
    }

    /// Sets up a game from parts (for [`View::sample`](super::view::View)): the caller is
    /// responsible for conservation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(template: &Game, players: Vec<Player>, deck_top_last: Vec<Card>, seed: u64) -> Game {
        Game { players, deck: deck_top_last, rng: ChaCha8Rng::seed_from_u64(seed), seed, ..template.clone() }
    }
}

/// What the engine looks up on every move, worked out from the rules once per game: the
/// oxygen cost of each depth (D10) and the recovery gain of each count of cards per suit
/// (D19). [`Rules::band_cost`] and [`Rules::recovery_gain`] answer the same from the rules'
/// lists (a search through the bands and a sort and map lookup per recovery); these answer
/// with one read.
#[derive(Debug)]
struct Lookups {
    /// By depth, up to `max_depth` (empty when that is beyond `COST_TABLE_DEPTH`).
    costs: Vec<u32>,
    /// By the index of the discarded cards (the sum of `steps` over their suits), for
    /// discards of fewer than `base` cards (empty when hands are too large for a table).
    gains: Vec<Gain>,
    /// Counts per suit go up to `base - 1`: one more than the hand size.
    base: usize,
    /// What one card of each suit adds to an index: `base` to the power of the suit's index.
    steps: [usize; 4],
}

/// Depths beyond this are costed through the rules instead of a table.
const COST_TABLE_DEPTH: u32 = 4096;

/// Hands up to this size get a gain table (`(size + 1)^4` entries).
const GAIN_TABLE_HAND: usize = 8;

impl Lookups {
    fn new(rules: &Rules) -> Lookups {
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
        Lookups { costs, gains, base, steps }
    }

    /// [`Rules::band_cost`].
    #[inline(always)]
    fn band_cost(&self, rules: &Rules, depth: u32) -> u32 {
        match self.costs.get(depth as usize) {
            Some(&cost) => cost,
            None => rules.band_cost(depth),
        }
    }

    /// [`Rules::recovery_gain`].
    #[inline(always)]
    fn recovery_gain(&self, rules: &Rules, cards: &[Card]) -> Gain {
        if cards.len() < self.base && !self.gains.is_empty() {
            let index = cards.iter().map(|c| self.steps[c.suit.index()]).sum::<usize>();
            return self.gains[index];
        }
        rules.recovery_gain(cards)
    }
}

/// The answers of registry entries whose aim ignores the card, by entry address.
#[derive(Default)]
struct AimCache {
    len: usize,
    keys: [usize; 4],
    openings: [Opening; 4],
}

impl AimCache {
    /// What `card` offers the current player now.
    #[inline(always)]
    fn aim(&mut self, game: &Game, card: Card) -> Opening {
        // A wrap that passes the aim on shares the answer of the entry it wraps.
        let effect = game.registry.aim_ref(card.rank);
        let key = (effect as *const dyn Effect).cast::<()>() as usize;
        for i in 0..self.len {
            if self.keys[i] == key {
                return self.openings[i];
            }
        }
        self.ask(game, effect, key, card)
    }

    #[inline(never)]
    fn ask(&mut self, game: &Game, effect: &dyn Effect, key: usize, card: Card) -> Opening {
        let opening = match effect.aim(game, game.current, card) {
            Ok(Aim::Open { targets, order_choice }) => Some((targets, order_choice)),
            _ => None,
        };
        if self.len < self.keys.len() && effect.aim_ignores_card() {
            self.keys[self.len] = key;
            self.openings[self.len] = opening;
            self.len += 1;
        }
        opening
    }
}

/// What the native registry's entries (effects.rs: NumberCard, Jolt, Quick, Knot) offer the
/// current player, from one pass over the divers. Debug builds compare every answer with the
/// entries' own `aim`.
struct NativeAims {
    jolted: bool,
    quick: bool,
    others: Seats,
    /// Others deeper than the current player with no J in front (Jolt targets).
    joltable: Seats,
    /// Others with no K in front (Knot targets).
    knottable: Seats,
}

impl NativeAims {
    #[inline(always)]
    fn new(game: &Game) -> NativeAims {
        let me_seat = game.current;
        let me = &game.players[me_seat];
        let (jolted, quick) = (me.has_front(Rank::JACK), me.has_front(Rank::QUEEN));
        // Every seat is tested, the current one too, and taken out of the sets at the end:
        // a branch per seat to skip it mispredicted.
        let (mut joltable, mut knottable) = (0u64, 0u64);
        for (seat, p) in game.players.iter().enumerate() {
            let bit = 1 << seat;
            joltable |= bit * u64::from(p.depth > me.depth && !p.has_front(Rank::JACK));
            knottable |= bit * u64::from(!p.has_front(Rank::KING));
        }
        let not_me = !(1u64 << me_seat);
        // Up to 64 seats (`max_players` is validated to at most 64).
        let all = u64::MAX >> (64 - game.players.len().clamp(1, 64));
        let others = Seats(all & not_me);
        NativeAims { jolted, quick, others, joltable: Seats(joltable & not_me), knottable: Seats(knottable & not_me) }
    }

    #[inline(always)]
    fn opening(&self, rank: Rank) -> Opening {
        let some = |seats: Seats| (!seats.is_empty()).then_some((Some(seats), false));
        match rank {
            Rank::JACK => some(self.joltable),
            Rank::QUEEN => (!self.quick).then_some((None, false)),
            Rank::KING => some(self.knottable),
            _ if self.jolted => Some((None, true)),
            _ if self.quick => Some((Some(self.others), false)),
            _ => Some((None, false)),
        }
    }
}

/// What a card offers when it can be played: its targets and whether the discard order is
/// a choice (`None`: it cannot be played).
type Opening = Option<(Option<Seats>, bool)>;

/// How many plays a card with this opening offers (see [`Playable::play_count`]).
#[inline(always)]
fn play_count(opening: Opening) -> usize {
    opening.map_or(0, |(targets, order_choice)| targets.map_or(1, |seats| seats.len()) << usize::from(order_choice))
}

/// Visits the plays of `card` from `from` for what its aim offers.
#[inline(always)]
fn visit_plays(card: Card, from: Source, opening: Opening, each: &mut impl FnMut(Card, Source, Option<Seat>, bool)) {
    let Some((targets, order_choice)) = opening else { return };
    match targets {
        None => {
            each(card, from, None, false);
            if order_choice {
                each(card, from, None, true);
            }
        }
        Some(seats) => {
            let mut bits = seats.0;
            while bits != 0 {
                let target = Some(bits.trailing_zeros() as Seat);
                bits &= bits - 1;
                each(card, from, target, false);
                if order_choice {
                    each(card, from, target, true);
                }
            }
        }
    }
}

/// What a playable card offers: the seats one of which a play must name (`None`: it takes
/// no target), and whether the discard order is a choice (each play is then listed twice,
/// the plain order first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub targets: Option<Seats>,
    pub order_choice: bool,
}

/// What every card of each class offers under the built-in entries (see
/// [`Game::class_offers`]); `None`: cards of that class cannot be played now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassOffers {
    pub number: Option<Offer>,
    pub jolt: Option<Offer>,
    pub quick: Option<Offer>,
    pub knot: Option<Offer>,
}

impl ClassOffers {
    /// What a card of `rank` offers.
    pub fn of(&self, rank: Rank) -> Option<Offer> {
        match rank {
            Rank::JACK => self.jolt,
            Rank::QUEEN => self.quick,
            Rank::KING => self.knot,
            _ => self.number,
        }
    }
}

/// A card the current player can play now and what playing it offers (see
/// [`Game::playable_cards_into`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Playable {
    pub card: Card,
    pub from: Source,
    /// The seats it can target, one of which a play must name (`None`: it takes no target).
    pub targets: Option<Seats>,
    /// Whether the player chooses the discard order: each play is then listed twice, the
    /// plain order first and then with the card on top.
    pub order_choice: bool,
}

impl Playable {
    /// How many plays this card offers.
    pub fn play_count(self) -> usize {
        play_count(Some((self.targets, self.order_choice)))
    }

    /// Play `i` of this card's plays (`i < self.play_count()`), in listing order: targets in
    /// seat order, and for each the plain order, then the card on top.
    pub fn play(self, i: usize) -> Action {
        debug_assert!(i < self.play_count(), "play {i} of {self:?}");
        let face_on_top = self.order_choice && i & 1 == 1;
        let target = self.targets.map(|seats| {
            let mut bits = seats.0;
            for _ in 0..i >> usize::from(self.order_choice) {
                bits &= bits - 1;
            }
            bits.trailing_zeros() as Seat
        });
        Action::Play { card: self.card, from: self.from, target, face_on_top }
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

fn check_permutation(deck: &[Card], decks: u32) -> Result<(), SetupError> {
    let mut expected = full_deck(decks);
    let mut given = deck.to_vec();
    expected.sort_unstable();
    given.sort_unstable();
    if expected == given {
        return Ok(());
    }
    let mut missing = Vec::new();
    let mut extra = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < expected.len() || j < given.len() {
        match (expected.get(i), given.get(j)) {
            (Some(e), Some(g)) if e == g => {
                i += 1;
                j += 1;
            }
            (Some(e), Some(g)) if e < g => {
                missing.push(e.to_string());
                i += 1;
            }
            (Some(e), None) => {
                missing.push(e.to_string());
                i += 1;
            }
            (_, Some(g)) => {
                extra.push(g.to_string());
                j += 1;
            }
            (None, None) => break,
        }
    }
    let mut parts = vec![format!("{} given", deck.len())];
    if !missing.is_empty() {
        parts.push(format!("missing {}", missing.join(" ")));
    }
    if !extra.is_empty() {
        parts.push(format!("extra {}", extra.join(" ")));
    }
    Err(SetupError::Deck { expected: 52 * decks as usize, decks, problem: parts.join("; ") })
}

/// What effects and hooks may do to a game while an action resolves. Every change is checked
/// and reported as an [`Event`].
pub struct Ctx<'g> {
    game: &'g mut Game,
    events: Sink<'g>,
    /// The game's registry, held apart from the game so hooks can be called while it changes.
    registry: &'g Registry,
}

impl Ctx<'_> {
    /// The game as it is now.
    pub fn game(&self) -> &Game {
        self.game
    }

    /// Records an event.
    #[inline]
    pub fn emit(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Adds a line of narration to the game log.
    pub fn say(&mut self, text: impl Into<String>) {
        self.events.push(Event::Said { text: text.into() });
    }

    /// A number in `0..n` from the game's seeded RNG (`n` ≥ 1).
    pub fn random(&mut self, n: u32) -> u32 {
        self.game.rng.random_range(0..n.max(1))
    }

    /// The value of number card `card` played by `player` now: doubled when it matches the
    /// discard top by rank or suit (D8). Records [`Event::Doubled`].
    pub fn number_value(&mut self, player: Seat, card: Card) -> u32 {
        // Whether a card doubles is random: worked out without a branch on it.
        let top = self.game.discard_top();
        let value = card.value_on(top);
        self.events.push_if(card.doubles_on(top), || Event::Doubled { player, card, on: top.expect("doubled"), value });
        value
    }

    /// Moves `player` by `delta` (positive is deeper), clamped to `0..=max_depth` (D9); runs
    /// the after-move hooks; checks for a win (D11, D20, D21) and, if the game goes on,
    /// makes the diver breathe (D10, D12).
    pub fn dive(&mut self, player: Seat, delta: i64) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let max = self.game.rules.max_depth as i64;
        let from = self.game.players[player].depth;
        let to = (from as i64 + delta).clamp(0, max) as u32;
        self.game.players[player].depth = to;
        self.emit(Event::Moved { player, from, to });
        let registry = self.registry;
        for hook in &registry.after_move {
            hook(self, player, from, to)?;
        }
        if self.check_win(player)? {
            return Ok(());
        }
        self.breathe(player)
    }

    /// Runs the win check for `player`; on a win, ends the game and returns true.
    pub fn check_win(&mut self, player: Seat) -> Result<bool, EffectError> {
        if self.game.is_over() {
            return Ok(true);
        }
        let registry = self.registry;
        let won = if registry.builtin_win_check() {
            self.game.players[player].depth >= self.game.rules.max_depth
        } else {
            (registry.win_check)(self, player)?
        };
        if won {
            self.game.outcome = Outcome::Won(player);
            self.emit(Event::Won { player });
            return Ok(true);
        }
        Ok(false)
    }

    /// `player` spends oxygen for their depth (D10) and is rescued at 0 (D12).
    pub fn breathe(&mut self, player: Seat) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let depth = self.game.players[player].depth;
        let registry = self.registry;
        let cost = if registry.builtin_oxygen_cost() {
            self.game.lookups.band_cost(&self.game.rules, depth)
        } else {
            (registry.oxygen_cost)(self, player, depth)?
        };
        let from = self.game.players[player].oxygen;
        let to = from.saturating_sub(cost);
        self.game.players[player].oxygen = to;
        self.emit(Event::Breathed { player, from, to });
        if to == 0 {
            let registry = self.registry;
            (registry.rescue)(self, player)?;
        }
        Ok(())
    }

    /// The standard rescue (D12): depth 0, oxygen back to max; cards in front stay.
    pub fn rescue_standard(&mut self, player: Seat) {
        let max = self.game.rules.max_oxygen;
        let p = &mut self.game.players[player];
        p.depth = 0;
        p.oxygen = max;
        self.emit(Event::Rescued { player, depth: 0, oxygen: max });
    }

    /// Sets a diver's depth directly (no hooks, no breathing).
    pub fn set_depth(&mut self, player: Seat, depth: i64) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let max = self.game.rules.max_depth;
        if depth < 0 || depth > max as i64 {
            return Err(EffectError(format!("depth {depth} is outside 0…{max}")));
        }
        let from = self.game.players[player].depth;
        self.game.players[player].depth = depth as u32;
        self.emit(Event::Moved { player, from, to: depth as u32 });
        Ok(())
    }

    /// Sets a diver's oxygen directly (no rescue check).
    pub fn set_oxygen(&mut self, player: Seat, oxygen: i64) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let max = self.game.rules.max_oxygen;
        if oxygen < 0 || oxygen > max as i64 {
            return Err(EffectError(format!("oxygen {oxygen} is outside 0…{max}")));
        }
        let from = self.game.players[player].oxygen;
        self.game.players[player].oxygen = oxygen as u32;
        self.emit(Event::Breathed { player, from, to: oxygen as u32 });
        Ok(())
    }

    /// Puts `card` on the discard pile.
    pub fn discard(&mut self, card: Card) {
        self.game.put_discard(card, &mut self.events);
    }

    /// Places `card` (played by `player`) in front of `target`; refused if `target` already
    /// has a card of that rank in front (D17).
    pub fn place_front(&mut self, player: Seat, target: Seat, card: Card) -> Result<(), EffectError> {
        self.check_seat(target)?;
        if self.game.players[target].has_front(card.rank) {
            return Err(EffectError(format!(
                "{} already has a {} in front (no stacking, D17)",
                self.game.names[target], card.rank
            )));
        }
        let front = &mut self.game.players[target];
        front.front.push(card);
        front.front_ranks |= 1 << card.rank.number();
        self.emit(Event::Placed { player, target, card });
        Ok(())
    }

    /// Removes the card of `rank` from in front of `player`, if there is one.
    pub fn take_front(&mut self, player: Seat, rank: Rank) -> Option<Card> {
        let p = self.game.players.get_mut(player)?;
        let i = p.front.iter().position(|c| c.rank == rank)?;
        p.front_ranks &= !(1 << rank.number());
        Some(p.front.remove(i))
    }

    /// Draws a card for `player`'s hand (reshuffling if needed, D7); false if none is left.
    pub fn draw_to_hand(&mut self, player: Seat) -> Result<bool, EffectError> {
        self.check_seat(player)?;
        match self.game.draw(&mut self.events) {
            Some(card) => {
                self.game.players[player].hand.push(card);
                self.emit(Event::Drew { player, card });
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn check_seat(&self, player: Seat) -> Result<(), EffectError> {
        if player < self.game.players.len() {
            Ok(())
        } else {
            Err(EffectError(format!("there is no player {}", player + 1)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::card::parse_cards;

    /// The per-game tables answer as the rules do, for every depth and every discard a hand
    /// can make, with and without a table.
    #[test]
    fn lookups_answer_as_the_rules_do() {
        use crate::core::rules::{Band, SuitPattern};
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
            let lookups = Lookups::new(&rules);
            for depth in 0..=rules.max_depth {
                assert_eq!(lookups.band_cost(&rules, depth), rules.band_cost(depth), "depth {depth}");
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
                assert_eq!(lookups.recovery_gain(&rules, &cards), rules.recovery_gain(&cards), "{cards:?}");
            }
        }
    }

    /// `remove_first` is `position` then `remove`, without the branches.
    #[test]
    fn remove_first_takes_the_first_copy_and_keeps_the_order() {
        let hands = ["2S", "2S 3H", "3H 2S", "4D 2S 3H 2S 5C", "2S 2S 2S", "KH QS JD 10C 9H 8S 7D 6C"];
        for text in hands {
            let hand = parse_cards(text).unwrap();
            for &card in &hand {
                let mut expected = hand.clone();
                expected.remove(hand.iter().position(|&c| c == card).unwrap());
                let mut got = hand.clone();
                remove_first(&mut got, card);
                assert_eq!(got, expected, "{card} from {text}");
            }
        }
    }
}
