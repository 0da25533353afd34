//! What a chat has read that may carry someone else's instructions
//! (docs/cards.md, "After untrusted content"). Each chat keeps the sources
//! of the untrusted content it read, for its whole life; once it holds one,
//! every call it makes of a tool that is not Read only needs a yes for that
//! call (`agent::calls`). What makes a result untrusted is the page facts'
//! (`page::untrusted`).

use crate::decisions::answers::Answers;
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
    /// The tool was flagged for breaking its hints when the call started.
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

impl Answers {
    /// `chat` read untrusted content from `source`'s tool: kept as the
    /// newest source (a tool read again moves up), the oldest going past
    /// `SOURCES`. A closed chat keeps nothing.
    pub fn read_untrusted(&mut self, chat: &str, source: Source) {
        let Some(entry) = self.chats.get_mut(chat).filter(|c| !c.closed) else {
            return;
        };
        let read = &mut entry.untrusted;
        read.retain(|s| !(s.site == source.site && s.tool == source.tool));
        read.push(source);
        if read.len() > SOURCES {
            read.remove(0);
        }
    }

    /// The sources of untrusted content `chat` has read, oldest first;
    /// empty for a chat that read none.
    pub fn untrusted(&self, chat: &str) -> &[Source] {
        self.chats.get(chat).map_or(&[], |c| &c.untrusted)
    }
}
