//! Text → [`Command`]: the shell's command language, without looking at the game.
//!
//! Parsing is purely syntactic: `play 7h t2 bob over` becomes a [`Command::Play`] naming a
//! card, a place, a player and an order. Whether the card is in the hand, whether `bob` exists
//! or may be targeted is decided later by the session and the core. Every error is one line
//! meant for the player. The one thing it is told of the rules is the names of the actions
//! mods registered ([`parse_with`]): `buddy bob` (or `toss 7h`) is then a [`Command::Act`].

use crate::core::{ActionEntry, ActionName, Card, Cards};
use crate::limits;

/// Every command word, in the order `help` lists them, with a one-line summary.
pub const COMMANDS: &[(&str, &str)] = &[
    ("play", "play a card from your hand or the table: play CARD [table|tN] [PLAYER] [over]"),
    ("recover", "discard cards from your hand to recover oxygen: recover CARD… [over]"),
    ("pass", "pass (only when nothing else is legal)"),
    ("moves", "list the legal moves"),
    ("state", "show the board"),
    ("hand", "show your hand"),
    ("log", "show everything that happened this game"),
    ("undo", "take back your last move"),
    ("hint", "the search bot's three best moves for you, with their win chance"),
    ("review", "the moves that were clearly worse than the search bot's choice"),
    ("save", "save the game: save FILE"),
    ("reload", "re-read the ruleset and replay the game under it"),
    ("help", "show help: help [COMMAND], help rules, help J"),
    ("again", "start a new game with the same players: again [PLAYER,PLAYER…]"),
    ("quit", "leave the game"),
];

/// Short and alternative spellings of the command words.
const ALIASES: &[(&str, &str)] = &[
    ("p", "play"),
    ("r", "recover"),
    ("m", "moves"),
    ("board", "state"),
    ("s", "state"),
    ("h", "help"),
    ("?", "help"),
    ("exit", "quit"),
    ("q", "quit"),
    ("new", "again"),
];

/// Where the player wants a card to come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// From the hand if it is there, else from the table.
    Auto,
    Hand,
    /// From the table: the given slot (0-based), or the first slot that holds the card.
    Table(Option<usize>),
}

/// A player as written in a command: a name or a seat number (1-based as typed, stored 0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    Name(String),
    Seat(usize),
}

/// One line of input, understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Play {
        card: Card,
        place: Place,
        target: Option<Who>,
        over: bool,
    },
    Recover {
        cards: Cards,
        over: bool,
    },
    Pass,
    /// An action a mod registered, with the player or the card it names.
    Act {
        name: ActionName,
        target: Option<Who>,
        card: Option<Card>,
    },
    Moves,
    State,
    Hand,
    Log,
    Undo,
    /// The search bot's best moves for the seat to move, from its view only.
    Hint,
    /// The moves of a game that were clearly worse than the search bot's choice.
    Review,
    Save(String),
    Reload,
    Help(Option<String>),
    /// A new game; with players (as `--players` takes them), those, else the same ones.
    Again(Option<Vec<String>>),
    Quit,
    /// Chat to the table (a network table's): the text as typed after `say`.
    Say(String),
    /// Another game at this table once this one is over (a network table's).
    Rematch,
}

impl Command {
    /// The command word that names it (`play`, `recover`, `help` …), as `COMMANDS` lists it.
    pub fn word(&self) -> &'static str {
        match self {
            Command::Play { .. } => "play",
            Command::Recover { .. } => "recover",
            Command::Pass => "pass",
            Command::Act { .. } => "act",
            Command::Moves => "moves",
            Command::State => "state",
            Command::Hand => "hand",
            Command::Log => "log",
            Command::Undo => "undo",
            Command::Hint => "hint",
            Command::Review => "review",
            Command::Save(_) => "save",
            Command::Reload => "reload",
            Command::Help(_) => "help",
            Command::Again(_) => "again",
            Command::Quit => "quit",
            Command::Say(_) => "say",
            Command::Rematch => "rematch",
        }
    }

    /// Whether it only looks at the game (what a spectator may send).
    pub fn only_looks(&self) -> bool {
        matches!(self, Command::State | Command::Log | Command::Help(_) | Command::Quit)
    }
}

/// Reads one line. `Ok(None)` for a blank line or a `#` comment (a `#` after a space also
/// starts a comment).
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    parse_with(line, &[])
}

/// [`parse`], with `actions` the mods registered: a line starting with one's name is a
/// [`Command::Act`] (`buddy bob`, `buddy 2`, `buddy @bob`).
pub fn parse_with(line: &str, actions: &[ActionEntry]) -> Result<Option<Command>, String> {
    // Chat is the text as typed, a `#` in it included.
    let trimmed = line.trim_start();
    if let Some(word) = trimmed.split_whitespace().next()
        && word.eq_ignore_ascii_case("say")
    {
        return Ok(Some(Command::Say(trimmed[word.len()..].to_string())));
    }
    // `#` starts a comment at the start of a line or after a space.
    let line = match line.find(" #").or_else(|| line.find("\t#")) {
        Some(i) => &line[..i],
        None => line,
    };
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words[0].to_lowercase();
    let rest = &words[1..];
    if let Some(entry) = actions.iter().find(|a| a.name.as_str() == first) {
        let name = entry.name;
        return match &words[1..] {
            [] => Ok(Some(Command::Act { name, target: None, card: None })),
            // A card (`toss 7h`), else a player (`buddy bob`, `buddy 2`, `buddy @7h`).
            [one] if !one.starts_with('@') && one.parse::<Card>().is_ok() => {
                Ok(Some(Command::Act { name, target: None, card: Some(parse_card(one)?) }))
            }
            [one] => Ok(Some(Command::Act { name, target: Some(who(one)?), card: None })),
            [_, extra, ..] => {
                Err(format!("{name} names one player or card (found '{}' after the first)", limits::quoted(extra)))
            }
        };
    }
    // A network table's: not in the shell's list of commands.
    if first == "rematch" {
        return match rest.first() {
            None => Ok(Some(Command::Rematch)),
            Some(extra) => Err(format!("'rematch' takes nothing after it (found '{}')", limits::quoted(extra))),
        };
    }
    let word = match command_word(&first) {
        Some(w) => w,
        // A line that starts with a card is a play: `7h` = `play 7h`.
        None if first.parse::<Card>().is_ok() => "play",
        None => return Err(unknown_command(words[0])),
    };
    let rest = if command_word(&first).is_some() { rest } else { &words[..] };
    let none = |cmd: Command| {
        if let Some(extra) = rest.first() {
            Err(format!("'{word}' takes nothing after it (found '{extra}')"))
        } else {
            Ok(Some(cmd))
        }
    };
    match word {
        "play" => parse_play(rest).map(Some),
        "recover" => parse_recover(rest).map(Some),
        "pass" => none(Command::Pass),
        "moves" => none(Command::Moves),
        "state" => none(Command::State),
        "hand" => none(Command::Hand),
        "log" => none(Command::Log),
        "undo" => none(Command::Undo),
        "hint" => none(Command::Hint),
        "review" => none(Command::Review),
        "reload" => none(Command::Reload),
        "quit" => none(Command::Quit),
        "again" => match rest {
            [] => Ok(Some(Command::Again(None))),
            words => {
                let names: Vec<String> =
                    words.join(",").split(',').filter(|w| !w.is_empty()).map(str::to_string).collect();
                if names.is_empty() {
                    Err("again takes player names (again alice,bob,bot:greedy), or none for the same players".into())
                } else {
                    Ok(Some(Command::Again(Some(names))))
                }
            }
        },
        "save" => {
            // The file name is the rest of the line as typed (it may hold spaces), without the
            // quotes a shell would want around it.
            let after = line[words[0].len()..].trim();
            let after = ['"', '\'']
                .iter()
                .find_map(|&q| after.strip_prefix(q).and_then(|a| a.strip_suffix(q)))
                .unwrap_or(after)
                .trim();
            if after.is_empty() {
                Err("save needs a file name: save FILE".into())
            } else {
                Ok(Some(Command::Save(after.into())))
            }
        }
        "help" => match rest {
            [] => Ok(Some(Command::Help(None))),
            [topic] => Ok(Some(Command::Help(Some(topic.to_lowercase())))),
            _ => Err("help takes at most one command name: help [COMMAND]".into()),
        },
        _ => unreachable!("every command word is handled"),
    }
}

/// The command a (lower-case) word names, through aliases.
pub fn command_word(word: &str) -> Option<&'static str> {
    COMMANDS
        .iter()
        .map(|(w, _)| *w)
        .find(|w| *w == word)
        .or_else(|| ALIASES.iter().find(|(a, _)| *a == word).map(|(_, w)| *w))
}

fn unknown_command(word: &str) -> String {
    let shown = limits::quoted(word);
    if word.chars().count() > limits::MAX_SUGGESTION_CHARS {
        // No command word is near a word this long: do not compare them.
        return format!("unknown command '{shown}' (type 'help' for the list)");
    }
    let word = shown.as_str();
    let lower = word.to_lowercase();
    let best = COMMANDS.iter().map(|(w, _)| (*w, edit_distance(&lower, w))).min_by_key(|&(_, d)| d);
    match best {
        // One slip in a three-letter word, two in a longer one: `foo` is not a typo of `log`.
        Some((w, d)) if d <= if lower.chars().count() <= 3 { 1 } else { 2 } || w.starts_with(&lower) => {
            format!("unknown command '{word}' (did you mean '{w}'? type 'help' for the list)")
        }
        _ => format!("unknown command '{word}' (type 'help' for the list)"),
    }
}

fn parse_play(words: &[&str]) -> Result<Command, String> {
    let Some((card_text, rest)) = words.split_first() else {
        return Err("play needs a card: play CARD [table|tN] [PLAYER] [over]".into());
    };
    let card = parse_card(card_text)?;
    let mut place = Place::Auto;
    let mut target = None;
    let mut over = false;
    let mut i = 0;
    while i < rest.len() {
        let w = rest[i];
        let lower = w.to_lowercase();
        let mut set_place = |p: Place| {
            if place != Place::Auto {
                return Err(format!("the card's place is given twice ('{w}')"));
            }
            place = p;
            Ok(())
        };
        if lower == "table" || lower == "t" {
            // `table 2` names the slot; a bare `table` means the slot that holds the card.
            match rest.get(i + 1).and_then(|n| slot_number(n)) {
                Some(slot) => {
                    set_place(Place::Table(Some(slot?)))?;
                    i += 1;
                }
                None => set_place(Place::Table(None))?,
            }
        } else if let Some(slot) = lower.strip_prefix("table").or_else(|| lower.strip_prefix('t')).and_then(slot_number)
        {
            set_place(Place::Table(Some(slot?)))?;
        } else if lower == "hand" {
            set_place(Place::Hand)?;
        } else if is_over_word(&lower) {
            if over {
                return Err(format!("'{w}' is given twice"));
            }
            over = true;
        } else {
            if target.is_some() {
                return Err(format!("only one player can be named (found '{w}' after the first)"));
            }
            target = Some(who(w)?);
        }
        i += 1;
    }
    Ok(Command::Play { card, place, target, over })
}

fn parse_recover(words: &[&str]) -> Result<Command, String> {
    let mut cards = Vec::new();
    let mut over = false;
    for (i, w) in words.iter().enumerate() {
        if is_over_word(&w.to_lowercase()) {
            if i + 1 != words.len() {
                return Err(format!("'{w}' goes at the end: recover CARD… over"));
            }
            over = true;
        } else {
            cards.push(parse_card(w)?);
        }
    }
    if cards.is_empty() {
        return Err("recover needs at least one card from your hand: recover CARD…".into());
    }
    let cards = Cards::try_from(cards).map_err(|e| e.to_string())?;
    Ok(Command::Recover { cards, over })
}

/// A card as typed; the error quotes at most the start of a long word.
fn parse_card(text: &str) -> Result<Card, String> {
    text.parse::<Card>().map_err(|e| e.to_string().replacen(text, &limits::quoted(text), 1))
}

/// Whether `word` means something in a `play` command (`table`, `t2`, `hand`, `over` …), so a
/// player of that name could not be named after a card.
pub fn is_keyword(word: &str) -> bool {
    let lower = word.to_lowercase();
    let slot = |rest: &str| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit());
    matches!(lower.as_str(), "table" | "t" | "hand")
        || is_over_word(&lower)
        || lower.strip_prefix("table").is_some_and(slot)
        || lower.strip_prefix('t').is_some_and(slot)
}

fn is_over_word(lower: &str) -> bool {
    matches!(lower, "over" | "on-top" | "ontop" | "top")
}

/// A table slot as typed (1-based) → 0-based; `None` if the text is not a number at all.
fn slot_number(text: &str) -> Option<Result<usize, String>> {
    let n: usize = text.parse().ok()?;
    Some(if n == 0 { Err("table slots are numbered from 1".into()) } else { Ok(n - 1) })
}

/// A player reference: `bob`, `@bob`, `2` or `@2` (seat numbers from 1).
pub fn who(text: &str) -> Result<Who, String> {
    let bare = text.strip_prefix('@').unwrap_or(text);
    if bare.is_empty() {
        return Err("'@' must be followed by a player name or seat number".into());
    }
    if bare.chars().all(|c| c.is_ascii_digit()) {
        return match bare.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Who::Seat(n - 1)),
            _ => Err(format!("'{}' is not a seat number (seats are numbered from 1)", limits::quoted(text))),
        };
    }
    Ok(Who::Name(bare.to_string()))
}

/// Levenshtein distance, for "did you mean".
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(t: &str) -> Card {
        t.parse().unwrap()
    }

    fn ok(line: &str) -> Command {
        parse(line).unwrap().unwrap()
    }

    #[test]
    fn play_keywords_are_known() {
        for w in ["table", "T", "t1", "t12", "table3", "hand", "Over", "on-top", "top"] {
            assert!(is_keyword(w), "{w}");
        }
        for w in ["tom", "tab", "bob", "t1a", "handy"] {
            assert!(!is_keyword(w), "{w}");
        }
    }

    #[test]
    fn blank_lines_and_comments_are_nothing() {
        assert_eq!(parse("   "), Ok(None));
        assert_eq!(parse("# a comment"), Ok(None));
        assert_eq!(parse("pass   # a trailing comment"), Ok(Some(Command::Pass)));
    }

    #[test]
    fn play_with_every_option() {
        assert_eq!(
            ok("PLAY 7h t2 Bob over"),
            Command::Play {
                card: card("7H"),
                place: Place::Table(Some(1)),
                target: Some(Who::Name("Bob".into())),
                over: true
            }
        );
        assert_eq!(
            ok("play js table 3 @2"),
            Command::Play { card: card("JS"), place: Place::Table(Some(2)), target: Some(Who::Seat(1)), over: false }
        );
        assert_eq!(
            ok("p qd table"),
            Command::Play { card: card("QD"), place: Place::Table(None), target: None, over: false }
        );
        assert_eq!(ok("7♥"), Command::Play { card: card("7H"), place: Place::Auto, target: None, over: false });
    }

    #[test]
    fn recover_keeps_the_order_and_over_goes_last() {
        assert_eq!(
            ok("recover 2h 3h over"),
            Command::Recover { cards: Cards::try_from([card("2H"), card("3H")]).unwrap(), over: true }
        );
        assert!(parse("recover over 2h").is_err());
        assert!(parse("recover").is_err());
    }

    /// No hand holds 17 cards: such a recovery is refused where it is read, with the bound.
    #[test]
    fn a_recovery_of_more_cards_than_any_hand_holds_is_refused_with_the_bound() {
        let seventeen = ["2h"; 17].join(" ");
        let err = parse(&format!("recover {seventeen}")).unwrap_err();
        assert_eq!(err, "a recovery names at most 16 cards (found 17); a hand holds at most 13");
        let err = parse(&format!("recover {}", ["2h"; 40].join(" "))).unwrap_err();
        assert!(err.contains("(found 40)"), "the whole list is counted: {err}");
        assert!(parse(&format!("recover {}", ["2h"; 16].join(" "))).is_ok());
    }

    #[test]
    fn mistakes_get_one_line_reasons() {
        let err = parse("paly 7h").unwrap_err();
        assert!(err.contains("did you mean 'play'"), "{err}");
        assert!(parse("play").unwrap_err().contains("needs a card"));
        assert!(parse("play 7x").unwrap_err().contains("is not a card"));
        assert!(parse("play 7h bob carol").unwrap_err().contains("only one player"));
        assert!(parse("play 7h t0").unwrap_err().contains("from 1"));
        assert!(parse("pass now").unwrap_err().contains("takes nothing"));
        assert!(parse("save").unwrap_err().contains("file name"));
    }

    #[test]
    fn save_keeps_the_file_name_as_typed() {
        assert!(parse("again ,").unwrap_err().contains("again takes player names"));
        assert!(parse("again , ,").unwrap_err().contains("again takes player names"));
        assert_eq!(ok("again a,,b"), Command::Again(Some(vec!["a".into(), "b".into()])));
        assert_eq!(ok("save My Game.json"), Command::Save("My Game.json".into()));
        assert_eq!(ok("save \"My Game.json\""), Command::Save("My Game.json".into()));
        assert_eq!(ok("save 'a.json'"), Command::Save("a.json".into()));
        assert_eq!(ok("save it's.json"), Command::Save("it's.json".into()));
        assert!(parse("save \"\"").unwrap_err().contains("file name"));
        assert!(parse("save ''").unwrap_err().contains("file name"));
        assert_eq!(ok("save \""), Command::Save("\"".into()), "one quote is no pair");
    }

    /// A mod's action cannot be called like a command: every command word and short form is
    /// one the Lua layer refuses as an action's name.
    #[test]
    fn every_command_word_is_reserved_from_mods_actions() {
        for (word, _) in COMMANDS.iter().chain(ALIASES) {
            if ActionName::new(word).is_ok() {
                assert!(crate::script::RESERVED.contains(word), "'{word}' is not in script::RESERVED");
            }
        }
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("paly", "play"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("undo", "undo"), 0);
    }
}
