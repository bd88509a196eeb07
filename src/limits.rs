//! Every limit on what `diving` reads from outside, and the bounded readers that apply them.
//!
//! This is the one place where outside input is read: command lines (from a script, a pipe or
//! the terminal), files (rulesets, mods, Lua bots, decks, saves, scripts, the history), player
//! names, bot specs and `--jobs`. Each limit is a named constant here and is listed in
//! `docs/limits.md`; a test in `tests/cli/limits.rs` shows each one holding.
//!
//! Architecture invariant: the readers here never hold more than their limit in memory, and
//! what they refuse comes back as an error naming the problem (the caller adds the file or
//! line). Nothing here knows the game: the core never sees unbounded input because nothing
//! reaches it except through these readers.
//!
//! The way back out is here too: [`quoted`] (a word in a message) and [`shown`] (a whole
//! message) are the one place that escapes control characters and bounds what is printed, so
//! text from a file, a mod or a save cannot drive the terminal. Every edge that prints such
//! text (`main`'s `diving: …`, the shell's and the viewer's errors, `rules`, `check`, `mod
//! test`) goes through them.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufRead, Read};
use std::path::Path;

/// The longest command line read, in bytes (a longer line is reported and skipped).
pub const MAX_LINE_BYTES: usize = 8 * 1024;
/// The longest word "did you mean" compares with the command words, in characters.
pub const MAX_SUGGESTION_CHARS: usize = 32;
/// How much of an offending word an error message quotes, in characters.
pub const MAX_QUOTED_CHARS: usize = 40;
/// The longest message printed whole (an error, a refusal, a warning, a line of a report),
/// in characters: a longer one is cut, saying how much was left out.
pub const MAX_MESSAGE_CHARS: usize = 4_000;
/// The longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 32;
/// The most entries `--players` (or a save) may list: the most players any ruleset allows.
pub const MAX_PLAYERS: usize = crate::core::MAX_PLAYERS;
/// The longest bot spec (`bot:SPEC`, a Lua bot's path), in bytes.
pub const MAX_BOT_SPEC_BYTES: usize = 4096;
/// The most iterations `mcts:N` may search per move.
pub const MAX_MCTS_ITERATIONS: u32 = 100_000;
/// The most worker threads `sim --jobs` may start.
pub const MAX_JOBS: usize = 256;
/// The most moves a save file may hold (a longer game cannot be saved, and such a file is
/// refused as soon as the count is passed); its list of step hashes, one per move, is bounded
/// the same way.
pub const MAX_SAVED_MOVES: usize = 50_000;
/// The longest chain of rulesets that `extends` one another.
pub const MAX_EXTENDS_DEPTH: usize = 16;
/// The most mods a ruleset may load (with the ones of the rulesets it extends).
pub const MAX_MODS: usize = 64;

/// What a file is read as; each kind has its own size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A ruleset (`--ruleset`, `extends`, `--baseline`, a save's ruleset).
    Ruleset,
    /// A Lua mod a ruleset lists.
    Mod,
    /// A Lua bot (`bot:FILE.lua`).
    LuaBot,
    /// A stacked deck (`--deck @FILE`).
    Deck,
    /// A save file (`--load`).
    Save,
    /// A script of commands (`--script`), read line by line: no size limit, each line is
    /// limited to [`MAX_LINE_BYTES`].
    Script,
    /// The shell's command history (skipped, not refused, when it breaks the limit).
    History,
}

impl FileKind {
    /// Every kind, in the order `docs/limits.md` lists them.
    pub const ALL: [FileKind; 7] = [
        FileKind::Ruleset,
        FileKind::Mod,
        FileKind::LuaBot,
        FileKind::Deck,
        FileKind::Save,
        FileKind::Script,
        FileKind::History,
    ];

    /// The largest file of this kind, in bytes (`None`: read line by line, no total limit).
    pub const fn max_bytes(self) -> Option<u64> {
        const KIB: u64 = 1024;
        match self {
            FileKind::Ruleset => Some(256 * KIB),
            FileKind::Mod | FileKind::LuaBot => Some(1024 * KIB),
            FileKind::Deck => Some(64 * KIB),
            FileKind::Save => Some(8 * 1024 * KIB),
            FileKind::History => Some(1024 * KIB),
            FileKind::Script => None,
        }
    }

    /// What the file is, for messages (`a ruleset`).
    pub const fn what(self) -> &'static str {
        match self {
            FileKind::Ruleset => "a ruleset",
            FileKind::Mod => "a mod",
            FileKind::LuaBot => "a Lua bot",
            FileKind::Deck => "a deck file",
            FileKind::Save => "a save file",
            FileKind::Script => "a script",
            FileKind::History => "the history",
        }
    }
}

/// Why a file was not read. Its text names the problem, not the file: callers say which file.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// Not a regular file: what it is instead (`a directory`, `a FIFO` …).
    NotRegular(&'static str),
    /// Larger than its kind may be.
    TooLarge { kind: FileKind, bytes: u64, max: u64 },
    /// Not UTF-8 text.
    NotText,
}

impl ReadError {
    /// The file does not exist (a caller may look elsewhere, e.g. among the shipped files).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => match e.kind() {
                io::ErrorKind::NotFound => write!(f, "no such file"),
                io::ErrorKind::PermissionDenied => write!(f, "permission denied"),
                _ => write!(f, "{}", e.to_string().to_lowercase()),
            },
            ReadError::NotRegular(what) => write!(f, "not a regular file (it is {what})"),
            ReadError::TooLarge { kind, bytes, max } => {
                write!(f, "too large for {}: {bytes} bytes or more, the limit is {max}", kind.what())
            }
            ReadError::NotText => write!(f, "not UTF-8 text"),
        }
    }
}

impl std::error::Error for ReadError {}

/// What a file system object is, when it is not a regular file.
fn not_regular(meta: &fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Whether `path` (through symlinks) is under `/proc` or `/sys`, whose files say they are
/// regular (of size 0) but are made up by the kernel as they are read (`/proc/self/environ`
/// holds the environment): never read as a ruleset, a mod, a save or a script.
fn is_kernel_file(path: &Path) -> bool {
    fs::canonicalize(path).is_ok_and(|p| p.starts_with("/proc") || p.starts_with("/sys"))
}

/// Checks that `path` (through symlinks) is a regular file, without opening it (opening a
/// FIFO would wait for a writer).
pub fn check_regular(path: &Path) -> Result<fs::Metadata, ReadError> {
    let meta = fs::metadata(path).map_err(ReadError::Io)?;
    if meta.is_file() && is_kernel_file(path) {
        return Err(ReadError::NotRegular("a file the kernel makes up as it is read, under /proc or /sys"));
    }
    match not_regular(&meta) {
        Some(what) => Err(ReadError::NotRegular(what)),
        None => Ok(meta),
    }
}

/// Opens a regular file for reading (a script, read line by line afterwards).
pub fn open_regular(path: &Path) -> Result<File, ReadError> {
    check_regular(path)?;
    let file = File::open(path).map_err(ReadError::Io)?;
    // It could have been swapped between the check and the open.
    let meta = file.metadata().map_err(ReadError::Io)?;
    match not_regular(&meta) {
        Some(what) => Err(ReadError::NotRegular(what)),
        None => Ok(file),
    }
}

/// Reads a whole regular file of `kind` as text, never more than its limit (a file that grows
/// while it is read is cut at the limit and refused).
pub fn read_text(path: &Path, kind: FileKind) -> Result<String, ReadError> {
    let file = open_regular(path)?;
    let max = kind.max_bytes().unwrap_or(u64::MAX - 1);
    let len = file.metadata().map_err(ReadError::Io)?.len();
    if len > max {
        return Err(ReadError::TooLarge { kind, bytes: len, max });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge { kind, bytes: bytes.len() as u64, max });
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotText)
}

/// One line of input as [`Lines`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line (without its end of line), at most [`MAX_LINE_BYTES`] long.
    Text(String),
    /// A line longer than [`MAX_LINE_BYTES`]: skipped to its end without keeping it.
    TooLong { bytes: u64 },
    /// A line that is not UTF-8 text (a save name in it would be mangled): skipped.
    NotText,
    /// A line of at most [`MAX_LINE_BYTES`] that holds a NUL byte: skipped.
    Nul,
    /// More than [`MAX_LINE_BYTES`] without an end of line, with NUL bytes among them
    /// (`/dev/zero`): this is not text, and nothing more is read.
    Binary,
}

impl Line {
    /// The message for a line that is not read as a command, naming it by number.
    pub fn refusal(&self, number: u64) -> Option<String> {
        match self {
            Line::Text(_) => None,
            Line::TooLong { bytes } => Some(format!(
                "line {number} is too long ({bytes} bytes; a command may have at most {MAX_LINE_BYTES}): ignored"
            )),
            Line::NotText => Some(format!("line {number} is not UTF-8 text: ignored")),
            Line::Nul => Some(format!("line {number} holds a NUL byte: ignored")),
            Line::Binary => Some(format!(
                "line {number} runs past {MAX_LINE_BYTES} bytes with NUL bytes in it: the input is not text, so it is not read further"
            )),
        }
    }
}

/// Command lines from a stream, each at most [`MAX_LINE_BYTES`] in memory however long it is.
pub struct Lines<R> {
    input: R,
    /// The number of the last line returned (from 1).
    number: u64,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    pub fn new(input: R) -> Lines<R> {
        Lines { input, number: 0, done: false }
    }

    /// The number of the line last returned.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// The next line, or `None` at the end of the input (and after a [`Line::Binary`]). An
    /// overlong line of text is read to its end however long it is, in constant memory.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        if self.done {
            return Ok(None);
        }
        let mut kept: Vec<u8> = Vec::new();
        let mut total: u64 = 0;
        let mut ended = false;
        let mut nul = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            let (part, used, newline) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            nul |= part.contains(&0);
            let room = (MAX_LINE_BYTES + 1).saturating_sub(kept.len());
            kept.extend_from_slice(&part[..part.len().min(room)]);
            total += part.len() as u64;
            self.input.consume(used);
            if nul && total > MAX_LINE_BYTES as u64 {
                self.done = true;
                self.number += 1;
                return Ok(Some(Line::Binary));
            }
            if newline {
                ended = true;
                break;
            }
        }
        if !ended && total == 0 {
            self.done = true;
            return Ok(None);
        }
        self.number += 1;
        if kept.last() == Some(&b'\r') && total as usize == kept.len() {
            kept.pop();
            total -= 1;
        }
        if total > MAX_LINE_BYTES as u64 {
            return Ok(Some(Line::TooLong { bytes: total }));
        }
        if nul {
            return Ok(Some(Line::Nul));
        }
        Ok(Some(String::from_utf8(kept).map_or(Line::NotText, Line::Text)))
    }
}

/// `text` as an error message quotes it: at most [`MAX_QUOTED_CHARS`] characters, control
/// characters escaped, so a message is one short readable line whatever was typed.
pub fn quoted(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == MAX_QUOTED_CHARS {
            out.push('…');
            break;
        }
        push_shown(&mut out, c);
    }
    out
}

/// Writes `c` as it may reach a terminal: a control or invisible character as its escape
/// (`\u{1b}`, `\n`, `\u{202e}`), anything else as itself.
fn push_shown(out: &mut String, c: char) {
    if c.is_control() {
        out.extend(c.escape_default());
    } else if hidden(c) {
        out.extend(c.escape_unicode());
    } else {
        out.push(c);
    }
}

/// How [`shown`] writes a new line inside a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewLines {
    /// As `\n`: the message stays one line, so no part of it can pass for a line of its own
    /// (narration in the shell and the replay viewer, a note of `check`, a line of `rules`).
    Escaped,
    /// As a new line indented by two spaces, so every continuation reads as part of the
    /// message above it: for a message whose lines are ours (a failed scenario's list of the
    /// events it saw, in `mod test`), printed where no indented line is expected.
    Indented,
}

/// `text` as one message may reach a terminal, wherever it came from (a file, a mod, a save,
/// the command line): control and invisible characters escaped as [`quoted`] escapes them, so
/// no escape sequence reaches the terminal; new lines as `new_lines` says; and at most
/// [`MAX_MESSAGE_CHARS`] characters, then `… (N more characters)` saying what was left out.
pub fn shown(text: &str, new_lines: NewLines) -> String {
    let mut out = String::new();
    let mut written = 0;
    let mut chars = text.chars();
    while written < MAX_MESSAGE_CHARS {
        let Some(c) = chars.next() else { return out };
        let before = out.len();
        match (c, new_lines) {
            ('\n', NewLines::Indented) => out.push_str("\n  "),
            _ => push_shown(&mut out, c),
        }
        written += out[before..].chars().count();
    }
    let rest = chars.count();
    if rest > 0 {
        let s = if rest == 1 { "" } else { "s" };
        out.push_str(&format!("… ({rest} more character{s})"));
    }
    out
}

/// `text` from a host's server as `join` may print it: the lines and colours (`ESC [ … m`)
/// the host's board and narration are drawn with, and nothing else a terminal would act on.
/// Every other control or invisible character is escaped as [`shown`] escapes it, so a
/// hostile host can colour its text but cannot move the cursor, clear the screen, retitle the
/// window or hide a line.
pub fn host_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let colour = rest.strip_prefix("\x1b[").and_then(|after| {
            let end = after.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
            (end <= MAX_COLOUR_PARAMS && after[end..].starts_with('m')).then_some(2 + end + 1)
        });
        match (c, colour) {
            (_, Some(len)) => {
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
            ('\n', _) => out.push('\n'),
            _ => push_shown(&mut out, c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The longest parameter list [`host_text`] passes in a colour sequence (`38;2;255;255;255`
/// is 16 characters).
const MAX_COLOUR_PARAMS: usize = 24;

/// A character no name may hold: control characters (escape sequences, new lines) and the
/// invisible ones that reorder or hide text.
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Why `text` cannot be shown as it is written, if it cannot: its first [`hidden`] character
/// (a tab or new line aside, which a caller turns into a space), in words for a refusal
/// (`U+001B, an escape: a terminal would obey it`).
pub fn unshowable(text: &str) -> Option<String> {
    let c = text.chars().find(|&c| hidden(c) && !matches!(c, '\t' | '\n' | '\r'))?;
    let what = match c {
        '\u{1b}' | '\u{9b}' => {
            "an escape, which starts a sequence a terminal obeys (colours, the title, clearing the screen)"
        }
        '\u{7}' => "the bell",
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => {
            "a direction mark, which reorders the text around it"
        }
        '\u{200B}'..='\u{200D}' | '\u{FEFF}' => "an invisible character",
        _ => "a control character",
    };
    Some(format!("U+{:04X}, {what}", c as u32))
}

/// `text` as a line others may be shown: terminal escape sequences (colours, cursor moves,
/// titles: `ESC [ … letter`, `ESC ] … BEL`) removed whole, then every [`hidden`] character (a
/// tab becomes a space). Removing only the escape character left `[31m` in the line; the
/// text-reversing characters turned a line around for its readers.
pub fn clean_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' | '\u{9b}' => {
                let kind = if c == '\u{9b}' { Some('[') } else { chars.next_if(|n| matches!(n, '[' | ']')) };
                match kind {
                    // A control sequence: parameters and intermediates, then its final letter.
                    Some('[') => {
                        for n in chars.by_ref() {
                            if ('\u{40}'..='\u{7e}').contains(&n) {
                                break;
                            }
                        }
                    }
                    // An operating-system command (a window title): up to BEL or ESC and a backslash.
                    Some(_) => {
                        while let Some(n) = chars.next() {
                            if n == '\u{7}' || n == '\u{9c}' {
                                break;
                            }
                            if n == '\u{1b}' {
                                chars.next_if_eq(&'\\');
                                break;
                            }
                        }
                    }
                    // ESC and one more character (a two-character sequence).
                    None => {
                        chars.next();
                    }
                }
            }
            '\t' => out.push(' '),
            c if hidden(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// The limits every player name keeps (the REPL adds the words its commands use): not empty,
/// at most [`MAX_NAME_CHARS`], no space, no control or invisible character.
pub fn check_name_text(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a player name is empty".into());
    }
    let shown = quoted(name);
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(format!("'{shown}' is {chars} characters long; a name may have at most {MAX_NAME_CHARS}"));
    }
    if name.chars().any(|c| hidden(c) || blank(c)) {
        return Err(format!("'{shown}' holds a control or invisible character, which a name cannot have"));
    }
    if name.chars().any(char::is_whitespace) {
        return Err(format!("'{shown}' has a space; names must be one word so commands can name them"));
    }
    Ok(())
}

/// A character that shows nothing where a name holds it, beyond [`hidden`]'s: Unicode's
/// default-ignorable code points (the soft hyphen, the word joiner, variation selectors, tag
/// characters, the Hangul fillers) and the blank Braille pattern. A name of them alone looked
/// empty in the lobby (`ㅤ`, U+3164, was a name), and one inside a name is not seen at all.
fn blank(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{34F}'
            | '\u{61C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{2060}'..='\u{206F}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// A bot as players write it after `bot:`, checked against the limits (but not built: a Lua
/// bot's file is read when the bot is made).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BotSpec {
    Random,
    Greedy,
    /// `mcts` or `mcts:N` (`None`: the default strength).
    Mcts(Option<u32>),
    /// A path to a Lua bot, ending in `.lua`.
    Lua(String),
}

/// Why a bot spec is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BotSpecError {
    /// No bot has that name.
    Unknown(String),
    /// A known bot with a bad argument or an overlong spec: the spec and the reason.
    Bad(String, String),
}

/// Reads a bot spec: `random`, `greedy`, `mcts`, `mcts:N` (1 to [`MAX_MCTS_ITERATIONS`]), or a
/// path ending in `.lua` (at most [`MAX_BOT_SPEC_BYTES`], no control character).
pub fn parse_bot_spec(spec: &str) -> Result<BotSpec, BotSpecError> {
    let spec = spec.trim();
    let shown = quoted(spec);
    if spec.len() > MAX_BOT_SPEC_BYTES {
        return Err(BotSpecError::Bad(
            shown,
            format!("{} bytes long; a bot spec may have at most {MAX_BOT_SPEC_BYTES}", spec.len()),
        ));
    }
    if spec.chars().any(hidden) {
        return Err(BotSpecError::Bad(shown, "a bot spec cannot hold a control or invisible character".into()));
    }
    if spec.ends_with(".lua") {
        return Ok(BotSpec::Lua(spec.to_string()));
    }
    let (kind, arg) = match spec.split_once(':') {
        Some((kind, arg)) => (kind, Some(arg)),
        None => (spec, None),
    };
    match (kind.to_ascii_lowercase().as_str(), arg) {
        ("random", None) => Ok(BotSpec::Random),
        ("greedy", None) => Ok(BotSpec::Greedy),
        ("mcts", None) => Ok(BotSpec::Mcts(None)),
        ("mcts", Some(n)) => match n.trim().parse::<u64>() {
            Ok(n) if (1..=MAX_MCTS_ITERATIONS as u64).contains(&n) => Ok(BotSpec::Mcts(Some(n as u32))),
            Ok(0) => Err(BotSpecError::Bad(
                shown,
                format!("mcts searches 1 to {MAX_MCTS_ITERATIONS} iterations a move, not 0"),
            )),
            Ok(n) if n > MAX_MCTS_ITERATIONS as u64 => Err(BotSpecError::Bad(
                shown,
                format!("{n} iterations is more than the {MAX_MCTS_ITERATIONS} mcts may search a move"),
            )),
            _ => {
                Err(BotSpecError::Bad(shown, format!("'{}' is not a number of iterations (write mcts:200)", quoted(n))))
            }
        },
        _ => Err(BotSpecError::Unknown(shown)),
    }
}

/// The worker threads for `sim`: the request (default: the cores), refused above
/// [`MAX_JOBS`], and never more than there are games.
pub fn jobs(requested: Option<usize>, games: u64) -> Result<usize, String> {
    let jobs = match requested {
        Some(n) if n > MAX_JOBS => {
            return Err(format!("--jobs {n} is more than the {MAX_JOBS} worker threads a simulation may start"));
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_JOBS),
    };
    Ok(jobs.clamp(1, games.clamp(1, MAX_JOBS as u64) as usize))
}

/// Removes terminal escape sequences whole, control characters, the invisible ones that
/// reorder or hide text (as player names refuse them: [`clean_line`], as a mod's narration)
/// and surrounding space from chat; `Err` when nothing is left or it is longer than `max`
/// characters.
pub fn clean_chat(text: &str, max: usize) -> Result<String, String> {
    let cleaned = clean_line(text);
    let cleaned = cleaned.trim();
    if cleaned.is_empty() {
        return Err("say what? (say TEXT)".into());
    }
    let count = cleaned.chars().count();
    if count > max {
        return Err(format!("that is {count} characters; say at most {max}"));
    }
    Ok(cleaned.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_line_loses_whole_escape_sequences_and_reversing_characters() {
        assert_eq!(clean_line("\u{1b}[31;1mred\u{1b}[0m and \u{202e}txet\u{202c} done"), "red and txet done");
        assert_eq!(clean_line("\u{1b}]0;owned\u{7}title kept\tout"), "title kept out");
        assert_eq!(clean_line("\u{1b}]2;x\u{1b}\\y \u{9b}2Jz \u{1b}cq\u{200b}"), "y z q");
        assert_eq!(clean_line("plain ♠ text"), "plain ♠ text");
    }

    fn lines(input: &[u8]) -> Vec<Line> {
        let mut reader = Lines::new(input);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn lines_are_split_and_the_overlong_one_is_skipped() {
        let mut input = b"state\r\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 5));
        input.extend(b"\nmoves");
        assert_eq!(
            lines(&input),
            [
                Line::Text("state".into()),
                Line::TooLong { bytes: MAX_LINE_BYTES as u64 + 5 },
                Line::Text("moves".into())
            ]
        );
        let exact = vec![b'y'; MAX_LINE_BYTES];
        assert_eq!(lines(&exact), [Line::Text(String::from_utf8(exact.clone()).unwrap())]);
    }

    #[test]
    fn bad_bytes_are_named() {
        assert_eq!(lines(b"save \xff.json\npass\n"), [Line::NotText, Line::Text("pass".into())]);
        assert_eq!(lines(b"pass\n\0\0\0\npass\n"), [Line::Text("pass".into()), Line::Nul, Line::Text("pass".into())]);
        let mut zeros = b"pass\n".to_vec();
        zeros.extend(vec![0; MAX_LINE_BYTES + 1]);
        zeros.extend(b"\npass\n");
        assert_eq!(lines(&zeros), [Line::Text("pass".into()), Line::Binary]);
        assert_eq!(lines(b""), []);
        assert_eq!(lines(b"\n"), [Line::Text(String::new())]);
    }

    #[test]
    fn quoting_is_short_and_escapes_control_characters() {
        assert_eq!(quoted("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
        assert_eq!(quoted(&"z".repeat(100)).chars().count(), MAX_QUOTED_CHARS + 1);
    }

    /// A host colours its text, and nothing more: the cursor, the screen, the window's
    /// title and hidden text are the joining player's.
    #[test]
    fn a_hosts_text_keeps_its_colours_and_lines_and_nothing_else() {
        let coloured = "\x1b[1mDiving Suits\x1b[0m\n\x1b[38;2;10;20;30mbob\x1b[m dives\n";
        assert_eq!(host_text(coloured), coloured);
        let hostile = "a\x1b[2J\x1b[H\x1b]0;pwned\x07b\r\u{202e}c\x1b[1;31";
        let shown = host_text(hostile);
        assert!(!shown.contains('\x1b') && !shown.contains('\r') && !shown.contains('\x07'), "{shown:?}");
        assert!(!shown.contains('\u{202e}'), "{shown:?}");
        assert_eq!(shown, "a\\u{1b}[2J\\u{1b}[H\\u{1b}]0;pwned\\u{7}b\\r\\u{202e}c\\u{1b}[1;31");
        // A parameter list longer than any colour needs is not a colour.
        let long = format!("\x1b[{}m", "1;".repeat(20));
        assert!(!host_text(&long).contains('\x1b'));
    }

    #[test]
    fn a_shown_message_has_no_control_character_and_a_bound() {
        assert_eq!(shown("a\u{1b}[31mb\u{7}", NewLines::Escaped), "a\\u{1b}[31mb\\u{7}");
        assert_eq!(shown("x\u{202e}y", NewLines::Escaped), "x\\u{202e}y");
        assert_eq!(shown("a\nbob plays AS", NewLines::Escaped), "a\\nbob plays AS");
        assert_eq!(shown("events:\n  one\r\n", NewLines::Indented), "events:\n    one\\r\n  ");
        assert_eq!(shown("née", NewLines::Escaped), "née");
        let long = shown(&"AS ".repeat(52_000), NewLines::Escaped);
        assert!(long.ends_with(&format!("… ({} more characters)", 3 * 52_000 - MAX_MESSAGE_CHARS)), "{long}");
        assert_eq!(long.chars().count(), MAX_MESSAGE_CHARS + "… (152000 more characters)".len() - 2);
        let escapes = shown(&"\u{1b}".repeat(MAX_MESSAGE_CHARS), NewLines::Escaped);
        assert!(escapes.chars().count() < MAX_MESSAGE_CHARS + 40, "{}", escapes.len());
        assert!(!escapes.contains('\u{1b}'));
        let x = "x".repeat(MAX_MESSAGE_CHARS);
        assert_eq!(shown(&format!("{x}y"), NewLines::Escaped), format!("{x}… (1 more character)"));
        assert_eq!(shown(&x, NewLines::Escaped), x);
    }

    #[test]
    fn names_keep_their_limits() {
        assert!(check_name_text("alice").is_ok());
        assert!(check_name_text(&"é".repeat(MAX_NAME_CHARS)).is_ok());
        for bad in ["", "a b", "a\nb", "\u{1b}[2J", "ab\u{202e}c", &"a".repeat(MAX_NAME_CHARS + 1)] {
            assert!(check_name_text(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_name_that_shows_nothing_is_refused() {
        // Each was a lobby name: the Hangul filler alone looked like no name at all.
        for bad in [
            "\u{3164}",
            "\u{115F}",
            "\u{2800}",
            "Zed\u{2060}x",
            "Zeb\u{34F}x",
            "Zec\u{FE0F}",
            "Zeg\u{AD}",
            "Zef\u{E0041}",
        ] {
            let refused = check_name_text(bad).unwrap_err();
            assert!(refused.ends_with("holds a control or invisible character, which a name cannot have"), "{refused}");
        }
        assert!(check_name_text("Zoë").is_ok());
        assert!(check_name_text("🙂").is_ok());
    }

    #[test]
    fn bot_specs_keep_their_limits() {
        assert_eq!(parse_bot_spec("MCTS:100000"), Ok(BotSpec::Mcts(Some(MAX_MCTS_ITERATIONS))));
        assert_eq!(parse_bot_spec(" greedy "), Ok(BotSpec::Greedy));
        assert!(matches!(parse_bot_spec("mcts:100001"), Err(BotSpecError::Bad(_, m)) if m.contains("more than")));
        assert!(
            matches!(parse_bot_spec("mcts:0"), Err(BotSpecError::Bad(_, m)) if m == "mcts searches 1 to 100000 iterations a move, not 0")
        );
        assert!(matches!(parse_bot_spec("nope"), Err(BotSpecError::Unknown(_))));
        assert!(matches!(parse_bot_spec(&format!("{}.lua", "d/".repeat(3000))), Err(BotSpecError::Bad(..))));
    }

    #[test]
    fn jobs_are_bounded_and_never_more_than_the_games() {
        assert_eq!(jobs(Some(8), 3), Ok(3));
        assert_eq!(jobs(Some(2), 1000), Ok(2));
        assert_eq!(jobs(Some(MAX_JOBS), 1_000_000), Ok(MAX_JOBS));
        assert!(jobs(Some(MAX_JOBS + 1), 1_000_000).unwrap_err().contains("more than"));
        assert!(jobs(None, 1).unwrap() == 1);
    }
}
