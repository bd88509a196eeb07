//! `diving mod test [FILES]`: runs the [`scenario`](super::scenario) files against the ruleset
//! each names (or `--ruleset`), then the random-play [`stress`](super::stress()) of every
//! ruleset they used. Every failure names the scenario file and line (or, for the stress, the
//! mod's file and line, the game and the `diving sim` command replaying it); the exit status
//! is 2 when anything failed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::limits::{self, NewLines};
use crate::ruleset::Ruleset;

use super::check::{report_error, stress_error};
use super::scenario::{ScenarioError, ScenarioFile};
use super::stress::{self, stress};

/// What `diving mod test` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestOptions {
    /// Scenario files; none: the `*.toml` files of `tests/` in the current directory.
    pub files: Vec<PathBuf>,
    /// The ruleset of the files that name none.
    pub ruleset: Option<String>,
    /// Stress games per player count and bot mix (0: the scenarios only).
    pub games: u64,
    pub seed: u64,
    pub json: bool,
}

/// Stress games per player count and bot mix by default: 2,100 games with the standard
/// player counts (seven counts, two mixes).
pub const GAMES: u64 = 150;

/// The scenario files of `tests/` under `dir`, in name order.
pub fn default_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("tests"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// What a FILE given to `diving mod test` stands for: a scenario file, or, for a ruleset file
/// or a mod's folder (as a user types them: `diving mod test rulesets/examples/sharks/ruleset.toml`),
/// the scenario files of its `tests/` folder, run against that ruleset.
fn scenario_files(given: &Path) -> anyhow::Result<Vec<(PathBuf, Option<String>)>> {
    let (dir, ruleset) = if given.is_dir() {
        let ruleset = given.join("ruleset.toml");
        (given.to_path_buf(), ruleset.is_file().then(|| ruleset.display().to_string()))
    } else {
        let text = limits::read_text(given, limits::FileKind::Ruleset)
            .with_context(|| format!("cannot read {}", limits::quoted(&given.display().to_string())))?;
        let scenarios = toml::from_str::<toml::Table>(&text).is_ok_and(|t| t.contains_key("scenario"));
        let ruleset_keys = ["extends", "mods", "name", "min_players", "hand_size", "values", "teams"];
        let ruleset =
            toml::from_str::<toml::Table>(&text).is_ok_and(|t| ruleset_keys.iter().any(|k| t.contains_key(*k)));
        if scenarios || !ruleset {
            return Ok(vec![(given.to_path_buf(), None)]);
        }
        (given.parent().unwrap_or(Path::new("")).to_path_buf(), Some(given.display().to_string()))
    };
    let files = default_files(&dir);
    if files.is_empty() {
        anyhow::bail!(
            "'{}' is a ruleset, not a scenario file, and '{}' has no tests/*.toml to run against it: write scenarios \
             there (MODDING.md, Testing your mod; diving mod new makes a start)",
            limits::quoted(&given.display().to_string()),
            limits::quoted(&dir.display().to_string())
        );
    }
    Ok(files.into_iter().map(|f| (f, ruleset.clone())).collect())
}

/// `diving mod test`.
pub fn test_command(options: &TestOptions) -> anyhow::Result<ExitCode> {
    let cannot = "cannot write the test report";
    let files: Vec<(PathBuf, Option<String>)> = if options.files.is_empty() {
        default_files(Path::new("")).into_iter().map(|f| (f, None)).collect()
    } else {
        let mut files = Vec::new();
        for given in &options.files {
            files.extend(scenario_files(given)?);
        }
        files
    };
    if files.is_empty() {
        anyhow::bail!("no scenario files: name them (diving mod test FILE…) or put them in tests/*.toml");
    }
    let mut out = std::io::stdout().lock();
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut rulesets: Vec<Ruleset> = Vec::new();
    let fail = |out: &mut std::io::StdoutLock<'_>, e: &ScenarioError, scenario: Option<&str>| -> anyhow::Result<()> {
        if options.json {
            let line = serde_json::json!({
                "ok": false, "scenario": scenario, "file": e.file, "line": e.line, "message": e.message,
            });
            writeln!(out, "{line}").context(cannot)?;
        } else {
            if let Some(name) = scenario {
                writeln!(out, "FAIL {}", limits::shown(name, NewLines::Escaped)).context(cannot)?;
            }
            out.flush().context(cannot)?;
            // The message quotes the scenario file and the mod: shown, its own lines indented.
            let line = format!("{}:{}: error: {}", e.file, e.line, e.message);
            let _ = writeln!(std::io::stderr(), "{}", limits::shown(&line, NewLines::Indented));
        }
        Ok(())
    };
    for (path, given_ruleset) in &files {
        let file = match ScenarioFile::read(path) {
            Ok(f) => f,
            Err(e) => {
                failed += 1;
                fail(&mut out, &e, None)?;
                continue;
            }
        };
        let Some(spec) = file.ruleset.clone().or_else(|| given_ruleset.clone()).or_else(|| options.ruleset.clone())
        else {
            failed += file.len();
            let message = "name the ruleset that loads the mod: ruleset = \"…\" at the top of the file, or --ruleset";
            fail(&mut out, &ScenarioError { file: file.file.clone(), line: 1, message: message.into() }, None)?;
            continue;
        };
        let ruleset = match rulesets.iter().find(|r| r.name == spec) {
            Some(r) => r.clone(),
            None => match Ruleset::load(&spec) {
                Ok(r) => {
                    rulesets.push(r.clone());
                    r
                }
                Err(e) => {
                    failed += file.len();
                    report_error(
                        &e.of_loading(&spec),
                        Some(&format!("the ruleset of {}", file.file)),
                        None,
                        options.json,
                    )
                    .context(cannot)?;
                    continue;
                }
            },
        };
        for outcome in file.run(&ruleset) {
            let name = format!("{}:{}: {}", file.file, outcome.line, outcome.name);
            match outcome.failure {
                None => {
                    passed += 1;
                    if options.json {
                        let line = serde_json::json!({
                            "ok": true, "scenario": name, "file": file.file, "line": outcome.line,
                        });
                        writeln!(out, "{line}").context(cannot)?;
                    } else {
                        writeln!(out, "ok   {}", limits::shown(&name, NewLines::Escaped)).context(cannot)?;
                    }
                }
                Some(e) => {
                    failed += 1;
                    fail(&mut out, &e, Some(&name))?;
                }
            }
        }
    }
    let mut stress_games = 0;
    let mut stress_failed = false;
    if failed == 0 {
        let progress = super::Progress::new();
        for ruleset in &rulesets {
            progress.now(&format!("stress games for {}…", limits::shown(&ruleset.name, NewLines::Escaped)));
            let stressed = stress(ruleset, options.games, options.seed);
            progress.done();
            match stressed {
                Ok(report) => stress_games += report.games,
                Err(f) => {
                    stress_failed = true;
                    out.flush().context(cannot)?;
                    let (error, context, reproduce) = stress_error(ruleset, f);
                    report_error(&error, Some(&context), Some(&reproduce), options.json).context(cannot)?;
                    break;
                }
            }
        }
    }
    let ok = failed == 0 && !stress_failed;
    if options.json {
        let line = serde_json::json!({
            "ok": ok, "passed": passed, "failed": failed,
            "stress": { "games": stress_games, "failed": stress_failed, "skipped": failed > 0 },
        });
        writeln!(out, "{line}").context(cannot)?;
    } else {
        let stressed = if failed > 0 {
            "stress: not run (fix the scenarios first)".to_string()
        } else if stress_failed {
            "stress: failed".to_string()
        } else {
            format!(
                "stress: {stress_games} games (random, random and greedy, every player count, to {} turns), no failure",
                stress::MAX_TURNS
            )
        };
        writeln!(
            out,
            "{}: {passed} scenario{} passed, {failed} failed; {stressed}",
            if ok { "ok" } else { "FAILED" },
            if passed == 1 { "" } else { "s" }
        )
        .context(cannot)?;
    }
    out.flush().context(cannot)?;
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
