//! The registry as a state machine: what each event does to a tab's tools, and
//! that a registry rebuilt from what it persisted is the same registry.

use serde_json::json;
use toolgate::page::registry::{Effect, Event, Registry};
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

/// What the shell stores: key → a stored tool's JSON text.
type Store = std::collections::BTreeMap<String, String>;

/// Applies the effects the shell would: store and remove keys, and return
/// the badge count (if it changed).
fn persist(store: &mut Store, effects: &[Effect]) -> Option<usize> {
    let mut badge = None;
    for effect in effects {
        match effect {
            Effect::Store { set, remove, .. } => {
                for key in remove {
                    assert!(set.get(key).is_none(), "{key} both set and removed");
                    store.remove(key);
                }
                store.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
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
    let mut store = Store::new();
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
    let mut store = Store::new();
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
    let mut store = Store::new();
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
    let loaded = Registry::load(&store).expect("stored tools load");
    assert_eq!(loaded, r);
    assert_eq!(palette(&loaded, 1), palette(&r, 1));
}

#[test]
fn a_loaded_registry_s_unread_tabs_still_leave_storage_as_they_close_or_navigate() {
    // Three tabs stored, then loaded as a new worker does: none read yet.
    let mut r = Registry::new();
    let mut store = Store::new();
    for tab in [1, 2, 3] {
        let (_, effects) = r.apply(page(
            frame(tab, 0, "doc", SITE),
            json!([
                tool("a", "document_object", json!({})),
                tool("b", "document_object", json!({}))
            ]),
        ));
        persist(&mut store, &effects);
    }
    let mut loaded = Registry::load(&store).expect("loads");
    assert_eq!(loaded.tabs_read(), 0);
    // Tab 1 closes and tab 2 navigates before either was needed: their keys
    // go, with the badge; tab 3's stay.
    let (_, effects) = loaded.apply(Event::TabClosed { tab_id: 1 });
    assert_eq!(persist(&mut store, &effects), Some(0));
    let (_, effects) = loaded.apply(Event::Navigated {
        tab_id: 2,
        frame_id: 0,
        document_id: "doc-2".into(),
    });
    assert_eq!(persist(&mut store, &effects), Some(0));
    assert_eq!(
        loaded.tabs_read(),
        0,
        "tab 3 is not read for the others' events"
    );
    assert!(
        store.keys().all(|key| key.starts_with("tool:3:")),
        "{store:?}"
    );
    assert_eq!(store.len(), 2);
    assert_eq!(names(&loaded, 3).len(), 2);
    assert_eq!(loaded.tabs_read(), 1);
}

#[test]
fn stored_tools_that_no_longer_read_leave_storage_with_their_tab_s_next_event() {
    // Two tabs stored; beside them, records no core can read (another
    // version's, or text that is not JSON): tab 1 has two besides its tool,
    // tab 2 only one.
    let mut r = Registry::new();
    let mut store = Store::new();
    for tab in [1, 2] {
        let (_, effects) = r.apply(page(
            frame(tab, 0, "doc", SITE),
            json!([tool("a", "document_object", json!({}))]),
        ));
        persist(&mut store, &effects);
    }
    store.insert("tool:1:90".into(), "{".into());
    store.insert("tool:1:91".into(), json!({"tab_id": 1}).to_string());
    store.insert("tool:2:92".into(), "[]".into());
    let mut loaded = Registry::load(&store).expect("loads");
    // Tab 1's page reports again: its unreadable records go, its tool stays.
    let (_, effects) = loaded.apply(page(
        frame(1, 0, "doc", SITE),
        json!([tool("b", "document_object", json!({}))]),
    ));
    persist(&mut store, &effects);
    assert!(
        !store.contains_key("tool:1:90") && !store.contains_key("tool:1:91"),
        "{store:?}"
    );
    assert_eq!(names(&loaded, 1).len(), 2);
    assert_eq!(store.keys().filter(|k| k.starts_with("tool:1:")).count(), 2);
    // Tab 2 closes: every key of it goes, the unreadable one too.
    let (_, effects) = loaded.apply(Event::TabClosed { tab_id: 2 });
    persist(&mut store, &effects);
    assert!(store.keys().all(|k| k.starts_with("tool:1:")), "{store:?}");
    // Nothing more to remove after: a later event of tab 1 removes nothing.
    let (_, effects) = loaded.apply(page(
        frame(1, 0, "doc", SITE),
        json!([tool("c", "document_object", json!({}))]),
    ));
    assert!(
        effects
            .iter()
            .all(|e| !matches!(e, Effect::Store { remove, .. } if !remove.is_empty())),
        "{effects:?}"
    );
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

/// A tool whose description is `bytes` long.
fn sized(name: &str, bytes: usize) -> serde_json::Value {
    json!({"op": "register", "decl": {"path": "document_object", "name": name,
           "description": "d".repeat(bytes), "annotations": {"readOnlyHint": true}}})
}

/// The `Store` effect among `effects`: (keys set, keys removed, bytes of text set).
fn stored(effects: &[Effect]) -> (usize, usize, usize) {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Store { set, remove, .. } => {
                Some((set.len(), remove.len(), set.values().map(String::len).sum()))
            }
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn a_report_stores_only_what_it_changed() {
    // 600 tools of 3 KB in one tab; each report re-registers one of them.
    let mut r = Registry::new();
    let top = frame(1, 0, "doc", SITE);
    let all: Vec<_> = (0..600).map(|i| sized(&format!("t{i}"), 3000)).collect();
    let (results, _) = r.apply(page(top.clone(), json!(all)));
    assert!(results.iter().all(|r| r.error.is_none()), "all 600 fit");
    let (_, effects) = r.apply(page(top.clone(), json!([sized("t7", 3100)])));
    let (set, removed, bytes) = stored(&effects);
    assert_eq!((set, removed), (1, 0), "one tool's key written");
    assert!(
        bytes < 4000,
        "one tool's text, not the tab's: {bytes} bytes"
    );
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Badge { .. })),
        "the count did not change: no badge"
    );
    let (_, effects) = r.apply(page(
        top,
        json!([{"op": "unregister", "source": "document", "kind": "tool", "name": "t8"}]),
    ));
    assert_eq!(stored(&effects), (0, 1, 0), "one key removed");
}

#[test]
fn a_tab_a_site_and_every_page_together_are_capped_with_a_clear_error() {
    use toolgate::page::registry::{PAGE_BYTES, SITE_BYTES, TAB_BYTES};
    let mut r = Registry::new();
    // One tab floods, 60 KB a tool: what passes its cap is refused, said so.
    let flood: Vec<_> = (0..100).map(|i| sized(&format!("f{i}"), 60_000)).collect();
    let (results, _) = r.apply(page(frame(1, 0, "doc", SITE), json!(flood)));
    let refused: Vec<_> = results.iter().filter_map(|r| r.error.as_deref()).collect();
    assert!(!refused.is_empty());
    assert_eq!(
        refused[0],
        "Toolgate stores at most 2 MB (2097152 bytes) of tools for one tab; this tool would pass it"
    );
    assert!(r.stored_bytes() <= TAB_BYTES);
    assert!(
        r.stored_bytes() > TAB_BYTES - 70_000,
        "filled up to the cap"
    );
    // Its iframes of other sites share the tab's cap.
    let (results, _) = r.apply(page(
        frame(1, 3, "inner", "https://other.example"),
        json!([sized("x", 60_000)]),
    ));
    assert!(results[0]
        .error
        .as_deref()
        .unwrap_or("")
        .contains("one tab"));

    // The same site in a second tab: the site's cap, across its tabs.
    let more: Vec<_> = (0..100).map(|i| sized(&format!("g{i}"), 60_000)).collect();
    let (results, _) = r.apply(page(frame(2, 0, "doc2", SITE), json!(more)));
    let error = results
        .iter()
        .find_map(|r| r.error.clone())
        .expect("refused");
    assert_eq!(
        error,
        format!("Toolgate stores at most 3 MB (3145728 bytes) of tools for one site ({SITE}), across its tabs; this tool would pass it")
    );
    assert!(r.stored_bytes() <= SITE_BYTES);

    // Other sites in other tabs, until every page together is at its cap.
    let mut last = None;
    for tab in 3..8 {
        let many: Vec<_> = (0..40).map(|i| sized(&format!("h{i}"), 60_000)).collect();
        let (results, _) = r.apply(page(
            frame(tab, 0, "d", &format!("https://site{tab}.example")),
            json!(many),
        ));
        last = results.iter().find_map(|r| r.error.clone()).or(last);
    }
    assert_eq!(
        last.as_deref(),
        Some("Toolgate stores at most 6 MB (6291456 bytes) of tools for every tab together; this tool would pass it")
    );
    assert!(r.stored_bytes() <= PAGE_BYTES);
    // A closed tab gives its room back.
    r.apply(Event::TabClosed { tab_id: 1 });
    let (results, _) = r.apply(page(
        frame(9, 0, "d", "https://late.example"),
        json!([sized("late", 60_000)]),
    ));
    assert!(results[0].error.is_none(), "{:?}", results[0].error);
}

#[test]
fn what_is_stored_of_a_tool_is_cut_to_what_is_shown_and_reads_back_the_same() {
    let mut r = Registry::new();
    let mut store = Store::new();
    let huge = json!({"op": "register", "decl": {"path": "document_object", "name": "huge",
        "description": "d".repeat(5 * 1024 * 1024), "title": "t".repeat(100_000),
        "input_schema": format!("{{\"description\": \"{}\"}}", "s".repeat(100_000)),
        "annotations": {"readOnlyHint": true, "noise": "n".repeat(100_000)},
        "tags": vec!["tag"; 10_000]}});
    let (_, effects) = r.apply(page(frame(1, 0, "doc", SITE), json!([huge])));
    persist(&mut store, &effects);
    let bytes: usize = store.values().map(String::len).sum();
    assert!(bytes < 2 * 65_536 + 2_000, "stored: {bytes} bytes");
    let entry = &palette(&r, 1)[0].entries[0];
    assert_eq!(entry.badge.to_string(), "Consequential");
    let loaded = Registry::load(&store).expect("loads");
    assert_eq!(loaded, r, "the tool read back is the same tool");
    assert_eq!(palette(&loaded, 1), palette(&r, 1));
    let text = serde_json::to_string(&palette(&loaded, 1)).expect("a palette");
    for part in ["description", "title", "inputSchema"] {
        assert!(
            text.contains(&format!("{part} is longer than 65536 bytes")),
            "{part}'s note kept: {text:.300}"
        );
    }
}

#[test]
fn a_registry_loaded_after_replacements_and_removals_is_the_same() {
    let mut r = Registry::new();
    let mut store = Store::new();
    let top = frame(1, 0, "doc", SITE);
    let decl = |name: &str| json!({"path": "provide_context", "name": name, "description": "d"});
    for ops in [
        json!([tool("a", "document_object", json!({})), tool("b", "document_object", json!({})),
               {"op": "provide", "decls": [decl("p"), decl("q")]}]),
        json!([tool("a", "document_object", json!({"readOnlyHint": true})),
               {"op": "unregister", "source": "document", "kind": "tool", "name": "b"},
               {"op": "provide", "decls": [decl("q")]}, tool("c", "document_object", json!({}))]),
    ] {
        let (_, effects) = r.apply(page(top.clone(), ops));
        persist(&mut store, &effects);
    }
    let (_, effects) = r.apply(page(
        frame(1, 2, "inner", "null"),
        json!([tool("s", "document_object", json!({}))]),
    ));
    persist(&mut store, &effects);
    let loaded = Registry::load(&store).expect("loads");
    assert_eq!(loaded, r);
    assert_eq!(names(&loaded, 1), names(&r, 1));
    // A new document in the frame: the old one's keys go, in the same write.
    let (_, effects) = r.apply(page(
        frame(1, 0, "doc-2", SITE),
        json!([tool("z", "document_object", json!({}))]),
    ));
    persist(&mut store, &effects);
    assert_eq!(Registry::load(&store).expect("loads"), r);
    assert_eq!(store.len(), 2);
}
