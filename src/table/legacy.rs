//! The step hash of recordings made before the canonical one ([`record::step_hash`]): save
//! format 2 and the journals of its hosts hashed the JSON text of the `state` object and of
//! every event. Nothing new is recorded with it, and no game computes it as it is played: it
//! is worked out only where such a recording is read, for its recorded moves —
//! [`Session::from_save`](super::session::Session::from_save) for a format-2 save, and
//! `server::import` for an older host's journal.
//!
//! [`record::step_hash`]: super::record::step_hash

use serde::Serialize;

use crate::core::{Card, Event, Game, Outcome, Viewer};
use crate::table::json::{self, CardJson};

/// The step hash a format-2 recording gives a move: over the text of the `state` object
/// (`write_state`) after it, then of every event it caused, each after a newline.
pub fn step_hash(game: &Game, bots: &[Option<String>], events: &[Event]) -> u64 {
    // The text is hashed as it is written, never built.
    let mut hash = Fnv1a64(crate::ruleset::FNV1A64_START);
    write_state(&mut hash, game, bots).expect("a state serialises");
    for e in events {
        std::io::Write::write_all(&mut hash, b"\n").expect("a hash takes every byte");
        json::write_event(&mut hash, game, e, Viewer::Everyone).expect("an event serialises");
    }
    hash.0
}

/// FNV-1a over what is written into it.
struct Fnv1a64(u64);

impl std::io::Write for Fnv1a64 {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 = crate::ruleset::fnv1a64_on(self.0, bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The `state` object as save format 2 wrote it, as JSON text into `out`, without building
/// the object: what the step hashes of those saves read ([`step_hash`]). Its keys are that
/// recording's contract and stay as they were: what [`json::state`] gained since (`winners`,
/// the order of play, teams) is not in it.
fn write_state(out: impl std::io::Write, game: &Game, bots: &[Option<String>]) -> serde_json::Result<()> {
    /// [`json::state`]'s keys and values, in its order (`the_written_state_is_the_state_object`
    /// checks that they agree).
    #[derive(Serialize)]
    struct State<'a> {
        turn: u32,
        current: &'a str,
        winner: Option<&'a str>,
        draw: bool,
        over: bool,
        deck_size: usize,
        #[serde(with = "json::card_list")]
        deck: Vec<Card>,
        discard_size: usize,
        discard_top: Option<CardJson>,
        #[serde(with = "json::card_list")]
        discard: &'a [Card],
        table: Vec<Option<CardJson>>,
        players: Vec<Player<'a>>,
    }
    #[derive(Serialize)]
    struct Player<'a> {
        name: &'a str,
        seat: usize,
        depth: u32,
        oxygen: u32,
        #[serde(with = "json::card_list")]
        hand: &'a [Card],
        #[serde(with = "json::card_list")]
        front: &'a [Card],
        bot: Option<&'a str>,
    }
    let players = game
        .players()
        .iter()
        .enumerate()
        .map(|(seat, p)| Player {
            name: game.name(seat),
            seat: seat + 1,
            depth: p.depth,
            oxygen: p.oxygen,
            hand: &p.hand,
            front: &p.front,
            bot: bots.get(seat).and_then(Option::as_deref),
        })
        .collect();
    let state = State {
        turn: game.turn(),
        current: game.name(game.current()),
        winner: game.winner().map(|w| game.name(w)),
        draw: game.outcome() == Outcome::Draw,
        over: game.is_over(),
        deck_size: game.deck_size(),
        deck: game.deck().collect(),
        discard_size: game.discard_pile().len(),
        discard_top: game.discard_top().map(CardJson),
        discard: game.discard_pile(),
        table: game.table().iter().map(|c| c.map(CardJson)).collect(),
        players,
    };
    serde_json::to_writer(out, &state)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`write_state`] writes the text of [`json::state`] as save format 2 had it (without
    /// the keys added since), and `json::write_event` that of `json::event`, all through random games
    /// (their ends and draws included), bots named or not.
    #[test]
    fn the_written_state_is_the_state_object() {
        use rand::{RngExt, SeedableRng};
        let mut ends = 0;
        for seed in 0..60 {
            let names = ["ann", "bob", "cy"];
            let mut game = Game::standard(&names[..2 + seed as usize % 2], seed).unwrap();
            let bots = vec![None, Some("greedy".to_string()), None];
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut events = Vec::new();
            loop {
                let mut text = Vec::new();
                write_state(&mut text, &game, &bots).unwrap();
                // The state object's text without `winners` (a list of names, which hold no `]`).
                let mut now = json::state(&game, &bots).to_string();
                let at = now.find(",\"winners\":[").expect("the state has its winners");
                let end = at + now[at..].find(']').unwrap() + 1;
                now.replace_range(at..end, "");
                assert_eq!(String::from_utf8(text).unwrap(), now, "seed {seed}");
                for e in &events {
                    for viewer in [Viewer::Everyone, Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
                        let mut text = Vec::new();
                        json::write_event(&mut text, &game, e, viewer).unwrap();
                        assert_eq!(String::from_utf8(text).unwrap(), json::event(&game, e, viewer).to_string());
                    }
                }
                if game.is_over() || game.turn() > 200 {
                    ends += usize::from(game.is_over());
                    break;
                }
                let actions = game.legal_actions();
                let action = actions[rng.random_range(0..actions.len())];
                events.clear();
                game.apply(&action, &mut events).unwrap();
            }
        }
        assert!(ends > 0, "some games end");
    }

    /// The legacy hash is not the canonical one.
    #[test]
    fn the_legacy_hash_is_not_the_canonical_one() {
        let game = Game::standard(&["alice", "bob"], 3).unwrap();
        let bots = vec![None, Some("greedy".to_string())];
        let events = vec![Event::Passed { player: 0 }];
        assert_ne!(step_hash(&game, &bots, &events), crate::table::record::step_hash(&game, &bots, &events));
    }
}
