//! The binding of pages calling each other's tools where the browser has no
//! WebMCP to carry the call (`decisions::exposed::tree`;
//! extension/background/exposed.js). Conversions only.

use super::{read, write, Core};
use crate::decisions::agent::FrameCall;
use crate::decisions::exposed::tree::Tree;
use crate::decisions::exposed::{ExposedRun, PageCall};
use crate::page::registry::FrameRef;
use crate::toolgate::Toolgate;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A page's call of another origin's exposed tool, as the core weighed it.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum PolyfillCall {
    /// Run `call` in its frame, as the page `page_call` names.
    Run {
        call: FrameCall,
        page_call: PageCall,
    },
    Refused {
        why: String,
    },
}

#[wasm_bindgen]
impl Core {
    /// The tools frames of `from_origins` (a JSON list) expose to `from`,
    /// the calling frame as the browser named it, in the tab the shell saw
    /// as `tree` (JSON, `Tree`).
    #[wasm_bindgen(js_name = "exposedTools")]
    pub fn exposed_tools(
        &self,
        from: &str,
        from_origins: &str,
        tree: &str,
    ) -> Result<String, JsError> {
        let from: FrameRef = read(from, "sender")?;
        let from_origins: Vec<String> = read(from_origins, "origins")?;
        let tree: Tree = read(tree, "frame tree")?;
        write(&self.0.exposed_tools(&from, &from_origins, &tree))
    }

    /// A page's call of a tool another origin's frame exposed to it
    /// (`ExposedRun`, as `fromPage` read it): the call to run, or why not.
    #[wasm_bindgen(js_name = "polyfillCall")]
    pub fn polyfill_call(
        &mut self,
        from: &str,
        run: &str,
        tree: &str,
        now_ms: f64,
    ) -> Result<String, JsError> {
        let from: FrameRef = read(from, "sender")?;
        let run: ExposedRun = read(run, "exposed run")?;
        let tree: Tree = read(tree, "frame tree")?;
        match self.0.polyfill_call(&from, &run, &tree, now_ms as u64) {
            Ok((call, page_call)) => write(&PolyfillCall::Run { call, page_call }),
            Err(why) => write(&PolyfillCall::Refused { why }),
        }
    }
}

/// The frames to tell that what frame `owner` exposes to `origins` (a JSON
/// list) changed, in the tab the shell saw as `tree`.
#[wasm_bindgen(js_name = "exposedListeners")]
pub fn exposed_listeners(owner: &str, origins: &str, tree: &str) -> Result<String, JsError> {
    let owner: FrameRef = read(owner, "sender")?;
    let origins: Vec<String> = read(origins, "origins")?;
    let tree: Tree = read(tree, "frame tree")?;
    write(&Toolgate::exposed_listeners(&owner, &origins, &tree))
}
