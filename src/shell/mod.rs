//! The game shell: the terminal front end of a [`crate::table`], and the script/JSON mode. It
//! reads lines, prompts and writes; the table interprets every command and holds no terminal.
//!
//! Code map: [`front`] the line loop shared by every input (a pipe, a script, the terminal),
//! writing the table's replies as text or JSON Lines; [`terminal`] the rustyline front end and
//! the hot-seat gates; [`interrupt`] Ctrl-C while the game is busy; [`replay`] the replay
//! viewer. This module turns the command line into a session and picks
//! the front end.

pub mod front;
pub mod interrupt;
pub mod replay;
pub mod terminal;

use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};

use crate::limits::{self, Line, Lines};
use crate::ruleset::Ruleset;
use crate::table::render::Style;
use crate::table::seating::read_deck;
use crate::table::session::Session;
use crate::table::{json, render, save, seating};
use front::{NoPrompter, Shell};

/// What a game is started with: the play options of the command line, as plain values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayOptions {
    /// Player names in seat order, `bot:SPEC` for a computer player (default: [`crate::table::seating::DEFAULT_PLAYERS`]).
    pub players: Option<Vec<String>>,
    /// Seed for the shuffle and reshuffles (default: random, and announced).
    pub seed: Option<u64>,
    /// A stacked deck, top first: the cards, or `@FILE` (see [`read_deck`]).
    pub deck: Option<String>,
    /// Read commands from this file instead of the terminal.
    pub script: Option<PathBuf>,
    /// Resume this saved game.
    pub load: Option<PathBuf>,
    /// Never use colour.
    pub no_color: bool,
    /// Turn `hint` off for this game.
    pub no_hints: bool,
}

/// `diving play`: runs a game in the REPL, or from a script / pipe.
pub fn play(ruleset: Option<&str>, json: bool, args: &PlayOptions) -> anyhow::Result<ExitCode> {
    // Everything that can fail for bad input fails here, before any output.
    let script: Option<Box<dyn BufRead>> = match &args.script {
        Some(path) => {
            let file = limits::open_regular(path).with_context(|| format!("cannot read script {}", path.display()))?;
            Some(Box::new(BufReader::new(file)))
        }
        None => None,
    };
    let mut seed_note = None;
    let mut loaded = None;
    let mut notes = Vec::new();
    let mut session = match &args.load {
        Some(path) => {
            if args.players.is_some() || args.seed.is_some() || args.deck.is_some() {
                bail!("--load resumes a saved game as it was: it cannot be combined with --players, --seed or --deck");
            }
            loaded = Some(path.display().to_string());
            let load = Session::load(save::read(path)?, path, ruleset)?;
            notes = load.notes;
            load.session
        }
        None => {
            let spec = ruleset.unwrap_or("standard");
            let seating = seating::seating(args.players.as_deref())?;
            let seed = match args.seed {
                Some(seed) => seed,
                None => {
                    // 52 bits: exact in any JSON reader (JavaScript numbers are doubles).
                    let seed = rand::random::<u64>() >> 12;
                    seed_note = Some(seed);
                    seed
                }
            };
            let deck = args.deck.as_deref().map(read_deck).transpose()?;
            let seats = seating.len();
            Session::new(spec, seating, seed, deck).map_err(|e| match &args.players {
                // The default table (you and one bot) does not fit this ruleset: say how to seat it.
                None if e.contains(&format!("players, not {seats}")) => {
                    let fewest = Ruleset::load(spec).map_or(2, |r| r.rules.min_players);
                    let example: Vec<&str> = std::iter::once("you")
                        .chain(std::iter::repeat_n("bot:greedy", fewest.saturating_sub(1)))
                        .collect();
                    anyhow::anyhow!(
                        "{e} (without --players the game seats you and one bot: name the players, e.g. --players {})",
                        example.join(",")
                    )
                }
                // Too few people named (`--players alice`): a bot makes the game.
                Some(list) if e.contains(&format!("players, not {seats}")) => {
                    let fewest = Ruleset::load(spec).map_or(2, |r| r.rules.min_players);
                    match seating::with_bots(list, fewest) {
                        Some(example) => {
                            anyhow::anyhow!("{e} (to play against the computer, add a bot: --players {example})")
                        }
                        None => anyhow::Error::msg(e),
                    }
                }
                _ => anyhow::Error::msg(e),
            })?
        }
    };
    if args.no_hints {
        session.set_hints(false);
    }
    for note in &notes {
        eprintln_note(note);
    }

    let interactive = !json && script.is_none() && io::stdin().is_terminal();
    if interactive {
        let style = terminal_style(args.no_color);
        let mut shell = Shell::interactive(session, io::stdout(), style);
        terminal::run(&mut shell, seed_note, loaded.as_deref());
        return shell.finish().map(|()| ExitCode::SUCCESS);
    }

    let mut shell = Shell::script(session, io::stdout().lock(), json);
    if let Some(seed) = seed_note {
        shell.say_json(serde_json::json!({ "event": "seeded", "seed": seed }));
        shell.say(&format!("seed {seed} (replay with --seed {seed})"));
    }
    match loaded {
        Some(file) => {
            let game = shell.session().game();
            let (turn, current) = (game.turn(), game.name(game.current()).to_string());
            shell.say_json(serde_json::json!({ "event": "resumed", "loaded": file, "turn": turn, "current": current }));
            let file = limits::shown(&file, limits::NewLines::Escaped);
            shell.say(&format!("resumed {file}: turn {turn}, {current} to play"));
            shell.run_bots();
            shell.flush();
        }
        None => shell.start(),
    }
    let input: Box<dyn BufRead> = match script {
        Some(s) => s,
        None => Box::new(io::stdin().lock()),
    };
    let read = run_lines(&mut shell, input);
    // A failed write is the first thing to report: it is why the input stopped being read.
    shell.finish()?;
    read.map(|()| ExitCode::SUCCESS)
}

/// A note for the person starting the game (a loaded save recorded under other rules), on
/// standard error so that it stays out of a script's answers; it quotes the save, so it is
/// [`limits::shown`].
fn eprintln_note(note: &str) {
    let _ = writeln!(io::stderr(), "note: {}", limits::shown(note, limits::NewLines::Escaped));
}

/// Feeds every line of `input` to the shell until it ends or a `quit`, through the bounded
/// line reader: an overlong or non-UTF-8 line is refused like a bad command and the game goes
/// on; input that is not text (NUL bytes past the line limit) or cannot be read stops with
/// an error.
pub fn run_lines<W: Write>(shell: &mut Shell<W>, input: impl BufRead) -> anyhow::Result<()> {
    run_lines_from(shell, &mut Lines::new(input))
}

/// [`run_lines`] on a reader already under way (the replay viewer hands its input on to the
/// game a `branch` starts).
pub fn run_lines_from<W: Write, R: BufRead>(shell: &mut Shell<W>, lines: &mut Lines<R>) -> anyhow::Result<()> {
    loop {
        let line = match lines.next_line() {
            Ok(None) => return Ok(()),
            Ok(Some(Line::Text(line))) => line,
            Ok(Some(refused)) => {
                let message = refused.refusal(lines.number()).unwrap_or_default();
                shell.error(&message);
                shell.flush();
                if refused == Line::Binary {
                    bail!("{message}");
                }
                if shell.output_closed() {
                    return Ok(());
                }
                continue;
            }
            Err(e) => {
                let message = format!("cannot read input after line {}: {e}", lines.number());
                shell.error(&message);
                shell.flush();
                bail!("{message}");
            }
        };
        if shell.line(&line, &mut NoPrompter) == front::Flow::Quit || shell.output_closed() {
            return Ok(());
        }
    }
}

/// Plays a game branched off a replay ([`Session::branch`]): at the terminal when
/// the viewer was, else reading the rest of the viewer's input. `note` says where it branched.
pub fn play_branch<R: BufRead>(
    session: Session,
    json: bool,
    no_color: bool,
    interactive: bool,
    note: &str,
    lines: &mut Lines<R>,
) -> anyhow::Result<ExitCode> {
    if interactive {
        let style = terminal_style(no_color);
        let mut shell = Shell::interactive(session, io::stdout(), style);
        shell.say(note);
        terminal::run(&mut shell, None, None);
        return shell.finish().map(|()| ExitCode::SUCCESS);
    }
    let mut shell = Shell::script(session, io::stdout().lock(), json);
    shell.say_json(serde_json::json!({ "event": "branched", "note": note }));
    shell.say(note);
    shell.start();
    let read = run_lines_from(&mut shell, lines);
    shell.finish()?;
    read.map(|()| ExitCode::SUCCESS)
}

/// Colour and Unicode for a terminal: colour unless `--no-color` or `NO_COLOR`; Unicode when
/// the locale says UTF-8.
pub fn terminal_style(no_color: bool) -> Style {
    style_for(io::stdout().is_terminal(), no_color, |key| std::env::var(key).ok())
}

/// [`terminal_style`] for a terminal or not, `--no-color`, and the environment `env` reads:
/// colour unless `--no-color`, `NO_COLOR` or `TERM=dumb` (a terminal that shows escape codes
/// as text); Unicode when the locale says UTF-8.
fn style_for(tty: bool, no_color: bool, env: impl Fn(&str) -> Option<String>) -> Style {
    let no_color_env = env("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = env("TERM").is_some_and(|t| t == "dumb");
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|k| env(k))
        .find(|v| !v.is_empty())
        .unwrap_or_default()
        .to_lowercase();
    let utf8 = locale.contains("utf-8") || locale.contains("utf8");
    Style { color: tty && !no_color && !no_color_env && !dumb, unicode: tty && utf8 }
}

/// `diving rules`: prints the rules in force.
pub fn print_rules(ruleset: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let spec = ruleset.unwrap_or("standard");
    let rs = Ruleset::load(spec).map_err(|e| anyhow::anyhow!("cannot load ruleset '{spec}': {e}"))?;
    write_rules(&rs, json).context("cannot write the rules")?;
    Ok(ExitCode::SUCCESS)
}

fn write_rules(rs: &Ruleset, json: bool) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let mods: Vec<&str> = rs.mods.iter().map(|m| m.name.as_str()).collect();
    if json {
        let value = json::rules(&rs.name, &rs.rules)
            .with("title", serde_json::json!(rs.title))
            .with("description", serde_json::json!(rs.description))
            .with("file", serde_json::json!(rs.file))
            .with("mods", serde_json::json!(mods));
        writeln!(out, "{value}")?;
    } else {
        // The name, title, description and mods' paths come from the file (or the command
        // line): shown, so a stranger's ruleset cannot drive the terminal, nor add a line
        // that passes for one of the rules below.
        let shown = |text: &str| limits::shown(text, limits::NewLines::Escaped);
        let mut heading = format!("ruleset {}", rs.name);
        if let Some(title) = &rs.title {
            heading += &format!(" ({title})");
        }
        if let Some(file) = &rs.file {
            heading += &format!(", from {file}");
        }
        writeln!(out, "{}", shown(&heading))?;
        if let Some(description) = &rs.description {
            writeln!(out, "{}", shown(description))?;
        }
        // The rules in words first (a newcomer's reading), then every number.
        if let Ok(registry) = rs.registry() {
            writeln!(out)?;
            let width = if io::stdout().is_terminal() { terminal::columns() } else { 80 };
            let guide = render::rules_guide(&rs.rules, &registry) + &render::mods_guide(&rs.mods);
            write!(out, "{}", render::wrap(&guide, width))?;
            writeln!(out)?;
        }
        let text = render::rules_text(&rs.rules);
        write!(out, "{text}")?;
        if !mods.is_empty() {
            writeln!(out, "mods           {}", shown(&mods.join(", ")))?;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Colour only on a terminal that shows it: `--no-color`, `NO_COLOR` and `TERM=dumb`
    /// each turn it off; Unicode follows the locale.
    #[test]
    fn colour_is_off_for_a_dumb_terminal_and_when_asked() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| v.to_string())
        };
        let plain = env(&[("LANG", "C.UTF-8"), ("TERM", "xterm-256color")]);
        assert_eq!(style_for(true, false, plain), Style { color: true, unicode: true });
        assert_eq!(style_for(true, true, plain), Style { color: false, unicode: true });
        assert_eq!(style_for(false, false, plain), Style::PLAIN);
        let dumb = env(&[("LANG", "C.UTF-8"), ("TERM", "dumb")]);
        assert_eq!(style_for(true, false, dumb), Style { color: false, unicode: true });
        let no_color = env(&[("NO_COLOR", "1"), ("LC_ALL", "C")]);
        assert_eq!(style_for(true, false, no_color), Style { color: false, unicode: false });
    }
}
