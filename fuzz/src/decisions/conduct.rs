//! The driver's account of what calls were seen doing and what a chat read
//! (docs/classes.md, "Hints held to their word"; docs/cards.md, "After
//! untrusted content"): a running call seen doing something is judged by
//! the core and by the model alike; a flagged tool is Consequential on its
//! site; and a call that a flag or untrusted content makes confirmed runs
//! only on a yes given on a card that said so.

use super::model::breaks;
use super::script::Sight;
use super::*;
use toolgate::page::classify::Class;
use toolgate::page::conduct::{Seen, Witnessed};

impl Driver {
    /// The class a call of `tool` on `site` is decided as now: Consequential
    /// once the tool is flagged there (docs/classes.md, "What follows").
    pub(super) fn class_now(&self, site: &str, tool: &Tool) -> Option<Class> {
        let class = tool.verdict.class?;
        Some(if self.model.flagged(site, &tool.decl.name) {
            Class::Consequential
        } else {
            class
        })
    }

    /// Whether the tool at a call's target is still the one its request
    /// found: its definition, and its class as decided now.
    pub(super) fn current(&self, call: &PageCall) -> bool {
        tool_at(&self.core, call).is_some_and(|t| {
            self.class_now(&call.site, t) == Some(call.class) && t.definition() == call.definition
        })
    }

    /// A run of `facts`' tool for `chat`, on `yes` (what the card whose yes
    /// let it run said, if a card's did): once the chat has read untrusted
    /// content, a call of a tool that is not Read only runs only on a yes
    /// for this call on a card that said so; so does any call of a flagged
    /// tool. Unattended, neither runs.
    pub(super) fn check_said(&self, chat: &str, id: &Value, facts: &Facts, yes: Option<Said>) {
        if facts.class != Class::ReadOnly && self.model.has_read_untrusted(chat) {
            assert!(
                yes.is_some_and(|s| s.untrusted),
                "an acting call ran after the chat read untrusted content, with no yes on a \
                 card that said so: chat {chat}, request {id}, {facts:?}, yes {yes:?}"
            );
        }
        if self.model.flagged(&facts.site, &facts.name) {
            assert!(
                yes.is_some_and(|s| s.flagged),
                "a flagged tool ran with no yes on a card that said so: chat {chat}, \
                 request {id}, {facts:?}, yes {yes:?}"
            );
        }
    }

    /// What the driver keeps of a call that starts running: what its hints
    /// promise, as the model reads them, is what the core watches it for
    /// (a flagged tool's too: its hints still say what they said).
    pub(super) fn running_call(
        &self,
        chat: &str,
        id: &Value,
        run: &Run,
        tool: &Tool,
        facts: &Facts,
    ) -> Running {
        let class = tool.verdict.class;
        let read_only = class == Some(Class::ReadOnly);
        let stays_on_site = class != Some(Class::Consequential)
            && tool.decl.hint(Hint::OpenWorld) == HintState::False;
        let promised = (read_only || stays_on_site).then_some((read_only, stays_on_site));
        assert_eq!(
            run.watch.as_ref().map(|w| (w.read_only, w.stays_on_site)),
            promised,
            "what a call of {facts:?} is watched for"
        );
        Running {
            chat: chat.to_owned(),
            request_id: id.clone(),
            site: facts.site.clone(),
            name: facts.name.clone(),
            declared_untrusted: tool.decl.hint(Hint::UntrustedContent) == HintState::True,
            flagged_at_start: self.model.flagged(&facts.site, &facts.name),
            watch: run.watch.clone(),
            read_only,
            stays_on_site,
            observed: false,
        }
    }

    /// A running call seen doing `sight` by its tool's own frame: judged
    /// with the call the first time (as it answers, watch.js), on its own
    /// after (its tail). The core flags the tool exactly when the model
    /// says it broke its hints.
    pub(super) fn observe(&mut self, call: u8, sight: u8) {
        let ids: Vec<u64> = self.running.keys().copied().collect();
        let Some(&call_id) = ids.get(call as usize % (ids.len() + 1)) else {
            return;
        };
        let running = &self.running[&call_id];
        // A sandboxed document has no address of its own to send to.
        let (Some(watch), false) = (&running.watch, is_opaque(&running.site)) else {
            return;
        };
        let sight = Sight::of(sight);
        let (method, url) = match sight {
            Sight::ReadsOwn => ("GET", format!("{}/api/list", running.site)),
            Sight::WritesOwn => ("POST", format!("{}/api/delete", running.site)),
            Sight::ReadsAway => ("GET", "https://tracker.example/collect".to_owned()),
        };
        let witnessed = Witnessed::of(&running.site, [Seen::by_script(method, &url)]);
        let judged_with = (!running.observed).then_some(call_id);
        let flagged = self
            .core
            .observe(judged_with, watch, &witnessed, false, self.now_ms);
        let broke = breaks(running.read_only, running.stays_on_site, sight);
        assert_eq!(
            flagged.is_some(),
            broke,
            "{sight:?} by a call of {} on {} (Read only {}, stays on its site {})",
            running.name,
            running.site,
            running.read_only,
            running.stays_on_site
        );
        let (site, name) = (running.site.clone(), running.name.clone());
        if let Some(running) = self.running.get_mut(&call_id) {
            running.observed = true;
        }
        if let Some(flagged) = flagged {
            self.model.flag(&site, &name);
            self.flags = Some(flagged.record);
            self.seen.flagged += 1;
        }
    }
}

impl Driver {
    /// The person clears the `flag`th flag the model holds (in the palette or
    /// on the settings page), or one that is not there: the core clears
    /// exactly those it holds.
    pub(super) fn clear_flag(&mut self, flag: u8) {
        let held = self.model.nth_flag(usize::from(flag % 4));
        let (site, name) = held
            .clone()
            .unwrap_or_else(|| ("https://a.example".to_owned(), "none".to_owned()));
        let record = self.core.clear_flag(&site, Some(&name));
        assert_eq!(record.is_some(), held.is_some(), "cleared {name} on {site}");
        if let Some(record) = record {
            self.model.clear_flag(&site, &name);
            self.flags = Some(record);
        }
    }
}
