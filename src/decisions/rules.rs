//! Site rules: "What agents may do" on each site (docs/rules.md). The rule
//! is the most an agent may do there; a chat's answers (`answers`) can only
//! narrow it.
//!
//! Pure data and decisions, with the time as an input: the service worker
//! keeps the rules, shows them on the settings page and asks this module
//! what a call may do.

use crate::page::classify::Class;
use crate::page::declaration::{Hint, HintState};
use crate::page::registry::Tool;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod because;
mod book;
pub mod conditions;
mod errors;
mod holds;
mod late;
pub mod limits;
mod paths;
mod scripts;
pub use book::{site_schemas, site_tools, RuleBook, SeenTool, Standing};
pub use conditions::{Condition, Op, Test};
pub use errors::{wider_than_admin, RuleError, OWNERS_ONLY};
pub use holds::{gate_call, AdminBound, CallGate};
pub use late::{ask_deadline, LateYes, LateYeses, SameCall};
pub use limits::{CallTimes, Every, Limit};
pub use scripts::ScriptsLevel;

/// How long a call that asks first waits for an answer, and how long a yes
/// given after the agent stopped waiting lets the same call run once.
pub const ASK_WINDOW_MS: u64 = 10 * 60 * 1000;
/// The most areas one site can set apart.
pub const MAX_AREAS: usize = 200;
/// The most tools one site can set apart.
pub const MAX_TOOLS: usize = 500;
/// The most areas and tools one change can set apart or put back.
pub const MAX_AT_ONCE: usize = 50;

/// A tool's kind, from its risk (docs/rules.md, "Kinds").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Write,
    Delete,
    Outside,
}

impl ToolKind {
    pub const ALL: [ToolKind; 4] = [
        ToolKind::Read,
        ToolKind::Write,
        ToolKind::Delete,
        ToolKind::Outside,
    ];

    /// The row's label, word for word.
    pub fn label(self) -> &'static str {
        match self {
            ToolKind::Read => "Read",
            ToolKind::Write => "Write",
            ToolKind::Delete => "Delete",
            ToolKind::Outside => "Outside the site",
        }
    }

    /// The kind's tools in plain words, on their own (a rule's card:
    /// "the rule for tools that act outside the site").
    pub fn plain(self) -> &'static str {
        match self {
            ToolKind::Outside => "tools that act outside the site",
            other => other.meaning(),
        }
    }

    /// What the row's tools are.
    pub fn meaning(self) -> &'static str {
        match self {
            ToolKind::Read => "tools that only look things up",
            ToolKind::Write => "tools that change things on the site",
            ToolKind::Delete => "tools that remove things",
            ToolKind::Outside => "tools that act beyond it",
        }
    }

    /// The kind of a tool of `class` with these hints: Read is the class
    /// Read only; Delete, `destructiveHint: true`; Outside the site, any
    /// other tool whose `openWorldHint` is not `false`; Write, the rest.
    pub fn of(class: Class, destructive: HintState, open_world: HintState) -> ToolKind {
        if class == Class::ReadOnly {
            ToolKind::Read
        } else if destructive == HintState::True {
            ToolKind::Delete
        } else if open_world != HintState::False {
            ToolKind::Outside
        } else {
            ToolKind::Write
        }
    }

    /// Kinds a person may set to Allowed only as an owner, and tools of
    /// which they may allow only as an owner (docs/rules.md, "Who can change it").
    pub fn owners_only(self) -> bool {
        matches!(self, ToolKind::Delete | ToolKind::Outside)
    }
}

/// A level. Ordered from the most an agent may do to the least, so that
/// the narrower of two is their `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Allowed,
    AskFirst,
    Off,
}

impl Level {
    /// The menu's label, word for word.
    pub fn label(self) -> &'static str {
        match self {
            Level::Allowed => "Allowed",
            Level::AskFirst => "Ask first",
            Level::Off => "Off",
        }
    }
}

/// An area as Toolgate's words name it, on cards, in the palette, on the
/// set-apart page and to agents: a tag is page text, so its hidden
/// characters are shown and it is cut (docs/cards.md, "How page text is shown").
pub fn area_shown(area: &str) -> String {
    crate::page::hidden::page_line(area, crate::page::hidden::TITLE_CAP)
}

/// A tool's area: its first tag, or else the part of its name before the
/// first `.` (the whole name when it has none).
pub fn area_of<'a>(name: &'a str, tags: &'a [String]) -> &'a str {
    match tags.first() {
        Some(tag) if !tag.is_empty() => tag,
        _ => name.split('.').next().unwrap_or(name),
    }
}

/// What decides a tool's level, in the order tried: its own, its area's, its kind's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Because {
    Tool {
        name: String,
        /// The level is the administrator's, not the person's.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        admin: bool,
    },
    Area {
        area: String,
        /// The level is the administrator's: theirs is narrower than the
        /// person's rules for the tool (docs/rules.md, "Who can change the rules").
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        admin: bool,
    },
    Kind {
        kind: ToolKind,
        /// The level is the administrator's, as for `Area`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        admin: bool,
    },
    /// A condition of the tool's held: "transfer: amount is at least 100"
    /// (docs/rules.md, "Conditions on a tool's arguments").
    Condition { name: String, words: String },
    /// An administrator's condition for the tool held.
    AdminCondition { name: String, words: String },
    /// The tool's own level holds, since none of its conditions did; `words`
    /// say why those that allow did not ("amount is more than 20").
    Unmet {
        name: String,
        words: String,
        /// The tool's own level, which holds, is the administrator's.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        admin: bool,
    },
    /// The call is past a limit (docs/rules.md, "Limits on how often").
    Limit { name: String, limit: Limit },
}

/// The facts of a tool that its rule depends on.
#[derive(Clone, Copy, Debug)]
pub struct RuleFacts<'a> {
    pub name: &'a str,
    pub area: &'a str,
    pub kind: ToolKind,
    /// The tool's definition now (`Tool::definition`): a level set for the
    /// tool holds for the definition it was set for.
    pub definition: &'a str,
}

impl<'a> RuleFacts<'a> {
    /// A registered tool's facts; `None` for a skill (skills are read, never called).
    pub fn of(tool: &'a Tool) -> Option<RuleFacts<'a>> {
        let class = tool.verdict.class?;
        let decl = &tool.decl;
        Some(RuleFacts {
            name: &decl.name,
            area: area_of(&decl.name, &decl.tags),
            kind: ToolKind::of(
                class,
                decl.hint(Hint::Destructive),
                decl.hint(Hint::OpenWorld),
            ),
            definition: tool.definition(),
        })
    }
}

/// One site's rule set: a level per kind, and the areas and tools set apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteRules {
    pub read: Level,
    pub write: Level,
    pub delete: Level,
    pub outside: Level,
    #[serde(default)]
    pub areas: BTreeMap<String, Level>,
    #[serde(default)]
    pub tools: BTreeMap<String, Level>,
    /// "Tools registered by other sites' scripts" (docs/rules.md): `None`
    /// is Ask first, unless an administrator set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scripts: Option<Level>,
    /// The definition each tool set apart had when the person set it: its
    /// level holds for that definition only (docs/rules.md, "A rule holds
    /// for what you saw"). A tool with none here (set by an administrator's
    /// policy, which names tools) holds for any.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tool_definitions: BTreeMap<String, String>,
    /// The kinds of tools each area set apart held when the person set it:
    /// its level covers those kinds only. An area with none here holds for all.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub area_kinds: BTreeMap<String, Vec<ToolKind>>,
    /// What each tool set apart was when the person set it: its area and
    /// kind. The rules keep it themselves, since only Toolgate's own pages
    /// write them, so that a tool with a rule stays listed, and can be
    /// changed or put back, when no tab publishes it and the record of tools
    /// seen, which pages fill, no longer holds it (docs/rules.md, "Set
    /// areas and tools apart").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools_as_set: BTreeMap<String, AsSet>,
    /// The conditions of tools set apart, by name: they hold with the
    /// tool's own level, for the definition it was set for (docs/rules.md,
    /// "Conditions on a tool's arguments").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub conditions: BTreeMap<String, Vec<Condition>>,
    /// Limits on how often, of kinds, areas and tools (docs/rules.md,
    /// "Limits on how often"): the person's, one a target, and, in rules
    /// bounded by an administrator's, the administrator's too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<Limit>,
    /// In rules bounded by an administrator's only (`bounded_by`): the
    /// administrator's level and conditions for each tool it sets with
    /// conditions, which bound every call of it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub admin_conditions: BTreeMap<String, AdminBound>,
    /// In rules bounded by an administrator's only: whether these rules are
    /// theirs alone (a site the person set no rules for), and the tools
    /// whose conditions are theirs (the person did not set the tool apart),
    /// so that a card names whose rule asks.
    #[serde(skip)]
    pub admin_alone: bool,
    #[serde(skip)]
    pub admin_owned_conditions: std::collections::BTreeSet<String>,
    /// In rules bounded by an administrator's only, where the person has
    /// rules of their own: the administrator's rules, which bound each call
    /// whatever the person set (`SiteRules::level`).
    #[serde(skip)]
    pub admin: Option<Box<SiteRules>>,
}

/// A tool set apart as the person saw it when they set it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsSet {
    pub area: String,
    pub kind: ToolKind,
}

impl Default for SiteRules {
    /// A new rule set: Read Allowed, Write and Outside the site on Ask
    /// first, Delete Off.
    fn default() -> Self {
        SiteRules::with_kinds(Level::Allowed, Level::AskFirst, Level::Off, Level::AskFirst)
    }
}

impl SiteRules {
    pub fn with_kinds(read: Level, write: Level, delete: Level, outside: Level) -> Self {
        SiteRules {
            read,
            write,
            delete,
            outside,
            areas: BTreeMap::new(),
            tools: BTreeMap::new(),
            scripts: None,
            tool_definitions: BTreeMap::new(),
            area_kinds: BTreeMap::new(),
            tools_as_set: BTreeMap::new(),
            conditions: BTreeMap::new(),
            limits: Vec::new(),
            admin_conditions: BTreeMap::new(),
            admin_alone: false,
            admin_owned_conditions: std::collections::BTreeSet::new(),
            admin: None,
        }
    }

    /// "Read freely, ask before the rest", offered to a site from before.
    pub fn read_freely() -> Self {
        SiteRules::with_kinds(
            Level::Allowed,
            Level::AskFirst,
            Level::AskFirst,
            Level::AskFirst,
        )
    }

    pub fn kind(&self, kind: ToolKind) -> Level {
        match kind {
            ToolKind::Read => self.read,
            ToolKind::Write => self.write,
            ToolKind::Delete => self.delete,
            ToolKind::Outside => self.outside,
        }
    }

    fn kind_mut(&mut self, kind: ToolKind) -> &mut Level {
        match kind {
            ToolKind::Read => &mut self.read,
            ToolKind::Write => &mut self.write,
            ToolKind::Delete => &mut self.delete,
            ToolKind::Outside => &mut self.outside,
        }
    }

    /// Applies one change of the settings page, whole or not at all.
    pub fn apply(
        &mut self,
        changes: &[Change],
        who: &Who,
        seen: &dyn Fn(&str) -> Option<ToolKind>,
    ) -> Result<(), RuleError> {
        let apart = changes
            .iter()
            .filter(|c| !matches!(c.target, Target::Kind { .. }))
            .count();
        if apart > MAX_AT_ONCE {
            return Err(RuleError::TooManyAtOnce { given: apart });
        }
        let mut next = self.clone();
        for change in changes {
            who.may(change, seen)?;
            if change.sets_more() {
                next.apply_more(change, who, seen)?;
                continue;
            }
            match (&change.target, change.level) {
                (Target::Kind { kind }, Some(level)) => *next.kind_mut(*kind) = level,
                (Target::Kind { kind }, None) => {
                    return Err(RuleError::KindNeedsLevel { kind: *kind })
                }
                (Target::Area { area }, level) => set(&mut next.areas, area, level),
                (Target::Scripts, level) => next.scripts = level,
                (Target::Tool { name }, level) => {
                    if level.is_none() {
                        next.conditions.remove(name.as_str());
                    }
                    set(&mut next.tools, name, level)
                }
            }
        }
        next.conditions_set_apart()?;
        if next.areas.len() > MAX_AREAS {
            return Err(RuleError::TooManyAreas {
                would_be: next.areas.len(),
            });
        }
        if next.tools.len() > MAX_TOOLS {
            return Err(RuleError::TooManyTools {
                would_be: next.tools.len(),
            });
        }
        *self = next;
        Ok(())
    }
}

fn set(map: &mut BTreeMap<String, Level>, key: &str, level: Option<Level>) {
    match level {
        Some(level) => {
            map.insert(key.to_owned(), level);
        }
        None => {
            map.remove(key);
        }
    }
}

/// What one change sets: a kind's row, an area or a tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "target", rename_all = "snake_case")]
pub enum Target {
    Kind {
        kind: ToolKind,
    },
    Area {
        area: String,
    },
    Tool {
        name: String,
    },
    /// "Tools registered by other sites' scripts" (`None`: Ask first, as
    /// when never set).
    Scripts,
}

/// One change: a level, or `None` to put an area or tool back ("As its
/// kinds", "As its area and kind"); or, instead, a tool's conditions, or
/// the limit of a kind, area or tool (docs/rules.md, "Setting conditions
/// and limits").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    #[serde(flatten)]
    pub target: Target,
    #[serde(default)]
    pub level: Option<Level>,
    /// The tool's conditions, all of them (`[]`: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    /// The limit: `Some(None)` (`"limit": null`) removes it.
    #[serde(
        default,
        deserialize_with = "limits::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub limit: Option<Option<Every>>,
}

impl Change {
    /// A change of a level (`None`: put back).
    pub fn level(target: Target, level: Option<Level>) -> Change {
        Change {
            target,
            level,
            conditions: None,
            limit: None,
        }
    }

    /// It sets conditions or a limit, not a level.
    pub fn sets_more(&self) -> bool {
        self.conditions.is_some() || self.limit.is_some()
    }
}

/// Who changes the rules: the owner (Toolgate unmanaged), or a person under
/// an administrator's policy, whose rules can only be narrower.
#[derive(Clone, Debug)]
pub enum Who<'a> {
    Owner,
    Managed { admin: Option<&'a SiteRules> },
}

impl Who<'_> {
    fn may(
        &self,
        change: &Change,
        seen: &dyn Fn(&str) -> Option<ToolKind>,
    ) -> Result<(), RuleError> {
        let tool_kind = match &change.target {
            Target::Tool { name } => Some(seen(name).ok_or_else(|| RuleError::NotSeen {
                what: crate::page::hidden::page_line(name, crate::page::hidden::NAME_CAP),
            })?),
            _ => None,
        };
        let Who::Managed { admin } = self else {
            return Ok(());
        };
        let Some(level) = change.level else {
            return Ok(());
        };
        let owners_only = match &change.target {
            Target::Kind { kind } => kind.owners_only(),
            Target::Area { .. } => true,
            Target::Tool { .. } => tool_kind.is_some_and(ToolKind::owners_only),
            Target::Scripts => false,
        };
        if level == Level::Allowed && owners_only {
            return Err(RuleError::OwnersOnly {
                change: change.clone(),
            });
        }
        if let Some(admin) = admin {
            let bound = match &change.target {
                Target::Kind { kind } => Some(admin.kind(*kind)),
                Target::Area { area } => admin.areas.get(area.as_str()).copied(),
                Target::Tool { name } => admin.tools.get(name.as_str()).copied(),
                // Bounded with the administrator's level for every site
                // (`RuleBook::change_with`).
                Target::Scripts => admin.scripts,
            };
            if let Some(bound) = bound.filter(|&bound| level < bound) {
                return Err(RuleError::WiderThanAdmin {
                    change: change.clone(),
                    admin: bound,
                });
            }
        }
        Ok(())
    }
}

/// What a call may do under the rules, before the chat's answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "gate", rename_all = "snake_case")]
pub enum Gate {
    /// The chat's answers decide (the rule says Allowed).
    ChatDecides,
    /// Every call needs a yes on a card with "Allow once" and "Refuse".
    AskFirst { because: Because },
    /// Not listed, and refused if called; `why` tells the agent nothing ran.
    Off { why: String },
}

/// How a chat and the browser meet a rule.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mode {
    /// The chat was opened Read only: every tool that is not Read is off for it.
    pub read_only_chat: bool,
    /// Nobody is there to ask (CI, kiosks): Ask first acts as Off.
    pub unattended: bool,
}

/// The gate for a call of `tool` on a site with `rules` (`None`: a site
/// from before, which follows the chat's answers alone).
///
/// A chat opened Read only has every tool that is not Read Off, before any
/// level is looked at: it is never asked about a call it may not make. On a
/// site from before, the chat's own answers refuse such a call, in their words.
pub fn gate(rules: Option<&SiteRules>, tool: RuleFacts, mode: Mode) -> Gate {
    let Some(rules) = rules else {
        return Gate::ChatDecides;
    };
    if mode.read_only_chat && tool.kind != ToolKind::Read {
        return Gate::Off {
            why: format!(
                "Nothing ran: this chat was opened Read only, and {} is not a Read tool.",
                tool.name
            ),
        };
    }
    match rules.level_of_call(tool, None) {
        (Level::Allowed, _) => Gate::ChatDecides,
        (Level::Off, because) => Gate::Off {
            why: format!("Nothing ran: {} is Off on this site, by {}.", tool.name, because.text()),
        },
        (Level::AskFirst, because) if mode.unattended => Gate::Off {
            why: format!(
                "Nothing ran: {} asks first, by {}, and no one was there to ask (Toolgate runs unattended).",
                tool.name,
                because.text()
            ),
        },
        (Level::AskFirst, because) => Gate::AskFirst { because },
    }
}
