//! Every rule point is an event a mod can hook (`diving.on_draw`, `on_breathe`, `on_rescue`,
//! `on_reshuffle`, `on_recover`, `on_turn_end`), with the mover and the cause; what a hook
//! does is an event like any other; `ctx:hand` reads only the current player's hand.

use crate::common;

use common::{Deal, said};
use diving::core::{ActionError, Event, Registry, Rules};
use diving::script::{ModSource, load_mods};

fn mods(files: &[&str]) -> Registry {
    let sources: Vec<ModSource> = files
        .iter()
        .map(|f| {
            let code = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}"));
            ModSource { name: f.to_string(), code: code.into() }
        })
        .collect();
    load_mods(&Rules::default(), &sources).unwrap_or_else(|e| panic!("{e}"))
}

fn two() -> Deal {
    Deal::new(2).hand("Ann", "9C 5H 3D 2S").hand("Bob", "QH 4C 8D KS").table("6C 7C 10D JD").discard("AD")
}

#[test]
fn a_play_says_its_breath_its_draw_and_the_turn_end_in_order() {
    let run = common::run(two().deck("8S").game_with(mods(&["tests/mods/points.lua"])), "play 9C");
    assert_eq!(
        said(run.last()),
        ["breathed Ann 10->9 move", "drew Ann 8S replacement", "turn end Ann hand 5H 3D 2S 8S"]
    );
}

#[test]
fn a_recovery_says_its_draws_then_itself() {
    let deal = two().deck("8S 8H").at("Ann", 30, 4);
    let run = common::run(deal.game_with(mods(&["tests/mods/points.lua"])), "recover 5H 3D");
    assert_eq!(
        said(run.last()),
        [
            "drew Ann 8S recovery",
            "drew Ann 8H recovery",
            "recovered Ann 5H 3D +1 4->5",
            "turn end Ann hand 9C 2S 8S 8H"
        ]
    );
}

#[test]
fn a_rescue_is_said_after_the_breath_that_caused_it() {
    let deal = two().deck("8S").at("Ann", 30, 1);
    let run = common::run(deal.game_with(mods(&["tests/mods/points.lua"])), "play 9C");
    let lines = said(run.last());
    assert_eq!(lines[..2], ["breathed Ann 1->0 move", "rescued Ann"]);
    assert!(run.last().iter().any(|e| matches!(e, Event::Rescued { player: 0, .. })));
}

/// A hook's change is an event of the action: the sharks bite after the drawn 7.
#[test]
fn sharks_bite_the_drawer_of_a_seven() {
    let run = common::run(two().deck("7H").game_with(mods(&["rulesets/examples/sharks/sharks.lua"])), "play 9C");
    assert_eq!(run.game.player(0).oxygen, 7, "9 → 9 oxygen after the move, then 2 for the shark");
    let last = run.last();
    let drew = last.iter().position(|e| matches!(e, Event::Drew { player: 0, .. })).expect("a draw");
    let bite = last.iter().position(|e| matches!(e, Event::Breathed { player: 0, from: 9, to: 7 })).expect("a bite");
    assert!(drew < bite, "{last:?}");
    assert_eq!(said(last), ["a shark bites Ann"]);
}

#[test]
fn a_reshuffle_is_said_with_its_size() {
    // Every action the last listed (the biggest recovery): the deck runs out quickly.
    let deal = two().deck("8S");
    let mut game = deal.game_with(mods(&["tests/mods/points.lua"]));
    let deck = game.deck_size();
    let mut lines = Vec::new();
    for turn in 0..deck + 2 {
        let last = *game.legal_actions().last().expect("an action");
        let mut events = Vec::new();
        game.apply(&last, &mut events).unwrap_or_else(|e| panic!("turn {turn}: {e}"));
        lines.extend(said(&events));
        if events.iter().any(|e| matches!(e, Event::Reshuffled { .. })) {
            let cards = events.iter().find_map(|e| match e {
                Event::Reshuffled { cards } => Some(*cards),
                _ => None,
            });
            assert!(lines.iter().any(|l| l == &format!("reshuffled {}", cards.unwrap())), "{lines:?}");
            return;
        }
    }
    panic!("no reshuffle in {} actions: {lines:?}", deck + 2);
}

/// A hook may read only the current player's hand; reading another is an error that names
/// the line, and the action changes nothing.
#[test]
fn a_hook_cannot_read_another_hand() {
    let mut game = two().game_with(mods(&["tests/mods/peek.lua"]));
    let before = game.clone();
    let act = common::action(&game, "play 9C");
    let mut events = Vec::new();
    match game.apply(&act, &mut events) {
        Err(ActionError::Script(message)) => {
            let message = diving::core::Viewer::Everyone.failure(&message);
            assert!(message.contains("peek.lua:5"), "{message}");
            assert!(message.contains("hands are secret"), "{message}");
        }
        other => panic!("expected the mod to fail, got {other:?}"),
    }
    assert!(game == before && events.is_empty());
}
