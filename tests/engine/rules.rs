//! Rules scenarios: one or more stacked-deck games for every decision D1–D24 and every
//! sentence of the designer's rules, each named after what it proves.
//!
//! A scenario is a [`Deal`] (D3: hands, table, discard, first deck cards; the rest filled in a
//! fixed order), a list of actions in the game's own text, and the expected state as
//! `key: value` lines (see `common::describe`). Unless a test says otherwise there are two
//! divers, Ann (seat 1) and Bob (seat 2), with the standard rules. `Deal::at` starts a diver
//! deeper, so tests near the bottom do not need twenty turns to get there.

use crate::common;

use std::sync::Arc;

use common::{Deal, assert_state, card, cards, check, play, refuse, refuse_action, run};
use diving::core::{
    Action, ActionError, Aim, Card, Effect, EffectError, Event, Game, Outcome, Play, Rank, Registry, Rules, Seats,
    Setup, SetupError, Source, full_deck, parse_cards,
};
use diving::table::json::EventJson;

fn two() -> Deal {
    Deal::new(2)
}

fn count_plays_of(game: &Game, c: Card) -> Vec<Action> {
    game.legal_actions().into_iter().filter(|a| matches!(a, Action::Play { card, .. } if *card == c)).collect()
}

// ----- D1 notation -----

#[test]
fn d1_cards_read_in_any_case_with_t_or_symbols_and_print_plainly() {
    for text in ["10H", "10h", "TH", "th", "10♥", "t♥"] {
        assert_eq!(card(text).to_string(), "10H", "{text}");
    }
    assert_eq!(card("10H").symbolic(), "10♥");
    assert_eq!(card("qs").to_string(), "QS");
    assert_eq!(card("a♣").to_string(), "AC");
    let list = parse_cards("as, 2h 10d,kc").unwrap();
    assert_eq!(list.iter().map(Card::to_string).collect::<Vec<_>>(), ["AS", "2H", "10D", "KC"]);
    for bad in ["1OH", "11S", "ZZ", "", "10"] {
        assert!(bad.parse::<Card>().is_err(), "{bad}");
    }
}

#[test]
fn d1_ranks_a_to_10_are_number_cards_and_j_q_k_face_cards() {
    let values: Vec<Option<u32>> = Rank::all().map(|r| Card::new(r, diving::core::Suit::Spades).value()).collect();
    assert_eq!(values[..10], (1..=10).map(Some).collect::<Vec<_>>()[..]);
    assert_eq!(values[10..], [None, None, None]);
}

// ----- D2 decks -----

#[test]
fn d2_one_deck_per_four_players() {
    for (players, decks) in [(2, 1), (3, 1), (4, 1), (5, 2), (6, 2), (8, 2)] {
        let names: Vec<&str> = common::NAMES[..players].to_vec();
        let game = Game::standard(&names, 1).unwrap();
        assert_eq!(game.decks(), decks, "{players} players");
        assert_eq!(game.card_count(), 52 * decks as usize, "{players} players");
    }
}

#[test]
fn d2_deck_count_can_be_overridden() {
    let deal = two().rules(Rules { decks: Some(3), ..Rules::default() });
    let game = deal.game();
    assert_eq!(game.decks(), 3);
    assert_eq!(game.card_count(), 156);
}

#[test]
fn d2_identical_cards_are_interchangeable() {
    // Five players: two decks, and Ann holds both seven of hearts.
    let deal = Deal::new(5).hand("Ann", "7H 7H 2S 3S").discard("9C");
    let game = deal.game();
    assert_eq!(count_plays_of(&game, card("7H")).len(), 1, "two identical cards are one choice");
    let run = check(&deal.clone().deck("8D"), "play 7H", "Ann: depth 7, oxygen 9\nhand Ann: 7H 2S 3S 8D");
    assert_eq!(run.game.decks(), 2);
    // Recovering one 7H or the other is the same recovery.
    let recoveries = deal.game().legal_actions().into_iter().filter(|a| matches!(a, Action::Recover { .. })).count();
    assert_eq!(recoveries, 11, "subsets of 7H 7H 2S 3S up to swapping the two 7H");
}

#[test]
fn d2_a_stacked_deck_must_hold_exactly_the_decks_cards() {
    let names = vec!["Ann".to_string(), "Bob".to_string()];
    let mut deck = full_deck(1);
    deck[5] = deck[4];
    let setup = Setup { names, seed: 1, deck: Some(deck) };
    let err = Game::new(Arc::new(Rules::default()), Arc::new(Registry::standard()), setup).unwrap_err();
    assert!(matches!(err, SetupError::Deck { expected: 52, decks: 1, .. }), "{err}");
}

// ----- D3 deal -----

#[test]
fn d3_stacked_deck_is_dealt_in_blocks_then_table_then_discard() {
    // full_deck(1) is AS 2S … KS AH … KH AD … KC, top first.
    let names: Vec<String> = ["Ann", "Bob", "Cat"].map(String::from).to_vec();
    let setup = Setup { names, seed: 1, deck: Some(full_deck(1)) };
    let game = Game::new(Arc::new(Rules::default()), Arc::new(Registry::standard()), setup).unwrap();
    assert_state(
        &game,
        "hand Ann: AS 2S 3S 4S
         hand Bob: 5S 6S 7S 8S
         hand Cat: 9S 10S JS QS
         table: KS AH 2H 3H
         discard: 4H
         deck: 35
         deck top: 5H
         Ann: depth 0, oxygen 10
         Bob: depth 0, oxygen 10
         Cat: depth 0, oxygen 10
         turn: 1 Ann
         outcome: running",
    );
    assert_eq!(game.deck().last(), Some(card("KC")));
}

#[test]
fn d3_the_deal_helper_places_what_the_test_names() {
    let deal = two().hand("Bob", "QS").table("_ 9D").discard("2C").deck("KH _ 3S");
    let order = deal.order();
    assert_eq!(order.len(), 52);
    assert_eq!(order[4], card("QS"), "Bob's first card is the fifth card");
    assert_eq!(order[9], card("9D"), "table slot 2");
    assert_eq!(order[12], card("2C"), "the discard");
    assert_eq!(order[13..16], cards("KH KS 3S")[..], "the deck, top first, KS filling the gap");
    assert_state(
        &deal.game(),
        "table: 9S 9D 10S JS\ntop: 2C\ndeck top: KH\nhand Ann: AS 2S 4S 5S\nhand Bob: QS 6S 7S 8S",
    );
}

// ----- D4 order of play -----

#[test]
fn d4_seat_one_starts_and_play_passes_in_seat_order() {
    let deal = Deal::new(3).hand("Ann", "2S").hand("Bob", "3S").hand("Cat", "4S");
    let game = deal.game();
    assert_eq!(game.current(), 0);
    let run = run(game, "recover 2S; recover 3S; recover 4S");
    let starts: Vec<(usize, u32)> = run
        .log()
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { player, turn } => Some((*player, *turn)),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [(1, 2), (2, 3), (0, 4)]);
    assert_state(&run.game, "turn: 4 Ann");
}

// ----- D5 a turn -----

#[test]
fn d5_play_from_hand_then_draw_one() {
    check(
        &two().hand("Ann", "5S 2H 3D 4C").discard("9H").deck("8C"),
        "play 5S",
        "Ann: depth 5, oxygen 9
         hand Ann: 2H 3D 4C 8C
         top: 5S
         turn: 2 Bob",
    );
}

#[test]
fn d5_play_from_the_table_then_refill_that_slot() {
    check(
        &two().hand("Ann", "2H 3D 4C 5D").table("2S 6C 3S 4D").discard("9H").deck("8C"),
        "play 6C table2",
        "Ann: depth 6, oxygen 9
         hand Ann: 2H 3D 4C 5D
         table: 2S 8C 3S 4D
         top: 6C
         deck top: 7S",
    );
}

#[test]
fn d5_recover_instead_of_playing() {
    check(
        &two().hand("Ann", "2H 3D 4C 5D").discard("9H").deck("8C 7C").at("Ann", 10, 5),
        "recover 2H 3D",
        "Ann: depth 10, oxygen 6
         hand Ann: 4C 5D 8C 7C
         discard: 9H 2H 3D
         turn: 2 Bob",
    );
}

#[test]
fn d5_one_action_is_the_whole_turn() {
    let run = play(&two().hand("Ann", "5S").discard("9H"), "play 5S");
    assert_eq!(run.game.current(), 1, "after one action it is Bob's turn");
    let mut game = run.game;
    let err = refuse(&mut game, "play 5S");
    assert!(matches!(err, ActionError::NotInHand { .. }), "Ann cannot act again: {err}");
}

// ----- D6 refill timing -----

#[test]
fn d6_the_hand_card_is_drawn_after_the_effect() {
    let run = play(&two().hand("Ann", "5S").discard("9H").deck("8C"), "play 5S");
    assert_eq!(
        run.last(),
        [
            Event::Played { player: 0, card: card("5S"), from: Source::Hand },
            Event::Discarded { card: card("5S") },
            Event::Moved { player: 0, from: 0, to: 5 },
            Event::Breathed { player: 0, from: 10, to: 9 },
            Event::Drew { player: 0, card: card("8C") },
            Event::TurnStarted { player: 1, turn: 2 },
        ]
    );
}

#[test]
fn d6_the_table_slot_is_refilled_after_the_effect() {
    // The refill (7H) would match the discard top (9H) but comes too late to count.
    let run = play(&two().table("_ _ 5S").discard("9H").deck("7H"), "play 5S table3");
    assert_eq!(
        run.last(),
        [
            Event::Played { player: 0, card: card("5S"), from: Source::Table(2) },
            Event::Discarded { card: card("5S") },
            Event::Moved { player: 0, from: 0, to: 5 },
            Event::Breathed { player: 0, from: 10, to: 9 },
            Event::Refilled { slot: 2, card: card("7H") },
            Event::TurnStarted { player: 1, turn: 2 },
        ]
    );
}

// ----- D7 empty deck -----

#[test]
fn d7_empty_deck_reshuffles_every_discard_but_the_top() {
    // Eight divers on one deck: 32 in hands, 4 on the table, 1 discard, 15 in the deck.
    let deal = Deal::new(8)
        .rules(Rules { decks: Some(1), ..Rules::default() })
        .hand("Ann", "AS 2S 3S 4S")
        .hand("Bob", "5S 6S 7S 8S")
        .hand("Cat", "9S 10S JS QS")
        .hand("Dan", "KS AH 2H 3H");
    let start = deal.game().discard_top().unwrap();
    let run = check(
        &deal,
        "recover AS 2S 3S 4S; recover 5S 6S 7S 8S; recover 9S 10S JS QS; recover KS AH 2H 3H",
        "discard: 3H
         deck: 15",
    );
    // Dan drew the last three cards, then the deck was rebuilt from 16 discards.
    let kinds: Vec<&str> = run
        .last()
        .iter()
        .filter_map(|e| match e {
            Event::Drew { .. } => Some("drew"),
            Event::Reshuffled { cards: 16 } => Some("reshuffled 16"),
            Event::Reshuffled { .. } => Some("reshuffled ?"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["drew", "drew", "drew", "reshuffled 16", "drew"]);
    let mut rebuilt: Vec<Card> = run.game.deck().collect();
    rebuilt.push(*run.game.player(3).hand.last().unwrap());
    rebuilt.sort_unstable();
    let mut expected = cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H");
    expected.push(start);
    expected.sort_unstable();
    assert_eq!(rebuilt, expected);
}

/// Fifty divers, one card each, one table slot, one deck: every card is dealt, the deck is
/// empty from the start and the discard pile holds one card.
fn crowded() -> Deal {
    let names = (1..=50).map(|i| format!("P{i}")).collect();
    let rules = Rules { max_players: 64, decks: Some(1), hand_size: 1, table_size: 1, ..Rules::default() };
    Deal::named(names).rules(rules)
}

#[test]
fn d7_with_nothing_to_draw_the_hand_stays_short_and_the_slot_empty() {
    let deal = crowded().hand("P1", "QS").table("KS").discard("AS");
    let run = check(
        &deal,
        "play QS; play KS table1 @P1",
        "hand P1:
         table: -
         P1: depth 0, oxygen 10, front QS KS
         discard: AS
         deck: 0",
    );
    assert!(!run.log().iter().any(|e| matches!(e, Event::Reshuffled { .. } | Event::Drew { .. })));
    let mut game = run.game;
    let err = refuse(&mut game, "play KS table1");
    assert!(matches!(err, ActionError::NotOnTable { slot: 0, .. }), "the slot is empty: {err}");
}

#[test]
fn d7_a_single_other_discard_is_reshuffled_and_drawn() {
    // P1 plays a number card: the pile is AS 2C, so AS becomes the deck and P1 draws it.
    let deal = crowded().hand("P1", "2C").table("KS").discard("AS");
    let run = check(&deal, "play 2C", "hand P1: AS\ndiscard: 2C\ndeck: 0");
    assert!(run.last().contains(&Event::Reshuffled { cards: 1 }));
}

// ----- D8 match -----

#[test]
fn d8_rank_match_doubles() {
    let run = check(&two().hand("Ann", "7S").discard("7H"), "play 7S", "Ann: depth 14, oxygen 9");
    assert!(run.last().contains(&Event::Doubled { player: 0, card: card("7S"), on: card("7H"), value: 14 }));
}

#[test]
fn d8_suit_match_doubles() {
    check(&two().hand("Ann", "7S").discard("2S"), "play 7S", "Ann: depth 14, oxygen 9");
}

#[test]
fn d8_no_match_no_doubling() {
    let run = check(&two().hand("Ann", "7S").discard("2H"), "play 7S", "Ann: depth 7, oxygen 9");
    assert!(!run.last().iter().any(|e| matches!(e, Event::Doubled { .. })));
}

#[test]
fn d8_rank_and_suit_together_double_only_once() {
    // Two decks (five divers), so the top can be the very same card.
    check(&Deal::new(5).hand("Ann", "7S").discard("7S"), "play 7S", "Ann: depth 14, oxygen 9");
}

#[test]
fn d8_face_card_on_top_matches_by_suit_only() {
    check(&two().hand("Ann", "7S").discard("QS"), "play 7S", "Ann: depth 14, oxygen 9");
    check(&two().hand("Ann", "7S").discard("QH"), "play 7S", "Ann: depth 7, oxygen 9");
}

#[test]
fn d8_match_is_against_the_top_before_the_card_is_placed() {
    // Ann's 7S lands on 2H (no match); Bob's 7D then matches Ann's 7S by rank.
    check(
        &two().hand("Ann", "7S").hand("Bob", "7D").discard("2H"),
        "play 7S; play 7D",
        "Ann: depth 7, oxygen 9\nBob: depth 14, oxygen 9\ntop: 7D",
    );
}

#[test]
fn d8_a_card_from_the_table_matches_the_same_way() {
    check(&two().table("_ 4S").discard("9S"), "play 4S table2", "Ann: depth 8, oxygen 9");
}

// ----- D9 movement -----

#[test]
fn d9_depth_never_goes_below_the_bottom() {
    let run = check(
        &two().hand("Ann", "8S").discard("2H").at("Ann", 95, 10),
        "play 8S",
        "Ann: depth 100, oxygen 10\noutcome: Ann won",
    );
    assert!(run.last().contains(&Event::Moved { player: 0, from: 95, to: 100 }));
}

// ----- D10 oxygen bands -----

/// Ann, at `depth` with full oxygen, plays `card` on a non-matching 2H.
fn breath_after(depth: u32, played: &str) -> (u32, u32) {
    let run = play(&two().hand("Ann", played).discard("2H").at("Ann", depth, 10), &format!("play {played}"));
    let ann = run.game.player(0);
    (ann.depth, 10 - ann.oxygen)
}

#[test]
fn d10_band_edge_25_26() {
    assert_eq!(breath_after(20, "5S"), (25, 1));
    assert_eq!(breath_after(20, "6S"), (26, 2));
}

#[test]
fn d10_band_edge_50_51() {
    assert_eq!(breath_after(45, "5S"), (50, 2));
    assert_eq!(breath_after(45, "6S"), (51, 3));
}

#[test]
fn d10_band_edge_75_76() {
    assert_eq!(breath_after(70, "5S"), (75, 3));
    assert_eq!(breath_after(70, "6S"), (76, 4));
}

#[test]
fn d10_the_first_band_starts_at_the_surface() {
    assert_eq!(breath_after(0, "AS"), (1, 1));
}

#[test]
fn d10_band_edges_25_26_by_play_alone() {
    // No set-up position: Ann dives 20 on a suit match, Bob recovers to put 3H on top.
    let deal = two().hand("Ann", "10S 5S 6S 2D").hand("Bob", "3H").discard("2S");
    check(&deal, "play 10S; recover 3H; play 5S", "Ann: depth 25, oxygen 8");
    check(&deal, "play 10S; recover 3H; play 6S", "Ann: depth 26, oxygen 7");
}

#[test]
fn d10_the_cost_is_by_the_new_depth() {
    // 24 → 30 costs the 26–50 band's 2, not the 0–25 band's 1.
    assert_eq!(breath_after(24, "6S"), (30, 2));
}

// ----- D11 win before breath -----

#[test]
fn d11_a_diver_reaching_the_bottom_wins_before_breathing() {
    // Breathing at 100 would cost 4 and rescue Ann; she wins first.
    let run = check(
        &two().hand("Ann", "10S").discard("2H").at("Ann", 90, 2),
        "play 10S",
        "Ann: depth 100, oxygen 2\noutcome: Ann won",
    );
    assert!(!run.last().iter().any(|e| matches!(e, Event::Breathed { .. } | Event::Rescued { .. })));
}

// ----- D12 rescue -----

#[test]
fn d12_out_of_oxygen_means_rescue_to_the_surface_with_full_oxygen() {
    let run = check(&two().hand("Ann", "5S").discard("2H").at("Ann", 30, 2), "play 5S", "Ann: depth 0, oxygen 10");
    let tail: Vec<&Event> = run.last().iter().skip(2).take(3).collect();
    assert_eq!(
        tail,
        [
            &Event::Moved { player: 0, from: 30, to: 35 },
            &Event::Breathed { player: 0, from: 2, to: 0 },
            &Event::Rescued { player: 0, depth: 0, oxygen: 10 },
        ]
    );
}

#[test]
fn d12_cards_in_front_of_a_rescued_diver_stay() {
    check(
        &two().hand("Ann", "KS").hand("Bob", "5S").discard("2H").at("Bob", 30, 2),
        "play KS @Bob; play 5S",
        "Bob: depth 0, oxygen 10, front KS",
    );
}

#[test]
fn d12_a_diver_with_oxygen_left_is_not_rescued() {
    check(&two().hand("Ann", "5S").discard("2H").at("Ann", 30, 3), "play 5S", "Ann: depth 35, oxygen 1");
}

// ----- D13 Jolt -----

#[test]
fn d13_jolt_is_placed_in_front_of_the_target() {
    let run = check(
        &two().hand("Ann", "JS").at("Bob", 6, 10),
        "play JS @Bob",
        "Bob: depth 6, oxygen 10, front JS\nAnn: depth 0, oxygen 10",
    );
    assert!(run.last().contains(&Event::Placed { player: 0, target: 1, card: card("JS") }));
}

#[test]
fn d13_jolt_moves_target_up_floor_zero() {
    let run = check(
        &two().hand("Ann", "JS").hand("Bob", "8S").discard("2H").at("Bob", 6, 10),
        "play JS @Bob; play 8S",
        "Bob: depth 0, oxygen 9
         discard: 2H JS 8S",
    );
    assert_eq!(
        run.last()[..6],
        [
            Event::Played { player: 1, card: card("8S"), from: Source::Hand },
            Event::Jolted { player: 1 },
            Event::Discarded { card: card("JS") },
            Event::Discarded { card: card("8S") },
            Event::Moved { player: 1, from: 6, to: 0 },
            Event::Breathed { player: 1, from: 10, to: 9 },
        ]
    );
}

#[test]
fn d13_jolt_moves_up_by_the_doubled_value_then_breathes_by_the_new_depth() {
    // 7H on 2H doubles to 14: 40 → 26, which costs 2.
    check(
        &two().hand("Ann", "JS").hand("Bob", "7H").discard("2H").at("Bob", 40, 10),
        "play JS @Bob; play 7H",
        "Bob: depth 26, oxygen 8",
    );
}

#[test]
fn d13_jolt_targets_only_strictly_deeper_divers_without_a_j() {
    let deal = Deal::new(4)
        .hand("Ann", "JS 2C")
        .hand("Bob", "JH")
        .at("Ann", 10, 10)
        .at("Bob", 10, 10)
        .at("Cat", 20, 10)
        .at("Dan", 5, 10);
    let mut game = deal.game();
    let jolts = count_plays_of(&game, card("JS"));
    assert_eq!(jolts, [Action::play_at(card("JS"), Source::Hand, 2)], "only Cat is deeper than Ann");
    for (text, why) in [("play JS @Bob", "not deeper"), ("play JS @Dan", "not deeper"), ("play JS @Ann", "yourself")] {
        let err = refuse(&mut game, text);
        assert!(matches!(err, ActionError::BadTarget { .. }), "{text}: {err}");
        assert!(err.to_string().contains(why), "{text}: {err}");
    }
    let err = refuse(&mut game, "play JS");
    assert!(matches!(&err, ActionError::TargetNeeded { options, .. } if options == &[2]), "{err}");
    // Once Cat has a J, nobody is left for Bob's JH.
    let mut game = run(game, "play JS @Cat").game;
    assert_state(&game, "Cat: depth 20, oxygen 10, front JS");
    let err = refuse(&mut game, "play JH @Cat");
    assert!(matches!(err, ActionError::NotPlayable { .. }), "{err}");
    assert!(count_plays_of(&game, card("JH")).is_empty());
}

#[test]
fn d13_jolt_is_not_playable_without_a_target() {
    let mut game = two().hand("Ann", "JS").game();
    assert!(count_plays_of(&game, card("JS")).is_empty(), "everyone is at the surface");
    let err = refuse(&mut game, "play JS @Bob");
    assert!(matches!(err, ActionError::NotPlayable { .. }), "{err}");
}

#[test]
fn d13_jolt_discard_order_default_j_below() {
    check(
        &two().hand("Ann", "JS").hand("Bob", "8S").discard("2H").at("Bob", 30, 10),
        "play JS @Bob; play 8S",
        "discard: 2H JS 8S\ntop: 8S",
    );
}

#[test]
fn d13_jolt_discard_order_j_on_top_when_chosen() {
    let deal = two().hand("Ann", "JS").hand("Bob", "8S").discard("2H").at("Bob", 30, 10);
    let game = play(&deal, "play JS @Bob").game;
    let plays = count_plays_of(&game, card("8S"));
    assert_eq!(plays.len(), 2, "both orders are offered: {plays:?}");
    check(&deal, "play JS @Bob; play 8S on-top", "discard: 2H 8S JS\ntop: JS\nBob: depth 22, oxygen 9");
}

#[test]
fn d13_jolt_waits_for_the_targets_next_number_card() {
    // Bob recovers and plays a Q first; the J stays until his number card.
    let deal = two().hand("Ann", "JS 2C 3C").hand("Bob", "4D QH 8S").discard("2H").at("Bob", 30, 10);
    let game = play(&deal, "play JS @Bob; recover 4D; recover 2C; play QH").game;
    assert_state(&game, "Bob: depth 30, oxygen 10, front JS QH");
    let game = run(game, "recover 3C; play 8S").game;
    assert_state(&game, "Bob: depth 22, oxygen 9, front QH");
}

// ----- D14 Quick -----

#[test]
fn d14_quick_is_placed_in_front_of_yourself_once() {
    let mut game = play(&two().hand("Ann", "QS QH").hand("Bob", "2C"), "play QS; recover 2C").game;
    assert_state(&game, "Ann: depth 0, oxygen 10, front QS");
    let err = refuse(&mut game, "play QH");
    assert!(matches!(err, ActionError::NotPlayable { .. }), "{err}");
    let err = refuse(&mut game, "play QH @Bob");
    assert!(matches!(err, ActionError::NotPlayable { .. }), "{err}");
}

#[test]
fn d14_quick_adds_8_not_doubled_and_pushes_4() {
    // 7S on 7H doubles to 14, plus 8: Ann goes to 22; Bob is pushed to 4.
    let run = check(
        &two().hand("Ann", "QS 7S").hand("Bob", "7H").discard("9C").deck("_ _ 5D"),
        "play QS; recover 7H; play 7S @Bob",
        "Ann: depth 22, oxygen 9
         Bob: depth 4, oxygen 9
         discard: 9C 7H 7S QS",
    );
    assert_eq!(
        run.last(),
        [
            Event::Played { player: 0, card: card("7S"), from: Source::Hand },
            Event::Doubled { player: 0, card: card("7S"), on: card("7H"), value: 14 },
            Event::Quickened { player: 0, extra: 8 },
            Event::Discarded { card: card("7S") },
            Event::Moved { player: 0, from: 0, to: 22 },
            Event::Breathed { player: 0, from: 10, to: 9 },
            Event::Pushed { player: 0, target: 1, by: 4 },
            Event::Moved { player: 1, from: 0, to: 4 },
            Event::Breathed { player: 1, from: 10, to: 9 },
            Event::Discarded { card: card("QS") },
            Event::Drew { player: 0, card: card("5D") },
            Event::TurnStarted { player: 1, turn: 4 },
        ]
    );
}

#[test]
fn d14_quick_player_picks_who_is_pushed() {
    let deal = Deal::new(3).hand("Ann", "QS 5D").hand("Bob", "2C").hand("Cat", "3C").discard("2H");
    let game = play(&deal, "play QS; recover 2C; recover 3C").game;
    let plays = count_plays_of(&game, card("5D"));
    assert_eq!(plays.len(), 2, "Bob or Cat: {plays:?}");
    let run = run(game, "play 5D @Cat");
    assert_state(&run.game, "Ann: depth 13, oxygen 9\nBob: depth 0, oxygen 10\nCat: depth 4, oxygen 9");
}

#[test]
fn d14_quick_needs_a_push_target_among_the_others() {
    let mut game = play(&two().hand("Ann", "QS 7S").hand("Bob", "2C"), "play QS; recover 2C").game;
    let err = refuse(&mut game, "play 7S");
    assert!(matches!(&err, ActionError::TargetNeeded { options, .. } if options == &[1]), "{err}");
    let err = refuse(&mut game, "play 7S @Ann");
    assert!(matches!(err, ActionError::BadTarget { .. }), "{err}");
    let err = refuse(&mut game, "play 7S @9");
    assert!(matches!(err, ActionError::BadTarget { .. }), "{err}");
}

#[test]
fn d14_quick_mover_wins_before_the_push() {
    let run = check(
        &two().hand("Ann", "QS 7S").hand("Bob", "2C").discard("9H").at("Ann", 85, 10),
        "play QS; recover 2C; play 7S @Bob",
        "Ann: depth 100, oxygen 10, front QS
         Bob: depth 0, oxygen 10
         outcome: Ann won",
    );
    assert!(!run.last().iter().any(|e| matches!(e, Event::Pushed { .. })));
}

#[test]
fn d14_quick_mover_breathes_and_may_be_rescued_before_the_push() {
    // 40 + 2 + 8 = 50 costs 2 of Ann's 2: she is rescued, then Bob is pushed.
    let run = check(
        &two().hand("Ann", "QS 2S").hand("Bob", "3C").discard("9H").at("Ann", 40, 2),
        "play QS; recover 3C; play 2S @Bob",
        "Ann: depth 0, oxygen 10\nBob: depth 4, oxygen 9",
    );
    let rescued = run.last().iter().position(|e| matches!(e, Event::Rescued { player: 0, .. })).unwrap();
    let pushed = run.last().iter().position(|e| matches!(e, Event::Pushed { .. })).unwrap();
    assert!(rescued < pushed);
}

#[test]
fn d14_the_pushed_diver_breathes_and_may_be_rescued() {
    check(
        &two().hand("Ann", "QS 2S").hand("Bob", "3C").discard("9H").at("Bob", 60, 2),
        "play QS; recover 3C; play 2S @Bob",
        "Ann: depth 10, oxygen 9\nBob: depth 0, oxygen 10",
    );
}

// ----- D15 Jolt before Quick -----

#[test]
fn d15_jolt_resolves_first_and_the_quick_waits() {
    let deal = two().hand("Ann", "QS 5S 6S").hand("Bob", "JH 2D").discard("9C").at("Ann", 10, 10);
    let mut game = play(&deal, "play QS; play JH @Ann").game;
    assert_state(&game, "Ann: depth 10, oxygen 10, front QS JH");
    // The number card takes no push target: only the J resolves.
    let err = refuse(&mut game, "play 5S @Bob");
    assert!(matches!(err, ActionError::NoTargetTaken { .. }), "{err}");
    let game = run(game, "play 5S").game;
    assert_state(&game, "Ann: depth 5, oxygen 9, front QS\nBob: depth 0, oxygen 10\ndiscard: 9C JH 5S");
    // The number card after that triggers the Q: 6S on 2D, 6 + 8.
    let game = run(game, "recover 2D; play 6S @Bob").game;
    assert_state(&game, "Ann: depth 19, oxygen 8\nBob: depth 4, oxygen 9\ntop: QS");
}

// ----- D16 Knot -----

#[test]
fn d16_knot_recovery_discards_and_draws_but_gains_nothing() {
    let run = check(
        &two().hand("Ann", "KS").hand("Bob", "2H 3H 4C 5C").discard("9D").deck("_ 8D 7D").at("Bob", 30, 5),
        "play KS @Bob; recover 2H 3H",
        "Bob: depth 30, oxygen 5
         hand Bob: 4C 5C 8D 7D
         discard: 9D KS 2H 3H",
    );
    assert_eq!(
        run.last()[..5],
        [
            Event::Knotted { player: 1 },
            Event::Discarded { card: card("KS") },
            Event::Discarded { card: card("2H") },
            Event::Discarded { card: card("3H") },
            Event::Recovered {
                player: 1,
                cards: diving::core::Cards::try_from(cards("2H 3H")).unwrap(),
                gain: diving::core::Gain::Amount(0),
                from: 5,
                to: 5
            },
        ]
    );
}

#[test]
fn d16_knot_discard_order_k_on_top_when_chosen() {
    let deal = two().hand("Ann", "KS").hand("Bob", "2H 3H").discard("9D").at("Bob", 30, 5);
    let game = play(&deal, "play KS @Bob").game;
    let knotted: Vec<Action> = game
        .legal_actions()
        .into_iter()
        .filter(|a| matches!(a, Action::Recover { cards, .. } if cards.len() == 1))
        .collect();
    assert_eq!(knotted.len(), 8, "four single cards, each in both orders");
    check(&deal, "play KS @Bob; recover 3H 2H on-top", "discard: 9D 3H 2H KS\nBob: depth 30, oxygen 5");
}

#[test]
fn d16_knot_is_used_up_by_one_recovery() {
    check(
        &two().hand("Ann", "KS 2C").hand("Bob", "2H 3H 4H").discard("9D").at("Bob", 30, 5),
        "play KS @Bob; recover 2H; recover 2C; recover 3H 4H",
        "Bob: depth 30, oxygen 7",
    );
}

#[test]
fn d16_knot_stays_through_number_cards() {
    check(
        &two().hand("Ann", "KS").hand("Bob", "5D").discard("9C"),
        "play KS @Bob; play 5D",
        "Bob: depth 5, oxygen 9, front KS",
    );
}

#[test]
fn d16_knot_targets_another_diver_without_a_k() {
    let deal = two().hand("Ann", "KS 2C").hand("Bob", "3C").table("KH").discard("9D");
    let mut game = deal.game();
    let err = refuse(&mut game, "play KS @Ann");
    assert!(matches!(err, ActionError::BadTarget { .. }), "{err}");
    let err = refuse(&mut game, "play KS");
    assert!(matches!(err, ActionError::TargetNeeded { .. }), "{err}");
    // Bob keeps the K: a number card does not use it up (a recovery would).
    let mut game = run(game, "play KS @Bob; play 3C").game;
    // Bob is the only other diver and already has a K: Ann's next K is not playable.
    let err = refuse(&mut game, "play KH table1 @Bob");
    assert!(matches!(err, ActionError::NotPlayable { .. }), "{err}");
    assert!(count_plays_of(&game, card("KH")).is_empty());
}

#[test]
fn d16_a_k_that_is_not_the_only_choice_reports_the_bad_target() {
    let deal = Deal::new(3).hand("Ann", "KS KH").hand("Bob", "2C").hand("Cat", "3C").discard("9D");
    let mut game = play(&deal, "play KS @Bob; play 2C; recover 3C").game;
    let err = refuse(&mut game, "play KH @Bob");
    assert!(matches!(&err, ActionError::BadTarget { reason, .. } if reason.to_string().contains("K")), "{err}");
    let game = run(game, "play KH @Cat").game;
    assert_state(&game, "Bob: depth 2, oxygen 9, front KS\nCat: depth 0, oxygen 10, front KH");
}

// ----- D17 no stacking -----

#[test]
fn d17_nobody_ever_has_two_cards_of_a_rank_in_front() {
    let deal = Deal::new(3).hand("Ann", "JS QS KS").hand("Bob", "JH").hand("Cat", "QH KH").at("Cat", 20, 10);
    // Ann jolts and knots Cat and takes a Q; Bob cannot jolt Cat again.
    let mut game = play(&deal, "play JS @Cat").game;
    let err = refuse(&mut game, "play JH @Cat");
    assert!(matches!(err, ActionError::NotPlayable { .. }), "{err}");
    let game = run(game, "recover JH; play QH; play QS").game;
    assert_state(&game, "Ann: depth 0, oxygen 10, front QS\nCat: depth 20, oxygen 10, front JS QH");
    // Knots: Cat on Ann, then Ann on Cat; each diver now holds one J, Q or K at most.
    let bob = game.player(1).hand[0];
    let game = run(game, &format!("recover {bob}; play KH @Ann; play KS @Cat")).game;
    assert_state(&game, "Ann: depth 0, oxygen 10, front QS KH\nCat: depth 20, oxygen 10, front JS QH KS");
}

// ----- D18 face cards from the table -----

#[test]
fn d18_face_cards_can_be_played_from_the_table() {
    let deal = Deal::new(3).table("JS QS KS").discard("9D").deck("2C 3C 4C").at("Bob", 10, 10);
    check(
        &deal,
        "play JS table1 @Bob; play QS table2; play KS table3 @Ann",
        "Bob: depth 10, oxygen 10, front JS QS
         Ann: depth 0, oxygen 10, front KS
         table: 2C 3C 4C 3H",
    );
}

// ----- D19 recovering oxygen -----

#[test]
fn d19_every_recovery_pattern_with_1_to_4_cards() {
    // Ann has 1 oxygen and holds 4 hearts, 2 spades, 1 diamond, 1 club between hand and draws.
    let cases = [
        ("2H", 1),
        ("2H 3S", 1),
        ("2H 3H", 2),
        ("2H 3S 4D", 1),
        ("2H 3H 3S", 2),
        ("2H 3H 4H", 4),
        ("2H 3S 4D 5C", 1),
        ("2H 3H 3S 4D", 2),
        ("2H 3H 3S 4S", 3),
        ("2H 3H 4H 3S", 4),
        ("2H 3H 4H 5H", 9),
    ];
    for (discard, gain) in cases {
        let deal = two().hand("Ann", discard).discard("9C").at("Ann", 40, 1);
        let run = check(&deal, &format!("recover {discard}"), &format!("Ann: depth 40, oxygen {}", 1 + gain));
        let recovered = run.last().iter().find(|e| matches!(e, Event::Recovered { .. })).unwrap();
        assert!(matches!(recovered, Event::Recovered { from: 1, .. }), "{discard}: {recovered:?}");
    }
}

#[test]
fn d19_four_of_a_suit_restores_the_maximum() {
    let run = check(
        &two().hand("Ann", "2H 3H 4H 5H").discard("9C").at("Ann", 40, 3),
        "recover 2H 3H 4H 5H",
        "Ann: depth 40, oxygen 10",
    );
    let gain = run.last().iter().find_map(|e| match e {
        Event::Recovered { .. } => Some(serde_json::to_value(EventJson::from(e)).unwrap()["gain"].to_string()),
        _ => None,
    });
    assert_eq!(gain.as_deref(), Some("\"max\""));
}

#[test]
fn d19_oxygen_never_goes_above_the_maximum() {
    check(
        &two().hand("Ann", "2H 3H 3S 4S").discard("9C").at("Ann", 40, 9),
        "recover 2H 3H 3S 4S",
        "Ann: depth 40, oxygen 10",
    );
    check(&two().hand("Ann", "2H").discard("9C"), "recover 2H", "Ann: depth 0, oxygen 10");
}

#[test]
fn d19_discards_go_in_the_order_given_and_as_many_are_drawn() {
    let deal = two().hand("Ann", "2H 3S 4D 5C").discard("9C").deck("8C 7C 6C");
    check(&deal, "recover 4D 2H 3S", "discard: 9C 4D 2H 3S\ntop: 3S\nhand Ann: 5C 8C 7C 6C");
    check(&deal, "recover 3S 4D 2H", "discard: 9C 3S 4D 2H\ntop: 2H");
}

#[test]
fn d19_recovery_is_checked_against_the_hand() {
    let mut game = two().hand("Ann", "2H 3S 4D 5C").discard("9C").game();
    for text in ["recover 9H", "recover 2H 2H", "recover 2H 9S"] {
        let err = refuse(&mut game, text);
        assert!(matches!(err, ActionError::NotInHand { .. }), "{text}: {err}");
    }
    let err = refuse_action(&mut game, &Action::recover(Vec::new()));
    assert_eq!(err, ActionError::EmptyRecovery);
}

// ----- D20 winning -----

#[test]
fn d20_the_first_to_reach_the_bottom_wins_and_the_game_ends_at_once() {
    let deal = two().hand("Ann", "10S 2S 3D 4D").discard("9H").deck("8C").at("Ann", 90, 5).at("Bob", 99, 10);
    let run = check(&deal, "play 10S", "outcome: Ann won\nhand Ann: 2S 3D 4D\ndeck top: 8C\nturn: 1 Ann");
    assert_eq!(run.last().last(), Some(&Event::Won { player: 0, winners: Seats(1) }), "nothing happens after the win");
    let mut game = run.game;
    assert_eq!(game.winner(), Some(0));
    assert!(game.legal_actions().is_empty());
    for text in ["play 2S", "recover 2S", "pass"] {
        assert_eq!(refuse(&mut game, text), ActionError::GameOver, "{text}");
    }
}

/// The Q would go to the discard after the push (D14), but a win ends the game at once
/// (D20): the Q stays in front of its player and `Won` is the last event.
#[test]
fn d20_a_quick_win_is_the_last_thing_that_happens() {
    let run = play(
        &two().hand("Ann", "QS 7S").hand("Bob", "2C").discard("9H").at("Ann", 85, 10),
        "play QS; recover 2C; play 7S @Bob",
    );
    assert_eq!(run.last().last(), Some(&Event::Won { player: 0, winners: Seats(1) }));
}

// ----- D21 pushed to the bottom -----

#[test]
fn d21_a_push_to_the_bottom_wins_for_the_pushed_diver() {
    let run = check(
        &two().hand("Ann", "QS 5S").hand("Bob", "2C").discard("9H").at("Bob", 96, 10),
        "play QS; recover 2C; play 5S @Bob",
        "Ann: depth 13, oxygen 9, front QS
         Bob: depth 100, oxygen 10
         outcome: Bob won",
    );
    assert_eq!(run.last().last(), Some(&Event::Won { player: 1, winners: Seats(2) }));
}

// ----- D22 no legal play -----

#[test]
fn d22_recovery_is_always_legal_with_cards_in_hand() {
    // Ann holds four Js with nobody deeper, and there is no table: only recoveries are left.
    let deal = two().rules(Rules { table_size: 0, ..Rules::default() }).hand("Ann", "JS JH JD JC");
    let mut game = deal.game();
    let legal = game.legal_actions();
    assert_eq!(legal.len(), 15);
    assert!(legal.iter().all(|a| matches!(a, Action::Recover { .. })));
    assert_eq!(refuse(&mut game, "pass"), ActionError::CannotPass);
}

#[test]
fn d22_pass_only_with_an_empty_hand_and_no_playable_table_card() {
    // P1 plays their only card; nothing is left to draw. The table JS has no target.
    let deal = crowded().hand("P1", "QS").table("JS").discard("AS");
    let mut game = play(&deal, "play QS").game;
    assert_eq!(refuse(&mut game, "pass"), ActionError::CannotPass, "P2 holds a card");
    for _ in 2..=50 {
        let held = game.player(game.current()).hand[0];
        game = run(game, &format!("recover {held}")).game;
    }
    assert_state(&game, "turn: 51 P1\nhand P1:\ntable: JS");
    assert_eq!(game.legal_actions(), [Action::Pass]);
    let err = refuse(&mut game, "play JS table1 @P2");
    assert!(matches!(err, ActionError::NotPlayable { .. }), "{err}");
    let run = run(game, "pass");
    assert_eq!(run.last(), [Event::Passed { player: 0 }, Event::TurnStarted { player: 1, turn: 52 }]);
}

// ----- D23 turn cap -----

#[test]
fn d23_the_game_is_a_draw_after_max_turns() {
    let deal = two().rules(Rules { max_turns: 3, ..Rules::default() }).hand("Ann", "2S 3S").hand("Bob", "4S");
    let run = check(&deal, "recover 2S; recover 4S; recover 3S", "outcome: draw\nturn: 3 Ann");
    assert_eq!(run.last().last(), Some(&Event::Draw { turns: 3 }));
    let mut game = run.game;
    assert_eq!(game.outcome(), Outcome::Draw);
    assert!(game.legal_actions().is_empty());
    assert_eq!(refuse(&mut game, "pass"), ActionError::GameOver);
}

#[test]
fn d23_a_win_on_the_last_turn_is_a_win() {
    let deal =
        two().rules(Rules { max_turns: 1, ..Rules::default() }).hand("Ann", "10S").discard("9H").at("Ann", 90, 10);
    let run = check(&deal, "play 10S", "outcome: Ann won");
    assert!(!run.log().iter().any(|e| matches!(e, Event::Draw { .. })));
}

#[test]
fn d23_no_cap_by_default() {
    assert_eq!(Rules::default().max_turns, 0);
}

// ----- D24 depth display -----

#[test]
fn d24_depth_is_shown_in_units_but_rules_use_raw_numbers() {
    let rules = Rules { depth_unit: "m".into(), depth_scale: 100, ..Rules::default() };
    assert_eq!(rules.show_depth(45), "4500 m");
    assert_eq!(Rules::default().show_depth(45), "45");
    let run = check(
        &two().rules(rules).hand("Ann", "6S").discard("2H").at("Ann", 20, 10),
        "play 6S",
        "Ann: depth 26, oxygen 8",
    );
    assert_eq!(run.game.rules().show_depth(run.game.player(0).depth), "2600 m");
}

// ----- the designer's sentences, end to end -----

#[test]
fn setup_every_diver_starts_at_the_surface_with_full_oxygen() {
    let game = Game::standard(&["Ann", "Bob", "Cat", "Dan"], 3).unwrap();
    for p in game.players() {
        assert_eq!((p.depth, p.oxygen, p.hand.len(), p.front.len()), (0, 10, 4, 0));
    }
    assert_eq!(game.table().iter().flatten().count(), 4);
    assert_eq!(game.discard_pile().len(), 1);
    assert_eq!(game.deck_size(), 52 - 16 - 4 - 1);
}

#[test]
fn a_whole_race_by_the_rules() {
    // Ann dives 20 three times on suit matches, recovers three hearts, takes a Quick and
    // reaches the bottom with 4 oxygen left; Bob recovers single cards to set the discard top.
    let deal = two()
        .hand("Ann", "10S 10H 10D QS")
        .hand("Bob", "3H 4D 5C 6C")
        .discard("2S")
        .deck("8H 2C 9H 9D 7H _ 10C 6D _ _ _");
    check(
        &deal,
        "play 10S; recover 3H
         play 10H; recover 4D
         play 10D; recover 5C
         recover 8H 9H 7H; recover 6C
         play QS; recover 2C
         play 10C @Bob; recover 9D
         play 6D",
        "Ann: depth 100, oxygen 4
         Bob: depth 4, oxygen 10
         outcome: Ann won",
    );
}

// ----- illegal actions leave the game exactly as it was -----

/// Whether an error is the one a case expects.
type Expected = fn(&ActionError) -> bool;

#[test]
fn illegal_plays_are_refused_with_the_state_unchanged() {
    let deal = two().hand("Ann", "5S JS 2H 3H").table("7C _ 9D").discard("2D").at("Bob", 10, 10);
    let mut game = deal.game();
    let cases: [(&str, Expected); 9] = [
        ("play 9S", |e| matches!(e, ActionError::NotInHand { .. })),
        ("play 7C table3", |e| matches!(e, ActionError::NotOnTable { slot: 2, .. })),
        ("play 9D table2", |e| matches!(e, ActionError::NotOnTable { slot: 1, .. })),
        ("play 7C table5", |e| matches!(e, ActionError::NoSuchSlot { slot: 4 })),
        ("play JS", |e| matches!(e, ActionError::TargetNeeded { .. })),
        ("play 5S @Bob", |e| matches!(e, ActionError::NoTargetTaken { .. })),
        ("play JS @Ann", |e| matches!(e, ActionError::BadTarget { .. })),
        ("play 5S on-top", |e| matches!(e, ActionError::NoOrderChoice)),
        ("recover 3H on-top", |e| matches!(e, ActionError::NoOrderChoice)),
    ];
    for (text, is_expected) in cases {
        let err = refuse(&mut game, text);
        assert!(is_expected(&err), "{text}: {err:?}");
    }
    assert_eq!(refuse(&mut game, "pass"), ActionError::CannotPass);
    let err = refuse(&mut game, "play 2D");
    assert!(matches!(err, ActionError::NotInHand { .. }), "the discard top is nobody's: {err}");
}

/// A 7 that discards itself, moves its player, then fails, as a broken mod would.
struct Broken;

impl Effect for Broken {
    fn aim(&self, _state: &diving::core::State, _player: usize, _card: Card) -> Result<Aim, EffectError> {
        Ok(Aim::FREE)
    }
    fn resolve(&self, ctx: &mut diving::core::Ctx<'_>, play: Play) -> Result<(), EffectError> {
        ctx.discard(play.card);
        ctx.dive(play.player, 7)?;
        ctx.draw_to_hand(play.player)?;
        Err(EffectError::new("the mod broke"))
    }
}

#[test]
fn illegal_a_failing_effect_is_undone_completely() {
    let mut registry = Registry::standard();
    registry.set_effect(Rank::new(7).unwrap(), Arc::new(Broken));
    let mut game = two().hand("Ann", "7S").game_with(registry);
    let err = refuse(&mut game, "play 7S");
    assert_eq!(err, ActionError::Script(EffectError::new("the mod broke")));
}

#[test]
fn illegal_errors_read_as_lower_case_sentences_without_a_period() {
    let mut game = two().hand("Ann", "JS 5S").game();
    for text in ["play 9S", "play JS @Bob", "play 5S @Bob", "pass", "play 5S table9"] {
        let message = refuse(&mut game, text).to_string();
        let first = message.split_whitespace().next().unwrap();
        assert!(first.parse::<Card>().is_ok() || first.starts_with(char::is_lowercase), "{message}");
        assert!(!message.ends_with('.'), "{message}");
    }
}
