//! `rulesets/MODDING.md` works as written: every `lua` example loads as a mod and plays seeded
//! games without breaking a rule, the five-minute ruleset loads with its mod, and the API
//! reference names exactly the functions the mod API has.

use crate::common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::assert_invariants;
use diving::core::{Event, Game, Registry, Rules, Setup};
use diving::ruleset::Ruleset;
use diving::script::{ModSource, load_mods};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const GUIDE: &str = include_str!("../../rulesets/MODDING.md");

/// The fenced blocks of `lang`, with the line each starts on.
fn blocks(lang: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in GUIDE.lines().enumerate() {
        match &mut current {
            None if line.trim() == format!("```{lang}") => current = Some((i + 2, String::new())),
            Some(_) if line.trim() == "```" => out.push(current.take().expect("open block")),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// Plays `games` random games with `registry`, checking the invariants after every action.
fn play(registry: Registry, games: u64, what: &str) -> Vec<Event> {
    let registry = Arc::new(registry);
    let rules = Arc::new(Rules { max_turns: 150, ..Rules::default() });
    let mut log = Vec::new();
    for seed in 0..games {
        let names = (1..=2 + seed as usize % 3).map(|i| format!("P{i}")).collect();
        let mut game = Game::new(rules.clone(), registry.clone(), Setup { names, seed, deck: None })
            .unwrap_or_else(|e| panic!("{what}: seed {seed}: {e}"));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while !game.is_over() {
            let actions = game.legal_actions();
            let action = &actions[rng.random_range(0..actions.len())];
            game.apply(action, &mut log).unwrap_or_else(|e| panic!("{what}: seed {seed}: '{action}': {e}"));
            assert_invariants(&game, &format!("{what}, seed {seed}, after '{action}'"));
        }
    }
    log
}

#[test]
fn every_lua_example_loads_and_plays() {
    let examples = blocks("lua");
    assert!(examples.len() >= 10, "the guide has its examples");
    for (line, code) in examples {
        let name = format!("MODDING.md:{line}");
        let registry = load_mods(&Rules::default(), &[ModSource { name: name.clone(), code: code.into() }])
            .unwrap_or_else(|e| panic!("{e}"));
        play(registry, 12, &name);
    }
}

#[test]
fn the_first_mod_in_five_minutes() {
    let toml = &blocks("toml")[0].1;
    let lucky = &blocks("lua")[0].1;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("my-rules.toml"), toml).unwrap();
    std::fs::write(dir.path().join("lucky.lua"), lucky).unwrap();
    let ruleset = Ruleset::load(dir.path().join("my-rules.toml").to_str().unwrap()).unwrap();
    assert_eq!(ruleset.title.as_deref(), Some("Lucky sevens"));
    let log = play((*ruleset.registry().unwrap()).clone(), 30, "lucky sevens");
    assert!(log.iter().any(|e| matches!(e, Event::Said { words, .. } if diving::core::Viewer::Everyone.shown(words).ends_with("catches a lucky breath"))));
}

#[test]
fn the_ruleset_key_list_is_a_valid_ruleset() {
    let keys = blocks("text").into_iter().find(|(_, b)| b.contains("extends = \"standard\"")).expect("key list").1;
    // Without the mods line, the list is a complete ruleset that says what standard says
    // (with metres for display).
    let text: String = keys.lines().filter(|l| !l.starts_with("mods")).map(|l| format!("{l}\n")).collect();
    let ruleset = Ruleset::from_text("keys.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let expected = Rules { depth_unit: "m".into(), depth_scale: 100, ..Rules::default() };
    assert_eq!(*ruleset.rules, expected);
}

/// The names of `ctx`'s and `diving`'s fields, as a mod sees them.
fn api_names() -> (BTreeSet<String>, BTreeSet<String>) {
    // One line per name (a line of narration holds at most 300 characters), the names of
    // ctx on turn 2 and those of diving on turn 3 (a turn holds at most 100 lines).
    let code = r#"
        diving.on_turn_start(function(ctx, player)
          if ctx:turn() == 2 then
            for k in pairs(ctx) do ctx:say("ctx " .. k) end
          elseif ctx:turn() == 3 then
            for k in pairs(diving) do ctx:say("diving " .. k) end
          end
        end)
    "#;
    let registry = load_mods(&Rules::default(), &[ModSource { name: "names.lua".into(), code: code.into() }]).unwrap();
    let mut game = Game::new(
        Arc::new(Rules::default()),
        Arc::new(registry),
        Setup { names: vec!["a".into(), "b".into()], seed: 1, deck: None },
    )
    .unwrap();
    let mut events = Vec::new();
    for _ in 0..2 {
        let first = game.legal_actions()[0];
        game.apply(&first, &mut events).unwrap();
    }
    let (mut ctx, mut diving) = (BTreeSet::new(), BTreeSet::new());
    for e in events {
        if let Event::Said { words, .. } = e {
            match diving::core::Viewer::Everyone.shown(&words).split_once(' ') {
                Some(("ctx", name)) => ctx.insert(name.to_string()),
                Some(("diving", name)) => diving.insert(name.to_string()),
                _ => false,
            };
        }
    }
    (ctx, diving)
}

/// Names written as `prefix` + identifier in the guide.
fn documented(prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (i, _) in GUIDE.match_indices(prefix) {
        let rest = &GUIDE[i + prefix.len()..];
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            names.insert(name);
        }
    }
    names
}

/// Names the guide writes only as typos, in the error messages it shows.
const TYPOS: [&str; 2] = ["wrap_effect", "depht"];

#[test]
fn the_reference_names_every_function_and_nothing_else() {
    let (ctx, diving) = api_names();
    let real = |mut names: BTreeSet<String>| {
        names.retain(|n| !TYPOS.contains(&n.as_str()));
        names
    };
    assert_eq!(real(documented("ctx:")), ctx, "ctx functions");
    assert_eq!(real(documented("diving.")), diving, "diving fields");
}

/// A mod's narration reaches its readers without colour codes or text-reversing characters, as
/// chat does: only the control characters went, leaving `[31m` and a right-to-left override in
/// every reader's log (issue 33, item 10).
#[test]
fn a_mods_narration_loses_colour_codes_and_reversing_characters() {
    let code = r#"
        diving.on_turn_start(function(ctx, player)
          ctx:say("\27[31mred\27[0m alert:\t\u{202E}reversed\u{202C} \27]0;title\7end")
        end)
    "#;
    let registry = load_mods(&Rules::default(), &[ModSource { name: "colour.lua".into(), code: code.into() }]).unwrap();
    let mut game = Game::new(
        Arc::new(Rules::default()),
        Arc::new(registry),
        Setup { names: vec!["a".into(), "b".into()], seed: 1, deck: None },
    )
    .unwrap();
    let first = game.legal_actions()[0];
    let mut events = Vec::new();
    game.apply(&first, &mut events).unwrap();
    let said: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Said { words, .. } => Some(diving::core::Viewer::Everyone.shown(words)),
            _ => None,
        })
        .collect();
    assert_eq!(said, ["red alert: reversed end"]);
}

/// The treasure chest's words say what its code does: a hand grows only up to 8 cards (the
/// code capped it at 8, which none of its words said: issue 44). `help rules` shows them.
#[test]
fn the_treasure_chest_says_its_cap() {
    let path = "rulesets/examples/treasure-chest/treasure-chest.lua";
    let source = ModSource { name: path.into(), code: std::fs::read_to_string(path).unwrap().into() };
    let guide = diving::table::render::mods_guide(&diving::core::Rules::default(), &[source], &[]);
    assert!(guide.contains("so your hand grows, up to 8 cards (a full hand of 8 finds no chest)"), "{guide}");
    assert!(std::fs::read_to_string(path).unwrap().contains("local FULL_HAND = 8"));
}
