//! Random-game invariants: thousands of seeded games with 2–8 divers, checked after every
//! action.
//!
//! Each game is played by a seeded random policy (mostly plays, sometimes recoveries) under a
//! turn cap, so every game ends. After every action: cards are conserved, depth and oxygen
//! stay in bounds, nobody has two same-rank cards in front, and `Won` is the last event of a
//! won game. Before every action: a sample of `legal_actions` applies on clones, recoveries
//! are accepted in another card order, and random illegal actions of every kind are refused
//! with the game unchanged.

use crate::common;

use common::{assert_invariants, is_listed};
use diving::core::{
    Action, ActionError, Card, Cards, Event, Game, Outcome, Rank, Registry, Rules, Setup, Source, full_deck,
};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

const GAMES: u64 = 2_000;
const CAP: u32 = 160;

fn new_game(seed: u64) -> Game {
    let players = 2 + (seed % 7) as usize;
    let names = common::NAMES[..players].iter().map(|s| s.to_string()).collect();
    let rules = Rules { max_turns: CAP, ..Rules::default() };
    Game::new(Arc::new(rules), Arc::new(Registry::standard()), Setup { names, seed, deck: None }).unwrap()
}

/// How a test game chooses its actions.
#[derive(Clone, Copy)]
enum Policy {
    /// A play four times out of five when there is one, else any action. Random divers
    /// rarely reach the bottom: they run out of oxygen and are rescued.
    Random,
    /// A diver who recovers the most oxygen when low and otherwise plays the number card
    /// that goes deepest, with a random action one time in `n`: games end in wins.
    Diver { random_one_in: u32 },
}

fn pick(game: &Game, legal: &[Action], policy: Policy, rng: &mut ChaCha8Rng) -> Action {
    let plays: Vec<&Action> = legal.iter().filter(|a| matches!(a, Action::Play { .. })).collect();
    let random_one_in = match policy {
        Policy::Random => {
            if !plays.is_empty() && rng.random_range(0..5) != 0 {
                return *(*plays.choose(rng).unwrap());
            }
            return *legal.choose(rng).unwrap();
        }
        Policy::Diver { random_one_in } => random_one_in,
    };
    if random_one_in > 0 && rng.random_range(0..random_one_in) == 0 {
        return *legal.choose(rng).unwrap();
    }
    let me = game.player(game.current());
    let rules = game.rules();
    let low = me.oxygen <= rules.band_cost((me.depth + 12).min(rules.max_depth)) && me.depth + 10 < rules.max_depth;
    let gain = |cards: &[Card]| match rules.recovery_gain(cards) {
        diving::core::Gain::Amount(n) => n,
        diving::core::Gain::Max => rules.max_oxygen,
    };
    let best_recovery = legal
        .iter()
        .filter_map(|a| match a {
            Action::Recover { cards, face_on_top: false } => Some((gain(cards), std::cmp::Reverse(cards.len()), a)),
            _ => None,
        })
        .max_by_key(|(g, l, _)| (*g, *l))
        .map(|(_, _, a)| a);
    if low && let Some(a) = best_recovery {
        return *a;
    }
    let top = game.discard_top();
    let value = |a: &Action| match a {
        Action::Play { card, .. } => match card.value() {
            Some(v) if me.has_front(Rank::JACK) => -(v as i64),
            Some(v) => {
                let doubled = top.is_some_and(|t| t.rank == card.rank || t.suit == card.suit);
                v as i64 * if doubled { 2 } else { 1 }
            }
            None => 1,
        },
        _ => 0,
    };
    plays.iter().max_by_key(|a| value(a)).map_or_else(|| *legal.choose(rng).unwrap(), |a| *(*a))
}

/// Refuses `action`, which must not be legal, and checks nothing changed.
fn assert_refused(game: &mut Game, action: &Action, legal: &[Action], what: &str) -> ActionError {
    assert!(!is_listed(legal, action), "{what}: '{action}' is listed as legal");
    let before = game.clone();
    let err =
        game.apply(action, &mut ()).err().unwrap_or_else(|| panic!("{what}: '{action}' was accepted\n{before:?}"));
    assert!(*game == before, "{what}: '{action}' was refused ({err}) but changed the game");
    err
}

/// One random illegal action of each kind the game can offer now, each refused.
fn try_illegal(game: &mut Game, legal: &[Action], rng: &mut ChaCha8Rng) {
    let me = game.current();
    let hand = game.player(me).hand.clone();
    let n = game.player_count();
    let deck = full_deck(1);
    let absent: Vec<Card> = deck.iter().copied().filter(|c| !hand.contains(c)).collect();

    // A card not in hand, played or recovered.
    let stranger = *absent.choose(rng).unwrap();
    let err = assert_refused(game, &Action::play(stranger, Source::Hand), legal, "card not in hand");
    assert_eq!(err, ActionError::NotInHand { card: stranger });
    let mut cards: Vec<Card> = hand.iter().copied().take(rng.random_range(0..=hand.len())).collect();
    cards.insert(rng.random_range(0..=cards.len()), stranger);
    let err = assert_refused(game, &Action::recover(cards), legal, "recover a card not held");
    assert_eq!(err, ActionError::NotInHand { card: stranger });
    assert_eq!(assert_refused(game, &Action::recover(Vec::new()), legal, "empty recovery"), ActionError::EmptyRecovery);

    // Recovering the same card twice when it is held once.
    if let Some(&c) = hand.iter().find(|c| hand.iter().filter(|d| d == c).count() == 1) {
        let err = assert_refused(game, &Action::recover(vec![c, c]), legal, "recover a card twice");
        assert_eq!(err, ActionError::NotInHand { card: c });
    }

    // A bad table slot: past the end, or a slot that holds another card (or none).
    let table = game.table().to_vec();
    let past = table.len() + rng.random_range(0..3);
    let card = *deck.choose(rng).unwrap();
    let err = assert_refused(game, &Action::play(card, Source::Table(past)), legal, "no such slot");
    assert_eq!(err, ActionError::NoSuchSlot { slot: past });
    if !table.is_empty() {
        let slot = rng.random_range(0..table.len());
        let other = *deck.iter().filter(|c| table[slot] != Some(**c)).collect::<Vec<_>>().choose(rng).unwrap();
        let err = assert_refused(game, &Action::play(*other, Source::Table(slot)), legal, "wrong slot");
        assert_eq!(err, ActionError::NotOnTable { card: *other, slot });
    }

    // Pass when something else is legal.
    if legal != [Action::Pass] {
        assert_eq!(assert_refused(game, &Action::Pass, legal, "pass"), ActionError::CannotPass);
    }

    // A legal play with its target changed to one not offered, added, or removed.
    let plays: Vec<&Action> = legal.iter().filter(|a| matches!(a, Action::Play { .. })).collect();
    if let Some(&&Action::Play { card, from, target, face_on_top }) = plays.choose(rng) {
        let offered: Vec<usize> = plays
            .iter()
            .filter_map(|a| match a {
                Action::Play { card: c, from: f, target: Some(t), .. } if *c == card && *f == from => Some(*t),
                _ => None,
            })
            .collect();
        let bad: Vec<usize> = (0..n + 2).filter(|t| !offered.contains(t)).collect();
        let retarget = match target {
            Some(_) => vec![Some(*bad.choose(rng).unwrap()), None],
            None => vec![Some(rng.random_range(0..n))],
        };
        for t in retarget {
            let action = Action::Play { card, from, target: t, face_on_top };
            let err = assert_refused(game, &action, legal, "bad target");
            let expected = match (target, t) {
                (Some(_), None) => matches!(err, ActionError::TargetNeeded { .. }),
                (Some(_), Some(_)) => matches!(err, ActionError::BadTarget { .. }),
                _ => matches!(err, ActionError::NoTargetTaken { .. }),
            };
            assert!(expected, "bad target '{action}': {err:?}");
        }
        // Asking for a discard order where there is no choice.
        let flipped = Action::Play { card, from, target, face_on_top: !face_on_top };
        if !is_listed(legal, &flipped) {
            assert_eq!(assert_refused(game, &flipped, legal, "no order choice"), ActionError::NoOrderChoice);
        }
    }
    if !hand.is_empty() && !game.player(me).has_front(Rank::KING) {
        let action = Action::Recover { cards: Cards::try_from([hand[0]]).unwrap(), face_on_top: true };
        assert_eq!(assert_refused(game, &action, legal, "no order choice"), ActionError::NoOrderChoice);
    }

    // Cards that exist but are not playable now (a J with no target, a second Q …).
    for &card in &hand {
        let listed = plays.iter().any(|a| matches!(a, Action::Play { card: c, from: Source::Hand, .. } if *c == card));
        if !listed {
            for target in [None, Some(rng.random_range(0..n))] {
                let action = Action::Play { card, from: Source::Hand, target, face_on_top: false };
                let err = assert_refused(game, &action, legal, "unplayable");
                assert!(
                    matches!(err, ActionError::NotPlayable { .. } | ActionError::BadTarget { .. }),
                    "'{action}': {err:?}"
                );
            }
        }
    }
}

/// Some legal actions, applied on clones: every one must be accepted.
fn try_legal_sample(game: &Game, legal: &[Action], rng: &mut ChaCha8Rng) {
    // No action is listed twice, and every distinct set of hand cards is one recovery
    // (two per set when a K lets the diver choose the order): with two decks a hand may
    // hold the same card twice.
    let distinct: std::collections::HashSet<&Action> = legal.iter().collect();
    assert_eq!(distinct.len(), legal.len(), "an action is listed twice: {legal:?}");
    let me = game.player(game.current());
    let mut copies = std::collections::BTreeMap::new();
    for c in &me.hand {
        *copies.entry(*c).or_insert(1usize) += 1;
    }
    let sets = copies.values().product::<usize>() - 1;
    let orders = if me.has_front(Rank::KING) { 2 } else { 1 };
    let recoveries = legal.iter().filter(|a| matches!(a, Action::Recover { .. })).count();
    assert_eq!(recoveries, sets * orders, "recoveries for hand {:?}", me.hand);
    // Card by card, the playable cards give the same plays in the same order.
    common::assert_playable_cards_match(game, legal, "a sampled position");
    for _ in 0..3 {
        let action = legal.choose(rng).unwrap();
        let mut copy = game.clone();
        copy.apply(action, &mut ()).unwrap_or_else(|e| panic!("legal '{action}' was refused: {e}"));
        assert_invariants(&copy, &format!("after legal '{action}' on a clone"));
    }
    // A recovery in another card order is the same recovery, with the discard order given.
    let recoveries: Vec<&Action> =
        legal.iter().filter(|a| matches!(a, Action::Recover { cards, .. } if cards.len() >= 2)).collect();
    if let Some(Action::Recover { cards, face_on_top }) = recoveries.choose(rng).map(|a| *(*a)) {
        let mut shuffled = cards;
        shuffled.rotate_left(1);
        let mut copy = game.clone();
        let action = Action::Recover { cards: shuffled, face_on_top };
        copy.apply(&action, &mut ()).unwrap_or_else(|e| panic!("'{action}' in another order was refused: {e}"));
        let top = if face_on_top { Rank::KING } else { shuffled.last().unwrap().rank };
        assert_eq!(copy.discard_top().unwrap().rank, top, "'{action}' discards in the order given");
    }
}

fn play_one(seed: u64, stats: &mut [u32; 2]) {
    let mut game = new_game(seed);
    let policy = if seed.is_multiple_of(10) { Policy::Random } else { Policy::Diver { random_one_in: 6 } };
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    assert_invariants(&game, &format!("game {seed} after the deal"));
    let mut steps = 0;
    while !game.is_over() {
        let legal = game.legal_actions();
        assert!(!legal.is_empty(), "game {seed}: a running game always offers an action");
        // The expensive checks on a rotating share of the steps (each game starts differently).
        let phase = steps + seed as u32;
        if phase.is_multiple_of(6) {
            assert!(legal.iter().all(|a| game.check(a).is_ok()), "game {seed}: legal_actions and check disagree");
            try_legal_sample(&game, &legal, &mut rng);
        }
        if phase.is_multiple_of(9) {
            try_illegal(&mut game, &legal, &mut rng);
        }
        let action = pick(&game, &legal, policy, &mut rng);
        let mut events = Vec::new();
        game.apply(&action, &mut events).unwrap_or_else(|e| panic!("game {seed}: legal '{action}' refused: {e}"));
        let when = format!("game {seed} step {steps} after '{action}'");
        assert_invariants(&game, &when);
        if let Some(i) = events.iter().position(|e| matches!(e, Event::Won { .. } | Event::Draw { .. })) {
            assert_eq!(i, events.len() - 1, "{when}: nothing happens after the end: {events:?}");
        }
        steps += 1;
        assert!(steps <= CAP, "game {seed} did not stop at the cap");
    }
    match game.outcome() {
        Outcome::Won { by: s, .. } => {
            assert_eq!(game.player(s).depth, game.rules().max_depth, "game {seed}: the winner is at the bottom");
            stats[0] += 1;
        }
        Outcome::Draw => {
            assert_eq!(game.turn(), CAP, "game {seed}: a draw only at the cap");
            stats[1] += 1;
        }
        Outcome::Running => unreachable!(),
    }
    assert!(game.legal_actions().is_empty());
    assert_eq!(game.apply(&Action::Pass, &mut ()), Err(ActionError::GameOver));
}

/// Plays one quarter of the games (the quarters run in parallel).
fn play_quarter(quarter: u64) {
    let mut stats = [0u32; 2];
    let games = GAMES / 4;
    for seed in quarter * games..(quarter + 1) * games {
        play_one(seed, &mut stats);
    }
    let [wins, draws] = stats;
    assert_eq!((wins + draws) as u64, games);
    assert!(wins as u64 > games / 2, "most games should be won before the cap: {wins} wins, {draws} draws");
    assert!(draws > 0, "some games should reach the cap: {wins} wins, {draws} draws");
}

#[test]
fn random_games_keep_every_invariant_and_end_1() {
    play_quarter(0);
}

#[test]
fn random_games_keep_every_invariant_and_end_2() {
    play_quarter(1);
}

#[test]
fn random_games_keep_every_invariant_and_end_3() {
    play_quarter(2);
}

#[test]
fn random_games_keep_every_invariant_and_end_4() {
    play_quarter(3);
}

#[test]
fn every_player_count_from_2_to_8_is_played() {
    let counts: std::collections::BTreeSet<usize> = (0..7).map(|s| new_game(s).player_count()).collect();
    assert_eq!(counts.into_iter().collect::<Vec<_>>(), [2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn games_without_a_cap_end_too() {
    // A diver who minds their oxygen reaches the bottom; the loop bound only guards the test.
    for seed in 0..50 {
        let players = 2 + (seed % 7) as usize;
        let names: Vec<&str> = common::NAMES[..players].to_vec();
        let mut game = Game::standard(&names, seed).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..5_000 {
            if game.is_over() {
                break;
            }
            let action = pick(&game, &game.legal_actions(), Policy::Diver { random_one_in: 0 }, &mut rng);
            game.apply(&action, &mut ()).unwrap();
        }
        assert!(matches!(game.outcome(), Outcome::Won { .. }), "game {seed} with no cap did not end in 5,000 turns");
    }
}
