//! A recorded game (any save file) as a replay: every position of it, seen from one
//! viewpoint ([`Viewer`]): the public view (no hand), one seat's (its own hand and draws), or
//! every hand — the last two only for a finished game. The replay viewer (`diving replay`,
//! [`crate::shell::replay`]) and the HTML page ([`super::html`]) show it.

use std::path::Path;

use crate::core::{Event, Game, Outcome, Seat, Viewer};
use crate::table::parse;
use crate::table::render::{self, Narrator, Style};
use crate::table::save::SaveFile;
use crate::table::session::Session;

/// What the end of a game in the shell says about keeping it.
pub const AFTER_GAME: &str = "'save FILE' writes this game as a replay (watch it with: diving replay FILE); 'review' finds the moves the search bot would have played otherwise.";

/// A recorded game, every position of it, and the viewpoint it is seen from.
pub struct Replay {
    /// The whole game as recorded.
    pub session: Session,
    /// `games[k]`: the game after `k` moves (`games[0]`: the start).
    games: Vec<Game>,
    pub viewer: Viewer,
    /// The position shown: moves played so far.
    pub at: usize,
}

impl Replay {
    /// Replays `file` (checking every recorded step, see [`Session::load`]) and takes the
    /// viewpoint: `seat` (`--as`), `all` (`--all`), or the public's. Returns the notes of
    /// the load too.
    pub fn open(
        file: SaveFile,
        path: &Path,
        ruleset: Option<&str>,
        seat: Option<&str>,
        all: bool,
    ) -> Result<(Replay, Vec<String>), String> {
        let loaded = Session::load(file, path, ruleset).map_err(|e| e.to_string())?;
        let session = loaded.session;
        let game = session.game();
        let viewer = match (seat, all) {
            (Some(_), true) => return Err("--as and --all cannot be used together: pick one viewpoint".into()),
            (None, true) if !game.is_over() => {
                return Err(format!(
                    "--all shows every hand, so it is only for a finished game; this one stops at turn {} with {} to play \
                     (watch it --as a seat, or as the public does without either option)",
                    game.turn(),
                    game.name(game.current())
                ));
            }
            (None, true) => Viewer::Everyone,
            (Some(who), false) => {
                let seat = crate::table::command::seat_of(game, &parse::who(who)?).map_err(|e| format!("--as: {e}"))?;
                if !game.is_over() {
                    // Whoever runs the replay would see that seat's hand and draws.
                    return Err(format!(
                        "--as shows {} hand and draws, so it is only for a finished game; this one stops at \
                         turn {} with {} to play (watch it as the public does, without --as, or resume it \
                         with diving --load)",
                        render::possessive(game.name(seat)),
                        game.turn(),
                        game.name(game.current())
                    ));
                }
                Viewer::Seat(seat)
            }
            (None, false) => Viewer::Spectator,
        };
        let mut games = session.games_before_moves()?;
        games.push(session.game().clone());
        Ok((Replay { session, games, viewer, at: 0 }, loaded.notes))
    }

    /// How many moves the game has.
    pub fn moves(&self) -> usize {
        self.games.len() - 1
    }

    /// The game after `k` moves.
    /// The game before each move, in order (what `review` replays).
    pub fn games_before_moves(&self) -> &[Game] {
        &self.games[..self.moves()]
    }

    pub fn game_at(&self, k: usize) -> &Game {
        &self.games[k.min(self.moves())]
    }

    /// The game at the shown position.
    pub fn game(&self) -> &Game {
        self.game_at(self.at)
    }

    /// The events that led to position `k`: the game's start for 0, else move `k`'s.
    pub fn events_at(&self, k: usize) -> Vec<Event> {
        match k {
            0 => self.session.start_events(),
            k => self.session.entries()[k - 1].events.clone(),
        }
    }

    /// The heading of position `k`: `move 3 of 40 (turn 3: bob)`, numbered as `log` numbers
    /// the turns (the turn the move was played in, not the one it handed on).
    pub fn heading(&self, k: usize) -> String {
        let game = self.game_at(k);
        let n = self.moves();
        if k == 0 {
            return format!("the start of {n} moves (turn {})", game.turn());
        }
        let seat = self.session.entries()[k - 1].seat;
        let turn = self.game_at(k - 1).turn();
        let end = match game.outcome() {
            Outcome::Running => String::new(),
            Outcome::Won { winners, .. } if winners.len() > 1 => format!("; {} have won", render::winners_text(game)),
            Outcome::Won { .. } => format!("; {}", render::says(&render::winners_text(game), "has won")),
            Outcome::Draw => "; a draw".to_string(),
        };
        format!("move {k} of {n} (turn {turn}: {}{end})", game.name(seat))
    }

    /// The narration of position `k`, as the viewpoint may read it.
    pub fn narration(&self, k: usize, style: Style) -> Vec<String> {
        let game = self.game_at(k);
        let stand_in =
            k.checked_sub(1).filter(|&i| self.session.by_stand_in(i)).map(|i| self.session.entries()[i].seat);
        let narrator = Narrator {
            names: game.names(),
            mods: game.registry().mod_names(),
            rules: game.rules(),
            style,
            viewer: self.viewer,
            turn_lines: false,
            stand_in,
        };
        narrator.lines(&self.events_at(k))
    }

    /// The board at position `k`, with the hands the viewpoint may see.
    pub fn board(&self, k: usize, style: Style, width: Option<usize>) -> String {
        render::board_after(self.game_at(k), &self.events_at(k), style, self.session.bots(), self.viewer, width)
    }

    /// The viewpoint in words.
    pub fn viewpoint(&self) -> String {
        match self.viewer {
            Viewer::Seat(s) => match self.game().name(s) {
                // The player called "you" is spoken to, as in the narration.
                name if name.eq_ignore_ascii_case("you") => "as you saw it".into(),
                name => format!("as {name} saw it"),
            },
            Viewer::Spectator => "as the public sees it, no hand shown".into(),
            Viewer::Everyone => "with every hand open".into(),
        }
    }

    /// The first position at which turn `turn` is to be played (or the game ended, for the
    /// turn after its last).
    pub fn position_of_turn(&self, turn: u32) -> Result<usize, String> {
        let first = self.games[0].turn();
        let last = self.games[self.moves()].turn();
        self.games
            .iter()
            .position(|g| g.turn() >= turn && turn >= first)
            .ok_or_else(|| format!("there is no turn {turn}: this game has turns {first} to {last}"))
    }

    /// The seats whose moves `review` judges: those whose hand the viewpoint sees.
    pub fn reviewed_seats(&self) -> Result<Vec<Seat>, String> {
        match self.viewer {
            Viewer::Seat(s) => Ok(vec![s]),
            Viewer::Everyone => Ok((0..self.game().player_count()).collect()),
            Viewer::Spectator => Err(
                "the public sees no hand, so there is no move to judge: replay --as SEAT (or --all for a finished game)"
                    .into(),
            ),
        }
    }
}
