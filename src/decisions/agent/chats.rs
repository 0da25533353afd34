//! Chats as the agent entry keeps them: opened, ended for good, and named
//! on cards; a chat id and label an agent chooses are bounded as stored
//! (ARCHITECTURE.md, "Budgets").

use super::{budget, RpcError, Session, Step};
use crate::decisions::untrusted::{Source, LOST};
use serde_json::Value;

impl Session {
    /// Opens a chat (the agent console's "New chat", an MCP session...).
    ///
    /// A label is kept to its first `LABEL_CHARS` characters.
    ///
    /// # Errors
    /// A closed chat cannot be opened again (`Answers::open_chat`), and a
    /// chat id longer than `CHAT_ID_BYTES` as stored is refused.
    pub fn open_chat(&mut self, chat: &str, label: &str, read_only: bool) -> Result<(), String> {
        if let Some(why) = budget::over_chat_id_bound(chat) {
            return Err(why);
        }
        self.unsaved = true;
        self.revive(chat);
        self.answers
            .open_chat(chat, budget::label_kept(label), read_only)?;
        self.keep_chats_in_room(chat);
        Ok(())
    }

    /// Ends a chat for good (its MCP session or port closed): its waiting
    /// requests are withdrawn by the shell first (`withdraw`). A chat id too
    /// long to have been opened names no chat: nothing is kept of it.
    pub fn close_chat(&mut self, chat: &str) {
        if budget::over_chat_id_bound(chat).is_some() {
            return;
        }
        self.unsaved = true;
        self.answers.close_chat(chat);
        // An ended chat's answers are gone: its entry is the agents' now.
        self.keep_chats_in_room(chat);
    }

    /// The refusal of request `id` of `chat` if the chat ended: every
    /// request it sends is refused (docs/agents.md).
    pub(super) fn refused_if_closed(&self, chat: &str, id: &Value) -> Option<Step> {
        self.answers.closed(chat).then(|| {
            Step::error(
                id,
                &RpcError::InvalidRequest(format!("chat {chat} was closed")),
            )
        })
    }

    /// The name a chat's cards give it: its label, or else its id.
    pub fn chat_label(&self, chat: &str) -> String {
        self.answers
            .chats
            .get(chat)
            .map_or_else(|| chat.to_owned(), |c| c.label.clone())
    }

    /// `chat` read untrusted content from `source`'s tool (docs/cards.md,
    /// "After untrusted content"); a closed chat keeps nothing.
    pub(super) fn read_untrusted(&mut self, chat: &str, source: Source) {
        // A chat whose calls only its site's rules decided (a rule card's
        // yes) has answered nothing yet: what it read is kept all the same.
        let forgotten = self.forgotten.holds(chat);
        let entry = self.answers.chat(chat);
        if !entry.closed {
            // A chat that comes back after it was forgotten keeps saying so.
            if forgotten && entry.untrusted.is_empty() {
                entry.untrusted.lose();
            }
            entry.untrusted.add(source);
            self.keep_chats_in_room(chat);
        }
    }

    /// The sources of untrusted content `chat` has read, oldest first;
    /// empty for a chat that read none. A chat forgotten after it read some
    /// holds `LOST` (docs/agents.md, "Chats").
    pub fn untrusted(&self, chat: &str) -> &[Source] {
        let kept = self
            .answers
            .chats
            .get(chat)
            .map_or(&[][..], |c| c.untrusted.sources());
        if kept.is_empty() && self.forgotten.holds(chat) && !self.answers.closed(chat) {
            return &LOST;
        }
        kept
    }
}
