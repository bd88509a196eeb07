//! The browser page: what `diving host` serves at `http://HOST:PORT/` (the lobby) and
//! `http://HOST:PORT/ROOM` (a seat): plain HTML, CSS and JavaScript in `src/server/web/`,
//! embedded in the binary, and `wire.js`, what the page knows of the wire, made from its
//! types. Every answer carries the page's security headers.
//!
//! The page knows no rule. It joins a seat over the same WebSocket protocol as `diving join`,
//! draws the view the host pushes it after every change ([`super::view`]), and sends the move
//! it lists (`move`, by its place in the listing) or a line of the shell.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::wire::{Code, PROTOCOL};

/// The page and its style (`/`, `/ROOM`, `/assets/style.css`).
const INDEX: &str = include_str!("web/index.html");
const STYLE: &str = include_str!("web/style.css");

/// The page's scripts, ES modules served from `/assets/`: `main.js` starts the lobby
/// (`lobby.js`) or a seat (`seat.js`), over what both share (`page.js`); `wire.js` is made by
/// the host ([`wire_script`]).
const SCRIPTS: [(&str, &str); 4] = [
    ("main.js", include_str!("web/main.js")),
    ("page.js", include_str!("web/page.js")),
    ("seat.js", include_str!("web/seat.js")),
    ("lobby.js", include_str!("web/lobby.js")),
];

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

/// The page as the lobby opens it (`/`, `/lobby`).
pub fn page() -> Response {
    serve("text/html; charset=utf-8", INDEX)
}

/// `GET /ROOM` for a room the host holds: the page, with the times after which the host
/// closes a lobby table (`idle_secs` with no one at it while it waits or after its game,
/// `abandoned_secs` after a game left unfinished) in words on its `<body>`
/// (`data-idle`, `data-abandoned`), for the page of a seat it cannot take to say.
pub fn seat_page(idle_secs: u64, abandoned_secs: u64) -> Response {
    let (idle, abandoned) = (super::lobby::in_words(idle_secs), super::lobby::in_words(abandoned_secs));
    let page = INDEX.replacen("<body ", &format!("<body data-idle=\"{idle}\" data-abandoned=\"{abandoned}\" "), 1);
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], page)
        .into_response()
}

/// `GET /ROOM` for a room the host does not hold (404): a page that says what happened, why
/// (a lobby table closes once no one has been at it for `idle_secs` while it waits or after
/// its game, and `abandoned_secs` after a game left unfinished), and leads back to the lobby,
/// where the tables are listed, to sit or watch.
pub fn no_room(room: &str, idle_secs: u64, abandoned_secs: u64) -> Response {
    let shown: String = crate::limits::shown(room, crate::limits::NewLines::Escaped).chars().take(40).collect();
    let room = escape(&shown);
    let (idle, abandoned) = (super::lobby::in_words(idle_secs), super::lobby::in_words(abandoned_secs));
    let body = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>No table {room} — Diving Suits</title>\n<link rel=\"stylesheet\" href=\"/assets/style.css\">\n</head>\n\
         <body>\n<main id=\"dead-end\">\n<h1>There is no table {room} here</h1>\n\
         <p>This host holds no table called {room}: it has closed, or the link is not quite right.</p>\n\
         <p>Why: a table made in the lobby closes once no one has been at it for {idle} while it waits \
         for players or after its game has ended, and {abandoned} after everyone left a game unfinished \
         (its games stay in the host's history and ratings).</p>\n\
         <p><a href=\"/\">Back to the lobby</a>: its tables, to sit at or watch, and a new one.</p>\n\
         </main>\n</body>\n</html>\n"
    );
    (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

/// Text made safe inside HTML.
fn escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&#39;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// `GET /assets/FILE`: the page's style and scripts.
pub async fn asset(Path(file): Path<String>) -> Response {
    if let Some((_, script)) = SCRIPTS.iter().find(|(name, _)| *name == file) {
        return serve("text/javascript; charset=utf-8", script);
    }
    match file.as_str() {
        "style.css" => serve("text/css; charset=utf-8", STYLE),
        "wire.js" => serve("text/javascript; charset=utf-8", wire_script()),
        _ => {
            let names: Vec<&str> = SCRIPTS.iter().map(|(name, _)| *name).collect();
            let message = format!("there is no asset '{file}' (style.css, wire.js, {})\n", names.join(", "));
            (StatusCode::NOT_FOUND, message).into_response()
        }
    }
}

/// `wire.js`: what the page knows of the wire, made from the wire's own types (so the page
/// cannot drift from them): the protocol version, and for each error code whether a client
/// gives up after it ([`Code::is_final`]), asks who the player is ([`Code::asks_who`]) or
/// refuses the name given ([`Code::refuses_name`]), refuses a seat link for good
/// ([`Code::refuses_seat`]) or its token ([`Code::refuses_token`]), or says the seat was
/// opened elsewhere ([`Code::moved_elsewhere`]).
pub fn wire_script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| {
        let codes: serde_json::Map<String, Value> = Code::ALL
            .iter()
            .map(|c| {
                (
                    c.as_str().to_string(),
                    json!({
                        "final": c.is_final(),
                        "asks_who": c.asks_who(),
                        "refuses_name": c.refuses_name(),
                        "refuses_seat": c.refuses_seat(),
                        "refuses_token": c.refuses_token(),
                        "moved_elsewhere": c.moved_elsewhere(),
                    }),
                )
            })
            .collect();
        format!(
            "// The wire as this host speaks it, made by the host from its own types (src/wire/).\n\
             export const WIRE = (() => {{\n  \
             const codes = {};\n  \
             return Object.freeze({{\n    \
             protocol: {},\n    \
             codes,\n    \
             isFinal: (code) => Boolean(codes[code] && codes[code].final),\n    \
             asksWho: (code) => Boolean(codes[code] && codes[code].asks_who),\n    \
             refusesName: (code) => Boolean(codes[code] && codes[code].refuses_name),\n    \
             refusesSeat: (code) => Boolean(codes[code] && codes[code].refuses_seat),\n    \
             refusesToken: (code) => Boolean(codes[code] && codes[code].refuses_token),\n    \
             movedElsewhere: (code) => Boolean(codes[code] && codes[code].moved_elsewhere),\n  \
             }});\n\
             }})();\n",
            Value::Object(codes),
            PROTOCOL
        )
    })
}
