//! The stdio MCP server and the host, as real processes: this test is the MCP
//! client on one side and the browser on the other.

mod common;

use std::time::{Duration, Instant};

use common::{raw_connect, read_frame, socket_dir, write_frame, Browser, Client, WAIT};
use serde_json::{json, Value};

/// A client initialized as `name`, and its session as the browser saw it open.
fn opened(socket: &std::path::Path, browser: &Browser, name: &str) -> (Client, String) {
    let mut client = Client::start(socket);
    client.initialize(name);
    let open = browser.recv();
    assert_eq!(open["type"], "open", "{open}");
    assert_eq!(open["client"], name);
    let session = open["session"].as_str().expect("a session").to_owned();
    (client, session)
}

/// The browser's side of one call: the request, checked, and its id.
fn requested(browser: &Browser, session: &str) -> Value {
    let request = browser.recv();
    assert_eq!(request["type"], "request", "{request}");
    assert_eq!(request["session"], session);
    request["request"].clone()
}

fn reply(session: &str, id: &Value, result: Value) -> Value {
    json!({"type": "reply", "session": session, "reply": {"jsonrpc": "2.0", "id": id, "result": result}})
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
}

#[test]
fn open_carries_the_clients_name_and_a_random_session() {
    let (_dir, socket) = socket_dir();
    let browser = Browser::start(&socket);
    let (_a, first) = opened(&socket, &browser, "Claude Desktop");
    let (_b, second) = opened(&socket, &browser, "Cursor");
    assert_eq!(first.len(), 32);
    assert!(first.chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(first, second);
}

#[test]
fn tools_list_is_the_cores_browser_tools_answered_without_a_host() {
    let (_dir, socket) = socket_dir();
    let mut client = Client::start(&socket);
    let init = client.initialize("Claude Code");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    let id = client.request("tools/list", json!({}));
    let tools = client.response(id)["result"]["tools"].clone();
    let core: Value = serde_json::from_str(include_str!("../../src/protocol/browser-tools.json"))
        .expect("the core's");
    let names = |v: &Value| -> Vec<Value> {
        v.as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].clone())
            .collect()
    };
    assert_eq!(names(&tools), names(&core));
    for (tool, def) in tools
        .as_array()
        .expect("tools")
        .iter()
        .zip(core.as_array().expect("tools"))
    {
        assert_eq!(tool["inputSchema"], def["inputSchema"]);
        assert_eq!(tool["description"], def["description"]);
    }
}

#[test]
fn a_call_reaches_the_browser_as_a_request_and_its_reply_is_the_result() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "Claude Desktop");
    let id = client.call(
        "browser_call_webmcp_tool",
        json!({"tabId": 4, "name": "add", "arguments": {"a": 1}}),
        None,
    );
    let request = requested(&browser, &session);
    assert_eq!(request["jsonrpc"], "2.0");
    assert_eq!(request["method"], "tools/call");
    assert_eq!(request["params"]["name"], "browser_call_webmcp_tool");
    assert_eq!(
        request["params"]["arguments"],
        json!({"tabId": 4, "name": "add", "arguments": {"a": 1}})
    );
    let result = json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3},
                        "isError": false, "_meta": {"toolgate": "allowed"}});
    browser.send(&reply(&session, &request["id"], result));
    let response = client.response(id);
    assert_eq!(text_of(&response), "3", "{response}");
    assert_eq!(response["result"]["structuredContent"], json!({"sum": 3}));
    assert_eq!(response["result"]["isError"], false);
    assert_eq!(response["result"]["_meta"], json!({"toolgate": "allowed"}));
    // A second call gets an id of its own.
    client.call("browser_list_tabs", json!({}), None);
    let second = requested(&browser, &session);
    assert_ne!(second["id"], request["id"]);
}

#[test]
fn an_error_reply_becomes_an_mcp_error_with_its_message() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    let id = client.call("browser_list_webmcp_tools", json!({"tabId": 9}), None);
    let request = requested(&browser, &session);
    browser.send(&json!({"type": "reply", "session": session, "reply":
        {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32602, "message": "no tab 9"}}}));
    let response = client.response(id);
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert_eq!(response["error"]["message"], "no tab 9");
}

#[test]
fn replies_go_to_their_own_session_only() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut a, session_a) = opened(&socket, &browser, "a");
    let (mut b, session_b) = opened(&socket, &browser, "b");
    let call_a = a.call("browser_list_tabs", json!({}), None);
    let request_a = requested(&browser, &session_a);
    let call_b = b.call("browser_list_tabs", json!({}), None);
    let request_b = requested(&browser, &session_b);
    // Both calls have the same id in their sessions; the session tells them apart.
    browser.send(&reply(
        &session_b,
        &request_b["id"],
        json!({"content": [{"type": "text", "text": "for b"}]}),
    ));
    browser.send(&reply(
        &session_a,
        &request_a["id"],
        json!({"content": [{"type": "text", "text": "for a"}]}),
    ));
    assert_eq!(text_of(&a.response(call_a)), "for a");
    assert_eq!(text_of(&b.response(call_b)), "for b");
}

#[test]
fn a_waiting_notice_becomes_progress_for_the_clients_token() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    let id = client.call(
        "browser_list_tabs",
        json!({}),
        Some(json!({"progressToken": "p-1"})),
    );
    let request = requested(&browser, &session);
    browser.send(
        &json!({"type": "waiting", "session": session, "request_id": request["id"],
                         "message": "waiting for the person to answer Toolgate's card"}),
    );
    let progress = client
        .find(WAIT, |m| m["method"] == "notifications/progress")
        .expect("a progress notification");
    assert_eq!(progress["params"]["progressToken"], "p-1");
    assert_eq!(
        progress["params"]["message"],
        "waiting for the person to answer Toolgate's card"
    );
    browser.send(&reply(&session, &request["id"], json!({"content": []})));
    assert!(client.response(id)["result"].is_object());
}

#[test]
fn without_a_progress_token_a_waiting_notice_sends_no_progress() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    let id = client.call("browser_list_tabs", json!({}), None);
    let request = requested(&browser, &session);
    browser.send(&json!({"type": "waiting", "session": session, "request_id": request["id"], "message": "m"}));
    browser.send(&reply(&session, &request["id"], json!({"content": []})));
    client.response(id);
    let progress = client.find(Duration::from_millis(300), |m| {
        m["method"] == "notifications/progress"
    });
    assert!(progress.is_none(), "{progress:?}");
}

#[test]
fn a_call_that_waits_gets_keep_alive_progress() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    let id = client.call(
        "browser_list_tabs",
        json!({}),
        Some(json!({"progressToken": 7})),
    );
    let request = requested(&browser, &session);
    let started = Instant::now();
    let progress = client
        .find(Duration::from_secs(15), |m| {
            m["method"] == "notifications/progress"
        })
        .expect("a keep-alive within 15 s");
    assert!(
        started.elapsed() >= Duration::from_secs(8),
        "too soon: {:?}",
        started.elapsed()
    );
    assert_eq!(progress["params"]["progressToken"], 7);
    browser.send(&reply(&session, &request["id"], json!({"content": []})));
    client.response(id);
}

#[test]
fn a_cancelled_call_is_withdrawn_in_the_browser_by_its_forwarded_id() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    client.request("ping", json!({})); // the client's ids and the forwarded ones differ
    let id = client.call("browser_list_tabs", json!({}), None);
    let request = requested(&browser, &session);
    client.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "the person stopped it"}),
    );
    let cancel = browser.recv();
    assert_eq!(
        cancel,
        json!({"type": "cancel", "session": session, "request_id": request["id"]})
    );
    // A late reply is not answered to the client.
    browser.send(&reply(&session, &request["id"], json!({"content": []})));
    let late = client.find(Duration::from_millis(500), |m| m["id"] == id);
    assert!(late.is_none(), "{late:?}");
}

#[test]
fn closing_the_clients_stdin_closes_the_session_and_the_server_exits() {
    let (_dir, socket) = socket_dir();
    let browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    client.call("browser_list_tabs", json!({}), None); // still waiting when the client goes
    requested(&browser, &session);
    client.close();
    assert_eq!(browser.recv(), json!({"type": "close", "session": session}));
    let status = client
        .exit(Duration::from_secs(3))
        .expect("the server exits");
    assert!(status.success(), "{status}");
}

#[test]
fn without_a_host_a_call_fails_at_once_saying_toolgate_is_not_reachable() {
    let (_dir, socket) = socket_dir();
    let mut client = Client::start(&socket);
    client.initialize("c");
    let started = Instant::now();
    let id = client.call("browser_list_tabs", json!({}), None);
    let response = client.response(id);
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(response["result"]["isError"], true, "{response}");
    let text = text_of(&response);
    assert!(text.starts_with("Toolgate is not reachable"), "{text}");
    assert!(text.contains(&socket.display().to_string()) && text.contains("toolgate-mcp doctor"));
}

#[test]
fn a_host_started_after_the_client_is_reached_at_the_first_call() {
    let (_dir, socket) = socket_dir();
    let mut client = Client::start(&socket);
    client.initialize("late");
    std::thread::sleep(Duration::from_millis(200));
    let browser = Browser::start(&socket);
    client.call("browser_list_tabs", json!({}), None);
    let open = browser.recv();
    assert_eq!(
        (open["type"].as_str(), open["client"].as_str()),
        (Some("open"), Some("late"))
    );
    let session = open["session"].as_str().expect("session").to_owned();
    requested(&browser, &session);
}

#[test]
fn a_call_fails_when_the_host_goes_and_the_next_call_connects_again() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    let id = client.call("browser_list_tabs", json!({}), None);
    requested(&browser, &session);
    // The browser closes the port: the host removes its socket and exits 0.
    assert!(browser.close().success());
    assert!(no_socket_left(&socket));
    let response = client.response(id);
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert!(text_of(&response).contains("closed while this call waited"));
    let mut browser = Browser::start(&socket);
    let id = client.call("browser_list_tabs", json!({}), None);
    assert_eq!(
        browser.recv(),
        json!({"type": "open", "session": session, "client": "c"})
    );
    let request = requested(&browser, &session);
    browser.send(&reply(
        &session,
        &request["id"],
        json!({"content": [{"type": "text", "text": "again"}]}),
    ));
    assert_eq!(text_of(&client.response(id)), "again");
}

/// Nothing left at `socket` once the host stopped: Unix removes the file.
/// (A Windows pipe goes with its last handle; then no one can connect.)
fn no_socket_left(socket: &std::path::Path) -> bool {
    if cfg!(unix) {
        !socket.exists()
    } else {
        raw_connect(socket).is_err()
    }
}

/// A raw socket client that opens `session`.
fn raw(socket: &std::path::Path, session: &str) -> impl std::io::Read + std::io::Write {
    let mut raw = raw_connect(socket).expect("connect");
    write_frame(
        &mut raw,
        &json!({"type": "open", "session": session, "client": "raw"}),
    );
    raw
}

#[test]
fn a_connection_cannot_speak_for_another_session() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, victim) = opened(&socket, &browser, "victim");

    // Opened as itself, it tries a request as the victim: refused, closed.
    let mut evil = raw(&socket, "evil");
    assert_eq!(browser.recv()["session"], "evil");
    write_frame(
        &mut evil,
        &json!({"type": "request", "session": victim,
        "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "browser_list_tabs"}}}),
    );
    let refusal = read_frame(&mut evil).expect("told why");
    assert_eq!(refusal["session"], "evil");
    assert!(refusal["reply"]["error"]["message"]
        .as_str()
        .unwrap_or("")
        .contains("its own session"));
    assert!(read_frame(&mut evil).is_none(), "the connection is closed");
    assert_eq!(browser.recv(), json!({"type": "close", "session": "evil"}));

    // Opening the victim's session a second time is refused too.
    let mut twin = raw(&socket, &victim);
    assert!(read_frame(&mut twin).is_none(), "the connection is closed");

    // Speaking before opening is refused.
    let mut early = raw_connect(&socket).expect("connect");
    write_frame(
        &mut early,
        &json!({"type": "cancel", "session": victim, "request_id": 1}),
    );
    assert!(read_frame(&mut early).is_none(), "the connection is closed");

    // None of it reached the browser, and the victim's session still works.
    let stray = browser.recv_within(Duration::from_millis(300));
    assert!(stray.is_none(), "{stray:?}");
    let id = client.call("browser_list_tabs", json!({}), None);
    let request = requested(&browser, &victim);
    browser.send(&reply(&victim, &request["id"], json!({"content": []})));
    assert!(client.response(id)["result"].is_object());
}

#[test]
fn a_message_too_large_for_the_browser_is_refused_with_the_reason() {
    let (_dir, socket) = socket_dir();
    let browser = Browser::start(&socket);
    let mut conn = raw(&socket, "big");
    assert_eq!(browser.recv()["type"], "open");
    let big = "x".repeat(toolgate::protocol::bridge::MAX_TO_BROWSER);
    write_frame(
        &mut conn,
        &json!({"type": "request", "session": "big",
        "request": {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "n", "arguments": {"s": big}}}}),
    );
    let refusal = read_frame(&mut conn).expect("a reply");
    assert_eq!(refusal["reply"]["id"], 7, "{refusal}");
    let message = refusal["reply"]["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("bytes the browser takes"), "{message}");
    // The session goes on.
    write_frame(
        &mut conn,
        &json!({"type": "cancel", "session": "big", "request_id": 7}),
    );
    assert_eq!(browser.recv()["type"], "cancel");

    // An opening too large is refused with the reason; the browser hears nothing.
    let mut conn = raw_connect(&socket).expect("connect");
    let client = "y".repeat(toolgate::protocol::bridge::MAX_TO_BROWSER);
    write_frame(
        &mut conn,
        &json!({"type": "open", "session": "s2", "client": client}),
    );
    let refusal = read_frame(&mut conn).expect("a reply");
    let message = refusal["reply"]["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("opening"), "{message}");
    assert!(read_frame(&mut conn).is_none(), "the connection is closed");
    let stray = browser.recv_within(Duration::from_millis(300));
    assert!(stray.is_none(), "{stray:?}");
}

#[test]
fn a_call_too_large_for_the_browser_fails_in_the_server() {
    let (_dir, socket) = socket_dir();
    let browser = Browser::start(&socket);
    let (mut client, _session) = opened(&socket, &browser, "c");
    let big = "x".repeat(toolgate::protocol::bridge::MAX_TO_BROWSER);
    let id = client.call(
        "browser_call_webmcp_tool",
        json!({"tabId": 1, "name": "n", "arguments": {"s": big}}),
        None,
    );
    let response = client.response(id);
    assert_eq!(response["result"]["isError"], true);
    assert!(
        text_of(&response).contains("Toolgate refused the call"),
        "{response}"
    );
    assert!(browser.recv_within(Duration::from_millis(300)).is_none());
}

#[test]
fn malformed_frames_from_the_browser_are_refused_and_the_host_goes_on() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    let (mut client, session) = opened(&socket, &browser, "c");
    let id = client.call("browser_list_tabs", json!({}), None);
    let request = requested(&browser, &session);
    let frame = |payload: &[u8]| {
        let mut out = (payload.len() as u32).to_ne_bytes().to_vec();
        out.extend_from_slice(payload);
        out
    };
    browser.write(&frame(b"not json"));
    browser.write(&frame(br#"{"type":"open","session":"x","client":"y"}"#));
    browser.send(&reply(
        "no-such-session",
        &request["id"],
        json!({"content": []}),
    ));
    // The good one, written a byte at a time.
    let good = serde_json::to_vec(&reply(
        &session,
        &request["id"],
        json!({"content": [{"type": "text", "text": "ok"}]}),
    ))
    .expect("json");
    for byte in frame(&good) {
        browser.write(&[byte]);
    }
    assert_eq!(text_of(&client.response(id)), "ok");
    let stderr = browser.stderr_with(&["refused a message from the browser", "not open"]);
    assert!(
        stderr.contains("refused a message from the browser"),
        "{stderr}"
    );
    assert!(stderr.contains("not open"), "{stderr}");
}

#[test]
fn a_frame_over_the_limit_from_the_browser_stops_the_host_cleanly() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    browser.write(&((toolgate::protocol::bridge::MAX_FROM_BROWSER + 1) as u32).to_ne_bytes());
    let status = browser.exit();
    assert_eq!(status.code(), Some(1));
    assert!(no_socket_left(&socket));
    let stderr = browser.stderr();
    assert!(
        stderr.contains("stream broke") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn the_browser_closing_mid_frame_stops_the_host_without_a_panic() {
    let (_dir, socket) = socket_dir();
    let mut browser = Browser::start(&socket);
    browser.write(&[40, 0, 0, 0, b'{']);
    browser.close();
    assert!(no_socket_left(&socket));
    assert!(!browser.stderr().contains("panicked"));
}

#[test]
fn a_second_host_refuses_to_start_while_one_answers() {
    let (_dir, socket) = socket_dir();
    let browser = Browser::start(&socket);
    let mut second = Browser::spawn(&socket);
    let status = second.exit();
    assert!(!status.success());
    assert!(
        second.stderr().contains("already answers"),
        "{}",
        second.stderr()
    );
    // The first still serves.
    let (_client, _session) = opened(&socket, &browser, "c");
}

/// Unix only: a pipe goes with its last handle, so Windows has no stale one.
#[cfg(unix)]
#[test]
fn a_host_replaces_a_stale_socket_left_by_one_that_died() {
    let (_dir, socket) = socket_dir();
    drop(std::os::unix::net::UnixListener::bind(&socket).expect("bind"));
    let browser = Browser::start(&socket);
    let (_client, _session) = opened(&socket, &browser, "c");
}

/// Unix only: under Wine every process is the same user, and Wine enforces
/// no pipe's access list (toolgate-mcp/README.md, "Systems").
#[cfg(unix)]
#[test]
fn another_users_connection_is_refused_on_both_sides() {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        eprintln!("skipped: only root can run a process as another user");
        return;
    }
    let (dir, socket) = socket_dir();
    let browser = Browser::start(&socket);
    // Open the folder and the socket to everyone: only the uid checks remain.
    let open = |p: &std::path::Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    open(dir.path(), 0o755);
    open(&socket, 0o666);
    let mut other = Client::start_as(&socket, 65534);
    other.initialize("other");
    let id = other.call("browser_list_tabs", json!({}), None);
    let response = other.response(id);
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert!(text_of(&response).contains("not by you"), "{response}");
    let stray = browser.recv_within(Duration::from_millis(300));
    assert!(stray.is_none(), "{stray:?}");
    assert!(
        browser
            .stderr()
            .contains("refused a connection from another user"),
        "{}",
        browser.stderr()
    );
}
