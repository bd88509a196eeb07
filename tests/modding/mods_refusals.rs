//! Refusals in a mod's words: a `targets` function gives a reason per player it leaves out,
//! and `play JS @Bob` names it.

use crate::common;

use common::Deal;
use diving::core::{ActionError, Rules};
use diving::script::{ModSource, load_mods};

#[test]
fn a_refused_target_says_the_mods_reason() {
    let path = "rulesets/examples/jolt-immunity/jolt-immunity.lua";
    let code = std::fs::read_to_string(path).unwrap();
    let registry = load_mods(&Rules::default(), &[ModSource { name: path.into(), code: code.into() }]).unwrap();
    let deal = Deal::new(3)
        .hand("Ann", "9C 5H 3D 2S")
        .hand("Bob", "QH 4C 8D KS")
        .hand("Cat", "JS 4D 8C 6S")
        .table("6C 7C 10D JD")
        .discard("AD");
    // Ann and Bob dive deeper than Cat, Bob puts his Q in front, then Cat may Jolt only Ann.
    let mut game = common::run(deal.game_with(registry), "play 9C; play 8D; play 6S; play 5H; play QH").game;
    let jolt = |target: &str| common::action(&game, &format!("play JS @{target}"));
    let bob = jolt("Bob");
    let ann = jolt("Ann");
    match game.check(&bob) {
        Err(ActionError::BadTarget { reason, .. }) => assert_eq!(
            diving::core::Viewer::Seat(2).read(&reason),
            Some("Bob is immune: a Quick carries them out of reach")
        ),
        other => panic!("expected a refused target, got {other:?}"),
    }
    let refused = diving::core::Viewer::Seat(2).error(&game.apply(&bob, &mut ()).unwrap_err());
    assert!(refused.contains("Bob is immune"), "{refused}");
    game.apply(&ann, &mut ()).unwrap();
}

/// When a mod's `targets` leaves nobody, its reasons per player say why (they were dropped
/// for "JS has no target now": issue 44).
#[test]
fn no_target_left_gives_the_mods_reasons() {
    let path = "rulesets/examples/jolt-immunity/jolt-immunity.lua";
    let code = std::fs::read_to_string(path).unwrap();
    let registry = load_mods(&Rules::default(), &[ModSource { name: path.into(), code: code.into() }]).unwrap();
    let deal = Deal::new(2).hand("Ann", "9C 5H 3D 2S").hand("Bob", "QH 8D 4C KS").discard("AD");
    // Bob dives deeper and keeps a Q in front: the only diver Ann could Jolt is immune.
    let deal = deal.deck("JS");
    let mut game = common::run(deal.game_with(registry), "play 5H; play 8D; play 2S; play QH").game;
    let refused = game.apply(&common::action(&game, "play JS"), &mut ()).unwrap_err();
    // The mod was asked about a card of ann's hand: its reasons are hers to read (issue 43).
    let read = diving::core::Viewer::Seat(0).error(&refused);
    assert!(read.contains("no target: Bob is immune: a Quick carries them out of reach"), "{read}");
}
