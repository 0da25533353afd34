//! A model of an administrator's policy, written from docs/rules.md ("Who
//! can change the rules") alone: by site, the levels it sets by name (a
//! kind, area or tool it leaves out is not bounded) and its limits on how
//! often, which count beside the person's; and its unattended mode, which
//! the person cannot turn off. `super::site_rules` bounds the person's
//! rules with it.

use super::site_rules::{LimitOf, RuleTool};
use std::collections::BTreeMap;
use toolgate::decisions::rules::{Change, Every, Level, Limit, Target, ToolKind};

/// What a policy sets for one site.
#[derive(Clone, Debug, Default)]
pub struct PolicySite {
    kinds: BTreeMap<ToolKind, Level>,
    areas: BTreeMap<String, Level>,
    tools: BTreeMap<String, Level>,
    pub limits: Vec<(LimitOf, Every)>,
}

impl PolicySite {
    /// Their level for `tool`: its own, then its area's, then its kind's.
    pub fn level(&self, tool: &RuleTool) -> Level {
        let kind = self.kinds.get(&tool.kind);
        let found = self.tools.get(&tool.name).or(self.areas.get(&tool.area));
        found.or(kind).copied().unwrap_or(Level::Allowed)
    }
}

/// An administrator's policy.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    sites: BTreeMap<String, PolicySite>,
    pub unattended: bool,
}

impl Policy {
    /// A new policy for `site`: the levels `levels` set, and `limits`; the
    /// policy's unattended mode.
    pub fn set(&mut self, site: &str, levels: &[Change], limits: &[Limit], unattended: bool) {
        self.unattended = unattended;
        let mut theirs = PolicySite::default();
        for change in levels {
            let Some(level) = change.level else { continue };
            match &change.target {
                Target::Kind { kind } => theirs.kinds.insert(*kind, level),
                Target::Area { area } => theirs.areas.insert(area.clone(), level),
                Target::Tool { name } => theirs.tools.insert(name.clone(), level),
            };
        }
        theirs.limits = limits
            .iter()
            .map(|limit| (LimitOf::of(&limit.target), limit.every))
            .collect();
        self.sites.insert(site.to_owned(), theirs);
    }

    pub fn site(&self, site: &str) -> Option<&PolicySite> {
        self.sites.get(site)
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
        };
        bound.is_none_or(|bound| level >= bound)
    }
}
