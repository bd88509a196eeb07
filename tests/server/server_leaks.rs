//! Nobody is sent a hidden card: hundreds of random games played through rooms (the same
//! state machine the network serves), every message each seat and a spectator receives
//! recorded, and each checked against the full states of the game — a message made after
//! move `at` may name only cards that reader could have seen by then. The players send
//! every kind of command, in turn and out of turn, and answer target questions; a quarter of
//! the games are played by terminals, which are also sent what their completion offers.

use crate::server_support;

use std::time::Instant;

use diving::core::View;
use diving::server::room::{Outbox, RoomOptions};
use diving::table::render;
use diving::wire::PROTOCOL;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use server_support::*;

/// Games played (a debug build plays about ten a second on one core).
const GAMES: u64 = 100;

fn record(received: &mut [Vec<String>], out: Outbox) {
    for (to, text) in out.texts() {
        received[to as usize].push(text);
    }
}

#[test]
fn no_seat_or_spectator_is_sent_a_card_it_could_not_see() {
    let now = Instant::now();
    let mut messages = 0;
    let mut screens = 0;
    let mut views = 0;
    for g in 0..GAMES {
        let seed = 987_654_321_000 + g;
        let players: &[&str] = match g % 3 {
            0 => &["alice", "bob", "bot:greedy"],
            1 => &["alice", "bob", "carol", "bot:random"],
            _ => &["alice", "bob"],
        };
        let humans = players.iter().filter(|p| !p.starts_with("bot:")).count();
        let mut room = room("1", players, seed, RoomOptions::default());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Connection s + 1 plays seat s; the last one watches.
        let spectator = humans as u64 + 1;
        let mut received = vec![Vec::new(); humans + 2];
        let mut sent: Vec<Vec<String>> = vec![Vec::new(); humans + 2];
        // In every fourth game the readers are terminals: they are also sent the board and
        // what Tab completes (the hand, the table, the legal plays, a question's choices), in
        // plain ASCII so the scan reads its cards. Every other game is played by clients of
        // version 5, sent each as a `screen`; the others by clients of version 6, pushed a view
        // after every change.
        let display = (g % 4 == 0).then(|| json!({"color": false, "unicode": false, "width": 80}));
        let version = if g % 2 == 0 { diving::wire::LOBBY_SINCE } else { PROTOCOL };
        for s in 0..humans {
            let token = room.tokens()[s].clone().unwrap();
            // Half the views preview each listed move (worked out on the seat's sample).
            let hello = json!({"type": "join", "protocol": version, "seat": s + 1, "token": token,
                               "display": display, "previews": g % 4 == 1})
            .to_string();
            record(&mut received, room.receive(s as u64 + 1, &hello, now));
        }
        let watch = json!({"type": "watch", "protocol": version, "display": display}).to_string();
        record(&mut received, room.receive(spectator, &watch, now));
        for _ in 0..2000 {
            if room.is_over() {
                break;
            }
            let game = room.session().game();
            let current = game.current();
            let actions = View::new(game, current).legal_actions();
            let action = actions.choose(&mut rng).unwrap();
            let mut line = render::command_for(game, action);
            // Sometimes leave the target out, to be asked.
            if rng.random_bool(0.5)
                && let Some(cut) = line.rfind(' ').filter(|_| line.starts_with("play") && line.split(' ').count() == 3)
            {
                line.truncate(cut);
            }
            let nosy = rng.random_range(0..humans);
            let look = ["state", "hand", "moves", "play AS", "recover 2H", "pass"].choose(&mut rng).unwrap();
            let look = if rng.random_bool(0.02) { &"log" } else { look };
            for (conn, text) in [(nosy as u64 + 1, *look), (current as u64 + 1, line.as_str())] {
                let message = json!({"type": "command", "line": text}).to_string();
                sent[conn as usize].push(text.to_string());
                record(&mut received, room.receive(conn, &message, now));
            }
            // A question: answer it with one of the options.
            if room.session().game().current() == current
                && let Some(last) = received[current + 1].last()
                && last.contains("\"question\"")
            {
                let options: Vec<String> = room.session().game().names().to_vec();
                let answer = options.choose(&mut rng).unwrap().clone();
                let message = json!({"type": "command", "line": answer}).to_string();
                record(&mut received, room.receive(current as u64 + 1, &message, now));
            }
            let look = json!({"type": "command", "line": "state"}).to_string();
            record(&mut received, room.receive(spectator, &look, now));
        }
        assert!(room.is_over(), "game {g} did not end");
        for s in 0..humans {
            assert_no_leak(room.session(), Some(s), &received[s + 1], &sent[s + 1]);
            messages += received[s + 1].len();
            screens += received[s + 1].iter().filter(|m| m.starts_with(r#"{"type":"screen""#)).count();
            views += received[s + 1].iter().filter(|m| m.contains(r#""view":{"#)).count();
        }
        assert_no_leak(room.session(), None, &received[spectator as usize], &[]);
        // The oracle is not blind: at the start, the full state names cards hidden from all.
        let start = room.session().games_before_moves().unwrap().swap_remove(0);
        let full = diving::table::json::state(&start, room.session().bots()).to_string();
        let public = &seen_by_move(room.session(), None)[0];
        assert!(cards_named(&full).iter().any(|c| !public.contains(c)), "game {g}: nothing was hidden");
    }
    assert!(messages > GAMES as usize * 50, "only {messages} messages");
    assert!(screens > GAMES as usize / 8 * 10, "only {screens} screens");
    assert!(views > GAMES as usize / 2 * 10, "only {views} views");
}

/// The check itself fails on a leak: a state with every hand, sent to a seat, is caught.
#[test]
fn the_leak_check_catches_a_hand_sent_to_the_wrong_seat() {
    let room = room("1", &["alice", "bob"], 5, RoomOptions::default());
    let full = diving::table::json::state(room.session().game(), room.session().bots());
    let message = json!({"type": "output", "at": 0, "json": [{"state": full.to_value()}]}).to_string();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_no_leak(room.session(), Some(0), &[message], &[])
    }));
    assert!(caught.is_err());
}
