//! The audit as teams collect it (docs/rules.md, "Every site, side by side,
//! and the audit"): the worker's audit entries, as JSON objects, turned into
//! OpenTelemetry's OTLP JSON. Imports nothing else in the core
//! (ARCHITECTURE.md, "Layers of the core").

pub mod otlp;
