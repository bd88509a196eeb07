//! The table: a seated game between the core and every front end, with no terminal and no
//! network in it. The terminal shell ([`crate::shell`]), the JSON mode and the game server
//! ([`crate::server`]) are front ends of it.
//!
//! Code map: [`command`] the one interpreter ([`Table`]: a typed command from a
//! [`Caller`] in, typed [`Reply`]s out, under the front end's [`Policy`]); [`reply`] what a
//! reply says to one reader (JSON objects and text, for its `Viewer` and [`Look`]);
//! [`session`] a game with its log, bots, undo, reload, branch and save data; [`notice`] what
//! happened to it besides its moves (a save, a reload …), which every player is told;
//! [`parse`] text → command; [`render`] state and events → text; [`json`] the JSON contract;
//! [`save`] the versioned save files (every save is a replay); [`record`] what a replay records
//! of rules, mods and steps (and [`legacy`] the step hash of format 2, for reading it); [`hint`] `hint` and `review`; [`help`] the help texts; [`replay`] a recorded game seen
//! from one viewpoint, and [`html`] its page; [`seating`]
//! who sits at a table; [`completion`] what Tab completes for one reader.

pub mod command;
pub mod completion;
pub mod help;
pub mod hint;
pub mod html;
pub mod json;
pub mod legacy;
pub mod notice;
pub mod parse;
pub mod record;
pub mod render;
pub mod replay;
pub mod reply;
pub mod save;
pub mod seating;
pub mod session;

pub use command::{Caller, Policy, Question, Reply, Table};
pub use reply::{Look, Rendered};
