//! The tools each tab publishes, per frame and document, and how it changes.
//!
//! A state machine: `Registry::apply(event)` changes the state and returns what
//! the shell must do about it (persist a tab, update a badge). The service
//! worker keeps one `Registry` in memory as a cache of what it persisted in
//! `chrome.storage.session`, and rebuilds it from there after a restart.
//! A tab is persisted as the raw snapshots its pages sent; classes are derived
//! again on load, so no derived state is ever stored.

use crate::page::classify::{classify, Verdict};
use crate::page::declaration::{Declaration, HintState, Invalid, Kind, Path, RawDeclaration};
use crate::vecmap::VecMap;
use crate::wire::{needed, only};
use serde::{Deserialize, Serialize};

mod wire;
use wire::{EventWire, OpWire};

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
    /// Why the declaration was refused.
    pub error: Option<String>,
}

/// An event the shell feeds the registry: `{"type": "navigated", …}`. Read
/// through `EventWire` (see `crate::wire`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", try_from = "EventWire")]
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
    /// Write this tab's record to storage (or remove it, if `record` is `None`).
    /// The shell gets the record as JSON text, and stores that string:
    /// `chrome.storage` writes one string several times faster than the same
    /// data as objects (30 ms → 5 ms for a tab of 1,000 tools).
    Persist {
        tab_id: TabId,
        #[serde(serialize_with = "as_json_text")]
        record: Option<TabRecord>,
    },
    /// Show the tab's tool count on the action icon.
    Badge { tab_id: TabId, count: usize },
}

fn as_json_text<S: serde::Serializer>(
    record: &Option<TabRecord>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match record {
        Some(record) => serde_json::to_string(record)
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer),
        None => serializer.serialize_none(),
    }
}

/// A tool as stored: the page's snapshot, and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredTool {
    pub decl: RawDeclaration,
    /// Given by `provideContext`, so the next `provideContext` replaces it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provided: bool,
}

/// One document in one frame, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredFrame {
    pub frame_id: FrameId,
    pub document_id: String,
    pub origin: String,
    pub tools: Vec<StoredTool>,
}

/// Everything one tab publishes, as stored in `chrome.storage.session`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TabRecord {
    pub tab_id: TabId,
    pub frames: Vec<StoredFrame>,
}

/// A tool as the registry holds it: validated and classed.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub decl: Declaration,
    pub verdict: Verdict,
    pub source: Source,
    raw: RawDeclaration,
    provided: bool,
    /// See `definition`: computed at the tool's first call decision, and
    /// kept. Not at registration: most tools are never called, and a
    /// SHA-256 of every definition would double a registration's cost.
    definition: Derived<String>,
    /// The input schema, read at the tool's first call: every call's
    /// arguments are checked against it. Not at registration: most tools are
    /// never called, and a read schema takes many times its text's memory.
    schema: Derived<Option<serde_json::Value>>,
}

/// Something derived from a tool's declaration on first use, and kept. A
/// cache: two tools are equal whether or not theirs was derived yet.
#[derive(Clone, Debug)]
struct Derived<T>(std::cell::OnceCell<T>);

impl<T> Default for Derived<T> {
    fn default() -> Self {
        Derived(std::cell::OnceCell::new())
    }
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Derived<T>) -> bool {
        true
    }
}

impl Tool {
    fn new(raw: RawDeclaration, provided: bool) -> Result<Tool, Invalid> {
        let decl = Declaration::from_raw(raw.clone())?;
        Ok(Tool {
            verdict: classify(&decl),
            source: Source::of(decl.path),
            definition: Derived::default(),
            schema: Derived::default(),
            decl,
            raw,
            provided,
        })
    }

    /// The input schema, if the tool declared one.
    pub fn schema(&self) -> Option<&serde_json::Value> {
        self.schema
            .0
            .get_or_init(|| {
                // `Declaration::from_raw` refused a schema that is not JSON.
                let text = self.decl.input_schema.as_deref()?;
                serde_json::from_str(text).ok()
            })
            .as_ref()
    }

    fn key(&self) -> (Source, Kind, &str) {
        (self.source, self.decl.kind, &self.decl.name)
    }

    /// A fingerprint of the definition — title, description, schema and
    /// hints — to which grants are bound (docs/cards.md, "When a tool changes"): a re-registration that
    /// changes any of them is a new definition.
    pub fn definition(&self) -> &str {
        self.definition.0.get_or_init(|| fingerprint(&self.decl))
    }
}

fn fingerprint(d: &Declaration) -> String {
    use sha2::{Digest, Sha256};
    // A page controls every definition it registers, so the fingerprint is a
    // SHA-256 of the definition's canonical JSON: no page can find two
    // definitions with one fingerprint (ARCHITECTURE.md, "One name, one tool").
    let hints: Vec<(&str, &HintState)> = d.hints.iter().map(|(h, s)| (h.key(), s)).collect();
    let canonical = serde_json::to_vec(&(
        &d.title,
        &d.description,
        &d.input_schema,
        &d.unreadable,
        hints,
    ))
    .unwrap_or_default();
    Sha256::digest(&canonical)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One frame's current document and its tools, in registration order.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub frame_id: FrameId,
    pub document_id: String,
    pub origin: String,
    pub tools: Vec<Tool>,
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
        if self.origin == "null" {
            format!("{OPAQUE_SITE}{}", self.document_id)
        } else {
            self.origin.clone()
        }
    }

    fn new(from: &FrameRef) -> Frame {
        Frame {
            frame_id: from.frame_id,
            document_id: from.document_id.clone(),
            origin: from.origin.clone(),
            tools: Vec::new(),
        }
    }

    fn register(&mut self, raw: RawDeclaration, provided: bool) -> Registered {
        let name = raw.name.clone();
        let tool = match Tool::new(raw, provided) {
            Ok(tool) => tool,
            Err(invalid) => {
                return Registered {
                    name,
                    class: None,
                    error: Some(invalid.to_string()),
                }
            }
        };
        let class = tool.verdict.class;
        // One name is one tool in a document, whichever object registered it
        // first: a second registration of the name on another object is
        // refused as the draft refuses a duplicate; on the same object it
        // replaces the first (ARCHITECTURE.md, "One name, one tool").
        let same_name = self
            .tools
            .iter_mut()
            .find(|t| t.decl.kind == tool.decl.kind && t.decl.name == tool.decl.name);
        if let Some(first) = same_name.as_ref().filter(|t| t.source != tool.source) {
            return Registered {
                name,
                class: None,
                error: Some(format!(
                    "InvalidStateError: a {} named {:?} is already registered in this document, on {}",
                    tool.decl.kind.noun(),
                    tool.decl.name,
                    first.source.api()
                )),
            };
        }
        if let Some(slot) = same_name {
            *slot = tool;
        } else if self.tools.len() >= MAX_TOOLS_PER_DOCUMENT {
            return Registered {
                name,
                class: None,
                error: Some(format!(
                    "a document may publish at most {MAX_TOOLS_PER_DOCUMENT} tools"
                )),
            };
        } else {
            self.tools.push(tool);
        }
        Registered {
            name,
            class,
            error: None,
        }
    }

    fn stored(&self) -> StoredFrame {
        StoredFrame {
            frame_id: self.frame_id,
            document_id: self.document_id.clone(),
            origin: self.origin.clone(),
            tools: self
                .tools
                .iter()
                .map(|t| StoredTool {
                    decl: t.raw.clone(),
                    provided: t.provided,
                })
                .collect(),
        }
    }
}

/// The registry of every tab's tools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Registry {
    tabs: VecMap<TabId, VecMap<FrameId, Frame>>,
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Rebuilds the registry from stored tab records. Snapshots that no longer
    /// validate (stored by an older version) are dropped, not fatal.
    pub fn load(records: impl IntoIterator<Item = TabRecord>) -> Registry {
        let mut registry = Registry::new();
        for record in records {
            let frames = record
                .frames
                .into_iter()
                .map(|f| {
                    let tools = f
                        .tools
                        .into_iter()
                        .filter_map(|t| Tool::new(t.decl, t.provided).ok())
                        .collect();
                    let frame = Frame {
                        frame_id: f.frame_id,
                        document_id: f.document_id,
                        origin: f.origin,
                        tools,
                    };
                    (frame.frame_id, frame)
                })
                .collect();
            registry.tabs.insert(record.tab_id, frames);
        }
        registry
    }

    /// The frames of a tab, by frame id.
    pub fn frames(&self, tab_id: TabId) -> impl Iterator<Item = &Frame> {
        self.tabs.get(&tab_id).into_iter().flat_map(|f| f.values())
    }

    pub fn tab_ids(&self) -> impl Iterator<Item = TabId> + '_ {
        self.tabs.keys().copied()
    }

    /// How many tools and skills a tab publishes.
    pub fn count(&self, tab_id: TabId) -> usize {
        self.frames(tab_id).map(|f| f.tools.len()).sum()
    }

    /// The stored form of one tab, `None` if it publishes nothing.
    pub fn record(&self, tab_id: TabId) -> Option<TabRecord> {
        let frames = self.tabs.get(&tab_id)?;
        Some(TabRecord {
            tab_id,
            frames: frames.values().map(Frame::stored).collect(),
        })
    }

    /// Applies one event.
    /// Returns what became of each registration (for `Page` events) and the
    /// effects the shell must carry out.
    pub fn apply(&mut self, event: Event) -> (Vec<Registered>, Vec<Effect>) {
        let mut results = Vec::new();
        let (tab_id, changed) = match event {
            Event::Page { from, ops } => {
                let frames = self.tabs.get_or_insert_with(from.tab_id, Default::default);
                let current = frames.get(&from.frame_id).map(|f| f.document_id.as_str());
                if current.is_some_and(|doc| doc != from.document_id)
                    && !ops.iter().any(Op::registers)
                {
                    // A late word from a document the frame no longer shows
                    // (it went away as the next one arrived): nothing to change.
                    return (Vec::new(), Vec::new());
                }
                let frame = frames.get_or_insert_with(from.frame_id, || Frame::new(&from));
                if frame.document_id != from.document_id || frame.origin != from.origin {
                    // A new document registers: the old one is gone.
                    *frame = Frame::new(&from);
                }
                for op in ops {
                    apply_op(frame, op, &mut results);
                }
                (from.tab_id, true)
            }
            Event::Navigated {
                tab_id,
                frame_id,
                document_id,
            } => {
                let frames = self.tabs.get_or_insert_with(tab_id, Default::default);
                let stale = frames
                    .get(&frame_id)
                    .is_some_and(|f| f.document_id != document_id);
                if stale {
                    frames.remove(&frame_id);
                }
                (tab_id, stale)
            }
            Event::LiveDocuments { tab_id, documents } => {
                let frames = self.tabs.get_or_insert_with(tab_id, Default::default);
                let before = frames.len();
                frames.retain(|id, f| {
                    documents
                        .iter()
                        .any(|(i, d)| i == id && *d == f.document_id)
                });
                (tab_id, frames.len() != before)
            }
            Event::TabClosed { tab_id } => {
                let existed = self.tabs.remove(&tab_id).is_some();
                (tab_id, existed)
            }
        };
        if self
            .tabs
            .get(&tab_id)
            .is_some_and(|f| f.values().all(|fr| fr.tools.is_empty()))
        {
            self.tabs.remove(&tab_id);
        }
        let effects = if changed {
            vec![
                Effect::Persist {
                    tab_id,
                    record: self.record(tab_id),
                },
                Effect::Badge {
                    tab_id,
                    count: self.count(tab_id),
                },
            ]
        } else {
            Vec::new()
        };
        (results, effects)
    }
}

fn apply_op(frame: &mut Frame, op: Op, results: &mut Vec<Registered>) {
    match op {
        Op::Register { decl } => results.push(frame.register(*decl, false)),
        Op::Unregister { source, kind, name } => frame
            .tools
            .retain(|t| t.key() != (source, kind, name.as_str())),
        Op::Clear { source } => frame.tools.retain(|t| t.source != source),
        Op::Provide { decls } => {
            frame.tools.retain(|t| !t.provided);
            for decl in decls {
                results.push(frame.register(decl, true));
            }
        }
        Op::Reset => frame.tools.clear(),
    }
}
