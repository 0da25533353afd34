//! Checks a call's arguments against the tool's `inputSchema` before anyone
//! is asked (docs/agents.md, "Arguments and limits").
//!
//! A subset of JSON Schema: the keywords tool schemas use (type, properties,
//! required, additionalProperties, enum, const, numeric and length bounds,
//! items, anyOf, oneOf, allOf). Keywords outside it are not checked — a
//! validator crate (jsonschema, boon) would cover them, but brings a regex
//! engine and more into a Wasm core whose size is budgeted (issue 4). The
//! page's own `execute` still sees only arguments that passed this check.

use serde_json::{Map, Value};

/// Checks `arguments` against `schema`.
///
/// # Errors
/// Returns every way the arguments break the schema, each naming where
/// ("arguments.title: expected a string, got a number").
pub fn check(schema: &Value, arguments: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    check_at(schema, arguments, "arguments", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        // An unknown type name is the schema's problem, not the caller's.
        _ => true,
    }
}

fn check_at(schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Value::Object(schema) = schema else {
        // `true` accepts everything; `false` nothing.
        if schema == &Value::Bool(false) {
            errors.push(format!("{at}: no value is allowed here"));
        }
        return;
    };
    let before = errors.len();
    check_type(schema, value, at, errors);
    if errors.len() > before {
        return; // The rest would only repeat the type error.
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        if !options.contains(value) {
            errors.push(format!(
                "{at}: must be one of {}",
                Value::Array(options.clone())
            ));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            errors.push(format!("{at}: must be {constant}"));
        }
    }
    match value {
        Value::Number(n) => check_number(schema, n.as_f64().unwrap_or(f64::NAN), at, errors),
        Value::String(s) => check_length(
            schema,
            s.chars().count(),
            "minLength",
            "maxLength",
            "characters",
            at,
            errors,
        ),
        Value::Array(items) => {
            check_length(
                schema,
                items.len(),
                "minItems",
                "maxItems",
                "items",
                at,
                errors,
            );
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_at(item_schema, item, &format!("{at}[{i}]"), errors);
                }
            }
        }
        Value::Object(object) => check_object(schema, object, at, errors),
        _ => {}
    }
    check_combinators(schema, value, at, errors);
}

fn check_type(schema: &Map<String, Value>, value: &Value, at: &str, errors: &mut Vec<String>) {
    let names: Vec<&str> = match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => return,
    };
    if !names.iter().any(|name| is_type(value, name)) {
        let expected = names
            .iter()
            .map(|n| match *n {
                "object" | "array" | "integer" => format!("an {n}"),
                "null" => "null".to_owned(),
                other => format!("a {other}"),
            })
            .collect::<Vec<_>>()
            .join(" or ");
        errors.push(format!(
            "{at}: expected {expected}, got {}",
            type_name(value)
        ));
    }
}

fn check_number(schema: &Map<String, Value>, n: f64, at: &str, errors: &mut Vec<String>) {
    let bound = |key| schema.get(key).and_then(Value::as_f64);
    if let Some(min) = bound("minimum").filter(|min| n < *min) {
        errors.push(format!("{at}: must be at least {min}"));
    }
    if let Some(max) = bound("maximum").filter(|max| n > *max) {
        errors.push(format!("{at}: must be at most {max}"));
    }
    if let Some(min) = bound("exclusiveMinimum").filter(|min| n <= *min) {
        errors.push(format!("{at}: must be more than {min}"));
    }
    if let Some(max) = bound("exclusiveMaximum").filter(|max| n >= *max) {
        errors.push(format!("{at}: must be less than {max}"));
    }
}

fn check_length(
    schema: &Map<String, Value>,
    len: usize,
    min_key: &str,
    max_key: &str,
    unit: &str,
    at: &str,
    errors: &mut Vec<String>,
) {
    let bound = |key| schema.get(key).and_then(Value::as_u64);
    if let Some(min) = bound(min_key).filter(|min| (len as u64) < *min) {
        errors.push(format!("{at}: must have at least {min} {unit}"));
    }
    if let Some(max) = bound(max_key).filter(|max| (len as u64) > *max) {
        errors.push(format!("{at}: must have at most {max} {unit}"));
    }
}

fn check_object(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    at: &str,
    errors: &mut Vec<String>,
) {
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                errors.push(format!("{at}.{name}: is required"));
            }
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, value) in object {
        match properties.and_then(|p| p.get(name)) {
            Some(property) => check_at(property, value, &format!("{at}.{name}"), errors),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    errors.push(format!("{at}.{name}: is not a known argument"))
                }
                Some(extra @ Value::Object(_)) => {
                    check_at(extra, value, &format!("{at}.{name}"), errors)
                }
                _ => {}
            },
        }
    }
}

fn check_combinators(
    schema: &Map<String, Value>,
    value: &Value,
    at: &str,
    errors: &mut Vec<String>,
) {
    let passes = |s: &Value| {
        let mut scratch = Vec::new();
        check_at(s, value, at, &mut scratch);
        scratch.is_empty()
    };
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for s in all {
            check_at(s, value, at, errors);
        }
    }
    if let Some(Value::Array(any)) = schema.get("anyOf") {
        if !any.iter().any(passes) {
            errors.push(format!("{at}: matches none of the allowed forms"));
        }
    }
    if let Some(Value::Array(one)) = schema.get("oneOf") {
        let matching = one.iter().filter(|s| passes(s)).count();
        if matching != 1 {
            errors.push(format!(
                "{at}: must match exactly one of the allowed forms, matches {matching}"
            ));
        }
    }
}
