//! Calls from outside Toolgate's own agent entry: the browser's own agent
//! calling Toolgate's native copy of a tool in one frame (`frame_call`), and
//! agents withdrawing requests they no longer wait for (`withdraw`).

use serde_json::{json, Value};
use toolgate::decisions::agent::{FrameCall, Session, Step, TabInfo, World};
use toolgate::decisions::answers::{Answer, CallAnswer, SiteAnswer};
use toolgate::page::registry::Registry;

mod common;
use common::{frame, page};

const REMOTE: &str = "https://notes.example";
const CHAT: &str = "browser-agent:1";

/// Tab 1: two frames of one site, each with its own `edit` (Mutating in
/// frame 0, Consequential in frame 3), and the Notes tools in frame 0.
fn registry() -> Registry {
    let mut registry = Registry::new();
    let frame =
        |frame_id, ops: Value| page(frame(1, frame_id, &format!("doc-{frame_id}"), REMOTE), ops);
    registry.apply(frame(
        0,
        json!([
            {"op": "register", "decl": {"path": "document_object", "name": "list_notes", "description": "List notes",
                "annotations": {"readOnlyHint": true}}},
            {"op": "register", "decl": {"path": "document_object", "name": "delete_note", "description": "Delete a note",
                "input_schema": "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"}},\"required\":[\"title\"]}",
                "annotations": {"destructiveHint": true}}},
            {"op": "register", "decl": {"path": "document_object", "name": "edit", "description": "Edit",
                "annotations": {"consequentialHint": false}}},
        ]),
    ));
    registry.apply(frame(
        3,
        json!([{"op": "register", "decl": {"path": "document_object", "name": "edit", "description": "Edit",
            "annotations": {"consequentialHint": true}}}]),
    ));
    registry
}

struct Harness {
    registry: Registry,
    session: Session,
    tabs: Vec<TabInfo>,
}

impl Harness {
    fn new() -> Harness {
        Harness {
            registry: registry(),
            session: Session::default(),
            tabs: vec![TabInfo {
                id: 1,
                title: "Notes".into(),
                url: format!("{REMOTE}/"),
            }],
        }
    }

    /// The browser's agent calls `name` in `frame_id` as request `id`.
    fn native(&mut self, id: i64, frame_id: i64, name: &str, arguments: Value) -> Step {
        let call: FrameCall = serde_json::from_value(json!({
            "tab_id": 1, "frame_id": frame_id, "document_id": format!("doc-{frame_id}"),
            "source": "document", "name": name, "arguments": arguments,
        }))
        .expect("a frame call");
        let world = World {
            checking: Default::default(),
            registry: &self.registry,
            tabs: None,
            now_ms: 1_000,
        };
        self.session.frame_call(CHAT, &json!(id), &call, &world)
    }

    fn answer(&mut self, card_id: u64, answer: Answer) -> Step {
        let world = World {
            checking: Default::default(),
            registry: &self.registry,
            tabs: Some(&self.tabs),
            now_ms: 1_000,
        };
        self.session
            .answer(card_id, answer, &world)
            .expect("answered")
            .step
    }

    /// A console agent's listing of tab 1 as request `id` of `chat`.
    fn list(&mut self, chat: &str, id: i64) -> Step {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}});
        let world = World {
            checking: Default::default(),
            registry: &self.registry,
            tabs: Some(&self.tabs),
            now_ms: 1_000,
        };
        self.session.request(chat, &request.to_string(), &world)
    }
}

fn card_of(step: &Step) -> u64 {
    match step {
        Step::Ask { card_id } => *card_id,
        other => panic!("expected a card, got {other:?}"),
    }
}

fn ran(step: &Step) -> (i64, String, String) {
    match step {
        Step::Run { run } => (
            run.target.frame_id,
            run.target.document_id.clone(),
            run.target.name.clone(),
        ),
        other => panic!("expected the tool to run, got {other:?}"),
    }
}

fn error_of(step: &Step) -> String {
    match step {
        Step::Reply { reply } => {
            let value = reply.value();
            value["error"]["message"]
                .as_str()
                .or_else(|| value["result"]["content"][0]["text"].as_str())
                .map(str::to_owned)
                .unwrap_or_else(|| panic!("no error in {value:?}"))
        }
        other => panic!("expected a reply, got {other:?}"),
    }
}

#[test]
fn a_native_call_to_a_consequential_tool_asks_the_site_question_then_runs_where_it_was_called() {
    let mut h = Harness::new();
    let site_card = card_of(&h.native(1, 0, "delete_note", json!({"title": "Old"})));
    let step = h.answer(site_card, Answer::Site(SiteAnswer::AllowAll));
    assert_eq!(ran(&step), (0, "doc-0".into(), "delete_note".into()));
    // "Allow all tools on this website": later native calls run with no card.
    assert_eq!(
        ran(&h.native(2, 0, "delete_note", json!({"title": "Older"}))).2,
        "delete_note"
    );
}

/// docs/agents.md: an ended chat's every request is refused, a call the
/// browser's own WebMCP hands it included.
#[test]
fn an_ended_chats_native_call_is_refused() {
    let mut h = Harness::new();
    h.session.close_chat(CHAT);
    let step = h.native(1, 0, "delete_note", json!({"title": "Old"}));
    assert_eq!(error_of(&step), format!("chat {CHAT} was closed"));
}

/// ARCHITECTURE.md, "Budgets": requests waiting on a person hold at most
/// 1 MB for one tab, counted as stored (600,000 bytes of arguments and the
/// rest of the call: 600,313); past it a call is refused, and nothing waits.
#[test]
fn calls_waiting_on_a_person_hold_at_most_a_megabyte_of_arguments_for_one_tab() {
    let mut h = Harness::new();
    let big = |n: usize| json!({"title": "x".repeat(n)});
    let first = h.native(1, 0, "delete_note", big(600_000));
    card_of(&first);
    let why = error_of(&h.native(2, 0, "delete_note", big(600_000)));
    assert!(
        why.starts_with("Nothing ran: Toolgate holds at most 1 MB (1048576 bytes) of requests waiting on a person for one tab, counted as stored (their arguments and ids), and this call of delete_note (600313 bytes) would pass it."),
        "{why}"
    );
    let too_big = error_of(&h.native(3, 0, "delete_note", big(2_000_000)));
    assert!(too_big.contains("for one tab"), "{too_big}");
    assert_eq!(h.session.pending.len(), 1, "only the first waits");
    // A small call still waits, on the same site question.
    let small = h.native(4, 3, "edit", json!({"text": "small"}));
    assert!(matches!(small, Step::Wait { .. }), "{small:?}");
}

#[test]
fn a_native_call_above_the_chats_width_gets_the_call_card() {
    let mut h = Harness::new();
    let site_card = card_of(&h.native(1, 0, "list_notes", json!({})));
    assert_eq!(
        ran(&h.answer(site_card, Answer::Site(SiteAnswer::AllowReadOnly))).2,
        "list_notes"
    );
    assert_eq!(
        ran(&h.native(2, 0, "list_notes", json!({}))).2,
        "list_notes"
    );
    let call_card = card_of(&h.native(3, 0, "delete_note", json!({"title": "Old"})));
    let refused = h.answer(call_card, Answer::Call(CallAnswer::DenyOnce));
    assert!(
        error_of(&refused).contains("refused"),
        "{}",
        error_of(&refused)
    );
}

#[test]
fn a_native_call_runs_the_tool_of_the_frame_it_reached_not_another_of_the_same_name() {
    let mut h = Harness::new();
    let site_card = card_of(&h.native(1, 0, "list_notes", json!({})));
    h.answer(site_card, Answer::Site(SiteAnswer::AllowNonConsequential));
    // Frame 0's `edit` is Mutating: it runs. Frame 3's is Consequential: asked.
    assert_eq!(
        ran(&h.native(2, 0, "edit", json!({}))),
        (0, "doc-0".into(), "edit".into())
    );
    card_of(&h.native(3, 3, "edit", json!({})));
}

#[test]
fn a_native_call_to_a_tool_the_frame_never_registered_is_refused_with_why() {
    let mut h = Harness::new();
    let why = error_of(&h.native(1, 3, "delete_note", json!({})));
    assert!(
        why.contains("delete_note is not a tool Toolgate saw this frame register"),
        "{why}"
    );
}

#[test]
fn a_native_calls_arguments_are_checked_before_anyone_is_asked() {
    let mut h = Harness::new();
    let why = error_of(&h.native(1, 0, "delete_note", json!({"title": 7})));
    assert!(why.contains("invalid arguments for delete_note"), "{why}");
    assert!(h.session.pending.is_empty());
}

#[test]
fn a_call_whose_schema_toolgate_cannot_check_is_refused_never_run_unchecked() {
    let mut h = Harness::new();
    h.registry.apply(page(
        frame(1, 0, "doc-0", REMOTE),
        json!([{"op": "register", "decl": {"path": "document_object", "name": "set_password", "description": "Set",
            "input_schema": "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\",\"pattern\":\"^(?=.*[0-9]).+$\"}}}"}}]),
    ));
    let why = error_of(&h.native(1, 0, "set_password", json!({"p": "abc1"})));
    assert_eq!(
        why,
        "cannot check the arguments of set_password: its pattern \"^(?=.*[0-9]).+$\" uses look-around or back-references, which Toolgate does not run"
    );
    assert!(h.session.pending.is_empty());
}

#[test]
fn a_native_call_sent_again_waits_on_the_same_card() {
    let mut h = Harness::new();
    let card = card_of(&h.native(1, 0, "delete_note", json!({"title": "Old"})));
    assert_eq!(
        h.native(1, 0, "delete_note", json!({"title": "Old"})),
        Step::Wait { card_id: card }
    );
}

#[test]
fn a_withdrawn_request_closes_its_card_and_asks_again_when_sent_again() {
    let mut h = Harness::new();
    let card = card_of(&h.native(1, 0, "delete_note", json!({"title": "Old"})));
    assert!(h.session.card_opened(card, 77));
    let withdrawn = h.session.withdraw(CHAT, &json!(1));
    assert_eq!(withdrawn.requests, vec![json!(1)]);
    assert_eq!(withdrawn.close_windows, vec![77]);
    assert!(h.session.pending.is_empty());
    assert!(
        !h.session.card_opened(card, 78),
        "a withdrawn card no longer waits"
    );
    let again = card_of(&h.native(1, 0, "delete_note", json!({"title": "Old"})));
    assert_ne!(again, card);
}

#[test]
fn withdrawing_the_asker_of_a_site_card_leaves_it_open_for_the_next_request_waiting_on_it() {
    let mut h = Harness::new();
    let card = card_of(&h.list("mcp:a", 1));
    assert_eq!(h.list("mcp:a", 2), Step::Wait { card_id: card });
    h.session.card_opened(card, 5);
    let withdrawn = h.session.withdraw("mcp:a", &json!(1));
    assert_eq!(withdrawn.requests, vec![json!(1)]);
    assert!(withdrawn.close_windows.is_empty());
    assert_eq!(
        h.session.pending.get(&card).map(|p| p.request_id.clone()),
        Some(json!(2))
    );
    // Its answer now goes to request 2.
    let world = World {
        checking: Default::default(),
        registry: &h.registry,
        tabs: Some(&h.tabs),
        now_ms: 1_000,
    };
    let answered = h
        .session
        .answer(card, Answer::Site(SiteAnswer::AllowReadOnly), &world)
        .expect("answered");
    assert_eq!(answered.request_id, json!(2));
}

#[test]
fn withdrawing_a_chat_withdraws_each_of_its_waiting_requests_and_no_other_chats() {
    let mut h = Harness::new();
    let a = card_of(&h.list("mcp:a", 1));
    h.list("mcp:a", 2);
    let b = card_of(&h.list("mcp:b", 1));
    h.session.card_opened(a, 10);
    let withdrawn = h.session.withdraw_chat("mcp:a");
    assert_eq!(withdrawn.requests, vec![json!(2), json!(1)]);
    assert_eq!(withdrawn.close_windows, vec![10]);
    assert!(!h.session.pending.contains_key(&a));
    assert!(
        h.session.pending.contains_key(&b),
        "another chat's card stays"
    );
    assert!(h.session.unsaved());
}

#[test]
fn withdrawing_a_request_that_waits_on_nothing_changes_nothing() {
    let mut h = Harness::new();
    let card = card_of(&h.list("mcp:a", 1));
    let withdrawn = h.session.withdraw("mcp:a", &json!(9));
    assert_eq!(withdrawn, Default::default());
    assert!(h.session.pending.contains_key(&card));
}

#[test]
fn an_mcp_ping_is_answered_at_once_with_an_empty_result() {
    let mut h = Harness::new();
    let world = World {
        checking: Default::default(),
        registry: &h.registry,
        tabs: None,
        now_ms: 1_000,
    };
    let step = h
        .session
        .request(CHAT, r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#, &world);
    match step {
        Step::Reply { reply } => assert_eq!(
            reply.value(),
            json!({"jsonrpc": "2.0", "id": 4, "result": {}})
        ),
        other => panic!("expected a reply, got {other:?}"),
    }
}
