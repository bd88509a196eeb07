//! The structure of a game as rule points of the registry: who moves next (D4 as the
//! built-in order, reversed, a turn given, a mod's own order), each change an event every
//! viewer sees, and a failing order changing nothing.

use crate::common::{self, Deal, check, refuse_action};

use std::sync::Arc;

use diving::core::{Action, ActionError, Effect, EffectError, Event, Game, Rank, Registry, Seat, Source, Viewer};

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
        fn resolve(
            &self,
            ctx: &mut diving::core::Ctx<'_>,
            play: diving::core::Play,
        ) -> Result<(), diving::core::EffectError> {
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
    assert_eq!(
        refused,
        ActionError::Script(EffectError::new("the turn order named player 10, but there are 4 players"))
    );
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
    registry.set_card_value(Arc::new(move |ctx, player, card| {
        Ok(previous(ctx, player, card)? + u32::from(card.suit.is_red()))
    }));
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
    assert_eq!(refused, ActionError::Script(EffectError::new("7H cannot be worth 5000: a card is worth at most 1000")));
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
                    Moment::Jolted { player, from, to } => {
                        format!("{} jolted {from} -> {to}", ctx.state().name(player))
                    }
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
    let run = common::run(
        deal.game_with(registry),
        "play JS @Bob; play 7H; play QS; play 3S; play 2S @Bob; play 8C; play KS @Bob; recover 2D",
    );
    assert_eq!(
        *heard.lock().unwrap(),
        ["Bob jolted 40 -> 33", "Ann quick 0 -> 12, pushed Bob 36 -> 40", "Bob knotted with 2D",]
    );
    assert!(!run.game.is_over());
}

/// Teams from the rules: seats alternate; a win is the team's, shared by every member; with
/// `target_teammates` off the built-in cards name only the other team's divers, and naming a
/// teammate is refused with why.
#[test]
fn a_team_wins_together_and_the_built_in_cards_can_spare_teammates() {
    use diving::core::{Outcome, Seats, TeamRule};
    let teams = |target_teammates| diving::core::Rules {
        teams: Some(TeamRule { count: 2, target_teammates }),
        ..diving::core::Rules::default()
    };
    let deal = |rules| Deal::new(4).rules(rules).hand("Ann", "10S JS 3D 4D").discard("9H").at("Ann", 90, 5);
    let run = check(&deal(teams(true)), "play 10S", "outcome: Ann and Cat won");
    assert_eq!(run.game.outcome(), Outcome::Won { by: 0, winners: Seats(0b0101) });
    assert!(run.last().contains(&Event::Won { player: 0, winners: Seats(0b0101) }));

    // Bob and Cat are deeper than Ann: a Jolt may name either, or only Bob when teammates
    // are spared.
    let deeper = |rules| deal(rules).at("Ann", 10, 10).at("Bob", 30, 10).at("Cat", 40, 10);
    let offered = |game: &Game| -> Vec<Seat> {
        game.legal_actions()
            .into_iter()
            .filter_map(|a| match a {
                Action::Play { card, target: Some(t), .. } if card == common::card("JS") => Some(t),
                _ => None,
            })
            .collect()
    };
    assert_eq!(offered(&deeper(teams(true)).game()), [1, 2]);
    let mut spared = deeper(teams(false)).game();
    assert_eq!(offered(&spared), [1]);
    let jolt_cat = Action::Play { card: common::card("JS"), from: Source::Hand, target: Some(2), face_on_top: false };
    let refused = refuse_action(&mut spared, &jolt_cat);
    assert!(refused.to_string().ends_with("they are on your team"), "{refused}");
}

/// A mod's results and teams: a shared win, a draw, and teams set during the game, each an
/// event; nothing ends a game twice.
#[test]
fn a_mod_can_declare_a_shared_win_a_draw_or_new_teams() {
    use diving::core::{Outcome, Seats};
    let deal = Deal::new(4).hand("Ann", "2S 9H 3D 4C").discard("KD");
    let game = deal.game_with(with_two(|ctx, _| {
        ctx.set_teams(&[0, 0, 1, 1]).unwrap();
        ctx.win(Seats(0b0001)).unwrap();
        assert!(ctx.end_in_draw().is_err(), "a game ends once");
    }));
    let run = common::run(game, "play 2S");
    assert_eq!(run.game.outcome(), Outcome::Won { by: 0, winners: Seats(0b0011) }, "Ann and her new teammate Bob");
    assert!(run.last().contains(&Event::Teams { teams: vec![0, 0, 1, 1] }));
    assert_eq!(run.game.teams().map(|t| t.of_seats().collect::<Vec<_>>()), Some(vec![0, 0, 1, 1]));

    let game = deal.game_with(with_two(|ctx, _| ctx.end_in_draw().unwrap()));
    let run = common::run(game, "play 2S");
    assert_eq!(run.game.outcome(), Outcome::Draw);
    assert_eq!(run.last().last(), Some(&Event::Draw { turns: 1 }));

    let game = deal.game_with(with_two(|ctx, _| {
        assert_eq!(
            ctx.set_teams(&[0, 2, 0, 2]).unwrap_err().to_string(),
            "team 2 has nobody in it (teams are numbered 1, 2 … without a gap)"
        );
        assert!(ctx.set_teams(&[0, 1]).is_err(), "one team per player");
    }));
    common::run(game, "play 2S");
}

/// The piles: a card of the discard pile (the top, or one named) taken into a hand, in
/// sight of everyone; a card of the mover's hand shuffled back into the deck, which only its
/// owner sees; a shuffle from the game's seeded RNG. Each is an event; what cannot be done
/// is refused, and cards are conserved.
#[test]
fn the_piles_change_through_checked_operations_each_an_event() {
    use diving::core::Seen;
    let deal = Deal::new(2).hand("Ann", "2S 9H 3D 4C").discard("KD");
    let game = deal.game_with(with_two(|ctx, player| {
        // The 2 is on the pile now, over the KD.
        assert_eq!(
            ctx.take_discard(player, Some(common::card("5C"))).unwrap_err().to_string(),
            "5C is not on the discard pile"
        );
        assert_eq!(ctx.take_discard(player, Some(common::card("KD"))), Ok(common::card("KD")));
        assert_eq!(
            ctx.take_discard(player, None).unwrap_err().to_string(),
            "the discard pile's only card stays: the pile is never empty"
        );
        assert_eq!(ctx.return_from_hand(common::card("9H")), Ok(true));
        assert_eq!(ctx.return_from_hand(common::card("9H")), Ok(false), "not in the hand any more");
    }));
    let run = common::run(game, "play 2S");
    let ann = run.game.player(0);
    assert_eq!(ann.hand[..3], common::cards("3D 4C KD")[..], "the replacement draw comes after the effect (D6)");
    assert_eq!(run.game.discard_pile(), &common::cards("2S")[..]);
    let returned = Event::Returned { player: Some(0), card: common::card("9H") };
    let log = run.last();
    assert!(log.contains(&Event::TookFromPile { player: 0, card: common::card("KD") }));
    assert!(log.contains(&returned));
    assert!(log.iter().any(|e| matches!(e, Event::DeckShuffled { cards: 40 })), "{log:?}");
    assert_eq!(Viewer::Seat(1).sees(&returned), Seen::HiddenReturn { player: 0 });
    assert_eq!(Viewer::Spectator.sees(&returned), Seen::HiddenReturn { player: 0 });
    assert_eq!(Viewer::Seat(0).sees(&returned), Seen::Whole(&returned));
    // The same seed shuffles alike.
    let again = common::run(
        deal.game_with(with_two(|ctx, player| {
            ctx.take_discard(player, Some(common::card("KD"))).unwrap();
            ctx.return_from_hand(common::card("9H")).unwrap();
        })),
        "play 2S",
    );
    assert_eq!(again.game, run.game);
}

/// A full hand takes no card from the pile.
#[test]
fn a_full_hand_takes_nothing_from_the_pile() {
    let deal = Deal::new(2).hand("Ann", "2S 9H 3D 4C").discard("KD");
    let game = deal.game_with(with_two(|ctx, player| {
        while ctx.draw_to_hand(player).is_ok_and(|drew| drew) {}
        assert_eq!(ctx.take_discard(player, None).unwrap_err().to_string(), "a hand holds at most 12 cards");
    }));
    common::run(game, "play 2S");
}
