//! The agent entry: typed requests from any chat, decided against the chat's
//! answers, and the requests waiting on a person's card.
//!
//! A state machine like the registry: each method takes what the shell
//! knows (the registry, the open tabs, the time) and returns a `Step` for the
//! shell to carry out — reply to the agent, run a tool in a page, or open a
//! card. The whole `Session` is persisted after every change, so a card
//! answered after the service worker restarted still lets its call run.
//! Reading requests and writing replies is the protocol's (`crate::protocol`).

use crate::decisions::answers::{Answers, CardKind, Decision, ToolFacts};
use crate::decisions::rules::RuleBook;
use crate::page::classify::Class;
use crate::page::registry::{Registry, TabId};
use crate::protocol::{
    error_reply, initialized, pong, read_request, tool_result, tools_listed, AgentRequest,
    BrowserCall, Method, Reply, Resume, RpcError, CALL_TOOL, LIST_TOOLS,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

mod answering;
mod budget;
mod calls;
mod chats;
mod frames;
mod kept;
mod listing;
mod room;
mod scripts;
mod seen_tools;
mod steps;
mod waiting;
pub use budget::{
    stored_len, HeldBytes, CARDS_PER_TAB, CHAT_ID_BYTES, LABEL_CHARS, REQUEST_ID_BYTES,
};
pub use frames::{FrameCall, Withdrawn};
pub use kept::{page_outcome, RunningCall};
pub use room::{Parts, CHATS, CHAT_BYTES, PERSON_BYTES, QUOTA_BYTES, SESSION_BYTES, USUAL_BYTES};
pub use waiting::Expired;

/// The largest tool result handed to an agent, in bytes of JSON.
pub const DEFAULT_RESULT_CAP: usize = 1024 * 1024;
/// How many finished replies are kept for agents that lost their wait.
const KEPT_REPLIES: usize = 100;
/// How many bytes of replies are kept for them, at most: the session is
/// stored whole, under one key of `chrome.storage.session`, and each of its
/// parts has a share of it (`room.rs`; ARCHITECTURE.md, "Budgets").
pub const KEPT_REPLY_BYTES: usize = 1024 * 1024;

pub use steps::{CallTarget, Run, Step, TabInfo, World};

/// What a request would do, once decided: list a tab's tools, or call one.
/// Stored (in the session record) while it waits on a card, tagged the way
/// serde reads without buffering: `{"list": {…}}`, `{"call": {…}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
// Few are held (one per request waiting on a card), and a call is the usual one.
#[allow(clippy::large_enum_variant)]
pub enum Action {
    List(Listing),
    Call(PageCall),
}

/// A listing of a tab's tools, and what cards already said of its sites.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    pub tab_id: TabId,
    /// Sites this listing was allowed once, or denied once, by a card.
    #[serde(default)]
    pub allowed_once: Vec<String>,
    #[serde(default)]
    pub denied_once: Vec<String>,
}

/// A call of one page tool, and the tool as its request found it: its class
/// and definition are what any card for the call shows, and what an answer
/// to that card applies to (docs/cards.md, "When a tool changes").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCall {
    pub target: CallTarget,
    pub site: String,
    pub class: Class,
    /// The tool's definition (`Tool::definition`) when the request found it.
    pub definition: String,
    /// The arguments as the agent sent them (JSON text): what the card
    /// shows and the tool receives.
    pub arguments: String,
    /// A card allowed this call only ("Allow this call only").
    #[serde(default)]
    pub allowed_once: bool,
    /// The site rule's card allowed it ("Allow once", docs/rules.md).
    #[serde(default)]
    pub rule_yes: bool,
    /// The card about another site's script allowed this call only
    /// (docs/cards.md, "Tools registered by other sites' scripts").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub script_yes: bool,
    /// The tool was seen doing more than its hints said when the request
    /// found it: its card says so and offers answers for this call only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken: Option<crate::page::conduct::Broken>,
    /// What the chat had read that may carry someone else's instructions,
    /// when its card was asked: the card says so, and a yes on it is this
    /// call's (docs/cards.md, "After untrusted content").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<crate::decisions::untrusted::Source>,
    /// The condition or limit its rule's card asks for (docs/rules.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_because: Option<crate::decisions::rules::Because>,
    /// The tool is new on its site to the chat, which listed the site's
    /// tools before it appeared: its card said so, and a yes on it is this
    /// call's (docs/cards.md, "Tools that appear after a chat listed them").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appeared: Option<crate::decisions::lifecycle::Appeared>,
}

impl Action {
    /// The agent tool that asks for this action.
    fn asked_by(&self) -> &'static str {
        match self {
            Action::List(_) => LIST_TOOLS,
            Action::Call(_) => CALL_TOOL,
        }
    }

    pub fn tab_id(&self) -> TabId {
        match self {
            Action::List(listing) => listing.tab_id,
            Action::Call(call) => call.target.tab_id,
        }
    }
}

/// A request waiting on a person.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub chat: String,
    pub request_id: Value,
    pub action: Action,
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
    /// When a rule's card stops waiting (docs/rules.md, "How long a call waits").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// The agent stopped waiting on this rule card: a yes on it is kept for
    /// its same call.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub detached: bool,
    /// Later requests of the same chat that need the same site question
    /// answered: they wait on this card rather than open one of their own,
    /// and go on when it is answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<WaitingRequest>,
    /// The bytes its request id and action take as stored (`budget.rs`).
    #[serde(skip)]
    pub held: HeldBytes,
}

/// A request waiting on a site card another request of its chat opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitingRequest {
    pub request_id: Value,
    pub action: Action,
    #[serde(skip)]
    pub held: HeldBytes,
}

/// What answering a card comes to: the next step of the request that opened
/// it, and of each request that waited on it.
#[derive(Debug, PartialEq, Serialize)]
pub struct Answered {
    pub chat: String,
    pub request_id: Value,
    pub step: Step,
    pub waiting: Vec<WaitingStep>,
}

/// The next step of a request that waited on a card it did not open.
#[derive(Debug, PartialEq, Serialize)]
pub struct WaitingStep {
    pub request_id: Value,
    pub step: Step,
}

/// Everything the agent entry keeps, persisted as one record. What is empty
/// is left out of it: a stopped worker's first call then runs (and so has
/// Chromium compile) no reader of parts it does not have (ARCHITECTURE.md,
/// "A worker's start").
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Session {
    #[serde(default)]
    pub answers: Answers,
    /// Chats forgotten after reading untrusted content (`room.rs`).
    #[serde(
        default,
        skip_serializing_if = "crate::decisions::untrusted::Forgotten::is_empty"
    )]
    pub forgotten: crate::decisions::untrusted::Forgotten,
    /// Open cards, by card id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pending: BTreeMap<u64, Pending>,
    /// Calls running in a page, by call id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub running: BTreeMap<u64, RunningCall>,
    /// Calls to Read-only tools running in this worker, the same way. They
    /// are never stored: running one again after a stop is harmless, and a
    /// call its agent took the reply of directly then costs no write at all.
    #[serde(skip)]
    repeatable: BTreeMap<u64, RunningCall>,
    /// Replies not yet collected by an agent that lost its wait, by request
    /// key, oldest first: past `KEPT_REPLIES`, the oldest goes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_replies: Vec<(String, Reply)>,
    /// Yeses given on rule cards after their agents stopped waiting.
    #[serde(
        default,
        skip_serializing_if = "crate::decisions::rules::LateYeses::is_empty"
    )]
    pub late_yeses: crate::decisions::rules::LateYeses,
    /// The calls each chat made under a limit (docs/rules.md, "Limits on how often").
    #[serde(
        default,
        skip_serializing_if = "crate::decisions::rules::CallTimes::is_empty"
    )]
    pub call_times: crate::decisions::rules::CallTimes,
    #[serde(default)]
    pub next_id: u64,
    /// Ids of repeatable calls, counted apart (from `REPEATABLE_IDS`) so that
    /// they leave the stored record unchanged.
    #[serde(skip)]
    next_repeatable: u64,
    /// How many chats hold no answer of the person's, and at most how many
    /// bytes chats take for agents (`room.rs`).
    #[serde(skip)]
    chat_room: Option<(usize, usize)>,
    /// The last record `record` returned.
    #[serde(skip)]
    recorded: Option<String>,
    /// What must be stored may have changed since `recorded`. Set by every
    /// change, except the one every agent call to a Read-only tool makes
    /// (see `tracking_changes`), so that such a call costs no writing of the
    /// whole session to find out that nothing changed.
    #[serde(skip)]
    unsaved: bool,
    /// The site rules (docs/rules.md): kept by the shell apart from the
    /// session, and set whole whenever they change (`Toolgate::set_rules`).
    #[serde(skip)]
    pub rules: RuleBook,
    /// Results are not read for untrusted content (`finish`), so no chat
    /// remembers any: only the benchmark of what the guard costs turns this
    /// on (benches/README.md, "After untrusted content"). Never stored: a
    /// worker always starts guarded.
    #[serde(skip)]
    pub unguarded: bool,
}

/// Where ids of repeatable calls start: above every stored id, and exact as a
/// JS number.
const REPEATABLE_IDS: u64 = 1 << 52;

fn request_key(chat: &str, id: &Value) -> String {
    format!("{chat}\u{0}{id}")
}

/// The reply refusing a request, with what Toolgate decided.
fn refusal(id: &Value, decision: Decision) -> Step {
    let text = match &decision {
        Decision::Refuse { why } => why.clone(),
        other => format!("{other:?}"),
    };
    Step::reply(tool_result(id, &text, true, &decision))
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
        for (_, call) in std::mem::take(&mut self.running) {
            let error = RpcError::NotCarriedOut(
                "the call was interrupted when Toolgate's service worker stopped; it may have run"
                    .to_owned(),
            );
            let reply = error_reply(&call.request_id, &error);
            self.keep_reply(&call.chat, &call.request_id, reply);
        }
    }

    /// A JSON-RPC request from a chat, as JSON text.
    pub fn request(&mut self, chat: &str, request: &str, world: &World) -> Step {
        self.tracking_changes(chat, |session| session.respond(chat, request, world))
    }

    /// Takes one step for `chat`, marking the session unsaved unless the
    /// step changed nothing stored.
    fn tracking_changes(&mut self, chat: &str, decide: impl FnOnce(&mut Session) -> Step) -> Step {
        // A Read-only call allowed without a card changes nothing stored: its
        // call is kept apart (`repeatable`), unless deciding it created the
        // chat or used up the chat's last approval.
        let chat_state = |s: &Session| s.answers.chats.get(chat).map(|c| c.last_approval.is_some());
        self.revive(chat);
        let before = chat_state(self);
        let chats = self.answers.chats.len();
        let step = decide(self);
        if self.answers.chats.len() > chats {
            self.keep_chats_in_room(chat);
        }
        let stored_nothing = match &step {
            Step::NeedTabs | Step::NeedCheck { .. } => true,
            Step::Run { run } => run.repeatable,
            _ => false,
        };
        self.unsaved |= !stored_nothing || chat_state(self) != before;
        step
    }

    /// A call taken up again with its check's verdict in `world` (the
    /// request not read again): decided as `request` decides it.
    pub fn resumed(&mut self, chat: &str, resume: &Resume, arguments: &str, world: &World) -> Step {
        let request = AgentRequest {
            id: resume.id.clone(),
            method: Ok(Method::Call(BrowserCall::CallTool(resume.call(arguments)))),
        };
        self.tracking_changes(chat, |session| session.respond_to(chat, request, world))
    }

    fn respond(&mut self, chat: &str, request: &str, world: &World) -> Step {
        match read_request(request) {
            Ok(request) => self.respond_to(chat, request, world),
            Err(error) => Step::error(&Value::Null, &error),
        }
    }

    fn respond_to(&mut self, chat: &str, request: AgentRequest<'_>, world: &World) -> Step {
        let id = &request.id;
        // Nothing of a request whose ids would pass their bounds is kept.
        if let Some(error) = budget::over_request_id_bound(id) {
            return Step::error(id, &error);
        }
        if let Some(why) = budget::over_chat_id_bound(chat) {
            return Step::error(id, &RpcError::InvalidRequest(why));
        }
        if let Some(refused) = self.refused_if_closed(chat, id) {
            return refused;
        }
        if let Some(step) = self.resume(chat, id) {
            return step;
        }
        match request.method {
            Err(error) => Step::error(id, &error),
            Ok(Method::Initialize) => Step::reply(initialized(id)),
            Ok(Method::Ping) => Step::reply(pong(id)),
            Ok(Method::ListBrowserTools) => Step::reply(tools_listed(id)),
            Ok(Method::Call(BrowserCall::ListTabs)) => match world.tabs {
                None => Step::NeedTabs,
                Some(_) => Step::reply(self.list_tabs(chat, id, world)),
            },
            Ok(Method::Call(BrowserCall::ListTools { tab_id })) => {
                let listing = Listing {
                    tab_id,
                    allowed_once: Vec::new(),
                    denied_once: Vec::new(),
                };
                self.decide_listing(chat, id, listing, world)
            }
            Ok(Method::Call(BrowserCall::CallTool(call))) => self.start_call(chat, id, call, world),
        }
    }

    /// Where a request sent again stands: its kept reply, the card it waits
    /// on, or its running call. `None` for a request not seen before.
    fn resume(&mut self, chat: &str, id: &Value) -> Option<Step> {
        if !self.kept_replies.is_empty() {
            if let Some(kept) = self.take_kept_reply(&request_key(chat, id)) {
                return Some(Step::reply(kept));
            }
        }
        if let Some((&card_id, pending)) = self.pending.iter_mut().find(|(_, p)| {
            p.chat == chat && (p.request_id == *id || p.waiting.iter().any(|w| w.request_id == *id))
        }) {
            // Its agent waits again (a rule's card it had stopped waiting on).
            self.unsaved |= std::mem::take(&mut pending.detached);
            return Some(Step::Wait { card_id });
        }
        if let Some((&call_id, _)) = self
            .running
            .iter()
            .chain(&self.repeatable)
            .find(|(_, call)| call.chat == chat && call.request_id == *id)
        {
            // Still running in this worker (calls lost to a restart were
            // settled by `restarted`): the agent waits for the same reply.
            return Some(Step::Attach { call_id });
        }
        None
    }

    /// Decides an action as far as it can go without a person.
    fn decide(&mut self, chat: &str, id: &Value, action: Action, world: &World) -> Step {
        match action {
            Action::List(listing) => self.decide_listing(chat, id, listing, world),
            Action::Call(call) => self.decide_call(chat, id, call, world),
        }
    }

    /// Opens a card for the request, or, when the same site question of its
    /// chat is already asked, lets the request wait on that card.
    fn ask(
        &mut self,
        chat: &str,
        id: &Value,
        action: Action,
        card: CardKind,
        site: String,
        changed: bool,
    ) -> Step {
        let asked = (card == CardKind::Site)
            .then(|| {
                self.pending
                    .iter()
                    .find(|(_, p)| p.card == CardKind::Site && p.chat == chat && p.site == site)
                    .map(|(&card_id, _)| card_id)
            })
            .flatten();
        let tab = action.tab_id();
        // The count first: a tab's sixth card costs no count of bytes.
        if let Some(why) = asked
            .is_none()
            .then(|| self.over_card_budget(tab))
            .flatten()
        {
            return refusal(id, Decision::Refuse { why });
        }
        let opens = asked.is_none().then_some((chat, site.as_str()));
        if let Some(why) = self.over_waiting_budget(id, &action, opens) {
            return refusal(id, Decision::Refuse { why });
        }
        if let Some(card_id) = asked {
            if let Some(pending) = self.pending.get_mut(&card_id) {
                pending.waiting.push(WaitingRequest {
                    request_id: id.clone(),
                    action,
                    held: HeldBytes::default(),
                });
                return Step::Wait { card_id };
            }
        }
        // One card at a time in a tab: the shell opens the window of a later
        // one once those before it are answered (`cards_without_window`).
        let card_id = self.next();
        let asked_by = action.asked_by().to_owned();
        self.pending.insert(
            card_id,
            Pending {
                chat: chat.to_owned(),
                request_id: id.clone(),
                action,
                card,
                site,
                asked_by,
                changed,
                window_id: None,
                deadline_ms: None,
                detached: false,
                waiting: Vec::new(),
                held: HeldBytes::default(),
            },
        );
        Step::Ask { card_id }
    }
}
