//! State and events → text: the board, one narration line per thing that happened, card and
//! bar drawing, and the shell's wording of core errors (names instead of seat numbers).
//!
//! Nothing here decides what a player may see: callers pass which seats' hands and draws are
//! visible. Colour and suit symbols are switched by a [`Style`]; with [`Style::PLAIN`] the
//! output is plain ASCII with D1 cards (`10H`).
//!
//! Text is laid out for a terminal here too: [`wrap`] for narration and messages (a reading
//! like `depth 20 -> 28` kept whole), [`reflow`] for help texts (their paragraphs filled
//! again, not cut where the source line ended), [`ascii`] for a terminal without Unicode.

use std::sync::Arc;

use crate::core::{
    Action, ActionError, Card, Event, Game, ModId, Observation, Outcome, Rank, Registry, Rules, Seat, Seats, Seen,
    Source, SuitPattern, Viewer, Words,
};

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
    /// The mods' names, by id (a mod's words and reveals are told as that mod's).
    pub mods: &'a [Arc<str>],
    pub rules: &'a Rules,
    pub style: Style,
    /// Who is reading: the core's [`Viewer::sees`] says which drawn cards may be named (the
    /// others "draw a card").
    pub viewer: Viewer,
    /// Whether to print a line when a turn starts (scripts: yes; the terminal shows a board).
    pub turn_lines: bool,
    /// The seat whose person was away while these events happened, its move made by the
    /// stand-in bot: its play, recovery or pass is told as the bot's (`bob's stand-in bot
    /// plays 7H`), not as the person's own.
    pub stand_in: Option<Seat>,
}

impl Narrator<'_> {
    fn name(&self, seat: Seat) -> String {
        self.style.name(self.names.get(seat).map_or("?", String::as_str))
    }

    /// `alice plays`, but `you play`: the default human player is called "you".
    fn act(&self, seat: Seat, verb: &str) -> String {
        format!("{} {}", self.name(seat), self.verb(seat, verb))
    }

    /// [`Narrator::act`] for the move itself: the stand-in bot's when it moved for `seat`.
    fn mover(&self, seat: Seat, verb: &str) -> String {
        if self.stand_in == Some(seat) {
            format!("{} stand-in bot {verb}", self.possessive(seat))
        } else {
            self.act(seat, verb)
        }
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

    fn mod_name(&self, by: ModId) -> &str {
        self.mods.get(usize::from(by.0)).map_or("a mod", |n| n)
    }

    /// A mod's words as this reader may read them: the text, or a neutral line when they may
    /// tell of cards the reader cannot see ([`Viewer::read`]).
    fn words(&self, by: ModId, words: &Words) -> String {
        match self.viewer.read(words) {
            Some(text) => text.to_string(),
            None => format!("({} says something that may tell of cards you cannot see)", self.mod_name(by)),
        }
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
                    let mut line = format!("{} {}", self.mover(*player, "plays"), s.card(*card));
                    if let Source::Table(slot) = from {
                        line += &format!(" from table slot {}", slot + 1);
                    }
                    i += self.follow(*player, &events[i..], &mut line);
                    out.push(line);
                }
                Event::Pushed { player, target, by } => {
                    let mut line = format!(
                        "{} Quick pushes {} down {}",
                        self.possessive(*player),
                        self.name(*target),
                        self.depth(*by)
                    );
                    i += self.follow(*target, &events[i..], &mut line);
                    out.push(line);
                }
                Event::Knotted { player } => knotted = Some(*player),
                Event::Recovered { player, cards, gain, from, to } => {
                    let mut line = format!("{} with {}", self.mover(*player, "recovers"), s.cards(cards));
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
                    let passes =
                        if self.stand_in == Some(*player) { "passes".into() } else { self.verb(*player, "passes") };
                    out.push(format!("{} and {passes}", self.mover(*player, "cannot move")))
                }
                // A mod's action, as it is typed (`alice chooses buddy bob`); what it did
                // follows on lines of its own.
                Event::Acted { player, name, target, card } => out.push(match (target, card) {
                    (Some(t), _) => {
                        format!("{} {} {}", self.act(*player, "chooses"), s.bold(name.as_str()), self.name(*t))
                    }
                    (None, Some(c)) => {
                        format!("{} {} {}", self.act(*player, "chooses"), s.bold(name.as_str()), s.card(*c))
                    }
                    (None, None) => format!("{} {}", self.act(*player, "chooses"), s.bold(name.as_str())),
                }),
                // A mod's line; the move or breath it caused follows it on the line
                // (`a current carries ann down: depth 10 → 13, oxygen 9 → 8`).
                Event::Said { by, words } => {
                    let mut line = self.words(*by, words);
                    while events.get(i).is_some_and(|next| self.viewer.repeats_withheld(ev, next)) {
                        i += 1;
                    }
                    if let Some(Event::Moved { player, .. } | Event::Breathed { player, .. }) = events.get(i) {
                        i += self.follow(*player, &events[i..], &mut line);
                    }
                    out.push(line);
                }
                Event::Revealed { by, player, card } => out.push(format!(
                    "{} shows the table {} {}",
                    self.mod_name(*by),
                    self.possessive(*player),
                    s.card(*card)
                )),
                Event::TookFromPile { player, card } => out.push(format!(
                    "{} {} from the discard pile into {} hand",
                    self.act(*player, "takes"),
                    s.card(*card),
                    if self.names.get(*player).is_some_and(|n| is_you(n)) { "your" } else { "their" }
                )),
                Event::Returned { player: None, card } => {
                    out.push(format!("{} goes back into the deck", s.card(*card)))
                }
                Event::Returned { player: Some(player), card } => out.push(match self.viewer.sees(ev) {
                    Seen::Whole(_) => format!("{} {} back into the deck", self.act(*player, "puts"), s.card(*card)),
                    _ => format!("{} a card back into the deck", self.act(*player, "puts")),
                }),
                Event::DeckShuffled { cards } => out.push(format!("the deck is shuffled ({cards} cards)")),
                Event::Reversed { backwards } => out.push(format!(
                    "play now goes {} round the table",
                    if *backwards { "the other way" } else { "the usual way again" }
                )),
                Event::Skipped { player } => out.push(format!("{} skipped", self.act(*player, "is"))),
                Event::AnotherTurn { player } => out.push(format!("{} another turn", self.act(*player, "takes"))),
                Event::Won { player, winners } => out.push(self.win_line(*player, *winners)),
                Event::Draw { turns } if self.rules.max_turns > 0 && *turns >= self.rules.max_turns => {
                    out.push(format!("turn {turns} was the last: the game is a draw"))
                }
                Event::Draw { turns } => out.push(format!("the game ends in a draw after {turns} turns")),
                Event::Teams { teams } => out.push(format!("the teams are now {}", self.teams_words(teams))),
                // A move or breath that no play explains (a mod's): its diver's name, then
                // the same words as after a play.
                Event::Moved { player, .. } | Event::Breathed { player, .. } => {
                    let mut line = self.name(*player);
                    i += self.follow(*player, &events[i - 1..], &mut line).max(1) - 1;
                    out.push(line);
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
                    "{} {} on {} is doubled to {}",
                    self.possessive(*player),
                    s.card(*card),
                    s.card(*on),
                    self.depth(*value)
                )),
                Event::Jolted { player } => out.push(format!("{} jolted", self.act(*player, "is"))),
                Event::Quickened { player, extra } => {
                    out.push(format!("{} quick: +{}", self.act(*player, "is"), self.depth(*extra)))
                }
                Event::Discarded { .. } => {}
            }
        }
        out
    }

    /// A win no move explains (a mod's): `ann wins!`, `ann wins with cy!`.
    fn win_line(&self, player: Seat, winners: Seats) -> String {
        self.style.bold(&format!("{}{}!{}", self.act(player, "wins"), self.with_team(player, winners), self.trophy()))
    }

    /// ` with cy and di`: the others who win with `player`, if any.
    fn with_team(&self, player: Seat, winners: Seats) -> String {
        let others: Vec<String> = winners.iter().filter(|&s| s != player).map(|s| self.name(s)).collect();
        if others.is_empty() { String::new() } else { format!(" with {}", and_list(&others)) }
    }

    /// `ann and cy against bob and di`: the teams, each seat's team from 0 in seat order.
    fn teams_words(&self, teams: &[u8]) -> String {
        let count = teams.iter().max().map_or(0, |&t| usize::from(t) + 1);
        let sides: Vec<String> = (0..count)
            .map(|team| {
                let names: Vec<String> =
                    (0..teams.len()).filter(|&s| usize::from(teams[s]) == team).map(|s| self.name(s)).collect();
                and_list(&names)
            })
            .collect();
        sides.join(" against ")
    }

    fn trophy(&self) -> &'static str {
        if self.style.unicode { " 🏆" } else { "" }
    }

    /// Appends to `line` the consequences for `player` that follow a play or a push (match,
    /// Jolt/Quick, movement, breath, rescue, placement, win); returns how many events it used.
    ///
    /// A mod's line (`ctx:say`) joins the line too: when another diver's move or breath
    /// follows it, it introduces them (`ann plays 7H — a shark chases bob: depth 20 → 13,
    /// oxygen 10 → 9`); otherwise it explains the breath it came with or ends the line
    /// (`oxygen 6 → 1 (cold water below the thermocline: 1 more oxygen)`).
    fn follow(&self, player: Seat, events: &[Event], line: &mut String) -> usize {
        let s = &self.style;
        let arrow = s.arrow();
        let dash = s.dash();
        let mut used = 0;
        let mut discarded = Vec::new();
        let mut who = player;
        let mut notes: Vec<String> = Vec::new();
        // Whether nothing has been said yet of `who`'s depth and oxygen (`: depth` or `, depth`).
        let mut fresh = true;
        // Where `who`'s last move took them.
        let mut at = None;
        for ev in events {
            if let Event::Moved { player: p, .. } | Event::Breathed { player: p, .. } = ev
                && *p != who
                && !notes.is_empty()
            {
                *line += &format!(" {dash} {}", notes.join("; "));
                notes.clear();
                who = *p;
                fresh = true;
                at = None;
            }
            let sep = if fresh { ":" } else { "," };
            match ev {
                Event::Doubled { player: p, on, value, .. } if *p == who => {
                    *line += &format!(" on {} {dash} doubled to {}", s.card(*on), self.depth(*value));
                }
                Event::Jolted { player: p } if *p == who => *line += &format!(" {dash} jolted, goes up"),
                Event::Quickened { player: p, extra } if *p == who => {
                    *line += &format!(" {dash} quick, +{}", self.depth(*extra));
                }
                Event::Moved { player: p, from, to } if *p == who => {
                    *line += &format!("{sep} depth {} {arrow} {}", self.depth(*from), self.depth(*to));
                    fresh = false;
                    at = Some(*to);
                }
                Event::Breathed { player: p, from, to } if *p == who => {
                    *line += &format!("{sep} oxygen {from} {arrow} {to}");
                    fresh = false;
                    if !notes.is_empty() {
                        *line += &format!(" ({})", notes.join("; "));
                        notes.clear();
                    }
                }
                Event::Rescued { player: p, oxygen, .. } if *p == who => {
                    *line += &format!(" {dash} out of oxygen! rescued to the surface with {oxygen} oxygen");
                }
                Event::Placed { player: p, target, .. } if *p == who => {
                    if *target == who {
                        *line += &format!(" and {} it in front", self.verb(who, "keeps"));
                    } else {
                        *line += &format!(" in front of {}", self.name(*target));
                    }
                }
                Event::Won { player: p, winners } if *p == who => {
                    // "Reaches the bottom" only when the move did: a mod's win check may
                    // declare a win elsewhere.
                    let reached = if at == Some(self.rules.max_depth) {
                        format!("{} the bottom and ", self.verb(who, "reaches"))
                    } else {
                        String::new()
                    };
                    *line += &format!(
                        " {dash} {}",
                        s.bold(&format!(
                            "{reached}{}{}!{}",
                            self.verb(who, "wins"),
                            self.with_team(who, *winners),
                            self.trophy()
                        ))
                    );
                }
                Event::Said { by, words } => notes.push(self.words(*by, words)),
                Event::Discarded { card } => discarded.push(*card),
                _ => break,
            }
            used += 1;
        }
        if !notes.is_empty() {
            *line += &format!(" {dash} {}", notes.join("; "));
        }
        // A used J or Q lands on the pile too, and the top card decides doubling: say where.
        if let Some(face) = discarded.iter().find(|c| !c.rank.is_number()) {
            if discarded.last() == Some(face) {
                *line += &format!(" ({} now tops the discard pile)", s.card(*face));
            } else {
                *line += &format!(" ({} discarded under it)", s.card(*face));
            }
        }
        used
    }
}

/// `none` → "all suits different", `2` → "a pair of a suit" …
pub(crate) fn pattern_words(p: &SuitPattern) -> String {
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
///
/// `width`: the terminal's columns. With it, each diver's row is laid out to fit (shorter
/// bars, then the row's parts on continuation lines), the cards in front are explained and
/// the discard top says what doubles on it. Without it (scripts): one fixed layout.
pub fn board(game: &Game, style: Style, bots: &[Option<String>], viewer: Viewer, width: Option<usize>) -> String {
    board_after(game, &[], style, bots, viewer, width)
}

/// [`board`] after the move whose events are `last`: a Q that move used up is not shown in
/// front. A Quick that wins the game leaves its Q where it lies (D20: the game ends at once,
/// before the Q goes to the pile), but it is spent: the board says `QS used`, not `front: QS`,
/// which would mean a Quick still to come.
pub fn board_after(
    game: &Game,
    last: &[Event],
    style: Style,
    bots: &[Option<String>],
    viewer: Viewer,
    width: Option<usize>,
) -> String {
    let spent = spent_at_end(game, last);
    let s = &style;
    let rules = game.rules();
    let mut out = String::new();
    let dash = s.dash();
    let header = match game.outcome() {
        Outcome::Running => {
            let mut header = format!("turn {} {dash} {} to play", game.turn(), game.name(game.current()));
            // The order, when an effect changed it (the built-in order's answer: a mod's
            // own `next_turn` is asked only when the turn ends).
            if game.is_reversed() || game.given_turn().is_some() {
                header += &format!(", then {}", game.name(game.next_in_order()));
                if game.is_reversed() {
                    header += " (play goes the other way round)";
                }
            }
            header
        }
        Outcome::Won { .. } => format!("turn {} {dash} {} won", game.turn(), winners_text(game)),
        Outcome::Draw => format!("turn {} {dash} the game is a draw", game.turn()),
    };
    out += &s.bold(&header);
    out.push('\n');
    let name_width = game.names().iter().map(|n| display_width(n)).max().unwrap_or(0);
    let depth_width = rules.show_depth(rules.max_depth).chars().count();
    let oxygen_width = rules.max_oxygen.to_string().len();
    let oxygen_cells = if rules.max_oxygen <= 20 { rules.max_oxygen as usize } else { 10 };
    let gauge_cells = match width {
        None => 20,
        Some(w) if w >= 100 => 20,
        // Kept as long as the oxygen bar is (issue 32: at 60 columns it alone was dropped).
        Some(w) if w >= 60 => 10,
        Some(_) => 0,
    };
    let oxygen_cells = if width.is_some_and(|w| w < 60) { 0 } else { oxygen_cells };
    let mut fronts = Vec::new();
    for (seat, p) in game.players().iter().enumerate() {
        let mark = if seat == game.current() && !game.is_over() { if s.unicode { "▶" } else { ">" } } else { " " };
        let name = pad_right(game.name(seat), name_width);
        let name = if seat == game.current() { s.name(&name) } else { name };
        let gauge = s.bar(cells(p.depth, rules.max_depth, gauge_cells), gauge_cells, BLUE);
        let ratio = p.oxygen as f64 / rules.max_oxygen as f64;
        let colour = if ratio > 0.5 {
            GREEN
        } else if ratio > 0.25 {
            YELLOW
        } else {
            RED
        };
        let oxygen = s.bar(cells(p.oxygen, rules.max_oxygen, oxygen_cells), oxygen_cells, colour);
        let team = match game.teams() {
            Some(teams) => format!(" (team {})", teams.team(seat) + 1),
            None => String::new(),
        };
        let mut parts = vec![
            format!("{mark} {seat_no} {name}{team}", seat_no = seat + 1),
            format!("depth {depth:>depth_width$} {gauge}", depth = rules.show_depth(p.depth)).trim_end().to_string(),
            format!("oxygen {ox:>oxygen_width$} {oxygen}", ox = p.oxygen).trim_end().to_string(),
        ];
        let mut front = p.front.clone();
        let used = spent.iter().filter(|(who, _)| *who == seat).map(|(_, c)| *c).collect::<Vec<_>>();
        for card in &used {
            if let Some(i) = front.iter().position(|c| c == card) {
                front.remove(i);
            }
        }
        if !front.is_empty() {
            parts.push(format!("front: {}", s.cards(&front)));
            fronts.extend(front.iter().map(|c| c.rank));
        }
        if !used.is_empty() {
            parts.push(format!("{} used", s.cards(&used)));
        }
        if let Some(Some(bot)) = bots.get(seat) {
            parts.push(s.dim(&format!("(bot: {bot})")));
        }
        match width {
            None => out += parts.join("  ").trim_end(),
            Some(w) => out += &lay_out(&parts, w, "", "  ", "      "),
        }
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
    let table_parts = [
        format!("table {}", slots.join("  ")),
        format!("discard {top} ({discarded} card{})", if discarded == 1 { "" } else { "s" }),
        format!("deck {}", game.deck_size()),
    ];
    match width {
        None => out += &format!("  {}\n", table_parts.join("   ")),
        Some(w) => {
            out += &lay_out(&table_parts, w, "  ", "   ", "  ");
            out.push('\n');
        }
    }
    if let (Some(w), Some(top)) = (width, game.discard_top()) {
        // D8 in words, from the top card: what would double on it.
        let shown = if s.unicode { top.symbolic() } else { top.to_string() };
        let suit = shown[top.rank.to_string().len()..].to_string();
        let doubles = if top.rank.is_number() {
            format!("a card of rank {} or of suit {suit} played now is doubled", top.rank)
        } else {
            format!("a card of suit {suit} played now is doubled (a face card on top matches by suit only)")
        };
        out += &wrap(&format!("  discard top {}: {doubles}", s.card(top)), w);
        out.push('\n');
    }
    if let Some(w) = width {
        fronts.sort_by_key(|r| r.number());
        fronts.dedup();
        for rank in fronts {
            let Some(meaning) = front_meaning(game, rank) else { continue };
            let said = format!("front: {rank} = {meaning}");
            out += &wrap(&format!("  {}", s.dim(&said)), w);
            out.push('\n');
        }
    }
    for diver in Observation::of(game, viewer).divers() {
        if let Some(hand) = diver.hand {
            out += &format!("  {} hand: {}\n", possessive(diver.name), s.cards(hand));
        }
    }
    out
}

/// The cards in front that the move with events `last` used up but left where they lie
/// because it ended the game: the Q of a Quick that won (D20).
fn spent_at_end(game: &Game, last: &[Event]) -> Vec<(Seat, Card)> {
    if !game.is_over() {
        return Vec::new();
    }
    last.iter()
        .filter_map(|e| match e {
            Event::Quickened { player, .. } => {
                game.player(*player).front.iter().find(|c| c.rank == Rank::QUEEN).map(|c| (*player, *c))
            }
            _ => None,
        })
        .collect()
}

/// What a card of `rank` in front of a diver means, as the board explains it (`None`: a card
/// that is never kept in front). The built-in cards are explained with the ruleset's numbers;
/// a card a mod changed points to `help`.
pub fn front_meaning(game: &Game, rank: Rank) -> Option<String> {
    let rules = game.rules();
    let described = game.registry().description(rank);
    let said = match rank.to_string().as_str() {
        _ if let Some(text) = described => format!("a mod's card: {text}"),
        _ if !game.registry().is_builtin_card(rank) => format!("a mod's card: 'help {rank}' says what it does"),
        "J" => "jolted: that diver's next number card moves them UP".to_string(),
        "Q" => format!(
            "quick: that diver's next number card goes {} further down and pushes another diver down {}",
            rules.show_depth(rules.quick_extra),
            rules.show_depth(rules.quick_push)
        ),
        "K" => "knotted: that diver's next recovery gains no oxygen".to_string(),
        _ => return None,
    };
    Some(said)
}

/// `lead` and `parts` on one line while they fit in `width` columns (joined by `gap`), the
/// rest on continuation lines that start with `indent`.
fn lay_out(parts: &[String], width: usize, lead: &str, gap: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut used = 0;
    for (i, part) in parts.iter().enumerate() {
        let pw = display_width(part);
        if i == 0 {
            out += lead;
            out += part;
            used = display_width(&out);
        } else if used + gap.len() + pw > width {
            out.push('\n');
            out += indent;
            out += part;
            used = indent.len() + pw;
        } else {
            out += gap;
            out += part;
            used += gap.len() + pw;
        }
    }
    out
}

/// `text` padded with spaces to `width` columns (a wide character takes two). Not
/// `format!("{:<width$}")`: a width from outside (a name's length) may be more than
/// `format!` takes, and that panics, and it counts characters, not columns.
fn pad_right(text: &str, width: usize) -> String {
    let mut out = text.to_string();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(display_width(text))));
    out
}

/// The full cells of a bar for `value` of `max`, rounded, but full only at `max` itself (depth
/// 96 of 100 is not the bottom) and empty only at 0.
fn cells(value: u32, max: u32, width: usize) -> usize {
    if max == 0 || width == 0 {
        return 0;
    }
    let rounded = ((value as u64 * width as u64 + max as u64 / 2) / max as u64) as usize;
    match value {
        0 => 0,
        v if v >= max => width,
        _ => rounded.clamp(1, width - 1),
    }
}

fn is_you(name: &str) -> bool {
    name.eq_ignore_ascii_case("you")
}

/// `alice has won`, but `you have won`: `verb` (third person) after `name`, agreeing with it.
pub(crate) fn says(name: &str, verb: &str) -> String {
    if is_you(name) { format!("{name} {}", second_person(verb)) } else { format!("{name} {verb}") }
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
        "has" => "have".to_string(),
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
        Action::Act { name, target: Some(t), .. } => {
            format!("{name} {}", game.names().get(*t).map_or("?", String::as_str))
        }
        Action::Act { name, card: Some(c), .. } => format!("{name} {c}"),
        Action::Act { name, .. } => name.to_string(),
    }
}

/// A core error in the shell's words, as `viewer` may read it (a mod's reason in full only
/// for a reader who may see what the mod knew, [`Viewer::error`]): players by name,
/// not seat number.
pub fn action_error(game: &Game, err: &ActionError, viewer: Viewer) -> String {
    let name = |s: Seat| game.names().get(s).cloned().unwrap_or_else(|| format!("player {}", s + 1));
    match err {
        ActionError::TargetNeeded { card, options } => {
            let names: Vec<String> = options.iter().map(|&s| name(s)).collect();
            format!("{card} needs a player: {} (e.g. play {card} {})", or_list(&names), names[0])
        }
        ActionError::BadTarget { card, target, reason } => {
            format!("{} cannot be targeted with {card}: {}", name(*target), viewer.shown(reason))
        }
        ActionError::NoTargetTaken { card } => format!("{card} takes no player here"),
        // A mod's action, worded as a card's refusal is.
        ActionError::ActTargetNeeded { name: act, options } if !options.is_empty() => {
            let names: Vec<String> = options.iter().map(|&s| name(s)).collect();
            format!("{act} needs a player: {} (e.g. {act} {})", or_list(&names), names[0])
        }
        ActionError::ActTargetNeeded { name: act, .. } => format!("{act} needs a player, and nobody can be chosen now"),
        ActionError::ActBadTarget { name: act, target, reason } => {
            format!("{} cannot be targeted with {act}: {}", name(*target), viewer.shown(reason))
        }
        ActionError::ActNoTargetTaken { name: act } => format!("{act} takes no player here"),
        ActionError::ActNoCardTaken { name: act } => format!("{act} takes no card here"),
        ActionError::ActCardNeeded { name: act } => format!("{act} needs a card from your hand (e.g. {act} 7h)"),
        ActionError::NotInHand { card }
            if Observation::of(game, viewer).hand(game.current()).is_some_and(|hand| hand.contains(card)) =>
        {
            let hand = Observation::of(game, viewer).hand(game.current()).unwrap_or_default();
            let held = hand.iter().filter(|c| *c == card).count();
            format!("{card} is named more often than you hold it ({held} in your hand)")
        }
        ActionError::NoOrderChoice => {
            "'over' is only possible when a J or K in front of you is used up by this move".into()
        }
        other => viewer.error(other),
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

/// `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Who won `game`, by name: `ann`, or with a team or a shared win `ann and cy` (the winner
/// first, then the others in seat order). Empty while nobody has won.
pub fn winners_text(game: &Game) -> String {
    let Some(by) = game.winner() else { return String::new() };
    let mut names = vec![game.name(by).to_string()];
    names.extend(game.winners().iter().filter(|&s| s != by).map(|s| game.name(s).to_string()));
    and_list(&names)
}

/// What a preview (`Session::preview`) says of a listed action, as `viewer` may read it: its
/// outcome ([`preview`]), or that a mod fails on it (never hidden: the listing offers the
/// action, so a failure is the mod's, and the players are told), or nothing when the copy
/// refused it.
pub fn preview_outcome(game: &Game, previewed: &Result<Vec<Event>, ActionError>, viewer: Viewer) -> String {
    match previewed {
        Ok(events) => preview(game, events, viewer),
        Err(ActionError::Script(e)) => format!("a mod fails on it: {}", viewer.failure(e)),
        Err(_) => String::new(),
    }
}

/// What a move would do, read from the events the engine gave for it on a copy of the game
/// (see `Session::preview`): the mover's depth and oxygen after it, whether the card
/// doubles, a rescue, a win, a push. Only events `viewer` may see are read (a preview of a
/// play from the hand must not tell the card it draws).
pub fn preview(game: &Game, events: &[Event], viewer: Viewer) -> String {
    let rules = game.rules();
    let me = game.current();
    let (mut depth, mut oxygen) = (game.player(me).depth, game.player(me).oxygen);
    let mut notes: Vec<String> = Vec::new();
    let mut moved = false;
    let mut rescued = None;
    let mut winner = None;
    let mut pushed: Vec<(Seat, u32)> = Vec::new();
    let mut others_rescued: Vec<Seat> = Vec::new();
    for ev in events {
        let Seen::Whole(ev) = Observation::of(game, viewer).event(ev) else { continue };
        match ev {
            Event::Moved { player, to, .. } if *player == me => {
                depth = *to;
                moved = true;
            }
            Event::Moved { player, to, .. } => {
                pushed.retain(|(p, _)| p != player);
                pushed.push((*player, *to));
            }
            Event::Breathed { player, to, .. } if *player == me => oxygen = *to,
            Event::Recovered { player, to, .. } if *player == me => oxygen = *to,
            Event::Doubled { player, value, .. } if *player == me => {
                notes.push(format!("doubled to {}", rules.show_depth(*value)))
            }
            Event::Jolted { player } if *player == me => notes.push("jolted: goes up".into()),
            // A knotted recovery changes no gauge: without this its preview was empty.
            Event::Knotted { player } if *player == me => notes.push("knotted: no oxygen, uses up the K".into()),
            Event::Quickened { player, extra } if *player == me => {
                notes.push(format!("quick +{}", rules.show_depth(*extra)))
            }
            // The depth reached stays shown: that is where the air ran out.
            Event::Rescued { player, depth: d, oxygen: o } if *player == me => rescued = Some((*d, *o)),
            Event::Rescued { player, .. } => {
                others_rescued.retain(|p| p != player);
                others_rescued.push(*player);
            }
            Event::Placed { player, target, .. } if *player == me => {
                if *target == me {
                    notes.push("kept in front".into());
                } else {
                    notes.push(format!("in front of {}", game.name(*target)));
                }
            }
            Event::Won { player, winners } => winner = Some((*player, *winners)),
            _ => {}
        }
    }
    let mut parts = Vec::new();
    if moved {
        parts.push(format!("depth {}", rules.show_depth(depth)));
    }
    if rescued.is_none() && (oxygen != game.player(me).oxygen || moved) {
        parts.push(format!("oxygen {oxygen}"));
    }
    parts.extend(notes);
    if let Some((d, o)) = rescued {
        parts.push(format!("out of oxygen: RESCUED to the surface (depth {}, oxygen {o})", rules.show_depth(d)));
    }
    for (seat, to) in pushed {
        if others_rescued.contains(&seat) {
            // Pushed deeper than their oxygen lasts (the last move shown is the push).
            parts.push(format!("{} to {} and rescued (out of oxygen)", game.name(seat), rules.show_depth(to)));
        } else {
            parts.push(format!("{} to {}", game.name(seat), rules.show_depth(to)));
        }
    }
    match winner {
        Some((w, _)) if w == me => parts.push("reaches the bottom: WINS".into()),
        Some((w, winners)) if winners.contains(me) => {
            parts.push(format!("{} reaches the bottom: your team WINS", game.name(w)))
        }
        Some((w, _)) => parts.push(format!("{} reaches the bottom and wins", game.name(w))),
        None => {}
    }
    parts.join(", ")
}

/// `text` with its suit symbols written as letters (`A♠` → `AS`) and the other signs a
/// terminal without Unicode cannot show written in ASCII (`→` → `->`, `…` → `...`), for such a
/// terminal (a C locale): what [`Style::card`] does for cards, done for the words around them
/// (an error quoting a card as the core wrote it, a help text).
pub fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '♠' | '♤' => out.push('S'),
            '♥' | '♡' => out.push('H'),
            '♦' | '♢' => out.push('D'),
            '♣' | '♧' => out.push('C'),
            '→' => out += "->",
            '…' => out += "...",
            '—' | '–' => out.push('-'),
            '·' => out.push('/'),
            '×' => out.push('x'),
            c => out.push(c),
        }
    }
    out
}

/// How many columns `text` takes on a terminal: colour codes take none, wide characters
/// (CJK, most emoji) two.
pub fn display_width(text: &str) -> usize {
    let mut width = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // An ANSI sequence: ESC [ … letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        width += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
    }
    width
}

/// `text` wrapped at word boundaries to `width` columns; the lines it continues onto are
/// indented as the first one is, plus two spaces. A word longer than a line is left whole
/// (the terminal breaks it). Lines already in `text` are kept.
pub fn wrap(text: &str, width: usize) -> String {
    let width = width.max(20);
    let mut out = String::new();
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if display_width(line) <= width {
            out += line;
            continue;
        }
        let indent_len = line.len() - line.trim_start().len();
        let indent = &line[..indent_len];
        out += &fill(indent, &units(&line[indent_len..]), display_width(indent) + 2, width);
    }
    out
}

/// The pieces of `text` that a line break may not split: its words, with a reading kept
/// whole (an arrow with the numbers on either side of it, `depth` or `oxygen` with the
/// number after it, a unit with its number: `depth 2000 m -> 4000 m`) and a sign that is no
/// word (`-`, `·`, `🏆`) kept with the word before it, so no line starts with it or holds
/// only it.
fn units(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let (mut glue, mut label) = (false, false);
    for word in text.split(' ') {
        let arrow = matches!(word, "->" | "→");
        let reading = label && word.starts_with(|c: char| c.is_ascii_digit());
        let unit = !word.is_empty()
            && word.chars().count() <= 3
            && word.chars().all(|c| c.is_alphabetic() || ",;:.)".contains(c))
            && words.last().is_some_and(|w| w.ends_with(|c: char| c.is_ascii_digit()));
        let sign = !word.is_empty() && !word.chars().any(char::is_alphanumeric);
        match words.last_mut() {
            Some(last) if arrow || glue || unit || reading || sign => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        glue = arrow;
        label = matches!(word, "depth" | "oxygen");
    }
    words
}

/// `units` filled greedily into lines of at most `width` columns: the first line starts with
/// `lead`, the others with `hang` spaces. A unit longer than a line is left whole.
fn fill(lead: &str, units: &[String], hang: usize, width: usize) -> String {
    let mut out = lead.to_string();
    let mut used = display_width(lead);
    let indent = " ".repeat(hang);
    let mut first = true;
    for unit in units {
        let w = display_width(unit);
        if first {
            out += unit;
            used += w;
            first = false;
        } else if used + 1 + w > width {
            out.push('\n');
            out += &indent;
            out += unit;
            used = hang + w;
        } else {
            out.push(' ');
            out += unit;
            used += 1 + w;
        }
    }
    out
}

/// A help text laid out for `width` columns: its paragraphs filled again, so that no line is
/// broken where the source text was but the terminal is not.
///
/// The help texts are written for a pipe, hard-broken at about 90 columns, and a pipe gets
/// them as they are. Here each paragraph is read back and filled at `width`:
/// - a line at the margin (a title, or a paragraph written on one line) stands alone;
/// - an item, `term   text` (two spaces or more after a short term) or `- text`, starts a
///   paragraph whose lines go on under its text;
/// - any other line continues the paragraph above when it is indented as that paragraph's
///   lines go on and the line above does not end a sentence (`.` or `:`).
///
/// A paragraph goes on where the source had it go on; one written on a single line goes on
/// two columns further in. Short examples separated by ` · ` (or ` / `, as [`ascii`] writes
/// it) are kept whole.
pub fn reflow(text: &str, width: usize) -> String {
    struct Paragraph<'t> {
        /// The first line up to its text: indent, and an item's term with its gap.
        lead: &'t str,
        /// Where the source goes on (the text's column): a continuation is indented so.
        column: usize,
        text: String,
        lines: usize,
        /// The last source line ends a sentence.
        ended: bool,
    }
    let width = width.max(20);
    let mut paragraphs: Vec<Option<Paragraph>> = Vec::new();
    for line in text.trim_end_matches('\n').split('\n') {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        if body.is_empty() {
            paragraphs.push(None);
            continue;
        }
        let item = item_text(line);
        let ended = body.trim_end().ends_with(['.', ':']);
        if let (None, Some(Some(last))) = (item, paragraphs.last_mut())
            && indent > 0
            && indent == last.column
            && !last.ended
        {
            last.text.push(' ');
            last.text += body.trim_end();
            last.lines += 1;
            last.ended = ended;
            continue;
        }
        let start = item.unwrap_or(indent);
        paragraphs.push(Some(Paragraph {
            lead: &line[..start],
            column: display_width(&line[..start]),
            text: line[start..].trim_end().to_string(),
            lines: 1,
            ended,
        }));
    }
    let mut out = String::new();
    for paragraph in paragraphs {
        let Some(p) = paragraph else {
            out.push('\n');
            continue;
        };
        let indent = p.lead.len() - p.lead.trim_start().len();
        let item = p.lead.len() > indent;
        let mut hang = if item || p.lines > 1 { p.column } else { indent + 2 };
        if hang + 16 > width {
            // Too narrow for the text's column: it goes on further left.
            hang = (indent + 4).min(width / 2);
        }
        // A list of short examples (`play 7h · play qd t3 · …`): each kept whole.
        let examples = [" · ", " / "].into_iter().find_map(|sep| {
            let list: Vec<&str> = p.text.split(sep).collect();
            (list.len() > 1 && list.iter().all(|e| display_width(e) <= 20)).then_some((sep.trim_end(), list))
        });
        let pieces: Vec<String> = match examples {
            Some((mark, list)) => {
                let last = list.len() - 1;
                list.iter()
                    .enumerate()
                    .map(|(i, e)| if i < last { format!("{e}{mark}") } else { e.to_string() })
                    .collect()
            }
            None => units(&p.text),
        };
        out += &fill(p.lead, &pieces, hang, width);
        out.push('\n');
    }
    out
}

/// Where an item's text starts (`  table, tN   take it …`, `  - once …`), or `None` for a
/// line that is no item.
fn item_text(line: &str) -> Option<usize> {
    let body = line.trim_start();
    if let Some(rest) = body.strip_prefix("- ") {
        return Some(line.len() - rest.trim_start().len());
    }
    let gap = body.find("  ")?;
    let term = &body[..gap];
    let text = body[gap..].trim_start();
    (!term.is_empty() && display_width(term) <= 24 && !text.is_empty()).then(|| line.len() - text.len())
}

/// What a card of `rank` does, for `help J` and the rules guide: the standard rules' words
/// with this ruleset's numbers, or a note that a mod changed it.
pub fn card_help(rank: Rank, rules: &Rules, registry: &Registry) -> String {
    let described = registry.description(rank);
    let text = match rank.to_string().as_str() {
        _ if let Some(text) = described => format!("{rank} (changed by a mod): {text}"),
        _ if !registry.is_builtin_card(rank) => {
            format!("{rank}: a mod of this ruleset changes what this card does (what each mod changes: 'help rules').")
        }
        "J" => "J (Jolt): put it in front of a diver deeper than you who has no J in front. Their next \
             number card moves them UP instead of down (then they spend oxygen for the new depth); \
             then the J goes to the discard pile. On the board: 'front: J' means that diver's next \
             number card goes up."
            .to_string(),
        "Q" => format!(
            "Q (Quick): keep it in front of yourself (one Q at a time). Your next number card takes you \
             {extra} further down (not doubled), and you push another diver down {push}; both spend \
             oxygen. Then the Q goes to the discard pile. With a J and a Q in front, the J goes first. On \
             the board: 'front: Q' means that diver's next number card goes {extra} further.",
            extra = rules.show_depth(rules.quick_extra),
            push = rules.show_depth(rules.quick_push),
        ),
        "K" => "K (Knot): put it in front of another diver who has no K in front. Their next recovery \
             gains no oxygen (they still discard and draw); then the K goes to the discard pile. On \
             the board: 'front: K' means that diver's next recovery gains nothing."
            .to_string(),
        _ => format!(
            "A to 10 (number cards): go down by the card's value ({values}{unit}). It is doubled when it \
             has the rank or the suit of the discard pile's top card (a face card on top matches by suit \
             only). After moving you spend oxygen by your new depth; at 0 oxygen you are rescued: back \
             to the surface with full oxygen.{modded}",
            values = values_text(rules),
            // D24: in a ruleset that shows depth in units, say what one point is.
            unit = if rules.show_depth(1) == "1" { String::new() } else { format!("; 1 is {}", rules.show_depth(1)) },
            modded = if registry.builtin_planning().value {
                ""
            } else {
                " A mod of this ruleset changes what cards are worth ('help rules' says how)."
            },
        ),
    };
    text + "\n"
}

/// How a ruleset plays in teams, in words.
pub fn teams_text(teams: crate::core::TeamRule) -> String {
    let sides: Vec<String> = (0..teams.count)
        .map(|t| {
            let seats: Vec<String> = (0..3).map(|k| (t + k * teams.count + 1).to_string()).collect();
            format!("seats {} …", seats.join(", "))
        })
        .collect();
    format!(
        "{} teams, seats alternating round the table ({}); a team's win is each member's; {}",
        teams.count,
        sides.join(" against "),
        if teams.target_teammates {
            "a Jolt, a Knot or a Quick's push may name a teammate"
        } else {
            "a Jolt, a Knot or a Quick's push names only the other teams' divers"
        }
    )
}

/// What the cards are worth in `rules` (D8), in words: `A = 1, 2 to 10 as marked` for the
/// standard values, else each rank whose value differs first (`A = 11; the other number
/// cards as marked`).
pub fn values_text(rules: &Rules) -> String {
    let standard = crate::core::STANDARD_VALUES;
    let changed: Vec<String> = Rank::all()
        .filter(|r| rules.value(*r) != standard[usize::from(r.number()) - 1])
        .map(|r| format!("{r} = {}", rules.show_depth(rules.value(r))))
        .collect();
    let numbers_changed = Rank::all().any(|r| r.is_number() && rules.value(r) != standard[usize::from(r.number()) - 1]);
    match (changed.is_empty(), numbers_changed) {
        (true, _) => format!("A = {}, 2 to 10 as marked", rules.show_depth(1)),
        (false, false) => format!("A = {}, 2 to 10 as marked; {}", rules.show_depth(1), changed.join(", ")),
        (false, true) => format!("{}; the other number cards as marked", changed.join(", ")),
    }
}

/// The game explained for a newcomer, with this ruleset's numbers: `help rules` and the top
/// of `diving rules`.
pub fn rules_guide(rules: &Rules, registry: &Registry) -> String {
    let bottom = rules.show_depth(rules.max_depth);
    let mut bands = Vec::new();
    let mut start = 0;
    for band in &rules.oxygen_bands {
        bands.push(format!("{}-{}: {}", rules.show_depth(start), rules.show_depth(band.to), band.cost));
        start = band.to + 1;
    }
    let mut out = format!(
        "How to play: race to depth {bottom}, the bottom of the ocean; the first diver there wins.\n\
         Each turn, do one thing: play a card from your hand (then draw one) or from the table (the \
         slot is refilled), or recover oxygen.\n\
         Oxygen is the danger. Everyone starts with {max}. After every move down you spend oxygen \
         by your new depth ({bands}), so the deeper you are, the faster it goes. At 0 oxygen you are \
         rescued: back to the surface (depth {surface}) with full oxygen, and all your depth is lost. \
         'moves' shows what each move would leave you with, and the game asks before a move that \
         gets you rescued.\n\
         Recover: discard 1 or more cards from your hand and draw as many; more cards of one suit \
         give more oxygen ('help recover').\n",
        max = rules.max_oxygen,
        bands = bands.join(", "),
        surface = rules.show_depth(0),
    );
    if let Some(teams) = rules.teams {
        out += &format!("Teams: {}.\n", teams_text(teams));
    }
    // The number cards as one (each one a mod changed on its own line), then J, Q and K.
    let numbers: Vec<Rank> = Rank::all().filter(|r| r.is_number()).collect();
    if let Some(first) = numbers.iter().find(|r| registry.is_builtin_card(**r)) {
        out += &card_help(*first, rules, registry).replacen(
            "A to 10 (number cards)",
            &if numbers.iter().all(|r| registry.is_builtin_card(*r)) {
                "A to 10 (number cards)".to_string()
            } else {
                let modded: Vec<String> =
                    numbers.iter().filter(|r| !registry.is_builtin_card(**r)).map(|r| r.to_string()).collect();
                format!("A to 10 (number cards) but {}", or_list(&modded).replace(" or ", " and "))
            },
            1,
        );
    }
    for rank in Rank::all().filter(|r| !r.is_number() || !registry.is_builtin_card(*r)) {
        out += &card_help(rank, rules, registry);
    }
    out += "'state' shows the board: depth and oxygen bars, the cards in front of each diver, the table \
            slots, the discard pile's top card (it decides doubling) and your hand.\n";
    out
}

/// What a ruleset's mods change, for a player (`help rules`, `diving rules`): each mod's
/// file and the first paragraph of its opening comment (MODDING.md asks mod writers to say
/// there, in a player's words, what the mod changes), then what it is told of hidden cards:
/// whether it hooks the cards drawn, and what it read and revealed in this game so far
/// (`learned`, by mod; empty outside a game). Empty without mods.
pub fn mods_guide(rules: &Rules, mods: &[crate::script::ModSource], learned: &[crate::core::Learned]) -> String {
    if mods.is_empty() {
        return String::new();
    }
    let owners = crate::script::owners(rules, mods).unwrap_or_default();
    let mut out = String::from("This ruleset's mods change the rules above:\n");
    for (i, m) in mods.iter().enumerate() {
        let file = m.name.rsplit(['/', '\\']).next().unwrap_or(&m.name);
        match mod_summary(&m.code) {
            Some(summary) => out += &format!("  {file}: {summary}\n"),
            None => out += &format!("  {file}\n"),
        }
        let mut secrets = Vec::new();
        for o in owners.iter().filter(|o| o.file == m.name && o.entry.starts_with("hook on_draw")) {
            // A rank filter shows its ranks to the table when drawn (`hook on_draw (7 shown
            // when drawn)`): the mod is told those, and nothing hidden.
            match o.entry.strip_prefix("hook on_draw (").and_then(|r| r.strip_suffix(" shown when drawn)")) {
                Some(ranks) => secrets.push(format!(
                    "shows the table every card of rank {ranks} drawn into a hand, and is told only those (on_draw)"
                )),
                None => secrets.push("is told cards drawn into hands (on_draw)".to_string()),
            }
        }
        secrets.dedup();
        if let Some(l) = learned.get(i).filter(|l| **l != crate::core::Learned::default()) {
            let revealed = if l.revealed { ", and showed cards to the table" } else { "" };
            secrets.push(format!("this game it has read {}{revealed}", l.reads()));
        }
        if !secrets.is_empty() {
            out += &format!(
                "    hidden cards: {} (its words reach only players who may see what it knows)\n",
                secrets.join("; ")
            );
        }
    }
    out
}

/// The first paragraph of the `--` comment a mod opens with, on one line (at most
/// [`MOD_SUMMARY_CHARS`] characters).
fn mod_summary(code: &str) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    for line in code.lines() {
        let Some(text) = line.trim_start().strip_prefix("--") else { break };
        let text = text.trim();
        if text.starts_with("[[") || text.starts_with("[=") {
            break;
        }
        if text.is_empty() {
            if words.is_empty() {
                continue;
            }
            break;
        }
        words.push(text);
    }
    // Cleaned as a mod's narration is: no escape sequence, control or direction mark.
    let summary = crate::limits::clean_line(&words.join(" "));
    match summary.chars().count() {
        0 => None,
        // Cut at the last word that fits, and said to be cut.
        n if n > MOD_SUMMARY_CHARS => {
            let head: String = summary.chars().take(MOD_SUMMARY_CHARS).collect();
            let head = match head.rfind(' ') {
                Some(at) if at > 0 => head[..at].trim_end().to_string(),
                _ => head,
            };
            Some(head + " ... (the rest of this mod's opening comment is left out)")
        }
        _ => Some(summary),
    }
}

/// How much of a mod's opening comment `help rules` shows.
const MOD_SUMMARY_CHARS: usize = 300;

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
    // In the depth's display units (D24), as the board shows depth.
    let w = rules.show_depth(rules.max_depth).chars().count().max(5);
    for band in &rules.oxygen_bands {
        line(format!("  {:>w$}–{:<w$} {}", rules.show_depth(start), rules.show_depth(band.to), band.cost));
        start = band.to + 1;
    }
    line(format!("card values    {}", values_text(rules)));
    line(format!(
        "quick          the next number card goes {} further; another diver is pushed down {}",
        rules.show_depth(rules.quick_extra),
        rules.show_depth(rules.quick_push)
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
    if let Some(teams) = rules.teams {
        line(format!("teams          {}", teams_text(teams)));
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
    use crate::core::{Cards, Gain};

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
    fn a_knotted_recovery_has_a_preview() {
        let g = game();
        let me = g.current();
        let oxygen = g.player(me).oxygen;
        let cards = Cards::try_from(vec!["2H".parse::<Card>().unwrap(), "3H".parse().unwrap()]).unwrap();
        let events = vec![
            Event::Knotted { player: me },
            Event::Discarded { card: "KS".parse().unwrap() },
            Event::Recovered { player: me, cards, gain: Gain::Amount(0), from: oxygen, to: oxygen },
        ];
        assert_eq!(preview(&g, &events, Viewer::Seat(me)), "knotted: no oxygen, uses up the K");
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
            mods: &[],
            rules: g.rules(),
            style: Style::PLAIN,
            viewer: Viewer::Spectator,
            turn_lines: true,
            stand_in: None,
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
            Event::Recovered {
                player: 0,
                cards: Cards::try_from([card]).unwrap(),
                gain: Gain::Amount(1),
                from: 9,
                to: 10,
            },
            Event::Passed { player: 0 },
            Event::Won { player: 0, winners: Seats(1) },
        ];
        let n = Narrator {
            names: &names,
            mods: &[],
            rules: &rules,
            style: Style::PLAIN,
            viewer: Viewer::Everyone,
            turn_lines: false,
            stand_in: None,
        };
        assert_eq!(
            n.lines(&events),
            [
                "you play 7H: depth 0 -> 7, oxygen 10 -> 9",
                "you draw 7H",
                "you recover with 7H (all suits different: +1), oxygen 9 -> 10",
                "you cannot move and pass",
                "you win!",
            ]
        );
        assert_eq!(second_person("reaches"), "reach");
        assert_eq!(second_person("passes"), "pass");
        assert_eq!(second_person("is"), "are");
        assert_eq!(says("you", "has won"), "you have won");
        assert_eq!(says("alice", "has won"), "alice has won");
    }

    #[test]
    fn rare_events_get_their_own_lines() {
        let g = game();
        let events = vec![
            Event::Reshuffled { cards: 31 },
            Event::Passed { player: 1 },
            Event::Said { by: ModId(0), words: "a shark!".into() },
            Event::Drew { player: 1, card: "2H".parse().unwrap() },
            Event::Drew { player: 1, card: "3H".parse().unwrap() },
            Event::Won { player: 1, winners: Seats(2) },
            Event::Draw { turns: 200 },
        ];
        let n = Narrator {
            names: g.names(),
            mods: &[],
            rules: g.rules(),
            style: Style::PLAIN,
            viewer: Viewer::Spectator,
            turn_lines: false,
            stand_in: None,
        };
        assert_eq!(
            n.lines(&events),
            [
                "the deck ran out: 31 discards are shuffled into a new deck",
                "bob cannot move and passes",
                "a shark!",
                "bob draws 2 cards",
                "bob wins!",
                "the game ends in a draw after 200 turns",
            ]
        );
    }

    /// Issue 15, item 12: a mod's line reads like the rest of the narration, on the line of
    /// the play it belongs to, with the move and breath it explains.
    #[test]
    fn a_mods_lines_join_the_play_they_explain() {
        let g = game();
        let n = Narrator {
            names: g.names(),
            mods: &[],
            rules: g.rules(),
            style: Style::PLAIN,
            viewer: Viewer::Spectator,
            turn_lines: false,
            stand_in: None,
        };
        let card = |c: &str| c.parse::<Card>().unwrap();
        let said = |t: &str| Event::Said { by: ModId(0), words: Words::public(t.to_string()) };
        // The shark: another diver moves after the mod's line.
        let shark = [
            Event::Played { player: 0, card: card("7H"), from: Source::Table(0) },
            said("a shark chases bob towards the surface"),
            Event::Discarded { card: card("7H") },
            Event::Moved { player: 1, from: 30, to: 23 },
            Event::Breathed { player: 1, from: 10, to: 9 },
            Event::Refilled { slot: 0, card: card("2C") },
        ];
        assert_eq!(
            n.lines(&shark),
            [
                "alice plays 7H from table slot 1 - a shark chases bob towards the surface: depth 30 -> 23, \
                 oxygen 10 -> 9",
                "table slot 1 is refilled with 2C",
            ]
        );
        // The thermocline: said while the mover breathes, it explains the breath.
        let cold = [
            Event::Played { player: 0, card: card("8C"), from: Source::Hand },
            Event::Discarded { card: card("8C") },
            Event::Moved { player: 0, from: 62, to: 70 },
            said("cold water below the thermocline: 1 more oxygen"),
            Event::Breathed { player: 0, from: 6, to: 2 },
        ];
        assert_eq!(
            n.lines(&cold),
            ["alice plays 8C: depth 62 -> 70, oxygen 6 -> 2 (cold water below the thermocline: 1 more oxygen)"]
        );
        // The squeezing knot: a breath of the target, introduced by the line.
        let knot = [
            Event::Played { player: 0, card: card("KH"), from: Source::Hand },
            Event::Placed { player: 0, target: 1, card: card("KH") },
            said("the knot squeezes a breath out of bob"),
            Event::Breathed { player: 1, from: 10, to: 9 },
        ];
        assert_eq!(
            n.lines(&knot),
            ["alice plays KH in front of bob - the knot squeezes a breath out of bob: oxygen 10 -> 9"]
        );
        // On their own (a turn-start hook): the line, then the move it caused; a move and a
        // breath no line explains share one line too.
        let current = [
            said("a current carries alice down"),
            Event::Moved { player: 0, from: 10, to: 13 },
            Event::Breathed { player: 0, from: 9, to: 8 },
            Event::Moved { player: 1, from: 5, to: 0 },
            Event::Breathed { player: 1, from: 3, to: 10 },
            said("bob gets a second wind"),
        ];
        assert_eq!(
            n.lines(&current),
            [
                "a current carries alice down: depth 10 -> 13, oxygen 9 -> 8",
                "bob: depth 5 -> 0, oxygen 3 -> 10 - bob gets a second wind",
            ]
        );
    }

    #[test]
    fn wrapping_keeps_a_reading_whole() {
        let text = "greedy plays 6S from table slot 2 on 9S - doubled to 12: depth 4500 m -> 5700 m, oxygen 10 -> 9";
        let wrapped = wrap(text, 40);
        for reading in ["depth 4500 m -> 5700 m,", "oxygen 10 -> 9"] {
            assert!(wrapped.lines().any(|l| l.contains(reading)), "{reading} is split:\n{wrapped}");
        }
        assert!(wrapped.lines().all(|l| display_width(l) <= 40), "{wrapped}");
    }

    #[test]
    fn depth_is_shown_in_the_rulesets_units() {
        let g = game();
        let rules = Rules { depth_unit: "m".into(), depth_scale: 100, ..Rules::default() };
        let n = Narrator {
            names: g.names(),
            mods: &[],
            rules: &rules,
            style: Style::PLAIN,
            viewer: Viewer::Everyone,
            turn_lines: false,
            stand_in: None,
        };
        let events = [Event::Moved { player: 0, from: 3, to: 45 }];
        assert_eq!(n.lines(&events), ["alice: depth 300 m -> 4500 m"]);
        // A doubled card moves a depth, in the same units as the move (not steps).
        let card: Card = "7H".parse().unwrap();
        let events = [
            Event::Played { player: 0, card, from: Source::Hand },
            Event::Doubled { player: 0, card, on: card, value: 14 },
            Event::Moved { player: 0, from: 3, to: 17 },
        ];
        assert_eq!(n.lines(&events), ["alice plays 7H on 7H - doubled to 1400 m: depth 300 m -> 1700 m"]);
    }

    #[test]
    fn errors_name_players() {
        let g = game();
        let err = ActionError::TargetNeeded { card: "JS".parse().unwrap(), options: vec![1] };
        assert_eq!(action_error(&g, &err, Viewer::Spectator), "JS needs a player: bob (e.g. play JS bob)");
    }

    /// Issue 32: depth 96 drew a full bar, as if at the bottom; at 60 columns the depth bar
    /// was dropped while the oxygen bar was kept.
    #[test]
    fn a_bar_is_full_only_at_its_maximum_and_kept_at_60_columns() {
        assert_eq!(cells(96, 100, 10), 9);
        assert_eq!(cells(100, 100, 10), 10);
        assert_eq!(cells(0, 100, 10), 0);
        assert_eq!(cells(2, 100, 10), 1);
        assert_eq!(cells(5, 10, 10), 5);
        for width in [60, 80, 120] {
            let text = board(&game(), Style::PLAIN, &[None, None], Viewer::Everyone, Some(width));
            let row = text.lines().find(|l| l.contains("1 alice")).unwrap();
            assert!(row.contains("depth   0 ....."), "{width}: {row}");
            assert!(row.contains("oxygen 10 #####"), "{width}: {row}");
            assert!(text.lines().all(|l| display_width(l) <= width), "{width}:\n{text}");
        }
    }

    #[test]
    fn the_board_hides_hands_it_is_told_to() {
        let g = game();
        let text = board(&g, Style::PLAIN, &[None, None], Viewer::Seat(0), None);
        assert!(text.contains("alice's hand"));
        assert!(!text.contains("bob's hand"));
    }
}
