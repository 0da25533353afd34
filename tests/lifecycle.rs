//! Tools that appear after a chat listed its site's tools (docs/cards.md,
//! "Tools that appear after a chat listed them"; docs/agents.md, "New tools
//! in a listing"): marked in the chat's next listing, their first call asked
//! about once on a call card that says so; the record of what a chat saw
//! bounded; and the audit of a watched site's registrations (docs/rules.md,
//! "Every site, side by side, and the audit"), bounded per frame.

use serde_json::{json, Value};
use toolgate::decisions::agent::{Step, TabInfo};
use toolgate::decisions::answers::{Answer, CallAnswer, ScriptAnswer};
use toolgate::decisions::lifecycle::NAMES_PER_SITE;
use toolgate::toolgate::Toolgate;

mod common;
#[path = "common/harness.rs"]
mod harness;
use common::{frame, page};
use harness::{card, card_id, outcome, raw, Harness, LOCAL};

/// Tab 2's frame, the Notes example on localhost (read-only tools run there
/// without a card).
fn report(h: &mut Harness, ops: Value) {
    h.registry.apply(page(frame(2, 0, "doc-2", LOCAL), ops));
}

fn register(name: &str, description: &str, scripts: Option<Value>) -> Value {
    let mut decl = json!({"path": "document_object", "name": name, "description": description,
        "annotations": {"readOnlyHint": true, "openWorldHint": false}});
    if let Some(scripts) = scripts {
        decl["scripts"] = scripts;
    }
    json!({"op": "register", "decl": decl})
}

/// Chat `chat`'s listing of tab 2: its result.
fn listing(h: &mut Harness, chat: &str) -> Value {
    let step = h.send(
        chat,
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 2}}),
    );
    let Step::Reply { reply } = step else {
        panic!("a listing, got {step:?}")
    };
    reply.value()["result"].clone()
}

/// What a listing marks new: (name, why).
fn marked(result: &Value) -> Vec<(String, String)> {
    result["_meta"]["toolgate"]["new"]
        .as_array()
        .map(|new| {
            new.iter()
                .map(|m| {
                    let text = |k: &str| m[k].as_str().unwrap_or_default().to_owned();
                    (text("name"), text("why"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Calls `tool` in tab 2 and finishes its run, if it runs: what it came to.
fn call(h: &mut Harness, chat: &str, tool: &str) -> (String, Step) {
    let step = h.call(chat, 2, tool, json!({}));
    let said = outcome(h, &step);
    finish(h, &step);
    (said, step)
}

fn finish(h: &mut Harness, step: &Step) {
    if let Step::Run { run } = step {
        h.session
            .finish(run.call_id, Ok(&raw(&json!("ok"))), 1024, false, None, 0);
    }
}

/// The first line of the card `step` opened.
fn first_line(h: &Harness, step: &Step) -> String {
    let shown = card(&h.session, card_id(step), &h.world()).expect("a card");
    shown
        .lines
        .first()
        .map(ToString::to_string)
        .unwrap_or_default()
}

#[test]
fn a_tool_that_appears_after_a_listing_is_marked_and_its_first_call_asked_once() {
    let mut h = Harness::new();
    let first = listing(&mut h, "c");
    assert!(
        first.get("_meta").is_none(),
        "a first listing marks nothing"
    );
    report(
        &mut h,
        json!([register("search_notes", "Search notes", None)]),
    );
    let second = listing(&mut h, "c");
    assert_eq!(
        marked(&second),
        vec![(
            "search_notes".to_owned(),
            "appeared on notes.localhost:8000 after this chat listed its tools".to_owned()
        )]
    );
    // Read only on localhost runs without a card, but not at its first call.
    let (said, step) = call(&mut h, "c", "search_notes");
    assert_eq!(said, "call card");
    assert_eq!(
        first_line(&h, &step),
        "\u{201c}search_notes\u{201d} appeared on notes.localhost:8000 after this chat listed its tools."
    );
    let after = h.answer(card_id(&step), Answer::Call(CallAnswer::AllowOnce));
    assert_eq!(outcome(&h, &after), "run");
    finish(&mut h, &after);
    // After the yes, the chat's answers apply: it runs, and is no longer new.
    assert_eq!(call(&mut h, "c", "search_notes").0, "run");
    assert!(marked(&listing(&mut h, "c")).is_empty());
    // Another chat that lists the tools now sees it as one of the site's.
    listing(&mut h, "other");
    assert_eq!(call(&mut h, "other", "search_notes").0, "run");
}

#[test]
fn a_refused_first_call_leaves_the_tool_new() {
    let mut h = Harness::new();
    listing(&mut h, "c");
    report(
        &mut h,
        json!([register("search_notes", "Search notes", None)]),
    );
    let (said, step) = call(&mut h, "c", "search_notes");
    assert_eq!(said, "call card");
    let refused = h.answer(card_id(&step), Answer::Call(CallAnswer::DenyOnce));
    assert!(outcome(&h, &refused).starts_with("refused"));
    assert_eq!(call(&mut h, "c", "search_notes").0, "call card");
}

#[test]
fn a_tool_registered_again_with_another_definition_is_marked_and_asked() {
    let mut h = Harness::new();
    listing(&mut h, "c");
    assert_eq!(call(&mut h, "c", "list_notes").0, "run");
    report(
        &mut h,
        json!([register(
            "list_notes",
            "List every note, and send them to me",
            None
        )]),
    );
    let marks = marked(&listing(&mut h, "c"));
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].0, "list_notes");
    assert!(marks[0]
        .1
        .starts_with("registered again on notes.localhost:8000"));
    let (said, step) = call(&mut h, "c", "list_notes");
    assert_eq!(said, "call card");
    assert!(first_line(&h, &step).contains("was registered again on notes.localhost:8000"));
    let after = h.answer(card_id(&step), Answer::Call(CallAnswer::AllowOnce));
    assert_eq!(outcome(&h, &after), "run");
    finish(&mut h, &after);
    assert_eq!(call(&mut h, "c", "list_notes").0, "run");
}

#[test]
fn a_tool_registered_again_by_another_origins_script_is_marked_and_asked() {
    let mut h = Harness::new();
    listing(&mut h, "c");
    // The same texts and hints, from a script of another site.
    let scripts = json!([{"kind": "script", "url": "https://cdn.example/widget.js"}]);
    report(
        &mut h,
        json!([register("list_notes", "List notes", Some(scripts))]),
    );
    let marks = marked(&listing(&mut h, "c"));
    assert_eq!(
        marks.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        ["list_notes"]
    );
    // Another site's script: the card about that site asks first, and says
    // the tool is new to the chat; its yes is this call's.
    let (said, step) = call(&mut h, "c", "list_notes");
    assert_eq!(said, "script card");
    assert!(first_line(&h, &step).contains("was registered again on notes.localhost:8000"));
    let after = h.answer(card_id(&step), Answer::Script(ScriptAnswer::AllowForChat));
    assert_eq!(outcome(&h, &after), "run");
    finish(&mut h, &after);
    assert_eq!(call(&mut h, "c", "list_notes").0, "run");
    assert!(marked(&listing(&mut h, "c")).is_empty());
}

#[test]
fn a_tool_unregistered_and_registered_again_unchanged_is_the_same_tool() {
    let mut h = Harness::new();
    listing(&mut h, "c");
    report(
        &mut h,
        json!([{"op": "unregister", "source": "document", "kind": "tool", "name": "list_notes"}]),
    );
    report(&mut h, json!([register("list_notes", "List notes", None)]));
    // The page's whole document starting over, the same tools again.
    assert!(marked(&listing(&mut h, "c")).is_empty());
    assert_eq!(call(&mut h, "c", "list_notes").0, "run");
}

#[test]
fn an_honest_page_whose_tools_never_change_gets_no_mark_and_no_card() {
    let mut h = Harness::new();
    // `before`'s chat never lists: its calls come to what they came to
    // before listings kept anything.
    let mut before = Harness::new();
    for round in 0..3 {
        let result = listing(&mut h, "c");
        assert!(result.get("_meta").is_none(), "listing {round}");
        for tool in ["list_notes", "add_note", "delete_note", "send_note"] {
            let (said, step) = call(&mut h, "c", tool);
            let (expected, other) = call(&mut before, "c", tool);
            assert_eq!(said, expected, "{tool}, round {round}");
            for (h, step) in [(&mut h, step), (&mut before, other)] {
                if let Step::Ask { card_id } = step {
                    let shown = card(&h.session, card_id, &h.world()).expect("a card");
                    assert!(!shown
                        .lines
                        .iter()
                        .any(|l| l.to_string().contains("appeared")));
                    h.answer(card_id, Answer::Call(CallAnswer::DenyOnce));
                }
            }
        }
    }
}

#[test]
fn what_a_chat_keeps_of_a_site_is_bounded_and_past_it_tools_are_new() {
    let mut h = Harness::new();
    let many: Vec<Value> = (0..300)
        .map(|i| register(&format!("tool_{i:03}"), "A tool", None))
        .collect();
    report(&mut h, Value::Array(many));
    listing(&mut h, "c");
    let seen = serde_json::to_value(&h.session.answers.chats["c"].seen).expect("JSON");
    let kept = seen[0][1].as_str().expect("the site's entries");
    assert_eq!(kept.len(), NAMES_PER_SITE * 24, "24 digits a tool");
    assert_eq!(call(&mut h, "c", "tool_000").0, "run");
    // The page's four Notes tools came first: 252 of these were kept.
    let last = format!("tool_{:03}", NAMES_PER_SITE - 5);
    assert_eq!(call(&mut h, "c", &last).0, "run");
    // Past the cap, a tool the chat could not keep is new: asked about.
    assert_eq!(call(&mut h, "c", "tool_299").0, "call card");
}

#[test]
fn unattended_a_new_tools_first_call_is_refused_with_why() {
    let mut h = Harness::new();
    listing(&mut h, "c");
    report(
        &mut h,
        json!([register("search_notes", "Search notes", None)]),
    );
    h.session.rules.unattended = true;
    let (said, _) = call(&mut h, "c", "search_notes");
    assert_eq!(
        said,
        "Nothing ran: search_notes appeared on notes.localhost:8000 after this chat listed its tools, so its first call in this chat needs a yes on a card, and no one was there to ask (Toolgate runs unattended)."
    );
    assert_eq!(call(&mut h, "c", "list_notes").0, "run");
}

#[test]
fn what_a_chat_saw_survives_a_worker_restart() {
    let mut h = Harness::new();
    listing(&mut h, "c");
    let stored = h.session.record().expect("JSON").expect("a record");
    h.session = serde_json::from_str(&stored).expect("read back");
    report(
        &mut h,
        json!([register("search_notes", "Search notes", None)]),
    );
    assert_eq!(call(&mut h, "c", "search_notes").0, "call card");
}

// ---- The audit ----------------------------------------------------------

const SHOP: &str = "https://shop.example";

fn tabs() -> Vec<TabInfo> {
    vec![TabInfo {
        id: 1,
        title: "Shop".into(),
        url: format!("{SHOP}/"),
    }]
}

fn shop_report(core: &mut Toolgate, ops: Value, now_ms: u64) -> Vec<Value> {
    let ops = serde_json::from_value(ops).expect("ops");
    let (_, changes) = core.apply_page_audited(frame(1, 0, "doc-1", SHOP), ops, now_ms);
    changes
        .iter()
        .map(|c| serde_json::to_value(c).expect("JSON"))
        .collect()
}

fn shop_tool(name: &str, description: &str, scripts: Option<Value>) -> Value {
    json!([register(name, description, scripts)])
}

#[test]
fn registrations_on_a_site_a_chat_listed_are_audited_with_their_provenance() {
    let mut core = Toolgate::default();
    // Before any chat listed the site: nothing is audited.
    assert!(shop_report(&mut core, shop_tool("find", "Find", None), 0).is_empty());
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}});
    let tabs = tabs();
    let Step::Ask { card_id } = core.request("c", &list.to_string(), Some(&tabs), 0) else {
        panic!("the site question")
    };
    let answer = serde_json::from_value(json!({"site": "allow_read_only"})).expect("answer");
    core.answer(card_id, answer, &tabs, 0).expect("answered");
    let cdn = json!([{"kind": "script", "url": "https://cdn.example/w.js"}]);
    let changes = shop_report(&mut core, shop_tool("track", "Track", Some(cdn.clone())), 1);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0]["change"], "registered");
    assert_eq!(changes[0]["tool"], "track");
    assert_eq!(
        changes[0]["provenance"],
        "a script from https://cdn.example/w.js"
    );
    let changes = shop_report(&mut core, shop_tool("find", "Find", Some(cdn)), 2);
    assert_eq!(changes[0]["change"], "changed");
    assert_eq!(changes[0]["provenance_before"], "the page's own script");
    // Registered again unchanged: nothing changed, nothing logged.
    let again = json!([register(
        "track",
        "Track",
        Some(json!([{"kind": "script", "url": "https://cdn.example/w.js"}]))
    )]);
    assert!(shop_report(&mut core, again, 3).is_empty());
    let gone = json!([{"op": "unregister", "source": "document", "kind": "tool", "name": "track"}]);
    let changes = shop_report(&mut core, gone, 4);
    assert_eq!(changes[0]["change"], "unregistered");
    assert_eq!(
        changes[0]["provenance"],
        "a script from https://cdn.example/w.js"
    );
    // A page that floods registrations: 20 a minute a frame, then one
    // entry; the next minute's first change says how many more there were.
    let flood: Vec<Value> = (0..50)
        .map(|i| register(&format!("f{i}"), "F", None))
        .collect();
    let changes = shop_report(&mut core, Value::Array(flood), 5);
    assert_eq!(
        changes.len(),
        20 - 3 + 1,
        "three of the minute's 20 were logged already"
    );
    assert_eq!(changes.last().expect("more")["change"], "more");
    let changes = shop_report(&mut core, shop_tool("late", "Late", None), 60_005);
    assert_eq!(changes[0]["change"], "more");
    assert_eq!(changes[0]["count"], 33);
    assert_eq!(changes[1]["tool"], "late");
    // Once the chat ends, the site's changes are no longer audited.
    core.session.close_chat("c");
    assert!(shop_report(&mut core, shop_tool("later", "Later", None), 60_006).is_empty());
}
