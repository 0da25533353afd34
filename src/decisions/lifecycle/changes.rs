//! The registrations, re-registrations and unregistrations on a site during
//! a chat's life there (from the chat's first listing of the site's tools
//! until it ends), for the audit (docs/rules.md, "Every site, side by side,
//! and the audit"): the core compares what a page's report touched of its
//! frame before and after it (`Before`, then `Before::changes`), only on a
//! site some open chat listed, and holds each frame to `PER_MINUTE` entries
//! a minute, the rest counted in one entry (`Log`), in memory only.

use crate::page::declaration::Kind;
use crate::page::provenance::Provenance;
use crate::page::registry::{Frame, FrameRef, Op, TabId};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The most changes of one frame's tools logged one by one in a minute.
pub const PER_MINUTE: u32 = 20;
const MINUTE_MS: u64 = 60_000;
/// The most frames whose minute is counted at once (`Log`).
const FRAMES: usize = 1_000;

/// One change of a frame's tools as the audit keeps it (the worker's entry
/// `what: "tool_change"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolChange {
    /// `registered`, `changed` (registered again with another definition or
    /// from another script), `unregistered`, or `more` (the frame's changes
    /// past `PER_MINUTE`, counted).
    pub change: &'static str,
    pub site: String,
    pub tab: TabId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// `tool` or `skill`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// Where it comes from, in words (for an unregistration, where it came from).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    /// For a re-registration, where the one it replaced came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance_before: Option<String>,
    /// How many changes a `more` entry counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// The entry in words, as the settings page and the OTLP export say it.
    pub text: String,
}

/// Where a tool comes from, in the audit's words.
pub fn provenance_words(provenance: &Provenance) -> String {
    match provenance {
        Provenance::Own => "the page's own script".to_owned(),
        Provenance::Script { origin, path, .. } => format!("a script from {origin}{path}"),
        Provenance::Eval => "code made at run time (eval)".to_owned(),
        Provenance::Unknown => "a script Toolgate could not see".to_owned(),
    }
}

/// A declaration as it was or is: what tells a change.
#[derive(Clone, Debug)]
struct Snap {
    kind: Kind,
    name: String,
    definition: String,
    provenance: Provenance,
}

impl Snap {
    fn of(tool: &crate::page::registry::Tool) -> Snap {
        Snap {
            kind: tool.decl.kind,
            name: tool.decl.name.clone(),
            definition: tool.definition().to_owned(),
            provenance: tool.provenance.clone(),
        }
    }
}

/// What a report may change of its frame, taken before it is applied: the
/// declarations of the names its ops touch, or, for ops that touch them all
/// (`provideContext`, `clearContext`, a document starting over), all. So a
/// report costs what it touches, as the registry's own work does.
#[derive(Debug)]
pub struct Before {
    all: bool,
    names: BTreeSet<String>,
    snaps: Vec<Snap>,
}

impl Before {
    pub fn of(frame: Option<&Frame>, ops: &[Op]) -> Before {
        let mut names = BTreeSet::new();
        let mut all = false;
        for op in ops {
            match op {
                Op::Register { decl } => {
                    if let Some(name) = &decl.name {
                        names.insert(name.clone());
                    }
                }
                Op::Unregister { name, .. } => {
                    names.insert(name.clone());
                }
                Op::Provide { .. } | Op::Clear { .. } | Op::Reset => all = true,
            }
        }
        let snaps = Self::touched(frame, all, &names);
        Before { all, names, snaps }
    }

    fn touched(frame: Option<&Frame>, all: bool, names: &BTreeSet<String>) -> Vec<Snap> {
        frame
            .map(|f| f.tools.as_slice())
            .unwrap_or_default()
            .iter()
            .filter(|t| all || names.contains(&t.decl.name))
            .map(Snap::of)
            .collect()
    }

    /// The changes of the report, once applied to `frame` (its frame now).
    pub fn changes(self, frame: Option<&Frame>, site: &str, tab: TabId) -> Vec<ToolChange> {
        let after = Self::touched(frame, self.all, &self.names);
        let same = |a: &Snap, b: &Snap| a.kind == b.kind && a.name == b.name;
        let host = crate::decisions::answers::site_host(site).to_owned();
        let mut changes = Vec::new();
        let entry =
            |change, snap: &Snap, provenance_before: Option<String>, text: String| ToolChange {
                change,
                site: site.to_owned(),
                tab,
                tool: Some(snap.name.clone()),
                kind: Some(snap.kind.noun()),
                provenance: Some(provenance_words(&snap.provenance)),
                provenance_before,
                count: None,
                text,
            };
        for now in &after {
            let by = provenance_words(&now.provenance);
            match self.snaps.iter().find(|was| same(was, now)) {
                None => changes.push(entry(
                    "registered",
                    now,
                    None,
                    format!("{} registered on {host} by {by}", now.name),
                )),
                Some(was) if was.definition != now.definition => {
                    let before = provenance_words(&was.provenance);
                    let text = format!(
                        "{} registered again on {host} with another definition, by {by} (before: {before})",
                        now.name
                    );
                    changes.push(entry("changed", now, Some(before), text));
                }
                Some(_) => {}
            }
        }
        for was in self
            .snaps
            .iter()
            .filter(|was| !after.iter().any(|now| same(was, now)))
        {
            let by = provenance_words(&was.provenance);
            let text = format!("{} unregistered from {host} (registered by {by})", was.name);
            changes.push(entry("unregistered", was, None, text));
        }
        changes
    }
}

/// One frame's minute: when it started, how many of its changes were
/// logged, and how many were only counted.
#[derive(Clone, Copy, Debug)]
struct Minute {
    start_ms: u64,
    logged: u32,
    counted: u32,
}

/// Each frame's changes this minute (`PER_MINUTE`), at most `FRAMES`
/// frames; a worker that starts again starts counting again.
#[derive(Debug, Default)]
pub struct Log {
    minutes: BTreeMap<(TabId, i64, String), Minute>,
}

impl Log {
    /// What of `changes` (of frame `from`'s tools, on `site`) the audit
    /// gets: each, up to `PER_MINUTE` a minute; past it, one entry that says
    /// the rest are counted, and at the frame's first change after that
    /// minute, one that says how many there were.
    pub fn bounded(
        &mut self,
        from: &FrameRef,
        site: &str,
        changes: Vec<ToolChange>,
        now_ms: u64,
    ) -> Vec<ToolChange> {
        if changes.is_empty() {
            return changes;
        }
        let key = (from.tab_id, from.frame_id, from.document_id.clone());
        if !self.minutes.contains_key(&key) && self.minutes.len() >= FRAMES {
            self.minutes
                .retain(|_, m| now_ms.saturating_sub(m.start_ms) < MINUTE_MS);
            if self.minutes.len() >= FRAMES {
                self.minutes.pop_first();
            }
        }
        let fresh = Minute {
            start_ms: now_ms,
            logged: 0,
            counted: 0,
        };
        let minute = self.minutes.entry(key).or_insert(fresh);
        let host = crate::decisions::answers::site_host(site);
        let more = |count: u32, text: String| ToolChange {
            change: "more",
            site: site.to_owned(),
            tab: from.tab_id,
            tool: None,
            kind: None,
            provenance: None,
            provenance_before: None,
            count: Some(count),
            text,
        };
        let mut kept = Vec::new();
        if now_ms.saturating_sub(minute.start_ms) >= MINUTE_MS {
            if minute.counted > 0 {
                kept.push(more(
                    minute.counted,
                    format!(
                        "and {} more changes of a frame's tools on {host} in that minute, counted, not logged one by one",
                        minute.counted
                    ),
                ));
            }
            *minute = fresh;
        }
        for change in changes {
            if minute.logged < PER_MINUTE {
                minute.logged += 1;
                kept.push(change);
                continue;
            }
            if minute.counted == 0 {
                kept.push(more(0, format!(
                    "a frame on {host} changed its tools more than {PER_MINUTE} times in a minute: the rest of that minute's changes are counted, not logged one by one"
                )));
            }
            minute.counted += 1;
        }
        kept
    }
}
