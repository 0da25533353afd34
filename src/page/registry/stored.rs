//! How the registry is stored, and how much of it pages may store.
//!
//! One `chrome.storage.session` key per tool (`tool:<tab>:<seq>`), holding
//! the page's raw snapshot and where it came from: a report costs writes in
//! proportion to what it changed, not to what its tab publishes
//! (ARCHITECTURE.md, "stored state is the page's raw snapshots").
//!
//! Pages share that storage area with the agent session (the person's
//! answers), whose writes must never fail because a page filled it. So the
//! core, which knows the size of every entry it stores, holds all pages
//! together to `PAGE_BYTES`, one tab to `TAB_BYTES` and one site to
//! `SITE_BYTES`, and refuses a registration that would pass one of them. The
//! rest of the 10 MB quota is the session's (docs/classes.md, "What Toolgate
//! keeps").

use super::*;
use std::cell::{Cell, OnceCell};

/// How every stored tool's key starts.
pub const TOOL_KEY: &str = "tool:";
/// The most bytes one tab's tools may take in storage, all its frames together.
pub const TAB_BYTES: usize = 2 * 1024 * 1024;
/// The most bytes one site's tools may take in storage, across every tab.
pub const SITE_BYTES: usize = 3 * 1024 * 1024;
/// The most bytes every page's tools together may take in storage. The
/// session area holds 10 MB; what pages cannot take is the agent session's.
pub const PAGE_BYTES: usize = 6 * 1024 * 1024;
/// What the browser counts for one stored string beyond its key's and its
/// text's UTF-8 bytes (measured on Chromium 148: 7 or 8); rounded up.
const ENTRY_OVERHEAD: usize = 16;

/// One tool as stored, under its own key: the page's snapshot, cut to its
/// caps (`RawDeclaration::bounded`), and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredTool {
    pub tab_id: TabId,
    pub frame_id: FrameId,
    pub document_id: String,
    pub origin: String,
    /// Its place in the registry's order of registrations; its key's end.
    pub seq: u64,
    /// Given by `provideContext`, so the next `provideContext` replaces it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provided: bool,
    pub decl: RawDeclaration,
}

impl StoredTool {
    pub fn key(&self) -> String {
        key(self.tab_id, self.seq)
    }
}

pub(super) fn key(tab_id: TabId, seq: u64) -> String {
    format!("{TOOL_KEY}{tab_id}:{seq}")
}

/// What one stored entry costs in the browser's count.
pub(super) fn entry_bytes(key: &str, text: &str) -> usize {
    key.len() + text.len() + ENTRY_OVERHEAD
}

/// The writes one event comes to, key by key: the last word on each key wins.
#[derive(Debug, Default)]
pub(super) struct Writes(BTreeMap<String, Option<String>>);

impl Writes {
    pub(super) fn set(&mut self, key: String, text: String) {
        self.0.insert(key, Some(text));
    }

    pub(super) fn remove(&mut self, key: String) {
        self.0.insert(key, None);
    }

    /// Every tool of a frame gone.
    pub(super) fn drop_frame(&mut self, tab_id: TabId, frame: &Frame) {
        for tool in &frame.tools {
            self.remove(key(tab_id, tool.seq));
        }
    }

    /// The tab's stored tools that did not read when it was read (`read_tab`):
    /// no core can use them, so their keys go too.
    pub(super) fn drop_left_out(&mut self, tab_id: TabId, tab: &TabFrames) {
        for seq in tab.left_out.take() {
            self.remove(key(tab_id, seq));
        }
    }

    pub(super) fn into_effect(self, tab_id: TabId) -> Option<Effect> {
        if self.0.is_empty() {
            return None;
        }
        let mut set = BTreeMap::new();
        let mut remove = Vec::new();
        for (key, text) in self.0 {
            match text {
                Some(text) => {
                    set.insert(key, text);
                }
                None => remove.push(key),
            }
        }
        Some(Effect::Store {
            tab_id,
            set,
            remove,
        })
    }
}

/// The room one frame's tools have in storage: what its tab, its site and
/// all pages may store, less what the other frames already do.
#[derive(Clone, Debug)]
pub(super) struct Room {
    pub(super) tab: usize,
    pub(super) site: usize,
    pub(super) pages: usize,
    pub(super) site_name: String,
}

impl Room {
    /// Why a frame whose tools would take `bytes` cannot store them, if it cannot.
    pub(super) fn refuses(&self, bytes: usize, noun: &str) -> Option<String> {
        let mb = |cap: usize| cap / (1024 * 1024);
        if bytes > self.tab {
            Some(format!(
                "Toolgate stores at most {} MB ({TAB_BYTES} bytes) of tools for one tab; this {noun} would pass it",
                mb(TAB_BYTES)
            ))
        } else if bytes > self.site {
            Some(format!(
                "Toolgate stores at most {} MB ({SITE_BYTES} bytes) of tools for one site ({}), across its tabs; this {noun} would pass it",
                mb(SITE_BYTES),
                self.site_name
            ))
        } else if bytes > self.pages {
            Some(format!(
                "Toolgate stores at most {} MB ({PAGE_BYTES} bytes) of tools for every tab together; this {noun} would pass it",
                mb(PAGE_BYTES)
            ))
        } else {
            None
        }
    }
}

impl Registry {
    /// The room frame `frame_id` of tab `tab_id`, showing a document of
    /// `site`, has: the other frames' stored bytes taken off each cap.
    pub(super) fn room(&self, tab_id: TabId, frame_id: FrameId, site: &str) -> Room {
        let (mut tab, mut same_site, mut pages) = (0, 0, 0);
        for (&t, frames) in self.tabs.iter() {
            for frame in frames.get().values() {
                if t == tab_id && frame.frame_id == frame_id {
                    continue;
                }
                pages += frame.bytes;
                if t == tab_id {
                    tab += frame.bytes;
                }
                if frame.site() == site {
                    same_site += frame.bytes;
                }
            }
        }
        Room {
            tab: TAB_BYTES.saturating_sub(tab),
            site: SITE_BYTES.saturating_sub(same_site),
            pages: PAGE_BYTES.saturating_sub(pages),
            site_name: site.to_owned(),
        }
    }

    /// How many tabs' stored tools were read since the registry was loaded
    /// (`Registry::load`): a start reads none, an agent's call its own tab's.
    pub fn tabs_read(&self) -> usize {
        self.tabs.values().filter(|t| t.read()).count()
    }

    /// The bytes every stored tool takes, as the browser counts them.
    pub fn stored_bytes(&self) -> usize {
        self.tabs
            .values()
            .flat_map(|frames| frames.get().values())
            .map(|f| f.bytes)
            .sum()
    }

    /// Every tool as stored: (key, JSON text), for checks and benchmarks.
    pub fn stored(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (&tab_id, frames) in self.tabs.iter() {
            for frame in frames.get().values() {
                for tool in &frame.tools {
                    let stored = tool.stored(tab_id, frame);
                    let text = serde_json::to_string(&stored).unwrap_or_default();
                    out.push((stored.key(), text));
                }
            }
        }
        out
    }

    /// Rebuilds the registry from the stored tools, each (its key, its
    /// `StoredTool` as JSON text), in any order. No tool is read here: each
    /// tab's are read the first time the registry needs that tab
    /// (`TabFrames`), so a worker's start reads none of them and an agent's
    /// call only its own tab's (ARCHITECTURE.md, "A worker's start").
    ///
    /// # Errors
    /// When a key is not a stored tool's (`tool:<tab>:<seq>`).
    pub fn load<K: AsRef<str>, T: Into<String>>(
        records: impl IntoIterator<Item = (K, T)>,
    ) -> Result<Registry, String> {
        let mut registry = Registry::new();
        for (key, text) in records {
            let key = key.as_ref();
            let (tab_id, seq) = key
                .strip_prefix(TOOL_KEY)
                .and_then(|rest| rest.split_once(':'))
                .and_then(|(tab, seq)| Some((tab.parse().ok()?, seq.parse().ok()?)))
                .ok_or_else(|| format!("bad stored tool key: {key:?}"))?;
            registry.next_seq = registry.next_seq.max(seq + 1);
            registry
                .tabs
                .entry(tab_id)
                .or_default()
                .unread
                .get_mut()
                .push((seq, text.into()));
        }
        Ok(registry)
    }
}

/// A tab's frames, read from its stored tools the first time they are
/// needed (`Registry::load`). A cache: two are equal when their frames are.
#[derive(Default)]
pub(super) struct TabFrames {
    /// The tab's stored tools not read yet: (seq, JSON text).
    unread: Cell<Vec<(u64, String)>>,
    frames: OnceCell<BTreeMap<FrameId, Frame>>,
    /// The seqs of those that did not read, until the tab's next event
    /// removes their keys (`Writes::drop_left_out`).
    left_out: Cell<Vec<u64>>,
}

impl TabFrames {
    pub(super) fn get(&self) -> &BTreeMap<FrameId, Frame> {
        self.frames.get_or_init(|| {
            let (frames, left_out) = read_tab(self.unread.take());
            self.left_out.set(left_out);
            frames
        })
    }

    pub(super) fn get_mut(&mut self) -> &mut BTreeMap<FrameId, Frame> {
        self.get();
        self.frames.get_mut().expect("read just above")
    }

    /// Whether the tab's stored tools were read.
    pub(super) fn read(&self) -> bool {
        self.frames.get().is_some()
    }
}

impl Clone for TabFrames {
    fn clone(&self) -> TabFrames {
        TabFrames {
            unread: Cell::default(),
            frames: OnceCell::from(self.get().clone()),
            left_out: Cell::default(),
        }
    }
}

impl PartialEq for TabFrames {
    fn eq(&self, other: &TabFrames) -> bool {
        self.get() == other.get()
    }
}

/// Shows what was read, and reads nothing: a tab not read yet shows how
/// many stored tools wait.
impl std::fmt::Debug for TabFrames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(frames) = self.frames.get() {
            return f.debug_map().entries(frames).finish();
        }
        let unread = self.unread.take();
        let waiting = unread.len();
        self.unread.set(unread);
        write!(f, "<{waiting} stored tools not read>")
    }
}

/// One tab's stored tools as frames, in the order they were registered, and
/// the seqs of those left out: a stored tool that no longer reads (written by
/// another version), or whose snapshot no longer validates, is not fatal.
fn read_tab(mut unread: Vec<(u64, String)>) -> (BTreeMap<FrameId, Frame>, Vec<u64>) {
    unread.sort_by_key(|(seq, _)| *seq);
    let mut frames: BTreeMap<FrameId, Frame> = BTreeMap::new();
    let mut left_out = Vec::new();
    for (seq, text) in unread {
        let Ok(s) = serde_json::from_str::<StoredTool>(&text) else {
            left_out.push(seq);
            continue;
        };
        let bytes = entry_bytes(&s.key(), &text);
        let Ok(mut tool) = Tool::new(s.decl, s.provided, &s.origin) else {
            left_out.push(seq);
            continue;
        };
        tool.seq = s.seq;
        tool.bytes = bytes;
        let from = FrameRef {
            tab_id: s.tab_id,
            frame_id: s.frame_id,
            document_id: s.document_id,
            origin: s.origin,
        };
        let frame = frames
            .entry(s.frame_id)
            .or_insert_with(|| Frame::new(&from));
        if frame.document_id != from.document_id {
            // Each write removes a frame's old document's tools as it
            // stores the new one's: two documents in one frame are not
            // stored; the later one is kept.
            *frame = Frame::new(&from);
        }
        frame.bytes += tool.bytes;
        frame.tools.push(tool);
    }
    (frames, left_out)
}
