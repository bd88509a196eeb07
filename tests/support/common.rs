//! Shared helpers for the rules tests: stacked deals (D3) written like the rules, actions in
//! the game's own text form, and a `check(deal, actions, expected)` that plays a scenario and
//! compares the state described line by line.
//!
//! Every action a scenario plays must be legal, must appear in `legal_actions` (the single
//! source of truth), and must keep the invariants: cards conserved, depth and oxygen in bounds,
//! no two same-rank cards in front of anyone.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use diving::core::{Action, ActionError, Card, Event, Game, Registry, Rules, Setup, Viewer, full_deck};

/// Seat names: seat 1 is Ann, seat 2 Bob, and so on.
pub const NAMES: [&str; 8] = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"];

/// Reads one card in D1 notation.
pub fn card(text: &str) -> Card {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// Reads a list of cards.
pub fn cards(text: &str) -> Vec<Card> {
    text.split_whitespace().map(card).collect()
}

/// A stacked deal (D3), written by what each place gets. Anything not given is filled from
/// the cards left over, in the fixed order of `full_deck` (suits S H D C, ranks A … K); `_`
/// in a list also stands for "the next left-over card".
#[derive(Clone)]
pub struct Deal {
    names: Vec<String>,
    rules: Rules,
    hands: Vec<Vec<Option<Card>>>,
    table: Vec<Option<Card>>,
    discard: Option<Card>,
    deck: Vec<Option<Card>>,
    seed: u64,
    positions: Vec<(usize, u32, u32)>,
}

fn spec(text: &str) -> Vec<Option<Card>> {
    text.split_whitespace().map(|t| if t == "_" { None } else { Some(card(t)) }).collect()
}

impl Deal {
    /// A deal for the first `players` names of [`NAMES`], standard rules.
    pub fn new(players: usize) -> Deal {
        Deal::named((0..players).map(|i| NAMES[i].to_string()).collect())
    }

    /// A deal for these names.
    pub fn named(names: Vec<String>) -> Deal {
        let n = names.len();
        Deal {
            names,
            rules: Rules::default(),
            hands: vec![Vec::new(); n],
            table: Vec::new(),
            discard: None,
            deck: Vec::new(),
            seed: 7,
            positions: Vec::new(),
        }
    }

    pub fn rules(mut self, rules: Rules) -> Deal {
        self.rules = rules;
        self
    }

    pub fn seed(mut self, seed: u64) -> Deal {
        self.seed = seed;
        self
    }

    /// The hand of the player called `name`, in the order dealt.
    pub fn hand(mut self, name: &str, text: &str) -> Deal {
        let seat = self.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no player {name}"));
        self.hands[seat] = spec(text);
        self
    }

    /// Table slots 1, 2, … left to right.
    pub fn table(mut self, text: &str) -> Deal {
        self.table = spec(text);
        self
    }

    /// The card that starts the discard pile.
    pub fn discard(mut self, text: &str) -> Deal {
        self.discard = Some(card(text));
        self
    }

    /// The first cards of the deck, top first (the next to be drawn first).
    pub fn deck(mut self, text: &str) -> Deal {
        self.deck = spec(text);
        self
    }

    /// Starts `name` at this depth and oxygen instead of 0 and full, so a scenario can begin
    /// deep in the ocean. The game is set up with a one-off turn-start hook that moves the
    /// diver, then continues with the plain registry: nothing else differs from a dealt game.
    pub fn at(mut self, name: &str, depth: u32, oxygen: u32) -> Deal {
        let seat = self.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no player {name}"));
        self.positions.push((seat, depth, oxygen));
        self
    }

    /// The whole deck order, top first, as `Setup::deck` takes it.
    pub fn order(&self) -> Vec<Card> {
        let (hand_size, table_size) = (self.rules.hand_size, self.rules.table_size);
        let decks = self.rules.decks_for(self.names.len());
        let mut slots: Vec<Option<Card>> = Vec::new();
        for hand in &self.hands {
            assert!(hand.len() <= hand_size, "a hand has more than {hand_size} cards");
            slots.extend(hand.iter().copied());
            slots.extend(std::iter::repeat_n(None, hand_size - hand.len()));
        }
        assert!(self.table.len() <= table_size, "the table has more than {table_size} cards");
        slots.extend(self.table.iter().copied());
        slots.extend(std::iter::repeat_n(None, table_size - self.table.len()));
        slots.push(self.discard);
        slots.extend(self.deck.iter().copied());
        let mut left = full_deck(decks);
        for c in slots.iter().flatten() {
            let i =
                left.iter().position(|l| l == c).unwrap_or_else(|| panic!("{c} is dealt more often than it exists"));
            left.remove(i);
        }
        let mut left = left.into_iter();
        let mut order: Vec<Card> =
            slots.into_iter().map(|s| s.unwrap_or_else(|| left.next().expect("cards left"))).collect();
        order.extend(left);
        order
    }

    /// The game this deal starts.
    pub fn game(&self) -> Game {
        self.game_with(Registry::standard())
    }

    /// The game this deal starts, with another registry.
    pub fn game_with(&self, registry: Registry) -> Game {
        let setup = Setup { names: self.names.clone(), seed: self.seed, deck: Some(self.order()) };
        let registry = Arc::new(registry);
        let mut placing = (*registry).clone();
        let positions = self.positions.clone();
        placing.add_turn_start(Arc::new(move |ctx, _| {
            for &(seat, depth, oxygen) in &positions {
                ctx.set_depth(seat, depth as i64)?;
                ctx.set_oxygen(seat, oxygen as i64)?;
            }
            Ok(())
        }));
        let game = Game::new(Arc::new(self.rules.clone()), Arc::new(placing), setup).unwrap_or_else(|e| panic!("{e}"));
        game.with_registry(registry)
    }
}

/// Reads an action in the form `Action` displays itself, with names allowed as targets:
/// `play 10S`, `play 7H table2`, `play JS @Bob` (or `@2`), `play 5H on-top`,
/// `recover 7H 2H`, `recover 7H on-top`, `pass`.
pub fn action(game: &Game, text: &str) -> Action {
    diving::modkit::scenario::parse_action(game, text).unwrap_or_else(|e| panic!("{e}"))
}

/// The actions of a scenario: separated by `;` or new lines.
pub fn actions(text: &str) -> impl Iterator<Item = &str> {
    text.split([';', '\n']).map(str::trim).filter(|s| !s.is_empty())
}

/// Whether `legal` lists `action` (recoveries compared as sets of cards).
pub fn is_listed(legal: &[Action], action: &Action) -> bool {
    let sorted = |c: &[Card]| {
        let mut c = c.to_vec();
        c.sort_unstable();
        c
    };
    legal.iter().any(|a| match (a, action) {
        (Action::Recover { cards: a, face_on_top: x }, Action::Recover { cards: b, face_on_top: y }) => {
            x == y && sorted(a) == sorted(b)
        }
        _ => a == action,
    })
}

/// Every fold of `game`'s [`Moves`](diving::core::Moves) agrees with `legal` (its
/// `legal_actions`): card by card the playable cards expand to exactly its plays, in order;
/// the counts count them; `nth` builds each action alone; every listed action checks;
/// panics with `when` otherwise.
pub fn assert_playable_cards_match(game: &Game, legal: &[Action], when: &str) {
    let moves = game.moves();
    let playable: Vec<_> = moves.playable().collect();
    assert_eq!(moves.playable().len(), playable.len(), "{when}: the playable cards' count");
    for (i, p) in playable.iter().enumerate() {
        assert_eq!(moves.playable().nth(i).as_ref(), Some(p), "{when}: playable card {i} alone");
    }
    let by_card: Vec<Action> = playable.iter().flat_map(|p| (0..p.play_count()).map(|i| p.play(i))).collect();
    let plays: Vec<Action> = legal.iter().filter(|a| matches!(a, Action::Play { .. })).cloned().collect();
    assert_eq!(by_card, plays, "{when}: the playable cards {playable:?}");
    assert_eq!(moves.play_count(), plays.len(), "{when}: the play count");
    let mut visited = Vec::new();
    moves.each_play(|card, from, target, face_on_top| visited.push(Action::Play { card, from, target, face_on_top }));
    assert_eq!(visited, plays, "{when}: each_play");
    assert_eq!(moves.len(), legal.len(), "{when}: the action count");
    for (i, action) in legal.iter().enumerate() {
        assert_eq!(moves.nth(i).as_ref(), Some(action), "{when}: action {i}");
        assert_eq!(game.check(action), Ok(()), "{when}: '{action}' is listed but does not check");
    }
    assert_eq!(moves.nth(legal.len()), None, "{when}: past the end");
}

/// The invariants of the game module docs; panics with `when` on a breach.
pub fn assert_invariants(game: &Game, when: &str) {
    let decks = game.decks() as usize;
    assert_eq!(game.card_count(), 52 * decks, "cards not conserved {when}");
    // Each of the 52 cards exactly once per deck, wherever it is.
    let mut seen = [0usize; 52];
    let mut count = |c: &Card| seen[(c.suit as usize) * 13 + c.rank.number() as usize - 1] += 1;
    game.players().iter().flat_map(|p| p.hand.iter().chain(&p.front)).for_each(&mut count);
    game.table().iter().flatten().for_each(&mut count);
    game.discard_pile().iter().for_each(&mut count);
    game.deck().for_each(|c| count(&c));
    if let Some(i) = seen.iter().position(|&n| n != decks) {
        let card = full_deck(1)[i];
        panic!("{card} is there {} times, not {decks}, {when}", seen[i]);
    }
    let rules = game.rules();
    for (seat, p) in game.players().iter().enumerate() {
        assert!(p.depth <= rules.max_depth, "seat {seat} depth {} out of bounds {when}", p.depth);
        assert!(p.oxygen <= rules.max_oxygen, "seat {seat} oxygen {} out of bounds {when}", p.oxygen);
        assert!(p.oxygen > 0, "seat {seat} has 0 oxygen and was not rescued {when}");
        let ranks = p.front.iter().fold(0u16, |set, c| set | 1 << c.rank.number());
        assert_eq!(p.front_ranks(), ranks, "seat {seat}'s front rank set is out of step with {:?} {when}", p.front);
        for (i, c) in p.front.iter().enumerate() {
            assert!(p.front[..i].iter().all(|o| o.rank != c.rank), "seat {seat} has two {} in front {when}", c.rank);
        }
    }
    assert!(!game.discard_pile().is_empty(), "the discard pile is empty {when}");
}

/// A played scenario: the game at the end and the events of each action.
pub struct Run {
    pub game: Game,
    pub events: Vec<Vec<Event>>,
}

impl Run {
    /// Every event of the scenario, in order.
    pub fn log(&self) -> Vec<Event> {
        self.events.concat()
    }

    /// The events of the last action.
    pub fn last(&self) -> &[Event] {
        self.events.last().map_or(&[], Vec::as_slice)
    }
}

/// Plays `text` (see [`action`]) from the deal; each action must be legal and listed.
pub fn play(deal: &Deal, text: &str) -> Run {
    run(deal.game(), text)
}

/// Plays `text` on `game`.
pub fn run(mut game: Game, text: &str) -> Run {
    assert_invariants(&game, "after the deal");
    let mut events = Vec::new();
    for (i, line) in actions(text).enumerate() {
        let act = action(&game, line);
        let legal = game.legal_actions();
        assert!(is_listed(&legal, &act), "action {} '{line}' is not in legal_actions: {legal:?}", i + 1);
        let mut evs = Vec::new();
        game.apply(&act, &mut evs).unwrap_or_else(|e| panic!("action {} '{line}' was refused: {e}", i + 1));
        assert_invariants(&game, &format!("after action {} '{line}'", i + 1));
        events.push(evs);
    }
    Run { game, events }
}

/// The state as `key: value` lines, the keys [`check`] understands: those of `diving mod
/// test`'s scenario files (`Ann` (depth, oxygen, front), `hand Ann`, `pending Ann`, `table`,
/// `top`, `discard` (bottom first), `deck` (how many), `deck top`, `turn`, `outcome`).
pub fn describe(game: &Game) -> BTreeMap<String, String> {
    diving::modkit::scenario::describe(game)
}

/// Compares the `key: value` lines of `expected` with the state; lists every difference.
pub fn assert_state(game: &Game, expected: &str) {
    let state = describe(game);
    let mut wrong = Vec::new();
    for line in expected.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (key, want) = line.split_once(':').unwrap_or_else(|| panic!("expected 'key: value', got '{line}'"));
        let (key, want) = (key.trim(), want.trim());
        match state.get(key) {
            None => wrong.push(format!("no such key '{key}'")),
            Some(got) if got != want => wrong.push(format!("{key}: expected '{want}', got '{got}'")),
            Some(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}\nfull state: {state:#?}", wrong.join("\n"));
}

/// Plays a scenario and checks the state at its end.
pub fn check(deal: &Deal, actions: &str, expected: &str) -> Run {
    let run = play(deal, actions);
    assert_state(&run.game, expected);
    run
}

/// Tries an illegal action: it must be refused and leave the game exactly as it was.
pub fn refuse(game: &mut Game, text: &str) -> ActionError {
    let act = action(game, text);
    refuse_action(game, &act)
}

/// [`refuse`] for an action value.
pub fn refuse_action(game: &mut Game, act: &Action) -> ActionError {
    let before = game.clone();
    let mut events = Vec::new();
    let err = game.apply(act, &mut events).err().unwrap_or_else(|| panic!("'{act}' was accepted"));
    assert!(*game == before, "'{act}' was refused ({err}) but changed the game");
    assert!(events.is_empty(), "'{act}' was refused ({err}) but sent events: {events:?}");
    if !matches!(err, ActionError::Script(_)) {
        // A scripted failure happens while resolving; everything else is known beforehand.
        assert_eq!(game.check(act), Err(err.clone()), "check and apply disagree on '{act}'");
        assert!(!is_listed(&game.legal_actions(), act), "'{act}' is refused but listed as legal");
    }
    err
}

/// `trigger` must be refused with a message that starts with `prefix` and holds `fragment`,
/// the same way a second time, leaving `game` as it was; then `next` must apply (and the
/// invariants hold). Returns the message. How the hostile-mod suites check a contained mod.
pub fn refused_twice_then(game: &mut Game, trigger: &str, prefix: &str, fragment: &str, next: &str) -> String {
    let before = game.clone();
    let act = action(game, trigger);
    let error = game.apply(&act, &mut ()).expect_err("the hostile action must fail");
    // The mod author's view: the whole message (a mod's own words may be withheld from seats).
    let message = Viewer::Everyone.error(&error);
    assert!(message.starts_with(prefix), "expected '{prefix}…', got '{message}'");
    assert!(message.contains(fragment), "expected '{fragment}' in '{message}'");
    assert!(*game == before, "the failed action changed the game");
    let again = Viewer::Everyone.error(&game.apply(&act, &mut ()).expect_err("the hostile action must fail again"));
    assert_eq!(again, message);
    assert!(*game == before, "the failed action changed the game");
    game.apply(&action(game, next), &mut ()).unwrap_or_else(|e| panic!("the next action failed: {e}"));
    assert_invariants(game, "after the next action");
    message
}

/// Writes `fragile.toml` into `dir`: the standard rules with a mod whose 7 breaks once a game
/// passes turn 12 (`the seven snapped`, at `fragile.lua:2`), for the tests of a mod that fails
/// mid-run. Returns the ruleset's path.
pub fn fragile_ruleset(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::write(dir.join("fragile.toml"), "extends = \"standard\"\nmods = [\"fragile.lua\"]\n").unwrap();
    std::fs::write(
        dir.join("fragile.lua"),
        "diving.wrap(7, function(ctx, play, previous)\n  if ctx:turn() > 12 then error('the seven snapped') end\n  previous(ctx, play)\nend)\n",
    )
    .unwrap();
    dir.join("fragile.toml")
}

/// The narration lines (`ctx:say`) in these events, in order.
pub fn said(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Said { words, .. } => Some(Viewer::Everyone.shown(words).to_string()),
            _ => None,
        })
        .collect()
}
