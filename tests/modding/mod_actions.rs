//! Actions a mod adds (`diving.action`): the buddy-line example's scenarios, the refusals and
//! load errors, the table (shell words, JSON, help, saves and replays) and the bots.

use crate::cli_support;
use crate::common;

use std::path::Path;
use std::sync::Arc;

use diving::bots::{Bot, GreedyBot, LuaBot, MctsBot, RandomBot};
use diving::core::knowledge::WITHHELD;
use diving::core::{Action, ActionError, Event, Game, Rules, Setup, View, Viewer};
use diving::modkit::scenario::ScenarioFile;
use diving::ruleset::Ruleset;
use diving::script::{ModSource, load_mods};
use predicates::str::contains;

const BUDDY: &str = "rulesets/examples/buddy-line/ruleset.toml";

fn lua(name: &str, code: &str) -> ModSource {
    ModSource { name: name.to_string(), code: code.into() }
}

/// The load error of these mod files, as a player reads it.
fn load_error(files: &[(&str, &str)]) -> String {
    let sources: Vec<ModSource> = files.iter().map(|(n, c)| lua(n, c)).collect();
    match load_mods(&Rules::default(), &sources) {
        Ok(_) => panic!("{files:?} loaded"),
        Err(e) => e.to_string(),
    }
}

fn buddy_game(seed: u64, players: usize) -> Game {
    let ruleset = Ruleset::load(BUDDY).unwrap_or_else(|e| panic!("{e}"));
    let names = ["ann", "bob", "cy", "di"][..players].iter().map(|n| n.to_string()).collect();
    Game::new(ruleset.rules.clone(), ruleset.registry().unwrap(), Setup { names, seed, deck: None }).unwrap()
}

/// Every example ruleset's scenarios pass (buddy line's include a refusal with the mod's
/// reason for the one diver it refuses).
#[test]
fn every_example_passes_its_scenarios() {
    let mut ran = 0;
    for dir in std::fs::read_dir("rulesets/examples").unwrap() {
        let dir = dir.unwrap().path();
        let ruleset = Ruleset::load(&dir.join("ruleset.toml").display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        for file in std::fs::read_dir(dir.join("tests")).unwrap() {
            let file = file.unwrap().path();
            let scenarios = ScenarioFile::read(&file).unwrap_or_else(|e| panic!("{e}"));
            for run in scenarios.run(&ruleset) {
                assert!(run.failure.is_none(), "{}: {}: {:?}", file.display(), run.name, run.failure);
                ran += 1;
            }
        }
    }
    assert!(ran >= 13, "{ran} scenarios");
    assert!(Path::new("rulesets/examples/buddy-line/tests/buddy-line.toml").exists());
}

/// `buddy` is listed for the deeper divers only, and a refused diver gets the mod's reason.
#[test]
fn a_refused_buddy_gets_the_mods_reason_and_changes_nothing() {
    let mut game = buddy_game(1, 3);
    assert!(game.moves().acts().is_empty(), "nobody is deeper at the start");
    let name = "buddy".parse().unwrap();
    let before = game.clone();
    let e = common::refuse_action(&mut game, &Action::Act { name, target: Some(1), card: None });
    assert_eq!(e, ActionError::ActBadTarget { name, target: 1, reason: "bob is not deeper than you".into() });
    assert_eq!(game, before);
    let held = Some(game.player(0).hand[0]);
    let e = common::refuse_action(&mut game, &Action::Act { name, target: Some(1), card: held });
    assert_eq!(e, ActionError::ActNoCardTaken { name });
    let deep =
        game.legal_actions().into_iter().find(|a| matches!(a, Action::Play { card, .. } if card.rank.is_number()));
    game.apply(&deep.unwrap(), &mut ()).unwrap();
    assert_eq!(game.moves().acts(), [Action::Act { name, target: Some(0), card: None }]);
    let mut events = Vec::new();
    game.apply(&Action::Act { name, target: Some(0), card: None }, &mut events).unwrap();
    assert_eq!(events[0], Event::Acted { player: 1, name, target: Some(0), card: None });
    assert_eq!(common::said(&events), ["ann takes 1 oxygen from bob and pulls them down the line"]);
}

#[test]
fn an_action_called_like_a_command_or_another_mods_action_is_refused_at_load() {
    let action = |name: &str| format!("diving.action(\"{name}\", {{ resolve = function(ctx, args) end }})\n");
    let e = load_error(&[("a.lua", &format!("\n{}", action("moves")))]);
    assert!(e.starts_with("mod a.lua:2: "), "{e}");
    assert!(e.contains("called like `moves`, a command (or help topic) the game already reads"), "{e}");
    // `rematch`: a hosted table takes the word before its table reads the line (issue 43).
    for word in ["play", "recover", "pass", "help", "p", "say", "rules", "jolt", "rematch"] {
        let e = load_error(&[("a.lua", &action(word))]);
        assert!(e.contains(&format!("called like `{word}`, a command")), "{word}: {e}");
    }
    let e = load_error(&[("a.lua", &action("qs"))]);
    assert!(e.contains("diving.action(\"qs\") is called like a card"), "{e}");
    let e = load_error(&[("a.lua", &format!("\n\n{}", action("hug"))), ("b.lua", &format!("\n{}", action("hug")))]);
    assert!(e.starts_with("mod b.lua:2: "), "{e}");
    assert!(e.contains("already the action of mod a.lua:3"), "{e}");
    let e = load_error(&[("a.lua", &action("Hug"))]);
    assert!(e.contains("an action's name is 1 to 15 characters"), "{e}");
    let e =
        load_error(&[("a.lua", "diving.action(\"hug\", { args = { who = \"friend\" }, resolve = function() end })")]);
    assert!(e.starts_with("mod a.lua:1: ") && e.contains("who = \"friend\""), "{e}");
    let e = load_error(&[("a.lua", "diving.action(\"hug\", { legal = function() return true end })")]);
    assert!(e.contains("needs a resolve function"), "{e}");
}

/// What a mod's `legal` or `resolve` gets wrong is located in the mod; a runaway `legal` is
/// stopped by the budget; nothing of a failed action is kept.
#[test]
fn an_actions_failures_name_the_mods_line_and_change_nothing() {
    let code = "\
diving.action(\"odd\", {
  legal = function(ctx, args)
    return 7
  end,
  resolve = function(ctx, args) end,
})
diving.action(\"boom\", {
  resolve = function(ctx, args)
    ctx:set_oxygen(args.player, 3)
    error(\"the line snapped\")
  end,
})
diving.action(\"spin\", {
  args = { target = \"other?\" },
  legal = function(ctx, args)
    while true do end
  end,
  resolve = function(ctx, args) end,
})
";
    let registry = Arc::new(load_mods(&Rules::default(), &[lua("bad.lua", code)]).unwrap_or_else(|e| panic!("{e}")));
    let setup = Setup { names: vec!["ann".into(), "bob".into()], seed: 1, deck: None };
    let mut game = Game::new(Arc::new(Rules::default()), registry, setup).unwrap();
    let moves = game.moves();
    let failure = moves.failure().expect("the listing keeps the first failure").to_string();
    assert!(failure.starts_with("mod bad.lua:2: a legal function must return true"), "{failure}");
    assert_eq!(moves.acts(), [Action::Act { name: "boom".parse().unwrap(), target: None, card: None }]);
    let before = game.clone();
    let mut events = Vec::new();
    let e =
        game.apply(&Action::Act { name: "boom".parse().unwrap(), target: None, card: None }, &mut events).unwrap_err();
    assert!(e.to_string().contains("bad.lua:10: the line snapped"), "{e}");
    assert!(game == before && events.is_empty());
    let e =
        game.check(&Action::Act { name: "spin".parse().unwrap(), target: None, card: None }).unwrap_err().to_string();
    assert!(e.contains("bad.lua:16"), "{e}");
}

/// Greedy weighs `buddy` by what it leads to: over seeded games it sometimes takes it (when
/// the pull beats its cards), never fails, and random and mcts may take it too.
#[test]
fn the_bots_choose_buddy_from_the_listing() {
    let mut chosen = [0usize; 3];
    for seed in 0..12u64 {
        for (b, bot) in [
            Box::new(GreedyBot::new()) as Box<dyn Bot>,
            Box::new(RandomBot::new(seed)),
            Box::new(MctsBot::new(20, seed)),
        ]
        .into_iter()
        .enumerate()
        {
            if b == 2 && seed >= 3 {
                continue;
            }
            let mut bot = bot;
            let mut game = buddy_game(seed, 3);
            while !game.is_over() && game.turn() < 200 {
                let view = View::new(&game, game.current());
                let action = bot.choose(&view).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                chosen[b] += usize::from(matches!(action, Action::Act { .. }));
                game.apply(&action, &mut ()).unwrap_or_else(|e| panic!("seed {seed}: {action}: {e}"));
            }
        }
    }
    eprintln!("buddy taken by greedy, random, mcts: {chosen:?}");
    assert!(chosen[0] > 0, "greedy never took buddy: {chosen:?}");
    assert!(chosen[1] > 0, "random never took buddy: {chosen:?}");
}

/// A Lua bot reads a mod's action in its moves (`kind` `act`, its `name` and `target`) and
/// may return it.
#[test]
fn a_lua_bot_lists_and_takes_a_mods_action() {
    let code = r#"
function choose(view, moves)
  for _, m in ipairs(moves) do
    if m.kind == "act" and m.name == "buddy" and m.target then
      return m
    end
  end
  return 1
end
"#;
    let mut bot = LuaBot::from_code("buddy-bot.lua", code, 1).unwrap();
    let mut game = buddy_game(1, 2);
    let mut taken = 0;
    while !game.is_over() && game.turn() < 60 {
        let action = bot.choose(&View::new(&game, game.current())).unwrap();
        taken += usize::from(matches!(action, Action::Act { .. }));
        game.apply(&action, &mut ()).unwrap();
    }
    assert!(taken > 0, "the Lua bot never saw buddy");
}

/// `diving sim` plays it and counts the mod's actions taken per game.
#[test]
fn sim_runs_the_buddy_line_and_counts_its_actions() {
    cli_support::diving()
        .args(["sim", "--ruleset", BUDDY, "--games", "40", "--players", "greedy,random,greedy", "--jobs", "1"])
        .assert()
        .success()
        .stdout(contains(" mod actions\n"));
}

/// The JSON mode types it (`buddy 1`), lists it in `moves`, narrates it as `acted`; `help`
/// lists and explains it; a save keeps it and loads to the same game.
#[test]
fn the_table_types_lists_explains_saves_and_replays_a_mods_action() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("buddy.json");
    let script = format!("play 7d t1\nmoves\nbuddy 1\nhelp\nhelp buddy\nbuddy 1\nsave {}\n", save.display());
    let out = cli_support::diving()
        .args(["--json", "play", "--ruleset", BUDDY, "--players", "ann,bob", "--seed", "1"])
        .write_stdin(script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = cli_support::json_lines(&out.stdout);
    let moves = lines.iter().find_map(|l| l.get("moves")).expect("moves");
    assert_eq!(moves.as_array().unwrap().last().unwrap(), "buddy ann");
    let acted: Vec<_> = lines.iter().filter(|l| l["event"] == "acted").collect();
    assert_eq!(acted.len(), 1, "{lines:?}");
    let (who, name, target) = (&acted[0]["player"], &acted[0]["name"], &acted[0]["target"]);
    assert_eq!((who.as_str(), name.as_str(), target.as_str()), (Some("bob"), Some("buddy"), Some("ann")));
    let helps: Vec<&str> = lines.iter().filter_map(|l| l["help"].as_str()).collect();
    assert!(helps[0].contains("  buddy    buddy PLAYER: instead of playing"), "{}", helps[0]);
    assert!(helps[1].starts_with("buddy PLAYER\n"), "{}", helps[1]);
    // The second `buddy 1` is ann's: bob is not deeper.
    let errors: Vec<&str> = lines.iter().filter_map(|l| l["error"].as_str()).collect();
    assert_eq!(errors, ["ann cannot be targeted with buddy: you cannot target yourself"]);
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(saved["actions"][1], serde_json::json!({"action": "act", "name": "buddy", "target": 0}), "{saved}");
    cli_support::diving()
        .args(["--load", &save.display().to_string()])
        .write_stdin("log\n")
        .assert()
        .success()
        .stdout(contains("bob chooses buddy ann"));
}

const TOSS: &str = r#"
diving.action("toss", {
  args = { card = "card" },
  describe = "toss CARD: instead of playing, throw a heart of your hand away and draw",
  legal = function(ctx, args)
    if diving.suit(args.card) ~= "H" then
      return false, "only a heart can be tossed"
    end
    return true
  end,
  resolve = function(ctx, args)
    ctx:say(ctx:name(args.player) .. " tosses " .. args.card)
    assert(ctx:take_hand(args.card))
    ctx:discard(args.card)
    ctx:draw(args.player)
  end,
})
"#;

/// An action that names a card of the hand: listed once per card its rule allows, refused
/// with the mod's reason for another, typed `toss kh` in the JSON mode, saved and narrated
/// with its card; `ctx:take_hand` puts the card in play for the mod to discard.
#[test]
fn an_action_naming_a_card_of_the_hand() {
    let registry = Arc::new(load_mods(&Rules::default(), &[lua("toss.lua", TOSS)]).unwrap_or_else(|e| panic!("{e}")));
    let setup = Setup { names: vec!["ann".into(), "bob".into()], seed: 1, deck: None };
    let mut game = Game::new(Arc::new(Rules::default()), registry, setup).unwrap();
    let name = "toss".parse().unwrap();
    let hand = game.player(0).hand.clone();
    let hearts: Vec<Action> = hand
        .iter()
        .filter(|c| c.suit == diving::core::Suit::Hearts)
        .map(|&c| Action::Act { name, target: None, card: Some(c) })
        .collect();
    assert!(!hearts.is_empty(), "seed 1 deals ann a heart: {hand:?}");
    assert_eq!(game.moves().acts(), &hearts[..]);
    let other = *hand.iter().find(|c| c.suit != diving::core::Suit::Hearts).unwrap();
    let e = common::refuse_action(&mut game, &Action::Act { name, target: None, card: Some(other) });
    // The mod was asked about a card of ann's hand: its reason is for ann's eyes only.
    assert!(matches!(e, ActionError::ActBadCard { card, .. } if card == other), "{e:?}");
    assert_eq!(Viewer::Seat(0).error(&e), format!("{other} cannot be used for toss: only a heart can be tossed"));
    assert_eq!(Viewer::Seat(1).error(&e), format!("{other} cannot be used for toss: {WITHHELD}"));
    let e = common::refuse_action(&mut game, &Action::Act { name, target: None, card: None });
    assert_eq!(e, ActionError::ActCardNeeded { name });
    let missing = diving::core::full_deck(1).into_iter().find(|c| !hand.contains(c)).unwrap();
    let e = common::refuse_action(&mut game, &Action::Act { name, target: None, card: Some(missing) });
    assert_eq!(e, ActionError::NotInHand { card: missing });
    let e = common::refuse_action(&mut game, &Action::Act { name, target: Some(1), card: None });
    assert_eq!(e, ActionError::ActNoTargetTaken { name });
    let mut events = Vec::new();
    let Action::Act { card: Some(heart), .. } = hearts[0] else { unreachable!() };
    game.apply(&hearts[0], &mut events).unwrap();
    assert_eq!(events[0], Event::Acted { player: 0, name, target: None, card: Some(heart) });
    assert!(!game.player(0).hand.contains(&heart) && game.player(0).hand.len() == hand.len());
    assert_eq!(game.discard_top(), Some(heart));
    common::assert_invariants(&game, "after toss");

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("toss.lua"), TOSS).unwrap();
    std::fs::write(dir.path().join("rules.toml"), "mods = [\"toss.lua\"]\n").unwrap();
    let script = format!("toss {}\nsave s.json\n", heart.to_string().to_lowercase());
    let out = cli_support::diving()
        .current_dir(dir.path())
        .args(["--json", "play", "--ruleset", "rules.toml", "--players", "ann,bob", "--seed", "1"])
        .write_stdin(script)
        .output()
        .unwrap();
    let lines = cli_support::json_lines(&out.stdout);
    let acted = lines.iter().find(|l| l["event"] == "acted").unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(acted["card"], heart.to_string(), "{acted}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("s.json")).unwrap()).unwrap();
    assert_eq!(saved["actions"][0], serde_json::json!({"action": "act", "name": "toss", "card": heart.to_string()}));
}
