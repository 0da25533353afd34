//! Hints held to their word (docs/classes.md, "Hints held to their word"):
//! what a tool's tab was seen doing while the tool ran for an agent, whether
//! that broke the tool's hints, and the tools that did, by site, until the
//! person clears them. Pure: the shell watches and hands over what it saw.

use crate::page::classify::Class;
use crate::page::declaration::{Declaration, Hint, HintState};
pub use crate::page::seen::{
    Frame, Part, Seen, ANOTHER_FRAME, OTHER_TABS, SEEN_CAP, TOGETHER, USUAL,
};
pub use crate::page::witnessed::Witnessed;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Tools flagged on one site: past this, the whole site is flagged.
pub const FLAGS_PER_SITE: usize = 20;
/// Sites with flags: past this, the site flagged longest ago is forgotten.
pub const FLAGGED_SITES: usize = 100;

/// A tool seen doing more than its hints said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Broken {
    /// What it said: "Read only", or "openWorldHint: false".
    pub said: String,
    /// What it was seen doing, in Toolgate's words: "sent POST".
    pub done: String,
    /// What to, as the page chose it: "/api/notes/delete".
    pub to: String,
    /// It reached another site.
    #[serde(default)]
    pub off_site: bool,
    /// Another call ran in the tab at the time: Toolgate cannot tell which
    /// did it. Only in flags kept from before what is seen then was told as
    /// "cannot tell" and flagged nothing (docs/classes.md, "Two calls at once").
    #[serde(default)]
    pub together: bool,
    /// More was seen than this.
    #[serde(default)]
    pub more: usize,
    pub at_ms: u64,
}

impl Broken {
    /// The flag in plain words: "said Read only; during a call it sent POST /api/notes/delete",
    /// with `to`, the page's part, as the caller shows it (views escape it).
    pub fn text(&self, to: &str) -> String {
        let (head, tail) = self.around();
        let head = if to.is_empty() {
            head.trim_end()
        } else {
            &head
        };
        format!("{head}{to}{tail}")
    }

    /// Toolgate's words before and after the page's part (`to`; no space
    /// before it when it is empty).
    pub fn around(&self) -> (String, String) {
        let space = if self.to.is_empty() { "" } else { " " };
        let head = format!("said {}; during a call it {}{space}", self.said, self.done);
        let mut tail = String::new();
        if self.more > 0 {
            tail.push_str(&format!(" (and {} more)", self.more));
        }
        if self.together {
            tail.push_str(
                "; another call ran in the tab at the same time, and Toolgate cannot tell which of them did it",
            );
        }
        (head, tail)
    }
}

/// What a call is watched for, taken when it starts: its tool's site and
/// name, and what its hints said. Taken then, since a call may end with its
/// document gone (it navigated), and the tool with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watch {
    pub site: String,
    pub tool: String,
    /// Its hints said Read only.
    pub read_only: bool,
    /// It declared `openWorldHint: false` and is not Consequential.
    pub stays_on_site: bool,
}

impl Watch {
    /// What to watch a call of the tool `decl` declares, of `class`, on
    /// `site` for; `None` when its hints promise nothing a call could be
    /// seen breaking (a Consequential tool). Its caller reads both from the
    /// registry's `Tool`, so that conduct never imports the registry, which
    /// holds the flags (ARCHITECTURE.md, "Layers of the core").
    pub fn of(decl: &Declaration, class: Class, site: &str) -> Option<Watch> {
        let read_only = class == Class::ReadOnly;
        let stays_on_site =
            class != Class::Consequential && decl.hint(Hint::OpenWorld) == HintState::False;
        (read_only || stays_on_site).then(|| Watch {
            site: site.to_owned(),
            tool: decl.name.clone(),
            read_only,
            stays_on_site,
        })
    }

    /// Whether what the call was seen doing broke its hints: a Read only
    /// tool that changed state, or one that declared `openWorldHint: false`
    /// and reached another site (docs/classes.md). Everything seen is judged:
    /// what was kept, and what was counted past the bounds.
    pub fn judge(&self, witnessed: &Witnessed, now_ms: u64) -> Option<Broken> {
        let site = self.site.as_str();
        // Only what the call caused is judged (`Seen::part`).
        let seen: Vec<&Seen> = witnessed
            .kept()
            .iter()
            .filter(|s| witnessed.part(s) == Part::Call)
            .collect();
        let changing = |s: &&&Seen| s.changes_state();
        let away = |s: &&&Seen| s.off_site(site);
        let (said, found, unkept): (&str, Vec<&Seen>, usize) =
            if self.read_only && seen.iter().any(|s| changing(&s)) {
                let unkept = witnessed.unkept(|changes, _| changes);
                (
                    "Read only",
                    seen.iter().filter(changing).copied().collect(),
                    unkept,
                )
            } else if self.stays_on_site && seen.iter().any(|s| away(&s)) {
                let unkept = witnessed.unkept(|_, off| off);
                (
                    "openWorldHint: false",
                    seen.iter().filter(away).copied().collect(),
                    unkept,
                )
            } else {
                return None;
            };
        // Told apart, a seen thing counts before one that cannot be.
        let first = found
            .iter()
            .find(|s| !s.together())
            .or(found.first())
            .copied()?;
        let (done, to) = first.words(site);
        Some(Broken {
            said: said.to_owned(),
            done,
            to,
            off_site: first.off_site(site),
            together: first.together(),
            more: found.len() - 1 + unkept,
            at_ms: now_ms,
        })
    }
}

/// What a call's tab was seen doing, as its reply tells its agent (under
/// `_meta.toolgate`): each thing in Toolgate's words, and the broken hint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conduct {
    pub seen: Vec<SeenWords>,
    /// Things seen and judged, but not told (past `SEEN_TOLD`).
    #[serde(skip_serializing_if = "is_zero")]
    pub more_seen: usize,
    /// Another call ran in the tab meanwhile.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub overlapped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broke: Option<BrokeWords>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeenWords {
    pub done: String,
    pub to: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub off_site: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cannot_tell: bool,
    /// Why Toolgate cannot tell whether the call did it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BrokeWords {
    /// The hint broken: "Read only", "openWorldHint: false".
    pub said: String,
    pub text: String,
}

impl Conduct {
    /// At most this many things seen are told per call (all are judged).
    pub const SEEN_TOLD: usize = 20;

    /// What `witnessed` holds, told: what changes state first, then what
    /// reaches another site, then the rest, each in the order seen; cut to
    /// `SEEN_TOLD`, with what was not told counted.
    pub fn of(
        watch: &Watch,
        witnessed: &Witnessed,
        overlapped: bool,
        broke: Option<&Broken>,
    ) -> Conduct {
        let site = watch.site.as_str();
        let mut told: Vec<&Seen> = witnessed.kept().iter().collect();
        told.sort_by_key(|s| (!s.changes_state(), !s.off_site(site)));
        told.truncate(Conduct::SEEN_TOLD);
        Conduct {
            more_seen: witnessed.total() - told.len(),
            seen: told
                .into_iter()
                .map(|s| {
                    let why = match witnessed.part(s) {
                        Part::CannotTell(why) => Some(why),
                        _ => None,
                    };
                    let (done, to) = s.words(site);
                    SeenWords {
                        done,
                        to,
                        off_site: s.off_site(site),
                        cannot_tell: why.is_some(),
                        why: why.map(str::to_owned),
                    }
                })
                .collect(),
            overlapped,
            broke: broke.map(|b| BrokeWords {
                said: b.said.clone(),
                text: b.text(&b.to),
            }),
        }
    }
}

/// The flags of one site.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteFlags {
    /// By tool name.
    #[serde(default)]
    pub tools: BTreeMap<String, Broken>,
    /// Past `FLAGS_PER_SITE` tools, the site as a whole: every tool on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole: Option<Broken>,
}

/// Every flag, by site: what `chrome.storage.local` keeps (`hints_broken`).
/// A re-registration does not clear a flag (a tool that lied would register
/// again after each call); only the person does.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    #[serde(default)]
    pub sites: BTreeMap<String, SiteFlags>,
}

impl Flags {
    /// The flag that holds for `tool` on `site`, if any.
    pub fn of(&self, site: &str, tool: &str) -> Option<&Broken> {
        let flags = self.sites.get(site)?;
        flags.tools.get(tool).or(flags.whole.as_ref())
    }

    /// Flags `tool` on `site` (a flag it has is replaced by the newer).
    pub fn flag(&mut self, site: &str, tool: &str, broken: Broken) {
        if !self.sites.contains_key(site) && self.sites.len() >= FLAGGED_SITES {
            let oldest = self
                .sites
                .iter()
                .min_by_key(|(_, f)| f.tools.values().chain(&f.whole).map(|b| b.at_ms).max())
                .map(|(s, _)| s.clone());
            if let Some(oldest) = oldest {
                self.sites.remove(&oldest);
            }
        }
        let flags = self.sites.entry(site.to_owned()).or_default();
        if flags.tools.contains_key(tool) || flags.tools.len() < FLAGS_PER_SITE {
            flags.tools.insert(tool.to_owned(), broken);
        } else {
            flags.whole = Some(broken);
        }
    }

    /// The person cleared `tool`'s flag on `site` (with no tool, the site's
    /// flag as a whole). Whether there was one.
    pub fn clear(&mut self, site: &str, tool: Option<&str>) -> bool {
        let Some(flags) = self.sites.get_mut(site) else {
            return false;
        };
        let cleared = match tool {
            Some(tool) => flags.tools.remove(tool).is_some(),
            None => flags.whole.take().is_some(),
        };
        if flags.tools.is_empty() && flags.whole.is_none() {
            self.sites.remove(site);
        }
        cleared
    }
}

#[cfg(test)]
mod tests;
