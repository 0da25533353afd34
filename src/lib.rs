//! Toolgate's core: plain Rust, no browser in sight.
//!
//! - [`declaration`]: raw page snapshots in, validated declarations out;
//! - [`classify`]: seed 000's classes, rules, badges and lint notes;
//! - [`registry`]: the tools each tab, frame and document publishes, as a state machine;
//! - [`palette`]: the view the tools palette shows;
//! - [`messages`]: every message the service worker accepts, typed once, by trust tier.
//!
//! The `wasm` module is the only binding to JavaScript and holds no logic.
#![deny(clippy::unwrap_used)]

pub mod classify;
pub mod declaration;
pub mod messages;
pub mod palette;
pub mod registry;

#[cfg(target_arch = "wasm32")]
mod wasm;
