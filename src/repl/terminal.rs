//! The interactive front end: rustyline line editing with history and tab completion, the
//! board shown once per turn, and the hot-seat hand-over that keeps hands secret.
//!
//! Everything a command does is the [`Shell`]'s business; this module only reads lines, draws
//! the screen between them and answers the shell's questions.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use crate::limits::{self, FileKind, Line, Lines, MAX_LINE_BYTES};
use crate::repl::parse::{COMMANDS, Command, command_word};
use crate::repl::shell::{Flow, Prompter, Shell};

/// What tab completion offers, refreshed before every prompt.
#[derive(Default)]
struct Words {
    hand: Vec<String>,
    table: Vec<String>,
    names: Vec<String>,
    slots: usize,
}

/// The rustyline helper: completion of commands, cards, places, players and file names.
struct Completion {
    words: Words,
    files: FilenameCompleter,
}

impl Completion {
    fn candidates(&self, before: &str, word: &str) -> Option<Vec<String>> {
        let earlier: Vec<&str> = before.split_whitespace().collect();
        let mut out: Vec<String> = Vec::new();
        let w = &self.words;
        match earlier.first().map(|f| f.to_lowercase()) {
            None => {
                out.extend(COMMANDS.iter().map(|(c, _)| c.to_string()));
            }
            Some(first) => match command_word(&first) {
                Some("play") if earlier.len() == 1 => {
                    out.extend(w.hand.iter().cloned());
                    out.extend(w.table.iter().filter(|c| !w.hand.contains(c)).cloned());
                }
                Some("play") => {
                    out.push("table".into());
                    out.extend((1..=w.slots).map(|n| format!("t{n}")));
                    out.push("over".into());
                    out.extend(w.names.iter().cloned());
                }
                Some("recover") => {
                    let typed: Vec<String> = earlier[1..].iter().map(|t| t.to_uppercase()).collect();
                    out.extend(w.hand.iter().filter(|c| !typed.contains(c)).cloned());
                    if earlier.len() > 1 {
                        out.push("over".into());
                    }
                }
                Some("help") if earlier.len() == 1 => out.extend(COMMANDS.iter().map(|(c, _)| c.to_string())),
                Some("save") => return None,
                _ => {}
            },
        }
        let lower = word.to_lowercase();
        out.retain(|c| c.to_lowercase().starts_with(&lower));
        out.dedup();
        Some(out)
    }
}

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        match self.candidates(&before[..start], &before[start..]) {
            Some(list) => Ok((
                start,
                list.into_iter().map(|c| Pair { display: c.clone(), replacement: format!("{c} ") }).collect(),
            )),
            None => self.files.complete(line, pos, ctx),
        }
    }
}

impl Hinter for Completion {
    type Hint = String;
}

impl Highlighter for Completion {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(&'s self, prompt: &'p str, _default: bool) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Validator for Completion {}

impl Helper for Completion {}

/// The terminal: the line editor and where its history lives.
pub struct Terminal {
    editor: Option<Editor<Completion, FileHistory>>,
    history: Option<PathBuf>,
    clear: bool,
}

impl Terminal {
    fn new() -> Terminal {
        let config = Config::builder().completion_type(CompletionType::List).auto_add_history(false).build();
        let editor = Editor::with_config(config).ok().map(|mut e| {
            e.set_helper(Some(Completion { words: Words::default(), files: FilenameCompleter::new() }));
            e
        });
        let history = history_path();
        let mut term = Terminal { editor, history, clear: std::io::stdout().is_terminal() };
        // The history is a convenience: one that is not a regular file or is too large is
        // not loaded (and not overwritten), never an error.
        if let Some(path) = &term.history
            && limits::check_regular(path).is_ok_and(|m| m.len() > FileKind::History.max_bytes().unwrap_or(0))
        {
            term.history = None;
        }
        if let Some(path) = &term.history
            && let Err(limits::ReadError::NotRegular(_)) = limits::check_regular(path)
        {
            term.history = None;
        }
        if let (Some(editor), Some(path)) = (&mut term.editor, &term.history) {
            let _ = editor.load_history(path);
        }
        term
    }

    fn read(&mut self, prompt: &str) -> Result<String, ReadlineError> {
        match &mut self.editor {
            Some(editor) => editor.readline(prompt),
            None => {
                // No line editor (an odd terminal): plain reading, through the bounded reader.
                let mut out = std::io::stdout();
                let _ = write!(out, "{prompt}").and_then(|()| out.flush());
                match Lines::new(std::io::stdin().lock()).next_line() {
                    Ok(None) => Err(ReadlineError::Eof),
                    Ok(Some(Line::Text(line))) => Ok(line),
                    Ok(Some(Line::Binary)) => Err(ReadlineError::Eof),
                    // Refused by the shell like any overlong line.
                    Ok(Some(_)) => Ok("\0".repeat(MAX_LINE_BYTES + 1)),
                    Err(e) => Err(ReadlineError::Io(e)),
                }
            }
        }
    }

    fn remember(&mut self, line: &str) {
        if let Some(editor) = &mut self.editor
            && !line.trim().is_empty()
        {
            let _ = editor.add_history_entry(line);
        }
    }

    fn save_history(&mut self) {
        // Failing to keep the history must not spoil the game: errors are ignored.
        if let (Some(editor), Some(path)) = (&mut self.editor, &self.history) {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = editor.save_history(path);
        }
    }

    fn clear_screen(&self) {
        if self.clear {
            // Clear the screen and the scrollback, so a hand cannot be scrolled back to.
            let mut out = std::io::stdout();
            let _ = write!(out, "\x1b[2J\x1b[3J\x1b[H").and_then(|()| out.flush());
        }
    }

    fn set_words(&mut self, words: Words) {
        if let Some(helper) = self.editor.as_mut().and_then(|e| e.helper_mut()) {
            helper.words = words;
        }
    }
}

impl Prompter for Terminal {
    fn ask(&mut self, question: &str) -> Option<String> {
        self.read(question).ok()
    }
}

/// `$XDG_DATA_HOME/diving/history`, else `~/.local/share/diving/history`.
fn history_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".local/share"),
    };
    Some(base.join("diving").join("history"))
}

/// Plays the game at the terminal until `quit` or end of input.
pub fn run<W: Write>(shell: &mut Shell<W>, seed: Option<u64>, loaded: Option<&str>) {
    let mut term = Terminal::new();
    let style = shell.style();
    let game = shell.session.game();
    let names: Vec<String> = (0..game.player_count())
        .map(|s| match &shell.session.bots()[s] {
            Some(_) => format!("{} (bot)", game.name(s)),
            None => game.name(s).to_string(),
        })
        .collect();
    let dash = if style.unicode { "—" } else { "-" };
    shell.say(&style.bold(&format!("Diving Suits {dash} {}", names.join(" vs "))));
    shell.say(&style.dim(&format!(
        "ruleset {}. type 'help' for the commands, 'moves' for what you can do, 'quit' to leave.",
        shell.session.spec()
    )));
    if let Some(seed) = seed {
        shell.say(&style.dim(&format!("seed {seed} (replay with --seed {seed})")));
    }
    match loaded {
        Some(file) => {
            shell.say(&format!("resumed {file}"));
            shell.run_bots();
        }
        None => shell.start(),
    }
    let mut shown = None;
    // A resumed hot-seat game starts with a hand-over: whoever started it may not be the
    // player to move.
    let mut hand_over = loaded.is_some() && shell.hot_seat();
    loop {
        let game = shell.session.game();
        let current = game.current();
        let someone_else = shell.viewer != Some(current) || hand_over;
        if !game.is_over() && shell.hot_seat() && someone_else && !shell.session.is_bot(current) {
            hand_over = false;
            let next = game.name(current).to_string();
            let last_mover =
                shell.session.entries().iter().rev().find(|e| !shell.session.is_bot(e.seat)).map(|e| e.seat);
            if let Some(prev) = shell.viewer.filter(|&v| Some(v) == last_mover) {
                let prev = shell.session.game().name(prev).to_string();
                shell.flush();
                if term.read(&format!("{prev}: press Enter to end your turn and hide your hand ")).is_err() {
                    break;
                }
            }
            term.clear_screen();
            if term.read(&format!("pass the terminal to {next}. {next}, press Enter when ready ")).is_err() {
                break;
            }
            term.clear_screen();
            shell.viewer = Some(current);
            shell.recap(current);
            shown = None;
        }
        let game = shell.session.game();
        let key = (shell.session.entries().len(), game.turn(), game.is_over());
        if shown != Some(key) {
            shown = Some(key);
            let board = shell.board();
            shell.say("");
            let _ = write!(shell.out(), "{board}");
            if shell.session.game().is_over() {
                shell.say(&style.dim("the game is over: 'log' shows it all, 'undo' takes back, 'quit' leaves."));
            }
            shell.flush();
        }
        let game = shell.session.game();
        let seat = shell.viewer.unwrap_or(current);
        term.set_words(Words {
            hand: game.player(seat).hand.iter().map(|c| c.to_string()).collect(),
            table: game.table().iter().flatten().map(|c| c.to_string()).collect(),
            names: game.names().to_vec(),
            slots: game.table().len(),
        });
        let prompt = if game.is_over() { "game over> ".to_string() } else { format!("{}> ", game.name(current)) };
        match term.read(&prompt) {
            Ok(line) if line.len() > MAX_LINE_BYTES => {
                let refused = Line::TooLong { bytes: line.len() as u64 };
                shell.error(&refused.refusal(1).unwrap_or_default().replacen("line 1", "the line", 1));
            }
            Ok(line) => {
                term.remember(&line);
                if shell.line(&line, &mut term) == Flow::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => shell.say("(type 'quit' to leave)"),
            Err(ReadlineError::Eof) => {
                shell.say("");
                if shell.execute(Command::Quit, &mut term) == Flow::Quit {
                    break;
                }
            }
            Err(e) => {
                shell.error(&format!("the terminal failed: {e}"));
                break;
            }
        }
    }
    shell.flush();
    term.save_history();
}
