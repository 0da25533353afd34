//! What decided a tool's level, in words: as the agent is told and the
//! audit keeps it (`text`), and as a rule's card says it (`plain`)
//! (docs/rules.md; docs/agents.md, "What an agent is told").

use super::{area_shown, Because};

impl Because {
    /// Which rule it is, as a card names the rule that asks.
    pub fn text(&self) -> String {
        match self {
            Because::Tool { name, .. } => format!("the rule for the tool {name}"),
            Because::Area { area, admin } => {
                format!("{} for the area {}", rule(*admin, false), area_shown(area))
            }
            Because::Kind { kind, admin } => {
                format!("{} for {} tools", rule(*admin, false), kind.label())
            }
            Because::Condition { name, words } => {
                format!("{name}: {words}, by the condition of the tool {name}")
            }
            Because::AdminCondition { name, words } => {
                format!("{name}: {words}, by the administrator's condition of the tool {name}")
            }
            Because::Unmet { name, words, .. } if words.is_empty() => {
                format!("the rule for the tool {name}")
            }
            Because::Unmet { name, words, .. } => {
                format!("{name}: {words}, by the rule for the tool {name}")
            }
            Because::Limit { name, limit } => format!("{name}: {}", limit.text()),
        }
    }

    /// The same rule in plain words, as a rule's card says it.
    pub fn plain(&self) -> String {
        match self {
            Because::Tool { admin, .. } => format!("{} rule for this tool", whose(*admin)),
            Because::Area { area, admin } => {
                format!("{} for the area {}", rule(*admin, true), area_shown(area))
            }
            Because::Kind { kind, admin } => format!("{} for {}", rule(*admin, true), kind.plain()),
            Because::Condition { name, words } => {
                format!("{name}: {words}, by your condition for this tool")
            }
            Because::AdminCondition { name, words } => {
                format!("{name}: {words}, by your administrator's condition for this tool")
            }
            Because::Unmet { words, admin, .. } if words.is_empty() => {
                format!("{} rule for this tool", whose(*admin))
            }
            Because::Unmet { name, words, admin } => {
                format!("{name}: {words}, by {} rule for this tool", whose(*admin))
            }
            Because::Limit { name, limit } => format!("{name}: {}", limit.plain()),
        }
    }

    /// It names a condition or a limit ("transfer: amount is more than
    /// 20, by …"), which sentences put after a colon, not after "by".
    pub fn is_about_the_call(&self) -> bool {
        matches!(
            self,
            Because::Condition { .. } | Because::AdminCondition { .. } | Because::Limit { .. }
        ) || matches!(self, Because::Unmet { words, .. } if !words.is_empty())
    }
}

/// A rule for a kind or an area: the one the person reads on the settings
/// page, or their administrator's, said to the agent (`text`) or on a card
/// (`plain`, "your administrator's").
fn rule(admin: bool, plain: bool) -> &'static str {
    match (admin, plain) {
        (false, _) => "the rule",
        (true, false) => "the administrator's rule",
        (true, true) => "your administrator's rule",
    }
}

/// Whose rule a card names: the person's, or their administrator's.
fn whose(admin: bool) -> &'static str {
    if admin {
        "your administrator's"
    } else {
        "your"
    }
}
