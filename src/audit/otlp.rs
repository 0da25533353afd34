//! Audit entries as OTLP JSON (docs/rules.md, "The audit as OpenTelemetry"):
//! one span per agent request (an entry `what: "decision"`), named and
//! attributed by OpenTelemetry's GenAI semantic conventions for tool
//! execution, Toolgate's own facts under `toolgate.*`; every other entry (the
//! person's changes, answers, the administrator's policy, flags) a log
//! record. The encoding is OTLP's JSON mapping of its protobuf messages:
//! `TracesData` / `ExportTraceServiceRequest` and `LogsData` /
//! `ExportLogsServiceRequest` (the same JSON), lowerCamelCase keys, ids as
//! lowercase hex, 64-bit numbers as decimal strings, enums as integers.
//!
//! Ids are derived, not drawn: a chat's requests share one trace (the SHA-256
//! of the chat's id), and a span's id is the SHA-256 of what makes its entry
//! that entry, so the export and what the worker sent name a call alike, and
//! one sent twice is one span to a receiver that keeps ids.
//!
//! Entries are what the worker stored, which a hostile page can have filled
//! with its texts: every value is cut to `TEXT_KEPT` characters, every record
//! holds at most `MOST_ATTRIBUTES` attributes, and what is not a well-formed
//! entry is left out.

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

mod said;
use said::said;

/// The most characters of any text sent, as the audit keeps them ("…" marks
/// a cut): extension/background/audit.js cuts its texts to the same.
pub const TEXT_KEPT: usize = 1000;
/// The most attributes of one span or log record; the rest are counted as
/// dropped (`droppedAttributesCount`).
pub const MOST_ATTRIBUTES: usize = 64;
/// How long before its call an answer on a card is taken as that call's
/// (the 10 minutes a card waits, docs/rules.md, "How long a call waits").
const ANSWER_WINDOW_MS: u64 = 10 * 60 * 1000;

/// OTLP's `SpanKind`: `SPAN_KIND_INTERNAL`, as the GenAI conventions ask of
/// `execute_tool` spans.
const SPAN_KIND_INTERNAL: u8 = 1;
/// OTLP's `Status.StatusCode`.
const STATUS_UNSET: u8 = 0;
const STATUS_ERROR: u8 = 2;
/// OTLP's `SeverityNumber`: INFO, and WARN for a tool that broke its hints.
const SEVERITY_INFO: u8 = 9;
const SEVERITY_WARN: u8 = 13;

/// Who made the telemetry: OTLP's `Resource` and `InstrumentationScope`.
#[derive(Clone, Debug, Default)]
pub struct Source {
    /// `service.instance.id`: the browser profile's own id, where the worker
    /// keeps one; none in a test.
    pub instance: Option<String>,
}

/// OTLP's `AnyValue`, of the kinds the audit has.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum AnyValue {
    #[serde(rename = "stringValue")]
    String(String),
    #[serde(rename = "boolValue")]
    Bool(bool),
    /// An int64, as OTLP's JSON writes it: a decimal string.
    #[serde(rename = "intValue")]
    Int(String),
    #[serde(rename = "doubleValue")]
    Double(f64),
}

/// OTLP's `KeyValue`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyValue {
    pub key: String,
    pub value: AnyValue,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Resource {
    attributes: Vec<KeyValue>,
}

#[derive(Serialize)]
struct Scope {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Status {
    code: u8,
    #[serde(skip_serializing_if = "String::is_empty")]
    message: String,
}

/// OTLP's `Span`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Span {
    trace_id: String,
    span_id: String,
    name: String,
    kind: u8,
    start_time_unix_nano: String,
    end_time_unix_nano: String,
    attributes: Vec<KeyValue>,
    #[serde(skip_serializing_if = "is_zero")]
    dropped_attributes_count: u32,
    status: Status,
}

/// OTLP's `LogRecord`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogRecord {
    time_unix_nano: String,
    observed_time_unix_nano: String,
    severity_number: u8,
    severity_text: &'static str,
    body: AnyValue,
    attributes: Vec<KeyValue>,
    #[serde(skip_serializing_if = "is_zero")]
    dropped_attributes_count: u32,
    #[serde(skip_serializing_if = "String::is_empty")]
    trace_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    span_id: String,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScopeSpans {
    scope: Scope,
    spans: Vec<Span>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceSpans {
    resource: Resource,
    scope_spans: [ScopeSpans; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScopeLogs {
    scope: Scope,
    log_records: Vec<LogRecord>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceLogs {
    resource: Resource,
    scope_logs: [ScopeLogs; 1],
}

/// `TracesData`, which is also `ExportTraceServiceRequest`'s JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TracesData {
    resource_spans: Vec<ResourceSpans>,
}

/// `LogsData`, which is also `ExportLogsServiceRequest`'s JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogsData {
    resource_logs: Vec<ResourceLogs>,
}

/// The audit entries as OTLP JSON: the spans of the agents' requests, and
/// the log records of everything else, each as the JSON text of its
/// request (`ExportTraceServiceRequest`, `ExportLogsServiceRequest`), or
/// `None` where there is none of that kind.
#[derive(Debug, Default)]
pub struct Otlp {
    pub traces: Option<String>,
    pub logs: Option<String>,
    pub spans: usize,
    pub records: usize,
}

/// `entries` (audit entries, in any order) as OTLP JSON.
pub fn convert(entries: &[Value], source: &Source) -> Otlp {
    let mut kept: Vec<(u64, &Map<String, Value>)> = entries
        .iter()
        .filter_map(|entry| {
            let entry = entry.as_object()?;
            entry.get("what")?.as_str()?;
            Some((entry.get("at")?.as_u64()?, entry))
        })
        .collect();
    kept.sort_by_key(|(at, _)| *at);

    let mut spans: Vec<Span> = Vec::new();
    // Each span's chat and tool, for the answers that asked for it.
    let mut calls: Vec<(u64, Option<&str>, Option<&str>)> = Vec::new();
    for (at, entry) in kept.iter().filter(|(_, entry)| is_decision(entry)) {
        calls.push((*at, text_of(entry, "chat"), text_of(entry, "tool")));
        spans.push(span(*at, entry));
    }
    let mut records = Vec::new();
    for (at, entry) in kept.iter().filter(|(_, entry)| !is_decision(entry)) {
        let answered = answered_call(*at, entry, &calls);
        if let Some(index) = answered {
            answer_on_span(&mut spans[index], entry);
        }
        records.push(record(*at, entry, answered.map(|index| &spans[index])));
    }

    let resource = || Resource {
        attributes: resource_attributes(source),
    };
    let scope = || Scope {
        name: "toolgate",
        version: env!("CARGO_PKG_VERSION"),
    };
    let (span_count, record_count) = (spans.len(), records.len());
    let traces = (!spans.is_empty()).then(|| {
        json_text(&TracesData {
            resource_spans: vec![ResourceSpans {
                resource: resource(),
                scope_spans: [ScopeSpans {
                    scope: scope(),
                    spans,
                }],
            }],
        })
    });
    let logs = (!records.is_empty()).then(|| {
        json_text(&LogsData {
            resource_logs: vec![ResourceLogs {
                resource: resource(),
                scope_logs: [ScopeLogs {
                    scope: scope(),
                    log_records: records,
                }],
            }],
        })
    });
    Otlp {
        traces,
        logs,
        spans: span_count,
        records: record_count,
    }
}

fn json_text(value: &impl Serialize) -> String {
    // Plain structs of strings and numbers: writing them cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

fn is_decision(entry: &Map<String, Value>) -> bool {
    entry.get("what").and_then(Value::as_str) == Some("decision")
}

fn text_of<'a>(entry: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    entry.get(key).and_then(Value::as_str)
}

fn resource_attributes(source: &Source) -> Vec<KeyValue> {
    let mut attributes = vec![
        string("service.name", "toolgate"),
        string("service.version", env!("CARGO_PKG_VERSION")),
    ];
    if let Some(instance) = &source.instance {
        attributes.push(string("service.instance.id", instance));
    }
    attributes
}

/// `text`, cut to `TEXT_KEPT` characters ("…" marks the cut).
pub fn bounded(text: &str) -> String {
    match text.char_indices().nth(TEXT_KEPT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn string(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: AnyValue::String(bounded(value)),
    }
}

/// A JSON value as an attribute's value: texts, flags and numbers as they
/// are, anything else as its JSON text; `null` as nothing.
fn any_value(value: &Value) -> Option<AnyValue> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(flag) => AnyValue::Bool(*flag),
        Value::String(text) => AnyValue::String(bounded(text)),
        Value::Number(number) => match (number.as_i64(), number.as_f64()) {
            (Some(whole), _) => AnyValue::Int(whole.to_string()),
            (None, Some(float)) if number.is_f64() => AnyValue::Double(float),
            _ => AnyValue::String(number.to_string()),
        },
        Value::Array(_) | Value::Object(_) => AnyValue::String(bounded(&value.to_string())),
    })
}

/// A request id or chat id as text: a string as it is, anything else as its
/// JSON.
fn id_text(value: &Value) -> String {
    match value {
        Value::String(text) => bounded(text),
        other => bounded(&other.to_string()),
    }
}

/// Attributes within `MOST_ATTRIBUTES`, and how many were left out.
struct Attributes {
    list: Vec<KeyValue>,
    dropped: u32,
}

impl Attributes {
    fn new() -> Self {
        Attributes {
            list: Vec::new(),
            dropped: 0,
        }
    }

    fn push(&mut self, key: &str, value: Option<AnyValue>) {
        let Some(value) = value else { return };
        if self.list.len() >= MOST_ATTRIBUTES {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        // Keys are the entry's own field names: cut all the same.
        let key = key.chars().take(100).collect();
        self.list.retain(|kept| kept.key != key);
        self.list.push(KeyValue { key, value });
    }

    /// The entry's fields but `skip`, each under `toolgate.`.
    fn rest(&mut self, entry: &Map<String, Value>, skip: &[&str]) {
        for (key, value) in entry {
            if !skip.contains(&key.as_str()) {
                self.push(&format!("toolgate.{key}"), any_value(value));
            }
        }
    }
}

/// The first `bytes` of the SHA-256 of `parts` (each ended by a zero byte),
/// as lowercase hex; never all zeros, which OTLP takes as no id.
fn derived_id(bytes: usize, parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    let digest = hash.finalize();
    let mut id: Vec<u8> = digest[..bytes].to_vec();
    if id.iter().all(|byte| *byte == 0) {
        id[bytes - 1] = 1;
    }
    id.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// One trace a chat: the chat's id, or who asked where an entry has none (a
/// page's call of a tool exposed to it).
fn trace_id(entry: &Map<String, Value>) -> String {
    let chat = entry.get("chat").map(id_text);
    let by = entry.get("by").map(id_text);
    derived_id(
        16,
        &["toolgate trace", chat.or(by).as_deref().unwrap_or("")],
    )
}

fn nanos(at: u64) -> String {
    (u128::from(at) * 1_000_000).to_string()
}

/// The span of one agent request: `execute_tool {tool}`, at the moment the
/// agent was told (the entry's `at`; Toolgate does not record when the
/// request came, so start and end are that moment).
fn span(at: u64, entry: &Map<String, Value>) -> Span {
    let tool = text_of(entry, "tool");
    let request = entry.get("request_id").map(id_text).unwrap_or_default();
    let mut attributes = Attributes::new();
    attributes.push(
        "gen_ai.operation.name",
        Some(AnyValue::String("execute_tool".into())),
    );
    attributes.push(
        "gen_ai.tool.name",
        tool.map(|tool| AnyValue::String(bounded(tool))),
    );
    if entry.contains_key("request_id") {
        attributes.push(
            "gen_ai.tool.call.id",
            Some(AnyValue::String(request.clone())),
        );
    }
    attributes.push("gen_ai.agent.name", entry.get("by").and_then(any_value));
    attributes.push(
        "gen_ai.conversation.id",
        entry
            .get("chat")
            .map(|chat| AnyValue::String(id_text(chat))),
    );
    let decision = text_of(entry, "decision");
    let error = entry.get("error").and_then(any_value);
    let why = text_of(entry, "why").map(bounded).unwrap_or_default();
    let status = match (decision, &error) {
        (Some("refuse"), _) => {
            attributes.push(
                "error.type",
                Some(AnyValue::String("toolgate.refused".into())),
            );
            Status {
                code: STATUS_ERROR,
                message: why.clone(),
            }
        }
        (_, Some(error)) => {
            // A failure the agent was told of in words: no class of its own
            // (the conventions' `_OTHER`).
            attributes.push("error.type", Some(AnyValue::String("_OTHER".into())));
            let message = match error {
                AnyValue::String(text) => text.clone(),
                _ => String::new(),
            };
            Status {
                code: STATUS_ERROR,
                message,
            }
        }
        _ => Status {
            code: STATUS_UNSET,
            message: String::new(),
        },
    };
    attributes.rest(entry, &["at", "what", "tool", "request_id", "by", "chat"]);
    let chat = entry.get("chat").map(id_text).unwrap_or_default();
    let at_text = at.to_string();
    let decided = entry.get("decision").map(id_text).unwrap_or_default();
    let error_text = entry.get("error").map(id_text).unwrap_or_default();
    let span_id = derived_id(
        8,
        &[
            "toolgate span",
            &chat,
            &request,
            &at_text,
            tool.unwrap_or(""),
            &decided,
            &why,
            &error_text,
        ],
    );
    Span {
        trace_id: trace_id(entry),
        span_id,
        name: match tool {
            Some(tool) => format!("execute_tool {}", bounded(tool)),
            None => "execute_tool".into(),
        },
        kind: SPAN_KIND_INTERNAL,
        start_time_unix_nano: nanos(at),
        end_time_unix_nano: nanos(at),
        attributes: attributes.list,
        dropped_attributes_count: attributes.dropped,
        status,
    }
}

/// The call an answer on a card was given for: the first of its chat's
/// requests of its tool told at or after the answer, within the 10 minutes
/// a card waits.
fn answered_call(
    at: u64,
    entry: &Map<String, Value>,
    calls: &[(u64, Option<&str>, Option<&str>)],
) -> Option<usize> {
    if text_of(entry, "what") != Some("answer") {
        return None;
    }
    let chat = text_of(entry, "chat")?;
    let tool = text_of(entry, "tool");
    calls.iter().position(|(told, call_chat, call_tool)| {
        *told >= at
            && *told - at <= ANSWER_WINDOW_MS
            && *call_chat == Some(chat)
            && *call_tool == tool
    })
}

/// The card and the answer that let a call run or refused it, on its span.
fn answer_on_span(span: &mut Span, answer: &Map<String, Value>) {
    let mut attributes = Attributes {
        list: std::mem::take(&mut span.attributes),
        dropped: span.dropped_attributes_count,
    };
    attributes.push("toolgate.card", answer.get("card").and_then(any_value));
    attributes.push("toolgate.answer", answer.get("answer").and_then(any_value));
    attributes.push(
        "toolgate.answer.label",
        answer.get("label").and_then(any_value),
    );
    attributes.push(
        "toolgate.after_untrusted",
        answer.get("after_untrusted").and_then(any_value),
    );
    span.attributes = attributes.list;
    span.dropped_attributes_count = attributes.dropped;
}

/// The log record of a change of the person's, an answer, a policy change or
/// a flag: `event.name` says which (`toolgate.{what}`), the body says it in
/// words, its fields are under `toolgate.*`. An answer is in its chat's
/// trace, and names the span of the call it was for when that call is among
/// the entries.
fn record(at: u64, entry: &Map<String, Value>, call: Option<&Span>) -> LogRecord {
    let what = text_of(entry, "what").unwrap_or_default();
    let mut attributes = Attributes::new();
    attributes.push(
        "event.name",
        Some(AnyValue::String(bounded(&format!("toolgate.{what}")))),
    );
    let chat = entry.get("chat").is_some();
    if chat {
        attributes.push(
            "gen_ai.conversation.id",
            entry
                .get("chat")
                .map(|chat| AnyValue::String(id_text(chat))),
        );
        attributes.push("gen_ai.agent.name", entry.get("by").and_then(any_value));
        attributes.push("gen_ai.tool.name", entry.get("tool").and_then(any_value));
        attributes.rest(entry, &["at", "what", "chat", "by", "tool"]);
    } else {
        attributes.rest(entry, &["at", "what"]);
    }
    let warn = what == "flagged";
    LogRecord {
        time_unix_nano: nanos(at),
        observed_time_unix_nano: nanos(at),
        severity_number: if warn { SEVERITY_WARN } else { SEVERITY_INFO },
        severity_text: if warn { "WARN" } else { "INFO" },
        body: AnyValue::String(bounded(&said(what, entry))),
        attributes: attributes.list,
        dropped_attributes_count: attributes.dropped,
        trace_id: if chat { trace_id(entry) } else { String::new() },
        span_id: call.map(|span| span.span_id.clone()).unwrap_or_default(),
    }
}
