//! Lua bots: a script in `scripts/` that chooses a move from the view and the legal moves.
//! (Built on the script sandbox; see `scripts/README.md`.)

use crate::core::{Action, View};

use super::{Bot, BotError};

/// A bot whose choices come from a Lua script.
pub struct LuaBot {
    name: String,
}

impl LuaBot {
    /// Loads the bot script at `path`.
    pub fn load(path: &str, _seed: u64) -> Result<LuaBot, BotError> {
        Err(BotError::Failed { name: path.to_string(), message: "lua bots are not available yet".into() })
    }
}

impl Bot for LuaBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn start_game(&mut self, _seed: u64) {}

    fn choose(&mut self, _view: &View<'_>) -> Result<Action, BotError> {
        Err(BotError::Failed { name: self.name.clone(), message: "lua bots are not available yet".into() })
    }
}
