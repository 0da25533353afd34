//! Agent requests as docs/agents.md and docs/cards.md describe them: checked
//! before any card, what needs the open tabs, one site question at a time,
//! requests waiting on a card, Read only chats, and a session restored
//! mid-card.

use serde_json::{json, Value};
use toolgate::decisions::agent::{Step, World};
use toolgate::decisions::answers::{Answer, SiteAnswer};
mod common;
#[path = "common/harness.rs"]
mod harness;
use harness::*;

#[test]
fn arguments_are_checked_before_any_card() {
    let mut h = Harness::new();
    let step = h.call("c", 1, "add_note", json!({"title": 5}));
    assert_eq!(
        outcome(&h, &step),
        "error: invalid arguments for add_note: arguments.title: expected a string, got an integer"
    );
    assert!(h.session.pending.is_empty());
    let step = h.call("c", 1, "add_note", json!({}));
    assert_eq!(
        outcome(&h, &step),
        "error: invalid arguments for add_note: arguments.title: is required"
    );
}

#[test]
fn only_requests_that_name_tabs_need_the_open_tabs_and_asking_changes_nothing() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowReadOnly);
    let without_tabs = |h: &mut Harness, params: Value| {
        h.next_id += 1;
        let request =
            json!({"jsonrpc": "2.0", "id": h.next_id, "method": "tools/call", "params": params});
        let world = World {
            checking: Default::default(),
            registry: &h.registry,
            tabs: None,
            now_ms: h.now_ms,
        };
        let before = serde_json::to_string(&h.session).expect("session");
        let step = h.session.request("c", &request.to_string(), &world);
        let changed = serde_json::to_string(&h.session).expect("session") != before;
        (outcome(h, &step), changed)
    };
    let call = |tab: i64| json!({"name": "browser_call_webmcp_tool", "arguments": {"tabId": tab, "name": "list_notes", "arguments": {}}});
    // A call to a tool the tab publishes is decided without the tabs.
    assert_eq!(without_tabs(&mut h, call(1)).0, "run");
    // Naming a tab that publishes nothing, listing the tabs, or listing the
    // tools of a tab with none needs them; nothing is recorded meanwhile.
    assert_eq!(without_tabs(&mut h, call(9)), ("need tabs".into(), false));
    assert_eq!(
        without_tabs(
            &mut h,
            json!({"name": "browser_list_tabs", "arguments": {}})
        ),
        ("need tabs".into(), false)
    );
    assert_eq!(
        without_tabs(
            &mut h,
            json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 9}})
        ),
        ("need tabs".into(), false)
    );
}

#[test]
fn only_read_only_calls_are_repeatable() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    let repeatable = |step: &Step| match step {
        Step::Run { run } => run.repeatable,
        other => panic!("expected a run, got {other:?}"),
    };
    let read = h.call("c", 1, "list_notes", json!({}));
    assert!(repeatable(&read), "Read only");
    let write = h.call("c", 1, "add_note", json!({"title": "x"}));
    assert!(!repeatable(&write), "Mutating");
}

#[test]
fn unknown_tabs_tools_and_skills_get_clear_errors() {
    let mut h = Harness::new();
    assert_eq!(
        h.call_said("c", 9, "list_notes", json!({})),
        "error: there is no tab 9"
    );
    assert_eq!(
        h.call_said("c", 1, "nope", json!({})),
        "error: tab 1 publishes no tool named \"nope\""
    );
    assert_eq!(
        h.call_said("c", 1, "house_style", json!({})),
        "error: house_style is a skill: skills are read, never called"
    );
}

#[test]
fn requests_that_cannot_be_read_get_json_rpc_errors() {
    let mut h = Harness::new();
    // (request text, the reply's id, its error code, words its message has)
    let cases = [
        ("5", json!(null), -32600, "invalid request"),
        (
            r#"{"id": 3, "method": 7}"#,
            json!(null),
            -32600,
            "invalid request",
        ),
        (r#"{"id": 4}"#, json!(4), -32600, "a request needs a method"),
        (
            r#"{"id": 5, "method": "resources/list"}"#,
            json!(5),
            -32601,
            "unknown method \"resources/list\"",
        ),
        (
            r#"{"id": 6, "method": "tools/call", "params": [1]}"#,
            json!(6),
            -32602,
            "tools/call: invalid type",
        ),
        (
            r#"{"id": 7, "method": "tools/call"}"#,
            json!(7),
            -32602,
            "unknown tool \"\"",
        ),
        (
            r#"{"id": 8, "method": "tools/call", "params": {"name": "browser_call_webmcp_tool", "arguments": {"tabId": "2"}}}"#,
            json!(8),
            -32602,
            "browser_call_webmcp_tool: invalid type",
        ),
        (
            r#"{"id": 9, "method": "tools/call", "params": {"name": "browser_call_webmcp_tool", "arguments": {"tabId": 2, "name": "list_notes", "extra": 1}}}"#,
            json!(9),
            -32602,
            "unknown field `extra`",
        ),
    ];
    for (text, id, code, words) in cases {
        let Step::Reply { reply } = h.checked(|session, world| session.request("c", text, world))
        else {
            panic!("{text}: answered at once")
        };
        let reply = reply.value();
        assert_eq!(reply["id"], id, "{text}");
        assert_eq!(reply["error"]["code"], code, "{text}");
        let message = reply["error"]["message"].as_str().expect("a message");
        assert!(message.contains(words), "{text}: {message}");
    }
}

#[test]
fn a_call_hands_the_page_the_arguments_the_agent_wrote() {
    let mut h = Harness::new();
    let Step::Run { run } = h.call(
        "c",
        2,
        "list_notes",
        json!({"filter": {"tag": "a b", "n": [1, 2.5, null]}}),
    ) else {
        panic!("a Read-only call on localhost runs")
    };
    let arguments: Value = serde_json::from_str(&run.arguments).expect("JSON text");
    assert_eq!(
        arguments,
        json!({"filter": {"tag": "a b", "n": [1, 2.5, null]}})
    );
}

#[test]
fn one_site_question_per_chat_and_site_at_a_time() {
    let mut h = Harness::new();
    let first = h.call("c", 1, "list_notes", json!({}));
    let card = card_id(&first);
    // A second call and a listing of the same chat on the same site, while
    // the site card is open: they wait on it, no second card opens.
    let second = h.call("c", 1, "delete_note", json!({}));
    let second_id = h.next_id;
    assert_eq!(second, Step::Wait { card_id: card });
    let listing = h.send(
        "c",
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let listing_id = h.next_id;
    assert_eq!(listing, Step::Wait { card_id: card });
    assert_eq!(h.session.pending.len(), 1);
    // Sent again (an agent that lost its wait), a follower still waits there.
    let again = json!({"jsonrpc": "2.0", "id": second_id, "method": "tools/call",
        "params": {"name": "browser_call_webmcp_tool", "arguments": {"tabId": 1, "name": "delete_note", "arguments": {}}}});
    assert_eq!(h.resend("c", &again), Step::Wait { card_id: card });
    // They are stored: a worker that stops and starts again keeps them.
    let stored = serde_json::to_string(&h.session).expect("serialises");
    h.session = serde_json::from_str(&stored).expect("parses");
    h.session.restarted();
    let waiting: Vec<&Value> = h
        .session
        .pending
        .get(&card)
        .expect("the card")
        .waiting
        .iter()
        .map(|f| &f.request_id)
        .collect();
    assert_eq!(waiting, [&json!(second_id), &json!(listing_id)]);
    assert_eq!(h.resend("c", &again), Step::Wait { card_id: card });
    // Another chat asks its own question.
    assert_eq!(
        h.call_said("other", 1, "list_notes", json!({})),
        "site card"
    );

    // A lasting answer lets each waiting request go on by what it allows.
    let answer = h.answered(card, Answer::Site(SiteAnswer::AllowReadOnly));
    assert!(matches!(answer.step, Step::Run { .. }));
    let followers: Vec<(Value, String)> = answer
        .waiting
        .iter()
        .map(|f| (f.request_id.clone(), outcome(&h, &f.step)))
        .collect();
    assert_eq!(followers[0], (json!(second_id), "call card".to_owned()));
    assert_eq!(followers[1], (json!(listing_id), "listed".to_owned()));
    assert_eq!(followers.len(), 2);
}

#[test]
fn after_an_answer_for_one_call_the_waiting_requests_ask_again_one_card_at_a_time() {
    let mut h = Harness::new();
    let card = card_id(&h.call("c", 1, "list_notes", json!({})));
    assert_eq!(
        h.call("c", 1, "list_notes", json!({})),
        Step::Wait { card_id: card }
    );
    let second_id = h.next_id;
    assert_eq!(
        h.call("c", 1, "list_notes", json!({})),
        Step::Wait { card_id: card }
    );
    let third_id = h.next_id;

    let answer = h.answered(card, Answer::Site(SiteAnswer::AllowOnce));
    assert!(
        matches!(answer.step, Step::Run { .. }),
        "the call it was asked for runs"
    );
    // The first follower opens the next site card; the second waits on it.
    let [first, second] = &answer.waiting[..] else {
        panic!("two followers: {:?}", answer.waiting)
    };
    assert_eq!(first.request_id, json!(second_id));
    let next = card_id(&first.step);
    assert_eq!(outcome(&h, &first.step), "site card");
    assert_eq!(second.request_id, json!(third_id));
    assert_eq!(second.step, Step::Wait { card_id: next });

    // Closing that card (Deny for this chat) refuses both.
    let close = h.session.close_answer(next).expect("a pending card");
    assert_eq!(
        close,
        Answer::Site(SiteAnswer::DenyForChat),
        "a site card's close"
    );
    let answer = h.answered(next, close);
    assert!(outcome(&h, &answer.step).starts_with("refused"));
    assert!(outcome(&h, &answer.waiting[0].step).starts_with("refused"));
    assert!(h.session.pending.is_empty());
}

#[test]
fn a_read_only_chat_sees_and_calls_only_read_only_tools() {
    let mut h = Harness::new();
    assert!(h.session.open_chat("ro", "Read-only chat", true).is_ok());
    let step = h.send(
        "ro",
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 2}}),
    );
    let Step::Reply { reply } = step else {
        panic!("listed")
    };
    let reply = reply.value();
    let names: Vec<&str> = reply["result"]["structuredContent"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["list_notes"]);
    assert_eq!(
        h.call_said("ro", 2, "add_note", json!({"title": "x"})),
        "refused: add_note on notes.localhost:8000 is Mutating, and this chat was opened Read only"
    );
}

#[test]
fn two_chats_keep_their_own_answers() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "a", SiteAnswer::AllowAll);
    with_site_answer(&mut h, "b", SiteAnswer::DenyForChat);
    assert_eq!(h.call_said("a", 1, "delete_note", json!({})), "run");
    assert_eq!(
        h.call_said("b", 1, "list_notes", json!({})),
        "refused: list_notes on notes.example is denied in this chat"
    );
}

#[test]
fn a_listing_asks_the_site_question_and_allow_once_lists_once() {
    let mut h = Harness::new();
    let step = h.send(
        "c",
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    assert_eq!(outcome(&h, &step), "site card");
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Site(SiteAnswer::AllowOnce)),
        "listed"
    );
    let again = h.send(
        "c",
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    assert_eq!(outcome(&h, &again), "site card");
}

#[test]
fn a_session_restored_mid_card_still_runs_the_call() {
    let mut h = Harness::new();
    let step = h.call("c", 1, "list_notes", json!({}));
    let id = card_id(&step);
    let stored = serde_json::to_string(&h.session).expect("serialises");
    h.session = serde_json::from_str(&stored).expect("parses");
    // The agent lost its wait and sends the same request again: it waits on the same card.
    let world = World {
        checking: Default::default(),
        registry: &h.registry,
        tabs: Some(&h.tabs),
        now_ms: h.now_ms,
    };
    let same = json!({"jsonrpc": "2.0", "id": h.next_id, "method": "tools/call",
        "params": {"name": "browser_call_webmcp_tool", "arguments": {"tabId": 1, "name": "list_notes", "arguments": {}}}});
    assert_eq!(
        h.session.request("c", &same.to_string(), &world),
        Step::Wait { card_id: id }
    );
    let Step::Run { run } = h.answer(id, Answer::Site(SiteAnswer::AllowReadOnly)) else {
        panic!("runs")
    };
    let (_, _, reply) = h
        .session
        .finish(
            run.call_id,
            Ok(&raw(&json!("3 notes"))),
            1024,
            false,
            None,
            0,
        )
        .expect("finished");
    assert_eq!(reply.value()["result"]["content"][0]["text"], "3 notes");
    let world = World {
        checking: Default::default(),
        registry: &h.registry,
        tabs: Some(&h.tabs),
        now_ms: h.now_ms,
    };
    assert_eq!(
        h.session.request("c", &same.to_string(), &world),
        Step::Reply { reply },
        "the reply waits for the agent"
    );
}
