//! An agent's arguments against the tool's inputSchema, natively (docs/agents.md,
//! "Arguments are checked against the tool's inputSchema before any card"):
//! the whole of JSON Schema, each problem worded for the agent.

use serde_json::json;
use toolgate::page::schema::check;

fn problems(schema: serde_json::Value, arguments: serde_json::Value) -> Vec<String> {
    check(&schema, &arguments).err().unwrap_or_default()
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
    assert!(problems(day.clone(), json!({"day": "2026-12-24"})).is_empty());
    assert_eq!(problems(day, json!({"day": "24/12/2026"})).len(), 1);
    let referenced = json!({"$defs": {"id": {"type": "integer", "minimum": 1}}, "type": "object",
        "properties": {"ids": {"type": "array", "items": {"$ref": "#/$defs/id"}}}});
    let found = problems(referenced, json!({"ids": [1, 0]}));
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("arguments.ids[1]: "), "{found:?}");
}

#[test]
fn a_schema_the_validator_cannot_read_checks_nothing() {
    assert!(check(
        &json!({"type": "object", "properties": {"q": {"type": "string", "pattern": "("}}}),
        &json!({"q": 5})
    )
    .is_ok());
    assert!(check(&json!({"type": "strin"}), &json!(5)).is_ok());
}
