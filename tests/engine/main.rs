//! The rules engine, its registry, bots and the architecture invariants read from the sources.
//!
//! One test crate of a few (each links the whole library once); each module is one purpose,
//! named as the file it lives in.

#[path = "../support/common.rs"]
mod common;

mod architecture;
mod bots_legal;
mod bots_lua;
mod bots_mcts;
mod bots_plan;
mod bots_view;
mod determinism;
mod properties;
mod proptests;
mod registry;
mod rules;
mod sim_engine;
mod structure;
mod visibility;
