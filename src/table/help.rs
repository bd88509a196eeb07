//! The help texts: `help`, `help COMMAND`, `help rules` and `help CARD`, from the rules and
//! the registry in force (a mod's card explains itself), for the commands a table offers.

use crate::core::{Card, Game};
use crate::limits;
use crate::table::hint;
use crate::table::parse::{self, COMMANDS};
use crate::table::render;

/// The text of `help` (no topic) or `help TOPIC`; `Err` names the commands when there is no
/// such topic.
pub fn help_text(topic: Option<&str>, game: &Game) -> Result<String, String> {
    // A mod's action explains itself (its name is never a command word).
    if let Some(act) = topic.and_then(|t| game.registry().actions().iter().find(|a| a.name.as_str() == t)) {
        return Ok(action_help(act));
    }
    match topic {
        None => Ok(general_help()),
        Some(t) if t.eq_ignore_ascii_case("rules") => Ok(render::rules_guide(game.rules(), game.registry())),
        // `over` ends a play or a recovery (hint and moves write it): not a command, but a word
        // a player meets and asks about.
        Some(t) if t.eq_ignore_ascii_case("over") => Ok(OVER.to_string()),
        Some(t) => match (parse::command_word(t), card_topic(t)) {
            // `help q`: the Quick card (as `help Q`), and what the one-letter command is.
            (Some(word), Some(rank)) if t.chars().count() == 1 => Ok(format!(
                "{}('{t}' typed alone, as a command, is short for '{word}': 'help {word}')\n",
                render::card_help(rank, game.rules(), game.registry())
            )),
            (Some(word), _) => Ok(command_help(word, game.rules())),
            (None, Some(rank)) => Ok(render::card_help(rank, game.rules(), game.registry())),
            (None, None) => Err(format!(
                "no help for '{}' (help rules, help J, help Q, help K, help over, or a command: {})",
                limits::quoted(t),
                COMMANDS.iter().map(|(w, _)| *w).collect::<Vec<_>>().join(", ")
            )),
        },
    }
}

/// A card or rank named as a help topic: `J`, `jolt`, `QH`, `7`, `number`.
pub fn card_topic(topic: &str) -> Option<crate::core::Rank> {
    let t = topic.to_lowercase();
    let word = match t.as_str() {
        "jolt" | "j" => "J",
        "quick" | "q" => "Q",
        "knot" | "k" => "K",
        "number" | "numbers" | "a" | "ace" => "A",
        other => other,
    };
    if let Ok(card) = word.parse::<Card>() {
        return Some(card.rank);
    }
    // A rank alone: try it with a suit.
    format!("{word}s").parse::<Card>().ok().map(|c| c.rank)
}

fn general_help() -> String {
    command_list_help(COMMANDS)
}

/// The help's list of `commands`, with how cards and players are named.
pub fn command_list_help(commands: &[(&str, &str)]) -> String {
    let mut out = String::from("commands (any case; a line that starts with a card plays it):\n");
    for (word, summary) in commands {
        out += &format!("  {word:<8} {summary}\n");
    }
    out += "cards are rank then suit: 7H, 10S or TS, QC, A♠. players by name or seat number.\n";
    out += "'help COMMAND' tells more, e.g. 'help play'; 'help rules' explains the game, 'help J' a card.\n";
    out
}

/// `help NAME` for an action a mod registered: how it is typed and what it says it does.
fn action_help(act: &crate::core::ActionEntry) -> String {
    use crate::core::ActionArg;
    let name = act.name;
    let (usage, player) = match act.arg {
        ActionArg::None => (name.to_string(), ""),
        ActionArg::Diver { me: false, optional: false } => (format!("{name} PLAYER"), "another diver"),
        ActionArg::Diver { me: true, optional: false } => (format!("{name} PLAYER"), "any diver, you included"),
        ActionArg::Diver { me: false, optional: true } => (format!("{name} [PLAYER]"), "another diver, or none"),
        ActionArg::Diver { me: true, optional: true } => (format!("{name} [PLAYER]"), "any diver, or none"),
        ActionArg::Card { optional: false } => (format!("{name} CARD"), ""),
        ActionArg::Card { optional: true } => (format!("{name} [CARD]"), ""),
    };
    let mut out = format!("{usage}\n  {}\n", act.describe);
    if !player.is_empty() {
        out += &format!("  PLAYER      {player}: a name or seat number (e.g. {name} 2)\n");
    }
    if matches!(act.arg, ActionArg::Card { .. }) {
        out += &format!("  CARD        a card of your hand (e.g. {name} 7h)\n");
    }
    out += "  An action of this ruleset's mods, taken instead of playing a card: 'moves' lists it when\n  it is allowed, and a refusal says why not.\n";
    out
}

/// `help over`: the word that puts a used-up J or K on top of the discard pile.
const OVER: &str = "\
over   (the last word of a play or a recovery: play 9s over, recover 2s ad over)
  A J (Jolt) or K (Knot) in front of you is used up by your next number card (the J) or
  your next recovery (the K), and goes to the discard pile with the card or cards you
  played. Which card ends on top matters: the next number card is doubled when it matches
  the discard pile's top card.
  without 'over'   the J or K goes below, and your card (the last card of a recovery) ends
                   on top
  with 'over'      the J or K goes on top: the next player doubles with a card of its suit
  'over' can be written only when a J or K of yours is used up by this move; 'moves' and
  'hint' write it when it is the better choice.
";

/// `recover`'s help: how a recovery is typed, and the oxygen each suit pattern gives, in
/// words beside the short form `moves` and `hint` write (`2+2`).
fn recover_help(rules: &crate::core::Rules) -> String {
    let labels: Vec<String> = rules.recovery.keys().map(|p| format!("{} ({p})", render::pattern_words(p))).collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut table = String::new();
    for (label, gain) in labels.iter().zip(rules.recovery.values()) {
        let gain = match gain {
            crate::core::Gain::Max => "back to max".to_string(),
            g => g.to_string(),
        };
        table += &format!("    {label:<width$}  {gain}\n");
    }
    format!(
        "\
recover CARD… [over]
  Discard these cards from your hand (in this order: the last one ends on top), draw as many,
  and gain oxygen by the suits of the cards discarded:
{table}  The short form in brackets counts the cards of each suit: 2 is two cards of one suit,
  2+2 two of one suit and two of another, 3 three of one suit; none means no two
  cards share a suit.
  over   when a K (Knot) in front of you is used up: the K goes on top (default: below;
         'help over')
  example: recover 2h 9h 3s
"
    )
}

fn command_help(word: &str, rules: &crate::core::Rules) -> String {
    match word {
        "play" => "\
play CARD [table|tN] [PLAYER] [over]
  Play CARD from your hand (then draw), or from the table (then the slot is refilled).
  table, tN   take it from the table (tN or 'table N': slot N); without it, the card comes
              from your hand, or from the table when it is not in your hand
  hand        take it from your hand
  PLAYER      who gets your J (Jolt) or K (Knot), or who your Quick pushes down when this
              number card uses your Q; a name or seat number. Asked for when there is a
              choice, made for you when there is only one.
  over        when this number card uses up a J in front of you: the J goes on top of it on
              the discard pile (without 'over' it goes below)
  examples:   play 7h · play qd t3 · play js bob · play 5c 2 · play 9s over · 7h
"
        .to_string(),
        "recover" => recover_help(rules),
        "pass" => {
            "pass\n  Pass your turn: allowed only when you have no cards and no table card can be played.\n".into()
        }
        "moves" => "moves\n  List every legal move, written as the command that plays it.\n".into(),
        "state" => "state\n  Show the board: divers, table, discard pile, deck and your hand.\n".into(),
        "hand" => "hand\n  Show your hand.\n".into(),
        "log" => "\
log
  Show everything that happened in this game so far, as you may see it. At a terminal a log
  longer than the screen is shown a screenful at a time: space or Enter on, b back, q stop
  (another key stops too, and what you type goes on at the prompt).
"
        .into(),
        "undo" => "\
undo
  Take back your last move (and the bots' moves after it): only your own move, so in a
  hot-seat game it is refused once another player moved after you.
  At a terminal, undo never lets anyone choose again knowing a card they could not have
  known, so it is refused:
  - once the moves to take back drew a card from the deck or refilled a table slot (playing
    again would draw the very same card): that is almost every move, so undo mostly takes
    back a pass or a move made when the deck is empty;
  - once a bot played or recovered with cards from its hand since (you saw them);
  - once the game is over (every hand has been shown): type 'again' for a new game.
  This holds with several people at one terminal and against bots alike. Before a move that
  would get you rescued, the game asks first. Scripts (--script, a pipe, --json) see every
  card anyway and undo freely.
"
        .into(),
        "save" => "\
save FILE
  Save the game to FILE; resume it with: diving --load FILE. Every save is a replay too
  (also after the game is over): watch it with diving replay FILE [--as SEAT | --all].
  The file shows every hand, the seed and the deck: keep it from the players. With several
  people at one terminal, each of them is told of the save at their next turn, and the file
  opens only as a hot-seat game (in a pipe or with --json it shows no hand).
"
        .into(),
        "reload" => "\
reload
  Read the ruleset (and its mods) again and replay this game under it; tells the first move
  whose outcome changed. The game goes on under the reloaded ruleset.
"
        .into(),
        "hint" | "review" => hint::help(word),
        "help" => "help [COMMAND]\n  List the commands, or explain one.\n".into(),
        "quit" => "\
quit
  Leave the game (asks first when it is not saved). At a terminal the game is kept on disk as
  it goes: the next 'diving' offers it back, and 'diving --resume' lists the kept games.
"
        .into(),
        "again" => "\
again [PLAYER,PLAYER…]   (also: new)
  Deal a new game, on a new seed, under the same ruleset: for the same players, or for the
  players named as --players names them (alice,bob,bot:greedy). Asks first when the game in
  play is not over and not saved.
"
        .into(),
        // Every command word has its entry above; the summary line is the fallback.
        _ => match COMMANDS.iter().find(|(name, _)| *name == word) {
            Some((name, summary)) => format!("{name}\n  {summary}\n"),
            None => format!("{word}\n"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `help WORD` explains every command in a paragraph of its own (`help again` used to
    /// print only the word).
    #[test]
    fn every_command_has_its_own_help() {
        let rules = crate::core::Rules::default();
        for (name, summary) in COMMANDS {
            let help = command_help(name, &rules);
            assert!(help.starts_with(name), "{name}: {help}");
            assert_ne!(help, format!("{name}\n  {summary}\n"), "{name} has only its summary line");
            assert!(help.lines().count() >= 2, "{name}: {help}");
        }
    }
}
