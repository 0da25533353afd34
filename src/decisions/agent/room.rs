//! The room chats take in the stored session, and which go first when they
//! would pass it (ARCHITECTURE.md, "Budgets"; docs/agents.md, "Chats").
//!
//! Agents make chats freely (an MCP session, an extension's port), and each
//! keeps its id, label and record of untrusted content in the session,
//! which the shell stores whole under one key of `chrome.storage.session`.
//! Past the browser's quota every write of it fails, and the person's
//! answers written after that are lost with the next worker. So what chats
//! hold for agents is held to `CHATS` and `CHAT_BYTES`, apart from what the
//! person answered: a chat that holds an answer (a site allowed or denied,
//! "Always allow") is never forgotten for agents' traffic. Past the room, ended chats go first, then chats that read
//! nothing untrusted, then the others by how long ago they last read such
//! content; never a chat with a card open or a call running. A forgotten
//! chat that had read untrusted content (or had ended) is remembered in
//! `Forgotten`, so that it comes back as having read it, never as clean,
//! and one opened Read only is remembered there as such (`revive`);
//! when the room is still short, the records of the chats that must stay
//! are cut to "forgotten" (`ReadUntrusted::lose`), which keeps the same
//! promise, and what they saw of sites' tools (`decisions::lifecycle`) is
//! let go.

use super::budget::{over_chat_id_bound, stored_len};
use super::Session;
use crate::decisions::answers::Chat;
use crate::page::registry::PAGE_BYTES;
use std::collections::BTreeSet;

/// `chrome.storage.session`'s quota: every key of it together.
pub const QUOTA_BYTES: usize = 10 * 1024 * 1024;
/// What the shell keeps there beside the tools and the session: the pages'
/// own traffic (`watch_usual`, 1,024 endpoints of 300 characters at most).
pub const USUAL_BYTES: usize = 512 * 1024;
/// What the stored session may take: the quota less what pages may take.
pub const SESSION_BYTES: usize = QUOTA_BYTES - PAGE_BYTES - USUAL_BYTES;
/// The most chats kept that hold no answer of the person's.
pub const CHATS: usize = 1_000;
/// The most bytes chats may take for agents, as stored: the whole entry of
/// a chat that holds no answer of the person's, the record of untrusted
/// content and the last approved call of one that does.
pub const CHAT_BYTES: usize = 512 * 1024;
/// The room kept for the person's answers, which no agent can take: the
/// chats that hold one (their ids, labels and answers) and "Never allow".
/// Not a cap: each answer is a person's click.
pub const PERSON_BYTES: usize = 512 * 1024;

/// The bytes each part of the stored session takes (its JSON text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    /// The person's answers: `PERSON_BYTES` are theirs.
    pub person: usize,
    /// What chats hold for agents: at most `CHAT_BYTES`.
    pub chats: usize,
    /// How many chats hold no answer of the person's: at most `CHATS`.
    pub chat_count: usize,
    /// The whole record.
    pub total: usize,
}

/// Whether a chat holds an answer of the person's. Read only is not one:
/// an agent's client may ask for it, so it is kept in `Forgotten` instead.
fn answered(chat: &Chat) -> bool {
    !chat.closed && !chat.sites.is_empty()
}

/// What a forgotten chat opened Read only is kept as, beside its id.
fn read_only_key(chat: &str) -> String {
    format!("read only\u{0}{chat}")
}

/// The bytes a chat's entry takes in the map of chats.
fn entry_bytes(id: &str, chat: &Chat) -> usize {
    // The id, its colon, the entry and a comma.
    stored_len(id) + stored_len(chat) + 2
}

/// The bytes a chat takes for agents.
fn agent_bytes(id: &str, chat: &Chat) -> usize {
    if answered(chat) {
        stored_len(&chat.untrusted) + stored_len(&chat.last_approval) + stored_len(&chat.seen)
    } else {
        entry_bytes(id, chat)
    }
}

impl Session {
    /// What each part of the stored session takes.
    pub fn stored_parts(&self) -> Parts {
        let mut parts = Parts {
            person: stored_len(&self.answers.never),
            total: stored_len(self),
            ..Parts::default()
        };
        for (id, chat) in &self.answers.chats {
            let agents = agent_bytes(id, chat);
            parts.chats += agents;
            if answered(chat) {
                parts.person += entry_bytes(id, chat) - agents;
            } else {
                parts.chat_count += 1;
            }
        }
        parts
    }

    /// Keeps chats within `CHATS` and `CHAT_BYTES` after `current` grew or
    /// was made, forgetting what must go (the module's comment says which).
    ///
    /// Counting every chat at each change would cost a flood of chats the
    /// square of its size, so the count kept from the last one
    /// (`Session::chat_room`) is added `current`'s whole size, which only
    /// overstates; only past the room are chats counted again, and then
    /// forgotten down to seven eighths of it.
    pub(super) fn keep_chats_in_room(&mut self, current: &str) {
        let chats = &self.answers.chats;
        if let Some((count, bytes)) = self.chat_room {
            let size = chats.get(current).map_or(0, |c| agent_bytes(current, c));
            let (count, bytes) = (count + 1, bytes + size);
            if count <= CHATS && bytes <= CHAT_BYTES {
                self.chat_room = Some((count, bytes));
                return;
            }
        }
        let mut count = chats.values().filter(|c| !answered(c)).count();
        let mut bytes: usize = chats.iter().map(|(id, c)| agent_bytes(id, c)).sum();
        self.chat_room = Some((count, bytes));
        if count <= CHATS && bytes <= CHAT_BYTES {
            return;
        }
        self.unsaved = true;
        let (most, most_bytes) = (CHATS - CHATS / 8, CHAT_BYTES - CHAT_BYTES / 8);
        let busy: BTreeSet<&str> = self
            .pending
            .values()
            .map(|p| p.chat.as_str())
            .chain(self.running.values().map(|c| c.chat.as_str()))
            .chain(self.repeatable.values().map(|c| c.chat.as_str()))
            .chain([current])
            .collect();
        // Ended chats first, then those that read nothing untrusted, then
        // the others, the one that last read such content longest ago first.
        let mut going: Vec<(u8, u64, String, usize, bool)> = chats
            .iter()
            .filter(|(id, c)| !answered(c) && !busy.contains(id.as_str()))
            .map(|(id, c)| {
                let newest = c.untrusted.sources().last().map_or(0, |s| s.at_ms);
                let rank = if c.closed {
                    0
                } else if c.untrusted.is_empty() {
                    1
                } else {
                    2
                };
                (rank, newest, id.clone(), agent_bytes(id, c), c.read_only)
            })
            .collect();
        going.sort_unstable();
        for (rank, _, id, taken, read_only) in going {
            if count <= most && bytes <= most_bytes {
                self.chat_room = Some((count, bytes));
                return;
            }
            self.answers.chats.remove(&id);
            if rank != 1 {
                self.forgotten.add(&id);
            }
            if read_only {
                self.forgotten.add(&read_only_key(&id));
            }
            count -= 1;
            bytes -= taken;
        }
        self.chat_room = Some((count, bytes));
        if bytes <= CHAT_BYTES {
            return;
        }
        // What stays still takes too much: the records of the chats that
        // must stay are cut to "forgotten", the current chat's last.
        let mut cut: Vec<(bool, u64, String)> = self
            .answers
            .chats
            .iter()
            .filter(|(_, c)| {
                !c.untrusted.is_lost() || c.last_approval.is_some() || !c.seen.is_empty()
            })
            .map(|(id, c)| {
                let newest = c.untrusted.sources().last().map_or(0, |s| s.at_ms);
                (id == current, newest, id.clone())
            })
            .collect();
        cut.sort_unstable();
        for (_, _, id) in cut {
            if bytes <= CHAT_BYTES {
                return;
            }
            let Some(chat) = self.answers.chats.get_mut(&id) else {
                continue;
            };
            let before = agent_bytes(&id, chat);
            if !chat.untrusted.is_empty() {
                chat.untrusted.lose();
            }
            chat.last_approval = None;
            // What it saw of sites' tools: its next listing of each is a first one.
            chat.seen = Default::default();
            bytes = bytes + agent_bytes(&id, chat) - before;
            self.chat_room = Some((count, bytes));
        }
    }

    /// Brings back a chat that was forgotten, as it must come back: having
    /// read untrusted content (its record `LOST`), opened Read only, or
    /// both; a chat the set does not hold is new, and left to start clean.
    /// Done before anything of the chat is decided.
    pub(super) fn revive(&mut self, chat: &str) {
        if self.forgotten.is_empty()
            || self.answers.chats.contains_key(chat)
            || over_chat_id_bound(chat).is_some()
        {
            return;
        }
        let read = self.forgotten.holds(chat);
        let read_only = self.forgotten.holds(&read_only_key(chat));
        if !read && !read_only {
            return;
        }
        self.unsaved = true;
        let entry = self.answers.chat(chat);
        entry.read_only = read_only;
        if read {
            entry.untrusted.lose();
        }
        self.keep_chats_in_room(chat);
    }
}
