//! Page facts: what pages publish, read and classed. Nothing here knows of
//! agents, answers or views.
//!
//! - [`declaration`]: raw page snapshots in, validated declarations out;
//! - [`classify`]: classes, deciding rules, badges and lint notes (docs/classes.md);
//! - [`registry`]: the tools each tab, frame and document publishes, as a state machine;
//! - [`schema`]: arguments checked against a tool's inputSchema.

pub mod classify;
pub mod conduct;
pub mod declaration;
pub mod registry;
pub mod schema;
