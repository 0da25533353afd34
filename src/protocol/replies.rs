//! JSON-RPC replies, written once from typed structs where they are made
//! and handed on as JSON text (ARCHITECTURE.md, "Bird's-eye view").

use super::{browser_tools, RpcError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// A JSON-RPC response, as JSON text: written once, where it is made, and
/// handed on (to the agent, into the session record) without being parsed
/// or written again. Most are written from typed structs rather than built
/// as `Value` trees: a Read-only call's reply is on every agent call's path.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Reply(Box<RawValue>);

impl Reply {
    pub fn new(response: &impl Serialize) -> Reply {
        // Writing fails only for a map whose keys are not strings: none of
        // ours. Should one ever, the agent still gets a JSON-RPC error.
        serde_json::value::to_raw_value(response).map_or_else(
            |_| Reply(serde_json::from_str(UNWRITTEN).unwrap_or_default()),
            Reply,
        )
    }

    /// The response as JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The response as a JSON value (tests read it so).
    pub fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }
}

impl PartialEq for Reply {
    fn eq(&self, other: &Reply) -> bool {
        self.text() == other.text()
    }
}

/// The reply when a reply cannot be written (see `Reply::new`).
const UNWRITTEN: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Toolgate could not write its reply"}}"#;

/// The JSON-RPC responses Toolgate writes.
#[derive(Serialize)]
struct Response<'a, R: Serialize> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: R,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i64,
    message: &'a str,
}

/// An MCP tool result of one text, with what Toolgate decided.
#[derive(Serialize)]
struct ToolResult<'a, M: Serialize> {
    content: [TextContent<'a>; 1],
    #[serde(rename = "isError")]
    is_error: bool,
    #[serde(rename = "_meta")]
    meta: ToolgateMeta<'a, M>,
}

#[derive(Serialize)]
struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct ToolgateMeta<'a, M: Serialize> {
    toolgate: &'a M,
}

/// A JSON-RPC result.
pub fn reply(id: &Value, result: impl Serialize) -> Reply {
    Reply::new(&Response {
        jsonrpc: "2.0",
        id,
        result,
    })
}

/// A JSON-RPC error.
pub fn error_reply(id: &Value, error: &RpcError) -> Reply {
    Reply::new(&ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: ErrorObject {
            code: error.code(),
            message: error.message(),
        },
    })
}

/// The reply to `initialize`.
pub fn initialized(id: &Value) -> Reply {
    reply(
        id,
        json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
               "serverInfo": {"name": "toolgate", "version": env!("CARGO_PKG_VERSION")}}),
    )
}

/// The reply to MCP's `ping`.
pub fn pong(id: &Value) -> Reply {
    reply(id, json!({}))
}

/// The reply to `tools/list`: the browser tools.
pub fn tools_listed(id: &Value) -> Reply {
    reply(id, json!({"tools": browser_tools()}))
}

/// A tool result: text content, and what Toolgate decided (`decision`,
/// under `_meta.toolgate`).
pub fn tool_result(id: &Value, text: &str, is_error: bool, decision: &impl Serialize) -> Reply {
    reply(
        id,
        ToolResult {
            content: [TextContent { kind: "text", text }],
            is_error,
            meta: ToolgateMeta { toolgate: decision },
        },
    )
}

/// The reply to a call whose tool returned `result` (JSON text): its size is
/// the text's, and only a result that may be MCP-shaped (an object) or is a
/// string is parsed.
pub fn result_reply(id: &Value, result: &str, cap: usize, decision: &impl Serialize) -> Reply {
    let size = result.len();
    if size > cap {
        let text = format!("the tool's result is {size} bytes, over Toolgate's cap of {cap} bytes");
        return tool_result(id, &text, true, decision);
    }
    match result.as_bytes().first() {
        Some(b'"') => {
            let text: String = serde_json::from_str(result).unwrap_or_default();
            tool_result(id, &text, false, decision)
        }
        Some(b'{') => match serde_json::from_str::<Value>(result) {
            Ok(Value::Object(mut shaped)) if shaped.get("content").is_some_and(Value::is_array) => {
                // Already MCP-shaped: pass it through, but what Toolgate
                // decided is Toolgate's to say, never the page's.
                let meta = shaped.entry("_meta").or_insert_with(|| json!({}));
                if !meta.is_object() {
                    *meta = json!({});
                }
                meta["toolgate"] = json!(decision);
                reply(id, shaped)
            }
            _ => tool_result(id, result, false, decision),
        },
        _ => tool_result(id, result, false, decision),
    }
}

#[cfg(test)]
mod tests {
    /// The fallback reply is a JSON-RPC error, not the `null` a bad constant
    /// would fall back to in turn.
    #[test]
    fn the_reply_for_an_unwritable_reply_is_a_json_rpc_error() {
        let reply: serde_json::Value = serde_json::from_str(super::UNWRITTEN).expect("JSON");
        assert_eq!(reply["error"]["code"], -32603);
        assert_eq!(reply["id"], serde_json::Value::Null);
    }
}
