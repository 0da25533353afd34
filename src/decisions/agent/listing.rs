//! The two listings agents get: the tabs that publish tools, and a tab's
//! tools and skills as far as the chat may see them.

use super::*;
use crate::decisions::answers::{site_host, ToolFacts};
use crate::decisions::rules::{Gate, RuleFacts};
use crate::decisions::untrusted::{Place, Source};
use crate::page::untrusted::{untrusted, Declared};
use crate::protocol::reply;
use serde_json::json;

impl Session {
    /// Decides a listing of a tab's tools: each site in the tab is listed,
    /// withheld, or asked about, in the order the tab's frames have them.
    pub(super) fn decide_listing(
        &mut self,
        chat: &str,
        id: &Value,
        listing: Listing,
        world: &World,
    ) -> Step {
        let tab_id = listing.tab_id;
        let sites = sites_of(world.registry, tab_id);
        if sites.is_empty() && world.tabs.is_none() {
            return Step::NeedTabs;
        }
        if sites.is_empty() && world.tab(tab_id).is_none() {
            let error = RpcError::InvalidParams(format!("there is no tab {tab_id}"));
            return Step::error(id, &error);
        }
        let mut listed = Vec::new();
        let mut withheld = Vec::new();
        for site in &sites {
            match self.site_listing(chat, site, &listing) {
                Decision::Run { .. } => listed.push(site.clone()),
                Decision::Refuse { why } => withheld.push(why),
                // Unattended, no card ever opens (docs/rules.md): a site with
                // rules lists what they do not turn Off; one without is withheld.
                Decision::AskSite | Decision::AskCall { .. }
                    if self.rules.unattended && self.rules.sites.contains_key(site.as_str()) =>
                {
                    listed.push(site.clone())
                }
                Decision::AskSite | Decision::AskCall { .. } if self.rules.unattended => withheld.push(format!(
                    "{}'s tools need an answer on a card to be listed, and no one was there to ask (Toolgate runs unattended)",
                    site_host(site)
                )),
                Decision::AskSite | Decision::AskCall { .. } => {
                    let site = site.clone();
                    return self.ask(chat, id, Action::List(listing), CardKind::Site, site, false);
                }
            }
        }
        Step::reply(self.listing(chat, id, tab_id, &listed, &withheld, world))
    }

    /// Whether one site's tools are listed: by what a card said of this
    /// listing, or else by the chat's answers.
    fn site_listing(&self, chat: &str, site: &str, listing: &Listing) -> Decision {
        if listing.allowed_once.iter().any(|s| s == site) {
            Decision::Run {
                why: "you allowed this listing only".to_owned(),
            }
        } else if listing.denied_once.iter().any(|s| s == site) {
            Decision::Refuse {
                why: format!("you denied this listing on {}", site_host(site)),
            }
        } else {
            self.answers.decide_list(chat, site)
        }
    }

    /// Reads what a listing shows the model of one tool or tab (`texts`,
    /// read together) as a result is read: a listing a chat receives is text
    /// its model reads (docs/cards.md, "After untrusted content").
    fn read_listed(
        &mut self,
        chat: &str,
        site: &str,
        named: &str,
        read: Place,
        texts: &[&str],
        now_ms: u64,
    ) {
        let Ok(text) = serde_json::to_string(texts) else {
            return;
        };
        if let Some(found) = untrusted(Ok(&text), Declared::default()) {
            let source = Source {
                site: site.to_owned(),
                tool: named.to_owned(),
                at_ms: now_ms,
                read,
                found,
            };
            self.read_untrusted(chat, source);
        }
    }

    pub(super) fn list_tabs(&mut self, chat: &str, id: &Value, world: &World) -> Reply {
        let tabs: Vec<Value> = world
            .registry
            .tab_ids()
            .filter(|&tab| world.registry.count(tab) > 0)
            .map(|tab| {
                let info = world.tab(tab);
                // The tab's own site is its top page's, whoever publishes
                // the tools; `sites` are those whose frames publish them.
                let sites = sites_of(world.registry, tab);
                let site = info.and_then(|t| origin_of(&t.url));
                json!({"tabId": tab, "site": site, "sites": sites, "title": info.map(|t| t.title.clone())})
            })
            .collect();
        for tab in &tabs {
            if let (Some(title), Some(site)) = (tab["title"].as_str(), tab["site"].as_str()) {
                self.read_listed(chat, site, title, Place::TabTitle, &[title], world.now_ms);
            }
        }
        let text = serde_json::to_string(&tabs).unwrap_or_default();
        reply(
            id,
            json!({"content": [{"type": "text", "text": text}], "structuredContent": {"tabs": tabs}, "isError": false}),
        )
    }

    pub(super) fn listing(
        &mut self,
        chat: &str,
        id: &Value,
        tab_id: TabId,
        sites: &[String],
        withheld: &[String],
        world: &World,
    ) -> Reply {
        let mut tools = Vec::new();
        let mut skills = Vec::new();
        let mut read = Vec::new();
        for frame in world
            .registry
            .frames(tab_id)
            .filter(|f| sites.contains(&f.site()))
        {
            let site = frame.site();
            for tool in &frame.tools {
                let d = &tool.decl;
                match ToolFacts::of(tool, &site, &world.registry.flags) {
                    None => skills.push(
                        json!({"name": d.name, "title": d.title, "description": d.description,
                                               "instructions": d.instructions, "site": site}),
                    ),
                    // A tool its site's rule turns Off is not listed (docs/rules.md).
                    Some(_)
                        if RuleFacts::of(tool).is_some_and(|rule| {
                            matches!(self.rule_gate(chat, &site, rule), Gate::Off { .. })
                        }) => {}
                    // So is one another site's script registered, where the
                    // rule or the chat refuses those (docs/cards.md).
                    Some(_) if self.script_hidden(chat, &site, tool) => {}
                    Some(facts) if self.answers.visible(chat, &facts) => {
                        read.push((site.clone(), d));
                        let mut listed = json!({
                            "name": d.name, "title": d.title, "description": d.description,
                            "class": facts.class.label(), "badges": tool.verdict.badges,
                            "site": site,
                            "inputSchema": d.input_schema.as_deref().and_then(|s| serde_json::from_str::<Value>(s).ok()),
                        });
                        // Where it comes from, where that is not its frame's own origin.
                        if let Some(by) = tool.provenance.shown() {
                            listed["registeredBy"] = Value::String(by);
                        }
                        tools.push(listed);
                    }
                    Some(_) => {}
                }
            }
        }
        // A skill's instructions are addressed to the agent by design: what
        // the tools say of themselves is read, not what a skill teaches.
        for (site, d) in read {
            let texts = [
                d.name.as_str(),
                d.title.as_deref().unwrap_or(""),
                d.description.as_str(),
            ];
            self.read_listed(chat, &site, &d.name, Place::Listing, &texts, world.now_ms);
        }
        // What the chat has seen of each site's tools, and what is new to it
        // (docs/agents.md, "New tools in a listing").
        let shown = tools.iter().map(|t| {
            (
                t["site"].as_str().unwrap_or("").to_owned(),
                t["name"].as_str().unwrap_or("").to_owned(),
            )
        });
        let new = self.seen_in_listing(chat, tab_id, sites, &shown.collect(), world);
        let listing =
            json!({"tabId": tab_id, "tools": tools, "skills": skills, "withheld": withheld});
        let text = serde_json::to_string(&listing).unwrap_or_default();
        let mut result = json!({"content": [{"type": "text", "text": text}], "structuredContent": listing, "isError": false});
        if !new.is_empty() {
            result["_meta"] = json!({"toolgate": {"new": new}});
        }
        reply(id, result)
    }
}

/// The sites whose frames publish in tab `tab_id`, each once, in frame order.
fn sites_of(registry: &Registry, tab_id: TabId) -> Vec<String> {
    let mut sites: Vec<String> = Vec::new();
    for site in registry.frames(tab_id).map(|f| f.site()) {
        if !sites.contains(&site) {
            sites.push(site);
        }
    }
    sites
}

/// The origin of a tab's URL (`scheme://host[:port]`), as a frame's site is
/// written; `None` for a URL without one (`about:blank`, `data:`).
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    (!host.is_empty()).then(|| format!("{}://{host}", scheme.to_ascii_lowercase()))
}
