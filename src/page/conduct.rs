//! Hints held to their word (docs/classes.md, "Hints held to their word"):
//! what a tool's tab was seen doing while the tool ran for an agent, whether
//! that broke the tool's hints, and the tools that did, by site, until the
//! person clears them. Pure: the shell watches and hands over what it saw.

use crate::page::classify::Class;
use crate::page::declaration::{Hint, HintState};
use crate::page::registry::Tool;
pub use crate::page::witnessed::Witnessed;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod scope;
pub use scope::{Frame, Part, ANOTHER_FRAME, OTHER_TABS, TOGETHER, USUAL};

/// What the page chose that a flag quotes (a URL, a storage key) is cut to this.
pub const SEEN_CAP: usize = 200;
/// Tools flagged on one site: past this, the whole site is flagged.
pub const FLAGS_PER_SITE: usize = 20;
/// Sites with flags: past this, the site flagged longest ago is forgotten.
pub const FLAGGED_SITES: usize = 100;

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
        if text.len() > at {
            let mut end = at;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
        }
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

fn cut(text: &str) -> String {
    match text.char_indices().nth(SEEN_CAP) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A tool seen doing more than its hints said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Broken {
    /// What it said: "Read only", or "openWorldHint: false".
    pub said: String,
    /// What it was seen doing, in Toolgate's words: "sent POST".
    pub done: String,
    /// What to, as the page chose it: "/api/notes/delete".
    pub to: String,
    /// It reached another site.
    #[serde(default)]
    pub off_site: bool,
    /// Another call ran in the tab at the time: Toolgate cannot tell which
    /// did it. Only in flags kept from before what is seen then was told as
    /// "cannot tell" and flagged nothing (docs/classes.md, "Two calls at once").
    #[serde(default)]
    pub together: bool,
    /// More was seen than this.
    #[serde(default)]
    pub more: usize,
    pub at_ms: u64,
}

impl Broken {
    /// The flag in plain words: "said Read only; during a call it sent POST /api/notes/delete",
    /// with `to`, the page's part, as the caller shows it (views escape it).
    pub fn text(&self, to: &str) -> String {
        let (head, tail) = self.around();
        let head = if to.is_empty() {
            head.trim_end()
        } else {
            &head
        };
        format!("{head}{to}{tail}")
    }

    /// Toolgate's words before and after the page's part (`to`; no space
    /// before it when it is empty).
    pub fn around(&self) -> (String, String) {
        let space = if self.to.is_empty() { "" } else { " " };
        let head = format!("said {}; during a call it {}{space}", self.said, self.done);
        let mut tail = String::new();
        if self.more > 0 {
            tail.push_str(&format!(" (and {} more)", self.more));
        }
        if self.together {
            tail.push_str(
                "; another call ran in the tab at the same time, and Toolgate cannot tell which of them did it",
            );
        }
        (head, tail)
    }
}

/// What a call is watched for, taken when it starts: its tool's site and
/// name, and what its hints said. Taken then, since a call may end with its
/// document gone (it navigated), and the tool with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watch {
    pub site: String,
    pub tool: String,
    /// Its hints said Read only.
    pub read_only: bool,
    /// It declared `openWorldHint: false` and is not Consequential.
    pub stays_on_site: bool,
}

impl Watch {
    /// What to watch a call of `tool` on `site` for; `None` when its hints
    /// promise nothing a call could be seen breaking (a Consequential tool).
    pub fn of(tool: &Tool, site: &str) -> Option<Watch> {
        let class = tool.verdict.class?;
        let read_only = class == Class::ReadOnly;
        let stays_on_site =
            class != Class::Consequential && tool.decl.hint(Hint::OpenWorld) == HintState::False;
        (read_only || stays_on_site).then(|| Watch {
            site: site.to_owned(),
            tool: tool.decl.name.clone(),
            read_only,
            stays_on_site,
        })
    }

    /// Whether what the call was seen doing broke its hints: a Read only
    /// tool that changed state, or one that declared `openWorldHint: false`
    /// and reached another site (docs/classes.md). Everything seen is judged:
    /// what was kept, and what was counted past the bounds.
    pub fn judge(&self, witnessed: &Witnessed, now_ms: u64) -> Option<Broken> {
        let site = self.site.as_str();
        // Only what the call caused is judged (`Seen::part`).
        let seen: Vec<&Seen> = witnessed
            .kept()
            .iter()
            .filter(|s| witnessed.part(s) == Part::Call)
            .collect();
        let changing = |s: &&&Seen| s.changes_state();
        let away = |s: &&&Seen| s.off_site(site);
        let (said, found, unkept): (&str, Vec<&Seen>, usize) =
            if self.read_only && seen.iter().any(|s| changing(&s)) {
                let unkept = witnessed.unkept(|changes, _| changes);
                (
                    "Read only",
                    seen.iter().filter(changing).copied().collect(),
                    unkept,
                )
            } else if self.stays_on_site && seen.iter().any(|s| away(&s)) {
                let unkept = witnessed.unkept(|_, off| off);
                (
                    "openWorldHint: false",
                    seen.iter().filter(away).copied().collect(),
                    unkept,
                )
            } else {
                return None;
            };
        // Told apart, a seen thing counts before one that cannot be.
        let first = found
            .iter()
            .find(|s| !s.together())
            .or(found.first())
            .copied()?;
        let (done, to) = first.words(site);
        Some(Broken {
            said: said.to_owned(),
            done,
            to,
            off_site: first.off_site(site),
            together: first.together(),
            more: found.len() - 1 + unkept,
            at_ms: now_ms,
        })
    }
}

/// What a call's tab was seen doing, as its reply tells its agent (under
/// `_meta.toolgate`): each thing in Toolgate's words, and the broken hint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conduct {
    pub seen: Vec<SeenWords>,
    /// Things seen and judged, but not told (past `SEEN_TOLD`).
    #[serde(skip_serializing_if = "is_zero")]
    pub more_seen: usize,
    /// Another call ran in the tab meanwhile.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub overlapped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broke: Option<BrokeWords>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeenWords {
    pub done: String,
    pub to: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub off_site: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cannot_tell: bool,
    /// Why Toolgate cannot tell whether the call did it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BrokeWords {
    /// The hint broken: "Read only", "openWorldHint: false".
    pub said: String,
    pub text: String,
}

impl Conduct {
    /// At most this many things seen are told per call (all are judged).
    pub const SEEN_TOLD: usize = 20;

    /// What `witnessed` holds, told: what changes state first, then what
    /// reaches another site, then the rest, each in the order seen; cut to
    /// `SEEN_TOLD`, with what was not told counted.
    pub fn of(
        watch: &Watch,
        witnessed: &Witnessed,
        overlapped: bool,
        broke: Option<&Broken>,
    ) -> Conduct {
        let site = watch.site.as_str();
        let mut told: Vec<&Seen> = witnessed.kept().iter().collect();
        told.sort_by_key(|s| (!s.changes_state(), !s.off_site(site)));
        told.truncate(Conduct::SEEN_TOLD);
        Conduct {
            more_seen: witnessed.total() - told.len(),
            seen: told
                .into_iter()
                .map(|s| {
                    let why = match witnessed.part(s) {
                        Part::CannotTell(why) => Some(why),
                        _ => None,
                    };
                    let (done, to) = s.words(site);
                    SeenWords {
                        done,
                        to,
                        off_site: s.off_site(site),
                        cannot_tell: why.is_some(),
                        why: why.map(str::to_owned),
                    }
                })
                .collect(),
            overlapped,
            broke: broke.map(|b| BrokeWords {
                said: b.said.clone(),
                text: b.text(&b.to),
            }),
        }
    }
}

/// The flags of one site.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteFlags {
    /// By tool name.
    #[serde(default)]
    pub tools: BTreeMap<String, Broken>,
    /// Past `FLAGS_PER_SITE` tools, the site as a whole: every tool on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole: Option<Broken>,
}

/// Every flag, by site: what `chrome.storage.local` keeps (`hints_broken`).
/// A re-registration does not clear a flag (a tool that lied would register
/// again after each call); only the person does.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    #[serde(default)]
    pub sites: BTreeMap<String, SiteFlags>,
}

impl Flags {
    /// The flag that holds for `tool` on `site`, if any.
    pub fn of(&self, site: &str, tool: &str) -> Option<&Broken> {
        let flags = self.sites.get(site)?;
        flags.tools.get(tool).or(flags.whole.as_ref())
    }

    /// Flags `tool` on `site` (a flag it has is replaced by the newer).
    pub fn flag(&mut self, site: &str, tool: &str, broken: Broken) {
        if !self.sites.contains_key(site) && self.sites.len() >= FLAGGED_SITES {
            let oldest = self
                .sites
                .iter()
                .min_by_key(|(_, f)| f.tools.values().chain(&f.whole).map(|b| b.at_ms).max())
                .map(|(s, _)| s.clone());
            if let Some(oldest) = oldest {
                self.sites.remove(&oldest);
            }
        }
        let flags = self.sites.entry(site.to_owned()).or_default();
        if flags.tools.contains_key(tool) || flags.tools.len() < FLAGS_PER_SITE {
            flags.tools.insert(tool.to_owned(), broken);
        } else {
            flags.whole = Some(broken);
        }
    }

    /// The person cleared `tool`'s flag on `site` (with no tool, the site's
    /// flag as a whole). Whether there was one.
    pub fn clear(&mut self, site: &str, tool: Option<&str>) -> bool {
        let Some(flags) = self.sites.get_mut(site) else {
            return false;
        };
        let cleared = match tool {
            Some(tool) => flags.tools.remove(tool).is_some(),
            None => flags.whole.take().is_some(),
        };
        if flags.tools.is_empty() && flags.whole.is_none() {
            self.sites.remove(site);
        }
        cleared
    }
}

#[cfg(test)]
mod tests;
