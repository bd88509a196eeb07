//! State and events → text: the board, one narration line per thing that happened, card and
//! bar drawing, and the shell's wording of core errors (names instead of seat numbers).
//!
//! Nothing here decides what a player may see: callers pass which seats' hands and draws are
//! visible. Colour and suit symbols are switched by a [`Style`]; with [`Style::PLAIN`] the
//! output is plain ASCII with D1 cards (`10H`).

use crate::core::{Action, ActionError, Card, Event, Game, Outcome, Rules, Seat, Seen, Source, SuitPattern, Viewer};

/// How to draw text: colours (ANSI) and Unicode (suit symbols, bars) on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
    pub unicode: bool,
}

const RED: &str = "31";
const GREEN: &str = "32";
const YELLOW: &str = "33";
const BLUE: &str = "34";
const BOLD: &str = "1";
const DIM: &str = "2";

impl Style {
    /// No colour, no Unicode: what scripts and pipes get.
    pub const PLAIN: Style = Style { color: false, unicode: false };

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint(BOLD, text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint(DIM, text)
    }

    pub fn error_label(&self) -> String {
        self.paint("1;31", "error:")
    }

    pub fn name(&self, text: &str) -> String {
        self.paint("1;36", text)
    }

    /// A card: `10♥` in red with Unicode and colour on, `10H` otherwise.
    pub fn card(&self, card: Card) -> String {
        let text = if self.unicode { card.symbolic() } else { card.to_string() };
        if card.suit.is_red() { self.paint(RED, &text) } else { self.paint(BOLD, &text) }
    }

    pub fn cards(&self, cards: &[Card]) -> String {
        cards.iter().map(|c| self.card(*c)).collect::<Vec<_>>().join(" ")
    }

    fn arrow(&self) -> &'static str {
        if self.unicode { "→" } else { "->" }
    }

    fn dash(&self) -> &'static str {
        if self.unicode { "—" } else { "-" }
    }

    /// A bar of `width` cells, `filled` of them full.
    fn bar(&self, filled: usize, width: usize, code: &str) -> String {
        let filled = filled.min(width);
        let (full, empty) = if self.unicode { ("█", "░") } else { ("#", ".") };
        format!("{}{}", self.paint(code, &full.repeat(filled)), self.dim(&empty.repeat(width - filled)))
    }
}

/// Turns events into narration lines for one audience.
pub struct Narrator<'a> {
    pub names: &'a [String],
    pub rules: &'a Rules,
    pub style: Style,
    /// Who is reading: the core's [`Viewer::sees`] says which drawn cards may be named (the
    /// others "draw a card").
    pub viewer: Viewer,
    /// Whether to print a line when a turn starts (scripts: yes; the terminal shows a board).
    pub turn_lines: bool,
}

impl Narrator<'_> {
    fn name(&self, seat: Seat) -> String {
        self.style.name(self.names.get(seat).map_or("?", String::as_str))
    }

    /// `alice plays`, but `you play`: the default human player is called "you".
    fn act(&self, seat: Seat, verb: &str) -> String {
        format!("{} {}", self.name(seat), self.verb(seat, verb))
    }

    /// `verb` (third person) as it agrees with this player's name.
    fn verb(&self, seat: Seat, verb: &str) -> String {
        if self.names.get(seat).is_some_and(|n| is_you(n)) { second_person(verb) } else { verb.to_string() }
    }

    /// `alice's` or `your`.
    fn possessive(&self, seat: Seat) -> String {
        match self.names.get(seat) {
            Some(n) if is_you(n) => self.style.name("your"),
            _ => format!("{}'s", self.name(seat)),
        }
    }

    fn depth(&self, d: u32) -> String {
        self.rules.show_depth(d)
    }

    /// One line per thing that happened; a play and what it caused share a line.
    pub fn lines(&self, events: &[Event]) -> Vec<String> {
        let s = &self.style;
        let arrow = s.arrow();
        let dash = s.dash();
        let mut out = Vec::new();
        let mut i = 0;
        let mut knotted = None;
        while i < events.len() {
            let ev = &events[i];
            i += 1;
            match ev {
                Event::TurnStarted { player, turn } => {
                    if self.turn_lines {
                        out.push(s.dim(&format!("{dash}{dash} turn {turn}: {} {dash}{dash}", self.names[*player])));
                    }
                }
                Event::Played { player, card, from } => {
                    let mut line = format!("{} {}", self.act(*player, "plays"), s.card(*card));
                    if let Source::Table(slot) = from {
                        line += &format!(" from table slot {}", slot + 1);
                    }
                    i += self.follow(*player, &events[i..], &mut line);
                    out.push(line);
                }
                Event::Pushed { player, target, by } => {
                    let mut line =
                        format!("{} Quick pushes {} down {by}", self.possessive(*player), self.name(*target));
                    i += self.follow(*target, &events[i..], &mut line);
                    out.push(line);
                }
                Event::Knotted { player } => knotted = Some(*player),
                Event::Recovered { player, cards, gain, from, to } => {
                    let mut line = format!("{} with {}", self.act(*player, "recovers"), s.cards(cards));
                    if knotted == Some(*player) {
                        line += &format!(" {dash} knotted! no oxygen, {from} {arrow} {to}");
                        knotted = None;
                    } else {
                        let pattern = pattern_words(&SuitPattern::of(cards));
                        let gain = match *gain {
                            crate::core::Gain::Max => "back to max".to_string(),
                            g => format!("{g}"),
                        };
                        line += &format!(" ({pattern}: {gain}), oxygen {from} {arrow} {to}");
                    }
                    out.push(line);
                }
                Event::Drew { player, card } => {
                    let mut cards = vec![*card];
                    while let Some(Event::Drew { player: p, card }) = events.get(i) {
                        if p != player {
                            break;
                        }
                        cards.push(*card);
                        i += 1;
                    }
                    out.push(if matches!(self.viewer.sees(ev), Seen::Whole(_)) {
                        format!("{} {}", self.act(*player, "draws"), s.cards(&cards))
                    } else if cards.len() == 1 {
                        format!("{} a card", self.act(*player, "draws"))
                    } else {
                        format!("{} {} cards", self.act(*player, "draws"), cards.len())
                    });
                }
                Event::Refilled { slot, card } => {
                    out.push(format!("table slot {} is refilled with {}", slot + 1, s.card(*card)))
                }
                Event::Reshuffled { cards } => {
                    out.push(format!("the deck ran out: {cards} discards are shuffled into a new deck"))
                }
                Event::Passed { player } => {
                    out.push(format!("{} and {}", self.act(*player, "cannot move"), self.verb(*player, "passes")))
                }
                Event::Said { text } => out.push(text.clone()),
                Event::Won { player } => out.push(self.win_line(*player)),
                Event::Draw { turns } => out.push(format!("turn {turns} was the last: the game is a draw")),
                Event::Moved { player, from, to } => {
                    out.push(format!("{}: depth {} {arrow} {}", self.name(*player), self.depth(*from), self.depth(*to)))
                }
                Event::Breathed { player, from, to } => {
                    out.push(format!("{}: oxygen {from} {arrow} {to}", self.name(*player)))
                }
                Event::Rescued { player, depth, oxygen } => out.push(format!(
                    "{} out of oxygen and rescued: depth {}, oxygen {oxygen}",
                    self.act(*player, "is"),
                    self.depth(*depth)
                )),
                Event::Placed { player, target, card } => out.push(format!(
                    "{} {} in front of {}",
                    self.act(*player, "puts"),
                    s.card(*card),
                    self.name(*target)
                )),
                Event::Doubled { player, card, on, value } => out.push(format!(
                    "{} {} on {} is doubled to {value}",
                    self.possessive(*player),
                    s.card(*card),
                    s.card(*on)
                )),
                Event::Jolted { player } => out.push(format!("{} jolted", self.act(*player, "is"))),
                Event::Quickened { player, extra } => out.push(format!("{} quick: +{extra}", self.act(*player, "is"))),
                Event::Discarded { .. } => {}
            }
        }
        out
    }

    fn win_line(&self, player: Seat) -> String {
        self.style.bold(&format!(
            "{} the bottom and {}!{}",
            self.act(player, "reaches"),
            self.verb(player, "wins"),
            self.trophy()
        ))
    }

    fn trophy(&self) -> &'static str {
        if self.style.unicode { " 🏆" } else { "" }
    }

    /// Appends to `line` the consequences for `player` that follow a play or a push (match,
    /// Jolt/Quick, movement, breath, rescue, placement, win); returns how many events it used.
    fn follow(&self, player: Seat, events: &[Event], line: &mut String) -> usize {
        let s = &self.style;
        let arrow = s.arrow();
        let dash = s.dash();
        let mut used = 0;
        for ev in events {
            match ev {
                Event::Doubled { player: p, on, value, .. } if *p == player => {
                    *line += &format!(" on {} {dash} doubled to {value}", s.card(*on));
                }
                Event::Jolted { player: p } if *p == player => *line += &format!(" {dash} jolted, goes up"),
                Event::Quickened { player: p, extra } if *p == player => *line += &format!(" {dash} quick, +{extra}"),
                Event::Moved { player: p, from, to } if *p == player => {
                    *line += &format!(": depth {} {arrow} {}", self.depth(*from), self.depth(*to));
                }
                Event::Breathed { player: p, from, to } if *p == player => {
                    *line += &format!(", oxygen {from} {arrow} {to}");
                }
                Event::Rescued { player: p, oxygen, .. } if *p == player => {
                    *line += &format!(" {dash} out of oxygen! rescued to the surface with {oxygen} oxygen");
                }
                Event::Placed { player: p, target, .. } if *p == player => {
                    if *target == player {
                        *line += &format!(" and {} it in front", self.verb(player, "keeps"));
                    } else {
                        *line += &format!(" in front of {}", self.name(*target));
                    }
                }
                Event::Won { player: p } if *p == player => {
                    *line += &format!(
                        " {dash} {}",
                        s.bold(&format!(
                            "{} the bottom and {}!{}",
                            self.verb(player, "reaches"),
                            self.verb(player, "wins"),
                            self.trophy()
                        ))
                    );
                }
                Event::Discarded { .. } => {}
                _ => break,
            }
            used += 1;
        }
        used
    }
}

/// `none` → "all suits different", `2` → "a pair of a suit" …
fn pattern_words(p: &SuitPattern) -> String {
    match p.to_string().as_str() {
        "none" => "all suits different".into(),
        "2" => "a pair of a suit".into(),
        "2+2" => "two pairs".into(),
        "3" => "three of a suit".into(),
        "4" => "four of a suit".into(),
        other => format!("suits {other}"),
    }
}

/// The board: every diver, the table, the discard top, the deck, and the visible hands.
pub fn board(game: &Game, style: Style, bots: &[Option<String>], viewer: Viewer) -> String {
    let s = &style;
    let rules = game.rules();
    let mut out = String::new();
    let dash = s.dash();
    let header = match game.outcome() {
        Outcome::Running => format!("turn {} {dash} {} to play", game.turn(), game.name(game.current())),
        Outcome::Won(w) => format!("turn {} {dash} {} won", game.turn(), game.name(w)),
        Outcome::Draw => format!("turn {} {dash} the game is a draw", game.turn()),
    };
    out += &s.bold(&header);
    out.push('\n');
    let name_width = game.names().iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let depth_width = rules.show_depth(rules.max_depth).chars().count();
    let oxygen_width = rules.max_oxygen.to_string().len();
    let oxygen_cells = if rules.max_oxygen <= 20 { rules.max_oxygen as usize } else { 10 };
    for (seat, p) in game.players().iter().enumerate() {
        let mark = if seat == game.current() && !game.is_over() { if s.unicode { "▶" } else { ">" } } else { " " };
        let name = pad_right(game.name(seat), name_width);
        let name = if seat == game.current() { s.name(&name) } else { name };
        let gauge = s.bar(cells(p.depth, rules.max_depth, 20), 20, BLUE);
        let ratio = p.oxygen as f64 / rules.max_oxygen as f64;
        let colour = if ratio > 0.5 {
            GREEN
        } else if ratio > 0.25 {
            YELLOW
        } else {
            RED
        };
        let oxygen = s.bar(cells(p.oxygen, rules.max_oxygen, oxygen_cells), oxygen_cells, colour);
        let mut line = format!(
            "{mark} {seat_no} {name}  depth {depth:>depth_width$} {gauge}  oxygen {ox:>oxygen_width$} {oxygen}",
            seat_no = seat + 1,
            depth = rules.show_depth(p.depth),
            ox = p.oxygen,
        );
        if !p.front.is_empty() {
            line += &format!("  front: {}", s.cards(&p.front));
        }
        if let Some(Some(bot)) = bots.get(seat) {
            line += &s.dim(&format!("  (bot: {bot})"));
        }
        out += line.trim_end();
        out.push('\n');
    }
    let slots: Vec<String> = game
        .table()
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}:{}", i + 1, c.map_or_else(|| dash.to_string(), |c| s.card(c))))
        .collect();
    let top = game.discard_top().map_or_else(|| dash.to_string(), |c| s.card(c));
    let discarded = game.discard_pile().len();
    out += &format!(
        "  table {}   discard {top} ({discarded} card{})   deck {}\n",
        slots.join("  "),
        if discarded == 1 { "" } else { "s" },
        game.deck_size()
    );
    for (seat, p) in game.players().iter().enumerate() {
        if viewer.sees_hand(seat) {
            out += &format!("  {} hand: {}\n", possessive(game.name(seat)), s.cards(&p.hand));
        }
    }
    out
}

/// `text` padded with spaces to `width` characters. Not `format!("{:<width$}")`: a width
/// from outside (a name's length) may be more than `format!` takes, and that panics.
fn pad_right(text: &str, width: usize) -> String {
    let mut out = text.to_string();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(text.chars().count())));
    out
}

fn cells(value: u32, max: u32, width: usize) -> usize {
    if max == 0 { 0 } else { ((value as u64 * width as u64 + max as u64 / 2) / max as u64) as usize }
}

fn is_you(name: &str) -> bool {
    name.eq_ignore_ascii_case("you")
}

/// `alice's` or `your`, unstyled.
pub(crate) fn possessive(name: &str) -> String {
    if is_you(name) { "your".to_string() } else { format!("{name}'s") }
}

/// The second-person form of a third-person verb phrase: `plays` → `play`, `is` → `are`.
fn second_person(verb: &str) -> String {
    let (first, rest) = verb.split_once(' ').map_or((verb, ""), |(f, r)| (f, r));
    let first = match first {
        "is" => "are".to_string(),
        "cannot" => "cannot".to_string(),
        w if w.ends_with("ches") || w.ends_with("sses") => w[..w.len() - 2].to_string(),
        w => w.strip_suffix('s').unwrap_or(w).to_string(),
    };
    if rest.is_empty() { first } else { format!("{first} {rest}") }
}

/// An action as the command that plays it (`play 7H t2 bob over`, `recover 2H 3H`, `pass`).
pub fn command_for(game: &Game, action: &Action) -> String {
    match action {
        Action::Play { card, from, target, face_on_top } => {
            let mut text = format!("play {card}");
            if let Source::Table(slot) = from {
                text += &format!(" t{}", slot + 1);
            }
            if let Some(t) = target {
                text += " ";
                text += game.names().get(*t).map_or("?", String::as_str);
            }
            if *face_on_top {
                text += " over";
            }
            text
        }
        Action::Recover { cards, face_on_top } => {
            let mut text = "recover".to_string();
            for c in cards {
                text += &format!(" {c}");
            }
            if *face_on_top {
                text += " over";
            }
            text
        }
        Action::Pass => "pass".into(),
    }
}

/// A core error in the shell's words: players by name, not seat number.
pub fn action_error(game: &Game, err: &ActionError) -> String {
    let name = |s: Seat| game.names().get(s).cloned().unwrap_or_else(|| format!("player {}", s + 1));
    match err {
        ActionError::TargetNeeded { card, options } => {
            let names: Vec<String> = options.iter().map(|&s| name(s)).collect();
            format!("{card} needs a player: {} (e.g. play {card} {})", or_list(&names), names[0])
        }
        ActionError::BadTarget { card, target, reason } => {
            format!("{} cannot be targeted with {card}: {reason}", name(*target))
        }
        ActionError::NoTargetTaken { card } => format!("{card} takes no player here"),
        ActionError::NotInHand { card } if game.player(game.current()).hand.contains(card) => {
            let held = game.player(game.current()).hand.iter().filter(|c| *c == card).count();
            format!("{card} is named more often than you hold it ({held} in your hand)")
        }
        ActionError::NoOrderChoice => {
            "'over' is only possible when a J or K in front of you is used up by this move".into()
        }
        other => other.to_string(),
    }
}

/// `a`, `a or b`, `a, b or c`.
pub fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The rules in force, for `diving rules`.
pub fn rules_text(rules: &Rules) -> String {
    let mut out = String::new();
    let mut line = |l: String| {
        out += &l;
        out.push('\n');
    };
    line(format!("players        {}–{}", rules.min_players, rules.max_players));
    line(format!(
        "decks          {}",
        rules.decks.map_or_else(|| "one 52-card deck per 4 players".to_string(), |d| d.to_string())
    ));
    line(format!("hand           {} cards", rules.hand_size));
    line(format!("table          {} slots", rules.table_size));
    let shown = rules.show_depth(rules.max_depth);
    if shown == rules.max_depth.to_string() {
        line(format!("bottom         depth {}", rules.max_depth));
    } else {
        line(format!("bottom         depth {} (shown as {shown})", rules.max_depth));
    }
    line(format!("oxygen         {} (everyone starts full)", rules.max_oxygen));
    if !rules.depth_unit.is_empty() || rules.depth_scale != 1 {
        line(format!(
            "depth display  depth × {} {} (depth 45 shows as {})",
            rules.depth_scale,
            rules.depth_unit,
            rules.show_depth(45)
        ));
    }
    line("oxygen spent after a move, by the new depth:".into());
    let mut start = 0;
    for band in &rules.oxygen_bands {
        line(format!("  {:>5}–{:<5} {}", start, band.to, band.cost));
        start = band.to + 1;
    }
    line(format!(
        "quick          the next number card goes {} further; another diver is pushed down {}",
        rules.quick_extra, rules.quick_push
    ));
    line("recovery, by the suits of the discarded cards:".into());
    let labels: Vec<String> = rules.recovery.keys().map(|p| format!("{} ({p})", pattern_words(p))).collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for (label, gain) in labels.iter().zip(rules.recovery.values()) {
        let gain = match gain {
            crate::core::Gain::Max => "back to max".to_string(),
            g => format!("{g}"),
        };
        line(format!("  {label:<width$}  {gain}"));
    }
    line(format!(
        "turn cap       {}",
        if rules.max_turns == 0 { "none".to_string() } else { format!("a draw after turn {}", rules.max_turns) }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Gain;

    fn game() -> Game {
        Game::standard(&["alice", "bob"], 7).unwrap()
    }

    #[test]
    fn plain_style_writes_d1_cards() {
        let c: Card = "10h".parse().unwrap();
        assert_eq!(Style::PLAIN.card(c), "10H");
        assert_eq!(Style { color: false, unicode: true }.card(c), "10♥");
        assert!(Style { color: true, unicode: true }.card(c).contains("\x1b[31m"));
    }

    #[test]
    fn a_play_and_its_consequences_share_one_line() {
        let g = game();
        let card: Card = "7H".parse().unwrap();
        let on: Card = "7S".parse().unwrap();
        let events = vec![
            Event::Played { player: 0, card, from: Source::Hand },
            Event::Doubled { player: 0, card, on, value: 14 },
            Event::Discarded { card },
            Event::Moved { player: 0, from: 0, to: 14 },
            Event::Breathed { player: 0, from: 10, to: 9 },
            Event::Drew { player: 0, card: on },
        ];
        let n = Narrator {
            names: g.names(),
            rules: g.rules(),
            style: Style::PLAIN,
            viewer: Viewer::Spectator,
            turn_lines: true,
        };
        assert_eq!(
            n.lines(&events),
            ["alice plays 7H on 7S - doubled to 14: depth 0 -> 14, oxygen 10 -> 9", "alice draws a card"]
        );
    }

    #[test]
    fn the_player_called_you_is_spoken_to() {
        let names = ["you".to_string(), "greedy".to_string()];
        let rules = Rules::default();
        let card: Card = "7H".parse().unwrap();
        let events = vec![
            Event::Played { player: 0, card, from: Source::Hand },
            Event::Moved { player: 0, from: 0, to: 7 },
            Event::Breathed { player: 0, from: 10, to: 9 },
            Event::Drew { player: 0, card },
            Event::Recovered { player: 0, cards: [card].into_iter().collect(), gain: Gain::Amount(1), from: 9, to: 10 },
            Event::Passed { player: 0 },
            Event::Won { player: 0 },
        ];
        let n =
            Narrator { names: &names, rules: &rules, style: Style::PLAIN, viewer: Viewer::Everyone, turn_lines: false };
        assert_eq!(
            n.lines(&events),
            [
                "you play 7H: depth 0 -> 7, oxygen 10 -> 9",
                "you draw 7H",
                "you recover with 7H (all suits different: +1), oxygen 9 -> 10",
                "you cannot move and pass",
                "you reach the bottom and win!",
            ]
        );
        assert_eq!(second_person("reaches"), "reach");
        assert_eq!(second_person("passes"), "pass");
        assert_eq!(second_person("is"), "are");
    }

    #[test]
    fn rare_events_get_their_own_lines() {
        let g = game();
        let events = vec![
            Event::Reshuffled { cards: 31 },
            Event::Passed { player: 1 },
            Event::Said { text: "a shark!".into() },
            Event::Drew { player: 1, card: "2H".parse().unwrap() },
            Event::Drew { player: 1, card: "3H".parse().unwrap() },
            Event::Won { player: 1 },
            Event::Draw { turns: 200 },
        ];
        let n = Narrator {
            names: g.names(),
            rules: g.rules(),
            style: Style::PLAIN,
            viewer: Viewer::Spectator,
            turn_lines: false,
        };
        assert_eq!(
            n.lines(&events),
            [
                "the deck ran out: 31 discards are shuffled into a new deck",
                "bob cannot move and passes",
                "a shark!",
                "bob draws 2 cards",
                "bob reaches the bottom and wins!",
                "turn 200 was the last: the game is a draw",
            ]
        );
    }

    #[test]
    fn depth_is_shown_in_the_rulesets_units() {
        let g = game();
        let rules = Rules { depth_unit: "m".into(), depth_scale: 100, ..Rules::default() };
        let n = Narrator {
            names: g.names(),
            rules: &rules,
            style: Style::PLAIN,
            viewer: Viewer::Everyone,
            turn_lines: false,
        };
        let events = [Event::Moved { player: 0, from: 3, to: 45 }];
        assert_eq!(n.lines(&events), ["alice: depth 300 m -> 4500 m"]);
    }

    #[test]
    fn errors_name_players() {
        let g = game();
        let err = ActionError::TargetNeeded { card: "JS".parse().unwrap(), options: vec![1] };
        assert_eq!(action_error(&g, &err), "JS needs a player: bob (e.g. play JS bob)");
    }

    #[test]
    fn the_board_hides_hands_it_is_told_to() {
        let g = game();
        let text = board(&g, Style::PLAIN, &[None, None], Viewer::Seat(0));
        assert!(text.contains("alice's hand"));
        assert!(!text.contains("bob's hand"));
    }
}
