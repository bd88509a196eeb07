//! The structure of a game as rule points of the registry: who moves next (D4 as the
//! built-in order, reversed, a turn given, a mod's own order), each change an event every
//! viewer sees, and a failing order changing nothing.

use crate::common::{self, Deal, check, refuse_action};

use std::sync::Arc;

use diving::core::{Action, ActionError, Effect, Event, Game, Rank, Registry, Seat, Source, Viewer};

/// The standard registry with the 2 wrapped: after its play, `then` runs on the context.
fn with_two(then: impl Fn(&mut diving::core::Ctx<'_>, Seat) + Send + Sync + 'static) -> Registry {
    struct Two<F>(Arc<dyn Effect>, F);
    impl<F: Fn(&mut diving::core::Ctx<'_>, Seat) + Send + Sync> Effect for Two<F> {
        fn aim(
            &self,
            state: &diving::core::State,
            player: Seat,
            card: diving::core::Card,
        ) -> Result<diving::core::Aim, diving::core::EffectError> {
            self.0.aim(state, player, card)
        }
        fn resolve(&self, ctx: &mut diving::core::Ctx<'_>, play: diving::core::Play) -> Result<(), diving::core::EffectError> {
            self.0.resolve(ctx, play)?;
            (self.1)(ctx, play.player);
            Ok(())
        }
        fn aim_delegate(&self) -> Option<Arc<dyn Effect>> {
            Some(Arc::clone(&self.0))
        }
    }
    let two = Rank::new(2).unwrap();
    let mut registry = Registry::standard();
    registry.set_effect(two, Arc::new(Two(registry.effect(two), then)));
    registry
}

fn deal() -> Deal {
    Deal::new(4)
        .hand("Ann", "2S 9H 3D 4C")
        .hand("Bob", "5H 9D 8S 4H")
        .hand("Cat", "2H 9C 3S 4D")
        .hand("Dan", "6H 6D 6S 6C")
        .discard("KD")
}

fn turns(game: &Game) -> String {
    format!("{} {}", game.turn(), game.name(game.current()))
}

/// D4 reversed: after a reversal the seat before plays next, round the table that way, and a
/// second reversal turns play back; each is an event that every viewer sees whole.
#[test]
fn a_reversal_turns_play_round_the_table_the_other_way() {
    let game = deal().game_with(with_two(|ctx, _| ctx.reverse()));
    let run = common::run(game, "play 2S");
    assert_eq!(turns(&run.game), "2 Dan");
    assert!(run.game.is_reversed());
    assert_eq!(run.game.next_in_order(), 2, "Cat after Dan");
    let reversed = Event::Reversed { backwards: true };
    assert!(run.last().contains(&reversed), "{:?}", run.last());
    for viewer in [Viewer::Seat(1), Viewer::Spectator, Viewer::Everyone] {
        assert_eq!(viewer.sees(&reversed), diving::core::Seen::Whole(&reversed));
    }
    let run = common::run(run.game, "play 6H; play 2H");
    assert_eq!(turns(&run.game), "4 Dan", "Cat turned play back: Dan follows Cat");
    assert!(!run.game.is_reversed());
}

/// A turn given to a later seat passes over the seats between, each an event; given to the
/// mover, it is another turn. It is taken once.
#[test]
fn a_turn_given_skips_the_seats_between_or_is_another_turn() {
    let skip = deal().game_with(with_two(|ctx, _| ctx.give_turn(2).unwrap()));
    let run = common::run(skip, "play 2S");
    assert_eq!(turns(&run.game), "2 Cat");
    let skipped: Vec<&Event> = run.last().iter().filter(|e| matches!(e, Event::Skipped { .. })).collect();
    assert_eq!(skipped, [&Event::Skipped { player: 1 }]);
    assert_eq!(run.game.given_turn(), None, "a given turn is taken once");
    let run = common::run(run.game, "play 2H");
    assert_eq!(turns(&run.game), "3 Cat", "Cat gives the turn to Cat: another turn");
    assert!(run.last().contains(&Event::AnotherTurn { player: 2 }));
    let run = common::run(run.game, "play 9C");
    assert_eq!(turns(&run.game), "4 Dan", "then play goes on round the table");
}

/// The order is a rule point: a mod's `next_turn` replaces it and can call the built-in one.
/// A hook that names no seat fails, and the action changes nothing.
#[test]
fn a_mods_order_replaces_the_built_in_one_and_a_bad_answer_changes_nothing() {
    let mut registry = Registry::standard();
    let previous = registry.next_turn();
    // Every other seat: the seat after the next.
    registry.set_next_turn(Arc::new(move |ctx, player| {
        let next = previous(ctx, player)?;
        previous(ctx, next)
    }));
    let game = deal().game_with(registry);
    check(&deal(), "play 2S", "turn: 2 Bob");
    let run = common::run(game, "play 2S");
    assert_eq!(turns(&run.game), "2 Cat");
    assert!(run.last().contains(&Event::Skipped { player: 1 }));

    let mut registry = Registry::standard();
    registry.set_next_turn(Arc::new(|_, _| Ok(9)));
    let mut game = deal().game_with(registry);
    let two = Action::play(common::card("2S"), Source::Hand);
    let refused = refuse_action(&mut game, &two);
    assert_eq!(refused, ActionError::Script("the turn order named player 10, but there are 4 players".into()));
}
