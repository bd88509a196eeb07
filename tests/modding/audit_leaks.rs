//! Issue 43's outside audit: hostile mods that tried to tell a seat a hidden card through text
//! a mod can make reach it, each contained here. Where it can, a test plays the same hostile
//! mod over games that differ only in cards hidden from the reader, and checks that the
//! reader's text does not depend on them (non-interference), rather than searching the text
//! for one card.

use crate::mod_secrets::ruleset_with;
use diving::core::Viewer;
use diving::table::command::{Caller, Policy, Reply, Table};
use diving::table::reply::Look;
use diving::table::session::{Seating, Session};

fn hosted(spec: &str, seed: u64) -> Table {
    let seats = ["ann", "bob"].iter().map(|n| Seating { name: n.to_string(), bot: None }).collect();
    Table::new(Session::new(spec, seats, seed, None).unwrap(), Policy::network(true, 200))
}

fn read(table: &Table, replies: &[Reply], viewer: Viewer) -> String {
    replies.iter().flat_map(|r| table.render(r, viewer, &Look::SCRIPT).text).collect::<Vec<_>>().join("\n")
}

/// Ann plays her first number card (she draws one); bob then types `line`. What bob reads.
fn bob_reads_after(spec: &str, seed: u64, bob_line: &str) -> (String, String) {
    let mut table = hosted(spec, seed);
    let mut out = Vec::new();
    table.start(&mut out);
    let game = table.session().game();
    let card = game.player(0).hand.iter().find(|c| c.rank.is_number()).copied().unwrap();
    let mut replies = Vec::new();
    table.line(Caller::Seat(0), &format!("play {card}"), &mut replies);
    let drawn = table.session().game().player(0).hand.last().unwrap().to_string();
    let mut replies2 = Vec::new();
    table.line(Caller::Seat(1), bob_line, &mut replies2);
    let seen = read(&table, &replies, Viewer::Seat(1)) + "\n" + &read(&table, &replies2, Viewer::Seat(1));
    (drawn, seen)
}

/// What bob reads, with ann's card named and the game's own numbers put aside, must be the
/// same whatever ann drew: it may differ only by what bob may see.
fn assert_bob_learns_nothing(spec: &str, bob_line: &str) {
    let mut by_text: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for seed in 0..16 {
        let (drawn, seen) = bob_reads_after(spec, seed, bob_line);
        // Only the mod's lines: everything else is the core's and depends on the seed.
        let mods: Vec<&str> = seen.lines().filter(|l| l.contains("mod ") || l.contains("says")).collect();
        by_text.entry(mods.join("\n")).or_default().push(drawn);
    }
    assert_eq!(by_text.len(), 1, "bob's text depends on the card ann drew: {by_text:#?}");
}

/// The line a mod fails at is its choice: a hostile mod fails at a line chosen by the card ann
/// drew, when bob takes its action.
#[test]
fn the_line_a_mod_fails_at_does_not_tell_a_hidden_card() {
    let mut code = String::from(
        "local last = 0\ndiving.on_draw(function(ctx, player, card)\n  if player == 1 then last = tonumber(string.match(card, '^(%d+)')) or 1 end\nend)\n",
    );
    code += "diving.action('peek', { describe = 'peek: nothing to see', resolve = function(ctx, args)\n";
    for r in 1..=10 {
        code += &format!("  if last == {r} then error('x') end\n");
    }
    code += "end })\n";
    let (_dir, spec) = ruleset_with(&[("line.lua", &code)]);
    assert_bob_learns_nothing(&spec, "peek");
}

/// How many lines a mod says is its choice: said while it knows ann's drawn card, each line
/// reaches bob as a neutral one, one for one.
#[test]
fn how_many_lines_a_mod_says_does_not_tell_a_hidden_card() {
    let code = "diving.on_draw(function(ctx, player, card)\n  local r = tonumber(string.match(card, '^(%d+)')) or 1\n  for i = 1, r do ctx:say('.') end\nend)\n";
    let (_dir, spec) = ruleset_with(&[("count.lua", code)]);
    assert_bob_learns_nothing(&spec, "moves");
}

/// `ctx:reveal` of a card a hand does not hold fails: caught with `pcall`, a miss tells the
/// mod what bob does not hold, and it says so to ann.
#[test]
fn a_reveal_that_misses_is_a_probe_of_the_hand() {
    let code = r#"diving.on_turn_start(function(ctx, player)
  if player ~= 1 then return end
  for _, c in ipairs({ "KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC" }) do
    if ctx:hand_size(2) > 0 and not pcall(function() ctx:reveal(2, c) end) then
      ctx:say("bob lacks " .. c)
    end
  end
end)
"#;
    let (_dir, spec) = ruleset_with(&[("miss.lua", code)]);
    for seed in 0..8 {
        let mut table = hosted(&spec, seed);
        let mut out = Vec::new();
        table.start(&mut out);
        let ann = read(&table, &out, Viewer::Seat(0));
        assert!(!ann.contains("lacks"), "seed {seed}: ann reads what bob does not hold:\n{ann}");
    }
}

/// Uncaught, the miss fails the move with a message that names the hand: at ann's turn start
/// (in bob's move), bob would read what ann does not hold.
#[test]
fn a_reveal_that_misses_fails_without_telling_the_hand() {
    let code = r#"diving.on_turn_start(function(ctx, player)
  if player == 1 and ctx:turn() > 1 then ctx:reveal(1, "KS") end
end)
"#;
    let (_dir, spec) = ruleset_with(&[("miss.lua", code)]);
    let mut told = 0;
    for seed in 0..8 {
        let mut table = hosted(&spec, seed);
        let mut out = Vec::new();
        table.start(&mut out);
        let card = table.session().game().player(0).hand.iter().find(|c| c.rank.is_number()).copied().unwrap();
        table.line(Caller::Seat(0), &format!("play {card}"), &mut out);
        if table.session().game().player(0).hand.contains(&"KS".parse().unwrap()) {
            continue;
        }
        let card = table.session().game().player(1).hand.iter().find(|c| c.rank.is_number()).copied().unwrap();
        let mut replies = Vec::new();
        table.line(Caller::Seat(1), &format!("play {card}"), &mut replies);
        let bob = read(&table, &replies, Viewer::Seat(1));
        assert!(bob.contains("miss.lua"), "the move failed: {bob}");
        told += 1;
        assert!(!bob.contains("not in ann's hand"), "seed {seed}: bob reads what ann does not hold:\n{bob}");
    }
    assert!(told > 0);
}

/// A card a handler takes from the mover's hand and leaves in play fails the move, and the
/// failure names the card: at ann's turn start (in bob's move), bob would read ann's card.
#[test]
fn a_card_left_in_play_is_not_named_to_another_seat() {
    let code = r#"diving.on_turn_start(function(ctx, player)
  if player == 1 and ctx:turn() > 1 then ctx:take_hand(ctx:hand(1)[1]) end
end)
"#;
    let (_dir, spec) = ruleset_with(&[("loose.lua", code)]);
    for seed in 0..4 {
        let mut table = hosted(&spec, seed);
        let mut out = Vec::new();
        table.start(&mut out);
        let card = table.session().game().player(0).hand.iter().find(|c| c.rank.is_number()).copied().unwrap();
        table.line(Caller::Seat(0), &format!("play {card}"), &mut out);
        let ann = table.session().game().player(0).hand[0].to_string();
        let card = table.session().game().player(1).hand.iter().find(|c| c.rank.is_number()).copied().unwrap();
        let mut replies = Vec::new();
        table.line(Caller::Seat(1), &format!("play {card}"), &mut replies);
        let bob = read(&table, &replies, Viewer::Seat(1));
        assert!(!bob.contains(&ann), "seed {seed}: bob reads ann's {ann}:\n{bob}");
    }
}

/// What bob reads when he lists his moves with their previews (each worked out on a copy of the
/// game, which copies the mods' globals), after ann drew.
fn bob_previews(spec: &str, seed: u64) -> (String, String) {
    let mut table = hosted(spec, seed);
    let mut out = Vec::new();
    table.start(&mut out);
    let card = table.session().game().player(0).hand.iter().find(|c| c.rank.is_number()).copied().unwrap();
    table.line(Caller::Seat(0), &format!("play {card}"), &mut out);
    let drawn = table.session().game().player(0).hand.last().unwrap().to_string();
    // The previews a mod fails on, each once (the others depend on the deal).
    let mut failed: Vec<String> = table
        .listed(Caller::Seat(1))
        .iter()
        .map(|action| {
            let previewed = table.session().preview(action);
            diving::table::render::preview_outcome(table.game(), &previewed, Viewer::Seat(1))
        })
        .filter(|text| text.contains("a mod fails"))
        .collect();
    failed.dedup();
    (drawn, failed.join("\n"))
}

/// Which global holds what is the mod's to choose: a table too deep to copy, kept in the
/// global `g4` when ann drew a 4, fails every copy of the game (each preview of bob's moves)
/// with a message that names the global.
#[test]
fn the_global_a_copy_fails_on_does_not_tell_a_hidden_card() {
    let mut code = String::from(
        "diving.on_draw(function(ctx, player, card)\n  if player ~= 1 then return end\n  local r = tonumber(string.match(card, '^(%d+)')) or 1\n  local t = {}\n  for i = 1, 250 do t = { t } end\n",
    );
    for r in 1..=10 {
        code += &format!("  if r == {r} then g{r} = t end\n");
    }
    code += "end)\n";
    let (_dir, spec) = ruleset_with(&[("name.lua", &code)]);
    let mut by_text: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for seed in 0..8 {
        let (drawn, seen) = bob_previews(&spec, seed);
        assert!(seen.contains("a mod fails on it: mod "), "the copy failed: {seen}");
        by_text.entry(seen).or_default().push(drawn);
    }
    assert_eq!(by_text.len(), 1, "bob's previews depend on the card ann drew: {by_text:#?}");
}

/// Ann (seat 0, playing the line `ann_plays` picks, until it picks none) against bot `bot`
/// (bob), for up to `turns` turns of the game dealt with `seed`: after each of ann's lines,
/// what she read then and bob's hand before it.
fn ann_against_a_bot(
    spec: &str,
    bot: &str,
    seed: u64,
    turns: usize,
    ann_plays: impl Fn(&Table) -> Option<String>,
) -> Vec<(String, Vec<String>)> {
    let seats = vec![Seating { name: "ann".into(), bot: None }, Seating { name: "bob".into(), bot: Some(bot.into()) }];
    let mut table = Table::new(Session::new(spec, seats, seed, None).unwrap(), Policy::network(true, 200));
    let mut out = Vec::new();
    table.start(&mut out);
    let mut read_by_ann = Vec::new();
    for _ in 0..turns {
        if table.game().is_over() {
            break;
        }
        if table.game().current() != 0 {
            table.run_bots(&mut out);
            continue;
        }
        let Some(line) = ann_plays(&table) else { break };
        let bob: Vec<String> = table.game().player(1).hand.iter().map(ToString::to_string).collect();
        let mut replies = Vec::new();
        table.line(Caller::Seat(0), &line, &mut replies);
        read_by_ann.push((read(&table, &replies, Viewer::Seat(0)), bob));
    }
    read_by_ann
}

/// A mod that fails on one card (a buggy 9, not even hostile): when a bot weighs playing it,
/// every reader is told the failure, "on 'play 9H', while bot greedy weighed it for bob" —
/// which names a card of the bot's hand to ann.
#[test]
fn a_failure_found_by_a_bot_weighing_its_moves_does_not_name_its_card() {
    let code = "diving.wrap(9, function(ctx, play, previous) error('nine fails') end)\n";
    let (_dir, spec) = ruleset_with(&[("nine.lua", code)]);
    let mut found = 0;
    for seed in 0..12 {
        let ann_plays = |table: &Table| {
            let hand = &table.game().player(0).hand;
            Some(match hand.iter().find(|c| c.rank.is_number() && c.rank.number() != 9) {
                Some(card) => format!("play {card}"),
                None => format!("recover {}", hand[0]),
            })
        };
        for (ann, bob) in ann_against_a_bot(&spec, "greedy", seed, 10, ann_plays) {
            // The move the bot plays instead is seen by all; the one it weighed is not.
            for told in ann.lines().filter(|l| l.contains("a mod failed on") || l.contains("which a mod failed on")) {
                found += 1;
                for c in &bob {
                    assert!(!told.contains(c.as_str()), "seed {seed}: ann reads bob's {c}: {told}");
                }
            }
        }
    }
    assert!(found > 0, "a bot weighed a 9 in some game");
}

/// One budget per decision, and a second mod to say it: the mod that knows ann's card spends
/// as much of bob's listing as the card's pips (kept under the budget), and another mod,
/// which knows nothing, spends the rest and fails; its failure said how much the first had
/// spent. (Which of the two runs the budget out stays a visible consequence, as whether a
/// move is legal is: one bit, not the card.)
#[test]
fn what_a_decision_had_left_does_not_tell_a_hidden_card() {
    let mut knows = String::from(
        "local r = 0\ndiving.on_draw(function(ctx, player, card)\n  if player == 1 then r = tonumber(string.match(card, '^(%d+)')) or 1 end\nend)\n",
    );
    for i in 0..11 {
        knows += &format!(
            "diving.action('a{i}', {{ describe = 'a', resolve = function() end, legal = function(ctx, args)\n  for i = 1, 84 + r % 5 do pcall(error, 'x') end\n  return true\nend }})\n"
        );
    }
    let burns = "diving.action('burn', { describe = 'b', resolve = function() end, legal = function(ctx, args)\n  while true do end\nend })\n";
    let (_dir, spec) = ruleset_with(&[("knows.lua", &knows), ("burns.lua", burns)]);
    assert_bob_learns_nothing(&spec, "moves");
}

/// Whether a mod's words are held back is decided by what it knows, and a filter evaluated on a
/// hidden card would tell it something: a mod told only of the low cards drawn (`on_draw` with
/// `ranks`) would know something of ann's hand exactly when she drew one, so a line it says at
/// every turn start was read by bob, or held back from him, by the rank of ann's card. The rule
/// now: the engine shows each card of those ranks to the table before the handler runs, so bob
/// reads that reveal exactly when ann drew a low card (what the filter makes public), and the
/// line the same way whatever she drew.
#[test]
fn whether_a_line_is_held_back_does_not_tell_a_hidden_card() {
    let code = "diving.on_draw(function(ctx, player, card) end, { ranks = { 1, 2, 3, 4, 5 } })\n\
                diving.on_turn_start(function(ctx, player)\n  ctx:say('mod hello')\nend)\n";
    let (_dir, spec) = ruleset_with(&[("label.lua", code)]);
    assert_bob_learns_nothing(&spec, "moves");
    let mut drew = [0, 0];
    for seed in 0..16 {
        let (drawn, seen) = bob_reads_after(&spec, seed, "moves");
        assert!(seen.contains("mod hello"), "seed {seed}: bob reads the line whole:\n{seen}");
        let low = drawn.parse::<diving::core::Card>().unwrap().rank.number() <= 5;
        let shown = seen.lines().any(|l| l.contains("label shows the table ann's") && l.contains(&drawn));
        assert_eq!(shown, low, "seed {seed}: ann drew {drawn}, and bob reads:\n{seen}");
        drew[usize::from(low)] += 1;
    }
    assert!(drew[0] > 0 && drew[1] > 0, "ann drew low and high cards: {drew:?}");
}

/// A mod whose `playable` answers otherwise when asked again (it counts its calls in a table of
/// its globals, which listing the moves does not stop) offers a bot a play that the game then
/// refuses. The warning that the bot chose a refused move, told to every reader, named it:
/// "bot bob chose 'play 7H', which is refused: …", a card of bob's hand, to ann.
#[test]
fn a_bots_refused_choice_does_not_name_its_card() {
    let code = "asked = { n = 0 }\nfor rank = 1, 10 do\n  diving.effect(rank, {\n    playable = function(ctx, \
                player, card)\n      asked.n = asked.n + 1\n      if asked.n % 2 == 0 then return false, 'not now' end\n      \
                return true\n    end,\n    resolve = function(ctx, play, previous) previous(ctx, play) end,\n  })\nend\n";
    let (_dir, spec) = ruleset_with(&[("fickle.lua", code)]);
    let mut warned = 0;
    for seed in 0..8 {
        let ann_plays = |table: &Table| {
            let listed = table.listed(Caller::Seat(0));
            listed.first().map(|action| diving::table::render::command_for(table.game(), action))
        };
        for (ann, bob) in ann_against_a_bot(&spec, "random", seed, 12, ann_plays) {
            for told in ann.lines().filter(|l| l.contains("which is refused")) {
                // The move the bot plays instead is seen by all; the one it chose is not.
                let told = told.split("; it plays").next().unwrap_or(told);
                warned += 1;
                for c in &bob {
                    assert!(!told.contains(c.as_str()), "seed {seed}: ann reads bob's {c}: {told}");
                }
            }
        }
    }
    assert!(warned > 0, "the bot chose a refused play in some game");
}
