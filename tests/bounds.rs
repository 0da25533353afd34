//! Every field an agent makes Toolgate store is bounded and counted as
//! stored (ARCHITECTURE.md, "Budgets"; docs/agents.md, "Arguments and
//! limits"): request ids and chat ids past 256 bytes of JSON text are
//! refused with the field and the limit, and nothing of them is kept; a
//! chat's label is kept to 100 characters; and the requests waiting on a
//! person are charged to their tab as stored, escapes included.

use serde_json::{json, Value};
use toolgate::decisions::agent::{stored_len, Step, CHAT_ID_BYTES, REQUEST_ID_BYTES};
mod common;
#[path = "common/harness.rs"]
mod harness;
use harness::*;

/// A call of `tool` on tab 1 (the remote Notes page) with request id `id`.
fn call_with_id(id: Value, tool: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "browser_call_webmcp_tool",
        "arguments": {"tabId": 1, "name": tool, "arguments": args}}})
}

fn reply_of(step: &Step) -> Value {
    match step {
        Step::Reply { reply } => reply.value(),
        other => panic!("expected a reply, got {other:?}"),
    }
}

#[test]
fn stored_length_is_the_json_text_with_its_escapes() {
    assert_eq!(stored_len("abc"), 5);
    assert_eq!(
        stored_len("\"\\"),
        6,
        "a quote and a backslash take two bytes each"
    );
    assert_eq!(stored_len("\u{1}"), 8, "a control character takes six");
    assert_eq!(stored_len("é"), 4, "UTF-8 bytes");
    assert_eq!(stored_len(&json!(12345)), 5);
}

#[test]
fn request_ids_past_256_bytes_as_stored_are_refused_and_nothing_of_them_is_kept() {
    let mut h = Harness::new();
    let at_most = json!("x".repeat(REQUEST_ID_BYTES - 2));
    let step = h.resend("c", &call_with_id(at_most, "delete_note", json!({})));
    assert_eq!(
        outcome(&h, &step),
        "site card",
        "an id of 256 bytes is taken"
    );
    let before = serde_json::to_string(&h.session).expect("session");
    for (id, bytes) in [
        (json!("x".repeat(REQUEST_ID_BYTES - 1)), 257),
        // 129 characters, but 258 bytes as stored: each quote is escaped.
        (json!("\"".repeat(128)), 258),
        (json!({"nested": "x".repeat(300)}), 313),
    ] {
        let step = h.resend("c", &call_with_id(id.clone(), "delete_note", json!({})));
        let reply = reply_of(&step);
        assert_eq!(reply["id"], id, "the agent can tell which request it was");
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(
            reply["error"]["message"],
            format!("Nothing was done: the request id takes {bytes} bytes as Toolgate stores it (its JSON text), and Toolgate takes request ids of at most 256 bytes. Use a short id.")
        );
    }
    assert_eq!(h.session.pending.len(), 1);
    assert!(h.session.pending.values().all(|p| p.waiting.is_empty()));
    assert_eq!(
        serde_json::to_string(&h.session).expect("session"),
        before,
        "nothing kept"
    );
}

#[test]
fn chat_ids_past_256_bytes_are_refused_and_labels_are_kept_to_100_characters() {
    let mut h = Harness::new();
    let long = "c".repeat(CHAT_ID_BYTES - 1);
    let why = h.session.open_chat(&long, "Agent", false).unwrap_err();
    assert_eq!(why, "Nothing was done: the chat id takes 257 bytes as Toolgate stores it (its JSON text), and Toolgate takes chat ids of at most 256 bytes. Use a short id.");
    let step = h.call(&long, 1, "delete_note", json!({}));
    assert_eq!(outcome(&h, &step), format!("error: {why}"));
    h.session.close_chat(&long);
    assert!(
        h.session.answers.chats.is_empty(),
        "nothing of the long id is kept"
    );

    let fits = "c".repeat(CHAT_ID_BYTES - 2);
    h.session
        .open_chat(&fits, &"é".repeat(300), false)
        .expect("opens");
    assert_eq!(h.session.chat_label(&fits), "é".repeat(100));
}

/// The arguments are JSON text, stored as a string in the session's JSON
/// text: each quote in them takes four bytes there.
#[test]
fn arguments_are_counted_as_stored_with_their_escapes() {
    let mut h = Harness::new();
    let quotes = json!({"title": "\"".repeat(300_000)});
    assert!(
        quotes.to_string().len() < 1024 * 1024,
        "under the cap as sent"
    );
    let why = h.call_said("c", 1, "delete_note", quotes);
    assert!(
        why.starts_with("Nothing ran: Toolgate holds at most 1 MB (1048576 bytes) of requests waiting on a person for one tab, counted as stored (their arguments and ids), and this call of delete_note (12"),
        "{why}"
    );
    assert!(h.session.pending.is_empty());
}

/// Requests with no arguments at all take room too: however many an agent
/// sends to wait on one site card, they stop at the tab's share.
#[test]
fn requests_waiting_on_one_site_card_are_bounded_by_their_bytes_as_stored() {
    let mut h = Harness::new();
    let mut refused = None;
    for n in 0..10_000 {
        let id = json!(format!("{n:0>250}"));
        let list = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}});
        // Straight to the session: the harness's check of every change
        // writes the whole session out twice a request.
        let world = toolgate::decisions::agent::World {
            checking: Default::default(),
            registry: &h.registry,
            tabs: Some(&h.tabs),
            now_ms: h.now_ms,
        };
        let step = h.session.request("c", &list.to_string(), &world);
        match outcome(&h, &step) {
            s if s == "site card" || s == "wait" => continue,
            why => {
                refused = Some((n, why));
                break;
            }
        }
    }
    let (n, why) = refused.expect("refused before 10,000");
    assert!(why.starts_with("Nothing ran: Toolgate holds at most 1 MB (1048576 bytes) of requests waiting on a person for one tab"), "{why}");
    assert!(n > 1000, "{n} requests waited");
    let stored = serde_json::to_string(&h.session.pending)
        .expect("pending")
        .len();
    assert!(
        stored <= 1024 * 1024 + 64 * n,
        "{stored} bytes stored for {n} requests"
    );
}
