//! What a chat has read that may carry someone else's instructions
//! (docs/cards.md, "After untrusted content"). Each chat keeps the sources
//! of the untrusted content it read, for its whole life; once it holds one,
//! every call it makes of a tool that is not Read only needs a yes for that
//! call (`agent::calls`). What makes a result untrusted is the page facts'
//! (`page::untrusted`).

use crate::page::untrusted::Found;
use serde::{Deserialize, Serialize};

/// How many sources a chat keeps: the newest. One is enough to ask; the
/// rest say where else the chat read such content.
pub const SOURCES: usize = 5;

/// The tool a running call reads from, for the chat's memory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadFrom {
    pub site: String,
    pub tool: String,
    /// The tool was flagged for breaking its hints when the call started,
    /// or by the time it ended (`Session::flag_if`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flagged: bool,
}

/// One source of untrusted content a chat read: the tool, its site, when,
/// and what made it untrusted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub site: String,
    pub tool: String,
    pub at_ms: u64,
    #[serde(flatten)]
    pub found: Found,
}

/// The sources a chat read, oldest first: the `SOURCES` newest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReadUntrusted(Vec<Source>);

impl ReadUntrusted {
    /// Keeps `source` as the newest (a tool read again moves up), the
    /// oldest going past `SOURCES`.
    pub fn add(&mut self, source: Source) {
        self.0
            .retain(|s| !(s.site == source.site && s.tool == source.tool));
        self.0.push(source);
        if self.0.len() > SOURCES {
            self.0.remove(0);
        }
    }

    pub fn sources(&self) -> &[Source] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
