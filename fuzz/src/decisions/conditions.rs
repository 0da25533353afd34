//! The conditions the decision target sets on tools' arguments
//! (docs/rules.md, "Conditions on a tool's arguments"), its limits on how
//! often ("Limits on how often"), and their bytes.

use super::encode::Encode;
use super::script::TargetSpec;
use arbitrary::Arbitrary;
use serde_json::json;
use toolgate::decisions::rules::{Condition, Every, Limit};

/// A condition with one test on the argument `x` (the property every
/// fuzzed schema declares, a number): `op` 0 at most, 1 at least, 2 is;
/// `value` 0 to 3; `allow` gives Allowed, else Ask first.
#[derive(Arbitrary, Clone, Debug, PartialEq)]
pub struct ConditionSpec {
    pub op: u8,
    pub value: u8,
    pub allow: bool,
}

impl ConditionSpec {
    pub const OPS: [&'static str; 3] = ["at_most", "at_least", "is"];

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
