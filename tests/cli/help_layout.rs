//! Issue 32: every help text laid out for 40, 60, 80 and 120 columns, as a greedy fill would
//! lay it out (no line longer than the width, no word left alone on a line when it fitted on
//! the line before), and `help rules` shown a screenful at a time on a 24-row terminal (whole
//! in a pipe). Driven through the shell's own functions, with a scripted person at the keyboard.

use diving::shell::front::{More, Prompter, Shell};
use diving::table::parse::COMMANDS;
use diving::table::render::{Style, display_width, reflow};
use diving::table::session::{Seating, Session};

/// Answers `-- more --` from a list (then stops), and counts the questions.
#[derive(Default)]
struct Reader {
    more: Vec<bool>,
    asked: usize,
}

impl Prompter for Reader {
    fn ask(&mut self, _question: &str) -> Option<String> {
        None
    }

    fn more(&mut self, _shown: usize, _total: usize) -> More {
        self.asked += 1;
        match self.more.is_empty() || !self.more.remove(0) {
            true => More::Stop,
            false => More::Page,
        }
    }
}

/// A terminal with Unicode (`unicode`), or without (a C locale: ASCII only).
fn shell_in(spec: &str, unicode: bool) -> Shell<Vec<u8>> {
    let seats = ["alice", "bob"].map(|n| Seating { name: n.to_string(), bot: None }).to_vec();
    let session = Session::new(spec, seats, 1, None).unwrap();
    Shell::interactive(session, Vec::new(), Style { color: false, unicode })
}

fn shell(spec: &str) -> Shell<Vec<u8>> {
    shell_in(spec, true)
}

fn run(shell: &mut Shell<Vec<u8>>, line: &str, reader: &mut Reader) -> String {
    shell.line(line, reader);
    String::from_utf8(std::mem::take(shell.out())).unwrap()
}

/// Every help topic: `help`, the rules, each command, the cards, a one-letter command.
fn topics() -> Vec<String> {
    let mut topics = vec!["help".to_string(), "help rules".to_string()];
    topics.extend(COMMANDS.iter().map(|(word, _)| format!("help {word}")));
    topics.extend(["J", "Q", "K", "7", "q"].map(|t| format!("help {t}")));
    topics
}

/// Where the text of a help line starts when the line is an item (`  table, tN   take it …`:
/// two spaces or more after a short term; `  - once …`), else `None`.
fn item_text(line: &str) -> Option<usize> {
    let body = line.trim_start();
    if let Some(rest) = body.strip_prefix("- ") {
        return Some(line.len() - rest.len());
    }
    let gap = body.find("  ")?;
    let text = body[gap..].trim_start();
    (gap > 0 && gap <= 24 && !text.is_empty()).then(|| line.len() - text.len())
}

/// What is wrong with `text` as a fill at `width`: a line too long; a lone word (or sign,
/// like 🏆) that would have fitted at the end of the line before; a line that goes on with
/// the paragraph above though its first word would have fitted on the line before.
///
/// A line goes on with the paragraph above unless it starts a paragraph of its own: under
/// the title (the first line), at the margin, as an item, after an empty line or a
/// sentence's end (`.`, `:`), or indented less than the paragraph's lines go on (an item's
/// go on under its text).
fn ragged(text: &str, width: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut wrong = Vec::new();
    // How far in the lines of the paragraph above go on.
    let mut goes_on = 0;
    for (i, line) in lines.iter().enumerate() {
        if display_width(line) > width {
            wrong.push(format!("longer than {width}: {line:?}"));
        }
        let word = line.trim();
        let indent = line.len() - line.trim_start().len();
        let before = if i > 0 { lines[i - 1] } else { "" };
        let fits = |w: &str| !before.trim().is_empty() && display_width(before) + 1 + display_width(w) <= width;
        if i > 0 && !word.is_empty() && !word.contains(' ') && fits(word) {
            wrong.push(format!("{word:?} alone, though it fits after {before:?}"));
        }
        let starts = i == 1
            || word.is_empty()
            || indent == 0
            || item_text(line).is_some()
            || before.trim().is_empty()
            || before.trim_end().ends_with(['.', ':'])
            || indent < goes_on;
        // What may not be split: a word with the signs after it (`(A =`, `wins! 🏆`), or an
        // example of a list (`play js bob ·`).
        let first = [" · ", " / "]
            .iter()
            .find_map(|sep| word.split_once(sep).map(|(example, _)| format!("{example}{}", sep.trim_end())))
            .unwrap_or_else(|| {
                let mut words = word.split(' ');
                let mut first = words.next().unwrap_or("").to_string();
                for sign in words.take_while(|w| !w.is_empty() && !w.chars().any(char::is_alphanumeric)) {
                    first = format!("{first} {sign}");
                }
                first
            });
        let first = first.as_str();
        if !starts && fits(first) {
            wrong.push(format!("{line:?} goes on from {before:?}, though {first:?} fits there"));
        }
        if starts {
            goes_on = item_text(line).unwrap_or(indent);
        }
    }
    wrong
}

#[test]
fn every_help_text_is_filled_for_40_60_80_and_120_columns() {
    for (spec, unicode) in [("standard", true), ("standard", false), ("house", true)] {
        let mut s = shell_in(spec, unicode);
        for width in [40, 60, 80, 120] {
            s.screen.width = Some(width);
            for topic in topics() {
                let text = run(&mut s, &topic, &mut Reader::default());
                assert!(!text.contains("error"), "{topic}: {text}");
                let wrong = ragged(&text, width);
                assert!(wrong.is_empty(), "{spec}, '{topic}' at {width} columns: {wrong:#?}\n{text}");
            }
            // The replay viewer's help too.
            let text = reflow(&diving::shell::replay::help_text(), width);
            let wrong = ragged(&text, width);
            assert!(wrong.is_empty(), "the viewer's help at {width} columns: {wrong:#?}\n{text}");
        }
    }
}

/// The fill keeps what the text says and how it is arranged: every word in order, each
/// command's paragraph under its title, an item's lines under its text.
#[test]
fn a_filled_help_says_the_same_words_laid_out_as_written() {
    let mut s = shell("standard");
    s.screen.width = None;
    let written = run(&mut s, "help play", &mut Reader::default());
    s.screen.width = Some(40);
    let filled = run(&mut s, "help play", &mut Reader::default());
    let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(words(&written), words(&filled));
    assert!(filled.starts_with("play CARD [table|tN] [PLAYER] [over]\n"), "{filled}");
    // `PLAYER      who gets your J …`: its lines go on under its text.
    let at = filled.lines().position(|l| l.starts_with("  PLAYER      who")).unwrap();
    let next = filled.lines().nth(at + 1).unwrap();
    assert!(next.starts_with(&" ".repeat(14)) && !next.starts_with(&" ".repeat(15)), "{filled}");
    // An example is never split across lines.
    for example in ["play 7h", "play qd t3", "play js bob", "play 5c 2", "play 9s over"] {
        assert!(filled.lines().any(|l| l.contains(example)), "{example}: {filled}");
    }
    // At 120 columns a paragraph is one line.
    s.screen.width = Some(120);
    let wide = run(&mut s, "help undo", &mut Reader::default());
    assert!(
        wide.contains(
            "  Take back your last move (and the bots' moves after it): only your own move, so in a hot-seat"
        )
    );
}

/// The 🏆 of a win stays with the word before it.
#[test]
fn the_trophy_never_wraps_alone() {
    let line = "alice plays 9H on 8H — doubled to 18 — quick, +8: depth 76 → 100 — reaches the bottom and wins! 🏆";
    for width in 20..=line.chars().count() + 2 {
        let wrapped = diving::table::render::wrap(line, width);
        let lone = wrapped.lines().any(|l| l.trim() == "🏆");
        assert!(!lone, "{width}:\n{wrapped}");
    }
}

/// `help rules` is longer than a 24-row screen: it is shown 23 rows at a time, `-- more --`
/// between them; stopping there shows no more. In a pipe it is printed whole.
#[test]
fn help_rules_pages_on_a_small_screen_and_is_whole_in_a_pipe() {
    let mut s = shell("standard");
    s.screen.width = Some(80);
    s.screen.height = Some(24);
    let mut reader = Reader { more: vec![true, true, true], ..Reader::default() };
    let paged = run(&mut s, "help rules", &mut reader);
    s.screen.height = None;
    let whole = run(&mut s, "help rules", &mut Reader::default());
    assert!(whole.lines().count() > 24, "the test needs a long text: {whole}");
    assert_eq!(paged, whole, "every screenful, in order");
    assert_eq!(reader.asked, whole.lines().count().div_ceil(23) - 1);
    // Stopping at the first question: the first screenful only.
    s.screen.height = Some(24);
    let mut stop = Reader::default();
    let first = run(&mut s, "help rules", &mut stop);
    assert_eq!(stop.asked, 1);
    assert_eq!(first.lines().collect::<Vec<_>>(), whole.lines().take(23).collect::<Vec<_>>());
    // A help that fits asks nothing.
    let mut none = Reader::default();
    run(&mut s, "help pass", &mut none);
    assert_eq!(none.asked, 0);
    // A pipe gets the whole text, as written.
    let piped = crate::cli_support::text_game("alice,bob", "10H QH 10C QD 2C 3C KS 5D AS 2D 3H 4D 10S", "help rules\n");
    assert!(piped.contains("'state' shows the board"), "{piped}");
    assert!(!piped.contains("-- more --"), "{piped}");
}
