//! An agent's arguments against the tool's inputSchema, natively (docs/agents.md,
//! "Arguments are checked against the tool's inputSchema before any card"):
//! the whole of JSON Schema, each problem worded for the agent.

use serde_json::json;
use toolgate::page::schema::{check, uncheckable, Pattern, Plan, Refusal};

fn problems(schema: serde_json::Value, arguments: serde_json::Value) -> Vec<String> {
    let plan = Plan::read(&schema).expect("a schema Toolgate can check");
    match check(&schema, &plan, &arguments, &arguments.to_string()) {
        Ok(()) => Vec::new(),
        Err(Refusal::Invalid(problems)) => problems,
        Err(Refusal::Unchecked(why)) => panic!("not checked: {why}"),
    }
}

#[test]
fn types_required_and_unknown_arguments_are_worded_for_the_agent() {
    let schema = json!({"type": "object", "properties": {"title": {"type": "string"}, "n": {"type": ["integer", "null"]}},
        "required": ["title"], "additionalProperties": false});
    assert_eq!(
        problems(schema.clone(), json!({"title": "a"})),
        Vec::<String>::new()
    );
    assert_eq!(
        problems(schema.clone(), json!({})),
        ["arguments.title: is required"]
    );
    assert_eq!(
        problems(schema.clone(), json!({"title": 5})),
        ["arguments.title: expected a string, got an integer"]
    );
    assert_eq!(
        problems(schema.clone(), json!({"title": "a", "n": 1.5})),
        ["arguments.n: expected null or an integer, got a number"]
    );
    assert_eq!(
        problems(schema, json!({"title": "a", "colour": 1})),
        ["arguments.colour: is not a known argument"]
    );
}

#[test]
fn patterns_formats_and_references_are_checked() {
    // A form tool's order number, as its controls declare it.
    let order = json!({"type": "object", "properties": {"order_number": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{4}$"}}});
    assert!(problems(order.clone(), json!({"order_number": "AB-1234"})).is_empty());
    let found = problems(order, json!({"order_number": "nope"}));
    assert_eq!(found.len(), 1);
    assert!(
        found[0].starts_with("arguments.order_number: "),
        "{found:?}"
    );
    let day =
        json!({"type": "object", "properties": {"day": {"type": "string", "format": "date"}}});
    // `format` is an annotation (docs/agents.md): the browser lets any string through.
    assert!(problems(day.clone(), json!({"day": "2026-12-24"})).is_empty());
    assert!(problems(day.clone(), json!({"day": "24/12/2026"})).is_empty());
    assert_eq!(
        problems(day, json!({"day": 24})).len(),
        1,
        "its type still holds"
    );
    let referenced = json!({"$defs": {"id": {"type": "integer", "minimum": 1}}, "type": "object",
        "properties": {"ids": {"type": "array", "items": {"$ref": "#/$defs/id"}}}});
    let found = problems(referenced, json!({"ids": [1, 0]}));
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("arguments.ids[1]: "), "{found:?}");
}

/// A `type` that names no type used to check nothing: the validator read
/// past it, and the call ran with arguments nobody checked.
#[test]
fn a_type_that_names_no_type_makes_the_schema_uncheckable_wherever_it_is() {
    let why = |schema: serde_json::Value| uncheckable(&schema);
    let named = |name: &str| {
        Some(format!(
            "its schema names a type that does not exist ({name})"
        ))
    };
    assert_eq!(why(json!({"type": "strin"})), named("\"strin\""));
    assert_eq!(why(json!({"type": 5})), named("5"));
    let many: Vec<String> = (0..15_000).map(|i| format!("t{i}")).collect();
    assert_eq!(
        why(json!({"type": "array", "items": {"type": many}})),
        named("\"t0\"")
    );
    assert_eq!(
        why(
            json!({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": ["null", "any"]}]}}})
        ),
        named("\"any\"")
    );
    assert_eq!(
        why(json!({"$defs": {"d": {"not": {"type": "obj"}}}})),
        named("\"obj\"")
    );
    // Data, and keywords no validator reads, are not schemas.
    assert_eq!(
        why(json!({"enum": [{"type": "x"}], "const": {"type": 1}, "default": {"type": "y"}})),
        None
    );
    assert_eq!(
        why(json!({"x-meta": {"type": "label"}, "properties": {"type": {"type": "string"}}})),
        None
    );
    assert_eq!(why(json!({"type": ["string", "null"]})), None);
}

/// Natively both of `jsonschema`'s engines run `^(a+)+$` in linear time
/// (fancy-regex hands patterns without look-around to the `regex` crate), so
/// this guards the answers; the time is guarded where JavaScript's engine
/// was the one that backtracked, end to end (tests/e2e/hostile.test.mjs).
#[test]
fn a_pattern_that_backtracks_in_javascript_gets_its_true_answer() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}},
        "patternProperties": {"^(b+)+$": {"type": "integer"}}});
    let long = "a".repeat(5000);
    assert!(problems(schema.clone(), json!({"q": long})).is_empty());
    let found = problems(schema.clone(), json!({"q": format!("{long}!")}));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("arguments.q: "), "{found:?}");
    // A mismatch, not a backtracking engine giving up.
    assert!(found[0].contains("does not match"), "{found:?}");
    let key = format!("{}!", "b".repeat(5000));
    assert!(problems(schema.clone(), json!({ key: "not checked" })).is_empty());
    let found = problems(schema, json!({ "b".repeat(5000): "x" }));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(uncheckable(&json!({"pattern": "^(a+)+$"})).is_none());
}

#[test]
fn a_pattern_toolgate_cannot_run_makes_the_schema_uncheckable_wherever_it_is() {
    let why = |schema: serde_json::Value| uncheckable(&schema).unwrap_or_default();
    assert_eq!(
        why(json!({"properties": {"p": {"pattern": "^(?=.*[0-9]).{8,}$"}}})),
        "its pattern \"^(?=.*[0-9]).{8,}$\" uses look-around or back-references, which Toolgate does not run"
    );
    assert!(
        why(json!({"items": [{"pattern": "(a)\\1"}]})).contains("look-around or back-references")
    );
    assert!(why(json!({"patternProperties": {"(?<!x)y": {}}})).contains("look-around"));
    assert_eq!(
        why(json!({"anyOf": [{"pattern": "("}]})),
        "its pattern \"(\" is no regular expression Toolgate can read"
    );
    // A property may be named like a keyword: its schema is still read.
    assert!(why(json!({"properties": {"enum": {"pattern": "(?=a)"}}})).contains("look-around"));
    assert!(why(json!({"$defs": {"examples": {"pattern": "(?=a)"}}})).contains("look-around"));
    // Data is not a schema: a "pattern" inside it is no pattern.
    assert!(
        uncheckable(&json!({"enum": [{"pattern": "(?=a)"}], "default": {"pattern": "("}}))
            .is_none()
    );
    // ECMA-262's own classes and escapes are read.
    assert!(uncheckable(&json!({"pattern": "^\\d{3}\\s\\w+\\p{L}\\u00e9$"})).is_none());
    let long = format!("(?={})", "x".repeat(200));
    let said = why(json!({ "pattern": long }));
    assert!(said.contains("xxx\"… uses look-around"), "{said}");
}

#[test]
fn ecma_classes_keep_their_meaning() {
    // `\d` is ASCII digits in ECMA-262, not every Unicode digit.
    let digits = json!({"type": "string", "pattern": "^\\d+$"});
    assert!(problems(digits.clone(), json!("123")).is_empty());
    assert_eq!(problems(digits, json!("١٢٣")).len(), 1);
    let pattern = Pattern::new("^[a-z]+$").unwrap();
    assert_eq!(
        (pattern.test("abc"), pattern.test("abc1")),
        (Ok(true), Ok(false))
    );
}
