//! Toolgate's core: plain Rust, no browser in sight.
//!
//! - [`declaration`]: raw page snapshots in, validated declarations out;
//! - [`classify`]: seed 000's classes, rules, badges and lint notes;
//! - [`registry`]: the tools each tab, frame and document publishes, as a state machine;
//! - [`palette`]: the view the tools palette shows;
//! - [`bridge`]: the protocol between desktop agents (toolgate-mcp) and the extension;
//! - [`answers`]: seed 001's answers, per chat and site, and what a call needs;
//! - [`agent`]: the agent entry (MCP-shaped requests), pending calls and their cards;
//! - [`cards`]: the two cards' texts and menus, word for word from seed 001;
//! - [`schema`]: arguments checked against a tool's inputSchema;
//! - [`messages`]: every message the service worker accepts, typed once, by trust tier;
//! - [`wire`]: how tagged messages are read (one reader per type);
//! - [`vecmap`]: the small sorted map every map in the core is.
//!
//! The `wasm` module is the only binding to JavaScript and holds no logic.
#![deny(clippy::unwrap_used)]

pub mod agent;
pub mod answers;
pub mod bridge;
pub mod cards;
pub mod classify;
pub mod declaration;
pub mod messages;
pub mod palette;
pub mod registry;
pub mod schema;
pub mod vecmap;
pub mod wire;

#[cfg(target_arch = "wasm32")]
mod wasm;
