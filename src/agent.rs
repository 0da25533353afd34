//! The agent entry: MCP-shaped JSON-RPC requests from any chat, decided
//! against the chat's answers, and the calls waiting on a person's card.
//!
//! A state machine like the registry: each method takes what the shell
//! knows (the registry, the open tabs, the time) and returns a `Step` for the
//! shell to carry out — reply to the agent, run a tool in a page, or open a
//! card. The whole `Session` is persisted after every change, so a card
//! answered after the service worker restarted still lets its call run.

use crate::answers::{site_host, Answers, CallAnswer, Decision, SiteAnswer, ToolFacts};
use crate::classify::Class;
use crate::declaration::Kind;
use crate::registry::{FrameId, Registry, Source, TabId, Tool};
use crate::vecmap::VecMap;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;

mod answering;
mod calls;
mod frames;
mod kept;
mod listing;
mod replies;
use calls::Found;
pub use frames::{FrameCall, Withdrawn};
pub use replies::Reply;
use replies::{error_reply, refusal, reply, result_reply, tool_result};

/// The largest tool result handed to an agent, in bytes of JSON.
pub const DEFAULT_RESULT_CAP: usize = 1024 * 1024;
/// How many finished replies are kept for agents that lost their wait.
const DONE_KEPT: usize = 100;
/// How many bytes of replies are kept for them, at most. The session is
/// stored whole, as one string, in `chrome.storage.session`, whose 10 MB
/// quota every tab's registry shares (and where a string's quotes count
/// twice): past the quota, every write of the session fails.
pub const DONE_KEPT_BYTES: usize = 2 * 1024 * 1024;

pub const LIST_TABS: &str = "browser_list_tabs";
pub const LIST_TOOLS: &str = "browser_list_webmcp_tools";
pub const CALL_TOOL: &str = "browser_call_webmcp_tool";

/// A tab as the browser describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabInfo {
    pub id: TabId,
    pub title: String,
    pub url: String,
}

/// What the shell knows of the browser when a request or answer comes.
pub struct World<'a> {
    pub registry: &'a Registry,
    /// The open tabs, or `None` when the shell did not look them up: most
    /// requests never need them (asking the browser costs a round trip on
    /// every call), and those that do return `Step::NeedTabs`.
    pub tabs: Option<&'a [TabInfo]>,
    pub now_ms: u64,
}

impl World<'_> {
    pub fn tab(&self, id: TabId) -> Option<&TabInfo> {
        self.tabs.unwrap_or_default().iter().find(|t| t.id == id)
    }
}

/// A tool to run, and where: the frame and document that registered it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub call_id: u64,
    pub tab_id: TabId,
    pub frame_id: FrameId,
    pub document_id: String,
    pub source: Source,
    pub name: String,
    /// As JSON text (`Wanted::Call` holds it so): the shell reads it.
    pub arguments: String,
    /// Running it twice is harmless: it is a Read-only tool. The shell stores
    /// the session, which records the call as running, before it starts a
    /// call that is not, so that a worker stopped mid-call never runs it
    /// again for a re-sent request; a repeatable call need not wait for that.
    pub repeatable: bool,
}

/// What the shell must do next.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Answer the agent with this JSON-RPC response.
    Reply { reply: Reply },
    /// Run the tool, then hand the outcome to `Session::finish`.
    Run { run: Run },
    /// Open the card in a window; the agent waits for it.
    Ask { card_id: u64 },
    /// The request is already waiting on this card.
    Wait { card_id: u64 },
    /// The request's call is already running; its reply will come when it ends.
    Attach { call_id: u64 },
    /// The request needs the open tabs (a tab's title, or whether a tab
    /// exists): send it again with them. Nothing changed.
    NeedTabs,
}

/// What a pending request is: a listing or a call. Stored only (in the
/// session record), so tagged the way serde reads without buffering:
/// `{"list": {…}}`, `{"call": {…}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wanted {
    List {
        tab_id: TabId,
        /// Sites this listing was allowed once, or denied once, by a card.
        #[serde(default)]
        allowed_once: Vec<String>,
        #[serde(default)]
        denied_once: Vec<String>,
    },
    Call {
        tab_id: TabId,
        frame_id: FrameId,
        document_id: String,
        source: Source,
        site: String,
        name: String,
        /// The arguments as canonical JSON text.
        arguments: String,
        /// The site question was answered "Allow this call only".
        #[serde(default)]
        allowed_once: bool,
    },
}

/// Which card a pending request waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    Site,
    Call,
}

/// A request waiting on a person.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub chat: String,
    pub request_id: Value,
    pub wanted: Wanted,
    pub card: CardKind,
    /// The site the card is about.
    pub site: String,
    /// The agent tool that asked ("browser_call_webmcp_tool").
    pub asked_by: String,
    /// The tool was always allowed, but changed since.
    #[serde(default)]
    pub changed: bool,
    #[serde(default)]
    pub window_id: Option<i64>,
    /// Later requests of the same chat that need the same site question
    /// answered: they wait on this card rather than open one of their own,
    /// and go on when it is answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub followers: Vec<Follower>,
}

/// A request waiting on a site card another request of its chat opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Follower {
    pub request_id: Value,
    pub wanted: Wanted,
}

/// What answering a card comes to: the next step of the request that opened
/// it, and of each request that waited on it.
#[derive(Debug, PartialEq, Serialize)]
pub struct Answered {
    pub chat: String,
    pub request_id: Value,
    pub step: Step,
    pub followers: Vec<Followed>,
}

/// The next step of a request that waited on a card it did not open.
#[derive(Debug, PartialEq, Serialize)]
pub struct Followed {
    pub request_id: Value,
    pub step: Step,
}

/// Everything the agent entry keeps, persisted as one record.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Session {
    #[serde(default)]
    pub answers: Answers,
    /// Open cards, by card id.
    #[serde(default)]
    pub pending: VecMap<u64, Pending>,
    /// Calls running in a page, by call id: (chat, request id, what let it run).
    #[serde(default)]
    pub running: VecMap<u64, (String, Value, String)>,
    /// Calls to Read-only tools running in this worker, the same way. They
    /// are never stored: running one again after a stop is harmless, and a
    /// call its agent took the reply of directly then costs no write at all.
    #[serde(skip)]
    repeatable: VecMap<u64, (String, Value, String)>,
    /// Replies not yet collected by an agent that lost its wait, by request
    /// key, oldest first: past `DONE_KEPT`, the oldest goes.
    #[serde(default)]
    pub done: Vec<(String, Reply)>,
    #[serde(default)]
    pub next_id: u64,
    /// Ids of repeatable calls, counted apart (from `REPEATABLE_IDS`) so that
    /// they leave the stored record unchanged.
    #[serde(skip)]
    next_repeatable: u64,
    /// The last record `record` returned.
    #[serde(skip)]
    recorded: Option<String>,
    /// What must be stored may have changed since `recorded`. Set by every
    /// change, except the one every agent call to a Read-only tool makes
    /// (see `request` and `finish`), so that such a call costs no writing
    /// of the whole session to find out that nothing changed.
    #[serde(skip)]
    unsaved: bool,
}

/// Where ids of repeatable calls start: above every stored id, and exact as a
/// JS number.
const REPEATABLE_IDS: u64 = 1 << 52;

fn request_key(chat: &str, id: &Value) -> String {
    format!("{chat}\u{0}{id}")
}

/// The browser tools agents see, with their input schemas.
pub fn browser_tools() -> Value {
    // JSON text rather than a `json!` literal: the macro compiles to code
    // that builds the value piece by piece, several KB of the Wasm.
    serde_json::from_str(include_str!("browser-tools.json")).unwrap_or(Value::Null)
}

/// A JSON-RPC request, read in place from the agent's text: its params stay
/// text until the method that reads them (a `Value` tree of every request
/// was a quarter of a call's time in the core; README, figure 4).
#[derive(Deserialize)]
struct Request<'a> {
    #[serde(default)]
    id: Value,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// An answer as the card page sends it: `{"site": "allow_all"}`,
/// `{"call": "deny_once"}` (the two cards share some answers' names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Site(SiteAnswer),
    Call(CallAnswer),
}

impl Session {
    fn next(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The session as it must be stored, as JSON text; `None` when nothing
    /// that must outlive the worker changed since the last record returned.
    ///
    /// # Errors
    /// When the session cannot be written as JSON (it always can: its maps
    /// are keyed by strings and integers).
    pub fn record(&mut self) -> Result<Option<String>, String> {
        let unsaved = self.unsaved();
        // Debug builds (tests) write the record anyway, to check below that
        // no change went unmarked.
        if !unsaved && !cfg!(debug_assertions) {
            return Ok(None);
        }
        let text = serde_json::to_string(&*self).map_err(|e| e.to_string())?;
        let unchanged = self.recorded.as_deref() == Some(text.as_str());
        assert!(
            unsaved || unchanged,
            "a change to the stored session was not marked unsaved"
        );
        self.unsaved = false;
        if unchanged {
            return Ok(None);
        }
        self.recorded = Some(text.clone());
        Ok(Some(text))
    }

    /// Whether what must be stored may have changed since the last
    /// `record`. A session never recorded (new, or read from storage) may
    /// differ from what is stored.
    pub fn unsaved(&self) -> bool {
        self.unsaved || self.recorded.is_none()
    }

    /// The service worker started again, with this session from storage: the
    /// calls it was running died with the old worker, so their results are
    /// lost. Each gets its reply now, kept for the agent to collect by sending
    /// the same request again. Calls running in the current worker are not
    /// touched anywhere else: an agent re-sending one attaches to it.
    pub fn restarted(&mut self) {
        self.unsaved = true;
        for (_, (chat, id, _)) in std::mem::take(&mut self.running) {
            let reply = error_reply(
                &id,
                -32000,
                "the call was interrupted when Toolgate's service worker stopped; it may have run",
            );
            self.keep_done(&chat, &id, reply);
        }
    }

    /// Opens a chat (the agent console's "New chat", an MCP session...).
    pub fn open_chat(&mut self, chat: &str, label: &str, read_only: bool) {
        self.unsaved = true;
        self.answers.open_chat(chat, label, read_only);
    }

    /// A JSON-RPC request from a chat, as JSON text.
    pub fn request(&mut self, chat: &str, request: &str, world: &World) -> Step {
        self.quietly(chat, |session| session.respond(chat, request, world))
    }

    /// Takes one step for `chat`, marking the session unsaved unless the
    /// step changed nothing stored.
    fn quietly(&mut self, chat: &str, decide: impl FnOnce(&mut Session) -> Step) -> Step {
        // A Read-only call allowed without a card changes nothing stored: its
        // call is kept apart (`repeatable`), unless deciding it created the
        // chat or used up the chat's last approval.
        let chat_state = |s: &Session| s.answers.chats.get(chat).map(|c| c.last_approval.is_some());
        let before = chat_state(self);
        let step = decide(self);
        let quiet = match &step {
            Step::NeedTabs => true,
            Step::Run { run } => run.repeatable,
            _ => false,
        };
        self.unsaved |= !quiet || chat_state(self) != before;
        step
    }

    fn respond(&mut self, chat: &str, request: &str, world: &World) -> Step {
        let Request { id, method, params } = match serde_json::from_str(request) {
            Ok(request) => request,
            Err(e) => {
                return Step::Reply {
                    reply: error_reply(&Value::Null, -32600, &format!("invalid request: {e}")),
                }
            }
        };
        if let Some(step) = self.resume(chat, &id) {
            return step;
        }
        match method.as_deref() {
            Some("initialize") => Step::Reply {
                reply: reply(
                    &id,
                    json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "toolgate", "version": env!("CARGO_PKG_VERSION")}}),
                ),
            },
            // MCP's ping: answered at once, by the extension (the benchmark
            // times a desktop agent's round trip with it).
            Some("ping") => Step::Reply {
                reply: reply(&id, json!({})),
            },
            Some("tools/list") => Step::Reply {
                reply: reply(&id, json!({"tools": browser_tools()})),
            },
            Some("tools/call") => self.call(chat, &id, params, world),
            Some(other) => Step::Reply {
                reply: error_reply(&id, -32601, &format!("unknown method {other:?}")),
            },
            None => Step::Reply {
                reply: error_reply(&id, -32600, "a request needs a method"),
            },
        }
    }

    /// Where a request sent again stands: its kept reply, the card it waits
    /// on, or its running call. `None` for a request not seen before.
    fn resume(&mut self, chat: &str, id: &Value) -> Option<Step> {
        if !self.done.is_empty() {
            if let Some(done) = self.take_done(&request_key(chat, id)) {
                return Some(Step::Reply { reply: done });
            }
        }
        if let Some((&card_id, _)) = self.pending.iter().find(|(_, p)| {
            p.chat == chat
                && (p.request_id == *id || p.followers.iter().any(|f| f.request_id == *id))
        }) {
            return Some(Step::Wait { card_id });
        }
        if let Some((&call_id, _)) = self
            .running
            .iter()
            .chain(&self.repeatable)
            .find(|(_, (c, r, _))| c == chat && r == id)
        {
            // Still running in this worker (calls lost to a restart were
            // settled by `restarted`): the agent waits for the same reply.
            return Some(Step::Attach { call_id });
        }
        None
    }

    /// Decides a wanted listing or call, as far as it can go without a person.
    fn pursue(&mut self, chat: &str, id: &Value, wanted: Wanted, world: &World) -> Step {
        match &wanted {
            Wanted::List {
                tab_id,
                allowed_once,
                denied_once,
            } => {
                let mut sites: Vec<String> = Vec::new();
                for frame in world.registry.frames(*tab_id) {
                    if !sites.contains(&frame.origin) {
                        sites.push(frame.origin.clone());
                    }
                }
                if sites.is_empty() && world.tabs.is_none() {
                    return Step::NeedTabs;
                }
                if sites.is_empty() && world.tab(*tab_id).is_none() {
                    return Step::Reply {
                        reply: error_reply(id, -32602, &format!("there is no tab {tab_id}")),
                    };
                }
                let mut listed = Vec::new();
                let mut withheld = Vec::new();
                for site in &sites {
                    let decision = if allowed_once.contains(site) {
                        Decision::Run {
                            why: "you allowed this listing only".to_owned(),
                        }
                    } else if denied_once.contains(site) {
                        Decision::Refuse {
                            why: format!("you denied this listing on {}", site_host(site)),
                        }
                    } else {
                        self.answers.decide_list(chat, site)
                    };
                    match decision {
                        Decision::Run { .. } => listed.push(site.clone()),
                        Decision::Refuse { why } => withheld.push(why),
                        Decision::AskSite | Decision::AskCall { .. } => {
                            let site = site.clone();
                            return self.ask(
                                chat,
                                id,
                                wanted,
                                CardKind::Site,
                                site,
                                LIST_TOOLS,
                                false,
                            );
                        }
                    }
                }
                Step::Reply {
                    reply: self.listing(chat, id, *tab_id, &listed, &withheld, world),
                }
            }
            Wanted::Call {
                tab_id,
                frame_id,
                document_id,
                source,
                site,
                name,
                arguments,
                allowed_once,
            } => {
                let Some(facts) = current_facts(
                    world.registry,
                    *tab_id,
                    *frame_id,
                    document_id,
                    *source,
                    name,
                    site,
                ) else {
                    return Step::Reply {
                        reply: error_reply(
                            id,
                            -32000,
                            &format!("{name} is no longer published by tab {tab_id}"),
                        ),
                    };
                };
                let decision = if *allowed_once {
                    Decision::Run {
                        why: "you allowed this call only".to_owned(),
                    }
                } else {
                    self.answers
                        .decide_call(chat, &facts, arguments, world.now_ms)
                };
                match decision {
                    Decision::Run { why } => {
                        let repeatable = facts.class == Class::ReadOnly;
                        let running = (chat.to_owned(), id.clone(), why);
                        let call_id = if repeatable {
                            self.next_repeatable += 1;
                            let call_id = REPEATABLE_IDS + self.next_repeatable;
                            self.repeatable.insert(call_id, running);
                            call_id
                        } else {
                            let call_id = self.next();
                            self.running.insert(call_id, running);
                            call_id
                        };
                        Step::Run {
                            run: Run {
                                call_id,
                                tab_id: *tab_id,
                                frame_id: *frame_id,
                                document_id: document_id.clone(),
                                source: *source,
                                name: name.clone(),
                                arguments: arguments.clone(),
                                repeatable,
                            },
                        }
                    }
                    refused @ Decision::Refuse { .. } => Step::Reply {
                        reply: refusal(id, refused),
                    },
                    Decision::AskSite => {
                        let site = site.clone();
                        self.ask(chat, id, wanted, CardKind::Site, site, CALL_TOOL, false)
                    }
                    Decision::AskCall { changed } => {
                        let site = site.clone();
                        self.ask(chat, id, wanted, CardKind::Call, site, CALL_TOOL, changed)
                    }
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn ask(
        &mut self,
        chat: &str,
        id: &Value,
        wanted: Wanted,
        card: CardKind,
        site: String,
        asked_by: &str,
        changed: bool,
    ) -> Step {
        // One site question per chat and site at a time: a request that
        // needs the one already asked waits for its answer.
        if card == CardKind::Site {
            let asked = self
                .pending
                .iter()
                .find(|(_, p)| p.card == CardKind::Site && p.chat == chat && p.site == site);
            if let Some((&card_id, _)) = asked {
                if let Some(pending) = self.pending.get_mut(&card_id) {
                    pending.followers.push(Follower {
                        request_id: id.clone(),
                        wanted,
                    });
                }
                return Step::Wait { card_id };
            }
        }
        let card_id = self.next();
        self.pending.insert(
            card_id,
            Pending {
                chat: chat.to_owned(),
                request_id: id.clone(),
                wanted,
                card,
                site,
                asked_by: asked_by.to_owned(),
                changed,
                window_id: None,
                followers: Vec::new(),
            },
        );
        Step::Ask { card_id }
    }
}

/// The facts of a tool as the registry holds it now, in the same document.
fn current_facts<'a>(
    registry: &'a Registry,
    tab_id: TabId,
    frame_id: FrameId,
    document_id: &str,
    source: Source,
    name: &str,
    site: &'a str,
) -> Option<ToolFacts<'a>> {
    registry
        .frames(tab_id)
        .find(|f| f.frame_id == frame_id && f.document_id == document_id)?
        .tools
        .iter()
        .find(|t| t.source == source && t.decl.name == name && t.decl.kind == Kind::Tool)?
        .facts(site)
}
