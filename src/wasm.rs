//! The binding between the core and the service worker: conversions only.

use crate::messages::{FromPage, FromUi};
use crate::registry::{Event, FrameRef, Registry, TabRecord};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Converts a Rust value to plain JSON-compatible JS (objects, not Maps).
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&serializer)
        .map_err(|e| JsError::new(&e.to_string()))
}

fn from_js<T: serde::de::DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| JsError::new(&format!("bad {what}: {e}")))
}

#[derive(Serialize)]
struct Applied {
    results: Vec<crate::registry::Registered>,
    effects: Vec<crate::registry::Effect>,
}

/// Parses a message from Toolgate's own pages into its one typed form, or
/// fails with a clear error. The shell routes on the parsed `type`.
#[wasm_bindgen(js_name = "parseUiMessage")]
pub fn parse_ui_message(message: JsValue) -> Result<JsValue, JsError> {
    let parsed: FromUi = from_js(message, "ui message")?;
    to_js(&parsed)
}

/// The core as the service worker holds it: a cache of the registry it
/// persisted in `chrome.storage.session`.
#[wasm_bindgen]
pub struct Core {
    registry: Registry,
}

#[wasm_bindgen]
impl Core {
    /// Rebuilds the core from stored tab records.
    #[wasm_bindgen(constructor)]
    pub fn new(records: JsValue) -> Result<Core, JsError> {
        let records: Vec<TabRecord> = from_js(records, "stored tab records")?;
        Ok(Core {
            registry: Registry::load(records),
        })
    }

    /// A content script's message; `from` is what the browser said of its sender.
    #[wasm_bindgen(js_name = "fromPage")]
    pub fn page_message(&mut self, from: JsValue, message: JsValue) -> Result<JsValue, JsError> {
        let from: FrameRef = from_js(from, "sender")?;
        let FromPage::Updates { ops } = from_js(message, "page message")?;
        self.apply_event(Event::Page { from, ops })
    }

    /// A browser event (navigation, frames, tab closed).
    pub fn apply(&mut self, event: JsValue) -> Result<JsValue, JsError> {
        let event: Event = from_js(event, "event")?;
        self.apply_event(event)
    }

    /// The palette of one tab.
    pub fn palette(&self, tab_id: f64) -> Result<JsValue, JsError> {
        // Tab ids are small integers; JS hands them over as numbers.
        to_js(&crate::palette::palette(&self.registry, tab_id as i64))
    }

    /// Ids of the tabs that publish tools.
    #[wasm_bindgen(js_name = "tabIds")]
    pub fn tab_ids(&self) -> Vec<f64> {
        // Tab ids are small integers, exactly representable as f64.
        self.registry.tab_ids().map(|id| id as f64).collect()
    }

    fn apply_event(&mut self, event: Event) -> Result<JsValue, JsError> {
        let (results, effects) = self.registry.apply(event);
        to_js(&Applied { results, effects })
    }
}
