//! Who the terminal lobby says you are: a name and a secret key (PROTOCOL.md, *The lobby*),
//! kept in `$XDG_DATA_HOME/diving/player.json` (by default `~/.local/share/diving/player.json`),
//! readable by its owner only. The key is made once, from the operating system's random
//! source, and never shown; the host keeps only its hash, so the same key is the same player
//! there next week, and nobody else can take the name's rating.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The file's name in the data directory.
pub const FILE: &str = "player.json";

/// A player as the host knows them: the file holds what a `join` carries, `{name, key}`.
pub use crate::wire::Player;

/// A player called `name` with a new key: 32 random bytes, as 64 hex digits.
pub fn new_player(name: &str) -> anyhow::Result<Player> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("cannot make a player key: {e}"))?;
    Ok(Player { name: name.to_string(), key: bytes.iter().map(|b| format!("{b:02x}")).collect() })
}

/// Where the player file is: `$XDG_DATA_HOME/diving/player.json`, else under `$HOME`.
pub fn path() -> anyhow::Result<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join(".local/share"),
            None => anyhow::bail!(
                "neither XDG_DATA_HOME nor HOME is set: diving join keeps your player key in $XDG_DATA_HOME/diving/{FILE}"
            ),
        },
    };
    Ok(base.join("diving").join(FILE))
}

/// The player kept at `path` (`None`: no file yet). A damaged file is an error naming it,
/// never replaced without a word (it holds the key a rating belongs to).
pub fn load(path: &Path) -> anyhow::Result<Option<Player>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let player: Player = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a player file ({{\"name\":…,\"key\":…}}); move it away to start as a new player",
            path.display()
        )
    })?;
    crate::wire::check_key(&player.key).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(Some(player))
}

/// Writes `player` to `path` (its folders made), mode 0600, atomically: a new file beside it,
/// then renamed over the old, so a crash leaves the old key or the new, never half of one.
pub fn save(path: &Path, player: &Player) -> anyhow::Result<()> {
    let dir = path.parent().context("the player file has no folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let temp = path.with_extension("json.new");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let write = || -> std::io::Result<()> {
        let mut file = options.open(&temp)?;
        file.write_all(serde_json::to_string(player)?.as_bytes())?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    };
    write().with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_is_kept_for_its_owner_only_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("diving").join(FILE);
        assert_eq!(load(&path).unwrap(), None);
        let ann = new_player("ann").unwrap();
        assert_eq!(ann.key.len(), 64);
        assert!(crate::wire::check_key(&ann.key).is_ok());
        assert_ne!(ann.key, new_player("ann").unwrap().key, "a new key each time");
        save(&path, &ann).unwrap();
        assert_eq!(load(&path).unwrap(), Some(ann));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        std::fs::write(&path, "{\"name\":\"ann\"}").unwrap();
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(err.contains("is not a player file"), "{err}");
    }
}
