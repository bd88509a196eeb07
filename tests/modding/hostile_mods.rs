//! Hostile mods: each one is contained with a clear `mod <file>:<line>: …` error, the game is
//! exactly as it was before the action, the same action fails the same way again, and the
//! next legal action still applies.

use crate::common;

use common::{Deal, action, assert_invariants, refused_twice_then};
use diving::core::{Game, Registry, Rules};
use diving::ruleset::Ruleset;
use diving::script::{ModSource, load_mods};

fn deal() -> Deal {
    Deal::new(2).hand("Ann", "5H 9C 9D KS").hand("Bob", "QH 4C 8D 2S").table("6C 7C 10D JD").discard("2C")
}

fn load(name: &str, code: &str) -> Result<Registry, String> {
    load_mods(&Rules::default(), &[ModSource { name: name.into(), code: code.into() }]).map_err(|e| e.to_string())
}

fn hostile(file: &str) -> Result<Registry, String> {
    let path = format!("tests/mods/hostile/{file}");
    let code = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load(&path, &code)
}

/// Plays `trigger` with the mod loaded: it must fail at `line` with a message containing
/// `fragment`, twice, without changing the game; then `next` must apply.
fn contained_with(registry: Registry, file: &str, trigger: &str, line: u32, fragment: &str, next: &str) -> Game {
    let mut game = deal().game_with(registry);
    refused_twice_then(&mut game, trigger, &format!("mod {file}:{line}: "), fragment, next);
    game
}

fn contained(file: &str, trigger: &str, line: u32, fragment: &str) {
    let path = format!("tests/mods/hostile/{file}");
    let registry = hostile(file).unwrap_or_else(|e| panic!("{e}"));
    contained_with(registry, &path, trigger, line, fragment, "recover 9C");
}

fn refused_at_load(file: &str, line: u32, fragment: &str) {
    let e = hostile(file).expect_err("the mod must not load");
    let prefix = format!("mod tests/mods/hostile/{file}:{line}: ");
    assert!(e.starts_with(&prefix), "expected '{prefix}…', got '{e}'");
    assert!(e.contains(fragment), "expected '{fragment}' in '{e}'");
}

// ----- runaway code -----

#[test]
fn endless_loop() {
    contained("loop.lua", "play 5H", 4, "budget");
}

#[test]
fn endless_loop_inside_pcall() {
    contained("loop-in-pcall.lua", "play 5H", 3, "budget");
}

#[test]
fn catching_the_budget_error_again_and_again() {
    contained("pcall-forever.lua", "play 5H", 4, "budget");
}

#[test]
fn memory_bomb() {
    contained("memory.lua", "play 5H", 4, "memory");
}

#[test]
fn string_rep_bomb() {
    contained("rep-bomb.lua", "play 5H", 3, "string.rep would build");
}

#[test]
fn string_rep_bomb_inside_pcall() {
    contained("rep-bomb-pcall.lua", "play 5H", 3, "string.rep would build");
}

#[test]
fn slow_pattern_match() {
    contained("pattern.lua", "play 5H", 4, "budget");
}

#[test]
fn hooks_that_trigger_themselves() {
    let path = "tests/mods/hostile/recursion.lua";
    let registry = hostile("recursion.lua").unwrap();
    contained_with(registry, path, "play 9C", 2, "nested more than", "recover 9C");
}

#[test]
fn flooding_the_log() {
    contained("chatter.lua", "play 5H", 3, "more than 100 lines of narration in one turn");
}

// ----- reaching outside the sandbox -----

const FORBIDDEN: &[&str] = &[
    "io.open('/etc/passwd')",
    "os.execute('true')",
    "os.getenv('HOME')",
    "require('socket')",
    "load('return 1')",
    "loadstring('return 1')",
    "dofile('/etc/passwd')",
    "debug.traceback()",
    "string.dump(function() end)",
    "getfenv(1)",
    "setfenv(1, {})",
    "collectgarbage('count')",
    "coroutine.create(function() end)",
    "newproxy(true)",
    "print('hello')",
    "_G.x",
];

#[test]
fn forbidden_globals_at_load() {
    for expr in FORBIDDEN {
        let e = load("reach.lua", &format!("-- reach\nlocal x = {expr}\n")).expect_err(expr);
        assert!(e.starts_with("mod reach.lua:2: `") && e.contains("` is not available: "), "{expr}: {e}");
    }
}

#[test]
fn forbidden_globals_at_run_time() {
    for expr in FORBIDDEN {
        let code = format!("-- reach\ndiving.wrap(5, function(ctx, play, previous)\n  local x = {expr}\nend)\n");
        let registry = load("reach.lua", &code).unwrap();
        contained_with(registry, "reach.lua", "play 5H", 3, "is not available", "recover 9C");
    }
}

#[test]
fn bytecode_is_refused() {
    let bytecode = mlua::chunk::Compiler::new().compile("diving.wrap(5, function() end)").unwrap();
    let text = String::from_utf8_lossy(&bytecode).into_owned();
    let e = load("evil.lua", &text).expect_err("bytecode must not load");
    assert!(e.starts_with("mod evil.lua:"), "{e}");
    // Through a ruleset file, with the raw bytes on disk.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("mods")).unwrap();
    std::fs::write(dir.path().join("mods/evil.lua"), &bytecode).unwrap();
    let ruleset = dir.path().join("evil.toml");
    std::fs::write(&ruleset, "mods = [\"mods/evil.lua\"]\n").unwrap();
    let e = Ruleset::load(ruleset.to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("evil"), "{e}");
}

// ----- tampering with shared tables -----

#[test]
fn string_metatable() {
    contained("tamper-string-meta.lua", "play 5H", 3, "attempt to index boolean");
}

#[test]
fn string_library() {
    contained("tamper-string-lib.lua", "play 5H", 3, "readonly");
}

#[test]
fn ctx_table() {
    contained("tamper-ctx.lua", "play 5H", 3, "readonly");
}

#[test]
fn ctx_metatable() {
    contained("tamper-ctx-meta.lua", "play 5H", 3, "readonly");
}

#[test]
fn diving_table() {
    refused_at_load("tamper-diving.lua", 2, "readonly");
}

#[test]
fn rules_table() {
    refused_at_load("tamper-rules.lua", 2, "readonly");
}

#[test]
fn one_mods_globals_do_not_leak_into_another() {
    let sources = [
        ModSource { name: "a.lua".into(), code: "secret = 42".into() },
        ModSource { name: "b.lua".into(), code: "assert(secret == nil, 'leak')".into() },
    ];
    load_mods(&Rules::default(), &sources).unwrap();
}

// ----- out-of-range and inconsistent changes -----

#[test]
fn depth_out_of_range() {
    contained("set-depth.lua", "play 5H", 4, "depth -5 is outside 0…100");
}

#[test]
fn oxygen_out_of_range() {
    contained("set-oxygen.lua", "play 5H", 4, "oxygen 99 is outside 0…10");
}

#[test]
fn a_player_who_does_not_exist() {
    contained("no-such-player.lua", "play 5H", 4, "there is no player 9 (players are 1…2)");
}

#[test]
fn a_play_passed_on_with_a_bad_target() {
    contained("bad-play-target.lua", "play 5H", 4, "play.target must be a whole number, got \"Bob\"");
}

#[test]
fn a_play_passed_on_with_a_bad_card() {
    contained("bad-play-card.lua", "play 5H", 4, "\"ZZ\" is not a card");
}

/// Regression: an argument error inside a `previous` function was located twice
/// (`mod f.lua:3: f.lua:3: …`).
#[test]
fn a_bad_player_for_previous_is_located_once() {
    let path = "tests/mods/hostile/previous-bad-player.lua";
    let mut game = contained_with(hostile("previous-bad-player.lua").unwrap(), path, "play 9C", 3, "", "recover 9C");
    let e = game.apply(&action(&game, "play 8D"), &mut ()).unwrap_err().to_string();
    assert_eq!(e, format!("mod {path}:3: the player must be a whole number, got \"Bob\""));
}

#[test]
fn wrong_argument_type() {
    contained("bad-args.lua", "play 5H", 4, "the distance must be a whole number, got \"deep\"");
}

#[test]
fn conjuring_a_card() {
    contained("conjure.lua", "play 5H", 4, "AS is not in play");
}

#[test]
fn discarding_twice() {
    contained("double-discard.lua", "play 5H", 4, "5H is not in play");
}

#[test]
fn losing_the_played_card() {
    let path = "tests/mods/hostile/lose-card.lua";
    contained_with(hostile("lose-card.lua").unwrap(), path, "play 5H", 2, "still in play", "recover 9C");
}

#[test]
fn changes_before_a_failure_are_undone() {
    contained("change-then-fail.lua", "play 5H", 6, "failed after changing things");
}

/// A Lua error in a hook that `ctx:dive` runs inside a Lua effect unwinds both handlers: the
/// game is as before (the effect's and the hook's changes undone), and the next actions,
/// which run the same hook, work.
#[test]
fn an_error_in_a_hook_inside_an_effect_unwinds_both() {
    let path = "tests/mods/hostile/nested-error.lua";
    let registry = hostile("nested-error.lua").unwrap();
    let mut game = contained_with(registry, path, "play 5H", 14, "the hook fails at depth 50", "recover 9C");
    let mut events = Vec::new();
    game.apply(&action(&game, "play 8D"), &mut events).unwrap();
    assert!(common::said(&events).contains(&"the hook passes".to_string()), "{events:?}");
    assert_invariants(&game, "after the hook passed");
}

const NOT_ITS_OWN: &str = "this ctx belongs to another handler call";

/// A ctx kept in a global from an earlier handler call and used in a later one is an error,
/// and the later handler's own change is undone; handlers keep working.
#[test]
fn a_ctx_kept_for_a_later_handler_call() {
    let path = "tests/mods/hostile/kept-ctx.lua";
    let mut game = common::run(deal().game_with(hostile("kept-ctx.lua").unwrap()), "play 9C; play 8D").game;
    let before = game.clone();
    let e = game.apply(&action(&game, "play 5H"), &mut ()).unwrap_err().to_string();
    assert_eq!(e, format!("mod {path}:9: {NOT_ITS_OWN} (a ctx is good only during the call it is given to)"));
    assert!(game == before, "the failed action changed the game");
    game.apply(&action(&game, "play 9D"), &mut ()).unwrap();
    assert_invariants(&game, "after the next handler call");
}

/// A hook run inside an effect cannot use the effect's ctx: it has its own.
#[test]
fn a_ctx_used_by_a_hook_inside_its_handler() {
    contained("outer-ctx.lua", "play 5H", 10, NOT_ITS_OWN);
}

#[test]
fn registering_after_loading() {
    contained("late-register.lua", "play 5H", 3, "diving.wrap can only be called while the mod file loads");
}

// ----- errors -----

#[test]
fn error_at_load() {
    refused_at_load("error-at-load.lua", 3, "broken on purpose");
}

#[test]
fn syntax_error_at_load() {
    refused_at_load("syntax.lua", 4, "expected ')'");
}

#[test]
fn error_at_run_time() {
    contained("error-at-run.lua", "play 5H", 4, "boom at depth 0");
}

#[test]
fn a_plain_bug() {
    contained("nil-index.lua", "play 5H", 4, "attempt to index nil");
}

// ----- handlers that must return a value -----

#[test]
fn oxygen_cost_returning_nothing() {
    contained("oxygen-nil.lua", "play 9C", 2, "the oxygen_cost handler must return a whole number");
}

#[test]
fn win_check_returning_nothing() {
    contained("win-nil.lua", "play 9C", 2, "the win_check handler must return true or false, got nil");
}

#[test]
fn recovery_gain_returning_a_negative_number() {
    let path = "tests/mods/hostile/gain-negative.lua";
    let registry = hostile("gain-negative.lua").unwrap();
    contained_with(registry, path, "recover 9C", 2, "got -3", "play 9C");
}

#[test]
fn targets_returning_no_list() {
    contained("targets-bad.lua", "play 5H @Bob", 3, "a targets function must return a list of player numbers");
}

#[test]
fn targets_trying_to_write() {
    contained("targets-write.lua", "play 5H @Bob", 4, "ctx:set_depth cannot be used here");
}

#[test]
fn targets_that_never_end() {
    contained("targets-loop.lua", "play 5H @Bob", 4, "budget");
}

#[test]
fn playable_returning_a_number() {
    contained("playable-bad.lua", "play 5H", 3, "a playable function must return true or false, got 1");
}

#[test]
fn recursion_without_end() {
    let path = "tests/mods/hostile/deep-recursion.lua";
    let registry = hostile("deep-recursion.lua").unwrap();
    let mut game = deal().game_with(registry);
    let before = game.clone();
    let e = game.apply(&action(&game, "play 5H"), &mut ()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("mod {path}:3: ")), "{e}");
    assert!(game == before);
    game.apply(&action(&game, "recover 9C"), &mut ()).unwrap();
}

#[test]
fn a_dot_instead_of_a_colon() {
    contained("dot-call.lua", "play 5H", 4, "call ctx functions with a colon: ctx:depth(…)");
}

#[test]
fn registration_errors_name_the_line() {
    let cases = [
        ("diving.effect(14, { resolve = function() end })", "14 is not a rank"),
        ("diving.effect('Z', { resolve = function() end })", "\"Z\" is not a rank"),
        ("diving.effect(5, { resolve = function() end, target = 'other' })", "unknown field `target`"),
        ("diving.effect(5, { targets = 'other' })", "diving.effect needs a resolve function"),
        ("diving.effect(5, { resolve = function() end, targets = 'all' })", "targets must be \"none\", \"other\""),
        ("diving.effect(5, function() end)", "diving.effect needs a table"),
        ("diving.wrap(5, 'resolve')", "diving.wrap's handler must be a function, got \"resolve\""),
        ("diving.oxygen_cost(nil)", "diving.oxygen_cost's handler must be a function, got nil"),
        ("diving.rank('Joker')", "\"Joker\" is not a card"),
    ];
    for (code, fragment) in cases {
        let e = load("reg.lua", &format!("-- registration\n{code}\n")).expect_err(code);
        assert!(e.starts_with("mod reg.lua:2: "), "{code}: {e}");
        assert!(e.contains(fragment), "{code}: expected '{fragment}' in '{e}'");
    }
}

/// The sandbox stops a looping or memory-hungry mod by raising a Lua error from a Rust hook,
/// which needs unwinding. These tests run with unwinding whatever the profile says, so they
/// cannot see a release build that aborts on panic instead; this check can (with
/// `panic = "abort"` such a mod killed the release binary instead of failing with a message).
#[test]
fn every_build_profile_keeps_unwinding_for_the_sandbox() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let manifest: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    let profiles = manifest.get("profile").and_then(|p| p.as_table()).cloned().unwrap_or_default();
    for (name, profile) in &profiles {
        let panic = profile.get("panic").and_then(|p| p.as_str()).unwrap_or("unwind");
        assert_eq!(panic, "unwind", "Cargo.toml: profile.{name} sets panic = \"{panic}\"");
    }
}
