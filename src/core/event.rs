//! What happened: the [`Event`]s that [`apply`](super::Game::apply) returns, in order.
//!
//! Events are facts, not text: the REPL narrates them, the JSON mode prints them, bots and the
//! simulator count them. A [`Event::Drew`] names the card; what another seat may see of it is
//! decided by [`Viewer::sees`](super::Viewer::sees) — one place for every client.
//!
//! [`Game::apply`](super::Game::apply) sends events to an [`EventSink`]: a `Vec<Event>` keeps
//! them, `()` drops them, and a client (the simulator's statistics) may count them.

use super::action::{Cards, Seat, Source};
use super::card::Card;
use super::rules::Gain;

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
    /// A mod's narration.
    Said { text: String },
    /// `player` reached the bottom and won (D20).
    Won { player: Seat },
    /// The turn cap was reached: nobody won (D23).
    Draw { turns: u32 },
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
