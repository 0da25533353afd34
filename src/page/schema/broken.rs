//! Parts of a schema that the validators read past: a `type` that names no
//! JSON type. The worker's validator takes such a `type` as one no value
//! matches and words nothing for it, the native one cannot build the schema
//! at all; either way that part would check nothing, and a call would run
//! with arguments nobody checked. So such a schema cannot be checked, and its
//! calls are refused with why (docs/agents.md, "Arguments and limits").

use serde_json::Value;

/// JSON Schema's seven type names.
const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

/// Keywords whose value is one schema, or (`items` in older drafts) a list.
const SCHEMA: [&str; 13] = [
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "items",
    "$ref",
];
/// Keywords whose value is a list of schemas.
const SCHEMAS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Why `schema` cannot be checked, if a `type` in it names no JSON type (or
/// is not a name or a list of names). Only where a schema is: data (`enum`,
/// `const`, `default`) and keywords Toolgate does not know are not read.
/// Linear in the schema.
pub fn broken_type(schema: &Value) -> Option<String> {
    let mut left = vec![schema];
    while let Some(node) = left.pop() {
        let Value::Object(members) = node else {
            continue;
        };
        if let Some(types) = members.get("type") {
            if let Some(why) = not_a_type(types) {
                return Some(why);
            }
        }
        for (keyword, value) in members {
            let keyword = keyword.as_str();
            if SCHEMA.contains(&keyword) {
                match value {
                    Value::Array(items) => left.extend(items),
                    other => left.push(other),
                }
            } else if SCHEMAS.contains(&keyword) {
                if let Value::Array(items) = value {
                    left.extend(items);
                }
            } else if SCHEMA_MAPS.contains(&keyword) {
                if let Value::Object(by_name) = value {
                    left.extend(by_name.values());
                }
            }
        }
    }
    None
}

/// Why a `type` keyword's value names no JSON type, if it does not.
fn not_a_type(types: &Value) -> Option<String> {
    let named = |name: &str| TYPES.contains(&name);
    let shown = |value: &Value| {
        let text = value.to_string();
        match text.char_indices().nth(40) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text,
        }
    };
    match types {
        Value::String(name) if named(name) => None,
        Value::Array(names) => names
            .iter()
            .find(|name| !name.as_str().is_some_and(named))
            .map(|name| {
                format!(
                    "its schema names a type that does not exist ({})",
                    shown(name)
                )
            }),
        other => Some(format!(
            "its schema names a type that does not exist ({})",
            shown(other)
        )),
    }
}
