//! PROTOCOL.md, version by version (issue #33, item 6): what a client of each version sends
//! and is sent. A version-1 client gets no message of version 2 or 3 (it was sent
//! `seat_view` and `screen`); `since` is read from version 4 on; an answer carries the `id` of
//! the message it answers (version 4), so a client can tell it from other seats' chat and
//! notices; unknown fields are ignored. The room is driven directly: no socket, no clock.

use crate::server_support;

use std::time::Instant;

use diving::server::room::{Outbox, Room, RoomOptions};
use diving::wire::{OLDEST_PROTOCOL, PROTOCOL};
use serde_json::{Value, json};
use server_support::*;

/// The messages of `out` sent to `conn`, parsed.
fn to(out: &Outbox, conn: u64) -> Vec<Value> {
    out.texts().iter().filter(|(c, _)| *c == conn).map(|(_, t)| serde_json::from_str(t).unwrap()).collect()
}

fn send(room: &mut Room, conn: u64, message: Value) -> Vec<Value> {
    to(&room.receive(conn, &message.to_string(), Instant::now()), conn)
}

fn objects(messages: &[Value]) -> Vec<Value> {
    messages.iter().flat_map(lines).collect()
}

fn two_people() -> Room {
    room("1", &["alice", "bob"], 99, RoomOptions::default())
}

#[test]
fn each_version_is_sent_only_its_own_messages() {
    assert_eq!((OLDEST_PROTOCOL, PROTOCOL), (1, 8), "a new version needs its row here and in PROTOCOL.md");
    for version in OLDEST_PROTOCOL..=PROTOCOL {
        let mut room = two_people();
        let token = room.tokens()[0].clone().unwrap();
        let display = json!({"color": false, "unicode": false, "width": 80});
        // Every field of every version, and one no version defines.
        let join = json!({"type": "join", "protocol": version, "seat": 1, "token": token,
                          "display": display, "since": 0, "previews": true, "extra": "ignored"});
        let mut got = send(&mut room, 1, join);
        assert_eq!(got[0]["type"], "hello", "v{version}: {got:?}");
        assert_eq!(got[0]["protocol"], version);
        // `since` is a return from version 4 on; before, a first join is sent the start.
        let back = objects(&got).iter().any(|l| l.get("rejoined").is_some());
        assert_eq!(back, version >= 4, "v{version}: {got:?}");
        let started = objects(&got).iter().any(|l| l["event"] == "turn_started");
        assert_eq!(started, version < 4, "v{version}: {got:?}");
        // From version 6 the output that starts the reader off carries its view.
        let viewed = got.iter().any(|m| m.get("view").is_some());
        assert_eq!(viewed, version >= 6, "v{version}: {got:?}");

        let view = send(&mut room, 1, json!({"type": "seat_view"}));
        let has_view = objects(&view).iter().any(|l| l.get("seat_view").is_some());
        assert_eq!(has_view, version >= 2, "v{version}: {view:?}");
        if version < 2 {
            assert_eq!(view[0]["code"], "malformed", "{view:?}");
        }
        got.extend(view);
        let resized = send(&mut room, 1, json!({"type": "display", "width": 100}));
        if version < 3 {
            assert_eq!(resized[0]["code"], "malformed", "v{version}: {resized:?}");
        } else {
            assert!(resized.is_empty(), "v{version}: {resized:?}");
        }
        let moves = send(&mut room, 1, json!({"type": "command", "line": "moves", "id": 7}));
        let first = objects(&moves).iter().find_map(|l| l["moves"].as_array().cloned()).unwrap();
        assert_eq!(moves[0].get("id").is_some(), version >= 4, "v{version}: {moves:?}");
        let line = first[0].as_str().unwrap();
        got.extend(moves.clone());
        // A move by its place in the listing is version 6's.
        let at = room.session().entries().len();
        let moved = send(&mut room, 1, json!({"type": "move", "at": at, "index": 0}));
        if version < 6 {
            assert_eq!(moved[0]["code"], "malformed", "v{version}: {moved:?}");
            got.extend(send(&mut room, 1, json!({"type": "command", "line": line})));
        } else {
            assert!(moved.iter().any(|m| m.get("view").is_some()), "v{version}: {moved:?}");
            got.extend(moved);
        }
        assert_eq!(room.session().entries().len(), at + 1, "v{version}: the first listed move was made");

        let allowed: &[&str] = match version {
            3..=5 => &["hello", "output", "error", "screen"],
            _ => &["hello", "output", "error"],
        };
        for m in &got {
            assert!(allowed.contains(&m["type"].as_str().unwrap()), "v{version} was sent {m}");
        }
        let screens = got.iter().any(|m| m["type"] == "screen");
        assert_eq!(screens, (3..=5).contains(&version), "v{version}: a display gives screens from version 3 to 5");
    }
}

#[test]
fn versions_outside_the_range_are_refused() {
    for version in [0, PROTOCOL + 1] {
        let mut room = two_people();
        let token = room.tokens()[0].clone().unwrap();
        let out = room.receive(
            1,
            &json!({"type": "join", "protocol": version, "seat": 1, "token": token}).to_string(),
            Instant::now(),
        );
        assert_eq!(to(&out, 1)[0]["code"], "protocol");
        assert_eq!(out.closed(), [1]);
    }
}

/// The answer to a message with an `id` carries it, and only the sender's copy: other seats'
/// chat and notices that come between carry none.
#[test]
fn answers_carry_the_id_of_the_message_they_answer() {
    let mut room = two_people();
    for (conn, seat) in [(1, 0), (2, 1)] {
        let token = room.tokens()[seat].clone().unwrap();
        send(&mut room, conn, json!({"type": "join", "protocol": PROTOCOL, "seat": seat + 1, "token": token}));
    }
    let out = room.receive(2, &json!({"type": "say", "text": "hi", "id": "b-1"}).to_string(), Instant::now());
    assert_eq!(to(&out, 2)[0]["id"], "b-1");
    assert!(to(&out, 1)[0].get("id").is_none(), "{:?}", to(&out, 1));
    let state = send(&mut room, 1, json!({"type": "command", "line": "state", "id": 12}));
    assert_eq!(state[0]["id"], 12);
    // A refusal answers too.
    let refused = send(&mut room, 2, json!({"type": "command", "line": "play ZZ", "id": "b-2"}));
    assert_eq!(refused[0]["id"], "b-2");
    assert!(objects(&refused)[0].get("error").is_some());
    // An id that is neither a number nor a short string is malformed.
    let bad = send(&mut room, 1, json!({"type": "command", "line": "state", "id": {"x": 1}}));
    assert_eq!(bad[0]["code"], "malformed");
    let long = send(&mut room, 1, json!({"type": "command", "line": "state", "id": "x".repeat(65)}));
    assert_eq!(long[0]["code"], "malformed");
}

/// The message types and error codes PROTOCOL.md documents: the first cell of each row of
/// every table whose head starts with `message` (by section: a room's, then the lobby's, each
/// to and from the host), and of the error codes' table.
struct Documented {
    to_room: Vec<String>,
    from_room: Vec<String>,
    to_lobby: Vec<String>,
    from_lobby: Vec<String>,
    codes: Vec<String>,
}

fn documented() -> Documented {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/PROTOCOL.md")).unwrap();
    let mut found =
        Documented { to_room: vec![], from_room: vec![], to_lobby: vec![], from_lobby: vec![], codes: vec![] };
    let mut section = "";
    let mut table: Option<&str> = None;
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            section = title;
            table = None;
            continue;
        }
        if !line.starts_with('|') {
            table = None;
            continue;
        }
        let first = line.trim_start_matches('|').split('|').next().unwrap_or("").trim();
        if table.is_none() {
            // A table's head names what its rows are.
            table = Some(match (section, first) {
                ("Client → server", "message") => "to_room",
                ("Server → client", "message") => "from_room",
                (s, "message (client → server)") if s.starts_with("The lobby") => "to_lobby",
                (s, "message (server → client)") if s.starts_with("The lobby") => "from_lobby",
                ("Error codes", "code") => "codes",
                _ => "other",
            });
            continue;
        }
        let names: Vec<String> = first.split('`').skip(1).step_by(2).map(String::from).collect();
        let list = match table {
            Some("to_room") => &mut found.to_room,
            Some("from_room") => &mut found.from_room,
            Some("to_lobby") => &mut found.to_lobby,
            Some("from_lobby") => &mut found.from_lobby,
            Some("codes") => &mut found.codes,
            _ => continue,
        };
        list.extend(names);
    }
    found
}

fn sorted(list: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut list: Vec<String> = list.into_iter().collect();
    list.sort();
    list.dedup();
    list
}

fn names(kinds: &[&str]) -> Vec<String> {
    sorted(kinds.iter().map(|k| k.to_string()))
}

/// The variants of a serde enum, as serde itself names them: the list its error gives for a
/// tag it does not know (so a variant added to an enum is found without anyone listing it).
fn variants<T: serde::de::DeserializeOwned + std::fmt::Debug>(unknown: Value) -> Vec<String> {
    let error = serde_json::from_value::<T>(unknown).unwrap_err().to_string();
    let (_, list) = error.split_once("expected one of").unwrap_or_else(|| panic!("not a list of variants: {error}"));
    let list = list.split(" at line").next().unwrap();
    sorted(list.split('`').skip(1).step_by(2).map(String::from))
}

/// PROTOCOL.md documents every message type each side sends and every error code the wire
/// has, and nothing that does not exist: the tables are read and checked against the wire's
/// own enums (what the host and `diving join` write and read), whose variants serde lists.
#[test]
fn protocol_md_documents_every_message_and_code_and_nothing_else() {
    use diving::wire::{ClientMessage, Code, LobbyMessage, ServerMessage};
    // The wire's lists of its types are its enums' variants, every one.
    let tag = json!({"type": "no such type"});
    assert_eq!(variants::<ClientMessage>(tag.clone()), names(&ClientMessage::KINDS), "ClientMessage::KINDS");
    assert_eq!(variants::<LobbyMessage>(tag.clone()), names(&LobbyMessage::KINDS), "LobbyMessage::KINDS");
    assert_eq!(variants::<ServerMessage>(tag), names(&ServerMessage::KINDS), "ServerMessage::KINDS");
    let all: Vec<String> = Code::ALL.iter().map(|c| c.as_str().to_string()).collect();
    assert_eq!(variants::<Code>(json!("no such code")), sorted(all), "Code::ALL");
    let doc = documented();
    assert_eq!(sorted(doc.to_room), names(&ClientMessage::KINDS), "client → room");
    assert_eq!(sorted(doc.to_lobby), names(&LobbyMessage::KINDS), "client → lobby");
    let from_host = sorted(doc.from_room.into_iter().chain(doc.from_lobby));
    assert_eq!(from_host, names(&ServerMessage::KINDS), "host → client");
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(doc.codes, codes, "the error codes, in the wire's order");
}

/// PROTOCOL.md's *How connections close* gives every close frame the host sends, each with
/// its status and reason as the wire writes them.
#[test]
fn protocol_md_says_every_close_and_its_cause() {
    use diving::wire::{Close, Code};
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/PROTOCOL.md")).unwrap();
    let start = text.find("**How connections close.**").expect("PROTOCOL.md says how connections close");
    let paragraph = &text[start..start + text[start..].find("\n\n").unwrap()];
    let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    let closes = [Close::Bye, Close::Stopping, Close::TooBig, Close::NotUtf8, Close::ProtocolError, Close::Behind];
    // Each kind of close is in the list above (this match fails to compile on a new one).
    for close in closes {
        match close {
            Close::Bye
            | Close::Stopping
            | Close::Refused(_)
            | Close::TooBig
            | Close::NotUtf8
            | Close::ProtocolError => {}
            Close::Behind => {}
        }
    }
    for close in closes {
        let (status, reason) = close.status();
        let said = if reason.contains(' ') { format!("{status} when") } else { format!("{status} `{reason}`") };
        assert!(paragraph.contains(&said), "PROTOCOL.md does not say {said}: {paragraph}");
    }
    let (status, reason) = Close::Refused(Code::Dropped).status();
    assert!(paragraph.contains(&format!("{status} with the error's code")), "{paragraph}");
    assert_eq!(reason, "dropped");
}

/// A message refused as `malformed` after its `id` was read carries it (an unknown type
/// answered without one, and a client matching by id waited for ever); `seat: 0` is no seat
/// (`seat`, closing), not a malformed message, and so is a seat that is not a number.
#[test]
fn a_malformed_message_keeps_its_id_and_seat_zero_is_no_seat() {
    let mut room = two_people();
    let unknown = send(&mut room, 9, json!({"type": "dance", "id": "d-1"}));
    assert_eq!((unknown[0]["code"].as_str(), &unknown[0]["id"]), (Some("malformed"), &json!("d-1")));
    let bad = send(&mut room, 9, json!({"type": "command", "id": 3}));
    assert_eq!((bad[0]["code"].as_str(), &bad[0]["id"]), (Some("malformed"), &json!(3)));
    let token = room.tokens()[0].clone().unwrap();
    for seat in [json!(0), json!(-1), json!("one")] {
        let out = room.receive(
            5,
            &json!({"type": "join", "protocol": PROTOCOL, "seat": seat, "token": token, "id": 1}).to_string(),
            Instant::now(),
        );
        let answer = to(&out, 5);
        assert_eq!(answer[0]["code"], "seat", "seat {seat}: {answer:?}");
        assert_eq!(answer[0]["id"], 1, "{answer:?}");
        assert_eq!(out.closed(), [5]);
    }
}

/// Moves as listed actions (version 6): a seat sends the place of a move its view listed, with
/// the state it was listed at; the host makes exactly that action and pushes every reader its
/// new view. A move listed at a state the game has left is refused as `stale`, which does not
/// count toward the drop; one that is no move (out of turn, past the listing) is refused by
/// the game, as a line would be.
#[test]
fn a_listed_move_is_made_as_listed_and_a_stale_one_is_refused() {
    use diving::core::View;
    let mut room = two_people();
    let current = room.session().game().current();
    let (mover, other) = (current as u64 + 1, (1 - current) as u64 + 1);
    let mut views = Vec::new();
    for (conn, seat) in [(1u64, 0usize), (2, 1)] {
        let token = room.tokens()[seat].clone().unwrap();
        let joined =
            send(&mut room, conn, json!({"type": "join", "protocol": PROTOCOL, "seat": seat + 1, "token": token}));
        views.push(joined.iter().find_map(|m| m.get("view").cloned()).expect("a view comes with the join"));
    }
    let view = &views[current];
    let listed = View::new(room.session().game(), current).legal_actions();
    assert_eq!(view["moves"].as_array().unwrap().len(), listed.len(), "{view}");
    assert_eq!(views[1 - current]["moves"], json!([]), "not its turn: nothing listed");
    let index = listed.len() - 1;
    let at = view["at"].as_u64().unwrap() as usize;
    assert_eq!(view["moves"][index]["index"], index);

    let out =
        room.receive(mover, &json!({"type": "move", "at": at, "index": index, "id": 5}).to_string(), Instant::now());
    assert!(!out.refused);
    let made = &room.session().entries()[at];
    assert_eq!(made.action, listed[index], "the action made is the one listed");
    let told = to(&out, mover);
    assert!(told.iter().any(|m| m["id"] == 5 && m.get("view").is_some()), "{told:?}");
    let now_at = room.session().entries().len();
    for conn in [mover, other] {
        let last =
            to(&out, conn).into_iter().rev().find_map(|m| m.get("view").cloned()).expect("a view for each reader");
        assert_eq!(last["at"], now_at, "conn {conn}: the view of the state the game is at now");
    }

    // The same move again: the game has moved on.
    let out = room.receive(mover, &json!({"type": "move", "at": at, "index": 0, "id": 6}).to_string(), Instant::now());
    let refused = to(&out, mover);
    assert_eq!((refused[0]["code"].as_str(), &refused[0]["id"]), (Some("stale"), &json!(6)), "{refused:?}");
    assert!(!out.refused, "a stale move does not count toward the drop");
    assert_eq!(room.session().entries().len(), now_at, "nothing was made");
    let wrong_game = send(&mut room, mover, json!({"type": "move", "at": now_at, "game": 9, "index": 0}));
    assert_eq!(wrong_game[0]["code"], "stale");

    // At the state it is at, a move that is no move is the game's to refuse.
    if !room.is_over() {
        let next = room.session().game().current() as u64 + 1;
        let out = room.receive(next, &json!({"type": "move", "at": now_at, "index": 999}).to_string(), Instant::now());
        assert!(out.refused);
        assert!(objects(&to(&out, next))[0]["error"].as_str().unwrap().contains("there is no move 999"));
        let idle = if next == 1 { 2 } else { 1 };
        let out = room.receive(idle, &json!({"type": "move", "at": now_at, "index": 0}).to_string(), Instant::now());
        assert!(objects(&to(&out, idle))[0]["error"].as_str().unwrap().contains("turn"), "out of turn");
        assert_eq!(room.session().entries().len(), now_at);
    }
}
