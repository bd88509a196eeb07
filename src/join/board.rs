//! A ruleset's leaderboard as text: the lobby's `ratings` answer at `diving join HOST:PORT`,
//! and what `diving host --dir DIR ratings` prints (the command line reads the boards from the
//! host's database and lays each out here). Both are the wire's [`Ratings`], so the terminal
//! shows one board whichever way it came, and this module knows nothing of the host.
//!
//! It knows nothing of how ratings are made: it lays out the rows it is given, in their order.

use crate::limits::{NewLines, shown};
use crate::wire::server::Ratings;

/// The board as text: a table of rank, player, rating ± uncertainty, games and wins, best
/// first, then the recent results, newest first. Names come from the host: shown with their
/// control characters escaped.
pub fn text(board: &Ratings) -> String {
    let show = |text: &str| shown(text, NewLines::Escaped);
    let mut out = format!("ratings for {}", show(&board.ruleset));
    if board.rows.is_empty() {
        out += ": no rated games yet\n";
        return out;
    }
    out += " (rating = mu - 3 sigma, +- sigma; best first)\n";
    let names: Vec<String> = board.rows.iter().map(|r| show(&r.player)).collect();
    let width = names.iter().map(|n| crate::table::render::display_width(n)).max().unwrap_or(0).max("player".len());
    out +=
        &format!("{:>4}  {:<width$}  {:>7}  {:>6}  {:>5}  {:>4}\n", "rank", "player", "rating", "+-", "games", "wins");
    for (r, name) in board.rows.iter().zip(&names) {
        let pad = width - crate::table::render::display_width(name) + name.len();
        out += &format!(
            "{:>4}  {:<pad$}  {:>7.2}  {:>6.2}  {:>5}  {:>4}\n",
            r.rank, name, r.rating, r.uncertainty, r.games, r.wins,
        );
    }
    if !board.recent.is_empty() {
        out += "recent results (newest first):\n";
    }
    for game in &board.recent {
        let places: Vec<String> = game.places.iter().map(|p| format!("{}. {}", p.place, show(&p.player))).collect();
        out += &format!(
            "  {}  room {} game {}: {}\n",
            date(game.finished),
            show(&game.room),
            game.game,
            places.join(", ")
        );
    }
    out
}

/// Seconds since 1970 as a UTC date and time, `2026-12-02 21:40` (the civil calendar from
/// a day count, as Howard Hinnant's `civil_from_days` works it out).
pub fn date(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let minutes = secs.rem_euclid(86_400) / 60;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_the_civil_calendar_in_utc() {
        assert_eq!(date(0), "1970-01-01 00:00");
        assert_eq!(date(951_782_400), "2000-02-29 00:00");
        assert_eq!(date(1_796_247_600), "2026-12-02 21:40");
    }

    #[test]
    fn a_board_lists_its_rows_in_order_then_the_recent_results() {
        let board: Ratings = serde_json::from_value(serde_json::json!({
            "ruleset": "standard",
            "rows": [
                {"rank": 1, "player": "ann", "bot": false, "rating": 3.5, "mu": 25.25, "uncertainty": 7.25, "games": 2, "wins": 2},
                {"rank": 2, "player": "bot:greedy", "bot": true, "rating": -1.0, "mu": 21.5, "uncertainty": 7.5, "games": 2, "wins": 0},
            ],
            "recent": [{"room": "4", "game": 2, "finished": 0, "places": [{"player": "ann", "place": 1}, {"player": "bot:greedy", "place": 2}]}],
        }))
        .unwrap();
        let text = text(&board);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("ratings for standard"), "{text}");
        assert_eq!(lines[2], "   1  ann            3.50    7.25      2     2", "{text}");
        assert_eq!(lines[3], "   2  bot:greedy    -1.00    7.50      2     0", "{text}");
        assert_eq!(lines[5], "  1970-01-01 00:00  room 4 game 2: 1. ann, 2. bot:greedy", "{text}");
        let empty = Ratings { id: None, ruleset: "house".into(), rows: vec![], recent: vec![] };
        assert_eq!(super::text(&empty), "ratings for house: no rated games yet\n");
    }
}
