//! The tools each tab publishes, per frame and document, and how it changes.
//!
//! A state machine: `Registry::apply(event)` changes the state and returns what
//! the shell must do about it (persist a tab, update a badge). The service
//! worker keeps one `Registry` in memory as a cache of what it persisted in
//! `chrome.storage.session`, and rebuilds it from there after a restart.
//! Each tool is persisted as the raw snapshot its page sent (cut to its caps),
//! under its own key (`stored.rs`); classes are derived again when a tab's
//! tools are first read after a restart, so no derived state is ever stored.
//! A tool as held, and what is derived from it on first use: `tool.rs`.

use crate::page::classify::Verdict;
use crate::page::declaration::{Declaration, HintState, Invalid, Kind, Path, RawDeclaration};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod stored;
mod tool;
mod wire;
use stored::{Room, TabFrames, Writes};
pub use stored::{StoredTool, PAGE_BYTES, SITE_BYTES, TAB_BYTES, TOOL_KEY};
pub use tool::Tool;
use wire::OpWire;

pub type TabId = i64;
pub type FrameId = i64;

/// The most tools one document may publish. Past it, registrations are refused
/// with a clear error, so a hostile page cannot fill the worker's memory.
pub const MAX_TOOLS_PER_DOCUMENT: usize = 5_000;

/// Where a message came from, as the browser (not the page) reports it:
/// `sender.tab.id`, `sender.frameId`, `sender.documentId`, `sender.origin`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameRef {
    pub tab_id: TabId,
    pub frame_id: FrameId,
    pub document_id: String,
    /// The frame's origin: the site its tools belong to.
    pub origin: String,
}

/// The object a tool was registered on. Each keeps its own names, as the
/// page's two `modelContext` objects and its forms do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Document,
    Navigator,
    Declarative,
    Other,
}

impl Source {
    /// The object, as a page's author knows it.
    pub fn api(self) -> &'static str {
        match self {
            Source::Document => "document.modelContext",
            Source::Navigator => "navigator.modelContext",
            Source::Declarative => "a <form toolname>",
            Source::Other => "another object",
        }
    }

    pub fn of(path: Path) -> Source {
        match path {
            Path::DocumentObject | Path::DocumentPositional => Source::Document,
            Path::NavigatorObject | Path::NavigatorPositional | Path::ProvideContext => {
                Source::Navigator
            }
            Path::Declarative => Source::Declarative,
            Path::Unknown => Source::Other,
        }
    }
}

/// One change a page reports, in the order it happened: `{"op": "register",
/// "decl": …}`. Read through `OpWire` (see `crate::wire`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "op", rename_all = "snake_case", try_from = "OpWire")]
pub enum Op {
    /// A tool or skill was registered. A name already registered on the same
    /// object is replaced (a re-registration is a new definition).
    Register { decl: Box<RawDeclaration> },
    /// A tool or skill went away (AbortSignal, `unregisterTool`, a form removed).
    Unregister {
        source: Source,
        kind: Kind,
        name: String,
    },
    /// Everything registered on one object went away (`clearContext`).
    Clear { source: Source },
    /// `provideContext({tools})`: replaces the tools given by the last call.
    Provide { decls: Vec<RawDeclaration> },
    /// The document starts over: what follows is all it publishes. Sent when
    /// a page comes back from the back/forward cache, and (with nothing
    /// following) when a document goes away: a removed iframe, a page left.
    Reset,
}

impl Op {
    /// Whether the op adds tools.
    fn registers(&self) -> bool {
        matches!(self, Op::Register { .. } | Op::Provide { .. })
    }
}

/// The answer to one `Register` (or each tool of a `Provide`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct Registered {
    pub name: Option<String>,
    /// The class's label, or `None` for skills and refused declarations.
    pub class: Option<crate::page::classify::Class>,
    /// The annotations of the copy the shim registers with the browser's
    /// own WebMCP, so that the browser's agent sees the same class
    /// (`Class::native_hints`); `None` for skills and refused declarations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<crate::page::classify::NativeHints>,
    /// Why the declaration was refused.
    pub error: Option<String>,
}

impl Registered {
    fn refused(name: Option<String>, error: String) -> Registered {
        Registered {
            name,
            class: None,
            annotations: None,
            error: Some(error),
        }
    }
}

/// An event the shell feeds the registry: `{"type": "navigated", …}`, with
/// only its variant's fields.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// A content script reported changes.
    Page { from: FrameRef, ops: Vec<Op> },
    /// `webNavigation.onCommitted`: the frame now shows a new document.
    Navigated {
        tab_id: TabId,
        frame_id: FrameId,
        document_id: String,
    },
    /// `webNavigation.getAllFrames`: the documents the tab shows now. Anything
    /// else in the registry for this tab is gone (removed iframes, old documents).
    LiveDocuments {
        tab_id: TabId,
        documents: Vec<(FrameId, String)>,
    },
    /// `tabs.onRemoved`.
    TabClosed { tab_id: TabId },
}

/// What the shell must do after an event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// Store what this event changed of a tab: `set` (key → a `StoredTool`'s
    /// JSON text) and `remove` (keys), never the same key in both. Only what
    /// changed: a report costs writes in proportion to its own size. Each
    /// value is one string: `chrome.storage` writes a string several times
    /// faster than the same data as objects.
    Store {
        tab_id: TabId,
        set: BTreeMap<String, String>,
        remove: Vec<String>,
    },
    /// Show the tab's tool count on the action icon (when it changed).
    Badge { tab_id: TabId, count: usize },
}

/// One frame's current document and its tools, in registration order.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub frame_id: FrameId,
    pub document_id: String,
    pub origin: String,
    pub tools: Vec<Tool>,
    /// What its tools' stored entries take, together.
    bytes: usize,
}

/// What one page report may change of storage: the tab it is stored under,
/// the room its frame has, the registry's next place in order, and the
/// writes the report comes to so far.
struct Report<'a> {
    tab_id: TabId,
    room: Room,
    next_seq: &'a mut u64,
    writes: &'a mut Writes,
}

/// How the site of an opaque document starts (`opaque:<document id>`).
const OPAQUE_SITE: &str = "opaque:";

/// Whether a site is an opaque document's (a sandboxed frame, a `data:` URL):
/// not a site anyone can recognise, and never the same for two documents.
pub fn is_opaque_site(site: &str) -> bool {
    site.starts_with(OPAQUE_SITE)
}

impl Frame {
    /// The site its tools belong to, to which answers are bound: its origin,
    /// or for an opaque origin (`"null"`) this document alone, so that an
    /// answer never carries from one opaque document to another
    /// (docs/cards.md, "Sandboxed frames").
    pub fn site(&self) -> String {
        site_of(&self.origin, &self.document_id)
    }

    fn new(from: &FrameRef) -> Frame {
        Frame {
            frame_id: from.frame_id,
            document_id: from.document_id.clone(),
            origin: from.origin.clone(),
            tools: Vec::new(),
            bytes: 0,
        }
    }

    /// Removes the tools `gone` picks, and their stored entries.
    fn remove_where(&mut self, tab_id: TabId, writes: &mut Writes, gone: impl Fn(&Tool) -> bool) {
        let mut freed = 0;
        self.tools.retain(|t| {
            if !gone(t) {
                return true;
            }
            writes.remove(stored::key(tab_id, t.seq));
            freed += t.bytes;
            false
        });
        self.bytes -= freed;
    }

    fn register(&mut self, raw: RawDeclaration, provided: bool, report: &mut Report) -> Registered {
        let name = raw.name.clone();
        let mut tool = match Tool::new(raw, provided, &self.origin) {
            Ok(tool) => tool,
            Err(invalid) => return Registered::refused(name, invalid.to_string()),
        };
        let class = tool.verdict.class;
        // One name is one tool in a document, whichever object registered it
        // first: a second registration of the name on another object is
        // refused as the draft refuses a duplicate; on the same object it
        // replaces the first (ARCHITECTURE.md, "One name, one tool").
        let slot = self
            .tools
            .iter()
            .position(|t| t.decl.kind == tool.decl.kind && t.decl.name == tool.decl.name);
        if let Some(first) = slot
            .map(|i| &self.tools[i])
            .filter(|t| t.source != tool.source)
        {
            return Registered::refused(
                name,
                format!(
                    "InvalidStateError: a {} named {:?} is already registered in this document, on {}",
                    tool.decl.kind.noun(),
                    tool.decl.name,
                    first.source.api()
                ),
            );
        }
        if slot.is_none() && self.tools.len() >= MAX_TOOLS_PER_DOCUMENT {
            return Registered::refused(
                name,
                format!("a document may publish at most {MAX_TOOLS_PER_DOCUMENT} tools"),
            );
        }
        // A replacement keeps its place, and so its key.
        let (seq, old_bytes) = match slot {
            Some(i) => (self.tools[i].seq, self.tools[i].bytes),
            None => (*report.next_seq, 0),
        };
        tool.seq = seq;
        let stored = tool.stored(report.tab_id, self);
        let key = stored.key();
        let text = serde_json::to_string(&stored).unwrap_or_default();
        tool.bytes = stored::entry_bytes(&key, &text);
        let bytes = self.bytes - old_bytes + tool.bytes;
        if bytes > self.bytes {
            if let Some(error) = report.room.refuses(bytes, tool.decl.kind.noun()) {
                return Registered::refused(name, error);
            }
        }
        self.bytes = bytes;
        report.writes.set(key, text);
        match slot {
            Some(i) => self.tools[i] = tool,
            None => {
                *report.next_seq += 1;
                self.tools.push(tool);
            }
        }
        Registered {
            name,
            class,
            annotations: class.map(crate::page::classify::Class::native_hints),
            error: None,
        }
    }
}

/// The site of a document of `origin`: see `Frame::site`.
pub fn site_of(origin: &str, document_id: &str) -> String {
    if origin == "null" {
        format!("{OPAQUE_SITE}{document_id}")
    } else {
        origin.to_owned()
    }
}

/// The registry of every tab's tools.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    /// Each tab's frames, read from storage when first needed (`TabFrames`).
    tabs: BTreeMap<TabId, TabFrames>,
    /// The next registration's place in order (`Tool::seq`).
    next_seq: u64,
    /// The tools seen doing more than their hints said, by site, until the
    /// person clears them: each is treated as Consequential on its site
    /// (docs/classes.md, "Hints held to their word").
    pub flags: crate::page::conduct::Flags,
}

/// Two registries are the same when they hold the same tools; where their
/// counts of registrations stand does not matter.
impl PartialEq for Registry {
    fn eq(&self, other: &Registry) -> bool {
        self.tabs == other.tabs
    }
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// The frames of a tab, by frame id.
    pub fn frames(&self, tab_id: TabId) -> impl Iterator<Item = &Frame> {
        self.tabs
            .get(&tab_id)
            .into_iter()
            .flat_map(|f| f.get().values())
    }

    pub fn tab_ids(&self) -> impl Iterator<Item = TabId> + '_ {
        self.tabs.keys().copied()
    }

    /// How many tools and skills a tab publishes.
    pub fn count(&self, tab_id: TabId) -> usize {
        self.frames(tab_id).map(|f| f.tools.len()).sum()
    }

    /// Applies one event.
    /// Returns what became of each registration (for `Page` events) and the
    /// effects the shell must carry out.
    pub fn apply(&mut self, event: Event) -> (Vec<Registered>, Vec<Effect>) {
        let mut results = Vec::new();
        let mut writes = Writes::default();
        let tab_id = match &event {
            Event::Page { from, .. } => from.tab_id,
            Event::Navigated { tab_id, .. }
            | Event::LiveDocuments { tab_id, .. }
            | Event::TabClosed { tab_id } => *tab_id,
        };
        // Reads the tab if it was not read yet; its stored tools that did not
        // read go from storage with this event (`stored::read_tab`).
        let count = self.count(tab_id);
        if let Some(tab) = self.tabs.get(&tab_id) {
            writes.drop_left_out(tab_id, tab);
        }
        match event {
            Event::Page { from, ops } => {
                let room = self.room(
                    tab_id,
                    from.frame_id,
                    &site_of(&from.origin, &from.document_id),
                );
                let frames = self.tabs.entry(tab_id).or_default().get_mut();
                let current = frames.get(&from.frame_id).map(|f| f.document_id.as_str());
                if current.is_some_and(|doc| doc != from.document_id)
                    && !ops.iter().any(Op::registers)
                {
                    // A late word from a document the frame no longer shows
                    // (it went away as the next one arrived): nothing to change.
                    return (Vec::new(), Vec::new());
                }
                let frame = frames
                    .entry(from.frame_id)
                    .or_insert_with(|| Frame::new(&from));
                if frame.document_id != from.document_id || frame.origin != from.origin {
                    // A new document registers: the old one is gone.
                    writes.drop_frame(tab_id, frame);
                    *frame = Frame::new(&from);
                }
                let mut report = Report {
                    tab_id,
                    room,
                    next_seq: &mut self.next_seq,
                    writes: &mut writes,
                };
                for op in ops {
                    apply_op(frame, op, &mut results, &mut report);
                }
            }
            Event::Navigated {
                frame_id,
                document_id,
                ..
            } => {
                let frames = self.tabs.entry(tab_id).or_default().get_mut();
                if let Some(stale) = frames
                    .get(&frame_id)
                    .filter(|f| f.document_id != document_id)
                {
                    writes.drop_frame(tab_id, stale);
                    frames.remove(&frame_id);
                }
            }
            Event::LiveDocuments { documents, .. } => {
                let frames = self.tabs.entry(tab_id).or_default().get_mut();
                frames.retain(|id, f| {
                    let live = documents
                        .iter()
                        .any(|(i, d)| i == id && *d == f.document_id);
                    if !live {
                        writes.drop_frame(tab_id, f);
                    }
                    live
                });
            }
            Event::TabClosed { .. } => {
                for frame in self
                    .tabs
                    .remove(&tab_id)
                    .iter()
                    .flat_map(|f| f.get().values())
                {
                    writes.drop_frame(tab_id, frame);
                }
            }
        }
        // What is in memory is what is stored: no frame, and no tab, without
        // tools.
        if let Some(frames) = self.tabs.get_mut(&tab_id) {
            let frames = frames.get_mut();
            frames.retain(|_, f| !f.tools.is_empty());
            if frames.is_empty() {
                self.tabs.remove(&tab_id);
            }
        }
        let mut effects: Vec<Effect> = writes.into_effect(tab_id).into_iter().collect();
        let now = self.count(tab_id);
        if now != count {
            effects.push(Effect::Badge { tab_id, count: now });
        }
        (results, effects)
    }
}

fn apply_op(frame: &mut Frame, op: Op, results: &mut Vec<Registered>, report: &mut Report) {
    let tab_id = report.tab_id;
    match op {
        Op::Register { decl } => results.push(frame.register(*decl, false, report)),
        Op::Unregister { source, kind, name } => frame.remove_where(tab_id, report.writes, |t| {
            t.key() == (source, kind, name.as_str())
        }),
        Op::Clear { source } => frame.remove_where(tab_id, report.writes, |t| t.source == source),
        Op::Provide { decls } => {
            frame.remove_where(tab_id, report.writes, |t| t.provided);
            for decl in decls {
                results.push(frame.register(decl, true, report));
            }
        }
        Op::Reset => frame.remove_where(tab_id, report.writes, |_| true),
    }
}
