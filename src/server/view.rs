//! A reader's view ([`View`]): what it may see now, made for it alone. The state comes through
//! the core's [`Observation`] (its own hand, no other, no deck); its moves are the table's
//! listing ([`Table::listed`]), each with the line that makes it and a preview; then its
//! pending question and what the cards it can see mean; for a terminal, the board, the
//! end-of-game lines and what Tab completes. A reader of version 6 is pushed one in the
//! `output` of every change; an older one asks (`seat_view`).
//!
//! Architecture invariant: a preview ([`Session::preview`], the shell's too) is worked out on
//! [`crate::core::View::sample`], a game made only of what the seat can see with every hidden
//! card (other hands, the deck) dealt at random and a random-number generator of its own, so
//! no preview can depend on, or name, a card the seat cannot see, or tell how a random roll
//! will come out.

use std::collections::BTreeMap;

use crate::core::{Action, Card, Observation, Rank, Source, Viewer};
use crate::table::completion::Words;
use crate::table::json::state_for;
use crate::table::reply::summary_lines_styled;
use crate::table::session::Session;
use crate::table::{Caller, Look, Table, render};
use crate::wire::server::{Gauges, Listed, ListedAction, Question, View};

/// The view of `caller` at `table` (game `game` at the table); `terminal` is the look of a
/// reader that gave a `display` (it gets the board, the summary and the completion too);
/// `previews`: each listed move with what it would do.
pub fn view(table: &Table, caller: Caller, game: u32, terminal: Option<&Look>, previews: bool) -> View {
    let session = table.session();
    let viewer = table.viewer(caller);
    let question = table.question(caller);
    let mut view = of(session, viewer, &table.listed(caller), question.as_ref(), game, previews);
    if let Some(look) = terminal {
        let seat = match caller {
            Caller::Seat(s) => Some(s),
            _ => None,
        };
        let game = session.game();
        view.board = Some(table.board(viewer, look).trim_end().to_string());
        view.summary = Some(if game.is_over() {
            summary_lines_styled(session, look.style).iter().map(|l| look.wrap(l)).collect()
        } else {
            Vec::new()
        });
        view.completion = Some(Words::of(game, seat, question.as_ref()));
    }
    view
}

/// The view of `viewer` in `session` (game `game` at its table), with `listed` its legal
/// actions and `question` its pending question.
pub fn of(
    session: &Session,
    viewer: Viewer,
    listed: &[Action],
    question: Option<&crate::table::Question>,
    game: u32,
    previews: bool,
) -> View {
    let state = session.game();
    let rules = state.rules();
    let seat = match viewer {
        Viewer::Seat(s) => Some(s),
        _ => None,
    };
    let moves: Vec<Listed> = match seat {
        Some(s) => {
            // The listing's previews spend from one budget of mod work.
            let _decision = (previews && state.registry().keeps_state())
                .then(|| crate::script::decide("the seat's moves and their outcomes"));
            listed.iter().enumerate().map(|(index, action)| listing(session, s, index, action, previews)).collect()
        }
        None => Vec::new(),
    };
    let mut shown: Vec<Card> = state.table().iter().flatten().copied().collect();
    shown.extend(state.discard_top());
    let mut fronts: Vec<Rank> = Vec::new();
    let seen = Observation::of(state, viewer);
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
    let registry = state.registry();
    let card_help: BTreeMap<String, String> =
        ranks.iter().map(|&r| (r.to_string(), render::card_help(r, rules, registry).trim_end().to_string())).collect();
    let front: BTreeMap<String, String> =
        fronts.iter().filter_map(|&r| render::front_meaning(state, r).map(|m| (r.to_string(), m))).collect();
    View {
        game,
        at: session.entries().len(),
        turn: state.turn(),
        current: (!state.is_over()).then(|| state.name(state.current()).to_string()),
        over: state.is_over(),
        seat: seat.map(|s| s + 1),
        state: state_for(&seen, session.bots()),
        rules: Gauges {
            max_depth: rules.max_depth,
            max_oxygen: rules.max_oxygen,
            depth_scale: rules.depth_scale,
            depth_unit: rules.depth_unit.clone(),
        },
        moves,
        question: question.map(|q| Question { text: q.text(), options: q.options().to_vec() }),
        card_help,
        front,
        board: None,
        summary: None,
        completion: None,
    }
}

/// The `index`th listed action of `seat` (whose turn it is), with its line and, asked for,
/// its preview.
fn listing(session: &Session, seat: usize, index: usize, action: &Action, previews: bool) -> Listed {
    let game = session.game();
    // Worked out on what the seat can see, the rest dealt at random, as the shell's; a move a
    // mod fails on says so.
    let preview =
        if previews { crate::table::reply::outcome(session, action, Viewer::Seat(seat)) } else { String::new() };
    let name = |t: usize| game.name(t).to_string();
    let action_shown = match *action {
        Action::Play { card, from, target, face_on_top } => ListedAction::Play {
            card: card.to_string(),
            slot: match from {
                Source::Hand => None,
                Source::Table(slot) => Some(slot + 1),
            },
            target: target.map(name),
            over: face_on_top,
        },
        Action::Recover { cards, face_on_top } => {
            ListedAction::Recover { cards: cards.iter().map(ToString::to_string).collect(), over: face_on_top }
        }
        Action::Pass => ListedAction::Pass,
        Action::Act { name: act, target, card } => ListedAction::Act {
            name: act.as_str().to_string(),
            target: target.map(name),
            card: card.map(|c| c.to_string()),
            describe: game.registry().action(act).map(|a| a.describe.to_string()),
        },
    };
    Listed { index, action: action_shown, command: render::command_for(game, action), preview }
}
