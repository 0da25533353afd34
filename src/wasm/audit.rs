//! The binding of the audit's chain (src/audit.rs; extension/background/audit.js).
//! Conversions only.

use wasm_bindgen::prelude::*;

/// The hash of an entry whose JSON text is `text`, after the entry whose
/// hash is `prev` ("" for a log's first).
#[wasm_bindgen(js_name = "auditLink")]
pub fn audit_link(prev: &str, text: &str) -> String {
    crate::audit::link(prev, text)
}

/// Where a log breaks: `entries` the JSON array of its stored entries
/// (`{seq, prev, hash, text}`), oldest first; `before` the hash of the last
/// entry it let go, `last` of the last it wrote. The JSON array of breaks,
/// `[]` for a whole log.
#[wasm_bindgen(js_name = "auditBreaks")]
pub fn audit_breaks(before: &str, last: &str, entries: &str) -> Result<String, JsError> {
    let entries: Vec<crate::audit::Linked> = super::read(entries, "audit entries")?;
    serde_json::to_string(&crate::audit::breaks(before, last, &entries))
        .map_err(|error| JsError::new(&error.to_string()))
}
