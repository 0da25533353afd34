//! Every message the service worker accepts, typed once per trust tier.
//!
//! The shell decides the tier from what the browser says about the sender
//! (`sender.tab`, `sender.url`), never from the message, and then parses the
//! message as that tier's type. A page can send anything; it can only ever be
//! parsed as `FromPage`.

use crate::registry::{Op, TabId};
use serde::{Deserialize, Serialize};

/// What a content script may send: reports about its own frame's tools.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FromPage {
    /// Changes to the tools the frame publishes, in order.
    Updates { ops: Vec<Op> },
}

/// What Toolgate's own pages (the palette popup, cards, the agent console)
/// may send. Answers to cards come only this way: no agent channel carries them.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FromUi {
    /// The palette of one tab.
    Palette { tab_id: TabId },
    /// A card's contents, for the card page.
    Card { card_id: u64 },
    /// A person's answer to a card, from the card page.
    Answer {
        card_id: u64,
        answer: crate::agent::Answer,
    },
    /// Opens (or reopens) a chat: the agent console's "New chat".
    OpenChat {
        chat_id: String,
        label: String,
        #[serde(default)]
        read_only: bool,
    },
    /// An agent request from the agent console, as its chat.
    Agent {
        chat_id: String,
        request: serde_json::Value,
    },
}
