//! Checks a call's arguments against the tool's `inputSchema` before anyone
//! is asked (docs/agents.md, "Arguments are checked against the tool's
//! inputSchema before any card").
//!
//! The whole of JSON Schema, by a well-kept validator, each problem worded
//! for the agent ("arguments.title: expected a string, got an integer").
//! Which validator depends on the build:
//! - in the extension, the service worker's (`@cfworker/json-schema`,
//!   extension/background/arguments.js), given to the core as it starts
//!   (`use_validator`, src/wasm.rs), which runs each `pattern` on the core's
//!   `Pattern` instead of JavaScript's backtracking `RegExp`: a Rust
//!   validator would make the Wasm core five times its size and its cold
//!   first call twice as slow (benches/README.md, "The arguments' validator");
//! - natively (tests, fuzzing, benches), the `jsonschema` crate on the same
//!   engine (`PatternOptions::regex`), worded the same way.
//!
//! Patterns are matched in linear time, whichever validator runs
//! (`pattern`): a schema with a pattern Toolgate cannot run is one it cannot
//! check (`uncheckable`), and the call is refused with that reason. Any other
//! part of a schema the validator cannot read (a `type` that names no type)
//! checks nothing: the page's own `execute` is then the only judge of its
//! arguments, as it is without Toolgate.

mod pattern;
mod subset;

pub use pattern::{uncheckable, Pattern};
use serde_json::Value;
use std::sync::OnceLock;
pub use subset::outside_subset;

/// A validator: the problems of `arguments` against `schema`, worded for the agent.
pub type Validator = fn(&Value, &Value) -> Vec<String>;

static VALIDATOR: OnceLock<Validator> = OnceLock::new();

/// Makes `validator` the one every check uses, from now on (once: later
/// calls change nothing).
pub fn use_validator(validator: Validator) {
    let _ = VALIDATOR.set(validator);
}

/// Checks `arguments` against `schema`.
///
/// # Errors
/// Returns every way the arguments break the schema, each naming where
/// ("arguments.title: expected a string, got a number").
pub fn check(schema: &Value, arguments: &Value) -> Result<(), Vec<String>> {
    let problems = match VALIDATOR.get() {
        Some(validator) => validator(schema, arguments),
        None => native::problems(schema, arguments),
    };
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// A JSON value's type as an agent is told it ("got a string"), as the
/// worker's validator words it too.
pub fn type_name(value: &Value) -> &'static str {
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

/// The problems natively: the `jsonschema` crate (draft 2020-12, `format` an
/// annotation, as the worker has it), worded as the worker words them.
#[cfg(not(target_arch = "wasm32"))]
mod native {
    use jsonschema::error::{TypeKind, ValidationErrorKind};
    use jsonschema::paths::LocationSegment;
    use jsonschema::ValidationError;
    use serde_json::Value;

    pub fn problems(schema: &Value, arguments: &Value) -> Vec<String> {
        let Ok(validator) = jsonschema::options()
            .should_validate_formats(false)
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .build(schema)
        else {
            return Vec::new();
        };
        validator
            .iter_errors(arguments)
            .map(|e| worded(&e))
            .collect()
    }

    /// Where a problem is: `arguments`, then each property name or `[index]`.
    fn place(error: &ValidationError<'_>) -> String {
        let mut at = String::from("arguments");
        for segment in error.instance_path().iter() {
            match segment {
                LocationSegment::Property(name) => {
                    at.push('.');
                    at.push_str(&name);
                }
                LocationSegment::Index(index) => at.push_str(&format!("[{index}]")),
            }
        }
        at
    }

    fn article(name: &str) -> String {
        match name {
            "object" | "array" | "integer" => format!("an {name}"),
            "null" => "null".to_owned(),
            other => format!("a {other}"),
        }
    }

    /// One problem, in Toolgate's words where it has them, else the validator's.
    fn worded(error: &ValidationError<'_>) -> String {
        let at = place(error);
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned);
                format!("{at}.{name}: is required")
            }
            ValidationErrorKind::Type { kind } => {
                let names: Vec<String> = match kind {
                    TypeKind::Single(one) => vec![article(one.as_str())],
                    TypeKind::Multiple(set) => {
                        set.iter().map(|one| article(one.as_str())).collect()
                    }
                };
                let got = super::type_name(error.instance());
                format!("{at}: expected {}, got {got}", names.join(" or "))
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => unexpected
                .iter()
                .map(|name| format!("{at}.{name}: is not a known argument"))
                .collect::<Vec<_>>()
                .join("; "),
            ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
                format!("{at}: matches none of the allowed forms")
            }
            _ => format!("{at}: {error}"),
        }
    }
}

/// In the Wasm build the worker's validator is always given (src/wasm.rs).
#[cfg(target_arch = "wasm32")]
mod native {
    pub fn problems(_: &serde_json::Value, _: &serde_json::Value) -> Vec<String> {
        Vec::new()
    }
}
