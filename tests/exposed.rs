//! Pages calling each other's tools (`decisions::exposed`): a frame's page
//! announces a call of a tool a frame of another origin in its tab exposed to
//! it; the native call that then reaches that frame with exactly those
//! arguments runs as the page's, once; any other is the browser's agent's.

use serde_json::{json, Value};
use toolgate::decisions::agent::FrameCall;
use toolgate::decisions::exposed::{
    ExposedCall, PageCall, PASSES_A_DOCUMENT, PASS_BYTES_A_DOCUMENT, PASS_MS,
};
use toolgate::messages::FromPage;
use toolgate::page::registry::FrameRef;
use toolgate::toolgate::Toolgate;

mod common;
use common::{frame, page};

const PARENT: &str = "https://parent.example";
const CHILD: &str = "https://child.example";
const OTHER: &str = "https://other.example";
const NOW: u64 = 1_000_000;

/// Tab 1: the parent (frame 0) registers `exposed` (exposed to the child's
/// origin) and `own` (exposed to no one); the child (frame 5) is of another
/// origin. Tab 2 has a frame of the parent's origin with the same tool.
fn toolgate() -> Toolgate {
    let mut core = Toolgate::default();
    let tools = json!([
        {"op": "register", "decl": {"path": "document_object", "name": "exposed", "description": "Exposed to the child",
            "exposed_to": [CHILD]}},
        {"op": "register", "decl": {"path": "document_object", "name": "own", "description": "Exposed to no one"}},
    ]);
    core.apply(page(frame(1, 0, "parent-doc", PARENT), tools.clone()));
    core.apply(page(frame(2, 0, "parent-doc-2", PARENT), tools));
    core
}

fn child() -> FrameRef {
    frame(1, 5, "child-doc", CHILD)
}

fn announce(
    core: &mut Toolgate,
    caller: &FrameRef,
    origin: &str,
    name: &str,
    arguments: Value,
    now: u64,
) -> Result<(), String> {
    let call = ExposedCall {
        origin: origin.into(),
        name: name.into(),
        arguments: serde_json::value::to_raw_value(&arguments).unwrap(),
    };
    core.exposed_call(caller, &call, now)
}

/// The native call the browser makes of `name` in tab `tab`'s frame 0.
fn native(
    core: &mut Toolgate,
    tab: i64,
    name: &str,
    arguments: &str,
    now: u64,
) -> Option<PageCall> {
    let document = if tab == 1 {
        "parent-doc"
    } else {
        "parent-doc-2"
    };
    let call: FrameCall = serde_json::from_str(&format!(
        r#"{{"tab_id": {tab}, "frame_id": 0, "document_id": "{document}", "source": "document", "name": "{name}", "arguments": {arguments}}}"#
    ))
    .unwrap();
    core.page_call(&call, now)
}

#[test]
fn an_announced_call_of_an_exposed_tool_runs_as_the_pages_once() {
    let mut core = toolgate();
    announce(
        &mut core,
        &child(),
        PARENT,
        "exposed",
        json!({"q": 1, "r": [true, null]}),
        NOW,
    )
    .unwrap();
    // The browser writes the arguments again: the same JSON, whatever its order.
    let ran = native(
        &mut core,
        1,
        "exposed",
        r#"{"r": [true, null], "q": 1}"#,
        NOW + 5,
    );
    assert_eq!(
        ran,
        Some(PageCall {
            caller: CHILD.into(),
            site: PARENT.into(),
            tool: "exposed".into()
        })
    );
    // One call a pass: the next is the browser's agent's.
    assert_eq!(
        native(
            &mut core,
            1,
            "exposed",
            r#"{"r": [true, null], "q": 1}"#,
            NOW + 6
        ),
        None
    );
}

#[test]
fn no_pass_for_a_tool_not_exposed_to_the_caller_nor_for_a_caller_of_the_tools_own_origin() {
    let mut core = toolgate();
    let refused = [
        (child(), PARENT, "own", "a tool not exposed to the caller"),
        (
            frame(1, 6, "other-doc", OTHER),
            PARENT,
            "exposed",
            "a caller it is not exposed to",
        ),
        (
            frame(1, 7, "same-doc", PARENT),
            PARENT,
            "exposed",
            "a caller of its own origin",
        ),
        (
            frame(1, 8, "opaque-doc", "null"),
            PARENT,
            "exposed",
            "an opaque caller",
        ),
        (child(), OTHER, "exposed", "an origin that has no such tool"),
        (child(), PARENT, "missing", "a tool nobody registered"),
        (
            frame(3, 5, "child-doc-3", CHILD),
            PARENT,
            "exposed",
            "a tab with no such tool of that origin",
        ),
    ];
    for (caller, origin, tool, what) in refused {
        assert!(
            announce(&mut core, &caller, origin, tool, json!({}), NOW).is_err(),
            "no pass for {what}"
        );
    }
    assert_eq!(native(&mut core, 1, "own", "{}", NOW), None);
    assert_eq!(native(&mut core, 1, "exposed", "{}", NOW), None);
}

#[test]
fn a_pass_holds_for_its_own_arguments_tab_and_time_only() {
    let mut core = toolgate();
    announce(&mut core, &child(), PARENT, "exposed", json!({"q": 1}), NOW).unwrap();
    // An agent choosing other arguments gains nothing.
    assert_eq!(native(&mut core, 1, "exposed", r#"{"q": 2}"#, NOW), None);
    assert_eq!(native(&mut core, 1, "exposed", r#"{"q": 1.5}"#, NOW), None);
    assert_eq!(
        native(&mut core, 1, "exposed", r#"{"q": 1, "more": 0}"#, NOW),
        None
    );
    // The same tool in another tab.
    assert_eq!(native(&mut core, 2, "exposed", r#"{"q": 1}"#, NOW), None);
    // Past its time.
    assert_eq!(
        native(&mut core, 1, "exposed", r#"{"q": 1}"#, NOW + PASS_MS),
        None
    );
}

#[test]
fn a_pass_is_not_taken_once_the_tool_is_no_longer_exposed_to_the_caller() {
    let mut core = toolgate();
    announce(&mut core, &child(), PARENT, "exposed", json!({}), NOW).unwrap();
    core.apply(page(
        frame(1, 0, "parent-doc", PARENT),
        json!([{"op": "unregister", "source": "document", "kind": "tool", "name": "exposed"},
               {"op": "register", "decl": {"path": "document_object", "name": "exposed", "description": "Now exposed to no one"}}]),
    ));
    assert_eq!(native(&mut core, 1, "exposed", "{}", NOW), None);
}

#[test]
fn a_calling_document_holds_a_bounded_number_of_passes() {
    let mut core = toolgate();
    for i in 0..PASSES_A_DOCUMENT {
        announce(
            &mut core,
            &child(),
            PARENT,
            "exposed",
            json!({ "i": i }),
            NOW,
        )
        .unwrap();
    }
    assert!(announce(
        &mut core,
        &child(),
        PARENT,
        "exposed",
        json!({"i": "one more"}),
        NOW
    )
    .is_err());
    // Another document of the same origin has room of its own.
    announce(
        &mut core,
        &frame(1, 9, "child-doc-9", CHILD),
        PARENT,
        "exposed",
        json!({}),
        NOW,
    )
    .unwrap();
    // Once they expire, room again.
    announce(
        &mut core,
        &child(),
        PARENT,
        "exposed",
        json!({}),
        NOW + PASS_MS,
    )
    .unwrap();
    // And a bounded size of arguments.
    let big = "x".repeat(PASS_BYTES_A_DOCUMENT);
    let mut fresh = toolgate();
    assert!(announce(
        &mut fresh,
        &child(),
        PARENT,
        "exposed",
        json!({ "big": big }),
        NOW
    )
    .is_err());
}

#[test]
fn an_announcement_is_read_as_a_page_message_with_its_own_fields_only() {
    let read: FromPage = serde_json::from_str(
        r#"{"type":"exposed_call","call":3,"origin":"https://parent.example","name":"exposed","arguments":{"q":1}}"#,
    )
    .unwrap();
    match read {
        FromPage::ExposedCall { call, exposed } => {
            assert_eq!(
                (
                    call,
                    exposed.origin.as_str(),
                    exposed.name.as_str(),
                    exposed.arguments.get()
                ),
                (3, PARENT, "exposed", r#"{"q":1}"#)
            );
        }
        other => panic!("read as {other:?}"),
    }
    for forged in [
        r#"{"type":"exposed_call","call":3,"origin":"o","name":"n","arguments":{},"source":"document"}"#,
        r#"{"type":"exposed_call","call":3,"name":"n","arguments":{}}"#,
        r#"{"type":"native_call","call":3,"origin":"o","name":"n","source":"document","arguments":{}}"#,
    ] {
        assert!(
            serde_json::from_str::<FromPage>(forged).is_err(),
            "{forged}"
        );
    }
}
