//! The words the hand-written scripts are made of: the tools, answers,
//! outcomes and changes each names, by the index the fuzzer's input gives it.

use toolgate_fuzz::decisions::{
    Act, CallSpec, ChangeSpec, LimitSpec, OpSpec, TargetSpec, ToolSpec,
};

pub const EDIT: u8 = 0;
pub const READ: u8 = 1;
pub const WIPE: u8 = 2;
pub const NOTE: u8 = 3;
pub const NOTES_ADD: u8 = 4;
// Answers, by their index in `every_answer`.
pub const SITE_ONCE: u8 = 0;
pub const SITE_READ_ONLY: u8 = 1;
pub const SITE_ALL: u8 = 3;
pub const CALL_ONCE: u8 = 6;
pub const CALL_ALWAYS: u8 = 7;
pub const CALL_CLASS: u8 = 8;
pub const CALL_NEVER: u8 = 10;
pub const CALL_DENY_SITE: u8 = 11;
pub const RULE_ONCE: u8 = 12;
// What a page answers a call with, by `Outcome::of`.
pub const THREW: u8 = 0;
pub const DONE: u8 = 1;
pub const ADDRESSED: u8 = 2;
// What a running call is seen doing, by `Sight::of`.
pub const WRITES_OWN: u8 = 1;

pub fn tool(tool: u8, path: u8, hints: [Option<bool>; 3], variant: u8) -> ToolSpec {
    let [read_only, consequential, idempotent] = hints;
    ToolSpec {
        tool,
        path,
        read_only,
        consequential,
        destructive: None,
        idempotent,
        open_world: None,
        tag: 0,
        variant,
        schema: false,
        skill: false,
        untrusted: None,
    }
}

/// A tool's kind (docs/rules.md), as its hints make it.
#[derive(Clone, Copy)]
pub enum Kind {
    Read,
    Write,
    Delete,
    Outside,
}

/// Tags, by their index in `script::tags`.
pub const UNTAGGED: u8 = 0;
pub const SEARCH: u8 = 1;
pub const NOTES: u8 = 2;

/// A tool of a kind, with tags.
pub fn kinded(name: u8, kind: Kind, tag: u8, variant: u8) -> ToolSpec {
    let mut spec = tool(name, 0, [None, Some(false), None], variant);
    match kind {
        Kind::Read => spec.read_only = Some(true),
        Kind::Write => spec.open_world = Some(false),
        Kind::Delete => spec.destructive = Some(true),
        Kind::Outside => {}
    }
    spec.tag = tag;
    spec
}

// Levels, and what a change sets.
pub const ALLOWED: u8 = 0;
pub const ASK_FIRST: u8 = 1;
pub const OFF: u8 = 2;

pub fn kind_level(kind: Kind, level: u8) -> ChangeSpec {
    ChangeSpec {
        target: TargetSpec::Kind(kind as u8),
        level: Some(level),
    }
}

pub fn area_level(tag: u8, level: u8) -> ChangeSpec {
    // The areas a change names, by index: "search", "notes", ...
    ChangeSpec {
        target: TargetSpec::Area(tag - 1),
        level: Some(level),
    }
}

pub fn tool_level(tool: u8, level: u8) -> ChangeSpec {
    ChangeSpec {
        target: TargetSpec::Tool(tool),
        level: Some(level),
    }
}

/// One change of the rules of https://a.example (slot 0, tab 1).
pub fn rules(changes: Vec<ChangeSpec>) -> Act {
    Act::Rules { site: 0, changes }
}

/// A limit on https://a.example: at most `calls` (1 to 3) calls in 1
/// minute, per chat.
pub fn limit(target: TargetSpec, calls: u8) -> Act {
    Act::Limit {
        site: 0,
        target,
        every: Some(LimitSpec {
            calls: calls - 1,
            window: 0,
        }),
    }
}

/// An administrator's policy for https://a.example: these levels.
pub fn policy(levels: Vec<ChangeSpec>) -> Act {
    Act::Policy {
        site: 0,
        levels,
        conditions: Vec::new(),
        limits: Vec::new(),
        unattended: false,
    }
}

/// Chat 0 stops waiting on its last request.
pub fn stop_waiting() -> Act {
    Act::Withdraw {
        chat: 0,
        back: 0,
        all: false,
    }
}

pub const READ_ONLY: [Option<bool>; 3] = [Some(true), None, None];
pub const MUTATING: [Option<bool>; 3] = [None, Some(false), None];
pub const IDEMPOTENT: [Option<bool>; 3] = [None, Some(false), Some(true)];
pub const CONSEQUENTIAL: [Option<bool>; 3] = [None, Some(true), None];

pub fn page(slot: u8, tools: Vec<ToolSpec>) -> Act {
    Act::Page {
        slot,
        ops: tools.into_iter().map(OpSpec::Register).collect(),
    }
}

pub fn spec(chat: u8, tab: u8, tool: u8, args: u8) -> CallSpec {
    CallSpec {
        chat,
        tab,
        tool,
        args,
        site: None,
    }
}

pub fn call(chat: u8, tab: u8, tool: u8, args: u8) -> Act {
    Act::Call(spec(chat, tab, tool, args))
}

/// A Read only tool whose results the page marks untrusted
/// (`untrustedContentHint: true`).
pub fn untrusted_reader(name: u8) -> ToolSpec {
    ToolSpec {
        untrusted: Some(true),
        ..tool(name, 0, READ_ONLY, 0)
    }
}

/// Answers the oldest open card.
pub fn answer(answer: u8) -> Act {
    Act::Answer { card: 0, answer }
}
