//! The audit (docs/rules.md, "Every site, side by side, and the audit"):
//! the chain that keeps each log whole (`chain`), and the worker's audit
//! entries, as JSON objects, turned into OpenTelemetry's OTLP JSON as teams
//! collect it (`otlp`). Imports nothing else in the core (ARCHITECTURE.md,
//! "Layers of the core").

pub mod chain;
pub mod otlp;

pub use chain::{breaks, link, Break, Linked, START};
