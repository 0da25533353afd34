//! Every site's rules together (`RuleBook`), bounded by an administrator's,
//! changed one change at a time from the settings page, and the tools seen
//! on a site that can be set apart (docs/rules.md).

use super::*;
use crate::page::registry::Registry;

/// Every site's rule set, and whether anyone is there to ask: what the
/// service worker keeps in `chrome.storage.local` and hands the core whole
/// whenever it changes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleBook {
    /// Rule sets by site (an origin, as a frame's site is written). A site
    /// without one follows the chat's answers alone.
    #[serde(default)]
    pub sites: BTreeMap<String, SiteRules>,
    /// Unattended mode: no card ever opens; Ask first acts as Off.
    #[serde(default)]
    pub unattended: bool,
    /// The administrator's level for tools registered by other sites'
    /// scripts, on every site (their policy's `otherSitesScripts`; docs/rules.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scripts: Option<Level>,
}

/// A tool as the settings page's "Set areas and tools apart" lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenTool {
    pub name: String,
    pub area: String,
    pub kind: ToolKind,
    /// Its definition (`Tool::definition`) when last seen.
    #[serde(default)]
    pub definition: String,
    /// Where it comes from, where that is not its frame's own origin:
    /// "registered by a script from cdn.example", cut and escaped as page
    /// text (docs/classes.md, "Where a tool comes from").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<String>,
}

/// The tools `site` publishes in the open tabs, each once, by name.
pub fn site_tools(registry: &Registry, site: &str) -> Vec<SeenTool> {
    let mut seen: BTreeMap<String, SeenTool> = BTreeMap::new();
    for tab in registry.tab_ids() {
        for frame in registry.frames(tab).filter(|f| f.site() == site) {
            for (tool, facts) in frame
                .tools
                .iter()
                .filter_map(|t| RuleFacts::of(t).map(|f| (t, f)))
            {
                let shown = tool.provenance.shown();
                let cut =
                    |s: String| crate::page::hidden::page_line(&s, crate::page::hidden::NAME_CAP);
                seen.insert(
                    facts.name.to_owned(),
                    SeenTool {
                        name: facts.name.to_owned(),
                        area: facts.area.to_owned(),
                        kind: facts.kind,
                        definition: facts.definition.to_owned(),
                        registered_by: shown.map(cut),
                    },
                );
            }
        }
    }
    seen.values().cloned().collect()
}

/// The schemas of the tools `site` publishes in the open tabs, by name
/// (a tool without one is left out).
pub fn site_schemas(registry: &Registry, site: &str) -> BTreeMap<String, serde_json::Value> {
    let mut schemas = BTreeMap::new();
    for tab in registry.tab_ids() {
        for frame in registry.frames(tab).filter(|f| f.site() == site) {
            for tool in frame.tools.iter().filter(|t| RuleFacts::of(t).is_some()) {
                if let Some(schema) = tool.schema() {
                    schemas.insert(tool.decl.name.clone(), schema.clone());
                }
            }
        }
    }
    schemas
}

impl SiteRules {
    /// These rules, bounded by an administrator's: each level the narrower
    /// of the two, for the kinds, areas and tools either sets.
    pub fn bounded_by(&self, admin: &SiteRules) -> SiteRules {
        SiteRules::bounded(Some(self), admin)
    }

    /// The person's rules for a site (`own`; none set) bounded by the
    /// administrator's. The person's stay as they set them, and each call
    /// gets the narrower of what theirs and the administrator's say
    /// (`SiteRules::level`); a site the person set no rules for has the
    /// administrator's alone, each of them named theirs on a card.
    fn bounded(own: Option<&SiteRules>, admin: &SiteRules) -> SiteRules {
        let mut out = match own {
            Some(own) => SiteRules {
                admin: Some(Box::new(admin.clone())),
                ..own.clone()
            },
            // Their limits are added once, below.
            None => SiteRules {
                limits: Vec::new(),
                admin_alone: true,
                ..admin.clone()
            },
        };
        out.bound_more(admin, own);
        out
    }
}

impl RuleBook {
    /// The person's rules bounded by an administrator's (docs/rules.md, "Who
    /// can change the rules"): a site either sets is held to the narrower of
    /// the two; unattended if either says so.
    pub fn bounded_by(&self, admin: &RuleBook) -> RuleBook {
        let mut out = self.clone();
        out.unattended |= admin.unattended;
        out.scripts = admin.scripts;
        for (site, bound) in admin.sites.iter() {
            // A site the person set no rules for has the administrator's alone.
            let bounded = SiteRules::bounded(self.sites.get(site.as_str()), bound);
            out.sites.insert(site.clone(), bounded);
        }
        out
    }

    /// One change of `site`'s rules from the settings page, whole or not at
    /// all; `seen` are the tools seen on the site (only those can be set
    /// apart), `admin` the administrator's rules when Toolgate is managed.
    /// A site without rules starts from a new rule set.
    ///
    /// # Errors
    /// Why the change was refused; nothing of it was saved.
    pub fn change(
        &mut self,
        site: &str,
        changes: &[Change],
        seen: &[SeenTool],
        admin: Option<&RuleBook>,
    ) -> Result<(), RuleError> {
        self.change_with(site, changes, seen, admin, &BTreeMap::new())
    }

    /// `change`, with the schemas (`inputSchema`) of the tools as their tabs
    /// publish them now, by name: a tool's conditions are checked against
    /// its schema (docs/rules.md, "Conditions on a tool's arguments").
    ///
    /// # Errors
    /// Why the change was refused; nothing of it was saved.
    pub fn change_with(
        &mut self,
        site: &str,
        changes: &[Change],
        seen: &[SeenTool],
        admin: Option<&RuleBook>,
        schemas: &BTreeMap<String, serde_json::Value>,
    ) -> Result<(), RuleError> {
        super::scripts::within_admin(changes, admin)?;
        for change in changes {
            if let (Target::Tool { name }, Some(conditions)) = (&change.target, &change.conditions)
            {
                super::conditions::validate(conditions, schemas.get(name.as_str()))
                    .map_err(|e| RuleError::More { why: e.words(name) })?;
            }
        }
        let mut rules = self.sites.get(site).cloned().unwrap_or_default();
        // What the person set apart counts as seen: a change to their own
        // rules never depends on the record of tools seen, which pages can
        // evict a site from (docs/rules.md, "Set areas and tools apart").
        let seen = &self.listed(site, seen);
        // A tool with a rule whose kind was not kept (set before the rules
        // kept it) counts as the strictest kind: it can be changed or put
        // back, and under an administrator not set to Allowed.
        let before = self.sites.get(site);
        let kind_of = |name: &str| {
            let with_rule = before.is_some_and(|r| r.tools.contains_key(name));
            let kept = with_rule.then_some(ToolKind::Delete);
            seen.iter()
                .find(|t| t.name == name)
                .map(|t| t.kind)
                .or(kept)
        };
        let area_seen =
            |area: &str| rules.areas.contains_key(area) || seen.iter().any(|t| t.area == area);
        for change in changes {
            if let Target::Area { area } = &change.target {
                if !area_seen(area) {
                    return Err(RuleError::NotSeen {
                        what: super::area_shown(area),
                    });
                }
            }
        }
        let who = match admin {
            Some(admin) => Who::Managed {
                admin: admin.sites.get(site),
            },
            None => Who::Owner,
        };
        rules.apply(changes, &who, &kind_of)?;
        // A rule set apart holds for what the person saw (docs/rules.md, "A
        // rule holds for what you saw"): a tool's level for its definition
        // now, an area's for the kinds of tools it holds now.
        for change in changes {
            // Conditions hold for the definition they were set for, as the
            // tool's level does: setting them sets that again.
            let level = match (&change.target, &change.conditions) {
                (_, None) if change.limit.is_some() => continue,
                (Target::Tool { .. }, Some(_)) => Some(Level::AskFirst),
                _ => change.level,
            };
            match (&change.target, level) {
                (Target::Tool { name }, Some(_)) => {
                    let tool = seen.iter().find(|t| &t.name == name);
                    match tool.map(|t| &t.definition).filter(|d| !d.is_empty()) {
                        Some(d) => rules.tool_definitions.insert(name.clone(), d.clone()),
                        None => rules.tool_definitions.remove(name.as_str()),
                    };
                    if let Some(tool) = tool {
                        let area = tool.area.clone();
                        let kind = tool.kind;
                        rules
                            .tools_as_set
                            .insert(name.clone(), AsSet { area, kind });
                    }
                }
                (Target::Tool { name }, None) => {
                    rules.tool_definitions.remove(name.as_str());
                    rules.tools_as_set.remove(name.as_str());
                }
                (Target::Area { area }, Some(_)) => {
                    let mut kinds: Vec<ToolKind> = seen
                        .iter()
                        .filter(|t| &t.area == area)
                        .map(|t| t.kind)
                        .collect();
                    kinds.sort();
                    kinds.dedup();
                    // An area with a rule and none of its tools seen now
                    // keeps the kinds it was set for.
                    if !kinds.is_empty() || !rules.area_kinds.contains_key(area.as_str()) {
                        rules.area_kinds.insert(area.clone(), kinds);
                    }
                }
                (Target::Area { area }, None) => {
                    rules.area_kinds.remove(area.as_str());
                }
                (Target::Kind { .. } | Target::Scripts, _) => {}
            }
        }
        self.sites.insert(site.to_owned(), rules);
        Ok(())
    }

    /// The tools the set-apart page lists for `site`: those `seen` there,
    /// and each tool its rules set apart as it was when set, though no tab
    /// publishes it now and the record of tools seen no longer holds it;
    /// each once, by name.
    pub fn listed(&self, site: &str, seen: &[SeenTool]) -> Vec<SeenTool> {
        let mut listed: BTreeMap<&str, SeenTool> =
            seen.iter().map(|t| (t.name.as_str(), t.clone())).collect();
        if let Some(rules) = self.sites.get(site) {
            for (name, set) in &rules.tools_as_set {
                if !rules.tools.contains_key(name.as_str()) || listed.contains_key(name.as_str()) {
                    continue;
                }
                let definition = rules.tool_definitions.get(name.as_str());
                listed.insert(
                    name,
                    SeenTool {
                        name: name.clone(),
                        area: set.area.clone(),
                        kind: set.kind,
                        definition: definition.cloned().unwrap_or_default(),
                        registered_by: None,
                    },
                );
            }
        }
        listed.into_values().collect()
    }

    /// The gate for a call of `tool` on `site` by a chat (`read_only_chat`
    /// when it was opened Read only).
    pub fn gate(&self, site: &str, tool: RuleFacts, read_only_chat: bool) -> Gate {
        let mode = Mode {
            read_only_chat,
            unattended: self.unattended,
        };
        gate(self.sites.get(site), tool, mode)
    }
}

/// What agents may do with one tool seen on a site, as the set-apart page
/// shows it (docs/rules.md): the level that holds now, and where it comes
/// from in plain words ("Off, by the rule for Delete tools"; "Allowed, set
/// apart"). `level` is `None` on a site without rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    pub name: String,
    pub level: Option<Level>,
    pub says: String,
}

impl RuleBook {
    /// Each of `tools`' standing under `site`'s rules, in their order.
    pub fn standings(&self, site: &str, tools: &[SeenTool]) -> Vec<Standing> {
        let Some(rules) = self.sites.get(site) else {
            return tools
                .iter()
                .map(|tool| Standing {
                    name: tool.name.clone(),
                    level: None,
                    says: "No rules: what a chat allows".to_owned(),
                })
                .collect();
        };
        tools
            .iter()
            .map(|tool| {
                let (level, because) = rules.level(RuleFacts {
                    name: &tool.name,
                    area: &tool.area,
                    kind: tool.kind,
                    definition: &tool.definition,
                });
                let from = match &because {
                    Because::Area { area, admin: false } => {
                        format!("by the area {}", super::area_shown(area))
                    }
                    Because::Area { area, admin: true } => format!(
                        "by your administrator's rule for the area {}",
                        super::area_shown(area)
                    ),
                    Because::Kind { kind, admin: false } => {
                        format!("by the rule for {} tools", kind.label())
                    }
                    Because::Kind { kind, admin: true } => {
                        format!("by your administrator's rule for {} tools", kind.label())
                    }
                    Because::Tool { admin: true, .. } => {
                        "set apart by your administrator".to_owned()
                    }
                    _ => "set apart".to_owned(),
                };
                let more = rules.more_words(
                    RuleFacts {
                        name: &tool.name,
                        area: &tool.area,
                        kind: tool.kind,
                        definition: &tool.definition,
                    },
                    &because,
                );
                let unattended = if level == Level::AskFirst && self.unattended {
                    " (Off while Toolgate runs unattended)"
                } else {
                    ""
                };
                Standing {
                    name: tool.name.clone(),
                    level: Some(level),
                    says: format!("{}{unattended}, {from}{more}", level.label()),
                }
            })
            .collect()
    }
}
