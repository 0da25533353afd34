//! `pattern` and `patternProperties`, matched in time linear in the text
//! (docs/agents.md, "Arguments and limits"; ARCHITECTURE.md, "Budgets").
//!
//! JSON Schema writes patterns in ECMA-262 syntax, but nothing obliges
//! Toolgate to run them on a backtracking engine, where `^(a+)+$` against 30
//! "a"s and a "!" takes seconds and each further character doubles it. A
//! pattern is translated to the `regex` crate's syntax (`jsonschema-regex`,
//! as the `jsonschema` crate does) and run on its engines, which never
//! backtrack. Look-around and back-references have no linear-time match, so a
//! pattern that uses them is one Toolgate cannot check; so is one past the
//! compiled-size limit below.

use regex::{Regex, RegexBuilder};
use serde_json::Value;

/// The most memory one compiled pattern may take, in bytes.
const COMPILED_LIMIT: usize = 1 << 20;

/// A pattern compiled for linear-time matching.
#[derive(Debug)]
pub struct Pattern(Regex);

impl Pattern {
    /// Compiles `source`, an ECMA-262 pattern.
    ///
    /// # Errors
    /// Says why Toolgate cannot run the pattern, quoting it.
    pub fn new(source: &str) -> Result<Self, String> {
        let shown = shown(source);
        let unreadable =
            || format!("its pattern {shown} is no regular expression Toolgate can read");
        let translated = jsonschema_regex::to_rust_regex(source).map_err(|()| unreadable())?;
        RegexBuilder::new(&translated)
            .size_limit(COMPILED_LIMIT)
            .build()
            .map(Pattern)
            .map_err(|error| match error {
                regex::Error::CompiledTooBig(_) => format!("its pattern {shown} is too large to check"),
                _ if jsonschema_regex::is_valid_ecma_regex(source) => format!(
                    "its pattern {shown} uses look-around or back-references, which Toolgate does not run"
                ),
                _ => unreadable(),
            })
    }

    /// Whether the pattern matches anywhere in `text` (JSON Schema's patterns
    /// are not anchored).
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

/// A pattern as a refusal quotes it: JSON, and cut to 80 characters.
fn shown(source: &str) -> String {
    const SHOWN: usize = 80;
    if source.chars().count() <= SHOWN {
        return Value::from(source).to_string();
    }
    let cut: String = source.chars().take(SHOWN).collect();
    format!("{}…", Value::from(cut))
}

/// Why `schema` cannot be checked, if it has a pattern Toolgate cannot run:
/// the first such `pattern`, or `patternProperties` key. Values that are data
/// rather than schemas (`enum`, `const`, `default`, `examples`) are not read;
/// in maps of schemas by name (`properties`, `$defs` …) only the schemas are.
pub fn uncheckable(schema: &Value) -> Option<String> {
    match schema {
        Value::Array(items) => items.iter().find_map(uncheckable),
        Value::Object(members) => {
            members
                .iter()
                .find_map(|(keyword, value)| match (keyword.as_str(), value) {
                    ("enum" | "const" | "default" | "examples", _) => None,
                    ("pattern", Value::String(source)) => Pattern::new(source).err(),
                    ("patternProperties", Value::Object(by_pattern)) => {
                        by_pattern.iter().find_map(|(source, sub)| {
                            Pattern::new(source).err().or_else(|| uncheckable(sub))
                        })
                    }
                    (
                        "properties" | "$defs" | "definitions" | "dependentSchemas",
                        Value::Object(by_name),
                    ) => by_name.values().find_map(uncheckable),
                    (_, sub) => uncheckable(sub),
                })
        }
        _ => None,
    }
}
