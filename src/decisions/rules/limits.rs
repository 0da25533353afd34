//! Limits on how often (docs/rules.md, "Limits on how often"): a kind, an
//! area or a tool may hold "at most N calls in M minutes, per chat", and the
//! calls each chat made, counted for them. The time is an input.

use super::{RuleFacts, Target};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// The most calls a limit can allow in its window.
pub const MAX_CALLS: u32 = 1000;
/// The windows a limit can count over, in minutes.
pub const WINDOWS: [u32; 3] = [1, 10, 60];
/// The most call times kept for one chat and limit, and for all together
/// (docs/rules.md, "Limits on how often"; ARCHITECTURE.md, "Budgets").
pub const TIMES_PER_KEY: usize = MAX_CALLS as usize;
pub const TIMES_IN_ALL: usize = 20_000;
const MINUTE_MS: u64 = 60_000;

/// How often: at most `calls` calls in `minutes` minutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Every {
    pub calls: u32,
    pub minutes: u32,
}

impl Every {
    /// Why it cannot be set, if it cannot.
    pub fn refused(self) -> Option<String> {
        if self.calls == 0 || self.calls > MAX_CALLS {
            return Some(format!(
                "A limit allows 1 to {MAX_CALLS} calls; this one says {}.",
                self.calls
            ));
        }
        if !WINDOWS.contains(&self.minutes) {
            return Some(format!(
                "A limit counts calls in 1, 10 or 60 minutes; this one says {}.",
                self.minutes
            ));
        }
        None
    }

    fn window_ms(self) -> u64 {
        u64::from(self.minutes) * MINUTE_MS
    }

    /// "3 calls in 1 minute".
    pub fn words(self) -> String {
        let calls = if self.calls == 1 { "call" } else { "calls" };
        let minutes = if self.minutes == 1 {
            "1 minute".to_owned()
        } else {
            format!("{} minutes", self.minutes)
        };
        format!("{} {calls} in {minutes}", self.calls)
    }
}

/// A limit of a kind, an area or a tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit {
    #[serde(flatten)]
    pub target: Target,
    #[serde(flatten)]
    pub every: Every,
    /// The administrator's, not the person's: a card names it as theirs
    /// (docs/rules.md, "Who can change the rules"). Set only where their
    /// rules bound the person's; never in the person's stored rules.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub admin: bool,
}

impl Limit {
    /// Whether it counts calls of `tool`.
    pub fn covers(&self, tool: RuleFacts) -> bool {
        match &self.target {
            Target::Kind { kind } => *kind == tool.kind,
            Target::Area { area } => area == tool.area,
            Target::Tool { name } => name == tool.name,
            // Never set (`SiteRules::apply_more`).
            Target::Scripts => false,
        }
    }

    /// Which limit, in words, as the agent and the audit are told: "the
    /// limit for the tool transfer", "the administrator's limit for …".
    pub fn which(&self) -> String {
        self.named(if self.admin {
            "the administrator's limit"
        } else {
            "the limit"
        })
    }

    /// Which limit, as Toolgate's own pages tell the person: "the limit
    /// for the tool transfer", "your administrator's limit for …".
    pub fn which_plain(&self) -> String {
        self.named(if self.admin {
            "your administrator's limit"
        } else {
            "the limit"
        })
    }

    fn named(&self, limit: &str) -> String {
        match &self.target {
            Target::Kind { kind } => format!("{limit} for {} tools", kind.label()),
            Target::Area { area } => format!("{limit} for the area {}", super::area_shown(area)),
            Target::Tool { name } => format!("{limit} for the tool {name}"),
            Target::Scripts => format!("{limit} for tools registered by other sites' scripts"),
        }
    }

    /// The limit passed, in words: "more than 3 calls in 1 minute in this
    /// chat, by the limit for the tool transfer".
    pub fn text(&self) -> String {
        self.passed(&self.which())
    }

    /// The same, as a rule's card says it.
    pub fn plain(&self) -> String {
        self.passed(&self.which_plain())
    }

    fn passed(&self, which: &str) -> String {
        format!("more than {} in this chat, by {which}", self.every.words())
    }

    /// The key its counts are kept under for a chat on `site`.
    fn key(&self, site: &str) -> String {
        let target = match &self.target {
            Target::Kind { kind } => format!("kind:{}", kind.label()),
            Target::Area { area } => format!("area:{area}"),
            Target::Tool { name } => format!("tool:{name}"),
            Target::Scripts => "scripts".to_owned(),
        };
        format!("{site} {target}")
    }
}

/// `"limit": null` read as `Some(None)`, and a missing `limit` as `None`.
pub(super) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<Every>>, D::Error> {
    Option::<Every>::deserialize(d).map(Some)
}

/// A call past a limit: which, and how long until the next call may run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passed {
    pub limit: Limit,
    pub wait_ms: u64,
}

/// The times of the calls each chat made, by chat and by site and limit,
/// kept with the session: only for limits that hold, within the longest
/// window, `TIMES_PER_KEY` a key and `TIMES_IN_ALL` in all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTimes(BTreeMap<String, BTreeMap<String, Vec<u64>>>);

impl CallTimes {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn count(&self) -> usize {
        self.0
            .values()
            .flat_map(BTreeMap::values)
            .map(Vec::len)
            .sum()
    }

    /// The first of `limits` the call of `chat` on `site` at `now_ms` would
    /// pass; a call Toolgate has no room left to count passes the first
    /// limit, whose wait is until the oldest time kept expires.
    pub fn passed(&self, chat: &str, site: &str, limits: &[&Limit], now_ms: u64) -> Option<Passed> {
        let kept = self.0.get(chat);
        for limit in limits {
            let window = limit.every.window_ms();
            let times: Vec<u64> = kept
                .and_then(|keys| keys.get(&limit.key(site)))
                .map(|times| {
                    times
                        .iter()
                        .copied()
                        .filter(|&t| t + window > now_ms)
                        .collect()
                })
                .unwrap_or_default();
            let allowed = limit.every.calls as usize;
            if times.len() >= allowed {
                // The call that must leave the window before another may run.
                let leaves = times[times.len() - allowed] + window;
                return Some(Passed {
                    limit: (*limit).clone(),
                    wait_ms: leaves.saturating_sub(now_ms),
                });
            }
        }
        let first = limits.first()?;
        let full = self.count() + keys(site, limits).len() > TIMES_IN_ALL;
        full.then(|| {
            let oldest = self
                .0
                .values()
                .flat_map(BTreeMap::values)
                .filter_map(|times| times.first())
                .min()
                .copied()
                .unwrap_or(now_ms);
            Passed {
                limit: (*first).clone(),
                wait_ms: (oldest + 60 * MINUTE_MS).saturating_sub(now_ms),
            }
        })
    }

    /// Counts a call of `chat` on `site` that runs at `now_ms`, for each of
    /// `limits`, and forgets what every window has passed.
    pub fn record(&mut self, chat: &str, site: &str, limits: &[&Limit], now_ms: u64) {
        self.forget(now_ms);
        let counted = keys(site, limits);
        if counted.is_empty() || self.count() + counted.len() > TIMES_IN_ALL {
            return;
        }
        let keys = self.0.entry(chat.to_owned()).or_default();
        for key in counted {
            let times = keys.entry(key).or_default();
            times.push(now_ms);
            if times.len() > TIMES_PER_KEY {
                times.remove(0);
            }
        }
    }

    /// Forgets the times older than the longest window.
    pub fn forget(&mut self, now_ms: u64) {
        let longest = 60 * MINUTE_MS;
        for keys in self.0.values_mut() {
            for times in keys.values_mut() {
                times.retain(|&t| t + longest > now_ms);
            }
            keys.retain(|_, times| !times.is_empty());
        }
        self.0.retain(|_, keys| !keys.is_empty());
    }
}

/// The keys `limits` count a call under, each once: the person's limit and
/// the administrator's for the same kind, area or tool count the same calls.
fn keys(site: &str, limits: &[&Limit]) -> Vec<String> {
    let mut keys: Vec<String> = limits.iter().map(|limit| limit.key(site)).collect();
    keys.sort();
    keys.dedup();
    keys
}

/// A wait in words: "42 seconds", "3 minutes".
pub fn wait_words(ms: u64) -> String {
    let seconds = ms.div_ceil(1000).max(1);
    if seconds < 120 {
        let s = if seconds == 1 { "" } else { "s" };
        return format!("{seconds} second{s}");
    }
    format!("{} minutes", seconds.div_ceil(60))
}
