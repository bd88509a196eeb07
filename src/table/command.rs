//! The one command interpreter: a typed [`Command`] (or a line of text) from a [`Caller`] in,
//! typed [`Reply`]s out. The shell (a pipe, a script, the terminal) and the game server both
//! run every game command through [`Table::line`]; what a front end does not offer (undo in a
//! network game, hints turned off, questions nobody can answer in a pipe) is the [`Policy`]
//! the table is built with, not a second `match`.
//!
//! Questions (a missing target, a move that would get the mover rescued, a file that exists,
//! leaving an unsaved game) are the table's state: [`Reply::Question`] asks, and the caller's
//! next line answers it ([`Table::line`]) or [`Table::unanswered`] says nobody can. The table
//! writes no text: [`super::reply`] renders each reply for its reader.

use std::path::{Path, PathBuf};

use crate::core::{Action, ActionError, ActionName, Card, Event, Game, Seat, Source, View, Viewer};
use crate::limits;
use crate::table::hint::{self, Finding, Suggestion};
use crate::table::notice::{Happening, Notice};
use crate::table::parse::{self, Command, Place, Who};
use crate::table::save;
use crate::table::seating::{self, Seating};
use crate::table::session::{Reload, Session};

/// Bot moves in a row after which the table stops and waits (a runaway mod).
const BOT_MOVES_LIMIT: usize = 100_000;

/// The commands a network game refuses (the host saves every move, and a new game is the
/// host's to start).
pub const NOT_IN_NETWORK_GAMES: [&str; 4] = ["undo", "save", "reload", "again"];

/// What the table says when a person decides to stay in an unsaved game.
const NOT_QUITTING: &str = "(not quitting; 'save FILE' keeps the game)";

/// What the table says when a kept game is left.
pub const KEPT: &str = "the game is kept: 'diving --resume' takes it up again";

/// Who sends a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// A person playing this seat (at a terminal or over the network): acts only on its turn,
    /// sees only what the seat may.
    Seat(Seat),
    /// Someone watching: may only look.
    Spectator,
    /// A script or a pipe: acts for whoever is to move and sees every card.
    Script,
}

/// What a front end offers: how one interpreter serves a pipe, a terminal and a network seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// A person can answer questions (a missing target, a rescue, an overwrite, an unsaved
    /// game). Without one, a missing target is refused with the choices named.
    pub asks: bool,
    /// Before a move that would get the mover rescued, ask first.
    pub confirms_rescue: bool,
    /// A network game: `undo`, `save`, `reload` and `again` are refused.
    pub network: bool,
    /// Why `hint` and a running game's `review` are refused, when they are.
    pub hints_off: Option<String>,
    /// `say TEXT` is chat, with at most this many characters.
    pub chat: Option<usize>,
    /// Once the game is over every seat's reader sees every hand (one terminal, where every
    /// hand is shown at the end); a network seat keeps seeing only its own.
    pub reveals_at_end: bool,
    /// The front end keeps the game on disk as it goes (the terminal's autosave): `quit`
    /// loses nothing, so it does not ask.
    pub kept: bool,
    /// Everyone at the table shares one screen: a game with several people is played
    /// hot-seat, and its saves say so (they open only behind the hand-overs, or showing no
    /// hand).
    pub one_screen: bool,
}

impl Policy {
    /// A script or a pipe: nobody to ask, every card seen, every command offered.
    pub fn script(hints: bool) -> Policy {
        Policy {
            asks: false,
            confirms_rescue: false,
            network: false,
            hints_off: (!hints).then(|| "hints are off for this game (it was started with --no-hints)".into()),
            chat: None,
            reveals_at_end: true,
            kept: false,
            one_screen: false,
        }
    }

    /// People at one terminal: questions asked, a rescue confirmed.
    pub fn terminal(hints: bool) -> Policy {
        Policy { asks: true, confirms_rescue: true, one_screen: true, ..Policy::script(hints) }
    }

    /// A seat over the network: questions asked, chat, no undo/save/reload/again.
    pub fn network(hints: bool, chat: usize) -> Policy {
        Policy {
            asks: true,
            confirms_rescue: false,
            network: true,
            hints_off: (!hints).then(|| {
                "hints and reviews are off in this network game (the host can allow them: diving host --allow-hints)"
                    .into()
            }),
            chat: Some(chat),
            reveals_at_end: false,
            kept: false,
            one_screen: false,
        }
    }

    /// Whether this table offers the command `word` at all.
    pub fn offers(&self, word: &str) -> bool {
        let hints = matches!(word, "hint" | "review");
        !self.network || !(NOT_IN_NETWORK_GAMES.contains(&word) || (hints && self.hints_off.is_some()))
    }
}

/// A question the table waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Question {
    /// Who the card aims at: `card: role? (options)`; `problem` when the last answer was
    /// not one of them.
    Target { card: Card, role: String, options: Vec<String>, problem: Option<String> },
    /// A yes/no question, worded whole (`… [y/N] `).
    YesNo(String),
    /// Leaving an unsaved game: yes, no, or a file name to save to first. `kept`: the front
    /// end keeps the game on disk as it goes, so leaving loses nothing.
    Quit { kept: bool },
}

impl Question {
    /// The names a person may answer with (Tab completes them).
    pub fn options(&self) -> &[String] {
        match self {
            Question::Target { options, .. } => options,
            _ => &[],
        }
    }

    /// The question as one line (without what a terminal adds to its prompt).
    pub fn text(&self) -> String {
        match self {
            Question::Target { card, role, options, problem: None } => {
                format!("{card}: {role}? ({})", super::render::or_list(options))
            }
            Question::Target { role, options, problem: Some(p), .. } => {
                format!("{p}; {role}? ({})", super::render::or_list(options))
            }
            Question::YesNo(text) => text.trim_end().to_string(),
            Question::Quit { kept: false } => {
                "the game is not saved; quit anyway? [y/N] (or type a file name to save and quit)".to_string()
            }
            Question::Quit { kept: true } => {
                "quit now? the game is kept and 'diving' offers it back [y/N] (or type a file name to save it there too)"
                    .to_string()
            }
        }
    }
}

/// What the table is waiting for, and what the answer then does.
#[derive(Debug, Clone)]
enum Pending {
    Target { action: Action, card: Card, role: String, options: Vec<Seat> },
    Rescue { action: Action },
    Overwrite { path: PathBuf, then_quit: bool },
    Again { players: Option<Vec<String>> },
    Quit,
}

/// What came of a command, for the front end to render ([`super::reply`]) for its reader.
#[derive(Debug, Clone)]
pub enum Reply {
    /// What happened before the first move (the first turn, turn-1 hooks).
    Opened(Vec<Event>),
    /// Moves were made: the entries from `from` to `to` of the session's log (the command's,
    /// a bot's), each reader told them as it may see them.
    Moved {
        from: usize,
        to: usize,
    },
    /// A bot failed or chose an illegal move and a fallback was played (can name the bot's
    /// cards: a network front end logs it).
    BotWarning(String),
    /// A bot could not move (a runaway or failing mod).
    BotStuck(String),
    /// A mod failed on a listed move while it was weighed or played for a bot (`what`: `while
    /// greedy weighed 'play 7H'`): every reader is told, as a failure in play is, once a game
    /// for each place it failed at; its message is read as each reader may
    /// ([`crate::core::Viewer::failure`]).
    ModFailed {
        what: String,
        error: crate::core::EffectError,
    },
    /// The command was refused; nothing changed.
    Refused(String),
    /// A question for the caller; its next line answers it.
    Question(Question),
    /// A play was given up (a question cancelled or answered no).
    NotPlayed,
    /// Something the front end says as it is: `(the game goes on)`.
    Note(String),
    /// The legal moves of `seat`, with a mod's failure while listing them.
    Moves {
        seat: Seat,
        actions: Vec<Action>,
        failure: Option<String>,
    },
    /// It is not `seat`'s turn (or the game is over): no moves.
    NoMoves {
        seat: Seat,
    },
    Hand {
        seat: Seat,
    },
    State,
    /// Everything that happened so far.
    Log,
    Help(HelpTopic),
    Undone(Vec<(Seat, String)>),
    /// Saved to `path`.
    Saved {
        path: String,
    },
    Reloaded(Reload),
    Hint {
        seat: Seat,
        moves: Vec<Suggestion>,
    },
    Review {
        found: Vec<Finding>,
        looked: usize,
        seats: Vec<Seat>,
    },
    Chat {
        seat: Seat,
        text: String,
    },
    /// `again` dealt a new game with this seed.
    NewGame {
        seed: u64,
    },
    /// The caller leaves.
    Quit,
    /// (a network table) The caller asks for another game once this one is over: the front
    /// end's to carry out (every person at the table must ask).
    Rematch,
}

/// Where a table's replies go, as they happen: a front end renders each for its reader
/// ([`Table::render`], the table as it is then); a `Vec` collects them.
pub trait Listener {
    fn reply(&mut self, table: &Table, reply: Reply);
}

impl Listener for Vec<Reply> {
    fn reply(&mut self, _table: &Table, reply: Reply) {
        self.push(reply);
    }
}

/// A `help` request, answered by [`super::reply`] with the table's policy in mind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpTopic(pub Option<String>);

/// A seated game and its one interpreter.
pub struct Table {
    session: Session,
    policy: Policy,
    /// The question waiting for a caller's answer, and what answering it does.
    pending: Option<(Caller, Pending, Question)>,
    /// The bot that plays for a seat whose person is away, and the seats it plays.
    away_bot: Option<String>,
    away: Vec<bool>,
}

impl Table {
    pub fn new(mut session: Session, policy: Policy) -> Table {
        let seats = session.game().player_count();
        if policy.one_screen && session.humans() > 1 {
            session.set_hot_seat(true);
        }
        Table { session, policy, pending: None, away_bot: None, away: vec![false; seats] }
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, to change it outside a command (the shell marks a save; tests).
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    pub fn game(&self) -> &Game {
        self.session.game()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Whether the front end keeps the game on disk as it goes ([`Policy::kept`]): it says so
    /// when its autosave starts or fails.
    pub fn set_kept(&mut self, kept: bool) {
        self.policy.kept = kept;
    }

    /// The bot that plays for seats marked away ([`Table::set_away`]).
    pub fn set_away_bot(&mut self, spec: Option<String>) {
        self.away_bot = spec;
    }

    /// Whether the away bot plays for `seat` now; a question the seat was asked is dropped.
    pub fn set_away(&mut self, seat: Seat, away: bool) {
        if let Some(slot) = self.away.get_mut(seat) {
            *slot = away;
        }
        if away && self.pending.as_ref().is_some_and(|(c, ..)| *c == Caller::Seat(seat)) {
            self.pending = None;
        }
    }

    /// What `caller` may see now: the one place a table decides it (through [`Viewer`]).
    pub fn viewer(&self, caller: Caller) -> Viewer {
        match caller {
            Caller::Seat(_) if self.policy.reveals_at_end && self.game().is_over() => Viewer::Everyone,
            Caller::Seat(seat) => Viewer::Seat(seat),
            Caller::Spectator => Viewer::Spectator,
            Caller::Script => Viewer::Everyone,
        }
    }

    /// The question `caller` is asked, if one is waiting.
    pub fn question(&self, caller: Caller) -> Option<Question> {
        match &self.pending {
            Some((c, _, question)) if *c == caller => Some(question.clone()),
            _ => None,
        }
    }

    /// The game's start: what the opening did, then the bots that move first.
    pub fn start(&mut self, out: &mut dyn Listener) {
        out.reply(self, Reply::Opened(self.session.start_events()));
        self.run_bots(out);
    }

    /// One line of input from `caller`: chat, the answer to its question, or a command; each
    /// reply goes to `out` as it happens (a bot's move once it is made). The line is read
    /// once, by the one parser: chat leaves a pending question waiting; anything else answers
    /// it (or, being another command, drops it and runs).
    pub fn line(&mut self, caller: Caller, line: &str, out: &mut dyn Listener) {
        // With mods, the command has one budget of mod work, whatever it lists, previews or
        // plays ([`crate::script::decision`]); a bot it sets off moving has its own.
        let _decision = self.game().registry().keeps_state().then(|| {
            let word: String = line.split_whitespace().next().unwrap_or("").chars().take(20).collect();
            let who = match caller {
                Caller::Seat(seat) => self.game().name(seat).to_string(),
                Caller::Spectator => "a spectator".into(),
                Caller::Script => "the script".into(),
            };
            let what = format!("'{}' by {}", crate::limits::clean_line(&word), who);
            crate::script::decide_apart(what, crate::script::decision::STEPS)
        });
        let parsed = parse::parse_with(line, self.game().registry().actions());
        if let Ok(Some(Command::Say(text))) = &parsed {
            return self.say(caller, text, out);
        }
        if let Some((_, pending, _)) = self.pending.take_if(|(c, ..)| *c == caller) {
            return self.answer(caller, pending, line, out);
        }
        match parsed {
            Ok(None) => {}
            Ok(Some(command)) => self.command(caller, command, out),
            Err(message) => out.reply(self, Reply::Refused(message)),
        }
    }

    /// What `caller` may do now, in the listing's order: its legal actions when it is to move
    /// (a script's: the current seat's), else none. A view lists these, and a listed move
    /// ([`Table::play_listed`]) names one by its place.
    pub fn listed(&self, caller: Caller) -> Vec<Action> {
        let game = self.game();
        match self.own_seat(caller) {
            Some(seat) if !game.is_over() => View::new(game, seat).legal_actions(),
            _ => Vec::new(),
        }
    }

    /// The `index`th of `caller`'s listed actions ([`Table::listed`]), made as it was listed:
    /// no line is written or read again, and the core checks it once, as it applies it. A
    /// question `caller` was asked is dropped.
    pub fn play_listed(&mut self, caller: Caller, index: usize, out: &mut dyn Listener) {
        if let Err(message) = self.check_turn(caller) {
            return out.reply(self, Reply::Refused(message));
        }
        let listed = self.listed(caller);
        let Some(&action) = listed.get(index) else {
            let message = format!("there is no move {index} (your listing has {} now)", listed.len());
            return out.reply(self, Reply::Refused(message));
        };
        self.pending.take_if(|(c, ..)| *c == caller);
        self.play(caller, action, out);
    }

    /// Nobody can answer `caller`'s question (the input ended, Ctrl-D).
    pub fn unanswered(&mut self, caller: Caller, out: &mut dyn Listener) {
        let Some((_, pending, _)) = self.pending.take_if(|(c, ..)| *c == caller) else { return };
        let reply = match pending {
            Pending::Target { card, options, .. } => {
                let e = ActionError::TargetNeeded { card, options };
                Reply::Refused(super::render::action_error(self.game(), &e, self.viewer(caller)))
            }
            Pending::Rescue { .. } => Reply::NotPlayed,
            Pending::Overwrite { .. } => Reply::Note("(not saved)".into()),
            Pending::Again { .. } => Reply::Note("(the game goes on)".into()),
            Pending::Quit => return self.leave(out),
        };
        out.reply(self, reply);
    }

    fn ask(&mut self, caller: Caller, pending: Pending, question: Question, out: &mut dyn Listener) {
        self.pending = Some((caller, pending, question.clone()));
        out.reply(self, Reply::Question(question));
    }

    fn answer(&mut self, caller: Caller, pending: Pending, line: &str, out: &mut dyn Listener) {
        let yes = matches!(line.trim().to_lowercase().as_str(), "y" | "yes");
        match pending {
            Pending::Target { action, card, role, options } => {
                if line.trim().is_empty() {
                    return out.reply(self, Reply::NotPlayed);
                }
                let names: Vec<String> = options.iter().map(|&s| self.game().name(s).to_string()).collect();
                let problem = match answer_target(self.game(), line) {
                    Ok(seat) if options.contains(&seat) => {
                        let mut action = action;
                        if let Action::Play { target, .. } = &mut action {
                            *target = Some(seat);
                        }
                        return self.play(caller, action, out);
                    }
                    Ok(seat) => format!("{} cannot be chosen", self.game().name(seat)),
                    Err(message) => match parse::parse_with(line, self.game().registry().actions()) {
                        // Another command instead of an answer drops the question and runs.
                        Ok(Some(command)) => return self.command(caller, command, out),
                        _ => message,
                    },
                };
                let question = Question::Target { card, role: role.clone(), options: names, problem: Some(problem) };
                self.ask(caller, Pending::Target { action, card, role, options }, question, out);
            }
            Pending::Rescue { action } if yes => self.apply(caller, action, out),
            Pending::Rescue { .. } => out.reply(self, Reply::NotPlayed),
            Pending::Overwrite { path, then_quit } if yes => {
                self.write_save(caller, &path, out);
                if then_quit && !self.session.is_dirty() {
                    out.reply(self, Reply::Quit);
                }
            }
            Pending::Overwrite { then_quit, .. } => {
                out.reply(self, Reply::Note("(not saved)".into()));
                if then_quit {
                    out.reply(self, Reply::Note(NOT_QUITTING.into()));
                }
            }
            Pending::Again { players } if yes => self.again(caller, players, false, out),
            Pending::Again { .. } => out.reply(self, Reply::Note("(the game goes on)".into())),
            Pending::Quit => match line.trim().to_lowercase().as_str() {
                "y" | "yes" => self.leave(out),
                "" | "n" | "no" => out.reply(self, Reply::Note(NOT_QUITTING.into())),
                _ => {
                    self.save(caller, line.trim(), true, out);
                    if !self.session.is_dirty() {
                        out.reply(self, Reply::Quit);
                    } else if self.pending.is_none() {
                        out.reply(self, Reply::Note(NOT_QUITTING.into()));
                    }
                }
            },
        }
    }

    /// Runs one command from `caller`, then lets bots move.
    pub fn command(&mut self, caller: Caller, command: Command, out: &mut dyn Listener) {
        let word = command.word();
        match command {
            Command::Say(text) => return self.say(caller, &text, out),
            Command::Rematch if self.policy.network => return out.reply(self, Reply::Rematch),
            Command::Rematch => {
                let message = "'rematch' asks the table a game is hosted at for another: here, 'again' plays again";
                return out.reply(self, Reply::Refused(message.into()));
            }
            _ => {}
        }
        if !self.policy.offers(word) && !matches!(command, Command::Hint | Command::Review) {
            let message = format!("'{word}' is not available in a network game (the host saves every move)");
            return out.reply(self, Reply::Refused(message));
        }
        if caller == Caller::Spectator && !command.only_looks() {
            return out.reply(self, Reply::Refused("spectators can only look (state, log, help)".into()));
        }
        match command {
            Command::Play { card, place, target, over } => {
                if let Err(message) = self.check_turn(caller) {
                    return out.reply(self, Reply::Refused(message));
                }
                match play_action(self.game(), card, place, target, over) {
                    Ok(Play::Ready(action)) => self.play(caller, action, out),
                    Ok(Play::Ask { action, options, .. }) if self.policy.asks => {
                        let role = self.game().registry().target_question(card.rank).to_string();
                        let names = options.iter().map(|&s| self.game().name(s).to_string()).collect();
                        let question = Question::Target { card, role: role.clone(), options: names, problem: None };
                        self.ask(caller, Pending::Target { action, card, role, options }, question, out);
                    }
                    Ok(Play::Ask { options, .. }) => {
                        let e = ActionError::TargetNeeded { card, options };
                        let viewer = self.viewer(caller);
                        out.reply(self, Reply::Refused(super::render::action_error(self.game(), &e, viewer)));
                    }
                    Err(message) => out.reply(self, Reply::Refused(message)),
                }
            }
            Command::Recover { cards, over } => self.act(caller, Action::Recover { cards, face_on_top: over }, out),
            Command::Pass => self.act(caller, Action::Pass, out),
            Command::Act { name, target, card } => {
                if let Err(message) = self.check_turn(caller) {
                    return out.reply(self, Reply::Refused(message));
                }
                match act_action(self.game(), name, target, card) {
                    Ok(action) => self.play(caller, action, out),
                    Err(message) => out.reply(self, Reply::Refused(message)),
                }
            }
            Command::Moves => self.moves(caller, out),
            Command::State => out.reply(self, Reply::State),
            Command::Hand => match self.own_seat(caller) {
                Some(seat) => out.reply(self, Reply::Hand { seat }),
                None => out.reply(self, Reply::Refused("spectators have no hand".into())),
            },
            Command::Log => out.reply(self, Reply::Log),
            Command::Undo => self.undo(caller, out),
            Command::Hint => self.hint(caller, out),
            Command::Review => self.review(caller, out),
            Command::Save(file) => self.save(caller, &file, false, out),
            Command::Reload => self.reload(caller, out),
            Command::Help(topic) => out.reply(self, Reply::Help(HelpTopic(topic))),
            Command::Again(players) => {
                let running = !self.game().is_over() && self.session.is_dirty();
                self.again(caller, players, running && self.policy.asks, out)
            }
            Command::Quit => {
                if self.policy.asks && !self.policy.network && self.session.is_dirty() && !self.game().is_over() {
                    self.ask(caller, Pending::Quit, Question::Quit { kept: self.policy.kept }, out);
                } else {
                    self.leave(out);
                }
            }
            Command::Say(_) | Command::Rematch => unreachable!("answered above"),
        }
    }

    /// The caller leaves; a game kept on disk that is not over says how to take it up again.
    fn leave(&mut self, out: &mut dyn Listener) {
        if self.policy.kept && !self.game().is_over() && !self.session.entries().is_empty() {
            out.reply(self, Reply::Note(KEPT.into()));
        }
        out.reply(self, Reply::Quit);
    }

    /// The seat a caller's `hand`, `hint` and `moves` are about: its own, or for a script
    /// whoever is to move.
    fn own_seat(&self, caller: Caller) -> Option<Seat> {
        match caller {
            Caller::Seat(seat) => Some(seat),
            Caller::Spectator => None,
            Caller::Script => Some(self.game().current()),
        }
    }

    fn check_turn(&self, caller: Caller) -> Result<(), String> {
        let game = self.game();
        if game.is_over() {
            return Err(ActionError::GameOver.to_string());
        }
        match caller {
            Caller::Seat(seat) if game.current() != seat => {
                Err(format!("it is {}'s turn, not yours", game.name(game.current())))
            }
            Caller::Spectator => Err("spectators can only look (state, log, help)".into()),
            _ => Ok(()),
        }
    }

    /// A recovery or a pass from `caller`, on its turn.
    fn act(&mut self, caller: Caller, action: Action, out: &mut dyn Listener) {
        match self.check_turn(caller) {
            Err(message) if !self.game().is_over() => out.reply(self, Reply::Refused(message)),
            _ => self.apply(caller, action, out),
        }
    }

    /// A play: asked about first when it would get the mover rescued and the policy says so.
    fn play(&mut self, caller: Caller, action: Action, out: &mut dyn Listener) {
        if self.policy.confirms_rescue
            && let Some(question) = self.rescue_question(&action)
        {
            return self.ask(caller, Pending::Rescue { action }, Question::YesNo(question), out);
        }
        self.apply(caller, action, out);
    }

    /// Before a move that would get the mover rescued (back to the surface): what it does,
    /// from the engine, played on a copy of the game.
    fn rescue_question(&self, action: &Action) -> Option<String> {
        let game = self.game();
        let me = game.current();
        let events = self.session.preview(action).ok()?;
        if !events.iter().any(|e| matches!(e, Event::Rescued { player, .. } if *player == me)) {
            return None;
        }
        let rules = game.rules();
        // Where the move takes the player before the air runs out, and what the rescue gives.
        let reached = events.iter().take_while(|e| !matches!(e, Event::Rescued { player, .. } if *player == me));
        let reached = reached.filter_map(|e| match e {
            Event::Moved { player, to, .. } if *player == me => Some(*to),
            _ => None,
        });
        let rescue = events.iter().find_map(|e| match e {
            Event::Rescued { player, depth, oxygen } if *player == me => Some((*depth, *oxygen)),
            _ => None,
        });
        let mut question = super::render::command_for(game, action);
        match reached.last() {
            Some(to) => {
                question += &format!(" takes you to depth {}, where you run out of oxygen", rules.show_depth(to))
            }
            None => question += " leaves you out of oxygen",
        }
        if let Some((depth, oxygen)) = rescue {
            question += &format!(": you would be RESCUED back to depth {} (oxygen {oxygen})", rules.show_depth(depth));
            let now = game.player(me).depth;
            if now > depth {
                question += &format!(", losing your depth {}", rules.show_depth(now));
            }
        }
        question += ". play it anyway? [y/N] ";
        Some(question)
    }

    fn apply(&mut self, caller: Caller, action: Action, out: &mut dyn Listener) {
        let from = self.session.entries().len();
        match self.session.apply(action) {
            Ok(_) => {
                out.reply(self, Reply::Moved { from, to: from + 1 });
                self.run_bots(out);
            }
            Err(e) => {
                let viewer = self.viewer(caller);
                out.reply(self, Reply::Refused(super::render::action_error(self.game(), &e, viewer)))
            }
        }
    }

    /// Lets bot seats, and the away bot for the seats it plays, move until a person is to
    /// move or the game ends.
    pub fn run_bots(&mut self, out: &mut dyn Listener) {
        for _ in 0..BOT_MOVES_LIMIT {
            let game = self.game();
            if game.is_over() {
                return;
            }
            let seat = game.current();
            let from = self.session.entries().len();
            if self.session.is_bot(seat) {
                match self.session.bot_move() {
                    None => return,
                    Some(Ok(m)) => {
                        if let Some((what, error)) = m.failure {
                            out.reply(self, Reply::ModFailed { what, error });
                        }
                        if let Some(w) = m.warning {
                            out.reply(self, Reply::BotWarning(w));
                        }
                        out.reply(self, Reply::Moved { from, to: from + 1 });
                    }
                    Some(Err(message)) => return out.reply(self, Reply::BotStuck(message)),
                }
            } else if self.away.get(seat).copied().unwrap_or(false)
                && let Some(spec) = self.away_bot.clone()
            {
                match self.away_move(seat, &spec) {
                    Ok(()) => out.reply(self, Reply::Moved { from, to: from + 1 }),
                    Err(message) => return out.reply(self, Reply::BotStuck(message)),
                }
            } else {
                return;
            }
        }
        out.reply(self, Reply::BotStuck("the bots stopped after many moves in a row".into()));
    }

    /// The away bot's move for `seat`: its choice, or the first legal action that applies.
    fn away_move(&mut self, seat: Seat, spec: &str) -> Result<(), String> {
        let game = self.game();
        let seed =
            (self.session.seed() ^ ((game.turn() as u64) << 8) ^ seat as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let decision = game.registry().keeps_state().then(|| {
            let what = format!("the away bot's move for {}", game.name(seat));
            crate::script::decide_apart(what, crate::script::decision::BOT_STEPS)
        });
        let choice = crate::bots::from_spec(spec, seed).and_then(|mut b| b.choose(&View::new(game, seat)));
        drop(decision);
        if let Ok(action) = choice
            && self.session.apply(action).is_ok()
        {
            self.session.mark_stand_in();
            return Ok(());
        }
        for action in self.game().legal_actions() {
            if self.session.apply(action).is_ok() {
                self.session.mark_stand_in();
                return Ok(());
            }
        }
        Err(format!("{} cannot move: no legal action applies", self.game().name(seat)))
    }

    fn moves(&self, caller: Caller, out: &mut dyn Listener) {
        let game = self.game();
        let Some(seat) = self.own_seat(caller) else {
            return out.reply(self, Reply::Refused("spectators can only look (state, log, help)".into()));
        };
        if game.is_over() || game.current() != seat {
            return out.reply(self, Reply::NoMoves { seat });
        }
        let listing = game.moves();
        let failure = listing.failure().map(|f| self.viewer(caller).failure(f));
        out.reply(self, Reply::Moves { seat, actions: listing.to_vec(), failure });
    }

    fn undo(&mut self, caller: Caller, out: &mut dyn Listener) {
        // Undo takes back only the caller's own move: the last move of a person must be
        // theirs (with an empty deck, bob's undo would otherwise take back alice's move and
        // hand her the turn).
        if let Caller::Seat(me) = caller
            && self.session.humans() > 1
            && !self.game().is_over()
            && let Some(last) = self.session.entries().iter().rev().find(|e| !self.session.is_bot(e.seat))
            && last.seat != me
        {
            let name = self.game().name(last.seat).to_string();
            return out.reply(
                self,
                Reply::Refused(format!("cannot undo: {name} moved last, and undo takes back only your own move")),
            );
        }
        let secret = caller != Caller::Script;
        match self.session.undo(secret) {
            Ok(undone) => out.reply(self, Reply::Undone(undone.into_iter().map(|u| (u.seat, u.command)).collect())),
            Err(message) => out.reply(self, Reply::Refused(message)),
        }
    }

    fn hint(&self, caller: Caller, out: &mut dyn Listener) {
        let game = self.game();
        if game.is_over() {
            return out.reply(self, Reply::Refused("no hint: the game is over (try 'review')".into()));
        }
        if let Some(why) = &self.policy.hints_off {
            return out.reply(self, Reply::Refused(why.clone()));
        }
        let seat = game.current();
        if self.own_seat(caller) != Some(seat) {
            return out.reply(
                self,
                Reply::Refused(format!("no hint: it is {}'s turn, and only they may ask for one", game.name(seat))),
            );
        }
        match hint::suggestions(game, self.session.ruleset(), hint::HINT_PLAYOUTS) {
            Ok(moves) => out.reply(self, Reply::Hint { seat, moves }),
            Err(e) => out.reply(self, Reply::Refused(format!("no hint: {e}"))),
        }
    }

    fn review(&self, caller: Caller, out: &mut dyn Listener) {
        let over = self.game().is_over();
        if let (true, Some(why)) = (self.policy.network, &self.policy.hints_off) {
            return out.reply(self, Reply::Refused(why.clone()));
        }
        if !over && caller != Caller::Script {
            return out.reply(
                self,
                Reply::Refused(
                    "review is for a finished game: while it runs it would judge moves by cards others hold \
                 (try 'hint' for your own move)"
                        .into(),
                ),
            );
        }
        if !over && self.policy.hints_off.is_some() {
            return out.reply(
                self,
                Reply::Refused(
                    "hints are off for this game (it was started with --no-hints): review it when it is over".into(),
                ),
            );
        }
        // A network seat reviews its own moves; at one terminal, every person's (or every
        // seat's in a game of bots).
        let seats = match caller {
            Caller::Seat(seat) if self.policy.network => vec![seat],
            _ => {
                let count = self.game().player_count();
                let people: Vec<Seat> = (0..count).filter(|&s| !self.session.is_bot(s)).collect();
                if people.is_empty() { (0..count).collect() } else { people }
            }
        };
        let before = match self.session.games_before_moves() {
            Ok(before) => before,
            Err(e) => return out.reply(self, Reply::Refused(format!("cannot review: {e}"))),
        };
        match hint::review(&before, self.session.entries(), &seats, self.session.ruleset(), hint::REVIEW_PLAYOUTS) {
            Ok((found, looked)) => out.reply(self, Reply::Review { found, looked, seats }),
            Err(e) => out.reply(self, Reply::Refused(format!("cannot review: {e}"))),
        }
    }

    fn save(&mut self, caller: Caller, file: &str, then_quit: bool, out: &mut dyn Listener) {
        let path = expand_home(file);
        if self.policy.asks && path.exists() {
            let question = format!("{} exists; overwrite it? [y/N] ", path.display());
            return self.ask(caller, Pending::Overwrite { path, then_quit }, Question::YesNo(question), out);
        }
        self.write_save(caller, &path, out);
    }

    fn write_save(&mut self, caller: Caller, path: &Path, out: &mut dyn Listener) {
        // With several people at the table, the save is a notice for each of them (a save
        // holds every hand): kept in the file too, so a game resumed from it tells them.
        let mut session_save = self.session.to_save();
        let notice = (self.session.humans() > 1).then(|| {
            let by = match caller {
                Caller::Seat(seat) => Some(seat),
                _ => None,
            };
            (by, Happening::Saved { file: path.display().to_string() })
        });
        if let Some((by, what)) = &notice {
            let mut copy = self.session.notices().to_vec();
            copy.push(Notice {
                turn: self.game().turn(),
                by: *by,
                what: what.clone(),
                told: by.iter().copied().collect(),
            });
            session_save.notices = copy;
        }
        match save::write(path, &session_save) {
            Ok(()) => {
                if let Some((by, what)) = notice {
                    self.session.note(by, what);
                }
                self.session.mark_saved();
                out.reply(self, Reply::Saved { path: path.display().to_string() });
            }
            Err(e) => out.reply(self, Reply::Refused(e.to_string())),
        }
    }

    fn reload(&mut self, caller: Caller, out: &mut dyn Listener) {
        let ruleset = self.session.ruleset();
        let before = (ruleset.name.clone(), crate::table::record::rules_hash(ruleset), ruleset.mod_set());
        match self.session.reload() {
            Ok(report) => {
                if self.session.humans() > 1 {
                    let changes =
                        crate::table::record::differences(&before.0, &before.1, &before.2, self.session.ruleset());
                    let by = match caller {
                        Caller::Seat(seat) => Some(seat),
                        _ => None,
                    };
                    self.session.note(by, Happening::Reloaded { changes });
                }
                out.reply(self, Reply::Reloaded(report));
                self.run_bots(out);
            }
            Err(message) => out.reply(self, Reply::Refused(message)),
        }
    }

    /// `again`: a new game with a new seed, with the same players or the ones named; asked
    /// about first when `ask`.
    fn again(&mut self, caller: Caller, players: Option<Vec<String>>, ask: bool, out: &mut dyn Listener) {
        if ask {
            let question = "this game is not over; leave it and start a new one? [y/N] ".to_string();
            return self.ask(caller, Pending::Again { players }, Question::YesNo(question), out);
        }
        let seating = match players {
            Some(list) => match seating::seating(Some(&list)) {
                Ok(seating) => seating,
                Err(e) => return out.reply(self, Reply::Refused(e.to_string().replacen("--players: ", "", 1))),
            },
            None => {
                let game = self.game();
                game.names()
                    .iter()
                    .zip(self.session.bots())
                    .map(|(name, bot)| Seating { name: name.clone(), bot: bot.clone() })
                    .collect()
            }
        };
        // 52 bits, as for a new game from the command line.
        let seed = rand::random::<u64>() >> 12;
        let spec = self.session.spec().to_string();
        let names: Vec<String> =
            seating.iter().map(|s| s.bot.as_ref().map_or_else(|| s.name.clone(), |b| format!("bot:{b}"))).collect();
        match Session::new(&spec, seating, seed, None) {
            Ok(mut session) => {
                if self.policy.one_screen && session.humans() > 1 {
                    session.set_hot_seat(true);
                }
                self.away = vec![false; session.game().player_count()];
                self.session = session;
                self.pending = None;
                out.reply(self, Reply::NewGame { seed });
                self.start(out);
            }
            Err(e) => {
                // `again alice`: too few players, and a bot would make the game.
                let fewest = self.game().rules().min_players;
                let hint = seating::with_bots(&names, fewest)
                    .filter(|_| e.contains("players, not"))
                    .map(|example| format!(" (to play against the computer, add a bot: again {example})"));
                out.reply(self, Reply::Refused(format!("{e}{}", hint.unwrap_or_default())))
            }
        }
    }

    /// `say TEXT` from `caller`: chat to the table, cleaned ([`limits::clean_chat`]).
    pub fn chat(&self, caller: Caller, text: &str, out: &mut dyn Listener) {
        self.say(caller, text, out);
    }

    fn say(&self, caller: Caller, text: &str, out: &mut dyn Listener) {
        let Some(most) = self.policy.chat else {
            return out.reply(self, Reply::Refused("'say' is chat at a table hosted over the network".into()));
        };
        let Caller::Seat(seat) = caller else {
            return out.reply(self, Reply::Refused("spectators cannot chat".into()));
        };
        match limits::clean_chat(text, most) {
            Ok(text) => out.reply(self, Reply::Chat { seat, text }),
            Err(message) => out.reply(self, Reply::Refused(message)),
        }
    }
}

/// A `play` command made into an action for the current player: ready, or waiting for the
/// player to name a target among `options` (the table asks it: [`Question::Target`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Play {
    Ready(Action),
    Ask { action: Action, options: Vec<Seat> },
}

/// The pieces of a `play` command as an action for the current player of `game`: the source
/// found (hand first, then the table), the target named, made when there is one choice, or
/// asked for.
pub fn play_action(game: &Game, card: Card, place: Place, target: Option<Who>, over: bool) -> Result<Play, String> {
    if game.is_over() {
        return Err(ActionError::GameOver.to_string());
    }
    let in_hand = View::new(game, game.current()).hand().contains(&card);
    let slot = game.table().iter().position(|c| *c == Some(card));
    let from = match place {
        Place::Hand => Source::Hand,
        Place::Table(Some(slot)) => Source::Table(slot),
        Place::Table(None) => Source::Table(slot.ok_or_else(|| format!("{card} is not on the table"))?),
        Place::Auto if in_hand => Source::Hand,
        Place::Auto => Source::Table(slot.ok_or_else(|| format!("{card} is neither in your hand nor on the table"))?),
    };
    let target = target.map(|who| seat_of(game, &who)).transpose()?;
    let mut action = Action::Play { card, from, target, face_on_top: over };
    if target.is_none()
        && let Err(ActionError::TargetNeeded { options, .. }) = game.check(&action)
    {
        if options.len() == 1 {
            if let Action::Play { target, .. } = &mut action {
                *target = Some(options[0]);
            }
            return Ok(Play::Ready(action));
        }
        return Ok(Play::Ask { action, options });
    }
    Ok(Play::Ready(action))
}

/// A mod's action as typed (`buddy bob`, `toss 7h`) made into an action for the current
/// player: the player or card named, or, when it needs one and the listing offers just one,
/// that one. Anything else is the core's to refuse.
pub fn act_action(game: &Game, name: ActionName, target: Option<Who>, card: Option<Card>) -> Result<Action, String> {
    let target = target.map(|who| seat_of(game, &who)).transpose()?;
    let needs = game.registry().action(name).is_some_and(|a| !a.arg.allows_none());
    if target.is_none() && card.is_none() && needs {
        let moves = game.moves();
        let offered: Vec<&Action> =
            moves.acts().iter().filter(|a| matches!(a, Action::Act { name: n, .. } if *n == name)).collect();
        if let [only] = offered[..] {
            return Ok(*only);
        }
    }
    Ok(Action::Act { name, target, card })
}

/// The answer to a target question: a player by name or seat number (empty: cancelled).
pub fn answer_target(game: &Game, answer: &str) -> Result<Seat, String> {
    let answer = answer.trim();
    if answer.is_empty() {
        return Err("cancelled".into());
    }
    seat_of(game, &parse::who(answer)?)
}

/// A player named in a command: by name (any case) or seat number.
pub fn seat_of(game: &Game, who: &Who) -> Result<Seat, String> {
    match who {
        Who::Name(name) => game.seat_of(name).ok_or_else(|| {
            format!("there is no player called '{}' (players: {})", limits::quoted(name), game.names().join(", "))
        }),
        Who::Seat(seat) if *seat < game.player_count() => Ok(*seat),
        Who::Seat(seat) => {
            Err(format!("there is no seat {} (seats are 1 to {})", seat.wrapping_add(1), game.player_count()))
        }
    }
}

/// `~/x` as a path in the home directory (the shell would have done it had it seen the name).
fn expand_home(file: &str) -> PathBuf {
    match (file.strip_prefix("~/"), std::env::var_os("HOME").filter(|h| !h.is_empty())) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(file),
    }
}
