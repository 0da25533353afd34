//! Page facts: what pages publish, read and classed. Nothing here knows of
//! agents, answers or views.
//!
//! - [`declaration`]: raw page snapshots in, validated declarations out;
//! - [`classify`]: classes, deciding rules, badges and lint notes (docs/classes.md);
//! - [`hidden`]: the characters people do not see, which notes name and views escape;
//! - [`addressed`]: the phrases that speak to the agent's model, in one list;
//! - [`registry`]: the tools each tab, frame and document publishes, as a state machine;
//! - [`schema`]: arguments checked against a tool's inputSchema;
//! - [`untrusted`]: what in a tool's result may carry someone else's instructions;
//! - [`seen`]: what a call's tab was seen doing, and whose it is;
//! - [`witnessed`]: what a call was seen doing, kept within bounds as it is seen.

pub mod addressed;
pub mod classify;
pub mod conduct;
pub mod declaration;
pub mod hidden;
pub mod provenance;
pub mod registry;
pub mod schema;
pub mod seen;
pub mod untrusted;
pub mod witnessed;
