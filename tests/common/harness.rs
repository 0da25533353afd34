//! The decisions of docs/cards.md driven through the agent entry, as an
//! agent would: two tabs of the Notes example (one remote, one on
//! localhost), a session, and helpers that say what a step comes to.
//! Shared by tests/answers.rs, tests/requests.rs and tests/replies.rs.

#![allow(dead_code)] // Each test file uses some of them.

use crate::common::{frame, page};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use toolgate::decisions::agent::{Answered, Session, Step, TabInfo, World};
use toolgate::decisions::answers::{Answer, CardKind, SiteAnswer};
use toolgate::page::registry::Registry;
use toolgate::page::schema::{Checked, Checking};
use toolgate::views::cards::{self, Card};

/// A tool's result as the page hands it to the core: JSON text.
pub fn raw(result: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(result).expect("JSON")
}

pub const REMOTE: &str = "https://notes.example";
pub const LOCAL: &str = "http://notes.localhost:8000";

/// A tab showing the Notes example on `site`.
pub fn notes(registry: &mut Registry, tab_id: i64, site: &str, delete_description: &str) {
    let ops = json!([
        {"op": "register", "decl": {"path": "document_object", "name": "list_notes", "description": "List notes",
            "annotations": {"readOnlyHint": true, "openWorldHint": false}}},
        {"op": "register", "decl": {"path": "document_object", "name": "add_note", "description": "Add a note",
            "input_schema": "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"}},\"required\":[\"title\"]}",
            "annotations": {"consequentialHint": false, "idempotentHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "delete_note", "description": delete_description,
            "annotations": {"destructiveHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "send_note", "description": "Send a note",
            "annotations": {"consequentialHint": true}}},
        {"op": "register", "decl": {"kind": "skill", "path": "document_object", "name": "house_style",
            "description": "How notes read", "instructions": "Short."}},
    ]);
    registry.apply(page(frame(tab_id, 0, &format!("doc-{tab_id}"), site), ops));
}

pub struct Harness {
    pub registry: Registry,
    pub session: Session,
    pub tabs: Vec<TabInfo>,
    pub now_ms: u64,
    pub next_id: i64,
}

impl Harness {
    pub fn new() -> Harness {
        let mut registry = Registry::new();
        notes(&mut registry, 1, REMOTE, "Delete a note");
        notes(&mut registry, 2, LOCAL, "Delete a note");
        Harness {
            registry,
            session: Session::default(),
            tabs: vec![
                TabInfo {
                    id: 1,
                    title: "Notes".into(),
                    url: format!("{REMOTE}/notes"),
                },
                TabInfo {
                    id: 2,
                    title: "Notes (local)".into(),
                    url: format!("{LOCAL}/"),
                },
            ],
            now_ms: 1_000_000,
            next_id: 0,
        }
    }

    /// The definition (its fingerprint) of the tool `name` in tab `tab`, to
    /// which a rule for it is bound.
    pub fn definition_of(&self, tab: i64, name: &str) -> String {
        self.registry
            .frames(tab)
            .flat_map(|f| f.tools.iter())
            .find(|t| t.decl.name == name)
            .expect("the tool")
            .definition()
            .to_owned()
    }

    pub fn world(&self) -> World<'_> {
        World {
            checking: Default::default(),
            registry: &self.registry,
            tabs: Some(&self.tabs),
            now_ms: self.now_ms,
        }
    }

    pub fn send(&mut self, chat: &str, params: Value) -> Step {
        self.next_id += 1;
        let request =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params});
        self.checked(|session, world| session.request(chat, &request.to_string(), world))
    }

    /// Runs `change` on the session, and checks that a change to what must be
    /// stored marks the session unsaved (the shell writes nothing otherwise).
    pub fn checked<T>(&mut self, change: impl FnOnce(&mut Session, &World) -> T) -> T {
        let world = World {
            checking: Default::default(),
            registry: &self.registry,
            tabs: Some(&self.tabs),
            now_ms: self.now_ms,
        };
        // Stored first, as the shell would have: the change starts clean.
        self.session.record().expect("serialises");
        let clean = !self.session.unsaved();
        let before = serde_json::to_string(&self.session).expect("serialises");
        let result = change(&mut self.session, &world);
        if clean && !self.session.unsaved() {
            let after = serde_json::to_string(&self.session).expect("serialises");
            assert_eq!(
                before, after,
                "a stored change left the session marked saved"
            );
        }
        result
    }

    pub fn call(&mut self, chat: &str, tab: i64, tool: &str, args: Value) -> Step {
        self.send(chat, json!({"name": "browser_call_webmcp_tool", "arguments": {"tabId": tab, "name": tool, "arguments": args}}))
    }

    /// A call of `tool` with `args` (request `id`) as the extension makes
    /// it: its arguments checked by the checker, whose verdict the request
    /// brings back (`checked`) or not yet.
    pub fn call_off_thread(
        &mut self,
        id: i64,
        tab: i64,
        tool: &str,
        args: &Value,
        checked: Option<&Checked>,
    ) -> Step {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "browser_call_webmcp_tool", "arguments": {"tabId": tab, "name": tool, "arguments": args}}});
        let world = World {
            checking: Checking::OffThread(checked),
            registry: &self.registry,
            tabs: Some(&self.tabs),
            now_ms: self.now_ms,
        };
        self.session.record().expect("serialises");
        let step = self.session.request("c", &request.to_string(), &world);
        if let Step::NeedCheck { .. } = step {
            assert!(
                !self.session.unsaved(),
                "asking for a check changed what is stored"
            );
        }
        step
    }

    /// Chat "c"'s call taken up again with its check's verdict, the request
    /// not read again (as the binding does).
    pub fn resume_off_thread(
        &mut self,
        resume: &toolgate::protocol::Resume,
        arguments: &str,
        checked: &Checked,
    ) -> Step {
        let world = World {
            checking: Checking::OffThread(Some(checked)),
            registry: &self.registry,
            tabs: Some(&self.tabs),
            now_ms: self.now_ms,
        };
        self.session.resumed("c", resume, arguments, &world)
    }

    /// Sends a request as it is (the same id again, for an agent that lost its wait).
    pub fn resend(&mut self, chat: &str, request: &Value) -> Step {
        self.checked(|session, world| session.request(chat, &request.to_string(), world))
    }

    /// A call that must open a rule card: its step, and the card it shows.
    pub fn rule_card(&mut self, chat: &str, tab: i64, tool: &str, args: Value) -> (Step, Card) {
        let step = self.call(chat, tab, tool, args);
        assert_eq!(outcome(self, &step), "rule card", "{tool}");
        let shown = card(&self.session, card_id(&step), &self.world()).expect("a card");
        (step, shown)
    }

    /// What a call comes to, in a word (see `outcome`).
    pub fn call_said(&mut self, chat: &str, tab: i64, tool: &str, args: Value) -> String {
        let step = self.call(chat, tab, tool, args);
        outcome(self, &step)
    }

    /// What an answer comes to, in a word (see `outcome`).
    pub fn answer_said(&mut self, card_id: u64, answer: Answer) -> String {
        let step = self.answer(card_id, answer);
        outcome(self, &step)
    }

    pub fn answer(&mut self, card_id: u64, answer: Answer) -> Step {
        self.answered(card_id, answer).step
    }

    /// The answer to a card, with the steps of the requests that waited on it.
    pub fn answered(&mut self, card_id: u64, answer: Answer) -> Answered {
        self.checked(|session, world| session.answer(card_id, answer, world))
            .expect("the card takes the answer")
    }
}

/// What a step comes to, in a word: "run", "refused: ...", "site card", "call card", "error: ...".
pub fn outcome(h: &Harness, step: &Step) -> String {
    match step {
        Step::Run { .. } => "run".into(),
        Step::Ask { card_id } => match h.session.pending.get(card_id).expect("pending").card {
            CardKind::Site => "site card".into(),
            CardKind::Call => "call card".into(),
            CardKind::Rule => "rule card".into(),
            CardKind::Script => "script card".into(),
        },
        Step::Wait { .. } => "wait".into(),
        Step::Attach { .. } => "attach".into(),
        Step::NeedTabs => "need tabs".into(),
        Step::NeedCheck { .. } => "need check".into(),
        Step::Reply { reply } => {
            if let Some(error) = reply.value().get("error") {
                format!("error: {}", error["message"].as_str().unwrap_or(""))
            } else if reply.value()["result"]["isError"] == json!(true) {
                reply.value()["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            } else {
                "listed".into()
            }
        }
    }
}

/// The card a pending request shows, as the worker builds it.
pub fn card(session: &Session, card_id: u64, world: &World) -> Option<Card> {
    let pending = session.pending.get(&card_id)?;
    cards::card(
        card_id,
        pending,
        session.chat_label(&pending.chat),
        world,
        &session.rules,
    )
}

pub fn card_id(step: &Step) -> u64 {
    match step {
        Step::Ask { card_id } => *card_id,
        other => panic!("expected a card, got {other:?}"),
    }
}

/// The first call to the remote site, answered on the site card with `answer`.
pub fn with_site_answer(h: &mut Harness, chat: &str, answer: SiteAnswer) {
    let step = h.call(chat, 1, "list_notes", json!({}));
    assert_eq!(outcome(h, &step), "site card");
    let after = h.answer(card_id(&step), Answer::Site(answer));
    // Finish the run so no call is left running.
    if let Step::Run { run } = after {
        h.session
            .finish(run.call_id, Ok(&raw(&json!("ok"))), 1024, false, None, 0);
    }
}
