//! A person's answers to the cards requests wait on: which window shows
//! which card, what closing one counts as, and what an answer comes to.

use super::*;

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

    /// The card shown in a window, if any.
    pub fn card_of_window(&self, window_id: i64) -> Option<u64> {
        self.pending
            .iter()
            .find(|(_, p)| p.window_id == Some(window_id))
            .map(|(&id, _)| id)
    }

    /// What closing a card without answering counts as (seed 001).
    pub fn close_answer(&self, card_id: u64) -> Option<Answer> {
        self.pending.get(&card_id).map(|p| match p.card {
            CardKind::Site => Answer::Site(SiteAnswer::DenyForChat),
            CardKind::Call => Answer::Call(CallAnswer::DenyOnce),
        })
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
        let offered = crate::cards::offered(pending.card, &pending.site);
        if !offered.contains(&answer) {
            return Err(format!("{answer:?} is not an answer card {card_id} offers"));
        }
        let pending = self.pending.remove(&card_id).ok_or("card vanished")?;
        let (chat, id) = (pending.chat.clone(), pending.request_id.clone());
        let step = match (answer, pending.wanted.clone()) {
            (
                Answer::Site(a),
                Wanted::List {
                    tab_id,
                    mut allowed_once,
                    mut denied_once,
                },
            ) => {
                match self.answers.answer_site(&chat, &pending.site, a) {
                    Some(Decision::Run { .. }) => allowed_once.push(pending.site.clone()),
                    Some(_) if a == SiteAnswer::DenyOnce => denied_once.push(pending.site.clone()),
                    _ => {}
                }
                self.pursue(
                    &chat,
                    &id,
                    Wanted::List {
                        tab_id,
                        allowed_once,
                        denied_once,
                    },
                    world,
                )
            }
            (Answer::Site(a), mut wanted @ Wanted::Call { .. }) => {
                match self.answers.answer_site(&chat, &pending.site, a) {
                    Some(Decision::Run { .. }) => {
                        if let Wanted::Call { allowed_once, .. } = &mut wanted {
                            *allowed_once = true;
                        }
                        self.pursue(&chat, &id, wanted, world)
                    }
                    Some(refused) => Step::Reply {
                        reply: refusal(&id, refused),
                    },
                    None => self.pursue(&chat, &id, wanted, world),
                }
            }
            (Answer::Call(a), wanted @ Wanted::Call { .. }) => {
                let Wanted::Call {
                    tab_id,
                    frame_id,
                    ref document_id,
                    source,
                    ref site,
                    ref name,
                    ref arguments,
                    ..
                } = wanted
                else {
                    return Err("unreachable".to_owned());
                };
                match current_facts(
                    world.registry,
                    tab_id,
                    frame_id,
                    document_id,
                    source,
                    name,
                    site,
                ) {
                    None => Step::Reply {
                        reply: error_reply(
                            &id,
                            -32000,
                            &format!("{name} is no longer published by tab {tab_id}"),
                        ),
                    },
                    Some(facts) => {
                        match self
                            .answers
                            .answer_call(&chat, &facts, arguments, a, world.now_ms)
                        {
                            Decision::Run { .. } => {
                                let mut once = wanted.clone();
                                if let Wanted::Call { allowed_once, .. } = &mut once {
                                    *allowed_once = true;
                                }
                                self.pursue(&chat, &id, once, world)
                            }
                            refused => Step::Reply {
                                reply: refusal(&id, refused),
                            },
                        }
                    }
                }
            }
            (Answer::Call(_), Wanted::List { .. }) => {
                return Err("a listing has no per-call card".to_owned())
            }
        };
        if let Step::Reply { reply } = &step {
            self.keep_done(&chat, &id, reply.clone());
        }
        // The requests that waited on this card go on as if they came now:
        // after a lasting answer, by what it allows; after an answer for one
        // call only, by asking again (the first of them opens the next card).
        let mut followers = Vec::new();
        for follower in pending.followers {
            let step = self.pursue(&chat, &follower.request_id, follower.wanted, world);
            if let Step::Reply { reply } = &step {
                self.keep_done(&chat, &follower.request_id, reply.clone());
            }
            followers.push(Followed {
                request_id: follower.request_id,
                step,
            });
        }
        Ok(Answered {
            chat,
            request_id: id,
            step,
            followers,
        })
    }
}
