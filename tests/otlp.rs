//! The audit as OTLP JSON (src/audit/otlp.rs; docs/rules.md, "The audit as
//! OpenTelemetry"): spans of agents' requests named and attributed by the
//! GenAI conventions, the person's changes as log records, ids derived from
//! the entries, every text bounded.

use serde_json::{json, Value};
use toolgate::audit::otlp::{convert, Source, MOST_ATTRIBUTES, TEXT_KEPT};

fn source() -> Source {
    Source {
        instance: Some("profile-1".into()),
    }
}

fn traces(entries: &[Value]) -> Value {
    let otlp = convert(entries, &source());
    serde_json::from_str(&otlp.traces.expect("spans")).expect("JSON")
}

fn logs(entries: &[Value]) -> Value {
    let otlp = convert(entries, &source());
    serde_json::from_str(&otlp.logs.expect("log records")).expect("JSON")
}

fn spans(data: &Value) -> Vec<Value> {
    data["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .expect("spans")
        .clone()
}

fn records(data: &Value) -> Vec<Value> {
    data["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
        .as_array()
        .expect("records")
        .clone()
}

/// An attribute's value, as OTLP's JSON writes it (`{"stringValue": …}`).
fn attribute(item: &Value, key: &str) -> Option<Value> {
    item["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .find(|pair| pair["key"] == key)
        .map(|pair| pair["value"].clone())
}

fn ran(at: u64, id: u64, tool: &str) -> Value {
    json!({"at": at, "what": "decision", "chat": "console:1", "request_id": id, "by": "Audit agent",
           "tool": tool, "tab": 3, "site": "https://notes.test", "decision": "run",
           "why": "you allowed Mutating tools on notes.test"})
}

#[test]
fn an_agent_request_is_an_execute_tool_span_by_the_genai_conventions() {
    let data = traces(&[ran(1_700_000_000_123, 7, "add_note")]);
    let resource = &data["resourceSpans"][0]["resource"];
    assert_eq!(
        attribute(resource, "service.name"),
        Some(json!({"stringValue": "toolgate"}))
    );
    assert_eq!(
        attribute(resource, "service.instance.id"),
        Some(json!({"stringValue": "profile-1"}))
    );
    let span = &spans(&data)[0];
    assert_eq!(span["name"], "execute_tool add_note");
    assert_eq!(span["kind"], 1, "SPAN_KIND_INTERNAL, as an integer");
    assert_eq!(
        span["startTimeUnixNano"], "1700000000123000000",
        "nanoseconds as a decimal string"
    );
    assert_eq!(span["endTimeUnixNano"], "1700000000123000000");
    let hex = |text: &Value, len: usize| {
        let text = text.as_str().expect("text");
        text.len() == len
            && text
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    };
    assert!(hex(&span["traceId"], 32), "{}", span["traceId"]);
    assert!(hex(&span["spanId"], 16), "{}", span["spanId"]);
    for (key, value) in [
        (
            "gen_ai.operation.name",
            json!({"stringValue": "execute_tool"}),
        ),
        ("gen_ai.tool.name", json!({"stringValue": "add_note"})),
        ("gen_ai.tool.call.id", json!({"stringValue": "7"})),
        ("gen_ai.agent.name", json!({"stringValue": "Audit agent"})),
        (
            "gen_ai.conversation.id",
            json!({"stringValue": "console:1"}),
        ),
        (
            "toolgate.site",
            json!({"stringValue": "https://notes.test"}),
        ),
        ("toolgate.tab", json!({"intValue": "3"})),
        ("toolgate.decision", json!({"stringValue": "run"})),
        (
            "toolgate.why",
            json!({"stringValue": "you allowed Mutating tools on notes.test"}),
        ),
    ] {
        assert_eq!(attribute(span, key), Some(value), "{key}");
    }
    assert_eq!(
        span["status"]["code"], 0,
        "a call that ran leaves the status unset"
    );
    assert_eq!(attribute(span, "error.type"), None);
}

#[test]
fn a_refusal_and_a_failure_are_errors_with_what_the_agent_was_told() {
    let mut refused = ran(10, 1, "delete_note");
    refused["decision"] = json!("refuse");
    refused["why"] = json!("Nothing ran: delete_note is Off on this site.");
    let failed = json!({"at": 20, "what": "decision", "chat": "console:1", "request_id": "r2",
                        "error": "the tab was closed"});
    let data = traces(&[refused, failed]);
    let [refused, failed] = <[Value; 2]>::try_from(spans(&data)).expect("two spans");
    assert_eq!(
        refused["status"],
        json!({"code": 2, "message": "Nothing ran: delete_note is Off on this site."})
    );
    assert_eq!(
        attribute(&refused, "error.type"),
        Some(json!({"stringValue": "toolgate.refused"}))
    );
    assert_eq!(
        failed["name"], "execute_tool",
        "no tool named: the operation alone"
    );
    assert_eq!(
        failed["status"],
        json!({"code": 2, "message": "the tab was closed"})
    );
    assert_eq!(
        attribute(&failed, "error.type"),
        Some(json!({"stringValue": "_OTHER"}))
    );
    assert_eq!(
        attribute(&failed, "gen_ai.tool.call.id"),
        Some(json!({"stringValue": "r2"}))
    );
}

#[test]
fn ids_are_derived_from_the_entries_one_trace_a_chat() {
    let entries = [ran(10, 1, "add_note"), ran(20, 2, "add_note")];
    let once = spans(&traces(&entries));
    let again = spans(&traces(&[entries[1].clone(), entries[0].clone()]));
    assert_eq!(
        once, again,
        "the same entries, in any order, are the same spans"
    );
    assert_eq!(
        once[0]["traceId"], once[1]["traceId"],
        "one chat, one trace"
    );
    assert_ne!(once[0]["spanId"], once[1]["spanId"]);
    let mut other = ran(10, 1, "add_note");
    other["chat"] = json!("mcp:2");
    assert_ne!(spans(&traces(&[other]))[0]["traceId"], once[0]["traceId"]);
}

#[test]
fn an_answer_is_a_log_record_of_its_call_and_names_the_card_on_its_span() {
    let answer = json!({"at": 5, "what": "answer", "card_id": 4, "chat": "console:1", "answer": {"call": "allow_once"},
                        "card": "call", "site": "https://notes.test", "tool": "add_note", "by": "Audit agent",
                        "label": "Allow this call"});
    let call = ran(9, 1, "add_note");
    let otlp = convert(&[call, answer], &source());
    let data: Value = serde_json::from_str(&otlp.traces.expect("spans")).expect("JSON");
    let span = &spans(&data)[0];
    assert_eq!(
        attribute(span, "toolgate.card"),
        Some(json!({"stringValue": "call"}))
    );
    assert_eq!(
        attribute(span, "toolgate.answer.label"),
        Some(json!({"stringValue": "Allow this call"}))
    );
    assert_eq!(
        attribute(span, "toolgate.answer"),
        Some(json!({"stringValue": "{\"call\":\"allow_once\"}"}))
    );
    let logs: Value = serde_json::from_str(&otlp.logs.expect("records")).expect("JSON");
    let record = &records(&logs)[0];
    assert_eq!(
        attribute(record, "event.name"),
        Some(json!({"stringValue": "toolgate.answer"}))
    );
    assert_eq!(record["traceId"], span["traceId"]);
    assert_eq!(record["spanId"], span["spanId"]);
    assert_eq!(
        record["body"],
        json!({"stringValue": "Answered “Allow this call” on the call card"})
    );
    assert_eq!(record["severityNumber"], 9);
    assert_eq!(record["timeUnixNano"], "5000000");

    // An answer whose call is not among the entries is in its chat's trace
    // all the same, naming no span.
    let alone = logs_of(&[
        json!({"at": 5, "what": "answer", "chat": "console:1", "tool": "add_note", "card": "call"}),
    ]);
    assert_eq!(alone[0]["traceId"], span["traceId"]);
    assert_eq!(alone[0].get("spanId"), None);
}

fn logs_of(entries: &[Value]) -> Vec<Value> {
    records(&logs(entries))
}

#[test]
fn the_persons_changes_a_policy_and_flags_are_log_records() {
    let entries = [
        json!({"at": 1, "what": "rule", "site": "https://shop.test", "kind": "delete", "from": "off", "to": "ask_first"}),
        json!({"at": 2, "what": "conditions", "site": "https://shop.test", "from": {}, "to": {"pay": [{"level": "allowed"}]}}),
        json!({"at": 3, "what": "policy", "changed": ["sites"]}),
        json!({"at": 4, "what": "flagged", "site": "https://shop.test", "tool": "list", "said": "read only", "text": "sent a POST", "tab": 2}),
    ];
    let otlp = convert(&entries, &source());
    assert_eq!((otlp.spans, otlp.records), (0, 4));
    assert!(otlp.traces.is_none(), "no agent request, no spans");
    let records = logs_of(&entries);
    assert_eq!(
        attribute(&records[0], "event.name"),
        Some(json!({"stringValue": "toolgate.rule"}))
    );
    assert_eq!(
        records[0]["body"],
        json!({"stringValue": "delete tools: off → ask_first on https://shop.test"})
    );
    assert_eq!(
        attribute(&records[0], "toolgate.to"),
        Some(json!({"stringValue": "ask_first"}))
    );
    assert_eq!(
        records[0].get("traceId"),
        None,
        "a person's change is in no agent's trace"
    );
    assert_eq!(
        attribute(&records[1], "toolgate.to"),
        Some(json!({"stringValue": "{\"pay\":[{\"level\":\"allowed\"}]}"}))
    );
    assert_eq!(
        attribute(&records[2], "toolgate.changed"),
        Some(json!({"stringValue": "[\"sites\"]"}))
    );
    assert_eq!(
        (
            records[3]["severityNumber"].clone(),
            records[3]["severityText"].clone()
        ),
        (json!(13), json!("WARN"))
    );
}

#[test]
fn texts_are_bounded_and_so_is_every_records_attributes() {
    let long = "é".repeat(5 * TEXT_KEPT);
    let mut entry = ran(1, 1, &long);
    for i in 0..200 {
        entry[format!("field{i:03}")] = json!(i);
    }
    let span = &spans(&traces(&[entry]))[0];
    let name = attribute(span, "gen_ai.tool.name").expect("tool name");
    let name = name["stringValue"].as_str().expect("text");
    assert_eq!(name.chars().count(), TEXT_KEPT + 1);
    assert!(name.ends_with('…'));
    assert_eq!(
        span["name"].as_str().expect("name").chars().count(),
        "execute_tool ".len() + TEXT_KEPT + 1
    );
    assert_eq!(
        span["attributes"].as_array().expect("attributes").len(),
        MOST_ATTRIBUTES
    );
    assert!(span["droppedAttributesCount"].as_u64().expect("dropped") > 100);
}

#[test]
fn what_is_not_an_entry_is_left_out() {
    let entries = [
        json!("text"),
        json!(null),
        json!({"what": "decision"}),
        json!({"at": "yesterday", "what": "decision"}),
        json!({"at": 1, "what": 7}),
        json!({"at": -1, "what": "rule"}),
        ran(2, 1, "add_note"),
    ];
    let otlp = convert(&entries, &source());
    assert_eq!((otlp.spans, otlp.records), (1, 0));
    assert!(convert(&[], &source()).traces.is_none());
}

#[test]
fn a_change_of_a_pages_tools_is_a_log_record_with_its_provenance() {
    let entry = json!({"at": 1_700_000_000_000u64, "what": "tool_change", "change": "registered",
        "site": "https://shop.test", "tab": 3, "tool": "track", "kind": "tool",
        "provenance": "a script from https://cdn.test/w.js",
        "text": "track registered on shop.test by a script from https://cdn.test/w.js"});
    let data = logs(&[entry]);
    let record = &records(&data)[0];
    assert_eq!(
        record["body"]["stringValue"],
        "track registered on shop.test by a script from https://cdn.test/w.js"
    );
    assert_eq!(
        attribute(record, "event.name"),
        Some(json!({"stringValue": "toolgate.tool_change"}))
    );
    assert_eq!(
        attribute(record, "toolgate.provenance"),
        Some(json!({"stringValue": "a script from https://cdn.test/w.js"}))
    );
}
