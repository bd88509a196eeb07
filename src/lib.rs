//! # Diving Suits — architecture
//!
//! A card race to the bottom of the ocean, built as a small pure rules engine with clients
//! around it. This page is the map: what the parts are, what each owns, the rules they keep,
//! and where to start reading.
//!
//! ## Bird's-eye view
//!
//! ```text
//!            main.rs ── cli ──┬── repl (REPL, scripts, JSON, save/load)
//!                             ├── sim (parallel bot games, statistics, reports, plots)
//!                             └── ruleset::check
//!   repl, sim ──► bots ──► core::View          ruleset ──► script (Lua sandbox, mods)
//!        │                                          │               │
//!        └──────────────► core ◄────────────────────┴───────────────┘
//! ```
//!
//! Dependencies point inward only: everything depends on [`core`]; `core` depends on nothing
//! of this crate and names no edge crate (checked by `tests/architecture.rs`).
//!
//! ## Code map
//!
//! - [`core`] — the rules. [`core::Game`] holds the state; [`core::Game::legal_actions`] and
//!   [`core::Game::check`] are the single source of legality; [`core::Game::apply`] is the only
//!   way to change a game and returns [`core::Event`]s (its siblings `apply_into`,
//!   `apply_counted` and the `apply_legal_*` fast paths for the simulator resolve through the
//!   same code and differ only in where the events go and whether a bot's listed action is
//!   checked again). Card behaviour and every *(hook)* of the decisions live in the
//!   [`core::Registry`] ([`core::effects`]); the built-in behaviour is just its default entries. [`core::Rules`] holds every number, `Default` = the standard
//!   ruleset. [`core::View`] is what one seat may see. **Start reading here**, at
//!   `core/game.rs`, then `core/effects.rs`.
//! - [`ruleset`] — TOML files (and the shipped rulesets embedded in the binary) → validated
//!   [`core::Rules`] plus a list of mods; every error names file, line, column and key.
//!   `diving check` lives here.
//! - [`script`] — Lua (Luau through mlua): the [`script::Sandbox`] all untrusted Lua runs in,
//!   and the mod layer that turns Lua registrations into registry entries.
//! - [`bots`] — computer players over a [`core::View`]: `random`, `greedy`, `mcts`, and Lua
//!   bots from `scripts/`.
//! - [`sim`] — `diving sim`: seeded games in parallel, streamed statistics, text/JSON/CSV
//!   reports, SVG plots, paired baseline comparisons.
//! - [`repl`] — the game shell: command parsing, narration, the board, the JSON scripting
//!   contract, hot-seat secrecy, undo and reload; [`repl::save`] — versioned save files.
//! - [`cli`] — the clap definition of every option and [`cli::run`], the dispatch to the
//!   client that serves each command; `main.rs` maps errors to exit status 2.
//!
//! ## Architecture invariants
//!
//! - **The core is pure.** It does no I/O, reads no clock or environment, and knows nothing of
//!   terminals, files, TOML, clap or Lua. A Lua handler reaches it only as an implementation of
//!   [`core::Effect`] or a hook closure, and changes a game only through [`core::Ctx`]'s checked
//!   methods.
//! - **Determinism.** A game owns its seeded ChaCha RNG; every shuffle, reshuffle and mod's
//!   randomness comes from it. Same rules, mods, seed and actions ⇒ same events and state on
//!   every machine. Bots are seeded too and never read the clock; the simulator seeds game `i`
//!   from the run's seed, so its totals do not depend on `--jobs`.
//! - **Refusal changes nothing.** An illegal action, or a mod that fails or breaks a sandbox
//!   limit, comes back as a typed [`core::ActionError`] and the game is exactly as before
//!   (`Game` implements `PartialEq`; the tests compare).
//! - **Conservation and bounds.** Hands + table + discard + deck + cards in front always hold
//!   52 × decks cards; depth stays in `0..=max_depth`, oxygen in `0..=max_oxygen`; nobody has
//!   two cards of one rank in front (D17). The property tests check this after every action.
//! - **No rules outside the core.** The REPL, bots and simulator ask the core what is legal;
//!   the REPL only turns text into [`core::Action`]s and events into text.
//! - **Bots cannot peek.** A bot receives a [`core::View`], which has no accessor for other
//!   hands or the deck order; a test permutes the hidden cards and checks choices do not move.
//!
//! ## Where things are documented
//!
//! - `rulesets/RULES.md` — the rules for players, decisions D1–D24 numbered.
//! - `rulesets/MODDING.md` — the Lua mod API and sandbox, for mod writers.
//! - `scripts/README.md` — Lua bots.
//! - `README.md` — playing, house rules, scripting contract, simulator, measured speed.

pub mod bots;
pub mod cli;
pub mod core;
pub mod repl;
pub mod ruleset;
pub mod script;
pub mod sim;
