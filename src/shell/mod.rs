//! The game shell: the terminal front end of a [`crate::table`], and the script/JSON mode. It
//! reads lines, prompts and writes; the table interprets every command and holds no terminal.
//!
//! Code map: [`front`] the line loop shared by every input (a pipe, a script, the terminal),
//! writing the table's replies as text or JSON Lines; [`terminal`] the rustyline front end and
//! the hot-seat gates; [`autosave`] the games kept on disk as they are played, and resumed; [`interrupt`] Ctrl-C while the game is busy; [`replay`] the replay
//! viewer. This module turns the command line into a session and picks
//! the front end.

pub mod autosave;
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
use crate::table::notice::Happening;
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
    /// `--resume [GAME]`: take up a kept game (its number in the list, or its name); empty:
    /// list them ([`autosave`]).
    pub resume: Option<String>,
    /// `--forget GAME`: let a kept game go.
    pub forget: Option<String>,
    /// `--reveal-hands`: show every hand of a hot-seat game where it cannot be hidden (its
    /// save opened in a pipe or with --json, or its output not a terminal); every player is
    /// told.
    pub reveal_hands: bool,
}

/// Where a game to play comes from, and what it is called in messages.
struct Start {
    session: Session,
    /// The file it was resumed from, as messages name it.
    loaded: Option<String>,
    /// The save file it was read from (`--load`), which a reveal of its hands is recorded in.
    file: Option<PathBuf>,
    /// The kept game it was taken up from, when this program now holds it.
    resumed: Option<autosave::Resumed>,
    /// A new game's random seed, to announce.
    seed_note: Option<u64>,
    notes: Vec<String>,
}

/// `diving play`: runs a game in the REPL, or from a script / pipe.
pub fn play(ruleset: Option<&str>, json: bool, args: &PlayOptions) -> anyhow::Result<ExitCode> {
    if let Some(which) = &args.forget {
        return forget_kept(which, json);
    }
    if args.resume.as_deref() == Some("") {
        return list_kept(json);
    }
    // Everything that can fail for bad input fails here, before any output.
    let script: Option<Box<dyn BufRead>> = match &args.script {
        Some(path) => {
            let file = limits::open_regular(path).with_context(|| format!("cannot read script {}", path.display()))?;
            Some(Box::new(BufReader::new(file)))
        }
        None => None,
    };
    let interactive = !json && script.is_none() && io::stdin().is_terminal();
    let Some(start) = start(ruleset, args, interactive)? else { return Ok(ExitCode::SUCCESS) };
    let Start { mut session, loaded, file, resumed, seed_note, notes } = start;
    if args.no_hints {
        session.set_hints(false);
    }
    for note in &notes {
        eprintln_note(note);
    }

    if interactive {
        let mut reveal = None;
        if session.humans() > 1 && !io::stdout().is_terminal() {
            // Hot-seat hides each hand from the next player by clearing the screen: output
            // that goes elsewhere (a pipe, a file, `| tee game.log`) keeps every hand.
            if !args.reveal_hands {
                bail!(
                    "a hot-seat game ({}) hides each hand by clearing the screen, but standard output is not a \
                     terminal (a pipe or a file keeps every hand): play it without the pipe or redirection, or give \
                     --reveal-hands to play with every hand kept there (every player is told)",
                    session.game().names().join(", ")
                );
            }
            reveal = Some(Happening::Shown { how: "to a pipe or file, as its output is not a terminal".into() });
        }
        let style = terminal_style(args.no_color);
        let mut shell = Shell::interactive(session, io::stdout(), style);
        match shell.keep_on_disk(resumed) {
            Ok(()) | Err(autosave::NotKept::Nowhere) => {}
            Err(e) => shell.error(&format!("this game is not kept on disk as it goes ({e}); 'save FILE' keeps it")),
        }
        if let (Some(file), true) = (&loaded, shell.session().humans() > 1) {
            shell.note(Happening::Resumed { file: file.clone() }, true);
        }
        if let Some(what) = reveal {
            shell.note(what, true);
        }
        terminal::run(&mut shell, seed_note, loaded.as_deref());
        return shell.finish().map(|()| ExitCode::SUCCESS);
    }

    // A hot-seat game's save, opened in a pipe or with --json: no hand unless asked for, and
    // then every player is told.
    let hidden = session.hot_seat() && !args.reveal_hands;
    let session_revealed = session.hot_seat() && args.reveal_hands;
    if session.hot_seat() && args.reveal_hands {
        let how = if json { "with --json" } else { "in a pipe or a script" };
        let name = loaded.clone().unwrap_or_default();
        session.note(None, Happening::Opened { file: name, how: how.into() });
        record_reveal(&session, file.as_deref())?;
    }
    let mut shell = if hidden {
        Shell::public(session, io::stdout().lock(), json)
    } else {
        Shell::script(session, io::stdout().lock(), json)
    };
    if let Some(seed) = seed_note {
        shell.say_json(serde_json::json!({ "event": "seeded", "seed": seed }));
        shell.say(&format!("seed {seed} (replay with --seed {seed})"));
    }
    match loaded {
        Some(file) => {
            let game = shell.session().game();
            let (turn, current) = (game.turn(), game.name(game.current()).to_string());
            let hands = if hidden { "hidden" } else { "shown" };
            shell.say_json(
                serde_json::json!({ "event": "resumed", "loaded": file, "turn": turn, "current": current, "hands": hands }),
            );
            let file = limits::shown(&file, limits::NewLines::Escaped);
            shell.say(&format!("resumed {file}: turn {turn}, {current} to play"));
            if session_revealed {
                let why = format!(
                    "{file} is a hot-seat game: every hand is shown (--reveal-hands), and every player is told so at \
                     their next hand-over"
                );
                shell.say_json(serde_json::json!({ "warning": why }));
                shell.say(&why);
            }
            if hidden {
                let why = format!(
                    "{file} is a hot-seat game: here it shows no hand and takes no move (resume it at a terminal, \
                     or give --reveal-hands to show every hand: every player is told)"
                );
                shell.say_json(serde_json::json!({ "warning": why }));
                shell.say(&why);
            }
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

/// The game to play: a save (`--load`), a kept game (`--resume N`, or chosen from the
/// offer a plain `diving` at a terminal makes), or a new one. `None`: nothing to play (the
/// offer was left with Ctrl-D).
fn start(ruleset: Option<&str>, args: &PlayOptions, interactive: bool) -> anyhow::Result<Option<Start>> {
    let resuming = args.load.is_some() || args.resume.is_some();
    if resuming && (args.players.is_some() || args.seed.is_some() || args.deck.is_some()) {
        let flag = if args.load.is_some() { "--load" } else { "--resume" };
        bail!("{flag} resumes a saved game as it was: it cannot be combined with --players, --seed or --deck");
    }
    if args.load.is_some() && args.resume.is_some() {
        bail!("--load and --resume both name a game to resume: give one");
    }
    let nothing_asked = !resuming && args.players.is_none() && args.seed.is_none() && args.deck.is_none();
    let kept = match &args.resume {
        Some(which) => {
            let games = autosave::kept_games();
            let found = autosave::find(&games, which).map_err(anyhow::Error::msg)?;
            Some(games.into_iter().nth(found).expect("found"))
        }
        // A plain `diving` at a terminal offers the unfinished games back.
        None if nothing_asked && interactive && io::stdout().is_terminal() => match offer(ruleset)? {
            Offer::Resume(kept) => Some(*kept),
            Offer::New => None,
            Offer::Leave => return Ok(None),
        },
        None => None,
    };
    if let Some(kept) = kept {
        // Taken only to be played here: a pipe that watches it reads the file as it is.
        let resumed = if interactive { Some(kept.take().map_err(anyhow::Error::msg)?) } else { None };
        let name = "the game kept on disk".to_string();
        let load = Session::load(kept.save, &kept.path, ruleset)?;
        return Ok(Some(Start {
            session: load.session,
            loaded: Some(name),
            file: None,
            resumed,
            seed_note: None,
            notes: load.notes,
        }));
    }
    if let Some(path) = &args.load {
        let load = Session::load(save::read(path)?, path, ruleset)?;
        return Ok(Some(Start {
            session: load.session,
            loaded: Some(path.display().to_string()),
            file: Some(path.clone()),
            resumed: None,
            seed_note: None,
            notes: load.notes,
        }));
    }
    let spec = ruleset.unwrap_or("standard");
    let seating = seating::seating(args.players.as_deref())?;
    let mut seed_note = None;
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
    let session = Session::new(spec, seating, seed, deck).map_err(|e| match &args.players {
        // The default table (you and one bot) does not fit this ruleset: say how to seat it.
        None if e.contains(&format!("players, not {seats}")) => {
            let fewest = Ruleset::load(spec).map_or(2, |r| r.rules.min_players);
            let example: Vec<&str> =
                std::iter::once("you").chain(std::iter::repeat_n("bot:greedy", fewest.saturating_sub(1))).collect();
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
    })?;
    Ok(Some(Start { session, loaded: None, file: None, resumed: None, seed_note, notes: Vec::new() }))
}

/// What a person answered to the offer of the kept games.
enum Offer {
    Resume(Box<autosave::Kept>),
    New,
    Leave,
}

/// At a plain `diving`: the unfinished games kept (those no other window plays), and the
/// question whether to take one up. Nothing is asked when there is none.
fn offer(ruleset: Option<&str>) -> anyhow::Result<Offer> {
    let games: Vec<autosave::Kept> = autosave::kept_games().into_iter().filter(|g| !g.in_use).collect();
    if games.is_empty() {
        return Ok(Offer::New);
    }
    let mut out = io::stdout();
    let style = terminal_style(false);
    let dash = if style.unicode { "—" } else { "-" };
    let now = std::time::SystemTime::now();
    let width = terminal::columns();
    let head = if games.len() == 1 { "an unfinished game is kept:" } else { "unfinished games are kept:" };
    writeln!(out, "{head}")?;
    for (i, game) in games.iter().enumerate() {
        writeln!(out, "{}", render::wrap(&format!("  {}  {}", i + 1, game.line(now, dash)), width))?;
    }
    if ruleset.is_some() {
        writeln!(out, "(a kept game goes on under the rules it was played with)")?;
    }
    let question = if games.len() == 1 {
        "resume it? 1 or Enter takes it up, n starts a new game: "
    } else {
        "resume one? its number takes it up, Enter or n starts a new game: "
    };
    let mut lines = Lines::new(io::stdin().lock());
    loop {
        write!(out, "{question}")?;
        out.flush()?;
        let answer = match lines.next_line() {
            Ok(Some(Line::Text(line))) => line.trim().to_lowercase(),
            Ok(Some(_)) => String::from("?"),
            Ok(None) | Err(_) => {
                writeln!(out)?;
                return Ok(Offer::Leave);
            }
        };
        match answer.as_str() {
            "" if games.len() == 1 => return Ok(Offer::Resume(Box::new(games.into_iter().next().expect("one game")))),
            "" | "n" | "new" => return Ok(Offer::New),
            "q" | "quit" => return Ok(Offer::Leave),
            which => match autosave::find(&games, which) {
                Ok(i) => return Ok(Offer::Resume(Box::new(games.into_iter().nth(i).expect("found")))),
                Err(e) => writeln!(out, "{}", limits::shown(&e, limits::NewLines::Escaped))?,
            },
        }
    }
}

/// `diving --resume`: the unfinished games kept, and how to take one up.
fn list_kept(json: bool) -> anyhow::Result<ExitCode> {
    let games = autosave::kept_games();
    let dir = autosave::games_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let mut out = io::stdout().lock();
    if json {
        let list: Vec<serde_json::Value> = games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let modified = g.modified.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
                serde_json::json!({
                    "game": i + 1,
                    "name": g.path.file_stem().map(|s| s.to_string_lossy().into_owned()),
                    "players": g.save.players.iter().map(|p| &p.name).collect::<Vec<_>>(),
                    "turn": g.save.state["turn"],
                    "current": g.save.state["current"],
                    "ruleset": g.save.ruleset,
                    "hot_seat": g.save.hot_seat,
                    "saved": modified,
                    "open_elsewhere": g.in_use,
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::json!({ "kept": list, "dir": dir }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let dir = limits::shown(&dir, limits::NewLines::Escaped);
    if games.is_empty() {
        writeln!(out, "no unfinished game is kept (a game played at the terminal is kept as it goes, in {dir})")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "unfinished games, kept in {dir}:")?;
    let now = std::time::SystemTime::now();
    for (i, game) in games.iter().enumerate() {
        writeln!(out, "  {}  {}", i + 1, game.line(now, "-"))?;
    }
    writeln!(out, "diving --resume N takes game N up; diving --forget N lets it go")?;
    Ok(ExitCode::SUCCESS)
}

/// `diving --forget GAME`: removes a kept game.
fn forget_kept(which: &str, json: bool) -> anyhow::Result<ExitCode> {
    let games = autosave::kept_games();
    let game = &games[autosave::find(&games, which).map_err(anyhow::Error::msg)?];
    game.forget().map_err(anyhow::Error::msg)?;
    let name = game.path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let mut out = io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::json!({ "forgotten": name }))?;
    } else {
        writeln!(out, "forgot the kept game {}", limits::shown(&name, limits::NewLines::Escaped))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Records that a hot-seat game's hands were shown (`--reveal-hands`) where every player will
/// learn it: in the save it was read from (rewritten with the notice; when that fails the
/// hands stay hidden) and beside the game kept on disk, for the window that plays it.
fn record_reveal(session: &Session, file: Option<&std::path::Path>) -> anyhow::Result<()> {
    let notice = session.notices().last().expect("the notice was just kept");
    if let Some(path) = file {
        save::write(path, &session.to_save())
            .map_err(|e| anyhow::anyhow!("{e}: --reveal-hands shows the hands only once the save records it"))?;
    }
    let recorded = autosave::record_elsewhere(&session.key(), notice);
    if file.is_none() {
        recorded.map_err(|e| anyhow::anyhow!("{e}: --reveal-hands shows the hands only once that is recorded"))?;
    }
    Ok(())
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
        match shell.keep_on_disk(None) {
            Ok(()) | Err(autosave::NotKept::Nowhere) => {}
            Err(e) => shell.error(&format!("this game is not kept on disk as it goes ({e}); 'save FILE' keeps it")),
        }
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
            let guide = render::rules_guide(&rs.rules, &registry) + &render::mods_guide(&rs.rules, &rs.mods, &[]);
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
