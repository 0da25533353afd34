//! The conditions the decision target sets on tools' arguments
//! (docs/rules.md, "Conditions on a tool's arguments"), its limits on how
//! often ("Limits on how often"), and their bytes.

use super::encode::Encode;
use super::script::TargetSpec;
use arbitrary::Arbitrary;
use serde_json::{json, Value};
use toolgate::decisions::rules::{Condition, Every, Level, Limit};

/// A condition with one test on the argument `x` (the property every
/// fuzzed schema declares, a number): `op` 0 at most, 1 at least, 2 is;
/// `value` 0 to 3; `allow` gives Allowed, else Ask first.
#[derive(Arbitrary, Clone, Debug, PartialEq)]
pub struct ConditionSpec {
    pub op: u8,
    pub value: u8,
    pub allow: bool,
}

/// A condition as the model holds it: its operator, its value, and the
/// level it gives.
pub type Held = (&'static str, f64, Level);

/// The level the first of `conditions` whose test holds on `arguments`
/// gives; a missing `x`, or one that is not a number, holds no test.
pub fn first_held(conditions: &[Held], arguments: &Value) -> Option<Level> {
    let x = arguments.get("x").and_then(Value::as_f64);
    let held = conditions.iter().find(|(op, value, _)| match (*op, x) {
        ("at_most", Some(x)) => x <= *value,
        ("at_least", Some(x)) => x >= *value,
        ("is", Some(x)) => x == *value,
        _ => false,
    });
    held.map(|(_, _, level)| *level)
}

impl ConditionSpec {
    pub const OPS: [&'static str; 3] = ["at_most", "at_least", "is"];

    /// The condition as the model holds it.
    pub fn held(&self) -> Held {
        let level = if self.allow {
            Level::Allowed
        } else {
            Level::AskFirst
        };
        (self.op(), f64::from(self.value()), level)
    }

    pub fn op(&self) -> &'static str {
        Self::OPS[self.op as usize % 3]
    }

    pub fn value(&self) -> u8 {
        self.value % 4
    }

    pub fn condition(&self) -> Condition {
        serde_json::from_value(json!({
            "when": [{"path": "x", "op": self.op(), "value": self.value()}],
            "level": if self.allow { "allowed" } else { "ask_first" },
        }))
        .expect("a condition")
    }
}

impl Encode for ConditionSpec {
    fn encode(&self, out: &mut Vec<u8>) {
        self.op.encode(out);
        self.value.encode(out);
        self.allow.encode(out);
    }
}

/// A limit: at most 1 to 3 calls (`calls`) in 1, 10 or 60 minutes
/// (`window`), few enough that a script passes it.
#[derive(Arbitrary, Clone, Debug, PartialEq)]
pub struct LimitSpec {
    pub calls: u8,
    pub window: u8,
}

impl LimitSpec {
    pub fn every(&self) -> Every {
        Every {
            calls: 1 + u32::from(self.calls % 3),
            minutes: [1, 10, 60][self.window as usize % 3],
        }
    }
}

impl Encode for LimitSpec {
    fn encode(&self, out: &mut Vec<u8>) {
        self.calls.encode(out);
        self.window.encode(out);
    }
}

/// A limit of an administrator's policy: on a kind, an area or a tool.
#[derive(Arbitrary, Clone, Debug, PartialEq)]
pub struct PolicyLimit {
    pub target: TargetSpec,
    pub every: LimitSpec,
}

impl PolicyLimit {
    pub fn limit(&self) -> Limit {
        Limit {
            target: self.target.target(),
            every: self.every.every(),
            admin: false,
        }
    }
}

impl Encode for PolicyLimit {
    fn encode(&self, out: &mut Vec<u8>) {
        self.target.encode(out);
        self.every.encode(out);
    }
}

/// An administrator's conditions for a tool, by name.
#[derive(Arbitrary, Clone, Debug, PartialEq)]
pub struct PolicyConditions {
    pub tool: u8,
    pub conditions: Vec<ConditionSpec>,
}

impl Encode for PolicyConditions {
    fn encode(&self, out: &mut Vec<u8>) {
        self.tool.encode(out);
        self.conditions.encode(out);
    }
}
