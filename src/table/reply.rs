//! What a table's [`Reply`] says to one reader: JSON Lines objects (the scripting contract,
//! the network's `output.lines`) and text (narration, the board, listings), both made here for
//! the reader's [`Viewer`] and [`Look`]. The shell prints one or the other; the server sends
//! both. No front end renders a reply itself, so each says the same thing everywhere.

use serde_json::json;

use crate::core::{Action, Event, Viewer};
use crate::limits;
use crate::table::command::{HelpTopic, Question, Reply, Table};
use crate::table::hint;
use crate::table::json::{self as js, Object};
use crate::table::parse;
use crate::table::render::{self, Narrator, Style};
use crate::table::session::{Reload, Session};

/// What `say` does, as a network table's help lists it.
pub const SAY_HELP: &str = "chat to the table: say TEXT";

/// How a reader's text is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    pub style: Style,
    /// Columns to lay text out for (`None`: nothing is wrapped).
    pub width: Option<usize>,
    /// A line when each turn starts (a script, a pipe, a plain remote client); a terminal
    /// shows the turn on its board instead.
    pub turn_lines: bool,
    /// `moves` with each move's outcome (a shell, a remote terminal), else the commands alone.
    pub previews: bool,
    /// A board follows each command at once (a terminal): `undo` need not say whose turn it is.
    pub board_follows: bool,
}

impl Look {
    /// A script or a pipe: plain, nothing wrapped, a line at each turn, listings with outcomes.
    pub const SCRIPT: Look =
        Look { style: Style::PLAIN, width: None, turn_lines: true, previews: true, board_follows: false };

    /// `text` laid out for the reader's width.
    pub fn wrap(&self, text: &str) -> String {
        match self.width {
            Some(width) => render::wrap(text, width),
            None => text.to_string(),
        }
    }

    /// A refusal as text: `error: …` on one line (outside text cannot drive the terminal),
    /// laid out like the narration.
    pub fn error(&self, message: &str) -> String {
        let message = limits::shown(message, limits::NewLines::Escaped);
        self.wrap(&format!("{} {message}", self.style.error_label()))
    }
}

/// A reply as one reader gets it.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// JSON Lines objects.
    pub json: Vec<Object>,
    /// Text, already laid out: each item is written on its own line (it may hold several).
    pub text: Vec<String>,
}

impl Rendered {
    fn line(mut self, object: Object, text: impl Into<String>) -> Rendered {
        self.json.push(object);
        self.text.push(text.into());
        self
    }

    fn error(self, message: &str, look: &Look) -> Rendered {
        self.line(Object::one("error", json!(message)), look.error(message))
    }
}

impl Table {
    /// What `reply` says to `viewer` in `look`.
    pub fn render(&self, reply: &Reply, viewer: Viewer, look: &Look) -> Rendered {
        let game = self.game();
        let session = self.session();
        let out = Rendered::default();
        match reply {
            Reply::Opened(events) => self.events(events, viewer, look, look.turn_lines),
            Reply::Moved { from, to } => self.told(*from..*to, false, viewer, look, look.turn_lines),
            Reply::BotWarning(w) => {
                let shown = limits::shown(w, limits::NewLines::Escaped);
                out.line(Object::one("warning", json!(w)), look.wrap(&look.style.dim(&format!("warning: {shown}"))))
            }
            Reply::BotStuck(message) | Reply::Refused(message) => out.error(message, look),
            Reply::ModFailed { what, error } => {
                let message = viewer.failure(error);
                out.line(
                    Object::one("mod_failed", json!({ "while": what, "message": message })),
                    look.wrap(&look.style.dim(&format!(
                        "a mod failed {}: {}",
                        limits::shown(what, limits::NewLines::Escaped),
                        limits::shown(&message, limits::NewLines::Escaped)
                    ))),
                )
            }
            Reply::Question(q) => out.line(Object::one("question", question_json(q)), look.wrap(&q.text())),
            Reply::NotPlayed => Rendered { json: Vec::new(), text: vec!["(not played)".into()] },
            Reply::Note(text) => Rendered { json: Vec::new(), text: vec![look.wrap(text)] },
            Reply::Moves { seat, actions, failure } => {
                let mut out = out;
                if let Some(failure) = failure {
                    // A card whose mod cannot say whether it is playable is not silently hidden.
                    out = out.error(&format!("a mod failed while listing the moves: {failure}"), look);
                }
                let list: Vec<String> = actions.iter().map(|a| render::command_for(game, a)).collect();
                let text = if look.previews {
                    moves_lines(session, actions, look.style, viewer, look.width)
                } else {
                    let mut lines = vec![format!("legal moves for {}:", game.name(*seat))];
                    lines.extend(list.iter().map(|l| format!("  {l}")));
                    lines
                };
                out.json.push(Object::one("moves", json!(list)));
                out.text.extend(text);
                out
            }
            Reply::NoMoves { .. } => {
                let text = if game.is_over() {
                    "no moves: the game is over".to_string()
                } else {
                    format!("no moves: it is {}'s turn", game.name(game.current()))
                };
                out.line(Object::one("moves", json!(Vec::<String>::new())), look.wrap(&text))
            }
            Reply::Hand { seat } => {
                let name = game.name(*seat).to_string();
                // The seat's own hand, as its view has it.
                let cards = crate::core::View::new(game, *seat).hand();
                let list: Vec<String> = cards.iter().map(ToString::to_string).collect();
                let text = look.wrap(&format!("{} hand: {}", render::possessive(&name), look.style.cards(cards)));
                out.line(Object::one("hand", Object::one("player", json!(name)).with("cards", json!(list))), text)
            }
            Reply::State => {
                let state = match viewer {
                    // The scripting contract's state: every hand and the deck.
                    Viewer::Everyone => js::state(game, session.bots()),
                    _ => js::state_for(&crate::core::Observation::of(game, viewer), session.bots()),
                };
                out.line(Object::one("state", state), self.board(viewer, look).trim_end())
            }
            Reply::Log => {
                // The log narrates every turn, at a terminal too.
                let told = self.told(0..session.entries().len(), true, viewer, look, true);
                Rendered { json: vec![Object::one("log", told.json)], text: told.text }
            }
            Reply::Help(topic) => match self.help(topic) {
                Ok(text) => {
                    // Filled again for the reader's width (a pipe gets the text as written).
                    let text = match look.width {
                        Some(width) => render::reflow(&text, width),
                        None => text,
                    };
                    let lines = text.lines().map(String::from).collect();
                    Rendered { json: vec![Object::one("help", json!(text))], text: lines }
                }
                Err(message) => out.error(&message, look),
            },
            Reply::Undone(undone) => {
                let moves: Vec<String> = undone.iter().map(|(s, c)| format!("{} {c}", game.name(*s))).collect();
                let o = json!({ "undone": moves, "turn": game.turn(), "current": game.name(game.current()) });
                let mut text = format!("took back: {}", moves.join("; "));
                if !look.board_follows {
                    text += &format!("\nturn {}: {} to play", game.turn(), game.name(game.current()));
                }
                out.line(Object::from_value(o), look.wrap(&text))
            }
            Reply::Saved { path } => {
                // A finished game can only be watched again; a running one goes on.
                let next = if game.is_over() { "watch it with: diving replay" } else { "resume with: diving --load" };
                let shown = limits::shown(path, limits::NewLines::Escaped);
                let mut out = out.line(
                    Object::one("saved", json!(path)),
                    look.wrap(&format!("saved to {shown} ({next} {})", shell_quoted(&shown))),
                );
                if self.policy().asks && session.humans() > 1 && !game.is_over() {
                    // Inherent to resuming: said where the player decides where it goes.
                    out.text.push(look.wrap(
                        "this file shows every hand: keep it from the players (each of them is told of this save at \
                         their next turn)",
                    ));
                }
                out
            }
            Reply::Reloaded(report) => self.reloaded(report, viewer, look),
            Reply::Hint { seat, moves } => {
                let name = game.name(*seat).to_string();
                let list: Vec<serde_json::Value> =
                    moves.iter().map(|s| json!({ "move": s.command, "win": s.win, "playouts": s.playouts })).collect();
                let o = json!({ "hint": { "player": name, "playouts": hint::HINT_PLAYOUTS, "moves": list } });
                let text = hint::hint_lines(&name, moves, hint::HINT_PLAYOUTS).iter().map(|l| look.wrap(l)).collect();
                Rendered { json: vec![Object::from_value(o)], text }
            }
            Reply::Review { found, looked, seats } => {
                let list: Vec<serde_json::Value> = found.iter().map(|f| hint::finding_json(game, f)).collect();
                let o = json!({ "review": { "moves": looked, "playouts": hint::REVIEW_PLAYOUTS, "worse": list } });
                let text = hint::review_lines(game, found, *looked, seats).iter().map(|l| look.wrap(l)).collect();
                Rendered { json: vec![Object::from_value(o)], text }
            }
            Reply::Chat { seat, text } => {
                let name = game.name(*seat).to_string();
                let o = Object::one("chat", Object::one("player", json!(name)).with("text", json!(text)));
                out.line(o, look.wrap(&format!("{name} says: {text}")))
            }
            Reply::NewGame { seed } => {
                let names = game.names().join(", ");
                let o = Object::one("event", json!("seeded")).with("seed", json!(seed));
                out.line(o, look.wrap(&format!("a new game: {names}; seed {seed} (replay with --seed {seed})")))
            }
            Reply::Quit => out.line(Object::one("bye", json!(true)), "bye"),
            // The front end's to carry out (a network table asks every person).
            Reply::Rematch => out,
        }
    }

    /// The board as `viewer` may see it, laid out for `look`, after the last move (a Q that
    /// a winning Quick used is shown as used, [`render::board_after`]).
    pub fn board(&self, viewer: Viewer, look: &Look) -> String {
        let session = self.session();
        let last = session.entries().last().map_or(&[][..], |e| &e.events[..]);
        render::board_after(session.game(), last, look.style, session.bots(), viewer, look.width)
    }

    /// Events as `viewer` sees them: one object each, and the narration.
    pub fn events(&self, events: &[Event], viewer: Viewer, look: &Look, turn_lines: bool) -> Rendered {
        self.events_by(events, None, viewer, look, turn_lines)
    }

    /// [`Table::events`] of a move the stand-in bot made for `stand_in`'s seat, if any.
    fn events_by(
        &self,
        events: &[Event],
        stand_in: Option<crate::core::Seat>,
        viewer: Viewer,
        look: &Look,
        turn_lines: bool,
    ) -> Rendered {
        let game = self.game();
        // A run of one mod's lines this viewer may not read is one object, as it is one line.
        let json = events
            .iter()
            .enumerate()
            .filter(|&(k, e)| k == 0 || !viewer.repeats_withheld(&events[k - 1], e))
            .map(|(_, e)| js::event(game, e, viewer))
            .collect();
        let narrator = Narrator {
            names: game.names(),
            mods: game.registry().mod_names(),
            rules: game.rules(),
            style: look.style,
            viewer,
            turn_lines,
            stand_in,
        };
        let text = narrator.lines(events).iter().map(|l| look.wrap(l)).collect();
        Rendered { json, text }
    }

    /// The events of the moves `moves` (after the game's start when `with_start`), as
    /// [`Table::events`] tells them, a move the stand-in bot made for an away seat told as
    /// the bot's (`bob's stand-in bot plays 7H`): what every reader is told of new moves,
    /// a returning seat's catch-up and the log.
    pub fn told(
        &self,
        moves: std::ops::Range<usize>,
        with_start: bool,
        viewer: Viewer,
        look: &Look,
        turn_lines: bool,
    ) -> Rendered {
        let session = self.session();
        let mut out = Rendered::default();
        let mut batch = if with_start { session.start_events() } else { Vec::new() };
        for (i, entry) in session.entries().iter().enumerate().take(moves.end).skip(moves.start) {
            if session.by_stand_in(i) {
                let told = self.events(&std::mem::take(&mut batch), viewer, look, turn_lines);
                let own = self.events_by(&entry.events, Some(entry.seat), viewer, look, turn_lines);
                for part in [told, own] {
                    out.json.extend(part.json);
                    out.text.extend(part.text);
                }
            } else {
                batch.extend(entry.events.iter().cloned());
            }
        }
        let told = self.events(&batch, viewer, look, turn_lines);
        out.json.extend(told.json);
        out.text.extend(told.text);
        out
    }

    fn reloaded(&self, report: &Reload, viewer: Viewer, look: &Look) -> Rendered {
        let game = self.game();
        let spec = self.session().spec();
        match report {
            Reload::Identical { moves } => Rendered::default().line(
                Object::from_value(json!({ "reload": { "ruleset": spec, "identical": true, "moves": moves } })),
                look.wrap(&format!("reloaded {spec}: all {moves} moves replay identically")),
            ),
            Reload::Changed { index, seat, command: text, old, new } => {
                let before = self.events(old, viewer, look, false);
                let after = self.events(new, viewer, look, false);
                let report = Object::new()
                    .with("ruleset", json!(spec))
                    .with("identical", json!(false))
                    .with("changed_move", json!(index + 1))
                    .with("player", json!(game.name(*seat)))
                    .with("action", json!(text))
                    .with("before", before.json)
                    .with("after", after.json);
                let mut lines = vec![look.wrap(&format!(
                    "reloaded {spec}: move {} ({} {text}) now has another outcome",
                    index + 1,
                    game.name(*seat)
                ))];
                let narrator = |events: &[Event]| {
                    Narrator {
                        names: game.names(),
                        mods: game.registry().mod_names(),
                        rules: game.rules(),
                        style: look.style,
                        viewer,
                        turn_lines: false,
                        stand_in: None,
                    }
                    .lines(events)
                };
                lines.extend(narrator(old).iter().map(|l| look.wrap(&format!("  was: {l}"))));
                lines.extend(narrator(new).iter().map(|l| look.wrap(&format!("  now: {l}"))));
                Rendered { json: vec![Object::one("reload", report)], text: lines }
            }
            Reload::Illegal { index, seat, action, reason } => {
                let text = render::command_for(game, action);
                let o = json!({ "reload": { "ruleset": spec, "identical": false,
                    "illegal_move": index + 1, "player": game.name(*seat), "action": text, "reason": reason } });
                Rendered::default().line(
                    Object::from_value(o),
                    look.wrap(&format!(
                        "reloaded {spec}: move {} ({} {text}) is no longer allowed ({reason}); the game goes on from just before it",
                        index + 1,
                        game.name(*seat)
                    )),
                )
            }
        }
    }

    /// `help` at this table: the commands it offers (with `say` where there is chat), a
    /// command, the rules or a card — with what the ruleset's mods say they change.
    pub fn help(&self, topic: &HelpTopic) -> Result<String, String> {
        let game = self.game();
        let policy = self.policy();
        let topic = topic.0.as_deref();
        match topic {
            None => {
                let mut commands: Vec<(&str, &str)> =
                    parse::COMMANDS.iter().copied().filter(|(word, _)| policy.offers(word)).collect();
                // A mod's actions, after `pass`, with what they say they do.
                let at = commands.iter().position(|(word, _)| *word == "pass").map_or(commands.len(), |i| i + 1);
                let acts = game.registry().actions().iter().map(|a| (a.name.as_str(), &*a.describe));
                commands.splice(at..at, acts);
                if policy.chat.is_some() {
                    let at = commands.iter().position(|(word, _)| *word == "help").unwrap_or(commands.len());
                    commands.insert(at, ("say", SAY_HELP));
                }
                Ok(super::help::command_list_help(&commands))
            }
            Some(t) if policy.chat.is_some() && t.eq_ignore_ascii_case("say") => {
                Ok(format!("say TEXT\n  {SAY_HELP} (everyone in the room sees it)\n"))
            }
            Some(t) => {
                let mut text = super::help::help_text(Some(t), game)?;
                if let Some(word) = parse::command_word(t).filter(|word| !policy.offers(word)) {
                    text += &format!("('{word}' is not available in this network game)\n");
                }
                // The rules, or a card a mod changed: what the ruleset's mods say they change.
                if t.eq_ignore_ascii_case("rules")
                    || super::help::card_topic(t).is_some_and(|r| !game.registry().is_builtin_card(r))
                {
                    text +=
                        &render::mods_guide(game.rules(), &self.session().ruleset().mods, game.knowledge().learned());
                }
                Ok(text)
            }
        }
    }
}

/// What the listing shows of `action`'s outcome: its preview, or nothing once the
/// decision's budget of mod work is spent (the listing's failure says so once).
pub fn outcome(session: &Session, action: &Action, reader: Viewer) -> String {
    if crate::script::decision::left() == Some(0) {
        return String::new();
    }
    let previewed = session.preview(action);
    if previewed.is_err() && crate::script::decision::left() == Some(0) {
        return String::new();
    }
    render::preview_outcome(session.game(), &previewed, reader)
}

/// The `moves` listing as a terminal shows it, for the current player's legal `actions`:
/// each play with a preview of its outcome as `reader` may see it, the recoveries in one
/// line, laid out for `columns` (`None`: not wrapped). Shared by the shell and the game
/// server, so a remote seat reads the same listing.
pub fn moves_lines(
    session: &Session,
    actions: &[Action],
    style: Style,
    reader: Viewer,
    columns: Option<usize>,
) -> Vec<String> {
    let game = session.game();
    if game.is_over() {
        return vec!["no moves: the game is over".to_string()];
    }
    // Every preview of the listing spends from one budget of mod work.
    let _decision = game.registry().keeps_state().then(|| crate::script::decide("the outcomes of the moves"));
    let mut plays: Vec<(String, String)> = Vec::new();
    let mut recoveries = 0;
    let mut knotted = false;
    // Whether a recovery now gains nothing (a K in front), as the engine plays one.
    let mut gains_nothing = false;
    let mut over_too = false;
    for a in actions {
        match a {
            Action::Recover { face_on_top, .. } => {
                if recoveries == 0 {
                    let me = game.current();
                    gains_nothing = session.preview(a).is_ok_and(|events| {
                        events.iter().any(|e| matches!(e, Event::Knotted { player } if *player == me))
                    });
                }
                recoveries += 1;
                knotted |= *face_on_top;
            }
            // The same play with the used J on top of the pile: one line, with a note.
            Action::Play { face_on_top: true, card, from, target }
                if actions.contains(&Action::Play {
                    card: *card,
                    from: *from,
                    target: *target,
                    face_on_top: false,
                }) =>
            {
                over_too = true;
            }
            _ => {
                plays.push((render::command_for(game, a), outcome(session, a, reader)));
            }
        }
    }
    let (arrow, dash) = if style.unicode { ("→", "—") } else { ("->", "-") };
    let width = plays.iter().map(|(c, _)| c.chars().count()).max().unwrap_or(0);
    let mut lines: Vec<String> = plays
        .into_iter()
        .map(|(command, outcome)| {
            if outcome.is_empty() {
                format!("  {command}")
            } else {
                let pad = " ".repeat(width - command.chars().count());
                let lead = format!("  {command}{pad}  {arrow} ");
                // On a narrow terminal the outcome continues under itself, not under the
                // command (when that leaves it room).
                let lead_width = render::display_width(&lead);
                match columns {
                    Some(w) if lead_width + render::display_width(&outcome) > w && lead_width + 20 <= w => {
                        let wrapped = render::wrap(&outcome, w - lead_width);
                        let mut lines = wrapped.lines();
                        let mut text = format!("{lead}{}", lines.next().unwrap_or_default());
                        for more in lines {
                            text += &format!("\n{}{}", " ".repeat(lead_width), more.trim_start());
                        }
                        text
                    }
                    _ => format!("{lead}{outcome}"),
                }
            }
        })
        .collect();
    if recoveries > 0 {
        // The mover's own hand, as its view has it (the listing is the mover's).
        let hand = crate::core::View::new(game, game.current()).hand();
        let cards = if style.unicode { "CARD…" } else { "CARD..." };
        let mut line = format!("  recover {cards} {dash} any 1 to {} of {}", hand.len(), Style::PLAIN.cards(hand));
        if gains_nothing {
            line += " (knotted: gains no oxygen, uses up the K; 'over' puts the K on top)";
        } else if knotted {
            line += " ('over' puts the K on top)";
        } else {
            line += " (more of one suit, more oxygen: 'help recover')";
        }
        lines.push(line);
    }
    lines.insert(0, format!("legal moves for {}:", game.name(game.current())));
    if over_too {
        lines.push("  (a number card uses up the J in front of you: add 'over' to put the J on top of it)".into());
    }
    // Laid out for the reader's width here, not by whoever prints them: the server sends these
    // lines to a terminal as they are.
    match columns {
        Some(w) => lines.iter().map(|line| render::wrap(line, w)).collect(),
        None => lines,
    }
}

/// The end of a game in a few lines: who won and in how many turns, and for each diver their
/// rescues (where the oxygen ran out) and their longest dive.
pub fn summary_lines(session: &Session) -> Vec<String> {
    summary_lines_styled(session, Style::PLAIN)
}

/// [`summary_lines`] with cards written in `style`, as the narration writes them (`10♠`).
pub fn summary_lines_styled(session: &Session, style: Style) -> Vec<String> {
    let game = session.game();
    let rules = game.rules();
    let head = match game.outcome() {
        crate::core::Outcome::Won { .. } => format!("{} won in {} turns.", render::winners_text(game), game.turn()),
        _ => format!("a draw after {} turns.", game.turn()),
    };
    let mut lines = vec![head];
    for seat in 0..game.player_count() {
        let mut rescues = Vec::new();
        let mut best: Option<(u32, String)> = None;
        let mut replay_depth = None;
        for entry in session.entries() {
            for ev in &entry.events {
                match ev {
                    Event::Moved { player, from, to } if *player == seat => {
                        replay_depth = Some(*to);
                        if entry.seat == seat && to > from && best.as_ref().is_none_or(|(d, _)| to - from > *d) {
                            let command = match &entry.action {
                                Action::Play { card, .. } => style.card(*card),
                                _ => String::new(),
                            };
                            best = Some((to - from, command));
                        }
                    }
                    Event::Rescued { player, .. } if *player == seat => {
                        rescues.push(rules.show_depth(replay_depth.unwrap_or(0)));
                    }
                    _ => {}
                }
            }
        }
        let mut line = format!("  {}: depth {}", game.name(seat), rules.show_depth(game.player(seat).depth));
        line += &match rescues.len() {
            0 => ", never rescued".to_string(),
            1 => format!(", rescued once (out of oxygen at depth {})", rescues[0]),
            n => format!(", rescued {n} times (out of oxygen at depth {})", rescues.join(", ")),
        };
        if let Some((gain, card)) = best {
            line += &format!(", longest dive {gain} with {card}");
        }
        lines.push(line);
    }
    if game.players().iter().enumerate().any(|(s, _)| lines[s + 1].contains("rescued "))
        && matches!(game.outcome(), crate::core::Outcome::Won { .. })
    {
        lines.push("(a rescue sends a diver back to depth 0: watch the oxygen column of 'moves')".into());
    }
    lines
}

/// A question as the JSON contract and the network carry it: `{"text": …, "options": […]}`.
pub fn question_json(q: &Question) -> Object {
    Object::one("text", json!(q.text())).with("options", json!(q.options()))
}

/// `text` as a shell word: as it is when it holds nothing a shell reads, else in single quotes.
fn shell_quoted(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c)) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
