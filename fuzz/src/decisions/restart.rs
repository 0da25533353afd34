//! The driver's outcomes and restarts: an outcome reaches a running call
//! only, and a core rebuilt from what the worker stored is the same core.

use super::*;

impl Driver {
    /// A running call's outcome, from its page (or one for a call that is
    /// not running). A result that holds untrusted content is remembered
    /// by its chat (docs/cards.md, "After untrusted content").
    pub(super) fn finish(&mut self, call: u8, outcome: u8, taken: bool) {
        let ids: Vec<u64> = self.running.keys().chain(&self.lost).copied().collect();
        let Some(&call_id) = ids.get(call as usize % (ids.len() + 1)) else {
            assert_eq!(
                self.core.finish(424_242, Some("1"), None, 1024, taken, 0),
                None
            );
            return;
        };
        let outcome = Outcome::of(outcome);
        let (result, failure) = outcome.page();
        let reply = self
            .core
            .finish(call_id, result, failure, 1024, taken, self.now_ms);
        let running = self.running.remove(&call_id);
        assert_eq!(
            reply.is_some(),
            running.is_some(),
            "an outcome reaches a running call only"
        );
        // A tool flagged when its call started or ends makes its result untrusted.
        let read_untrusted = running.filter(|r| {
            untrusted(
                outcome,
                r.declared_untrusted,
                r.flagged_at_start || self.model.flagged(&r.site, &r.name),
            )
        });
        if let Some(running) = read_untrusted {
            self.model.read_untrusted(&running.chat);
            self.seen.untrusted_read += 1;
        }
    }

    /// The worker stops and starts again from what it stored: the same
    /// registry, answers and cards, and the next new request decided as
    /// on the core that did not stop.
    pub(super) fn restart(&mut self, probe: &CallSpec) {
        self.seen.restarts += 1;
        let mut rebuilt = Toolgate::from_storage(&self.records, self.session.as_deref())
            .expect("storage reads back");
        // The worker hands the stored rules and flags to the core when it starts.
        setting::hand_rules(&self.book, self.admin.as_ref(), &mut rebuilt);
        if let Some(record) = &self.flags {
            rebuilt.set_flags(record).expect("the flags read back");
        }
        assert_eq!(
            rebuilt.registry, self.core.registry,
            "the registry, stored then loaded"
        );
        assert_eq!(
            rebuilt.session.answers, self.core.session.answers,
            "the answers, stored then loaded"
        );
        assert_eq!(
            rebuilt.session.pending, self.core.session.pending,
            "the cards, stored then loaded"
        );
        assert_eq!(
            rebuilt.session.late_yeses, self.core.session.late_yeses,
            "the late yeses, stored then loaded"
        );
        let mut twin = Toolgate::default();
        twin.registry = self.core.registry.clone();
        twin.session = self.core.session.clone();
        let (chat, text) = self.call_text(probe);
        std::mem::swap(&mut self.core, &mut twin);
        let stayed = self.request(chat, &text);
        self.core = rebuilt;
        let again = self.request(chat, &text);
        assert_eq!(
            comparable(&again),
            comparable(&stayed),
            "decided the same after a restart"
        );
        self.lost
            .extend(std::mem::take(&mut self.running).into_keys());
        self.sent.push((chat.to_owned(), text.clone()));
        let id = serde_json::from_str::<Value>(&text).expect("JSON")["id"].clone();
        self.step(chat, &id, again, None);
        self.model.called(chat);
    }
}

/// A step, with the ids of repeatable calls (counted by each worker apart,
/// never stored) left out.
fn comparable(step: &Step) -> Step {
    match step {
        Step::Run { run } if run.repeatable => Step::Run {
            run: Run {
                call_id: 0,
                ..run.clone()
            },
        },
        other => other.clone(),
    }
}
