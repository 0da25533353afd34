//! What a tool's conditions and the limits say of one call, and how a change
//! sets them (docs/rules.md, "Conditions on a tool's arguments", "Limits on
//! how often", "Setting conditions and limits").

use super::conditions::{first_met, Met};
use super::limits::{CallTimes, Passed};
use super::*;
use serde_json::Value;

/// An administrator's rule for a tool set with conditions: its level and
/// conditions, which bound every call of the tool whatever the person set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdminBound {
    pub level: Level,
    pub conditions: Vec<Condition>,
}

impl AdminBound {
    /// The most the administrator's rule lets any call of the tool do.
    fn widest(&self) -> Level {
        self.conditions
            .iter()
            .map(|c| c.level)
            .fold(self.level, Level::min)
    }
}

impl SiteRules {
    /// A tool's level and what decided it: its own first, then its area's,
    /// then its kind's. Under an administrator, theirs are read the same
    /// way, and the narrower of the two holds (docs/rules.md, "Who can
    /// change the rules"): a tool or area the person set apart is never
    /// wider than the administrator's rules make it, nor one they set
    /// apart wider than the person's.
    pub fn level(&self, tool: RuleFacts) -> (Level, Because) {
        narrower(self.own_level(tool), self.admin_level(tool))
    }

    /// The administrator's levels for `tool`, read as the person's are,
    /// where these are the person's rules bounded by theirs.
    fn admin_level(&self, tool: RuleFacts) -> Option<(Level, Because)> {
        let (level, because) = self.admin.as_ref()?.own_level(tool);
        Some(match because {
            Because::Tool { name, .. } => (level, Because::Tool { name, admin: true }),
            Because::Area { area, .. } => (level, Because::Area { area, admin: true }),
            Because::Kind { kind, .. } => (level, Because::Kind { kind, admin: true }),
            other => (level, other),
        })
    }

    /// The level these rules alone give `tool`, and what decided it.
    fn own_level(&self, tool: RuleFacts) -> (Level, Because) {
        let own = self.tools.get(tool.name).filter(|_| {
            self.tool_definitions
                .get(tool.name)
                .is_none_or(|set_for| set_for == tool.definition)
        });
        let area = self.areas.get(tool.area).filter(|_| {
            self.area_kinds
                .get(tool.area)
                .is_none_or(|kinds| kinds.contains(&tool.kind))
        });
        if let Some(&level) = own {
            return (
                level,
                Because::Tool {
                    name: tool.name.to_owned(),
                    admin: self.admin_alone,
                },
            );
        }
        if let Some(&level) = area {
            return (
                level,
                Because::Area {
                    area: tool.area.to_owned(),
                    admin: self.admin_alone,
                },
            );
        }
        let kind = tool.kind;
        let admin = self.admin_alone;
        (self.kind(kind), Because::Kind { kind, admin })
    }

    /// A call's level and what decided it: the tool's own level with its
    /// conditions on `arguments` (the first that holds gives the level),
    /// then its area's, then its kind's; bounded by an administrator's
    /// conditions for the tool. `None` for a listing, which has no
    /// arguments: the widest level any call could get, so that a tool whose
    /// conditions could let a call through is listed, and each call of it
    /// decided on its arguments.
    pub fn level_of_call(&self, tool: RuleFacts, arguments: Option<&Value>) -> (Level, Because) {
        let (level, because) = self.own_level(tool);
        // The person's conditions hold with the tool's own level, for the
        // definition it was set for; an administrator's bound every call of
        // the tool by its name.
        let own = matches!(because, Because::Tool { .. })
            .then(|| self.conditions.get(tool.name))
            .flatten();
        let admin = self.admin_conditions.get(tool.name);
        // The administrator's levels bound every call too, but for a tool
        // they set with conditions, their conditions decide.
        let floor = self
            .admin_level(tool)
            .filter(|(_, b)| admin.is_none() || !matches!(b, Because::Tool { .. }));
        if own.is_none() && admin.is_none() {
            return narrower((level, because), floor);
        }
        let Some(arguments) = arguments else {
            // The most any call could get: a tool that some call could run
            // is listed, and decided on each call's arguments.
            let widest = own
                .into_iter()
                .flatten()
                .map(|c| c.level)
                .fold(level, Level::min);
            let bound = admin.map_or(Level::Allowed, AdminBound::widest);
            return narrower((widest.max(bound), because), floor);
        };
        let mine = match own {
            Some(own) => decide(tool.name, own, level, arguments).whose(
                matches!(because, Because::Tool { admin: true, .. }),
                self.admin_owned_conditions.contains(tool.name),
            ),
            None => (level, because),
        };
        // What theirs decide is named theirs, whichever condition or level.
        let theirs = admin.map(|admin| {
            decide(tool.name, &admin.conditions, admin.level, arguments).whose(true, true)
        });
        narrower(narrower(mine, theirs), floor)
    }

    /// The conditions that hold with the tool's level (`because`: what
    /// decided it) and the limits that count its calls, in words, each after
    /// "; ": "; Allowed when amount is at most 20; at most 3 calls in 1
    /// minute, by the limit for the tool transfer" (the set-apart page and
    /// the palette say them after the level).
    pub fn more_words(&self, tool: RuleFacts, because: &Because) -> String {
        let own = matches!(because, Because::Tool { .. });
        let conditions = self
            .conditions
            .get(tool.name)
            .filter(|_| own)
            .into_iter()
            .flatten()
            .map(|c| format!("; {} when {}", c.level.label(), c.words()));
        let limits = self
            .limits_of(tool)
            .into_iter()
            .map(|l| format!("; at most {}, by {}", l.every.words(), l.which_plain()));
        conditions.chain(limits).collect()
    }

    /// The limits that count calls of `tool`.
    pub fn limits_of(&self, tool: RuleFacts) -> Vec<&Limit> {
        self.limits.iter().filter(|l| l.covers(tool)).collect()
    }

    /// Applies a change of a tool's conditions or of a limit.
    pub(super) fn apply_more(
        &mut self,
        change: &Change,
        who: &Who,
        seen: &dyn Fn(&str) -> Option<ToolKind>,
    ) -> Result<(), RuleError> {
        let more = |why: String| RuleError::More { why };
        if change.level.is_some() {
            return Err(more(
                "A change sets a level, or conditions, or a limit: one of them at a time."
                    .to_owned(),
            ));
        }
        if let Some(conditions) = &change.conditions {
            let Target::Tool { name } = &change.target else {
                return Err(more(
                    "Only a tool set apart can hold conditions.".to_owned(),
                ));
            };
            for condition in conditions.iter().filter(|c| c.level == Level::Allowed) {
                let refused = |why: String| {
                    more(format!(
                        "The condition \u{201c}{}\u{201d} cannot give Allowed: {}",
                        condition.words(),
                        why.trim_end_matches(" Nothing was saved.")
                    ))
                };
                // Only where the tool itself could be Allowed: not a Delete
                // or Outside the site tool under a policy ...
                if let Who::Managed { .. } = who {
                    let allow = Change::level(change.target.clone(), Some(Level::Allowed));
                    let owners = Who::Managed { admin: None };
                    owners
                        .may(&allow, seen)
                        .map_err(|e| refused(e.to_string()))?;
                }
                // ... nor wider than the administrator's rule for the tool:
                // its level, or one of its conditions that allows.
                if let Who::Managed { admin: Some(admin) } = who {
                    let level = admin.tools.get(name.as_str()).copied();
                    let bound = match admin.conditions.get(name.as_str()) {
                        Some(theirs) => Some(
                            theirs
                                .iter()
                                .map(|c| c.level)
                                .fold(level.unwrap_or(Level::Allowed), Level::min),
                        ),
                        None => level,
                    };
                    if let Some(bound) = bound.filter(|&b| b > Level::Allowed) {
                        return Err(refused(wider_than_admin(bound)));
                    }
                }
            }
            if conditions.is_empty() {
                self.conditions.remove(name.as_str());
            } else {
                self.conditions.insert(name.clone(), conditions.clone());
            }
        }
        if let Some(limit) = change.limit {
            if change.target == Target::Scripts {
                return Err(more(
                    "A limit is for a kind, an area or a tool, not for other sites' scripts."
                        .to_owned(),
                ));
            }
            self.limits.retain(|l| l.target != change.target);
            if let Some(every) = limit {
                if let Some(why) = every.refused() {
                    return Err(more(why));
                }
                self.limits.push(Limit {
                    target: change.target.clone(),
                    every,
                    admin: false,
                });
            }
        }
        Ok(())
    }

    /// Every tool with conditions is set apart.
    pub(super) fn conditions_set_apart(&self) -> Result<(), RuleError> {
        match self
            .conditions
            .keys()
            .find(|name| !self.tools.contains_key(name.as_str()))
        {
            Some(name) => Err(RuleError::More {
                why: format!(
                    "{name} can hold conditions once it is set apart with a level of its own."
                ),
            }),
            None => Ok(()),
        }
    }

    /// What an administrator's rules add to these, beyond levels: their
    /// limits, and their conditions as bounds (`RuleBook::bounded_by`).
    pub(super) fn bound_more(&mut self, admin: &SiteRules, own: Option<&SiteRules>) {
        self.limits.extend(admin.limits.iter().map(|limit| Limit {
            admin: true,
            ..limit.clone()
        }));
        for (name, conditions) in &admin.conditions {
            let level = admin
                .tools
                .get(name.as_str())
                .copied()
                .unwrap_or(Level::Allowed);
            self.admin_conditions.insert(
                name.clone(),
                AdminBound {
                    level,
                    conditions: conditions.clone(),
                },
            );
            // A tool the person did not set apart follows the
            // administrator's conditions, as it follows its level.
            if !own.is_some_and(|own| own.tools.contains_key(name.as_str())) {
                self.conditions.insert(name.clone(), conditions.clone());
                self.admin_owned_conditions.insert(name.clone());
            }
        }
    }
}

/// `mine`, unless `theirs` is narrower (docs/rules.md, "Who can change the
/// rules"): on a tie, what decided `mine` is named.
fn narrower(mine: (Level, Because), theirs: Option<(Level, Because)>) -> (Level, Because) {
    match theirs {
        Some(theirs) if theirs.0 > mine.0 => theirs,
        _ => mine,
    }
}

/// The level `conditions` give a call on `arguments`, the tool's own `level`
/// when none holds, and why.
fn decide(
    name: &str,
    conditions: &[Condition],
    level: Level,
    arguments: &Value,
) -> (Level, Because) {
    let name = name.to_owned();
    if conditions.is_empty() {
        return (level, Because::Tool { name, admin: false });
    }
    match first_met(conditions, arguments) {
        Met::Held { level, words, .. } => (level, Because::Condition { name, words }),
        Met::NoneHeld { unmet } => (
            level,
            Because::Unmet {
                name,
                words: unmet,
                admin: false,
            },
        ),
    }
}

/// Whose rule decided a call (docs/rules.md, "Who can change the rules"):
/// the tool's own level, the administrator's when `level_theirs`; a
/// condition that held, theirs when `conditions_theirs`.
trait Whose {
    fn whose(self, level_theirs: bool, conditions_theirs: bool) -> Self;
}

impl Whose for (Level, Because) {
    fn whose(self, level_theirs: bool, conditions_theirs: bool) -> Self {
        let (level, because) = self;
        let because = match because {
            Because::Tool { name, .. } => Because::Tool {
                name,
                admin: level_theirs,
            },
            Because::Unmet { name, words, .. } => Because::Unmet {
                name,
                words,
                admin: level_theirs,
            },
            Because::Condition { name, words } if conditions_theirs => {
                Because::AdminCondition { name, words }
            }
            other => other,
        };
        (level, because)
    }
}

/// What the rules say of one call, arguments and limits included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallGate {
    pub gate: Gate,
    /// The condition that allowed the call, in words, when one did: the
    /// agent is told ("by the condition transfer: amount is at most 20").
    pub allowed_by: Option<String>,
}

/// The gate for a call of `tool` with `arguments` (the call's JSON text) by
/// `chat`: `gate`'s, with the tool's conditions, then its limits (a call past
/// one asks first, and is refused with the wait when no one is there to
/// ask). The arguments are read only when a condition looks at them.
pub fn gate_call(
    rules: Option<&SiteRules>,
    tool: RuleFacts,
    mode: Mode,
    arguments: &str,
    times: (&CallTimes, &str, &str, u64),
) -> CallGate {
    let (times, chat, site, now_ms) = times;
    let plain = CallGate {
        gate: Gate::ChatDecides,
        allowed_by: None,
    };
    let Some(rules) = rules else {
        return plain;
    };
    if mode.read_only_chat && tool.kind != ToolKind::Read {
        return CallGate {
            gate: gate(Some(rules), tool, mode),
            ..plain
        };
    }
    let has_conditions =
        rules.conditions.contains_key(tool.name) || rules.admin_conditions.contains_key(tool.name);
    let arguments = match has_conditions {
        true => serde_json::from_str(arguments).unwrap_or(Value::Null),
        false => Value::Null,
    };
    let (level, because) = rules.level_of_call(tool, Some(&arguments));
    let allowed_by = match (&because, level) {
        (Because::Condition { .. } | Because::AdminCondition { .. }, Level::Allowed) => {
            Some(because.text())
        }
        _ => None,
    };
    let limits = rules.limits_of(tool);
    let name = tool.name;
    let said = |because: &Because| match because.is_about_the_call() {
        true => format!(" ({})", because.text()),
        false => format!(", by {}", because.text()),
    };
    let gate = match (level, because) {
        (Level::Off, because) => Gate::Off {
            why: format!("Nothing ran: {name} is Off on this site{}.", said(&because)),
        },
        (Level::AskFirst, because) if mode.unattended => Gate::Off {
            why: format!(
                "Nothing ran: {name} asks first{}, and no one was there to ask (Toolgate runs unattended).",
                said(&because)
            ),
        },
        (Level::AskFirst, because) => Gate::AskFirst { because },
        (Level::Allowed, _) => match times.passed(chat, site, &limits, now_ms) {
            None => Gate::ChatDecides,
            Some(Passed { limit, wait_ms }) if mode.unattended => Gate::Off {
                why: format!(
                    "Nothing ran: {name} asks first ({}), and no one was there to ask (Toolgate runs unattended); the next call may run in {}.",
                    Because::Limit { name: name.to_owned(), limit }.text(),
                    limits::wait_words(wait_ms)
                ),
            },
            Some(Passed { limit, .. }) => Gate::AskFirst {
                because: Because::Limit {
                    name: name.to_owned(),
                    limit,
                },
            },
        },
    };
    CallGate { gate, allowed_by }
}
