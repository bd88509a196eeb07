//! The JSON side of the scripting contract: events with player names instead of seats, the
//! `state` object, the rules object. Cards are D1 strings without symbols (`"10H"`).
//!
//! The core knows no serde. The JSON form of its types is given here, at the edge, by mirror
//! types: [`CardJson`], [`CardsJson`], [`SourceJson`], [`GainJson`] and [`EventJson`]
//! (tagged `"event"`, snake_case, fields in the core's order); the save files use them too. A
//! new core event fails to compile until it has its mirror here, so its JSON form is always
//! chosen, never an accident. In the output only the `player` and `target` fields are
//! rewritten from seat numbers to names.

use std::fmt;
use std::sync::Arc;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::core::{
    ActionName, Card, Event, Gain, Game, ModId, Observation, Outcome, Rules, Seat, Seen, Source, Viewer,
};

/// A card as JSON: its D1 text (`"10H"`); read back with the card parser's own message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardJson(pub Card);

impl Serialize for CardJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for CardJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardJson, D::Error> {
        let text = String::deserialize(d)?;
        // The text comes from a file: quoted (cut, control characters escaped) in the error.
        text.parse().map(CardJson).map_err(|mut e: crate::core::CardParseError| {
            e.text = crate::limits::quoted(&e.text);
            serde::de::Error::custom(e)
        })
    }
}

/// The name of a mod's action as JSON: its text (`"buddy"`); read back with the name's own
/// check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionNameJson(pub ActionName);

impl Serialize for ActionNameJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for ActionNameJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ActionNameJson, D::Error> {
        let text = String::deserialize(d)?;
        ActionName::new(&text).map(ActionNameJson).map_err(serde::de::Error::custom)
    }
}

/// Cards as a JSON list of [`CardJson`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardsJson<'a>(pub &'a [Card]);

impl Serialize for CardsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().copied().map(CardJson))
    }
}

/// [`CardsJson`] both ways, for `#[serde(with = "card_list")]` on a `Vec<Card>` or
/// [`Cards`](crate::core::Cards) field.
pub mod card_list {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{CardJson, CardsJson};
    use crate::core::Card;

    pub fn serialize<S: Serializer>(cards: &[Card], s: S) -> Result<S::Ok, S::Error> {
        CardsJson(cards).serialize(s)
    }

    /// Into a `Vec<Card>`, or into [`Cards`](crate::core::Cards), which refuses a list longer
    /// than it holds.
    pub fn deserialize<'de, D, C>(d: D) -> Result<C, D::Error>
    where
        D: Deserializer<'de>,
        C: TryFrom<Vec<Card>, Error: std::fmt::Display>,
    {
        let cards: Vec<Card> = Vec::<CardJson>::deserialize(d)?.into_iter().map(|c| c.0).collect();
        C::try_from(cards).map_err(serde::de::Error::custom)
    }
}

/// Where a played card came from: `"hand"` or `{"table": slot}` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceJson {
    Hand,
    Table(usize),
}

impl From<Source> for SourceJson {
    fn from(source: Source) -> SourceJson {
        match source {
            Source::Hand => SourceJson::Hand,
            Source::Table(slot) => SourceJson::Table(slot),
        }
    }
}

impl From<SourceJson> for Source {
    fn from(source: SourceJson) -> Source {
        match source {
            SourceJson::Hand => Source::Hand,
            SourceJson::Table(slot) => Source::Table(slot),
        }
    }
}

/// A recovery's gain: the number of oxygen points, or `"max"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GainJson(pub Gain);

impl Serialize for GainJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Gain::Amount(n) => s.serialize_u32(n),
            Gain::Max => s.serialize_str("max"),
        }
    }
}

impl From<&Gain> for GainJson {
    fn from(gain: &Gain) -> GainJson {
        GainJson(*gain)
    }
}

/// An [`Event`] as JSON, seats as numbers (or, with [`EventJson::named`], as names): the same
/// variants and fields, in the same order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventJson<'a, P = Seat> {
    TurnStarted {
        player: P,
        turn: u32,
    },
    Played {
        player: P,
        card: CardJson,
        from: SourceJson,
    },
    Doubled {
        player: P,
        card: CardJson,
        on: CardJson,
        value: u32,
    },
    Moved {
        player: P,
        from: u32,
        to: u32,
    },
    Breathed {
        player: P,
        from: u32,
        to: u32,
    },
    Rescued {
        player: P,
        depth: u32,
        oxygen: u32,
    },
    Placed {
        player: P,
        target: P,
        card: CardJson,
    },
    Jolted {
        player: P,
    },
    Quickened {
        player: P,
        extra: u32,
    },
    Pushed {
        player: P,
        target: P,
        by: u32,
    },
    Knotted {
        player: P,
    },
    Recovered {
        player: P,
        cards: CardsJson<'a>,
        gain: GainJson,
        from: u32,
        to: u32,
    },
    Discarded {
        card: CardJson,
    },
    Drew {
        player: P,
        card: CardJson,
    },
    Refilled {
        slot: usize,
        card: CardJson,
    },
    Reshuffled {
        cards: usize,
    },
    Passed {
        player: P,
    },
    Acted {
        player: P,
        name: ActionNameJson,
        #[serde(skip_serializing_if = "Option::is_none")]
        target: Option<P>,
        #[serde(skip_serializing_if = "Option::is_none")]
        card: Option<CardJson>,
    },
    TookFromPile {
        player: P,
        card: CardJson,
    },
    Returned {
        #[serde(skip_serializing_if = "Option::is_none")]
        player: Option<P>,
        card: CardJson,
    },
    DeckShuffled {
        cards: usize,
    },
    Reversed {
        backwards: bool,
    },
    Skipped {
        player: P,
    },
    AnotherTurn {
        player: P,
    },
    Said {
        text: &'a str,
    },
    Revealed {
        #[serde(rename = "mod")]
        by: &'a str,
        player: P,
        card: CardJson,
    },
    Won {
        player: P,
        /// Everyone who wins, when more than `player` do (a team, a shared win).
        #[serde(skip_serializing_if = "one_at_most")]
        winners: Vec<P>,
    },
    Draw {
        turns: u32,
    },
    Teams {
        /// Each player's team, from 1, in seat order.
        teams: Vec<u8>,
    },
}

/// Whether a list of winners says no more than the winner alone.
fn one_at_most<P>(list: &[P]) -> bool {
    list.len() <= 1
}

/// An event as everyone sees it (a mod's words in full), its mods unnamed.
impl<'a> From<&'a Event> for EventJson<'a> {
    fn from(event: &'a Event) -> EventJson<'a> {
        EventJson::with_seats(event, &[], |seat| seat)
    }
}

impl<'a> EventJson<'a, NameJson<'a>> {
    /// `event` with its players and mods by name, as scripts read it. A mod's words are
    /// written in full: build it only for an event the reader sees whole ([`Viewer::sees`]).
    pub fn named(event: &'a Event, names: &'a [String], mods: &'a [Arc<str>]) -> EventJson<'a, NameJson<'a>> {
        EventJson::with_seats(event, mods, |seat| NameJson { names, seat })
    }
}

/// The name of mod `by` among `mods`.
fn mod_name(mods: &[Arc<str>], by: ModId) -> &str {
    mods.get(usize::from(by.0)).map_or("a mod", |n| n)
}

impl<'a, P> EventJson<'a, P> {
    fn with_seats(event: &'a Event, mods: &'a [Arc<str>], p: impl Fn(Seat) -> P) -> EventJson<'a, P> {
        match *event {
            Event::TurnStarted { player, turn } => EventJson::TurnStarted { player: p(player), turn },
            Event::Played { player, card, from } => {
                EventJson::Played { player: p(player), card: CardJson(card), from: from.into() }
            }
            Event::Doubled { player, card, on, value } => {
                EventJson::Doubled { player: p(player), card: CardJson(card), on: CardJson(on), value }
            }
            Event::Moved { player, from, to } => EventJson::Moved { player: p(player), from, to },
            Event::Breathed { player, from, to } => EventJson::Breathed { player: p(player), from, to },
            Event::Rescued { player, depth, oxygen } => EventJson::Rescued { player: p(player), depth, oxygen },
            Event::Placed { player, target, card } => {
                EventJson::Placed { player: p(player), target: p(target), card: CardJson(card) }
            }
            Event::Jolted { player } => EventJson::Jolted { player: p(player) },
            Event::Quickened { player, extra } => EventJson::Quickened { player: p(player), extra },
            Event::Pushed { player, target, by } => EventJson::Pushed { player: p(player), target: p(target), by },
            Event::Knotted { player } => EventJson::Knotted { player: p(player) },
            Event::Recovered { player, ref cards, ref gain, from, to } => {
                EventJson::Recovered { player: p(player), cards: CardsJson(cards), gain: gain.into(), from, to }
            }
            Event::Discarded { card } => EventJson::Discarded { card: CardJson(card) },
            Event::Drew { player, card } => EventJson::Drew { player: p(player), card: CardJson(card) },
            Event::Refilled { slot, card } => EventJson::Refilled { slot, card: CardJson(card) },
            Event::Reshuffled { cards } => EventJson::Reshuffled { cards },
            Event::Passed { player } => EventJson::Passed { player: p(player) },
            Event::Acted { player, name, target, card } => EventJson::Acted {
                player: p(player),
                name: ActionNameJson(name),
                target: target.map(&p),
                card: card.map(CardJson),
            },
            Event::TookFromPile { player, card } => EventJson::TookFromPile { player: p(player), card: CardJson(card) },
            Event::Returned { player, card } => EventJson::Returned { player: player.map(&p), card: CardJson(card) },
            Event::DeckShuffled { cards } => EventJson::DeckShuffled { cards },
            Event::Reversed { backwards } => EventJson::Reversed { backwards },
            Event::Skipped { player } => EventJson::Skipped { player: p(player) },
            Event::AnotherTurn { player } => EventJson::AnotherTurn { player: p(player) },
            Event::Said { ref words, .. } => EventJson::Said { text: Viewer::Everyone.shown(words) },
            Event::Revealed { by, player, card } => {
                EventJson::Revealed { by: mod_name(mods, by), player: p(player), card: CardJson(card) }
            }
            Event::Won { player, winners } => {
                EventJson::Won { player: p(player), winners: winners.iter().map(&p).collect() }
            }
            Event::Draw { turns } => EventJson::Draw { turns },
            Event::Teams { ref teams } => EventJson::Teams { teams: teams.iter().map(|t| t + 1).collect() },
        }
    }
}

/// A seat as its player's name (a seat without a name as its number, in a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameJson<'a> {
    names: &'a [String],
    seat: Seat,
}

impl Serialize for NameJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.names.get(self.seat) {
            Some(name) => s.serialize_str(name),
            None => s.collect_str(&self.seat),
        }
    }
}

/// A JSON object that keeps its keys in the order they were added, so output reads naturally
/// (`{"event":"played","player":"alice","card":"7H",…}`); serde_json's own map sorts them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object(Vec<(String, Item)>);

/// A value inside an [`Object`].
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Value(Value),
    Object(Object),
    List(Vec<Object>),
}

impl From<Value> for Item {
    fn from(v: Value) -> Item {
        Item::Value(v)
    }
}

impl From<Object> for Item {
    fn from(o: Object) -> Item {
        Item::Object(o)
    }
}

impl From<Vec<Object>> for Item {
    fn from(l: Vec<Object>) -> Item {
        Item::List(l)
    }
}

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    /// `{key: value}`.
    pub fn one(key: &str, value: impl Into<Item>) -> Object {
        Object::new().with(key, value)
    }

    /// Adds (or replaces) `key`.
    pub fn with(mut self, key: &str, value: impl Into<Item>) -> Object {
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key.to_string(), value)),
        }
        self
    }

    /// The value of `key`, if it is a plain value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).and_then(|(_, v)| match v {
            Item::Value(v) => Some(v),
            _ => None,
        })
    }

    /// A `serde_json` object as an `Object`, its keys in the order it has them (sorted, for
    /// one made by `json!`), so it serialises exactly as the value does. Anything else is
    /// kept under the key `value`.
    pub fn from_value(value: Value) -> Object {
        match value {
            Value::Object(map) => Object(map.into_iter().map(|(k, v)| (k, Item::Value(v))).collect()),
            other => Object::one("value", other),
        }
    }

    /// As a `serde_json::Value` (the key order is lost).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("objects serialise")
    }
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Item::Value(v) => v.serialize(s),
            Item::Object(o) => o.serialize(s),
            Item::List(l) => l.serialize(s),
        }
    }
}

impl Serialize for Object {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Object, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = Object;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Object, A::Error> {
                let mut object = Object::new();
                while let Some((k, v)) = access.next_entry::<String, Value>()? {
                    object.0.push((k, Item::Value(v)));
                }
                Ok(object)
            }
        }
        d.deserialize_map(Keys)
    }
}

/// One event as a JSON object, players by name, fields in the core's order.
///
/// The event is shown as `viewer` may see it ([`Viewer::sees`]): a card drawn into a hand it
/// cannot see is left out (`{"event":"drew","player":"bob"}`). A script on the pipe sees
/// everything ([`Viewer::Everyone`]).
pub fn event(game: &Game, event: &Event, viewer: Viewer) -> Object {
    let text = serde_json::to_string(&EventSeen::of(game, event, viewer)).expect("events serialise");
    serde_json::from_str(&text).expect("an event is an object")
}

/// [`event`] written as JSON text into `out`, without building the object.
pub fn write_event(out: impl std::io::Write, game: &Game, event: &Event, viewer: Viewer) -> serde_json::Result<()> {
    serde_json::to_writer(out, &EventSeen::of(game, event, viewer))
}

/// An event as a viewer may see it: whole, or a draw or return without its card.
#[derive(Serialize)]
#[serde(untagged)]
enum EventSeen<'a> {
    Whole(EventJson<'a, NameJson<'a>>),
    Hidden {
        event: &'static str,
        player: NameJson<'a>,
    },
    /// A mod's words this viewer may not read: which mod spoke, and that they are withheld.
    Withheld {
        event: &'static str,
        #[serde(rename = "mod")]
        by: &'a str,
        withheld: bool,
    },
}

impl<'a> EventSeen<'a> {
    fn of(game: &'a Game, event: &'a Event, viewer: Viewer) -> EventSeen<'a> {
        let names = game.names();
        match viewer.sees(event) {
            Seen::Whole(event) => EventSeen::Whole(EventJson::named(event, names, game.registry().mod_names())),
            Seen::HiddenDraw { player } => {
                EventSeen::Hidden { event: "drew", player: NameJson { names, seat: player } }
            }
            Seen::HiddenReturn { player } => {
                EventSeen::Hidden { event: "returned", player: NameJson { names, seat: player } }
            }
            Seen::Withheld { by } => {
                EventSeen::Withheld { event: "said", by: game.registry().mod_name(by), withheld: true }
            }
        }
    }
}

/// The winners' names, in seat order (empty while nobody won).
fn winner_names(names: &[String], winners: crate::core::Seats) -> Value {
    Value::Array(winners.iter().map(|s| Value::String(names[s].clone())).collect())
}

fn cards(cs: &[Card]) -> Value {
    Value::Array(cs.iter().map(|c| Value::String(c.to_string())).collect())
}

/// The turn order in the `state` object, when an effect changed it: whether play goes
/// `backwards` round the table and who moves `next` by the built-in order (a mod's own
/// `next_turn` is asked only as the turn ends). Absent while play goes the usual way.
#[derive(Serialize)]
struct Order<'a> {
    backwards: bool,
    next: &'a str,
}

impl<'a> Order<'a> {
    fn of(seen: &Observation<'a>) -> Option<Order<'a>> {
        seen.order_changed().then(|| Order { backwards: seen.is_reversed(), next: seen.name(seen.next_in_order()) })
    }
}

/// The `state` object: the whole game, every hand included (scripts see everything).
/// `bots` names the bot behind each seat, if any.
pub fn state(game: &Game, bots: &[Option<String>]) -> Object {
    let players: Vec<Object> = game
        .players()
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let o = Object::new()
                .with("name", json!(game.name(seat)))
                .with("seat", json!(seat + 1))
                .with("depth", json!(p.depth))
                .with("oxygen", json!(p.oxygen))
                .with("hand", cards(&p.hand))
                .with("front", cards(&p.front))
                .with("bot", json!(bots.get(seat).cloned().flatten()));
            match game.teams() {
                Some(teams) => o.with("team", json!(teams.team(seat) + 1)),
                None => o,
            }
        })
        .collect();
    let deck: Vec<Card> = game.deck().collect();
    let mut o = Object::new()
        .with("turn", json!(game.turn()))
        .with("current", json!(game.name(game.current())))
        .with("winners", winner_names(game.names(), game.winners()));
    if let Some(order) = Order::of(&Observation::of(game, Viewer::Everyone)) {
        o = o.with("backwards", json!(order.backwards)).with("next", json!(order.next));
    }
    o.with("winner", json!(game.winner().map(|w| game.name(w).to_string())))
        .with("draw", json!(game.outcome() == Outcome::Draw))
        .with("over", json!(game.is_over()))
        .with("deck_size", json!(game.deck_size()))
        .with("deck", cards(&deck))
        .with("discard_size", json!(game.discard_pile().len()))
        .with("discard_top", json!(game.discard_top().map(|c| c.to_string())))
        .with("discard", cards(game.discard_pile()))
        .with("table", json!(game.table().iter().map(|c| c.map(|c| c.to_string())).collect::<Vec<_>>()))
        .with("players", players)
}

/// The `state` object as `seen`'s viewer may see it ([`Observation`]): the same keys as
/// [`state`], with every player's `hand_size`; a hand this viewer may not see has no `hand`,
/// and only [`Viewer::Everyone`] gets the `deck` (its order is hidden from every seat). What a
/// network seat or spectator receives.
pub fn state_for(seen: &Observation, bots: &[Option<String>]) -> Object {
    let players: Vec<Object> = seen
        .divers()
        .map(|d| {
            let mut o = Object::new()
                .with("name", json!(d.name))
                .with("seat", json!(d.seat + 1))
                .with("depth", json!(d.depth))
                .with("oxygen", json!(d.oxygen))
                .with("hand_size", json!(d.hand_size));
            if let Some(hand) = d.hand {
                o = o.with("hand", cards(hand));
            }
            let o = o.with("front", cards(d.front)).with("bot", json!(bots.get(d.seat).cloned().flatten()));
            match d.team {
                Some(team) => o.with("team", json!(team + 1)),
                None => o,
            }
        })
        .collect();
    let mut o = Object::new()
        .with("turn", json!(seen.turn()))
        .with("current", json!(seen.name(seen.current())))
        .with("winners", winner_names(seen.names(), seen.winners()));
    if let Some(order) = Order::of(seen) {
        o = o.with("backwards", json!(order.backwards)).with("next", json!(order.next));
    }
    o = o
        .with("winner", json!(seen.winner().map(|w| seen.name(w).to_string())))
        .with("draw", json!(seen.outcome() == Outcome::Draw))
        .with("over", json!(seen.is_over()))
        .with("deck_size", json!(seen.deck_size()));
    if let Some(deck) = seen.deck() {
        o = o.with("deck", cards(&deck));
    }
    o.with("discard_size", json!(seen.discard_pile().len()))
        .with("discard_top", json!(seen.discard_top().map(|c| c.to_string())))
        .with("discard", cards(seen.discard_pile()))
        .with("table", json!(seen.table().iter().map(|c| c.map(|c| c.to_string())).collect::<Vec<_>>()))
        .with("players", players)
}

/// The rules in force, for `diving rules --json`.
pub fn rules(name: &str, rules: &Rules) -> Object {
    let mut start = 0;
    let bands: Vec<Object> = rules
        .oxygen_bands
        .iter()
        .map(|b| {
            let band = Object::new().with("from", json!(start)).with("to", json!(b.to)).with("cost", json!(b.cost));
            start = b.to + 1;
            band
        })
        .collect();
    let recovery: Map<String, Value> =
        rules.recovery.iter().map(|(pattern, gain)| (pattern.to_string(), json!(GainJson::from(gain)))).collect();
    let o = Object::new()
        .with("ruleset", json!(name))
        .with("min_players", json!(rules.min_players))
        .with("max_players", json!(rules.max_players))
        .with("decks", json!(rules.decks))
        .with("hand_size", json!(rules.hand_size))
        .with("table_size", json!(rules.table_size))
        .with("max_depth", json!(rules.max_depth))
        .with("max_oxygen", json!(rules.max_oxygen))
        .with("oxygen_bands", bands)
        .with("quick_extra", json!(rules.quick_extra))
        .with("quick_push", json!(rules.quick_push))
        .with("recovery", Value::Object(recovery))
        .with("max_turns", json!(rules.max_turns))
        .with("depth_unit", json!(rules.depth_unit))
        .with("depth_scale", json!(rules.depth_scale));
    // Card values and teams only when a ruleset sets them: the rules hash of every earlier
    // save is this object's text, and stays what it was.
    let o = if rules.standard_values() {
        o
    } else {
        let values: Map<String, Value> =
            crate::core::Rank::all().map(|r| (r.to_string(), json!(rules.value(r)))).collect();
        o.with("values", Value::Object(values))
    };
    match rules.teams {
        None => o,
        Some(teams) => o.with(
            "teams",
            Object::new().with("count", json!(teams.count)).with("target_teammates", json!(teams.target_teammates)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Cards, Seats};

    #[test]
    fn events_name_players_and_write_d1_cards() {
        let g = Game::standard(&["alice", "bob"], 1).unwrap();
        let e = Event::Played { player: 1, card: "10H".parse().unwrap(), from: Source::Hand };
        assert_eq!(
            event(&g, &e, Viewer::Everyone).to_string(),
            r#"{"event":"played","player":"bob","card":"10H","from":"hand"}"#
        );
        let e = Event::Pushed { player: 0, target: 1, by: 4 };
        assert_eq!(
            event(&g, &e, Viewer::Everyone).to_value(),
            json!({"event": "pushed", "player": "alice", "target": "bob", "by": 4})
        );
    }

    /// A draw is shown whole to its drawer and to everyone, and without the card to the
    /// other seats and spectators.
    #[test]
    fn a_draw_names_its_card_only_to_whom_may_see_it() {
        let g = Game::standard(&["alice", "bob"], 1).unwrap();
        let e = Event::Drew { player: 1, card: "10H".parse().unwrap() };
        let whole = r#"{"event":"drew","player":"bob","card":"10H"}"#;
        assert_eq!(event(&g, &e, Viewer::Everyone).to_string(), whole);
        assert_eq!(event(&g, &e, Viewer::Seat(1)).to_string(), whole);
        for viewer in [Viewer::Seat(0), Viewer::Spectator] {
            assert_eq!(event(&g, &e, viewer).to_string(), r#"{"event":"drew","player":"bob"}"#, "{viewer:?}");
        }
    }

    /// Every event, in the form the scripting contract fixes: tag first, then the fields in
    /// the order the core declares them, seats as names (a seat nobody holds as its number).
    #[test]
    fn every_event_keeps_its_json_form() {
        let g = Game::standard(&["alice", "bob"], 1).unwrap();
        let c = |text: &str| -> Card { text.parse().unwrap() };
        let cases = [
            (Event::TurnStarted { player: 0, turn: 3 }, r#"{"event":"turn_started","player":"alice","turn":3}"#),
            (
                Event::Played { player: 1, card: c("AS"), from: Source::Table(2) },
                r#"{"event":"played","player":"bob","card":"AS","from":{"table":2}}"#,
            ),
            (
                Event::Doubled { player: 0, card: c("7H"), on: c("7C"), value: 14 },
                r#"{"event":"doubled","player":"alice","card":"7H","on":"7C","value":14}"#,
            ),
            (Event::Moved { player: 0, from: 3, to: 10 }, r#"{"event":"moved","player":"alice","from":3,"to":10}"#),
            (Event::Breathed { player: 1, from: 9, to: 8 }, r#"{"event":"breathed","player":"bob","from":9,"to":8}"#),
            (
                Event::Rescued { player: 0, depth: 20, oxygen: 10 },
                r#"{"event":"rescued","player":"alice","depth":20,"oxygen":10}"#,
            ),
            (
                Event::Placed { player: 0, target: 1, card: c("JD") },
                r#"{"event":"placed","player":"alice","target":"bob","card":"JD"}"#,
            ),
            (Event::Jolted { player: 1 }, r#"{"event":"jolted","player":"bob"}"#),
            (Event::Quickened { player: 0, extra: 2 }, r#"{"event":"quickened","player":"alice","extra":2}"#),
            (
                Event::Pushed { player: 0, target: 7, by: 4 },
                r#"{"event":"pushed","player":"alice","target":"7","by":4}"#,
            ),
            (Event::Knotted { player: 0 }, r#"{"event":"knotted","player":"alice"}"#),
            (
                Event::Recovered {
                    player: 1,
                    cards: Cards::try_from([c("2H"), c("10H")]).unwrap(),
                    gain: Gain::Amount(3),
                    from: 4,
                    to: 7,
                },
                r#"{"event":"recovered","player":"bob","cards":["2H","10H"],"gain":3,"from":4,"to":7}"#,
            ),
            (
                Event::Recovered { player: 0, cards: Cards::new(), gain: Gain::Max, from: 1, to: 10 },
                r#"{"event":"recovered","player":"alice","cards":[],"gain":"max","from":1,"to":10}"#,
            ),
            (Event::Discarded { card: c("QC") }, r#"{"event":"discarded","card":"QC"}"#),
            (Event::Drew { player: 0, card: c("KS") }, r#"{"event":"drew","player":"alice","card":"KS"}"#),
            (Event::Refilled { slot: 0, card: c("3D") }, r#"{"event":"refilled","slot":0,"card":"3D"}"#),
            (Event::Reshuffled { cards: 31 }, r#"{"event":"reshuffled","cards":31}"#),
            (Event::Passed { player: 1 }, r#"{"event":"passed","player":"bob"}"#),
            (
                Event::Acted { player: 0, name: "buddy".parse().unwrap(), target: Some(1), card: None },
                r#"{"event":"acted","player":"alice","name":"buddy","target":"bob"}"#,
            ),
            (
                Event::Acted { player: 1, name: "shout".parse().unwrap(), target: None, card: None },
                r#"{"event":"acted","player":"bob","name":"shout"}"#,
            ),
            (
                Event::Acted { player: 1, name: "toss".parse().unwrap(), target: None, card: Some(c("7H")) },
                r#"{"event":"acted","player":"bob","name":"toss","card":"7H"}"#,
            ),
            (
                Event::TookFromPile { player: 0, card: c("9S") },
                r#"{"event":"took_from_pile","player":"alice","card":"9S"}"#,
            ),
            (Event::Returned { player: Some(1), card: c("2H") }, r#"{"event":"returned","player":"bob","card":"2H"}"#),
            (Event::Returned { player: None, card: c("7C") }, r#"{"event":"returned","card":"7C"}"#),
            (Event::DeckShuffled { cards: 30 }, r#"{"event":"deck_shuffled","cards":30}"#),
            (Event::Reversed { backwards: true }, r#"{"event":"reversed","backwards":true}"#),
            (Event::Skipped { player: 1 }, r#"{"event":"skipped","player":"bob"}"#),
            (Event::AnotherTurn { player: 0 }, r#"{"event":"another_turn","player":"alice"}"#),
            (Event::Said { by: ModId(0), words: "a \"shark\"!".into() }, r#"{"event":"said","text":"a \"shark\"!"}"#),
            (Event::Won { player: 0, winners: Seats(1) }, r#"{"event":"won","player":"alice"}"#),
            (
                Event::Won { player: 1, winners: Seats(0b11) },
                r#"{"event":"won","player":"bob","winners":["alice","bob"]}"#,
            ),
            (Event::Teams { teams: vec![0, 1, 0] }, r#"{"event":"teams","teams":[1,2,1]}"#),
            (Event::Draw { turns: 200 }, r#"{"event":"draw","turns":200}"#),
        ];
        for (e, expected) in cases {
            assert_eq!(event(&g, &e, Viewer::Everyone).to_string(), expected);
        }
    }

    /// A seat's state names its own hand and no other, and no viewer but everyone gets the
    /// deck.
    #[test]
    fn a_seats_state_hides_the_other_hands_and_the_deck() {
        let g = Game::standard(&["alice", "bob"], 1).unwrap();
        let s = state_for(&Observation::of(&g, Viewer::Seat(1)), &[None, None]).to_value();
        assert!(s["players"][0].get("hand").is_none());
        assert_eq!(s["players"][0]["hand_size"], 4);
        assert_eq!(s["players"][1]["hand"].as_array().unwrap().len(), 4);
        assert!(s.get("deck").is_none());
        let spectator = state_for(&Observation::of(&g, Viewer::Spectator), &[None, None]).to_value();
        assert!(spectator["players"].as_array().unwrap().iter().all(|p| p.get("hand").is_none()));
        let all = state_for(&Observation::of(&g, Viewer::Everyone), &[None, None]).to_value();
        assert_eq!(all["deck"].as_array().unwrap().len(), 52 - 8 - 4 - 1);
    }

    #[test]
    fn state_has_the_contract_fields() {
        let g = Game::standard(&["alice", "bob"], 1).unwrap();
        let s = state(&g, &[None, None]).to_value();
        for key in [
            "turn",
            "current",
            "winner",
            "draw",
            "deck_size",
            "deck",
            "discard_size",
            "discard_top",
            "table",
            "players",
        ] {
            assert!(s.get(key).is_some(), "{key}");
        }
        assert_eq!(s["players"][0]["hand"].as_array().unwrap().len(), 4);
        assert_eq!(s["deck"].as_array().unwrap().len(), 52 - 8 - 4 - 1);
    }
}
