//! `hint` and `review`: the search bot's judgement of a position, given to a player.
//!
//! Both ask [`MctsBot::estimates`] about a [`View`] of the seat to move — the same window a
//! bot has — so a hint can never use a card that seat could not see: the search deals what
//! is hidden at random from what the seat has seen ([`View::sample`]), and its seed comes
//! from public facts only (the turn and the seat), not from the game's seed. Permuting the
//! hidden cards therefore never changes a hint (`tests/cli/replay.rs`). With mods, the search
//! runs with freshly loaded ones, so a mod's Lua variables do not move on for moves nobody
//! made.
//!
//! A review replays a game and, for every move of the seats it looks at, compares the move
//! played with the search's choice by estimated win chance, each from the mover's view at
//! that time.

use serde_json::json;

use crate::bots::{self, MctsBot};
use crate::core::{Action, Event, Game, Seat, View};
use crate::ruleset::Ruleset;
use crate::table::render;
use crate::table::session::Entry;

/// Playouts of one hint: enough to rank the moves, quick enough to feel instant.
pub const HINT_PLAYOUTS: u32 = 300;
/// Playouts per move of a review (a review searches every move of a game).
pub const REVIEW_PLAYOUTS: u32 = 150;
/// How many moves a hint lists.
pub const HINT_MOVES: usize = 3;
/// A move is "clearly worse" when the search rates it at least this much below its choice
/// (on the 0…1 scale of the estimated win chance: 15 percentage points).
pub const CLEARLY_WORSE: f64 = 0.15;

/// One move as the search rates it for the seat to move.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub action: Action,
    /// The command that plays it (`play 10H`).
    pub command: String,
    /// The estimated win chance, 0…1 ([`crate::bots::Estimate::value`]).
    pub win: f64,
    /// Playouts the search spent on it.
    pub playouts: u32,
    /// Whether it gets the mover rescued (out of oxygen, back to the surface), as the mover
    /// can foresee it: played on a copy dealt from their own view, as `moves` previews it.
    pub rescues: bool,
}

/// A move of a review that was clearly worse than the search's choice.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The move's index in the game (0-based).
    pub index: usize,
    pub seat: Seat,
    pub turn: u32,
    pub played: Suggestion,
    pub best: Suggestion,
}

/// The search's seed for a position: public facts only (turn and seat), never the game's
/// seed, which decides the hidden cards.
fn search_seed(game: &Game) -> u64 {
    bots::derive_seed(0x6869_6e74, (u64::from(game.turn()) << 8) | game.current() as u64)
}

/// The game to search: `game`, or with freshly loaded mods when the ruleset has any.
fn searchable(game: &Game, ruleset: &Ruleset) -> Result<Game, String> {
    if ruleset.mods.is_empty() {
        Ok(game.clone())
    } else {
        let registry = ruleset.registry().map_err(|e| format!("cannot load the mods again: {e}"))?;
        Ok(game.with_registry(registry))
    }
}

/// Every root move the search considers for the seat to move in `game`, best first, from
/// that seat's view only; `also` are moves to rate even if the search would not look at them.
pub fn rate(game: &Game, ruleset: &Ruleset, playouts: u32, also: &[Action]) -> Result<Vec<Suggestion>, String> {
    if game.is_over() {
        return Err("the game is over".into());
    }
    let game = searchable(game, ruleset)?;
    // The search has a bot's move's budget of mod work.
    let _decision = game
        .registry()
        .keeps_state()
        .then(|| crate::script::decide_with("the search of a hint or review", crate::script::decision::BOT_STEPS));
    let view = View::new(&game, game.current());
    let mut bot = MctsBot::new(playouts, search_seed(&game));
    let estimates = bot.estimates(&view, also).map_err(|e| e.to_string())?;
    let copy = view.sample(search_seed(&game));
    Ok(estimates
        .into_iter()
        .map(|e| Suggestion {
            command: render::command_for(&game, &e.action),
            rescues: rescues(&copy, &e.action),
            action: e.action,
            win: e.value,
            playouts: e.playouts,
        })
        .collect())
}

/// Whether `action` gets the seat to move in `game` rescued.
fn rescues(game: &Game, action: &Action) -> bool {
    let me = game.current();
    let mut events = Vec::new();
    game.clone().apply(action, &mut events).is_ok()
        && events.iter().any(|e| matches!(e, Event::Rescued { player, .. } if *player == me))
}

/// The [`HINT_MOVES`] best moves for the seat to move (see `pick`).
pub fn suggestions(game: &Game, ruleset: &Ruleset, playouts: u32) -> Result<Vec<Suggestion>, String> {
    Ok(pick(rate(game, ruleset, playouts, &[])?))
}

/// The moves a hint lists, from every move `rated` (the search's order): its first
/// [`HINT_MOVES`]. When every one of them is at 0% and the one the hint would put first
/// ([`hint_lines`]) gets the mover rescued, the search's best move that does not takes the
/// last place, and so the first: at 0% any move is as good as the search's favourite, and a
/// rescue costs all the depth there is.
fn pick(mut rated: Vec<Suggestion>) -> Vec<Suggestion> {
    let rest = rated.split_off(HINT_MOVES.min(rated.len()));
    let first = rated.iter().min_by_key(|s| shown_order(s));
    if first.is_some_and(|s| s.rescues && percent_of(s.win) == 0)
        && let Some(other) = rest.into_iter().find(|s| !s.rescues)
    {
        rated.truncate(HINT_MOVES - 1);
        rated.push(other);
    }
    rated
}

/// How a hint orders its moves: by the chance shown, best first, and among moves shown with
/// the same chance, those that do not get the mover rescued first.
fn shown_order(s: &Suggestion) -> (std::cmp::Reverse<i64>, bool) {
    (std::cmp::Reverse(percent_of(s.win)), s.rescues)
}

/// Reviews the moves of `seats` in a game: `before[i]` is the game just before `entries[i]`.
/// Returns the clearly worse moves and how many moves were looked at.
pub fn review(
    before: &[Game],
    entries: &[Entry],
    seats: &[Seat],
    ruleset: &Ruleset,
    playouts: u32,
) -> Result<(Vec<Finding>, usize), String> {
    let mut found = Vec::new();
    let mut looked = 0;
    for (index, (game, entry)) in before.iter().zip(entries).enumerate() {
        if !seats.contains(&entry.seat) || game.legal_actions().len() < 2 {
            continue;
        }
        looked += 1;
        let rated = rate(game, ruleset, playouts, std::slice::from_ref(&entry.action))?;
        let (Some(best), Some(played)) = (rated.first(), rated.iter().find(|s| s.action == entry.action)) else {
            continue;
        };
        if best.action != played.action && best.win - played.win >= CLEARLY_WORSE {
            found.push(Finding {
                index,
                seat: entry.seat,
                turn: game.turn(),
                played: played.clone(),
                best: best.clone(),
            });
        }
    }
    Ok((found, looked))
}

/// A win chance in whole percent, as [`percent`] shows it.
fn percent_of(win: f64) -> i64 {
    (win * 100.0).round() as i64
}

/// A win chance as players read it: `62%`.
pub fn percent(win: f64) -> String {
    format!("{:.0}%", win * 100.0)
}

/// The lines of a hint for `name`.
///
/// The moves are listed in the order of the chance shown (the search ranks by playouts, which
/// can put 71% above 72%); of moves shown with the same chance, one that gets the mover
/// rescued comes after those that do not.
pub fn hint_lines(name: &str, list: &[Suggestion], playouts: u32) -> Vec<String> {
    let mut lines = vec![format!("hint for {name} (a search of {playouts} playouts, from what {name} can see):")];
    let width = list.iter().map(|s| s.command.chars().count()).max().unwrap_or(0);
    let mut list: Vec<&Suggestion> = list.iter().collect();
    list.sort_by_key(|s| shown_order(s));
    for s in list {
        let pad = " ".repeat(width - s.command.chars().count());
        lines.push(format!("  {}{pad}  {} estimated win chance", s.command, percent(s.win)));
    }
    lines
}

/// The lines of a review.
pub fn review_lines(game: &Game, found: &[Finding], looked: usize, seats: &[Seat]) -> Vec<String> {
    let names: Vec<&str> = seats.iter().map(|&s| game.name(s)).collect();
    let mut lines = vec![format!(
        "review of {} ({looked} {}, each rated by a search of {REVIEW_PLAYOUTS} playouts from the mover's view at the time):",
        render::or_list(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).replace(" or ", " and "),
        if looked == 1 { "move" } else { "moves" }
    )];
    if found.is_empty() {
        lines.push("  no move was clearly worse than the search bot's choice".into());
    }
    for f in found {
        lines.push(format!(
            "  turn {}, {}: `{}` ({}); the search bot would have chosen `{}` ({})",
            f.turn,
            game.name(f.seat),
            f.played.command,
            percent(f.played.win),
            f.best.command,
            percent(f.best.win)
        ));
    }
    lines
}

/// A finding as a JSON object.
pub fn finding_json(game: &Game, f: &Finding) -> serde_json::Value {
    json!({
        "move": f.index + 1, "turn": f.turn, "player": game.name(f.seat),
        "played": f.played.command, "played_win": f.played.win,
        "best": f.best.command, "best_win": f.best.win,
    })
}

/// The help text of `hint` and `review`.
pub fn help(word: &str) -> String {
    match word {
        "hint" => format!(
            "\
hint
  The search bot's {HINT_MOVES} best moves for the player to move, each with its estimated win
  chance (the share of {HINT_PLAYOUTS} playouts won, a playout cut short counted by how far
  ahead it leaves you). The search sees only what you see: your hand, the table, the pile
  and the divers; the other hands and the deck are dealt at random for it. Off in a game
  started with --no-hints, and in network games unless the host allows them.
"
        ),
        _ => format!(
            "\
review
  The moves that were clearly worse than the search bot's choice: rated at least {:.0} points
  of estimated win chance below it, each judged from the mover's view at the time, with the
  move the search would have played. The people's moves (every seat in a game of bots).
  At a terminal only once the game is over; also in 'diving replay'.
",
            CLEARLY_WORSE * 100.0
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 32: the search ranks by playouts, and the hint listed 71% above 72%.
    #[test]
    fn a_hint_lists_its_moves_in_the_order_of_the_chance_shown() {
        let s = |command: &str, win: f64, playouts: u32| Suggestion {
            action: Action::Pass,
            command: command.into(),
            win,
            playouts,
            rescues: false,
        };
        let list = [s("play 7H", 0.71, 140), s("play 9S", 0.72, 100), s("play 2C", 0.704, 60)];
        let lines = hint_lines("alice", &list, 300);
        let shown: Vec<&str> = lines[1..].iter().map(|l| l.split_whitespace().nth(1).unwrap()).collect();
        assert_eq!(shown, ["9S", "7H", "2C"], "{lines:?}");
    }
}
