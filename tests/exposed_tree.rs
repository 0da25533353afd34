//! Pages calling each other's tools where the worker carries the call
//! (`decisions::exposed::tree`: Toolgate's polyfill, Chromium 148): the
//! permissions policy's "tools" over the worker's view of a tab's frames,
//! what a frame may list, which frames hear a change, and the pass a call
//! is granted and takes in one turn, for the frame the caller named only.

use serde_json::{json, Value};
use toolgate::decisions::exposed::tree::{Listener, Tree};
use toolgate::decisions::exposed::ExposedRun;
use toolgate::messages::FromPage;
use toolgate::page::registry::FrameRef;
use toolgate::toolgate::Toolgate;

mod common;
use common::{frame, page};

const PARENT: &str = "https://parent.example";
const CHILD: &str = "https://child.example";
const OTHER: &str = "https://other.example";
const NOW: u64 = 1_000_000;

fn parent() -> FrameRef {
    frame(1, 0, "parent-doc", PARENT)
}
fn child() -> FrameRef {
    frame(1, 5, "child-doc", CHILD)
}
fn other() -> FrameRef {
    frame(1, 6, "other-doc", OTHER)
}

/// Tab 1: the parent (frame 0) with the child (frame 5, its frames[0]) and
/// a frame of a third origin (frame 6, its frames[1]); `allow` is what the
/// child's container says of "tools" (`null`: nothing).
fn tree(allow: Value) -> Tree {
    serde_json::from_value(json!([
        {"frame_id": 0, "parent_frame_id": -1, "document_id": "parent-doc", "origin": PARENT, "path": [],
            "children": [allow, {"all": true}]},
        {"frame_id": 5, "parent_frame_id": 0, "document_id": "child-doc", "origin": CHILD, "path": [0]},
        {"frame_id": 6, "parent_frame_id": 0, "document_id": "other-doc", "origin": OTHER, "path": [1]},
    ]))
    .unwrap()
}

fn allowed() -> Tree {
    tree(json!({"all": true}))
}

/// The parent registers `exposed` (to the child's origin), `elsewhere` (to
/// the third origin) and `own` (to no one).
fn toolgate() -> Toolgate {
    let mut core = Toolgate::default();
    core.apply(page(
        parent(),
        json!([
            {"op": "register", "decl": {"path": "document_object", "name": "exposed", "description": "To the child",
                "exposed_to": [CHILD]}},
            {"op": "register", "decl": {"path": "document_object", "name": "elsewhere", "description": "To the other",
                "exposed_to": [OTHER]}},
            {"op": "register", "decl": {"path": "document_object", "name": "own", "description": "To no one"}},
        ]),
    ));
    core
}

fn names(core: &Toolgate, caller: &FrameRef, from: &[&str], tree: &Tree) -> Vec<String> {
    let from: Vec<String> = from.iter().map(|o| o.to_string()).collect();
    core.exposed_tools(caller, &from, tree)
        .into_iter()
        .map(|t| format!("{}@{} {:?}", t.name, t.origin, t.path))
        .collect()
}

fn run(origin: &str, name: &str, path: &[u32], arguments: Value) -> ExposedRun {
    ExposedRun {
        origin: origin.into(),
        name: name.into(),
        path: path.to_vec(),
        arguments: serde_json::value::to_raw_value(&arguments).unwrap(),
    }
}

#[test]
fn the_permissions_policy_allows_the_top_frame_and_the_children_its_containers_allow() {
    let cases = [
        (json!({"all": true}), true, "allow=\"tools *\""),
        (
            json!({"origins": [CHILD]}),
            true,
            "an allowlist naming the child's origin",
        ),
        (
            json!({"origins": [OTHER]}),
            false,
            "an allowlist naming another origin",
        ),
        (json!({}), false, "allow=\"tools 'none'\""),
        (
            Value::Null,
            false,
            "no tools in allow: a cross-origin child is not allowed",
        ),
    ];
    for (allow, expected, what) in cases {
        let tree = tree(allow);
        assert!(tree.allowed(0), "the top frame, {what}");
        assert_eq!(tree.allowed(5), expected, "{what}");
    }
    // A same-origin child needs no allow; a grandchild of a frame the
    // policy does not allow is not allowed, whatever its own container says.
    let nested: Tree = serde_json::from_value(json!([
        {"frame_id": 0, "parent_frame_id": -1, "document_id": "a", "origin": PARENT, "path": [], "children": [null, null]},
        {"frame_id": 1, "parent_frame_id": 0, "document_id": "b", "origin": PARENT, "path": [0]},
        {"frame_id": 2, "parent_frame_id": 0, "document_id": "c", "origin": CHILD, "path": [1], "children": [{"all": true}]},
        {"frame_id": 3, "parent_frame_id": 2, "document_id": "d", "origin": OTHER, "path": [1, 0]},
        {"frame_id": 4, "parent_frame_id": 0, "document_id": "e", "path": [2]},
        {"frame_id": 7, "parent_frame_id": 99, "document_id": "f", "origin": PARENT, "path": [0, 0]},
    ]))
    .unwrap();
    assert!(nested.allowed(1), "a same-origin child");
    assert!(!nested.allowed(2), "a cross-origin child with no allow");
    assert!(!nested.allowed(3), "the child of a frame not allowed");
    assert!(!nested.allowed(4), "a frame whose relay said nothing");
    assert!(!nested.allowed(7), "a frame whose parent the tree lacks");
    assert!(!nested.allowed(42), "a frame the tree lacks");
}

#[test]
fn a_frame_lists_only_the_tools_other_origins_frames_expose_to_it_both_allowed() {
    let core = toolgate();
    assert_eq!(
        names(&core, &child(), &[PARENT], &allowed()),
        ["exposed@https://parent.example []"]
    );
    assert_eq!(
        names(&core, &other(), &[PARENT], &allowed()),
        ["elsewhere@https://parent.example []"]
    );
    // Not of the origins asked for, or not allowed "tools".
    assert!(names(&core, &child(), &[OTHER], &allowed()).is_empty());
    assert!(names(&core, &child(), &[PARENT], &tree(Value::Null)).is_empty());
    // A caller the browser names otherwise than the tree does lists nothing.
    assert!(names(
        &core,
        &frame(1, 5, "another-doc", CHILD),
        &[PARENT],
        &allowed()
    )
    .is_empty());
    assert!(names(
        &core,
        &frame(1, 5, "child-doc", OTHER),
        &[PARENT],
        &allowed()
    )
    .is_empty());
    // A frame of the parent's own origin lists none of them this way.
    assert!(names(
        &core,
        &frame(1, 0, "parent-doc", PARENT),
        &[PARENT],
        &allowed()
    )
    .is_empty());
}

#[test]
fn a_change_is_heard_by_the_allowed_frames_of_the_origins_it_was_exposed_to() {
    let mut core = Toolgate::default();
    let exposed = |name: &str, to: &str| json!([{"op": "register", "decl": {"path": "document_object", "name": name, "description": "d", "exposed_to": [to]}}]);
    let (_, _, changed) = core.apply_page(
        parent(),
        serde_json::from_value(exposed("a", CHILD)).unwrap(),
    );
    assert_eq!(changed, [CHILD]);
    let (_, _, changed) = core.apply_page(
        parent(),
        serde_json::from_value(json!([{"op": "register", "decl": {"path": "document_object", "name": "b", "description": "d"}}]))
            .unwrap(),
    );
    assert!(
        changed.is_empty(),
        "a tool exposed to no one changes nothing for other origins"
    );
    let (_, _, changed) = core.apply_page(
        parent(),
        serde_json::from_value(exposed("c", OTHER)).unwrap(),
    );
    assert_eq!(changed, [OTHER]);
    let (_, _, changed) = core.apply_page(
        parent(),
        serde_json::from_value(
            json!([{"op": "unregister", "source": "document", "kind": "tool", "name": "a"}]),
        )
        .unwrap(),
    );
    assert_eq!(changed, [CHILD]);

    let child_hears = vec![Listener {
        frame_id: 5,
        document_id: "child-doc".into(),
    }];
    let origins = [CHILD.to_string()];
    assert_eq!(
        Toolgate::exposed_listeners(&parent(), &origins, &allowed()),
        child_hears
    );
    // Not a child its container does not allow (WPT: "Cross-origin iframe
    // without permissions policy does not receive toolchange event").
    assert!(Toolgate::exposed_listeners(&parent(), &origins, &tree(Value::Null)).is_empty());
    // The frames of the origins named only, never the owner's own origin's.
    assert_eq!(
        Toolgate::exposed_listeners(&parent(), &[OTHER.to_string()], &allowed()),
        vec![Listener {
            frame_id: 6,
            document_id: "other-doc".into()
        }]
    );
    assert!(Toolgate::exposed_listeners(&parent(), &[PARENT.to_string()], &allowed()).is_empty());
    assert!(Toolgate::exposed_listeners(&child(), &[CHILD.to_string()], &allowed()).is_empty());
    // A child the policy does not allow tells no one of its tools.
    assert!(
        Toolgate::exposed_listeners(&child(), &[PARENT.to_string()], &tree(Value::Null)).is_empty()
    );
    assert_eq!(
        Toolgate::exposed_listeners(&child(), &[PARENT.to_string()], &allowed()),
        vec![Listener {
            frame_id: 0,
            document_id: "parent-doc".into()
        }]
    );
}

#[test]
fn a_call_runs_in_the_frame_the_caller_named_with_the_pass_taken_at_once() {
    let mut core = toolgate();
    let (call, page_call) = core
        .polyfill_call(
            &child(),
            &run(PARENT, "exposed", &[], json!({"q": 1})),
            &allowed(),
            NOW,
        )
        .unwrap();
    assert_eq!(
        (call.tab_id, call.frame_id, call.document_id.as_str()),
        (1, 0, "parent-doc")
    );
    assert_eq!(call.arguments.get(), r#"{"q":1}"#);
    assert_eq!(
        (
            page_call.caller.as_str(),
            page_call.site.as_str(),
            page_call.tool.as_str()
        ),
        (CHILD, PARENT, "exposed")
    );
    // The pass was used up in that turn: the browser's agent's call with
    // the same arguments finds none.
    let native: toolgate::decisions::agent::FrameCall = serde_json::from_str(
        r#"{"tab_id": 1, "frame_id": 0, "document_id": "parent-doc", "source": "document", "name": "exposed", "arguments": {"q": 1}}"#,
    )
    .unwrap();
    assert_eq!(core.page_call(&native, NOW), None);
}

#[test]
fn no_call_runs_for_a_tool_frame_or_caller_the_owner_did_not_expose_it_to_and_no_pass_is_left() {
    let mut core = toolgate();
    let refused = [
        (
            child(),
            run(PARENT, "own", &[], json!({})),
            allowed(),
            "a tool exposed to no one",
        ),
        (
            child(),
            run(PARENT, "elsewhere", &[], json!({})),
            allowed(),
            "a tool exposed to another origin",
        ),
        (
            child(),
            run(PARENT, "exposed", &[1], json!({})),
            allowed(),
            "another frame than the owner's",
        ),
        (
            child(),
            run(OTHER, "exposed", &[1], json!({})),
            allowed(),
            "an origin without the tool",
        ),
        (
            child(),
            run(PARENT, "exposed", &[], json!({})),
            tree(Value::Null),
            "a caller the policy does not allow",
        ),
        (
            frame(1, 5, "forged-doc", CHILD),
            run(PARENT, "exposed", &[], json!({})),
            allowed(),
            "a caller the tree does not show",
        ),
        (
            frame(1, 0, "parent-doc", PARENT),
            run(PARENT, "exposed", &[], json!({})),
            allowed(),
            "the owner's own origin",
        ),
    ];
    for (caller, run, tree, what) in refused {
        assert!(
            core.polyfill_call(&caller, &run, &tree, NOW).is_err(),
            "refused: {what}"
        );
    }
    let native: toolgate::decisions::agent::FrameCall = serde_json::from_str(
        r#"{"tab_id": 1, "frame_id": 0, "document_id": "parent-doc", "source": "document", "name": "exposed", "arguments": {}}"#,
    )
    .unwrap();
    assert_eq!(core.page_call(&native, NOW), None, "no pass left waiting");
}

#[test]
fn a_frames_requests_of_exposed_tools_are_read_as_their_own_fields_only() {
    let read = |text: &str| serde_json::from_str::<FromPage>(text);
    assert!(matches!(
        read(r#"{"type":"exposed_tools","call":3,"from_origins":["https://parent.example"]}"#).unwrap(),
        FromPage::ExposedTools { call: 3, from_origins } if from_origins == [PARENT]
    ));
    assert!(matches!(
        read(r#"{"type":"exposed_run","call":4,"origin":"https://parent.example","name":"exposed","path":[0,2],"arguments":{"q":1}}"#).unwrap(),
        FromPage::ExposedRun { call: 4, run } if run.path == [0, 2] && run.arguments.get() == r#"{"q":1}"#
    ));
    for forged in [
        r#"{"type":"exposed_tools","call":3,"from_origins":[],"origin":"https://child.example"}"#,
        r#"{"type":"exposed_run","call":4,"origin":"https://parent.example","name":"exposed","arguments":{}}"#,
        r#"{"type":"exposed_run","call":4,"origin":"https://parent.example","name":"exposed","path":[-1],"arguments":{}}"#,
        r#"{"type":"exposed_tools","call":3}"#,
    ] {
        assert!(read(forged).is_err(), "refused: {forged}");
    }
}
