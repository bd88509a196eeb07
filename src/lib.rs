//! # Diving Suits — architecture
//!
//! A card race to the bottom of the ocean, built as a small pure rules engine with clients
//! around it. This page is the map: what the parts are, what each owns, the rules they keep,
//! and where to start reading.
//!
//! ## Bird's-eye view
//!
//! ```text
//!   main.rs ── cli ──┬── shell (the terminal, scripts and JSON Lines) ──────────► table
//!                    ├── server (diving host: rooms, lobby, WebSocket) ──► wire ──► table
//!                    ├── join (diving join: the host's terminal client) ──► wire ──► table
//!                    ├── sim (bot games in parallel, statistics, reports, plots)
//!                    └── modkit (check, mod new, mod test: scenarios, then a stress through sim)
//!   table (a seated game: sessions, saves, commands, rendering), sim ──► bots ──► core::View
//!        │                                      ruleset ──► script (Lua sandbox, mods)
//!        └──────────────► core ◄────────────────────┴───────────────┘
//! ```
//!
//! Dependencies point inward only: everything depends on [`core`]; `core` depends on nothing
//! of this crate and names no edge crate; `shell`, `table` and `sim` take plain options and know
//! nothing of the command line; only `cli` names `server`; the host and its clients share
//! only the [`wire`] (no client imports a server module); only `server` and `join` name the
//! network stack (tokio, axum, tungstenite) (checked by `tests/engine/architecture.rs`).
//!
//! ## The core in one paragraph
//!
//! A [`core::Game`] is a [`core::State`] (plain data: divers, piles, table, turn, the direction
//! of play and a turn an effect gave, the teams, the seeded RNG and the per-ruleset
//! [`core::Tables`], which hold the card values every rule reads) and a [`core::Registry`]
//! (what each rank does, every rule marked *(hook)* in the decisions — the structure of the
//! game included: who moves next, what a card is worth, the outcome of each built-in card —
//! and the actions mods add: an
//! [`core::Action::Act`] names its [`core::ActionEntry`] by its inline name, so an action stays
//! `Copy` and is saved, typed and sent without a registry at hand). [`core::Game::moves`] lists what the current
//! seat may do ([`core::Moves`], the single source of legality: `legal_actions`, counts, the
//! random bot's pick and greedy's scan are folds over it, and [`core::Game::check`] asks the
//! same function what a card offers). [`core::Game::apply`] is the one way to change a game: it
//! checks, resolves through the registry and sends [`core::Event`]s to an
//! [`core::EventSink`] (`Vec<Event>`, `()`, or the simulator's counter). Effects and hooks
//! change the state only through [`core::Ctx`], which borrows the state and the registry
//! apart: every change (a dive, a reversal, a card taken from the pile, a shared win) is a
//! checked method that records an event. A result ([`core::Outcome`]) names the winner and
//! everyone who wins with them (a team, a shared win), or a draw. [`core::Viewer`] is the one
//! place that decides what a seat (or a spectator) may see of an event and whose hand, and
//! which of a mod's words it may read (by what the mod knows of hidden cards,
//! [`core::knowledge`]); [`core::View`] is what a bot may see of the state. The shell,
//! the JSON layer and the server all show the game through them.
//!
//! ## Code map
//!
//! - [`core`] — the rules. **Start reading here**: `core/game.rs` (`apply`), then
//!   `core/legal.rs` (`Moves`, `check`), `core/effects.rs` (the registry), `core/builtin.rs`
//!   (the built-in cards and hooks, written once), `core/ctx.rs` (the checked changes, asking
//!   the registry's [`core::Hooks`]), `core/state.rs`. Its files are layered, lowest first:
//!   cards, actions, seats, errors and aims; the state; the context; the built-in cards; the
//!   registry; the listing; the game, forecasts and views. [`core::Rules`] holds every number;
//!   `Default` is the standard ruleset.
//! - [`ruleset`] — TOML files (and the shipped rulesets embedded in the binary) → validated
//!   [`core::Rules`] plus a list of mods; every error names file, line, column and key.
//!   The smoke games of `diving check` live here. A ruleset held in memory
//!   ([`ruleset::bundle`], a player's upload to a host: bounded, named by its SHA-256) is
//!   read by the same reader, confined to its own files (it extends only a shipped ruleset).
//! - [`script`] — Lua (Luau through mlua): the [`script::Sandbox`] all untrusted Lua runs in,
//!   one module per Lua API area, and the mod layer that turns Lua registrations into
//!   registry entries. A handler reaches the game through [`core::Ctx::lend`], never a raw
//!   pointer.
//! - [`bots`] — computer players over a [`core::View`]: `random`, `greedy`, `mcts`, and Lua
//!   bots from `scripts/`.
//! - [`modkit`] — the mod writer's tools: `diving check` (the ruleset read like a compiler
//!   would, smoke games, then a random-play stress with random and greedy bots at every
//!   player count, reporting the first failure with the `diving sim` command that replays it),
//!   `diving mod new` (a starter mod, its ruleset and scenarios) and `diving mod test`
//!   (TOML scenario files on stacked deals, then the same stress).
//! - [`sim`] — `diving sim`: seeded games in parallel, streamed statistics, text/JSON/CSV
//!   reports, SVG plots, paired baseline comparisons; the balance lab: `--sweep`
//!   ([`sim::sweep`]), `diving tune` ([`sim::tune`]) and `diving tournament`
//!   ([`sim::tournament`], Weng-Lin ratings; with several rulesets, every bot under each and
//!   the rulesets ranked by skill versus luck).
//! - [`table`] — the layer between the core and every front end, with no terminal and no
//!   network in it: a seated game ([`table::session::Session`]: log, bots, undo, reload,
//!   branch), command parsing, narration, the board, the JSON scripting contract (the wire
//!   forms of core types live in `table::json`); [`table::save`] — versioned save files, every
//!   one a replay ([`table::record`]: the hashes of rules, mods and every step; [`table::legacy`]
//!   the step hash of format 2, worked out only to read such a recording);
//!   [`table::hint`] — `hint` and `review`, the search bot asked from the mover's view.
//! - [`shell`] — the terminal front end and the script/JSON mode: the line loop, rustyline,
//!   hot-seat gates and secrecy (each player told at their hand-over what happened while they
//!   were away: the table's [`table::notice`]s), the pager, Ctrl-C and Ctrl-Z;
//!   [`shell::autosave`] — every game at the terminal kept on disk as it goes, offered back
//!   and resumed; [`shell::replay`] — `diving replay`, the viewer, its `branch` and its HTML
//!   page.
//! - [`limits`] — every limit on outside input as a named constant, and the bounded readers
//!   every edge reads through: command lines, files (regular files only, a size per kind),
//!   player names, bot specs, `--jobs`. `docs/limits.md` lists them.
//! - [`wire`] — every message between a host and its clients, typed both ways (serde enums
//!   for what clients send, [`wire::ClientMessage`] and [`wire::LobbyMessage`], and what a
//!   host sends, [`wire::ServerMessage`]), written to text in one place; the error codes
//!   ([`wire::Code`]) and close causes ([`wire::Close`]) with their meanings; the versions and
//!   the limits. `PROTOCOL.md` documents it, and a test checks that it documents every message
//!   and code and nothing else. The browser page reads what it needs of it from the host
//!   (`/assets/wire.js`, made from these types).
//! - [`server`] — `diving host`: the authoritative game server. A [`server::room::Room`] is
//!   one game as a state machine without I/O (seats, secret tokens, spectators, target
//!   questions, away bots, chat) that makes every message for its reader through `Viewer`,
//!   `table::json::state_for` and the narrator (a lobby table waits there for its seats, and a
//!   rematch deals the next game with the seats turned); [`server::lobby::Lobby`] is the
//!   lobby as one too (the rulesets offered, the listing — each visitor's own tables first,
//!   with their seat's token listed to them alone —, invite and transfer codes, every decision
//!   about a visitor's message; what needs the rest of the host comes back as a request), with
//!   `server::fair` its counts per address and per player (fair under strangers). The edge:
//!   `server::net` the routes, upgrades, `Origin` check and the [`server::net::Server`];
//!   `server::connection` one loop for every connection, room or lobby (the limits, the
//!   hello deadline, the drop); `server::link` a connection's writer (each message written
//!   once, the close frame saying why); `server::hub` what the connections share (rooms,
//!   lobby, database; delivering a room call's messages; carrying out the lobby's requests;
//!   closing idle tables); `server::keeper` the thread that commits what each room call
//!   changed and only then sends its messages (Ctrl-C and SIGTERM stop it the same way);
//!   `server::db` the host's SQLite database (players by hashed key, tables, every move,
//!   results, Weng-Lin ratings, the rulesets players brought; its schema version; the lock a
//!   running host holds on its directory); [`server::upload`] the rulesets players bring to
//!   the lobby (their bounds, the check as `diving check` does it on a thread of its own
//!   within a deadline, the limits per address and player, what is kept); `server::guard`
//!   its listener (every
//!   connection holds a permit, at most `per_address` of them one address's, and must send
//!   each request in time until it is a WebSocket);
//!   `server::import` an older host's directory (saves, seat files, journal) taken into the
//!   database once, at `--resume`; `server::view` a reader's view (its
//!   observation, its listed moves with their previews — like the shell's, `Session::preview`s
//!   worked out on the seat's `View::sample` —, its question; pushed after every change, and
//!   moves come back as its listed actions); `server::web` the browser page (plain HTML/CSS/JS
//!   embedded in the binary, and the `wire.js` it reads the wire from; kept to WCAG 2.2 AA,
//!   which `tests/server/browser_a11y.rs` checks with axe-core in Chromium).
//! - [`join`] — `diving join`: the host's terminal client (a room's seat or the lobby), over
//!   the [`wire`]; it holds no game and no rule, and prints what the host made for it.
//! - [`cli`] — the clap definition of every option and [`cli::run`], the dispatch to the
//!   client that serves each command; `main.rs` maps errors to exit status 2.
//!
//! ## Glossary
//!
//! One name per concept, across the core, the table, the host, `join` and the page:
//!
//! - **game** — [`core::Game`]: the state and the registry; **observation** —
//!   [`core::Observation`], what one viewer may see of it; **listing** — the legal actions in
//!   the core's order ([`core::Moves`], [`table::Table::listed`]): a **listed move** is named
//!   by its place in it.
//! - **table** — [`table::Table`], a seated game with its one interpreter (the core still
//!   calls its row of face-up cards `table`). **look** — [`table::Look`], how a reader's text
//!   is laid out; **narration** the text of what happened; **board** the drawing of the state;
//!   **words** what Tab completes ([`table::completion::Words`]).
//! - **room** — [`server::room::Room`], a table hosted at `ws://HOST:PORT/ROOM` with its
//!   seats, tokens and readers (the lobby and its page call it a *table* to players);
//!   **seat** — a player's place in it (0-based in code, 1-based on the wire and the screen);
//!   **reader** — a connection joined to a room, a seat's or a spectator's; **lobby** —
//!   [`server::lobby::Lobby`], where rooms are made and found.
//! - **wire** — [`wire`], the messages; **view** — [`wire::server::View`], a reader's
//!   observation with its listed moves, question and card help, pushed after every change
//!   (`seat_view` and `screen` are its older clients' names for parts of it); **display** —
//!   [`wire::Display`], what a terminal client says of itself.
//!
//! ## Architecture invariants
//!
//! Each is checked by the test named after it.
//!
//! - **The core is pure.** It does no I/O, reads no clock or environment, names no edge crate
//!   (terminal, TOML, clap, Lua, serde) and has no `unsafe` code (`#![forbid(unsafe_code)]`).
//!   *`tests/engine/architecture.rs`.*
//! - **No import circle inside a folder.** The files (and sub-folders) of each folder import
//!   one another in layers: no file reaches, through the others, back to itself.
//!   *`tests/engine/architecture.rs` (`no_folder_has_an_import_circle`).*
//! - **One interpreter, under every front end.** Only the table matches on the commands a
//!   person types ([`table::Table::line`]); the shell, the JSON mode, the server and `join`
//!   hand it lines and render its [`table::Reply`]s with [`table::Table::render`], so a
//!   command added there appears in each. What a front end does not offer is the table's
//!   [`table::Policy`]. The server imports nothing from the shell.
//!   *`tests/engine/architecture.rs` (`only_the_table_interprets_commands`,
//!   `the_server_imports_nothing_from_the_shell`).*
//! - **Determinism.** A game owns its seeded ChaCha RNG; every shuffle, reshuffle and mod's
//!   `math.random` comes from it. Same rules, registry, seed and actions ⇒ same events and
//!   state. Bots are seeded and never read the clock; the simulator seeds game `i` from the
//!   run's seed, so built-in bots' totals do not depend on `--jobs`. Lua keeps no state the
//!   game does not: a Lua bot is loaded afresh for every call; a mod's globals belong to its
//!   game — a copy of a game ([`core::Game::clone`], a bot's sample) runs on Lua states of its
//!   own that start with a copy of them (the registry's [`core::Copier`]), listing moves
//!   cannot change them, and [`core::Game::apply`] goes back to them when a mod fails
//!   half-way; the
//!   shell loads a game's mods afresh and `undo`, load and reload replay with fresh ones, and
//!   the simulator reloads mods for every fixed block of games. *`tests/engine/determinism.rs`,
//!   `tests/cli/sim_cli.rs`, `tests/modding/hostile_runtime.rs`, `tests/modding/mod_state.rs`.*
//! - **Every call into Lua is budgeted.** One step budget per call (per thread, shared by
//!   nested calls, charging library work by its size — patterns and `tonumber` included —
//!   and caught errors), a wall-clock limit per call (1 s, shared by nested calls: the one
//!   limit that is not deterministic, reached only by a call already far past what an honest
//!   mod's steps take, so honest games keep their seed), a pool per turn, a memory limit per
//!   mod and a total (judged on what a state holds after a collection, not on its garbage); copies of mod globals stop at 200 tables deep and are charged a step a
//!   value (a copy past a call's budget fails naming the global, and `diving check` reports
//!   it); a search bot's move has a budget of steps of mod work (`bots::SEARCH_STEPS`);
//!   and **one budget per decision** ([`script::decision`]): a command, a listing with its
//!   previews, a browser seat's view, a hint, a bot's move and each game of `check` spend every
//!   call and copy they make from one total (each call and copy charged for what it costs
//!   beyond its steps), and the mods with the copies one decision makes hold at most the mods'
//!   memory total; past either the decision fails naming the mod and what it was doing, the
//!   game unchanged, and bots weigh fewer moves before they would fail. A listed move a mod
//!   fails on while a bot weighs it or a preview shows it is reported to every reader, never
//!   skipped (`table::command::Reply::ModFailed`);
//!   `pairs`/`next` refuse keys ordered by address and `tostring` writes none; nothing a
//!   script does can catch them, and a failure is located from the Lua stack, never from its
//!   message. The server runs each room's work on a blocking thread, never on its async
//!   workers, and stops that work's Lua when it stops. *`tests/modding/hostile_mods.rs` (load time),
//!   `tests/modding/hostile_runtime.rs` (run time), `tests/modding/mod_budget.rs` (decisions),
//!   `tests/server/server_busy.rs`.*
//! - **Refusal changes nothing.** An illegal action, or a replaced entry or hook that fails
//!   half-way, comes back as a typed [`core::ActionError`]; the game is exactly as before
//!   (the mods' Lua state included: `Game::apply` keeps a copy of it while a scripted action
//!   runs) and the sink received nothing. The registry, not its caller, knows which code is built in.
//!   *`tests/engine/registry.rs`, `tests/engine/rules.rs` (every refusal), `tests/engine/proptests.rs`
//!   (any action from arbitrary parts), `tests/modding/hostile_mods.rs`,
//!   `tests/modding/mod_state.rs` (`a_refused_action_leaves_the_games_mod_state_as_it_was`).*
//! - **One listing.** Every fold of [`core::Moves`] (the list, counts, `nth`, each play, a
//!   mod's actions after the recoveries)
//!   agrees with the others and every listed action checks. *`tests/engine/determinism.rs`
//!   (`every_sink_sees_the_same_game`), `tests/engine/properties.rs`, `tests/engine/proptests.rs`,
//!   `core::legal`'s tests (a mod's action), `tests/modding/mod_actions.rs`.*
//! - **Conservation and bounds.** Hands + table + discard + deck + cards in front always hold
//!   52 × decks cards; depth stays in `0..=max_depth`, oxygen in `0..=max_oxygen`; nobody has
//!   two cards of one rank in front (D17); no entry draws a hand past `MAX_HAND_SIZE`, so a
//!   listing names at most 2¹³ recoveries. *`tests/engine/properties.rs` and `tests/engine/proptests.rs`, after every action;
//!   `tests/engine/registry.rs` (`an_entry_cannot_draw_a_hand_past_its_size`).*
//! - **Card behaviour lives in the registry.** The built-in cards, hooks, the recovery with
//!   its Knot half, target refusals and target questions, the turn order and what a card is
//!   worth are the registry's; bots read card values, oxygen costs and gains from
//!   [`core::Tables`], never from the rules, and ask the hooks through a [`core::Forecast`]
//!   when a mod replaced the value, cost, gain or win check. *`tests/engine/registry.rs`,
//!   `tests/engine/architecture.rs`.*
//! - **Nobody sees a hidden card.** No event as a seat or spectator sees it names a card in
//!   another hand or the deck (a card drawn, or put back into the deck from a hand, is shown
//!   whole only to its owner); a bot's [`core::View`] has no accessor for them, and permuting
//!   the hidden cards does not move a bot's choice, nor a hint; a replay, its page and a
//!   review show only what their viewpoint may see.
//! - **A mod's words obey what a seat may see.** What a mod is told of hidden cards (the
//!   mover's hand, a card drawn, a probe, a card it is asked about) is knowledge the core keeps
//!   against it ([`core::knowledge`]) until those cards are visible; every text it writes
//!   (narration, a refusal's reason, a failure's message) is [`core::Words`] with the
//!   [`core::Secret`] it may tell of, read only through [`core::Viewer::read`] (its `Display`
//!   shows a neutral line), so a viewer reads it only if it may see every hidden card the mod
//!   knew. Telling the table is an explicit [`core::Event::Revealed`]; so is an `on_draw`
//!   rank filter's match, shown before the handler runs (whether a mod is told of a card must
//!   not depend on a hidden card: a filter evaluated on one makes its match public). What a
//!   mod chooses besides its words is held with them: the line it fails at, how many lines it
//!   says in a row (one neutral line for a run), what a copy of its globals failed on.
//!   *`tests/modding/mod_secrets.rs` (every hostile case), `tests/modding/audit_leaks.rs` (the
//!   outside audit's cases, as non-interference: a reader's text is the same whatever the
//!   hidden card), `tests/server/mod_secrets_everywhere.rs` (seeded games of every example and
//!   a spying mod, hosted as `join` and the browser seat receive them, hot-seat as text and
//!   JSON, and replayed), `core::knowledge`'s tests.* Outside the core no renderer asks
//!   whether a hand may be seen: it reads [`core::Observation`], whose hands are `None`
//!   where the viewer may not look. *`tests/engine/visibility.rs`,
//!   `tests/engine/architecture.rs` (`only_the_observation_decides_which_hands_are_seen`),
//!   `tests/engine/proptests.rs` (a seat's state and moves with the hidden cards dealt
//!   otherwise), `tests/engine/bots_view.rs`, `tests/cli/replay.rs`.*
//! - **Input is bounded.** Every line, file, name and bot spec from outside is read through
//!   [`limits`], so no input can make `diving` hold more than its limits say, and every refusal
//!   names the file or line. A failed write is an error (exit 2), except a closed pipe.
//!   *`tests/cli/limits.rs`.*
//! - **Outside text cannot drive the terminal.** Text from a save, a ruleset, a mod or the
//!   command line reaches stdout or stderr in text mode only through [`limits::shown`] or
//!   [`limits::quoted`]: control characters escaped, one message bounded, and in the shell
//!   on one line so that it cannot pass for narration (JSON escapes by itself). Long lists
//!   are cut where they are built. *`tests/cli/cli_terminal_safety.rs`.*
//! - **The server is the only authority, and tells each reader only what it may see.** The
//!   game, ruleset and mods run only in the host; a client sends lines and prints what it is
//!   sent (at a terminal, also what Tab completes, [`table::completion::Words`], worked out in
//!   the table for the shell and the host alike). No message to a seat or spectator names a card it could not have seen when the
//!   message was made, nor the seed; bot warnings (which can name a bot's cards) go to the
//!   host's log only. Front ends read a hand only through an observation. The room and the
//!   lobby do no I/O. *`tests/server/server_leaks.rs`, `tests/server/server_net.rs`,
//!   `tests/engine/architecture.rs` (`front_ends_read_no_hand_from_the_game`,
//!   `the_room_and_the_lobby_do_no_io`).*
//! - **The host and its clients share only the wire.** `join` imports no server module, the
//!   wire knows no server, and the page keeps no list of codes or version of its own. Each
//!   message is made whole, typed, and written to text once as it leaves: the host never reads
//!   back or edits what it sent. A move comes back as the listed action (its place in the
//!   listing the reader's view showed, with the state it was listed at; refused as `stale`
//!   once the game moved on), made as listed; every reader is pushed its view with each
//!   change, and nothing asks for one. *`tests/engine/architecture.rs`
//!   (`no_client_imports_a_server_module`, `the_page_reads_the_wire_from_the_host`,
//!   `the_host_never_reads_back_what_it_sent`), `tests/server/server_protocol.rs`
//!   (`protocol_md_documents_every_message_and_code_and_nothing_else`,
//!   `a_listed_move_is_made_as_listed_and_a_stale_one_is_refused`).*
//! - **At a terminal, no move a player saw is lost.** The shell writes the game it keeps
//!   ([`shell::autosave`]) before it shows each change, through a temporary file renamed over
//!   the last one; the history file is written the same way at each line. It is the shell's
//!   business, not the core's nor the simulator's: nothing else pays for it.
//!   *`tests/cli/kept_games.rs`, `tests/cli/tmux.rs` (a real pane closed mid-game).*
//! - **A hot-seat game's save shows no hand outside its hand-overs.** Its file says it was
//!   played hot-seat; opened in a pipe, with `--json` or in `replay` before the game is over it
//!   is watched as a spectator watches, and `--reveal-hands` is written into the file (and
//!   beside the kept game) before any hand is shown, so every player is told.
//!   *`tests/cli/hot_seat_secrets.rs`, `tests/cli/cli_save.rs`.*
//! - **No one is told of a move the host's database does not hold.** Each room call's
//!   changes are committed (WAL, `synchronous=FULL`) before its messages are sent, so a host
//!   killed at any moment resumes with every move and result a client was answered.
//!   *`tests/server/server_crash.rs` (the real host killed with SIGKILL after each answer),
//!   `tests/server/server_net.rs`.*
//!
//! ## Where things are documented
//!
//! - `rulesets/RULES.md` — the rules for players, decisions D1–D24 numbered.
//! - `rulesets/MODDING.md` — the Lua mod API and sandbox, for mod writers.
//! - `scripts/README.md` — Lua bots.
//! - `PROTOCOL.md` — the network protocol of `diving host` / `diving join`, every message.
//! - `README.md` — the front door: the two commands, a first game, friends, house rules.
//! - `docs/` — a page per topic: `playing.md`, `house-rules.md`, `simulator.md` (the balance
//!   lab), `network.md` (the host), `scripting.md` (the JSON contract), `limits.md`,
//!   `development.md` (tests, code map, speed ratios); `PERF.md` — the history of speed work.

pub mod bots;
pub mod cli;
pub mod core;
pub mod join;
pub mod limits;
pub mod modkit;
pub mod ruleset;
pub mod script;
pub mod server;
pub mod shell;
pub mod sim;
pub mod table;
pub mod wire;
