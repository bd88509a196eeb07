//! `diving mod api`: the editor's definition file of the mod API, a LuaCATS `---@meta` file
//! ([`crate::script::definitions`], made from what the sandbox registers), so that an editor
//! with the Lua language server completes and checks a mod. `diving mod new` writes it beside
//! the starter mod too.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

/// The file name `mod new` and `mod api` write by default.
pub const FILE: &str = "diving-api.lua";

/// The first line of a file this command wrote, which it may write over.
const HEADER: &str = "---@meta diving";

/// `diving mod api [FILE]`: writes the definition file to `file` (`-`: standard output). A
/// file that exists is written over only when this command wrote it (it starts with the
/// `---@meta diving` line).
pub fn api_command(file: &Path) -> anyhow::Result<ExitCode> {
    let text = crate::script::definitions().map_err(|e| anyhow::anyhow!("{e}"))?;
    if file == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("cannot write the definitions")?;
        return Ok(ExitCode::SUCCESS);
    }
    write(file, &text)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "wrote {}: the mod API for editors (LuaCATS, as the Lua language server reads it)", file.display())
        .and_then(|()| out.flush())
        .context("cannot write the report")?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the definitions to `path`, refusing to write over a file this command did not write.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Ok(old) = std::fs::read_to_string(path)
        && !old.starts_with(HEADER)
    {
        anyhow::bail!("{} exists and is not a definition file diving wrote: choose another name", path.display());
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
