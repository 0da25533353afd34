//! The binding of a content script's messages (`FromPage`): read, applied
//! or weighed, and handed to the shell (extension/background/pages.js).
//! Conversions only.

use super::{read, write, Core};
use crate::decisions::agent::FrameCall;
use crate::decisions::exposed::PageCall;
use crate::messages::FromPage;
use crate::page::registry::FrameRef;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A page's message as `fromPage` read it (`FromPage`): a report applied,
/// or what the shell carries out (extension/background/pages.js).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum PageRead {
    Updates {
        results: Vec<crate::page::registry::Registered>,
        effects: Vec<crate::page::registry::Effect>,
        /// The origins whose view of the frame's exposed tools changed.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        exposed_changed: Vec<String>,
        /// What the audit keeps of the report (`lifecycle::changes`).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_changes: Vec<crate::decisions::lifecycle::changes::ToolChange>,
    },
    /// `number` is the page's own number for the call.
    NativeCall { number: u64, call: FrameCall },
    /// A native call that a page announced (`ExposedCall`): it runs as that
    /// page's call, with no card (`decisions::exposed`).
    PageCall { number: u64, page_call: PageCall },
    /// Whether the page's announced call got its pass.
    Exposed { number: u64, granted: bool },
    /// Read, for the shell to answer with its view of the tab's frames
    /// (src/wasm/exposed.rs).
    ExposedTools {
        number: u64,
        from_origins: Vec<String>,
    },
    ExposedRun {
        number: u64,
        run: crate::decisions::exposed::ExposedRun,
    },
}

#[wasm_bindgen]
impl Core {
    /// A content script's message (`FromPage`); `from` is what the browser
    /// said of its sender. A report is applied here, and a page's announced
    /// call of an exposed tool weighed; a native call comes back read
    /// (`PageRead`), for the shell to carry out, or as the page call it was
    /// announced as. `now_ms`: the shell's clock, for the passes' expiry.
    #[wasm_bindgen(js_name = "fromPage")]
    pub fn page_message(
        &mut self,
        from: &str,
        message: &str,
        now_ms: f64,
    ) -> Result<String, JsError> {
        let from: FrameRef = read(from, "sender")?;
        let now_ms = now_ms as u64;
        match read(message, "page message")? {
            FromPage::Updates { ops, .. } => {
                let ((results, effects, exposed_changed), tool_changes) =
                    self.0.apply_page_audited(from, ops, now_ms);
                write(&PageRead::Updates {
                    results,
                    effects,
                    exposed_changed,
                    tool_changes,
                })
            }
            FromPage::NativeCall {
                call,
                source,
                name,
                arguments,
            } => {
                let frame_call = FrameCall {
                    tab_id: from.tab_id,
                    frame_id: from.frame_id,
                    document_id: from.document_id,
                    source,
                    name,
                    arguments,
                };
                match self.0.page_call(&frame_call, now_ms) {
                    Some(page_call) => write(&PageRead::PageCall {
                        number: call,
                        page_call,
                    }),
                    None => write(&PageRead::NativeCall {
                        number: call,
                        call: frame_call,
                    }),
                }
            }
            FromPage::ExposedCall { call, exposed } => {
                let granted = self.0.exposed_call(&from, &exposed, now_ms).is_ok();
                write(&PageRead::Exposed {
                    number: call,
                    granted,
                })
            }
            FromPage::ExposedTools { call, from_origins } => write(&PageRead::ExposedTools {
                number: call,
                from_origins,
            }),
            FromPage::ExposedRun { call, run } => {
                write(&PageRead::ExposedRun { number: call, run })
            }
        }
    }
}
