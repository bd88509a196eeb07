//! `diving replay FILE`: a recorded game (any save file) stepped through move by move, the
//! board and the narration at every step, seen from one viewpoint; `hint` and `review` on
//! the way, `branch` to play on from the shown position, `--html` to write it as a page.
//!
//! A viewpoint is a [`Viewer`], so what the replay shows is decided where everything else's
//! is: the public view (no hand, the default), one seat's (`--as SEAT`: its own hand and
//! draws), or every hand (`--all`). A seat's view and every hand are only for a finished
//! game, whose hands were all shown at its end: an unfinished game is watched as the public
//! sees it, and `branch` is refused until it is over (a live game shows the real hands).
//! `hint` and `review` only judge seats whose hand the viewpoint sees, since the search
//! bot's moves name cards of the mover's hand.
//!
//! Each position is headed by its move and the turn that move was played in, as `log`
//! numbers turns. At a terminal the viewer reads lines through the shell's line editor
//! ([`Terminal`]: ↑ and Ctrl-R over what was typed in this viewer, kept in memory only,
//! Ctrl-L, Tab over the viewer's commands) and lays its narration, help and errors out for
//! the terminal's width, read again after every line (a resize counts from the next
//! command); a script or pipe reads plain lines and gets the text as written.

use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use rustyline::error::ReadlineError;
use serde_json::json;

use crate::core::{Game, Outcome, Viewer};
use crate::limits::{self, Line, Lines, MAX_LINE_BYTES};
use crate::table::hint::{self, HINT_PLAYOUTS, REVIEW_PLAYOUTS};
use crate::table::json::{self as js, Object};
use crate::table::render::{self, Style};
use crate::table::replay::Replay;
use crate::table::save;
use crate::table::session::Session;

use super::terminal::{self, Terminal};

/// The viewer's command words, as Tab completes them.
const COMMAND_WORDS: [&str; 11] =
    ["next", "prev", "goto", "start", "end", "board", "hint", "review", "branch", "help", "quit"];

/// `diving replay`'s options, as plain values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    pub file: PathBuf,
    /// `--as SEAT`: a player's name or seat number.
    pub seat: Option<String>,
    /// `--all`: every hand (a finished game only).
    pub all: bool,
    /// `--html FILE`: write the page and stop.
    pub html: Option<PathBuf>,
    /// Read the viewer's commands from this file.
    pub script: Option<PathBuf>,
    pub no_color: bool,
}

/// `diving replay`.
pub fn run(ruleset: Option<&str>, json: bool, options: &ReplayOptions) -> anyhow::Result<ExitCode> {
    let file = save::read(&options.file)?;
    let (mut replay, notes) =
        Replay::open(file, &options.file, ruleset, options.seat.as_deref(), options.all).map_err(anyhow::Error::msg)?;
    for note in &notes {
        let _ = writeln!(io::stderr(), "note: {}", limits::shown(note, limits::NewLines::Escaped));
    }
    if let Some(out) = &options.html {
        let title = options.file.file_name().map_or("game".into(), |n| n.to_string_lossy().into_owned());
        let page = crate::table::html::page(&replay, &title);
        std::fs::write(out, page).with_context(|| format!("cannot write {}", out.display()))?;
        let line = if json {
            json!({ "wrote": out.display().to_string(), "moves": replay.moves(),
                "viewpoint": viewpoint_word(replay.viewer, replay.game()) })
            .to_string()
        } else {
            format!("wrote {} ({} moves, seen {})", out.display(), replay.moves(), replay.viewpoint())
        };
        writeln!(io::stdout(), "{line}").context("cannot write to standard output")?;
        return Ok(ExitCode::SUCCESS);
    }
    let interactive = !json && options.script.is_none() && io::stdin().is_terminal();
    let input: Box<dyn BufRead> = match &options.script {
        Some(path) => Box::new(BufReader::new(
            limits::open_regular(path).with_context(|| format!("cannot read script {}", path.display()))?,
        )),
        // At a terminal the line editor reads the keyboard.
        None if interactive => Box::new(io::empty()),
        None => Box::new(io::stdin().lock()),
    };
    let style = if interactive { super::terminal_style(options.no_color) } else { Style::PLAIN };
    let mut viewer = Viewing {
        out: io::stdout().lock(),
        json,
        style,
        width: interactive.then(terminal::columns),
        file: options.file.display().to_string(),
    };
    viewer.open(&replay);
    let mut lines = Lines::new(input);
    // At a terminal the viewer reads lines as the shell does (↑ and Ctrl-R for what was
    // typed, Ctrl-L to clear, Tab for its commands); its history is kept in memory only.
    let mut term = interactive.then(|| {
        let term = Terminal::in_memory();
        term.words().lock().unwrap_or_else(|e| e.into_inner()).choices =
            Some(COMMAND_WORDS.iter().map(|w| w.to_string()).collect());
        term
    });
    loop {
        let line = match &mut term {
            Some(term) => {
                let read = term.read(&format!("replay {}/{}> ", replay.at, replay.moves()));
                // Laid out for the terminal as it is now (it may have been resized at the prompt).
                viewer.width = Some(terminal::columns());
                match read {
                    Ok(line) if line.len() > MAX_LINE_BYTES => {
                        let refused = Line::TooLong { bytes: line.len() as u64 };
                        viewer.error(&refused.refusal(1).unwrap_or_default().replacen("line 1", "the line", 1));
                        continue;
                    }
                    Ok(line) => {
                        term.remember(&line);
                        line
                    }
                    Err(ReadlineError::Interrupted) => {
                        viewer.say("(type 'quit' to leave)");
                        continue;
                    }
                    Err(ReadlineError::Eof) => break,
                    Err(e) => bail!("the terminal failed: {e}"),
                }
            }
            None => match lines.next_line() {
                Ok(None) => break,
                Ok(Some(Line::Text(line))) => line,
                Ok(Some(refused)) => {
                    let message = refused.refusal(lines.number()).unwrap_or_default();
                    viewer.error(&message);
                    if refused == Line::Binary {
                        bail!("{message}");
                    }
                    continue;
                }
                Err(e) => bail!("cannot read input after line {}: {e}", lines.number()),
            },
        };
        match viewer.command(&mut replay, &line, interactive)? {
            Next::Go => {}
            Next::Quit => break,
            Next::Branch(session, note) => {
                drop(viewer);
                drop(term);
                return super::play_branch(*session, json, options.no_color, interactive, &note, &mut lines);
            }
        }
    }
    viewer.out.flush().context("cannot write the replay")?;
    Ok(ExitCode::SUCCESS)
}

/// What to do after a command.
enum Next {
    Go,
    Quit,
    Branch(Box<Session>, String),
}

/// The viewer's output.
struct Viewing<W: Write> {
    out: W,
    json: bool,
    style: Style,
    width: Option<usize>,
    file: String,
}

impl<W: Write> Viewing<W> {
    /// `text` as this terminal can show it (see `Shell::for_screen`): in ASCII at a terminal
    /// without Unicode; a script gets it as it is.
    fn for_screen(&self, text: &str) -> String {
        if self.width.is_some() && !self.style.unicode { render::ascii(text) } else { text.to_string() }
    }

    fn say(&mut self, text: &str) {
        if !self.json {
            let text = self.for_screen(text);
            let text = match self.width {
                Some(width) => render::wrap(&text, width),
                None => text,
            };
            let _ = writeln!(self.out, "{text}");
        }
    }

    fn say_json(&mut self, value: impl serde::Serialize) {
        if self.json {
            let _ = writeln!(self.out, "{}", serde_json::to_string(&value).expect("output serialises"));
        }
    }

    fn error(&mut self, message: &str) {
        if self.json {
            self.say_json(json!({ "error": message }));
        } else {
            // As the shell shows one: escaped, on one line, bounded.
            let message = self.for_screen(&limits::shown(message, limits::NewLines::Escaped));
            let label = self.style.error_label();
            // Laid out for the terminal like the narration (at word boundaries, indented).
            let text = match self.width {
                Some(width) => render::wrap(&format!("{label} {message}"), width),
                None => format!("{label} {message}"),
            };
            let _ = writeln!(self.out, "{text}");
        }
    }

    fn open(&mut self, replay: &Replay) {
        let game = replay.game_at(replay.moves());
        let end = match game.outcome() {
            Outcome::Won { .. } => format!("{} won in {} turns", render::winners_text(game), game.turn()),
            Outcome::Draw => format!("a draw after {} turns", game.turn()),
            Outcome::Running => format!("not finished: it stops at turn {}", game.turn()),
        };
        let names = game.names().join(", ");
        self.say_json(json!({ "replay": self.file, "players": game.names(), "moves": replay.moves(),
            "over": game.is_over(), "viewpoint": viewpoint_word(replay.viewer, game) }));
        self.say(&format!(
            "replay of {}: {names}; {} moves, {end}; seen {}. 'help' lists the commands.",
            limits::shown(&self.file, limits::NewLines::Escaped),
            replay.moves(),
            replay.viewpoint()
        ));
        self.show(replay);
    }

    /// The shown position: its heading, narration and board.
    fn show(&mut self, replay: &Replay) {
        let k = replay.at;
        if self.json {
            let game = replay.game_at(k);
            let events: Vec<Object> = replay.events_at(k).iter().map(|e| js::event(game, e, replay.viewer)).collect();
            let state = js::state_for(&crate::core::Observation::of(game, replay.viewer), replay.session.bots());
            self.say_json(
                Object::one("position", json!(k))
                    .with("moves", json!(replay.moves()))
                    .with("events", events)
                    .with("state", state),
            );
            return;
        }
        let dash = if self.style.unicode { "—" } else { "-" };
        self.say(&self.style.bold(&format!("{dash}{dash} {} {dash}{dash}", replay.heading(k))));
        for line in replay.narration(k, self.style) {
            self.say(&line);
        }
        let board = replay.board(k, self.style, self.width);
        let _ = write!(self.out, "{board}");
    }

    fn command(&mut self, replay: &mut Replay, line: &str, interactive: bool) -> anyhow::Result<Next> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else {
            // Enter at the terminal steps on.
            if interactive && replay.at < replay.moves() {
                replay.at += 1;
                self.show(replay);
            }
            return Ok(Next::Go);
        };
        if first.starts_with('#') {
            return Ok(Next::Go);
        }
        let word = first.to_lowercase();
        let arg = words.get(1).copied();
        if words.len() > 2 {
            self.error(&format!("'{word}' takes at most one word after it (found '{}')", words[2]));
            return Ok(Next::Go);
        }
        let count = |arg: Option<&str>| -> Result<usize, String> {
            match arg {
                None => Ok(1),
                Some(n) => n.parse::<usize>().map_err(|_| format!("'{}' is not a number of moves", limits::quoted(n))),
            }
        };
        match word.as_str() {
            "next" | "n" => match count(arg) {
                Ok(_) if replay.at == replay.moves() => self.error("this is the last move ('prev' goes back, 'start' to the start)"),
                Ok(n) => self.go(replay, replay.at.saturating_add(n).min(replay.moves())),
                Err(e) => self.error(&e),
            },
            "prev" | "p" | "back" => match count(arg) {
                Ok(_) if replay.at == 0 => self.error("this is the start ('next' goes on)"),
                Ok(n) => self.go(replay, replay.at.saturating_sub(n)),
                Err(e) => self.error(&e),
            },
            "goto" | "g" => match arg.map(|t| t.parse::<u32>()) {
                Some(Ok(turn)) => match replay.position_of_turn(turn) {
                    Ok(k) => self.go(replay, k),
                    Err(e) => self.error(&e),
                },
                Some(Err(_)) => self.error(&format!(
                    "'{}' is not a turn number (turns count up from 1): goto TURN",
                    limits::shown(arg.unwrap_or_default(), limits::NewLines::Escaped)
                )),
                None => self.error("goto needs a turn number: goto TURN"),
            },
            "start" | "first" => self.go(replay, 0),
            "end" | "last" => self.go(replay, replay.moves()),
            "board" | "state" | "s" => self.show(replay),
            "hint" => self.hint(replay),
            "review" => self.review(replay),
            "branch" => match self.branch(replay) {
                Ok((session, note)) => return Ok(Next::Branch(Box::new(session), note)),
                Err(e) => self.error(&e),
            },
            "help" | "h" | "?" => {
                let text = help_text();
                self.say_json(json!({ "help": text }));
                if !self.json {
                    // Filled again for the terminal's width (a pipe gets the text as written).
                    let text = match self.width {
                        Some(width) => render::reflow(&self.for_screen(&text), width),
                        None => text,
                    };
                    let _ = write!(self.out, "{text}");
                }
            }
            "quit" | "q" | "exit" => return Ok(Next::Quit),
            _ => self.error(&format!(
                "unknown replay command '{}' (next, prev, goto TURN, start, end, board, hint, review, branch, help, quit)",
                limits::quoted(first)
            )),
        }
        let _ = self.out.flush();
        Ok(Next::Go)
    }

    fn go(&mut self, replay: &mut Replay, k: usize) {
        replay.at = k;
        self.show(replay);
    }

    fn hint(&mut self, replay: &Replay) {
        let game = replay.game();
        if game.is_over() {
            return self.error("no hint: the game is over here (try 'review')");
        }
        let seat = game.current();
        if crate::core::Observation::of(game, replay.viewer).hand(seat).is_none() {
            return self.error(&format!(
                "no hint: {} is to move, and this replay does not show their hand (replay --as {})",
                game.name(seat),
                seat + 1
            ));
        }
        if !replay.session.hints() && !replay.session.game().is_over() {
            return self.error("hints are off for this game (it was started with --no-hints)");
        }
        match hint::suggestions(game, replay.session.ruleset(), HINT_PLAYOUTS) {
            Ok(list) => {
                let moves: Vec<serde_json::Value> =
                    list.iter().map(|s| json!({ "move": s.command, "win": s.win, "playouts": s.playouts })).collect();
                self.say_json(
                    json!({ "hint": { "player": game.name(seat), "playouts": HINT_PLAYOUTS, "moves": moves } }),
                );
                for line in hint::hint_lines(game.name(seat), &list, HINT_PLAYOUTS) {
                    self.say(&line);
                }
            }
            Err(e) => self.error(&format!("no hint: {e}")),
        }
    }

    fn review(&mut self, replay: &Replay) {
        let seats = match replay.reviewed_seats() {
            Ok(seats) => seats,
            Err(e) => return self.error(&e),
        };
        if !replay.session.hints() && !replay.session.game().is_over() {
            return self
                .error("hints are off for this game (it was started with --no-hints): review it when it is over");
        }
        let moves = replay.moves();
        let result = hint::review(
            replay.games_before_moves(),
            replay.session.entries(),
            &seats,
            replay.session.ruleset(),
            REVIEW_PLAYOUTS,
        );
        let game = replay.game_at(moves);
        match result {
            Ok((found, looked)) => {
                let list: Vec<serde_json::Value> = found.iter().map(|f| hint::finding_json(game, f)).collect();
                self.say_json(json!({ "review": { "moves": looked, "playouts": REVIEW_PLAYOUTS, "worse": list } }));
                for line in hint::review_lines(game, &found, looked, &seats) {
                    self.say(&line);
                }
            }
            Err(e) => self.error(&format!("cannot review: {e}")),
        }
    }

    /// A live game from the shown position: the deck reshuffled with a new seed, or as it
    /// was when every hand is open.
    fn branch(&mut self, replay: &Replay) -> Result<(Session, String), String> {
        let game = replay.game();
        if game.is_over() {
            return Err("the game is over here: branch from an earlier move ('prev', 'goto TURN')".into());
        }
        if !replay.session.game().is_over() {
            // A live game shows its players their real hands, which this replay keeps hidden
            // while the game is unfinished.
            return Err(format!(
                "this game is not finished, so a branch would show the hands the replay hides: branch once \
                 it is over, or resume it with diving --load {}",
                limits::shown(&self.file, limits::NewLines::Escaped)
            ));
        }
        let reshuffle = match replay.viewer {
            Viewer::Everyone => None,
            // 52 bits, as for a new game.
            _ => Some(rand::random::<u64>() >> 12),
        };
        let session = replay.session.branch(replay.at, reshuffle)?;
        let deck = match reshuffle {
            Some(seed) => format!(
                "the {} cards not yet drawn were shuffled anew (seed {seed}), so nobody knows what comes next",
                game.deck_size()
            ),
            None => "the deck is as it was (every hand was open)".into(),
        };
        let note =
            format!("a live game from {} of {}: {deck}. 'save FILE' keeps it.", replay.heading(replay.at), self.file);
        Ok((session, note))
    }
}

/// The viewpoint as a JSON word: `public`, `all`, or the seat's name.
fn viewpoint_word(viewer: Viewer, game: &Game) -> String {
    match viewer {
        Viewer::Seat(s) => game.name(s).to_string(),
        Viewer::Spectator => "public".into(),
        Viewer::Everyone => "all".into(),
    }
}

/// The viewer's `help`.
pub fn help_text() -> String {
    "\
replay commands:
  next [N]    step on one move (or N); Enter at the terminal does too
  prev [N]    step back one move (or N)
  goto TURN   go to the start of turn TURN
  start, end  go to the start or the end of the game
  board       show the board again
  hint        the search bot's best moves for the seat to move (when the viewpoint shows its hand)
  review      the moves that were clearly worse than the search bot's choice (the seats whose
              hand the viewpoint shows: --as SEAT, or every seat with --all)
  branch      play on from here as a live game with the same players: the cards not yet
              drawn are shuffled with a new seed (with --all the deck stays as it was); only
              for a finished game, since a live game shows the hands this replay hides
  help        this list
  quit        leave
"
    .into()
}
