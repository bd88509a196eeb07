//! A whole game ([`Game`]): the [`State`] and the [`Registry`] it runs with, and the one way
//! to change it, [`Game::apply`].
//!
//! `apply` checks the action ([`legal::check`]), then resolves it: the
//! card's entry (or the recovery, or a pass), the replacement draw (D6), the end of the turn
//! and the next turn's start hooks. When the action runs anything but built-in code, the
//! state is copied first and put back if that code fails — and so is what the entries keep
//! outside the state (a mod's Lua globals, [`Registry::keeps_state`], put back in place by
//! [`Registry::restore`], so a mod's top-level locals keep their values) — and the events go
//! to the caller's sink only once the action succeeded: a refused or failed action changes
//! nothing, so no caller keeps a copy of the game of its own.
//!
//! Invariants, checked by the tests after every action:
//! - a refused action leaves the game exactly as it was, whatever entry or hook refused;
//! - the same rules, registry, setup and actions give the same game and the same events.

use std::ops::Deref;
use std::sync::Arc;

use super::action::Play;
use super::action::{Action, ActionError, Source};
use super::ctx::{Context, Hooks};
use super::effects::Registry;
use super::error::EffectError;
use super::event::{DrawCause, Event, EventSink, Moment, Point};
use super::legal::{self, Moves};
use super::rules::Rules;
use super::state::{Outcome, Setup, SetupError, State};

/// A game: its state and the behaviour it runs with. It reads as its [`State`] (through
/// `Deref`), and changes only through [`Game::apply`].
pub struct Game {
    state: State,
    registry: Arc<Registry>,
    /// A spare state for undoing a failed scripted action, reused from one action to the
    /// next. Not part of the game: a clone starts without one.
    undo: Option<Box<State>>,
    /// The events of an action that may still fail, held back until it succeeded.
    pending: Vec<Event>,
}

/// A copy is a game of its own: when the registry's entries keep state outside the game (a
/// mod's Lua variables), the copy runs with a copy of that state ([`Registry::for_copy`]), so
/// nothing played on the copy changes what the original will do.
impl Clone for Game {
    fn clone(&self) -> Game {
        self.with_state(self.state.clone())
    }
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.state.fmt(f)
    }
}

/// Two games are equal when their states are: everything a player or the future could tell
/// apart.
impl PartialEq for Game {
    fn eq(&self, other: &Game) -> bool {
        self.state == other.state
    }
}

impl Deref for Game {
    type Target = State;

    fn deref(&self) -> &State {
        &self.state
    }
}

impl Game {
    /// Deals a new game (D3) and starts seat 1's turn (D4).
    pub fn new(rules: Arc<Rules>, registry: Arc<Registry>, setup: Setup) -> Result<Game, SetupError> {
        Game::new_observed(rules, registry, setup, &mut ())
    }

    /// [`Game::new`], sending what the opening did to `events`: the first turn's start, then
    /// whatever the turn-start hooks did on turn 1 (a mod's narration, a card it drew), as
    /// every later turn's start is sent by [`Game::apply`]. Nothing is sent when the game
    /// cannot start.
    pub fn new_observed<S: EventSink>(
        rules: Arc<Rules>,
        registry: Arc<Registry>,
        setup: Setup,
        events: &mut S,
    ) -> Result<Game, SetupError> {
        let state = State::deal(rules, setup)?;
        let mut game = Game { state, registry, undo: None, pending: Vec::new() };
        let mut opening = Vec::new();
        game.start(&mut opening)?;
        opening.into_iter().for_each(|e| events.push(e));
        Ok(game)
    }

    /// Deals a new game with the same rules, registry and players, shuffled with `seed`: the
    /// game [`Game::new`] would deal with `deck: None`, reusing this game's buffers (for
    /// simulations that play many games).
    pub fn restart(&mut self, seed: u64) -> Result<(), SetupError> {
        self.state.redeal(seed);
        self.start(&mut ())
    }

    /// Starts the opening turn: its start, then its hooks, sent to `events`.
    fn start<S: EventSink>(&mut self, events: &mut S) -> Result<(), SetupError> {
        let Game { state, registry, .. } = self;
        let player = state.current;
        events.push(Event::TurnStarted { player, turn: state.turn });
        registry.turn_started(&mut Context::new(state, registry, events), player).map_err(SetupError::Hook)
    }

    /// A standard game with these names and seed.
    pub fn standard(names: &[&str], seed: u64) -> Result<Game, SetupError> {
        let setup = Setup { names: names.iter().map(|s| s.to_string()).collect(), seed, deck: None };
        Game::new(Arc::new(Rules::default()), Arc::new(Registry::standard()), setup)
    }

    /// The state, as every reader sees it.
    pub fn state(&self) -> &State {
        &self.state
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// A copy of this game that runs with another registry (used by `reload` and tests).
    pub fn with_registry(&self, registry: Arc<Registry>) -> Game {
        Game { state: self.state.clone(), registry, undo: None, pending: Vec::new() }
    }

    /// A copy of this game with another state (a sample of what a seat cannot see), running
    /// with a copy of the registry's own state like [`Game::clone`].
    pub(super) fn with_state(&self, state: State) -> Game {
        Game { state, registry: Registry::for_copy(&self.registry), undo: None, pending: Vec::new() }
    }

    /// This game with the cards not yet drawn (the deck) shuffled with `seed`, and later
    /// reshuffles of the discard pile drawn from `seed` too: a branch of the game from here on
    /// whose draws nobody can tell from the original's. Hands, table, pile and divers stay.
    /// The new order depends only on `seed` and which cards the deck holds, not on its order.
    pub fn with_deck_shuffled(&self, seed: u64) -> Game {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut deck: Vec<_> = self.state.deck().collect();
        deck.sort_unstable();
        deck.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let players = self.state.players().to_vec();
        self.with_state(State::from_parts(&self.state, players, deck, seed))
    }

    // ----- legality -----

    /// What the current player may do now: the single source of legality.
    pub fn moves(&self) -> Moves<'_> {
        Moves::of(&self.state, &self.registry)
    }

    /// Every legal action for the current player, in listing order ([`Moves`]).
    pub fn legal_actions(&self) -> Vec<Action> {
        self.moves().to_vec()
    }

    /// Whether `action` is legal now, or why not.
    pub fn check(&self, action: &Action) -> Result<(), ActionError> {
        legal::check(&self.state, &self.registry, action)
    }

    // ----- changing -----

    /// Plays `action` for the current player, sending what happened to `events`. A refused
    /// action returns the reason, leaves the game exactly as it was and sends nothing.
    ///
    /// Inlined with the resolution (`apply_checked`) into the caller's loop (the simulator's):
    /// since the rule points grew the resolution, the compiler called it out of line, which
    /// cost a random game 3% more instructions.
    #[inline(always)]
    pub fn apply<S: EventSink>(&mut self, action: &Action, events: &mut S) -> Result<(), ActionError> {
        self.check(action)?;
        self.apply_checked(action, events)
    }

    /// [`Game::apply`] without asking whether `action` is legal: a planner resolving on a
    /// copy what a listed play would do under another registry, whose aims may not offer it
    /// ([`Forecast::play_modelled`](super::Forecast::play_modelled)). The card must be where
    /// the action says; whatever the entries refuse fails as in `apply`, changing nothing.
    pub(super) fn apply_unchecked<S: EventSink>(&mut self, action: &Action, events: &mut S) -> Result<(), ActionError> {
        let player = self.state.current;
        let there = match action {
            Action::Play { card, from: Source::Hand, .. } => self.state.player(player).hand.contains(card),
            Action::Play { card, from: Source::Table(slot), .. } => self.state.table().get(*slot) == Some(&Some(*card)),
            Action::Recover { cards, .. } => cards.iter().all(|c| self.state.player(player).hand.contains(c)),
            Action::Pass | Action::Act { .. } => true,
        };
        if !there || self.state.is_over() {
            return Err(ActionError::Script(EffectError::new(format!("'{action}' cannot be resolved here"))));
        }
        self.apply_checked(action, events)
    }

    #[inline(always)]
    fn apply_checked<S: EventSink>(&mut self, action: &Action, events: &mut S) -> Result<(), ActionError> {
        let Game { state, registry, undo, pending } = self;
        if registry.resolves_natively(action) {
            // Built-in code does not fail on a checked action.
            let result = resolve(state, registry, action, events);
            debug_assert_eq!(result, Ok(()), "built-in code failed on '{action}'");
            return result.map_err(ActionError::Script);
        }
        // Scripted code may fail half-way: keep a copy to go back to, of the state and of
        // what the entries keep outside it (a mod's Lua variables), and hold the events back.
        let before = undo.get_or_insert_with(|| Box::new(state.clone()));
        State::clone_from(before, state);
        let kept = registry.keeps_state().then(|| Registry::for_copy(registry));
        pending.clear();
        match resolve(state, registry, action, pending) {
            Ok(()) => {
                pending.drain(..).for_each(|e| events.push(e));
                Ok(())
            }
            Err(e) => {
                std::mem::swap(state, before);
                // The entries' state is put back in place, keeping what a copy does not take
                // (a mod's top-level locals, which the game's later turns and its replay
                // read); only when that cannot be done does the game go on with the copy.
                if let Some(kept) = kept
                    && !registry.restore(&kept)
                {
                    *registry = kept;
                }
                Err(ActionError::Script(e))
            }
        }
    }
}

/// Resolves the checked `action` for the current player: the play, recovery or pass, the
/// replacement draw (D6), the turn cap (D23) and the next turn's start.
#[inline(always)]
fn resolve<S: EventSink + ?Sized>(
    state: &mut State,
    registry: &Arc<Registry>,
    action: &Action,
    events: &mut S,
) -> Result<(), EffectError> {
    let player = state.current;
    match action {
        Action::Play { card, from, target, face_on_top } => {
            let card = *card;
            match *from {
                Source::Hand => state.take_from_hand(player, card),
                Source::Table(slot) => state.table[slot] = None,
            }
            events.push(Event::Played { player, card, from: *from });
            let play = Play { player, card, from: *from, target: *target, face_on_top: *face_on_top };
            registry.resolve_play(&mut Context::new(state, registry, events), play)?;
            if !state.is_over() {
                // D6: replacements come after the effect.
                let mut ctx = Context::new(&mut *state, registry, &mut *events);
                if let Some(c) = ctx.draw_card()? {
                    match *from {
                        Source::Hand => {
                            ctx.state.put_in_hand(player, c);
                            ctx.emit(Event::Drew { player, card: c });
                            ctx.react(Moment::Drew { player, card: c, cause: DrawCause::Replacement })?;
                        }
                        Source::Table(slot) => {
                            ctx.state.table[slot] = Some(c);
                            ctx.emit(Event::Refilled { slot, card: c });
                        }
                    }
                }
            }
        }
        Action::Recover { cards, face_on_top } => {
            registry.recover(&mut Context::new(state, registry, events), player, cards, *face_on_top)?
        }
        Action::Pass => events.push(Event::Passed { player }),
        Action::Act { name, target, card } => {
            events.push(Event::Acted { player, name: *name, target: *target, card: *card });
            let mut ctx = Context::new(&mut *state, registry, &mut *events);
            registry.resolve_act(&mut ctx, player, *name, *target, *card)?;
        }
    }
    if state.is_over() {
        return Ok(());
    }
    if registry.reacts(Point::TurnEnded) {
        Context::new(&mut *state, registry, &mut *events).react(Moment::TurnEnded { player })?;
        if state.is_over() {
            return Ok(());
        }
    }
    let cap = state.rules().max_turns;
    if cap > 0 && state.turn >= cap {
        state.outcome = Outcome::Draw;
        events.push(Event::Draw { turns: state.turn });
        return Ok(());
    }
    state.current = if registry.orders_natively() && !state.reversed && state.given.is_none() {
        // The next seat, without a division.
        let next = state.current + 1;
        if next == state.players.len() { 0 } else { next }
    } else {
        Context::new(&mut *state, registry, &mut *events).pass_turn()?
    };
    state.turn += 1;
    let player = state.current;
    events.push(Event::TurnStarted { player, turn: state.turn });
    registry.turn_started(&mut Context::new(state, registry, events), player)
}
