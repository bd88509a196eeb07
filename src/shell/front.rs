//! The line loop shared by scripts and the terminal: feeds each line to the [`Table`], asks
//! the table's questions through a [`Prompter`], and writes each reply as text or JSON Lines
//! ([`Table::render`]) for the reader at this end.
//!
//! It never reads input itself (the caller feeds lines) and never asks the terminal anything
//! except through a [`Prompter`], so the same code serves a pipe, a script file, the REPL and
//! the tests. It interprets no command: [`Table::line`] does, under [`Policy::script`] or
//! [`Policy::terminal`]. What it keeps is the terminal's: who is at the keyboard (in hot-seat
//! play only that seat's hand is shown), the width, and a new game's seed held back until the
//! game ends when several people share the screen.

use std::io::Write;

use serde_json::json;

use crate::core::{Event, Seat, Viewer};
use crate::shell::autosave::{Autosave, NotKept, Resumed};
use crate::shell::interrupt::Held;
use crate::table::command::Listener;
use crate::table::notice::Happening;
use crate::table::parse::Command;
use crate::table::render::{self, Style};
use crate::table::reply::summary_lines_styled;
use crate::table::session::Session;
use crate::table::{Caller, Look, Policy, Question, Rendered, Reply, Table};

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

    /// Between two screenfuls of a long text (`help rules`, `log`), having shown its lines up
    /// to `shown` of `total`: what to show next (a terminal asks `-- more --`). Without a
    /// screen to fill, everything is shown.
    fn more(&mut self, shown: usize, total: usize) -> More {
        let _ = (shown, total);
        More::Page
    }
}

/// The answer at `-- more --`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum More {
    /// The next screenful.
    Page,
    /// The screenful before the one shown.
    Back,
    /// No more of this text.
    Stop,
}

/// For scripts: nobody to ask.
pub struct NoPrompter;

impl Prompter for NoPrompter {
    fn ask(&mut self, _question: &str) -> Option<String> {
        None
    }
}

/// A game being played through text commands: the table, and this end's screen.
pub struct Shell<W: Write> {
    table: Table,
    pub screen: Screen<W>,
}

/// This end of the table: where replies are written, and who reads them.
pub struct Screen<W: Write> {
    out: W,
    json: bool,
    style: Style,
    /// A person at a terminal (not a script): hands are kept secret, quit asks first.
    interactive: bool,
    /// The seat whose hand may be shown; `None`: every hand (scripts), unless `public`.
    pub viewer: Option<Seat>,
    /// A reader who may see no hand and make no move (a hot-seat game's save opened in a
    /// pipe): the table's spectator.
    public: bool,
    /// The game kept on disk as it goes (the terminal's autosave), written before each
    /// change is shown.
    autosave: Option<Autosave>,
    /// The autosave failed: the table must be told the game is no longer kept.
    unkept: bool,
    /// The terminal's width in columns: narration and help are wrapped at word boundaries
    /// and the board is laid out for it. `None` (scripts): nothing is wrapped.
    pub width: Option<usize>,
    /// The terminal's height in rows: a help longer than the screen is shown a screenful at a
    /// time. `None` (scripts, pipes): all of it at once.
    pub height: Option<usize>,
    /// A text longer than the screen (a help, the log), whole, and how many of its lines are
    /// shown: the rest comes after `-- more --`.
    paged: Vec<String>,
    paged_shown: usize,
    /// Set when `again` started a new game (the terminal then hands over afresh).
    restarted: bool,
    /// A new game's seed kept back in hot-seat play (it would give every hand away to a
    /// player who replays it with `--seed` in a pipe): said when the game ends.
    held_seed: Option<u64>,
    /// The first write that failed (the reader went away, the disk is full …): nobody is
    /// listening, so the caller should stop feeding lines, and [`Shell::finish`] reports it.
    write_error: Option<std::io::Error>,
    /// The question the table asked during the last line, to prompt for.
    asked: Option<Question>,
    /// The table said the caller leaves.
    quit: bool,
}

impl<W: Write> Shell<W> {
    /// A shell for a script or pipe: every hand visible, no questions.
    pub fn script(session: Session, out: W, json: bool) -> Shell<W> {
        let policy = Policy::script(session.hints());
        Shell { table: Table::new(session, policy), screen: Screen::new(out, json, Style::PLAIN, false, None, None) }
    }

    /// A shell for a pipe or a script that may see no hand and make no move (a hot-seat
    /// game's save opened there): it watches as the public does.
    pub fn public(session: Session, out: W, json: bool) -> Shell<W> {
        let mut shell = Shell::script(session, out, json);
        shell.screen.public = true;
        shell
    }

    /// Keeps the game on disk as it goes ([`Autosave`]): in the kept file it was resumed
    /// from, else in a new one. Notices other programs recorded about it are taken in.
    pub fn keep_on_disk(&mut self, resumed: Option<Resumed>) -> Result<(), NotKept> {
        let autosave = Autosave::start(self.session(), resumed)?;
        autosave.take_notices(self.table.session_mut());
        self.screen.autosave = Some(autosave);
        self.table.set_kept(true);
        Ok(())
    }

    /// Where the game is kept on disk, if it is.
    pub fn kept_in(&self) -> Option<&std::path::Path> {
        self.screen.autosave.as_ref().map(Autosave::path)
    }

    /// Writes the kept game if it changed (a notice told, a move): nothing is lost if the
    /// program ends now.
    pub fn commit(&mut self) {
        self.screen.keep(&self.table);
        if std::mem::take(&mut self.screen.unkept) {
            self.table.set_kept(false);
        }
    }

    /// Keeps a notice of `what`, done by whoever has the keyboard (nobody, at a hand-over),
    /// and writes it to disk.
    pub fn note(&mut self, what: Happening, at_hand_over: bool) {
        let by = if at_hand_over { None } else { self.screen.viewer };
        self.table.session_mut().note(by, what);
        self.commit();
    }

    /// Tells `seat` what happened to the game while they were away (a save made, a reload,
    /// the game resumed …) that they were not told yet.
    pub fn tell(&mut self, seat: Seat) {
        if let Some(autosave) = &self.screen.autosave {
            autosave.take_notices(self.table.session_mut());
        }
        let notices = self.table.session_mut().untold(seat);
        if notices.is_empty() {
            return;
        }
        let name = self.session().game().name(seat).to_string();
        let head = self.screen.style.bold(&format!("{name}, while you were away:"));
        self.say(&head);
        for notice in notices {
            let text = notice.text(self.session().game());
            self.say(&format!("  - {text}"));
        }
        self.commit();
    }

    /// A shell for a person at a terminal: the hand shown is the current player's, or the
    /// first person's while bots move.
    pub fn interactive(session: Session, out: W, style: Style) -> Shell<W> {
        let policy = Policy::terminal(session.hints());
        let viewer = keyboard_seat(&session);
        Shell { table: Table::new(session, policy), screen: Screen::new(out, false, style, true, viewer, Some(80)) }
    }

    /// The game with its history.
    pub fn session(&self) -> &Session {
        self.table.session()
    }

    /// The game's session, to change outside a command (tests, a save's mark).
    pub fn session_mut(&mut self) -> &mut Session {
        self.table.session_mut()
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn style(&self) -> Style {
        self.screen.style
    }

    pub fn is_json(&self) -> bool {
        self.screen.json
    }

    /// A person at a terminal (not a script).
    pub fn is_interactive(&self) -> bool {
        self.screen.interactive
    }

    /// More than one person shares this terminal.
    pub fn hot_seat(&self) -> bool {
        self.screen.interactive && self.session().humans() > 1
    }

    /// Announces a new game's random seed: at once, or, in hot-seat play, once the game is
    /// over ([`Shell::summary`]), since the seed gives every hand and every draw away.
    pub fn announce_seed(&mut self, seed: u64) {
        if self.hot_seat() {
            self.screen.held_seed = Some(seed);
        } else {
            let text = self.screen.style.dim(&format!("seed {seed} (replay with --seed {seed})"));
            self.say(&text);
        }
    }

    /// Who sends this end's commands to the table: at a terminal the person at the
    /// keyboard, who is the seat to move whenever a person is to move (hot-seat play hands
    /// the keyboard over at each turn); a script acts for whoever is to move.
    fn caller(&self) -> Caller {
        let session = self.session();
        let current = session.game().current();
        match self.screen.viewer {
            _ if self.screen.public => Caller::Spectator,
            _ if !self.screen.interactive => Caller::Script,
            _ if !session.is_bot(current) && !session.game().is_over() => Caller::Seat(current),
            Some(seat) => Caller::Seat(seat),
            None => Caller::Script,
        }
    }

    /// Who is reading the screen now: the seat at the keyboard in hot-seat play (everyone
    /// once the game is over), else everyone (a script or a lone player sees it all).
    pub fn reader(&self) -> Viewer {
        self.screen.reader(&self.table)
    }

    pub fn out(&mut self) -> &mut W {
        &mut self.screen.out
    }

    /// Whether a write has failed: the reader is gone, so there is no one to answer.
    pub fn output_closed(&self) -> bool {
        self.screen.write_error.is_some()
    }

    /// Flushes, then reports the first write that failed, if one did: a failed write is an
    /// error (a closed pipe too; `main` keeps that one silent).
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.flush();
        match self.screen.write_error.take() {
            Some(e) => Err(anyhow::Error::new(e).context("cannot write the game's output")),
            None => Ok(()),
        }
    }

    /// Writes a line of text (text mode) — ignored in JSON mode.
    pub fn say(&mut self, text: &str) {
        self.screen.say(text);
    }

    /// Writes one JSON object (JSON mode) — ignored in text mode.
    pub fn say_json(&mut self, value: impl serde::Serialize) {
        self.screen.say_json(value);
    }

    /// Reports a rejected command: `error: …` or `{"error": …}`. The message can quote a mod,
    /// a save or a ruleset: in text it is [`crate::limits::shown`] on one line, so it can
    /// neither drive the terminal nor pass for a line of narration (JSON escapes it already).
    pub fn error(&mut self, message: &str) {
        if self.screen.json {
            self.say_json(json!({ "error": message }));
        } else {
            let text = self.screen.look().error(message);
            self.screen.write_line(&text);
        }
    }

    pub fn flush(&mut self) {
        let flushed = self.screen.out.flush();
        self.screen.note(flushed);
    }

    /// Narrates events (text) or prints one object per event (JSON).
    pub fn events(&mut self, events: &[Event]) {
        let rendered = self.table.events(events, self.reader(), &self.screen.look(), !self.screen.interactive);
        self.screen.write(rendered);
    }

    /// Starts the game's output: the first turn, then any bots that move first.
    pub fn start(&mut self) {
        let held = self.screen.interactive.then(Held::new);
        self.table.start(&mut self.screen);
        self.after_ctrl_c(held);
        self.commit();
        self.flush();
    }

    /// Runs one line of input; output is flushed before it returns. At a terminal, Ctrl-C
    /// while it runs (a bot thinking, a hint's search) does not end the program
    /// ([`super::interrupt`]).
    pub fn line(&mut self, line: &str, prompter: &mut dyn Prompter) -> Flow {
        let held = self.screen.interactive.then(Held::new);
        let caller = self.caller();
        self.table.line(caller, line, &mut self.screen);
        self.page(prompter);
        let flow = self.answers(prompter);
        self.after_ctrl_c(held);
        self.commit();
        self.flush();
        flow
    }

    /// Runs one command (the terminal's own `quit` at the end of input, Ctrl-D).
    pub fn execute(&mut self, command: Command, prompter: &mut dyn Prompter) -> Flow {
        let caller = self.caller();
        self.table.command(caller, command, &mut self.screen);
        let flow = self.answers(prompter);
        self.commit();
        self.flush();
        flow
    }

    /// Lets bots move until a person is to move or the game ends (a game resumed, or
    /// branched, with a bot to move).
    pub fn run_bots(&mut self) {
        self.table.run_bots(&mut self.screen);
        self.commit();
    }

    /// Asks the table's questions through `prompter` and gives the answers back, until the
    /// table asks nothing more; then whether the caller leaves.
    fn answers(&mut self, prompter: &mut dyn Prompter) -> Flow {
        while let Some(question) = self.screen.asked.take() {
            let caller = self.caller();
            let prompt = self.screen.prompt(&question);
            let answer = match &question {
                Question::Target { .. } => prompter.choose(&prompt, question.options()),
                _ => prompter.ask(&prompt),
            };
            match answer {
                Some(answer) => self.table.line(caller, &answer, &mut self.screen),
                None => self.table.unanswered(caller, &mut self.screen),
            }
        }
        if std::mem::take(&mut self.screen.quit) { Flow::Quit } else { Flow::Continue }
    }

    /// Shows a text longer than the screen a screenful at a time, asking `-- more --`
    /// between: on to the next screenful, back to the one before, or stop.
    fn page(&mut self, prompter: &mut dyn Prompter) {
        let lines = std::mem::take(&mut self.screen.paged);
        let rows = Screen::<W>::page_rows(self.screen.height);
        // The screen shows the lines from `top` to `shown`.
        let mut shown = std::mem::take(&mut self.screen.paged_shown);
        let mut top = shown.saturating_sub(rows);
        while shown < lines.len() {
            self.flush();
            let (from, to) = match prompter.more(shown, lines.len()) {
                More::Stop => return,
                More::Page => (shown, (shown + rows).min(lines.len())),
                More::Back => {
                    let from = top.saturating_sub(rows);
                    (from, (from + rows).min(lines.len()))
                }
            };
            for line in &lines[from..to] {
                self.screen.write_line(line);
            }
            (top, shown) = (to.saturating_sub(rows), to);
        }
    }

    /// Says that a Ctrl-C pressed while the shell was busy stopped nothing.
    fn after_ctrl_c(&mut self, held: Option<Held>) {
        if held.is_some_and(|held| held.noted()) {
            let text =
                self.screen.style.dim("(Ctrl-C: the game goes on, nothing was left half-done; type 'quit' to leave)");
            self.say(&text);
        }
    }

    /// The board as text, with the hands this reader may see.
    pub fn board(&self) -> String {
        self.table.board(self.reader(), &self.screen.look())
    }

    /// Whether `again` started a new game since the last call.
    pub fn take_restarted(&mut self) -> bool {
        std::mem::take(&mut self.screen.restarted)
    }

    /// The end of a game in a few lines: who won and in how many turns, and for each diver
    /// their rescues (where the oxygen ran out) and their longest dive.
    pub fn summary(&mut self) {
        let mut lines = summary_lines_styled(self.session(), self.screen.style);
        if let Some(seed) = self.screen.held_seed.take() {
            lines.push(format!("seed {seed} (replay with --seed {seed})"));
        }
        lines.push(crate::table::replay::AFTER_GAME.into());
        for line in lines {
            self.say(&line);
        }
    }

    /// Narration of what happened since `seat` last moved (for a hot-seat hand-over).
    pub fn recap(&mut self, seat: Seat) {
        let entries = self.session().entries();
        let from = entries.iter().rposition(|e| e.seat == seat).map_or(0, |i| i + 1);
        let events: Vec<Event> = entries[from..].iter().flat_map(|e| e.events.iter().cloned()).collect();
        let rendered = self.table.events(&events, self.reader(), &self.screen.look(), false);
        if !rendered.text.is_empty() {
            let name = self.session().game().name(seat).to_string();
            let head = self.screen.style.dim(&format!("{name}, since your last turn:"));
            self.say(&head);
            for line in rendered.text {
                self.say(&format!("  {line}"));
            }
        }
    }
}

impl<W: Write> Screen<W> {
    fn new(out: W, json: bool, style: Style, interactive: bool, viewer: Option<Seat>, width: Option<usize>) -> Self {
        Screen {
            out,
            json,
            style,
            interactive,
            viewer,
            public: false,
            autosave: None,
            unkept: false,
            width,
            height: None,
            paged: Vec::new(),
            paged_shown: 0,
            restarted: false,
            held_seed: None,
            write_error: None,
            asked: None,
            quit: false,
        }
    }

    /// How this end's text is made.
    fn look(&self) -> Look {
        Look {
            style: self.style,
            width: self.width,
            turn_lines: !self.interactive,
            previews: true,
            board_follows: self.interactive,
        }
    }

    fn reader(&self, table: &Table) -> Viewer {
        match self.viewer {
            _ if self.public => Viewer::Spectator,
            Some(seat) if !table.game().is_over() => Viewer::Seat(seat),
            _ => Viewer::Everyone,
        }
    }

    /// Writes the kept game if it changed; when that fails, says so once and keeps it no
    /// longer (the table then asks before an unsaved game is left).
    fn keep(&mut self, table: &Table) {
        let Some(autosave) = &mut self.autosave else { return };
        if let Err(e) = autosave.keep(table.session()) {
            self.autosave = None;
            self.unkept = true;
            let text = self.look().error(&format!(
                "cannot keep the game on disk ({e}): it is no longer kept as it goes; 'save FILE' keeps it"
            ));
            self.write_line(&text);
        }
    }

    fn note(&mut self, written: std::io::Result<()>) {
        if let Err(e) = written
            && self.write_error.is_none()
        {
            self.write_error = Some(e);
        }
    }

    /// Writes a line of text. At a terminal without Unicode (a C locale) in ASCII, suits as
    /// letters as the board writes them ([`render::ascii`]); after the terminal echoed a
    /// Ctrl-C (`^C`) while the shell was busy, on a line of its own.
    fn write_line(&mut self, text: &str) {
        if self.interactive && super::interrupt::take_echo() {
            let written = writeln!(self.out);
            self.note(written);
        }
        let written = if self.interactive && !self.style.unicode {
            writeln!(self.out, "{}", render::ascii(text))
        } else {
            writeln!(self.out, "{text}")
        };
        self.note(written);
    }

    fn say(&mut self, text: &str) {
        if !self.json {
            let text = self.look().wrap(text);
            self.write_line(&text);
        }
    }

    fn say_json(&mut self, value: impl serde::Serialize) {
        if self.json {
            let text = serde_json::to_string(&value).expect("output serialises");
            self.write_line(&text);
        }
    }

    /// The lines a screenful of a paged text holds: the screen's rows less one for the
    /// question.
    fn page_rows(height: Option<usize>) -> usize {
        height.map_or(usize::MAX, |h| h.saturating_sub(1).max(4))
    }

    /// Writes `rendered`'s text, and when it is longer than the screen only its first
    /// screenful: [`Shell::page`] shows the rest.
    fn write_paged(&mut self, mut rendered: Rendered) {
        let rows = self.height.unwrap_or(usize::MAX);
        if rendered.text.len() >= rows {
            let first = Screen::<W>::page_rows(self.height);
            self.paged_shown = first;
            self.paged = rendered.text.clone();
            rendered.text.truncate(first);
        }
        self.write(rendered);
    }

    /// Writes what the table rendered: the objects in JSON mode, else the text.
    fn write(&mut self, rendered: Rendered) {
        if self.json {
            for object in rendered.json {
                self.say_json(object);
            }
        } else {
            for text in rendered.text {
                self.write_line(&text);
            }
        }
    }

    /// A question as the terminal prompts it.
    fn prompt(&self, question: &Question) -> String {
        match question {
            Question::Target { .. } => format!("{}; Enter: cancel) ", question.text().trim_end_matches(')')),
            Question::YesNo(text) => self.look().wrap(text),
            Question::Quit { .. } => format!("{} ", question.text()),
        }
    }

    /// `again` dealt a new game: who is at the keyboard now, and its seed (held back in
    /// hot-seat play: not even flashed before the hand-over, since recordings and scrollback
    /// keep it).
    fn new_game(&mut self, table: &Table, seed: u64) {
        let session = table.session();
        // The game left stays kept (if it had a move); the new one is kept from now on.
        if self.autosave.take().is_some() {
            match Autosave::start(session, None) {
                Ok(autosave) => self.autosave = Some(autosave),
                Err(e) => {
                    self.unkept = true;
                    let text =
                        self.look().error(&format!("cannot keep the new game on disk ({e}); 'save FILE' keeps it"));
                    self.write_line(&text);
                }
            }
        }
        self.viewer = if self.interactive { keyboard_seat(session) } else { None };
        self.restarted = true;
        self.held_seed = None;
        self.say_json(json!({ "event": "seeded", "seed": seed }));
        let names = session.game().names().join(", ");
        if self.interactive && session.humans() > 1 {
            self.held_seed = Some(seed);
            self.say(&format!("a new game: {names} (its seed is shown when it ends)"));
        } else {
            self.say(&format!("a new game: {names}; seed {seed} (replay with --seed {seed})"));
        }
    }
}

impl<W: Write> Listener for Screen<W> {
    /// Writes each reply as it happens (a bot's move as soon as it is made), for the reader
    /// at the keyboard; a question is kept to prompt for.
    fn reply(&mut self, table: &Table, reply: Reply) {
        // A change is on disk before it is shown (a closed window then loses nothing the
        // players saw).
        if matches!(
            reply,
            Reply::Moved { .. } | Reply::Undone(_) | Reply::Reloaded(_) | Reply::Saved { .. } | Reply::Quit
        ) {
            self.keep(table);
        }
        match reply {
            Reply::Quit => self.quit = true,
            Reply::Question(question) => self.asked = Some(question),
            Reply::NewGame { seed } => self.new_game(table, seed),
            // A help at a terminal: filled for its width (in ASCII first, where it has no
            // Unicode: `…` is three columns then), and when longer than the screen, a
            // screenful now and the rest after `-- more --` (a row is kept for the question).
            Reply::Help(_) if self.interactive && !self.json => {
                let look = Look { width: None, ..self.look() };
                let mut rendered = table.render(&reply, self.reader(table), &look);
                let text = rendered.text.join("\n");
                let text = if self.style.unicode { text } else { render::ascii(&text) };
                let text = match self.width {
                    Some(width) => render::reflow(&text, width),
                    None => text,
                };
                rendered.text = text.lines().map(String::from).collect();
                self.write_paged(rendered);
            }
            // The log at a terminal: every turn this reader may see, paged like a help (on
            // the alternate screen of a hot-seat turn nothing scrolls back).
            Reply::Log if self.interactive && !self.json => {
                let rendered = table.render(&reply, self.reader(table), &self.look());
                let lines: Vec<String> = rendered.text.iter().flat_map(|t| t.lines()).map(String::from).collect();
                self.write_paged(Rendered { text: lines, ..rendered });
            }
            reply => {
                let rendered = table.render(&reply, self.reader(table), &self.look());
                self.write(rendered);
            }
        }
    }
}

/// The seat at the keyboard: the current player's, or the first person's while bots move.
fn keyboard_seat(session: &Session) -> Option<Seat> {
    let current = session.game().current();
    if session.is_bot(current) {
        (0..session.game().player_count()).find(|&s| !session.is_bot(s))
    } else {
        Some(current)
    }
}
