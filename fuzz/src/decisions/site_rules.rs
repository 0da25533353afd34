//! A model of the site rules, written from docs/rules.md alone (it calls
//! none of the core's rule logic): per site a level per kind, and the tools
//! and areas set apart with what the person saw when setting them; whether
//! anyone is there to ask; and the yeses given after an agent stopped
//! waiting; the limits on how often, and the calls each chat made under
//! them; an administrator's policy (`super::policy`), which bounds the
//! person's rules call by call. It says, for a tool as it is now, what its
//! site's rule lets a call do: the chat's answers decide, it asks first, or
//! it is off.

use super::conditions::{first_held, Held};
use super::model::Said;
use super::policy::{Policy, PolicySet, PolicySite};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use toolgate::decisions::agent::PageCall;
use toolgate::decisions::rules::{Change, Every, Level, SeenTool, Target, ToolKind};
use toolgate::page::classify::Class;
use toolgate::page::declaration::{Hint, HintState};
use toolgate::page::registry::Tool;

/// docs/rules.md, "How long a call waits": 10 minutes.
pub const ASK_MS: u64 = 10 * 60 * 1000;

/// docs/rules.md, "Kinds"; `None` for a skill.
pub fn kind_of(tool: &Tool) -> Option<ToolKind> {
    let class = tool.verdict.class?;
    let decl = &tool.decl;
    Some(if class == Class::ReadOnly {
        ToolKind::Read
    } else if decl.hint(Hint::Destructive) == HintState::True {
        ToolKind::Delete
    } else if decl.hint(Hint::OpenWorld) != HintState::False {
        ToolKind::Outside
    } else {
        ToolKind::Write
    })
}

/// docs/rules.md, "Areas and tools set apart": the first tag, or else the
/// name before its first `.`.
pub fn area_of(name: &str, tags: &[String]) -> String {
    match tags.first() {
        Some(tag) if !tag.is_empty() => tag.clone(),
        _ => name.split('.').next().unwrap_or(name).to_owned(),
    }
}

/// A tool as its rule sees it, now.
#[derive(Clone, Debug)]
pub struct RuleTool {
    pub site: String,
    pub name: String,
    pub area: String,
    pub kind: ToolKind,
    pub definition: String,
}

impl RuleTool {
    pub fn of(site: &str, tool: &Tool) -> Option<RuleTool> {
        Some(RuleTool {
            site: site.to_owned(),
            name: tool.decl.name.clone(),
            area: area_of(&tool.decl.name, &tool.decl.tags),
            kind: kind_of(tool)?,
            definition: tool.definition().to_owned(),
        })
    }
}

/// What a site's rule lets a call do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// No rules, or Allowed: the chat's answers decide.
    ChatDecides,
    /// Only a yes on a card showing this definition lets it run.
    AskFirst,
    /// It never runs.
    Off,
}

#[derive(Clone, Debug)]
struct SiteModel {
    kinds: BTreeMap<ToolKind, Level>,
    /// Tools set apart: the level, for the definition the person saw.
    tools: BTreeMap<String, (Level, String)>,
    /// Areas set apart: the level, for the kinds the area held then.
    areas: BTreeMap<String, (Level, BTreeSet<ToolKind>)>,
    /// The conditions of tools set apart (docs/rules.md, "Conditions on a
    /// tool's arguments"): each one test on `x`, its operator, its value,
    /// and the level it gives.
    conditions: BTreeMap<String, Vec<Held>>,
    /// The limits on how often (docs/rules.md, "Limits on how often"), by
    /// what they hold for: at most so many calls in so many minutes.
    limits: BTreeMap<LimitOf, Every>,
}

/// What a limit holds for, by name, whatever the tool's definition.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LimitOf {
    Kind(ToolKind),
    Area(String),
    Tool(String),
}

impl LimitOf {
    pub(super) fn of(target: &Target) -> LimitOf {
        match target {
            Target::Kind { kind } => LimitOf::Kind(*kind),
            Target::Area { area } => LimitOf::Area(area.clone()),
            Target::Tool { name } => LimitOf::Tool(name.clone()),
            Target::Scripts => unreachable!(
                "no scenario sets the rule for tools registered by other sites' scripts"
            ),
        }
    }

    fn covers(&self, tool: &RuleTool) -> bool {
        match self {
            LimitOf::Kind(kind) => *kind == tool.kind,
            LimitOf::Area(area) => *area == tool.area,
            LimitOf::Tool(name) => *name == tool.name,
        }
    }
}

impl Default for SiteModel {
    /// "A new rule set starts with Read Allowed, Write and Outside the site
    /// on Ask first, and Delete Off."
    fn default() -> Self {
        SiteModel {
            kinds: [
                (ToolKind::Read, Level::Allowed),
                (ToolKind::Write, Level::AskFirst),
                (ToolKind::Delete, Level::Off),
                (ToolKind::Outside, Level::AskFirst),
            ]
            .into(),
            tools: BTreeMap::new(),
            areas: BTreeMap::new(),
            conditions: BTreeMap::new(),
            limits: BTreeMap::new(),
        }
    }
}

impl SiteModel {
    /// A tool's own level for the definition it was set for, then its
    /// area's for the kinds it held, then its kind's.
    fn level(&self, tool: &RuleTool, arguments: &Value) -> Level {
        if let Some((level, _)) = self
            .tools
            .get(&tool.name)
            .filter(|(_, saw)| *saw == tool.definition)
        {
            // The first condition whose test holds on the arguments.
            let held = self
                .conditions
                .get(&tool.name)
                .and_then(|conditions| first_held(conditions, arguments));
            return held.unwrap_or(*level);
        }
        if let Some((level, _)) = self
            .areas
            .get(&tool.area)
            .filter(|(_, kinds)| kinds.contains(&tool.kind))
        {
            return *level;
        }
        self.kinds[&tool.kind]
    }
}

#[derive(Clone, Debug)]
struct LateYes {
    chat: String,
    site: String,
    name: String,
    definition: String,
    arguments: String,
    until_ms: u64,
    /// What its card said of the call.
    said: Said,
}

/// What the person set on the settings page, and the late yeses.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    sites: BTreeMap<String, SiteModel>,
    pub unattended: bool,
    late: Vec<LateYes>,
    /// When each chat's calls under a limit ran, by chat, site and what
    /// the limit holds for: counted from when the limit holds.
    times: BTreeMap<(String, String, LimitOf), Vec<u64>>,
    /// The administrator's policy, once Toolgate is managed.
    admin: Option<Policy>,
}

/// The same arguments, in any order.
fn same_arguments(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

impl Rules {
    /// Unattended mode, the person's or the administrator's (docs/rules.md,
    /// "Who can change the rules"): no card opens.
    pub fn is_unattended(&self) -> bool {
        self.unattended || self.admin.as_ref().is_some_and(|p| p.unattended)
    }

    /// The person's rules or the administrator's hold on `site`.
    pub fn has_rules(&self, site: &str) -> bool {
        self.sites.contains_key(site) || self.admin_of(site).is_some()
    }

    fn admin_of(&self, site: &str) -> Option<&PolicySite> {
        self.admin.as_ref()?.site(site)
    }

    /// An administrator's policy for `site` (`Policy::set`).
    pub fn set_policy(&mut self, site: &str, set: PolicySet, unattended: bool) {
        let policy = self.admin.get_or_insert_with(Policy::default);
        policy.set(site, set, unattended);
    }

    /// Whether the person may set `target` of `site` to `level` (`kind`:
    /// the tool's, for a tool): anything unmanaged; under a policy, what
    /// `Policy::may` says.
    fn may(&self, site: &str, target: &Target, level: Level, kind: Option<ToolKind>) -> bool {
        self.admin
            .as_ref()
            .is_none_or(|policy| policy.may(site, target, level, kind))
    }

    /// What the site's rule lets a call of `tool` do from `chat` at
    /// `now_ms` (`read_only_chat`: opened Read only). A call past a limit
    /// needs a yes as at Ask first.
    pub fn gate(
        &self,
        chat: &str,
        read_only_chat: bool,
        tool: &RuleTool,
        arguments: &str,
        now_ms: u64,
    ) -> Gate {
        let own = self.sites.get(&tool.site);
        let theirs = self.admin_of(&tool.site);
        if own.is_none() && theirs.is_none() {
            return Gate::ChatDecides;
        }
        if read_only_chat && tool.kind != ToolKind::Read {
            return Gate::Off;
        }
        let arguments = serde_json::from_str(arguments).unwrap_or(Value::Null);
        // The narrower of the person's level for the call and the
        // administrator's (docs/rules.md, "Who can change the rules").
        let mine = own.map_or(Level::Allowed, |site| site.level(tool, &arguments));
        let level = mine.max(theirs.map_or(Level::Allowed, |t| t.level(tool, &arguments)));
        match level {
            Level::Allowed if self.past_limit(chat, tool, now_ms) => {
                if self.is_unattended() {
                    Gate::Off
                } else {
                    Gate::AskFirst
                }
            }
            Level::Allowed => Gate::ChatDecides,
            Level::Off => Gate::Off,
            // Unattended, Ask first acts as Off.
            Level::AskFirst if self.is_unattended() => Gate::Off,
            Level::AskFirst => Gate::AskFirst,
        }
    }

    /// Whether the settings page takes a change with `seen` listed: a kind
    /// needs a level; only tools and areas seen can be set apart; at most
    /// 50 set apart at once, 200 areas and 500 tools a site.
    pub fn takes(&self, site: &str, changes: &[Change], seen: &[SeenTool]) -> bool {
        let mut areas: BTreeSet<&str> = BTreeSet::new();
        let mut tools: BTreeSet<&str> = BTreeSet::new();
        if let Some(rules) = self.sites.get(site) {
            areas.extend(rules.areas.keys().map(String::as_str));
            tools.extend(rules.tools.keys().map(String::as_str));
        }
        let mut apart = 0;
        for change in changes {
            let kind = seen
                .iter()
                .find(|t| Some(&t.name) == tool_name(&change.target));
            if let Some(level) = change.level {
                if !self.may(site, &change.target, level, kind.map(|t| t.kind)) {
                    return false;
                }
            }
            match &change.target {
                Target::Scripts => unreachable!(
                    "no scenario sets the rule for tools registered by other sites' scripts"
                ),
                Target::Kind { .. } if change.level.is_none() => return false,
                Target::Kind { .. } => {}
                // An area or a tool set apart: one the page lists, within the caps.
                Target::Area { area: name } | Target::Tool { name } => {
                    let (set, known) = match &change.target {
                        // An area with a rule counts as seen, though none of
                        // its tools is listed now (docs/rules.md, "Areas and
                        // tools set apart").
                        Target::Area { .. } => (
                            &mut areas,
                            seen.iter().any(|t| t.area == *name)
                                || self
                                    .sites
                                    .get(site)
                                    .is_some_and(|r| r.areas.contains_key(name)),
                        ),
                        _ => (&mut tools, seen.iter().any(|t| t.name == *name)),
                    };
                    if !known {
                        return false;
                    }
                    apart += 1;
                    match change.level {
                        Some(_) => set.insert(name),
                        None => set.remove(name.as_str()),
                    };
                }
            }
        }
        apart <= 50 && areas.len() <= 200 && tools.len() <= 500
    }

    /// A change the settings page took, made with `seen` before the person:
    /// a tool's level holds for the definition listed, an area's for the
    /// kinds of the tools listed in it.
    pub fn change(&mut self, site: &str, changes: &[Change], seen: &[SeenTool]) {
        let rules = self.sites.entry(site.to_owned()).or_default();
        for change in changes {
            match (&change.target, change.level) {
                (Target::Kind { kind }, Some(level)) => {
                    rules.kinds.insert(*kind, level);
                }
                (Target::Kind { .. }, None) => unreachable!("refused"),
                (Target::Scripts, _) => unreachable!(
                    "no scenario sets the rule for tools registered by other sites' scripts"
                ),
                (Target::Tool { name }, Some(level)) => {
                    let saw = seen
                        .iter()
                        .find(|t| t.name == *name)
                        .map(|t| t.definition.clone())
                        .expect("a tool seen");
                    rules.tools.insert(name.clone(), (level, saw));
                }
                (Target::Tool { name }, None) => {
                    rules.tools.remove(name);
                    rules.conditions.remove(name);
                }
                (Target::Area { area }, Some(level)) => {
                    let kinds = seen
                        .iter()
                        .filter(|t| t.area == *area)
                        .map(|t| t.kind)
                        .collect();
                    rules.areas.insert(area.clone(), (level, kinds));
                }
                (Target::Area { area }, None) => {
                    rules.areas.remove(area);
                }
            }
        }
    }

    /// Whether the settings page takes `conditions` for the tool `name` of
    /// `site` (`schema`: a tab publishes it with its schema now): at most 5,
    /// on a tool seen, and, unless none, on a tool set apart with a schema.
    pub fn takes_conditions(
        &self,
        site: &str,
        name: &str,
        count: usize,
        seen: &[SeenTool],
        schema: bool,
    ) -> bool {
        let set_apart = self
            .sites
            .get(site)
            .is_some_and(|s| s.tools.contains_key(name));
        count <= 5 && seen.iter().any(|t| t.name == name) && (count == 0 || (schema && set_apart))
    }

    /// Under a policy, whether a condition of the tool `name` of `site` may
    /// give Allowed: only where the tool itself could be set to Allowed
    /// (`kind`: its kind), and not against the administrator's level for it.
    pub fn may_allow_conditionally(&self, site: &str, name: &str, kind: Option<ToolKind>) -> bool {
        let tool = Target::Tool {
            name: name.to_owned(),
        };
        self.may(site, &tool, Level::Allowed, kind)
            && self
                .admin
                .as_ref()
                .is_none_or(|policy| policy.may_allow_conditionally(site, name))
    }

    /// Conditions the settings page took: they hold with the tool's level,
    /// for the definition seen now.
    pub fn set_conditions(
        &mut self,
        site: &str,
        name: &str,
        conditions: Vec<Held>,
        seen: &[SeenTool],
    ) {
        let rules = self.sites.entry(site.to_owned()).or_default();
        let saw = seen
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.definition.clone());
        if let (Some((_, definition)), Some(saw)) = (rules.tools.get_mut(name), saw) {
            *definition = saw;
        }
        if conditions.is_empty() {
            rules.conditions.remove(name);
        } else {
            rules.conditions.insert(name.to_owned(), conditions);
        }
    }

    /// Whether the settings page takes a limit on `target` of `site`: a
    /// kind's always; an area's or a tool's only once seen on the site, as
    /// for levels.
    pub fn takes_limit(&self, site: &str, target: &Target, seen: &[SeenTool]) -> bool {
        match target {
            Target::Scripts => unreachable!(
                "no scenario sets the rule for tools registered by other sites' scripts"
            ),
            Target::Kind { .. } => true,
            Target::Area { area } => {
                seen.iter().any(|t| t.area == *area)
                    || self
                        .sites
                        .get(site)
                        .is_some_and(|r| r.areas.contains_key(area))
            }
            Target::Tool { name } => seen.iter().any(|t| t.name == *name),
        }
    }

    /// A limit set (`Some`) or removed on the settings page.
    pub fn set_limit(&mut self, site: &str, target: &Target, every: Option<Every>) {
        let rules = self.sites.entry(site.to_owned()).or_default();
        match every {
            Some(every) => rules.limits.insert(LimitOf::of(target), every),
            None => rules.limits.remove(&LimitOf::of(target)),
        };
    }

    /// The limits of `tool`'s site that hold for it now.
    fn limits_of<'a>(
        &'a self,
        tool: &'a RuleTool,
    ) -> impl Iterator<Item = (&'a LimitOf, Every)> + 'a {
        let mine = self
            .sites
            .get(&tool.site)
            .into_iter()
            .flat_map(|site| site.limits.iter());
        let theirs = self
            .admin_of(&tool.site)
            .into_iter()
            .flat_map(|site| site.limits.iter().map(|(of, every)| (of, every)));
        mine.chain(theirs)
            .filter(|(of, _)| of.covers(tool))
            .map(|(of, every)| (of, *every))
    }

    /// Whether a call of `tool` by `chat` at `now_ms` is past a limit: as
    /// many calls as it allows ran within its window.
    fn past_limit(&self, chat: &str, tool: &RuleTool, now_ms: u64) -> bool {
        self.limits_of(tool).any(|(of, every)| {
            let window = u64::from(every.minutes) * 60_000;
            let key = (chat.to_owned(), tool.site.clone(), of.clone());
            let ran = self.times.get(&key).map_or(0, |times| {
                times.iter().filter(|&&t| t + window > now_ms).count()
            });
            ran >= every.calls as usize
        })
    }

    /// A call of `tool` by `chat` ran at `now_ms`: it counts for each limit
    /// that holds for it.
    pub fn ran(&mut self, chat: &str, tool: &RuleTool, now_ms: u64) {
        // The person's limit and the administrator's for the same kind,
        // area or tool count the same calls, each once.
        let keys: BTreeSet<LimitOf> = self.limits_of(tool).map(|(of, _)| of.clone()).collect();
        for of in keys {
            let key = (chat.to_owned(), tool.site.clone(), of);
            self.times.entry(key).or_default().push(now_ms);
        }
    }

    /// "Allow once" on a rule card whose agent stopped waiting: the same
    /// call of the definition the card showed runs once within 10 minutes.
    /// `said`: what the card said of the call.
    pub fn late_yes(&mut self, chat: &str, card: &PageCall, said: Said, now_ms: u64) {
        self.late.push(LateYes {
            chat: chat.to_owned(),
            site: card.site.clone(),
            name: card.target.name.clone(),
            definition: card.definition.clone(),
            arguments: card.arguments.clone(),
            until_ms: now_ms + ASK_MS,
            said,
        });
    }

    /// Uses a late yes for this call of `tool` as it is now (`said`: flagged
    /// or not, for a yes given before a flag does not run the flagged tool;
    /// the chat read untrusted content or not), if one holds: what its card
    /// said of the call.
    /// With several for the same call, one whose card said the chat read
    /// untrusted content is taken first when `untrusted` asks for it: the
    /// model does not follow which of them the core used up on calls it
    /// asked about again without running.
    pub fn take_late(
        &mut self,
        chat: &str,
        tool: &RuleTool,
        arguments: &str,
        said: Said,
        now_ms: u64,
    ) -> Option<Said> {
        let same = |y: &&LateYes| {
            y.chat == chat
                && y.site == tool.site
                && y.name == tool.name
                && y.definition == tool.definition
                && same_arguments(&y.arguments, arguments)
                && y.said.flagged == said.flagged
                && now_ms < y.until_ms
        };
        let found = self
            .late
            .iter()
            .position(|y| same(&y) && (y.said.untrusted || !said.untrusted))
            .or_else(|| self.late.iter().position(|y| same(&y)));
        found.map(|i| self.late.remove(i).said)
    }
}

/// The name a change's target names, if a tool.
fn tool_name(target: &Target) -> Option<&String> {
    match target {
        Target::Tool { name } => Some(name),
        _ => None,
    }
}
