//! Where a condition's test looks (docs/rules.md, "Conditions on a tool's
//! arguments"): a property's path, its names joined by `.` through objects
//! (`recipient.email`), and `[]` after the name of a list of objects to look
//! into each of its items (`recipients[].email`). A list is read the safer
//! way wherever the path meets it: for a condition that gives Allowed, a
//! test holds only when the list has items and every one of them passes;
//! for one that asks first, when any one does. Also what a schema declares
//! at a path, and the paths the settings page offers.

use super::conditions::{path_shown, MAX_TEXT};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One name of a path, and whether its value is a list whose items the
/// rest of the path looks into (`recipients[]`).
#[derive(Clone, Copy)]
struct Step<'a> {
    name: &'a str,
    each: bool,
}

/// The mark after a list's name that looks into each of its items.
const EACH: &str = "[]";

fn steps(path: &str) -> Vec<Step<'_>> {
    path.split('.')
        .map(|part| match part.strip_suffix(EACH) {
            Some(name) => Step { name, each: true },
            None => Step {
                name: part,
                each: false,
            },
        })
        .collect()
}

/// Whether `items` pass, read the safer way: for Allowed (`allows`), every
/// item and at least one; for Ask first, any item.
fn each_of(items: &[Value], allows: bool, passes: impl Fn(&Value) -> bool) -> bool {
    if allows {
        !items.is_empty() && items.iter().all(passes)
    } else {
        items.iter().any(passes)
    }
}

/// Whether a test whose one value passes by `pass` holds at `path` in
/// `arguments`, for a condition that gives Allowed (`allows`) or asks
/// first: a path that reaches nothing is false; every list on the way,
/// and at its end, read the safer way.
pub fn holds_at(
    arguments: &Value,
    path: &str,
    allows: bool,
    pass: &dyn Fn(&Value) -> bool,
) -> bool {
    fn read(value: &Value, steps: &[Step], allows: bool, pass: &dyn Fn(&Value) -> bool) -> bool {
        let Some((step, rest)) = steps.split_first() else {
            return match value {
                Value::Array(items) => each_of(items, allows, pass),
                one => pass(one),
            };
        };
        let Some(found) = value.as_object().and_then(|o| o.get(step.name)) else {
            return false;
        };
        match (step.each, found) {
            (false, found) => read(found, rest, allows, pass),
            (true, Value::Array(items)) => {
                each_of(items, allows, |item| read(item, rest, allows, pass))
            }
            (true, _) => false,
        }
    }
    read(arguments, &steps(path), allows, pass)
}

/// What `path` reaches in `arguments`: one end for each item of every list
/// it looks into (`None` where an item lacks the rest of the path), so one
/// for a path through objects only; none through an empty list.
pub fn reached<'a>(arguments: &'a Value, path: &str) -> Vec<Option<&'a Value>> {
    fn walk<'a>(value: &'a Value, steps: &[Step], out: &mut Vec<Option<&'a Value>>) {
        let Some((step, rest)) = steps.split_first() else {
            out.push(Some(value));
            return;
        };
        match (value.as_object().and_then(|o| o.get(step.name)), step.each) {
            (Some(found), false) => walk(found, rest, out),
            (Some(Value::Array(items)), true) => {
                for item in items {
                    walk(item, rest, out);
                }
            }
            _ => out.push(None),
        }
    }
    let mut out = Vec::new();
    walk(arguments, &steps(path), &mut out);
    out
}

/// The schema of a list's items, where the list declares one schema for
/// them all.
fn items_of(property: &Value) -> Option<&Value> {
    property.get("items").filter(|items| items.is_object())
}

/// The schema of the property at `path` in `schema`, through `properties`,
/// and through `items` after a list's `[]`.
pub fn declared<'a>(schema: &'a Value, path: &str) -> Option<&'a Value> {
    steps(path).into_iter().try_fold(schema, |schema, step| {
        let property = schema.get("properties")?.as_object()?.get(step.name)?;
        if step.each {
            items_of(property)
        } else {
            Some(property)
        }
    })
}

/// The JSON types a property's schema names, its items' for a list
/// (empty when it names none).
pub fn declared_types(schema: &Value) -> Vec<&str> {
    let named = |schema: &Value| -> Vec<String> {
        match schema.get("type") {
            Some(Value::String(t)) => vec![t.clone()],
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut types = named(schema);
    if types.iter().any(|t| t == "array") {
        types.extend(schema.get("items").map(named).unwrap_or_default());
    }
    let keep: Vec<&str> = [
        "string", "number", "integer", "boolean", "array", "object", "null",
    ]
    .into_iter()
    .filter(|t| types.iter().any(|n| n == t))
    .collect();
    keep
}

/// A property a condition can look at, as the settings page offers it: its
/// path and the JSON types its schema names (its items' too, for a list).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Property {
    pub path: String,
    /// The path as the settings page shows it (`path_shown`).
    pub shown: String,
    pub types: Vec<String>,
}

/// The most properties offered for one tool, and how deep.
const MOST_PROPERTIES: usize = 200;
const DEEPEST: usize = 4;

/// The properties `schema` declares, through `properties` of nested objects
/// and the `items` of lists of objects (`recipients[].email`), each object's
/// by name (page-chosen, so bounded: `MOST_PROPERTIES`, at most `DEEPEST`
/// names deep, names without a `.` and not ending in `[]`).
pub fn properties(schema: &Value) -> Vec<Property> {
    fn walk(schema: &Value, prefix: &str, depth: usize, out: &mut Vec<Property>) {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, property) in props {
            if out.len() >= MOST_PROPERTIES {
                return;
            }
            if name.contains('.')
                || name.ends_with(EACH)
                || name.is_empty()
                || name.chars().count() > MAX_TEXT
            {
                continue;
            }
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            let types = declared_types(property)
                .into_iter()
                .map(str::to_owned)
                .collect();
            out.push(Property {
                shown: path_shown(&path),
                path: path.clone(),
                types,
            });
            if depth + 1 < DEEPEST {
                walk(property, &path, depth + 1, out);
                if let Some(items) = items_of(property) {
                    walk(items, &format!("{path}{EACH}"), depth + 1, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(schema, "", 0, &mut out);
    out
}

/// The properties of each tool of `schemas` (by name).
pub fn properties_of(schemas: &BTreeMap<String, Value>) -> BTreeMap<String, Vec<Property>> {
    schemas
        .iter()
        .map(|(name, schema)| (name.clone(), properties(schema)))
        .collect()
}
