//! Hostile pages against the decisions: what a card shows is what an answer
//! applies to (docs/cards.md, "When a tool changes").

use serde_json::{json, Value};
use toolgate::decisions::agent::{Step, TabInfo};
use toolgate::decisions::answers::Answer;
use toolgate::page::registry::Source;
use toolgate::toolgate::Toolgate;

mod common;
use common::{frame, page};

const SITE: &str = "https://edit.example";

fn tabs() -> Vec<TabInfo> {
    vec![TabInfo {
        id: 1,
        title: "Edit".into(),
        url: format!("{SITE}/"),
    }]
}

fn tool(path: &str, name: &str, annotations: Value) -> Value {
    json!({"op": "register", "decl": {"path": path, "name": name, "description": "d", "annotations": annotations}})
}

const MUTATING: fn() -> Value = || json!({"consequentialHint": false});
const CONSEQUENTIAL: fn() -> Value = || json!({"consequentialHint": true});

struct Agent {
    core: Toolgate,
    next: i64,
}

impl Agent {
    /// A tab whose page first registered `ops`, and a chat that allowed
    /// read-only tools on its site.
    fn new(ops: Value) -> Agent {
        let mut core = Toolgate::default();
        core.apply(page(frame(1, 0, "doc", SITE), ops));
        let mut agent = Agent { core, next: 0 };
        let Step::Ask { card_id } = agent.call("edit") else {
            panic!("the site question first")
        };
        let Step::Ask { .. } = agent.answer(card_id, json!({"site": "allow_read_only"})) else {
            panic!("then the call card")
        };
        agent
    }

    fn call(&mut self, name: &str) -> Step {
        self.next += 1;
        let request = json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": "browser_call_webmcp_tool", "arguments": {"tabId": 1, "name": name}}});
        self.core
            .request("c", &request.to_string(), Some(&tabs()), 0)
    }

    fn answer(&mut self, card_id: u64, answer: Value) -> Step {
        let answer: Answer = serde_json::from_value(answer).expect("an answer");
        self.core
            .answer(card_id, answer, &tabs(), 0)
            .expect("answered")
            .step
    }

    /// The one open card, with the class and widening answer it shows.
    fn open_card(&self) -> (u64, Option<&'static str>, String) {
        let (&card_id, _) = self.core.session.pending.iter().next().expect("a card");
        let card = self.core.card(card_id, &tabs(), 0).expect("shown");
        (card_id, card.class, card.approve_menu[1].label.clone())
    }

    fn page(&mut self, ops: Value) {
        self.core.apply(page(frame(1, 0, "doc", SITE), ops));
    }
}

fn message(step: &Step) -> String {
    let Step::Reply { reply } = step else {
        panic!("a reply, not {step:?}")
    };
    let value = reply.value();
    value["error"]["message"]
        .as_str()
        .or_else(|| value["result"]["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn one_name_is_one_tool_and_the_card_shows_the_class_of_the_tool_that_runs() {
    // `edit` on navigator.modelContext (Mutating), then on document.modelContext
    // (Consequential): the second is refused as a duplicate.
    let mut agent = Agent::new(json!([
        tool("navigator_object", "edit", MUTATING()),
        tool("document_object", "edit", CONSEQUENTIAL()),
        tool("document_object", "wipe", CONSEQUENTIAL()),
    ]));
    let (card_id, class, widen) = agent.open_card();
    assert_eq!(class, Some("Mutating"));
    assert_eq!(
        widen,
        "Allow non-consequential read/write tools on edit.example"
    );
    let Step::Run { run } = agent.answer(card_id, json!({"call": "allow_class"})) else {
        panic!("the Mutating edit runs")
    };
    assert_eq!(run.target.source, Source::Navigator);
    // The chat was widened to Mutating tools only: a Consequential one asks.
    assert!(matches!(agent.call("wipe"), Step::Ask { .. }));
}

#[test]
fn a_second_registration_of_a_name_on_the_other_object_is_refused_as_a_duplicate() {
    let mut core = Toolgate::default();
    let (results, _) = core.apply(page(
        frame(1, 0, "doc", SITE),
        json!([
            tool("navigator_object", "edit", MUTATING()),
            tool("document_object", "edit", CONSEQUENTIAL())
        ]),
    ));
    assert_eq!(results[0].error, None);
    assert_eq!(
        results[1].error.as_deref(),
        Some("InvalidStateError: a tool named \"edit\" is already registered in this document, on navigator.modelContext")
    );
    assert_eq!(core.registry.count(1), 1);
}

#[test]
fn an_answer_to_a_card_whose_tool_changed_meanwhile_runs_nothing_and_records_nothing() {
    let mut agent = Agent::new(json!([
        tool("document_object", "edit", MUTATING()),
        tool("document_object", "note", MUTATING()),
    ]));
    let (card_id, class, _) = agent.open_card();
    assert_eq!(class, Some("Mutating"));
    // While the card is open, the page registers `edit` again as Consequential.
    agent.page(json!([
        {"op": "unregister", "source": "document", "kind": "tool", "name": "edit"},
        tool("document_object", "edit", CONSEQUENTIAL()),
    ]));
    let step = agent.answer(card_id, json!({"call": "allow_class"}));
    assert!(
        message(&step).starts_with("edit changed while this call waited"),
        "{}",
        message(&step)
    );
    // Nothing was widened: the next Mutating call, and the Consequential edit, ask.
    assert!(matches!(agent.call("note"), Step::Ask { .. }));
}

#[test]
fn allow_this_call_only_for_a_tool_that_changed_meanwhile_runs_nothing() {
    let mut agent = Agent::new(json!([tool("document_object", "edit", MUTATING())]));
    let (card_id, _, _) = agent.open_card();
    agent.page(json!([
        {"op": "unregister", "source": "document", "kind": "tool", "name": "edit"},
        tool("document_object", "edit", CONSEQUENTIAL()),
    ]));
    let step = agent.answer(card_id, json!({"call": "allow_once"}));
    assert!(message(&step).starts_with("edit changed while this call waited"));
    // Asked again, the card shows the tool as it is now.
    assert!(matches!(agent.call("edit"), Step::Ask { .. }));
    assert_eq!(agent.open_card().1, Some("Consequential"));
}

#[test]
fn a_tool_registered_again_unchanged_is_the_same_tool_to_its_card() {
    let mut agent = Agent::new(json!([tool("document_object", "edit", MUTATING())]));
    let (card_id, _, _) = agent.open_card();
    agent.page(json!([
        {"op": "unregister", "source": "document", "kind": "tool", "name": "edit"},
        tool("document_object", "edit", MUTATING()),
    ]));
    assert!(matches!(
        agent.answer(card_id, json!({"call": "allow_once"})),
        Step::Run { .. }
    ));
}

#[test]
fn definitions_are_compared_by_a_sha256_of_the_canonical_definition() {
    let definition = |description: &str| {
        let mut core = Toolgate::default();
        core.apply(page(
            frame(1, 0, "doc", SITE),
            json!([{"op": "register", "decl": {"path": "document_object", "name": "edit",
                "description": description, "annotations": {"readOnlyHint": true}}}]),
        ));
        let frame = core.registry.frames(1).next().expect("a frame").clone();
        frame.tools[0].definition().to_owned()
    };
    let first = definition("Edit a note");
    assert_eq!(first.len(), 64, "a SHA-256, in hex: {first}");
    assert!(first.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(first, definition("Edit a note"));
    assert_ne!(first, definition("Edit a note."));
}

#[test]
fn an_opaque_origin_is_not_a_site_no_answer_carries_to_another_sandboxed_frame() {
    let mut core = Toolgate::default();
    let tabs = vec![
        TabInfo {
            id: 1,
            title: "Edit".into(),
            url: format!("{SITE}/page"),
        },
        TabInfo {
            id: 2,
            title: "Other".into(),
            url: "https://other.example/".into(),
        },
    ];
    for tab in [1, 2] {
        core.apply(page(
            frame(tab, 5, &format!("sandboxed-{tab}"), "null"),
            json!([tool("document_object", "wipe", CONSEQUENTIAL())]),
        ));
    }
    let call = |core: &mut Toolgate, id: i64, tab: i64| {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "browser_call_webmcp_tool", "arguments": {"tabId": tab, "name": "wipe"}}});
        core.request("c", &request.to_string(), Some(&tabs), 0)
    };
    let Step::Ask { card_id } = call(&mut core, 1, 1) else {
        panic!("the site question")
    };
    let card = core.card(card_id, &tabs, 0).expect("shown");
    // Named as the person can recognise it, with no site-wide answer.
    assert_eq!(card.site, "a sandboxed frame inside edit.example");
    assert_eq!(
        card.heading,
        "An agent wants permission to use this site's page tools on a sandboxed frame inside edit.example"
    );
    assert!(
        card.approve_menu.is_empty() && card.deny_menu.is_empty(),
        "{card:?}"
    );
    let allow_all: Answer =
        serde_json::from_value(json!({"site": "allow_all"})).expect("an answer");
    assert!(
        core.answer(card_id, allow_all, &tabs, 0).is_err(),
        "not offered"
    );
    let once: Answer = serde_json::from_value(json!({"site": "allow_once"})).expect("an answer");
    assert!(matches!(
        core.answer(card_id, once, &tabs, 0).expect("answered").step,
        Step::Run { .. }
    ));
    // Another sandboxed frame, in another site's tab, is asked again.
    assert!(matches!(call(&mut core, 2, 2), Step::Ask { .. }));
    // Closing its card is its one refusal for this call, not a refusal for the chat.
    let (&card_id, _) = core.session.pending.iter().next().expect("a card");
    assert!(core.session.card_opened(card_id, 9));
    let closed = core
        .window_closed(9, &tabs, 0)
        .expect("answered")
        .expect("a card");
    assert!(matches!(closed.step, Step::Reply { .. }));
    assert!(matches!(call(&mut core, 3, 2), Step::Ask { .. }));
}

/// Two sandboxed frames of one tab publish the same name: the error names
/// each by the `site` the listing gives it, and that `site` picks one. The
/// tab's listed site is its top page's, not a frame's.
#[test]
fn sandboxed_frames_of_one_tab_are_told_apart_by_the_site_the_listing_gives() {
    let mut core = Toolgate::default();
    for (frame_id, document) in [(5, "sandboxed-a"), (6, "sandboxed-b")] {
        core.apply(page(
            frame(1, frame_id, document, "null"),
            json!([tool("document_object", "wipe", CONSEQUENTIAL())]),
        ));
    }
    let send = |core: &mut Toolgate, id: i64, name: &str, arguments: Value| {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        core.request("c", &request.to_string(), Some(&tabs()), 0)
    };
    let tabs_listed = send(&mut core, 1, "browser_list_tabs", json!({}));
    let Step::Reply { reply } = tabs_listed else {
        panic!("listed")
    };
    let listed = &reply.value()["result"]["structuredContent"]["tabs"][0];
    assert_eq!(
        listed["site"], SITE,
        "the tab's own site, from its top page"
    );
    assert_eq!(
        listed["sites"],
        json!(["opaque:sandboxed-a", "opaque:sandboxed-b"])
    );

    let step = send(
        &mut core,
        2,
        "browser_call_webmcp_tool",
        json!({"tabId": 1, "name": "wipe"}),
    );
    assert_eq!(
        message(&step),
        "several sites in tab 1 publish \"wipe\" (opaque:sandboxed-a (a sandboxed frame), \
         opaque:sandboxed-b (a sandboxed frame)); say which with \"site\""
    );
    let step = send(
        &mut core,
        3,
        "browser_call_webmcp_tool",
        json!({"tabId": 1, "name": "wipe", "site": "opaque:sandboxed-b"}),
    );
    let Step::Ask { card_id } = step else {
        panic!("the site question for that frame: {step:?}")
    };
    let pending = core.session.pending.get(&card_id).expect("waits");
    assert_eq!(pending.site, "opaque:sandboxed-b");
}
