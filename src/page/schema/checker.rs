//! The arguments' check off the worker's thread (ARCHITECTURE.md, "The
//! arguments' checker"): what the checker is asked, what it answers, and the
//! check it runs there.
//!
//! The worker is one thread, and a validator's work on a page's schema is
//! the page's to choose: a count of what the validator should do is a model,
//! and a model the real work can exceed is not a bound. So in the extension
//! the worker never runs the validator: it hands the schema's text and the
//! arguments' text to the checker, a pool of threads it can stop at a deadline
//! (an offscreen document's workers), and takes the verdict back with the
//! request. However long a check would take, the worker's thread is free
//! meanwhile, and the checker's deadline ends it.

use super::{check, Plan, Refusal};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;

/// What a check of one call's arguments found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// They hold to the schema.
    Passed,
    /// They could not be checked: why ("its schema is too costly to check
    /// …"). Nothing runs.
    Unchecked { why: String },
    /// They break the schema, in these ways.
    Invalid { problems: Vec<String> },
}

impl Verdict {
    /// The verdict of a check's answer.
    pub fn of(checked: Result<(), Refusal>) -> Verdict {
        match checked {
            Ok(()) => Verdict::Passed,
            Err(Refusal::Unchecked(why)) => Verdict::Unchecked { why },
            Err(Refusal::Invalid(problems)) => Verdict::Invalid { problems },
        }
    }

    /// The verdict as a check's answer.
    pub fn into_result(self) -> Result<(), Refusal> {
        match self {
            Verdict::Passed => Ok(()),
            Verdict::Unchecked { why } => Err(Refusal::Unchecked(why)),
            Verdict::Invalid { problems } => Err(Refusal::Invalid(problems)),
        }
    }
}

/// A check the worker asks of the checker: the tool's schema and the
/// arguments exactly as the tool will receive them, both as the JSON text
/// the core holds, and the site whose tool it is (the checker runs one check
/// a site at a time, so no site's checks hold up another's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckAsked {
    pub schema: String,
    pub arguments: String,
    pub site: String,
}

/// The checker's verdict on a check, brought back with the request it was
/// asked for. It answers for exactly the texts it names: a tool that changed
/// meanwhile, or other arguments, are checked again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    pub schema: String,
    pub arguments: String,
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl Checked {
    /// The verdict, if it is for `schema` and `arguments`.
    pub fn for_texts(&self, schema: &str, arguments: &str) -> Option<&Verdict> {
        (self.schema == schema && self.arguments == arguments).then_some(&self.verdict)
    }
}

/// How many schemas' plans the checker keeps read: most calls are of a tool
/// called before.
const PLANS_KEPT: usize = 32;

thread_local! {
    /// Plans by schema text, the newest last.
    static PLANS: RefCell<Vec<(String, Result<Plan, String>)>> = const { RefCell::new(Vec::new()) };
}

/// Checks `arguments` against `schema` (both JSON text), on this thread:
/// the checker's own, in the extension. The count first, as everywhere
/// (`Plan::steps`: a check it stops is refused at once, with why), then the
/// validator.
pub fn check_texts(schema: &str, arguments: &str) -> Verdict {
    let unchecked = |why: &str| Verdict::Unchecked {
        why: why.to_owned(),
    };
    let Ok(schema_value) = serde_json::from_str::<Value>(schema) else {
        return unchecked("its schema is not JSON");
    };
    let text = arguments;
    let Ok(arguments) = serde_json::from_str::<Value>(text) else {
        return unchecked("the arguments are not JSON");
    };
    PLANS.with(|plans| {
        let mut plans = plans.borrow_mut();
        let at = match plans.iter().position(|(text, _)| text == schema) {
            Some(at) => at,
            None => {
                if plans.len() == PLANS_KEPT {
                    drop(plans.remove(0));
                }
                plans.push((schema.to_owned(), Plan::read(&schema_value)));
                plans.len() - 1
            }
        };
        match &plans[at].1 {
            Err(why) => unchecked(why),
            Ok(plan) => Verdict::of(check(&schema_value, plan, &arguments, text)),
        }
    })
}

/// Where a call's arguments are checked, as the shell says when it hands
/// the core a request.
#[derive(Clone, Copy, Debug, Default)]
pub enum Checking<'a> {
    /// Here, now: natively (tests, fuzzing, benches), with the `jsonschema`
    /// crate.
    #[default]
    InPlace,
    /// By the checker, off the worker's thread: the verdict the shell brought
    /// back with the request, if it has one. Without one that answers for
    /// the call's texts, the core asks for the check (`Step::NeedCheck`).
    OffThread(Option<&'a Checked>),
}
