//! The conditions the decision target sets on tools' arguments
//! (docs/rules.md, "Conditions on a tool's arguments"), and their bytes.

use super::encode::Encode;
use arbitrary::Arbitrary;
use serde_json::json;
use toolgate::decisions::rules::Condition;

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
