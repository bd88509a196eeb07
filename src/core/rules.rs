//! The numbers of the game: [`Rules`] holds every parameter the decisions name, with the
//! standard ruleset (D1–D24) as its `Default`, and checks that a set of numbers is playable.
//!
//! Rules are plain data. Where they come from (TOML, a test, a bot) is not this module's
//! business; the edge turns its input into a `Rules` and calls [`Rules::validate`].

use std::collections::BTreeMap;
use std::fmt;

use super::card::{Card, Suit};

/// The oxygen a diver spends after moving, by the band their new depth falls in (D10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    /// The deepest depth in this band (inclusive); the band starts one below the previous band's end.
    pub to: u32,
    /// Oxygen spent by a diver who ends a move in this band.
    pub cost: u32,
}

/// How much oxygen a recovery gives (D19).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gain {
    Amount(u32),
    /// Back to the maximum.
    Max,
}

impl fmt::Display for Gain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gain::Amount(n) => write!(f, "+{n}"),
            Gain::Max => f.write_str("max"),
        }
    }
}

/// The suit pattern of a set of discarded cards: how many cards share each repeated suit,
/// largest first. Suits seen once do not count, so `[7H]` and `[7H 2S]` are both "all
/// different". Written `none`, `2`, `2+2`, `3`, `4`, `3+2` …
///
/// Held as four counts, largest first, padded with zeros (there are four suits), so that a
/// lookup compares one number; patterns order as their lists of counts would.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SuitPattern([u8; 4]);

impl Ord for SuitPattern {
    fn cmp(&self, other: &SuitPattern) -> std::cmp::Ordering {
        // Counts are at least 2 and the padding is 0, so comparing the padded counts as one
        // big-endian number is comparing the lists.
        u32::from_be_bytes(self.0).cmp(&u32::from_be_bytes(other.0))
    }
}

impl PartialOrd for SuitPattern {
    fn partial_cmp(&self, other: &SuitPattern) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl SuitPattern {
    /// The pattern of these cards (no allocation: this runs on every recovery and for every
    /// subset a bot considers).
    pub fn of(cards: &[Card]) -> SuitPattern {
        // The four counts are kept in one register, 16 bits each: counting into an array of
        // bytes and reading it back stalls on the stores (this was 5% of a random game).
        let mut packed = 0u64;
        for c in cards {
            packed += 1 << (16 * c.suit.index());
        }
        let count = |suit: usize| ((packed >> (16 * suit)) & 0xffff).min(255) as u8;
        SuitPattern::from_counts([count(0), count(1), count(2), count(3)])
    }

    /// The pattern of these per-suit counts.
    fn from_counts(counts: [u8; 4]) -> SuitPattern {
        // Suits seen once do not count; the rest largest first.
        let mut repeats = counts.map(|n| if n >= 2 { n } else { 0 });
        // Largest first by a sorting network of min/max pairs: a general sort branches on
        // the counts, which are random.
        let mut order = |i: usize, j: usize| {
            let (a, b) = (repeats[i], repeats[j]);
            repeats[i] = a.max(b);
            repeats[j] = a.min(b);
        };
        order(0, 1);
        order(2, 3);
        order(0, 2);
        order(1, 3);
        order(1, 2);
        SuitPattern(repeats)
    }

    /// Whether a discard of this pattern is part of one of `other`'s: each of its suits' runs
    /// can be matched to a run of `other` at least as long (counts are kept largest first, so
    /// matching them in order is enough).
    pub fn fits_in(self, other: SuitPattern) -> bool {
        self.0.iter().zip(other.0).all(|(&mine, theirs)| mine <= theirs)
    }

    /// Reads `none`, `2`, `2+2`, `3+2` … : at most four parts (one per suit), each at least 2.
    pub fn parse(text: &str) -> Option<SuitPattern> {
        let text = text.trim();
        let mut parts = [0u8; 4];
        if text.eq_ignore_ascii_case("none") {
            return Some(SuitPattern(parts));
        }
        for (i, part) in text.split('+').enumerate() {
            let n: u8 = part.trim().parse().ok()?;
            if n < 2 || i >= parts.len() {
                return None;
            }
            parts[i] = n;
        }
        parts.sort_unstable_by(|a, b| b.cmp(a));
        Some(SuitPattern(parts))
    }

    /// Every pattern that some discard of 1 to `max_cards` cards (four suits) can have.
    pub fn all_up_to(max_cards: usize) -> Vec<SuitPattern> {
        let mut found = std::collections::BTreeSet::new();
        // Count vectors over four suits with a total of 1..=max_cards.
        fn walk(
            suit: usize,
            left: usize,
            counts: &mut [usize; 4],
            found: &mut std::collections::BTreeSet<SuitPattern>,
            total: usize,
        ) {
            if suit == 4 {
                if total > 0 {
                    let cards: Vec<Card> = counts
                        .iter()
                        .enumerate()
                        .flat_map(|(s, &n)| std::iter::repeat_n(Card::new(super::card::Rank::ACE, Suit::ALL[s]), n))
                        .collect();
                    found.insert(SuitPattern::of(&cards));
                }
                return;
            }
            for n in 0..=left {
                counts[suit] = n;
                walk(suit + 1, left - n, counts, found, total + n);
            }
            counts[suit] = 0;
        }
        walk(0, max_cards, &mut [0; 4], &mut found, 0);
        found.into_iter().collect()
    }
}

impl fmt::Display for SuitPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0[0] == 0 {
            return f.write_str("none");
        }
        let parts: Vec<String> = self.0.iter().filter(|&&n| n > 0).map(u8::to_string).collect();
        f.write_str(&parts.join("+"))
    }
}

/// Every number of the game. `Rules::default()` is the standard ruleset.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// Fewest and most players this ruleset allows.
    pub min_players: usize,
    pub max_players: usize,
    /// Number of 52-card decks; `None` means one per four players (D2).
    pub decks: Option<u32>,
    /// Cards in each hand (D3).
    pub hand_size: usize,
    /// Face-up table slots (D3).
    pub table_size: usize,
    /// The bottom: reaching it wins (D9, D20).
    pub max_depth: u32,
    /// Full oxygen, and the oxygen every diver starts with.
    pub max_oxygen: u32,
    /// Oxygen cost by depth band, shallowest first, covering 0…max_depth (D10).
    pub oxygen_bands: Vec<Band>,
    /// Extra depth for the Quick player's number card, never doubled (D14).
    pub quick_extra: u32,
    /// How far a Quick pushes the other player down (D14).
    pub quick_push: u32,
    /// Oxygen gained by recovery, by suit pattern (D19).
    pub recovery: BTreeMap<SuitPattern, Gain>,
    /// Turns after which the game is a draw; 0 = no cap (D23).
    pub max_turns: u32,
    /// What each rank is worth when it moves a diver (D8), by rank number − 1: the standard
    /// ace is 1 and a number card its number; face cards move nobody (0). Every built-in rule
    /// that reads a value (the dive, doubling, the Jolt, the Quick) reads it here, through
    /// the tables.
    pub values: [u32; 13],
    /// Teams, when the ruleset plays in teams: a team's win is each member's.
    pub teams: Option<TeamRule>,
    /// How depth is shown (D24): `depth × depth_scale` followed by `depth_unit`.
    pub depth_unit: String,
    pub depth_scale: u32,
}

impl Default for Rules {
    fn default() -> Rules {
        let recovery = [
            ("none", Gain::Amount(1)),
            ("2", Gain::Amount(2)),
            ("2+2", Gain::Amount(3)),
            ("3", Gain::Amount(4)),
            ("4", Gain::Max),
        ]
        .into_iter()
        .map(|(p, g)| (SuitPattern::parse(p).expect("standard pattern"), g))
        .collect();
        Rules {
            min_players: 2,
            max_players: 8,
            decks: None,
            hand_size: 4,
            table_size: 4,
            max_depth: 100,
            max_oxygen: 10,
            oxygen_bands: vec![
                Band { to: 25, cost: 1 },
                Band { to: 50, cost: 2 },
                Band { to: 75, cost: 3 },
                Band { to: 100, cost: 4 },
            ],
            quick_extra: 8,
            quick_push: 4,
            recovery,
            max_turns: 0,
            values: STANDARD_VALUES,
            teams: None,
            depth_unit: String::new(),
            depth_scale: 1,
        }
    }
}

/// A set of numbers that cannot make a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("`{key}` must be at least {min} (it is {value})")]
    TooSmall { key: &'static str, min: u64, value: u64 },
    #[error("`{key}` must be at most {max} (it is {value})")]
    TooLarge { key: &'static str, max: u64, value: u64 },
    #[error("`min_players` ({min}) is more than `max_players` ({max})")]
    PlayerRange { min: usize, max: usize },
    #[error("oxygen bands must go deeper one after another and end exactly at max_depth {max_depth}: {problem}")]
    Bands { max_depth: u32, problem: String },
    #[error(
        "the recovery table has no entry for suit pattern{} {}, which a discard of up to {hand_size} cards can have",
        if patterns.len() == 1 { "" } else { "s" },
        patterns.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
    )]
    MissingPattern { patterns: Vec<String>, hand_size: usize },
    #[error(
        "{players} players need {needed} cards (hands, table and a first discard) but {decks} deck(s) hold {available}"
    )]
    NotEnoughCards { players: usize, decks: u32, needed: usize, available: usize },
    #[error("`teams.count` ({count}) is more than `min_players` ({min}): every team needs a diver")]
    Teams { count: usize, min: usize },
    #[error("this ruleset is for {min} to {max} players, not {players}")]
    PlayerCount { players: usize, min: usize, max: usize },
}

/// How a ruleset plays in teams: `count` teams, the seats alternating round the table (seat
/// 1 in team 1, seat 2 in team 2 … seat `count + 1` in team 1 again), and whether the
/// built-in cards (a Jolt, a Knot, a Quick's push) may name a teammate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamRule {
    pub count: usize,
    pub target_teammates: bool,
}

impl TeamRule {
    /// The team (from 0) of `seat`.
    pub fn team_of(self, seat: usize) -> usize {
        seat % self.count
    }
}

/// The standard value of each rank (D8), by rank number − 1: A = 1 … 10 = 10, J, Q, K = 0.
pub const STANDARD_VALUES: [u32; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0];

/// The most a ruleset may make a card worth.
pub const MAX_CARD_VALUE: u32 = 1000;

/// The largest hand a ruleset may set (a recovery discards at most this many cards).
pub const MAX_HAND_SIZE: usize = 12;

/// The fewest and most players a ruleset may seat.
pub const MIN_PLAYERS: usize = 2;
pub const MAX_PLAYERS: usize = 64;

/// The largest table a ruleset may set (the listing keeps a bit per slot).
pub const MAX_TABLE_SIZE: usize = 16;

/// What a deal takes from the rules: the decks shuffled, then the cards dealt from the top to
/// each hand and to the table (D3). On one seed, two rulesets with the same decks shuffle
/// alike, and with the same shape they deal alike: the same hands, table and discard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealShape {
    pub decks: u32,
    pub hand_size: usize,
    pub table_size: usize,
}

impl Rules {
    /// Checks the numbers on their own (not yet for a player count).
    pub fn validate(&self) -> Result<(), RulesError> {
        let at_least = |key, min: u64, value: u64| {
            if value < min { Err(RulesError::TooSmall { key, min, value }) } else { Ok(()) }
        };
        let at_most = |key, max: u64, value: u64| {
            if value > max { Err(RulesError::TooLarge { key, max, value }) } else { Ok(()) }
        };
        at_least("min_players", MIN_PLAYERS as u64, self.min_players as u64)?;
        at_most("max_players", MAX_PLAYERS as u64, self.max_players as u64)?;
        if self.min_players > self.max_players {
            return Err(RulesError::PlayerRange { min: self.min_players, max: self.max_players });
        }
        if let Some(decks) = self.decks {
            at_least("decks", 1, decks as u64)?;
            at_most("decks", 16, decks as u64)?;
        }
        at_least("hand_size", 1, self.hand_size as u64)?;
        at_most("hand_size", MAX_HAND_SIZE as u64, self.hand_size as u64)?;
        at_least("table_size", 0, self.table_size as u64)?;
        at_most("table_size", MAX_TABLE_SIZE as u64, self.table_size as u64)?;
        at_least("max_depth", 1, self.max_depth as u64)?;
        at_most("max_depth", 1_000_000, self.max_depth as u64)?;
        at_least("max_oxygen", 1, self.max_oxygen as u64)?;
        at_most("max_oxygen", 1_000_000, self.max_oxygen as u64)?;
        at_least("depth_scale", 1, self.depth_scale as u64)?;
        for value in self.values {
            at_most("values", MAX_CARD_VALUE as u64, value as u64)?;
        }
        if let Some(teams) = self.teams {
            at_least("teams.count", 2, teams.count as u64)?;
            if teams.count > self.min_players {
                return Err(RulesError::Teams { count: teams.count, min: self.min_players });
            }
        }
        self.validate_bands()?;
        let missing: Vec<String> = SuitPattern::all_up_to(self.hand_size)
            .into_iter()
            .filter(|pattern| !self.recovery.contains_key(pattern))
            .map(|pattern| pattern.to_string())
            .collect();
        if !missing.is_empty() {
            // Every one at once: a ruleset writer fixes them in one go.
            return Err(RulesError::MissingPattern { patterns: missing, hand_size: self.hand_size });
        }
        Ok(())
    }

    fn validate_bands(&self) -> Result<(), RulesError> {
        let bad = |problem: String| RulesError::Bands { max_depth: self.max_depth, problem };
        if self.oxygen_bands.is_empty() {
            return Err(bad("there are no bands".into()));
        }
        let mut start = 0;
        for (i, band) in self.oxygen_bands.iter().enumerate() {
            if band.to < start {
                return Err(bad(format!("band {} ends at {} but starts at {start}", i + 1, band.to)));
            }
            start = band.to + 1;
        }
        let last = self.oxygen_bands.last().map_or(0, |b| b.to);
        if last != self.max_depth {
            return Err(bad(format!("the last band ends at {last}")));
        }
        Ok(())
    }

    /// Checks that `players` divers can play: within the range and with enough cards.
    pub fn validate_for(&self, players: usize) -> Result<(), RulesError> {
        if players < self.min_players || players > self.max_players {
            return Err(RulesError::PlayerCount { players, min: self.min_players, max: self.max_players });
        }
        let decks = self.decks_for(players);
        let needed = players * self.hand_size + self.table_size + 1;
        let available = 52 * decks as usize;
        if needed > available {
            return Err(RulesError::NotEnoughCards { players, decks, needed, available });
        }
        Ok(())
    }

    /// Decks in play for this many players (D2): the ruleset's number, else one per four players.
    pub fn decks_for(&self, players: usize) -> u32 {
        self.decks.unwrap_or_else(|| players.div_ceil(4).max(1) as u32)
    }

    /// What a deal for this many players takes from the rules (see [`DealShape`]).
    pub fn deal_shape(&self, players: usize) -> DealShape {
        DealShape { decks: self.decks_for(players), hand_size: self.hand_size, table_size: self.table_size }
    }

    /// The standard oxygen cost at this depth, by band (D10): the first band reaching down to
    /// `depth`, else the last band.
    pub fn band_cost(&self, depth: u32) -> u32 {
        let bands = &self.oxygen_bands;
        // Validated bands end deeper one after another, so the first band reaching `depth`
        // comes after exactly the bands ending above it. Counting them is branch-free, and this
        // runs after every move with a depth the branch predictor cannot guess.
        let i = bands.iter().map(|b| usize::from(b.to < depth)).sum::<usize>();
        match bands.get(i) {
            Some(b) if depth <= b.to && bands[..i].iter().all(|b| b.to < depth) => b.cost,
            _ => bands.iter().find(|b| depth <= b.to).or(bands.last()).map_or(0, |b| b.cost),
        }
    }

    /// The standard recovery gain for these discarded cards (D19). A discard whose pattern
    /// the table does not list (only a mod that draws a hand past `hand_size` makes one: the
    /// table covers every discard of up to `hand_size` cards) gains what the best pattern the
    /// table lists inside it gains, so more of one suit never brings less: five hearts gain
    /// what four do.
    pub fn recovery_gain(&self, cards: &[Card]) -> Gain {
        let pattern = SuitPattern::of(cards);
        match self.recovery.get(&pattern) {
            Some(&gain) => gain,
            None => self
                .recovery
                .iter()
                .filter(|(listed, _)| listed.fits_in(pattern))
                .map(|(_, &gain)| gain)
                .max_by_key(|gain| match gain {
                    Gain::Amount(n) => u64::from(*n),
                    Gain::Max => u64::MAX,
                })
                .unwrap_or(Gain::Amount(0)),
        }
    }

    /// What a card of `rank` is worth when it moves a diver (D8).
    pub fn value(&self, rank: super::card::Rank) -> u32 {
        self.values[usize::from(rank.number()) - 1]
    }

    /// Whether every rank is worth what the standard rules say.
    pub fn standard_values(&self) -> bool {
        self.values == STANDARD_VALUES
    }

    /// Depth as players see it (D24): `45` or, with unit "m" and scale 100, `4500 m`.
    pub fn show_depth(&self, depth: u32) -> String {
        let shown = depth as u64 * self.depth_scale as u64;
        if self.depth_unit.is_empty() { shown.to_string() } else { format!("{shown} {}", self.depth_unit) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::card::parse_cards;

    #[test]
    fn standard_rules_are_valid() {
        Rules::default().validate().unwrap();
    }

    #[test]
    fn d10_band_edges() {
        let r = Rules::default();
        let costs: Vec<u32> = [0, 25, 26, 50, 51, 75, 76, 100].iter().map(|&d| r.band_cost(d)).collect();
        assert_eq!(costs, [1, 1, 2, 2, 3, 3, 4, 4]);
    }

    /// `band_cost` counts bands instead of searching; it must answer as the search would,
    /// for validated bands and for any other list a client builds.
    #[test]
    fn d10_band_cost_is_the_first_band_reaching_the_depth() {
        let search =
            |bands: &[Band], depth: u32| bands.iter().find(|b| depth <= b.to).or(bands.last()).map_or(0, |b| b.cost);
        let lists: [&[u32]; 6] =
            [&[25, 50, 75, 100], &[100], &[10, 11, 12, 100], &[60, 10, 40, 100], &[50, 50, 20], &[]];
        for ends in lists {
            let bands: Vec<Band> = ends.iter().enumerate().map(|(i, &to)| Band { to, cost: i as u32 + 1 }).collect();
            let rules = Rules { oxygen_bands: bands.clone(), ..Rules::default() };
            for depth in 0..=110 {
                assert_eq!(rules.band_cost(depth), search(&bands, depth), "bands {ends:?}, depth {depth}");
            }
        }
    }

    #[test]
    fn d19_suit_patterns() {
        let r = Rules::default();
        let gain = |t: &str| r.recovery_gain(&parse_cards(t).unwrap());
        assert_eq!(gain("7H"), Gain::Amount(1));
        assert_eq!(gain("7H 2S 3D 4C"), Gain::Amount(1));
        assert_eq!(gain("7H 2H"), Gain::Amount(2));
        assert_eq!(gain("7H 2H 3S"), Gain::Amount(2));
        assert_eq!(gain("7H 2H 3S 4D"), Gain::Amount(2));
        assert_eq!(gain("7H 2H 3S 4S"), Gain::Amount(3));
        assert_eq!(gain("7H 2H 3H"), Gain::Amount(4));
        assert_eq!(gain("7H 2H 3H 4S"), Gain::Amount(4));
        assert_eq!(gain("7H 2H 3H 4H"), Gain::Max);
    }

    #[test]
    fn suit_patterns_read_print_and_order_as_lists_of_counts() {
        let order = ["none", "2", "2+2", "2+2+2", "3", "3+2", "4", "4+4+3", "12"];
        let patterns: Vec<SuitPattern> = order.iter().map(|t| SuitPattern::parse(t).unwrap()).collect();
        assert!(patterns.windows(2).all(|w| w[0] < w[1]), "{patterns:?}");
        for (text, pattern) in order.iter().zip(&patterns) {
            assert_eq!(pattern.to_string(), *text);
        }
        assert_eq!(SuitPattern::parse(" 2 + 3 ").unwrap().to_string(), "3+2");
        // Four suits: a fifth part, a part below 2 or a word is not a pattern.
        for bad in ["2+2+2+2+2", "1", "2+1", "0", "pair", ""] {
            assert_eq!(SuitPattern::parse(bad), None, "{bad}");
        }
        let of = |t: &str| SuitPattern::of(&parse_cards(t).unwrap()).to_string();
        assert_eq!(of("7H 2S"), "none");
        assert_eq!(of("7H 2H 3S 4S 5S"), "3+2");
        // The sorting network puts every set of counts largest first, as a sort does.
        for n in 0..7u32.pow(4) {
            let counts = [0, 1, 2, 3].map(|i| (n / 7u32.pow(i) % 7) as u8);
            let mut sorted = counts.map(|c| if c >= 2 { c } else { 0 });
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(SuitPattern::from_counts(counts), SuitPattern(sorted), "{counts:?}");
        }
    }

    #[test]
    fn a_bigger_hand_needs_a_bigger_recovery_table_and_is_told_every_missing_pattern() {
        let rules = Rules { hand_size: 5, ..Rules::default() };
        let err = rules.validate().unwrap_err();
        assert!(matches!(&err, RulesError::MissingPattern { patterns, .. } if patterns == &["3+2", "5"]), "{err}");
        assert_eq!(
            err.to_string(),
            "the recovery table has no entry for suit patterns `3+2`, `5`, which a discard of up to 5 cards can have"
        );
    }

    /// A discard past the table (a mod drew a bigger hand) gains what the best listed pattern
    /// inside it does: never less for more of one suit.
    #[test]
    fn a_discard_bigger_than_the_table_gains_what_its_best_part_does() {
        let r = Rules::default();
        let gain = |t: &str| r.recovery_gain(&parse_cards(t).unwrap());
        assert_eq!(gain("2H 3H 4H 5H 6H"), Gain::Max, "five hearts hold four");
        assert_eq!(gain("2H 3H 4H 5S 6S"), Gain::Amount(4), "3+2 holds 3 (and 2+2, which gains less)");
        assert_eq!(gain("2H 3H 5S 6S 7D 8D"), Gain::Amount(3), "2+2+2 holds 2+2");
        assert_eq!(gain("2H 3S 4D 5C 6H"), Gain::Amount(2), "a pair and three singles hold a pair");
        for pattern in SuitPattern::all_up_to(4) {
            assert!(r.recovery.contains_key(&pattern), "the table itself is read as it is");
        }
        assert!(SuitPattern::parse("2+2").unwrap().fits_in(SuitPattern::parse("3+2").unwrap()));
        assert!(!SuitPattern::parse("2+2").unwrap().fits_in(SuitPattern::parse("5").unwrap()));
        assert!(SuitPattern::parse("none").unwrap().fits_in(SuitPattern::parse("2").unwrap()));
    }

    #[test]
    fn bands_with_a_gap_or_short_end_are_rejected() {
        let mut rules = Rules::default();
        rules.oxygen_bands[3].to = 99;
        assert!(matches!(rules.validate(), Err(RulesError::Bands { .. })));
        let mut rules = Rules::default();
        rules.oxygen_bands[1].to = 20;
        assert!(matches!(rules.validate(), Err(RulesError::Bands { .. })));
    }

    #[test]
    fn d2_one_deck_per_four_players() {
        let r = Rules::default();
        assert_eq!([2, 4, 5, 8].map(|p| r.decks_for(p)), [1, 1, 2, 2]);
        assert!(r.validate_for(8).is_ok());
        assert!(Rules { decks: Some(1), ..Rules::default() }.validate_for(12).is_err());
    }

    #[test]
    fn d24_depth_display() {
        let r = Rules { depth_unit: "m".into(), depth_scale: 100, ..Rules::default() };
        assert_eq!(r.show_depth(45), "4500 m");
        assert_eq!(Rules::default().show_depth(45), "45");
    }
}
