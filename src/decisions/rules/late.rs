//! How long a call that asks first waits, and the yes given after its agent
//! stopped waiting, which lets the same call run once (docs/rules.md, "How
//! long a call waits"). The time is an input.

use super::ASK_WINDOW_MS;
use crate::decisions::untrusted::Source;
use serde::{Deserialize, Serialize};

/// A yes given after the agent stopped waiting: the same call (the same
/// chat, site, tool, definition and arguments) runs once, within ASK_WINDOW_MS of the yes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LateYes {
    #[serde(flatten)]
    pub call: SameCall,
    pub until_ms: u64,
    /// The untrusted content its card said the chat had read: the yes was
    /// given knowing it (docs/cards.md, "After untrusted content").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<Source>,
}

/// What makes two calls the same call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SameCall {
    pub chat: String,
    pub site: String,
    pub tool: String,
    /// The tool's definition the card showed (`Tool::definition`): a tool
    /// the page changed since is another tool, and is asked about again.
    #[serde(default)]
    pub definition: String,
    /// The arguments as canonical JSON text (every object's keys in order,
    /// no spaces): the same arguments in any order are the same call.
    pub arguments: String,
    /// The tool was flagged for breaking its hints, as the card said: a yes
    /// given before a flag does not run a flagged tool (docs/classes.md,
    /// "What follows").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flagged: bool,
}

/// The late yeses not yet used, kept with the session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LateYeses(Vec<LateYes>);

impl LateYeses {
    pub fn grant(&mut self, call: SameCall, untrusted: Vec<Source>, now_ms: u64) {
        self.0.retain(|yes| yes.until_ms > now_ms);
        self.0.push(LateYes {
            call,
            until_ms: now_ms + ASK_WINDOW_MS,
            untrusted,
        });
    }

    /// Uses the yes for this call, if one is still open: it runs once.
    pub fn take(&mut self, call: &SameCall, now_ms: u64) -> Option<LateYes> {
        self.0.retain(|yes| yes.until_ms > now_ms);
        let index = self.0.iter().position(|yes| yes.call == *call)?;
        Some(self.0.remove(index))
    }

    /// Gives back a yes taken for a call that then did not run (the card
    /// it needed could not open): it waits as it did, until its time, in
    /// its place among the others (they are kept in the order given).
    pub fn put_back(&mut self, yes: LateYes) {
        let at = self.0.partition_point(|y| y.until_ms <= yes.until_ms);
        self.0.insert(at, yes);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The deadline of a call that asks first at `asked_ms`: past it, the agent
/// is told no and the card closes.
pub fn ask_deadline(asked_ms: u64) -> u64 {
    asked_ms + ASK_WINDOW_MS
}
