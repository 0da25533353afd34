//! The driver's cards: what a new card shows and offers, a person's
//! answers (and closed windows) and what they record, requests withdrawn,
//! and the check after every step that the core's open cards are the ones
//! the model saw open, unchanged.

use super::site_rules::{Gate, ASK_MS};
use super::*;
use toolgate::decisions::answers::RuleAnswer;

impl Driver {
    /// A new card: what it shows is the tool the request found, as the
    /// registry has it now, and it offers docs/cards.md's answers.
    pub(super) fn asked(&mut self, chat: &str, id: &Value, card_id: u64) {
        let pending = self
            .core
            .session
            .pending
            .get(&card_id)
            .expect("the card asked")
            .clone();
        assert_eq!((pending.chat.as_str(), &pending.request_id), (chat, id));
        assert!(!self.cards.contains_key(&card_id), "a card id is new");
        // Requests that waited on an answered card and now ask again may
        // already wait on this one (the first of them opened it).
        let view = self
            .core
            .card(card_id, &self.tabs, self.now_ms)
            .expect("a card is shown");
        // Whether a yes on its rule's card was given for this call: just
        // now, or late (kept for the agent's same call, and used by this card).
        let rule_yes =
            self.rule_answered.as_ref() == Some(id) || self.late_yes_used(chat, &pending);
        if let Action::Call(call) = &pending.action {
            assert!(
                self.current(call),
                "a card shows the tool as it is: {call:?}"
            );
            let frame_site = self.site_of(call);
            assert_eq!(call.site, frame_site);
            if pending.card == CardKind::Call {
                assert_eq!(
                    view.class,
                    Some(call.class.label()),
                    "the card shows the class"
                );
            }
            assert_eq!(pending.site, call.site);
            // A rule card opens only where the rule asks first; the chat's
            // cards only where the chat's answers decide (docs/rules.md).
            // After its rule's card was answered "Allow once", a call asks
            // again on the per-call card only for untrusted content read
            // since that card opened (docs/cards.md, "After untrusted content").
            let tool = tool_at(&self.core, call).expect("the tool shown");
            let gate = self.gate(chat, &call.site, tool, &call.arguments);
            let expected = match pending.card {
                CardKind::Rule => Gate::AskFirst,
                CardKind::Call if rule_yes => Gate::AskFirst,
                CardKind::Site | CardKind::Call => Gate::ChatDecides,
                CardKind::Script => {
                    unreachable!("no scenario registers a tool from another site's script")
                }
            };
            assert_eq!(gate, expected, "a {:?} card for {call:?}", pending.card);
            assert!(
                !rule_yes || !call.untrusted.is_empty(),
                "a card asks again after its rule's yes only for untrusted content: {call:?}"
            );
        }
        assert!(
            !self.model.rules.is_unattended(),
            "unattended, no card opens"
        );
        // docs/cards.md, "After untrusted content": once the chat has read
        // some, a call of a tool that is not Read only gets the per-call
        // confirmation (or its rule's card), which says so, never the site
        // question. A flagged tool's card says it is (docs/classes.md).
        let said = match &pending.action {
            Action::Call(call) => {
                let untrusted = call.class != toolgate::page::classify::Class::ReadOnly
                    && self.model.has_read_untrusted(chat);
                assert!(
                    !(untrusted && pending.card == CardKind::Site),
                    "the site question for an acting call after untrusted content: {call:?}"
                );
                let said = Said {
                    untrusted,
                    flagged: self.model.flagged(&call.site, &call.target.name),
                };
                assert_eq!(
                    Said {
                        untrusted: !call.untrusted.is_empty(),
                        flagged: call.broken.is_some(),
                    },
                    said,
                    "what card {card_id} says of {call:?}"
                );
                said
            }
            Action::List(_) => Said::default(),
        };
        let mut shown: Vec<String> = [&view.approve, &view.deny]
            .into_iter()
            .chain(&view.approve_menu)
            .chain(&view.deny_menu)
            .map(|c| format!("{:?}", c.answer))
            .collect();
        shown.sort();
        let expected: Vec<String> =
            offered(pending.card, &pending.site, said.narrows(pending.card))
                .into_iter()
                .collect();
        assert_eq!(
            shown, expected,
            "the answers card {card_id} offers on {}",
            pending.site
        );
        assert!(self
            .core
            .session
            .card_opened(card_id, card_id as i64 + 10_000));
        self.seen.asked += 1;
        self.seen.rule_asked += usize::from(pending.card == CardKind::Rule);
        self.seen.warned += usize::from(said.untrusted);
        self.cards.insert(
            card_id,
            Shown {
                chat: chat.to_owned(),
                request_id: id.clone(),
                action: pending.action,
                kind: pending.card,
                site: pending.site,
                waiters: Vec::new(),
                at_ms: self.now_ms,
                detached: false,
                said,
                rule_yes,
            },
        );
    }

    pub(super) fn site_of(&self, call: &PageCall) -> String {
        let slot = self
            .slots
            .iter()
            .find(|s| s.tab_id == call.target.tab_id && s.frame_id == call.target.frame_id)
            .expect("a frame the driver reports from");
        if slot.origin == "null" {
            format!("opaque:{}", call.target.document_id)
        } else {
            slot.origin.to_owned()
        }
    }

    pub(super) fn pick_card(&self, i: u8) -> u64 {
        let ids: Vec<u64> = self.cards.keys().copied().collect();
        ids.get(i as usize % (ids.len() + 1))
            .copied()
            .unwrap_or(999_999)
    }

    /// A person's answer: taken exactly when the card waits and offers it.
    pub(super) fn answer(&mut self, card_id: u64, answer: Answer) {
        let shown = self.cards.get(&card_id).cloned();
        let result = self.core.answer(card_id, answer, &self.tabs, self.now_ms);
        let offered = shown.as_ref().is_some_and(|s| {
            offered(s.kind, &s.site, s.said.narrows(s.kind)).contains(&format!("{answer:?}"))
        });
        assert_eq!(
            result.is_ok(),
            offered,
            "{answer:?} on card {card_id}: {result:?}"
        );
        if let (Some(shown), Ok(answered)) = (shown, result) {
            self.answered(card_id, shown, answer, answered);
        }
    }

    pub(super) fn answered(
        &mut self,
        card_id: u64,
        shown: Shown,
        answer: Answer,
        answered: toolgate::decisions::agent::Answered,
    ) {
        self.cards.remove(&card_id);
        self.seen.answered += 1;
        assert_eq!(
            (&answered.chat, &answered.request_id),
            (&shown.chat, &shown.request_id)
        );
        let chat = shown.chat.clone();
        let mut once = None;
        match (answer, &shown.action) {
            (Answer::Site(a), action) => {
                self.model.site_answer(&chat, &shown.site, a);
                if let (toolgate::decisions::answers::SiteAnswer::AllowOnce, Action::Call(call)) =
                    (a, action)
                {
                    once = Some((call, false));
                }
            }
            (Answer::Call(a), Action::Call(call)) => {
                use toolgate::decisions::answers::CallAnswer as C;
                // Recorded only for the tool the card showed.
                if let Some(tool) = tool_at(&self.core, call).filter(|_| self.current(call)) {
                    let facts = facts(call, tool);
                    // docs/cards.md, "A refusal while a card is open": a
                    // refusal that holds now beats an allowing answer to a
                    // card that opened before it, which records nothing.
                    let allows = matches!(a, C::AllowOnce | C::AlwaysAllowTool | C::AllowClass);
                    if !(allows && self.model.refuses(&chat, &facts)) {
                        self.model
                            .call_answer(&chat, &facts, &call.arguments, a, self.now_ms);
                        if allows {
                            once = Some((call, shown.rule_yes));
                        }
                    }
                }
            }
            (Answer::Rule(RuleAnswer::AllowOnce), Action::Call(call)) if shown.detached => {
                // A late yes: kept for the agent's same call of the
                // definition the card showed; nothing runs now.
                self.model
                    .rules
                    .late_yes(&chat, call, shown.said, self.now_ms);
                assert!(
                    matches!(answered.step, Step::Reply { .. }),
                    "a late yes runs nothing now"
                );
            }
            (Answer::Rule(RuleAnswer::AllowOnce), Action::Call(call)) => once = Some((call, true)),
            (Answer::Rule(RuleAnswer::Refuse), Action::Call(_)) => {}
            (Answer::Script(_), _) => {
                unreachable!("no scenario registers a tool from another site's script")
            }
            (Answer::Call(_) | Answer::Rule(_), Action::List(_)) => {
                panic!("a listing got a call or rule card's answer")
            }
        }
        let once = once.map(|(call, rule)| Once {
            request_id: &shown.request_id,
            call,
            rule,
            said: shown.said,
        });
        if matches!(answer, Answer::Rule(RuleAnswer::AllowOnce)) && !shown.detached {
            self.rule_answered = Some(shown.request_id.clone());
        }
        self.step(&chat, &shown.request_id, answered.step, once);
        self.rule_answered = None;
        let ids: Vec<&Value> = answered.waiting.iter().map(|w| &w.request_id).collect();
        let waiters: Vec<&Value> = shown.waiters.iter().map(|(w, _)| w).collect();
        assert_eq!(ids, waiters, "each request that waited goes on");
        for w in answered.waiting {
            self.step(&chat, &w.request_id, w.step, None);
        }
    }

    pub(super) fn withdraw(&mut self, chat: u8, back: u8, all: bool) {
        let chat = CHATS[chat as usize % CHATS.len()];
        let ids: Vec<Value> = self
            .sent
            .iter()
            .filter(|(c, _)| c == chat)
            .map(|(_, t)| serde_json::from_str::<Value>(t).expect("JSON")["id"].clone())
            .collect();
        let id = (!all && !ids.is_empty())
            .then(|| ids[ids.len() - 1 - back as usize % ids.len()].clone());
        if !all && id.is_none() {
            return;
        }
        let withdrawn = self.core.withdraw(chat, id.as_ref());
        let gone = |w: &Value| id.as_ref().is_none_or(|id| id == w);
        let mut closed = Vec::new();
        for (&card_id, shown) in self.cards.iter_mut().filter(|(_, s)| s.chat == chat) {
            shown.waiters.retain(|(w, _)| !gone(w));
            if gone(&shown.request_id) {
                if shown.kind == CardKind::Rule {
                    // A rule card stays for its 10 minutes: a yes on it is
                    // kept for the agent's same call (docs/rules.md).
                    shown.detached = true;
                } else if shown.waiters.is_empty() {
                    closed.push(card_id);
                } else {
                    // The next request waiting on the site question takes it over.
                    let (next, action) = shown.waiters.remove(0);
                    shown.request_id = next;
                    shown.action = action;
                }
            }
        }
        for card_id in &closed {
            self.cards.remove(card_id);
        }
        let windows: Vec<i64> = closed.iter().map(|c| *c as i64 + 10_000).collect();
        assert_eq!(
            withdrawn.close_windows, windows,
            "cards nobody waits on close"
        );
        assert!(
            withdrawn.dropped_cards.is_empty(),
            "every card's window was opened"
        );
    }

    /// Every card the core holds is one the model saw open, unchanged:
    /// the same request, the same tool as its request found it.
    pub(super) fn check_cards(&self) {
        let core: Vec<u64> = self
            .core
            .session
            .pending
            .iter()
            .map(|(&id, _)| id)
            .collect();
        let model: Vec<u64> = self.cards.keys().copied().collect();
        assert_eq!(core, model, "the open cards");
        for (id, pending) in self.core.session.pending.iter() {
            let shown = &self.cards[id];
            assert_eq!(pending.request_id, shown.request_id);
            assert_eq!(
                pending.action, shown.action,
                "card {id} still shows what it showed"
            );
            assert_eq!(pending.site, shown.site);
            assert_eq!(pending.detached, shown.detached, "card {id} detached");
            let deadline = (shown.kind == CardKind::Rule).then_some(shown.at_ms + ASK_MS);
            assert_eq!(pending.deadline_ms, deadline, "card {id}'s deadline");
            let waiting: Vec<(&Value, &Action)> = pending
                .waiting
                .iter()
                .map(|w| (&w.request_id, &w.action))
                .collect();
            let waiters: Vec<(&Value, &Action)> =
                shown.waiters.iter().map(|(i, a)| (i, a)).collect();
            assert_eq!(waiting, waiters);
            if is_opaque(&shown.site) {
                assert!(
                    matches!(&shown.action, Action::Call(c) if c.site == shown.site)
                        || matches!(shown.action, Action::List(_))
                );
            }
        }
    }
}

impl Driver {
    /// Whether the per-call card `pending` opened on a late yes for its
    /// call (which it uses up): the yes answered its rule, and the card asks
    /// again for untrusted content the chat read since.
    fn late_yes_used(&mut self, chat: &str, pending: &toolgate::decisions::agent::Pending) -> bool {
        let Action::Call(call) = &pending.action else {
            return false;
        };
        if pending.card != CardKind::Call {
            return false;
        }
        let Some(tool) = tool_at(&self.core, call).cloned() else {
            return false;
        };
        if self.gate(chat, &call.site, &tool, &call.arguments) != Gate::AskFirst {
            return false;
        }
        let Some(rule) = super::site_rules::RuleTool::of(&call.site, &tool) else {
            return false;
        };
        // It asks again: the yes it used did not say what the chat read now.
        let said = Said {
            untrusted: false,
            flagged: self.model.flagged(&call.site, &call.target.name),
        };
        self.model
            .rules
            .take_late(chat, &rule, &call.arguments, said, self.now_ms)
            .is_some()
    }
}
