//! What a tool's tab was seen doing during an agent's call, in Toolgate's
//! words, and whose it is (`scope`): the facts the watch judges
//! (`page::conduct`) and keeps (`page::witnessed`), below both so that
//! they import one way (ARCHITECTURE.md, "Layers of the core").

use serde::{Deserialize, Serialize};

mod scope;
pub use scope::{Frame, Part, ANOTHER_FRAME, OTHER_TABS, TOGETHER, USUAL};

/// What the page chose that a flag quotes (a URL, a storage key) is cut to this.
pub const SEEN_CAP: usize = 200;

/// One thing a tool's tab was seen doing during a call. `together`: another
/// call ran in the tab at the time, and Toolgate cannot tell which did it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Seen {
    /// A request the browser saw the tab send (`chrome.webRequest`), or the
    /// site's service worker send while the call ran.
    Request {
        method: String,
        url: String,
        /// The browser's resource type: `xmlhttprequest`, `ping`, `main_frame`, …
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        together: bool,
        /// Which frame sent it, beside the tool's, as the browser says.
        #[serde(default)]
        frame: Frame,
        /// The origin of the document or worker that started it (the
        /// browser's `initiator`); none: the tool's own.
        #[serde(default)]
        from: Option<String>,
        /// The same request (its sender, method and address without the
        /// query) was seen outside calls: the page sends it on its own too.
        #[serde(default)]
        usual: bool,
        /// Sent by a worker with no tab while the site was open in another
        /// tab too, which could have sent it through the same worker.
        #[serde(default)]
        other_tabs: bool,
    },
    /// A request the browser saw a window send that the call opened (its
    /// tab, opened during the call: docs/classes.md). Its first navigation,
    /// by GET, is the opening itself.
    Opened {
        method: String,
        url: String,
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        together: bool,
    },
    /// A write to the page's storage the shim saw, or the relay found when it
    /// compared the storage before and after the call.
    Storage {
        /// `localStorage`, `sessionStorage`, `indexedDB` or `cookie`.
        area: String,
        /// `set`, `remove`, `clear`, `delete_database`; from the compare,
        /// `changed` (too large to say which key, but its keys were more or
        /// fewer), `unchecked` (too large to compare) and `elsewhere` (another
        /// window of the site wrote it meanwhile): Toolgate cannot tell these two.
        op: String,
        /// The key, cookie name, or IndexedDB database and store.
        #[serde(default)]
        key: String,
        #[serde(default)]
        together: bool,
    },
}

/// The request types that reach out on a tool's behalf: another site seen
/// in one of these breaks `openWorldHint: false`. Images, styles, scripts
/// and fonts a page loads are left out: they render, they do not act.
const ACTIVE_TYPES: [&str; 5] = [
    "xmlhttprequest",
    "ping",
    "websocket",
    "main_frame",
    "sub_frame",
];

impl Seen {
    /// A request the tool's own frame sent by script during a call, with no
    /// other call running in the tab and not among the page's own traffic:
    /// the plainest thing a call is seen doing (tests and the fuzzer build
    /// what a call did from it).
    pub fn by_script(method: &str, url: &str) -> Seen {
        Seen::Request {
            method: method.into(),
            url: url.into(),
            kind: "xmlhttprequest".into(),
            together: false,
            frame: Frame::Tool,
            from: None,
            usual: false,
            other_tabs: false,
        }
    }

    pub(crate) fn together(&self) -> bool {
        match self {
            Seen::Request { together, .. }
            | Seen::Opened { together, .. }
            | Seen::Storage { together, .. } => *together,
        }
    }

    /// Whether it changes state: a request other than GET, HEAD or OPTIONS,
    /// a navigation of the tab (a frame's, unless by GET; a window the call
    /// opened, unless by GET), a storage write.
    pub fn changes_state(&self) -> bool {
        let unsafe_method = |method: &str| {
            !["GET", "HEAD", "OPTIONS"].contains(&method.to_ascii_uppercase().as_str())
        };
        match self {
            Seen::Request { method, kind, .. } => kind == "main_frame" || unsafe_method(method),
            Seen::Opened { method, .. } => unsafe_method(method),
            // Told, not judged: Toolgate cannot tell whether the call wrote it.
            Seen::Storage { op, .. } => op != "unchecked" && op != "elsewhere",
        }
    }

    /// Whether it reaches a site other than `site` (an origin).
    pub fn off_site(&self, site: &str) -> bool {
        match self {
            Seen::Request { url, kind, .. } | Seen::Opened { url, kind, .. } => {
                origin_of(url) != site
                    && (ACTIVE_TYPES.contains(&kind.as_str()) || self.changes_state())
            }
            Seen::Storage { .. } => false,
        }
    }

    /// The same, with what the page chose (a URL, a key) cut to `at` bytes
    /// (at a character's boundary): what is kept of it.
    pub(crate) fn cut_to(mut self, at: usize) -> Seen {
        let text = match &mut self {
            Seen::Request { url, .. } | Seen::Opened { url, .. } => url,
            Seen::Storage { key, .. } => key,
        };
        let end = cut_bytes(text, at).len();
        text.truncate(end);
        self
    }

    /// What was done, in Toolgate's words, and what it was done to, as the
    /// page chose it (cut): "sent POST" and "/api/notes/delete".
    pub fn words(&self, site: &str) -> (String, String) {
        match self {
            Seen::Request {
                method, url, kind, ..
            } => {
                let method = method.to_ascii_uppercase();
                let done = match kind.as_str() {
                    "main_frame" if method == "GET" => "navigated the tab to".to_owned(),
                    "main_frame" => format!("navigated the tab with {method}"),
                    "sub_frame" => format!("navigated a frame with {method}"),
                    "ping" => format!("sent a beacon, {method}"),
                    _ => format!("sent {method}"),
                };
                (done, place(url, site))
            }
            Seen::Opened {
                method, url, kind, ..
            } => {
                let method = method.to_ascii_uppercase();
                let done = match kind.as_str() {
                    "main_frame" if method == "GET" => "opened a window at".to_owned(),
                    "main_frame" => format!("opened a window with {method}"),
                    "sub_frame" => format!("opened a window whose frame navigated with {method}"),
                    "ping" => format!("opened a window that sent a beacon, {method}"),
                    _ => format!("opened a window that sent {method}"),
                };
                (done, place(url, site))
            }
            Seen::Storage { area, op, key, .. } => {
                let area = match area.as_str() {
                    "localStorage" | "sessionStorage" | "indexedDB" | "cookie" => area.as_str(),
                    _ => "storage",
                };
                let done = match (area, op.as_str()) {
                    ("cookie", _) => "set the cookie".to_owned(),
                    ("indexedDB", "delete_database") => "deleted the IndexedDB database".to_owned(),
                    ("indexedDB", "remove") => "deleted from IndexedDB".to_owned(),
                    ("indexedDB", "clear") => "cleared in IndexedDB".to_owned(),
                    ("indexedDB", _) => "wrote to IndexedDB".to_owned(),
                    (_, "remove") => format!("removed from {area}"),
                    (_, "clear") => format!("cleared {area}"),
                    (_, "changed") => format!("changed {area} (too large to say which key)"),
                    (_, "elsewhere") => format!("wrote, or another window of the site wrote, {area}"),
                    (_, "unchecked") => format!(
                        "could not compare {area} (too large to check): Toolgate cannot tell whether it was written"
                    ),
                    _ => format!("wrote {area}"),
                };
                (done, cut(key))
            }
        }
    }
}

/// Where a URL goes, in a flag's words: on `site` a path says enough (cut);
/// elsewhere, the whole URL.
fn place(url: &str, site: &str) -> String {
    let place = if origin_of(url) == site {
        &url[site.len()..]
    } else {
        url
    };
    cut(if place.is_empty() { "/" } else { place })
}

/// The origin of a URL as the browser writes one (`scheme://host[:port]`).
fn origin_of(url: &str) -> &str {
    let Some(after) = url.find("://").map(|i| i + 3) else {
        return url;
    };
    let end = url[after..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after + i);
    &url[..end]
}

/// `text` cut to at most `at` bytes, at a character's boundary: what is kept
/// of what the page chose (`Seen::cut_to`), and what it is compared with
/// (`Witnessed`'s requests the page sent).
pub(crate) fn cut_bytes(text: &str, at: usize) -> &str {
    let mut end = text.len().min(at);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(SEEN_CAP) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
