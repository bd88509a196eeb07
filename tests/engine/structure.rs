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

/// D8 with values a ruleset sets: every built-in rule reads the one value (the dive, doubling,
/// the Jolt, the Quick), and so do the events.
#[test]
fn every_built_in_rule_reads_the_card_values_in_force() {
    let mut rules = diving::core::Rules::default();
    rules.values[0] = 11;
    let aces = || Deal::new(2).rules(rules.clone());
    let run = check(&aces().hand("Ann", "AH 9C 3D 2S").discard("KD"), "play AH", "Ann: depth 11, oxygen 9");
    assert!(run.last().contains(&Event::Moved { player: 0, from: 0, to: 11 }));
    let run = check(&aces().hand("Ann", "AH 9C 3D 2S").discard("5H"), "play AH", "Ann: depth 22, oxygen 9");
    let doubled = Event::Doubled { player: 0, card: common::card("AH"), on: common::card("5H"), value: 22 };
    assert!(run.last().contains(&doubled));
    let jolt = aces().hand("Ann", "JS 9C 3D 2S").hand("Bob", "AH 8C 3S 2D").discard("KD").at("Bob", 40, 8);
    check(&jolt, "play JS @Bob; play AH", "Bob: depth 29, oxygen 6");
    let quick = aces().hand("Ann", "QS 9C 3D 2S").hand("Bob", "4C 8C 3S 2D").deck("AH").discard("KD");
    check(&quick, "play QS; play 4C; play AH @Bob", "Ann: depth 19, oxygen 9\nBob: depth 8, oxygen 8");
}

/// A card's value is a rule point: a hook replaces it per card and player, the built-in rules
/// and a forecast ask it, and a value past the most a card is worth fails, changing nothing.
#[test]
fn a_card_value_hook_is_asked_by_the_rules_and_the_forecast() {
    let mut registry = Registry::standard();
    let previous = registry.card_value();
    // Red cards are worth one more.
    registry.set_card_value(Arc::new(move |ctx, player, card| Ok(previous(ctx, player, card)? + u32::from(card.suit.is_red()))));
    let deal = Deal::new(2).hand("Ann", "7H 7C 3D 2S").discard("KS");
    let run = common::run(deal.game_with(registry.clone()), "play 7H");
    assert_eq!(run.game.player(0).depth, 8);
    let game = deal.game_with(registry);
    let mut forecast = diving::core::View::new(&game, 0).forecast();
    assert_eq!(forecast.card_value(0, common::card("7H")), Ok(8));
    assert_eq!(forecast.card_value(0, common::card("7C")), Ok(7));
    assert!(!diving::core::View::new(&game, 0).plans_from_tables(), "a planner asks the hook");

    let mut registry = Registry::standard();
    registry.set_card_value(Arc::new(|_, _, _| Ok(5000)));
    let mut game = deal.game_with(registry);
    let refused = refuse_action(&mut game, &Action::play(common::card("7H"), Source::Hand));
    assert_eq!(refused, ActionError::Script("7H cannot be worth 5000: a card is worth at most 1000".into()));
}

/// The outcome of each built-in effect is a rule point (D13, D14, D16): a reaction hears a
/// Jolt's move up, a Quick's move and its push, and a Knot's spoilt recovery, once each, after
/// the effect is over.
#[test]
fn the_outcome_of_each_built_in_effect_is_a_rule_point() {
    use diving::core::{Moment, Point};
    use std::sync::Mutex;
    let heard = Arc::new(Mutex::new(Vec::new()));
    let mut registry = Registry::standard();
    for point in [Point::Jolted, Point::Quickened, Point::Knotted] {
        let heard = Arc::clone(&heard);
        registry.add_reaction(
            point,
            Arc::new(move |ctx, moment| {
                let line = match *moment {
                    Moment::Jolted { player, from, to } => format!("{} jolted {from} -> {to}", ctx.state().name(player)),
                    Moment::Quickened { player, from, to, target, pushed_from, pushed_to } => format!(
                        "{} quick {from} -> {to}, pushed {} {pushed_from} -> {pushed_to}",
                        ctx.state().name(player),
                        ctx.state().name(target)
                    ),
                    Moment::Knotted { player, cards } => {
                        format!("{} knotted with {}", ctx.state().name(player), cards[0])
                    }
                    _ => unreachable!("only these points"),
                };
                heard.lock().unwrap().push(line);
                Ok(())
            }),
        );
    }
    let deal = Deal::new(2)
        .hand("Ann", "JS QS KS 2S")
        .hand("Bob", "7H 8C 3S 2D")
        .deck("5H 9D AC")
        .discard("KD")
        .at("Bob", 40, 8);
    let run = common::run(deal.game_with(registry), "play JS @Bob; play 7H; play QS; play 3S; play 2S @Bob; play 8C; play KS @Bob; recover 2D");
    assert_eq!(
        *heard.lock().unwrap(),
        [
            "Bob jolted 40 -> 33",
            "Ann quick 0 -> 12, pushed Bob 36 -> 40",
            "Bob knotted with 2D",
        ]
    );
    assert!(!run.game.is_over());
}
