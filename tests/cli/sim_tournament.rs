//! `diving tournament`: the ratings order the bots by strength with their uncertainty, do not
//! depend on `--jobs`, report the skill-versus-luck measure, and bad input is refused. With
//! several `--ruleset`s every bot plays under every ruleset, and the rulesets are ranked by
//! skill versus luck.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;

fn tournament(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("diving").expect("binary").arg("tournament").args(args).assert()
}

/// A ruleset where the deal decides more: one card in hand, one on the table, and the bottom
/// at 10, so most games are over in three turns.
fn shallow(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("shallow.toml");
    let text = "extends = \"standard\"\nmax_depth = 10\nhand_size = 1\ntable_size = 1\n\n[[oxygen_bands]]\nto = 10\ncost = 1\n";
    std::fs::write(&path, text).expect("write the ruleset");
    path.to_str().expect("a UTF-8 path").to_string()
}

fn json(args: &[&str]) -> Value {
    let out = tournament(&[args, &["--json"]].concat()).success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("valid JSON")
}

#[test]
fn greedy_outrates_random_and_the_ratings_do_not_depend_on_jobs() {
    let args = ["--bots", "random,greedy,scripts/reckless.lua", "--games", "24", "--seed", "9"];
    let one = json(&[&args[..], &["--jobs", "1"]].concat());
    let two = json(&[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(one, two, "ratings depend on --jobs");
    let standings = one["standings"].as_array().unwrap();
    let bot = |name: &str| standings.iter().find(|s| s["bot"] == name).unwrap();
    let (greedy, random) = (bot("greedy"), bot("random"));
    assert_eq!(standings.last().unwrap()["bot"], "random", "{one}");
    let (g, r) = (greedy["rating"].as_f64().unwrap(), random["rating"].as_f64().unwrap());
    let (gs, rs) = (greedy["uncertainty"].as_f64().unwrap(), random["uncertainty"].as_f64().unwrap());
    assert!(g - 2.0 * gs > r + 2.0 * rs, "greedy {g} ± {gs}, random {r} ± {rs}");
    assert!(gs < 25.0 / 3.0, "the uncertainty shrinks with games");
    assert_eq!(greedy["games"], 48);
    assert!(one["skill_vs_luck"].as_f64().unwrap() > 0.9, "{one}");
    assert_eq!(one["tables"].as_array().unwrap().len(), 3);
}

#[test]
fn the_text_report_ranks_the_bots() {
    let out = tournament(&["--bots", "random,greedy", "--games", "10"]).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("1  greedy") && text.contains("2  random"), "{text}");
    assert!(text.contains("skill versus luck: by the ratings, greedy beats random in"), "{text}");
}

#[test]
fn bad_input_is_refused_with_its_reason() {
    for (args, says) in [
        (vec!["--bots", "greedy"], "2 seats need at least 2 different bots"),
        (vec!["--bots", "greedy,greedy"], "bot greedy is named twice"),
        (vec!["--bots", "greedy,wizard"], "unknown bot 'wizard'"),
        (vec!["--bots", "greedy,random", "--seats", "9"], "9"),
    ] {
        tournament(&args).code(2).stderr(predicates::str::contains(says));
    }
}

#[test]
fn a_ruleset_ruled_by_the_deal_ranks_below_standard_whatever_the_jobs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shallow = shallow(&dir);
    let args = ["--bots", "random,greedy", "--games", "120", "--seed", "4", "--ruleset", "standard"];
    let args = [&args[..], &["--ruleset", "house", "--ruleset", &shallow]].concat();
    let one = json(&[&args[..], &["--jobs", "1"]].concat());
    let two = json(&[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(one, two, "the tournament depends on --jobs");
    assert_eq!(one["rulesets"], serde_json::json!(["standard", "house", shallow]));
    let pools = one["pools"].as_array().unwrap();
    let svl = |p: usize| pools[p]["skill_vs_luck"].as_f64().unwrap();
    assert!(svl(0) > 0.9 && svl(2) < svl(0), "{one}");
    for (pool, ruleset) in pools.iter().zip(["standard", "house", &shallow]) {
        assert_eq!(pool["ruleset"], ruleset);
        let standings = pool["standings"].as_array().unwrap();
        assert_eq!(standings.len(), 2);
        for s in standings {
            assert_eq!(s["games"], 120);
            assert_eq!(s["entrant"], format!("{}@{ruleset}", s["bot"].as_str().unwrap()));
        }
        assert_eq!(standings[0]["bot"], "greedy", "{pool}");
    }
    // The deal decides: games end in a few turns, and greedy loses some.
    let turns = |p: usize| pools[p]["length"]["value"].as_f64().unwrap();
    assert!(turns(2) < 5.0 && turns(0) > 15.0, "{one}");
    assert!(pools[2]["standings"][1]["wins"].as_u64().unwrap() > 0, "{one}");
    let ranking = one["ranking"].as_array().unwrap();
    assert_eq!(ranking.len(), 3);
    let last = &ranking[2];
    assert_eq!(last["ruleset"], shallow.as_str(), "{one}");
    let (low, high) = (last["skill_vs_luck"]["low"].as_f64().unwrap(), last["skill_vs_luck"]["high"].as_f64().unwrap());
    assert!(low < svl(2) && svl(2) < high, "the interval holds the measure: {last}");
    assert!(last["behind_first"]["high"].as_f64().unwrap() < 0.0, "shallow is clearly behind: {last}");
    assert_eq!(ranking[0]["behind_first"]["value"], 0.0);
}

#[test]
fn the_text_report_rates_each_ruleset_apart_and_ranks_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shallow = shallow(&dir);
    let args = ["--bots", "random,greedy", "--games", "40", "--ruleset", "standard", "--ruleset", &shallow];
    let text = String::from_utf8(tournament(&args).success().get_output().stdout.clone()).unwrap();
    for says in [
        "tournament under 2 rulesets (standard, ",
        "ratings compare within a ruleset, never across",
        "ruleset standard: ",
        "1  greedy@standard",
        "2  random@standard",
        &format!("by the ratings, greedy@{shallow} beats random@{shallow} in"),
        "which ruleset rewards skill most",
        "1  standard ",
    ] {
        assert!(text.contains(says), "no '{says}' in:\n{text}");
    }
}

#[test]
fn one_ruleset_keeps_the_report_of_a_plain_tournament() {
    let args = ["--bots", "random,greedy", "--games", "10", "--seed", "2"];
    let plain = json(&args);
    let named = json(&[&args[..], &["--ruleset", "standard"]].concat());
    assert_eq!(plain, named);
    let keys: Vec<&String> = plain.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["games_per_table", "ruleset", "seats", "seed", "skill_vs_luck", "standings", "tables"]);
    assert_eq!(plain["standings"][0]["bot"], "greedy");
    let out = tournament(&[&args[..], &["--ruleset", "meters"]].concat()).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("tournament on ruleset meters: 2 bots, 1 table of 2 seats × 10 games (10 games)"),
        "{text}"
    );
    assert!(!text.contains('@') && !text.contains("rewards skill most"), "{text}");
}

#[test]
fn bad_rulesets_are_refused_with_their_reason() {
    let dir = tempfile::tempdir().expect("temp dir");
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "extends = \"standard\"\nhand_size = \"four\"\n").unwrap();
    let broken = broken.to_str().unwrap();
    let bots = ["--bots", "random,greedy", "--games", "2"];
    for (args, says) in [
        (vec!["--ruleset", "standard", "--ruleset", "wizard"], "cannot load ruleset 'wizard'".to_string()),
        (vec!["--ruleset", "standard", "--ruleset", broken], format!("{broken}:2:")),
        (vec!["--ruleset", "house", "--ruleset", "house"], "ruleset house is named twice".to_string()),
    ] {
        tournament(&[&args[..], &bots[..]].concat()).code(2).stderr(predicates::str::contains(says));
    }
    Command::cargo_bin("diving")
        .expect("binary")
        .args(["--ruleset", "house", "--ruleset", "meters", "sim", "--games", "2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("only `diving tournament` plays several rulesets"));
    // Regression: a --ruleset before the command word was dropped when another came after it.
    for place in [["--ruleset", "house"], ["--ruleset=house", "--json"]] {
        Command::cargo_bin("diving")
            .expect("binary")
            .args(place)
            .args(["tournament", "--bots", "random,greedy", "--games", "2", "--ruleset", "standard"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("--ruleset is given both before and after the command word"));
    }
}

#[test]
fn a_failing_mod_under_one_ruleset_stops_the_tournament_with_the_command_that_replays_it() {
    let dir = tempfile::tempdir().unwrap();
    // A 7 played late in a game breaks the mod.
    let fragile = common::fragile_ruleset(dir.path());
    let fragile = fragile.to_str().unwrap();
    let args =
        ["--bots", "greedy,random", "--games", "50", "--jobs", "1", "--ruleset", "standard", "--ruleset", fragile];
    let assert = tournament(&args).code(1);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("the seven snapped"), "{err}");
    assert!(assert.get_output().stdout.is_empty(), "no report after a failure");
    let line = err.lines().find_map(|l| l.strip_prefix("reproduce it with: diving ")).expect("a command");
    assert!(line.contains(&format!("--ruleset {fragile}")) && line.contains("--rotate"), "{line}");
    let again = Command::cargo_bin("diving").unwrap().args(line.split(' ')).assert().code(1);
    let again = String::from_utf8(again.get_output().stderr.clone()).unwrap();
    assert!(again.contains("the seven snapped"), "{again}");
}

#[test]
fn swiss_rounds_of_four_bots_never_repeat_a_table_and_do_not_depend_on_jobs() {
    let bots = "random,greedy,scripts/reckless.lua,scripts/cautious.lua";
    let args = ["--bots", bots, "--games", "16", "--seed", "5", "--pairing", "swiss", "--rounds", "3"];
    let one = json(&[&args[..], &["--jobs", "1"]].concat());
    let two = json(&[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(one, two, "a Swiss tournament depends on --jobs");
    assert_eq!(one["pairing"], "swiss");
    assert!(one.get("tables").is_none(), "{one}");
    let rounds = one["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3);
    let mut seen = Vec::new();
    for round in rounds {
        let tables = round.as_array().unwrap();
        assert_eq!(tables.len(), 2, "every bot plays every round: {one}");
        for table in tables {
            assert!(!seen.contains(table), "table {table} played twice: {one}");
            seen.push(table.clone());
        }
    }
    // The first round is drawn before any game, in the order of --bots.
    assert_eq!(rounds[0], serde_json::json!([["random", "greedy"], ["scripts/reckless.lua", "scripts/cautious.lua"]]));
    for s in one["standings"].as_array().unwrap() {
        assert_eq!(s["games"], 48, "{s}");
    }
    let text = String::from_utf8(tournament(&args).success().get_output().stdout.clone()).unwrap();
    assert!(text.contains("3 Swiss rounds of 2 tables of 2 seats × 16 games (96 games)"), "{text}");
}

#[test]
fn swiss_rounds_under_several_rulesets_are_ranked_like_a_round_robin() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shallow = shallow(&dir);
    let args = ["--bots", "random,greedy,scripts/reckless.lua", "--games", "40", "--pairing", "swiss"];
    let out = json(&[&args[..], &["--ruleset", "standard", "--ruleset", &shallow]].concat());
    assert_eq!(out["pairing"], "swiss");
    let pools = out["pools"].as_array().unwrap();
    // Three bots: one sits out each of the ⌈log₂ 3⌉ + 1 = 3 rounds, each a different one.
    for pool in pools {
        assert_eq!(pool["rounds"].as_array().unwrap().len(), 3, "{pool}");
        for s in pool["standings"].as_array().unwrap() {
            assert_eq!(s["games"], 80, "{s}");
        }
    }
    assert_eq!(out["ranking"][0]["ruleset"], "standard", "{out}");
}

#[test]
fn rounds_without_swiss_are_refused() {
    tournament(&["--bots", "random,greedy", "--rounds", "3"])
        .code(2)
        .stderr(predicates::str::contains("--rounds is for --pairing swiss"));
}
