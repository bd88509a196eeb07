//! Issue 43: a mod's words obey what a seat may see. What a mod is told of hidden cards (the
//! mover's hand, a card drawn, a probe of a hand, a card it is asked about) is knowledge it
//! holds until those cards are visible; its narration, its refusal reasons and its error
//! messages reach a reader only if that reader may see every hidden card the mod knows. A rule
//! that must tell the table something hidden reveals it (`ctx:reveal`), which every seat sees.
//!
//! Each hostile case the outside review found is played here through the table every front
//! end shares (the hosted seat, the browser seat and the terminal read what the table renders
//! for their viewer), and the many-games test checks, at every viewer, that no mod line a
//! viewer may read names a card hidden from it at that moment.

use crate::common;

use diving::core::knowledge::WITHHELD;
use diving::core::{Card, Event, Game, Secret, Seen, Setup, Viewer};
use diving::ruleset::Ruleset;
use diving::table::command::{Caller, Policy, Reply, Table};
use diving::table::reply::Look;
use diving::table::session::{Seating, Session};

/// A ruleset of the standard rules with `mods` (name, code), written to a fresh folder.
pub(crate) fn ruleset_with(mods: &[(&str, &str)]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = mods.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    for (name, code) in mods {
        std::fs::write(dir.path().join(name), code).unwrap();
    }
    let toml = format!("extends = \"standard\"\nmods = [{}]\n", names.join(", "));
    let path = dir.path().join("house.toml");
    std::fs::write(&path, toml).unwrap();
    let spec = path.display().to_string();
    (dir, spec)
}

fn game_of(spec: &str, players: usize, seed: u64) -> Game {
    let ruleset = Ruleset::load(spec).unwrap_or_else(|e| panic!("{e}"));
    let names = ["ann", "bob", "cy", "di"][..players].iter().map(|n| n.to_string()).collect();
    Game::new(ruleset.rules.clone(), ruleset.registry().unwrap(), Setup { names, seed, deck: None }).unwrap()
}

/// A hosted table of two people, ann and bob (the network policy: each reads as its seat).
fn hosted(spec: &str, seed: u64) -> Table {
    let seats = ["ann", "bob"].iter().map(|n| Seating { name: n.to_string(), bot: None }).collect();
    Table::new(Session::new(spec, seats, seed, None).unwrap(), Policy::network(true, 200))
}

/// What `viewer` reads of `replies`, as plain text.
fn read(table: &Table, replies: &[Reply], viewer: Viewer) -> String {
    replies.iter().flat_map(|r| table.render(r, viewer, &Look::SCRIPT).text).collect::<Vec<_>>().join("\n")
}

/// Plays the first listed number card of the mover (for `caller`), returning the replies.
fn play_a_number(table: &mut Table) -> Vec<Reply> {
    let game = table.session().game();
    let card = game.player(game.current()).hand.iter().find(|c| c.rank.is_number()).copied();
    let line = match card {
        Some(card) => format!("play {card}"),
        None => format!("recover {}", game.player(game.current()).hand[0]),
    };
    let caller = Caller::Seat(game.current());
    let mut replies = Vec::new();
    table.line(caller, &line, &mut replies);
    replies
}

fn hand_text(game: &Game, seat: usize) -> String {
    game.player(seat).hand.iter().map(Card::to_string).collect::<Vec<_>>().join(" ")
}

/// Four lines of Lua: the mover's hand said at each turn start. The mover reads it; the
/// other seat and a spectator read that the mod said something. From the second turn the mod
/// knows both hands, and nobody at the table reads it (the host's log does).
#[test]
fn a_hand_said_at_a_turn_start_is_read_by_its_owner_only() {
    let (_dir, spec) = ruleset_with(&[(
        "tell.lua",
        "diving.on_turn_start(function(ctx, player)\n  ctx:say(\"seat \" .. player .. \" holds \" .. table.concat(ctx:hand(player), \" \"))\nend)\n",
    )]);
    let mut table = hosted(&spec, 11);
    let hand = hand_text(table.session().game(), 0);
    let mut opening = Vec::new();
    table.start(&mut opening);
    let ann = read(&table, &opening, Viewer::Seat(0));
    assert!(ann.contains(&format!("seat 1 holds {hand}")), "ann reads her own hand:\n{ann}");
    for viewer in [Viewer::Seat(1), Viewer::Spectator] {
        let text = read(&table, &opening, viewer);
        assert!(!text.contains("holds"), "{viewer:?} read the hand:\n{text}");
        assert!(text.contains("(tell says something that may tell of cards you cannot see)"), "{viewer:?}:\n{text}");
    }
    let replies = play_a_number(&mut table);
    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let text = read(&table, &replies, viewer);
        assert!(!text.contains("holds"), "{viewer:?} read a line telling of both hands:\n{text}");
    }
    assert!(read(&table, &replies, Viewer::Everyone).contains("seat 2 holds"));
}

/// The card an `on_draw` handler is told, said aloud: the drawer reads it, nobody else.
#[test]
fn a_drawn_card_said_aloud_is_read_by_the_drawer_only() {
    let (_dir, spec) = ruleset_with(&[(
        "drew.lua",
        "diving.on_draw(function(ctx, player, card)\n  ctx:say(\"seat \" .. player .. \" drew \" .. card)\nend)\n",
    )]);
    let mut table = hosted(&spec, 3);
    let replies = play_a_number(&mut table);
    let drawn = table.session().game().player(0).hand.last().copied().unwrap();
    let ann = read(&table, &replies, Viewer::Seat(0));
    assert!(ann.contains(&format!("seat 1 drew {drawn}")), "ann reads her own draw:\n{ann}");
    let bob = read(&table, &replies, Viewer::Seat(1));
    assert!(!bob.contains(&drawn.to_string()), "bob read ann's draw:\n{bob}");
    assert!(bob.contains("(drew says something"), "{bob}");
}

/// A hand kept in a global and given back later as an action's refusal reason: the other seat
/// that types the action reads a neutral reason, not the cards.
#[test]
fn a_hand_kept_in_a_global_is_not_read_by_another_seat_in_a_refusal_reason() {
    let (_dir, spec) = ruleset_with(&[(
        "keep.lua",
        r#"local kept = ""
diving.on_turn_start(function(ctx, player)
  if player == 1 then kept = table.concat(ctx:hand(1), " ") end
end)
diving.action("peek", {
  legal = function(ctx, args) return false, "seat 1 held " .. kept end,
  resolve = function(ctx, args) end,
})
"#,
    )]);
    let mut table = hosted(&spec, 5);
    let ann_hand = hand_text(table.session().game(), 0);
    play_a_number(&mut table);
    let mut replies = Vec::new();
    table.line(Caller::Seat(1), "peek", &mut replies);
    let bob = read(&table, &replies, Viewer::Seat(1));
    assert!(!bob.contains(&ann_hand) && !bob.contains("held"), "bob read ann's hand:\n{bob}");
    assert!(bob.contains(WITHHELD), "{bob}");
    // Ann, on her turn, reads the mod's reason: her hand then is what the mod knows.
    play_a_number(&mut table);
    let mut replies = Vec::new();
    table.line(Caller::Seat(0), "peek", &mut replies);
    let ann = read(&table, &replies, Viewer::Seat(0));
    assert!(ann.contains("seat 1 held"), "ann reads the mod's reason about her own hand:\n{ann}");
}

/// `ctx:take_hand` on guessed cards, the hits said aloud: a probe tells of the hand, so the
/// other seat reads nothing of it.
#[test]
fn probing_a_hand_for_cards_is_knowing_it() {
    let (_dir, spec) = ruleset_with(&[(
        "probe.lua",
        r#"diving.on_turn_start(function(ctx, player)
  for _, c in ipairs({ "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "AH", "2H", "3H", "4H", "5H" }) do
    if ctx:take_hand(c) then
      ctx:say("seat " .. player .. " had " .. c)
      ctx:discard(c)
      ctx:draw(player)
      return
    end
  end
end)
"#,
    )]);
    let mut hits = 0;
    for seed in 0..20 {
        let mut table = hosted(&spec, seed);
        let mut opening = Vec::new();
        table.start(&mut opening);
        let ann = read(&table, &opening, Viewer::Seat(0));
        let bob = read(&table, &opening, Viewer::Seat(1));
        assert!(!bob.contains("seat 1 had"), "seed {seed}: bob read ann's probed card:\n{bob}");
        if ann.contains("seat 1 had") {
            hits += 1;
            assert!(bob.contains("(probe says something"), "{bob}");
        }
    }
    assert!(hits > 0, "in 20 games a probe found a card in ann's hand at least once");
}

/// What a mod knew stops being a secret once the cards are visible: a mod that read ann's
/// first hand is read by everyone once ann has discarded all of it.
#[test]
fn knowledge_ends_when_the_card_is_seen() {
    let (_dir, spec) = ruleset_with(&[(
        "late.lua",
        r#"local first = nil
diving.on_turn_start(function(ctx, player)
  if first == nil then first = table.concat(ctx:hand(player), " ") end
end)
diving.on_turn_end(function(ctx, player)
  ctx:say("ann's first hand was " .. first)
end)
"#,
    )]);
    let mut game = game_of(&spec, 2, 9);
    let said = |events: &[Event]| {
        events.iter().find_map(|e| match e {
            Event::Said { words, .. } => Some(words.secret()),
            _ => None,
        })
    };
    // A card of it played: the rest is still secret.
    let card = *game.player(0).hand.iter().find(|c| c.rank.is_number()).unwrap();
    let rest: Vec<String> = game.player(0).hand.iter().filter(|&&c| c != card).map(Card::to_string).collect();
    let mut events = Vec::new();
    game.apply(&common::action(&game, &format!("play {card}")), &mut events).unwrap();
    assert_eq!(said(&events), Some(Secret::hand(0)), "ann still holds three cards the mod knows");
    // Bob moves; then ann discards the other three in one recovery: everyone saw them go.
    let bob = *game.player(1).hand.iter().find(|c| c.rank.is_number()).unwrap();
    game.apply(&common::action(&game, &format!("play {bob}")), &mut ()).unwrap();
    let mut events = Vec::new();
    game.apply(&common::action(&game, &format!("recover {}", rest.join(" "))), &mut events).unwrap();
    assert_eq!(said(&events), Some(Secret::NONE), "ann's first hand is all on the pile: {events:?}");
}

/// Sharks reveals the 7 before it bites: the bite and the revealed card are read by every seat.
/// Its rank filter shows the 7 before its handler runs, and its own `ctx:reveal` of the card
/// then shows nothing twice: each 7 drawn is followed by one reveal and the bite, as before the
/// filter showed anything.
#[test]
fn sharks_tells_every_seat_of_its_bite_through_the_reveal() {
    let spec = "rulesets/examples/sharks/ruleset.toml";
    let mut bites = 0;
    for seed in 0..40 {
        let mut game = game_of(spec, 3, seed);
        for _ in 0..60 {
            if game.is_over() {
                break;
            }
            let action = game.legal_actions()[0];
            let mut events = Vec::new();
            game.apply(&action, &mut events).unwrap();
            let revealed = events.iter().filter(|e| matches!(e, Event::Revealed { .. })).count();
            let sevens = events.iter().filter(|e| matches!(e, Event::Drew { card, .. } if card.rank.number() == 7));
            assert_eq!(revealed, sevens.count(), "seed {seed}: one reveal for each 7 drawn: {events:?}");
            for (i, e) in events.iter().enumerate() {
                if let Event::Drew { player, card } = e
                    && card.rank.number() == 7
                {
                    assert!(
                        matches!(events[i + 1..], [Event::Revealed { player: p, card: c, .. }, Event::Said { .. }, ..]
                            if p == *player && c == *card),
                        "seed {seed}: the 7 drawn, its reveal, the bite: {events:?}"
                    );
                }
                if let Event::Said { words, .. } = e {
                    assert!(words.secret().is_public(), "seed {seed}: sharks' words are public: {e:?}");
                    assert!(
                        matches!(events[..i].last(), Some(Event::Revealed { card, .. }) if card.rank.number() == 7),
                        "the reveal comes first: {events:?}"
                    );
                    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Seat(2), Viewer::Spectator] {
                        assert!(matches!(viewer.sees(e), Seen::Whole(_)), "{viewer:?} reads the bite");
                    }
                    bites += 1;
                }
            }
        }
    }
    assert!(bites > 5, "{bites} bites in 40 games");
}

/// A failing mod's message is its words too: its place is public, its message is read only by
/// those who may see what it knew.
#[test]
fn a_mods_error_message_is_held_to_what_it_knew() {
    let (_dir, spec) = ruleset_with(&[(
        "blurt.lua",
        "diving.on_turn_start(function(ctx, player)\n  if player == 2 then error(\"bob holds \" .. table.concat(ctx:hand(2), \" \")) end\nend)\n",
    )]);
    let mut game = game_of(&spec, 2, 4);
    let card = *game.player(0).hand.iter().find(|c| c.rank.is_number()).unwrap();
    let error = game.apply(&common::action(&game, &format!("play {card}")), &mut ()).unwrap_err();
    let ann = Viewer::Seat(0).error(&error);
    assert!(ann.starts_with("mod ") && ann.contains("blurt.lua: "), "the file is public: {ann}");
    assert!(!ann.contains("blurt.lua:2"), "the line it fails at is the mod's choice, held as its words: {ann}");
    assert!(!ann.contains("bob holds"), "{ann}");
    assert!(Viewer::Seat(1).error(&error).contains("bob holds"), "bob may read what tells of his hand");
    assert!(Viewer::Everyone.error(&error).contains("bob holds"), "the host's log reads everything");
}

/// Every shipped example and a hostile mod that says every hidden card it can learn, in many
/// seeded games: at every seat and for a spectator, no mod line the viewer may read names a
/// card hidden from it when the line was said, and the hostile mod's lines were held back
/// often (the test is not vacuous).
#[test]
fn no_mod_line_a_viewer_reads_names_a_card_hidden_from_it() {
    let hostile = r#"local seen = {}
diving.on_turn_start(function(ctx, player)
  local hand = ctx:hand(player)
  for _, c in ipairs(hand) do seen[#seen + 1] = c end
  ctx:say("holds " .. table.concat(hand, " "))
end)
diving.on_draw(function(ctx, player, card)
  seen[#seen + 1] = card
  ctx:say("drew " .. card .. "; all seen: " .. table.concat(seen, " ", math.max(1, #seen - 20)))
end)
"#;
    let (_dir, hostile_spec) = ruleset_with(&[("spy.lua", hostile)]);
    let mut specs: Vec<String> = std::fs::read_dir("rulesets/examples")
        .unwrap()
        .map(|d| d.unwrap().path().join("ruleset.toml").display().to_string())
        .collect();
    specs.sort();
    specs.push(hostile_spec.clone());
    let (mut read_lines, mut withheld) = (0, 0);
    for spec in &specs {
        for seed in 0..12u64 {
            let players = 2 + (seed % 3) as usize;
            let mut game = game_of(spec, players, seed);
            let mut rng = seed;
            for _ in 0..150 {
                if game.is_over() {
                    break;
                }
                let legal = game.legal_actions();
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let action = legal[(rng >> 33) as usize % legal.len()];
                let mut events = Vec::new();
                game.apply(&action, &mut events).unwrap_or_else(|e| panic!("{spec} seed {seed}: {e}"));
                // The cards hidden from each viewer now (after the action): what a line said
                // during it may not name, unless it was visible when said (a card played
                // since is on the pile: still not hidden from anyone, so no false alarm).
                for viewer in (0..players).map(Viewer::Seat).chain([Viewer::Spectator]) {
                    let hidden: Vec<Card> = (0..players)
                        .filter(|&s| !viewer.sees_hand(s))
                        .flat_map(|s| game.player(s).hand.clone())
                        .chain(game.deck())
                        .collect();
                    for e in &events {
                        match viewer.sees(e) {
                            Seen::Whole(Event::Said { words, .. }) => {
                                let text = viewer.read(words).unwrap();
                                for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
                                    if let Ok(card) = word.parse::<Card>() {
                                        assert!(
                                            !hidden.contains(&card) || shown_since(&game, card),
                                            "{spec} seed {seed}: {viewer:?} reads {card}, hidden from it, in '{text}'"
                                        );
                                    }
                                }
                                read_lines += 1;
                            }
                            Seen::Withheld { .. } => withheld += 1,
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    assert!(read_lines > 500 && withheld > 500, "{read_lines} lines read, {withheld} held back");
}

/// Whether `card` also lies face up somewhere (several decks: a copy may be both hidden and
/// seen).
fn shown_since(game: &Game, card: Card) -> bool {
    game.discard_pile().contains(&card)
        || game.table().contains(&Some(card))
        || game.players().iter().any(|p| p.front.contains(&card))
}

/// A copy of a game (a bot's look-ahead, a preview) keeps what the mods knew, by place: its
/// hidden cards are dealt otherwise, but the mods' globals still hold the real ones.
#[test]
fn a_sample_of_a_seats_view_keeps_what_the_mods_knew() {
    let (_dir, spec) = ruleset_with(&[(
        "tell.lua",
        "local kept = ''\ndiving.on_turn_start(function(ctx, player)\n  if player == 1 then kept = table.concat(ctx:hand(1), ' ') end\n  ctx:say('kept ' .. kept)\nend)\n",
    )]);
    let game = game_of(&spec, 2, 2);
    let sample = diving::core::View::new(&game, 1).sample(7);
    let mut sample = sample;
    let legal = sample.legal_actions();
    let mut events = Vec::new();
    sample.apply(&legal[0], &mut events).unwrap();
    let said = events.iter().find_map(|e| match e {
        Event::Said { words, .. } => Some(words.secret()),
        _ => None,
    });
    assert!(said.is_some_and(|s| s.hands().contains(0)), "the copy's words still tell of ann's hand: {said:?}");
}
