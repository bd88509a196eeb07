//! The command loop shared by scripts and the terminal: runs one line at a time against a
//! [`Session`], lets bots move, and writes the results as text or JSON Lines.
//!
//! It never reads input itself (the caller feeds lines) and never asks the terminal anything
//! except through a [`Prompter`], so the same code serves a pipe, a script file, the REPL and
//! the tests. What a reader may see is decided here: scripts see every hand; at a terminal
//! only the player at the keyboard's hand is shown.

use std::io::Write;
use std::path::Path;

use serde_json::json;

use crate::core::{Action, ActionError, Card, Event, Game, Seat, Source, Viewer};
use crate::limits;
use crate::repl::interrupt::Held;
use crate::repl::json::{self as js, Object};
use crate::repl::parse::{self, COMMANDS, Command, Place, Who};
use crate::repl::render::{self, Narrator, Style};
use crate::repl::save;
use crate::repl::session::{Reload, Session};

/// Whether to go on reading commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// Asks the person at the keyboard a question (a missing target, a confirmation).
pub trait Prompter {
    /// The answer, or `None` when nobody can answer (a script) or they gave up.
    fn ask(&mut self, question: &str) -> Option<String>;

    /// Asks for one of `options` (player names): a terminal completes them with Tab.
    fn choose(&mut self, question: &str, options: &[String]) -> Option<String> {
        let _ = options;
        self.ask(question)
    }

    /// Between two screenfuls of a long text: whether to show the next (a terminal asks
    /// `-- more --`). Without a screen to fill, everything is shown.
    fn more(&mut self) -> bool {
        true
    }
}

/// For scripts: nobody to ask.
pub struct NoPrompter;

impl Prompter for NoPrompter {
    fn ask(&mut self, _question: &str) -> Option<String> {
        None
    }
}

/// How many bot moves in a row the shell makes before it stops to let a person interrupt.
const BOT_MOVES_LIMIT: usize = 100_000;

/// A game being played through text commands.
pub struct Shell<W: Write> {
    pub session: Session,
    out: W,
    json: bool,
    style: Style,
    /// A person at a terminal (not a script): hands are kept secret, quit asks first.
    interactive: bool,
    /// The seat whose hand may be shown; `None`: every hand (scripts).
    pub viewer: Option<Seat>,
    /// The terminal's width in columns: narration and help are wrapped at word boundaries
    /// and the board is laid out for it. `None` (scripts): nothing is wrapped.
    pub width: Option<usize>,
    /// The terminal's height in rows: a help longer than the screen is shown a screenful at a
    /// time. `None` (scripts, pipes): all of it at once.
    pub height: Option<usize>,
    /// Set when `again` started a new game (the terminal then hands over afresh).
    restarted: bool,
    /// A new game's seed kept back in hot-seat play (it would give every hand away to a
    /// player who replays it with `--seed` in a pipe): said when the game ends.
    held_seed: Option<u64>,
    /// The first write that failed (the reader went away, the disk is full …): nobody is
    /// listening, so the caller should stop feeding lines, and [`Shell::finish`] reports it.
    write_error: Option<std::io::Error>,
}

impl<W: Write> Shell<W> {
    /// A shell for a script or pipe: every hand visible, no questions.
    pub fn script(session: Session, out: W, json: bool) -> Shell<W> {
        Shell {
            session,
            out,
            json,
            style: Style::PLAIN,
            interactive: false,
            viewer: None,
            width: None,
            height: None,
            restarted: false,
            held_seed: None,
            write_error: None,
        }
    }

    /// A shell for a person at a terminal: the hand shown is the current player's, or the
    /// first person's while bots move.
    pub fn interactive(session: Session, out: W, style: Style) -> Shell<W> {
        let current = session.game().current();
        let viewer = if session.is_bot(current) {
            (0..session.game().player_count()).find(|&s| !session.is_bot(s))
        } else {
            Some(current)
        };
        Shell {
            session,
            out,
            json: false,
            style,
            interactive: true,
            viewer,
            width: Some(80),
            height: None,
            restarted: false,
            held_seed: None,
            write_error: None,
        }
    }

    pub fn style(&self) -> Style {
        self.style
    }

    pub fn is_json(&self) -> bool {
        self.json
    }

    /// A person at a terminal (not a script).
    pub fn is_interactive(&self) -> bool {
        self.interactive
    }

    /// More than one person shares this terminal.
    pub fn hot_seat(&self) -> bool {
        self.interactive && self.session.humans() > 1
    }

    /// Announces a new game's random seed: at once, or, in hot-seat play, once the game is
    /// over ([`Shell::summary`]), since the seed gives every hand and every draw away.
    pub fn announce_seed(&mut self, seed: u64) {
        if self.hot_seat() {
            self.held_seed = Some(seed);
        } else {
            let text = self.style.dim(&format!("seed {seed} (replay with --seed {seed})"));
            self.say(&text);
        }
    }

    /// Who is reading the screen now: the seat at the keyboard in hot-seat play (everyone
    /// once the game is over), else everyone (a script or a lone player sees it all).
    pub fn reader(&self) -> Viewer {
        match self.viewer {
            Some(seat) if !self.session.game().is_over() => Viewer::Seat(seat),
            _ => Viewer::Everyone,
        }
    }

    pub fn out(&mut self) -> &mut W {
        &mut self.out
    }

    /// Whether a write has failed: the reader is gone, so there is no one to answer.
    pub fn output_closed(&self) -> bool {
        self.write_error.is_some()
    }

    /// Flushes, then reports the first write that failed, if one did: a failed write is an
    /// error (a closed pipe too; `main` keeps that one silent).
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.flush();
        match self.write_error.take() {
            Some(e) => Err(anyhow::Error::new(e).context("cannot write the game's output")),
            None => Ok(()),
        }
    }

    fn note(&mut self, written: std::io::Result<()>) {
        if let Err(e) = written
            && self.write_error.is_none()
        {
            self.write_error = Some(e);
        }
    }

    /// Writes a line of text (text mode) — ignored in JSON mode.
    pub fn say(&mut self, text: &str) {
        if !self.json {
            self.after_echo();
            let text = self.for_screen(text);
            let text = match self.width {
                Some(width) => render::wrap(&text, width),
                None => text,
            };
            let written = writeln!(self.out, "{text}");
            self.note(written);
        }
    }

    /// Ends the line the terminal echoed a Ctrl-C on (`^C`) while the shell was busy, so what
    /// follows does not run on from it.
    fn after_echo(&mut self) {
        if self.interactive && crate::repl::interrupt::take_echo() {
            let written = writeln!(self.out);
            self.note(written);
        }
    }

    /// `text` as this terminal can show it: in ASCII when it has no Unicode (a C locale),
    /// suits as letters as the board writes them. Scripts get the text as it is.
    fn for_screen(&self, text: &str) -> String {
        if self.interactive && !self.style.unicode { render::ascii(text) } else { text.to_string() }
    }

    /// Writes one JSON object (JSON mode) — ignored in text mode.
    pub fn say_json(&mut self, value: impl serde::Serialize) {
        if self.json {
            let text = serde_json::to_string(&value).expect("output serialises");
            let written = writeln!(self.out, "{text}");
            self.note(written);
        }
    }

    /// Reports a rejected command: `error: …` or `{"error": …}`. The message can quote a mod,
    /// a save or a ruleset: in text it is [`limits::shown`] on one line, so it can neither
    /// drive the terminal nor pass for a line of narration (JSON escapes it already).
    pub fn error(&mut self, message: &str) {
        if self.json {
            self.say_json(json!({ "error": message }));
        } else {
            self.after_echo();
            let message = self.for_screen(&limits::shown(message, limits::NewLines::Escaped));
            let label = self.style.error_label();
            // Laid out for the terminal like the narration (at word boundaries, indented).
            let text = match self.width {
                Some(width) => render::wrap(&format!("{label} {message}"), width),
                None => format!("{label} {message}"),
            };
            let written = writeln!(self.out, "{text}");
            self.note(written);
        }
    }

    pub fn flush(&mut self) {
        let flushed = self.out.flush();
        self.note(flushed);
    }

    /// Narrates events (text) or prints one object per event (JSON).
    pub fn events(&mut self, events: &[Event]) {
        if self.json {
            let reader = self.reader();
            for e in events {
                let value = js::event(self.session.game(), e, reader);
                self.say_json(value);
            }
        } else {
            for line in self.narrate(events, !self.interactive) {
                self.say(&line);
            }
        }
    }

    fn narrate(&self, events: &[Event], turn_lines: bool) -> Vec<String> {
        let game = self.session.game();
        Narrator { names: game.names(), rules: game.rules(), style: self.style, viewer: self.reader(), turn_lines }
            .lines(events)
    }

    /// Starts the game's output: the first turn, then any bots that move first.
    pub fn start(&mut self) {
        let held = self.interactive.then(Held::new);
        let events = self.session.start_events();
        self.events(&events);
        self.run_bots();
        self.after_ctrl_c(held);
        self.flush();
    }

    /// Runs one line of input; output is flushed before it returns. At a terminal, Ctrl-C
    /// while it runs (a bot thinking, a hint's search) does not end the program
    /// ([`super::interrupt`]).
    pub fn line(&mut self, line: &str, prompter: &mut dyn Prompter) -> Flow {
        let held = self.interactive.then(Held::new);
        let flow = match parse::parse(line) {
            Ok(None) => Flow::Continue,
            Ok(Some(command)) => self.execute(command, prompter),
            Err(message) => {
                self.error(&message);
                Flow::Continue
            }
        };
        self.after_ctrl_c(held);
        self.flush();
        flow
    }

    /// Says that a Ctrl-C pressed while the shell was busy stopped nothing.
    fn after_ctrl_c(&mut self, held: Option<Held>) {
        if held.is_some_and(|held| held.noted()) {
            let text = self.style.dim("(Ctrl-C: the game goes on, nothing was left half-done; type 'quit' to leave)");
            self.say(&text);
        }
    }

    /// Runs one command, then lets bots move.
    pub fn execute(&mut self, command: Command, prompter: &mut dyn Prompter) -> Flow {
        match command {
            Command::Play { card, place, target, over } => {
                match self.play_action(card, place, target, over, prompter) {
                    Ok(Some(action)) if self.confirmed(&action, prompter) => self.apply(action),
                    Ok(_) => self.say("(not played)"),
                    Err(message) => self.error(&message),
                }
            }
            Command::Recover { cards, over } => self.apply(Action::Recover { cards, face_on_top: over }),
            Command::Pass => self.apply(Action::Pass),
            Command::Moves => self.moves(),
            Command::State => self.state(),
            Command::Hand => self.hand(),
            Command::Log => self.log(),
            Command::Undo => self.undo(),
            Command::Hint => super::hint::hint_command(self),
            Command::Review => super::hint::review_command(self),
            Command::Save(file) => self.save(&file, prompter),
            Command::Reload => self.reload(),
            Command::Help(topic) => self.help(topic.as_deref(), prompter),
            Command::Again(players) => self.again(players.as_deref(), prompter),
            Command::Quit => return self.quit(prompter),
        }
        Flow::Continue
    }

    /// Before a move that would get the player rescued (back to the surface), a person at a
    /// terminal is told and asked; what the move does comes from the engine, played on a
    /// copy of the game. Scripts are never asked.
    fn confirmed(&mut self, action: &Action, prompter: &mut dyn Prompter) -> bool {
        if !self.interactive {
            return true;
        }
        let game = self.session.game();
        let me = game.current();
        let Some(events) = self.session.preview(action) else { return true };
        if !events.iter().any(|e| matches!(e, Event::Rescued { player, .. } if *player == me)) {
            return true;
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
        let mut question = render::command_for(game, action);
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
        let question = match self.width {
            Some(width) => render::wrap(&question, width),
            None => question,
        };
        prompter.ask(&question).is_some_and(|a| matches!(a.trim().to_lowercase().as_str(), "y" | "yes"))
    }

    /// Lets bots move until a person is to move or the game ends.
    pub fn run_bots(&mut self) {
        for _ in 0..BOT_MOVES_LIMIT {
            match self.session.bot_move() {
                None => return,
                Some(Ok(m)) => {
                    if let Some(w) = &m.warning {
                        if self.json {
                            self.say_json(json!({ "warning": w }));
                        } else {
                            let w = limits::shown(w, limits::NewLines::Escaped);
                            let text = self.style.dim(&format!("warning: {w}"));
                            self.say(&text);
                        }
                    }
                    self.events(&m.events);
                }
                Some(Err(message)) => {
                    self.error(&message);
                    return;
                }
            }
        }
        self.error("the bots stopped after many moves in a row");
    }

    fn apply(&mut self, action: Action) {
        match self.session.apply(action) {
            Ok(events) => {
                let events = events.to_vec();
                self.events(&events);
                self.run_bots();
            }
            Err(e) => {
                let message = render::action_error(self.session.game(), &e);
                self.error(&message);
            }
        }
    }

    /// Turns the pieces of a `play` command into an action, making or asking for the choices.
    fn play_action(
        &mut self,
        card: Card,
        place: Place,
        target: Option<Who>,
        over: bool,
        prompter: &mut dyn Prompter,
    ) -> Result<Option<Action>, String> {
        let game = self.session.game();
        match play_action(game, card, place, target, over)? {
            Play::Ready(action) => Ok(Some(action)),
            Play::Ask { mut action, options, .. } => {
                let names: Vec<String> = options.iter().map(|&s| game.name(s).to_string()).collect();
                // The card's entry words the question (a mod's card asks its own).
                let role = game.registry().target_question(card.rank);
                let mut asked = format!("{card}: {role}? ({}; Enter: cancel) ", render::or_list(&names));
                let chosen = loop {
                    let Some(answer) = prompter.choose(&asked, &names) else {
                        let e = ActionError::TargetNeeded { card, options };
                        return Err(render::action_error(self.session.game(), &e));
                    };
                    if answer.trim().is_empty() {
                        return Ok(None);
                    }
                    // A wrong answer asks again rather than dropping the whole move.
                    let game = self.session.game();
                    match answer_target(game, &answer) {
                        Ok(seat) if options.contains(&seat) => break seat,
                        Ok(seat) => {
                            asked = format!(
                                "{} cannot be chosen; {role}? ({}; Enter: cancel) ",
                                game.name(seat),
                                render::or_list(&names)
                            );
                        }
                        Err(message) => {
                            asked = format!("{message}; {role}? ({}; Enter: cancel) ", render::or_list(&names));
                        }
                    }
                };
                if let Action::Play { target, .. } = &mut action {
                    *target = Some(chosen);
                }
                Ok(Some(action))
            }
        }
    }

    fn moves(&mut self) {
        let listing = self.session.game().moves();
        let actions = listing.to_vec();
        if let Some(failure) = listing.failure() {
            // A card whose mod cannot say whether it is playable is not silently hidden.
            self.error(&format!("a mod failed while listing the moves: {failure}"));
        }
        let game = self.session.game();
        if self.json {
            let list: Vec<String> = actions.iter().map(|a| render::command_for(game, a)).collect();
            self.say_json(json!({ "moves": list }));
            return;
        }
        for line in moves_lines(&self.session, &actions, self.style, self.reader(), self.width) {
            self.say(&line);
        }
    }

    fn state(&mut self) {
        if self.json {
            let value = js::state(self.session.game(), self.session.bots());
            self.say_json(Object::one("state", value));
        } else {
            let text = self.board();
            let written = write!(self.out, "{text}");
            self.note(written);
        }
    }

    /// The board as text, with the hands this reader may see.
    pub fn board(&self) -> String {
        let last = self.session.entries().last().map_or(&[][..], |e| &e.events[..]);
        render::board_after(self.session.game(), last, self.style, self.session.bots(), self.reader(), self.width)
    }

    fn hand(&mut self) {
        let game = self.session.game();
        let seat = match self.viewer {
            Some(v) if self.interactive => v,
            _ => game.current(),
        };
        let name = game.name(seat).to_string();
        let cards = game.player(seat).hand.clone();
        if self.json {
            let list: Vec<String> = cards.iter().map(Card::to_string).collect();
            self.say_json(json!({ "hand": { "player": name, "cards": list } }));
        } else {
            let text = format!("{} hand: {}", render::possessive(&name), self.style.cards(&cards));
            self.say(&text);
        }
    }

    fn log(&mut self) {
        let mut all = self.session.start_events();
        for e in self.session.entries() {
            all.extend(e.events.iter().cloned());
        }
        if self.json {
            let game = self.session.game();
            let list: Vec<Object> = all.iter().map(|e| js::event(game, e, self.reader())).collect();
            self.say_json(Object::one("log", list));
        } else {
            for line in self.narrate(&all, true) {
                self.say(&line);
            }
        }
    }

    fn undo(&mut self) {
        // In hot-seat play undo takes back only the move of the seat at the keyboard: the
        // last move of a person must be theirs (with an empty deck, bob's undo would
        // otherwise take back alice's move and hand her the turn).
        if let (true, Some(me)) = (self.hot_seat(), self.viewer)
            && !self.session.game().is_over()
            && let Some(last) = self.session.entries().iter().rev().find(|e| !self.session.is_bot(e.seat))
            && last.seat != me
        {
            let name = self.session.game().name(last.seat).to_string();
            return self.error(&format!("cannot undo: {name} moved last, and undo takes back only your own move"));
        }
        match self.session.undo(self.interactive) {
            Ok(undone) => {
                let game = self.session.game();
                let moves: Vec<String> =
                    undone.iter().map(|u| format!("{} {}", game.name(u.seat), u.command)).collect();
                if self.json {
                    self.say_json(
                        json!({ "undone": moves, "turn": game.turn(), "current": game.name(game.current()) }),
                    );
                } else if self.interactive {
                    // The board that follows shows whose turn it is.
                    self.say(&format!("took back: {}", moves.join("; ")));
                } else {
                    let text = format!(
                        "took back: {}\nturn {}: {} to play",
                        moves.join("; "),
                        game.turn(),
                        game.name(game.current())
                    );
                    self.say(&text);
                }
            }
            Err(message) => self.error(&message),
        }
    }

    fn save(&mut self, file: &str, prompter: &mut dyn Prompter) {
        let path = expand_home(file);
        if self.interactive && path.exists() {
            let question = format!("{} exists; overwrite it? [y/N] ", path.display());
            if !prompter.ask(&question).is_some_and(|a| matches!(a.trim().to_lowercase().as_str(), "y" | "yes")) {
                self.say("(not saved)");
                return;
            }
        }
        match save::write(&path, &self.session.to_save()) {
            Ok(()) => {
                self.session.mark_saved();
                let shown = path.display().to_string();
                self.say_json(json!({ "saved": shown }));
                // A finished game can only be watched again; a running one goes on.
                let next = if self.session.game().is_over() {
                    "watch it with: diving replay"
                } else {
                    "resume with: diving --load"
                };
                self.say(&format!("saved to {shown} ({next} {})", shell_quoted(&shown)));
                if self.hot_seat() && !self.session.game().is_over() {
                    // Inherent to resuming: said where the player decides where it goes.
                    self.say("this file shows every hand: keep it from the players");
                }
            }
            Err(e) => self.error(&e.to_string()),
        }
    }

    fn reload(&mut self) {
        let spec = self.session.spec().to_string();
        match self.session.reload() {
            Ok(report) => {
                let game = self.session.game().clone();
                match report {
                    Reload::Identical { moves } => {
                        self.say_json(json!({ "reload": { "ruleset": spec, "identical": true, "moves": moves } }));
                        self.say(&format!("reloaded {spec}: all {moves} moves replay identically"));
                    }
                    Reload::Changed { index, seat, command: text, old, new } => {
                        if self.json {
                            let reader = self.reader();
                            let old: Vec<Object> = old.iter().map(|e| js::event(&game, e, reader)).collect();
                            let new: Vec<Object> = new.iter().map(|e| js::event(&game, e, reader)).collect();
                            let report = Object::new()
                                .with("ruleset", json!(spec))
                                .with("identical", json!(false))
                                .with("changed_move", json!(index + 1))
                                .with("player", json!(game.name(seat)))
                                .with("action", json!(text))
                                .with("before", old)
                                .with("after", new);
                            self.say_json(Object::one("reload", report));
                        } else {
                            self.say(&format!(
                                "reloaded {spec}: move {} ({} {text}) now has another outcome",
                                index + 1,
                                game.name(seat)
                            ));
                            for line in self.narrate(&old, false) {
                                self.say(&format!("  was: {line}"));
                            }
                            for line in self.narrate(&new, false) {
                                self.say(&format!("  now: {line}"));
                            }
                        }
                    }
                    Reload::Illegal { index, seat, action, reason } => {
                        let text = render::command_for(&game, &action);
                        self.say_json(json!({ "reload": { "ruleset": spec, "identical": false,
                            "illegal_move": index + 1, "player": game.name(seat), "action": text, "reason": reason } }));
                        self.say(&format!(
                            "reloaded {spec}: move {} ({} {text}) is no longer allowed ({reason}); the game goes on from just before it",
                            index + 1,
                            game.name(seat)
                        ));
                    }
                }
                self.run_bots();
            }
            Err(message) => self.error(&message),
        }
    }

    fn help(&mut self, topic: Option<&str>, prompter: &mut dyn Prompter) {
        let text = match help_text(topic, self.session.game()) {
            // The rules, or a card a mod changed: what the ruleset's mods say they change.
            Ok(text)
                if topic.is_some_and(|t| t.eq_ignore_ascii_case("rules"))
                    || topic
                        .and_then(card_topic)
                        .is_some_and(|r| !self.session.game().registry().is_builtin_card(r)) =>
            {
                text + &render::mods_guide(&self.session.ruleset().mods)
            }
            Ok(text) => text,
            Err(message) => {
                self.error(&message);
                return;
            }
        };
        if self.json {
            return self.say_json(json!({ "help": text }));
        }
        // Filled again for the terminal's width (a pipe gets the text as written).
        let text = self.for_screen(&text);
        let text = match self.width {
            Some(width) => render::reflow(&text, width),
            None => text,
        };
        self.page(&text, prompter);
    }

    /// Writes `text` a screenful at a time when it is longer than the terminal is high (the
    /// prompter asks `-- more --` between screenfuls), else at once.
    fn page(&mut self, text: &str, prompter: &mut dyn Prompter) {
        let lines: Vec<&str> = text.lines().collect();
        // One row is kept for the question.
        let rows = match self.height {
            Some(height) if lines.len() >= height => height.saturating_sub(1).max(4),
            _ => {
                let written = write!(self.out, "{text}");
                return self.note(written);
            }
        };
        for (n, screenful) in lines.chunks(rows).enumerate() {
            if n > 0 {
                self.flush();
                if !prompter.more() {
                    return;
                }
            }
            for line in screenful {
                let written = writeln!(self.out, "{line}");
                self.note(written);
            }
        }
    }

    fn quit(&mut self, prompter: &mut dyn Prompter) -> Flow {
        if self.interactive && self.session.is_dirty() && !self.session.game().is_over() {
            let answer =
                prompter.ask("the game is not saved; quit anyway? [y/N] (or type a file name to save and quit) ");
            // Nobody to answer (end of input): quit.
            let Some(answer) = answer else { return Flow::Quit };
            let answer = answer.trim();
            match answer.to_lowercase().as_str() {
                "y" | "yes" => return Flow::Quit,
                "" | "n" | "no" => {}
                _ => {
                    self.save(answer, prompter);
                    if !self.session.is_dirty() {
                        return Flow::Quit;
                    }
                }
            }
            self.say("(not quitting; 'save FILE' keeps the game)");
            return Flow::Continue;
        }
        Flow::Quit
    }

    /// Whether `again` started a new game since the last call.
    pub fn take_restarted(&mut self) -> bool {
        std::mem::take(&mut self.restarted)
    }

    /// `again`: a new game with a new seed, with the same players or the ones named.
    fn again(&mut self, players: Option<&[String]>, prompter: &mut dyn Prompter) {
        if self.interactive && !self.session.game().is_over() && self.session.is_dirty() {
            let answer = prompter.ask("this game is not over; leave it and start a new one? [y/N] ");
            if !answer.is_some_and(|a| matches!(a.trim().to_lowercase().as_str(), "y" | "yes")) {
                self.say("(the game goes on)");
                return;
            }
        }
        let seating = match players {
            Some(list) => match super::seating(Some(list)) {
                Ok(seating) => seating,
                Err(e) => return self.error(&e.to_string().replacen("--players: ", "", 1)),
            },
            None => {
                let game = self.session.game();
                game.names()
                    .iter()
                    .zip(self.session.bots())
                    .map(|(name, bot)| super::session::Seating { name: name.clone(), bot: bot.clone() })
                    .collect()
            }
        };
        // 52 bits, as for a new game from the command line.
        let seed = rand::random::<u64>() >> 12;
        let spec = self.session.spec().to_string();
        match Session::new(&spec, seating, seed, None) {
            Ok(session) => {
                self.session = session;
                let current = self.session.game().current();
                self.viewer = if self.session.is_bot(current) {
                    (0..self.session.game().player_count()).find(|&s| !self.session.is_bot(s))
                } else {
                    Some(current)
                };
                if !self.interactive {
                    self.viewer = None;
                }
                self.restarted = true;
                self.held_seed = None;
                self.say_json(json!({ "event": "seeded", "seed": seed }));
                let names = self.session.game().names().join(", ");
                if self.hot_seat() {
                    // Not even flashed before the hand-over: recordings and scrollback keep it.
                    self.held_seed = Some(seed);
                    self.say(&format!("a new game: {names} (its seed is shown when it ends)"));
                } else {
                    self.say(&format!("a new game: {names}; seed {seed} (replay with --seed {seed})"));
                }
                self.start();
            }
            Err(e) => self.error(&e),
        }
    }

    /// The end of a game in a few lines: who won and in how many turns, and for each diver
    /// their rescues (where the oxygen ran out) and their longest dive.
    pub fn summary(&mut self) {
        let mut lines = summary_lines_styled(&self.session, self.style);
        if let Some(seed) = self.held_seed.take() {
            lines.push(format!("seed {seed} (replay with --seed {seed})"));
        }
        lines.push(super::replay::AFTER_GAME.into());
        for line in lines {
            self.say(&line);
        }
    }

    /// Narration of what happened since `seat` last moved (for a hot-seat hand-over).
    pub fn recap(&mut self, seat: Seat) {
        let entries = self.session.entries();
        let from = entries.iter().rposition(|e| e.seat == seat).map_or(0, |i| i + 1);
        let events: Vec<Event> = entries[from..].iter().flat_map(|e| e.events.iter().cloned()).collect();
        let lines = self.narrate(&events, false);
        if !lines.is_empty() {
            let name = self.session.game().name(seat).to_string();
            self.say(&self.style.dim(&format!("{name}, since your last turn:")));
            for line in lines {
                self.say(&format!("  {line}"));
            }
        }
    }
}

/// The `moves` listing as a terminal shows it, for the current player's legal `actions`:
/// each play with a preview of its outcome as `reader` may see it, the recoveries in one
/// line, laid out for `columns` (`None`: not wrapped). Shared by the shell and the game
/// server, so a remote seat reads the same listing.
pub fn moves_lines(
    session: &Session,
    actions: &[Action],
    style: Style,
    reader: Viewer,
    columns: Option<usize>,
) -> Vec<String> {
    let game = session.game();
    if game.is_over() {
        return vec!["no moves: the game is over".to_string()];
    }
    let mut plays: Vec<(String, String)> = Vec::new();
    let mut recoveries = 0;
    let mut knotted = false;
    // Whether a recovery now gains nothing (a K in front), as the engine plays one.
    let mut gains_nothing = false;
    let mut over_too = false;
    for a in actions {
        match a {
            Action::Recover { face_on_top, .. } => {
                if recoveries == 0 {
                    let me = game.current();
                    gains_nothing = session.preview(a).is_some_and(|events| {
                        events.iter().any(|e| matches!(e, Event::Knotted { player } if *player == me))
                    });
                }
                recoveries += 1;
                knotted |= *face_on_top;
            }
            // The same play with the used J on top of the pile: one line, with a note.
            Action::Play { face_on_top: true, card, from, target }
                if actions.contains(&Action::Play {
                    card: *card,
                    from: *from,
                    target: *target,
                    face_on_top: false,
                }) =>
            {
                over_too = true;
            }
            _ => {
                let outcome = session.preview(a).map(|ev| render::preview(game, &ev, reader));
                plays.push((render::command_for(game, a), outcome.unwrap_or_default()));
            }
        }
    }
    let (arrow, dash) = if style.unicode { ("→", "—") } else { ("->", "-") };
    let width = plays.iter().map(|(c, _)| c.chars().count()).max().unwrap_or(0);
    let mut lines: Vec<String> = plays
        .into_iter()
        .map(|(command, outcome)| {
            if outcome.is_empty() {
                format!("  {command}")
            } else {
                let pad = " ".repeat(width - command.chars().count());
                let lead = format!("  {command}{pad}  {arrow} ");
                // On a narrow terminal the outcome continues under itself, not under the
                // command (when that leaves it room).
                let lead_width = render::display_width(&lead);
                match columns {
                    Some(w) if lead_width + render::display_width(&outcome) > w && lead_width + 20 <= w => {
                        let wrapped = render::wrap(&outcome, w - lead_width);
                        let mut lines = wrapped.lines();
                        let mut text = format!("{lead}{}", lines.next().unwrap_or_default());
                        for more in lines {
                            text += &format!("\n{}{}", " ".repeat(lead_width), more.trim_start());
                        }
                        text
                    }
                    _ => format!("{lead}{outcome}"),
                }
            }
        })
        .collect();
    if recoveries > 0 {
        let hand = &game.player(game.current()).hand;
        let cards = if style.unicode { "CARD…" } else { "CARD..." };
        let mut line = format!("  recover {cards} {dash} any 1 to {} of {}", hand.len(), Style::PLAIN.cards(hand));
        if gains_nothing {
            line += " (knotted: gains no oxygen, uses up the K; 'over' puts the K on top)";
        } else if knotted {
            line += " ('over' puts the K on top)";
        } else {
            line += " (more of one suit, more oxygen: 'help recover')";
        }
        lines.push(line);
    }
    lines.insert(0, format!("legal moves for {}:", game.name(game.current())));
    if over_too {
        lines.push("  (a number card uses up the J in front of you: add 'over' to put the J on top of it)".into());
    }
    // Laid out for the reader's width here, not by whoever prints them: the server sends these
    // lines to a terminal as they are.
    match columns {
        Some(w) => lines.iter().map(|line| render::wrap(line, w)).collect(),
        None => lines,
    }
}

/// The end of a game in a few lines (see [`Shell::summary`]), cards written plainly (`10S`);
/// shared with the game server.
pub fn summary_lines(session: &Session) -> Vec<String> {
    summary_lines_styled(session, Style::PLAIN)
}

/// [`summary_lines`] with cards written in `style`, as the narration writes them (`10♠`).
pub fn summary_lines_styled(session: &Session, style: Style) -> Vec<String> {
    let game = session.game();
    let rules = game.rules();
    let head = match game.outcome() {
        crate::core::Outcome::Won(w) => format!("{} won in {} turns.", game.name(w), game.turn()),
        _ => format!("a draw after {} turns.", game.turn()),
    };
    let mut lines = vec![head];
    for seat in 0..game.player_count() {
        let mut rescues = Vec::new();
        let mut best: Option<(u32, String)> = None;
        let mut replay_depth = None;
        for entry in session.entries() {
            for ev in &entry.events {
                match ev {
                    Event::Moved { player, from, to } if *player == seat => {
                        replay_depth = Some(*to);
                        if entry.seat == seat && to > from && best.as_ref().is_none_or(|(d, _)| to - from > *d) {
                            let command = match &entry.action {
                                Action::Play { card, .. } => style.card(*card),
                                _ => String::new(),
                            };
                            best = Some((to - from, command));
                        }
                    }
                    Event::Rescued { player, .. } if *player == seat => {
                        rescues.push(rules.show_depth(replay_depth.unwrap_or(0)));
                    }
                    _ => {}
                }
            }
        }
        let mut line = format!("  {}: depth {}", game.name(seat), rules.show_depth(game.player(seat).depth));
        line += &match rescues.len() {
            0 => ", never rescued".to_string(),
            1 => format!(", rescued once (out of oxygen at depth {})", rescues[0]),
            n => format!(", rescued {n} times (out of oxygen at depth {})", rescues.join(", ")),
        };
        if let Some((gain, card)) = best {
            line += &format!(", longest dive {gain} with {card}");
        }
        lines.push(line);
    }
    if game.players().iter().enumerate().any(|(s, _)| lines[s + 1].contains("rescued "))
        && matches!(game.outcome(), crate::core::Outcome::Won(_))
    {
        lines.push("(a rescue sends a diver back to depth 0: watch the oxygen column of 'moves')".into());
    }
    lines
}

/// A `play` command made into an action for the current player: ready, or waiting for the
/// player to name a target among `options` (the card's own `question`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Play {
    Ready(Action),
    Ask { action: Action, options: Vec<Seat>, question: String },
}

/// The pieces of a `play` command as an action for the current player of `game`: the source
/// found (hand first, then the table), the target named, made when there is one choice, or
/// asked for. Shared by the shell and the game server, so both read a command alike.
pub fn play_action(game: &Game, card: Card, place: Place, target: Option<Who>, over: bool) -> Result<Play, String> {
    if game.is_over() {
        return Err(ActionError::GameOver.to_string());
    }
    let in_hand = game.player(game.current()).hand.contains(&card);
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
        let names: Vec<String> = options.iter().map(|&s| game.name(s).to_string()).collect();
        // The card's entry words the question (a mod's card asks its own).
        let role = game.registry().target_question(card.rank);
        let question = format!("{card}: {role}? ({})", render::or_list(&names));
        return Ok(Play::Ask { action, options, question });
    }
    Ok(Play::Ready(action))
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

/// The text of `help` (no topic) or `help TOPIC`; `Err` names the commands when there is no
/// such topic.
pub fn help_text(topic: Option<&str>, game: &Game) -> Result<String, String> {
    match topic {
        None => Ok(general_help()),
        Some(t) if t.eq_ignore_ascii_case("rules") => Ok(render::rules_guide(game.rules(), game.registry())),
        Some(t) => match (parse::command_word(t), card_topic(t)) {
            // `help q`: the Quick card (as `help Q`), and what the one-letter command is.
            (Some(word), Some(rank)) if t.chars().count() == 1 => Ok(format!(
                "{}('{t}' typed alone, as a command, is short for '{word}': 'help {word}')\n",
                render::card_help(rank, game.rules(), game.registry())
            )),
            (Some(word), _) => Ok(command_help(word, game.rules())),
            (None, Some(rank)) => Ok(render::card_help(rank, game.rules(), game.registry())),
            (None, None) => Err(format!(
                "no help for '{}' (help rules, help J, help Q, help K, or a command: {})",
                limits::quoted(t),
                COMMANDS.iter().map(|(w, _)| *w).collect::<Vec<_>>().join(", ")
            )),
        },
    }
}

/// `~/x` as a path in the home directory (the shell would have done it had it seen the name).
fn expand_home(file: &str) -> std::path::PathBuf {
    match (file.strip_prefix("~/"), std::env::var_os("HOME").filter(|h| !h.is_empty())) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ if file == "~" => std::path::PathBuf::from(file),
        _ => std::path::PathBuf::from(file),
    }
}

/// `text` as a shell word: as it is when it holds nothing a shell reads, else in single quotes.
fn shell_quoted(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c)) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// A card or rank named as a help topic: `J`, `jolt`, `QH`, `7`, `number`.
fn card_topic(topic: &str) -> Option<crate::core::Rank> {
    let t = topic.to_lowercase();
    let word = match t.as_str() {
        "jolt" | "j" => "J",
        "quick" | "q" => "Q",
        "knot" | "k" => "K",
        "number" | "numbers" | "a" | "ace" => "A",
        other => other,
    };
    if let Ok(card) = word.parse::<Card>() {
        return Some(card.rank);
    }
    // A rank alone: try it with a suit.
    format!("{word}s").parse::<Card>().ok().map(|c| c.rank)
}

fn general_help() -> String {
    command_list_help(COMMANDS)
}

/// The help's list of `commands`, with how cards and players are named.
pub fn command_list_help(commands: &[(&str, &str)]) -> String {
    let mut out = String::from("commands (any case; a line that starts with a card plays it):\n");
    for (word, summary) in commands {
        out += &format!("  {word:<8} {summary}\n");
    }
    out += "cards are rank then suit: 7H, 10S or TS, QC, A♠. players by name or seat number.\n";
    out += "'help COMMAND' tells more, e.g. 'help play'; 'help rules' explains the game, 'help J' a card.\n";
    out
}

fn command_help(word: &str, rules: &crate::core::Rules) -> String {
    let recovery: Vec<String> = rules
        .recovery
        .iter()
        .map(|(p, g)| {
            let g = match g {
                crate::core::Gain::Max => "max".to_string(),
                g => g.to_string(),
            };
            format!("{p}: {g}")
        })
        .collect();
    match word {
        "play" => "\
play CARD [table|tN] [PLAYER] [over]
  Play CARD from your hand (then draw), or from the table (then the slot is refilled).
  table, tN   take it from the table (tN or 'table N': slot N); without it, the card comes
              from your hand, or from the table when it is not in your hand
  hand        take it from your hand
  PLAYER      who gets your J (Jolt) or K (Knot), or who your Quick pushes down when this
              number card uses your Q; a name or seat number. Asked for when there is a
              choice, made for you when there is only one.
  over        when this number card uses up a J in front of you: the J goes on top of it on
              the discard pile (without 'over' it goes below)
  examples:   play 7h · play qd t3 · play js bob · play 5c 2 · play 9s over · 7h
"
        .to_string(),
        "recover" => format!(
            "\
recover CARD… [over]
  Discard these cards from your hand (in this order: the last one ends on top), draw as many,
  and gain oxygen by their suits (suit pattern: gain): {}.
  over   when a K (Knot) in front of you is used up: the K goes on top (default: below)
  example: recover 2h 9h 3s
",
            recovery.join(", ")
        ),
        "pass" => {
            "pass\n  Pass your turn: allowed only when you have no cards and no table card can be played.\n".into()
        }
        "moves" => "moves\n  List every legal move, written as the command that plays it.\n".into(),
        "state" => "state\n  Show the board: divers, table, discard pile, deck and your hand.\n".into(),
        "hand" => "hand\n  Show your hand.\n".into(),
        "log" => "log\n  Show everything that happened in this game so far.\n".into(),
        "undo" => "\
undo
  Take back your last move (and the bots' moves after it): only your own move, so in a
  hot-seat game it is refused once another player moved after you.
  At a terminal, undo never lets anyone choose again knowing a card they could not have
  known, so it is refused:
  - once the moves to take back drew a card from the deck or refilled a table slot (playing
    again would draw the very same card): that is almost every move, so undo mostly takes
    back a pass or a move made when the deck is empty;
  - once a bot played or recovered with cards from its hand since (you saw them);
  - once the game is over (every hand has been shown): type 'again' for a new game.
  This holds with several people at one terminal and against bots alike. Before a move that
  would get you rescued, the game asks first. Scripts (--script, a pipe, --json) see every
  card anyway and undo freely.
"
        .into(),
        "save" => "\
save FILE
  Save the game to FILE; resume it with: diving --load FILE. Every save is a replay too
  (also after the game is over): watch it with diving replay FILE [--as SEAT | --all].
  The file shows every hand, the seed and the deck: keep it from the players.
"
        .into(),
        "reload" => "\
reload
  Read the ruleset (and its mods) again and replay this game under it; tells the first move
  whose outcome changed. The game goes on under the reloaded ruleset.
"
        .into(),
        "hint" | "review" => super::hint::help(word),
        "help" => "help [COMMAND]\n  List the commands, or explain one.\n".into(),
        "quit" => "quit\n  Leave the game (asks first when it is not saved).\n".into(),
        "again" => "\
again [PLAYER,PLAYER…]   (also: new)
  Deal a new game, on a new seed, under the same ruleset: for the same players, or for the
  players named as --players names them (alice,bob,bot:greedy). Asks first when the game in
  play is not over and not saved.
"
        .into(),
        // Every command word has its entry above; the summary line is the fallback.
        _ => match COMMANDS.iter().find(|(name, _)| *name == word) {
            Some((name, summary)) => format!("{name}\n  {summary}\n"),
            None => format!("{word}\n"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `help WORD` explains every command in a paragraph of its own (`help again` used to
    /// print only the word).
    #[test]
    fn every_command_has_its_own_help() {
        let rules = crate::core::Rules::default();
        for (name, summary) in COMMANDS {
            let help = command_help(name, &rules);
            assert!(help.starts_with(name), "{name}: {help}");
            assert_ne!(help, format!("{name}\n  {summary}\n"), "{name} has only its summary line");
            assert!(help.lines().count() >= 2, "{name}: {help}");
        }
    }
}
