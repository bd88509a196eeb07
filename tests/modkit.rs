//! The mod writer's tools from the command line: `diving check`'s random-play stress finds
//! the bug MODDING.md warns about, and the command it prints replays it.

mod cli_support;

use predicates::str::contains;

const GUIDE: &str = include_str!("../rulesets/MODDING.md");

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
        .stdout(contains("stress: 420 games (random, random and greedy)"));
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
