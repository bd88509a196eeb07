//! Issue 43: one budget per decision, and a failing mod never hidden. A listing, a command, a
//! preview, a hint, a bot's move and each game of `check` spend from one total of mod work,
//! every call and copy they make counted, and a memory total that counts what the copies
//! hold. Past it the decision fails naming the mod and what it was doing, the game unchanged;
//! bots do less before they fail. A listed move a mod fails on, found while a bot weighs its
//! moves or a preview shows them, is reported, never skipped in silence.
//!
//! Budgets are counted in steps, so these tests assert steps, not seconds.

use crate::cli_support;
use crate::common;
use crate::mod_secrets::ruleset_with;

use diving::bots::{Bot, GreedyBot, MctsBot};
use diving::core::{ActionError, Game, Setup, View, Viewer};
use diving::ruleset::Ruleset;
use diving::script::decision::{self, BOT_STEPS, STEPS};
use diving::script::{decide, decide_apart};
use diving::table::command::{Caller, Policy, Reply, Table};
use diving::table::session::{Seating, Session};

fn game_of(spec: &str, seed: u64) -> Game {
    let ruleset = Ruleset::load(spec).unwrap_or_else(|e| panic!("{e}"));
    let names = vec!["ann".to_string(), "bob".to_string()];
    Game::new(ruleset.rules.clone(), ruleset.registry().unwrap(), Setup { names, seed, deck: None }).unwrap()
}

/// `count` actions whose `legal` loops `loops` times.
fn actions(count: usize, loops: usize) -> String {
    format!(
        "for i = 1, {count} do\n  diving.action(\"a\" .. i, {{\n    legal = function(ctx, args)\n      local n = 0\n      for k = 1, {loops} do n = n + 1 end\n      return true\n    end,\n    resolve = function(ctx, args) end,\n  }})\nend\n"
    )
}

/// A thousand actions whose `legal` counts to 100,000: each call is within its own budget,
/// but a listing asks all of them. The listing stops at the decision's total, names the
/// mod and the decision, and lists nothing it could not ask; the game is unchanged.
#[test]
fn a_listing_of_a_thousand_costly_actions_stops_at_one_decisions_budget() {
    let (_dir, spec) = ruleset_with(&[("heavy.lua", &actions(1000, 100_000))]);
    let game = game_of(&spec, 1);
    let before = game.clone();
    let decision = decide("listing the moves");
    let listing = game.moves();
    let listed = listing.to_vec();
    let failure = listing.failure().map(|f| Viewer::Everyone.failure(f)).expect("the listing fails");
    assert!(
        failure.contains("the mods' work for one decision (listing the moves) is spent: 10000000 steps in all")
            && failure.contains("heavy.lua spent the most"),
        "{failure}"
    );
    assert!(failure.starts_with("mod "), "the place is named: {failure}");
    assert!(decision.spent() <= STEPS, "{} steps", decision.spent());
    assert!(listed.iter().all(|a| !a.to_string().starts_with("a")) || listed.len() < 1000, "{}", listed.len());
    drop(decision);
    assert!(game == before, "the game is unchanged");
}

/// The same mod at a hosted table: a seat's `moves` is answered (the listing's failure,
/// naming the mod), spending one decision's budget, and the game goes on.
#[test]
fn a_hosted_moves_is_answered_within_one_decision() {
    let (_dir, spec) = ruleset_with(&[("heavy.lua", &actions(1000, 100_000))]);
    let seats = ["ann", "bob"].iter().map(|n| Seating { name: n.to_string(), bot: None }).collect();
    let mut table = Table::new(Session::new(&spec, seats, 1, None).unwrap(), Policy::network(true, 200));
    let before = diving::script::sandbox::steps_spent();
    let mut replies = Vec::new();
    table.line(Caller::Seat(0), "moves", &mut replies);
    let spent = diving::script::sandbox::steps_spent() - before;
    assert!(spent < STEPS + 2_000_000, "{spent} steps");
    let failure = replies.iter().find_map(|r| match r {
        Reply::Moves { failure, .. } => failure.clone(),
        _ => None,
    });
    assert!(failure.is_some_and(|f| f.contains("('moves' by ann) is spent")), "{replies:?}");
}

/// Forty costly actions: greedy weighs each by resolving it on a copy, and stops weighing
/// (scoring the rest by its model) once a quarter of its move's budget is left, saying so;
/// it never spends more than a move's budget.
#[test]
fn greedy_weighs_fewer_moves_when_its_budget_runs_low_and_says_so() {
    let (_dir, spec) = ruleset_with(&[("costly.lua", &actions(40, 300_000))]);
    let game = game_of(&spec, 1);
    let mut bot = GreedyBot::new();
    let decision = decide_apart("greedy's move", BOT_STEPS);
    let action = bot.choose(&View::new(&game, 0)).unwrap_or_else(|e| panic!("{e}"));
    assert!(decision.spent() <= BOT_STEPS, "{} steps", decision.spent());
    drop(decision);
    assert!(game.legal_actions().contains(&action) || game.check(&action).is_ok(), "{action}");
    let note = bot.note().expect("greedy says it weighed fewer moves");
    assert!(note.contains("the mods' work for one move ran low"), "{note}");
}

/// A search (a hint) over a mod whose every turn's end burns 300,000 steps: it stops at its
/// budget with what it found.
#[test]
fn a_search_over_a_costly_mod_stops_within_its_decision() {
    let (_dir, spec) = ruleset_with(&[(
        "near.lua",
        "diving.on_turn_end(function(ctx, player)\n  local n = 0\n  for k = 1, 300000 do n = n + 1 end\nend)\n",
    )]);
    let game = game_of(&spec, 2);
    let mut bot = MctsBot::new(300, 7);
    let decision = decide_apart("a hint", BOT_STEPS);
    let estimates = bot.estimates(&View::new(&game, 0), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(!estimates.is_empty());
    assert!(decision.spent() <= BOT_STEPS, "{} steps", decision.spent());
    assert!(estimates.iter().map(|e| e.playouts).sum::<u32>() < 300, "it stopped early");
}

/// A mod that keeps 27 MiB alive in a global from turn 3: every copy a bot weighs a move on
/// copies it, and the mods with their copies may hold 64 MiB. A greedy `sim` stops at once,
/// naming the mod (it crawled for minutes at 240 MB).
#[test]
fn big_globals_copied_for_a_bots_look_ahead_stop_a_sim_at_once_naming_the_mod() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hoard.lua"),
        "big = nil\ndiving.on_turn_end(function(ctx, player)\n  if ctx:turn() == 3 and big == nil then\n    local t = {}\n    for i = 1, 27 do t[i] = string.rep(string.char(64 + i), 1024 * 1024) end\n    big = t\n  end\nend)\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("house.toml"), "extends = \"standard\"\nmods = [\"hoard.lua\"]\n").unwrap();
    let ruleset = dir.path().join("house.toml").display().to_string();
    let out = cli_support::diving()
        .args(["sim", "--games", "40", "--jobs", "1", "--players", "greedy,greedy", "--ruleset", &ruleset])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("game 1 (seed 1) failed"), "it stops at the first game: {stderr}");
    assert!(stderr.contains("hoard.lua") && stderr.contains("more than the 64 MiB"), "{stderr}");
}

/// A mod whose every number card fails from turn 10: greedy, which weighs its moves on
/// copies, finds the failure and says so. A `sim` stops naming the mod (greedy used to drop
/// every failing play and recover for 990 turns); at a table every reader is told, once.
#[test]
fn a_listed_move_a_mod_fails_on_is_reported_not_skipped() {
    let late = "for r = 1, 10 do\n  diving.wrap(r, function(ctx, play, previous)\n    if ctx:turn() >= 10 then error(\"late failure\") end\n    previous(ctx, play)\n  end)\nend\n";
    let (_dir, spec) = ruleset_with(&[("late-error.lua", late)]);
    let out = cli_support::diving()
        .args(["sim", "--games", "1", "--jobs", "1", "--players", "greedy,greedy", "--ruleset", &spec])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("while bot greedy weighed it: mod") && stderr.contains("late-error.lua:3: late failure"),
        "{stderr}"
    );

    // At a table of two bots (the game capped at 16 turns): the failure is told to every
    // reader, once.
    std::fs::write(&spec, "extends = \"standard\"\nmods = [\"late-error.lua\"]\nmax_turns = 16\n").unwrap();
    let seats = ["ann", "bob"].iter().map(|n| Seating { name: n.to_string(), bot: Some("greedy".into()) }).collect();
    let mut table = Table::new(Session::new(&spec, seats, 3, None).unwrap(), Policy::network(true, 200));
    let mut replies = Vec::new();
    table.start(&mut replies);
    let told: Vec<&Reply> = replies.iter().filter(|r| matches!(r, Reply::ModFailed { .. })).collect();
    assert_eq!(told.len(), 1, "{told:?}");
    let Reply::ModFailed { what, error } = told[0] else { unreachable!() };
    assert!(what.contains("while bot greedy weighed it"), "{what}");
    assert!(Viewer::Spectator.failure(error).contains("late-error.lua:3"), "{what}");
}

/// A preview that fails in a mod says so in the listing, instead of showing nothing.
#[test]
fn a_preview_a_mod_fails_on_says_so() {
    let (_dir, spec) = ruleset_with(&[(
        "broken.lua",
        "diving.wrap(7, function(ctx, play, previous)\n  error(\"sevens are broken\")\nend)\n",
    )]);
    let deal = common::Deal::new(2).hand("Ann", "7H 2C 3D 4S").hand("Bob", "5H 6C 8D 9S").discard("KD");
    let ruleset = Ruleset::load(&spec).unwrap();
    let game = deal.game_with((*ruleset.registry().unwrap()).clone());
    let play = common::action(&game, "play 7H");
    let preview = diving::table::render::preview_outcome(
        &game,
        &Err(game.clone().apply(&play, &mut ()).unwrap_err()),
        Viewer::Seat(0),
    );
    assert!(preview.starts_with("a mod fails on it: mod ") && preview.contains("sevens are broken"), "{preview}");
    assert!(matches!(game.clone().apply(&play, &mut ()), Err(ActionError::Script(_))));
}

/// `diving check` of the thousand costly actions fails within seconds, naming the mod and
/// the decision (it ran for minutes).
#[test]
fn check_of_a_thousand_costly_actions_fails_naming_the_mod() {
    let (_dir, spec) = ruleset_with(&[("heavy.lua", &actions(1000, 100_000))]);
    let out = cli_support::diving().args(["check", &spec]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("heavy.lua:") && stderr.contains("the mods' work for one decision"), "{stderr}");
    assert!(stderr.contains("turn 1"), "it stops at the first listing: {stderr}");
}

/// A decision's budget caps every call it makes: a spent decision stops the next call at once.
#[test]
fn a_spent_decision_stops_the_next_call_at_once() {
    let (_dir, spec) = ruleset_with(&[("heavy.lua", &actions(3, 10))]);
    let game = game_of(&spec, 1);
    let _decision = diving::script::decide_with("a tiny budget", 500);
    let listing = game.moves();
    let _ = listing.to_vec();
    let failure = listing.failure().map(|f| Viewer::Everyone.failure(f));
    assert!(failure.as_deref().is_some_and(|f| f.contains("(a tiny budget) is spent")), "{failure:?}");
    assert_eq!(decision::left(), Some(0));
}
