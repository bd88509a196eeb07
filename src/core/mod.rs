//! The rules engine: pure, deterministic, and the only place the rules live.
//!
//! It knows nothing of terminals, files, TOML, JSON or Lua. A [`Game`] is a [`State`] (plain
//! data) and a [`Registry`] (what cards and hooks do); [`Game::moves`] says what is legal,
//! [`Game::apply`] is the one way to change a game, and [`Viewer`] decides what a seat may
//! see. Start reading at [`game`], then [`legal`] and [`effects`].

#![forbid(unsafe_code)]

pub mod action;
pub mod aim;
pub mod builtin;
pub mod card;
pub mod ctx;
pub mod effects;
pub mod error;
pub mod event;
pub mod forecast;
pub mod game;
pub mod knowledge;
pub mod legal;
pub mod observation;
pub mod rules;
pub mod seats;
pub mod state;
pub mod tables;
pub mod view;
pub mod visibility;

pub use action::{Action, ActionError, ActionName, BadActionName, Cards, Play, Seat, Source, cards_in_mask};
pub use aim::Aim;
pub use builtin::Pending;
pub use card::{Card, CardParseError, Rank, Suit, full_deck, parse_cards};
pub use ctx::{Context, Hooks};
pub use effects::{ActionArg, ActionEntry, ActionRule, Copier, Ctx, Effect, Lent, Planning, Registry};
pub use error::EffectError;
pub use event::{BreathCause, DrawCause, Event, EventSink, Moment, Point};
pub use forecast::Forecast;
pub use game::Game;
pub use knowledge::{Hidden, Knowledge, Learned, ModId, Secret, Told, Words};
pub use legal::{Moves, Playable};
pub use observation::{Observation, SeenDiver};
pub use rules::{
    Band, DealShape, Gain, MAX_CARD_VALUE, MAX_HAND_SIZE, MAX_PLAYERS, MAX_TABLE_SIZE, MIN_PLAYERS, Rules, RulesError,
    STANDARD_VALUES, SuitPattern, TeamRule,
};
pub use seats::Seats;
pub use state::{Outcome, Player, Setup, SetupError, State, Teams};
pub use tables::Tables;
pub use view::{Diver, View};
pub use visibility::{Seen, Viewer};
