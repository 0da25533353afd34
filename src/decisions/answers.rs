//! What each chat has allowed or refused on each site, the answers the two
//! cards offer, and what a call needs before it runs (docs/cards.md).
//!
//! Pure: time comes in as milliseconds, sites as origins, and every decision
//! comes out as a value the shell acts on.

use crate::decisions::{lifecycle::SeenTools, untrusted::ReadUntrusted};
use crate::page::classify::Class;
use crate::page::conduct::{Broken, Flags};
use crate::page::declaration::{Hint, HintState};
use crate::page::registry::{is_opaque_site, Tool};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod card_kinds;

/// How long an approved idempotent call may be retried without asking.
pub const RETRY_WINDOW_MS: u64 = 2 * 60 * 1000;

/// How far a chat may use a site's tools without asking: one width per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Width {
    /// "Allow read-only tools on this website".
    ReadOnly,
    /// "Allow non-consequential read/write tools on this website".
    NonConsequential,
    /// "Allow all tools on this website".
    All,
}

impl Width {
    /// The width that lets a class run: the class and everything below it.
    pub fn of(class: Class) -> Width {
        match class {
            Class::ReadOnly => Width::ReadOnly,
            Class::Mutating => Width::NonConsequential,
            Class::Consequential => Width::All,
        }
    }

    /// Whether tools of this class run without asking (the widths table).
    pub fn covers(self, class: Class) -> bool {
        Width::of(class) <= self
    }
}

/// The answers to the site-permission question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteAnswer {
    AllowOnce,
    AllowReadOnly,
    AllowNonConsequential,
    AllowAll,
    DenyOnce,
    DenyForChat,
}

/// The answers to the per-call confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallAnswer {
    AllowOnce,
    AlwaysAllowTool,
    /// "Allow all tools on {site}", or for a Mutating tool "Allow
    /// non-consequential read/write tools on {site}": widens to the tool's class.
    AllowClass,
    DenyOnce,
    NeverAllowTool,
    DenyAllSite,
}

impl CallAnswer {
    /// Whether the answer lets its call run.
    pub fn allows(self) -> bool {
        matches!(
            self,
            Self::AllowOnce | Self::AlwaysAllowTool | Self::AllowClass
        )
    }
}

/// The answers to a call a site rule asks first about (docs/rules.md,
/// "Levels"): "Allow once" and "Refuse", and no "always".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAnswer {
    AllowOnce,
    Refuse,
}

/// The answers to a call of a tool another site's script registered
/// (docs/cards.md, "Tools registered by other sites' scripts"): for that
/// script's site, in this chat, or for this call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptAnswer {
    AllowOnce,
    AllowForChat,
    DenyOnce,
    DenyForChat,
}

/// An answer as the card page sends it: `{"site": "allow_all"}`,
/// `{"call": "deny_once"}`, `{"rule": "refuse"}`, `{"script":
/// "allow_for_chat"}` (the cards share some answers' names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Site(SiteAnswer),
    Call(CallAnswer),
    Rule(RuleAnswer),
    Script(ScriptAnswer),
}

/// Which of the two cards: the site-permission question, or the per-call
/// confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    Site,
    Call,
    /// A call a site rule asks first about (docs/rules.md).
    Rule,
    /// The first call, in a chat, of a tool another site's script
    /// registered (docs/cards.md).
    Script,
}

/// What a call, or a listing, needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// It runs; `why` says what allowed it.
    Run { why: String },
    /// It is refused; `why` is a sentence an agent can relay.
    Refuse { why: String },
    /// The site-permission question must be asked first.
    AskSite,
    /// The per-call confirmation must be asked; `changed` when the tool was
    /// always allowed but has since been re-registered with a new definition.
    AskCall { changed: bool },
}

/// The facts about one tool that answers depend on.
/// Borrowed from the registry: a call's decision copies nothing it does not keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolFacts<'a> {
    pub site: &'a str,
    pub name: &'a str,
    pub class: Class,
    /// A fingerprint of the definition (description, schema, hints): grants
    /// are bound to it.
    pub definition: &'a str,
    pub idempotent: bool,
    /// The tool was seen doing more than its hints said: it is treated as
    /// Consequential and confirmed per call, on every chat, until the person
    /// clears it (docs/classes.md, "Hints held to their word").
    pub broken: Option<&'a Broken>,
}

impl<'a> ToolFacts<'a> {
    /// What answers need to know of a registered tool, with the flags of
    /// tools that broke their hints; `None` for skills.
    pub fn of(tool: &'a Tool, site: &'a str, flags: &'a Flags) -> Option<ToolFacts<'a>> {
        let broken = flags.of(site, &tool.decl.name);
        Some(ToolFacts {
            site,
            name: &tool.decl.name,
            class: if broken.is_some() {
                tool.verdict.class.map(|_| Class::Consequential)?
            } else {
                tool.verdict.class?
            },
            definition: tool.definition(),
            idempotent: tool.decl.hint(Hint::Idempotent) == HintState::True,
            broken,
        })
    }
}

/// What a chat has answered for one site.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteGrant {
    /// The width allowed, if any.
    #[serde(default)]
    pub width: Option<Width>,
    /// "Deny for this chat" or "Deny all page tools": refused without asking.
    #[serde(default)]
    pub denied: bool,
    /// "Always allow": tool name → the definition it was given for.
    #[serde(default)]
    pub always: BTreeMap<String, String>,
}

/// The last call a person approved once, for the immediate-retry rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    pub site: String,
    pub tool: String,
    pub definition: String,
    pub arguments: String,
    pub at_ms: u64,
}

/// One chat: one agent conversation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chat {
    pub label: String,
    /// Opened Read only: every tool that is not Read only is off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    // Left out of the stored record when empty, as the session's parts are
    // (`agent::Session`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sites: BTreeMap<String, SiteGrant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_approval: Option<Approval>,
    /// Ended (its MCP session or port closed): its id cannot be opened
    /// again, so no later agent inherits what it was allowed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
    /// The untrusted content it read (`decisions::untrusted`).
    #[serde(default, skip_serializing_if = "ReadUntrusted::is_empty")]
    pub untrusted: ReadUntrusted,
    /// What it saw of each site's tools (`decisions::lifecycle`).
    #[serde(default, skip_serializing_if = "SeenTools::is_empty")]
    pub seen: SeenTools,
    /// Tools registered by other sites' scripts: the script's site
    /// (`Provenance::asked_as`) → allowed (true) or denied, on any site,
    /// in this chat (docs/cards.md).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scripts: BTreeMap<String, bool>,
}

/// Every chat's answers, and the refusals that hold for all chats.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answers {
    #[serde(default)]
    pub chats: BTreeMap<String, Chat>,
    /// "Never allow": (site, tool), in every chat, until the browser restarts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub never: Vec<(String, String)>,
}

/// Pages on localhost are never asked the site question (docs/cards.md, "Localhost").
pub fn is_localhost(origin: &str) -> bool {
    let host = site_host(origin);
    let host = host
        .rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()) && !host.ends_with(']'))
        .map_or(host, |(h, _)| h);
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "[::1]"
        || host.strip_prefix("127.").is_some_and(|rest| {
            rest.split('.').count() == 3 && rest.split('.').all(|p| p.parse::<u8>().is_ok())
        })
}

/// The site as cards name it: the origin without its scheme ("xataworks.ca").
pub fn site_host(origin: &str) -> &str {
    origin.split_once("://").map_or(origin, |(_, rest)| rest)
}

impl Answers {
    /// Opens a chat, or opens it again (an MCP session whose host restarted
    /// opens its chat anew): its label is renewed. Read only is the chat's
    /// for its whole life: opening it again without cannot lift it.
    ///
    /// # Errors
    /// A closed chat cannot be opened again (docs/agents.md, "Chats").
    pub fn open_chat(&mut self, chat: &str, label: &str, read_only: bool) -> Result<(), String> {
        let entry = self.chats.entry(chat.to_owned()).or_default();
        if entry.closed {
            return Err(format!(
                "chat {chat} was closed, and a closed chat cannot be opened again: start a new one"
            ));
        }
        entry.label = label.to_owned();
        entry.read_only |= read_only;
        Ok(())
    }

    /// Ends a chat for good: what it was allowed is forgotten, and its id
    /// cannot be opened again.
    pub fn close_chat(&mut self, chat: &str) {
        let entry = self.chat(chat);
        entry.closed = true;
        entry.sites = BTreeMap::default();
        entry.last_approval = None;
        entry.untrusted = ReadUntrusted::default();
        entry.seen = SeenTools::default();
        entry.scripts = BTreeMap::default();
    }

    /// Whether `chat` was closed.
    pub fn closed(&self, chat: &str) -> bool {
        self.chats.get(chat).is_some_and(|c| c.closed)
    }

    /// Whether `chat` was opened Read only.
    pub fn read_only(&self, chat: &str) -> bool {
        self.chats.get(chat).is_some_and(|c| c.read_only)
    }

    pub(crate) fn chat(&mut self, chat: &str) -> &mut Chat {
        self.chats.entry(chat.to_owned()).or_insert_with(|| Chat {
            label: chat.to_owned(),
            ..Chat::default()
        })
    }

    /// The width a chat has on a site: what it answered, or on localhost
    /// "read-only tools" without asking.
    fn width(&self, chat: &str, site: &str) -> Option<Width> {
        let answered = self
            .chats
            .get(chat)
            .and_then(|c| c.sites.get(site))
            .and_then(|g| g.width);
        answered.or_else(|| is_localhost(site).then_some(Width::ReadOnly))
    }

    fn denied(&self, chat: &str, site: &str) -> bool {
        self.chats
            .get(chat)
            .and_then(|c| c.sites.get(site))
            .is_some_and(|g| g.denied)
    }

    /// Whether a chat may list a site's tools, or must be asked first.
    pub fn decide_list(&self, chat: &str, site: &str) -> Decision {
        if self.denied(chat, site) {
            return Decision::Refuse {
                why: format!("refused: {} is denied in this chat", site_host(site)),
            };
        }
        match self.width(chat, site) {
            Some(_) => Decision::Run {
                why: format!("the chat may use {}'s tools", site_host(site)),
            },
            None => Decision::AskSite,
        }
    }

    /// "Never allow" was answered for the tool on the site.
    fn never_allowed(&self, site: &str, name: &str) -> bool {
        self.never.iter().any(|(s, n)| s == site && n == name)
    }

    /// Whether a listing shows this tool to the chat.
    pub fn visible(&self, chat: &str, tool: &ToolFacts) -> bool {
        let never = self.never_allowed(tool.site, tool.name);
        let off_for_chat = self.read_only(chat) && tool.class != Class::ReadOnly;
        !(never || off_for_chat)
    }

    /// A refusal that holds for the tool in the chat whatever was answered:
    /// "Never allow", a chat opened Read only, or the site denied in the chat.
    /// It also holds against an allowing answer to a card that opened before
    /// it (docs/cards.md, "When a refusal comes while a card is open").
    pub fn standing_refusal(&self, chat: &str, tool: &ToolFacts) -> Option<Decision> {
        let (site, name) = (tool.site, tool.name);
        let host = site_host(site);
        let why = if self.never_allowed(site, name) {
            format!("refused: {name} on {host} is never allowed, until the browser restarts")
        } else if self.read_only(chat) && tool.class != Class::ReadOnly {
            format!(
                "refused: {name} on {host} is {}, and this chat was opened Read only",
                tool.class.label()
            )
        } else if self.denied(chat, site) {
            format!("refused: {name} on {host} is denied in this chat")
        } else {
            return None;
        };
        Some(Decision::Refuse { why })
    }

    /// The chat made a call: the immediate-retry window of the call before
    /// it ends, whether or not this one could be decided.
    pub fn end_retry(&mut self, chat: &str) {
        if let Some(c) = self.chats.get_mut(chat) {
            c.last_approval = None;
        }
    }

    /// What a call needs. Every call ends the immediate-retry window of the
    /// call before it, so this takes `&mut self`.
    pub fn decide_call(
        &mut self,
        chat: &str,
        tool: &ToolFacts,
        arguments: &str,
        now_ms: u64,
    ) -> Decision {
        let retry = self.chat(chat).last_approval.take();
        let (site, name) = (tool.site, tool.name);
        let host = site_host(site);
        if let Some(refused) = self.standing_refusal(chat, tool) {
            return refused;
        }
        let Some(width) = self.width(chat, site) else {
            return Decision::AskSite;
        };
        // A tool that broke its hints is confirmed per call: no width,
        // "Always allow" or retry covers it (docs/classes.md).
        if tool.broken.is_some() {
            return Decision::AskCall { changed: false };
        }
        if width.covers(tool.class) {
            return Decision::Run {
                why: format!(
                    "{} tools on {host} are allowed in this chat",
                    tool.class.label()
                ),
            };
        }
        let always = self
            .chats
            .get(chat)
            .and_then(|c| c.sites.get(site))
            .and_then(|g| g.always.get(name));
        match always {
            Some(definition) if *definition == tool.definition => {
                return Decision::Run {
                    why: format!("{name} is always allowed on {host} in this chat"),
                }
            }
            Some(_) => return Decision::AskCall { changed: true },
            None => {}
        }
        let is_retry = retry.is_some_and(|r| {
            tool.idempotent
                && tool.class == Class::Mutating
                && r.site == site
                && r.tool == name
                && r.definition == tool.definition
                && r.arguments == arguments
                && now_ms.saturating_sub(r.at_ms) <= RETRY_WINDOW_MS
        });
        if is_retry {
            return Decision::Run {
                why: format!("an immediate identical retry of {name}, which you just approved"),
            };
        }
        Decision::AskCall { changed: false }
    }

    /// Records an answer to the site-permission question. Returns `Some` with
    /// the call's fate when the answer settles it, `None` when the call must
    /// now be decided under the new width.
    pub fn answer_site(&mut self, chat: &str, site: &str, answer: SiteAnswer) -> Option<Decision> {
        let host = site_host(site).to_owned();
        let width = match answer {
            SiteAnswer::AllowOnce => {
                return Some(Decision::Run {
                    why: "you allowed this call only".to_owned(),
                })
            }
            SiteAnswer::DenyOnce => {
                return Some(Decision::Refuse {
                    why: format!("refused: you denied this call to {host}"),
                })
            }
            SiteAnswer::DenyForChat => {
                let grant = self.chat(chat).sites.entry(site.to_owned()).or_default();
                *grant = SiteGrant {
                    denied: true,
                    ..SiteGrant::default()
                };
                return Some(Decision::Refuse {
                    why: format!("refused: {host} is denied in this chat"),
                });
            }
            SiteAnswer::AllowReadOnly => Width::ReadOnly,
            SiteAnswer::AllowNonConsequential => Width::NonConsequential,
            SiteAnswer::AllowAll => Width::All,
        };
        let grant = self.chat(chat).sites.entry(site.to_owned()).or_default();
        grant.width = Some(width);
        grant.denied = false;
        None
    }

    /// Records an answer to the per-call confirmation; returns the call's fate.
    pub fn answer_call(
        &mut self,
        chat: &str,
        tool: &ToolFacts,
        arguments: &str,
        answer: CallAnswer,
        now_ms: u64,
    ) -> Decision {
        let (site, name) = (tool.site.to_owned(), tool.name.to_owned());
        let host = site_host(&site).to_owned();
        let chat_state = self.chat(chat);
        match answer {
            CallAnswer::AllowOnce => {
                chat_state.last_approval = Some(Approval {
                    site,
                    tool: name,
                    definition: tool.definition.to_owned(),
                    arguments: arguments.to_owned(),
                    at_ms: now_ms,
                });
                Decision::Run {
                    why: "you allowed this call only".to_owned(),
                }
            }
            CallAnswer::AlwaysAllowTool => {
                let grant = chat_state.sites.entry(site).or_default();
                grant
                    .always
                    .insert(name.clone(), tool.definition.to_owned());
                Decision::Run {
                    why: format!("you always allow {name} on {host} in this chat"),
                }
            }
            CallAnswer::AllowClass => {
                let localhost_default = is_localhost(&site).then_some(Width::ReadOnly);
                let grant = chat_state.sites.entry(site).or_default();
                let wider = Width::of(tool.class)
                    .max(grant.width.or(localhost_default).unwrap_or(Width::ReadOnly));
                grant.width = Some(wider);
                Decision::Run {
                    why: format!("you allowed {} tools on {host}", tool.class.label()),
                }
            }
            CallAnswer::DenyOnce => Decision::Refuse {
                why: format!("refused: you denied this call to {name} on {host}"),
            },
            CallAnswer::NeverAllowTool => {
                let never = (site, name.clone());
                if !self.never.contains(&never) {
                    self.never.push(never);
                }
                Decision::Refuse {
                    why: format!(
                        "refused: {name} on {host} is never allowed, until the browser restarts"
                    ),
                }
            }
            CallAnswer::DenyAllSite => {
                chat_state.sites.insert(
                    site,
                    SiteGrant {
                        denied: true,
                        ..SiteGrant::default()
                    },
                );
                Decision::Refuse {
                    why: format!("refused: {host} is denied in this chat"),
                }
            }
        }
    }
}
