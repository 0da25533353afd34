//! How long a call that asks first waits (docs/rules.md, "How long a call
//! waits"): a site rule's card waits 10 minutes for an answer, then the
//! agent is told no and the card closes. A card whose agent stopped waiting
//! stays open until then: a yes on it lets the agent's same call (same
//! chat, site, tool and arguments) run once within 10 minutes of the yes.
//! Deadlines are stored with the session and the time is an input, so they
//! hold across worker stops (the shell's alarm wakes it) and tests drive them.

use super::*;
use crate::decisions::rules::{ask_deadline, SameCall};

/// A rule card closed because nobody answered in time.
#[derive(Debug, PartialEq, Serialize)]
pub struct Expired {
    pub card_id: u64,
    pub chat: String,
    pub request_id: Value,
    /// The window to close, if one was opened.
    pub window_id: Option<i64>,
    /// The reply to the agent that still waited; `None` when it had stopped.
    pub step: Option<Step>,
}

impl SameCall {
    pub(super) fn of(chat: &str, call: &PageCall) -> SameCall {
        SameCall {
            chat: chat.to_owned(),
            site: call.site.clone(),
            tool: call.target.name.clone(),
            definition: call.definition.clone(),
            arguments: canonical(&call.arguments),
            flagged: call.broken.is_some(),
        }
    }
}

/// JSON text with every object's keys in order and no spaces, so that the
/// same arguments in any order read the same (docs/rules.md, "How long a
/// call waits"). Text that is not JSON stays as it is.
fn canonical(text: &str) -> String {
    fn sorted(value: Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(String, Value)> = map.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
            other => other,
        }
    }
    serde_json::from_str::<Value>(text).map_or_else(|_| text.to_owned(), |v| sorted(v).to_string())
}

impl Session {
    /// Uses a late yes for this call, if one waits for it (its `untrusted`:
    /// what its card said the chat had read).
    pub(super) fn late_yes(
        &mut self,
        chat: &str,
        call: &PageCall,
        now_ms: u64,
    ) -> Option<crate::decisions::rules::LateYes> {
        if self.late_yeses.is_empty() {
            return None;
        }
        let taken = self.late_yeses.take(&SameCall::of(chat, call), now_ms);
        self.unsaved |= taken.is_some();
        taken
    }

    /// Opens the rule's card for `call`, waiting 10 minutes from `now_ms`.
    pub(super) fn ask_rule(&mut self, chat: &str, id: &Value, call: PageCall, now_ms: u64) -> Step {
        let site = call.site.clone();
        let step = self.ask(chat, id, Action::Call(call), CardKind::Rule, site, false);
        if let Step::Ask { card_id } = &step {
            if let Some(pending) = self.pending.get_mut(card_id) {
                pending.deadline_ms = Some(ask_deadline(now_ms));
            }
        }
        step
    }

    /// A yes on a rule card whose agent stopped waiting: kept for its same call.
    pub(super) fn late_yes_given(
        &mut self,
        chat: &str,
        id: &Value,
        call: &PageCall,
        now_ms: u64,
    ) -> Step {
        let untrusted = call.untrusted.clone();
        self.late_yeses
            .grant(SameCall::of(chat, call), untrusted, now_ms);
        let text = format!(
            "You allowed this call of {} once: the agent's same call, with the same arguments, runs once if it asks again within 10 minutes.",
            call.target.name
        );
        let decision = Decision::Run { why: text.clone() };
        Step::reply(tool_result(id, &text, true, &decision))
    }

    /// The earliest deadline of a card that waits, for the shell's alarm.
    pub fn next_deadline(&self) -> Option<u64> {
        self.pending.values().filter_map(|p| p.deadline_ms).min()
    }

    /// Closes the cards whose deadline passed by `now_ms`: their agents are
    /// told no, and may ask again.
    pub fn expire(&mut self, now_ms: u64) -> Vec<Expired> {
        let due: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline_ms.is_some_and(|at| at <= now_ms))
            .map(|(&card_id, _)| card_id)
            .collect();
        let mut expired = Vec::new();
        for card_id in due {
            let Some(pending) = self.pending.remove(&card_id) else {
                continue;
            };
            self.unsaved = true;
            let step = (!pending.detached).then(|| {
                let why = "Nothing ran: no one answered within 10 minutes, so the card closed. You can ask again.".to_owned();
                let step = refusal(&pending.request_id, Decision::Refuse { why });
                if let Step::Reply { reply } = &step {
                    self.keep_reply(&pending.chat, &pending.request_id, reply.clone());
                }
                step
            });
            expired.push(Expired {
                card_id,
                chat: pending.chat,
                request_id: pending.request_id,
                window_id: pending.window_id,
                step,
            });
        }
        expired
    }
}
