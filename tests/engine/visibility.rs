//! What a seat may see: over hundreds of random games, no event as a seat or a spectator sees
//! it ([`Viewer::sees`]) names a card that viewer cannot see at that moment — a card in
//! another diver's hand or in the deck — while every draw into the viewer's own hand is
//! shown whole.

use std::sync::Arc;

use diving::core::{Card, Event, Game, Seat, Seen, Setup, Viewer};
use diving::ruleset::Ruleset;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The cards an event names.
fn cards_named(event: &Event) -> Vec<Card> {
    match event {
        Event::Played { card, .. } | Event::Placed { card, .. } | Event::Discarded { card } => vec![*card],
        Event::Drew { card, .. } | Event::Refilled { card, .. } | Event::Returned { card, .. } => vec![*card],
        // A card taken from the discard pile was face up when the event named it: the hand
        // it is in now is no secret about it.
        Event::Doubled { card, on, .. } => vec![*card, *on],
        Event::Recovered { cards, .. } => cards.to_vec(),
        _ => Vec::new(),
    }
}

/// The cards `viewer` cannot see in `game`: other hands and the deck.
fn hidden_from(game: &Game, viewer: Viewer) -> Vec<Card> {
    let mut hidden: Vec<Card> = game.deck().collect();
    for (seat, p) in game.players().iter().enumerate() {
        if !viewer.sees_hand(seat) {
            hidden.extend(&p.hand);
        }
    }
    hidden
}

/// The rulesets played: the standard one, and salvage, whose action takes a card from the
/// pile into a hand and puts one of the hand back into the deck.
fn games() -> impl Iterator<Item = (u64, Game)> {
    let salvage = Ruleset::load("rulesets/examples/salvage/ruleset.toml").unwrap();
    (0..300u64).map(move |seed| {
        let players = 2 + (seed % 3) as usize;
        let names: Vec<String> = (0..players).map(|i| format!("p{i}")).collect();
        let (rules, registry) = if seed % 2 == 0 {
            (Arc::new(diving::core::Rules::default()), Arc::new(diving::core::Registry::standard()))
        } else {
            (Arc::clone(&salvage.rules), salvage.registry().unwrap())
        };
        (seed, Game::new(rules, registry, Setup { names, seed, deck: None }).unwrap())
    })
}

#[test]
fn no_viewer_is_shown_a_card_it_cannot_see() {
    let (mut checked, mut hidden_draws, mut own_draws, mut hidden_returns) = (0, 0, 0, 0);
    for (seed, mut game) in games() {
        let players = game.player_count();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while !game.is_over() && game.turn() < 120 {
            let legal = game.legal_actions();
            let action = &legal[rng.random_range(0..legal.len())];
            let mut events = Vec::new();
            game.apply(action, &mut events).unwrap();
            // Where every card is is known after the action; a reshuffle in the middle moves
            // cards that were public into the deck, so only what follows it is judged.
            let from = events.iter().rposition(|e| matches!(e, Event::Reshuffled { .. })).map_or(0, |i| i + 1);
            let viewers = (0..players).map(Viewer::Seat).chain([Viewer::Spectator]);
            for viewer in viewers {
                let hidden = hidden_from(&game, viewer);
                for event in &events[from..] {
                    match viewer.sees(event) {
                        // Its owner put the card back: they know it, in the deck or not.
                        Seen::Whole(Event::Returned { player: Some(p), .. }) if viewer.sees_hand(*p) => {}
                        Seen::Whole(e) => {
                            for card in cards_named(e) {
                                assert!(
                                    !hidden.contains(&card),
                                    "seed {seed}: {viewer:?} is shown {card} in {e:?}, which it cannot see"
                                );
                            }
                            if let Event::Drew { player, .. } = e {
                                assert!(viewer == Viewer::Seat(*player), "{viewer:?} saw another's draw {e:?}");
                                own_draws += 1;
                            }
                            checked += 1;
                        }
                        Seen::HiddenDraw { player } => {
                            assert!(!viewer.sees_hand(player), "{viewer:?} is not shown its own draw");
                            assert!(matches!(event, Event::Drew { player: p, .. } if *p == player));
                            hidden_draws += 1;
                        }
                        Seen::HiddenReturn { player } => {
                            assert!(!viewer.sees_hand(player), "{viewer:?} is not shown its own return");
                            assert!(matches!(event, Event::Returned { player: Some(p), .. } if *p == player));
                            hidden_returns += 1;
                        }
                        Seen::Withheld { .. } => unreachable!("no mod speaks in a standard game"),
                    }
                }
            }
        }
    }
    assert!(
        checked > 10_000 && hidden_draws > 1_000 && own_draws > 1_000 && hidden_returns > 100,
        "{checked} {hidden_draws} {own_draws} {hidden_returns}"
    );
}

/// A seat sees its own hand and no other; a spectator sees none; everyone sees all.
#[test]
fn hands_are_seen_by_their_owner_only() {
    let seat = |s: Seat| Viewer::Seat(s);
    assert!(seat(1).sees_hand(1) && !seat(1).sees_hand(0) && !seat(0).sees_hand(1));
    assert!(!Viewer::Spectator.sees_hand(0) && Viewer::Everyone.sees_hand(3));
}
