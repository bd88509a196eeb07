//! Replacing any registry entry or hook through the public API can never leave a failed
//! action half-applied: for each setter, a replacement that changes the game and then fails
//! is refused with the game exactly as before and no event sent; and the registry itself
//! keeps track of what is built in (no caller has to say so).

use crate::common;

use std::sync::Arc;

use diving::core::{
    Action, ActionError, Aim, Card, Ctx, Effect, EffectError, Game, ModId, Play, Rank, Registry, Rules, Seat, Setup,
    State,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Changes the game as much as a handler can, then fails.
fn meddle_and_fail(ctx: &mut Ctx<'_>, player: Seat) -> EffectError {
    ctx.say(ModId(0), "about to fail");
    let _ = ctx.set_depth(player, 1);
    let _ = ctx.set_oxygen(player, 1);
    let _ = ctx.draw_to_hand(player);
    let _ = ctx.random(6);
    EffectError::new("the replacement failed")
}

/// An entry that runs the one it replaces, then meddles and fails.
struct Failing(Arc<dyn Effect>);

impl Effect for Failing {
    fn aim(&self, state: &State, player: Seat, card: Card) -> Result<Aim, EffectError> {
        self.0.aim(state, player, card)
    }
    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        self.0.resolve(ctx, play)?;
        Err(meddle_and_fail(ctx, play.player))
    }
    fn aim_delegate(&self) -> Option<Arc<dyn Effect>> {
        Some(Arc::clone(&self.0))
    }
}

/// Every way to replace behaviour, each with a replacement that fails after changing things.
fn failing_registries() -> Vec<(&'static str, Registry)> {
    let mut out: Vec<(&'static str, Registry)> = Vec::new();
    for (name, rank) in [("number card", 7), ("jolt", 11), ("quick", 12), ("knot", 13)] {
        let rank = Rank::new(rank).unwrap();
        let mut r = Registry::standard();
        r.set_effect(rank, Arc::new(Failing(r.effect(rank))));
        out.push((name, r));
    }
    let mut r = Registry::standard();
    r.set_oxygen_cost(Arc::new(|ctx, player, _| Err(meddle_and_fail(ctx, player))));
    out.push(("oxygen cost", r));
    let mut r = Registry::standard();
    r.set_win_check(Arc::new(|ctx, player| Err(meddle_and_fail(ctx, player))));
    out.push(("win check", r));
    let mut r = Registry::standard();
    r.set_rescue(Arc::new(|ctx, player| Err(meddle_and_fail(ctx, player))));
    out.push(("rescue", r));
    let mut r = Registry::standard();
    r.set_recovery_gain(Arc::new(|ctx, player, _| Err(meddle_and_fail(ctx, player))));
    out.push(("recovery gain", r));
    let mut r = Registry::standard();
    // Not on the opening turn, or the game could not start.
    r.add_turn_start(Arc::new(
        |ctx, player| if ctx.state().turn() > 1 { Err(meddle_and_fail(ctx, player)) } else { Ok(()) },
    ));
    out.push(("turn start", r));
    let mut r = Registry::standard();
    r.set_next_turn(Arc::new(|ctx, player| Err(meddle_and_fail(ctx, player))));
    out.push(("next turn", r));
    let mut r = Registry::standard();
    r.add_after_move(Arc::new(|ctx, player, _, _| Err(meddle_and_fail(ctx, player))));
    out.push(("after move", r));
    out
}

#[test]
fn a_failing_replacement_of_any_entry_or_hook_changes_nothing() {
    for (name, registry) in failing_registries() {
        assert!(!registry.is_native(), "{name}: the registry must know it is not the standard one");
        let refused = random_games(registry, 40);
        assert!(!refused.is_empty(), "{name}: the failing replacement never ran");
        for e in refused {
            assert_eq!(e, ActionError::Script(EffectError::new("the replacement failed")), "{name}");
        }
    }
}

/// What is built in is the registry's own business: a replaced entry or hook is never run as
/// the built-in code, and a wrap that passes `aim` on keeps the built-in answer.
#[test]
fn the_registry_knows_what_is_built_in() {
    let standard = Registry::standard();
    assert!(standard.is_native() && standard.has_native_aims());
    for (name, registry) in failing_registries() {
        assert!(!registry.is_native(), "{name}");
        // Every failing entry passes `aim` on: what a card offers is still the built-in answer.
        assert!(registry.has_native_aims(), "{name}");
    }
    // An entry with its own aim is not a built-in aim, until the built-in entry is back.
    struct Own;
    impl Effect for Own {
        fn aim(&self, _: &State, _: Seat, _: Card) -> Result<Aim, EffectError> {
            Ok(Aim::FREE)
        }
        fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
            ctx.discard(play.card);
            Ok(())
        }
    }
    let mut registry = Registry::standard();
    let queen = registry.effect(Rank::QUEEN);
    registry.set_effect(Rank::QUEEN, Arc::new(Own));
    assert!(!registry.has_native_aims() && !registry.is_native());
    registry.set_effect(Rank::QUEEN, queen);
    assert!(registry.has_native_aims() && registry.is_native(), "the built-in entry is back");
    registry.set_effect(Rank::QUEEN, registry.effect(Rank::JACK));
    assert!(!registry.is_native(), "a rank answered by another rank's entry is not standard");
    assert!(!registry.has_native_aims(), "a Q that aims as a Jolt does not offer what the rules say");
    assert_eq!(registry.target_question(Rank::QUEEN), "whom do you Jolt");
}

/// A replaced hook is the one that runs, also where the engine runs the built-in code
/// directly; the built-in hook handed out for wrapping answers as the engine does.
#[test]
fn replaced_hooks_run_and_built_in_ones_can_be_wrapped() {
    fn first_move(registry: Registry) -> (u32, bool) {
        let setup = Setup { names: vec!["a".into(), "b".into()], seed: 5, deck: None };
        let mut game = Game::new(Arc::new(Rules::default()), Arc::new(registry), setup).unwrap();
        let action = game.legal_actions().into_iter().find(|a| matches!(a, Action::Play { .. })).unwrap();
        game.apply(&action, &mut ()).unwrap();
        (game.player(0).oxygen, game.is_over())
    }
    let (oxygen, won) = first_move(Registry::standard());
    assert!(oxygen < 10 && !won, "a first move costs oxygen and does not win");
    let mut free_air = Registry::standard();
    free_air.set_oxygen_cost(Arc::new(|_, _, _| Ok(0)));
    assert_eq!(first_move(free_air).0, 10);
    let mut instant = Registry::standard();
    instant.set_win_check(Arc::new(|_, _| Ok(true)));
    assert!(first_move(instant).1);
    // Wrapping the built-in cost with itself plays the standard game.
    let mut wrapped = Registry::standard();
    let cost = wrapped.oxygen_cost();
    wrapped.set_oxygen_cost(Arc::new(move |ctx, p, d| cost(ctx, p, d)));
    assert_eq!(first_move(wrapped), first_move(Registry::standard()));
}

/// Plays `games` random three-player games under `registry`, trying the listed actions in a
/// random order until one goes through; every action either goes through with the
/// invariants kept, or is refused with the game exactly as before and no event sent.
/// Returns the refusals.
fn random_games(registry: Registry, games: u64) -> Vec<ActionError> {
    let registry = Arc::new(registry);
    let mut refused = Vec::new();
    for seed in 0..games {
        let setup = Setup { names: vec!["a".into(), "b".into(), "c".into()], seed, deck: None };
        let mut game = Game::new(Arc::new(Rules::default()), Arc::clone(&registry), setup).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        'game: while !game.is_over() && game.turn() < 200 {
            let mut legal = game.legal_actions();
            while !legal.is_empty() {
                let action = legal.swap_remove(rng.random_range(0..legal.len()));
                let before = game.clone();
                let mut events = Vec::new();
                match game.apply(&action, &mut events) {
                    Ok(()) => {
                        common::assert_invariants(&game, &format!("seed {seed} after '{action}'"));
                        continue 'game;
                    }
                    Err(e) => {
                        assert!(game == before, "seed {seed}: the refused '{action}' ({e}) changed the game");
                        assert!(events.is_empty(), "seed {seed}: the refused '{action}' sent {events:?}");
                        refused.push(e);
                    }
                }
            }
            break;
        }
    }
    refused
}

/// A rank given another rank's built-in card runs built-in code that can still fail (a Q that
/// aims like a Jolt cannot know two Qs do not stack, D17): the engine keeps its undo copy for
/// it, and the refusal changes nothing.
#[test]
fn a_built_in_card_under_another_rank_is_refused_cleanly() {
    for (rank, lent) in [(Rank::QUEEN, Rank::JACK), (Rank::KING, Rank::QUEEN)] {
        let mut registry = Registry::standard();
        registry.set_effect(rank, registry.effect(lent));
        assert!(!random_games(registry, 40).is_empty(), "{rank} as {lent}: no play was refused");
    }
}

/// A hook may take away the Q a Quick play would discard at the end (D14): the play goes on
/// without it, and nothing panics.
#[test]
fn a_hook_that_takes_the_queen_away_does_not_break_the_quick() {
    let mut registry = Registry::standard();
    registry.add_after_move(Arc::new(|ctx, player, _, _| {
        if let Some(queen) = ctx.take_front(player, Rank::QUEEN) {
            ctx.discard(queen);
        }
        Ok(())
    }));
    assert_eq!(random_games(registry, 40), [], "a legal action was refused");
}

/// A hand never grows past `MAX_HAND_SIZE` through an entry: a number card that draws twenty
/// cards is refused (the game as before), so a listing's recoveries stay below 2¹³.
#[test]
fn an_entry_cannot_draw_a_hand_past_its_size() {
    struct Hoard;
    impl Effect for Hoard {
        fn aim(&self, _: &State, _: Seat, _: Card) -> Result<Aim, EffectError> {
            Ok(Aim::Open { targets: None, order_choice: false })
        }
        fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
            for _ in 0..20 {
                ctx.draw_to_hand(play.player)?;
            }
            Ok(())
        }
    }
    let mut registry = Registry::standard();
    for rank in 1..=10 {
        registry.set_effect(Rank::new(rank).unwrap(), Arc::new(Hoard));
    }
    let mut game = Game::new(
        Arc::new(Rules::default()),
        Arc::new(registry),
        Setup { names: vec!["a".into(), "b".into()], seed: 5, deck: None },
    )
    .unwrap();
    let play =
        game.legal_actions().into_iter().find(|a| matches!(a, Action::Play { card, .. } if card.rank.is_number()));
    let play = play.expect("a number card to play");
    let before = game.clone();
    let err = game.apply(&play, &mut ()).unwrap_err();
    assert!(err.to_string().contains("a hand holds at most 12 cards"), "{err}");
    assert_eq!(game, before, "the refused action changed the game");
}
