//! What the tests of hints held to their word build their cases from: a
//! Notes site with a tool of each class, a chat that allowed them all, and
//! what a call's tab was seen doing. Shared by tests/conduct.rs and
//! tests/conduct_caused.rs.

#![allow(dead_code)] // Each test file uses some of them.

use serde_json::{json, Value};
use toolgate::decisions::agent::{Run, Step, TabInfo};
use toolgate::page::conduct::{Seen, Witnessed};
use toolgate::toolgate::Toolgate;

use super::common::{frame, page};

pub const SITE: &str = "https://notes.example";

pub fn tools() -> Value {
    json!([
        {"op": "register", "decl": {"path": "document_object", "name": "list_notes", "description": "List notes",
            "annotations": {"readOnlyHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "pin_note", "description": "Pin a note",
            "annotations": {"readOnlyHint": false, "consequentialHint": false, "openWorldHint": false}}},
        {"op": "register", "decl": {"path": "document_object", "name": "send_note", "description": "Send a note",
            "annotations": {"consequentialHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "search_web", "description": "Search",
            "annotations": {"readOnlyHint": true, "untrustedContentHint": true}}},
    ])
}

pub fn core() -> Toolgate {
    let mut core = Toolgate::default();
    core.apply(page(frame(1, 0, "doc-1", SITE), tools()));
    core
}

pub fn tabs() -> Vec<TabInfo> {
    vec![TabInfo {
        id: 1,
        title: "Notes".into(),
        url: format!("{SITE}/"),
    }]
}

pub fn request(core: &mut Toolgate, chat: &str, id: i64, tool: &str) -> Step {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "browser_call_webmcp_tool",
        "arguments": {"tabId": 1, "name": tool, "arguments": {}}}});
    core.request(chat, &request.to_string(), Some(&tabs()), 0)
}

/// A chat that allowed all tools on the site, and its call of `tool`, run.
pub fn allowed_run(core: &mut Toolgate, chat: &str, tool: &str) -> Run {
    let step = request(core, chat, 1, tool);
    let step = match step {
        Step::Ask { card_id } => {
            let answer = serde_json::from_value(json!({"site": "allow_all"})).expect("answer");
            core.answer(card_id, answer, &tabs(), 0)
                .expect("answered")
                .step
        }
        step => step,
    };
    match step {
        Step::Run { run } => run,
        other => panic!("expected the call to run, got {other:?}"),
    }
}

pub fn post(path: &str) -> Seen {
    by_script("POST", &format!("{SITE}{path}"))
}

/// A request the tool's own frame sent during the call, by script.
pub fn by_script(method: &str, url: &str) -> Seen {
    Seen::by_script(method, url)
}

pub fn observed(core: &mut Toolgate, run: &Run, seen: &[Seen]) -> Option<String> {
    let watch = run.watch.as_ref().expect("a Read only call is watched");
    core.observe(Some(run.call_id), watch, &witnessed(seen), false, 5)
        .map(|f| f.text)
}

/// `seen`, every one, as the worker would have seen it during a call.
pub fn witnessed(seen: &[Seen]) -> Witnessed {
    Witnessed::of(SITE, seen.iter().cloned())
}

pub fn reply(core: &mut Toolgate, run: &Run) -> Value {
    let text = core
        .finish(run.call_id, Some("\"ok\""), None, 1024, true, 0)
        .expect("a reply");
    serde_json::from_str(&text).expect("JSON")
}
