//! `diving tournament`: the ratings order the bots by strength with their uncertainty, do not
//! depend on `--jobs`, report the skill-versus-luck measure, and bad input is refused.

use assert_cmd::Command;
use serde_json::Value;

fn tournament(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("diving").expect("binary").arg("tournament").args(args).assert()
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
