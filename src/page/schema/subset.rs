//! The schema subset a WebMCP draft proposal (not merged) would hold an
//! `inputSchema` to: no references, `format`, unevaluated or dependent
//! keywords, or content encodings; `additionalProperties` only `false`;
//! every `pattern` a regular expression JavaScript can read. Toolgate
//! refuses none of it (docs/classes.md, "Lint notes"): what is outside the
//! subset is a lint note.

use serde_json::Value;

/// Keywords the proposed subset leaves out.
const EXCLUDED: [&str; 14] = [
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$defs",
    "definitions",
    "format",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];
/// Keywords whose value is one schema, a list of them, or a map of them.
const ONE: [&str; 8] = [
    "items",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "additionalItems",
];
const LIST: [&str; 4] = ["prefixItems", "anyOf", "oneOf", "allOf"];
const MAP: [&str; 2] = ["properties", "patternProperties"];

/// What first keeps `schema` (JSON text) out of the proposed subset, in
/// words that follow "inputSchema", or `None`. A schema that is not JSON is
/// not this check's to judge.
pub fn outside_subset(schema: &str) -> Option<String> {
    let value: Value = serde_json::from_str(schema).ok()?;
    problem_at(&value, "")
}

fn pointer(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

fn problem_at(schema: &Value, path: &str) -> Option<String> {
    let Value::Object(schema) = schema else {
        return None;
    };
    if let Some(keyword) = EXCLUDED.iter().find(|k| schema.contains_key(**k)) {
        return Some(format!("uses '{keyword}' (at {})", pointer(path, keyword)));
    }
    if schema
        .get("additionalProperties")
        .is_some_and(|v| v != &Value::Bool(false))
    {
        return Some(format!(
            "sets 'additionalProperties' to other than false (at {})",
            pointer(path, "additionalProperties")
        ));
    }
    match schema.get("pattern") {
        Some(Value::String(pattern)) if !jsonschema_regex::is_valid_ecma_regex(pattern) => {
            return Some(format!(
                "has a 'pattern' that is no regular expression JavaScript can read (at {})",
                pointer(path, "pattern")
            ));
        }
        Some(Value::String(_)) | None => {}
        Some(_) => {
            return Some(format!(
                "has a 'pattern' that is not a string (at {})",
                pointer(path, "pattern")
            ))
        }
    }
    let ones = ONE
        .iter()
        .filter_map(|k| schema.get(*k).map(|v| (v, pointer(path, k))));
    let lists = LIST.iter().flat_map(|k| {
        let at = pointer(path, k);
        schema
            .get(*k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .map(move |(i, v)| (v, pointer(&at, &i.to_string())))
    });
    let maps = MAP.iter().flat_map(|k| {
        let at = pointer(path, k);
        schema
            .get(*k)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(move |(key, v)| (v, pointer(&at, key)))
    });
    ones.chain(lists)
        .chain(maps)
        .find_map(|(sub, at)| problem_at(sub, &at))
}
