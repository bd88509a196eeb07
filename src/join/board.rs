//! A ruleset's leaderboard as text: the lobby's `ratings` answer at `diving join HOST:PORT`, and
//! `diving host --dir DIR ratings` reading the host's database. Both go through the wire's
//! shape (PROTOCOL.md, the `ratings` message: `{ruleset, rows, recent}`), so the terminal
//! shows one board whichever way it came.
//!
//! It knows nothing of how ratings are made (that is [`crate::server::db`]): it lays out
//! the rows it is given, in their order.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::server::db::{Db, Recent, Standing};

/// How many results the board lists under the standings (as the lobby's `recent` has them).
pub const RECENT: usize = 20;

/// `diving host --dir DIR ratings [--ruleset R] [--json]`: prints the board of every rated
/// ruleset of the host's database (most played first), or of `R` only; with `json`, each as
/// one line in the wire's shape. Starts no host, and changes nothing in the file.
pub fn print_host_ratings(dir: &Path, ruleset: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: no such directory (give the host's games directory: diving host --dir DIR ratings)",
            dir.display()
        );
    }
    let db = Db::open_existing(dir)?;
    let rated = db.rated_rulesets()?;
    let rulesets = match ruleset {
        Some(r) if !rated.iter().any(|x| x == r) => {
            let known = if rated.is_empty() { "none yet".to_string() } else { rated.join(", ") };
            anyhow::bail!("{} has no rated games of ruleset '{r}' (rated rulesets: {known})", dir.display());
        }
        Some(r) => vec![r.to_string()],
        None => rated,
    };
    let mut out = io::stdout().lock();
    if rulesets.is_empty() && !json {
        writeln!(out, "no rated games in {} yet", dir.display())?;
    }
    for (i, ruleset) in rulesets.iter().enumerate() {
        let board = from_db(&db, ruleset)?;
        if json {
            writeln!(out, "{board}")?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            write!(out, "{}", text(&board))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The board of `ruleset` in the wire's shape, read from the host's database.
pub fn from_db(db: &Db, ruleset: &str) -> anyhow::Result<Value> {
    let rows: Vec<Value> = db.leaderboard(ruleset)?.iter().map(row).collect();
    let recent: Vec<Value> = db.recent(ruleset, RECENT)?.iter().map(result).collect();
    Ok(json!({ "ruleset": ruleset, "rows": rows, "recent": recent }))
}

fn row(s: &Standing) -> Value {
    json!({
        "rank": s.rank, "player": s.player, "bot": s.bot, "rating": s.rating,
        "uncertainty": s.uncertainty, "games": s.games, "wins": s.wins,
    })
}

fn result(r: &Recent) -> Value {
    let places: Vec<Value> =
        r.places.iter().map(|(player, place)| json!({ "player": player, "place": place })).collect();
    json!({ "room": r.room, "game": r.game, "finished": r.finished, "places": places })
}

/// The board as text: a table of rank, player, rating ± uncertainty, games and wins, best
/// first, then the recent results, newest first. Names come from the host: shown with their
/// control characters escaped.
pub fn text(board: &Value) -> String {
    let shown = |v: &Value| crate::limits::shown(v.as_str().unwrap_or("?"), crate::limits::NewLines::Escaped);
    let ruleset = shown(&board["ruleset"]);
    let rows = board["rows"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut out = format!("ratings for {ruleset}");
    if rows.is_empty() {
        out += ": no rated games yet\n";
        return out;
    }
    out += " (rating = mu - 3 sigma, +- sigma; best first)\n";
    let names: Vec<String> = rows.iter().map(|r| shown(&r["player"])).collect();
    let width = names.iter().map(|n| crate::table::render::display_width(n)).max().unwrap_or(0).max("player".len());
    out +=
        &format!("{:>4}  {:<width$}  {:>7}  {:>6}  {:>5}  {:>4}\n", "rank", "player", "rating", "+-", "games", "wins");
    for (r, name) in rows.iter().zip(&names) {
        let pad = width - crate::table::render::display_width(name) + name.len();
        out += &format!(
            "{:>4}  {:<pad$}  {:>7.2}  {:>6.2}  {:>5}  {:>4}\n",
            r["rank"].as_u64().unwrap_or(0),
            name,
            r["rating"].as_f64().unwrap_or(f64::NAN),
            r["uncertainty"].as_f64().unwrap_or(f64::NAN),
            r["games"].as_u64().unwrap_or(0),
            r["wins"].as_u64().unwrap_or(0),
        );
    }
    let recent = board["recent"].as_array().map(Vec::as_slice).unwrap_or_default();
    if !recent.is_empty() {
        out += "recent results (newest first):\n";
    }
    for game in recent {
        let places: Vec<String> = game["places"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| format!("{}. {}", p["place"].as_u64().unwrap_or(0), shown(&p["player"])))
            .collect();
        out += &format!(
            "  {}  room {} game {}: {}\n",
            date(game["finished"].as_i64().unwrap_or(0)),
            shown(&game["room"]),
            game["game"].as_u64().unwrap_or(0),
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
        let board = json!({
            "ruleset": "standard",
            "rows": [
                {"rank": 1, "player": "ann", "bot": false, "rating": 3.5, "uncertainty": 7.25, "games": 2, "wins": 2},
                {"rank": 2, "player": "bot:greedy", "bot": true, "rating": -1.0, "uncertainty": 7.5, "games": 2, "wins": 0},
            ],
            "recent": [{"room": "4", "game": 2, "finished": 0, "places": [{"player": "ann", "place": 1}, {"player": "bot:greedy", "place": 2}]}],
        });
        let text = text(&board);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("ratings for standard"), "{text}");
        assert_eq!(lines[2], "   1  ann            3.50    7.25      2     2", "{text}");
        assert_eq!(lines[3], "   2  bot:greedy    -1.00    7.50      2     0", "{text}");
        assert_eq!(lines[5], "  1970-01-01 00:00  room 4 game 2: 1. ann, 2. bot:greedy", "{text}");
        let empty = super::text(&json!({"ruleset": "house", "rows": [], "recent": []}));
        assert_eq!(empty, "ratings for house: no rated games yet\n");
    }
}
