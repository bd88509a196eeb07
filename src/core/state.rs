//! The state of a game ([`State`]): the divers, the piles, the table, whose turn it is, the
//! seeded RNG and the per-ruleset [`Tables`] — plain data with readers, no card behaviour.
//!
//! A [`Game`](super::Game) is a `State` plus the [`Registry`](super::Registry) that says
//! what cards do. Keeping them apart lets an effect hold `&mut State` while the engine holds
//! `&Registry`, with no aliasing and no raw pointer, and makes the undo copy of a failed
//! scripted action a `State`, nothing more.
//!
//! Invariants, checked by the tests after every action:
//! - cards are conserved: hands + table + discard + deck + fronts = 52 × decks;
//! - depth stays in `0..=max_depth`, oxygen in `0..=max_oxygen`;
//! - nobody has two cards of the same rank in front (D17).

use std::sync::Arc;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::action::Seat;
use super::card::{Card, Rank, Suit, full_deck};
use super::error::EffectError;
use super::event::{Event, EventSink};
use super::knowledge::{Hidden, Knowledge, ModId, Secret, Told};
use super::rules::{Rules, RulesError};
use super::seats::Seats;
use super::tables::Tables;

/// One diver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    pub depth: u32,
    pub oxygen: u32,
    pub hand: Vec<Card>,
    /// Cards placed in front of this diver (J, Q, K …), oldest first.
    pub front: Vec<Card>,
    /// The ranks of `front` as a set (bit `r` for rank number `r`; D17 allows one card per
    /// rank), kept by the engine wherever `front` changes.
    pub(super) front_ranks: u16,
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

/// Per rank, the seats of `players` with a card of that rank in front.
fn front_seats_of(players: &[Player]) -> [u64; 16] {
    let mut seats = [0u64; 16];
    for (seat, p) in players.iter().enumerate() {
        for c in &p.front {
            seats[usize::from(c.rank.number())] |= 1 << seat;
        }
    }
    seats
}

/// The rank set of `cards`.
fn ranks_of(cards: &[Card]) -> u16 {
    cards.iter().fold(0, |set, c| set | 1 << c.rank.number())
}

/// How the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Running,
    /// The game is won: `by` the diver whose move won (or whom a mod declared first), and
    /// everyone in `winners` wins (`by` and their team; a shared win a mod declared).
    Won {
        by: Seat,
        winners: Seats,
    },
    /// Nobody won: the turn cap was reached (D23), or a mod declared a draw.
    Draw,
}

/// The teams of a game: each seat's team (from 0), each team's seats, and whether the
/// built-in cards (a Jolt, a Knot, a Quick's push) may name a teammate. Public: everyone
/// sees who plays with whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Teams {
    of_seat: Vec<u8>,
    members: Vec<Seats>,
    target_teammates: bool,
}

impl Teams {
    /// `count` teams over `players` seats, alternating round the table (seat 1 in team 1,
    /// seat 2 in team 2 … seat `count + 1` in team 1 again).
    pub fn alternating(count: usize, players: usize, target_teammates: bool) -> Teams {
        let of_seat: Vec<usize> = (0..players).map(|seat| seat % count.max(1)).collect();
        Teams::of(&of_seat, target_teammates).expect("alternating teams are numbered from 0")
    }

    /// The teams with `of_seat[seat]` the team (from 0) of each seat; every team from 0 to
    /// the highest must have a seat, and there are at most 64.
    pub fn of(of_seat: &[usize], target_teammates: bool) -> Result<Teams, String> {
        let count = of_seat.iter().max().map_or(0, |&t| t + 1);
        if count > 64 {
            return Err(format!("there are at most 64 teams, not {count}"));
        }
        let mut members = vec![Seats::default(); count];
        for (seat, &team) in of_seat.iter().enumerate() {
            members[team].insert(seat);
        }
        if let Some(empty) = members.iter().position(|m| m.is_empty()) {
            return Err(format!("team {} has nobody in it (teams are numbered 1, 2 … without a gap)", empty + 1));
        }
        Ok(Teams { of_seat: of_seat.iter().map(|&t| t as u8).collect(), members, target_teammates })
    }

    /// How many teams there are.
    pub fn count(&self) -> usize {
        self.members.len()
    }

    /// The team (from 0) of `seat`.
    pub fn team(&self, seat: Seat) -> usize {
        usize::from(self.of_seat[seat])
    }

    /// The seats of team `team` (from 0).
    pub fn members(&self, team: usize) -> Seats {
        self.members[team]
    }

    /// Each seat's team (from 0), in seat order.
    pub fn of_seats(&self) -> impl Iterator<Item = usize> + '_ {
        self.of_seat.iter().map(|&t| usize::from(t))
    }

    /// Whether the built-in cards may name a teammate.
    pub fn target_teammates(&self) -> bool {
        self.target_teammates
    }

    /// Of `others` (every seat but `player`'s), those the built-in cards may name: all of
    /// them, or only the other teams' when teammates are spared (unless that leaves nobody).
    #[cold]
    #[inline(never)]
    fn targetable(&self, player: Seat, others: Seats) -> Seats {
        if self.target_teammates {
            return others;
        }
        let opponents = Seats(others.0 & !self.members(self.team(player)).0);
        if opponents.is_empty() { others } else { opponents }
    }
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

/// Everything about a game that changes or that a player could tell apart, and nothing of
/// what the cards do.
pub struct State {
    /// The rules and their tables, shared by every clone.
    pub(super) tables: Arc<Tables>,
    pub(super) names: Arc<[String]>,
    pub(super) players: Vec<Player>,
    /// Per rank (by number), the seats with a card of that rank in front: every diver's
    /// `front_ranks` read the other way, kept by the engine beside them, so that "who can be
    /// Jolted or Knotted" is a mask and not a pass over the divers.
    pub(super) front_seats: [u64; 16],
    pub(super) table: Vec<Option<Card>>,
    /// Bottom first: the last card is the top.
    pub(super) discard: Vec<Card>,
    /// Bottom first: the last card is the top, the next to be drawn.
    pub(super) deck: Vec<Card>,
    pub(super) current: Seat,
    /// Whether play goes round the table backwards (seat 3, 2, 1 …), after an odd number of
    /// reversals ([`Ctx::reverse`](super::Ctx::reverse)).
    pub(super) reversed: bool,
    /// The seat an effect said moves next ([`Ctx::give_turn`](super::Ctx::give_turn)), for
    /// the built-in order to take once, at the end of this turn.
    pub(super) given: Option<Seat>,
    pub(super) turn: u32,
    /// The teams, when the game is played in teams (the ruleset's, or a mod's).
    pub(super) teams: Option<Arc<Teams>>,
    pub(super) outcome: Outcome,
    pub(super) decks: u32,
    pub(super) seed: u64,
    pub(super) rng: ChaCha8Rng,
    /// What the mods know of the hidden cards (empty without mods).
    pub(super) knowledge: Knowledge,
}

impl Clone for State {
    fn clone(&self) -> State {
        State {
            players: self.players.clone(),
            table: self.table.clone(),
            discard: self.discard.clone(),
            deck: self.deck.clone(),
            knowledge: self.knowledge.clone(),
            ..self.stand_in()
        }
    }

    /// Makes this state equal to `source`, reusing this state's buffers (the undo copy, a
    /// bridge's read copy).
    fn clone_from(&mut self, source: &State) {
        self.copy_from(source);
    }
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("players", &self.players)
            .field("table", &self.table)
            .field("discard", &self.discard)
            .field("deck", &self.deck)
            .field("current", &self.current)
            .field("reversed", &self.reversed)
            .field("given", &self.given)
            .field("turn", &self.turn)
            .field("outcome", &self.outcome)
            .field("teams", &self.teams)
            .finish_non_exhaustive()
    }
}

/// Two states are equal when everything a player or the future could tell apart is equal:
/// the divers, piles, turn, names, rules, the RNG position and what the mods know.
impl PartialEq for State {
    fn eq(&self, other: &State) -> bool {
        self.players == other.players
            && self.table == other.table
            && self.discard == other.discard
            && self.deck == other.deck
            && self.current == other.current
            && self.reversed == other.reversed
            && self.given == other.given
            && self.turn == other.turn
            && self.outcome == other.outcome
            && self.teams == other.teams
            && self.names == other.names
            && self.rng == other.rng
            && self.rules() == other.rules()
            && self.knowledge == other.knowledge
    }
}

impl State {
    /// Deals a new game (D3) with seat 1 to play (D4); the first turn's hooks have not run.
    pub(super) fn deal(rules: Arc<Rules>, setup: Setup) -> Result<State, SetupError> {
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
        let teams = rules.teams.map(|t| Arc::new(Teams::alternating(t.count, n, t.target_teammates)));
        Ok(State {
            tables: Arc::new(Tables::new(rules)),
            names: setup.names.into(),
            players,
            front_seats: [0; 16],
            table,
            discard,
            deck,
            current: 0,
            reversed: false,
            given: None,
            turn: 1,
            teams,
            outcome: Outcome::Running,
            decks,
            seed: setup.seed,
            rng,
            knowledge: Knowledge::default(),
        })
    }

    /// Deals again with the same rules and players, shuffled with `seed`: the state
    /// [`State::deal`] makes with `deck: None`, reusing this state's buffers.
    pub(super) fn redeal(&mut self, seed: u64) {
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
        let (hand_size, max_oxygen) = (self.rules().hand_size, self.rules().max_oxygen);
        for p in &mut self.players {
            p.depth = 0;
            p.oxygen = max_oxygen;
            p.front.clear();
            p.front_ranks = 0;
            self.front_seats = [0; 16];
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
        self.reversed = false;
        self.given = None;
        self.turn = 1;
        let players = self.players.len();
        self.teams = self.rules().teams.map(|t| Arc::new(Teams::alternating(t.count, players, t.target_teammates)));
        self.outcome = Outcome::Running;
        self.seed = seed;
        self.rng = rng;
        self.knowledge = Knowledge::default();
    }

    /// An empty state of the same game, built without allocating: what a [`Ctx`] holds
    /// while its state is lent out ([`Ctx::lend`](super::Ctx::lend)).
    pub(super) fn stand_in(&self) -> State {
        State {
            tables: Arc::clone(&self.tables),
            names: Arc::clone(&self.names),
            players: Vec::new(),
            front_seats: self.front_seats,
            table: Vec::new(),
            discard: Vec::new(),
            deck: Vec::new(),
            current: self.current,
            reversed: self.reversed,
            given: self.given,
            turn: self.turn,
            teams: self.teams.clone(),
            outcome: self.outcome,
            decks: self.decks,
            seed: self.seed,
            rng: self.rng.clone(),
            knowledge: Knowledge::default(),
        }
    }

    /// Makes this state equal to `other`, reusing this state's buffers.
    fn copy_from(&mut self, other: &State) {
        // Destructured, so that a new field cannot be forgotten here.
        let State {
            tables,
            names,
            players,
            front_seats,
            table,
            discard,
            deck,
            current,
            reversed,
            given,
            turn,
            teams,
            outcome,
            decks,
            seed,
            rng,
            knowledge,
        } = other;
        if !Arc::ptr_eq(&self.tables, tables) {
            self.tables = Arc::clone(tables);
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
        self.front_seats = *front_seats;
        self.table.clone_from(table);
        self.discard.clone_from(discard);
        self.deck.clone_from(deck);
        self.current = *current;
        self.reversed = *reversed;
        self.given = *given;
        self.turn = *turn;
        if self.teams != *teams {
            self.teams.clone_from(teams);
        }
        self.outcome = *outcome;
        self.decks = *decks;
        self.seed = *seed;
        self.rng.clone_from(rng);
        if !(self.knowledge.is_empty() && knowledge.is_empty()) {
            self.knowledge.clone_from(knowledge);
        }
    }

    /// A state like `template` with other players and deck (for
    /// [`View::sample`](super::View::sample)): the caller is responsible for conservation.
    pub(super) fn from_parts(template: &State, players: Vec<Player>, deck_top_last: Vec<Card>, seed: u64) -> State {
        let front_seats = front_seats_of(&players);
        State {
            players,
            front_seats,
            deck: deck_top_last,
            rng: ChaCha8Rng::seed_from_u64(seed),
            seed,
            // The hidden cards are dealt otherwise: what the mods knew is kept by place.
            knowledge: template.knowledge.by_place(),
            ..template.clone()
        }
    }

    // ----- reading -----

    pub fn rules(&self) -> &Rules {
        self.tables.rules()
    }
    /// The seats with a card of `rank` in front of them.
    #[inline]
    pub fn seats_with_front(&self, rank: Rank) -> Seats {
        debug_assert_eq!(self.front_seats, front_seats_of(&self.players), "front seats out of step");
        Seats(self.front_seats[usize::from(rank.number())])
    }
    /// The shared rules, for clients that cache what they derive from them (compare with
    /// [`Arc::ptr_eq`]).
    pub fn rules_arc(&self) -> &Arc<Rules> {
        self.tables.rules_arc()
    }
    /// The per-ruleset tables (oxygen cost by depth, recovery gain by suit counts).
    pub fn tables(&self) -> &Arc<Tables> {
        &self.tables
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
        // Up to 64 seats (`max_players` is validated to at most 64).
        let all = u64::MAX >> (64 - self.players.len().clamp(1, 64));
        Seats(all & !(1u64 << seat))
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
    /// Whether play goes round the table backwards (D4 reversed by an effect).
    pub fn is_reversed(&self) -> bool {
        self.reversed
    }
    /// The seat an effect said moves after this turn, if one did.
    pub fn given_turn(&self) -> Option<Seat> {
        self.given
    }
    /// The seat after `seat` round the table, in the direction play goes now (D4), without
    /// what an effect gave or a mod's order: the built-in order's step.
    pub fn seat_after(&self, seat: Seat) -> Seat {
        let n = self.players.len();
        if self.reversed { (seat + n - 1) % n } else { (seat + 1) % n }
    }
    /// Who moves after the current turn by the built-in order (D4): the seat an effect gave
    /// the turn to, else the next seat round the table in the direction of play. A mod's
    /// `next_turn` hook may say otherwise; the board shows this when play is not plain.
    pub fn next_in_order(&self) -> Seat {
        self.given.unwrap_or_else(|| self.seat_after(self.current))
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
    /// The diver whose move won the game (the first a mod declared a winner), if it is won.
    pub fn winner(&self) -> Option<Seat> {
        match self.outcome {
            Outcome::Won { by, .. } => Some(by),
            _ => None,
        }
    }
    /// Everyone who won: the winner and their team, or the divers of a shared win (none while
    /// the game runs or after a draw).
    pub fn winners(&self) -> Seats {
        match self.outcome {
            Outcome::Won { winners, .. } => winners,
            _ => Seats::default(),
        }
    }
    /// The teams, when the game is played in teams.
    pub fn teams(&self) -> Option<&Teams> {
        self.teams.as_deref()
    }
    /// `seat` and their teammates (`seat` alone without teams): who wins with them.
    pub fn team_of(&self, seat: Seat) -> Seats {
        match &self.teams {
            None => Seats(1 << seat),
            Some(teams) => teams.members(teams.team(seat)),
        }
    }
    /// `seat`'s teammates, not `seat` (nobody without teams).
    pub fn teammates(&self, seat: Seat) -> Seats {
        match &self.teams {
            None => Seats::default(),
            Some(teams) => Seats(teams.members(teams.team(seat)).0 & !(1 << seat)),
        }
    }
    /// The other seats than `player` the built-in cards may name: every other seat, less
    /// `player`'s teammates when the teams spare them (unless that leaves nobody).
    ///
    /// Asked three times by every listing: without teams, one test beyond `others` (the
    /// teams' case is out of line, so that the listing's four offers stay unrolled).
    #[inline(always)]
    pub fn targetable(&self, player: Seat) -> Seats {
        let others = self.others(player);
        match &self.teams {
            None => others,
            Some(teams) => teams.targetable(player, others),
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

    // ----- what the mods know (see `knowledge`) -----

    /// What the mods know of the hidden cards.
    pub fn knowledge(&self) -> &Knowledge {
        &self.knowledge
    }

    /// Mod `by` is told, `how`, that `card` is in `seat`'s hand (nothing when it is not
    /// there, or shown to the table already).
    pub fn learn(&mut self, by: ModId, how: Told, seat: Seat, card: Card) {
        if let Some(p) = self.players.get(seat) {
            self.knowledge.learn(by, how, seat, card, &p.hand);
        }
    }

    /// Mod `by` is told, `how`, every card of `seat`'s hand (it read the hand, or probed it:
    /// a card found missing tells of the others).
    pub fn learn_hand(&mut self, by: ModId, how: Told, seat: Seat) {
        let Some(p) = self.players.get(seat) else { return };
        for i in 0..p.hand.len() {
            let card = self.players[seat].hand[i];
            self.knowledge.learn(by, how, seat, card, &self.players[seat].hand);
        }
    }

    /// Mod `to` learns what mod `from` knows (it was handed an answer `from` worked out).
    pub fn share_knowledge(&mut self, from: ModId, to: ModId) {
        self.knowledge.share(from, to);
    }

    /// What mod `by`'s words may tell of now: the hidden places of the cards it knows that are
    /// still hidden there (what became visible is forgotten first).
    pub fn secret_of(&mut self, by: ModId) -> Secret {
        if self.knowledge.is_empty() {
            return Secret::NONE;
        }
        self.forget_visible();
        self.knowledge.secret_of(by)
    }

    /// Drops what the mods knew of cards that are visible now.
    pub(super) fn forget_visible(&mut self) {
        let State { knowledge, players, deck, .. } = self;
        knowledge.forget_visible(|place, card| {
            let cards: &[Card] = match place {
                Hidden::Hand(seat) => players.get(seat).map_or(&[], |p| &p.hand),
                Hidden::Deck => deck,
            };
            cards.iter().filter(|&&c| c == card).count()
        });
    }

    // ----- changing (for the engine and `Ctx`) -----

    pub(super) fn put_discard<S: EventSink + ?Sized>(&mut self, card: Card, events: &mut S) {
        self.discard.push(card);
        events.push(Event::Discarded { card });
    }

    /// Puts `card`, just drawn from the deck, into `seat`'s hand: whoever knew it in the deck
    /// knows it there.
    #[inline(always)]
    pub(super) fn put_in_hand(&mut self, seat: Seat, card: Card) {
        if self.knowledge.is_empty() {
            // Without mods that know cards: the push alone, as the hot path has it.
            self.players[seat].hand.push(card);
            return;
        }
        let held = self.players[seat].hand.iter().filter(|&&c| c == card).count();
        self.knowledge.arrives(seat, card, held);
        self.players[seat].hand.push(card);
        self.knowledge.moved(card, Hidden::Deck, Hidden::Hand(seat));
    }

    /// Takes the top card of the deck, reshuffling the discards (all but the top) when the
    /// deck is empty (D7). `None` when there is nothing to draw.
    #[inline(always)]
    pub(super) fn draw<S: EventSink + ?Sized>(&mut self, events: &mut S) -> Option<Card> {
        if self.deck.is_empty() && self.discard.len() > 1 {
            let top = self.discard.pop().expect("len > 1");
            std::mem::swap(&mut self.deck, &mut self.discard);
            self.discard.push(top);
            self.deck.shuffle(&mut self.rng);
            events.push(Event::Reshuffled { cards: self.deck.len() });
        }
        self.deck.pop()
    }

    /// Removes the first `card` from `seat`'s hand, keeping the order of the others (`card`
    /// must be there).
    #[inline(always)]
    pub(super) fn take_from_hand(&mut self, seat: Seat, card: Card) {
        remove_first(&mut self.players[seat].hand, card);
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
        parts.push(format!("missing {}", listed(&missing)));
    }
    if !extra.is_empty() {
        parts.push(format!("extra {}", listed(&extra)));
    }
    Err(SetupError::Deck { expected: 52 * decks as usize, decks, problem: parts.join("; ") })
}

/// The most cards a deck error names in one list (a deck of 52,000 cards would otherwise be
/// named in a message of 160 KB).
pub const MAX_LISTED_CARDS: usize = 16;

/// `cards` as a deck error lists them: the first [`MAX_LISTED_CARDS`], then how many more.
fn listed(cards: &[String]) -> String {
    let shown = cards[..cards.len().min(MAX_LISTED_CARDS)].join(" ");
    match cards.len().saturating_sub(MAX_LISTED_CARDS) {
        0 => shown,
        more => format!("{shown} … and {more} more"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::card::parse_cards;

    #[test]
    fn a_deck_error_names_at_most_a_few_cards_of_a_list() {
        let ace: Card = "AS".parse().unwrap();
        let mut deck = full_deck(1);
        deck.extend(std::iter::repeat_n(ace, 52_000));
        let Err(SetupError::Deck { problem, .. }) = check_permutation(&deck, 1) else { panic!("refused") };
        assert_eq!(problem, format!("52052 given; extra {} … and 51984 more", ["AS"; MAX_LISTED_CARDS].join(" ")));
        let Err(SetupError::Deck { problem, .. }) = check_permutation(&deck[..3], 1) else { panic!("refused") };
        assert!(problem.starts_with("3 given; missing ") && problem.ends_with("… and 33 more"), "{problem}");
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
