//! The rules engine: pure, deterministic, and the only place the rules live.
//!
//! It knows nothing of terminals, files, TOML or Lua: it takes [`Rules`], a [`Registry`] of
//! card effects and hooks, and a [`Setup`], and then changes a [`Game`] only through
//! [`Game::apply`]. Start reading at [`game`].

pub mod action;
pub mod card;
pub mod effects;
pub mod event;
pub mod game;
pub mod rules;
pub mod view;

pub use action::{Action, ActionError, Cards, Seat, Source, cards_in_mask};
pub use card::{Card, CardParseError, Rank, Suit, full_deck, parse_cards};
pub use effects::{Aim, Effect, EffectError, Play, Registry, Seats};
pub use event::{Event, EventCounts};
pub use game::{ClassOffers, Ctx, Game, Offer, Outcome, Playable, Player, Setup, SetupError};
pub use rules::{Band, Gain, Rules, RulesError, SuitPattern};
pub use view::{Diver, View};
