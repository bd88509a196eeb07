//! The interactive front end: rustyline line editing with history and tab completion, the
//! board shown once per turn, and the hot-seat hand-over that keeps hands secret (each turn
//! drawn on the alternate screen, which no scrollback keeps). Each line typed is added to the
//! history file at once, the file replaced whole through a temporary file that no caught
//! signal leaves behind ([`save::write_text`]), so a terminal closed mid-game loses no line
//! and leaves no file.
//! The terminal's size is read again after every line (a window resized at the prompt lays
//! out that line's output anew), and a help longer than the screen waits at `-- more --`.
//!
//! Everything a command does is the [`Shell`]'s business; this module only reads lines, draws
//! the screen between them and answers the shell's questions.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, ExternalPrinter, Helper};

use crate::limits::{self, FileKind, Line, Lines, MAX_LINE_BYTES};
use crate::shell::front::{Flow, More, Prompter, Shell};
use crate::shell::interrupt;
use crate::table::notice::Happening;
use crate::table::parse::{COMMANDS, Command, command_word};
use crate::table::save;

/// What tab completion offers, refreshed before every prompt (the table works it out).
pub use crate::table::completion::Words;

/// The rustyline helper: completion of commands, cards, places, players and file names.
struct Completion {
    /// Shared, so words can change while a line is being read (a remote game moves on).
    words: Arc<Mutex<Words>>,
    files: FilenameCompleter,
}

impl Completion {
    fn candidates(&self, before: &str, word: &str) -> Option<Vec<String>> {
        let earlier: Vec<&str> = before.split_whitespace().collect();
        let mut out: Vec<String> = Vec::new();
        let w = &*self.words.lock().unwrap_or_else(|e| e.into_inner());
        let first_is_card = earlier.first().is_some_and(|f| f.parse::<crate::core::Card>().is_ok());
        match earlier.first().map(|f| f.to_lowercase()) {
            _ if w.choices.is_some() => out.extend(w.choices.iter().flatten().cloned()),
            Some(_) if first_is_card => out.extend(following(&w.plays, earlier[0], &earlier[1..])),
            None => {
                out.extend(COMMANDS.iter().map(|(c, _)| c.to_string()));
                // A mod's actions the listing has (`buddy bob`): their names.
                out.extend(acts(&w.plays).filter_map(|a| a.split_whitespace().next()).map(String::from));
            }
            Some(first) if command_word(&first).is_none() => {
                // After a mod's action's name: the players the listing offers with it.
                for act in acts(&w.plays) {
                    let mut words = act.split_whitespace();
                    if words.next().is_some_and(|n| n == first) && earlier.len() == 1 {
                        out.extend(words.next().map(String::from));
                    }
                }
            }
            Some(first) => match command_word(&first) {
                Some("play") if earlier.len() == 1 => {
                    out.extend(w.hand.iter().cloned());
                    out.extend(w.table.iter().filter(|c| !w.hand.contains(c)).cloned());
                }
                Some("play") => out.extend(following(&w.plays, earlier[1], &earlier[2..])),
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

/// The listed moves in `plays` that are a mod's actions (not `play …`).
fn acts(plays: &[String]) -> impl Iterator<Item = &String> {
    plays.iter().filter(|p| !p.starts_with("play "))
}

/// The words that may follow `card` and the words `typed` after it, in the legal plays
/// `plays` (`play 7H t2 bob over`), in their order.
fn following(plays: &[String], card: &str, typed: &[&str]) -> Vec<String> {
    let Ok(card) = card.parse::<crate::core::Card>() else { return Vec::new() };
    let typed: Vec<String> = typed.iter().map(|t| t.to_lowercase()).collect();
    let mut out: Vec<String> = Vec::new();
    for play in plays {
        let words: Vec<&str> = play.split_whitespace().skip(1).collect();
        if words.first().and_then(|c| c.parse::<crate::core::Card>().ok()) != Some(card) {
            continue;
        }
        let rest: Vec<String> = words[1..].iter().map(|w| w.to_lowercase()).collect();
        if !typed.iter().all(|t| rest.contains(t)) {
            continue;
        }
        for (word, lower) in words[1..].iter().zip(&rest) {
            if !typed.contains(lower) && !out.iter().any(|o| o.eq_ignore_ascii_case(word)) {
                out.push(word.to_string());
            }
        }
    }
    out
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
    /// Hot-seat play: one history per seat, never read from or written to disk, so neither
    /// ↑ nor Ctrl-R shows one player what another typed (a card they hold).
    seat_histories: Option<Vec<Vec<String>>>,
    /// The seat whose history the editor holds now.
    seat: usize,
    /// Whether the alternate screen is on (a hot-seat turn: the hand is drawn there).
    secret: bool,
    /// What was typed at `-- more --` that was not a key of the pager: the start of the next
    /// line, put back in front of the cursor at the next prompt.
    typed: String,
}

impl Terminal {
    fn new(hot_seat: Option<usize>) -> Terminal {
        let editor = new_editor();
        // In hot-seat play the history file is neither read nor written.
        let history = if hot_seat.is_some() { None } else { history_path() };
        let mut term = Terminal {
            editor,
            history,
            clear: std::io::stdout().is_terminal(),
            seat_histories: hot_seat.map(|seats| vec![Vec::new(); seats]),
            seat: 0,
            secret: false,
            typed: String::new(),
        };
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
        if let Some(path) = &term.history {
            remove_old_temporaries(path);
        }
        if let (Some(editor), Some(path)) = (&mut term.editor, &term.history) {
            let _ = editor.load_history(path);
        }
        term
    }

    /// A terminal for one seat of a game played elsewhere (`diving join`): the history is
    /// this seat's alone, kept in memory and never read from or written to disk.
    pub fn in_memory() -> Terminal {
        Terminal::new(Some(1))
    }

    /// The words completion offers, to be changed from another thread while a line is read.
    pub fn words(&self) -> Arc<Mutex<Words>> {
        self.editor.as_ref().and_then(|e| e.helper()).map(|h| h.words.clone()).unwrap_or_default()
    }

    /// Prints from another thread above the line being edited (`None` without a line editor).
    pub fn printer(&mut self) -> Option<Box<dyn ExternalPrinter + Send>> {
        let printer = self.editor.as_mut()?.create_external_printer().ok()?;
        Some(Box::new(printer))
    }

    /// Reads a line (Ctrl-C: `Interrupted`, Ctrl-D: `Eof`); what was typed at `-- more --`
    /// starts it.
    pub fn read(&mut self, prompt: &str) -> Result<String, ReadlineError> {
        let typed = std::mem::take(&mut self.typed);
        match &mut self.editor {
            Some(editor) if !typed.is_empty() => editor.readline_with_initial(prompt, (&typed, "")),
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

    /// Keeps a line in the history (↑, Ctrl-R), and in the history file at once.
    pub fn remember(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        if let Some(editor) = &mut self.editor {
            let _ = editor.add_history_entry(line);
        }
        if let Some(path) = &self.history {
            keep_in_history_file(path, line);
        }
        if let Some(list) = self.seat_histories.as_mut().and_then(|h| h.get_mut(self.seat)) {
            list.push(line.to_string());
        }
    }

    /// Gives `seat` a line editor of its own: a new one (the editor keeps what was cut with
    /// Ctrl-U or Ctrl-W for Ctrl-Y, across lines) holding that seat's history only. Hot-seat
    /// play only; otherwise nothing changes.
    fn switch_to(&mut self, seat: usize) {
        self.seat = seat;
        let Some(histories) = &self.seat_histories else { return };
        if self.editor.is_some() {
            self.editor = new_editor();
        }
        let Some(editor) = &mut self.editor else { return };
        for line in histories.get(seat).into_iter().flatten() {
            let _ = editor.add_history_entry(line.as_str());
        }
    }

    /// Before a hand-over prompt in hot-seat play: an editor with nobody's history and nothing
    /// cut, so ↑, Ctrl-R or Ctrl-Y at "pass the terminal to bob" shows bob nothing of alice's.
    fn hand_over(&mut self) {
        if self.seat_histories.is_some() && self.editor.is_some() {
            self.editor = new_editor();
        }
    }

    /// What the line editor would show another seat: its history (for tests).
    #[cfg(test)]
    fn history_lines(&self) -> Vec<String> {
        self.editor.as_ref().map(|e| e.history().iter().cloned().collect()).unwrap_or_default()
    }

    fn clear_screen(&self) {
        if self.clear {
            // Clear the screen and the scrollback, so a hand cannot be scrolled back to.
            let mut out = std::io::stdout();
            let _ = write!(out, "\x1b[2J\x1b[3J\x1b[H").and_then(|()| out.flush());
        }
    }

    /// Draws what follows on the alternate screen, cleared: the secret part of a hot-seat
    /// turn. Terminals keep none of it in their scrollback (GNU screen only with `altscreen
    /// on`, which is why the screen and scrollback are also cleared at every hand-over).
    fn enter_secret(&mut self) {
        if self.clear && !self.secret {
            self.secret = true;
            let mut out = std::io::stdout();
            let _ = write!(out, "\x1b[?1049h\x1b[2J\x1b[3J\x1b[H").and_then(|()| out.flush());
        }
    }

    /// Wipes and leaves the alternate screen (a turn ends), back to a cleared main screen.
    fn leave_secret(&mut self) {
        if self.secret {
            self.secret = false;
            let mut out = std::io::stdout();
            let _ = write!(out, "\x1b[2J\x1b[3J\x1b[?1049l").and_then(|()| out.flush());
        }
        self.clear_screen();
    }

    fn set_words(&mut self, words: Words) {
        *self.words().lock().unwrap_or_else(|e| e.into_inner()) = words;
    }
}

impl Terminal {
    /// Asks `question` laid out for the terminal's width, at word boundaries (a long file name
    /// in `… exists; overwrite it? [y/N]` would otherwise break wherever the terminal breaks
    /// it). Only its last line is the editor's prompt: the editor redraws a prompt of several
    /// lines over the list Tab shows.
    fn read_question(&mut self, question: &str) -> Result<String, ReadlineError> {
        let text = question.trim_end();
        let fitted = crate::table::render::wrap(text, columns()) + &question[text.len()..];
        match fitted.rsplit_once('\n') {
            Some((head, last)) => {
                let mut out = std::io::stdout();
                let _ = writeln!(out, "{head}").and_then(|()| out.flush());
                self.read(last)
            }
            None => self.read(&fitted),
        }
    }
}

/// A question's answer: Ctrl-C is "no" (an empty answer, as everywhere at the terminal);
/// end of input, nobody to answer.
fn answer(read: Result<String, ReadlineError>) -> Option<String> {
    match read {
        Ok(line) => Some(line),
        Err(ReadlineError::Interrupted) => Some(String::new()),
        Err(_) => None,
    }
}

impl Prompter for Terminal {
    fn ask(&mut self, question: &str) -> Option<String> {
        answer(self.read_question(question))
    }

    fn choose(&mut self, question: &str, options: &[String]) -> Option<String> {
        let set = |term: &mut Terminal, choices| {
            term.words().lock().unwrap_or_else(|e| e.into_inner()).choices = choices;
        };
        set(self, Some(options.to_vec()));
        let answer = answer(self.read_question(question));
        set(self, None);
        answer
    }

    /// `-- more --`, answered with one key: space or Enter shows the next screenful, `b` the
    /// one before, `q` (Esc, Ctrl-C, Ctrl-D) stops. Any other key stops too, and is not lost:
    /// it starts the next line at the prompt (`play 8s` typed at `-- more --` is there to
    /// finish). The question is wiped once answered, so the next screenful follows the last.
    fn more(&mut self, shown: usize, total: usize) -> More {
        let question = format!("-- more -- ({shown} of {total} lines; space: on, b: back, q: stop) ");
        let mut out = std::io::stdout();
        let _ = write!(out, "{question}").and_then(|()| out.flush());
        let answer = match read_key() {
            Some(key) => pager_key(&key),
            // Not a terminal that gives single keys: a line, as the pager once read.
            None => {
                let _ = writeln!(out);
                match Lines::new(std::io::stdin().lock()).next_line() {
                    Ok(Some(Line::Text(line))) => pager_key(line.trim().as_bytes()),
                    _ => (More::Stop, String::new()),
                }
            }
        };
        let (more, typed) = answer;
        self.typed = typed;
        if self.clear {
            let _ = write!(out, "\r\x1b[2K").and_then(|()| out.flush());
        } else {
            let _ = writeln!(out);
        }
        more
    }
}

/// How the line editor is set up: completion as a list, nothing added to the history by itself.
fn editor_config() -> Config {
    Config::builder().completion_type(CompletionType::List).auto_add_history(false).build()
}

/// What a key (or keys) pressed at `-- more --` does, and what of it is typed text for the
/// next line.
fn pager_key(key: &[u8]) -> (More, String) {
    // A key and Enter after it (typed fast, or a line where keys are read as lines) is the key.
    let end = key.iter().rposition(|&b| b != b'\r' && b != b'\n').map_or(0, |i| i + 1);
    match &key[..end] {
        b"" | b" " | b"f" | b"j" | b"\x1b[B" | b"\x1b[6~" => (More::Page, String::new()),
        b"b" | b"k" | b"\x1b[A" | b"\x1b[5~" => (More::Back, String::new()),
        b"q" | b"Q" | b"\x1b" | b"\x03" | b"\x04" => (More::Stop, String::new()),
        // An escape sequence the pager does not know (an arrow to the side …) types nothing.
        [0x1b, ..] => (More::Stop, String::new()),
        typed => {
            // Typing: the start of a command (a paste may bring the whole line, and its end).
            let text = String::from_utf8_lossy(typed);
            let line = text.split(['\r', '\n']).next().unwrap_or("");
            (More::Stop, line.chars().filter(|c| !c.is_control()).collect())
        }
    }
}

/// One key from the terminal, read without waiting for Enter and without echo (the bytes
/// one press sends: an arrow is three); `None` when standard input is not a terminal that
/// can be put in that mode.
fn read_key() -> Option<Vec<u8>> {
    #[cfg(unix)]
    {
        // SAFETY: `termios` is plain data that `tcgetattr` fills in; the mode is changed on
        // standard input only and put back before returning; `read` writes at most
        // `buf.len()` bytes into `buf`.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                return None;
            }
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            if libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &raw) != 0 {
                return None;
            }
            // Read from the descriptor itself: the standard library's buffer would keep what
            // follows the key from the line editor.
            let mut buf = [0u8; 256];
            let read = libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len());
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &saved);
            match read {
                n if n > 0 => Some(buf[..n as usize].to_vec()),
                // The end of input, or an error: stop.
                _ => Some(b"q".to_vec()),
            }
        }
    }
    #[cfg(not(unix))]
    None
}

/// A line editor with completion, adding nothing to its history by itself.
fn new_editor() -> Option<Editor<Completion, FileHistory>> {
    Editor::with_config(editor_config()).ok().map(|mut e| {
        e.set_helper(Some(Completion { words: Arc::default(), files: FilenameCompleter::new() }));
        e
    })
}

/// The terminal's size, `(columns, rows)`, as the terminal says it (0 where it says nothing).
fn window() -> (usize, usize) {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ only writes a `winsize` into the struct it is given.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        for fd in [libc::STDOUT_FILENO, libc::STDIN_FILENO] {
            // SAFETY: as above; `fd` is a standard stream and `size` lives across the call.
            if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == 0 && size.ws_col > 0 {
                return (size.ws_col as usize, size.ws_row as usize);
            }
        }
    }
    (0, 0)
}

/// A size from the environment (`$COLUMNS`, `$LINES`), when it is a positive number.
fn from_env(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|c| c.trim().parse().ok()).filter(|&c| c > 0)
}

/// The terminal's width in columns: asked of the terminal, else `$COLUMNS`, else 80.
pub fn columns() -> usize {
    Some(window().0).filter(|&c| c > 0).or_else(|| from_env("COLUMNS")).unwrap_or(80)
}

/// The terminal's height in rows: asked of the terminal, else `$LINES`, else 24.
pub fn rows() -> usize {
    Some(window().1).filter(|&r| r > 0).or_else(|| from_env("LINES")).unwrap_or(24)
}

/// `$XDG_DATA_HOME/diving/history`, else `~/.local/share/diving/history`.
fn history_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".local/share"),
    };
    Some(base.join("diving").join("history"))
}

/// The warning a hot-seat game gives inside GNU screen (`STY` is set) when no screenrc turns
/// `altscreen` on: screen then keeps in its scrollback what the game draws on the alternate
/// screen and what it clears, hands included. `env` reads the environment.
fn screen_warning(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<String> {
    env("STY").filter(|s| !s.is_empty())?;
    let home = env("HOME").map(PathBuf::from);
    let files: Vec<PathBuf> = [
        env("SYSSCREENRC").map(PathBuf::from).or_else(|| Some(PathBuf::from("/etc/screenrc"))),
        env("SCREENRC").map(PathBuf::from).or_else(|| home.map(|h| h.join(".screenrc"))),
    ]
    .into_iter()
    .flatten()
    .collect();
    // The last setting read wins, the user's file after the system's.
    let mut on = false;
    for file in files {
        let Ok(opened) = limits::open_regular(&file) else { continue };
        let mut lines = Lines::new(std::io::BufReader::new(opened));
        while let Ok(Some(line)) = lines.next_line() {
            let Line::Text(line) = line else { continue };
            let words: Vec<&str> = line.split('#').next().unwrap_or("").split_whitespace().collect();
            if let ["altscreen", value] = words[..] {
                on = value == "on";
            }
        }
    }
    (!on).then(|| {
        "warning: this terminal is inside GNU screen, which keeps hands in its scrollback unless          'altscreen on' is in ~/.screenrc: add that line and start screen again, or play in a          window of its own"
            .to_string()
    })
}

/// Adds `line` to the history file at `path`: the file as it is now (another window's lines
/// included) with the line after it, at most as many lines as the editor keeps, written whole
/// through a temporary file ([`save::write_text`]). Written as each line is typed, so a
/// terminal closed mid-game loses nothing. Failing to keep the history must not spoil the
/// game: errors are ignored.
fn keep_in_history_file(path: &std::path::Path, line: &str) {
    use rustyline::history::History;
    let config = editor_config();
    let mut history = FileHistory::with_config(&config);
    // A file that is not there yet, or not a history, starts a new one.
    let _ = history.load(path);
    if history.add(line).is_err() {
        return;
    }
    // rustyline's own format (version 2): a new line and a backslash escaped.
    let mut text = String::from("#V2\n");
    for entry in history.iter() {
        text += &entry.replace('\\', "\\\\").replace('\n', "\\n");
        text.push('\n');
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = save::write_text(path, &text);
}

/// Removes what earlier versions left beside the history file when a terminal closed while
/// they wrote it (`history.tmpPID`, from processes no longer running). The temporaries of
/// [`save::write_text`] are removed by its next write.
fn remove_old_temporaries(path: &std::path::Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else { return };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| f.strip_prefix(name)).and_then(|f| f.strip_prefix(".tmp")) else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let alive = pid != std::process::id() && std::path::Path::new(&format!("/proc/{pid}")).exists();
        if !alive && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A hand-over prompt: Enter goes on (`true`). Ctrl-C or Ctrl-D there is a `quit`: the
/// screen is cleared first (a hand may be on it), then the shell asks, offering to save;
/// `false` when the player quits.
fn gate<W: Write>(term: &mut Terminal, shell: &mut Shell<W>, prompt: &str) -> bool {
    loop {
        shell.flush();
        let read = term.read_question(prompt);
        if interrupt::take_continued() {
            shell.note(Happening::Suspended, true);
        }
        match read {
            Ok(line) if line.trim().is_empty() => return true,
            // A command typed here (the player did not see the turn end, or the next one
            // started early) would be lost: say so, and wait for Enter alone.
            Ok(line) => shell.error(&format!(
                "'{}' was not read: this is the hand-over, press Enter alone",
                limits::shown(line.trim(), limits::NewLines::Escaped)
            )),
            Err(ReadlineError::Interrupted | ReadlineError::Eof) => {
                term.clear_screen();
                if shell.execute(Command::Quit, term) == Flow::Quit {
                    return false;
                }
                shell.flush();
            }
            Err(e) => {
                term.clear_screen();
                shell.error(&format!("the terminal failed: {e}"));
                return false;
            }
        }
    }
}

/// Plays the game at the terminal until `quit` or end of input.
pub fn run<W: Write>(shell: &mut Shell<W>, seed: Option<u64>, loaded: Option<&str>) {
    let hot_seat = shell.hot_seat().then(|| shell.session().game().player_count());
    let mut term = Terminal::new(hot_seat);
    shell.screen.width = Some(columns());
    shell.screen.height = Some(rows());
    let style = shell.style();
    let game = shell.session().game();
    let names: Vec<String> = (0..game.player_count())
        .map(|s| match &shell.session().bots()[s] {
            Some(_) => format!("{} (bot)", game.name(s)),
            None => game.name(s).to_string(),
        })
        .collect();
    let dash = if style.unicode { "—" } else { "-" };
    shell.say(&style.bold(&format!("Diving Suits {dash} {}", names.join(" vs "))));
    shell.say(&style.dim(&format!(
        "ruleset {}. type 'help' for the commands, 'help rules' for how to play, 'moves' for what you can do, 'quit' to leave.",
        limits::shown(shell.session().spec(), limits::NewLines::Escaped)
    )));
    if let Some(seed) = seed {
        shell.announce_seed(seed);
    }
    if shell.hot_seat() {
        // Stopping the program (Ctrl-Z) lets whoever has the keyboard read the game's files:
        // every player is told at their next hand-over.
        interrupt::watch_stops();
        if let Some(warning) = screen_warning(|key| std::env::var_os(key)) {
            let text = shell.style().bold(&warning);
            shell.say(&text);
        }
    }
    match loaded {
        Some(file) => {
            shell.say(&format!("resumed {}", limits::shown(file, limits::NewLines::Escaped)));
            shell.run_bots();
        }
        None => shell.start(),
    }
    if shell.kept_in().is_some() && loaded.is_none() {
        let text = style.dim("the game is kept as it goes: if the window closes, 'diving' offers it back.");
        shell.say(&text);
    }
    let mut shown = None;
    // A hot-seat game starts with a hand-over, a new one as a resumed one: nobody's hand is
    // shown before its player has the terminal.
    let mut hand_over = shell.hot_seat();
    let mut opening = loaded.is_none();
    let mut quitting = false;
    loop {
        shell.screen.width = Some(columns());
        shell.screen.height = Some(rows());
        let game = shell.session().game();
        let current = game.current();
        let someone_else = shell.screen.viewer != Some(current) || hand_over;
        if !game.is_over() && shell.hot_seat() && someone_else && !shell.session().is_bot(current) {
            let next = game.name(current).to_string();
            let last_mover =
                shell.session().entries().iter().rev().find(|e| !shell.session().is_bot(e.seat)).map(|e| e.seat);
            if let Some(prev) = shell.screen.viewer.filter(|&v| Some(v) == last_mover && !hand_over) {
                let prev = shell.session().game().name(prev).to_string();
                if !gate(&mut term, shell, &format!("{prev}: press Enter to end your turn and hide your hand ")) {
                    quitting = true;
                    break;
                }
            }
            // Before the very first hand-over no hand has been shown: the title stays.
            if !opening {
                term.leave_secret();
            }
            hand_over = false;
            opening = false;
            term.hand_over();
            if !gate(&mut term, shell, &format!("pass the terminal to {next}. {next}, press Enter when ready ")) {
                quitting = true;
                break;
            }
            term.enter_secret();
            shell.screen.viewer = Some(current);
            term.switch_to(current);
            shell.tell(current);
            shell.recap(current);
            shown = None;
        }
        let game = shell.session().game();
        let key = (shell.session().entries().len(), game.turn(), game.is_over());
        if shown != Some(key) {
            shown = Some(key);
            if shell.session().game().is_over() && term.secret {
                // Every hand is shown at the end: the last board stays on the main screen.
                term.leave_secret();
            }
            let board = shell.board();
            shell.say("");
            let _ = write!(shell.out(), "{board}");
            if shell.session().game().is_over() {
                shell.summary();
                shell.say(&style.dim("the game is over: 'log' shows it all, 'again' plays again, 'quit' leaves."));
            }
            shell.flush();
        }
        let game = shell.session().game();
        // The seat looking: its hand, and its plays when it is to move.
        let seat = shell.screen.viewer.unwrap_or(current);
        term.set_words(Words::of(game, Some(seat), None));
        let prompt = if game.is_over() { "game over> ".to_string() } else { format!("{}> ", game.name(current)) };
        let read = term.read(&prompt);
        if interrupt::take_continued() && shell.hot_seat() {
            shell.note(Happening::Suspended, false);
        }
        match read {
            Ok(line) if line.len() > MAX_LINE_BYTES => {
                let refused = Line::TooLong { bytes: line.len() as u64 };
                shell.error(&refused.refusal(1).unwrap_or_default().replacen("line 1", "the line", 1));
            }
            Ok(line) => {
                term.remember(&line);
                // Laid out for the terminal as it is now (it may have been resized at the prompt).
                shell.screen.width = Some(columns());
                shell.screen.height = Some(rows());
                if shell.line(&line, &mut term) == Flow::Quit {
                    quitting = true;
                    break;
                }
                if shell.take_restarted() {
                    // `again` or `new`: a new game, with its own first hand-over.
                    hand_over = shell.hot_seat();
                    opening = false;
                    shown = None;
                    if let Some(seats) = &mut term.seat_histories {
                        seats.iter_mut().for_each(Vec::clear);
                    }
                }
            }
            Err(ReadlineError::Interrupted) => shell.say("(type 'quit' to leave)"),
            Err(ReadlineError::Eof) => {
                shell.say("");
                if shell.execute(Command::Quit, &mut term) == Flow::Quit {
                    quitting = true;
                    break;
                }
            }
            Err(e) => {
                shell.error(&format!("the terminal failed: {e}"));
                break;
            }
        }
    }
    // Whoever takes the terminal next must not find a hand on the screen or in the scrollback.
    if quitting && shell.hot_seat() && !shell.session().game().is_over() {
        term.leave_secret();
    }
    shell.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_seat_has_its_own_history() {
        let mut term = Terminal::new(Some(2));
        assert!(term.history.is_none(), "a hot-seat game never touches the history file");
        term.switch_to(0);
        term.remember("play js zed");
        term.switch_to(1);
        assert!(term.history_lines().is_empty(), "{:?}", term.history_lines());
        term.remember("moves");
        term.switch_to(0);
        assert_eq!(term.history_lines(), ["play js zed"]);
        // At the hand-over prompt nobody's history is in the editor.
        term.hand_over();
        assert!(term.history_lines().is_empty(), "{:?}", term.history_lines());
        term.switch_to(0);
        assert_eq!(term.history_lines(), ["play js zed"]);
    }

    /// Issue 47: inside GNU screen without `altscreen on`, a hot-seat game warns; with it (in
    /// the user's screenrc, or the system's unless the user's turns it off), it does not.
    #[test]
    fn gnu_screen_without_altscreen_is_warned_of() {
        let dir = tempfile::tempdir().unwrap();
        let (user, system) = (dir.path().join("screenrc"), dir.path().join("system"));
        let env = |sty: bool| {
            let (user, system) = (user.clone(), system.clone());
            move |key: &str| match key {
                "STY" if sty => Some("1234.pts-0.host".into()),
                "SCREENRC" => Some(user.clone().into_os_string()),
                "SYSSCREENRC" => Some(system.clone().into_os_string()),
                _ => None,
            }
        };
        assert_eq!(screen_warning(env(false)), None, "not inside screen");
        assert!(screen_warning(env(true)).unwrap().contains("altscreen on"));
        std::fs::write(&user, "startup_message off\n# altscreen on\n").unwrap();
        assert!(screen_warning(env(true)).is_some(), "a comment turns nothing on");
        std::fs::write(&user, "altscreen on   # keep the hands out of the scrollback\n").unwrap();
        assert_eq!(screen_warning(env(true)), None);
        std::fs::write(&system, "altscreen on\n").unwrap();
        std::fs::write(&user, "altscreen off\n").unwrap();
        assert!(screen_warning(env(true)).is_some(), "the user's file comes last");
        std::fs::write(&user, "").unwrap();
        assert_eq!(screen_warning(env(true)), None, "the system's file turns it on");
    }

    /// Issue 47: a closed terminal lost the lines of the game and left `history.tmpPID`
    /// behind. Each line is now in the file as soon as it is typed, beside what another
    /// window wrote, and no temporary file stays (an old one of a process that is gone is
    /// removed).
    #[test]
    fn each_line_reaches_the_history_file_at_once_and_nothing_is_left_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history");
        std::fs::write(&path, "#V2\nmoves\n").unwrap();
        // A leftover of an earlier version, from a process that is no longer running.
        let gone = u32::MAX - 7;
        std::fs::write(dir.path().join(format!("history.tmp{gone}")), "").unwrap();
        remove_old_temporaries(&path);
        keep_in_history_file(&path, "play 10h");
        // Another window adds a line meanwhile.
        let text = std::fs::read_to_string(&path).unwrap() + "state\n";
        std::fs::write(&path, text).unwrap();
        keep_in_history_file(&path, "say a\\b");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "#V2\nmoves\nplay 10h\nstate\nsay a\\\\b\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["history"]);
    }

    #[test]
    fn completion_after_a_card_offers_only_what_the_listing_has() {
        let plays = vec!["play KC bob".to_string(), "play KC t2 bob".to_string(), "play 7H".to_string()];
        assert_eq!(following(&plays, "kc", &[]), ["bob", "t2"]);
        assert_eq!(following(&plays, "7h", &[]), Vec::<String>::new());
        assert_eq!(following(&plays, "kc", &["t2"]), ["bob"]);
    }

    /// A mod's listed action completes like a command, then with the players it is listed with.
    #[test]
    fn completion_offers_a_mods_listed_actions_and_their_players() {
        let plays = vec!["play 7H".to_string(), "buddy bob".to_string(), "buddy carol".to_string()];
        let words = Words { plays, ..Words::default() };
        let completion = Completion { words: Arc::new(Mutex::new(words)), files: FilenameCompleter::new() };
        assert_eq!(completion.candidates("", "bu"), Some(vec!["buddy".to_string()]));
        assert_eq!(completion.candidates("buddy ", ""), Some(vec!["bob".to_string(), "carol".to_string()]));
        assert_eq!(completion.candidates("buddy ", "c"), Some(vec!["carol".to_string()]));
    }
}
