//! Tools that appear after a chat listed its site's tools (docs/cards.md,
//! "Tools that appear after a chat listed them"), as the agent entry meets
//! them: what a listing keeps of a site and marks new
//! (`_meta.toolgate.new`, docs/agents.md), the card a new tool's first call
//! in the chat needs (`appeared_gate`, at one place of `decide_call`), and
//! which sites an open chat listed, whose changes the audit keeps
//! (`watches`). The record itself is `decisions::lifecycle`'s.

use super::*;
use crate::decisions::answers::site_host;
use crate::decisions::lifecycle::{site_key, Appeared};
use crate::page::declaration::Kind;
use serde_json::json;
use std::collections::BTreeSet;

impl Session {
    /// Chat `chat` is listed `sites` of tab `tab_id`: a site it lists for
    /// the first time keeps the site's tools there as seen; on one it listed
    /// before, each tool the listing shows (`shown`: site, name) that is new
    /// to the chat is marked, as `_meta.toolgate.new` gives it.
    pub(super) fn seen_in_listing(
        &mut self,
        chat: &str,
        tab_id: TabId,
        sites: &[String],
        shown: &BTreeSet<(String, String)>,
        world: &World,
    ) -> Vec<Value> {
        let mut marks = Vec::new();
        if self.answers.closed(chat) {
            return marks;
        }
        for site in sites {
            let tools: Vec<(&str, &str)> = world
                .registry
                .frames(tab_id)
                .filter(|f| f.site() == *site)
                .flat_map(|f| f.tools.iter())
                .filter(|t| t.decl.kind == Kind::Tool)
                .map(|t| (t.decl.name.as_str(), t.definition()))
                .collect();
            let seen = &mut self.answers.chat(chat).seen;
            if seen.listed(site, tools.iter().copied()) {
                continue;
            }
            for (name, definition) in tools {
                if !shown.contains(&(site.clone(), name.to_owned())) {
                    continue;
                }
                if let Some(appeared) = seen.appeared(site, name, definition) {
                    marks.push(
                        json!({"name": name, "site": site, "why": appeared.words(site_host(site))}),
                    );
                }
            }
        }
        self.keep_chats_in_room(chat);
        marks
    }

    /// Whether the tool `call` found is new on its site to `chat`.
    fn appeared(&self, chat: &str, call: &PageCall) -> Option<Appeared> {
        self.answers
            .chats
            .get(chat)?
            .seen
            .appeared(&call.site, &call.target.name, &call.definition)
    }

    /// Marks `call` as asked about for a tool new to its chat, where it is
    /// (a rule's card asks first, and says so too).
    pub(super) fn appeared_asked(&self, chat: &str, call: &mut PageCall) {
        if call.appeared.is_none() {
            call.appeared = self.appeared(chat, call);
        }
    }

    /// A call of a tool that is new on its site to the chat, which listed the
    /// site's tools before it appeared: its first call in the chat needs a
    /// yes on a call card that says so (docs/cards.md, "Tools that appear
    /// after a chat listed them"); once that yes lets it run, the tool is one
    /// the chat has seen, and the chat's answers apply to it as to any tool.
    /// `decision` is what the chat's answers would make of the call; `warn`,
    /// that it is asked about after untrusted content, on a card that then
    /// says this too (`appeared_asked`); `rule_yes`, that its rule's card (or
    /// a late yes) said yes already. Unattended, no card opens: it is
    /// refused. `Some` with the step that asks or refuses; `None` where the
    /// call goes on.
    pub(super) fn appeared_gate(
        &mut self,
        chat: &str,
        id: &Value,
        call: &PageCall,
        decision: &Decision,
        (warn, rule_yes): (bool, bool),
    ) -> Option<Step> {
        if warn || matches!(decision, Decision::Refuse { .. }) {
            return None;
        }
        let appeared = self.appeared(chat, call)?;
        match decision {
            Decision::Run { .. } if call.appeared.is_some() => {
                let (site, name) = (&call.site, &call.target.name);
                if self
                    .answers
                    .chat(chat)
                    .seen
                    .accept(site, name, &call.definition)
                {
                    self.unsaved = true;
                    self.keep_chats_in_room(chat);
                }
                None
            }
            _ if call.appeared.is_some() => None,
            _ if self.rules.unattended => {
                let (name, host) = (&call.target.name, site_host(&call.site));
                let why = format!(
                    "Nothing ran: {name} {}, so its first call in this chat needs a yes on a card, and no one was there to ask (Toolgate runs unattended).",
                    appeared.words(host)
                );
                Some(refusal(id, Decision::Refuse { why }))
            }
            _ => {
                let changed = *decision == Decision::AskCall { changed: true };
                let asked = PageCall {
                    appeared: Some(appeared),
                    rule_yes,
                    ..call.clone()
                };
                let site = call.site.clone();
                Some(self.ask(chat, id, Action::Call(asked), CardKind::Call, site, changed))
            }
        }
    }

    /// Whether an open chat listed `site`'s tools: its tools' changes are
    /// then audited (`decisions::lifecycle::changes`).
    pub fn watches(&self, site: &str) -> bool {
        let listed = |c: &&crate::decisions::answers::Chat| !c.closed && !c.seen.is_empty();
        if !self.answers.chats.values().any(|c| listed(&c)) {
            return false;
        }
        let key = site_key(site);
        self.answers
            .chats
            .values()
            .filter(listed)
            .any(|c| c.seen.watches(&key))
    }
}
