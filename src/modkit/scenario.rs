//! Scenario files for `diving mod test`: stacked deals, actions and what must follow, in TOML,
//! the same three parts the project's own rules tests (`tests/engine/rules.rs`) are written in — a
//! deal (D3), actions in the game's own text (`play 7H`, `play JS @Bob`, `recover 2S 3D`,
//! `pass`), and the state as `key: value` lines — plus the events that must happen, in the
//! JSON forms of the scripting contract. MODDING.md's *Testing your mod* documents the format:
//!
//! ```toml
//! ruleset = "../my-rules.toml"      # relative to this file (or --ruleset)
//!
//! [[scenario]]
//! name = "a 7 gives back a breath"
//! players = ["Ann", "Bob"]          # the default
//! hands.Ann = "7H 2S 3D 4C"         # `_`: the next card left over
//! discard = "9C"
//! deck = "8D"                       # the first cards drawn
//! start.Ann = { depth = 10, oxygen = 5 }
//! actions = "play 7H"
//! expect = """
//! Ann: depth 17, oxygen 5
//! """
//! events = [{ event = "said", text = "Ann catches a lucky breath" }]
//! ```
//!
//! Every error and failure names the scenario file and line: of the key, the action, the
//! expected line or event.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value as Json;
use toml::Spanned;

use crate::core::{Action, Card, Cards, Game, Outcome, Pending, Rules, Setup, Source, Viewer, full_deck};
use crate::limits::{self, FileKind};
use crate::ruleset::Ruleset;
use crate::ruleset::check::invariant_problem;
use crate::table::{json, render};

/// The names seats get when a scenario names none: seat 1 is Ann, seat 2 Bob, and so on.
pub const NAMES: [&str; 8] = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"];

/// Where a scenario file went wrong (or a scenario failed): `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    ruleset: Option<Spanned<String>>,
    #[serde(default)]
    scenario: Vec<Spanned<RawScenario>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: Spanned<String>,
    players: Option<Spanned<Vec<String>>>,
    seed: Option<u64>,
    #[serde(default)]
    hands: BTreeMap<String, Spanned<String>>,
    table: Option<Spanned<String>>,
    discard: Option<Spanned<String>>,
    deck: Option<Spanned<String>>,
    #[serde(default)]
    start: BTreeMap<String, Spanned<RawStart>>,
    actions: Option<Spanned<String>>,
    expect: Option<Spanned<String>>,
    #[serde(default)]
    events: Vec<Spanned<toml::Value>>,
    refused: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStart {
    /// Where the diver starts (default: the surface, D3).
    depth: Option<u32>,
    /// With how much air (default: the ruleset's most).
    oxygen: Option<u32>,
}

/// A scenario file, read.
#[derive(Debug)]
pub struct ScenarioFile {
    /// The file's name as errors give it.
    pub file: String,
    /// The ruleset it names, resolved against the file's directory.
    pub ruleset: Option<String>,
    text: String,
    scenarios: Vec<Spanned<RawScenario>>,
}

/// What one scenario did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioRun {
    pub name: String,
    /// The scenario's line.
    pub line: usize,
    /// `None` when it passed.
    pub failure: Option<ScenarioError>,
}

impl ScenarioFile {
    /// Reads and parses `path` (not yet run).
    pub fn read(path: &Path) -> Result<ScenarioFile, ScenarioError> {
        let file = path.display().to_string();
        let text = limits::read_text(path, FileKind::Ruleset).map_err(|e| ScenarioError {
            file: file.clone(),
            line: 1,
            message: format!("cannot read: {e}"),
        })?;
        ScenarioFile::parse(&file, &text, path.parent())
    }

    /// Parses `text` as the file `file` (a relative `ruleset` resolves against `dir`).
    pub fn parse(file: &str, text: &str, dir: Option<&Path>) -> Result<ScenarioFile, ScenarioError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| ScenarioError {
            file: file.to_string(),
            line: line_of(text, e.span().map_or(0, |s| s.start)),
            message: e.message().trim().to_string(),
        })?;
        if raw.scenario.is_empty() {
            return Err(ScenarioError {
                file: file.to_string(),
                line: 1,
                message: "no scenarios: add a [[scenario]] table (MODDING.md, Testing your mod)".into(),
            });
        }
        let ruleset = raw.ruleset.map(|r| {
            let spec = r.into_inner();
            let relative = spec.contains(['/', '\\']) || spec.ends_with(".toml");
            match dir {
                Some(dir) if relative && Path::new(&spec).is_relative() => tidy(&dir.join(&spec)),
                _ => spec,
            }
        });
        Ok(ScenarioFile { file: file.to_string(), ruleset, text: text.to_string(), scenarios: raw.scenario })
    }

    /// How many scenarios the file holds.
    pub fn len(&self) -> usize {
        self.scenarios.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scenarios.is_empty()
    }

    /// Runs every scenario against `ruleset`, in order.
    pub fn run(&self, ruleset: &Ruleset) -> Vec<ScenarioRun> {
        self.scenarios
            .iter()
            .map(|s| {
                let line = line_of(&self.text, s.span().start);
                ScenarioRun {
                    name: s.get_ref().name.get_ref().clone(),
                    line,
                    failure: self.run_one(s.get_ref(), ruleset).err(),
                }
            })
            .collect()
    }

    fn error(&self, span: Range<usize>, message: impl Into<String>) -> ScenarioError {
        ScenarioError { file: self.file.clone(), line: line_of(&self.text, span.start), message: message.into() }
    }

    /// The line of `item` inside the string value at `span` (searched from `*from` on, which
    /// moves past it), or the value's own line.
    fn line_in(&self, span: &Range<usize>, item: &str, from: &mut usize) -> usize {
        let raw = self.text.get(span.clone()).unwrap_or("");
        match raw.get(*from..).and_then(|rest| rest.find(item)) {
            Some(at) => {
                *from += at + item.len();
                line_of(&self.text, span.start + *from - item.len())
            }
            None => line_of(&self.text, span.start),
        }
    }

    fn run_one(&self, s: &RawScenario, ruleset: &Ruleset) -> Result<(), ScenarioError> {
        let rules = &ruleset.rules;
        let names: Vec<String> = match &s.players {
            Some(p) => p.get_ref().clone(),
            None => NAMES[..2.max(rules.min_players).min(NAMES.len())].iter().map(|n| n.to_string()).collect(),
        };
        let players_span = s.players.as_ref().map_or(s.name.span(), |p| p.span());
        if names.len() < rules.min_players || names.len() > rules.max_players {
            return Err(self.error(
                players_span,
                format!("{} players, and the ruleset plays {}–{}", names.len(), rules.min_players, rules.max_players),
            ));
        }
        for (i, n) in names.iter().enumerate() {
            if n.trim().is_empty() || names[..i].contains(n) {
                return Err(self.error(players_span.clone(), format!("`players`: '{n}' is empty or given twice")));
            }
        }
        let seat = |name: &str, span: Range<usize>| {
            names.iter().position(|n| n == name).ok_or_else(|| {
                self.error(span, format!("no player called '{name}' (the players are {})", names.join(", ")))
            })
        };
        // The deal, as the rules tests write it (D3): hands, table, discard, then the deck.
        let mut hands = vec![Vec::new(); names.len()];
        for (name, text) in &s.hands {
            let i = seat(name, text.span())?;
            hands[i] = self.cards(text)?;
            if hands[i].len() > rules.hand_size {
                return Err(self.error(text.span(), format!("a hand holds {} cards, not more", rules.hand_size)));
            }
        }
        let table = s.table.as_ref().map(|t| self.cards(t)).transpose()?.unwrap_or_default();
        if let Some(t) = &s.table
            && table.len() > rules.table_size
        {
            return Err(self.error(t.span(), format!("the table has {} slots, not more", rules.table_size)));
        }
        let discard = match &s.discard {
            Some(d) => match self.cards(d)?.as_slice() {
                [Some(c)] => Some(*c),
                _ => return Err(self.error(d.span(), "`discard` is one card, the first of the discard pile")),
            },
            None => None,
        };
        let deck = s.deck.as_ref().map(|d| self.cards(d)).transpose()?.unwrap_or_default();
        let order = deal(rules, &hands, &table, discard, &deck)
            .map_err(|m| self.error(s.name.span(), format!("the deal: {m}")))?;
        let registry = ruleset.registry().map_err(|e| self.error(s.name.span(), e.to_string()))?;
        let setup = Setup { names: names.clone(), seed: s.seed.unwrap_or(7), deck: Some(order) };
        let mut placing = (*registry).clone();
        let mut starts = Vec::new();
        for (name, start) in &s.start {
            let i = seat(name, start.span())?;
            let RawStart { depth, oxygen } = *start.get_ref();
            let (depth, oxygen) = (depth.unwrap_or(0), oxygen.unwrap_or(rules.max_oxygen));
            if depth > rules.max_depth || oxygen == 0 || oxygen > rules.max_oxygen {
                return Err(self.error(
                    start.span(),
                    format!("`start.{name}`: depth 0…{}, oxygen 1…{}", rules.max_depth, rules.max_oxygen),
                ));
            }
            starts.push((i, depth, oxygen));
        }
        // A one-off turn-start hook puts the divers where `start` says, before the ruleset's
        // own turn-1 hooks run (so what those do to a diver is kept); then the game goes on
        // with the ruleset's own registry (as `Deal::at` does in the rules tests).
        placing.add_turn_start_first(Arc::new(move |ctx, _| {
            for &(seat, depth, oxygen) in &starts {
                ctx.set_depth(seat, i64::from(depth))?;
                ctx.set_oxygen(seat, i64::from(oxygen))?;
            }
            Ok(())
        }));
        let mut game = Game::new(Arc::clone(&ruleset.rules), Arc::new(placing), setup)
            .map_err(|e| self.error(s.name.span(), format!("the deal: {e}")))?
            .with_registry(registry);
        // The actions; the last one must be refused when `refused` is given.
        let mut log: Vec<Json> = Vec::new();
        let mut lines: Vec<(String, usize)> = Vec::new();
        if let Some(a) = &s.actions {
            let mut from = 0;
            for text in a.get_ref().split([';', '\n']).map(str::trim).filter(|t| !t.is_empty()) {
                lines.push((text.to_string(), self.line_in(&a.span(), text, &mut from)));
            }
        }
        let at_line = |line: usize, message: String| ScenarioError { file: self.file.clone(), line, message };
        for (n, (text, line)) in lines.iter().enumerate() {
            let last = n + 1 == lines.len();
            let action = parse_action(&game, text).map_err(|m| at_line(*line, m))?;
            let before = game.clone();
            let mut events = Vec::new();
            match game.apply(&action, &mut events) {
                Ok(()) if last && s.refused.is_some() => {
                    return Err(at_line(*line, format!("'{text}' was accepted, and `refused` expects it refused")));
                }
                Ok(()) => {}
                Err(e) => match &s.refused {
                    // Worded as the shell, the JSON mode and the server word a refusal.
                    Some(want) if last => {
                        let e = render::action_error(&game, &e, crate::core::Viewer::Everyone);
                        if !e.contains(want.get_ref().as_str()) {
                            return Err(at_line(
                                *line,
                                format!("'{text}' was refused with \"{e}\", not with \"{}\"", want.get_ref()),
                            ));
                        }
                        if game != before {
                            return Err(at_line(*line, format!("'{text}' was refused but changed the game")));
                        }
                    }
                    // A mod that failed while the action resolved did not refuse it: it
                    // crashed, and the scenario says so (it said "was refused").
                    _ if matches!(e, crate::core::ActionError::Script(_)) => {
                        return Err(at_line(
                            *line,
                            format!(
                                "'{text}' failed in a mod: {}",
                                render::action_error(&game, &e, crate::core::Viewer::Everyone)
                            ),
                        ));
                    }
                    _ => {
                        return Err(at_line(
                            *line,
                            format!(
                                "'{text}' was refused: {}",
                                render::action_error(&game, &e, crate::core::Viewer::Everyone)
                            ),
                        ));
                    }
                },
            }
            if let Some(problem) = invariant_problem(&game) {
                return Err(at_line(*line, format!("after '{text}' the game broke a rule: {problem}")));
            }
            log.extend(events.iter().map(|e| json::event(&game, e, Viewer::Everyone).to_value()));
        }
        if let Some(want) = &s.refused
            && lines.is_empty()
        {
            return Err(self.error(want.span(), "`refused` needs an action to refuse (the last of `actions`)"));
        }
        // The state, key by key.
        if let Some(expect) = &s.expect {
            let state = describe(&game);
            let mut from = 0;
            for raw in expect.get_ref().lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
                let line = self.line_in(&expect.span(), raw, &mut from);
                let (key, want) = raw.split_once(':').ok_or_else(|| {
                    at_line(line, format!("expected `key: value`, got '{raw}' (keys: {})", KEYS.join(", ")))
                })?;
                let (key, want) = (key.trim(), want.trim());
                match state.get(key) {
                    None => {
                        return Err(at_line(line, format!("no state key '{key}' (keys: {})", KEYS.join(", "))));
                    }
                    Some(got) if got != want => {
                        return Err(at_line(line, format!("{key}: expected '{want}', got '{got}'")));
                    }
                    Some(_) => {}
                }
            }
        }
        // The events, in order, each matching some later event in every field it gives.
        let mut next = 0;
        for want in &s.events {
            let line = line_of(&self.text, want.span().start);
            let want_json = serde_json::to_value(want.get_ref())
                .map_err(|e| at_line(line, format!("cannot read the event: {e}")))?;
            if !want_json.is_object() {
                return Err(at_line(
                    line,
                    "an event is a table, such as { event = \"moved\", player = \"Ann\" }".into(),
                ));
            }
            match log[next..].iter().position(|got| contains(got, &want_json)) {
                Some(i) => next += i + 1,
                None => {
                    let seen: Vec<String> = log.iter().map(Json::to_string).collect();
                    return Err(at_line(
                        line,
                        format!(
                            "no event {want_json} (after the ones matched before it); the events were:\n  {}",
                            seen.join("\n  ")
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The cards of a deal string: `_` for "the next card left over".
    fn cards(&self, text: &Spanned<String>) -> Result<Vec<Option<Card>>, ScenarioError> {
        let mut from = 0;
        text.get_ref()
            .split_whitespace()
            .map(|w| {
                if w == "_" {
                    return Ok(None);
                }
                w.parse::<Card>().map(Some).map_err(|e| ScenarioError {
                    file: self.file.clone(),
                    line: self.line_in(&text.span(), w, &mut from),
                    message: format!("'{w}': {e}"),
                })
            })
            .collect()
    }
}

/// Whether `got` holds every field of `want` with the same value.
fn contains(got: &Json, want: &Json) -> bool {
    match (got, want) {
        (Json::Object(g), Json::Object(w)) => w.iter().all(|(k, v)| g.get(k).is_some_and(|gv| contains(gv, v))),
        (g, w) => g == w || (g.as_f64().is_some() && g.as_f64() == w.as_f64()),
    }
}

/// The whole deck order, top first, for a deal: hands in seat order, the table, the discard,
/// then the deck; every gap (`_`, or a place not given) takes the next card left over, in the
/// fixed order of `full_deck` (suits S H D C, ranks A … K).
fn deal(
    rules: &Rules,
    hands: &[Vec<Option<Card>>],
    table: &[Option<Card>],
    discard: Option<Card>,
    deck: &[Option<Card>],
) -> Result<Vec<Card>, String> {
    let mut slots: Vec<Option<Card>> = Vec::new();
    for hand in hands {
        slots.extend(hand.iter().copied());
        slots.extend(std::iter::repeat_n(None, rules.hand_size - hand.len()));
    }
    slots.extend(table.iter().copied());
    slots.extend(std::iter::repeat_n(None, rules.table_size - table.len()));
    slots.push(discard);
    slots.extend(deck.iter().copied());
    let mut left = full_deck(rules.decks_for(hands.len()));
    for c in slots.iter().flatten() {
        let i = left.iter().position(|l| l == c).ok_or_else(|| format!("{c} is dealt more often than it exists"))?;
        left.remove(i);
    }
    let mut left = left.into_iter();
    let mut order = Vec::new();
    for s in slots {
        match s.or_else(|| left.next()) {
            Some(c) => order.push(c),
            None => return Err("more cards are named than the decks hold".into()),
        }
    }
    order.extend(left);
    Ok(order)
}

/// Reads an action as the rules tests write it (the form `Action` prints): `play 10S`,
/// `play 7H table2`, `play JS @Bob` (or `@2`), `play 5H on-top`, `recover 7H 2H`,
/// `recover 7H on-top`, `pass`; and as the shell takes a card's place and order: `play 7H
/// table` (the slot it lies in), `play 7H t2`, `over` for `on-top`.
pub fn parse_action(game: &Game, text: &str) -> Result<Action, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let on_top = words.iter().any(|w| *w == "on-top" || w.eq_ignore_ascii_case("over"));
    let words: Vec<&str> = words.into_iter().filter(|w| *w != "on-top" && !w.eq_ignore_ascii_case("over")).collect();
    // A mod's action: `buddy @2`, `buddy @bob`, `buddy bob`, `toss 7H` (a card).
    let act = words.first().and_then(|w| game.registry().actions().iter().find(|a| a.name.as_str() == *w));
    if let Some(entry) = act {
        if let [w] = &words[1..]
            && !w.starts_with('@')
            && let Ok(card) = w.parse::<Card>()
        {
            return Ok(Action::Act { name: entry.name, target: None, card: Some(card) });
        }
        let target = match &words[1..] {
            [] => None,
            [who] => {
                let who = who.strip_prefix('@').unwrap_or(who);
                Some(match who.parse::<usize>() {
                    Ok(0) => return Err(format!("'{text}': players count from 1")),
                    Ok(n) => n - 1,
                    Err(_) => game.seat_of(who).ok_or_else(|| format!("'{text}': no player called {who}"))?,
                })
            }
            _ => return Err(format!("cannot read '{text}': {} names at most one player or card", entry.name)),
        };
        return Ok(Action::Act { name: entry.name, target, card: None });
    }
    let card = |w: &str| w.parse::<Card>().map_err(|e| format!("'{w}' in '{text}': {e}"));
    match words.first().copied() {
        Some("pass") if words.len() == 1 => Ok(Action::Pass),
        Some("recover") if words.len() > 1 => Ok(Action::Recover {
            cards: Cards::try_from(words[1..].iter().map(|w| card(w)).collect::<Result<Vec<_>, _>>()?)
                .map_err(|e| format!("'{text}': {e}"))?,
            face_on_top: on_top,
        }),
        Some("play") if words.len() > 1 => {
            let played = card(words[1])?;
            let (mut from, mut target) = (Source::Hand, None);
            for w in &words[2..] {
                if w.eq_ignore_ascii_case("table") {
                    let slot = game.table().iter().position(|c| *c == Some(played));
                    from = Source::Table(slot.ok_or_else(|| format!("'{text}': {played} is not on the table"))?);
                } else if let Some(slot) = w.strip_prefix("table").or_else(|| w.strip_prefix('t')) {
                    let n: usize = slot.parse().map_err(|_| format!("'{w}': a table slot is table1, table2 …"))?;
                    if n == 0 {
                        return Err(format!("'{w}': table slots count from 1"));
                    }
                    from = Source::Table(n - 1);
                } else if let Some(who) = w.strip_prefix('@') {
                    target = Some(match who.parse::<usize>() {
                        // A seat past the table is the engine's to refuse (a scenario's
                        // `refused` may test just that).
                        Ok(0) => return Err(format!("'{w}': players count from 1")),
                        Ok(n) => n - 1,
                        Err(_) => game.seat_of(who).ok_or_else(|| format!("'{w}': no player called {who}"))?,
                    });
                } else {
                    return Err(format!("cannot read '{w}' in '{text}' (play CARD [table|tableN] [@PLAYER] [on-top])"));
                }
            }
            Ok(Action::Play { card: played, from, target, face_on_top: on_top })
        }
        _ => Err(format!(
            "cannot read the action '{text}' (play CARD [tableN] [@PLAYER] [on-top], recover CARD… [on-top], pass, \
             or a mod's action: NAME [@PLAYER])"
        )),
    }
}

/// The keys of the state an `expect` line may name.
pub const KEYS: [&str; 10] =
    ["NAME", "hand NAME", "pending NAME", "table", "top", "discard", "deck", "deck top", "turn", "outcome"];

/// The state as `key: value` lines, as the rules tests describe it: `Ann` (depth, oxygen,
/// front), `hand Ann`, `pending Ann` (jolt, quick, knot or none), `table`, `top`, `discard`
/// (bottom first), `deck` (how many), `deck top`, `turn` (number and who plays), `outcome`.
pub fn describe(game: &Game) -> BTreeMap<String, String> {
    let list = |cards: &mut dyn Iterator<Item = Card>| cards.map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
    let mut out = BTreeMap::new();
    for (seat, p) in game.players().iter().enumerate() {
        let name = game.name(seat);
        let mut diver = format!("depth {}, oxygen {}", p.depth, p.oxygen);
        if !p.front.is_empty() {
            diver += &format!(", front {}", list(&mut p.front.iter().copied()));
        }
        out.insert(name.to_string(), diver);
        out.insert(format!("hand {name}"), list(&mut p.hand.iter().copied()));
        let pending = Pending::of(p);
        let words: Vec<&str> = [("jolt", pending.jolt), ("quick", pending.quick), ("knot", pending.knot)]
            .into_iter()
            .filter_map(|(w, on)| on.then_some(w))
            .collect();
        out.insert(format!("pending {name}"), if words.is_empty() { "none".into() } else { words.join(" ") });
    }
    let table: Vec<String> = game.table().iter().map(|s| s.map_or("-".to_string(), |c| c.to_string())).collect();
    out.insert("table".into(), table.join(" "));
    out.insert("top".into(), game.discard_top().map_or("-".into(), |c| c.to_string()));
    out.insert("discard".into(), list(&mut game.discard_pile().iter().copied()));
    out.insert("deck".into(), game.deck_size().to_string());
    out.insert("deck top".into(), game.deck().next().map_or("-".into(), |c| c.to_string()));
    out.insert("turn".into(), format!("{} {}", game.turn(), game.name(game.current())));
    let outcome = match game.outcome() {
        Outcome::Running => "running".to_string(),
        Outcome::Won { .. } => format!("{} won", render::winners_text(game)),
        Outcome::Draw => "draw".to_string(),
    };
    out.insert("outcome".into(), outcome);
    out
}

/// 1-based line of byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    let offset = text.floor_char_boundary(offset.min(text.len()));
    text[..offset].matches('\n').count() + 1
}

/// `dir/./x/../y` → `dir/y`, for showing and opening a path relative to a file.
fn tidy(path: &Path) -> String {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() && !out.ends_with("..") => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() { ".".into() } else { out.display().to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deal_places_what_it_names_and_fills_the_gaps_in_order() {
        let c = |t: &str| Some(t.parse::<Card>().unwrap());
        let order =
            deal(&Rules::default(), &[vec![], vec![c("QS")]], &[None, c("9D")], c("2C"), &[c("KH"), None]).unwrap();
        assert_eq!(order.len(), 52);
        let text: Vec<String> = order.iter().map(Card::to_string).collect();
        assert_eq!(text[..4], ["AS", "2S", "3S", "4S"]);
        assert_eq!(text[4], "QS");
        assert_eq!(text[9], "9D");
        assert_eq!(text[12], "2C");
        assert_eq!(text[13..15], ["KH", "JS"]);
        let twice = deal(&Rules::default(), &[vec![c("AS")], vec![c("AS")]], &[], None, &[]);
        assert_eq!(twice.unwrap_err(), "AS is dealt more often than it exists");
    }

    /// The failure of the first scenario of `text`, run on the standard rules, as printed.
    fn failure(text: &str) -> String {
        let file = match ScenarioFile::parse("s.toml", text, None) {
            Ok(file) => file,
            Err(e) => return e.to_string(),
        };
        let outcomes = file.run(&Ruleset::standard());
        outcomes[0].failure.as_ref().map_or("passed".into(), ScenarioError::to_string)
    }

    #[test]
    fn every_kind_of_mistake_is_placed_on_its_line() {
        let head = "[[scenario]]\nname = \"x\"\nhands.Ann = \"5S 2H 3D 4C\"\ndiscard = \"9H\"\n";
        assert_eq!(failure(&format!("{head}actions = \"play 5S\"\nexpect = \"Ann: depth 5, oxygen 9\"\n")), "passed");
        assert_eq!(
            failure(&format!("{head}colour = 1\n")),
            "s.toml:5: unknown field `colour`, expected one of `name`, `players`, `seed`, `hands`, `table`, `discard`, `deck`, `start`, `actions`, `expect`, `events`, `refused`"
        );
        assert_eq!(
            failure("[[scenario]]\nname = \"x\"\nhands.Zed = \"5S\"\n"),
            "s.toml:3: no player called 'Zed' (the players are Ann, Bob)"
        );
        assert_eq!(
            failure("[[scenario]]\nname = \"x\"\nhands.Ann = \"5S ZZ\"\n"),
            "s.toml:3: 'ZZ': not a card: 'ZZ'"
                .replace("not a card: 'ZZ'", &"ZZ".parse::<Card>().unwrap_err().to_string())
        );
        assert_eq!(
            failure(&format!("{head}actions = \"\"\"\nplay 5S\nplay 7C @Ann\n\"\"\"\n")),
            "s.toml:7: 'play 7C @Ann' was refused: 7C is not in your hand"
        );
        assert_eq!(
            failure(&format!("{head}expect = \"\"\"\nturn: 1 Ann\nwho: Ann\n\"\"\"\n")),
            format!("s.toml:7: no state key 'who' (keys: {})", KEYS.join(", "))
        );
        let missing =
            failure(&format!("{head}actions = \"play 5S\"\nevents = [\n  {{ event = \"moved\", to = 6 }},\n]\n"));
        assert!(missing.starts_with("s.toml:7: no event {\"event\":\"moved\",\"to\":6}"), "{missing}");
        assert_eq!(
            failure(&format!("{head}actions = \"play 5S\"\nrefused = \"no\"\n")),
            "s.toml:5: 'play 5S' was accepted, and `refused` expects it refused"
        );
        assert_eq!(
            failure("ruleset = \"x\"\n"),
            "s.toml:1: no scenarios: add a [[scenario]] table (MODDING.md, Testing your mod)"
        );
    }

    #[test]
    fn lines_inside_a_multi_line_string_are_found() {
        let text = "a = 1\nactions = \"\"\"\nplay 7H\nplay 8H\n\"\"\"\n";
        let file = ScenarioFile { file: "f".into(), ruleset: None, text: text.into(), scenarios: Vec::new() };
        let span = text.find("\"\"\"").unwrap()..text.len();
        let mut from = 0;
        assert_eq!(file.line_in(&span, "play 7H", &mut from), 3);
        assert_eq!(file.line_in(&span, "play 8H", &mut from), 4);
        assert_eq!(file.line_in(&span, "play 9H", &mut from), 2);
    }
}
