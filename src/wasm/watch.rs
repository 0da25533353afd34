//! The binding of what an agent's call was seen doing (src/page/witnessed.rs;
//! extension/background/watch.js). Conversions only.

use wasm_bindgen::prelude::*;

/// What one call was seen doing, kept within bounds as the worker sees it
/// (src/page/witnessed.rs; extension/background/watch.js), for `Core::observe`.
#[wasm_bindgen]
pub struct Witness(pub(super) crate::page::witnessed::Witnessed);

#[wasm_bindgen]
impl Witness {
    /// Nothing seen yet, for a call of a tool on `site` (an origin).
    #[wasm_bindgen(constructor)]
    pub fn new(site: &str) -> Witness {
        Witness(crate::page::witnessed::Witnessed::new(site))
    }

    /// A request the browser saw the call's tab, or its site's service
    /// worker, send: `frame` which frame sent it beside the tool's (`tool`,
    /// `child`, `other`, `worker`), `from` its `initiator`, `usual` whether
    /// the page sends it on its own too (src/page/conduct/scope.rs).
    #[allow(clippy::too_many_arguments)]
    pub fn request(
        &mut self,
        method: &str,
        url: &str,
        kind: &str,
        together: bool,
        frame: &str,
        from: Option<String>,
        usual: bool,
    ) {
        use crate::page::conduct::Frame;
        let frame = match frame {
            "tool" => Frame::Tool,
            "child" => Frame::Child,
            "worker" => Frame::Worker,
            _ => Frame::Other,
        };
        self.0.see(crate::page::conduct::Seen::Request {
            method: method.to_owned(),
            url: url.to_owned(),
            kind: kind.to_owned(),
            together,
            frame,
            from,
            usual,
            other_tabs: false,
        });
    }

    /// A request the browser saw a window send that the call opened.
    pub fn opened(&mut self, method: &str, url: &str, kind: &str, together: bool) {
        self.0.see(crate::page::conduct::Seen::Opened {
            method: method.to_owned(),
            url: url.to_owned(),
            kind: kind.to_owned(),
            together,
        });
    }

    /// Whether the site's service worker was seen sending something the
    /// call's (then `otherTabs`, if the site is open in another tab).
    #[wasm_bindgen(js_name = "sawWorker")]
    pub fn saw_worker(&self) -> bool {
        self.0.saw_worker()
    }

    /// The site was open in another tab too: what its worker sent, Toolgate
    /// cannot tell.
    #[wasm_bindgen(js_name = "otherTabs")]
    pub fn other_tabs(&mut self) {
        self.0.other_tabs();
    }

    /// The call's document sent `method` to `url` while the call ran, as the
    /// shim saw it (`undefined`: it could not read which).
    #[wasm_bindgen(js_name = "pageSent")]
    pub fn page_sent(&mut self, method: Option<String>, url: Option<String>) {
        self.0.page_sent(method.as_deref(), url.as_deref());
    }

    /// A write to the page's storage the shim or the relay saw.
    pub fn storage(&mut self, area: &str, op: &str, key: &str, together: bool) {
        self.0.see(crate::page::conduct::Seen::Storage {
            area: area.to_owned(),
            op: op.to_owned(),
            key: key.to_owned(),
            together,
        });
    }

    /// `count` more writes to the page's storage that the shim and the relay
    /// counted but did not keep.
    #[wasm_bindgen(js_name = "unkeptWrites")]
    pub fn unkept_writes(&mut self, count: u32) {
        let write = crate::page::conduct::Seen::Storage {
            area: String::new(),
            op: "set".to_owned(),
            key: String::new(),
            together: false,
        };
        self.0.count(&write, count as usize);
    }
}
