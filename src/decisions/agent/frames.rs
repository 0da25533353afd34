//! Two ways into the agent entry that are not an agent's own request:
//! a call that reached Toolgate's native copy of a tool in one frame (the
//! browser's own agent; ARCHITECTURE.md, "Who is gated"), and an agent
//! withdrawing requests it no longer waits for (an MCP cancellation, a
//! client gone away).

use super::calls::Found;
use super::{RpcError, Session, Step, World};
use crate::page::declaration::Kind;
use crate::page::registry::{FrameId, Source, TabId};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// A call that arrived at the copy of a tool Toolgate registered with the
/// browser's own WebMCP, in the frame and document that registered it. The
/// shell fills the frame's identity from the browser's `sender`, never from
/// the page's message.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FrameCall {
    pub tab_id: TabId,
    pub frame_id: FrameId,
    pub document_id: String,
    pub source: Source,
    pub name: String,
    /// The arguments the browser handed the tool.
    pub arguments: Box<RawValue>,
}

/// What withdrawing requests came to.
#[derive(Debug, Default, PartialEq, serde::Serialize)]
pub struct Withdrawn {
    /// The requests that were waiting on a card, now withdrawn.
    pub requests: Vec<Value>,
    /// Windows of cards nobody waits on any more: the shell closes them.
    pub close_windows: Vec<i64>,
    /// Cards nobody waits on any more whose window was not open yet.
    pub dropped_cards: Vec<u64>,
}

impl Session {
    /// Decides a call of the tool `call` names, in exactly the frame and
    /// document it names, as chat `chat`'s request `id`: the same site
    /// question, call card, widths and durations as any agent's call; an
    /// ended chat's, like its every request, is refused.
    pub fn frame_call(&mut self, chat: &str, id: &Value, call: &FrameCall, world: &World) -> Step {
        if let Some(refused) = self.refused_if_closed(chat, id) {
            return refused;
        }
        self.tracking_changes(chat, |session| {
            if let Some(step) = session.resume(chat, id) {
                return step;
            }
            let frame = world
                .registry
                .frames(call.tab_id)
                .find(|f| f.frame_id == call.frame_id && f.document_id == call.document_id);
            let tool = frame.and_then(|f| {
                f.tools.iter().find(|t| {
                    t.source == call.source && t.decl.name == call.name && t.decl.kind == Kind::Tool
                })
            });
            let (Some(frame), Some(tool)) = (frame, tool) else {
                let message = format!(
                    "{} is not a tool Toolgate saw this frame register",
                    call.name
                );
                return session.undecidable(chat, id, RpcError::InvalidParams(message));
            };
            let found = Found::new(call.tab_id, frame, tool);
            session.call_found(chat, id, found, call.arguments.get(), world)
        })
    }

    /// Withdraws request `id` of `chat` if it waits on a card. A card
    /// nobody waits on any more is to be closed; a site card whose asker
    /// went but others of its chat wait on stays, for the next of them.
    pub fn withdraw(&mut self, chat: &str, id: &Value) -> Withdrawn {
        self.withdraw_where(chat, |request| request == id)
    }

    /// Withdraws every request of `chat` that waits on a card (the agent
    /// went away).
    pub fn withdraw_chat(&mut self, chat: &str) -> Withdrawn {
        self.withdraw_where(chat, |_| true)
    }

    fn withdraw_where(&mut self, chat: &str, gone: impl Fn(&Value) -> bool) -> Withdrawn {
        let mut out = Withdrawn::default();
        let cards: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.chat == chat)
            .map(|(&card_id, _)| card_id)
            .collect();
        for card_id in cards {
            let Some(pending) = self.pending.get_mut(&card_id) else {
                continue;
            };
            let before = pending.waiting.len();
            pending.waiting.retain(|w| {
                let going = gone(&w.request_id);
                if going {
                    out.requests.push(w.request_id.clone());
                }
                !going
            });
            let mut changed = pending.waiting.len() != before;
            if gone(&pending.request_id) {
                changed = true;
                out.requests.push(pending.request_id.clone());
                if pending.card == crate::decisions::answers::CardKind::Rule {
                    // A rule's card stays until its deadline: a yes on it
                    // is kept for the agent's same call (docs/rules.md).
                    pending.detached = true;
                } else if pending.waiting.is_empty() {
                    if let Some(removed) = self.pending.remove(&card_id) {
                        match removed.window_id {
                            Some(window) => out.close_windows.push(window),
                            None => out.dropped_cards.push(card_id),
                        }
                    }
                } else {
                    // The next request waiting on this site question takes it over.
                    let next = pending.waiting.remove(0);
                    pending.asked_by = next.action.asked_by().to_owned();
                    pending.request_id = next.request_id;
                    pending.action = next.action;
                    pending.held = next.held;
                }
            }
            self.unsaved |= changed;
        }
        out
    }
}
