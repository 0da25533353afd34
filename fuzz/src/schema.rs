//! Schemas and arguments made from fuzzer bytes, checked as an agent's call
//! is (docs/agents.md, "Arguments and limits"; ARCHITECTURE.md, "Budgets"):
//! a check either passes, refuses with problems, or refuses as one it cannot
//! check (too costly, or a `$ref` to nothing) — it never lets through what
//! the validator would refuse, and a check that passed was counted within
//! the budget.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value};
use toolgate::page::schema::{check, Plan, Refusal, STEPS};

/// Patterns to pick from: cheap, Unicode, bounded repetition, and ones
/// Toolgate refuses to run.
const PATTERNS: [&str; 6] = [
    "^[a-z]+$",
    "\\d",
    "^\\p{L}{1,8}$",
    "^.{0,40}$",
    "(?=a)",
    "(",
];

/// A schema of at most `depth` levels, whose `$ref`s name `$defs` d0..d3.
fn schema(u: &mut Unstructured<'_>, depth: u8) -> Result<Value> {
    if depth == 0 || u.ratio(1, 4)? {
        return Ok(match u.int_in_range(0..=6)? {
            0 => {
                json!({"type": *u.choose(&["string", "integer", "array", "object", "boolean", "null"])?})
            }
            1 => json!({"pattern": *u.choose(&PATTERNS)?}),
            2 => json!({"$ref": format!("#/$defs/d{}", u.int_in_range(0..=4)?)}),
            3 => json!({"enum": [1, "a", [1], {"a": 1}]}),
            4 => json!({"uniqueItems": true}),
            5 => Value::Bool(u.arbitrary()?),
            _ => json!({"minLength": 1, "maxLength": u.int_in_range(0..=9)?}),
        });
    }
    let mut members = Map::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let sub = schema(u, depth - 1)?;
        match u.int_in_range(0..=8)? {
            0 => members.insert("allOf".into(), json!([sub.clone(), sub])),
            1 => members.insert("anyOf".into(), json!([sub, schema(u, depth - 1)?])),
            2 => members.insert("items".into(), sub),
            3 => members.insert(
                "properties".into(),
                json!({"a": sub, "b": schema(u, depth - 1)?}),
            ),
            4 => members.insert("additionalProperties".into(), sub),
            5 => members.insert(
                "patternProperties".into(),
                json!({ *u.choose(&PATTERNS)?: sub }),
            ),
            6 => members.insert("not".into(), sub),
            7 => members.insert("propertyNames".into(), sub),
            _ => members.insert("if".into(), sub),
        };
    }
    Ok(Value::Object(members))
}

/// Arguments of at most `depth` levels.
fn value(u: &mut Unstructured<'_>, depth: u8) -> Result<Value> {
    Ok(match u.int_in_range(0..=5)? {
        _ if depth == 0 => json!(u.arbitrary::<i8>()?),
        0 => json!(u.arbitrary::<i32>()?),
        1 => Value::String(u.arbitrary()?),
        2 => Value::Bool(u.arbitrary()?),
        3 => (0..u.int_in_range(0..=40)?)
            .map(|_| value(u, depth - 1))
            .collect::<Result<Vec<_>>>()?
            .into(),
        _ => {
            let mut members = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                let name = if u.arbitrary()? {
                    "a".to_owned()
                } else {
                    u.arbitrary()?
                };
                members.insert(name, value(u, depth - 1)?);
            }
            Value::Object(members)
        }
    })
}

/// One schema with its `$defs`, and arguments, checked.
pub fn schema_check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(mut root) = schema(&mut u, 4) else {
        return;
    };
    let Ok(defs) = (0..4)
        .map(|_| schema(&mut u, 3))
        .collect::<Result<Vec<_>>>()
    else {
        return;
    };
    if let Value::Object(members) = &mut root {
        let named = defs
            .into_iter()
            .enumerate()
            .map(|(i, d)| (format!("d{i}"), d));
        members.insert("$defs".into(), Value::Object(named.collect()));
    }
    let Ok(arguments) = value(&mut u, 4) else {
        return;
    };
    let Ok(plan) = Plan::read(&root) else { return };
    let outcome = check(&root, &plan, &arguments, &arguments.to_string());
    match &outcome {
        Ok(()) => {
            let steps = plan
                .steps(&root, &arguments)
                .expect("a check that passed was counted");
            assert!(steps <= STEPS, "{steps} steps");
            // Counting is pure: the same check counts the same.
            let again = plan.steps(&root, &arguments);
            assert_eq!(again, Ok(steps), "the count is the same twice");
        }
        Err(Refusal::Invalid(problems)) => assert!(!problems.is_empty()),
        Err(Refusal::Unchecked(why)) => assert!(
            why.starts_with("its schema is too costly to check")
                || why.contains("names nothing Toolgate can find")
                || why.starts_with("the validator failed"),
            "{why}"
        ),
    }
}
