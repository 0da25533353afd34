//! "Tools registered by other sites' scripts" (docs/rules.md): the level a
//! site's rules, and an administrator's policy, set for the tools whose
//! script is another site's than their frame's (`Provenance::asked_as`).
//! Ask first unless someone set it: such a tool is asked about once for a
//! chat and the script's site (docs/cards.md); Off hides and refuses it;
//! Allowed leaves it to the chat's answers, as any tool.

use super::*;

/// The level that holds for a site's tools registered by other sites'
/// scripts, and whether it is the administrator's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptsLevel {
    pub level: Level,
    pub admin: bool,
}

impl ScriptsLevel {
    /// The rule, as an agent and the audit are told it.
    pub fn because(self) -> &'static str {
        if self.admin {
            "the administrator's rule for tools registered by other sites' scripts"
        } else {
            "the rule for tools registered by other sites' scripts"
        }
    }
}

/// The narrower of two levels where either is set.
fn narrower(a: Option<Level>, b: Option<Level>) -> Option<Level> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

impl RuleBook {
    /// The level for `site`'s tools registered by other sites' scripts: the
    /// narrower of the person's and the administrator's (for the site, or
    /// for every site), Ask first where neither set one.
    pub fn scripts_level(&self, site: &str) -> ScriptsLevel {
        let rules = self.sites.get(site);
        let own = rules.filter(|r| !r.admin_alone).and_then(|r| r.scripts);
        let admin_site = rules.and_then(|r| match &r.admin {
            _ if r.admin_alone => r.scripts,
            Some(admin) => admin.scripts,
            None => None,
        });
        let admin = narrower(admin_site, self.scripts);
        match (own, admin) {
            (Some(own), Some(admin)) if admin > own => ScriptsLevel {
                level: admin,
                admin: true,
            },
            (Some(own), _) => ScriptsLevel {
                level: own,
                admin: false,
            },
            (None, Some(admin)) => ScriptsLevel {
                level: admin,
                admin: true,
            },
            (None, None) => ScriptsLevel {
                level: Level::AskFirst,
                admin: false,
            },
        }
    }
}

/// A change of the level for other sites' scripts may not be wider than
/// the administrator's for every site (their site's own is checked with the
/// other levels, `Who::may`).
pub(super) fn within_admin(changes: &[Change], admin: Option<&RuleBook>) -> Result<(), RuleError> {
    let Some(bound) = admin.and_then(|a| a.scripts) else {
        return Ok(());
    };
    for change in changes.iter().filter(|c| c.target == Target::Scripts) {
        if change.level.is_some_and(|level| level < bound) {
            return Err(RuleError::WiderThanAdmin {
                change: change.clone(),
                admin: bound,
            });
        }
    }
    Ok(())
}
