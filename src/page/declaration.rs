//! What a page declared, as the content script snapshotted it (`RawDeclaration`),
//! and the validated form the rest of the core works with (`Declaration`).
//!
//! Everything in a `RawDeclaration` comes from the page and may be forged: the
//! MAIN-world shim reads the page's object once and sends plain JSON, but a page
//! can send the same messages itself. `Declaration::from_raw` is the one place
//! that decides what of it is usable.

use crate::vecmap::VecMap;
use serde::{Deserialize, Serialize};

/// The longest tool name WebMCP accepts.
pub const MAX_NAME_LEN: usize = 128;
/// The longest description, title, instructions or schema text the core keeps.
/// A declaration over this is unreadable, and what is kept of it (and stored)
/// is cut to this (docs/classes.md, "What Toolgate keeps").
pub const MAX_TEXT_LEN: usize = 64 * 1024;
/// The most tags a declaration keeps; past it they are dropped. No view shows
/// tags, so a page gains nothing by sending more.
pub const MAX_TAGS: usize = 32;
/// The most `exposedTo` origins a declaration keeps, and the longest kept;
/// past them they are dropped: a page call from a dropped origin is then
/// decided as the browser's agent's, which only makes it stricter
/// (docs/agents.md, "Pages calling each other's tools").
pub const MAX_EXPOSED: usize = 32;
pub const MAX_ORIGIN_LEN: usize = 300;

/// How a tool reached Toolgate. Seed 000, "When you declare nothing": the
/// silence is read by where the tool was registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Path {
    /// `document.modelContext.registerTool({...})`, the current draft's way.
    DocumentObject,
    /// `document.modelContext.registerTool(name, description, schema, execute)`.
    DocumentPositional,
    /// `navigator.modelContext.registerTool({...})`, the legacy API.
    NavigatorObject,
    /// `navigator.modelContext.registerTool(name, description, schema, execute)`.
    NavigatorPositional,
    /// `navigator.modelContext.provideContext({tools})`.
    ProvideContext,
    /// `<form toolname tooldescription>`.
    Declarative,
    /// Toolgate saw the tool but cannot tell how it was registered.
    Unknown,
}

impl Path {
    /// The words the palette uses for the path.
    pub fn describe(self) -> &'static str {
        match self {
            Path::DocumentObject => "registered on document.modelContext in the object form",
            Path::DocumentPositional => "registered positionally on document.modelContext",
            Path::NavigatorObject => "registered on navigator.modelContext",
            Path::NavigatorPositional => "registered positionally on navigator.modelContext",
            Path::ProvideContext => "given to navigator.modelContext.provideContext",
            Path::Declarative => "declared by a <form toolname>",
            Path::Unknown => "registered where Toolgate cannot tell how",
        }
    }

    /// Whether the tool came through the legacy `navigator.modelContext`.
    pub fn is_legacy(self) -> bool {
        matches!(
            self,
            Path::NavigatorObject | Path::NavigatorPositional | Path::ProvideContext
        )
    }
}

/// A tool, or a skill (instructions for agents, never called).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Tool,
    Skill,
}

impl Kind {
    /// The word for one, in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Skill => "skill",
        }
    }
}

/// The hints Toolgate reads from `annotations`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Hint {
    #[serde(rename = "readOnlyHint")]
    ReadOnly,
    #[serde(rename = "consequentialHint")]
    Consequential,
    #[serde(rename = "destructiveHint")]
    Destructive,
    #[serde(rename = "idempotentHint")]
    Idempotent,
    #[serde(rename = "openWorldHint")]
    OpenWorld,
    #[serde(rename = "untrustedContentHint")]
    UntrustedContent,
    #[serde(rename = "debugging")]
    Debugging,
}

impl Hint {
    pub const ALL: [Hint; 7] = [
        Hint::ReadOnly,
        Hint::Consequential,
        Hint::Destructive,
        Hint::Idempotent,
        Hint::OpenWorld,
        Hint::UntrustedContent,
        Hint::Debugging,
    ];

    /// The five hints every tool should declare (docs/classes.md, "The five hints").
    pub const CLASS_HINTS: [Hint; 5] = [
        Hint::ReadOnly,
        Hint::Consequential,
        Hint::Destructive,
        Hint::Idempotent,
        Hint::OpenWorld,
    ];

    /// The hint's name as pages write it.
    pub fn key(self) -> &'static str {
        match self {
            Hint::ReadOnly => "readOnlyHint",
            Hint::Consequential => "consequentialHint",
            Hint::Destructive => "destructiveHint",
            Hint::Idempotent => "idempotentHint",
            Hint::OpenWorld => "openWorldHint",
            Hint::UntrustedContent => "untrustedContentHint",
            Hint::Debugging => "debugging",
        }
    }

    pub fn from_key(key: &str) -> Option<Hint> {
        Hint::ALL.into_iter().find(|h| h.key() == key)
    }
}

/// One annotation value as the shim copied it: a boolean, or the shim's
/// description of whatever else the page put there ("the string \"false\"").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RawHint {
    Bool(bool),
    Other(String),
}

// Read by hand: serde's untagged enums buffer the value first, like its
// tagged ones (see `crate::wire`).
impl<'de> Deserialize<'de> for RawHint {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RawHint, D::Error> {
        struct Hint;
        impl serde::de::Visitor<'_> for Hint {
            type Value = RawHint;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean, or the description of another value")
            }
            fn visit_bool<E>(self, value: bool) -> Result<RawHint, E> {
                Ok(RawHint::Bool(value))
            }
            fn visit_str<E>(self, value: &str) -> Result<RawHint, E> {
                Ok(RawHint::Other(value.to_owned()))
            }
        }
        deserializer.deserialize_any(Hint)
    }
}

/// A declaration exactly as the content script snapshotted it. Page input:
/// nothing here has been checked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawDeclaration {
    pub kind: Option<Kind>,
    pub path: Option<Path>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The schema as JSON text; the shim serialises it once at registration.
    pub input_schema: Option<String>,
    /// `None` when the declaration has no `annotations` at all.
    pub annotations: Option<VecMap<String, RawHint>>,
    /// Hint names the page put beside `annotations` instead of inside it.
    pub stray_hints: Vec<String>,
    pub tags: Vec<String>,
    pub instructions: Option<String>,
    /// Why the shim could not read part of the declaration (a getter threw,
    /// `annotations` was a Proxy, the schema was cyclic or huge...).
    pub unreadable: Option<String>,
    /// The origins `registerTool`'s `exposedTo` named, as the shim read them
    /// (each URL's origin): other origins' frames that may call the tool
    /// through the browser's WebMCP (`decisions::exposed`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exposed_to: Vec<String>,
    /// The scripts on the registration's stack, innermost first
    /// (`page::provenance`); none for a declarative form's tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scripts: Option<Vec<crate::page::provenance::Script>>,
}

impl RawDeclaration {
    /// The snapshot cut to what Toolgate shows, which is all it stores: each
    /// text to its cap, with the reason the declaration is then unreadable
    /// kept in `unreadable`, so that a tool read again from storage is the
    /// same tool (same class, same note, same definition); a schema over its
    /// cap dropped, as `Declaration::from_raw` drops it; only the hints
    /// Toolgate reads. A page cannot make one tool take more than its caps in
    /// storage (docs/classes.md, "What Toolgate keeps").
    pub fn bounded(mut self) -> RawDeclaration {
        let mut problems: Vec<String> = self
            .unreadable
            .take()
            .map(|t| clip(t, MAX_TEXT_LEN))
            .into_iter()
            .collect();
        let over = |what: &str| format!("{what} is longer than {MAX_TEXT_LEN} bytes");
        for (what, text) in [
            ("description", &mut self.description),
            ("title", &mut self.title),
            ("instructions", &mut self.instructions),
        ] {
            if text.as_ref().is_some_and(|t| t.len() > MAX_TEXT_LEN) {
                problems.push(over(what));
                *text = text.take().map(|t| clip(t, MAX_TEXT_LEN));
            }
        }
        if self
            .input_schema
            .as_ref()
            .is_some_and(|s| s.len() > MAX_TEXT_LEN)
        {
            problems.push(over("inputSchema"));
            self.input_schema = None;
        }
        if let Some(annotations) = self.annotations.take() {
            self.annotations = Some(
                annotations
                    .into_iter()
                    .filter(|(key, _)| Hint::from_key(key).is_some())
                    .map(|(key, value)| match value {
                        RawHint::Other(what) => (key, RawHint::Other(clip(what, MAX_NAME_LEN))),
                        hint => (key, hint),
                    })
                    .collect(),
            );
        }
        let mut stray: Vec<String> = Vec::new();
        for key in std::mem::take(&mut self.stray_hints) {
            if Hint::from_key(&key).is_some() && !stray.contains(&key) {
                stray.push(key);
            }
        }
        self.stray_hints = stray;
        self.tags.truncate(MAX_TAGS);
        self.tags = std::mem::take(&mut self.tags)
            .into_iter()
            .map(|t| clip(t, MAX_NAME_LEN))
            .collect();
        self.exposed_to = bounded_origins(std::mem::take(&mut self.exposed_to));
        self.scripts = self.scripts.take().map(crate::page::provenance::bounded);
        self.unreadable = (!problems.is_empty()).then(|| problems.join("; "));
        self
    }
}

/// What a hint says, once checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HintState {
    Absent,
    True,
    False,
    /// Declared with a value that is not a boolean (the declaration is unreadable).
    NotBoolean,
}

/// A declaration the core can work with. Built only by `Declaration::from_raw`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Declaration {
    pub kind: Kind,
    pub path: Path,
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Option<String>,
    pub tags: Vec<String>,
    pub instructions: Option<String>,
    /// Each hint's checked value. Unreadable declarations keep what could be read.
    pub hints: VecMap<Hint, HintState>,
    /// Whether the page gave an `annotations` object at all.
    pub has_annotations: bool,
    pub stray_hints: Vec<Hint>,
    /// Why the declaration cannot be read, if it cannot.
    pub unreadable: Option<String>,
    /// The origins it is exposed to (`RawDeclaration::exposed_to`), bounded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exposed_to: Vec<String>,
}

/// `exposedTo`'s origins as kept: the first `MAX_EXPOSED` distinct ones of at
/// most `MAX_ORIGIN_LEN` bytes, never the opaque origin "null".
fn bounded_origins(origins: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for origin in origins {
        if kept.len() == MAX_EXPOSED {
            break;
        }
        if origin.len() <= MAX_ORIGIN_LEN && origin != "null" && !kept.contains(&origin) {
            kept.push(origin);
        }
    }
    kept
}

/// Why a snapshot was refused outright. These are the spec's validation errors;
/// the shim rejects them in the page before they reach the core, so reaching
/// this means the message was forged or the shim is out of date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invalid {
    MissingName,
    BadName(String),
    MissingDescription(String),
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Invalid::MissingName => write!(f, "the declaration has no name"),
            Invalid::BadName(name) => write!(
                f,
                "{name:?} is not a valid tool name (1 to {MAX_NAME_LEN} of A-Z a-z 0-9 _ . -)"
            ),
            Invalid::MissingDescription(name) => write!(f, "{name:?} has an empty description"),
        }
    }
}

impl std::error::Error for Invalid {}

/// WebMCP's name rule: 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

impl Declaration {
    /// Checks a snapshot.
    ///
    /// # Errors
    /// Returns `Invalid` when the snapshot has no valid name, or a tool has an
    /// empty description. Anything else that is wrong — hints of the wrong type,
    /// parts the shim could not read, oversize text — makes the declaration
    /// unreadable instead, so that it is still listed, as Consequential.
    pub fn from_raw(raw: RawDeclaration) -> Result<Declaration, Invalid> {
        let name = raw.name.ok_or(Invalid::MissingName)?;
        if !is_valid_name(&name) {
            return Err(Invalid::BadName(name));
        }
        let kind = raw.kind.unwrap_or(Kind::Tool);
        let description = raw.description.unwrap_or_default();
        if description.trim().is_empty() && kind == Kind::Tool {
            return Err(Invalid::MissingDescription(name));
        }

        let mut problems: Vec<String> = raw.unreadable.into_iter().collect();
        let mut hints = VecMap::new();
        let has_annotations = raw.annotations.is_some();
        for (key, value) in raw.annotations.unwrap_or_default() {
            // Unknown annotation keys are the page's business; only hints are read.
            let Some(hint) = Hint::from_key(&key) else {
                continue;
            };
            let state = match value {
                RawHint::Bool(true) => HintState::True,
                RawHint::Bool(false) => HintState::False,
                RawHint::Other(what) => {
                    problems.push(format!("annotations.{key} is {what}, not a boolean"));
                    HintState::NotBoolean
                }
            };
            hints.insert(hint, state);
        }
        for hint in Hint::ALL {
            hints.get_or_insert_with(hint, || HintState::Absent);
        }
        let stray_hints = raw
            .stray_hints
            .iter()
            .filter_map(|k| Hint::from_key(k))
            .collect();

        let texts = [
            ("description", Some(&description)),
            ("title", raw.title.as_ref()),
            ("inputSchema", raw.input_schema.as_ref()),
            ("instructions", raw.instructions.as_ref()),
        ];
        for (what, text) in texts {
            if text.is_some_and(|t| t.len() > MAX_TEXT_LEN) {
                problems.push(format!("{what} is longer than {MAX_TEXT_LEN} bytes"));
            }
        }
        let input_schema = raw.input_schema.filter(|s| s.len() <= MAX_TEXT_LEN);
        if let Some(schema) = &input_schema {
            match serde_json::from_str::<serde_json::Value>(schema) {
                Ok(serde_json::Value::Object(_)) => {}
                Ok(_) => problems.push("inputSchema is not an object".to_owned()),
                Err(_) => problems.push("inputSchema is not JSON".to_owned()),
            }
        }

        Ok(Declaration {
            kind,
            path: raw.path.unwrap_or(Path::Unknown),
            name,
            title: raw.title.map(|t| clip(t, MAX_TEXT_LEN)),
            description: clip(description, MAX_TEXT_LEN),
            input_schema,
            tags: raw
                .tags
                .into_iter()
                .map(|t| clip(t, MAX_NAME_LEN))
                .collect(),
            instructions: raw.instructions.map(|t| clip(t, MAX_TEXT_LEN)),
            hints,
            has_annotations,
            stray_hints,
            unreadable: (!problems.is_empty()).then(|| problems.join("; ")),
            exposed_to: bounded_origins(raw.exposed_to),
        })
    }

    pub fn hint(&self, hint: Hint) -> HintState {
        self.hints.get(&hint).copied().unwrap_or(HintState::Absent)
    }
}

/// Cuts text to at most `max` bytes on a character boundary.
pub(crate) fn clip(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}
