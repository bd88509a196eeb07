//! What effects and hooks may do to a game while an action resolves ([`Context`]): every
//! change is checked and reported as an [`Event`].
//!
//! A context borrows the [`State`] mutably and the rule points it asks ([`Hooks`]: the game's
//! registry) shared, apart: an effect can change the state and call hooks in the same breath,
//! with no raw pointer anywhere. It is generic over the [`EventSink`] so that the engine's own
//! code (the built-in entries) is compiled for each sink, and over the hooks so that this
//! file names no registry: the registry's entries and hooks get
//! [`Ctx`](super::Ctx), this context with the game's registry and the sink as a trait object.
//! The layers do not loop: the built-in cards use a context, the registry holds and
//! dispatches to them, and a context asks only the [`Hooks`] it is given.
//!
//! Code that cannot hold a borrow across a call (a Lua callback is `'static`) borrows the
//! state with [`Context::lend`]: the state moves into an owned [`Lent`] for the length of a
//! closure and back, and a `Lent` hands out nothing but a context — the same checked methods.

use std::sync::Arc;

use rand::RngExt;
use rand::seq::SliceRandom;

use super::action::{Cards, Seat};
use super::card::{Card, Rank};
use super::error::EffectError;
use super::event::{BreathCause, DrawCause, Event, EventSink, Moment, Point};
use super::knowledge::{Hidden, ModId, Told, Words};
use super::rules::{Gain, MAX_HAND_SIZE};
use super::seats::Seats;
use super::state::{Outcome, State, Teams};

/// The rule points a [`Context`] asks while it changes a game (the decisions marked *(hook)*
/// that its own methods run): the game's registry answers them, with the built-in rule or a
/// mod's replacement.
pub trait Hooks: Sized {
    /// Oxygen `player` spends after a move to `depth` (D10).
    fn cost<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Context<'_, Self, S>,
        player: Seat,
        depth: u32,
    ) -> Result<u32, EffectError>;
    /// What `card` is worth when `player` plays it now, before doubling (D8: the rules'
    /// value of its rank, or what a mod made of it; at most [`MAX_CARD_VALUE`](super::MAX_CARD_VALUE)).
    fn card_value<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Context<'_, Self, S>,
        player: Seat,
        card: Card,
    ) -> Result<u32, EffectError>;
    /// Whether [`Hooks::card_value`] is the built-in rule (the rules' value of the rank, read
    /// from the tables): then the engine reads the tables itself, with nothing to fail.
    fn values_natively(&self) -> bool;
    /// Whether `player` has won after moving (D11, D20).
    fn won<S: EventSink + ?Sized>(&self, ctx: &mut Context<'_, Self, S>, player: Seat) -> Result<bool, EffectError>;
    /// What happens to `player` when their oxygen reaches 0 (D12).
    fn run_rescue<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Context<'_, Self, S>,
        player: Seat,
    ) -> Result<(), EffectError>;
    /// What oxygen `player` gains by discarding `cards` (D19).
    fn gain_of<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Context<'_, Self, S>,
        player: Seat,
        cards: &[Card],
    ) -> Result<Gain, EffectError>;
    /// Whether any reaction is registered for `point` (so that a context builds no
    /// [`Moment`] nobody reads).
    fn reacts(&self, point: Point) -> bool;
    /// Runs the reactions registered for `moment`'s point, in order.
    fn react<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Context<'_, Self, S>,
        moment: &Moment<'_>,
    ) -> Result<(), EffectError>;
    /// Who moves after `player`'s turn (D4, or what a mod made of it).
    fn next_turn<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Context<'_, Self, S>,
        player: Seat,
    ) -> Result<Seat, EffectError>;
    /// What runs after `player` moved, before the win check.
    fn moved<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Context<'_, Self, S>,
        player: Seat,
        from: u32,
        to: u32,
    ) -> Result<(), EffectError>;
}

/// The mutation API of effects and hooks, asking the rule points of `H`.
pub struct Context<'g, H, S: EventSink + ?Sized = dyn EventSink + 'g> {
    pub(super) state: &'g mut State,
    pub(super) hooks: &'g Arc<H>,
    pub(super) events: &'g mut S,
}

/// A game's state lent out of a running action by [`Context::lend`]: owned, so it can be parked
/// where a borrow cannot go (a thread-local slot a Lua callback reads), and changed only
/// through [`Lent::ctx`].
pub struct Lent<H> {
    state: State,
    hooks: Arc<H>,
    /// What was done through this loan, handed to the lender's sink when it comes back.
    events: Vec<Event>,
}

impl<H> Lent<H> {
    /// The lent game, to change it as an effect would.
    pub fn ctx(&mut self) -> Context<'_, H> {
        Context { state: &mut self.state, hooks: &self.hooks, events: &mut self.events }
    }

    /// The lent game as it is now.
    pub fn state(&self) -> &State {
        &self.state
    }
}

impl<'g, H: Hooks, S: EventSink + ?Sized> Context<'g, H, S> {
    pub(super) fn new(state: &'g mut State, hooks: &'g Arc<H>, events: &'g mut S) -> Context<'g, H, S> {
        Context { state, hooks, events }
    }

    /// Runs `f` with this game's state lent out as an owned [`Lent`], which `f` must give
    /// back; the state and what was done through the loan come back here. While `f` runs,
    /// this context holds an empty stand-in, so nothing can reach the state but the loan.
    ///
    /// # Panics
    /// When `f` gives back a loan of another game (a bug in the caller).
    pub fn lend<R>(&mut self, f: impl FnOnce(Lent<H>) -> (Lent<H>, R)) -> R {
        let stand_in = self.state.stand_in();
        let state = std::mem::replace(self.state, stand_in);
        let lent = Lent { state, hooks: Arc::clone(self.hooks), events: Vec::new() };
        let (lent, result) = f(lent);
        assert!(
            Arc::ptr_eq(&lent.hooks, self.hooks) && Arc::ptr_eq(lent.state.tables(), self.state.tables()),
            "a loan came back from another game"
        );
        *self.state = lent.state;
        lent.events.into_iter().for_each(|e| self.events.push(e));
        result
    }

    /// The same context with the sink as a trait object, for a registry entry or hook.
    #[inline(always)]
    pub fn reborrow(&mut self) -> Context<'_, H> {
        Context { state: self.state, hooks: self.hooks, events: self.events.as_dyn() }
    }

    /// The game as it is now.
    pub fn state(&self) -> &State {
        self.state
    }

    /// The rule points the game runs with (for calling them).
    pub(super) fn hooks(&self) -> &'g Arc<H> {
        self.hooks
    }

    /// Records an event.
    #[inline]
    pub fn emit(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Adds a line of narration by mod `by` to the game log, readable by those who may see
    /// every hidden card `by` knows now ([`super::knowledge`]).
    pub fn say(&mut self, by: ModId, text: impl Into<String>) {
        let secret = self.state.secret_of(by);
        self.events.push(Event::Said { by, words: Words::new(text.into(), secret) });
    }

    /// Mod `by` shows the table that `card` is in `player`'s hand ([`Event::Revealed`]):
    /// from then on it is nobody's secret. Refused when the card is not there; nothing is
    /// shown again when every copy of it there is already shown (by a reveal, or by the
    /// engine before an `on_draw` handler with ranks ran).
    pub fn reveal(&mut self, by: ModId, player: Seat, card: Card) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let held = self.state.players[player].hand.iter().filter(|&&c| c == card).count();
        if held == 0 {
            // A miss tells the mod what the hand does not hold: a probe of it, as
            // `ctx:take_hand` is, so the message and what the mod says next are held to it.
            self.state.learn_hand(by, Told::Probe, player);
            return Err(EffectError::new(format!("{card} is not in {}'s hand", self.state.names[player])));
        }
        // What was shown and has since left the hand no longer counts.
        self.state.forget_visible();
        if self.state.knowledge.shown(player, card) >= held {
            return Ok(());
        }
        self.state.knowledge.reveal(by, player, card);
        self.emit(Event::Revealed { by, player, card });
        Ok(())
    }

    /// What mod `by`'s words may tell of now ([`State::secret_of`]).
    pub fn secret_of(&mut self, by: ModId) -> super::knowledge::Secret {
        self.state.secret_of(by)
    }

    /// Mod `to` learns what mod `from` knows ([`State::share_knowledge`]).
    pub fn share_knowledge(&mut self, from: ModId, to: ModId) {
        self.state.share_knowledge(from, to);
    }

    /// Mod `by` is told, `how`, that `card` is in `player`'s hand.
    pub fn learn(&mut self, by: ModId, how: Told, player: Seat, card: Card) {
        self.state.learn(by, how, player, card);
    }

    /// Mod `by` is told, `how`, every card of `player`'s hand.
    pub fn learn_hand(&mut self, by: ModId, how: Told, player: Seat) {
        self.state.learn_hand(by, how, player);
    }

    /// A number in `0..n` from the game's seeded RNG (`n` ≥ 1).
    pub fn random(&mut self, n: u32) -> u32 {
        self.state.rng.random_range(0..n.max(1))
    }

    /// What `card` is worth when `player` plays it now, before doubling: the card-value rule
    /// point ([`Hooks::card_value`]: the rules' value of its rank, or a mod's).
    pub fn card_value(&mut self, player: Seat, card: Card) -> Result<u32, EffectError> {
        self.check_seat(player)?;
        let hooks = self.hooks;
        hooks.card_value(self, player, card)
    }

    /// The value of number card `card` played by `player` now: its [value](Context::card_value),
    /// doubled when it matches the discard top by rank or suit (D8). Records
    /// [`Event::Doubled`].
    #[inline(always)]
    pub fn number_value(&mut self, player: Seat, card: Card) -> Result<u32, EffectError> {
        let top = self.state.discard_top();
        let hooks = self.hooks;
        // The standard game's values need no hook, and cannot fail.
        let value = if hooks.values_natively() {
            self.state.tables().value(card)
        } else {
            hooks.card_value(self, player, card)?
        };
        let value = value << u32::from(card.doubles_on(top));
        if let (true, Some(on)) = (card.doubles_on(top), top) {
            self.events.push(Event::Doubled { player, card, on, value });
        }
        Ok(value)
    }

    /// Moves `player` by `delta` (positive is deeper), clamped to `0..=max_depth` (D9); runs
    /// the after-move hooks; checks for a win (D11, D20) and, if the game goes on, makes the
    /// diver breathe (D10, D12).
    pub fn dive(&mut self, player: Seat, delta: i64) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let max = self.state.rules().max_depth as i64;
        let from = self.state.players[player].depth;
        let to = (from as i64 + delta).clamp(0, max) as u32;
        self.state.players[player].depth = to;
        self.emit(Event::Moved { player, from, to });
        let hooks = self.hooks;
        hooks.moved(self, player, from, to)?;
        if self.check_win(player)? {
            return Ok(());
        }
        self.breathe_for(player, BreathCause::Move)
    }

    /// Runs the reactions to `moment`, if any are registered (a hook that ends the game ends
    /// it: what follows checks [`State::is_over`]).
    #[inline(always)]
    pub(super) fn react(&mut self, moment: Moment<'_>) -> Result<(), EffectError> {
        let hooks = self.hooks;
        if hooks.reacts(moment.point()) { hooks.react(self, &moment) } else { Ok(()) }
    }

    /// Runs the win check for `player`; on a win, ends the game and returns true.
    pub fn check_win(&mut self, player: Seat) -> Result<bool, EffectError> {
        if self.state.is_over() {
            return Ok(true);
        }
        let hooks = self.hooks;
        if hooks.won(self, player)? {
            let winners = self.state.team_of(player);
            self.state.outcome = Outcome::Won { by: player, winners };
            self.emit(Event::Won { player, winners });
            return Ok(true);
        }
        Ok(false)
    }

    /// Ends the game with `winners` winning together (a shared win; with teams, each winner's
    /// team wins too). The first of them is named the winner. Refused for nobody, or once the
    /// game is over.
    pub fn win(&mut self, winners: Seats) -> Result<(), EffectError> {
        self.check_running("win")?;
        let first = winners.iter().next().ok_or_else(|| EffectError::new("a win needs at least one winner"))?;
        let mut all = Seats::default();
        for seat in winners.iter() {
            self.check_seat(seat)?;
            all.0 |= self.state.team_of(seat).0;
        }
        self.state.outcome = Outcome::Won { by: first, winners: all };
        self.emit(Event::Won { player: first, winners: all });
        Ok(())
    }

    /// Ends the game in a draw: nobody wins. Refused once the game is over.
    pub fn end_in_draw(&mut self) -> Result<(), EffectError> {
        self.check_running("draw")?;
        self.state.outcome = Outcome::Draw;
        let turns = self.state.turn;
        self.emit(Event::Draw { turns });
        Ok(())
    }

    /// Sets the teams: `of_seat[seat]` is each seat's team, from 0 (every team from 0 to the
    /// highest with a seat). Whether the built-in cards may name a teammate stays as the
    /// ruleset says. Records [`Event::Teams`].
    pub fn set_teams(&mut self, of_seat: &[usize]) -> Result<(), EffectError> {
        let players = self.state.players.len();
        if of_seat.len() != players {
            return Err(EffectError::new(format!(
                "the teams need one team per player ({players}), got {}",
                of_seat.len()
            )));
        }
        let spare = self.state.rules().teams.is_none_or(|t| t.target_teammates);
        let teams = Teams::of(of_seat, spare).map_err(EffectError::new)?;
        let listed = teams.of_seats().map(|t| t as u8).collect();
        self.state.teams = Some(Arc::new(teams));
        self.emit(Event::Teams { teams: listed });
        Ok(())
    }

    fn check_running(&self, what: &str) -> Result<(), EffectError> {
        if self.state.is_over() {
            return Err(EffectError::new(format!("the game is over: no {what} can end it again")));
        }
        Ok(())
    }

    /// `player` spends oxygen for their depth (D10) and is rescued at 0 (D12).
    pub fn breathe(&mut self, player: Seat) -> Result<(), EffectError> {
        self.check_seat(player)?;
        self.breathe_for(player, BreathCause::Effect)
    }

    /// [`Context::breathe`], saying why to the reactions.
    fn breathe_for(&mut self, player: Seat, cause: BreathCause) -> Result<(), EffectError> {
        let depth = self.state.players[player].depth;
        let hooks = self.hooks;
        let cost = hooks.cost(self, player, depth)?;
        let from = self.state.players[player].oxygen;
        let to = from.saturating_sub(cost);
        self.state.players[player].oxygen = to;
        self.emit(Event::Breathed { player, from, to });
        self.react(Moment::Breathed { player, from, to, cause })?;
        if to == 0 && !self.state.is_over() {
            hooks.run_rescue(self, player)?;
            self.react(Moment::Rescued { player })?;
        }
        Ok(())
    }

    /// Rescues `player` through the registry's rescue hook (D12, or what a mod made of it),
    /// as a diver whose oxygen reaches 0 is.
    pub fn rescue(&mut self, player: Seat) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let hooks = self.hooks;
        hooks.run_rescue(self, player)?;
        self.react(Moment::Rescued { player })
    }

    /// The standard rescue (D12): depth 0, oxygen back to max; cards in front stay.
    pub fn rescue_standard(&mut self, player: Seat) {
        let max = self.state.rules().max_oxygen;
        let p = &mut self.state.players[player];
        p.depth = 0;
        p.oxygen = max;
        self.emit(Event::Rescued { player, depth: 0, oxygen: max });
    }

    /// Sets a diver's depth directly (no hooks, no breathing).
    pub fn set_depth(&mut self, player: Seat, depth: i64) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let max = self.state.rules().max_depth;
        if depth < 0 || depth > max as i64 {
            return Err(EffectError::new(format!("depth {depth} is outside 0…{max}")));
        }
        let from = self.state.players[player].depth;
        self.state.players[player].depth = depth as u32;
        self.emit(Event::Moved { player, from, to: depth as u32 });
        Ok(())
    }

    /// Sets a diver's oxygen directly (no rescue check).
    pub fn set_oxygen(&mut self, player: Seat, oxygen: i64) -> Result<(), EffectError> {
        self.check_seat(player)?;
        let max = self.state.rules().max_oxygen;
        if oxygen < 0 || oxygen > max as i64 {
            return Err(EffectError::new(format!("oxygen {oxygen} is outside 0…{max}")));
        }
        let from = self.state.players[player].oxygen;
        self.state.players[player].oxygen = oxygen as u32;
        self.emit(Event::Breathed { player, from, to: oxygen as u32 });
        Ok(())
    }

    /// Puts `card` on the discard pile.
    pub fn discard(&mut self, card: Card) {
        self.state.put_discard(card, self.events);
    }

    /// Moves `card` from `player`'s hand onto the discard pile (a recovery; checked: the card
    /// is in the hand).
    #[inline(always)]
    pub(super) fn discard_from_hand(&mut self, player: Seat, card: Card) {
        self.state.take_from_hand(player, card);
        self.state.put_discard(card, self.events);
    }

    /// Sets `player`'s oxygen after a recovery and records it.
    #[inline(always)]
    pub(super) fn recovered(&mut self, player: Seat, cards: &Cards, gain: Gain, from: u32, to: u32) {
        self.state.players[player].oxygen = to;
        self.events.push(Event::Recovered { player, cards: *cards, gain, from, to });
    }

    /// Places `card` (played by `player`) in front of `target`; refused if `target` already
    /// has a card of that rank in front (D17).
    pub fn place_front(&mut self, player: Seat, target: Seat, card: Card) -> Result<(), EffectError> {
        self.check_seat(target)?;
        if self.state.players[target].has_front(card.rank) {
            return Err(EffectError::new(format!(
                "{} already has a {} in front (no stacking, D17)",
                self.state.names[target], card.rank
            )));
        }
        let front = &mut self.state.players[target];
        front.front.push(card);
        front.front_ranks |= 1 << card.rank.number();
        self.state.front_seats[usize::from(card.rank.number())] |= 1 << target;
        self.emit(Event::Placed { player, target, card });
        Ok(())
    }

    /// Takes `card` out of the current player's hand (the one hand a handler may read),
    /// if it is there: it is then in play, for the handler to discard or place.
    pub fn take_from_hand(&mut self, card: Card) -> bool {
        let me = self.state.current;
        let held = self.state.players[me].hand.contains(&card);
        if held {
            self.state.take_from_hand(me, card);
        }
        held
    }

    /// Removes the card of `rank` from in front of `player`, if there is one.
    pub fn take_front(&mut self, player: Seat, rank: Rank) -> Option<Card> {
        let p = self.state.players.get_mut(player)?;
        if p.front_ranks & (1 << rank.number()) == 0 {
            return None;
        }
        let i = p.front.iter().position(|c| c.rank == rank)?;
        p.front_ranks &= !(1 << rank.number());
        let card = p.front.remove(i);
        self.state.front_seats[usize::from(rank.number())] &= !(1 << player);
        Some(card)
    }

    // ----- the piles -----

    /// Takes `card` (the discard top when `None`) from the discard pile into `player`'s hand:
    /// a face-up card, so every viewer sees which ([`Event::TookFromPile`]). Refused when the
    /// pile does not hold it, when it is the pile's only card (the pile is never empty: the
    /// next card played matches its top, D8, and a reshuffle keeps it, D7), or when the hand
    /// is full ([`MAX_HAND_SIZE`]).
    pub fn take_discard(&mut self, player: Seat, card: Option<Card>) -> Result<Card, EffectError> {
        self.check_seat(player)?;
        if self.state.players[player].hand.len() >= MAX_HAND_SIZE {
            return Err(EffectError::new(format!("a hand holds at most {MAX_HAND_SIZE} cards")));
        }
        let pile = &self.state.discard;
        if pile.len() < 2 {
            return Err(EffectError::new("the discard pile's only card stays: the pile is never empty"));
        }
        let at = match card {
            None => pile.len() - 1,
            Some(card) => pile
                .iter()
                .rposition(|&c| c == card)
                .ok_or_else(|| EffectError::new(format!("{card} is not on the discard pile")))?,
        };
        let card = self.state.discard.remove(at);
        self.state.players[player].hand.push(card);
        // Everyone saw which card: in that hand it is nobody's secret.
        if !self.state.knowledge.is_empty() {
            self.state.knowledge.made_public(player, card);
        }
        self.emit(Event::TookFromPile { player, card });
        Ok(card)
    }

    /// Puts `card` from the current player's hand back into the deck and shuffles the deck
    /// with the game's RNG: only that player sees which card ([`Event::Returned`]). False (and
    /// nothing changes) when the hand does not hold it.
    pub fn return_from_hand(&mut self, card: Card) -> Result<bool, EffectError> {
        let player = self.state.current;
        if !self.state.players[player].hand.contains(&card) {
            return Ok(false);
        }
        self.state.take_from_hand(player, card);
        self.put_in_deck(Some(player), card);
        Ok(true)
    }

    /// Puts `card`, which is in play (out of every place: the card being played, one taken
    /// from in front of a diver), back into the deck and shuffles the deck: everyone saw it
    /// ([`Event::Returned`] with no player). The caller answers for conservation, as for
    /// [`Context::discard`].
    pub fn return_to_deck(&mut self, card: Card) {
        self.put_in_deck(None, card);
    }

    /// Shuffles the deck with the game's seeded RNG ([`Event::DeckShuffled`]).
    pub fn shuffle_deck(&mut self) {
        self.state.deck.shuffle(&mut self.state.rng);
        let cards = self.state.deck.len();
        self.emit(Event::DeckShuffled { cards });
    }

    fn put_in_deck(&mut self, player: Option<Seat>, card: Card) {
        self.state.deck.push(card);
        // From a hand, the card stays hidden: whoever knew it there knows it in the deck.
        if let Some(player) = player
            && !self.state.knowledge.is_empty()
        {
            self.state.knowledge.moved(card, Hidden::Hand(player), Hidden::Deck);
        }
        self.emit(Event::Returned { player, card });
        self.shuffle_deck();
    }

    /// Draws a card for `player`'s hand (reshuffling if needed, D7); false if none is left.
    ///
    /// Refused when the hand already holds [`MAX_HAND_SIZE`] cards: the rules never draw a hand
    /// past its size, and what is legal (a recovery per set of hand cards) grows as 2ⁿ with it.
    pub fn draw_to_hand(&mut self, player: Seat) -> Result<bool, EffectError> {
        self.draw_for(player, DrawCause::Effect)
    }

    /// [`Context::draw_to_hand`], saying why to the reactions.
    pub(super) fn draw_for(&mut self, player: Seat, cause: DrawCause) -> Result<bool, EffectError> {
        self.check_seat(player)?;
        if self.state.players[player].hand.len() >= MAX_HAND_SIZE {
            return Err(EffectError::new(format!("a hand holds at most {MAX_HAND_SIZE} cards")));
        }
        match self.draw_card()? {
            Some(card) => {
                self.state.put_in_hand(player, card);
                self.emit(Event::Drew { player, card });
                self.react(Moment::Drew { player, card, cause })?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The next card of the deck (reshuffling the discards first when it is empty, D7, and
    /// then running the reshuffle's reactions), or `None` when there is none.
    #[inline(always)]
    pub(super) fn draw_card(&mut self) -> Result<Option<Card>, EffectError> {
        let reshuffles = self.state.deck.is_empty() && self.state.discard.len() > 1;
        let card = self.state.draw(self.events);
        if reshuffles {
            let cards = self.state.deck.len() + usize::from(card.is_some());
            self.react(Moment::Reshuffled { cards })?;
        }
        Ok(card)
    }

    /// Turns the direction of play round (D4 reversed): after this turn, play goes the
    /// other way round the table. Records [`Event::Reversed`].
    pub fn reverse(&mut self) {
        self.state.reversed = !self.state.reversed;
        let backwards = self.state.reversed;
        self.emit(Event::Reversed { backwards });
    }

    /// Gives the next turn to `player`: after this turn, the built-in order hands the turn
    /// to them instead of the next seat round the table (the current player again: another
    /// turn). A later call this turn wins. Seats passed over are reported when the turn moves.
    pub fn give_turn(&mut self, player: Seat) -> Result<(), EffectError> {
        self.check_seat(player)?;
        self.state.given = Some(player);
        Ok(())
    }

    /// Who moves after the current turn, by the turn order in force ([`Hooks::next_turn`]):
    /// records the seats passed over ([`Event::Skipped`]) or another turn
    /// ([`Event::AnotherTurn`]), and forgets a turn an effect gave.
    pub(super) fn pass_turn(&mut self) -> Result<Seat, EffectError> {
        let player = self.state.current;
        let hooks = self.hooks;
        let next = hooks.next_turn(self, player)?;
        if next >= self.state.players.len() {
            return Err(EffectError::new(format!(
                "the turn order named player {}, but there are {} players",
                next + 1,
                self.state.players.len()
            )));
        }
        self.state.given = None;
        if next == player {
            self.emit(Event::AnotherTurn { player });
        } else {
            let mut seat = self.state.seat_after(player);
            while seat != next {
                self.emit(Event::Skipped { player: seat });
                seat = self.state.seat_after(seat);
            }
        }
        Ok(next)
    }

    fn check_seat(&self, player: Seat) -> Result<(), EffectError> {
        if player < self.state.players.len() {
            Ok(())
        } else {
            Err(EffectError::new(format!("there is no player {}", player + 1)))
        }
    }
}
