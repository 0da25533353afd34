//! Fixtures shared by the core's tests and its benchmarks (benches/core.rs
//! includes this file): where a page's report comes from, and the report.

#![allow(dead_code)] // Each test file uses some of them.

use toolgate::page::registry::{Event, FrameRef};

/// A frame of tab `tab_id`, with its document and its origin.
pub fn frame(tab_id: i64, frame_id: i64, document_id: &str, origin: &str) -> FrameRef {
    FrameRef {
        tab_id,
        frame_id,
        document_id: document_id.to_owned(),
        origin: origin.to_owned(),
    }
}

/// A page's report of `ops` (JSON, as the content script sends them) from a frame.
pub fn page(from: FrameRef, ops: serde_json::Value) -> Event {
    Event::Page {
        from,
        ops: serde_json::from_value(ops).expect("ops parse"),
    }
}
