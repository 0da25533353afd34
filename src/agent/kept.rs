//! Finished calls, and the replies kept for agents that lost their wait
//! (the worker stopped): collected by sending the same request again.

use super::*;

impl Session {
    /// A finished call's outcome, from the page: `Ok(result)`, the result as
    /// JSON text, or `Err(reason)`. `taken`: its agent is waiting and takes
    /// the reply now; otherwise the reply is kept until the agent sends the
    /// same request again.
    pub fn finish(
        &mut self,
        call_id: u64,
        outcome: Result<&RawValue, String>,
        cap: usize,
        taken: bool,
    ) -> Option<(String, Value, Reply)> {
        let (chat, id, why) = match self.running.remove(&call_id) {
            Some(running) => {
                self.unsaved = true;
                running
            }
            None => self.repeatable.remove(&call_id)?,
        };
        let decision = Decision::Run { why };
        let reply = match outcome {
            Err(reason) => tool_result(&id, &reason, true, &decision),
            Ok(result) => result_reply(&id, result.get(), cap, &decision),
        };
        if !taken {
            self.keep_done(&chat, &id, reply.clone());
        }
        Some((chat, id, reply))
    }

    /// Keeps a reply for an agent that may have lost its wait (the worker
    /// stopped); the agent collects it by sending the same request again.
    pub(super) fn keep_done(&mut self, chat: &str, id: &Value, reply: Reply) {
        self.unsaved = true;
        let key = request_key(chat, id);
        // Kept again (the same request id), it counts as the newest.
        self.take_done(&key);
        let size = reply.text().len();
        let reply = if size > DONE_KEPT_BYTES {
            let message = format!(
                "the call ran, but its reply ({size} bytes) was too large for Toolgate to keep \
                 until the agent asked again (it keeps up to {DONE_KEPT_BYTES} bytes)"
            );
            error_reply(id, -32000, &message)
        } else {
            reply
        };
        self.done.push((key, reply));
        // The oldest go first, past DONE_KEPT replies or DONE_KEPT_BYTES;
        // the newest always fits.
        let mut bytes: usize = self.done.iter().map(|(_, r)| r.text().len()).sum();
        let mut gone = 0;
        while self.done.len() - gone > DONE_KEPT || bytes > DONE_KEPT_BYTES {
            bytes -= self.done[gone].1.text().len();
            gone += 1;
        }
        self.done.drain(..gone);
    }

    /// Removes and returns the reply kept for this request key.
    pub(super) fn take_done(&mut self, key: &str) -> Option<Reply> {
        let at = self.done.iter().position(|(k, _)| k == key)?;
        Some(self.done.remove(at).1)
    }

    /// The agent collected its reply directly: no need to keep it.
    /// Returns whether a kept reply was dropped (the session changed).
    pub fn collected(&mut self, chat: &str, id: &Value) -> bool {
        let dropped = self.take_done(&request_key(chat, id)).is_some();
        self.unsaved |= dropped;
        dropped
    }
}
