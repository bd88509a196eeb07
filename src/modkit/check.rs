//! `diving check FILE`: reads a ruleset and its mods like a compiler would (the first problem
//! as `file:line:col: error: message`, exit status 2), plays the smoke games (short, checking
//! the core's invariants after every action), then the random-play [`stress`](super::stress())
//! for every player count. A failure names the mod's file and line, the game it happened in
//! and the `diving sim` command that replays it. A ruleset that passes is listed with who owns
//! each entry its mods set (`card 7: replaced by lucky (lucky.lua:7)`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

use crate::limits::{self, NewLines};
use crate::ruleset::check::{TURNS, located};
use crate::ruleset::{ErrorKind, Ruleset, RulesetError, smoke};

use super::stress::{self, StressFailure, stress};

/// What `diving check` was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    pub json: bool,
    /// Stress games per player count and bot mix (0: the smoke games only).
    pub games: u64,
    /// The first seed of the stress.
    pub seed: u64,
}

/// Stress games per player count and bot mix by default: with the two mixes and the seven
/// player counts of the standard rules, 420 games, enough to find the guide's `lucky.lua`
/// without `math.min` many times over (its first failure is in the second game).
pub const GAMES: u64 = 30;

/// `diving check FILE`.
pub fn check_command(file: &str, options: CheckOptions) -> anyhow::Result<ExitCode> {
    let json = options.json;
    let ruleset = match Ruleset::load(file) {
        Ok(r) => r,
        Err(e) => {
            report_error(&e.of_loading(file), None, None, json).context("cannot write the check's report")?;
            return Ok(ExitCode::from(2));
        }
    };
    let progress = super::Progress::new();
    let shown = limits::shown(file, NewLines::Escaped);
    progress.now(&format!("checking {shown}: smoke games…"));
    let found = smoke(&ruleset, 1).map_err(|f| (f.error, f.context, None)).and_then(|report| {
        progress.now(&format!("checking {shown}: stress games…"));
        match stress(&ruleset, options.games, options.seed) {
            Ok(stressed) => Ok((report, stressed)),
            Err(f) => {
                let (error, context, reproduce) = stress_error(&ruleset, f);
                Err((error, context, Some(reproduce)))
            }
        }
    });
    progress.done();
    match found {
        Ok((report, stressed)) => {
            let mut out = std::io::stdout().lock();
            let cannot = "cannot write the check's report";
            let rules = &ruleset.rules;
            let mods = ruleset.mods.len();
            // The mods loaded once already (smoke games): who sets which entry.
            let owners = crate::script::owners(rules, &ruleset.mods).unwrap_or_default();
            if json {
                let line = serde_json::json!({
                    "ok": true,
                    "ruleset": ruleset.file.as_deref().unwrap_or(file),
                    "mods": mods,
                    "mod_set": ruleset.mod_set(),
                    "min_players": rules.min_players,
                    "max_players": rules.max_players,
                    "games": report.games,
                    "won": report.won,
                    "drawn": report.drawn,
                    "stopped": report.stopped,
                    "actions": report.actions,
                    "stress": {
                        "games": stressed.games,
                        "won": stressed.won,
                        "drawn": stressed.drawn,
                        "max_turns": stress::MAX_TURNS,
                    },
                    "secrets": report.secrets.iter().map(|(name, learned)| serde_json::json!({
                        "mod": name,
                        "drawn": learned.drawn,
                        "hand": learned.hand,
                        "probe": learned.probe,
                        "revealed": learned.revealed,
                    })).collect::<Vec<_>>(),
                    "entries": owners.iter().map(|o| serde_json::json!({
                        "entry": o.entry,
                        "how": o.how,
                        "mod": o.by,
                        "file": o.file,
                        "line": o.line,
                    })).collect::<Vec<_>>(),
                });
                writeln!(out, "{line}").context(cannot)?;
            } else {
                writeln!(
                    out,
                    "ok: {} ({} mod{}, {}–{} players): {} smoke games at {}, {} actions, {} won, {} drawn, {} stopped at {TURNS} turns; stress: {} games (random, random and greedy, every player count), {} won, {} drawn at {} turns",
                    limits::shown(ruleset.file.as_deref().unwrap_or(file), NewLines::Escaped),
                    mods,
                    if mods == 1 { "" } else { "s" },
                    rules.min_players,
                    rules.max_players,
                    report.games,
                    {
                        // The counts the smoke games were played at (they stop at 4 players;
                        // the stress plays every count): "9 smoke games" alone said nothing of it.
                        let counts = crate::ruleset::smoke_counts(rules);
                        if counts.start() == counts.end() {
                            format!("{} players", counts.start())
                        } else {
                            format!("{}–{} players", counts.start(), counts.end())
                        }
                    },
                    report.actions,
                    report.won,
                    report.drawn,
                    report.stopped,
                    stressed.games,
                    stressed.won,
                    stressed.drawn,
                    stress::MAX_TURNS,
                )
                .context(cannot)?;
                for line in owner_lines(&owners).into_iter().chain(secret_lines(&report.secrets)) {
                    writeln!(out, "{}", limits::shown(&line, NewLines::Escaped)).context(cannot)?;
                }
            }
            out.flush().context(cannot)?;
            Ok(ExitCode::SUCCESS)
        }
        Err((error, context, reproduce)) => {
            report_error(&error, Some(&context), reproduce.as_deref(), json)
                .context("cannot write the check's report")?;
            Ok(ExitCode::from(2))
        }
    }
}

/// Who owns each entry the mods set, one line each under `entries:` (nothing without mods):
/// `  card 7: replaced by lucky (lucky.lua:7)`. An entry set twice (a wrap over a replacement)
/// is listed once per mod, in load order: the last is the one in force outermost.
fn owner_lines(owners: &[crate::script::Owned]) -> Vec<String> {
    if owners.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["entries:".to_string()];
    for o in owners {
        let how = match o.how {
            "replaces" => "replaced",
            "wraps" => "wrapped",
            "describes" => "described",
            _ => "added",
        };
        let at = o.line.map_or(String::new(), |l| format!(":{l}"));
        lines.push(format!("  {}: {how} by {} ({}{at})", o.entry, o.by, o.file));
    }
    lines
}

/// What each mod was told of hidden cards in the smoke games, and whether it revealed any,
/// one line each under `secrets:` (nothing without mods): `  sharks: reads no hidden card;
/// reveals cards to the table` (its `on_draw` rank filter shows each 7 before it is told). A mod's words are read only by those who may see what
/// it knows (MODDING.md, *Secrets*).
fn secret_lines(secrets: &[(String, crate::core::Learned)]) -> Vec<String> {
    if secrets.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![
        "secrets (what each mod was told in the smoke games; its words reach only those who may see it):".to_string(),
    ];
    for (name, learned) in secrets {
        let reveals = if learned.revealed { "reveals cards to the table (ctx:reveal)" } else { "reveals nothing" };
        lines.push(format!("  {name}: reads {}; {reveals}", learned.reads()));
    }
    lines
}

/// A stress failure as `diving check` reports it: the error located in the mod it names, the
/// game it happened in (with what happened before the mod's words), the command replaying it.
pub(crate) fn stress_error(ruleset: &Ruleset, f: StressFailure) -> (RulesetError, String, String) {
    let context = match f.message.find(": mod ") {
        Some(i) => format!("{}: {}", f.context, &f.message[..i]),
        None => f.context,
    };
    (located_in_message(ruleset, &f.message), context, f.reproduce)
}

/// Writes the error: JSON on stdout, or the compiler-style line on stderr.
pub(crate) fn report_error(
    e: &RulesetError,
    context: Option<&str>,
    reproduce: Option<&str>,
    json: bool,
) -> std::io::Result<()> {
    if json {
        let (file, line, col) = match &e.kind {
            ErrorKind::Toml { file, line, col } => (Some(file.clone()), Some(*line as u64), Some(*col as u64)),
            ErrorKind::Mod { file, line } => (Some(file.clone()), line.map(u64::from), None),
            ErrorKind::Unplaced => (None, None, None),
        };
        let line = serde_json::json!({
            "ok": false,
            "error": {
                "file": file,
                "line": line,
                "col": col,
                "in_mod": matches!(e.kind, ErrorKind::Mod { .. }),
                "message": e.message,
                "context": context,
                "reproduce": reproduce,
            }
        });
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}")?;
        out.flush()
    } else {
        // A closed or full stderr leaves the exit status to tell. Each line quotes the mod or
        // the ruleset: shown, so that neither can drive the terminal or add lines of its own.
        let mut err = std::io::stderr().lock();
        // One line each: an indented line of a mod's message could pass for a note.
        let _ = writeln!(err, "{}", limits::shown(&e.compiler_line(), NewLines::Escaped));
        if let Some(context) = context.filter(|c| !c.is_empty()) {
            let _ = writeln!(err, "  note: in {}", limits::shown(context, NewLines::Escaped));
        }
        if let Some(reproduce) = reproduce.filter(|r| !r.is_empty()) {
            let _ = writeln!(err, "  note: replay it with: {}", limits::shown(reproduce, NewLines::Escaped));
        }
        Ok(())
    }
}

/// A simulator's failure message (`a mod failed on 'play 7D' by random: mod lucky.lua:5: …`),
/// located in the mod it names, with what happened before the mod's words kept in front.
fn located_in_message(ruleset: &Ruleset, message: &str) -> RulesetError {
    match message.find(": mod ") {
        Some(i) => {
            let mut error = located(ruleset, &message[i + 2..]);
            if matches!(error.kind, ErrorKind::Mod { .. }) {
                return error;
            }
            error.message = message.to_string();
            error
        }
        None => located(ruleset, message),
    }
}
