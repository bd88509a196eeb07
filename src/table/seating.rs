//! Who sits at a table: the seats from `--players` (names, and bots as `bot:SPEC`), the name
//! rules every front end applies, and a stacked deck read from the command line or a file.
//! Shared by the shell and the host, so a seat is read alike wherever a game starts.

use std::path::Path;

use anyhow::{Context, bail};

use crate::bots;
use crate::core::{Card, parse_cards};
use crate::limits::{self, FileKind};
use crate::table::parse;
use crate::table::save::SavedPlayer;

/// A player as a table starts the game with: a name, and the bot spec for a computer player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seating {
    pub name: String,
    pub bot: Option<String>,
}

/// The players when `--players` is not given: you against one bot at normal strength.
pub const DEFAULT_PLAYERS: [&str; 2] = ["you", "bot:greedy"];

/// `players` with greedy bots added up to `fewest` seats (`alice,bot:greedy`), written as
/// `--players` takes them: the example a refusal of too few players gives. `None` when there
/// are enough already.
pub fn with_bots(players: &[String], fewest: usize) -> Option<String> {
    let missing = fewest.checked_sub(players.len()).filter(|&n| n > 0)?;
    let seats: Vec<String> =
        players.iter().cloned().chain(std::iter::repeat_n("bot:greedy".to_string(), missing)).collect();
    Some(seats.join(","))
}

/// The seats from `--players` (or the default): names, and bots as `bot:SPEC`.
pub fn seating(players: Option<&[String]>) -> anyhow::Result<Vec<Seating>> {
    let given: Vec<String> = match players {
        Some(list) if list.len() > limits::MAX_PLAYERS => {
            bail!("--players: {} players listed; no ruleset seats more than {}", list.len(), limits::MAX_PLAYERS)
        }
        Some(list) => list.iter().map(|s| s.trim().to_string()).collect(),
        None => {
            // Until the greedy bot exists, the default opponent is the strongest one that does.
            let bot = if bots::from_spec("greedy", 0).is_ok() { "bot:greedy" } else { "bot:random" };
            vec![DEFAULT_PLAYERS[0].to_string(), bot.to_string()]
        }
    };
    let mut seats: Vec<Seating> = Vec::new();
    for entry in &given {
        let seat = match entry.strip_prefix("bot:") {
            Some(spec) => {
                if spec.is_empty() {
                    bail!("'bot:' needs a bot name, like bot:greedy");
                }
                // Difficulty words for a newcomer.
                let spec = match spec.to_lowercase().as_str() {
                    "easy" => "random",
                    "normal" => "greedy",
                    "hard" => "mcts",
                    _ => spec,
                };
                bots::from_spec(spec, 0).map_err(|e| anyhow::anyhow!("--players: {e}"))?;
                let base = bot_name(spec);
                let mut name = base.clone();
                let mut n = 2;
                while given.iter().any(|g| g.eq_ignore_ascii_case(&name))
                    || seats.iter().any(|s| s.name.eq_ignore_ascii_case(&name))
                {
                    name = format!("{base}{n}");
                    n += 1;
                }
                Seating { name, bot: Some(spec.to_string()) }
            }
            None => {
                check_name(entry).map_err(|e| anyhow::anyhow!("--players: {e}"))?;
                // `mcts` alone is a slip for `bot:mcts` far more often than a person's name.
                let bare = entry.to_lowercase();
                if ["random", "greedy", "mcts", "easy", "normal", "hard"]
                    .contains(&bare.split(':').next().unwrap_or(""))
                {
                    bail!(
                        "--players: '{entry}' is the name of a bot; write bot:{entry} for a computer player, \
                         or give the person another name"
                    );
                }
                Seating { name: entry.clone(), bot: None }
            }
        };
        seats.push(seat);
    }
    Ok(seats)
}

/// A bot's player name: its kind (`greedy`, `mcts` for `mcts:400`), or a script's file stem
/// (`scripts/cautious.lua` → `cautious`).
fn bot_name(spec: &str) -> String {
    let stem = if spec.ends_with(".lua") {
        Path::new(spec).file_stem().and_then(|s| s.to_str()).unwrap_or(spec)
    } else {
        spec.split(':').next().unwrap_or(spec)
    };
    let cleaned: String = stem
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control() && *c != '@')
        .take(limits::MAX_NAME_CHARS - 4)
        .collect();
    if cleaned.is_empty() || parse::is_keyword(&cleaned) || cleaned.parse::<Card>().is_ok() {
        format!("{cleaned}bot")
    } else {
        cleaned
    }
}

/// Whether `name` can name a seat: the limits of every name ([`limits::check_name_text`]) and
/// nothing a command would read as something else.
pub fn check_name(name: &str) -> Result<(), String> {
    limits::check_name_text(name)?;
    if name.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("'{name}' is a number; numbers name seats, so a name needs a letter"));
    }
    if name.contains('@') {
        return Err(format!("'{name}' has an '@', which commands use to mark a player"));
    }
    if parse::is_keyword(name) {
        return Err(format!(
            "'{name}' is a word of the play command (table, tN, hand, over), so it cannot name a player"
        ));
    }
    if name.parse::<Card>().is_ok() {
        return Err(format!(
            "'{name}' is a card, so it cannot name a player ('play KC {name}' would read as two cards)"
        ));
    }
    Ok(())
}

/// The players of a save file, checked as `--players` checks them: their number, every name
/// (bots' too) and every bot spec (a Lua bot's file is read). Names told apart are the
/// core's check, as for `--players`.
pub fn check_saved_players(players: &[SavedPlayer]) -> Result<(), String> {
    if players.len() > limits::MAX_PLAYERS {
        return Err(format!("{} players; no ruleset seats more than {}", players.len(), limits::MAX_PLAYERS));
    }
    for (i, player) in players.iter().enumerate() {
        check_name(&player.name).map_err(|e| format!("player {}: {e}", i + 1))?;
        if let Some(spec) = &player.bot {
            bots::from_spec(spec, 0).map_err(|e| format!("player {} ({}): {e}", i + 1, player.name))?;
        }
    }
    Ok(())
}

/// The `--deck` value: the cards themselves, or `@FILE` / a path to a file holding them
/// (whitespace- or comma-separated; `#` starts a comment).
pub fn read_deck(value: &str) -> anyhow::Result<Vec<Card>> {
    let read = |path: &str| {
        limits::read_text(Path::new(path), FileKind::Deck).with_context(|| format!("--deck: cannot read {path}"))
    };
    let (text, source) = match value.strip_prefix('@') {
        Some(path) => (read(path)?, format!("--deck {path}")),
        None if Path::new(value).exists() && !value.contains(char::is_whitespace) => {
            (read(value)?, format!("--deck {value}"))
        }
        None if !value.contains(char::is_whitespace) && value.contains(['/', '.']) => {
            bail!("--deck: there is no file {value} (and it is not a list of cards)")
        }
        None => (value.to_string(), "--deck".to_string()),
    };
    let without_comments: String =
        text.lines().map(|l| l.split('#').next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    parse_cards(&without_comments).map_err(|mut e| {
        e.text = limits::quoted(&e.text);
        anyhow::anyhow!("{source}: {e}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bots_are_named_after_their_spec_and_numbered() {
        let players: Vec<String> = ["alice", "bot:random", "bot:random"].iter().map(|s| s.to_string()).collect();
        let names: Vec<String> = seating(Some(&players)).unwrap().into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["alice", "random", "random2"]);
        assert_eq!(bot_name("scripts/cautious.lua"), "cautious");
        // A script named like a card is not named as one.
        assert_eq!(bot_name("scripts/kc.lua"), "kcbot");
        let players: Vec<String> = ["alice", "bot:easy", "bot:hard"].iter().map(|s| s.to_string()).collect();
        let bots: Vec<Option<String>> = seating(Some(&players)).unwrap().into_iter().map(|s| s.bot).collect();
        assert_eq!(bots, [None, Some("random".into()), Some("mcts".into())]);
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in ["", "al ice", "12", "a@b", "bot:", "mcts", "Greedy", "KC", "10h", "T♠"] {
            assert!(seating(Some(&[bad.to_string(), "bob".to_string()])).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_deck_may_have_comments_and_commas() {
        let deck = read_deck("AS, 2H # first two\n3D").unwrap();
        assert_eq!(deck.len(), 3);
        assert!(read_deck("AS XX").unwrap_err().to_string().contains("'XX' is not a card"));
        assert!(
            read_deck("decks/missing.deck").unwrap_err().to_string().contains("there is no file decks/missing.deck")
        );
    }
}
