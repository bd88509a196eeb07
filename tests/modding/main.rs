//! Mods, rulesets and the mod kit: the Lua API, the sandbox against hostile mods, shipped rulesets.
//!
//! One test crate of a few (each links the whole library once); each module is one purpose,
//! named as the file it lives in.

#[path = "../support/cli.rs"]
mod cli_support;
#[path = "../support/common.rs"]
mod common;

mod audit_leaks;
mod bots_rules;
mod hostile_mods;
mod hostile_runtime;
mod mod_actions;
mod mod_api_file;
mod mod_budget;
mod mod_secrets;
mod mod_state;
mod modkit;
mod mods_api;
mod mods_events;
mod mods_guide;
mod mods_manifest;
mod mods_refusals;
mod ruleset_errors;
mod ruleset_shipped;
