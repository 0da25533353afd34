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
//!   first call twice as slow (benches/JOURNAL.md, "The arguments' validator");
//! - natively (tests, fuzzing, benches), the `jsonschema` crate on the same
//!   engine (`PatternOptions::regex`), worded the same way.
//!
//! Patterns are matched in linear time, whichever validator runs
//! (`pattern`): a schema with a pattern Toolgate cannot run is one it cannot
//! check, and the call is refused with that reason. Every check is counted
//! before it runs and refused past its budget (`budget`: the worker is one
//! thread, and no page buys its time), and any failure of the validator
//! refuses the call: nothing runs unchecked, and a schema with a part the
//! validator would read past (a `type` that names no type) cannot be checked.

mod broken;
mod budget;
mod checker;
mod pattern;
mod subset;

pub use budget::{Plan, PATTERNS, PATTERN_BYTES, STEPS};
pub use checker::{check_texts, CheckAsked, Checked, Checking, Verdict};
pub use pattern::{cached, compiled, work, Pattern, TooCostly, WORK_PER_STEP};
use serde_json::Value;
use std::sync::OnceLock;
pub use subset::outside_subset;

/// The most problems a refusal lists (docs/agents.md, "What an agent is
/// told"): wording each is most of what a check of thousands of wrong values
/// costs the worker (ARCHITECTURE.md, "Budgets"), so a validator words one
/// more at most, to say that there are more.
pub const PROBLEMS_SHOWN: usize = 20;

/// The most characters of one problem an agent is told (its start and its
/// end, `cut_middle`): a validator words
/// some problems with what the page's schema holds (an `enum` of one 62 KB
/// value, written into each value's problem), and what a page makes Toolgate
/// say is bounded (ARCHITECTURE.md, "Budgets").
pub const PROBLEM_CHARS: usize = 300;

/// A validator: the problems of `arguments` (read, and as their JSON text)
/// against the schema (its JSON text, `Plan::text`), worded for the agent,
/// or why it failed to check them, `PROBLEMS_SHOWN` and one more at most.
pub type Validator = fn(&str, &Value, &str) -> Result<Vec<String>, String>;

static VALIDATOR: OnceLock<Validator> = OnceLock::new();

/// Makes `validator` the one every check uses, from now on (once: later
/// calls change nothing).
pub fn use_validator(validator: Validator) {
    let _ = VALIDATOR.set(validator);
}

/// Why a call's arguments were refused.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    /// They could not be checked: the reason ("its schema is too costly to
    /// check …"). Nothing was run.
    Unchecked(String),
    /// They break the schema: every way, each naming where
    /// ("arguments.title: expected a string, got a number").
    Invalid(Vec<String>),
}

/// Checks `arguments` (read from `text`) against `schema`, whose plan is
/// `plan`, within the budget.
///
/// # Errors
/// Why they were refused: not checked (too costly, or the validator failed),
/// or the ways they break the schema.
pub fn check(schema: &Value, plan: &Plan, arguments: &Value, text: &str) -> Result<(), Refusal> {
    pattern::in_session(|| {
        let steps = plan.steps(schema, arguments).map_err(Refusal::Unchecked)?;
        // The validator's matches find the count's work done; whatever more
        // they need comes from what the count left (src/page/schema/pattern/search.rs).
        pattern::allow(STEPS.saturating_sub(steps));
        let problems = match VALIDATOR.get() {
            Some(validator) => validator(plan.text(), arguments, text),
            None => native::problems(schema, arguments),
        };
        if let Some(refusal) = pattern::refused() {
            return Err(Refusal::Unchecked(refusal.to_string()));
        }
        checked(problems)
    })
}

/// What the validator said, as a check's answer.
fn checked(problems: Result<Vec<String>, String>) -> Result<(), Refusal> {
    let mut problems =
        problems.map_err(|why| Refusal::Unchecked(format!("the validator failed ({why})")))?;
    for problem in &mut problems {
        *problem = cut_middle(problem);
    }
    if problems.len() > PROBLEMS_SHOWN {
        problems.truncate(PROBLEMS_SHOWN);
        problems.push(format!(
            "and more: only the first {PROBLEMS_SHOWN} problems are listed"
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Refusal::Invalid(problems))
    }
}

/// `problem`, or its first and last `PROBLEM_CHARS / 2` characters around
/// an ellipsis: where it is, and what it says it wanted, which validators
/// write last ("… does not match \"^.{0,500}$\"").
fn cut_middle(problem: &str) -> String {
    let count = problem.chars().count();
    if count <= PROBLEM_CHARS {
        return problem.to_owned();
    }
    let half = PROBLEM_CHARS / 2;
    let head: String = problem.chars().take(half).collect();
    let tail: String = problem.chars().skip(count - half).collect();
    format!("{head}…{tail}")
}

/// Why `schema` cannot be checked at all, if it cannot: a pattern Toolgate
/// cannot run, or patterns too costly to hold (`Plan::read`).
pub fn uncheckable(schema: &Value) -> Option<String> {
    Plan::read(schema).err()
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

    /// A schema the validator cannot build checks nothing: the call is
    /// refused (src/page/schema.rs).
    pub fn problems(schema: &Value, arguments: &Value) -> Result<Vec<String>, String> {
        let validator = jsonschema::options()
            .should_validate_formats(false)
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .build(schema)
            .map_err(|error| format!("its schema cannot be read: {error}"))?;
        Ok(validator
            .iter_errors(arguments)
            .take(super::PROBLEMS_SHOWN + 1)
            .map(|e| worded(&e))
            .collect())
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
    pub fn problems(_: &serde_json::Value, _: &serde_json::Value) -> Result<Vec<String>, String> {
        Err("no validator was given".to_owned())
    }
}
