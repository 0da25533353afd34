//! What the fuzz targets check, kept out of the targets so that a crash
//! found by `cargo fuzz` can be replayed with plain `cargo test` too.
//!
//! Each function panics on a broken invariant: a panic is what libFuzzer
//! reports as a crash.

use toolgate::messages::FromPage;
use toolgate::page::classify::{classify, Class};
use toolgate::page::declaration::{
    is_valid_name, Declaration, Kind, RawDeclaration, MAX_NAME_LEN, MAX_TEXT_LEN,
};
use toolgate::page::registry::{Effect, Event, FrameRef, Registry};

pub mod decisions;
pub mod meter;
pub mod schema;

/// A raw snapshot read as the registry reads one (`Declaration::from_raw`),
/// then classed.
pub fn declaration(text: &str) {
    let Ok(raw) = serde_json::from_str::<RawDeclaration>(text) else {
        return;
    };
    let Ok(decl) = Declaration::from_raw(raw.clone()) else {
        return;
    };
    // Only the spec's validation errors refuse a declaration: what passed
    // has a valid name and, for a tool, a description.
    assert!(is_valid_name(&decl.name), "{:?}", decl.name);
    assert!(decl.kind == Kind::Skill || !decl.description.trim().is_empty());
    // Nothing kept is longer than the core keeps.
    for text in [&decl.title, &decl.input_schema, &decl.instructions]
        .into_iter()
        .flatten()
        .chain([&decl.description])
    {
        assert!(text.len() <= MAX_TEXT_LEN);
    }
    assert!(decl.tags.iter().all(|t| t.len() <= MAX_NAME_LEN));
    // A kept schema is a JSON object, or the declaration is unreadable.
    if let Some(schema) = &decl.input_schema {
        let object = matches!(
            serde_json::from_str::<serde_json::Value>(schema),
            Ok(serde_json::Value::Object(_))
        );
        assert!(object || decl.unreadable.is_some());
    }
    let verdict = classify(&decl);
    match decl.kind {
        Kind::Skill => assert_eq!(verdict.class, None),
        // Unreadable registers as Consequential (docs/classes.md).
        Kind::Tool if decl.unreadable.is_some() => {
            assert_eq!(verdict.class, Some(Class::Consequential))
        }
        Kind::Tool => assert!(verdict.class.is_some()),
    }
    // Pure: the same snapshot gets the same verdict; and what is stored (the
    // raw snapshot, as JSON text) reads back as the same declaration.
    assert_eq!(classify(&decl), verdict);
    let stored = serde_json::to_string(&raw).expect("a snapshot is written as JSON");
    let again: RawDeclaration = serde_json::from_str(&stored).expect("and read back");
    assert_eq!(again, raw);
    assert_eq!(Declaration::from_raw(again).ok(), Some(decl));
}

/// The frames a report may come from: two of one tab (one sandboxed), and
/// one of another tab.
fn frames() -> [FrameRef; 3] {
    let frame = |tab_id, frame_id, document_id: &str, origin: &str| FrameRef {
        tab_id,
        frame_id,
        document_id: document_id.to_owned(),
        origin: origin.to_owned(),
    };
    [
        frame(1, 0, "doc-a", "https://a.example"),
        frame(1, 4, "doc-s", "null"),
        frame(2, 0, "doc-b", "http://localhost:8000"),
    ]
}

/// A page report, read as the worker reads it (`FromPage`), applied from
/// each frame in turn; what the registry stored must load back as the
/// registry, and no document holds a name twice.
pub fn page_report(text: &str) {
    let Ok(FromPage::Updates { ops, .. }) = serde_json::from_str::<FromPage>(text) else {
        return;
    };
    let mut registry = Registry::new();
    // What the worker would hold in storage: key → text.
    let mut stored = std::collections::BTreeMap::<String, String>::new();
    for from in frames() {
        let tab_id = from.tab_id;
        let (results, effects) = registry.apply(Event::Page {
            from,
            ops: ops.clone(),
        });
        // Every registration gets an answer: a class, or why it was refused.
        // A refused registration gets no class.
        assert!(results
            .iter()
            .all(|r| r.error.is_none() || r.class.is_none()));
        for effect in effects {
            // The worker writes every effect as JSON text (src/wasm.rs).
            serde_json::to_string(&effect).expect("an effect is written as JSON");
            if let Effect::Store { set, remove, .. } = effect {
                for key in remove {
                    stored.remove(&key);
                }
                for (key, text) in set.iter() {
                    stored.insert(key.clone(), text.clone());
                }
            }
        }
        for frame in registry.frames(tab_id) {
            let mut names: Vec<_> = frame
                .tools
                .iter()
                .map(|t| (t.decl.kind == Kind::Skill, &t.decl.name))
                .collect();
            let all = names.len();
            assert!(all <= toolgate::page::registry::MAX_TOOLS_PER_DOCUMENT);
            names.sort();
            names.dedup();
            assert_eq!(names.len(), all, "one name is one tool in a document");
        }
    }
    let loaded = Registry::load(&stored).expect("what was stored reads back");
    assert_eq!(loaded, registry, "stored, then loaded");
}
