//! A person's answers to the cards requests wait on: which window shows
//! which card, what closing one counts as, and what an answer comes to.

use super::*;
use crate::decisions::answers::{Answer, CallAnswer, RuleAnswer, SiteAnswer};

impl Session {
    /// Records which window shows a card.
    /// Returns whether the card still waits (it may have been withdrawn).
    pub fn card_opened(&mut self, card_id: u64, window_id: i64) -> bool {
        self.unsaved = true;
        match self.pending.get_mut(&card_id) {
            Some(p) => {
                p.window_id = Some(window_id);
                true
            }
            None => false,
        }
    }

    /// The cards waiting for an answer with no window recorded, by id. A
    /// worker that stopped after storing a card and before recording its
    /// window (or before opening it) left them so; the next worker finds
    /// their windows, or opens them, when it starts. A card waiting behind
    /// another of its tab's is left out until that one is answered: then
    /// the shell opens it.
    pub fn cards_without_window(&self) -> Vec<u64> {
        self.pending
            .iter()
            // A card behind another of its tab's opens once that one is answered.
            .filter(|(&id, p)| {
                p.window_id.is_none() && self.card_shown(p.action.tab_id()) == Some(id)
            })
            .map(|(&id, _)| id)
            .collect()
    }

    /// The card shown in a window, if any.
    pub fn card_of_window(&self, window_id: i64) -> Option<u64> {
        self.pending
            .iter()
            .find(|(_, p)| p.window_id == Some(window_id))
            .map(|(&id, _)| id)
    }

    /// What closing a card without answering counts as (docs/cards.md,
    /// "Closing a card").
    pub fn close_answer(&self, card_id: u64) -> Option<Answer> {
        self.pending
            .get(&card_id)
            .map(|p| p.card.closing_answer(&p.site))
    }

    /// A person's answer to a card.
    ///
    /// # Errors
    /// Fails when there is no such card (already answered) or the answer is
    /// not one the card offers.
    pub fn answer(
        &mut self,
        card_id: u64,
        answer: Answer,
        world: &World,
    ) -> Result<Answered, String> {
        self.unsaved = true;
        let pending = self
            .pending
            .get(&card_id)
            .ok_or_else(|| format!("card {card_id} is not waiting for an answer"))?;
        if !pending.offered().contains(&answer) {
            return Err(format!("{answer:?} is not an answer card {card_id} offers"));
        }
        let pending = self.pending.remove(&card_id).ok_or("card vanished")?;
        let (chat, id) = (pending.chat.clone(), pending.request_id.clone());
        let detached = pending.detached;
        let step = match (answer, pending.action) {
            (Answer::Site(a), action) => {
                self.site_answered(&chat, &id, &pending.site, a, action, world)
            }
            (Answer::Call(a), Action::Call(call)) => self.call_answered(&chat, &id, a, call, world),
            (Answer::Rule(RuleAnswer::AllowOnce), Action::Call(call)) if detached => {
                self.late_yes_given(&chat, &id, &call, world.now_ms)
            }
            (Answer::Rule(RuleAnswer::AllowOnce), Action::Call(call)) => {
                let call = PageCall {
                    rule_yes: true,
                    ..call
                };
                self.decide_call(&chat, &id, call, world)
            }
            (Answer::Rule(RuleAnswer::Refuse), Action::Call(call)) => refusal(
                &id,
                Decision::Refuse {
                    why: format!(
                        "Nothing ran: you refused this call of {}{}.",
                        call.target.name,
                        call.asked_by_words()
                    ),
                },
            ),
            (Answer::Script(a), Action::Call(call)) => {
                self.script_answered(&chat, &id, a, call, world)
            }
            (Answer::Call(_) | Answer::Rule(_) | Answer::Script(_), Action::List(_)) => {
                return Err("a listing has no per-call card".to_owned())
            }
        };
        self.keep_if_reply(&chat, &id, &step);
        self.keep_chats_in_room(&chat);
        // The requests that waited on this card go on as if they came now:
        // after a lasting answer, by what it allows; after an answer for one
        // call only, by asking again (the first of them opens the next card).
        let waiting = pending
            .waiting
            .into_iter()
            .map(|w| {
                let step = self.decide(&chat, &w.request_id, w.action, world);
                self.keep_if_reply(&chat, &w.request_id, &step);
                WaitingStep {
                    request_id: w.request_id,
                    step,
                }
            })
            .collect();
        Ok(Answered {
            chat,
            request_id: id,
            step,
            waiting,
        })
    }

    /// The site question answered: recorded for the chat, then the request
    /// goes on, this once allowed or refused where the answer was for it alone.
    fn site_answered(
        &mut self,
        chat: &str,
        id: &Value,
        site: &str,
        answer: SiteAnswer,
        action: Action,
        world: &World,
    ) -> Step {
        let decided = self.answers.answer_site(chat, site, answer);
        match action {
            Action::List(mut listing) => {
                match decided {
                    Some(Decision::Run { .. }) => listing.allowed_once.push(site.to_owned()),
                    Some(_) if answer == SiteAnswer::DenyOnce => {
                        listing.denied_once.push(site.to_owned())
                    }
                    _ => {}
                }
                self.decide_listing(chat, id, listing, world)
            }
            Action::Call(call) => match decided {
                Some(Decision::Run { .. }) => self.decide_call(chat, id, call.this_once(), world),
                Some(refused) => refusal(id, refused),
                None => self.decide_call(chat, id, call, world),
            },
        }
    }

    /// The per-call confirmation answered, for the tool its card showed.
    fn call_answered(
        &mut self,
        chat: &str,
        id: &Value,
        answer: CallAnswer,
        call: PageCall,
        world: &World,
    ) -> Step {
        // The answer is to the tool the card showed: if it went or changed,
        // nothing is recorded and nothing runs.
        let facts = match call.current(world.registry) {
            Ok(facts) => facts,
            Err(error) => return Step::error(id, &error),
        };
        // A refusal that came while the card was open holds against an
        // allowing answer: nothing is recorded and nothing runs.
        if answer.allows() {
            if let Some(refused) = self.answers.standing_refusal(chat, &facts) {
                return refusal(id, refused);
            }
        }
        match self
            .answers
            .answer_call(chat, &facts, &call.arguments, answer, world.now_ms)
        {
            Decision::Run { .. } => self.decide_call(chat, id, call.this_once(), world),
            refused => refusal(id, refused),
        }
    }

    /// A reply decided while no agent waited for it (a card was answered) is
    /// kept until its agent asks again.
    fn keep_if_reply(&mut self, chat: &str, id: &Value, step: &Step) {
        if let Step::Reply { reply } = step {
            self.keep_reply(chat, id, reply.clone());
        }
    }
}

impl PageCall {
    /// The condition or limit its rule's card asked for, as the agent is
    /// told it after a yes or a no on that card: " (transfer: amount is
    /// more than 20, by the rule for the tool transfer)", or nothing
    /// (docs/agents.md, "What an agent is told").
    pub(super) fn asked_by_words(&self) -> String {
        self.asked_because
            .as_ref()
            .map_or_else(String::new, |b| format!(" ({})", b.text()))
    }

    /// The call, allowed by a card for this once.
    fn this_once(self) -> PageCall {
        PageCall {
            allowed_once: true,
            ..self
        }
    }
}

impl Pending {
    /// The answers its card offers: a call card for a tool that broke its
    /// hints (docs/classes.md), or for a call after untrusted content
    /// (docs/cards.md), offers none that would cover a later call.
    pub fn offered(&self) -> Vec<Answer> {
        let mut offers = self.card.offered(&self.site);
        if self.card == CardKind::Call
            && matches!(&self.action, Action::Call(call)
                if call.broken.is_some() || !call.untrusted.is_empty())
        {
            offers.retain(|a| {
                !matches!(
                    a,
                    Answer::Call(CallAnswer::AlwaysAllowTool | CallAnswer::AllowClass)
                )
            });
        }
        offers
    }
}
