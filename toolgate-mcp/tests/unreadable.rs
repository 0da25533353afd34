//! Messages that cannot be read whole: each request among them is still
//! answered, by its id where one can be found and with `null` where not (as
//! JSON-RPC 2.0 asks; docs/agents.md lists the errors), and the session goes
//! on. A client whose request gets no answer waits for ever.

mod common;

use std::time::Duration;

use common::{socket_dir, Browser, Client};
use serde_json::{json, Value};

/// The issue's request: a call whose arguments hold a number no JSON reader
/// here can carry (over a double's range).
const OUT_OF_RANGE: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"browser_call_webmcp_tool","arguments":{"tab":1,"tool":"x","arguments":{"x":1e400}}}}"#;

fn started() -> (tempfile::TempDir, Client) {
    let (dir, socket) = socket_dir();
    let mut client = Client::start(&socket);
    client.initialize("c");
    (dir, client)
}

#[test]
fn a_request_holding_a_number_json_cannot_carry_gets_a_parse_error_with_its_id() {
    let (_dir, mut client) = started();
    client.write_line(OUT_OF_RANGE);
    let reply = client.error_for(&json!(3));
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    let message = reply["error"]["message"].as_str().expect("a message");
    assert!(message.contains("number"), "{message}");
    assert!(message.contains("cannot carry"), "{message}");
    // The id is found wherever it is, after the number too (some clients
    // write it last), and a string id comes back as it was.
    client.write_line(
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"b","arguments":{"x":-2e999}},"id":"late"}"#,
    );
    assert_eq!(client.error_for(&json!("late"))["error"]["code"], -32700);
}

#[test]
fn a_line_that_is_not_json_and_has_no_id_gets_a_parse_error_with_id_null() {
    let (_dir, mut client) = started();
    client.write_line("this is not JSON");
    let reply = client.error_for(&Value::Null);
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not JSON")),
        "{reply}"
    );
}

#[test]
fn a_request_that_is_json_but_not_a_request_gets_invalid_request_with_its_id() {
    let (_dir, mut client) = started();
    client.write_line(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"oops"}"#);
    let reply = client.error_for(&json!(4));
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(r#"params are not those of "tools/call""#)),
        "{reply}"
    );
    // An id JSON-RPC allows but MCP does not (a fraction) is answered by it too.
    client.write_line(r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#);
    let reply = client.error_for(&json!(1.5));
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("id")),
        "{reply}"
    );
}

#[test]
fn after_a_line_it_cannot_read_the_session_answers_it_and_the_next_request() {
    let (_dir, mut client) = started();
    client.write_line(OUT_OF_RANGE);
    client.write_line("{\"jsonrpc\":\"2.0\",\"id\":");
    let id = client.request("tools/list", json!({}));
    assert_eq!(client.error_for(&json!(3))["error"]["code"], -32700);
    assert_eq!(client.error_for(&Value::Null)["error"]["code"], -32700);
    let tools = client.response(id);
    assert_eq!(tools["result"]["tools"].as_array().map(Vec::len), Some(3));
}

#[test]
fn an_unreadable_notification_or_response_gets_no_reply() {
    // JSON-RPC answers requests only: a reply to a response could start an
    // exchange of errors with a peer that answers errors.
    let (_dir, mut client) = started();
    client.write_line(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1e400}}"#);
    client.write_line(r#"{"jsonrpc":"2.0","id":9,"result":{"x":1e400}}"#);
    client.write_line(r#"{"jsonrpc":"2.0","id":9,"error":"not an error object"}"#);
    let id = client.request("ping", json!({}));
    client.response(id);
    assert!(client
        .find(Duration::from_millis(300), |m| m.get("error").is_some())
        .is_none());
}

#[test]
fn a_reply_from_the_browser_that_cannot_be_read_fails_its_call_instead_of_hanging() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let mut client = Client::start(&socket);
    client.initialize("c");
    let open = browser.recv();
    let session = open["session"].as_str().expect("a session").to_owned();
    let id = client.call("browser_list_tabs", json!({}), None);
    let request = browser.recv();
    assert_eq!(request["type"], "request", "{request}");
    let frame = format!(
        r#"{{"type":"reply","session":"{session}","reply":{{"jsonrpc":"2.0","id":{},"result":{{"content":[],"n":1e400}}}}}}"#,
        request["request"]["id"]
    );
    let mut bytes = (frame.len() as u32).to_ne_bytes().to_vec();
    bytes.extend(frame.as_bytes());
    browser.write(&bytes);
    let response = client.response(id);
    assert_eq!(response["error"]["code"], -32603, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("could not be read") && m.contains("number")),
        "{response}"
    );
}
