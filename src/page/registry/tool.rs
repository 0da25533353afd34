//! A tool as the registry holds it: its page's snapshot, validated and
//! classed, and what is derived from it only when first needed (its
//! definition's fingerprint, its read schema and the plan to check it).

use super::*;
use crate::page::classify::classify;

/// A tool as the registry holds it: validated and classed.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub decl: Declaration,
    pub verdict: Verdict,
    pub source: Source,
    /// Where it comes from: the script that registered it, as seen from its
    /// frame's origin (docs/classes.md, "Where a tool comes from").
    pub provenance: crate::page::provenance::Provenance,
    pub(super) raw: RawDeclaration,
    pub(super) provided: bool,
    /// Its place in the order of registrations, and its stored key's end.
    pub(super) seq: u64,
    /// What its stored entry takes, as the browser counts it.
    pub(super) bytes: usize,
    /// See `definition`: computed at the tool's first call decision, and
    /// kept. Not at registration: most tools are never called, and a
    /// SHA-256 of every definition would double a registration's cost.
    definition: Derived<String>,
    /// The input schema, read at the tool's first call: every call's
    /// arguments are checked against it. Not at registration: most tools are
    /// never called, and a read schema takes many times its text's memory.
    schema: Derived<Option<serde_json::Value>>,
    /// What checking its schema needs (`schema::Plan`), or why it cannot
    /// be checked, read with the schema: its patterns compiled once, not at
    /// every call.
    plan: Derived<Option<Result<crate::page::schema::Plan, String>>>,
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
    /// A tool from a page's snapshot, cut first to what Toolgate keeps
    /// (`RawDeclaration::bounded`): what is stored is what is shown.
    pub(super) fn new(raw: RawDeclaration, provided: bool, origin: &str) -> Result<Tool, Invalid> {
        let raw = raw.bounded();
        let decl = Declaration::from_raw(raw.clone())?;
        let provenance = crate::page::provenance::provenance(raw.scripts.as_deref(), origin);
        Ok(Tool {
            provenance,
            verdict: classify(&decl),
            source: Source::of(decl.path),
            definition: Derived::default(),
            schema: Derived::default(),
            plan: Derived::default(),
            decl,
            raw,
            provided,
            seq: 0,
            bytes: 0,
        })
    }

    /// The tool as stored, in frame `frame` of tab `tab_id`.
    pub(super) fn stored(&self, tab_id: TabId, frame: &Frame) -> StoredTool {
        StoredTool {
            tab_id,
            frame_id: frame.frame_id,
            document_id: frame.document_id.clone(),
            origin: frame.origin.clone(),
            seq: self.seq,
            provided: self.provided,
            decl: self.raw.clone(),
        }
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

    /// What checking the tool's schema needs, or why it cannot be checked
    /// (docs/agents.md, "Arguments and limits"); `None` without a schema.
    pub fn plan(&self) -> Option<Result<&crate::page::schema::Plan, &str>> {
        self.plan
            .0
            .get_or_init(|| self.schema().map(crate::page::schema::Plan::read))
            .as_ref()
            .map(|plan| plan.as_ref().map_err(String::as_str))
    }

    pub(super) fn key(&self) -> (Source, Kind, &str) {
        (self.source, self.decl.kind, &self.decl.name)
    }

    /// A fingerprint of the definition — title, description, schema, hints
    /// and where it comes from — to which grants are bound (docs/cards.md,
    /// "When a tool changes"): a re-registration that changes any of them is
    /// a new definition.
    pub fn definition(&self) -> &str {
        self.definition
            .0
            .get_or_init(|| fingerprint(&self.decl, &self.provenance))
    }
}

fn fingerprint(d: &Declaration, provenance: &crate::page::provenance::Provenance) -> String {
    use sha2::{Digest, Sha256};
    // A page controls every definition it registers, so the fingerprint is a
    // SHA-256 of the definition's canonical JSON: no page can find two
    // definitions with one fingerprint (ARCHITECTURE.md, "One name, one tool").
    // The frame's own tools keep the fingerprint they had before provenance
    // was part of it, so that no grant is lost to the change; another
    // origin's script (its origin, not its path: a site's new bundle name is
    // the same tool) makes another definition.
    let hints: Vec<(&str, &HintState)> = d.hints.iter().map(|(h, s)| (h.key(), s)).collect();
    let canonical = match provenance {
        crate::page::provenance::Provenance::Own => serde_json::to_vec(&(
            &d.title,
            &d.description,
            &d.input_schema,
            &d.unreadable,
            hints,
        )),
        other => serde_json::to_vec(&(
            &d.title,
            &d.description,
            &d.input_schema,
            &d.unreadable,
            hints,
            other.defining(),
        )),
    }
    .unwrap_or_default();
    Sha256::digest(&canonical)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
