//! Seed 000's sentences as the oracle for classification: every combination of
//! the five hints (true / false / absent / wrong type) on every registration path,
//! plus tables of named cases with the exact rule, badges and lint notes.

use serde_json::json;
use toolgate::page::classify::{classify, Badge, Class, Severity, Verdict};
use toolgate::page::declaration::{Declaration, Path, RawDeclaration};

const PATHS: [Path; 7] = [
    Path::DocumentObject,
    Path::DocumentPositional,
    Path::NavigatorObject,
    Path::NavigatorPositional,
    Path::ProvideContext,
    Path::Declarative,
    Path::Unknown,
];

const HINTS: [&str; 5] = [
    "readOnlyHint",
    "consequentialHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    True,
    False,
    Absent,
    WrongType,
}
const VALUES: [V; 4] = [V::True, V::False, V::Absent, V::WrongType];

/// Parses a snapshot as the content script would send it and classes it.
fn verdict(snapshot: serde_json::Value) -> Verdict {
    let raw: RawDeclaration = serde_json::from_value(snapshot).expect("snapshot parses");
    classify(&Declaration::from_raw(raw).expect("declaration is valid"))
}

fn snapshot(path: Path, hints: &[V; 5]) -> serde_json::Value {
    let mut annotations = serde_json::Map::new();
    for (key, v) in HINTS.iter().zip(hints) {
        match v {
            V::True => annotations.insert((*key).into(), json!(true)),
            V::False => annotations.insert((*key).into(), json!(false)),
            V::WrongType => annotations.insert((*key).into(), json!("the string \"false\"")),
            V::Absent => None,
        };
    }
    json!({
        "kind": "tool",
        "path": path,
        "name": "t",
        "description": "a tool",
        "annotations": annotations,
    })
}

/// Every combination, checked against each of docs/classes.md's rules that applies.
#[test]
fn every_hint_combination_on_every_path_follows_the_decision_order() {
    let mut checked = 0;
    for path in PATHS {
        for a in VALUES {
            for b in VALUES {
                for c in VALUES {
                    for d in VALUES {
                        for e in VALUES {
                            let hints = [a, b, c, d, e];
                            let [read_only, consequential, destructive, _idempotent, open_world] =
                                hints;
                            let v = verdict(snapshot(path, &hints));
                            let class = v.class.expect("a tool has a class");
                            let case = format!("{path:?} {hints:?} → {class:?}");

                            // "A declaration XataWorks cannot read at all is consequential."
                            // (A hint's value must be a boolean: docs/classes.md, "The five hints".)
                            let unreadable = hints.contains(&V::WrongType);
                            if unreadable {
                                assert_eq!(class, Class::Consequential, "{case}");
                            } else if consequential == V::True {
                                // "consequentialHint: true makes a tool consequential, whatever else it declares."
                                assert_eq!(class, Class::Consequential, "{case}");
                            } else if destructive == V::True {
                                // "destructiveHint: true makes a tool consequential, exactly as consequentialHint: true does."
                                assert_eq!(class, Class::Consequential, "{case}");
                            } else if read_only == V::True {
                                // "readOnlyHint: true makes a tool read-only — unless it also says it is consequential."
                                assert_eq!(class, Class::ReadOnly, "{case}");
                            } else if consequential == V::False {
                                // "false makes a tool that changes things mutating."
                                assert_eq!(class, Class::Mutating, "{case}");
                            } else if path == Path::DocumentObject {
                                // "Registered on document.modelContext in the object form ... mutating"
                                assert_eq!(class, Class::Mutating, "{case}");
                            } else {
                                // "Registered any other way ... it is consequential."
                                assert_eq!(class, Class::Consequential, "{case}");
                            }

                            // "openWorldHint ... It is shown in the tools palette (off-site) ...
                            // It defaults to true, so declare false when it is."
                            assert_eq!(
                                v.badges.contains(&Badge::OffSite),
                                open_world != V::False,
                                "{case}"
                            );
                            // "...and changes no question": flipping it never changes the class.
                            let mut flipped = hints;
                            flipped[4] = if open_world == V::False {
                                V::True
                            } else {
                                V::False
                            };
                            if !unreadable && !flipped.contains(&V::WrongType) {
                                assert_eq!(
                                    verdict(snapshot(path, &flipped)).class,
                                    v.class,
                                    "{case}"
                                );
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 7 * 4usize.pow(5));
}

struct Case {
    what: &'static str,
    snapshot: serde_json::Value,
    class: Option<&'static str>,
    rule: Option<&'static str>,
    badges: &'static [&'static str],
    lints: Vec<&'static str>,
}

fn check(case: &Case) {
    let v = verdict(case.snapshot.clone());
    let class = v.class.map(Class::label);
    let rule = v.rule.as_ref().map(|r| r.explain());
    let badges: Vec<String> = v
        .badges
        .iter()
        .map(|b| {
            serde_json::to_value(b)
                .expect("badge")
                .as_str()
                .expect("str")
                .to_owned()
        })
        .collect();
    let lints: Vec<String> = v.lints.iter().map(|l| l.explain()).collect();
    assert_eq!(class, case.class, "{}: class", case.what);
    assert_eq!(rule.as_deref(), case.rule, "{}: rule", case.what);
    assert_eq!(badges, case.badges, "{}: badges", case.what);
    assert_eq!(lints, case.lints, "{}: lints", case.what);
}

const UNDECLARED_ALL: [&str; 5] = [
    "readOnlyHint is not declared",
    "consequentialHint is not declared",
    "destructiveHint is not declared",
    "idempotentHint is not declared",
    "openWorldHint is not declared",
];
const DEFAULT: &str = "the class is a default: declare every hint and the defaults never apply";
const LEGACY: &str =
    "registered through the legacy navigator.modelContext; use document.modelContext";

#[test]
fn named_cases_give_the_documented_badges_rules_and_lints() {
    let default_and_undeclared: Vec<&str> =
        std::iter::once(DEFAULT).chain(UNDECLARED_ALL).collect();
    let legacy_default: Vec<&str> = [LEGACY, DEFAULT]
        .into_iter()
        .chain(UNDECLARED_ALL)
        .collect();
    let cases = [
        Case {
            what: "the Notes example's list_notes",
            snapshot: json!({"path": "document_object", "name": "list_notes", "description": "List notes",
                "annotations": {"readOnlyHint": true, "consequentialHint": false, "destructiveHint": false,
                                "idempotentHint": true, "openWorldHint": false}}),
            class: Some("Read only"),
            rule: Some("readOnlyHint: true → Read only"),
            badges: &["idempotent"],
            lints: vec![],
        },
        Case {
            what: "the Notes example's add_note",
            snapshot: json!({"path": "document_object", "name": "add_note", "description": "Add a note",
                "annotations": {"readOnlyHint": false, "consequentialHint": false, "destructiveHint": false,
                                "idempotentHint": false, "openWorldHint": false}}),
            class: Some("Mutating"),
            rule: Some("consequentialHint: false → Mutating"),
            badges: &[],
            lints: vec![],
        },
        Case {
            what: "the Notes example's delete_note",
            snapshot: json!({"path": "document_object", "name": "delete_note", "description": "Delete a note",
                "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true,
                                "openWorldHint": false, "consequentialHint": true}}),
            class: Some("Consequential"),
            rule: Some("consequentialHint: true → Consequential"),
            badges: &["idempotent"],
            lints: vec![],
        },
        Case {
            what: "a skill",
            snapshot: json!({"kind": "skill", "path": "document_object", "name": "notes_house_style",
                "title": "Notes House Style", "description": "How notes are written", "instructions": "Short."}),
            class: None,
            rule: None,
            badges: &[],
            lints: vec![],
        },
        Case {
            what: "nothing declared on document.modelContext",
            snapshot: json!({"path": "document_object", "name": "t", "description": "d"}),
            class: Some("Mutating"),
            rule: Some("declared nothing; registered on document.modelContext in the object form → Mutating"),
            badges: &["off-site"],
            lints: default_and_undeclared.clone(),
        },
        Case {
            what: "nothing declared on navigator.modelContext",
            snapshot: json!({"path": "navigator_object", "name": "t", "description": "d", "annotations": {}}),
            class: Some("Consequential"),
            rule: Some("declared nothing; registered on navigator.modelContext → Consequential"),
            badges: &["off-site"],
            lints: legacy_default.clone(),
        },
        Case {
            what: "a declarative form",
            snapshot: json!({"path": "declarative", "name": "search", "description": "Search"}),
            class: Some("Consequential"),
            rule: Some("declared nothing; declared by a <form toolname> → Consequential"),
            badges: &["off-site"],
            lints: default_and_undeclared.clone(),
        },
        Case {
            what: "only idempotentHint, positional on document.modelContext",
            snapshot: json!({"path": "document_positional", "name": "t", "description": "d",
                "annotations": {"idempotentHint": true, "openWorldHint": false}}),
            class: Some("Consequential"),
            rule: Some("no deciding hint; registered positionally on document.modelContext → Consequential"),
            badges: &["idempotent"],
            lints: vec![DEFAULT, "readOnlyHint is not declared", "consequentialHint is not declared",
                     "destructiveHint is not declared"],
        },
        Case {
            what: "readOnlyHint as the string \"false\"",
            snapshot: json!({"path": "document_object", "name": "t", "description": "d",
                "annotations": {"readOnlyHint": "the string \"false\"", "consequentialHint": false,
                    "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}}),
            class: Some("Consequential"),
            rule: Some("declaration unreadable (annotations.readOnlyHint is the string \"false\", not a boolean) → Consequential"),
            badges: &[],
            lints: vec!["the declaration cannot be read, so it is Consequential: annotations.readOnlyHint is the string \"false\", not a boolean"],
        },
        Case {
            what: "a getter that threw, reported by the shim",
            snapshot: json!({"path": "document_object", "name": "t", "description": "d",
                "unreadable": "reading annotations threw Error: boom"}),
            class: Some("Consequential"),
            rule: Some("declaration unreadable (reading annotations threw Error: boom) → Consequential"),
            badges: &["off-site"],
            lints: vec!["the declaration cannot be read, so it is Consequential: reading annotations threw Error: boom",
                     UNDECLARED_ALL[0], UNDECLARED_ALL[1], UNDECLARED_ALL[2], UNDECLARED_ALL[3], UNDECLARED_ALL[4]],
        },
        Case {
            what: "readOnlyHint with destructiveHint",
            snapshot: json!({"path": "document_object", "name": "t", "description": "d",
                "annotations": {"readOnlyHint": true, "destructiveHint": true, "consequentialHint": false,
                    "idempotentHint": false, "openWorldHint": false}}),
            class: Some("Consequential"),
            rule: Some("destructiveHint: true → Consequential"),
            badges: &[],
            lints: vec!["readOnlyHint: true contradicts destructiveHint: true; the tool is Consequential"],
        },
        Case {
            what: "a hint beside annotations is ignored",
            snapshot: json!({"path": "document_object", "name": "t", "description": "d",
                "stray_hints": ["readOnlyHint"]}),
            class: Some("Mutating"),
            rule: Some("declared nothing; registered on document.modelContext in the object form → Mutating"),
            badges: &["off-site"],
            lints: vec![DEFAULT, UNDECLARED_ALL[0], UNDECLARED_ALL[1], UNDECLARED_ALL[2], UNDECLARED_ALL[3],
                     UNDECLARED_ALL[4], "readOnlyHint is outside annotations and is ignored; move it into annotations"],
        },
        Case {
            what: "untrusted content and debugging badges",
            snapshot: json!({"path": "document_object", "name": "t", "description": "d",
                "annotations": {"readOnlyHint": true, "consequentialHint": false, "destructiveHint": false,
                    "idempotentHint": false, "openWorldHint": true, "untrustedContentHint": true, "debugging": true}}),
            class: Some("Read only"),
            rule: Some("readOnlyHint: true → Read only"),
            badges: &["off-site", "untrusted content", "debugging"],
            lints: vec![],
        },
        Case {
            what: "a schema that is not JSON is unreadable",
            snapshot: json!({"path": "document_object", "name": "t", "description": "d",
                "input_schema": "{not json", "annotations": {"readOnlyHint": true, "consequentialHint": false,
                    "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}}),
            class: Some("Consequential"),
            rule: Some("declaration unreadable (inputSchema is not JSON) → Consequential"),
            badges: &[],
            lints: vec!["the declaration cannot be read, so it is Consequential: inputSchema is not JSON"],
        },
    ];
    for case in &cases {
        check(case);
    }
}

/// The kinds of the notes that fail `toolgate check` (docs/classes.md, "Lint notes").
fn errors(snapshot: serde_json::Value) -> Vec<&'static str> {
    let raw: RawDeclaration = serde_json::from_value(snapshot).expect("snapshot parses");
    let decl = Declaration::from_raw(raw).expect("declaration is valid");
    classify(&decl)
        .lints
        .iter()
        .filter(|l| l.severity(decl.path) == Severity::Error)
        .map(|l| l.kind())
        .collect()
}

#[test]
fn only_what_the_developer_can_fix_is_an_error() {
    // Every hint declared: nothing to fix.
    let all = json!({"readOnlyHint": false, "consequentialHint": false, "destructiveHint": false,
                     "idempotentHint": false, "openWorldHint": false});
    let tool = |path: &str, annotations: serde_json::Value| json!({"path": path, "name": "t", "description": "d", "annotations": annotations});
    assert_eq!(
        errors(tool("document_object", all.clone())),
        Vec::<&str>::new()
    );
    // A hint left out that another decides past is a warning, not an error.
    assert_eq!(
        errors(tool("document_object", json!({"readOnlyHint": true}))),
        Vec::<&str>::new()
    );
    // Silence decides the class: an error on every path a script can declare hints on.
    for path in [
        "document_object",
        "document_positional",
        "navigator_object",
        "provide_context",
    ] {
        assert_eq!(
            errors(tool(path, json!({}))),
            vec!["decided_by_default"],
            "{path}"
        );
    }
    // A form cannot declare hints, so its default is nobody's mistake.
    assert_eq!(errors(tool("declarative", json!({}))), Vec::<&str>::new());
    assert_eq!(
        errors(
            json!({"path": "document_object", "name": "t", "description": "d", "unreadable": "boom"})
        ),
        vec!["unreadable"]
    );
    let mut contradictory = all.clone();
    contradictory["readOnlyHint"] = json!(true);
    contradictory["destructiveHint"] = json!(true);
    assert_eq!(
        errors(tool("document_object", contradictory)),
        vec!["contradictory"]
    );
    let mut stray = tool("document_object", all);
    stray["stray_hints"] = json!(["readOnlyHint"]);
    assert_eq!(errors(stray), vec!["outside_annotations"]);
}

#[test]
fn a_forms_notes_do_not_ask_for_hints_it_cannot_declare() {
    let notes = |path: &str| {
        let raw: RawDeclaration =
            serde_json::from_value(json!({"path": path, "name": "t", "description": "d"}))
                .expect("snapshot parses");
        let decl = Declaration::from_raw(raw).expect("declaration is valid");
        classify(&decl)
            .lints
            .iter()
            .map(|l| l.explain_on(decl.path))
            .collect::<Vec<_>>()
    };
    let form = notes("declarative");
    assert_eq!(
        form[0],
        "the class is a default: a form cannot declare hints, so it is Consequential; \
         register the tool with document.modelContext.registerTool to declare them"
    );
    assert_eq!(
        form[1],
        "readOnlyHint is not declared: a form cannot declare it"
    );
    assert_eq!(form.len(), 6, "the default and the five hints: {form:?}");
    // A script can declare them, and is asked to.
    let script = notes("document_positional");
    assert_eq!(
        script[0],
        "the class is a default: declare every hint and the defaults never apply"
    );
    assert_eq!(script[1], "readOnlyHint is not declared");
}

#[test]
fn huge_text_makes_the_declaration_unreadable() {
    let v = verdict(
        json!({"path": "document_object", "name": "t", "description": "d",
        "input_schema": format!("{{\"description\":\"{}\"}}", "x".repeat(70_000))}),
    );
    assert_eq!(v.class, Some(Class::Consequential));
    assert!(
        v.rule
            .expect("rule")
            .explain()
            .contains("inputSchema is longer than"),
        "the rule names the oversize schema"
    );
}

#[test]
fn the_spec_validation_errors_refuse_the_snapshot() {
    for (snapshot, error) in [
        (json!({"description": "d"}), "the declaration has no name"),
        (
            json!({"name": "", "description": "d"}),
            "\"\" is not a valid tool name",
        ),
        (
            json!({"name": "a b", "description": "d"}),
            "\"a b\" is not a valid tool name",
        ),
        (
            json!({"name": "x".repeat(129), "description": "d"}),
            "is not a valid tool name",
        ),
        (
            json!({"name": "é", "description": "d"}),
            "is not a valid tool name",
        ),
        (
            json!({"name": "t", "description": "  "}),
            "\"t\" has an empty description",
        ),
        (json!({"name": "t"}), "\"t\" has an empty description"),
    ] {
        let raw: RawDeclaration = serde_json::from_value(snapshot.clone()).expect("parses");
        let err = Declaration::from_raw(raw).expect_err("refused").to_string();
        assert!(err.contains(error), "{snapshot}: {err}");
    }
    let raw: RawDeclaration =
        serde_json::from_value(json!({"name": "x".repeat(128), "description": "d"}))
            .expect("parses");
    assert!(
        Declaration::from_raw(raw).is_ok(),
        "128 characters is a valid name"
    );
}

#[test]
fn unknown_snapshot_fields_are_refused() {
    let parsed: Result<RawDeclaration, _> =
        serde_json::from_value(json!({"name": "t", "description": "d", "class": "Read only"}));
    assert!(
        parsed.is_err(),
        "a page cannot slip a class into its snapshot"
    );
}

// docs/classes.md, "What a page may register" and "Lint notes": the schema
// subset of an unmerged draft proposal is a warning, never a refusal.
#[test]
fn a_schema_outside_the_proposed_subset_is_a_warning_that_names_the_place() {
    let subset_notes = |schema: serde_json::Value| {
        let v = verdict(
            json!({"path": "document_object", "name": "t", "description": "d",
            "input_schema": schema.to_string(),
            "annotations": {"readOnlyHint": true, "consequentialHint": false, "destructiveHint": false,
                "idempotentHint": true, "openWorldHint": false}}),
        );
        v.lints
            .iter()
            .filter(|l| l.kind() == "proposed_subset")
            .map(|l| (l.explain(), l.severity(Path::DocumentObject)))
            .collect::<Vec<_>>()
    };
    // The explainer demo's booking tool: a date and an email.
    let booking = json!({"type": "object", "properties": {
        "date": {"type": "string", "format": "date"}, "email": {"type": "string", "format": "email"}}});
    assert_eq!(
        subset_notes(booking),
        [(
            "inputSchema uses 'format' (at /properties/date/format), which the proposed schema subset would refuse".to_owned(),
            Severity::Warning
        )]
    );
    let note = |schema| subset_notes(schema).first().map(|(text, _)| text.clone());
    assert_eq!(
        note(json!({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/x"}]})).as_deref(),
        Some("inputSchema uses '$ref' (at /anyOf/1/$ref), which the proposed schema subset would refuse")
    );
    assert_eq!(
        note(json!({"type": "object", "additionalProperties": {"type": "string"}})).as_deref(),
        Some("inputSchema sets 'additionalProperties' to other than false (at /additionalProperties), which the proposed schema subset would refuse")
    );
    assert_eq!(
        note(json!({"items": {"type": "string", "pattern": "(?<"}})).as_deref(),
        Some("inputSchema has a 'pattern' that is no regular expression JavaScript can read (at /items/pattern), which the proposed schema subset would refuse")
    );
    assert_eq!(
        note(json!({"properties": {"a/b~": {"format": "uri"}}})).as_deref(),
        Some("inputSchema uses 'format' (at /properties/a~1b~0/format), which the proposed schema subset would refuse")
    );
    // Inside the subset: a property named `format`, data in `enum`, `additionalProperties: false`.
    assert_eq!(
        note(json!({"type": "object", "additionalProperties": false,
            "properties": {"format": {"type": "string", "enum": [{"format": "x"}]}, "code": {"pattern": "^[A-Z]+$"}}})),
        None
    );
    assert_eq!(note(json!(true)), None);
}

/// The copy Toolgate registers with the browser's own WebMCP carries hints
/// that give the browser the same class (the shim takes them as they come).
#[test]
fn each_class_has_the_browsers_hints_for_it() {
    let hints = |class: Class| serde_json::to_value(class.native_hints()).expect("JSON");
    assert_eq!(hints(Class::ReadOnly), json!({ "readOnlyHint": true }));
    assert_eq!(
        hints(Class::Mutating),
        json!({ "readOnlyHint": false, "consequentialHint": false })
    );
    assert_eq!(
        hints(Class::Consequential),
        json!({ "readOnlyHint": false, "consequentialHint": true })
    );
}
