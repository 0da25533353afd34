//! The site rules' words (docs/rules.md), in one place: the kinds with what
//! their tools are, the levels, a new rule set, "Read freely, ask before the
//! rest", why a level cannot be chosen under an administrator's policy, and
//! the class labels. The settings pages read them from the core (the
//! worker's answer to `rule_words`) instead of writing them again.

use crate::decisions::rules::{
    limits, wider_than_admin, Level, Op, SiteRules, ToolKind, OWNERS_ONLY,
};
use crate::page::classify::Class;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct RuleWords {
    pub kinds: Vec<KindWords>,
    pub levels: Vec<LevelWords>,
    /// A new rule set's level for each kind.
    pub new_rules: KindLevels,
    /// "Read freely, ask before the rest": its label and levels.
    pub read_freely: Offer,
    /// Why Allowed is the administrator's alone for Delete and Outside the site.
    pub owners_only: &'static str,
    /// Why a level above the administrator's cannot be chosen, by the
    /// administrator's level.
    pub wider_than_admin: Vec<(Level, String)>,
    /// The class badges, in order of risk (docs/classes.md).
    pub classes: Vec<&'static str>,
    /// The operators of a condition's test, in the menu's order
    /// (docs/rules.md, "Conditions on a tool's arguments").
    pub operators: Vec<OperatorWords>,
    /// The windows a limit counts over, in minutes, and the most calls.
    pub limit_windows: [u32; 3],
    pub limit_most_calls: u32,
    /// The row for tools registered by other sites' scripts, and its level
    /// where no one set one.
    pub scripts: ScriptsWords,
}

#[derive(Debug, Serialize)]
pub struct ScriptsWords {
    pub label: &'static str,
    pub meaning: &'static str,
    pub unset: Level,
}

#[derive(Debug, Serialize)]
pub struct OperatorWords {
    pub key: &'static str,
    pub label: &'static str,
    /// The values it takes: "text, number or true/false", "numbers", "text".
    pub on: &'static str,
}

#[derive(Debug, Serialize)]
pub struct KindWords {
    pub key: ToolKind,
    pub label: &'static str,
    pub meaning: &'static str,
}

#[derive(Debug, Serialize)]
pub struct LevelWords {
    pub key: Level,
    pub label: &'static str,
}

#[derive(Debug, Serialize)]
pub struct KindLevels {
    pub read: Level,
    pub write: Level,
    pub delete: Level,
    pub outside: Level,
}

#[derive(Debug, Serialize)]
pub struct Offer {
    pub label: &'static str,
    pub levels: KindLevels,
}

const LEVELS: [Level; 3] = [Level::Allowed, Level::AskFirst, Level::Off];

fn levels_of(rules: &SiteRules) -> KindLevels {
    KindLevels {
        read: rules.read,
        write: rules.write,
        delete: rules.delete,
        outside: rules.outside,
    }
}

pub fn rule_words() -> RuleWords {
    RuleWords {
        kinds: ToolKind::ALL
            .iter()
            .map(|&key| KindWords {
                key,
                label: key.label(),
                meaning: key.meaning(),
            })
            .collect(),
        levels: LEVELS
            .iter()
            .map(|&key| LevelWords {
                key,
                label: key.label(),
            })
            .collect(),
        new_rules: levels_of(&SiteRules::default()),
        read_freely: Offer {
            label: "Read freely, ask before the rest",
            levels: levels_of(&SiteRules::read_freely()),
        },
        owners_only: OWNERS_ONLY,
        wider_than_admin: LEVELS
            .iter()
            .map(|&level| (level, wider_than_admin(level)))
            .collect(),
        classes: [Class::ReadOnly, Class::Mutating, Class::Consequential]
            .iter()
            .map(|class| class.label())
            .chain(std::iter::once(super::palette::SKILL))
            .collect(),
        operators: Op::ALL
            .iter()
            .map(|&op| OperatorWords {
                key: op.key(),
                label: op.label(),
                on: match op {
                    Op::Is | Op::IsOneOf => "text, number or true/false",
                    Op::AtMost | Op::AtLeast => "numbers",
                    _ => "text",
                },
            })
            .collect(),
        limit_windows: limits::WINDOWS,
        limit_most_calls: limits::MAX_CALLS,
        scripts: ScriptsWords {
            label: "Other sites' scripts",
            meaning: "tools registered by other sites' scripts",
            unset: Level::AskFirst,
        },
    }
}
