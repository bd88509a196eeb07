//! The JSON side of the scripting contract: events with player names instead of seats, the
//! `state` object, the rules object. Cards are D1 strings without symbols (`"10H"`).
//!
//! Events are the core's own serialisation (tagged `"event"`, snake_case); only the `player`
//! and `target` fields are rewritten from seat numbers to names, so a new core event reaches
//! scripts without a change here.

use serde_json::{Map, Value, json};

use crate::core::{Event, Gain, Game, Outcome, Rules};

/// One event as a JSON object, players by name.
pub fn event(game: &Game, event: &Event) -> Value {
    let mut value = serde_json::to_value(event).expect("events serialise");
    if let Value::Object(map) = &mut value {
        for key in ["player", "target"] {
            if let Some(seat) = map.get(key).and_then(Value::as_u64) {
                let name = game.names().get(seat as usize).cloned().unwrap_or_else(|| seat.to_string());
                map.insert(key.to_string(), Value::String(name));
            }
        }
    }
    value
}

/// The `state` object: the whole game, every hand included (scripts see everything).
/// `bots` names the bot behind each seat, if any.
pub fn state(game: &Game, bots: &[Option<String>]) -> Value {
    let cards = |cs: &[crate::core::Card]| cs.iter().map(|c| Value::String(c.to_string())).collect::<Vec<_>>();
    let players: Vec<Value> = game
        .players()
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let mut obj = Map::new();
            obj.insert("name".into(), json!(game.name(seat)));
            obj.insert("seat".into(), json!(seat + 1));
            obj.insert("depth".into(), json!(p.depth));
            obj.insert("oxygen".into(), json!(p.oxygen));
            obj.insert("hand".into(), Value::Array(cards(&p.hand)));
            obj.insert("front".into(), Value::Array(cards(&p.front)));
            obj.insert("bot".into(), json!(bots.get(seat).cloned().flatten()));
            Value::Object(obj)
        })
        .collect();
    let deck: Vec<crate::core::Card> = game.deck().collect();
    json!({
        "turn": game.turn(),
        "current": game.name(game.current()),
        "winner": game.winner().map(|w| game.name(w).to_string()),
        "draw": game.outcome() == Outcome::Draw,
        "over": game.is_over(),
        "deck_size": game.deck_size(),
        "deck": cards(&deck),
        "discard_size": game.discard_pile().len(),
        "discard_top": game.discard_top().map(|c| c.to_string()),
        "discard": cards(game.discard_pile()),
        "table": game.table().iter().map(|c| json!(c.map(|c| c.to_string()))).collect::<Vec<_>>(),
        "players": players,
    })
}

/// The rules in force, for `diving rules --json`.
pub fn rules(name: &str, rules: &Rules) -> Value {
    let mut start = 0;
    let bands: Vec<Value> = rules
        .oxygen_bands
        .iter()
        .map(|b| {
            let band = json!({"from": start, "to": b.to, "cost": b.cost});
            start = b.to + 1;
            band
        })
        .collect();
    let recovery: Map<String, Value> = rules
        .recovery
        .iter()
        .map(|(pattern, gain)| {
            let gain = match gain {
                Gain::Amount(n) => json!(n),
                Gain::Max => json!("max"),
            };
            (pattern.to_string(), gain)
        })
        .collect();
    json!({
        "ruleset": name,
        "min_players": rules.min_players,
        "max_players": rules.max_players,
        "decks": rules.decks,
        "hand_size": rules.hand_size,
        "table_size": rules.table_size,
        "max_depth": rules.max_depth,
        "max_oxygen": rules.max_oxygen,
        "oxygen_bands": bands,
        "quick_extra": rules.quick_extra,
        "quick_push": rules.quick_push,
        "recovery": recovery,
        "max_turns": rules.max_turns,
        "depth_unit": rules.depth_unit,
        "depth_scale": rules.depth_scale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Source;

    #[test]
    fn events_name_players_and_write_d1_cards() {
        let g = Game::standard(&["alice", "bob"], 1).unwrap();
        let e = Event::Played { player: 1, card: "10H".parse().unwrap(), from: Source::Hand };
        assert_eq!(event(&g, &e), json!({"event": "played", "player": "bob", "card": "10H", "from": "hand"}));
        let e = Event::Pushed { player: 0, target: 1, by: 4 };
        assert_eq!(event(&g, &e), json!({"event": "pushed", "player": "alice", "target": "bob", "by": 4}));
    }

    #[test]
    fn state_has_the_contract_fields() {
        let g = Game::standard(&["alice", "bob"], 1).unwrap();
        let s = state(&g, &[None, None]);
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
