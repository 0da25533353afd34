//! A small model of what the person allowed, written from docs/cards.md
//! alone: per chat and site the width and the refusal, per tool definition
//! "Always allow", per site and tool "Never allow", the immediate
//! identical retry, and the chats that have read untrusted content (after
//! which no acting call runs without a yes for it). It says whether a call
//! may run without a card; the
//! driver (`super`) adds the one-off permissions a card's answer gives, and
//! the site rules above them (`super::site_rules`).

use super::script::{Outcome, Sight};
use super::site_rules::Rules;
use std::collections::{BTreeMap, BTreeSet};
use toolgate::decisions::answers::{Answer, CallAnswer, CardKind, RuleAnswer, SiteAnswer};
use toolgate::page::classify::Class;

/// docs/cards.md, "Widths of an answer": 0 read-only tools, 1
/// non-consequential read/write tools, 2 all tools; a class is run by the
/// width of its own rank and above.
pub fn rank(class: Class) -> u8 {
    match class {
        Class::ReadOnly => 0,
        Class::Mutating => 1,
        Class::Consequential => 2,
    }
}

/// The 2 minutes of the immediate identical retry.
const RETRY_MS: u64 = 2 * 60 * 1000;

/// docs/cards.md, "Localhost": the only local origins the driver's frames use.
pub fn is_localhost(site: &str) -> bool {
    site == "http://localhost:8000" || site == "http://127.0.0.1:9"
}

/// docs/cards.md, "Sandboxed frames": each opaque document is its own place.
pub fn is_opaque(site: &str) -> bool {
    site.starts_with("opaque:")
}

pub const SITE_ANSWERS: [SiteAnswer; 6] = [
    SiteAnswer::AllowOnce,
    SiteAnswer::AllowReadOnly,
    SiteAnswer::AllowNonConsequential,
    SiteAnswer::AllowAll,
    SiteAnswer::DenyOnce,
    SiteAnswer::DenyForChat,
];

pub const CALL_ANSWERS: [CallAnswer; 6] = [
    CallAnswer::AllowOnce,
    CallAnswer::AlwaysAllowTool,
    CallAnswer::AllowClass,
    CallAnswer::DenyOnce,
    CallAnswer::NeverAllowTool,
    CallAnswer::DenyAllSite,
];

pub const RULE_ANSWERS: [RuleAnswer; 2] = [RuleAnswer::AllowOnce, RuleAnswer::Refuse];

/// Every answer any card has, offered or not.
pub fn every_answer() -> Vec<Answer> {
    SITE_ANSWERS
        .map(Answer::Site)
        .into_iter()
        .chain(CALL_ANSWERS.map(Answer::Call))
        .chain(RULE_ANSWERS.map(Answer::Rule))
        .collect()
}

/// What a card said of its call besides the tool: that the chat had read
/// untrusted content (docs/cards.md, "After untrusted content"), that the
/// tool is flagged for breaking its hints (docs/classes.md, "What follows").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Said {
    pub untrusted: bool,
    pub flagged: bool,
}

impl Said {
    /// A per-call confirmation that says either offers answers for this
    /// call only.
    pub fn narrows(self, kind: CardKind) -> bool {
        kind == CardKind::Call && (self.untrusted || self.flagged)
    }
}

/// The answers a card offers (docs/cards.md, "The site question", "The
/// per-call confirmation", "Localhost", "Sandboxed frames"); `narrowed`
/// (`Said::narrows`), none that would cover a later call.
pub fn offered(kind: CardKind, site: &str, narrowed: bool) -> BTreeSet<String> {
    let all: Vec<Answer> = match kind {
        CardKind::Site => SITE_ANSWERS.map(Answer::Site).to_vec(),
        CardKind::Call => CALL_ANSWERS.map(Answer::Call).to_vec(),
        CardKind::Script => unreachable!("no scenario registers a tool from another site's script"),
        // A site rule's card (docs/rules.md): its two answers, wherever it is.
        CardKind::Rule => {
            return RULE_ANSWERS
                .map(|a| format!("{:?}", Answer::Rule(a)))
                .into_iter()
                .collect()
        }
    };
    all.into_iter()
        .filter(|a| match a {
            _ if is_opaque(site) => matches!(
                a,
                Answer::Site(SiteAnswer::AllowOnce | SiteAnswer::DenyOnce)
                    | Answer::Call(CallAnswer::AllowOnce | CallAnswer::DenyOnce)
            ),
            Answer::Site(SiteAnswer::DenyForChat) | Answer::Call(CallAnswer::DenyAllSite) => {
                !is_localhost(site)
            }
            Answer::Call(CallAnswer::AlwaysAllowTool | CallAnswer::AllowClass) => !narrowed,
            _ => true,
        })
        .map(|a| format!("{a:?}"))
        .collect()
}

/// docs/cards.md, "Closing a card".
pub fn closing(kind: CardKind, site: &str) -> Answer {
    match kind {
        CardKind::Site if is_opaque(site) => Answer::Site(SiteAnswer::DenyOnce),
        CardKind::Site => Answer::Site(SiteAnswer::DenyForChat),
        CardKind::Call => Answer::Call(CallAnswer::DenyOnce),
        CardKind::Rule => Answer::Rule(RuleAnswer::Refuse),
        CardKind::Script => unreachable!("no scenario registers a tool from another site's script"),
    }
}

/// docs/cards.md, "What counts as untrusted": whether a chat that reads
/// `outcome` of a tool that declared `untrustedContentHint` (`declared`),
/// or that is flagged for breaking its hints when the call ends (`flagged`),
/// has read untrusted content. A failure holds none of the content the hint
/// is about; its reason counts for what it says, and for the flag.
pub fn untrusted(outcome: Outcome, declared: bool, flagged: bool) -> bool {
    match outcome {
        Outcome::Done => declared || flagged,
        Outcome::Threw => flagged,
        Outcome::Addressed | Outcome::Hidden | Outcome::Unreadable => true,
    }
}

/// docs/classes.md, "Breaking a hint": whether a call of a tool whose hints
/// make it Read only (`read_only`), or that declared `openWorldHint: false`
/// and is not Consequential (`stays_on_site`), broke them doing `sight`.
pub fn breaks(read_only: bool, stays_on_site: bool, sight: Sight) -> bool {
    match sight {
        Sight::ReadsOwn => false,
        Sight::WritesOwn => read_only,
        Sight::ReadsAway => stays_on_site,
    }
}

/// A tool as a call found it.
#[derive(Clone, Debug)]
pub struct Facts {
    pub site: String,
    pub name: String,
    pub class: Class,
    pub definition: String,
    pub idempotent: bool,
}

#[derive(Clone, Debug)]
struct Approval {
    site: String,
    name: String,
    definition: String,
    arguments: String,
    at_ms: u64,
}

/// What the person allowed and refused, so far.
#[derive(Clone, Debug, Default)]
pub struct Model {
    widths: BTreeMap<(String, String), u8>,
    denied: BTreeSet<(String, String)>,
    always: BTreeMap<(String, String, String), String>,
    never: BTreeSet<(String, String)>,
    read_only: BTreeSet<String>,
    approval: BTreeMap<String, Approval>,
    /// The chats that have read untrusted content, for their whole life.
    untrusted: BTreeSet<String>,
    /// The chats that ended.
    closed: BTreeSet<String>,
    /// The tools flagged for breaking their hints, by site and name: they
    /// are Consequential on their site, and each call needs a yes on a card
    /// that says so (docs/classes.md, "What follows").
    flags: BTreeSet<(String, String)>,
    /// What the person set on the settings page (docs/rules.md).
    pub rules: Rules,
}

impl Model {
    /// Read only is a chat's for its whole life: opening it again without
    /// does not lift it.
    pub fn open_chat(&mut self, chat: &str, read_only: bool) {
        if read_only {
            self.read_only.insert(chat.to_owned());
        }
    }

    /// docs/agents.md: an ended chat can never be opened again, and every
    /// request it sends is refused.
    pub fn close_chat(&mut self, chat: &str) {
        self.closed.insert(chat.to_owned());
    }

    pub fn closed(&self, chat: &str) -> bool {
        self.closed.contains(chat)
    }

    pub fn read_only(&self, chat: &str) -> bool {
        self.read_only.contains(chat)
    }

    /// The chat read a result that holds untrusted content.
    pub fn read_untrusted(&mut self, chat: &str) {
        self.untrusted.insert(chat.to_owned());
    }

    /// Whether `chat` has read untrusted content: from then on, each of its
    /// calls of a tool that is not Read only needs a yes for that call.
    pub fn has_read_untrusted(&self, chat: &str) -> bool {
        self.untrusted.contains(chat)
    }

    /// The tool `name` was seen breaking its hints on `site`.
    pub fn flag(&mut self, site: &str, name: &str) {
        self.flags.insert((site.to_owned(), name.to_owned()));
    }

    pub fn flagged(&self, site: &str, name: &str) -> bool {
        self.flags.contains(&(site.to_owned(), name.to_owned()))
    }

    /// The `i`th flag, if there are that many (by site and name).
    pub fn nth_flag(&self, i: usize) -> Option<(String, String)> {
        self.flags.iter().nth(i).cloned()
    }

    /// The person cleared the flag: the tool's hints are trusted again.
    pub fn clear_flag(&mut self, site: &str, name: &str) {
        self.flags.remove(&(site.to_owned(), name.to_owned()));
    }

    /// Whether a call runs without asking: nothing refuses it, and its
    /// width, its "Always allow" or the immediate retry covers it.
    pub fn allows(&self, chat: &str, tool: &Facts, arguments: &str, now_ms: u64) -> bool {
        let key = (chat.to_owned(), tool.site.clone());
        if self.refuses(chat, tool) {
            return false;
        }
        let width = self
            .widths
            .get(&key)
            .copied()
            .or_else(|| is_localhost(&tool.site).then_some(0));
        let Some(width) = width else {
            return false;
        };
        let always = (chat.to_owned(), tool.site.clone(), tool.name.clone());
        let retry = self.approval.get(chat).is_some_and(|a| {
            tool.class == Class::Mutating
                && tool.idempotent
                && a.site == tool.site
                && a.name == tool.name
                && a.definition == tool.definition
                && a.arguments == arguments
                && now_ms.saturating_sub(a.at_ms) <= RETRY_MS
        });
        rank(tool.class) <= width || self.always.get(&always) == Some(&tool.definition) || retry
    }

    /// Whether a refusal holds for the tool in the chat, whatever a card
    /// says: "Never allow", a chat opened Read only, the site denied.
    pub fn refuses(&self, chat: &str, tool: &Facts) -> bool {
        self.never.contains(&(tool.site.clone(), tool.name.clone()))
            || (self.read_only.contains(chat) && tool.class != Class::ReadOnly)
            || self.denied.contains(&(chat.to_owned(), tool.site.clone()))
    }

    /// The chat made a call: the immediate retry of the call before, if
    /// any, is used or ended.
    pub fn called(&mut self, chat: &str) {
        self.approval.remove(chat);
    }

    fn refuse_site(&mut self, chat: &str, site: &str) {
        let key = (chat.to_owned(), site.to_owned());
        self.widths.remove(&key);
        self.always.retain(|(c, s, _), _| !(c == chat && s == site));
        self.denied.insert(key);
    }

    /// The site question answered for `site` (docs/cards.md, "What each
    /// answer does"): a width, or a refusal for the chat, is recorded.
    pub fn site_answer(&mut self, chat: &str, site: &str, answer: SiteAnswer) {
        let key = (chat.to_owned(), site.to_owned());
        let width = match answer {
            SiteAnswer::AllowOnce | SiteAnswer::DenyOnce => return,
            SiteAnswer::DenyForChat => return self.refuse_site(chat, site),
            SiteAnswer::AllowReadOnly => 0,
            SiteAnswer::AllowNonConsequential => 1,
            SiteAnswer::AllowAll => 2,
        };
        self.denied.remove(&key);
        self.widths.insert(key, width);
    }

    /// The per-call confirmation answered, for the tool its card showed
    /// (the caller checks it is still that tool: otherwise nothing is
    /// recorded).
    pub fn call_answer(
        &mut self,
        chat: &str,
        tool: &Facts,
        arguments: &str,
        answer: CallAnswer,
        now_ms: u64,
    ) {
        let key = (chat.to_owned(), tool.site.clone());
        match answer {
            CallAnswer::AllowOnce => {
                self.approval.insert(
                    chat.to_owned(),
                    Approval {
                        site: tool.site.clone(),
                        name: tool.name.clone(),
                        definition: tool.definition.clone(),
                        arguments: arguments.to_owned(),
                        at_ms: now_ms,
                    },
                );
            }
            CallAnswer::AlwaysAllowTool => {
                let always = (chat.to_owned(), tool.site.clone(), tool.name.clone());
                self.always.insert(always, tool.definition.clone());
            }
            CallAnswer::AllowClass => {
                // "Widening from the per-call card never narrows."
                let before = self
                    .widths
                    .get(&key)
                    .copied()
                    .or_else(|| is_localhost(&tool.site).then_some(0))
                    .unwrap_or(0);
                self.widths.insert(key, before.max(rank(tool.class)));
            }
            CallAnswer::DenyOnce => {}
            CallAnswer::NeverAllowTool => {
                self.never.insert((tool.site.clone(), tool.name.clone()));
            }
            CallAnswer::DenyAllSite => self.refuse_site(chat, &tool.site),
        }
    }
}
