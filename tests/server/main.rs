//! `diving host` and `diving join`: rooms, the WebSocket protocol, leaks, the browser seat.
//!
//! One test crate of a few (each links the whole library once); each module is one purpose,
//! named as the file it lives in.

#[path = "../support/server.rs"]
mod server_support;

mod browser;
mod browser_a11y;
mod browser_lobby;
mod browser_upload;
mod mod_secrets_everywhere;
mod server_busy;
mod server_crash;
mod server_leaks;
mod server_limits;
mod server_lobby;
mod server_net;
mod server_protocol;
mod server_pty;
mod server_rejoin;
mod server_upload;
mod server_web;
