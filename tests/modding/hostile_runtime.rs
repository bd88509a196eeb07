//! Hostile mods and bots at run time: each behaves for two turns, then misbehaves (issue 21).
//! Every case must end by a budget or a limit, never by a timer: the action fails with a
//! message naming the offending file and line, the game is exactly as before (a refused
//! action changes nothing), the same action fails the same way again, and the game goes on.
//! The same mods are also run through `diving check` and `diving sim`.

use crate::cli_support;
use crate::common;

use common::{Deal, action, assert_invariants, refused_twice_then, run};
use diving::bots::{Bot, LuaBot, MctsBot, Params, SEARCH_STEPS};
use diving::core::{Game, Registry, Rules, View};
use diving::script::sandbox::steps_spent;
use diving::script::{ModSource, load_mods};
use diving::table::session::{BOT_GAME_TURNS, MAX_GAME_SAID_LINES, Seating, Session};

const DIR: &str = "tests/mods/runtime";

fn deal() -> Deal {
    Deal::new(2).hand("Ann", "5H 9C 9D KS").hand("Bob", "QH 4C 8D 2S").table("6C 7C 10D JD").discard("2C")
}

fn path(file: &str) -> String {
    format!("{DIR}/{file}")
}

fn load(files: &[&str]) -> Result<Registry, String> {
    let sources: Vec<ModSource> = files
        .iter()
        .map(|f| {
            let name = path(f);
            let code = std::fs::read_to_string(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
            ModSource { name, code: code.into() }
        })
        .collect();
    load_mods(&Rules::default(), &sources).map_err(|e| e.to_string())
}

/// The game after two turns that behave (`play 9C`, `play 4C`), with `files` loaded.
fn two_turns(files: &[&str]) -> Game {
    let registry = load(files).unwrap_or_else(|e| panic!("{e}"));
    run(deal().game_with(registry), "play 9C; play 4C").game
}

/// Turn 3: `play 5H` must fail with `mod <file>:<line>: …` containing `fragment`, twice,
/// leaving the game as it was; then `recover 9D` applies.
fn misbehaves(files: &[&str], file: &str, line: Option<u32>, fragment: &str) -> String {
    let mut game = two_turns(files);
    let prefix = match line {
        Some(line) => format!("mod {}:{line}: ", path(file)),
        None => format!("mod {}: ", path(file)),
    };
    refused_twice_then(&mut game, "play 5H", &prefix, fragment, "recover 9D")
}

const BUDGET: &str = "used up its budget of 1000000 steps";

// ----- 1. work inside library functions is counted -----

#[test]
fn plain_find_over_a_big_string() {
    misbehaves(&["lib-find.lua"], "lib-find.lua", Some(6), BUDGET);
}

/// `..` copies in the VM, where no library function is charged: the memory it allocates is.
#[test]
fn concatenating_a_big_string() {
    misbehaves(&["vm-concat.lua"], "vm-concat.lua", Some(7), BUDGET);
}

#[test]
fn copying_substrings() {
    misbehaves(&["lib-sub.lua"], "lib-sub.lua", Some(6), BUDGET);
}

#[test]
fn inserting_at_the_front() {
    misbehaves(&["lib-insert.lua"], "lib-insert.lua", Some(6), BUDGET);
}

#[test]
fn joining_a_long_list() {
    misbehaves(&["lib-concat.lua"], "lib-concat.lua", Some(6), BUDGET);
}

#[test]
fn one_huge_table_move() {
    misbehaves(&["lib-move.lua"], "lib-move.lua", Some(5), BUDGET);
}

// ----- 2. a caught error is dear -----

#[test]
fn a_million_caught_errors() {
    misbehaves(&["pcall-errors.lua"], "pcall-errors.lua", Some(5), BUDGET);
}

// ----- 3. pcall cannot catch the memory limit -----

#[test]
fn running_out_of_memory_inside_pcall() {
    misbehaves(&["pcall-memory.lua"], "pcall-memory.lua", Some(8), "used more than the memory limit");
}

/// Issue 35: the limit counted garbage not yet collected, so a mod that holds half of it at a
/// time, and drops three times it on the way, was refused.
#[test]
fn a_mod_that_makes_much_garbage_but_holds_little_plays_on() {
    let game = run(two_turns(&["churn.lua"]), "play 5H; play 8D; play 9D").game;
    assert_invariants(&game, "after the churning mod's plays");
}

/// Issue 35: one `..` past the limit was refused at the handler's first line (5).
#[test]
fn one_big_concatenation_past_the_limit_names_its_line() {
    misbehaves(&["vm-concat-jump.lua"], "vm-concat-jump.lua", Some(8), "used more than the memory limit of 32768 KiB");
}

// ----- 4. memory is charged to the mod that holds it -----

#[test]
fn a_hoarding_mod_does_not_fail_an_innocent_one() {
    let game = run(two_turns(&["hoard.lua", "innocent.lua"]), "play 5H; play 8D").game;
    assert_invariants(&game, "after the innocent mod's plays");
}

#[test]
fn the_mods_total_memory_names_the_mod_that_holds_the_most() {
    let message =
        misbehaves(&["hoard.lua", "hoard-too.lua", "innocent-big.lua"], "hoard.lua", None, "the most of all the mods");
    // The holder runs no line; the message says why, and where the total was passed.
    let passed = format!(
        "(no line: it kept that memory in an earlier call or while its file loaded; the total was passed at {}:7)",
        path("innocent-big.lua")
    );
    assert!(message.contains(&passed), "{message}");
}

// ----- 5. a bot is read within the budget -----

#[test]
fn a_bot_whose_table_loops_when_read() {
    let code = std::fs::read_to_string(path("loop-index-bot.lua")).unwrap();
    let e = LuaBot::from_code(&path("loop-index-bot.lua"), &code, 1).expect_err("the bot must fail").to_string();
    assert!(e.contains(&format!("{}:2: ", path("loop-index-bot.lua"))), "{e}");
    assert!(e.contains("budget"), "{e}");
}

// ----- 6. what a mod can make the engine do -----

#[test]
fn drawing_every_card_into_a_hand() {
    misbehaves(&["draw-all.lua"], "draw-all.lua", Some(6), "a hand holds at most 12 cards");
}

// ----- 7. output is bounded -----

#[test]
fn too_many_lines_in_one_turn() {
    misbehaves(&["chatter-lines.lua"], "chatter-lines.lua", Some(6), "more than 100 lines of narration in one turn");
}

#[test]
fn too_many_bytes_in_one_turn() {
    misbehaves(&["chatter-bytes.lua"], "chatter-bytes.lua", Some(6), "more than 8192 bytes of narration in one turn");
}

/// Within the turn's limits every turn, the game's log still stops growing.
#[test]
fn narration_of_a_whole_game_is_bounded() {
    let dir = ruleset_dir(&["chatter-game.lua"], "max_turns = 200\n");
    let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
    let mut session = Session::new(&dir.1, seating, 5, None).unwrap();
    while !session.game().is_over() {
        let action = session.game().legal_actions()[0];
        session.apply(action).unwrap();
    }
    let said =
        session.entries().iter().flat_map(|e| &e.events).filter(|e| matches!(e, diving::core::Event::Said { .. }));
    let lines = said.count();
    assert!(lines <= MAX_GAME_SAID_LINES + 1, "{lines} lines kept");
    assert!(lines >= MAX_GAME_SAID_LINES / 2, "narration within the limits is kept: {lines}");
}

#[test]
fn a_bot_answering_with_an_8_mb_string() {
    let code = std::fs::read_to_string(path("big-answer-bot.lua")).unwrap();
    let mut bot = LuaBot::from_code(&path("big-answer-bot.lua"), &code, 1).unwrap();
    let mut game = Game::standard(&["Ann", "Bob"], 3).unwrap();
    let mut other = diving::bots::from_spec("random", 1).unwrap();
    let message = loop {
        let seat = game.current();
        let choice =
            if seat == 0 { bot.choose(&View::new(&game, seat)) } else { other.choose(&View::new(&game, seat)) };
        match choice {
            Ok(action) => game.apply(&action, &mut ()).unwrap(),
            Err(e) => break e.to_string(),
        }
        assert!(game.turn() < 20 && !game.is_over(), "the bot must misbehave on its third turn");
    };
    assert!(message.len() < 400, "{} bytes: {}", message.len(), &message[..400.min(message.len())]);
    assert!(message.contains("(8388608 bytes)"), "{message}");
}

// ----- 8. attribution cannot be forged -----

#[test]
fn a_message_naming_another_file() {
    let message = misbehaves(&["forge.lua"], "forge.lua", Some(5), "mod other.lua:1: it was the other mod");
    assert_eq!(message, format!("mod {}:5: mod other.lua:1: it was the other mod", path("forge.lua")));
}

#[test]
fn a_table_as_the_error_value() {
    let message = misbehaves(&["error-table.lua"], "error-table.lua", Some(5), "error value: a table");
    assert!(!message.contains("0x"), "{message}");
}

// ----- 9. after a win, the game is over inside a handler too -----

#[test]
fn moving_a_diver_after_a_win() {
    misbehaves(
        &["win-then-move.lua"],
        "win-then-move.lua",
        Some(8),
        "cannot change the game: it is over (Ann has won)",
    );
}

// ----- 10. games end -----

#[test]
fn a_bots_only_game_whose_number_cards_all_fail_ends() {
    let dir = ruleset_dir(&["all-fail.lua"], "");
    let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: Some("random".into()) }).to_vec();
    let mut session = Session::new(&dir.1, seating, 5, None).unwrap();
    let mut moves = 0;
    while let Some(result) = session.bot_move() {
        if result.is_err() {
            break;
        }
        moves += 1;
        assert!(moves <= BOT_GAME_TURNS as usize, "the game must end by the bots' turn cap");
    }
    assert!(session.game().is_over() || moves < BOT_GAME_TURNS as usize, "it ended");
}

// ----- 11. state kept in Lua variables cannot break determinism -----

#[test]
fn undo_save_and_load_round_trip_with_a_counting_mod() {
    let dir = ruleset_dir(&["counter.lua"], "");
    let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
    let mut session = Session::new(&dir.1, seating, 11, None).unwrap();
    let play = |session: &mut Session, n: usize| {
        for _ in 0..n {
            if session.game().is_over() {
                return;
            }
            // The first play of a 5 if there is one, so the counter counts.
            let legal = session.game().legal_actions();
            let five = *legal.iter().find(|a| a.to_string().starts_with("play 5")).unwrap_or(&legal[0]);
            session.apply(five).unwrap();
        }
    };
    play(&mut session, 24);
    session.undo(false).unwrap();
    play(&mut session, 24);
    let file = session.to_save();
    let loaded = Session::from_save(file, std::path::Path::new("game.json"), None)
        .unwrap_or_else(|e| panic!("the save must load: {e}"));
    assert!(loaded.game() == session.game());
}

#[test]
fn a_lua_bot_starts_afresh_every_call() {
    let code = std::fs::read_to_string(path("counting-bot.lua")).unwrap();
    let mut bot = LuaBot::from_code(&path("counting-bot.lua"), &code, 1).unwrap();
    let mut game = Game::standard(&["Ann", "Bob"], 3).unwrap();
    for _ in 0..10 {
        let first = game.legal_actions()[0];
        let chosen = bot.choose(&View::new(&game, game.current())).unwrap();
        assert_eq!(chosen, first, "a fresh script answers 1 every call");
        game.apply(&chosen, &mut ()).unwrap();
    }
}

// ----- 12. errors in targets and playable fail loudly -----

#[test]
fn a_failing_targets_function_is_reported_by_the_listing() {
    let mut game = two_turns(&["targets-error.lua"]);
    let listing = game.moves();
    let legal = listing.to_vec();
    assert!(!legal.iter().any(|a| a.to_string().starts_with("play 7C")), "{legal:?}");
    let failure = listing.failure().expect("the failure is reported").to_string();
    assert!(failure.starts_with(&format!("mod {}:5: ", path("targets-error.lua"))), "{failure}");
    assert!(failure.contains("no targets today"), "{failure}");
    let before = game.clone();
    let e = game.apply(&action(&game, "play 7C table2 @Bob"), &mut ()).unwrap_err().to_string();
    assert!(e.contains("no targets today"), "{e}");
    assert!(game == before);
}

// ----- the other limits -----

#[test]
fn too_many_changes_in_one_turn() {
    misbehaves(&["changes.lua"], "changes.lua", Some(5), "more than 10000 changes in one turn");
}

#[test]
fn handlers_nested_too_deep() {
    misbehaves(&["nest.lua"], "nest.lua", Some(2), "handlers nested more than 24 deep");
}

// ----- the turn's budget -----

#[test]
fn hooks_that_together_spend_more_than_the_turn_budget() {
    let registry = load(&["turn-pool.lua"]).unwrap();
    let mut game = run(deal().game_with(registry), "play 9C").game;
    let before = game.clone();
    let act = action(&game, "play 4C");
    let e = game.apply(&act, &mut ()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("mod {}:7: ", path("turn-pool.lua"))), "{e}");
    assert!(e.contains("used up the turn's budget of 4000000 steps"), "{e}");
    assert!(game == before);
    assert_eq!(game.apply(&act, &mut ()).unwrap_err().to_string(), e);
}

// ----- the same mods through `diving check` and `diving sim` -----

/// A folder with `rules.toml` listing these mods (copied next to it) and `extra` keys.
fn ruleset_dir(files: &[&str], extra: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(path(f), dir.path().join(f)).unwrap();
    }
    let mods: Vec<String> = files.iter().map(|f| format!("\"{f}\"")).collect();
    let toml = format!("extends = \"standard\"\nname = \"hostile\"\nmods = [{}]\n{extra}", mods.join(", "));
    let file = dir.path().join("rules.toml");
    std::fs::write(&file, toml).unwrap();
    let file = file.to_string_lossy().into_owned();
    (dir, file)
}

fn check(files: &[&str]) -> (i32, String) {
    let (_dir, file) = ruleset_dir(files, "");
    let out = cli_support::diving().args(["check", &file]).output().unwrap();
    (out.status.code().expect("no signal"), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn sim(files: &[&str], args: &[&str]) -> (i32, String, String) {
    let (_dir, file) = ruleset_dir(files, "");
    let out = cli_support::diving().args(["sim", "--ruleset", &file]).args(args).output().unwrap();
    let code = out.status.code().expect("no signal");
    (code, String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn check_reports_each_hostile_mod_with_its_line() {
    for (file, line, fragment) in [
        ("lib-move.lua", 5, "budget"),
        ("pcall-errors.lua", 5, "budget"),
        ("draw-all.lua", 6, "a hand holds at most"),
        ("chatter-lines.lua", 6, "lines of narration"),
        ("forge.lua", 5, "mod other.lua:1:"),
        ("error-table.lua", 5, "error value: a table"),
        ("win-then-move.lua", 8, "it is over"),
        ("targets-error.lua", 5, "no targets today"),
    ] {
        let (code, stderr) = check(&[file]);
        assert_eq!(code, 2, "{file}: {stderr}");
        assert!(stderr.contains(&format!("/{file}:{line}: error: ")), "{file}: {stderr}");
        assert!(stderr.contains(fragment), "{file}: {stderr}");
    }
}

#[test]
fn sim_reports_each_hostile_mod_with_its_line() {
    for (file, line, fragment) in [
        ("lib-find.lua", 6, "budget"),
        ("pcall-memory.lua", 8, "memory"),
        ("forge.lua", 5, "mod other.lua:1:"),
        ("targets-error.lua", 5, "no targets today"),
    ] {
        let (code, _, stderr) = sim(&[file], &["--games", "4", "--players", "random,random", "--jobs", "1"]);
        assert_eq!(code, 1, "{file}: {stderr}");
        let at = if line == 0 { format!("{file}: ") } else { format!("{file}:{line}: ") };
        assert!(stderr.contains(&at), "{file}: {stderr}");
        assert!(stderr.contains(fragment), "{file}: {stderr}");
    }
}

#[test]
fn sim_totals_with_a_counting_mod_do_not_depend_on_jobs() {
    let args = ["--games", "600", "--players", "greedy,random", "--seed", "9", "--json"];
    let (_, one, e1) = sim(&["counter.lua"], &[&args[..], &["--jobs", "1"]].concat());
    let (_, two, e2) = sim(&["counter.lua"], &[&args[..], &["--jobs", "2"]].concat());
    let results = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text).unwrap_or_else(|e| panic!("{e}: {text} {e1} {e2}"))["results"]
            .clone()
    };
    assert_eq!(results(&one), results(&two));
}

#[test]
fn the_reproduce_command_reproduces_a_counting_mod_failure() {
    let (dir, file) = ruleset_dir(&["counter-fail.lua"], "");
    let out = cli_support::diving()
        .args([
            "sim",
            "--ruleset",
            &file,
            "--games",
            "2000",
            "--players",
            "random,random",
            "--jobs",
            "2",
            "--seed",
            "4",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains("the 400th five"), "{stderr}");
    let command = stderr.lines().find_map(|l| l.strip_prefix("reproduce it with: diving ")).expect("a command");
    let mut words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    // The ruleset is named by its name in the command; run it with the file.
    if let Some(i) = words.iter().position(|w| w == "--ruleset") {
        words.drain(i..i + 2);
    }
    let again = cli_support::diving().args(&words).args(["--ruleset", &file]).output().unwrap();
    let again_err = String::from_utf8_lossy(&again.stderr).into_owned();
    assert_eq!(again.status.code(), Some(1), "{command}: {again_err}");
    assert!(again_err.contains("the 400th five"), "{command}: {again_err}");
    drop(dir);
}

#[test]
fn the_shells_moves_reports_a_failing_playable_function() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rules.toml"), "extends = \"standard\"\nmods = [\"broken.lua\"]\n").unwrap();
    std::fs::write(
        dir.path().join("broken.lua"),
        "diving.effect(5, {\n  playable = function(ctx, player, card)\n    error('cannot tell')\n  end,\n  resolve = function(ctx, play) ctx:discard(play.card) end,\n})\n",
    )
    .unwrap();
    let rules = dir.path().join("rules.toml");
    let output = cli_support::diving()
        .args(["--json", "--ruleset", rules.to_str().unwrap(), "play", "--seed", "1", "--players", "ann,bob"])
        .args(["--deck", &cli_support::stacked("5H 9C 9D KS QH 4C 8D 2S 6C 7C 10D JD 2C")])
        .write_stdin("moves\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let errors = cli_support::errors(&cli_support::json_lines(&output.stdout));
    assert!(errors.iter().any(|e| e.contains("broken.lua:3: ") && e.contains("cannot tell")), "{errors:?}");
}

// ----- issue 35: work the steps do not see one by one is bounded too -----

const TIME: &str = "used up its time budget of 1000 ms";

/// Runs `misbehaves` (which applies the hostile action twice) and checks it was stopped
/// within a generous bound: without the bound each attempt ran for tens of seconds or more.
fn stopped_soon(file: &str, line: u32, fragment: &str) {
    let start = std::time::Instant::now();
    misbehaves(&[file], file, Some(line), fragment);
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "{file}: two attempts took {took:?}");
}

/// `%b()` over 200k `(`: one step per start position, each scanning the rest (27.7 s before).
#[test]
fn a_balance_pattern_over_a_long_string_is_stopped_by_the_clock() {
    stopped_soon("lib-balance.lua", 7, TIME);
}

/// A 30 kB bracket class over 30 kB: charged by size up front, so it fails on steps.
#[test]
fn a_long_bracket_class_is_charged_by_its_size() {
    stopped_soon("lib-class.lua", 8, BUDGET);
}

/// `a < b` on two 4 MB strings: one step each, stopped by the clock.
#[test]
fn comparing_huge_strings_is_stopped_by_the_clock() {
    stopped_soon("vm-compare.lua", 9, TIME);
}

/// `tonumber` of a 4 MB string is charged by its size.
#[test]
fn converting_a_huge_string_is_charged_by_its_size() {
    stopped_soon("lib-tonumber.lua", 6, BUDGET);
}

/// Issue 35: a global 20,000 tables deep overflowed the stack when copied for a copy of the
/// game (exit 134, no name, in `check` and `sim` with mcts). The copy is depth-bounded
/// (`copy::MAX_DEPTH`): both end normally (`check` and `sim` would name the mod if the copy's
/// failure reached the game; `check`/`sim` exit by status, never by a signal).
#[test]
fn a_deep_global_does_not_crash_check_or_sim_with_mcts() {
    let (code, stderr) = check(&["deep-globals.lua"]);
    assert!(code == 2 && stderr.contains("deep-globals.lua"), "{code}: {stderr}");
    let (code, _, stderr) = sim(&["deep-globals.lua"], &["--games", "1", "--players", "mcts,greedy"]);
    assert!(code == 0 || stderr.contains("deep-globals.lua"), "{code}: {stderr}");
}

/// Issue 35, item 2: copying the deep global fails, and `check` says so naming the mod and the
/// global (it said ok: the copies a search made failed quietly, taken for poor moves).
#[test]
fn check_names_a_mod_whose_globals_cannot_be_copied() {
    let (code, stderr) = check(&["deep-globals.lua"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("/deep-globals.lua: error: its globals could not be copied"), "{stderr}");
    assert!(stderr.contains("the global `deep` holds tables nested more than 200 deep"), "{stderr}");
}

// ----- issue 35, item 4: copies and searches are budgeted -----

/// The total playouts of a search bot's move (`mcts:ITERATIONS`, with a budget of `steps`),
/// and the steps it spent, on turn 1 of the deal with `files` loaded; or the failure the
/// search reported, with the steps spent (a move a mod fails on in the copies is the mod's
/// failure, issue 43).
fn search(files: &[&str], iterations: u32, steps: u64) -> Result<(u32, u64), (String, u64)> {
    let registry = load(files).unwrap_or_else(|e| panic!("{e}"));
    let game = deal().game_with(registry);
    let before = steps_spent();
    let params = Params { steps, ..Params::with_iterations(iterations) };
    assert_eq!(Params::with_iterations(iterations).steps, SEARCH_STEPS, "the default budget");
    match MctsBot::with_params(params, 1).estimates(&View::new(&game, 0), &[]) {
        Ok(estimates) => Ok((estimates.iter().map(|e| e.playouts).sum(), steps_spent() - before)),
        Err(e) => Err((e.to_string(), steps_spent() - before)),
    }
}

/// A copy of the game copies the mods' globals, and is charged for it: 200,000 small tables
/// cost at least a step each.
#[test]
fn copying_200k_small_tables_is_charged() {
    let registry = load(&["heavy-globals.lua"]).unwrap_or_else(|e| panic!("{e}"));
    let game = deal().game_with(registry);
    let before = steps_spent();
    let copy = game.clone();
    let spent = steps_spent() - before;
    assert!(spent >= 200_000, "the copy was charged {spent} steps");
    assert_eq!(copy, game);
    // Each copy, the next ones too.
    let before = steps_spent();
    let (second, third) = (game.clone(), diving::core::View::new(&game, 0).sample(4));
    let spent = steps_spent() - before;
    assert!(spent >= 400_000, "two more copies were charged {spent} steps");
    drop((second, third));
}

/// A search with a mod holding 200,000 small tables: each playout's sample copies them (at
/// 400,000 steps or more), so the search stops at its budget, after a few of its 200
/// playouts (each move took 3.9 s before). With a budget of 3M steps here (the default's 16M
/// makes the test slow: each copy is 200,000 tables): at most ten playouts. The copies are made,
/// too: a copy's state held its old globals and the new ones at once, and ran out of memory.
#[test]
fn a_search_over_200k_small_tables_stops_at_its_budget() {
    match search(&["heavy-globals.lua"], 200, 3_000_000) {
        Ok((playouts, spent)) => {
            assert!((1..=10).contains(&playouts), "{playouts} playouts, {spent} steps");
            assert!((3_000_000..4_000_000).contains(&spent), "{spent} steps: the copies were made and charged");
        }
        // The copies hold so much that the mod's card fails in them: reported, naming the
        // mod, within the budget (issue 43: never taken in silence for a poor move).
        Err((message, spent)) => {
            assert!(message.contains("heavy-globals.lua") && message.contains("memory"), "{message}");
            assert!(spent < 4_000_000, "{spent} steps");
        }
    }
}

/// Hooks that burn 850,000 steps every turn: a `mcts:20` move took 39 s. The search now
/// stops at its budget of steps: a few playouts, the last cut short.
#[test]
fn a_search_with_a_hook_burning_850k_steps_a_turn_stops_at_its_budget() {
    let (playouts, spent) = search(&["burn-hook.lua"], 20, SEARCH_STEPS).unwrap_or_else(|(e, _)| panic!("{e}"));
    assert!((1..20).contains(&playouts), "{playouts} playouts");
    assert!(spent < SEARCH_STEPS + 2_000_000, "{spent} steps");
    // Without mods the budget is never reached: every playout is played.
    assert_eq!(search(&[], 20, SEARCH_STEPS).map(|(playouts, _)| playouts), Ok(20));
}

// ----- issue 35, item 3: the same seed gives the same game -----

/// `pairs` over table keys gave them in address order: three runs of one seeded `sim` gave
/// three reports. Now `pairs` stops at such a key, naming the line, the same way every run.
#[test]
fn three_runs_of_a_seeded_sim_over_table_keys_give_one_report() {
    let args = ["--games", "20", "--players", "random,random", "--seed", "3", "--jobs", "1"];
    let runs: Vec<(i32, String, String)> = (0..3).map(|_| sim(&["address-order.lua"], &args)).collect();
    let (code, _, stderr) = &runs[0];
    assert_eq!(*code, 1, "{stderr}");
    assert!(stderr.contains("address-order.lua:9: "), "{stderr}");
    assert!(stderr.contains("pairs or next reached a key that is a table"), "{stderr}");
    for run in &runs[1..] {
        // The temporary folder's name differs from run to run; what is reported does not.
        let strip = |s: &str| s.lines().map(|l| l.rsplit('/').next().unwrap_or(l).to_string()).collect::<Vec<_>>();
        assert_eq!((run.0, strip(&run.1), strip(&run.2)), (runs[0].0, strip(&runs[0].1), strip(&runs[0].2)));
    }
}

/// `tostring({})` wrote an address into the narration, which a save's step hashes cover: the
/// game's own save did not load in another process. Tables are now written `table #1`.
#[test]
fn a_save_of_a_game_that_writes_tables_loads_in_another_process() {
    let (dir, rules) = ruleset_dir(&["tostring-table.lua"], "");
    let save = dir.path().join("game.json");
    let play = |stdin: String, args: &[&str]| {
        let out =
            cli_support::diving().args(["--json", "--ruleset", &rules]).args(args).write_stdin(stdin).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        cli_support::json_lines(&out.stdout)
    };
    let deck = cli_support::stacked("5H 9C 9D KS QH 4C 8D 2S 6C 7C 10D JD 2C");
    let first = play(
        format!("play 5H\nsave {}\n", save.display()),
        &["play", "--seed", "1", "--players", "ann,bob", "--deck", &deck],
    );
    let said: Vec<&str> = first.iter().filter(|l| l["event"] == "said").filter_map(|l| l["text"].as_str()).collect();
    assert!(said.contains(&"kept table #1 and made table #2 and table #3"), "{first:?}");
    let loaded = play("state\n".into(), &["--load", save.to_str().unwrap()]);
    assert_eq!(loaded[0]["event"], "resumed", "{loaded:?}");
}

/// `check` plays a smoke game twice side by side and names the mod when they go apart: a
/// generalized `for k, v in t` over table keys, which `pairs` and `next` do not see.
#[test]
fn check_finds_a_mod_whose_game_depends_on_addresses() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("rules.toml"),
        "extends = \"standard\"\nname = \"addresses\"\nmods = [\"iter.lua\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("iter.lua"),
        "local order = {}\nfor i = 1, 64 do order[{}] = i end\n\
         diving.on_turn_start(function(ctx, player)\n  for k, v in order do ctx:say('first ' .. v) break end\nend)\n",
    )
    .unwrap();
    let rules = dir.path().join("rules.toml");
    let out = cli_support::diving().args(["check", rules.to_str().unwrap(), "--games", "0"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("iter.lua: error: the same seeded game went differently"), "{stderr}");
}

// ----- issue 35, item 5: the smaller ones -----

/// `/proc/self/environ` says it is a regular file (of size 0): it was read, and the error
/// quoted the environment. It is refused before it is read.
#[test]
fn a_kernel_file_is_refused_without_quoting_it() {
    let out =
        cli_support::diving().args(["check", "/proc/self/environ"]).env("DIVING_SECRET", "hunter2").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a regular file (it is a file the kernel makes up as it is read"), "{stderr}");
    assert!(!stderr.contains("DIVING_SECRET") && !stderr.contains("hunter2"), "{stderr}");
}

/// `save NAME` echoed the name raw (`saved to \e[31mred…`, U+202E) while the error paths
/// escaped it.
#[test]
fn the_save_echo_escapes_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let name = dir.path().join("\u{1b}[31mred\u{202e}.json");
    let out = cli_support::diving()
        .args(["play", "--seed", "1", "--players", "ann,bob", "--no-color"])
        .write_stdin(format!("save {}\n", name.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(name.exists(), "{stdout}");
    let echo = stdout.lines().find(|l| l.contains("saved to")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(!echo.contains('\u{1b}') && !echo.contains('\u{202e}'), "{echo:?}");
    assert!(echo.contains("red"), "{echo:?}");
}

/// A mod listed as `victim.lua:7: x/evil.lua` made `check` print `victim.lua:7: error: …`
/// and JSON `"file":"victim.lua","line":7`. Such a name is refused, at its place in the
/// ruleset.
#[test]
fn a_mod_name_that_reads_as_another_files_line_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("victim.lua:7: x")).unwrap();
    std::fs::write(dir.path().join("victim.lua:7: x/evil.lua"), "error('boom')\n").unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(&rules, "extends = \"standard\"\nmods = [\"victim.lua:7: x/evil.lua\"]\n").unwrap();
    let out = cli_support::diving().args(["check", "--json", rules.to_str().unwrap()]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("may not hold ':'"), "{text}");
    assert!(!text.contains("\"file\":\"victim.lua\""), "{text}");
}
