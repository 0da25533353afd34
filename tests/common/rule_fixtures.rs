//! What the site rules' tests build their cases from: a tool's facts, one
//! change of each target, and which names count as seen (and of what kind).
//! Shared by tests/rules.rs and tests/rules_set_apart.rs.

#![allow(dead_code)] // Each test file uses some of them.

use toolgate::decisions::rules::{Change, Level, RuleFacts, Target, ToolKind};

pub fn tool<'a>(name: &'a str, area: &'a str, kind: ToolKind) -> RuleFacts<'a> {
    RuleFacts {
        name,
        area,
        kind,
        definition: "sha256:seen",
    }
}

pub fn change(target: Target, level: Option<Level>) -> Change {
    Change::level(target, level)
}

pub fn area(name: &str, level: Option<Level>) -> Change {
    change(Target::Area { area: name.into() }, level)
}

pub fn one_tool(name: &str, level: Option<Level>) -> Change {
    change(Target::Tool { name: name.into() }, level)
}

pub fn kind(kind: ToolKind, level: Level) -> Change {
    change(Target::Kind { kind }, Some(level))
}

// Every tool name counts as seen, and is a Write tool, unless it says otherwise.
pub fn seen(name: &str) -> Option<ToolKind> {
    match name {
        n if n.starts_with("unseen") => None,
        n if n.starts_with("delete") => Some(ToolKind::Delete),
        n if n.starts_with("mail") => Some(ToolKind::Outside),
        _ => Some(ToolKind::Write),
    }
}
