//! What happened: the [`Event`]s that [`apply`](super::Game::apply) returns, in order.
//!
//! Events are facts, not text: the REPL narrates them, the JSON mode prints them, bots and the
//! simulator count them. A [`Event::Drew`] names the card; what another seat may see of it is
//! decided by [`Viewer::sees`](super::Viewer::sees) — one place for every client.
//!
//! [`Game::apply`](super::Game::apply) sends events to an [`EventSink`]: a `Vec<Event>` keeps
//! them, `()` drops them, and a client (the simulator's statistics) may count them.
//!
//! A [`Moment`] is a rule point a mod can hook (`diving.on_draw`, `on_turn_end`, the
//! outcome of a built-in effect: `on_jolt`, `on_quick`, `on_knot` …): the
//! registry's reactions run there, and whatever they change goes through the context and is
//! sent as events like any other.

use super::action::{ActionName, Cards, Seat, Source};
use super::card::Card;
use super::knowledge::{ModId, Words};
use super::rules::Gain;
use super::seats::Seats;

/// One thing that happened during an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A new turn began for `player`.
    TurnStarted { player: Seat, turn: u32 },
    /// `player` played `card`.
    Played { player: Seat, card: Card, from: Source },
    /// The number card matched the discard top by rank or suit and counts double (D8).
    Doubled { player: Seat, card: Card, on: Card, value: u32 },
    /// A diver's depth changed.
    Moved { player: Seat, from: u32, to: u32 },
    /// A diver spent oxygen after a move (D10).
    Breathed { player: Seat, from: u32, to: u32 },
    /// A diver ran out of oxygen and was brought back up (D12).
    Rescued { player: Seat, depth: u32, oxygen: u32 },
    /// `card` was placed in front of `target` (a J, Q or K, or a modded card).
    Placed { player: Seat, target: Seat, card: Card },
    /// A J in front of `player` turned their number card upwards (D13).
    Jolted { player: Seat },
    /// A Q in front of `player` added to their number card (D14).
    Quickened { player: Seat, extra: u32 },
    /// A Quick pushed `target` down (D14).
    Pushed { player: Seat, target: Seat, by: u32 },
    /// A K in front of `player` cancelled the oxygen of this recovery (D16).
    Knotted { player: Seat },
    /// `player` discarded `cards` to recover; oxygen went `from` → `to` (D19).
    Recovered { player: Seat, cards: Cards, gain: Gain, from: u32, to: u32 },
    /// A card went onto the discard pile.
    Discarded { card: Card },
    /// `player` drew `card` into their hand.
    Drew { player: Seat, card: Card },
    /// Table slot `slot` (0-based) was refilled with `card`.
    Refilled { slot: usize, card: Card },
    /// The discards (all but the top) were shuffled into a new deck (D7).
    Reshuffled { cards: usize },
    /// `player` could not act and passed (D22).
    Passed { player: Seat },
    /// `player` took the action a mod registered as `name` (at `target`, or with a `card` of
    /// their hand, when it takes one; a card named so is shown to every seat);
    /// what it did follows as events of its own.
    Acted { player: Seat, name: ActionName, target: Option<Seat>, card: Option<Card> },
    /// `player` took `card` from the discard pile into their hand (an effect's
    /// `ctx:take_discard`): the card was face up, so every viewer sees which.
    TookFromPile { player: Seat, card: Card },
    /// `card` went back into the deck (then shuffled): from `player`'s hand (only they see
    /// which card), or, with no player, a card in play that everyone saw.
    Returned { player: Option<Seat>, card: Card },
    /// The deck was shuffled with the game's seeded RNG (an effect's `ctx:shuffle_deck`, or
    /// after a card went back into it); it holds `cards` cards.
    DeckShuffled { cards: usize },
    /// The direction of play turned round (an effect's `ctx:reverse`): from now on play goes
    /// `backwards` round the table (seat 3, 2, 1 …) or forwards again (D4).
    Reversed { backwards: bool },
    /// `player`'s turn was passed over: the turn went past their seat to a later one (the
    /// turn order in force, or a turn an effect gave).
    Skipped { player: Seat },
    /// `player` moves again: the turn order in force gave them the next turn too.
    AnotherTurn { player: Seat },
    /// A mod's narration: its words, read by a viewer only if it may see every hidden card
    /// the mod knew when it wrote them ([`Viewer::sees`](super::Viewer::sees)).
    Said { by: ModId, words: Words },
    /// Mod `by` showed the table that `card` is in `player`'s hand: public, like every card it
    /// names from then on.
    Revealed { by: ModId, player: Seat, card: Card },
    /// `player` reached the bottom and won (D20), and with them everyone in `winners` (their
    /// team; the divers of a shared win a mod declared, `player` the first of them).
    Won { player: Seat, winners: Seats },
    /// The game ended in a draw after `turns` turns: the turn cap (D23), or a mod said so.
    Draw { turns: u32 },
    /// The teams changed (a mod's `ctx:set_teams`): each seat's team, from 0, in seat order.
    Teams { teams: Vec<u8> },
}

/// Why a card was drawn into a hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawCause {
    /// The replacement for a card played from the hand (D6).
    Replacement,
    /// One of the cards drawn after a recovery (D19).
    Recovery,
    /// An effect or hook drew it (`ctx:draw`).
    Effect,
}

impl DrawCause {
    /// The word a mod reads (`"replacement"`, `"recovery"`, `"effect"`).
    pub fn word(self) -> &'static str {
        match self {
            DrawCause::Replacement => "replacement",
            DrawCause::Recovery => "recovery",
            DrawCause::Effect => "effect",
        }
    }
}

/// Why a diver spent oxygen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreathCause {
    /// A move to a new depth (D10), by whatever moved the diver (`ctx:dive` included).
    Move,
    /// An effect or hook made the diver breathe where they are (`ctx:breathe`).
    Effect,
}

impl BreathCause {
    /// The word a mod reads (`"move"`, `"effect"`).
    pub fn word(self) -> &'static str {
        match self {
            BreathCause::Move => "move",
            BreathCause::Effect => "effect",
        }
    }
}

/// A rule point mods can hook, with what happened there: the registry's reactions to it run
/// right after it (in load order), through the same context as every effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment<'a> {
    /// `player` drew `card` into their hand (not a table refill: nobody draws it).
    Drew { player: Seat, card: Card, cause: DrawCause },
    /// `player` spent oxygen, `from` → `to`, at their depth now.
    Breathed { player: Seat, from: u32, to: u32, cause: BreathCause },
    /// `player` was rescued (after the rescue hook ran).
    Rescued { player: Seat },
    /// The discards were shuffled into a new deck of `cards` cards (D7).
    Reshuffled { cards: usize },
    /// `player` recovered by discarding `cards`, oxygen `from` → `to` (after the cards
    /// drawn in their place).
    Recovered { player: Seat, cards: &'a [Card], gain: Gain, from: u32, to: u32 },
    /// `player`'s turn ends (after their action, before the turn cap and the next turn).
    TurnEnded { player: Seat },
    /// A J in front of `player` turned their number card upwards (D13): they moved up from
    /// depth `from` to `to` (and breathed there). After the J and the card are discarded.
    Jolted { player: Seat, from: u32, to: u32 },
    /// `player`'s number card was a Quick (D14): they moved `from` → `to`, and pushed
    /// `target` down `pushed_from` → `pushed_to` (each breathed). After the Q is discarded.
    Quickened { player: Seat, from: u32, to: u32, target: Seat, pushed_from: u32, pushed_to: u32 },
    /// A K in front of `player` cancelled the oxygen of their recovery with `cards` (D16),
    /// after the cards drawn in their place (before the recovery's own point).
    Knotted { player: Seat, cards: &'a [Card] },
}

impl Moment<'_> {
    /// Which point this is.
    pub fn point(&self) -> Point {
        match self {
            Moment::Drew { .. } => Point::Drew,
            Moment::Breathed { .. } => Point::Breathed,
            Moment::Rescued { .. } => Point::Rescued,
            Moment::Reshuffled { .. } => Point::Reshuffled,
            Moment::Recovered { .. } => Point::Recovered,
            Moment::TurnEnded { .. } => Point::TurnEnded,
            Moment::Jolted { .. } => Point::Jolted,
            Moment::Quickened { .. } => Point::Quickened,
            Moment::Knotted { .. } => Point::Knotted,
        }
    }
}

/// The rule points of [`Moment`], to register a reaction for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    Drew,
    Breathed,
    Rescued,
    Reshuffled,
    Recovered,
    TurnEnded,
    Jolted,
    Quickened,
    Knotted,
}

impl Point {
    pub const ALL: [Point; 9] = [
        Point::Drew,
        Point::Breathed,
        Point::Rescued,
        Point::Reshuffled,
        Point::Recovered,
        Point::TurnEnded,
        Point::Jolted,
        Point::Quickened,
        Point::Knotted,
    ];
}

/// Where [`Game::apply`](super::Game::apply) sends the events of an action, in order. A sink
/// only ever receives the events of an action that succeeded: a refused or failed action
/// sends nothing.
///
/// `Vec<Event>` keeps every event; `()` drops them (the engine then builds none it does not
/// need, since the engine's code is compiled for each sink type).
pub trait EventSink: AsDynSink {
    /// Receives the next event.
    fn push(&mut self, event: Event);
}

/// The same sink as a trait object, for the registry's entries (which take any sink). Every
/// sized [`EventSink`] has it; nothing to implement.
pub trait AsDynSink {
    fn as_dyn(&mut self) -> &mut dyn EventSink;
}

impl<T: EventSink> AsDynSink for T {
    #[inline(always)]
    fn as_dyn(&mut self) -> &mut dyn EventSink {
        self
    }
}

impl EventSink for Vec<Event> {
    #[inline(always)]
    fn push(&mut self, event: Event) {
        Vec::push(self, event);
    }
}

/// Drops every event.
impl EventSink for () {
    #[inline(always)]
    fn push(&mut self, _: Event) {}
}
