//! Lua bots: the shipped scripts load (from disk and built in) and play; a script that fails,
//! loops, answers nonsense or touches what it must not is contained, and `diving sim` stops
//! with the seed that reproduces the failure.

use assert_cmd::Command;
use diving::bots::{self, Bot, LuaBot};
use std::sync::Arc;

use diving::core::{Band, Game, Registry, Rules, Setup, View};
use diving::ruleset::Ruleset;
use diving::sim::{SimConfig, SimError, simulate};

fn game() -> Game {
    Game::standard(&["a", "b"], 5).unwrap()
}

fn choose(code: &str) -> Result<diving::core::Action, bots::BotError> {
    let g = game();
    let mut bot = LuaBot::from_code("test-bot.lua", code, 1)?;
    bot.choose(&View::new(&g, 0))
}

fn message(code: &str) -> String {
    choose(code).expect_err("the bot must fail").to_string()
}

#[test]
fn shipped_scripts_load_from_disk_and_built_in() {
    for spec in ["scripts/cautious.lua", "scripts/reckless.lua", "cautious.lua", "reckless.lua"] {
        let mut bot = bots::from_spec(spec, 3).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let g = game();
        let action = bot.choose(&View::new(&g, 0)).unwrap();
        g.check(&action).unwrap();
    }
    let e = bots::from_spec("scripts/nowhere.lua", 1).err().expect("missing file");
    assert!(e.to_string().contains("cannot read the script"), "{e}");
}

#[test]
fn a_move_can_be_returned_by_number_or_as_the_move_itself() {
    let by_number = choose("return { choose = function(view, moves) return #moves end }").unwrap();
    let by_table = choose("return { choose = function(view, moves) return moves[#moves] end }").unwrap();
    assert_eq!(by_number, by_table);
    let global = choose("function choose(view, moves) return #moves end").unwrap();
    assert_eq!(global, by_number);
}

#[test]
fn the_view_holds_what_the_seat_sees() {
    let code = r#"
        return { choose = function(view, moves)
            assert(view.seat == 1 and view.players == 2 and view.turn == 1)
            assert(#view.hand == 4 and #view.table == 4 and view.discard_top ~= nil)
            assert(view.me.depth == 0 and view.me.oxygen == 10 and view.divers[2].hand_size == 4)
            assert(view.rules.max_depth == 100 and view.rules.bands[1].cost == 1)
            assert(diving.cost(view, 60) == 3 and diving.rank("QS") == 12 and diving.value("KS") == nil)
            assert(view.divers[2].hand == nil, "no peeking")
            for i, m in ipairs(moves) do
                assert(m.index == i and type(m.text) == "string")
                if m.kind == "play" and m.value then assert(m.depth >= 0 and m.oxygen >= 0) end
                if m.kind == "recover" then assert(#m.cards >= 1 and m.gain >= 0) end
            end
            return 1
        end }
    "#;
    choose(code).unwrap();
}

/// `diving.cost` reads the engine's table and answers as a search of the bands does, for
/// every depth, above the surface, below the bottom and between two depths; also in a
/// ruleset too deep for the engine's table, played next by the same bot.
#[test]
fn diving_cost_answers_as_the_bands_say() {
    let code = r#"
        local function by_bands(view, depth)
          for _, band in ipairs(view.rules.bands) do
            if depth <= band.to then return band.cost end
          end
          return view.rules.bands[#view.rules.bands].cost
        end
        return { choose = function(view, moves)
            for depth = -3, view.rules.max_depth + 3 do
              for _, d in ipairs({ depth, depth + 0.5 }) do
                assert(diving.cost(view, d) == by_bands(view, d), "depth " .. d)
              end
            end
            return 1
        end }
    "#;
    let bands = vec![Band { to: 30, cost: 2 }, Band { to: 4500, cost: 5 }, Band { to: 5000, cost: 7 }];
    let deep = Rules { max_depth: 5000, oxygen_bands: bands, ..Rules::default() };
    let mut bot = LuaBot::from_code("cost.lua", code, 1).unwrap();
    for rules in [Rules::default(), deep] {
        let setup = Setup { names: vec!["a".into(), "b".into()], seed: 3, deck: None };
        let game = Game::new(Arc::new(rules), Arc::new(Registry::standard()), setup).unwrap();
        bot.choose(&View::new(&game, 0)).unwrap();
    }
}

#[test]
fn failures_are_contained_with_a_clear_message() {
    let e = message("return { choose = function(view, moves) error('boom') end }");
    assert!(e.contains("test-bot.lua:1") && e.contains("boom"), "{e}");
    let e = message("return { choose = function(view, moves) while true do end end }");
    assert!(e.starts_with("bot test-bot.lua:"), "{e}");
    let e = message("return { choose = function(view, moves) return 0 end }");
    assert!(e.contains("choose must return the number of a move"), "{e}");
    let e = message("return { choose = function(view, moves) return 'play 7H' end }");
    assert!(e.contains("it returned \"play 7H\""), "{e}");
    let e = message("return { choose = function(view, moves) view.me.depth = 99 return 1 end }");
    assert!(e.contains("readonly"), "{e}");
    let e = message("return { choose = function(view, moves) local t = {} for i = 1, 1e9 do t[i] = i end end }");
    assert!(e.starts_with("bot test-bot.lua"), "{e}");
    let e = LuaBot::from_code("test-bot.lua", "return 42", 1).expect_err("no choose").to_string();
    assert!(e.contains("must return a table with a choose"), "{e}");
    let e = LuaBot::from_code("test-bot.lua", "return {", 1).expect_err("syntax").to_string();
    assert!(e.contains("test-bot.lua"), "{e}");
    let e = LuaBot::from_code("test-bot.lua", "io.open('x')", 1).expect_err("no io").to_string();
    assert!(e.contains("test-bot.lua:1"), "{e}");
}

#[test]
fn a_failing_bot_stops_the_sim_with_the_seed_that_reproduces_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grumpy.lua");
    // Fails only on its fifth turn of a game (the ninth of the game), deep in a run.
    std::fs::write(&path, "local n = 0\nreturn { choose = function(view, moves)\n  n = n + 1\n  if view.turn == 9 then error('grumpy') end\n  return 1\nend }\n").unwrap();
    let config = SimConfig {
        games: 50,
        players: vec![path.to_string_lossy().into_owned(), "greedy".into()],
        seed: 100,
        jobs: 2,
        rotate: false,
        max_turns: 300,
    };
    match simulate(&config, &Ruleset::standard(), None, &|_| {}) {
        Err(SimError::Game { seed, message, reproduce, .. }) => {
            assert!(message.contains("grumpy.lua:4") && message.contains("grumpy"), "{message}");
            assert!(reproduce.contains(&format!("--seed {seed}")), "{reproduce}");
        }
        other => panic!("expected a failed game, got {other:?}"),
    }
    let out = failed_sim(20, &format!("{},greedy", path.display()));
    assert!(out.contains("(seed ") && out.contains("reproduce it with: diving sim --games 1"), "{out}");
}

/// Runs `diving sim` with these players, which must fail (exit status 1); returns stderr.
fn failed_sim(games: u32, players: &str) -> String {
    let out = Command::cargo_bin("diving")
        .unwrap()
        .args(["sim", "--games", &games.to_string(), "--players", players])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_looping_bot_stops_the_sim() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("loop.lua");
    std::fs::write(&path, "return { choose = function(view, moves)\n  while true do end\nend }\n").unwrap();
    let out = failed_sim(10, &format!("greedy,{}", path.display()));
    assert!(out.contains("loop.lua:2") && out.contains("(seed "), "{out}");
}

#[test]
fn lua_bots_are_reproducible_and_forget_each_game() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moody.lua");
    // Keeps a count across calls and rolls dice: still the same games for any --jobs, because
    // each game starts from a fresh script with math.random seeded from the bot's seed.
    std::fs::write(
        &path,
        "local calls = 0\nreturn { choose = function(view, moves)\n  calls = calls + 1\n  if calls % 3 == 0 then return math.random(#moves) end\n  return #moves\nend }\n",
    )
    .unwrap();
    let players = format!("{},scripts/reckless.lua,greedy", path.display());
    let run = |jobs: &str| -> serde_json::Value {
        let out = Command::cargo_bin("diving")
            .unwrap()
            .args(["sim", "--games", "60", "--seed", "4", "--json", "--rotate", "--jobs", jobs, "--players", &players])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        serde_json::from_slice::<serde_json::Value>(&out).unwrap()["results"].clone()
    };
    assert_eq!(run("1"), run("2"));
}

/// Issue 35: a bot's pattern, comparison and conversion bombs are stopped (by the charge of
/// their size or by the call's time budget) at their line, well within a generous bound.
#[test]
fn a_bots_pattern_compare_and_conversion_bombs_are_stopped() {
    for (code, fragment) in [
        ("local s = string.rep('(', 200000)\nfunction choose(v, m) return s:find('%b()') end", "time budget"),
        (
            "local c = '^[' .. string.rep('a', 30000) .. 'b]*'\nlocal s = string.rep('b', 30000)\nfunction choose(v, m) for i = 1, 1000 do local x = s:match(c) end return 1 end",
            "used up its budget",
        ),
        (
            "local a, b = string.rep('x', 4e6) .. 'a', string.rep('x', 4e6) .. 'b'\nfunction choose(v, m) local n = 0 for i = 1, 1e6 do if a < b then n += 1 end end return 1 end",
            "time budget",
        ),
        (
            "local d = string.rep('7', 4e6)\nfunction choose(v, m) for i = 1, 1000 do local n = tonumber(d) end return 1 end",
            "used up its budget",
        ),
    ] {
        let start = std::time::Instant::now();
        let e = message(code);
        assert!(e.contains("test-bot.lua:") && e.contains(fragment), "{code}: {e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(15), "{code}: {:?}", start.elapsed());
    }
}
