//! The browser seat: the web page `diving host` serves at `http://HOST:PORT/` and
//! `http://HOST:PORT/ROOM` (plain HTML, CSS and JavaScript in `src/server/web/`, embedded in
//! the binary), and the `seat_view` snapshot that page draws from.
//!
//! The page knows no rule. It joins a seat over the same WebSocket protocol as `diving join`,
//! sends the shell's command lines, and draws what [`seat_view`] gives it: the reader's
//! state (the core's [`Viewer`] decides which hands are in it), the legal moves of the seat's
//! [`View`] with a preview of each, the pending question, and what the cards it can see mean.
//!
//! Architecture invariant: a preview ([`Session::preview`], the shell's too) is worked out on
//! [`View::sample`], a game made only of what the seat can see with every hidden card (other
//! hands, the deck) dealt at random and a random-number generator of its own, so no preview
//! can depend on, or name, a card the seat cannot see, or tell how a random roll will come out.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::core::{Action, Card, Rank, Source, View, Viewer};
use crate::table::json::Object;
use crate::table::render;
use crate::table::session::Session;
use crate::wire::{Code, PROTOCOL};

/// The page, its style and its script (`/`, `/ROOM`, `/assets/…`).
const INDEX: &str = include_str!("web/index.html");
const STYLE: &str = include_str!("web/style.css");
const SCRIPT: &str = include_str!("web/app.js");

/// Where the page may load from and connect to: this server only, no inline script.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                      connect-src 'self' ws: wss:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Sent with every answer of the server, error pages and refusals included.
pub const SECURITY_HEADERS: [(&str, &str); 3] =
    [("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer"), ("content-security-policy", POLICY)];

/// Adds [`SECURITY_HEADERS`] to an answer (every route's, as a layer).
pub async fn secure(mut response: Response) -> Response {
    for (name, value) in SECURITY_HEADERS {
        response.headers_mut().entry(name).or_insert(header::HeaderValue::from_static(value));
    }
    response
}

fn serve(kind: &'static str, body: &'static str) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, kind),
            // A new host version's page replaces an old one at once.
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// `GET /` and `GET /ROOM` (without a WebSocket upgrade): the page. Opened on `/`, it asks for
/// the room, seat and token (or to watch); opened from an invite link, it joins at once. A
/// WebSocket upgrade to `/` is refused: there is no room there.
pub async fn index(headers: axum::http::HeaderMap) -> Response {
    let upgrade = headers.get(header::UPGRADE).and_then(|v| v.to_str().ok());
    if upgrade.is_some_and(|v| v.eq_ignore_ascii_case("websocket")) {
        let message = "there is no room at '/': a connection joins ws://HOST:PORT/ROOM\n";
        return (StatusCode::NOT_FOUND, message).into_response();
    }
    page()
}

/// The page, for a room that exists.
pub fn page() -> Response {
    serve("text/html; charset=utf-8", INDEX)
}

/// `GET /assets/FILE`: the page's style and scripts.
pub async fn asset(Path(file): Path<String>) -> Response {
    match file.as_str() {
        "style.css" => serve("text/css; charset=utf-8", STYLE),
        "app.js" => serve("text/javascript; charset=utf-8", SCRIPT),
        "wire.js" => serve("text/javascript; charset=utf-8", wire_script()),
        _ => (StatusCode::NOT_FOUND, format!("there is no asset '{file}' (style.css, wire.js, app.js)\n"))
            .into_response(),
    }
}

/// `wire.js`: what the page knows of the wire, made from the wire's own types (so the page
/// cannot drift from them): the protocol version, and for each error code whether a client
/// gives up after it ([`Code::is_final`]), asks who the player is ([`Code::asks_who`]) or
/// refuses the name given ([`Code::refuses_name`]).
pub fn wire_script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| {
        let codes: serde_json::Map<String, Value> = Code::ALL
            .iter()
            .map(|c| {
                (
                    c.as_str().to_string(),
                    json!({ "final": c.is_final(), "asks_who": c.asks_who(), "refuses_name": c.refuses_name() }),
                )
            })
            .collect();
        format!(
            "// The wire as this host speaks it, made by the host from its own types (src/wire/).\n\
             \"use strict\";\n\
             const WIRE = (() => {{\n  \
             const codes = {};\n  \
             return Object.freeze({{\n    \
             protocol: {},\n    \
             codes,\n    \
             isFinal: (code) => Boolean(codes[code] && codes[code].final),\n    \
             asksWho: (code) => Boolean(codes[code] && codes[code].asks_who),\n    \
             refusesName: (code) => Boolean(codes[code] && codes[code].refuses_name),\n  \
             }});\n\
             }})();\n",
            Value::Object(codes),
            PROTOCOL
        )
    })
}

/// The `seat_view` object for `viewer`: `question` is the reader's pending target question.
///
/// Keys: `seat` (1-based, `null` for a spectator), `state` ([`crate::table::json::state_for`]),
/// `rules` (what the gauges are drawn against), `moves` (the legal moves, empty when it is not
/// the seat's turn), `question`, `card_help` (what each rank the reader can see does) and
/// `front` (what each card kept in front of a diver means).
pub fn seat_view(session: &Session, viewer: Viewer, question: Option<Object>) -> Object {
    let game = session.game();
    let rules = game.rules();
    let seat = match viewer {
        Viewer::Seat(s) => Some(s),
        _ => None,
    };
    let moves: Vec<Object> = match seat {
        Some(s) if !game.is_over() && game.current() == s => moves(session, s),
        _ => Vec::new(),
    };
    let mut shown: Vec<Card> = game.table().iter().flatten().copied().collect();
    shown.extend(game.discard_top());
    let mut fronts: Vec<Rank> = Vec::new();
    let seen = crate::core::Observation::of(game, viewer);
    for diver in seen.divers() {
        shown.extend(diver.front.iter().copied());
        fronts.extend(diver.front.iter().map(|c| c.rank));
        shown.extend(diver.hand.into_iter().flatten().copied());
    }
    let mut ranks: Vec<Rank> = shown.iter().map(|c| c.rank).collect();
    ranks.sort_by_key(|r| r.number());
    ranks.dedup();
    fronts.sort_by_key(|r| r.number());
    fronts.dedup();
    let registry = game.registry();
    let help: serde_json::Map<String, Value> =
        ranks.iter().map(|&r| (r.to_string(), json!(render::card_help(r, rules, registry).trim_end()))).collect();
    let front: serde_json::Map<String, Value> =
        fronts.iter().filter_map(|&r| render::front_meaning(game, r).map(|m| (r.to_string(), json!(m)))).collect();
    Object::new()
        .with("seat", json!(seat.map(|s| s + 1)))
        .with("state", crate::table::json::state_for(&seen, session.bots()))
        .with(
            "rules",
            json!({
                "max_depth": rules.max_depth,
                "max_oxygen": rules.max_oxygen,
                "depth_scale": rules.depth_scale,
                "depth_unit": rules.depth_unit,
            }),
        )
        .with("moves", moves)
        .with("question", question.map_or(Value::Null, |q| q.to_value()))
        .with("card_help", Value::Object(help))
        .with("front", Value::Object(front))
}

/// The legal moves of `seat` (whose turn it is), each with its command and preview.
fn moves(session: &Session, seat: usize) -> Vec<Object> {
    let game = session.game();
    let view = View::new(game, seat);
    view.legal_actions()
        .into_iter()
        .map(|action| {
            // Worked out on what the seat can see, the rest dealt at random, as the shell's.
            let preview = match session.preview(&action) {
                Some(events) => render::preview(game, &events, Viewer::Seat(seat)),
                None => String::new(),
            };
            let command = render::command_for(game, &action);
            let o = Object::new();
            let o = match &action {
                Action::Play { card, from, target, face_on_top } => o
                    .with("kind", json!("play"))
                    .with("card", json!(card.to_string()))
                    .with(
                        "slot",
                        json!(match from {
                            Source::Hand => None,
                            Source::Table(slot) => Some(slot + 1),
                        }),
                    )
                    .with("target", json!(target.map(|t| game.name(t))))
                    .with("over", json!(face_on_top)),
                Action::Recover { cards, face_on_top } => o
                    .with("kind", json!("recover"))
                    .with("cards", json!(cards.iter().map(ToString::to_string).collect::<Vec<_>>()))
                    .with("over", json!(face_on_top)),
                Action::Pass => o.with("kind", json!("pass")),
                Action::Act { name, target, card } => o
                    .with("kind", json!("act"))
                    .with("name", json!(name.as_str()))
                    .with("target", json!(target.map(|t| game.name(t))))
                    .with("card", json!(card.map(|c| c.to_string())))
                    .with("describe", json!(game.registry().action(*name).map(|a| &*a.describe))),
            };
            o.with("command", json!(command)).with("preview", json!(preview))
        })
        .collect()
}
