//! What happened: the [`Event`]s that [`apply`](super::Game::apply) returns, in order.
//!
//! Events are facts, not text: the REPL narrates them, the JSON mode prints them, bots and the
//! simulator count them. A [`Event::Drew`] names the card; clients that show events to other
//! players hide it.

use super::action::{Seat, Source};
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
    Recovered { player: Seat, cards: Vec<Card>, gain: GainText, from: u32, to: u32 },
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

/// A recovery gain as text in events: `+2` or `max`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GainText(pub Gain);

/// What the simulator counts of the events: cards played by rank, rescues and recoveries.
/// [`Game::apply_counted`](super::Game::apply_counted) adds to these instead of recording
/// the events, exactly as counting the [`Event`]s [`Game::apply`](super::Game::apply)
/// returns would.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// [`Event::Played`], by rank (index 0 = ace … 12 = king).
    pub plays: [u32; 13],
    /// [`Event::Rescued`].
    pub rescues: u32,
    /// [`Event::Recovered`].
    pub recoveries: u32,
}

impl EventCounts {
    /// Counts one event.
    #[inline(always)]
    pub fn count(&mut self, event: &Event) {
        match event {
            Event::Played { card, .. } => self.plays[card.rank.number() as usize - 1] += 1,
            Event::Rescued { .. } => self.rescues += 1,
            Event::Recovered { .. } => self.recoveries += 1,
            _ => {}
        }
    }
}

/// Where the engine sends an action's events: the full log, or only their counts (the quiet
/// path of the simulator, which builds no event it does not count).
pub(crate) enum Sink<'a> {
    Log(&'a mut Vec<Event>),
    Counts(&'a mut EventCounts),
}

impl Sink<'_> {
    #[inline(always)]
    pub(crate) fn push(&mut self, event: Event) {
        match self {
            Sink::Log(events) => events.push(event),
            Sink::Counts(counts) => counts.count(&event),
        }
    }

    /// A recovery: the card list is copied only into a full log.
    #[inline(always)]
    pub(crate) fn recovered(&mut self, player: Seat, cards: &[Card], gain: Gain, from: u32, to: u32) {
        match self {
            Sink::Log(events) => {
                events.push(Event::Recovered { player, cards: cards.to_vec(), gain: GainText(gain), from, to })
            }
            Sink::Counts(counts) => counts.recoveries += 1,
        }
    }

    /// Pushes the event `make` builds when `happened`, without a branch on `happened` where
    /// the sink only counts and does not count that event (the compiler drops the test with
    /// the no-op count). For events that happen at random, such as a doubling.
    #[inline(always)]
    pub(crate) fn push_if(&mut self, happened: bool, make: impl FnOnce() -> Event) {
        match self {
            Sink::Log(events) => {
                if happened {
                    events.push(make());
                }
            }
            Sink::Counts(counts) => {
                if happened {
                    counts.count(&make());
                }
            }
        }
    }

    /// The same sink for a shorter borrow.
    #[inline(always)]
    pub(crate) fn reborrow(&mut self) -> Sink<'_> {
        match self {
            Sink::Log(events) => Sink::Log(events),
            Sink::Counts(counts) => Sink::Counts(counts),
        }
    }
}
