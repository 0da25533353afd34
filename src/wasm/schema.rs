//! The binding of an agent's arguments' check (src/page/schema.rs): the
//! worker's validator the core calls, and the patterns it takes from the
//! core. Conversions only.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The worker's validator of an agent's arguments
    /// (extension/background/arguments.js): the problems as JSON text.
    #[wasm_bindgen(catch, js_name = "toolgateCheckArguments")]
    fn check_arguments_js(schema: &str, arguments: &str) -> Result<String, JsValue>;
}

/// Checks arguments with the worker's validator (src/page/schema.rs): its
/// problems, or why it failed, which refuses the call. It reads their text
/// itself (the core's reading of them is the count's).
pub(super) fn check_arguments(
    schema_text: &str,
    _arguments: &serde_json::Value,
    text: &str,
) -> Result<Vec<String>, String> {
    /// The worker's answer: the problems, or what the validator threw.
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Checked {
        Problems(Vec<String>),
        Failed { failed: String },
    }
    let answer = check_arguments_js(schema_text, text).map_err(|thrown| format!("{thrown:?}"))?;
    match serde_json::from_str(&answer).map_err(|error| error.to_string())? {
        Checked::Problems(problems) => Ok(problems),
        Checked::Failed { failed } => Err(failed),
    }
}

/// A pattern on the core's linear-time engine (src/page/schema/pattern.rs),
/// which the worker's validator runs instead of JavaScript's `RegExp`
/// (extension/background/arguments.js).
#[wasm_bindgen]
pub struct LinearPattern(crate::page::schema::Pattern);

#[wasm_bindgen]
impl LinearPattern {
    /// The pattern `source` as the check's plan compiled it; never compiles
    /// one itself (src/page/schema/budget.rs compiles a schema's patterns,
    /// within its bound, before the check), so a pattern the plan did not
    /// compile fails the check.
    #[wasm_bindgen(constructor)]
    pub fn new(source: &str) -> Result<LinearPattern, JsError> {
        crate::page::schema::cached(source)
            .map(LinearPattern)
            .ok_or_else(|| JsError::new("a pattern the check's plan did not compile"))
    }

    /// Whether the pattern matches anywhere in `text`, as `RegExp.prototype.test`,
    /// within what the check's count left of its budget; throws (which
    /// refuses the call) where it is too costly to check on this text.
    pub fn test(&self, text: &str) -> Result<bool, JsError> {
        self.0
            .test(text)
            .map_err(|refusal| JsError::new(&refusal.to_string()))
    }
}
