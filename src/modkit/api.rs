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

/// Writes the definitions to `path`, refusing to write over a file this command did not write,
/// and anything but a regular file: a symbolic link (even one to nowhere, which writing would
/// have followed and created its target), a folder, a device.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => anyhow::bail!(
            "{} is a symbolic link: the definitions are written only to a regular file (choose another name)",
            path.display()
        ),
        Ok(meta) if !meta.is_file() => {
            anyhow::bail!("{} exists and is not a regular file: choose another name", path.display())
        }
        Ok(_) => {
            let old = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            if !old.starts_with(HEADER.as_bytes()) {
                anyhow::bail!(
                    "{} exists and is not a definition file diving wrote: choose another name",
                    path.display()
                );
            }
        }
        Err(_) => {}
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43: `diving mod api FILE` where FILE was a link to nowhere created the link's
    /// target.
    #[test]
    fn a_link_is_refused_and_its_target_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere.lua");
        let link = dir.path().join("api.lua");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write(&link, "---@meta diving\n").unwrap_err().to_string();
        assert!(e.contains("is a symbolic link"), "{e}");
        assert!(!target.exists(), "the link's target was created");
        let e = write(dir.path(), "---@meta diving\n").unwrap_err().to_string();
        assert!(e.contains("is not a regular file"), "{e}");
        let file = dir.path().join("diving-api.lua");
        write(&file, "---@meta diving\nfirst\n").unwrap();
        write(&file, "---@meta diving\nsecond\n").unwrap();
        assert!(std::fs::read_to_string(&file).unwrap().ends_with("second\n"));
    }
}
