//! `diving mod new NAME`: a directory `NAME/` holding a commented starter mod with its
//! manifest (`NAME.lua`), a ruleset that loads it (`ruleset.toml`) and a scenario file
//! (`tests/NAME.toml`). It writes nothing over an existing file or directory, and what it
//! writes passes `diving check` and `diving mod test` as it is (`tests/modding/modkit.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::script::API_VERSION;
use crate::script::manifest::check_name;

/// The starter mod; `NAME` is replaced.
const MOD: &str = r#"-- A 7 still moves you as usual, and also gives you back 1 oxygen (never past a full tank).

-- (The paragraph above is what players read in `help rules`: say there, in their words, what
-- this mod changes.) NAME.lua is a starter mod for Diving Suits; MODDING.md (in the rulesets
-- folder of the game) is the guide, and every `diving.` and `ctx:` function used here is in
-- its API reference.

-- The manifest comes first: who the mod is, which mod API it is written for, and which other
-- mods it needs or cannot be played with (version ranges as in semver: "1.2" means ">=1.2, <2").
diving.manifest{
  name = "NAME",
  version = "0.1.0",
  api = APIVERSION,
  -- requires = { ["other-mod"] = ">=1.0" },   -- must be loaded before this one
  -- conflicts = { ["rival-mod"] = "*" },      -- must not be loaded with this one
}

-- The 7: what it did, then 1 oxygen back.
diving.wrap(7, function(ctx, play, previous)
  previous(ctx, play)                 -- first, the 7 does what it always did
  if ctx:is_over() then return end    -- (it may have won the game)
  local me = play.player
  ctx:set_oxygen(me, math.min(ctx:oxygen(me) + 1, ctx:max_oxygen()))
  ctx:say(ctx:name(me) .. " catches a lucky breath")
end)
"#;

/// The ruleset that loads it.
const RULESET: &str = r#"# ruleset.toml: the standard game with the NAME mod. Play it with
#   diving --ruleset ruleset.toml
# and check it with `diving check ruleset.toml` and `diving mod test`.
extends = "standard"
name = "NAME"
mods = ["NAME.lua"]
"#;

/// The scenario file.
const TESTS: &str = r#"# Scenarios for NAME.lua, run by `diving mod test` (MODDING.md, "Testing your mod").
# Each deals the cards it names (the rest in a fixed order), plays the actions and checks
# the state and the events.
ruleset = "../ruleset.toml"

[[scenario]]
name = "a 7 moves as usual and gives back the breath it cost"
hands.Ann = "7H 2S 3D 4C"
discard = "9C"
deck = "8D"
actions = "play 7H"
expect = """
Ann: depth 7, oxygen 10
hand Ann: 2S 3D 4C 8D
top: 7H
turn: 2 Bob
"""
events = [
  { event = "moved", player = "Ann", from = 0, to = 7 },
  { event = "said", text = "Ann catches a lucky breath" },
]

[[scenario]]
name = "deeper, the breath does not pay for the whole move"
hands.Ann = "7H 2S 3D 4C"
discard = "9C"
start.Ann = { depth = 30, oxygen = 5 }
actions = "play 7H"
expect = "Ann: depth 37, oxygen 4"

[[scenario]]
name = "other cards are not lucky"
hands.Ann = "8H 2S 3D 4C"
discard = "9C"
actions = "play 8H"
expect = "Ann: depth 8, oxygen 9"
"#;

/// `diving mod new NAME` in `dir`.
pub fn new_command(name: &str, dir: &Path) -> anyhow::Result<ExitCode> {
    check_name(name).map_err(|why| anyhow::anyhow!("the mod name {why}"))?;
    let root = dir.join(name);
    if root.symlink_metadata().is_ok() {
        anyhow::bail!("{} already exists: mod new writes only a new directory (choose another name)", root.display());
    }
    let fill = |text: &str| text.replace("APIVERSION", &API_VERSION.to_string()).replace("NAME", name);
    let files: [(PathBuf, String); 3] = [
        (PathBuf::from(format!("{name}.lua")), fill(MOD)),
        (PathBuf::from("ruleset.toml"), fill(RULESET)),
        (Path::new("tests").join(format!("{name}.toml")), fill(TESTS)),
    ];
    std::fs::create_dir(&root).with_context(|| format!("cannot create {}", root.display()))?;
    std::fs::create_dir(root.join("tests")).with_context(|| format!("cannot create {}/tests", root.display()))?;
    for (path, text) in &files {
        let path = root.join(path);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    }
    super::api::write(
        &root.join(super::api::FILE),
        &crate::script::definitions().map_err(|e| anyhow::anyhow!("{e}"))?,
    )?;
    let mut out = std::io::stdout().lock();
    let shown = root.display();
    writeln!(
        out,
        "created {shown}/: {name}.lua (the mod), ruleset.toml (loads it), tests/{name}.toml (scenarios), {} (the API, for your editor)\n\
         next: cd {shown} && diving check ruleset.toml && diving mod test",
        super::api::FILE
    )
    .and_then(|()| out.flush())
    .context("cannot write the report")?;
    Ok(ExitCode::SUCCESS)
}
