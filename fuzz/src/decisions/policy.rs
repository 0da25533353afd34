//! A model of an administrator's policy, written from docs/rules.md ("Who
//! can change the rules") alone: by site, the levels it sets by name (a
//! kind, area or tool it leaves out is not bounded), its conditions on
//! tools' arguments and its limits on how often, which count beside the
//! person's; and its unattended mode, which the person cannot turn off.
//! `super::site_rules` bounds the person's rules with it.

use super::conditions::{first_held, Held};
use super::site_rules::{LimitOf, RuleTool};
use serde_json::Value;
use std::collections::BTreeMap;
use toolgate::decisions::rules::{Change, Every, Level, Limit, Target, ToolKind};

/// What a policy sets for a site: levels (as changes of the settings page
/// would), conditions by tool name, limits.
pub struct PolicySet<'a> {
    pub levels: &'a [Change],
    pub conditions: BTreeMap<String, Vec<Held>>,
    pub limits: &'a [Limit],
}

/// What a policy sets for one site.
#[derive(Clone, Debug, Default)]
pub struct PolicySite {
    kinds: BTreeMap<ToolKind, Level>,
    areas: BTreeMap<String, Level>,
    tools: BTreeMap<String, Level>,
    conditions: BTreeMap<String, Vec<Held>>,
    pub limits: Vec<(LimitOf, Every)>,
}

impl PolicySite {
    /// Their level for a call of `tool` with `arguments`: its own, then
    /// its area's, then its kind's. Their conditions for the tool decide
    /// where they set its level (none that holds: that level); without a
    /// level of theirs, a condition can only narrow what its area's or
    /// kind's level gives.
    pub fn level(&self, tool: &RuleTool, arguments: &Value) -> Level {
        let own = self.tools.get(&tool.name).copied();
        let area = self.areas.get(&tool.area);
        let around = area.or(self.kinds.get(&tool.kind)).copied();
        let around = around.unwrap_or(Level::Allowed);
        let Some(conditions) = self.conditions.get(&tool.name) else {
            return own.unwrap_or(around);
        };
        let held = first_held(conditions, arguments);
        match own {
            Some(own) => held.unwrap_or(own),
            None => held.unwrap_or(Level::Allowed).max(around),
        }
    }
}

/// An administrator's policy.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    sites: BTreeMap<String, PolicySite>,
    pub unattended: bool,
}

impl Policy {
    /// A new policy for `site`: its levels, conditions and limits (`set`);
    /// the policy's unattended mode.
    pub fn set(&mut self, site: &str, set: PolicySet, unattended: bool) {
        self.unattended = unattended;
        let mut theirs = PolicySite {
            conditions: set.conditions,
            ..PolicySite::default()
        };
        for change in set.levels {
            let Some(level) = change.level else { continue };
            match &change.target {
                Target::Kind { kind } => theirs.kinds.insert(*kind, level),
                Target::Area { area } => theirs.areas.insert(area.clone(), level),
                Target::Tool { name } => theirs.tools.insert(name.clone(), level),
                Target::Scripts => unreachable!(
                    "no scenario sets the rule for tools registered by other sites' scripts"
                ),
            };
        }
        theirs.limits = set
            .limits
            .iter()
            .map(|limit| (LimitOf::of(&limit.target), limit.every))
            .collect();
        self.sites.insert(site.to_owned(), theirs);
    }

    pub fn site(&self, site: &str) -> Option<&PolicySite> {
        self.sites.get(site)
    }

    /// Whether a condition of the person's for the tool `name` of `site`
    /// may give Allowed, as far as their rule for the tool goes: not where
    /// they set it to Ask first or Off, unless a condition of theirs for it
    /// gives Allowed.
    pub fn may_allow_conditionally(&self, site: &str, name: &str) -> bool {
        let Some(theirs) = self.site(site) else {
            return true;
        };
        let level = theirs.tools.get(name).copied();
        let bound = match theirs.conditions.get(name) {
            Some(held) => Some(
                held.iter()
                    .map(|(_, _, level)| *level)
                    .fold(level.unwrap_or(Level::Allowed), Level::min),
            ),
            None => level,
        };
        bound.is_none_or(|bound| bound == Level::Allowed)
    }

    /// Whether the person may set `target` of `site` to `level`: Delete or
    /// Outside the site to Allowed, an area to Allowed, or a tool of those
    /// kinds (`kind`) are the administrator's alone, and no level is wider
    /// than theirs for the same kind, area or tool.
    pub fn may(&self, site: &str, target: &Target, level: Level, kind: Option<ToolKind>) -> bool {
        let owners_only = |kind: ToolKind| matches!(kind, ToolKind::Delete | ToolKind::Outside);
        let only_theirs = match target {
            Target::Kind { kind } => owners_only(*kind),
            Target::Area { .. } => true,
            Target::Tool { .. } => kind.is_some_and(owners_only),
            Target::Scripts => unreachable!(
                "no scenario sets the rule for tools registered by other sites' scripts"
            ),
        };
        if level == Level::Allowed && only_theirs {
            return false;
        }
        let Some(theirs) = self.site(site) else {
            return true;
        };
        let bound = match target {
            Target::Kind { kind } => {
                Some(theirs.kinds.get(kind).copied().unwrap_or(Level::Allowed))
            }
            Target::Area { area } => theirs.areas.get(area).copied(),
            Target::Tool { name } => theirs.tools.get(name).copied(),
            Target::Scripts => unreachable!(
                "no scenario sets the rule for tools registered by other sites' scripts"
            ),
        };
        bound.is_none_or(|bound| level >= bound)
    }
}
