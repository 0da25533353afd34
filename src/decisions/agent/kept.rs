//! Finished calls, and the replies kept for agents that lost their wait
//! (the worker stopped): collected by sending the same request again.

use super::*;
use crate::decisions::untrusted::{Place, ReadFrom, Source};
use crate::page::conduct::Conduct;
use crate::page::untrusted::{untrusted, Declared, Found};
use crate::protocol::result_reply;
use serde_json::value::RawValue;

/// A tool's outcome as the page reported it: `result`, the result's JSON
/// text as the page wrote it, or `failure`, why there is none (given, it
/// wins). The page wrote the text: a page that forges its answer gets a
/// clear error for its agent, not a broken reply.
///
/// # Errors
/// The reason the call has no result, for its agent.
pub fn page_outcome(result: Option<&str>, failure: Option<String>) -> Result<&RawValue, String> {
    match (failure, result) {
        (Some(reason), _) => Err(reason),
        (None, Some(text)) => serde_json::from_str::<&RawValue>(text)
            .map_err(|e| format!("the page answered with a result that is not JSON: {e}")),
        (None, None) => Err("the page gave no answer".to_owned()),
    }
}

/// A call running in a page: whose request it is, and what let it run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunningCall {
    pub chat: String,
    pub request_id: Value,
    pub why: String,
    /// The tool declared `untrustedContentHint: true`: its reply says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untrusted_content: bool,
    /// The tool it runs, for the chat's memory of what it read (docs/cards.md,
    /// "After untrusted content").
    #[serde(default)]
    pub from: ReadFrom,
}

/// What a call's reply says under `_meta.toolgate`: what let it run, whether
/// its tool said its result holds untrusted content (so that a client can set
/// it apart), what its tab was seen doing, and the untrusted content its chat
/// has read (docs/agents.md): `result_untrusted` when this very result was.
#[derive(Serialize)]
struct RunMeta<'a> {
    #[serde(flatten)]
    decision: Decision,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    untrusted_content: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    conduct: Option<&'a Conduct>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_untrusted: Option<&'a Found>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    chat_read_untrusted: &'a [Source],
}

impl Session {
    /// A finished call's outcome, from the page: `Ok(result)`, the result as
    /// JSON text, or `Err(reason)`. `taken`: its agent is waiting and takes
    /// the reply now; otherwise the reply is kept until the agent sends the
    /// same request again.
    /// `conduct`: what the call's tab was seen doing, if anything
    /// (docs/classes.md, "Hints held to their word"); its reply says so.
    /// A result that holds untrusted content is remembered by its chat
    /// (docs/cards.md, "After untrusted content").
    pub fn finish(
        &mut self,
        call_id: u64,
        outcome: Result<&RawValue, String>,
        cap: usize,
        taken: bool,
        conduct: Option<&Conduct>,
        now_ms: u64,
    ) -> Option<(String, Value, Reply)> {
        let RunningCall {
            chat,
            request_id: id,
            why,
            untrusted_content,
            from,
        } = match self.running.remove(&call_id) {
            Some(running) => {
                self.unsaved = true;
                running
            }
            None => self.repeatable.remove(&call_id)?,
        };
        // What the agent reads is what is judged: a result over the cap
        // reaches it as Toolgate's words alone.
        let read = match &outcome {
            Ok(result) if result.get().len() > cap => None,
            Ok(result) => Some(Ok(result.get())),
            Err(reason) => Some(Err(reason.as_str())),
        };
        let declared = Declared {
            hint: untrusted_content,
            flagged: from.flagged || conduct.is_some_and(|c| c.broke.is_some()),
        };
        let found = read
            .filter(|_| !self.unguarded)
            .and_then(|read| untrusted(read, declared));
        if let Some(found) = &found {
            let source = Source {
                site: from.site,
                tool: from.tool,
                at_ms: now_ms,
                read: Place::Result,
                found: found.clone(),
            };
            self.read_untrusted(&chat, source);
            self.unsaved = true;
        }
        let meta = RunMeta {
            decision: Decision::Run { why },
            untrusted_content,
            conduct,
            result_untrusted: found.as_ref(),
            chat_read_untrusted: self.untrusted(&chat),
        };
        let reply = match outcome {
            Err(reason) => tool_result(&id, &reason, true, &meta),
            Ok(result) => result_reply(&id, result.get(), cap, &meta),
        };
        if !taken {
            self.keep_reply(&chat, &id, reply.clone());
        }
        Some((chat, id, reply))
    }

    /// Marks running call `call_id` as of a tool flagged for breaking its
    /// hints, if `flagged` says its tool is now: a tool flagged while its
    /// call ran (by another call's conduct) is flagged when the call ends, and
    /// its result is untrusted (docs/cards.md, "What counts as untrusted").
    pub fn flag_if(&mut self, call_id: u64, flagged: impl Fn(&str, &str) -> bool) {
        let running = self.running.get_mut(&call_id);
        let Some(call) = running.or(self.repeatable.get_mut(&call_id)) else {
            return;
        };
        call.from.flagged = call.from.flagged || flagged(&call.from.site, &call.from.tool);
    }

    /// Whether call `call_id` is running.
    pub fn runs(&self, call_id: u64) -> bool {
        self.running.contains_key(&call_id) || self.repeatable.contains_key(&call_id)
    }

    /// Keeps a reply for an agent that may have lost its wait (the worker
    /// stopped); the agent collects it by sending the same request again.
    pub(super) fn keep_reply(&mut self, chat: &str, id: &Value, reply: Reply) {
        self.unsaved = true;
        let key = request_key(chat, id);
        // Kept again (the same request id), it counts as the newest.
        self.take_kept_reply(&key);
        let size = reply.text().len();
        let reply = if size > KEPT_REPLY_BYTES {
            let message = format!(
                "the call ran, but its reply ({size} bytes) was too large for Toolgate to keep \
                 until the agent asked again (it keeps up to {KEPT_REPLY_BYTES} bytes)"
            );
            error_reply(id, &RpcError::NotCarriedOut(message))
        } else {
            reply
        };
        self.kept_replies.push((key, reply));
        // The oldest go first, past KEPT_REPLIES replies or KEPT_REPLY_BYTES;
        // the newest always fits.
        let mut bytes: usize = self.kept_replies.iter().map(|(_, r)| r.text().len()).sum();
        let mut gone = 0;
        while self.kept_replies.len() - gone > KEPT_REPLIES || bytes > KEPT_REPLY_BYTES {
            bytes -= self.kept_replies[gone].1.text().len();
            gone += 1;
        }
        self.kept_replies.drain(..gone);
    }

    /// Removes and returns the reply kept for this request key.
    pub(super) fn take_kept_reply(&mut self, key: &str) -> Option<Reply> {
        let at = self.kept_replies.iter().position(|(k, _)| k == key)?;
        Some(self.kept_replies.remove(at).1)
    }

    /// The agent collected its reply directly: no need to keep it.
    /// Returns whether a kept reply was dropped (the session changed).
    pub fn collected(&mut self, chat: &str, id: &Value) -> bool {
        let dropped = self.take_kept_reply(&request_key(chat, id)).is_some();
        self.unsaved |= dropped;
        dropped
    }
}
