//! The registry as a state machine: what each event does to a tab's tools, and
//! that a registry rebuilt from what it persisted is the same registry.

use serde_json::json;
use toolgate::page::registry::{Effect, Event, Registry, TabRecord};
use toolgate::views::palette::palette;

mod common;
use common::{frame, page};

fn tool(name: &str, path: &str, annotations: serde_json::Value) -> serde_json::Value {
    json!({"op": "register", "decl": {"path": path, "name": name, "description": "d", "annotations": annotations}})
}

/// The tab's palette as `site: name (badge)` lines.
fn names(registry: &Registry, tab_id: i64) -> Vec<String> {
    palette(registry, tab_id)
        .into_iter()
        .flat_map(|g| {
            g.entries
                .into_iter()
                .map(move |e| format!("{}: {} ({})", g.site, e.name, e.badge))
        })
        .collect()
}

/// Applies the effects the shell would: persist records, and return the badge count.
fn persist(store: &mut Vec<TabRecord>, effects: &[Effect]) -> Option<usize> {
    let mut badge = None;
    for effect in effects {
        match effect {
            Effect::Persist { tab_id, record } => {
                store.retain(|r| r.tab_id != *tab_id);
                store.extend(record.clone());
            }
            Effect::Badge { count, .. } => badge = Some(*count),
        }
    }
    badge
}

const SITE: &str = "http://notes.localhost:8000";

#[test]
fn registration_replacement_and_unregistration_change_the_palette() {
    let mut r = Registry::new();
    let top = frame(1, 0, "doc-a", SITE);
    let (results, effects) = r.apply(page(
        top.clone(),
        json!([
            tool("list_notes", "document_object", json!({"readOnlyHint": true})),
            tool("add_note", "document_object", json!({})),
            {"op": "register", "decl": {"path": "document_object", "name": "bad name", "description": "d"}},
        ]),
    ));
    assert_eq!(results.len(), 3);
    assert!(results[0].error.is_none() && results[1].error.is_none());
    assert!(
        results[2]
            .error
            .as_deref()
            .unwrap_or("")
            .contains("not a valid tool name"),
        "an invalid forged snapshot is refused with the reason"
    );
    let mut store = Vec::new();
    assert_eq!(persist(&mut store, &effects), Some(2));
    assert_eq!(
        names(&r, 1),
        [
            format!("{SITE}: list_notes (Read only)"),
            format!("{SITE}: add_note (Mutating)")
        ]
    );

    // A re-registration with changed hints is a new definition, classed anew, in place.
    r.apply(page(
        top.clone(),
        json!([tool(
            "list_notes",
            "document_object",
            json!({"destructiveHint": true})
        )]),
    ));
    assert_eq!(
        names(&r, 1),
        [
            format!("{SITE}: list_notes (Consequential)"),
            format!("{SITE}: add_note (Mutating)")
        ]
    );

    // One name is one tool in a document: the same name on
    // navigator.modelContext is refused as a duplicate while document's stands...
    let (results, _) = r.apply(page(
        top.clone(),
        json!([tool("add_note", "navigator_object", json!({}))]),
    ));
    assert_eq!(
        results[0].error.as_deref(),
        Some("InvalidStateError: a tool named \"add_note\" is already registered in this document, on document.modelContext")
    );
    assert_eq!(r.count(1), 2);
    // ...and registers once it is gone.
    r.apply(page(
        top.clone(),
        json!([{"op": "unregister", "source": "document", "kind": "tool", "name": "add_note"},
               tool("add_note", "navigator_object", json!({}))]),
    ));
    assert_eq!(
        names(&r, 1),
        [
            format!("{SITE}: list_notes (Consequential)"),
            format!("{SITE}: add_note (Consequential)")
        ]
    );
    let (_, effects) = r.apply(page(top, json!([{"op": "clear", "source": "navigator"}])));
    assert_eq!(persist(&mut store, &effects), Some(1));
}

#[test]
fn provide_context_replaces_only_what_it_provided() {
    let mut r = Registry::new();
    let top = frame(1, 0, "doc", SITE);
    let decl = |name: &str| json!({"path": "provide_context", "name": name, "description": "d"});
    r.apply(page(
        top.clone(),
        json!([
            tool("kept", "navigator_object", json!({})),
            {"op": "provide", "decls": [decl("a"), decl("b")]},
        ]),
    ));
    r.apply(page(top, json!([{"op": "provide", "decls": [decl("c")]}])));
    assert_eq!(
        names(&r, 1),
        [
            format!("{SITE}: kept (Consequential)"),
            format!("{SITE}: c (Consequential)")
        ]
    );
}

#[test]
fn navigation_frame_removal_and_tab_close_drop_tools() {
    let mut r = Registry::new();
    let iframe_site = "http://other.localhost:8001";
    r.apply(page(
        frame(1, 0, "top-1", SITE),
        json!([tool("a", "document_object", json!({}))]),
    ));
    r.apply(page(
        frame(1, 7, "frame-1", iframe_site),
        json!([tool("b", "document_object", json!({}))]),
    ));
    // A cross-origin iframe's tools belong to its own site.
    let groups = palette(&r, 1);
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[1].site, iframe_site);
    assert_eq!(groups[1].entries[0].frame_id, 7);

    // The iframe was removed: it is not among the live documents.
    let (_, effects) = r.apply(Event::LiveDocuments {
        tab_id: 1,
        documents: vec![(0, "top-1".into())],
    });
    assert!(!effects.is_empty());
    assert_eq!(names(&r, 1), [format!("{SITE}: a (Mutating)")]);

    // The top frame navigated to a new document.
    let mut store = Vec::new();
    let (_, effects) = r.apply(Event::Navigated {
        tab_id: 1,
        frame_id: 0,
        document_id: "top-2".into(),
    });
    assert_eq!(persist(&mut store, &effects), Some(0));
    assert!(
        store.is_empty(),
        "a tab with no tools is removed from storage"
    );

    // A message from a new document replaces the old document's tools.
    r.apply(page(
        frame(2, 0, "d1", SITE),
        json!([tool("x", "document_object", json!({}))]),
    ));
    r.apply(page(
        frame(2, 0, "d2", SITE),
        json!([tool("y", "document_object", json!({}))]),
    ));
    assert_eq!(names(&r, 2), [format!("{SITE}: y (Mutating)")]);

    let (_, effects) = r.apply(Event::TabClosed { tab_id: 2 });
    assert_eq!(persist(&mut store, &effects), Some(0));
    assert!(names(&r, 2).is_empty());
}

#[test]
fn a_registry_loaded_from_what_it_persisted_is_the_same() {
    let mut r = Registry::new();
    let mut store = Vec::new();
    for (tab, ops) in [
        (
            1,
            json!([
                tool("a", "document_object", json!({"readOnlyHint": true})),
                tool("b", "navigator_positional", json!({}))
            ]),
        ),
        (
            2,
            json!([{"op": "provide", "decls": [{"path": "provide_context", "name": "p", "description": "d"}]}]),
        ),
    ] {
        let (_, effects) = r.apply(page(frame(tab, 0, "doc", SITE), ops));
        persist(&mut store, &effects);
    }
    let text = serde_json::to_string(&store).expect("records serialise");
    let loaded =
        Registry::load(serde_json::from_str::<Vec<TabRecord>>(&text).expect("records parse"));
    assert_eq!(loaded, r);
    assert_eq!(palette(&loaded, 1), palette(&r, 1));
}

#[test]
fn reset_starts_the_document_over() {
    let mut r = Registry::new();
    let top = frame(1, 0, "doc", SITE);
    r.apply(page(
        top.clone(),
        json!([tool("a", "document_object", json!({}))]),
    ));
    r.apply(page(
        top,
        json!([{"op": "reset"}, tool("b", "document_object", json!({}))]),
    ));
    assert_eq!(names(&r, 1), [format!("{SITE}: b (Mutating)")]);
}

#[test]
fn a_page_cannot_slip_fields_into_an_op() {
    let forged = json!([{"op": "unregister", "source": "document", "kind": "tool", "name": "x",
                         "origin": "https://bank.example"}]);
    assert!(serde_json::from_value::<Vec<toolgate::page::registry::Op>>(forged).is_err());
}

#[test]
fn a_late_reset_from_a_replaced_document_changes_nothing() {
    let mut r = Registry::new();
    r.apply(page(
        frame(1, 0, "new", SITE),
        json!([tool("fresh", "document_object", json!({}))]),
    ));
    let (_, effects) = r.apply(page(frame(1, 0, "old", SITE), json!([{"op": "reset"}])));
    assert!(effects.is_empty());
    assert_eq!(names(&r, 1), [format!("{SITE}: fresh (Mutating)")]);
    // The current document going away does clear the frame.
    r.apply(page(frame(1, 0, "new", SITE), json!([{"op": "reset"}])));
    assert!(names(&r, 1).is_empty());
}
