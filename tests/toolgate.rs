//! What the worker holds (`Toolgate`): rebuilt from what it stored, and the
//! decisions the binding hands it (a closed card window, a page's outcome).

use serde_json::{json, Value};
use toolgate::decisions::agent::{Step, TabInfo};
use toolgate::page::registry::Effect;
use toolgate::toolgate::Toolgate;

mod common;
use common::{frame, page};

const SITE: &str = "https://notes.example";

/// A worker's state with one Mutating tool on tab 1, and the stored tool it
/// wrote for it.
fn with_add_note() -> (Toolgate, Vec<(String, String)>) {
    let mut core = Toolgate::default();
    let records = add_note(&mut core, 1);
    (core, records)
}

/// Registers the Mutating tool `add_note` on tab `tab`: the stored tools it
/// wrote, each (key, JSON text).
fn add_note(core: &mut Toolgate, tab: i64) -> Vec<(String, String)> {
    let ops = json!([{"op": "register", "decl": {"path": "document_object", "name": "add_note",
        "description": "Add a note", "annotations": {"consequentialHint": false}}}]);
    let (_, effects) = core.apply(page(frame(tab, 0, "doc-1", SITE), ops));
    effects
        .iter()
        .flat_map(|e| match e {
            Effect::Store { set, .. } => set.clone().into_iter().collect(),
            _ => Vec::new(),
        })
        .collect()
}

fn tabs() -> Vec<TabInfo> {
    vec![TabInfo {
        id: 1,
        title: "Notes".into(),
        url: format!("{SITE}/"),
    }]
}

fn call(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "browser_call_webmcp_tool",
        "arguments": {"tabId": 1, "name": "add_note"}}})
    .to_string()
}

/// Opens the site card for a call and answers it with `answer`.
fn answered(core: &mut Toolgate, id: i64, answer: Value) -> Step {
    let tabs = tabs();
    let Step::Ask { card_id } = core.request("c", &call(id), Some(&tabs), 0) else {
        panic!("the site question")
    };
    let answer = serde_json::from_value(answer).expect("an answer");
    core.answer(card_id, answer, &tabs, 0)
        .expect("answered")
        .step
}

#[test]
fn a_core_rebuilt_from_storage_settles_the_calls_the_old_worker_was_running() {
    let (mut core, records) = with_add_note();
    let Step::Run { run } = answered(&mut core, 7, json!({"site": "allow_all"})) else {
        panic!("the call runs")
    };
    assert!(!run.repeatable);
    let stored = core.session.record().expect("written").expect("changed");

    let mut again = Toolgate::from_storage(records.clone(), Some(&stored)).expect("rebuilt");
    assert_eq!(again.registry, core.registry);
    let Step::Reply { reply } = again.request("c", &call(7), None, 0) else {
        panic!("the kept reply")
    };
    assert_eq!(
        reply.value()["error"]["message"],
        "the call was interrupted when Toolgate's service worker stopped; it may have run"
    );
    // The old worker's outcome, arriving late, answers nobody.
    assert_eq!(
        again.finish(run.call_id, Some("\"late\""), None, 1024, true, 0),
        None
    );
}

#[test]
fn storage_that_cannot_be_read_is_a_clear_error_or_left_out() {
    let key_only = [("tool:1".to_owned(), "{}".to_owned())];
    let error = Toolgate::from_storage(key_only, None).expect_err("not a stored tool's key");
    assert!(error.starts_with("bad stored tool key:"), "{error}");
    let error = Toolgate::from_storage(Vec::<(String, String)>::new(), Some("\"a string\""))
        .expect_err("unreadable");
    assert!(error.starts_with("bad stored session:"), "{error}");
    // A stored tool that does not read (written by another version) is left
    // out when its tab is read; the tab's other tools stay.
    let (core, mut records) = with_add_note();
    records.push(("tool:1:9".to_owned(), "{".to_owned()));
    let again = Toolgate::from_storage(records.clone(), None).expect("loads");
    assert_eq!(again.registry, core.registry);
    assert_eq!(again.registry.count(1), 1);
}

#[test]
fn a_rebuilt_core_reads_a_tab_s_stored_tools_only_once_a_request_needs_them() {
    let mut core = Toolgate::default();
    let mut records = add_note(&mut core, 1);
    records.extend(add_note(&mut core, 2));
    records.extend(add_note(&mut core, 3));
    let mut again = Toolgate::from_storage(records.clone(), None).expect("rebuilt");
    assert_eq!(
        again.registry.tabs_read(),
        0,
        "a worker's start reads no tool"
    );
    let tabs = tabs();
    let Step::Ask { .. } = again.request("c", &call(1), Some(&tabs), 0) else {
        panic!("the site question")
    };
    assert_eq!(again.registry.tabs_read(), 1, "a call reads its own tab's");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "browser_list_webmcp_tools", "arguments": {"tabId": 2}}});
    again.request("c", &list.to_string(), Some(&tabs), 0);
    assert_eq!(again.registry.tabs_read(), 2, "a listing its tab's");
    // Read or not, the registry is the one that was stored.
    assert_eq!(again.registry, core.registry);
    assert_eq!(again.registry.tabs_read(), 3);
}

#[test]
fn closing_a_card_window_answers_it_with_its_closing_answer() {
    let (mut core, _) = with_add_note();
    let tabs = tabs();
    let Step::Ask { card_id } = core.request("c", &call(1), Some(&tabs), 0) else {
        panic!("the site question")
    };
    assert!(core.session.card_opened(card_id, 55));
    assert!(core.card(card_id, &tabs, 0).is_some());
    assert_eq!(
        core.window_closed(99, &tabs, 0),
        Ok(None),
        "not a card's window"
    );
    let answered = core
        .window_closed(55, &tabs, 0)
        .expect("answered")
        .expect("a card");
    let Step::Reply { reply } = answered.step else {
        panic!("refused")
    };
    // The site card's closing answer is "Deny for this chat".
    assert_eq!(
        reply.value()["result"]["_meta"]["toolgate"]["decision"],
        "refuse"
    );
    assert!(core.card(card_id, &tabs, 0).is_none());
    assert!(matches!(
        core.request("c", &call(2), Some(&tabs), 0),
        Step::Reply { .. }
    ));
}

#[test]
fn a_card_stored_before_its_window_was_recorded_is_known_to_have_none() {
    let (mut core, records) = with_add_note();
    let tabs = tabs();
    let Step::Ask { card_id: first } = core.request("c", &call(1), Some(&tabs), 0) else {
        panic!("the site question")
    };
    assert_eq!(core.session.cards_without_window(), vec![first]);
    // The worker stopped here: the card is stored, its window is not.
    let stored = core.session.record().expect("written").expect("changed");
    let mut again = Toolgate::from_storage(records.clone(), Some(&stored)).expect("rebuilt");
    assert_eq!(again.session.cards_without_window(), vec![first]);
    assert!(again.session.card_opened(first, 8));
    assert!(again.session.cards_without_window().is_empty());
    let Step::Ask { card_id: second } = again.request("d", &call(2), Some(&tabs), 0) else {
        panic!("another chat's site question")
    };
    // One card at a time in a tab (docs/cards.md, "One card at a time"):
    // the second's window opens once the first is answered.
    assert!(again.session.cards_without_window().is_empty());
    again.window_closed(8, &tabs, 0).expect("answered");
    assert_eq!(again.session.cards_without_window(), vec![second]);
    // At most five cards wait for one tab; the sixth call is refused.
    for (n, chat) in ["e", "f", "g", "h"].into_iter().enumerate() {
        let step = again.request(chat, &call(3 + n as i64), Some(&tabs), 0);
        assert!(matches!(step, Step::Ask { .. }), "{chat}: {step:?}");
    }
    let Step::Reply { reply } = again.request("i", &call(9), Some(&tabs), 0) else {
        panic!("refused")
    };
    assert_eq!(
        reply.value()["result"]["content"][0]["text"],
        "Nothing ran: 5 cards already wait on a person for this tab, the most Toolgate lets one tab have. Try again once they are answered."
    );
    assert_eq!(again.session.cards_without_window(), vec![second]);
}

#[test]
fn a_page_outcome_that_is_not_json_reaches_the_agent_as_a_clear_error() {
    let (mut core, _) = with_add_note();
    let Step::Run { run } = answered(&mut core, 3, json!({"site": "allow_all"})) else {
        panic!("runs")
    };
    let reply: Value = serde_json::from_str(
        &core
            .finish(run.call_id, Some("{not json"), None, 1024, true, 0)
            .expect("a reply"),
    )
    .expect("JSON");
    assert_eq!(reply["result"]["isError"], true);
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(
        text.starts_with("the page answered with a result that is not JSON"),
        "{text}"
    );
}

#[test]
fn a_stored_session_leaves_out_what_is_empty_and_reads_back_its_answers() {
    let (mut core, records) = with_add_note();
    core.session
        .answers
        .open_chat("c", "Chat", false)
        .expect("opened");
    let stored = core.session.record().expect("written").expect("changed");
    // A stopped worker's first call reads no part its session does not have
    // (ARCHITECTURE.md, "A worker's start").
    assert_eq!(
        serde_json::from_str::<Value>(&stored).expect("JSON"),
        json!({"answers": {"chats": {"c": {"label": "Chat"}}}, "next_id": 0})
    );

    // Everything a session keeps, written and read back the same.
    let Step::Run { .. } = answered(&mut core, 7, json!({"site": "allow_all"})) else {
        panic!("the call runs")
    };
    core.session
        .answers
        .open_chat("r", "Read only", true)
        .expect("opened");
    let full = core.session.record().expect("written").expect("changed");
    for part in ["\"running\"", "\"sites\"", "\"read_only\":true"] {
        assert!(full.contains(part), "{part} in {full}");
    }
    // Read back: the answers as they were (the running call, as a stopped
    // worker's, becomes a kept reply: the test above).
    let again = Toolgate::from_storage(records.clone(), Some(&full)).expect("rebuilt");
    assert_eq!(again.session.answers, core.session.answers);
}
