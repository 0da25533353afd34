//! The count against the real work (ARCHITECTURE.md, "Budgets", "The
//! arguments' checker"): schemas and arguments made to cost the validator
//! per value what the count charges one step for (a large `const` or `enum`
//! written into each value's problem, a long `type` list walked for each
//! value, long texts against patterns, `$ref` chains, `uniqueItems`), checked
//! natively. The property: a check takes at most a fixed time a step it was
//! charged, plus a fixed part; a check the count refused took at most what
//! the whole budget may. Whatever the count misses, the checker's deadline
//! still ends the check in the extension; what this finds is where the
//! count, whose refusals say why, is a poor model of the work, kept as seeds.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};
use toolgate::page::schema::{check, Plan, STEPS};

/// What a step may cost at most, natively, in an optimised build; what a
/// byte of the schema's and the arguments' texts may (the native validator
/// reads, checks against its meta-schema and builds the schema at every
/// check, about 0.6 µs a byte: benches/JOURNAL.md, "The meter"; the
/// checker's validator builds each schema once and keeps it); and the fixed
/// part of any check. About ten times what honest checks measure a step
/// (benches/README.md, "The arguments' budget": 0.1-0.3 µs).
const PER_STEP: Duration = Duration::from_micros(3);
const PER_BYTE: Duration = Duration::from_micros(1);
const FIXED: Duration = Duration::from_millis(2);

/// Patterns to pick from: cheap, Unicode, bounded and wide repetition.
const PATTERNS: [&str; 5] = ["^[a-z]+$", "\\d", "^\\p{L}{1,8}$", "^.{0,40}$", "a{0,200}b"];

const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

/// A value of about `size` bytes, for a `const` or an `enum`.
fn big(u: &mut Unstructured<'_>, size: usize) -> Result<Value> {
    Ok(match u.int_in_range(0..=2)? {
        0 => Value::String("x".repeat(size)),
        1 => json!((0..size / 8).collect::<Vec<_>>()),
        _ => {
            let members: Map<String, Value> = (0..size / 16)
                .map(|i| (format!("k{i}"), json!(i)))
                .collect();
            Value::Object(members)
        }
    })
}

/// A schema whose checks cost the validator per value, `depth` levels deep.
fn schema(u: &mut Unstructured<'_>, depth: u8) -> Result<Value> {
    if depth == 0 || u.ratio(1, 3)? {
        let size = usize::from(u.arbitrary::<u16>()?);
        return Ok(match u.int_in_range(0..=8)? {
            0 => json!({"const": big(u, size)?}),
            1 => json!({"enum": [big(u, size)?]}),
            2 => json!({"enum": (0..size / 4).collect::<Vec<_>>()}),
            3 => {
                let names: Vec<&str> = (0..size / 3).map(|i| TYPES[i % TYPES.len()]).collect();
                json!({"type": names})
            }
            4 => json!({"pattern": *u.choose(&PATTERNS)?}),
            5 => json!({"$ref": format!("#/$defs/d{}", u.int_in_range(0..=3)?)}),
            6 => json!({"uniqueItems": true}),
            7 => json!({"multipleOf": 1e-9}),
            _ => json!({"type": *u.choose(&TYPES)?}),
        });
    }
    let mut members = Map::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let sub = schema(u, depth - 1)?;
        match u.int_in_range(0..=6)? {
            0 => members.insert("items".into(), sub),
            1 => members.insert("allOf".into(), json!([sub.clone(), sub])),
            2 => members.insert("anyOf".into(), json!([sub, schema(u, depth - 1)?])),
            3 => members.insert("properties".into(), json!({"a": sub})),
            4 => members.insert("additionalProperties".into(), sub),
            5 => members.insert("contains".into(), sub),
            _ => members.insert("not".into(), sub),
        };
    }
    Ok(Value::Object(members))
}

/// Arguments: long arrays of numbers or texts, objects, nested.
fn value(u: &mut Unstructured<'_>, depth: u8) -> Result<Value> {
    Ok(match u.int_in_range(0..=4)? {
        _ if depth == 0 => json!(u.arbitrary::<i16>()?),
        0 => {
            let n = usize::from(u.arbitrary::<u16>()? % 6000);
            json!((0..n).collect::<Vec<_>>())
        }
        1 => {
            let n = usize::from(u.arbitrary::<u16>()? % 2000);
            json!((0..n).map(|i| "a".repeat(i % 300)).collect::<Vec<_>>())
        }
        2 => Value::String("a".repeat(usize::from(u.arbitrary::<u16>()?))),
        3 => (0..u.int_in_range(0..=8)?)
            .map(|_| value(u, depth - 1))
            .collect::<Result<Vec<_>>>()?
            .into(),
        _ => json!({"a": value(u, depth - 1)?}),
    })
}

/// A schema's shape, for a finding's message: each keyword with the size of
/// its value's text, nested values shown the same way, cut to 600 characters.
fn shape(schema: &Value) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::Object(members) => {
                out.push('{');
                for (keyword, sub) in members {
                    out.push_str(keyword);
                    out.push(':');
                    if sub.is_object() || (sub.is_array() && sub.to_string().len() < 200) {
                        walk(sub, out);
                    } else {
                        out.push_str(&format!("<{}B>", sub.to_string().len()));
                    }
                    out.push(' ');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                items.iter().for_each(|item| walk(item, out));
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    walk(schema, &mut out);
    out.chars().take(600).collect()
}

/// The shortest of three runs of `work`: what it costs, not what the
/// machine was doing meanwhile.
fn timed(mut work: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// One schema with its `$defs`, and arguments: counted, then checked, each
/// timed against what it was charged.
pub fn meter(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(mut root) = schema(&mut u, 4) else {
        return;
    };
    let Ok(defs) = (0..4)
        .map(|_| schema(&mut u, 2))
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
    let Ok(arguments) = value(&mut u, 3) else {
        return;
    };
    let Ok(plan) = Plan::read(&root) else { return };
    let charged = plan.steps(&root, &arguments).unwrap_or(STEPS);
    let took = timed(|| {
        let _ = check(&root, &plan, &arguments, &arguments.to_string());
    });
    let bytes = root.to_string().len() + arguments.to_string().len();
    let times = |cost: Duration, n: u64| cost * u32::try_from(n).unwrap_or(u32::MAX);
    let bound = times(PER_STEP, charged) + times(PER_BYTE, bytes as u64) + FIXED;
    assert!(
        took <= bound,
        "a check charged {charged} steps and {bytes} bytes took {took:?}, over {bound:?}: {}; arguments {}",
        shape(&root),
        shape(&arguments),
    );
}
