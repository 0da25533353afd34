//! Conditions on a tool's arguments (docs/rules.md, "Conditions on a tool's
//! arguments"): a tool set apart can hold up to `MAX_CONDITIONS`, each a few
//! tests on properties its `inputSchema` declares, and a level. The first
//! condition whose tests all hold gives a call its level; none, the tool's
//! own. Evaluated on the arguments as the tool will receive them, after the
//! schema check; `matches` runs on the schema check's linear-time engine.
//! Where a test looks, and how it reads lists, is in `paths`.

use super::paths::{declared, declared_types, holds_at, reached};
use super::Level;
use crate::page::schema::compiled;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::paths::{properties, properties_of, Property};

/// The most conditions one tool set apart can hold.
pub const MAX_CONDITIONS: usize = 5;
/// The most tests one condition can hold.
pub const MAX_TESTS: usize = 5;
/// The most values an `is_one_of` test can list.
pub const MAX_ONE_OF: usize = 20;
/// The most characters of a test's text (a value, a pattern) or path.
pub const MAX_TEXT: usize = 1000;

/// One condition: its tests, all of which must hold, and the level it gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    pub when: Vec<Test>,
    pub level: Level,
}

/// One test: a property's path in the arguments (names joined by `.`, `[]`
/// after a list of objects' name: `paths`), an operator and a value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub path: String,
    pub op: Op,
    pub value: Value,
}

/// A test's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Is,
    IsOneOf,
    AtMost,
    AtLeast,
    StartsWith,
    EndsWith,
    Matches,
}

impl Op {
    pub const ALL: [Op; 7] = [
        Op::Is,
        Op::IsOneOf,
        Op::AtMost,
        Op::AtLeast,
        Op::StartsWith,
        Op::EndsWith,
        Op::Matches,
    ];

    /// The operator's label, word for word (the settings page's menu).
    pub fn label(self) -> &'static str {
        match self {
            Op::Is => "is",
            Op::IsOneOf => "is one of",
            Op::AtMost => "is at most",
            Op::AtLeast => "is at least",
            Op::StartsWith => "starts with",
            Op::EndsWith => "ends with",
            Op::Matches => "matches",
        }
    }

    /// The label of the test that fails ("is more than").
    fn negated(self) -> &'static str {
        match self {
            Op::Is => "is not",
            Op::IsOneOf => "is none of",
            Op::AtMost => "is more than",
            Op::AtLeast => "is less than",
            Op::StartsWith => "does not start with",
            Op::EndsWith => "does not end with",
            Op::Matches => "does not match",
        }
    }

    /// The wire name (`"at_most"`).
    pub fn key(self) -> &'static str {
        match self {
            Op::Is => "is",
            Op::IsOneOf => "is_one_of",
            Op::AtMost => "at_most",
            Op::AtLeast => "at_least",
            Op::StartsWith => "starts_with",
            Op::EndsWith => "ends_with",
            Op::Matches => "matches",
        }
    }
}

/// A value as the words show it: text in quotes, numbers and booleans as JSON.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => format!("\u{201c}{text}\u{201d}"),
        Value::Array(items) => items.iter().map(shown).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// A property's path as Toolgate's words name it: its names are the page's,
/// so their hidden characters are shown and it is cut as an argument's name
/// is (docs/cards.md, "How page text is shown").
pub fn path_shown(path: &str) -> String {
    crate::page::hidden::page_line(path, crate::page::hidden::ARGUMENT_NAME_CAP)
}

impl Test {
    /// The test in words: "amount is at most 20".
    pub fn words(&self) -> String {
        format!(
            "{} {} {}",
            path_shown(&self.path),
            self.op.label(),
            shown(&self.value)
        )
    }

    /// The test failed, in words, as it failed on `arguments` for a
    /// condition that gives Allowed (every item of a list must pass): "amount
    /// is more than 20", "has no amount", "amount is not a number".
    fn failed_words(&self, arguments: &Value) -> String {
        let path = path_shown(&self.path);
        let reached = reached(arguments, &self.path);
        let wrong_type =
            |found: &&Value| !found.is_array() && !same_type(self.op, &self.value, found);
        if reached.is_empty() || reached.iter().any(Option::is_none) {
            format!("has no {path}")
        } else if reached.iter().flatten().any(wrong_type) {
            format!("{path} is not {}", self.wants())
        } else {
            format!("{path} {} {}", self.op.negated(), shown(&self.value))
        }
    }

    /// The type of value the test looks for, in words.
    fn wants(&self) -> &'static str {
        match (self.op, &self.value) {
            (Op::AtMost | Op::AtLeast, _) => "a number",
            (Op::StartsWith | Op::EndsWith | Op::Matches, _) => "text",
            (_, Value::Number(_)) => "a number",
            (_, Value::Bool(_)) => "true or false",
            _ => "text",
        }
    }

    /// Whether one value passes the test; `Err` when its pattern could not
    /// be matched on it (too costly).
    fn passes(&self, found: &Value) -> Result<bool, ()> {
        Ok(match (self.op, found) {
            (Op::Is, found) => equal(&self.value, found),
            (Op::IsOneOf, found) => self
                .value
                .as_array()
                .is_some_and(|values| values.iter().any(|v| equal(v, found))),
            (Op::AtMost, Value::Number(n)) => number(n) <= self.number(),
            (Op::AtLeast, Value::Number(n)) => number(n) >= self.number(),
            (Op::StartsWith, Value::String(s)) => s.starts_with(self.text()),
            (Op::EndsWith, Value::String(s)) => s.ends_with(self.text()),
            (Op::Matches, Value::String(s)) => compiled(self.text())
                .map_err(|_| ())?
                .test(s)
                .map_err(|_| ())?,
            _ => false,
        })
    }

    fn number(&self) -> f64 {
        self.value.as_f64().unwrap_or(f64::NAN)
    }

    fn text(&self) -> &str {
        self.value.as_str().unwrap_or_default()
    }

    /// Whether the test holds on `arguments` for a condition that gives
    /// `level`: a missing path is false; a list is read the safer way
    /// (docs/rules.md, "Lists"), wherever the path meets it (`paths`): for
    /// Allowed, every item and at least one; for Ask first, any item. A
    /// pattern too costly to match counts the safer way too: it never lets
    /// a call through, and always asks.
    pub fn holds(&self, arguments: &Value, level: Level) -> bool {
        let allows = level == Level::Allowed;
        let pass = |v: &Value| self.passes(v).unwrap_or(!allows);
        holds_at(arguments, &self.path, allows, &pass)
    }
}

/// Numbers compare as numbers (20 is 20.0); text and booleans exactly.
fn equal(want: &Value, found: &Value) -> bool {
    match (want, found) {
        (Value::Number(a), Value::Number(b)) => number(a) == number(b),
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        _ => false,
    }
}

fn number(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// Whether `found` is of the type the test looks at.
fn same_type(op: Op, want: &Value, found: &Value) -> bool {
    let want = match (op, want) {
        (Op::IsOneOf, Value::Array(values)) => values.first().unwrap_or(&Value::Null),
        (_, want) => want,
    };
    matches!(
        (want, found),
        (Value::Number(_), Value::Number(_))
            | (Value::String(_), Value::String(_))
            | (Value::Bool(_), Value::Bool(_))
    )
}

impl Condition {
    /// The condition in words: "amount is at most 20 and to is “ana”".
    pub fn words(&self) -> String {
        self.when
            .iter()
            .map(Test::words)
            .collect::<Vec<_>>()
            .join(" and ")
    }

    /// Whether every test holds on `arguments`.
    pub fn holds(&self, arguments: &Value) -> bool {
        self.when.iter().all(|t| t.holds(arguments, self.level))
    }

    /// Why it did not hold on `arguments`, in words: its first test that failed.
    fn unmet(&self, arguments: &Value) -> Option<String> {
        self.when
            .iter()
            .find(|t| !t.holds(arguments, self.level))
            .map(|t| t.failed_words(arguments))
    }
}

/// What a tool's conditions say of one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Met {
    /// This condition held (its index from 1, and its words).
    Held {
        index: usize,
        level: Level,
        words: String,
    },
    /// None held: why the Allowed ones did not ("amount is more than 20"),
    /// joined by "; ", or empty when the tool has none that allows.
    NoneHeld { unmet: String },
}

/// The first of `conditions` that holds on `arguments`.
pub fn first_met(conditions: &[Condition], arguments: &Value) -> Met {
    if let Some((index, held)) = conditions
        .iter()
        .enumerate()
        .find(|(_, c)| c.holds(arguments))
    {
        return Met::Held {
            index: index + 1,
            level: held.level,
            words: held.words(),
        };
    }
    let mut unmet: Vec<String> = Vec::new();
    for condition in conditions.iter().filter(|c| c.level == Level::Allowed) {
        if let Some(words) = condition.unmet(arguments) {
            if !unmet.contains(&words) {
                unmet.push(words);
            }
        }
    }
    Met::NoneHeld {
        unmet: unmet.join("; "),
    }
}

/// Why a tool's conditions cannot be set as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConditionError {
    TooMany { given: usize },
    Tests { condition: usize, given: usize },
    LevelOff { condition: usize },
    NoSchema,
    NotDeclared { path: String },
    BadValue { path: String, why: String },
    Pattern { path: String, why: String },
}

impl ConditionError {
    /// The reason in words, for the tool `name`.
    pub fn words(&self, name: &str) -> String {
        match self {
            ConditionError::TooMany { given } => format!(
                "{name} can hold up to {MAX_CONDITIONS} conditions; this change gives {given}."
            ),
            ConditionError::Tests { condition, given } => format!(
                "Condition {condition} of {name} needs 1 to {MAX_TESTS} tests; it has {given}."
            ),
            ConditionError::LevelOff { condition } => format!(
                "Condition {condition} of {name} can give Allowed or Ask first, not Off."
            ),
            ConditionError::NoSchema => format!(
                "{name} declares no properties Toolgate can read: its conditions can be set once a tab publishes it with an inputSchema."
            ),
            ConditionError::NotDeclared { path } => format!(
                "{name} has no property {} in its schema: a condition can only look at a property the schema declares.",
                Value::from(path_shown(path))
            ),
            ConditionError::BadValue { path, why } => {
                format!("The test on {} of {name} {why}.", path_shown(path))
            }
            ConditionError::Pattern { path, why } => {
                format!("The test on {} of {name} cannot run: {why}.", path_shown(path))
            }
        }
    }
}

/// Checks `conditions` for a tool whose schema is `schema` (`None`: none
/// Toolgate can read): their number, their tests, their values against
/// the operators and the types the schema declares, their patterns.
///
/// # Errors
/// The first problem found.
pub fn validate(conditions: &[Condition], schema: Option<&Value>) -> Result<(), ConditionError> {
    if conditions.len() > MAX_CONDITIONS {
        return Err(ConditionError::TooMany {
            given: conditions.len(),
        });
    }
    for (i, condition) in conditions.iter().enumerate() {
        let n = i + 1;
        if condition.when.is_empty() || condition.when.len() > MAX_TESTS {
            return Err(ConditionError::Tests {
                condition: n,
                given: condition.when.len(),
            });
        }
        if condition.level == Level::Off {
            return Err(ConditionError::LevelOff { condition: n });
        }
        for test in &condition.when {
            check_test(test, schema)?;
        }
    }
    Ok(())
}

fn check_test(test: &Test, schema: Option<&Value>) -> Result<(), ConditionError> {
    let path = test.path.clone();
    let bad = |why: String| ConditionError::BadValue {
        path: path.clone(),
        why,
    };
    if test.path.chars().count() > MAX_TEXT {
        return Err(bad(format!("has a path longer than {MAX_TEXT} characters")));
    }
    let schema = schema.ok_or(ConditionError::NoSchema)?;
    let property = declared(schema, &test.path).ok_or_else(|| ConditionError::NotDeclared {
        path: test.path.clone(),
    })?;
    let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
    let long = |v: &Value| v.as_str().is_some_and(|s| s.chars().count() > MAX_TEXT);
    let value_ok = match (test.op, &test.value) {
        (Op::Is, v) => scalar(v),
        (Op::IsOneOf, Value::Array(values)) => {
            !values.is_empty()
                && values.len() <= MAX_ONE_OF
                && values.iter().all(scalar)
                && values.iter().all(|v| same_type(Op::Is, &values[0], v))
        }
        (Op::AtMost | Op::AtLeast, Value::Number(_)) => true,
        (Op::StartsWith | Op::EndsWith | Op::Matches, Value::String(_)) => true,
        _ => false,
    };
    if !value_ok {
        let wants = match test.op {
            Op::Is => "text, a number, or true or false".to_owned(),
            Op::IsOneOf => format!(
                "a list of 1 to {MAX_ONE_OF} values of one type (text, numbers, or true or false)"
            ),
            Op::AtMost | Op::AtLeast => "a number".to_owned(),
            _ => "text".to_owned(),
        };
        return Err(bad(format!("{} needs {wants}", test.op.label())));
    }
    let values: Vec<&Value> = match &test.value {
        Value::Array(values) => values.iter().collect(),
        value => vec![value],
    };
    if values.iter().any(|v| long(v)) {
        return Err(bad(format!(
            "has a value longer than {MAX_TEXT} characters"
        )));
    }
    let types = declared_types(property);
    let fits = |t: &str| match t {
        "number" | "integer" => {
            matches!(values[0], Value::Number(_))
                && !matches!(test.op, Op::StartsWith | Op::EndsWith | Op::Matches)
        }
        "string" => {
            matches!(values[0], Value::String(_)) && !matches!(test.op, Op::AtMost | Op::AtLeast)
        }
        "boolean" => matches!(values[0], Value::Bool(_)) && matches!(test.op, Op::Is | Op::IsOneOf),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| fits(t)) {
        return Err(bad(format!(
            "looks for {}, but the schema declares {} as {}",
            test.wants(),
            test.path,
            types.join(" or ")
        )));
    }
    if test.op == Op::Matches {
        compiled(test.value.as_str().unwrap_or_default()).map_err(|why| {
            ConditionError::Pattern {
                path: test.path.clone(),
                why,
            }
        })?;
    }
    Ok(())
}
