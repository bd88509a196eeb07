//! What a replay records of the game's ruleset, and how a recording is checked against the
//! ruleset and mods in hand: content hashes of the rules and of every mod, a hash of every
//! step (the events of a move and the state it leaves), and the differences in words.
//!
//! The hashes are FNV-1a, 64 bits (`fnv1a64:` and 16 hex digits): stable across machines and
//! builds, which `std`'s hasher is not. A step is hashed over a canonical, versioned encoding
//! of the core's values ([`step_hash`]), never over text a user reads (the JSON-text hash of
//! earlier recordings is [`super::legacy`]'s). They detect a changed file or a game that replays
//! differently; they are not a defence against someone forging a file.

use crate::core::{Card, Event, Gain, Game, Outcome, Seats, Source, Suit, Viewer};
use crate::ruleset::Ruleset;
use crate::table::json;

pub use crate::ruleset::ModRecord;

/// The content hash of a ruleset's rules: every number in force, as `diving rules --json`
/// writes them (so a comment or a reordered key in the TOML does not change it, and the same
/// rules reached through another file or name have the same hash). The mods are recorded
/// apart ([`Ruleset::mod_set`]).
pub fn rules_hash(ruleset: &Ruleset) -> String {
    crate::ruleset::content_hash(&json::rules("", &ruleset.rules).to_string())
}

/// What is different between the ruleset a game was recorded under (`name`, `hash`, `mods`)
/// and `ruleset`, one sentence per difference naming the file and both hashes; empty when
/// nothing is.
pub fn differences(name: &str, hash: &str, mods: &[ModRecord], ruleset: &Ruleset) -> Vec<String> {
    let mut out = Vec::new();
    let now = rules_hash(ruleset);
    if now != hash {
        out.push(format!(
            "the rules differ: recorded under '{name}' with rules hash {hash}, now '{}' has {now}",
            ruleset.name
        ));
    }
    out.extend(crate::ruleset::differences(mods, &ruleset.mod_set()));
    out
}

/// The hash of one step of a game: the events a move caused (every card) and the state it
/// left (`game`, after the move), in the canonical encoding of `Canonical`: a versioned
/// byte layout of the core's own values, not any text a user reads, so rewording a message or
/// a JSON field changes no save. Two replays of a move agree exactly when their steps'
/// hashes do.
pub fn step_hash(game: &Game, bots: &[Option<String>], events: &[Event]) -> u64 {
    let mut hash = Canonical(Fnv1a64::default());
    hash.step(game, bots, events);
    (hash.0).0
}

/// The canonical encoding of a step, fed to a hash: a version tag, then every field of the
/// state a player or the future could tell apart and every event, as fixed-width numbers and
/// length-prefixed lists, in an order fixed here. A card is one byte (rank number × 4 + suit).
/// A new event fails to compile until it has its encoding here; changing the layout means a
/// new tag (and the loader keeps checking the old one).
struct Canonical(Fnv1a64);

impl Canonical {
    /// The version tag of this layout.
    const TAG: &'static [u8] = b"diving-step/3\n";

    fn bytes(&mut self, b: &[u8]) {
        self.0.update(b);
    }

    fn n(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }

    fn text(&mut self, s: &str) {
        self.n(s.len() as u64);
        self.bytes(s.as_bytes());
    }

    fn card(&mut self, c: Card) {
        let suit = Suit::ALL.iter().position(|s| *s == c.suit).unwrap_or(0) as u8;
        self.bytes(&[c.rank.number() * 4 + suit]);
    }

    fn cards(&mut self, cards: impl ExactSizeIterator<Item = Card>) {
        self.n(cards.len() as u64);
        cards.for_each(|c| self.card(c));
    }

    fn step(&mut self, game: &Game, bots: &[Option<String>], events: &[Event]) {
        self.bytes(Self::TAG);
        self.n(u64::from(game.turn()));
        self.n(game.current() as u64);
        match game.outcome() {
            Outcome::Running => self.n(0),
            Outcome::Won { by, winners } => {
                self.n(1);
                self.n(by as u64);
                // Others winning with the winner: after what every earlier step hashed.
                if winners != Seats(1 << by) {
                    self.bytes(b"winners");
                    self.n(winners.0);
                }
            }
            Outcome::Draw => self.n(2),
        }
        self.cards(game.deck());
        self.cards(game.discard_pile().iter().copied());
        self.n(game.table().len() as u64);
        for slot in game.table() {
            match slot {
                Some(c) => self.card(*c),
                None => self.bytes(&[0xff]),
            }
        }
        self.n(game.players().len() as u64);
        for (seat, p) in game.players().iter().enumerate() {
            self.text(game.name(seat));
            match bots.get(seat).and_then(Option::as_deref) {
                Some(bot) => {
                    self.n(1);
                    self.text(bot);
                }
                None => self.n(0),
            }
            self.n(u64::from(p.depth));
            self.n(u64::from(p.oxygen));
            self.cards(p.hand.iter().copied());
            self.cards(p.front.iter().copied());
        }
        // The teams, when there are teams.
        if let Some(teams) = game.teams() {
            self.bytes(b"teams");
            self.n(teams.count() as u64);
            teams.of_seats().for_each(|t| self.n(t as u64));
            self.n(u64::from(teams.target_teammates()));
        }
        // The turn order, when it is not plain (so that the steps of every game before
        // turn order was a rule point hash as they did).
        if game.is_reversed() || game.given_turn().is_some() {
            self.bytes(b"order");
            self.n(u64::from(game.is_reversed()));
            self.n(game.given_turn().map_or(0, |s| s as u64 + 1));
        }
        self.n(events.len() as u64);
        for e in events {
            self.event(e);
        }
    }

    fn event(&mut self, e: &Event) {
        let seat = |s: &mut Canonical, seat: usize| s.n(seat as u64);
        match e {
            Event::TurnStarted { player, turn } => {
                self.n(1);
                seat(self, *player);
                self.n(u64::from(*turn));
            }
            Event::Played { player, card, from } => {
                self.n(2);
                seat(self, *player);
                self.card(*card);
                match from {
                    Source::Hand => self.n(u64::MAX),
                    Source::Table(slot) => self.n(*slot as u64),
                }
            }
            Event::Doubled { player, card, on, value } => {
                self.n(3);
                seat(self, *player);
                self.card(*card);
                self.card(*on);
                self.n(u64::from(*value));
            }
            Event::Moved { player, from, to } => {
                self.n(4);
                seat(self, *player);
                self.n(u64::from(*from));
                self.n(u64::from(*to));
            }
            Event::Breathed { player, from, to } => {
                self.n(5);
                seat(self, *player);
                self.n(u64::from(*from));
                self.n(u64::from(*to));
            }
            Event::Rescued { player, depth, oxygen } => {
                self.n(6);
                seat(self, *player);
                self.n(u64::from(*depth));
                self.n(u64::from(*oxygen));
            }
            Event::Placed { player, target, card } => {
                self.n(7);
                seat(self, *player);
                seat(self, *target);
                self.card(*card);
            }
            Event::Jolted { player } => {
                self.n(8);
                seat(self, *player);
            }
            Event::Quickened { player, extra } => {
                self.n(9);
                seat(self, *player);
                self.n(u64::from(*extra));
            }
            Event::Pushed { player, target, by } => {
                self.n(10);
                seat(self, *player);
                seat(self, *target);
                self.n(u64::from(*by));
            }
            Event::Knotted { player } => {
                self.n(11);
                seat(self, *player);
            }
            Event::Recovered { player, cards, gain, from, to } => {
                self.n(12);
                seat(self, *player);
                self.cards(cards.iter().copied());
                match gain {
                    Gain::Amount(n) => self.n(u64::from(*n)),
                    Gain::Max => self.n(u64::MAX),
                }
                self.n(u64::from(*from));
                self.n(u64::from(*to));
            }
            Event::Discarded { card } => {
                self.n(13);
                self.card(*card);
            }
            Event::Drew { player, card } => {
                self.n(14);
                seat(self, *player);
                self.card(*card);
            }
            Event::Refilled { slot, card } => {
                self.n(15);
                self.n(*slot as u64);
                self.card(*card);
            }
            Event::Reshuffled { cards } => {
                self.n(16);
                self.n(*cards as u64);
            }
            Event::Passed { player } => {
                self.n(17);
                seat(self, *player);
            }
            // The encoding of a save before mods were named: the text alone.
            Event::Said { words, .. } => {
                self.n(18);
                self.text(Viewer::Everyone.shown(words));
            }
            Event::Revealed { by, player, card } => {
                self.n(22);
                self.n(u64::from(by.0));
                seat(self, *player);
                self.card(*card);
            }
            Event::Won { player, winners } => {
                self.n(19);
                seat(self, *player);
                if *winners != Seats(1 << player) {
                    self.bytes(b"winners");
                    self.n(winners.0);
                }
            }
            Event::Teams { teams } => {
                self.n(25);
                self.n(teams.len() as u64);
                self.bytes(teams);
            }
            Event::Draw { turns } => {
                self.n(20);
                self.n(u64::from(*turns));
            }
            Event::TookFromPile { player, card } => {
                self.n(26);
                seat(self, *player);
                self.card(*card);
            }
            Event::Returned { player, card } => {
                self.n(27);
                self.n(player.map_or(0, |p| p as u64 + 1));
                self.card(*card);
            }
            Event::DeckShuffled { cards } => {
                self.n(28);
                self.n(*cards as u64);
            }
            Event::Reversed { backwards } => {
                self.n(22);
                self.n(u64::from(*backwards));
            }
            Event::Skipped { player } => {
                self.n(23);
                seat(self, *player);
            }
            Event::AnotherTurn { player } => {
                self.n(24);
                seat(self, *player);
            }
            Event::Acted { player, name, target, card } => {
                self.n(21);
                seat(self, *player);
                self.text(name.as_str());
                self.n(target.map_or(0, |t| t as u64 + 1));
                self.n(u64::from(card.is_some()));
                if let Some(c) = card {
                    self.card(*c);
                }
            }
        }
    }
}

/// [`fnv1a64`](crate::ruleset::fnv1a64) of the bytes written to it.
struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Fnv1a64 {
        Fnv1a64(crate::ruleset::FNV1A64_START)
    }
}

impl Fnv1a64 {
    fn update(&mut self, bytes: &[u8]) {
        self.0 = crate::ruleset::fnv1a64_on(self.0, bytes);
    }
}

impl std::io::Write for Fnv1a64 {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// [`step_hash`] as it is written in a file.
pub fn step_text(hash: u64) -> String {
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The canonical hash reads every part of a step: each change to the state or the events
    /// changes it, and it is not the hash of the JSON text.
    #[test]
    fn the_step_hash_reads_the_state_and_events_not_their_text() {
        let game = Game::standard(&["alice", "bob"], 3).unwrap();
        let bots = vec![None, Some("greedy".to_string())];
        let events = vec![Event::Passed { player: 0 }];
        let base = step_hash(&game, &bots, &events);
        assert_eq!(base, step_hash(&game, &bots, &events), "the same step, the same hash");
        assert_ne!(base, step_hash(&game, &bots, &[]), "the events count");
        assert_ne!(base, step_hash(&game, &bots, &[Event::Passed { player: 1 }]), "their fields count");
        assert_ne!(base, step_hash(&game, &[None, None], &events), "the bots count");
        let mut other = game.clone();
        let action = other.legal_actions()[0];
        other.apply(&action, &mut ()).unwrap();
        assert_ne!(base, step_hash(&other, &bots, &events), "the state counts");
        let shuffled = game.with_deck_shuffled(9);
        assert_ne!(base, step_hash(&shuffled, &bots, &events), "the deck order counts");
    }

    #[test]
    fn the_same_ruleset_has_no_differences() {
        let house = Ruleset::load("house").unwrap();
        assert!(differences("house", &rules_hash(&house), &house.mod_set(), &house).is_empty());
    }

    #[test]
    fn a_changed_mod_and_changed_rules_are_named_with_their_hashes() {
        let house = Ruleset::load("house").unwrap();
        let mut mods = house.mod_set();
        let path = mods[0].path.clone();
        mods[0].hash = "fnv1a64:0000000000000000".into();
        mods.push(ModRecord {
            name: "gone".into(),
            version: "1.0.0".into(),
            path: "gone.lua".into(),
            hash: "fnv1a64:1111111111111111".into(),
        });
        let found = differences("house", "fnv1a64:2222222222222222", &mods, &house);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].contains("recorded under 'house' with rules hash fnv1a64:2222222222222222"), "{found:?}");
        assert!(
            found[1].contains(&format!("({path}) changed: recorded with hash fnv1a64:0000000000000000, now")),
            "{found:?}"
        );
        assert_eq!(found[2], "mod gone 1.0.0 (gone.lua) was loaded then and is not now");
        let standard = Ruleset::standard();
        let found = differences("house", &rules_hash(&house), &house.mod_set(), &standard);
        assert!(found.iter().any(|d| d.ends_with("was loaded then and is not now")), "{found:?}");
    }
}
