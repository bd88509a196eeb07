//! The mod writer's tools from the command line: `diving check`'s random-play stress finds
//! the bug MODDING.md warns about, and the command it prints replays it.

use crate::cli_support;

use predicates::str::contains;

const GUIDE: &str = include_str!("../../rulesets/MODDING.md");

/// The guide's five-minute ruleset and `lucky.lua`, written into a fresh directory, with
/// `lucky.lua` changed by `edit`.
fn lucky(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let block = |lang: &str| {
        let start = GUIDE.find(&format!("```{lang}\n")).unwrap() + lang.len() + 4;
        GUIDE[start..start + GUIDE[start..].find("```").unwrap()].to_string()
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("my-rules.toml"), block("toml")).unwrap();
    std::fs::write(dir.path().join("lucky.lua"), edit(&block("lua"))).unwrap();
    dir
}

/// Regression (issue 20): without `math.min`, a diver rescued by the 7's own breath comes
/// back to full air and the lucky breath takes them past it. The smoke games never met that;
/// the stress does, and the command it prints fails the same way.
#[test]
fn check_finds_the_guides_lucky_bug_and_prints_the_command_that_replays_it() {
    let dir = lucky(|code| {
        let fixed = "local air = math.min(ctx:oxygen(me) + 1, ctx:max_oxygen())";
        assert!(code.contains(fixed), "the guide's lucky.lua has changed");
        code.replace(fixed, "local air = ctx:oxygen(me) + 1")
    });
    let out = cli_support::diving().current_dir(dir.path()).args(["check", "my-rules.toml"]).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("lucky.lua:7: error: oxygen 11 is outside 0…10\n"), "{stderr}");
    assert!(stderr.contains("note: in stress game seed "), "{stderr}");
    let replay = stderr.lines().find_map(|l| l.trim().strip_prefix("note: replay it with: diving ")).unwrap();
    cli_support::diving()
        .current_dir(dir.path())
        .args(replay.split(' '))
        .assert()
        .failure()
        .stderr(contains("mod lucky.lua:7: oxygen 11 is outside 0…10"));
}

#[test]
fn check_passes_the_guides_lucky_mod_as_written() {
    let dir = lucky(str::to_string);
    cli_support::diving()
        .current_dir(dir.path())
        .args(["check", "my-rules.toml"])
        .assert()
        .success()
        .stdout(contains("stress: 420 games (random, random and greedy, every player count)"));
}

#[test]
fn check_without_stress_plays_the_smoke_games_only() {
    let dir = lucky(|code| code.replace("math.min(ctx:oxygen(me) + 1, ctx:max_oxygen())", "ctx:oxygen(me) + 1"));
    cli_support::diving()
        .current_dir(dir.path())
        .args(["check", "my-rules.toml", "--games", "0"])
        .assert()
        .success()
        .stdout(contains("stress: 0 games"));
}

/// `diving mod new NAME` in a fresh directory.
fn scaffold(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    cli_support::diving()
        .current_dir(dir.path())
        .args(["mod", "new", name])
        .assert()
        .success()
        .stdout(contains(format!("created {name}/: {name}.lua")));
    dir
}

#[test]
fn mod_new_writes_a_mod_that_passes_check_and_mod_test_as_it_is() {
    let dir = scaffold("lucky-7");
    let root = dir.path().join("lucky-7");
    let code = std::fs::read_to_string(root.join("lucky-7.lua")).unwrap();
    assert!(code.contains("diving.manifest{\n  name = \"lucky-7\",\n  version = \"0.1.0\",\n  api = 1,"), "{code}");
    cli_support::diving()
        .current_dir(&root)
        .args(["check", "ruleset.toml", "--games", "2"])
        .assert()
        .success()
        .stdout(contains("ok: ruleset.toml (1 mod, 2–8 players)"));
    cli_support::diving()
        .current_dir(&root)
        .args(["mod", "test", "--games", "2"])
        .assert()
        .success()
        .stdout(contains("ok   tests/lucky-7.toml:6: a 7 moves as usual and gives back the breath it cost\n"))
        .stdout(contains("ok: 3 scenarios passed, 0 failed; stress: 28 games"));
    let out = cli_support::diving()
        .current_dir(&root)
        .args(["--json", "check", "ruleset.toml", "--games", "0"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let set = &report["mod_set"][0];
    assert_eq!(
        (set["name"].as_str(), set["version"].as_str(), set["path"].as_str()),
        (Some("lucky-7"), Some("0.1.0"), Some("lucky-7.lua"))
    );
    assert!(set["hash"].as_str().unwrap().starts_with("fnv1a64:"), "{report}");
}

#[test]
fn mod_new_refuses_to_write_over_anything() {
    let dir = scaffold("anchor");
    let mod_file = dir.path().join("anchor/anchor.lua");
    std::fs::write(&mod_file, "-- mine").unwrap();
    cli_support::diving()
        .current_dir(dir.path())
        .args(["mod", "new", "anchor"])
        .assert()
        .failure()
        .stderr(contains("anchor already exists: mod new writes only a new directory"));
    assert_eq!(std::fs::read_to_string(&mod_file).unwrap(), "-- mine");
    cli_support::diving()
        .current_dir(dir.path())
        .args(["mod", "new", "Big Anchor"])
        .assert()
        .failure()
        .stderr(contains("the mod name \"Big Anchor\" must start with a lower-case letter or a digit"));
}

#[test]
fn the_projects_own_rules_cases_pass_as_scenario_files() {
    cli_support::diving()
        .args(["mod", "test", "tests/scenarios/standard.toml", "--games", "0"])
        .assert()
        .success()
        .stdout(contains("ok: 5 scenarios passed, 0 failed"));
}

/// `check` says at which player counts it played its smoke games, and that its stress plays
/// every count the ruleset allows (it said "9 smoke games" whatever the range: issue 44); a
/// 10-diver, 3-deck ruleset plays.
#[test]
fn check_says_which_player_counts_it_played() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ten.toml");
    std::fs::write(&file, "extends = \"standard\"\nmax_players = 10\ndecks = 3\n").unwrap();
    cli_support::diving()
        .args(["check", file.to_str().unwrap(), "--games", "1"])
        .assert()
        .success()
        .stdout(contains("(0 mods, 2–10 players): 9 smoke games at 2–4 players,"))
        .stdout(contains("stress: 18 games (random, random and greedy, every player count)"));
    cli_support::diving()
        .args(["sim", "--ruleset", file.to_str().unwrap(), "--games", "2", "--players"])
        .arg(["greedy"; 10].join(","))
        .assert()
        .success()
        .stdout(contains("seat 10 (greedy)"));
}

/// A ruleset file or a mod's folder, as a user types them, runs the scenarios of its tests/
/// against that ruleset (it said "unknown field `extends`": issue 44).
#[test]
fn a_ruleset_or_its_folder_runs_the_scenarios_beside_it() {
    for given in ["rulesets/examples/sharks/ruleset.toml", "rulesets/examples/sharks"] {
        cli_support::diving().args(["mod", "test", given, "--games", "0"]).assert().success().stdout(contains(
            "ok   rulesets/examples/sharks/tests/sharks.toml:3: a 7 drawn after a play costs its drawer 2 oxygen",
        ));
    }
    cli_support::diving().args(["mod", "test", "rulesets/house.toml", "--games", "0"]).assert().failure().stderr(
        contains("'rulesets/house.toml' is a ruleset, not a scenario file, and 'rulesets' has no tests/*.toml"),
    );
}

#[test]
fn a_failing_scenario_names_its_file_and_the_line_that_failed() {
    let dir = scaffold("lucky");
    let root = dir.path().join("lucky");
    let tests = root.join("tests/lucky.toml");
    let text = std::fs::read_to_string(&tests).unwrap();
    let wrong = text
        .replace("Ann: depth 37, oxygen 4", "Ann: depth 37, oxygen 5")
        .replace("actions = \"play 8H\"", "actions = \"\"\"\nplay 8H\nplay 9S\n\"\"\"");
    std::fs::write(&tests, &wrong).unwrap();
    let line_of = |needle: &str| wrong.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let out = cli_support::diving().current_dir(&root).args(["mod", "test", "--games", "0"]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    let expect = line_of("oxygen 5");
    assert!(
        stderr.contains(&format!(
            "tests/lucky.toml:{expect}: error: Ann: expected 'depth 37, oxygen 5', got 'depth 37, oxygen 4'\n"
        )),
        "{stderr}"
    );
    let play = line_of("play 9S");
    assert!(stderr.contains(&format!("tests/lucky.toml:{play}: error: 'play 9S' was refused: ")), "{stderr}");
    assert!(stdout.ends_with("FAILED: 1 scenario passed, 2 failed; stress: not run (fix the scenarios first)\n"));
}

/// A mod that crashes on a scenario's action is said to have failed, with its file and
/// line, not to have refused the action (issue 44).
#[test]
fn a_mods_crash_in_a_scenario_is_a_failure_not_a_refusal() {
    let dir = scaffold("lucky");
    let root = dir.path().join("lucky");
    let code = std::fs::read_to_string(root.join("lucky.lua")).unwrap();
    let crashing = code.replace("previous(ctx, play)", "error(\"the sea is closed\")");
    assert_ne!(crashing, code);
    std::fs::write(root.join("lucky.lua"), crashing).unwrap();
    let out = cli_support::diving().current_dir(&root).args(["mod", "test", "--games", "0"]).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("' failed in a mod: mod lucky.lua:"), "{stderr}");
    assert!(stderr.contains("the sea is closed"), "{stderr}");
    assert!(!stderr.contains("was refused"), "{stderr}");
}

/// The stress of `mod test` finds what the scenarios miss (a full tank overflowing), and
/// prints the command that replays it.
#[test]
fn mod_test_stresses_the_mod_after_its_scenarios() {
    let dir = scaffold("lucky");
    let root = dir.path().join("lucky");
    let code = std::fs::read_to_string(root.join("lucky.lua")).unwrap();
    let broken = code.replace("math.min(ctx:oxygen(me) + 1, ctx:max_oxygen())", "ctx:oxygen(me) + 1");
    assert_ne!(broken, code);
    std::fs::write(root.join("lucky.lua"), broken).unwrap();
    let out = cli_support::diving().current_dir(&root).args(["mod", "test", "--games", "30"]).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lucky.lua:23: error: oxygen 11 is outside 0…10\n"), "{stderr}");
    assert!(stderr.contains("note: replay it with: diving sim "), "{stderr}");
    assert!(String::from_utf8(out.stdout).unwrap().contains("3 scenarios passed, 0 failed; stress: failed"));
}

#[test]
fn a_scenario_file_without_a_ruleset_takes_the_one_given_with_dash_dash_ruleset() {
    let text =
        std::fs::read_to_string("tests/scenarios/standard.toml").unwrap().replace("ruleset = \"standard\"\n", "");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cases.toml"), text).unwrap();
    cli_support::diving()
        .current_dir(dir.path())
        .args(["mod", "test", "cases.toml", "--games", "0"])
        .assert()
        .code(2)
        .stderr(contains("cases.toml:1: error: name the ruleset that loads the mod: ruleset = \"…\" at the top of the file, or --ruleset"));
    let out = cli_support::diving()
        .current_dir(dir.path())
        .args(["--json", "--ruleset", "standard", "mod", "test", "cases.toml", "--games", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = cli_support::json_lines(&out.stdout);
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["scenario"], "cases.toml:4: d5: play from the hand, then draw one");
    assert_eq!(lines[5]["passed"], 5);
    assert_eq!(lines[5]["ok"], true);
}

/// MODDING.md's scenario example passes against the starter mod it is written for.
#[test]
fn the_guides_scenario_example_passes_against_the_starter_mod() {
    let start = GUIDE.find("### Scenario files").unwrap();
    let block = &GUIDE[start..];
    let block = &block[block.find("```toml\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    let dir = scaffold("lucky");
    let root = dir.path().join("lucky");
    std::fs::write(root.join("tests/guide.toml"), block).unwrap();
    cli_support::diving()
        .current_dir(&root)
        .args(["mod", "test", "tests/guide.toml", "--games", "0"])
        .assert()
        .success()
        .stdout(contains("ok: 1 scenario passed, 0 failed"));
}

/// A scenario reads actions as the shell takes them too (`play 7H table`, `t2`, `over`), a
/// `start` may give only the depth, and a turn-start hook sees the started diver on turn 1
/// and what it does is kept (the start used to overwrite it).
#[test]
fn scenarios_take_the_shells_words_and_start_before_the_first_turn() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("deep.lua"),
        "-- A diver who starts a turn below 20 loses 1 oxygen.\n\
         diving.on_turn_start(function(ctx, player)\n\
           if ctx:depth(player) > 20 then ctx:set_oxygen(player, math.max(ctx:oxygen(player) - 1, 1)) end\n\
         end)\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("rules.toml"), "extends = \"standard\"\nname = \"deep\"\nmods = [\"deep.lua\"]\n")
        .unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "ruleset = \"rules.toml\"\n\n\
         [[scenario]]\n\
         name = \"the shell's words\"\n\
         hands.Ann = \"2S 3D 4C 5H\"\n\
         table = \"_ 9D\"\n\
         discard = \"KC\"\n\
         start.Ann = { depth = 30 }\n\
         actions = \"play 9D table\"\n\
         expect = \"\"\"\n\
         Ann: depth 39, oxygen 7\n\
         \"\"\"\n\n\
         [[scenario]]\n\
         name = \"a slot as t2\"\n\
         table = \"_ 9D\"\n\
         discard = \"KC\"\n\
         actions = \"play 9D t2\"\n\
         expect = \"\"\"\n\
         Ann: depth 9, oxygen 9\n\
         \"\"\"\n",
    )
    .unwrap();
    let out =
        cli_support::diving().args(["mod", "test", dir.path().join("s.toml").to_str().unwrap()]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
}

/// The starter mod opens with what players read in `help rules` (what the 7 does), not the
/// writer's notes; a long opening comment is cut at a word and says so.
#[test]
fn the_starter_mods_first_paragraph_is_for_players() {
    let dir = tempfile::tempdir().unwrap();
    cli_support::diving().current_dir(dir.path()).args(["mod", "new", "lucky"]).assert().success();
    let out = cli_support::diving()
        .current_dir(dir.path().join("lucky"))
        .args(["--ruleset", "ruleset.toml", "--players", "ann,bob", "--seed", "1"])
        .write_stdin("help rules\n")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.trim_start().starts_with("lucky.lua:")).unwrap_or_default();
    assert_eq!(
        line.trim(),
        "lucky.lua: A 7 still moves you as usual, and also gives you back 1 oxygen (never past a full tank).",
        "{text}"
    );
    let long = format!("-- {}\ndiving.on_turn_start(function() end)\n", "a long sentence of words ".repeat(20));
    std::fs::write(dir.path().join("lucky/lucky.lua"), long).unwrap();
    let out = cli_support::diving()
        .current_dir(dir.path().join("lucky"))
        .args(["--ruleset", "ruleset.toml", "--players", "ann,bob", "--seed", "1"])
        .write_stdin("help rules\n")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.trim_start().starts_with("lucky.lua:")).unwrap_or_default();
    assert!(line.ends_with("of words ... (the rest of this mod's opening comment is left out)"), "{line}");
}
