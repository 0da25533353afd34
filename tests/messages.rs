//! The tagged messages the core reads: each variant from its JSON, and a
//! clear error for what is malformed.

use serde_json::json;
use toolgate::messages::{FromPage, FromUi};
use toolgate::page::registry::{Event, Op};

fn read<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_json::from_str(&value.to_string()).map_err(|e| e.to_string())
}

#[test]
fn every_op_reads_from_its_tagged_json() {
    let ops: Vec<Op> = read(json!([
        {"op": "register", "decl": {"name": "a", "path": "document_object"}},
        {"op": "unregister", "source": "document", "kind": "tool", "name": "a"},
        {"op": "clear", "source": "navigator"},
        {"op": "provide", "decls": [{"name": "b"}]},
        {"op": "reset"},
    ]))
    .expect("ops");
    let names: Vec<&str> = ops
        .iter()
        .map(|op| match op {
            Op::Register { .. } => "register",
            Op::Unregister { .. } => "unregister",
            Op::Clear { .. } => "clear",
            Op::Provide { decls } if decls.len() == 1 => "provide",
            Op::Provide { .. } => "provide, wrong",
            Op::Reset => "reset",
        })
        .collect();
    assert_eq!(
        names,
        ["register", "unregister", "clear", "provide", "reset"]
    );
    // Written back the same way.
    assert_eq!(
        serde_json::to_value(&ops[2]).expect("writes"),
        json!({"op": "clear", "source": "navigator"})
    );
}

#[test]
fn malformed_messages_get_serdes_own_words() {
    let cases: [(serde_json::Value, &str); 9] = [
        // A field another op has is still not this op's.
        (
            json!({"op": "clear", "source": "document", "decl": {"name": "a"}}),
            "unknown field `decl`",
        ),
        (json!({"op": "reset", "name": "a"}), "unknown field `name`"),
        (json!({"op": "register"}), "missing field `decl`"),
        (
            json!({"op": "unregister", "source": "document", "kind": "tool"}),
            "missing field `name`",
        ),
        (
            json!({"op": "clear", "source": "document", "origin": "x"}),
            "unknown field `origin`",
        ),
        (json!({"op": "explode"}), "unknown variant `explode`"),
        (json!({"source": "document"}), "missing field `op`"),
        (
            json!({"op": "reset", "decl": "not a declaration"}),
            "invalid type",
        ),
        (
            json!({"op": "register", "decl": {"name": "a"}, "decls": []}),
            "unknown field `decls`",
        ),
    ];
    for (message, expected) in cases {
        let error = read::<Op>(message.clone()).expect_err("malformed");
        assert!(error.contains(expected), "{message}: {error}");
    }
}

#[test]
fn events_page_messages_and_ui_messages_read_by_their_type() {
    let event: Event =
        read(json!({"type": "navigated", "tab_id": 1, "frame_id": 0, "document_id": "D"}))
            .expect("event");
    assert_eq!(
        event,
        Event::Navigated {
            tab_id: 1,
            frame_id: 0,
            document_id: "D".into()
        }
    );
    assert!(read::<Event>(json!({"type": "tab_closed"}))
        .expect_err("no tab")
        .contains("missing field `tab_id`"));

    let ui: FromUi =
        read(json!({"type": "open_chat", "chat_id": "c", "label": "Chat"})).expect("ui");
    assert_eq!(
        ui,
        FromUi::OpenChat {
            chat_id: "c".into(),
            label: "Chat".into(),
            read_only: false
        }
    );
    assert!(read::<FromUi>(json!({"type": "answer", "card_id": 3}))
        .expect_err("no answer")
        .contains("missing field `answer`"));
    assert!(read::<FromUi>(
        json!({"type": "palette", "tab_id": 1, "answer": {"site": "allow_all"}})
    )
    .expect_err("a palette request carries no answer")
    .contains("unknown field `answer`"));
    assert!(
        read::<Event>(json!({"type": "tab_closed", "tab_id": 1, "documents": []}))
            .expect_err("not a tab_closed field")
            .contains("unknown field `documents`")
    );
}

#[test]
fn every_variant_refuses_a_field_it_does_not_have() {
    // serde reads a unit variant of a tagged enum ignoring any other field,
    // so the variants without fields are struct variants: each is checked.
    for message in [
        json!({"type": "agents", "tab_id": 1}),
        json!({"type": "connect_desktop", "extra": true}),
        json!({"type": "tabs_without_toolgate", "site": "https://a.example"}),
        json!({"type": "open_chat", "chat_id": "c", "label": "L", "request": {}}),
        json!({"type": "allow_extension", "extension_id": "e", "mystery": 1}),
    ] {
        let error = read::<FromUi>(message.clone()).expect_err("an unknown field");
        assert!(error.contains("unknown field"), "{message}: {error}");
    }
    for message in [
        json!({"type": "navigated", "tab_id": 1, "frame_id": 0, "document_id": "D", "url": "u"}),
        json!({"type": "live_documents", "tab_id": 1, "documents": [], "frame_id": 0}),
        json!({"type": "page", "from": {"tab_id": 1, "frame_id": 0, "document_id": "D",
            "origin": "https://a.example"}, "ops": [], "batch": 1}),
    ] {
        let error = read::<Event>(message.clone()).expect_err("an unknown field");
        assert!(error.contains("unknown field"), "{message}: {error}");
    }
    let error = read::<Vec<Op>>(json!([{"op": "reset"}, {"op": "reset", "x": 1}]))
        .expect_err("an unknown field");
    assert!(error.contains("unknown field `x`"), "{error}");
    // Without the unknown fields, each reads; the fields with defaults may be left out.
    for message in [
        json!({"type": "agents"}),
        json!({"type": "connect_desktop"}),
        json!({"type": "tabs_without_toolgate"}),
        json!({"type": "allow_extension", "extension_id": "e"}),
    ] {
        read::<FromUi>(message.clone()).unwrap_or_else(|e| panic!("{message}: {e}"));
    }
    // And each is written back as it was read.
    assert_eq!(
        serde_json::to_value(FromUi::Agents {}).expect("writes"),
        json!({"type": "agents"})
    );
    assert_eq!(
        serde_json::to_value(Op::Reset).expect("writes"),
        json!({"op": "reset"})
    );
}

#[test]
fn rules_change_only_through_toolgates_own_pages_never_an_agent_channel() {
    use toolgate::decisions::rules::{Change, Level, Target};
    use toolgate::protocol::bridge::FromAgent;
    // The settings page's change reads as one, whole.
    let ui: FromUi = read(json!({"type": "change_rules", "site": "https://a.example",
        "changes": [{"target": "kind", "kind": "delete", "level": "allowed"}, {"target": "tool", "name": "t", "level": null}]}))
    .expect("a change from the settings page");
    let FromUi::ChangeRules { site, changes } = ui else {
        panic!("{ui:?}")
    };
    assert_eq!(site, "https://a.example");
    assert_eq!(
        changes[1],
        Change::level(Target::Tool { name: "t".into() }, None)
    );
    assert_eq!(changes[0].level, Some(Level::Allowed));
    // A desktop agent's bridge and a page have no such message.
    let agent: Result<FromAgent, String> = read(
        json!({"type": "change_rules", "session": "s", "site": "https://a.example", "changes": []}),
    );
    assert!(agent.is_err(), "{agent:?}");
    let page: Result<FromPage, String> =
        read(json!({"type": "change_rules", "site": "https://a.example", "changes": []}));
    assert!(page.is_err(), "{page:?}");
}

#[test]
fn a_page_sends_reports_and_native_calls_and_nothing_else() {
    use toolgate::page::registry::Source;
    let page: FromPage =
        read(json!({"type": "updates", "batch": 3, "ops": [{"op": "reset"}]})).expect("page");
    let FromPage::Updates { batch: 3, ops } = page else {
        panic!("{page:?}")
    };
    assert_eq!(ops, [Op::Reset]);
    assert!(read::<FromPage>(json!({"type": "updates", "ops": []}))
        .expect_err("a report names its batch")
        .contains("missing field `batch`"));
    assert!(
        read::<FromPage>(json!({"type": "palette", "batch": 1, "ops": []}))
            .expect_err("a page cannot send a palette request")
            .contains("unknown variant `palette`")
    );
    // A native call names the tool and carries the browser's arguments as
    // they came; none count as `{}`.
    let call: FromPage = serde_json::from_str(
        r#"{"type":"native_call","call":4,"source":"document","name":"send","arguments":{"to":"a","n":[1,2]}}"#,
    )
    .expect("a native call");
    let FromPage::NativeCall {
        call: 4,
        source: Source::Document,
        name,
        arguments,
    } = call
    else {
        panic!("{call:?}")
    };
    assert_eq!(name, "send");
    assert_eq!(arguments.get(), r#"{"to":"a","n":[1,2]}"#);
    let bare: FromPage =
        read(json!({"type": "native_call", "call": 5, "source": "navigator", "name": "t"}))
            .expect("no arguments");
    let FromPage::NativeCall { arguments, .. } = bare else {
        panic!("{bare:?}")
    };
    assert_eq!(arguments.get(), "{}");
    // No field of another kind of message, and nothing that names the frame.
    assert!(read::<FromPage>(
        json!({"type": "native_call", "call": 4, "source": "document",
        "name": "t", "ops": []})
    )
    .expect_err("a native call carries no ops")
    .contains("unknown field `ops`"));
    assert!(read::<FromPage>(
        json!({"type": "native_call", "call": 4, "source": "document",
        "name": "t", "tab_id": 9})
    )
    .expect_err("the frame comes from the browser")
    .contains("unknown field `tab_id`"));
    assert!(
        read::<FromPage>(json!({"type": "native_call", "source": "document", "name": "t"}))
            .expect_err("a native call is numbered")
            .contains("missing field `call`")
    );
    // The page's own executeTool asks nothing: its input is not checked.
    let check = read::<FromPage>(json!({"type": "check_input"})).expect_err("no input checks");
    assert!(check.contains("unknown variant `check_input`"), "{check}");
}

#[test]
fn the_set_apart_page_asks_for_areas_and_properties_shown_as_cards_show_them() {
    use toolgate::decisions::rules::{area_shown, conditions::path_shown};
    use toolgate::messages::ShownKind;
    use toolgate::views::text::page_text_as;
    let ui: FromUi =
        read(json!({"type": "shown_as", "kind": "argument", "texts": ["memo\u{202E}", "to"]}))
            .expect("the set-apart page's question");
    assert_eq!(
        ui,
        FromUi::ShownAs {
            kind: ShownKind::Argument,
            texts: vec!["memo\u{202E}".into(), "to".into()]
        }
    );
    // Only the two kinds it shows; any other is refused in words.
    let error = read::<FromUi>(json!({"type": "shown_as", "kind": "result", "texts": []}))
        .expect_err("not a kind the set-apart page shows");
    assert!(error.contains("unknown variant `result`"), "{error}");
    // Each kind is shown as cards show it: a bidi override made visible, not obeyed.
    assert_eq!(
        page_text_as("memo\u{202E}", "argument").as_deref(),
        Some("memo\u{27E8}U+202E\u{27E9}")
    );
    assert_eq!(
        page_text_as("memo\u{202E}", "argument"),
        Some(path_shown("memo\u{202E}"))
    );
    assert_eq!(
        page_text_as("vault\u{202E}", "area"),
        Some(area_shown("vault\u{202E}"))
    );
    assert_eq!(
        page_text_as("vault\u{202E}", "area").as_deref(),
        Some("vault\u{27E8}U+202E\u{27E9}")
    );
    // Cut as cards cut them: an area at a title's length, a property at an argument name's.
    let long = "a".repeat(500);
    assert!(
        page_text_as(&long, "area")
            .expect("an area")
            .chars()
            .count()
            < 200
    );
    assert!(
        page_text_as(&long, "argument")
            .expect("a property")
            .chars()
            .count()
            < 100
    );
}
