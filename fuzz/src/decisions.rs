//! The decision engine driven as the worker drives it (`Toolgate`), by a
//! script of page events, agent requests, card answers, closed windows,
//! withdrawals, what calls were seen doing, outcomes and worker restarts,
//! and checked at every step:
//!
//! - nothing runs that no answer allowed (`model::Model`, plus the one call
//!   a card's "Allow this call only" lets run);
//! - a call runs the tool, class and definition its request found and its
//!   card showed, and an answer records only for the tool its card showed
//!   (docs/cards.md, "When a tool changes");
//! - no call runs at a level above what the person set on the settings page
//!   for the definition they saw (`site_rules::Rules`, docs/rules.md): a
//!   tool's own level holds for the definition it was set for, an area's
//!   for the kinds it held; Off never runs; Ask first runs only after a yes
//!   on a card that showed this definition, or a late yes for the same call;
//! - a card offers exactly docs/cards.md's answers, and takes no other;
//! - once a chat has read untrusted content (a result of a tool that
//!   declares `untrustedContentHint`, or one that speaks to the agent's
//!   model or hides text: `model::untrusted`), none of its calls of a tool
//!   that is not Read only runs without a yes for that call on a card that
//!   says so, and none gets the site question (docs/cards.md, "After
//!   untrusted content");
//! - a running call seen doing something flags its tool exactly when its
//!   hints said it would not (`conduct`, `model::breaks`); a flagged tool
//!   is Consequential on its site, its results are untrusted, and each of
//!   its calls, on every chat, runs only on a yes on a card that says so,
//!   until the person clears the flag (docs/classes.md, "Hints held to
//!   their word");
//! - a core rebuilt from what it stored holds the same registry, answers and
//!   cards, and decides the next new request as the core that did not stop.

mod cards;
mod conditions;
mod conduct;
mod encode;
mod model;
mod policy;
mod restart;
mod script;
mod setting;
mod site_rules;

pub use encode::Encode;
use model::{closing, every_answer, is_opaque, offered, untrusted, Facts, Model, Said};
pub use script::{
    Act, CallSpec, ChangeSpec, ConditionSpec, LimitSpec, OpSpec, PolicyConditions, PolicyLimit,
    Script, TargetSpec, ToolSpec,
};
use script::{Outcome, Slot, CHATS, TABS};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use toolgate::decisions::agent::{Action, PageCall, Run, Step, TabInfo};
use toolgate::decisions::answers::{Answer, CardKind};
use toolgate::decisions::rules::{RuleBook, SeenTool};
use toolgate::page::declaration::{Hint, HintState, Kind};
use toolgate::page::registry::{Effect, Event, Tool};
use toolgate::toolgate::Toolgate;

/// A card as it was shown: who asked, about what.
#[derive(Clone, Debug)]
struct Shown {
    chat: String,
    request_id: Value,
    action: Action,
    kind: CardKind,
    site: String,
    /// The requests waiting on it, in order, with what each found.
    waiters: Vec<(Value, Action)>,
    /// When it opened (a rule card waits 10 minutes).
    at_ms: u64,
    /// A rule card whose agent stopped waiting.
    detached: bool,
    /// What it said of the call besides the tool (`model::Said`).
    said: Said,
    /// It asks again, after untrusted content, for a call whose rule's
    /// card was answered "Allow once": its yes needs no second rule card.
    rule_yes: bool,
}

/// What a card's "Allow this call only" (or a rule card's "Allow once",
/// `rule`) lets run: this request's call of the tool the card showed.
struct Once<'a> {
    request_id: &'a Value,
    call: &'a PageCall,
    rule: bool,
    /// What its card said of the call.
    said: Said,
}

/// A call running in its page.
struct Running {
    chat: String,
    request_id: Value,
    site: String,
    name: String,
    /// Its tool declared `untrustedContentHint: true` when it started, and
    /// was flagged then.
    declared_untrusted: bool,
    flagged_at_start: bool,
    /// What the core watches it for (`Run::watch`), and what the model says
    /// its hints promise: Read only, staying on its site.
    watch: Option<toolgate::page::conduct::Watch>,
    read_only: bool,
    stays_on_site: bool,
    /// Its own account was judged (once, as it answers; the rest is its tail's).
    observed: bool,
}

struct Driver {
    core: Toolgate,
    model: Model,
    slots: Vec<Slot>,
    tabs: Vec<TabInfo>,
    now_ms: u64,
    next_id: u64,
    cards: BTreeMap<u64, Shown>,
    /// Running calls, by call id: whose request they are.
    running: BTreeMap<u64, Running>,
    /// Call ids of runs lost to a restart: no outcome reaches anyone.
    lost: Vec<u64>,
    /// Every request sent, to send one again.
    sent: Vec<(String, String)>,
    /// What the worker stored: each tab's record, and the session.
    /// What the worker would hold in storage of the pages: key → text.
    records: BTreeMap<String, String>,
    session: Option<String>,
    /// The rule book the worker stores, and the tools the settings page
    /// lists for each site (remembered by name once seen).
    book: RuleBook,
    /// The administrator's policy as the worker reads it, once there is one.
    admin: Option<RuleBook>,
    tools_seen: BTreeMap<String, BTreeMap<String, SeenTool>>,
    seen: Seen,
    /// The record of flags the worker stores (`Flagged::record`), handed
    /// back to a core that starts again.
    flags: Option<String>,
    /// The request whose rule card was just answered "Allow once", while
    /// its next step is taken.
    rule_answered: Option<Value>,
}

/// How far a script got: what the driver's own tests check it reaches.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    pub asked: usize,
    pub answered: usize,
    pub ran: usize,
    pub restarts: usize,
    /// Rule cards opened, and calls a late yes ran.
    pub rule_asked: usize,
    pub late_ran: usize,
    /// Results read as untrusted content, and cards that said a chat had
    /// read some.
    pub untrusted_read: usize,
    pub warned: usize,
    /// Tools flagged for breaking their hints.
    pub flagged: usize,
}

/// Runs one script.
pub fn run(script: &Script) {
    run_counted(script);
}

/// Runs one script; returns how far it got.
pub fn run_counted(script: &Script) -> Seen {
    let mut driver = Driver {
        core: Toolgate::default(),
        model: Model::default(),
        slots: script::slots(),
        tabs: TABS.iter().map(|(id, url)| tab(*id, url)).collect(),
        now_ms: 1_000_000,
        next_id: 0,
        cards: BTreeMap::new(),
        running: BTreeMap::new(),
        lost: Vec::new(),
        sent: Vec::new(),
        records: BTreeMap::new(),
        session: None,
        book: RuleBook::default(),
        admin: None,
        tools_seen: BTreeMap::new(),
        seen: Seen::default(),
        flags: None,
        rule_answered: None,
    };
    // Long scripts add little the fuzzer cannot reach with short ones, and
    // cost every execution.
    for act in script.acts.iter().take(64) {
        driver.act(act);
        driver.store();
        driver.check_cards();
    }
    driver.seen
}

fn tab(id: i64, url: &str) -> TabInfo {
    TabInfo {
        id,
        title: format!("Tab {id}"),
        url: url.to_owned(),
    }
}

/// The tool at a call's target, if it is still published there.
fn tool_at<'a>(core: &'a Toolgate, call: &PageCall) -> Option<&'a Tool> {
    let t = &call.target;
    core.registry
        .frames(t.tab_id)
        .find(|f| f.frame_id == t.frame_id && f.document_id == t.document_id)?
        .tools
        .iter()
        .find(|tool| {
            tool.source == t.source && tool.decl.name == t.name && tool.decl.kind == Kind::Tool
        })
}

fn facts(call: &PageCall, tool: &Tool) -> Facts {
    Facts {
        site: call.site.clone(),
        name: call.target.name.clone(),
        class: call.class,
        definition: call.definition.clone(),
        idempotent: tool.decl.hint(Hint::Idempotent) == HintState::True,
    }
}

impl Driver {
    fn act(&mut self, act: &Act) {
        match act {
            Act::Page { slot, ops } => {
                let from = self.slot(*slot).frame();
                let ops = ops.iter().map(script::OpSpec::op).collect();
                self.apply(Event::Page { from, ops });
            }
            Act::Navigate { slot } => {
                let slot = self.slot_mut(*slot);
                slot.generation += 1;
                let (tab_id, frame_id, document_id) = (slot.tab_id, slot.frame_id, slot.document());
                self.apply(Event::Navigated {
                    tab_id,
                    frame_id,
                    document_id,
                });
            }
            Act::LiveDocuments { tab } => {
                let tab_id = TABS[*tab as usize % TABS.len()].0;
                let documents = self
                    .slots
                    .iter()
                    .filter(|s| s.tab_id == tab_id && s.frame_id == 0)
                    .map(|s| (s.frame_id, s.document()))
                    .collect();
                self.apply(Event::LiveDocuments { tab_id, documents });
            }
            Act::CloseTab { tab } => {
                let tab_id = TABS[*tab as usize % TABS.len()].0;
                self.apply(Event::TabClosed { tab_id });
            }
            Act::OpenChat { chat, read_only } => {
                let chat = CHATS[*chat as usize % CHATS.len()];
                // It opens unless it ended.
                let opened = self.core.session.open_chat(chat, chat, *read_only);
                assert_eq!(
                    opened.is_ok(),
                    !self.model.closed(chat),
                    "{chat}: {opened:?}"
                );
                if opened.is_ok() {
                    self.model.open_chat(chat, *read_only);
                }
            }
            Act::ListTabs { chat } => {
                let chat = CHATS[*chat as usize % CHATS.len()];
                let text = self.request_text("browser_list_tabs", json!({}));
                self.send(chat, &text, false);
            }
            Act::List { chat, tab } => {
                let chat = CHATS[*chat as usize % CHATS.len()];
                let tab_id = script::tab_id(*tab);
                let text = self.request_text("browser_list_webmcp_tools", json!({"tabId": tab_id}));
                self.send(chat, &text, false);
            }
            Act::Call(spec) => {
                let (chat, text) = self.call_text(spec);
                self.send(chat, &text, true);
            }
            Act::FrameCall { chat, slot, spec } => self.frame_call(*chat, *slot, spec),
            Act::Resend { back } => {
                if !self.sent.is_empty() {
                    let (chat, text) =
                        self.sent[self.sent.len() - 1 - *back as usize % self.sent.len()].clone();
                    let id = serde_json::from_str::<Value>(&text).expect("JSON")["id"].clone();
                    let step = self.request(&chat, &text);
                    self.step(&chat, &id, step, None);
                }
            }
            Act::Answer { card, answer } => {
                let card_id = self.pick_card(*card);
                let answers = every_answer();
                self.answer(card_id, answers[*answer as usize % answers.len()]);
            }
            Act::CloseWindow { card } => {
                let card_id = self.pick_card(*card);
                let shown = self.cards.get(&card_id).cloned();
                let window = card_id as i64 + 10_000;
                let closed = self.core.window_closed(window, &self.tabs, self.now_ms);
                let Some(shown) = shown else {
                    assert_eq!(closed, Ok(None), "no card shows in window {window}");
                    return;
                };
                let answer = closing(shown.kind, &shown.site);
                let answered = closed
                    .expect("a closing answer is offered")
                    .expect("a card");
                self.answered(card_id, shown, answer, answered);
            }
            Act::Withdraw { chat, back, all } => self.withdraw(*chat, *back, *all),
            Act::Finish {
                call,
                outcome,
                taken,
            } => self.finish(*call, *outcome, *taken),
            Act::Tick { seconds } => {
                self.now_ms += u64::from(*seconds) * 1000;
                self.expire();
            }
            Act::Later { minutes } => {
                self.now_ms += u64::from(*minutes % 16) * 60 * 1000;
                self.expire();
            }
            Act::Restart { probe } => self.restart(probe),
            Act::Rules { site, changes } => self.change_rules(*site, changes),
            Act::Unattended { on } => self.unattended(*on),
            Act::Conditions {
                site,
                tool,
                conditions,
            } => self.set_conditions(*site, *tool, conditions),
            Act::Observe { call, sight } => self.observe(*call, *sight),
            Act::ClearFlag { flag } => self.clear_flag(*flag),
            Act::Limit {
                site,
                target,
                every,
            } => self.set_limit(*site, target, every.as_ref()),
            Act::Policy {
                site,
                levels,
                conditions,
                limits,
                unattended,
            } => self.set_policy(*site, levels, conditions, limits, *unattended),
            Act::CloseChat { chat } => {
                // The shell withdraws its waiting requests first.
                let index = *chat % 2;
                self.withdraw(index, 0, true);
                let chat = CHATS[usize::from(index)];
                self.core.session.close_chat(chat);
                self.model.close_chat(chat);
            }
        }
    }

    fn slot(&self, i: u8) -> &Slot {
        &self.slots[i as usize % self.slots.len()]
    }

    fn slot_mut(&mut self, i: u8) -> &mut Slot {
        let n = self.slots.len();
        &mut self.slots[i as usize % n]
    }

    fn apply(&mut self, event: Event) {
        let (_, effects) = self.core.apply(event);
        for effect in effects {
            if let Effect::Store { set, remove, .. } = effect {
                for key in remove {
                    self.records.remove(&key);
                }
                for (key, text) in set.iter() {
                    self.records.insert(key.clone(), text.clone());
                }
            }
        }
    }

    /// What the worker writes after each step (ARCHITECTURE.md: every event
    /// is persisted before the next; the session when it changed).
    fn store(&mut self) {
        if let Some(text) = self.core.session.record().expect("a session is written") {
            self.session = Some(text);
        }
    }

    fn request_text(&mut self, tool: &str, arguments: Value) -> String {
        self.next_id += 1;
        json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}})
        .to_string()
    }

    fn call_text(&mut self, spec: &CallSpec) -> (&'static str, String) {
        let chat = CHATS[spec.chat as usize % CHATS.len()];
        let mut arguments =
            json!({"tabId": script::tab_id(spec.tab), "name": script::name(spec.tool)});
        if let Some(args) = script::arguments(spec.args) {
            arguments["arguments"] = args;
        }
        if let Some(site) = spec.site {
            arguments["site"] = json!(script::SITES[site as usize % script::SITES.len()]);
        }
        (
            chat,
            self.request_text("browser_call_webmcp_tool", arguments),
        )
    }

    /// An agent request, with the open tabs when the core asks for them.
    fn request(&mut self, chat: &str, text: &str) -> Step {
        let step = self.core.request(chat, text, None, self.now_ms);
        if step != Step::NeedTabs {
            return step;
        }
        let step = self.core.request(chat, text, Some(&self.tabs), self.now_ms);
        assert_ne!(step, Step::NeedTabs, "asked for the tabs it was given");
        step
    }

    /// A new request: decided, and, for a call, the chat's retry window used or ended.
    fn send(&mut self, chat: &str, text: &str, call: bool) {
        self.sent.push((chat.to_owned(), text.to_owned()));
        let id = serde_json::from_str::<Value>(text).expect("JSON")["id"].clone();
        let step = self.request(chat, text);
        self.step(chat, &id, step, None);
        // Any call, even one the core cannot decide (no such tool, arguments
        // its schema refuses), is the chat's next call.
        if call {
            self.model.called(chat);
        }
    }

    fn frame_call(&mut self, chat: u8, slot: u8, spec: &CallSpec) {
        let chat = CHATS[chat as usize % CHATS.len()];
        let slot = self.slot(slot).clone();
        let arguments = script::arguments(spec.args)
            .unwrap_or(json!({}))
            .to_string();
        let call = toolgate::decisions::agent::FrameCall {
            tab_id: slot.tab_id,
            frame_id: slot.frame_id,
            document_id: slot.document(),
            source: script::source(spec.tab),
            name: script::name(spec.tool).to_owned(),
            arguments: serde_json::value::RawValue::from_string(arguments).expect("JSON"),
        };
        self.next_id += 1;
        let id = json!(self.next_id);
        let step = self.core.frame_call(
            chat,
            &id,
            &call,
            toolgate::page::schema::Checking::InPlace,
            self.now_ms,
        );
        self.step(chat, &id, step, None);
        self.model.called(chat);
    }

    /// Carries out one step of request `id` of `chat`, checking it.
    pub(super) fn step(&mut self, chat: &str, id: &Value, step: Step, once: Option<Once>) {
        match step {
            Step::Run { run } => self.ran(chat, id, &run, once),
            Step::Ask { card_id } => self.asked(chat, id, card_id),
            Step::Wait { card_id } => {
                let pending = self
                    .core
                    .session
                    .pending
                    .get(&card_id)
                    .expect("the card it waits on");
                assert_eq!(
                    pending.chat, chat,
                    "a request waits only on its own chat's card"
                );
                let shown = self
                    .cards
                    .get_mut(&card_id)
                    .expect("a card the model saw open");
                if shown.request_id == *id {
                    // Its agent waits again on a rule card it had stopped waiting on.
                    shown.detached = false;
                }
                let known = shown.request_id == *id || shown.waiters.iter().any(|(w, _)| w == id);
                if !known {
                    let waiting = pending
                        .waiting
                        .iter()
                        .find(|w| w.request_id == *id)
                        .expect("the request now waits");
                    assert_eq!(shown.kind, CardKind::Site, "only site cards are waited on");
                    shown.waiters.push((id.clone(), waiting.action.clone()));
                }
            }
            Step::Attach { call_id } => {
                let running = self
                    .running
                    .get(&call_id)
                    .expect("attached to a running call");
                assert_eq!((running.chat.as_str(), &running.request_id), (chat, id));
            }
            Step::Reply { .. } => {}
            Step::NeedTabs => panic!("NeedTabs with the tabs given"),
            Step::NeedCheck { .. } => panic!("NeedCheck with the arguments checked in place"),
        }
    }

    /// A run: some answer allowed it, and it is the tool its request found.
    pub(super) fn ran(&mut self, chat: &str, id: &Value, run: &Run, once: Option<Once>) {
        let t = &run.target;
        let frame = self
            .core
            .registry
            .frames(t.tab_id)
            .find(|f| f.frame_id == t.frame_id && f.document_id == t.document_id)
            .expect("a run's frame and document are published");
        let tool = frame
            .tools
            .iter()
            .find(|x| x.source == t.source && x.decl.name == t.name && x.decl.kind == Kind::Tool)
            .expect("a run's tool is published");
        let site = if frame.origin == "null" {
            format!("opaque:{}", frame.document_id)
        } else {
            frame.origin.clone()
        };
        // A flagged tool is Consequential on its site (docs/classes.md).
        let class = self.class_now(&site, tool).expect("a tool has a class");
        assert_eq!(
            run.repeatable,
            class == toolgate::page::classify::Class::ReadOnly
        );
        let once = once.filter(|o| o.request_id == id);
        if let Some(once) = &once {
            // The card's call, of the tool it showed.
            assert_eq!(*t, once.call.target, "the run is the call its card showed");
            assert_eq!(once.call.class, class, "the class its card showed");
            assert_eq!(
                once.call.definition,
                tool.definition(),
                "the definition its card showed"
            );
        }
        let call = PageCall {
            target: t.clone(),
            site: site.clone(),
            class,
            definition: tool.definition().to_owned(),
            arguments: run.arguments.clone(),
            allowed_once: false,
            rule_yes: false,
            script_yes: false,
            appeared: None,
            broken: None,
            untrusted: Vec::new(),
            asked_because: None,
        };
        let facts = facts(&call, tool);
        let tool = tool.clone();
        let rule_yes = once.as_ref().is_some_and(|o| o.rule);
        assert!(
            !self.model.closed(chat),
            "a call of chat {chat}, which ended, ran"
        );
        let (chat_decides, late) = self.rule_ran(chat, &tool, &facts, &run.arguments, rule_yes);
        let yes = once.as_ref().map(|o| o.said).or(late);
        self.check_said(chat, id, &facts, yes);
        if chat_decides && once.is_none() {
            // Unattended, what a site's rule allows runs without the
            // chat's questions, but not against its refusals.
            let unattended = self.model.rules.is_unattended()
                && self.model.rules.has_rules(&site)
                && !self.model.refuses(chat, &facts);
            assert!(
                unattended || self.model.allows(chat, &facts, &run.arguments, self.now_ms),
                "ran with no answer allowing it: chat {chat}, request {id}, {facts:?}, \
                 arguments {}\nmodel: {:?}",
                run.arguments,
                self.model
            );
        }
        // It counts for the limits that hold for it (docs/rules.md).
        let rule = site_rules::RuleTool::of(&site, &tool).expect("a run's tool is a tool");
        self.model.rules.ran(chat, &rule, self.now_ms);
        let running = self.running_call(chat, id, run, &tool, &facts);
        self.running.insert(run.call_id, running);
        self.seen.ran += 1;
    }
}
