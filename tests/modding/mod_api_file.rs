//! `diving mod api`: the editor's definition file names every function and value the sandbox
//! registers, with its parameters and one line of doc; `mod new` writes it beside the mod.

use diving::script::{definitions, registered};

/// Fails when a function is registered that the definition file leaves out (one added to an
/// area without a line in `script/api/doc.rs`).
#[test]
fn the_definition_file_names_every_registered_function() {
    let names = registered().unwrap();
    for expected in ["diving.effect", "diving.on_draw", "ctx:depth", "ctx:hand", "ctx:say"] {
        assert!(names.iter().any(|n| n == expected), "{expected} is registered: {names:?}");
    }
    let file = definitions().unwrap();
    assert!(file.starts_with("---@meta diving"), "{}", &file[..80]);
    let missing: Vec<&String> = names
        .iter()
        .filter(|name| {
            let (function, value) = match name.split_once(':') {
                Some((_, method)) => (format!("function ctx:{method}("), None),
                None => (format!("function {name}("), Some(format!("{name} = nil"))),
            };
            !file.contains(&function) && !value.is_some_and(|v| file.contains(&v))
        })
        .collect();
    assert!(missing.is_empty(), "not in the definition file: {missing:?}");
    // Each function comes with its doc line and its parameters.
    assert!(file.contains("--- Moves player p down by distance"), "{file}");
    assert!(
        file.contains("---@param p integer\n---@param distance integer\nfunction ctx:dive(p, distance) end"),
        "{file}"
    );
    assert!(file.contains(
        "---@param rank diving.Rank\n---@param spec diving.EffectSpec\nfunction diving.effect(rank, spec) end"
    ));
}

#[test]
fn mod_new_writes_the_definition_file_beside_the_mod() {
    let dir = tempfile::tempdir().unwrap();
    diving::modkit::new_command("lucky", dir.path()).unwrap();
    let written = std::fs::read_to_string(dir.path().join("lucky").join("diving-api.lua")).unwrap();
    assert_eq!(written, definitions().unwrap());
}
