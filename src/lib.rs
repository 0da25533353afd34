//! Toolgate's core: plain Rust, no browser in sight. Its modules import one
//! way only: views → decisions → page facts; the agent protocol depends on
//! nothing else in the core (ARCHITECTURE.md, "Code map").
//!
//! - [`audit`]: the audit's chain of SHA-256 links;
//! - [`page`]: page facts: declarations read, classed, and kept per tab, frame and document;
//! - [`decisions`]: the person's answers, and what each agent request comes to;
//! - [`views`]: the palette and the two cards;
//! - [`protocol`]: what agents send and are sent: JSON-RPC and MCP, and the desktop bridge;
//! - [`audit`]: the audit's entries as OpenTelemetry's OTLP JSON;
//! - [`toolgate`]: everything the service worker holds, rebuilt from storage;
//! - [`messages`]: every message the service worker accepts, typed once, by trust tier;
//! - [`wire`]: how a page's messages are read (one flat reader per type);
//! - [`vecmap`]: the small sorted map of a declaration's annotations and hints.
//!
//! The `wasm` module is the only binding to JavaScript and holds no logic.
#![deny(clippy::unwrap_used)]

pub mod audit;
pub mod decisions;
pub mod messages;
pub mod page;
pub mod protocol;
pub mod toolgate;
pub mod vecmap;
pub mod views;
pub mod wire;

#[cfg(target_arch = "wasm32")]
mod wasm;
