//! The binding of the audit's OTLP JSON (src/audit/otlp.rs): the worker's
//! sender and the settings page's export call it. Conversions only.

use crate::audit::otlp::{convert, Source};
use wasm_bindgen::prelude::*;

/// The audit entries `entries` (a JSON array of them, as the worker stores
/// them) as OTLP JSON: `[traces, logs]`, the JSON text of an
/// `ExportTraceServiceRequest` and of an `ExportLogsServiceRequest`, each ""
/// where the entries hold none of its kind. `instance`: the profile's
/// `service.instance.id`, or "" for none.
#[wasm_bindgen(js_name = "otlpAudit")]
pub fn otlp_audit(entries: &str, instance: &str) -> Result<Vec<String>, JsError> {
    let entries: Vec<serde_json::Value> = serde_json::from_str(entries)
        .map_err(|error| JsError::new(&format!("audit entries: {error}")))?;
    let source = Source {
        instance: (!instance.is_empty()).then(|| instance.to_owned()),
    };
    let otlp = convert(&entries, &source);
    Ok(vec![
        otlp.traces.unwrap_or_default(),
        otlp.logs.unwrap_or_default(),
    ])
}
