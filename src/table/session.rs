//! A game in progress as the shell keeps it: the setup it started from, the [`Game`], every
//! action with the events it caused, the bots, undo, reload, and conversion to and from a
//! save file (which is also the replay file: see [`Session::load`]).
//!
//! A branch of another game ([`Session::branch`]) starts from that game's setup with its
//! first moves played (and, unless every hand was open, the deck shuffled anew); its own
//! history holds only the moves after the branch point.
//!
//! The session always deals from an explicit deck (a stacked one, or the seed's shuffle made
//! here), so replaying the action log from the setup reproduces the game exactly; undo,
//! reload and load are all built on that. Bots are rebuilt for every move with a seed drawn
//! from the game's seed, the turn and the seat, so a bot plays the same move in a replayed,
//! reloaded or resumed game as it did the first time.

use std::path::Path;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::bots;
use crate::core::{
    Action, ActionError, Card, Event, Game, Registry, Rules, Seat, Setup, Source, View, Viewer, Words, full_deck,
};
use crate::limits::{self, BotSpec};
use crate::ruleset::Ruleset;
use crate::table::notice::{Happening, Notice};
use crate::table::save::{self, BranchRecord, SaveError, SaveFile, SavedPlayer};
pub use crate::table::seating::Seating;
use crate::table::{json, record, render};

/// Turns after which a game in which every seat is a bot ends in a draw, when the ruleset has
/// no turn limit of its own (D23): such a game has nobody to stop it.
pub const BOT_GAME_TURNS: u32 = 1000;
/// Lines of mod narration (`ctx:say`) one game keeps; later lines are left out of the log.
pub const MAX_GAME_SAID_LINES: usize = 5000;
/// Bytes of mod narration one game keeps.
pub const MAX_GAME_SAID_BYTES: usize = 512 * 1024;
/// The seed of the game a preview is worked out on ([`Session::preview`]), mixed with the turn:
/// independent of the real game's seed, deck order and generator.
const PREVIEW_SEED: u64 = 0x5EA7;

/// One action taken, with who took it and what it caused. The game before it is not kept:
/// the game is deterministic, so undo rebuilds it by replaying the actions from the setup
/// (a move costs its action and events, a few hundred bytes, not a copy of the game).
#[derive(Debug, Clone)]
pub struct Entry {
    pub seat: Seat,
    pub action: Action,
    pub events: Vec<Event>,
    /// [`record::step_hash`] of this move: what a replay of it must give.
    pub step: u64,
}

/// A move that `undo` took back, as the shell shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undone {
    pub seat: Seat,
    /// The command that played it (`play 7H`), written for the game it was played in.
    pub command: String,
}

/// A move a bot made.
#[derive(Debug, Clone)]
pub struct BotMove {
    pub seat: Seat,
    pub action: Action,
    pub events: Vec<Event>,
    /// Set when the bot failed or chose an illegal move and a fallback move was played, or
    /// did less than it would (for the host's log).
    pub warning: Option<String>,
    /// A mod's failure on a listed move, found while the bot weighed or played it, not yet
    /// reported in this game: what was being done, and the failure (for every reader).
    pub failure: Option<(String, crate::core::EffectError)>,
}

/// What `reload` found when it replayed the game under the re-read ruleset.
#[derive(Debug, Clone)]
pub enum Reload {
    /// Every action gave the same events.
    Identical { moves: usize },
    /// Action `index` (0-based), written `command`, gave other events; the replay went on to
    /// the end.
    Changed { index: usize, seat: Seat, command: String, old: Vec<Event>, new: Vec<Event> },
    /// Action `index` is no longer legal; the game now stands just before it.
    Illegal { index: usize, seat: Seat, action: Action, reason: String },
}

/// A game with its history.
pub struct Session {
    spec: String,
    ruleset: Ruleset,
    bots: Vec<Option<String>>,
    /// Each bot seat's bot, built when it first moves and kept: before each move it is
    /// reseeded with that move's seed ([`bots::Bot::start_game`]), so it plays exactly as a bot
    /// built for the move would. Lua bots are built for each move, as their file may change.
    built: Vec<Option<Box<dyn bots::Bot>>>,
    setup: Setup,
    game: Game,
    /// What the game's opening did, before any action: the first turn's start and what its
    /// turn-start hooks did (a mod's narration on turn 1 included).
    opening: Vec<Event>,
    entries: Vec<Entry>,
    /// The moves (indices into `entries`, ascending) the stand-in bot made for away seats;
    /// kept apart so that an entry stays small (the undo history holds one per move).
    stand_ins: Vec<usize>,
    /// Counts changes to the game, to tell whether it was saved since.
    version: u64,
    saved_version: Option<u64>,
    /// Where this game branched off another one (its setup is that game's).
    branch: Option<BranchRecord>,
    /// Whether `hint` and a running game's `review` may be used (`--no-hints` turns it off).
    hints: bool,
    /// Several people play this game at one terminal (kept in its saves: such a save opens
    /// only behind the hand-overs, or showing no hand).
    hot_seat: bool,
    /// What happened to the game besides its moves, for every player to be told.
    notices: Vec<Notice>,
    /// The mod failures told to the table in this game (by what everyone reads of them), so
    /// that each is told once.
    reported: Vec<String>,
}

/// A saved game loaded for play or replay, with what the loader noticed (a ruleset or mod
/// that differs from the recorded one although every move replays as recorded).
pub struct Loaded {
    pub session: Session,
    pub notes: Vec<String>,
}

impl Session {
    /// Starts a game: `spec` names the ruleset, `deck` (top first) is a stacked deck, else the
    /// seed's shuffle.
    pub fn new(spec: &str, seating: Vec<Seating>, seed: u64, deck: Option<Vec<Card>>) -> Result<Session, String> {
        Session::starting(spec, seating, seed, deck, None)
    }

    /// [`Session::new`], starting where `branch` says (its moves played from the setup, the
    /// deck then shuffled with its seed, if it has one).
    fn starting(
        spec: &str,
        seating: Vec<Seating>,
        seed: u64,
        deck: Option<Vec<Card>>,
        branch: Option<BranchRecord>,
    ) -> Result<Session, String> {
        let ruleset = Ruleset::load(spec).map_err(|e| format!("cannot load ruleset '{spec}': {e}"))?;
        let registry = ruleset.registry().map_err(|e| format!("cannot load ruleset '{spec}': {e}"))?;
        let deck = deck.unwrap_or_else(|| {
            let mut deck = full_deck(ruleset.rules.decks_for(seating.len()));
            deck.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
            deck
        });
        let setup = Setup { names: seating.iter().map(|s| s.name.clone()).collect(), seed, deck: Some(deck) };
        let bots: Vec<Option<String>> = seating.into_iter().map(|s| s.bot).collect();
        let (game, opening) = open_game(rules_for(&ruleset, &bots), registry, &setup, branch.as_ref())?;
        Ok(Session {
            spec: spec.to_string(),
            ruleset,
            built: bots.iter().map(|_| None).collect(),
            reported: Vec::new(),
            bots,
            setup,
            opening,
            game,
            entries: Vec::new(),
            stand_ins: Vec::new(),
            version: 0,
            saved_version: None,
            branch,
            hints: true,
            hot_seat: false,
            notices: Vec::new(),
        })
    }

    /// A new game that goes on from this one as it stood after its first `moves` moves, with
    /// the same players. With `reshuffle`, the deck (the cards not yet drawn) is shuffled
    /// with that seed, so nobody who saw how the game went on knows what comes next;
    /// without it the deck stays as it was (for a game seen with every hand open).
    pub fn branch(&self, moves: usize, reshuffle: Option<u64>) -> Result<Session, String> {
        if moves > self.entries.len() {
            return Err(format!("the game has only {} moves", self.entries.len()));
        }
        let mut prefix = self.branch.as_ref().map(|b| b.moves.clone()).unwrap_or_default();
        if moves > 0
            && let Some(BranchRecord { seed: Some(_), .. }) = &self.branch
        {
            // A branch of a reshuffled branch: the earlier shuffle must stay where it was.
            return Err("this game is a branch with a reshuffled deck: it can be branched only at its start".into());
        }
        prefix.extend(self.entries[..moves].iter().map(|e| e.action));
        let seed = match (reshuffle, &self.branch) {
            (None, Some(b)) => b.seed,
            (seed, _) => seed,
        };
        let seating = self.seating();
        let mut session = Session::starting(
            &self.spec,
            seating,
            self.setup.seed,
            self.setup.deck.clone(),
            Some(BranchRecord { moves: prefix, seed }),
        )?;
        session.hints = self.hints;
        Ok(session)
    }

    /// The players as they were seated: names and bot specs.
    pub fn seating(&self) -> Vec<Seating> {
        self.game
            .names()
            .iter()
            .zip(&self.bots)
            .map(|(name, bot)| Seating { name: name.clone(), bot: bot.clone() })
            .collect()
    }

    /// Where this game branched off another one, if it did.
    pub fn branched_from(&self) -> Option<&BranchRecord> {
        self.branch.as_ref()
    }

    /// Whether hints (`hint`, and `review` while the game runs) are on for this game.
    pub fn hints(&self) -> bool {
        self.hints
    }

    /// Turns hints on or off for this game (`--no-hints`); a save keeps it.
    pub fn set_hints(&mut self, on: bool) {
        self.hints = on;
    }

    /// Whether several people play this game at one terminal (or did, when it was saved).
    pub fn hot_seat(&self) -> bool {
        self.hot_seat
    }

    /// Marks the game as played hot-seat; its saves keep it so.
    pub fn set_hot_seat(&mut self, on: bool) {
        self.hot_seat = on;
    }

    /// What happened to the game besides its moves, in order.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// Keeps a notice of `what`, done by `by` (told to them at once), in the turn being
    /// played; past [`limits::MAX_SAVED_MOVES`] notices the oldest is let go.
    pub fn note(&mut self, by: Option<Seat>, what: Happening) {
        self.take_in(Notice { turn: self.game.turn(), by, what, told: by.into_iter().collect() });
    }

    /// Keeps `notice` (one recorded elsewhere, such as by the program that opened a save of
    /// this game), unless the same happening is kept already.
    pub fn take_in(&mut self, notice: Notice) {
        if self.notices.iter().any(|n| n.same(&notice)) {
            return;
        }
        if self.notices.len() == limits::MAX_SAVED_MOVES {
            self.notices.remove(0);
        }
        self.notices.push(notice);
    }

    /// The notices `seat` was not told yet, now counted as told.
    pub fn untold(&mut self, seat: Seat) -> Vec<Notice> {
        let mut out = Vec::new();
        for notice in &mut self.notices {
            if !notice.told.contains(&seat) {
                notice.told.push(seat);
                out.push(notice.clone());
            }
        }
        out
    }

    /// What tells this game from every other: its setup (seed, deck, players, where it
    /// branched), as 16 hex digits. Every save of a game, and the game resumed from any of
    /// them, has the same key.
    pub fn key(&self) -> String {
        let setup = serde_json::json!({
            "seed": self.setup.seed,
            "deck": self.initial_deck().iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            "players": self.game.names(),
            "bots": self.bots,
            "branch": self.branch,
        });
        format!("{:016x}", crate::ruleset::fnv1a64(setup.to_string().as_bytes()))
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The ruleset as the user named it.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    pub fn ruleset(&self) -> &Ruleset {
        &self.ruleset
    }

    /// The bot spec behind each seat (`None` for a human).
    pub fn bots(&self) -> &[Option<String>] {
        &self.bots
    }

    pub fn is_bot(&self, seat: Seat) -> bool {
        self.bots.get(seat).is_some_and(Option::is_some)
    }

    /// How many seats people play.
    pub fn humans(&self) -> usize {
        self.bots.iter().filter(|b| b.is_none()).count()
    }

    pub fn seed(&self) -> u64 {
        self.setup.seed
    }

    /// The deck before the deal, top first.
    pub fn initial_deck(&self) -> &[Card] {
        self.setup.deck.as_deref().unwrap_or_default()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Whether `recorded` (a step hash as a file writes it) is move `index`'s canonical hash.
    pub fn replays(&self, index: usize, recorded: &str) -> bool {
        self.entries.get(index).is_some_and(|e| record::step_text(e.step) == recorded)
    }

    /// The game just before each move, in order, rebuilt by replaying the moves from the setup
    /// with this game's rules and freshly loaded mods (the history keeps actions, not games).
    pub fn games_before_moves(&self) -> Result<Vec<Game>, String> {
        let registry = self.ruleset.registry().map_err(|e| format!("the game does not replay: {e}"))?;
        let mut game =
            open_game(std::sync::Arc::clone(self.game.rules_arc()), registry, &self.setup, self.branch.as_ref())
                .map_err(|e| format!("the game does not replay: {e}"))?
                .0;
        let mut before = Vec::with_capacity(self.entries.len());
        for (i, entry) in self.entries.iter().enumerate() {
            before.push(game.clone());
            game.apply(&entry.action, &mut ()).map_err(|e| format!("move {} does not replay: {e}", i + 1))?;
        }
        Ok(before)
    }

    /// The events of the game's start: the first turn beginning, and what the turn-start
    /// hooks did on it.
    pub fn start_events(&self) -> Vec<Event> {
        self.opening.clone()
    }

    /// A count of the changes to the game (moves, undo, reload): it moves whenever the game
    /// does.
    pub fn changes(&self) -> u64 {
        self.version
    }

    /// Whether the game changed since it was last saved (or started).
    pub fn is_dirty(&self) -> bool {
        self.saved_version != Some(self.version) && !self.entries.is_empty()
    }

    pub fn mark_saved(&mut self) {
        self.saved_version = Some(self.version);
    }

    /// Plays `action` for the current player; a refused action changes nothing, the mods'
    /// Lua variables included ([`Game::apply`] goes back to them when a mod fails half-way),
    /// so what a handler changed before it failed is not kept (a replay of the saved moves
    /// never runs it).
    pub fn apply(&mut self, action: Action) -> Result<&[Event], ActionError> {
        let seat = self.game.current();
        let mut events = Vec::new();
        self.game.apply(&action, &mut events)?;
        let events = keep_narration(&self.entries, events);
        let step = record::step_hash(&self.game, &self.bots, &events);
        self.stand_ins.retain(|&i| i < self.entries.len());
        self.entries.push(Entry { seat, action, events, step });
        self.version += 1;
        Ok(&self.entries.last().expect("just pushed").events)
    }

    /// Marks the last move as made by the stand-in bot for a seat whose person is away:
    /// narration tells it as the bot's ([`Session::by_stand_in`]). Not saved: a resumed game
    /// tells its earlier moves as the seat's.
    pub fn mark_stand_in(&mut self) {
        if let Some(last) = self.entries.len().checked_sub(1) {
            self.stand_ins.push(last);
        }
    }

    /// Whether the stand-in bot made move `index` (0-based) for an away seat.
    pub fn by_stand_in(&self, index: usize) -> bool {
        index < self.entries.len() && self.stand_ins.binary_search(&index).is_ok()
    }

    /// What `action` would cause if the current player took it now, as far as that player
    /// can know, without taking it: the engine applies it to a game made of what the seat
    /// can see, with the cards it cannot see dealt at random and a random-number generator of
    /// its own ([`View::sample`]). So a preview never depends on a hidden card, nor tells how
    /// a mod's random roll will come out: the real game's deck order and generator are not in
    /// the copy. The copy runs on Lua states of its own with a copy of the mods' globals, so
    /// a mod's variables do not move on for a move nobody made. The engine's refusal when
    /// the action is refused there, or fails in a mod (which the caller reports: a listed
    /// action a mod fails on is never hidden).
    pub fn preview(&self, action: &Action) -> Result<Vec<Event>, ActionError> {
        let seat = self.game.current();
        let mut copy = View::new(&self.game, seat).sample(PREVIEW_SEED ^ u64::from(self.game.turn()));
        let mut events = Vec::new();
        copy.apply(action, &mut events)?;
        Ok(events)
    }

    /// If a bot is to move, lets it move. A bot that fails or picks an illegal action is
    /// replaced for this move by the first legal action that applies (with a warning). `Err`
    /// only when no legal action can be applied at all (a broken mod).
    pub fn bot_move(&mut self) -> Option<Result<BotMove, String>> {
        if self.game.is_over() {
            return None;
        }
        let seat = self.game.current();
        let spec = self.bots.get(seat)?.clone()?;
        let name = self.game.name(seat).to_string();
        let seed = bot_seed(self.setup.seed, self.game.turn(), seat);
        let (bot, keep) = match self.built.get_mut(seat).and_then(Option::take) {
            Some(mut bot) => {
                bot.start_game(seed);
                (Ok(bot), true)
            }
            None => (bots::from_spec(&spec, seed), !matches!(limits::parse_bot_spec(&spec), Ok(BotSpec::Lua(_)))),
        };
        let mut note = None;
        let choice = bot.and_then(|mut bot| {
            // The bot's move has its own budget of mod work, apart from the command that set
            // it off ([`crate::script::decision`]).
            let decision = self.game.registry().keeps_state().then(|| {
                crate::script::decide_apart(format!("{spec}'s move for {name}"), crate::script::decision::BOT_STEPS)
            });
            let choice = bot.choose(&View::new(&self.game, seat));
            note = bot.note().map(|n| format!("bot {name}: {n}"));
            drop(decision);
            if keep && let Some(slot) = self.built.get_mut(seat) {
                *slot = Some(bot);
            }
            choice
        });
        let mut warning = None;
        let mut failure = None;
        if let Ok(action) = &choice {
            match self.apply(*action) {
                Ok(events) => {
                    let events = events.to_vec();
                    return Some(Ok(BotMove { seat, action: *action, events, warning: note, failure }));
                }
                Err(ActionError::Script(e)) => {
                    let told = told_move(&self.game, action);
                    failure = self.unreported(format!("on {told}, played by bot {name}"), e);
                    warning = Some(format!("bot {name} chose {told}, which a mod failed on"));
                }
                Err(e) => {
                    // Every reader is warned: a move that shows a card of the bot's hand (a
                    // play from it, a recovery, an action on one of its cards) is not named,
                    // nor why it was refused, which names the card as often as not.
                    let told = told_move(&self.game, action);
                    warning = Some(if shows_hand(action) {
                        format!("bot {name} chose {told}, which is refused")
                    } else {
                        format!(
                            "bot {name} chose {told}, which is refused: {}",
                            render::action_error(&self.game, &e, Viewer::Spectator)
                        )
                    });
                }
            }
        }
        match choice {
            Err(bots::BotError::ModFailed { name: bot, action, error }) => {
                let told = told_move(&self.game, &action);
                failure = self.unreported(format!("on {told}, while bot {bot} weighed it for {name}"), error);
                warning = Some(format!("bot {name} found a listed move a mod fails on"));
            }
            Err(e) => warning = Some(format!("bot {name} failed: {e}")),
            Ok(_) => {}
        }
        let mut last_error = String::new();
        for action in self.game.legal_actions() {
            let text = render::command_for(&self.game, &action);
            match self.apply(action) {
                Ok(events) => {
                    let events = events.to_vec();
                    let warning = warning.map(|w| format!("{w}; it plays '{text}' instead"));
                    return Some(Ok(BotMove { seat, action, events, warning, failure }));
                }
                Err(e) => last_error = render::action_error(&self.game, &e, Viewer::Spectator),
            }
        }
        Some(Err(format!("{name} cannot move: no legal action can be played ({last_error})")))
    }

    /// `error`, a mod's failure `what` (`on 'play 7H', played by bot greedy`), unless a
    /// failure at the same place was reported already in this game: a failing mod is told to
    /// the table once a game, not at every move of a bot that meets it.
    fn unreported(
        &mut self,
        what: String,
        error: crate::core::EffectError,
    ) -> Option<(String, crate::core::EffectError)> {
        let place = error.to_string();
        if self.reported.contains(&place) {
            return None;
        }
        self.reported.push(place);
        Some((what, error))
    }

    /// Takes back the last move of a person, and every bot move after it.
    ///
    /// With `secret` (a person at a terminal, who must not see hidden cards), undo is refused
    /// when it would let someone choose again knowing a card they could not have known: once
    /// the game is over (every hand was shown), and once the moves to take back turned up a
    /// card from the deck (a draw or a table refill: playing again would draw the same card)
    /// or showed a card from a bot's hand (a bot's play or recovery from its hand). Scripts,
    /// which see every card anyway, undo freely.
    pub fn undo(&mut self, secret: bool) -> Result<Vec<Undone>, String> {
        if secret && self.game.is_over() {
            return Err("the game is over and every hand has been shown: undo cannot reopen it \
                 (type 'again' for a new game)"
                .into());
        }
        let Some(from) = self.entries.iter().rposition(|e| !self.is_bot(e.seat)) else {
            return Err("nothing to undo".into());
        };
        if secret && let Some(reason) = self.entries[from..].iter().find_map(|e| self.revealed(e)) {
            return Err(format!("cannot undo: {reason}, so you would choose again knowing it (see 'help undo')"));
        }
        // Replayed from the setup with freshly loaded mods, not copied from before the move:
        // the game is deterministic, so only the actions are kept, and a mod's Lua variables
        // went on counting after the move; the game must be what a save file of it replays to.
        let (game, entries) = self.replay(&self.entries[..from])?;
        // The moves taken back, written for the game each was played in.
        let mut after = game.clone();
        let mut undone = Vec::new();
        for entry in &self.entries[from..] {
            undone.push(Undone { seat: entry.seat, command: render::command_for(&after, &entry.action) });
            if after.apply(&entry.action, &mut ()).is_err() {
                break;
            }
        }
        self.game = game;
        self.entries = entries;
        self.version += 1;
        Ok(undone)
    }

    /// What a move showed that was hidden before it, if anything: why it cannot be taken
    /// back in front of people.
    fn revealed(&self, entry: &Entry) -> Option<String> {
        let bot = self.is_bot(entry.seat);
        entry.events.iter().find_map(|ev| match ev {
            Event::Drew { .. } => Some("a card was drawn from the deck since".to_string()),
            Event::Refilled { .. } => Some("a table slot was refilled from the deck since".to_string()),
            Event::Played { card, from: crate::core::Source::Hand, .. } if bot => {
                Some(format!("{} played {card} from its hand since", self.game.name(entry.seat)))
            }
            Event::Recovered { .. } if bot => {
                Some(format!("{} showed cards from its hand since", self.game.name(entry.seat)))
            }
            _ => None,
        })
    }

    /// The game `entries` make from the setup, with freshly loaded mods.
    fn replay(&self, entries: &[Entry]) -> Result<(Game, Vec<Entry>), String> {
        let replay_failed = |e: String| format!("cannot undo: the game does not replay ({e})");
        let registry =
            self.ruleset.registry().map_err(|e| replay_failed(format!("cannot load the ruleset again: {e}")))?;
        let (mut game, _) =
            open_game(rules_for(&self.ruleset, &self.bots), registry, &self.setup, self.branch.as_ref())
                .map_err(replay_failed)?;
        let mut replayed = Vec::with_capacity(entries.len());
        for (i, old) in entries.iter().enumerate() {
            let seat = game.current();
            let mut events = Vec::new();
            game.apply(&old.action, &mut events).map_err(|e| {
                replay_failed(format!(
                    "move {} cannot be played again: {}",
                    i + 1,
                    render::action_error(&game, &e, Viewer::Spectator)
                ))
            })?;
            let events = keep_narration(&replayed, events);
            let step = record::step_hash(&game, &self.bots, &events);
            replayed.push(Entry { seat, action: old.action, events, step });
        }
        Ok((game, replayed))
    }

    /// Re-reads the ruleset (same spec) and replays every action under it; keeps the new game.
    pub fn reload(&mut self) -> Result<Reload, String> {
        let spec = self.spec.clone();
        let ruleset = Ruleset::load(&spec).map_err(|e| format!("cannot reload ruleset '{spec}': {e}"))?;
        let registry = ruleset.registry().map_err(|e| format!("cannot reload ruleset '{spec}': {e}"))?;
        let (mut game, opening) =
            open_game(rules_for(&ruleset, &self.bots), registry, &self.setup, self.branch.as_ref())
                .map_err(|e| format!("the reloaded ruleset cannot start this game: {e}"))?;
        let mut entries = Vec::with_capacity(self.entries.len());
        let mut report = Reload::Identical { moves: self.entries.len() };
        for (index, old) in self.entries.iter().enumerate() {
            let seat = game.current();
            let unchanged_so_far = matches!(report, Reload::Identical { .. });
            let command = if unchanged_so_far { render::command_for(&game, &old.action) } else { String::new() };
            let mut events = Vec::new();
            match game.apply(&old.action, &mut events) {
                Ok(()) => {
                    let events = keep_narration(&entries, events);
                    if unchanged_so_far && (events != old.events || seat != old.seat) {
                        report = Reload::Changed { index, seat, command, old: old.events.clone(), new: events.clone() };
                    }
                    let step = record::step_hash(&game, &self.bots, &events);
                    entries.push(Entry { seat, action: old.action, events, step });
                }
                Err(e) => {
                    let reason = render::action_error(&game, &e, Viewer::Spectator);
                    report = Reload::Illegal { index, seat, action: old.action, reason };
                    break;
                }
            }
        }
        self.ruleset = ruleset;
        self.game = game;
        self.opening = opening;
        self.entries = entries;
        self.version += 1;
        Ok(report)
    }

    /// The game as a save file.
    pub fn to_save(&self) -> SaveFile {
        // A ruleset named by a relative path is saved as an absolute one, so the save can be
        // loaded from anywhere.
        let ruleset = match std::fs::canonicalize(&self.spec) {
            Ok(path) if Path::new(&self.spec).is_file() => path.to_string_lossy().into_owned(),
            _ => self.spec.clone(),
        };
        SaveFile {
            version: save::VERSION,
            kind: save::KIND.into(),
            ruleset,
            rules_hash: Some(record::rules_hash(&self.ruleset)),
            mods: Some(self.ruleset.mod_set()),
            seed: self.setup.seed,
            players: self
                .game
                .names()
                .iter()
                .zip(&self.bots)
                .map(|(name, bot)| SavedPlayer { name: name.clone(), bot: bot.clone() })
                .collect(),
            deck: self.initial_deck().to_vec(),
            branch: self.branch.clone(),
            actions: self.entries.iter().map(|e| e.action).collect(),
            steps: self.entries.iter().map(|e| record::step_text(e.step)).collect(),
            no_hints: !self.hints,
            hot_seat: self.hot_seat,
            notices: self.notices.clone(),
            state: json::state(&self.game, &self.bots).to_value(),
        }
    }

    /// Resumes a saved game ([`Session::load`] without its notes).
    pub fn from_save(file: SaveFile, path: &Path, ruleset: Option<&str>) -> Result<Session, SaveError> {
        Session::load(file, path, ruleset).map(|loaded| loaded.session)
    }

    /// Loads a saved game (every save is a replay): replays its actions from its setup and
    /// checks every step against the recorded step hashes, then the final state against the
    /// saved one. `ruleset` overrides the ruleset named in the file. The players are checked
    /// first, as `--players` checks them (the file may have been edited): see
    /// [`check_saved_players`](crate::table::seating::check_saved_players).
    ///
    /// When the ruleset or a mod differs from the recorded one ([`record::differences`]),
    /// a move that replays otherwise is an error naming the first such move and what
    /// differs; when every move still replays as recorded, the differences come back as
    /// notes. Version 1 files have no such records: only the final state is checked.
    pub fn load(file: SaveFile, path: &Path, ruleset: Option<&str>) -> Result<Loaded, SaveError> {
        crate::table::seating::check_saved_players(&file.players)
            .map_err(|e| SaveError::new(path, format!("damaged save file: {e}")))?;
        if !file.steps.is_empty() && file.steps.len() != file.actions.len() {
            return Err(SaveError::new(
                path,
                format!("damaged save file: {} moves but {} step hashes", file.actions.len(), file.steps.len()),
            ));
        }
        let spec = ruleset.unwrap_or(&file.ruleset).to_string();
        let seating = file.players.iter().map(|p| Seating { name: p.name.clone(), bot: p.bot.clone() }).collect();
        // Before replaying: what differs from the recording explains any divergence.
        let differences = match (&file.rules_hash, Ruleset::load(&spec)) {
            (Some(hash), Ok(now)) => {
                record::differences(&file.ruleset, hash, file.mods.as_deref().unwrap_or_default(), &now)
            }
            _ => Vec::new(),
        };
        let why = |differences: &[String]| {
            if differences.is_empty() {
                String::new()
            } else {
                format!("; since the recording, {}", differences.join("; "))
            }
        };
        // A save names a ruleset file by where it was when the game was saved.
        let moved = ruleset.is_none() && Path::new(&spec).is_absolute() && !Path::new(&spec).exists();
        let moved = if moved { " (if the ruleset file has moved, name it with --ruleset FILE)" } else { "" };
        let mut session = Session::starting(&spec, seating, file.seed, Some(file.deck), file.branch)
            .map_err(|e| SaveError::new(path, format!("{e}{moved}{}", why(&differences))))?;
        session.hints = !file.no_hints;
        session.hot_seat = file.hot_seat;
        let seats = session.game.player_count();
        if let Some(notice) =
            file.notices.iter().find(|n| n.by.is_some_and(|s| s >= seats) || n.told.iter().any(|&s| s >= seats))
        {
            return Err(SaveError::new(
                path,
                format!(
                    "damaged save file: a notice of turn {} names a seat this game of {seats} has not",
                    notice.turn
                ),
            ));
        }
        if file.notices.len() > limits::MAX_SAVED_MOVES {
            return Err(SaveError::new(
                path,
                format!(
                    "damaged save file: more than {} notices (a save keeps at most that many)",
                    limits::MAX_SAVED_MOVES
                ),
            ));
        }
        session.notices = file.notices;
        // A recording made before the canonical step hash (format 2) is checked against its
        // own hash, worked out for its moves here and for no move played after.
        let legacy = file.version <= 2;
        for (i, action) in file.actions.into_iter().enumerate() {
            let text = render::command_for(&session.game, &action);
            let name = session.game.name(session.game.current()).to_string();
            if let Err(e) = session.apply(action) {
                let reason = render::action_error(&session.game, &e, Viewer::Spectator);
                return Err(SaveError::new(
                    path,
                    format!("move {} ('{text}') cannot be replayed: {reason}{}", i + 1, why(&differences)),
                ));
            }
            let step = record::step_text(session.entries[i].step);
            let legacy_step = |session: &Session| {
                let entry = &session.entries[i];
                record::step_text(super::legacy::step_hash(&session.game, &session.bots, &entry.events))
            };
            if let Some(recorded) = file.steps.get(i)
                && !session.replays(i, recorded)
                && !(legacy && legacy_step(&session) == *recorded)
            {
                let cause = if differences.is_empty() {
                    "; the ruleset and mods are as recorded, so the file was edited or a mod keeps game state in Lua variables".to_string()
                } else {
                    why(&differences)
                };
                return Err(SaveError::new(
                    path,
                    format!(
                        "move {} ({name}: {text}) is the first that does not replay as recorded (step {recorded}, now {step}){cause}",
                        i + 1
                    ),
                ));
            }
        }
        if as_saved(json::state(&session.game, &session.bots).to_value(), &file.state) != file.state {
            let cause = if differences.is_empty() {
                " (the file was edited, the ruleset changed, or a mod keeps game state in Lua variables)".to_string()
            } else {
                why(&differences)
            };
            return Err(SaveError::new(path, format!("the saved state does not match the replayed game{cause}")));
        }
        session.mark_saved();
        let notes = if differences.is_empty() {
            Vec::new()
        } else {
            vec![format!("recorded under other rules, but every move replays as recorded: {}", differences.join("; "))]
        };
        Ok(Loaded { session, notes })
    }
}

/// The game a session starts from, and what its opening did: dealt from `setup` (the first
/// turn's start and its hooks' events), then, for a branch, its moves played and the deck
/// shuffled with its seed (the branch opens with the turn it starts on).
fn open_game(
    rules: std::sync::Arc<Rules>,
    registry: std::sync::Arc<Registry>,
    setup: &Setup,
    branch: Option<&BranchRecord>,
) -> Result<(Game, Vec<Event>), String> {
    let mut opening = Vec::new();
    let mut game = Game::new_observed(rules, registry, setup.clone(), &mut opening).map_err(|e| e.to_string())?;
    let Some(branch) = branch else { return Ok((game, opening)) };
    for (i, action) in branch.moves.iter().enumerate() {
        game.apply(action, &mut ()).map_err(|e| {
            format!(
                "move {} before the branch point cannot be played again: {}",
                i + 1,
                render::action_error(&game, &e, Viewer::Spectator)
            )
        })?;
    }
    let opening = vec![Event::TurnStarted { player: game.current(), turn: game.turn() }];
    Ok((
        match branch.seed {
            Some(seed) => game.with_deck_shuffled(seed),
            None => game,
        },
        opening,
    ))
}

/// The rules a game with these seats runs with: the ruleset's, with a turn limit of
/// [`BOT_GAME_TURNS`] when every seat is a bot and the ruleset sets none.
fn rules_for(ruleset: &Ruleset, bots: &[Option<String>]) -> std::sync::Arc<crate::core::Rules> {
    if ruleset.rules.max_turns == 0 && !bots.is_empty() && bots.iter().all(Option::is_some) {
        std::sync::Arc::new(crate::core::Rules { max_turns: BOT_GAME_TURNS, ..(*ruleset.rules).clone() })
    } else {
        ruleset.rules.clone()
    }
}

/// `events` with the mod narration past the game's limits ([`MAX_GAME_SAID_LINES`],
/// [`MAX_GAME_SAID_BYTES`]) left out, given the entries before them; the first line left
/// out is replaced by a note.
fn keep_narration(entries: &[Entry], mut events: Vec<Event>) -> Vec<Event> {
    const NOTE: &str = "(the mods' narration is over its limit for this game: the rest is left out)";
    if !events.iter().any(|e| matches!(e, Event::Said { .. })) {
        return events;
    }
    let (mut lines, mut bytes) = (0, 0);
    for e in entries.iter().flat_map(|e| &e.events) {
        if let Event::Said { words, .. } = e {
            lines += 1;
            bytes += words.len();
        }
    }
    let mut noted = lines > MAX_GAME_SAID_LINES || bytes > MAX_GAME_SAID_BYTES;
    events.retain_mut(|e| {
        let Event::Said { words, .. } = e else { return true };
        lines += 1;
        bytes += words.len();
        if lines <= MAX_GAME_SAID_LINES && bytes <= MAX_GAME_SAID_BYTES {
            return true;
        }
        if noted {
            return false;
        }
        noted = true;
        *words = Words::public(NOTE);
        true
    });
    events
}

/// The seed a bot gets for one move: a mix of the game's seed, the turn and the seat.
fn bot_seed(seed: u64, turn: u32, seat: Seat) -> u64 {
    splitmix(seed ^ splitmix(((turn as u64) << 8) | seat as u64))
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `state` object `now` as a save written before a key was added would hold it: the keys
/// the state gained since (the winners, the order of play, teams) are left out where `saved`
/// has none, so that every earlier save still compares equal to its replayed game.
fn as_saved(mut now: serde_json::Value, saved: &serde_json::Value) -> serde_json::Value {
    const ADDED: [&str; 3] = ["winners", "backwards", "next"];
    if let (Some(now), Some(saved)) = (now.as_object_mut(), saved.as_object()) {
        now.retain(|key, _| !ADDED.contains(&key.as_str()) || saved.contains_key(key));
        if let (Some(players), Some(saved_players)) =
            (now.get_mut("players").and_then(|p| p.as_array_mut()), saved.get("players").and_then(|p| p.as_array()))
        {
            for (player, saved) in players.iter_mut().zip(saved_players) {
                if let (Some(player), Some(saved)) = (player.as_object_mut(), saved.as_object()) {
                    player.retain(|key, _| key != "team" || saved.contains_key(key));
                }
            }
        }
    }
    now
}

/// Whether `action` names a card of the mover's hand (which [`told_move`] leaves out).
fn shows_hand(action: &Action) -> bool {
    matches!(
        action,
        Action::Play { from: Source::Hand, .. } | Action::Recover { .. } | Action::Act { card: Some(_), .. }
    )
}

/// How a bot's move a mod failed on, or the game refused, is named to every reader: a move
/// from the bot's hand (a play, a recovery, an action naming one of its cards) not by its
/// cards, which the other seats may not see (the move was not made, so nobody saw them); any
/// other by its command.
fn told_move(game: &Game, action: &Action) -> String {
    match action {
        Action::Play { from: Source::Hand, .. } => "a play from the hand".into(),
        Action::Recover { .. } => "a recovery".into(),
        Action::Act { name, card: Some(_), .. } => format!("'{name}' with a card of the hand"),
        _ => format!("'{}'", render::command_for(game, action)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn humans(names: &[&str]) -> Vec<Seating> {
        names.iter().map(|n| Seating { name: n.to_string(), bot: None }).collect()
    }

    fn session() -> Session {
        Session::new("standard", humans(&["alice", "bob"]), 5, None).unwrap()
    }

    #[test]
    fn the_seed_deals_the_same_game() {
        assert_eq!(session().game(), session().game());
        assert_eq!(session().initial_deck().len(), 52);
    }

    #[test]
    fn undo_returns_to_the_game_before_the_move() {
        let mut s = session();
        let start = s.game().clone();
        let action = s.game().legal_actions()[0];
        s.apply(action).unwrap();
        assert_ne!(s.game(), &start);
        assert_eq!(s.undo(false).unwrap().len(), 1);
        assert_eq!(s.game(), &start);
        assert!(s.undo(false).is_err());
    }

    #[test]
    fn secret_undo_is_refused_after_a_draw() {
        let mut s = session();
        let action = s.game().legal_actions()[0];
        s.apply(action).unwrap();
        assert!(s.undo(true).unwrap_err().contains("a card was drawn from the deck"));
    }

    #[test]
    fn a_save_replays_to_the_same_game() {
        let mut s = session();
        for _ in 0..6 {
            let action = s.game().legal_actions()[0];
            s.apply(action).unwrap();
        }
        let loaded = Session::from_save(s.to_save(), Path::new("x"), None).unwrap();
        assert_eq!(loaded.game(), s.game());
        assert!(!loaded.is_dirty());
    }

    #[test]
    fn reload_of_the_same_ruleset_is_identical() {
        let mut s = session();
        for _ in 0..4 {
            let action = s.game().legal_actions()[0];
            s.apply(action).unwrap();
        }
        let before = s.game().clone();
        assert!(matches!(s.reload().unwrap(), Reload::Identical { moves: 4 }));
        assert_eq!(s.game(), &before);
    }

    #[test]
    fn bots_play_the_same_move_for_the_same_seed() {
        let seating = || {
            vec![
                Seating { name: "r1".into(), bot: Some("random".into()) },
                Seating { name: "r2".into(), bot: Some("random".into()) },
            ]
        };
        let mut a = Session::new("standard", seating(), 3, None).unwrap();
        let mut b = Session::new("standard", seating(), 3, None).unwrap();
        for _ in 0..10 {
            let ma = a.bot_move().unwrap().unwrap();
            let mb = b.bot_move().unwrap().unwrap();
            assert_eq!(ma.action, mb.action);
        }
    }
}
