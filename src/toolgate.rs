//! Everything the service worker holds of the core: the registry and the
//! agent session, rebuilt from what the worker stored, and each request,
//! answer and outcome taken with the world the worker sees. The binding
//! (src/wasm.rs) converts values into and out of these calls, nothing more.

use crate::decisions::agent::{
    page_outcome, Answered, Expired, FrameCall, Session, Step, TabInfo, Withdrawn, World,
};
use crate::decisions::answers::Answer;
use crate::decisions::rules::RuleBook;
use crate::page::registry::{Effect, Event, Registered, Registry};
use crate::views::cards::{self, Card};
use serde_json::Value;

/// The registry and the agent session, as one worker holds them.
#[derive(Debug, Default)]
pub struct Toolgate {
    pub registry: Registry,
    pub session: Session,
}

impl Toolgate {
    /// Rebuilds the core from the stored tools and the stored session (as
    /// `Effect::Store` and `Session::record` wrote them). A new core is a
    /// new worker: calls the old one was running are lost, and their agents
    /// are told so (`Session::restarted`).
    ///
    /// # Errors
    /// When a stored tool or the session cannot be read.
    pub fn from_storage(tools: &[String], session: Option<&str>) -> Result<Toolgate, String> {
        let registry = Registry::load(tools)?;
        let mut session: Session = match session {
            Some(text) => {
                serde_json::from_str(text).map_err(|e| format!("bad stored session: {e}"))?
            }
            None => Session::default(),
        };
        session.restarted();
        Ok(Toolgate { registry, session })
    }

    /// The site rules (docs/rules.md) as JSON text, as the shell keeps them
    /// in `chrome.storage.local`, bounded by the administrator's (JSON text,
    /// `null` when Toolgate is not managed): they apply from every agent's
    /// next request, and to the requests waiting on cards when answered.
    ///
    /// # Errors
    /// When a text is not a rule book; the rules in force stay as they were.
    pub fn set_rules(&mut self, text: &str, admin: &str) -> Result<(), String> {
        let own: RuleBook =
            serde_json::from_str(text).map_err(|e| format!("bad site rules: {e}"))?;
        let admin: Option<RuleBook> =
            serde_json::from_str(admin).map_err(|e| format!("bad administrator's rules: {e}"))?;
        self.session.rules = match admin {
            Some(admin) => own.bounded_by(&admin),
            None => own,
        };
        Ok(())
    }

    /// Closes the rule cards whose 10 minutes passed by `now_ms` (docs/rules.md).
    pub fn expire(&mut self, now_ms: u64) -> Vec<Expired> {
        self.session.expire(now_ms)
    }

    /// When the next card stops waiting, for the shell's alarm.
    pub fn next_deadline(&self) -> Option<u64> {
        self.session.next_deadline()
    }

    /// A page's or the browser's event, applied to the registry.
    pub fn apply(&mut self, event: Event) -> (Vec<Registered>, Vec<Effect>) {
        self.registry.apply(event)
    }

    /// An agent's JSON-RPC request, as chat `chat`.
    pub fn request(
        &mut self,
        chat: &str,
        request: &str,
        tabs: Option<&[TabInfo]>,
        now_ms: u64,
    ) -> Step {
        let world = World {
            registry: &self.registry,
            tabs,
            now_ms,
        };
        self.session.request(chat, request, &world)
    }

    /// A call that reached Toolgate's native copy of a tool in one frame.
    pub fn frame_call(&mut self, chat: &str, id: &Value, call: &FrameCall, now_ms: u64) -> Step {
        let world = World {
            registry: &self.registry,
            tabs: None,
            now_ms,
        };
        self.session.frame_call(chat, id, call, &world)
    }

    /// Withdraws request `id` of `chat` from the card it waits on; with no
    /// id, every waiting request of the chat.
    pub fn withdraw(&mut self, chat: &str, id: Option<&Value>) -> Withdrawn {
        match id {
            Some(id) => self.session.withdraw(chat, id),
            None => self.session.withdraw_chat(chat),
        }
    }

    /// A person's answer to a card.
    ///
    /// # Errors
    /// When the card no longer waits, or does not offer the answer.
    pub fn answer(
        &mut self,
        card_id: u64,
        answer: Answer,
        tabs: &[TabInfo],
        now_ms: u64,
    ) -> Result<Answered, String> {
        let world = World {
            registry: &self.registry,
            tabs: Some(tabs),
            now_ms,
        };
        self.session.answer(card_id, answer, &world)
    }

    /// A card's window was closed: it counts as the card's closing answer
    /// (docs/cards.md, "Closing a card"). `None` when the window showed no
    /// waiting card.
    ///
    /// # Errors
    /// As `answer`.
    pub fn window_closed(
        &mut self,
        window_id: i64,
        tabs: &[TabInfo],
        now_ms: u64,
    ) -> Result<Option<Answered>, String> {
        let Some(card_id) = self.session.card_of_window(window_id) else {
            return Ok(None);
        };
        let Some(answer) = self.session.close_answer(card_id) else {
            return Ok(None);
        };
        self.answer(card_id, answer, tabs, now_ms).map(Some)
    }

    /// A card's contents, or `None` if it no longer waits.
    pub fn card(&self, card_id: u64, tabs: &[TabInfo], now_ms: u64) -> Option<Card> {
        let pending = self.session.pending.get(&card_id)?;
        let world = World {
            registry: &self.registry,
            tabs: Some(tabs),
            now_ms,
        };
        let chat = self.session.chat_label(&pending.chat);
        cards::card(card_id, pending, chat, &world, &self.session.rules)
    }

    /// A tool's outcome from the page (see `page_outcome`); the reply as
    /// JSON text, or `None` for an unknown call.
    pub fn finish(
        &mut self,
        call_id: u64,
        result: Option<&str>,
        failure: Option<String>,
        cap: usize,
        taken: bool,
    ) -> Option<String> {
        let outcome = page_outcome(result, failure);
        self.session
            .finish(call_id, outcome, cap, taken)
            .map(|(_, _, reply)| reply.text().to_owned())
    }
}
