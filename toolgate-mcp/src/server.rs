//! The stdio MCP server: what an MCP client starts, one per MCP session.
//!
//! `tools/list` is answered here, from the core's definitions of the browser
//! tools; each `tools/call` is forwarded to the extension through the host
//! and its reply mapped back. rmcp does the JSON-RPC, over lines read by
//! `stdio`, which answers the requests it cannot read itself.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

use crate::link::{CallError, Link};
use crate::stdio::Stdio;
use crate::transport;

/// How often a waiting call with a progress token tells the client it is
/// still waiting (clients time calls out without progress; a person may
/// take minutes to answer a card).
pub const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// The browser tools, from the core's `browser-tools.json`.
///
/// # Errors
///
/// When the core's definitions are not MCP tools (a broken build).
pub fn browser_tools() -> Result<Vec<Tool>, serde_json::Error> {
    serde_json::from_value(toolgate::protocol::browser_tools())
}

/// The MCP server of one session.
pub struct Server {
    link: Arc<Link>,
    tools: Arc<Vec<Tool>>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("toolgate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Toolgate lets you use the WebMCP tools of the pages open in the person's \
                 browser: list the tabs, list a tab's tools, call one. The person may be \
                 asked first; a call can wait for their answer.",
            )
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.link.set_client(&request.client_info.name);
        // Open the session now if the host is there; if not, the first call
        // tries again (and says so if it still is not).
        let link = self.link.clone();
        tokio::spawn(async move { link.open().await });
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let token = context.meta.get_progress_token();
        let mut call = match self.link.call(&request.name, request.arguments).await {
            Ok(call) => call,
            Err(e) => return Ok(failed(&e).into()),
        };
        let mut progress = Progress {
            peer: &context.peer,
            token,
            count: 0,
            message: "Waiting for the browser".to_owned(),
        };
        let mut keep_alive =
            tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        loop {
            tokio::select! {
                reply = &mut call.reply => {
                    return match reply {
                        Ok(reply) => outcome(reply).map(Into::into),
                        Err(_) => Ok(failed(&CallError::Dropped).into()),
                    };
                }
                Some(message) = call.waiting.recv() => progress.tell(Some(message)).await,
                _ = keep_alive.tick() => progress.tell(None).await,
                () = context.ct.cancelled() => {
                    self.link.cancel(&call).await;
                    // rmcp drops the response of a cancelled request.
                    return Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "cancelled", None));
                }
            }
        }
    }
}

/// A waiting call's progress notifications (none without a token).
struct Progress<'a> {
    peer: &'a Peer<RoleServer>,
    token: Option<ProgressToken>,
    count: u32,
    message: String,
}

impl Progress<'_> {
    /// Tells the client the call still waits: with the extension's new
    /// message, or again with the last one.
    async fn tell(&mut self, message: Option<String>) {
        if let Some(message) = message {
            self.message = message;
        }
        let Some(token) = self.token.clone() else {
            return;
        };
        // Progress must grow with each notification; there is no total.
        self.count += 1;
        let param = ProgressNotificationParam::new(token, f64::from(self.count))
            .with_message(self.message.clone());
        let _ = self.peer.notify_progress(param).await;
    }
}

/// A call that failed on the way (not reachable, dropped, too large): a tool
/// result with `isError`, so the model and the person read why (clients show
/// JSON-RPC errors opaquely).
fn failed(e: &CallError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

/// The extension's JSON-RPC response as the call's outcome: `result` is a
/// `CallToolResult`, `error` an MCP error with its code and message.
///
/// # Errors
///
/// The reply's `error`, or an internal error when the reply is neither.
pub fn outcome(mut reply: Value) -> Result<CallToolResult, ErrorData> {
    if let Some(error) = reply.get("error") {
        let code = error
            .get("code")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .unwrap_or(ErrorCode::INTERNAL_ERROR.0);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("Toolgate answered with an error that has no message")
            .to_owned();
        return Err(ErrorData::new(
            ErrorCode(code),
            message,
            error.get("data").cloned(),
        ));
    }
    // Taken, not copied: the reply is not needed after.
    let Some(result) = reply.get_mut("result").map(Value::take) else {
        return Err(ErrorData::internal_error(
            "Toolgate's reply has neither a result nor an error",
            None,
        ));
    };
    serde_json::from_value(result).map_err(|e| {
        ErrorData::internal_error(format!("Toolgate's result is not a tool result: {e}"), None)
    })
}

/// Standard input that says when it ends: the client went away.
struct Watched<R> {
    inner: R,
    ended: Arc<tokio::sync::Notify>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(poll, std::task::Poll::Ready(Ok(())))
            && buf.filled().len() == before
            && buf.remaining() > 0
        {
            self.ended.notify_one();
        }
        poll
    }
}

/// Serves MCP on stdin/stdout until the client goes away; returns the exit
/// code. `read_only`: the session's chat is opened Read only.
pub async fn run(read_only: bool) -> u8 {
    let tools = match browser_tools() {
        Ok(tools) => tools,
        Err(e) => {
            eprintln!("toolgate-mcp: the core's browser tools are not MCP tools: {e}");
            return 1;
        }
    };
    let session = match crate::link::new_session() {
        Ok(session) => session,
        Err(e) => {
            eprintln!("toolgate-mcp: no randomness for a session id: {e}");
            return 1;
        }
    };
    let link = Arc::new(Link::new(transport::socket_path(), session, read_only));
    let server = Server {
        link: link.clone(),
        tools: Arc::new(tools),
    };
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
    let ended = Arc::new(tokio::sync::Notify::new());
    let stdin = Watched {
        inner: stdin,
        ended: ended.clone(),
    };
    let running = match server.serve(Stdio::new(stdin, stdout)).await {
        Ok(running) => running,
        // The client left before initializing, or spoke no MCP.
        Err(e) => {
            eprintln!("toolgate-mcp: the MCP session did not start: {e}");
            link.close().await;
            return 0;
        }
    };
    // The client closing stdin ends the session at once: rmcp would first
    // give the calls still waiting (on a person, maybe) seconds to finish.
    tokio::select! {
        () = ended.notified() => {}
        _ = running.waiting() => {}
    }
    link.close().await;
    0
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_browser_tools_are_the_cores_three_with_their_schemas() {
        let tools = browser_tools().expect("MCP tools");
        let core = toolgate::protocol::browser_tools();
        let core = core.as_array().expect("an array");
        assert_eq!(tools.len(), core.len());
        for (tool, def) in tools.iter().zip(core) {
            assert_eq!(tool.name, def["name"].as_str().expect("a name"));
            assert_eq!(
                Value::Object((*tool.input_schema).clone()),
                def["inputSchema"]
            );
        }
    }

    #[test]
    fn a_result_reply_becomes_the_call_tool_result() {
        let reply = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "2 tabs"}],
            "structuredContent": {"tabs": []}, "isError": false, "_meta": {"k": 1}}});
        let result = outcome(reply).expect("a result");
        assert_eq!(result.is_error, Some(false));
        assert_eq!(result.structured_content, Some(json!({"tabs": []})));
        let text = serde_json::to_value(&result.content).expect("json");
        assert_eq!(text, json!([{"type": "text", "text": "2 tabs"}]));
        assert!(result.meta.is_some());
    }

    #[test]
    fn an_error_reply_becomes_an_mcp_error_with_its_code_and_message() {
        let reply =
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "no tab 9"}});
        let error = outcome(reply).expect_err("an error");
        assert_eq!(error.code, ErrorCode(-32602));
        assert_eq!(error.message, "no tab 9");
    }

    #[test]
    fn a_reply_with_neither_is_an_internal_error() {
        let error = outcome(json!({"id": 3})).expect_err("an error");
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        let error = outcome(json!({"id": 3, "result": {"content": 5}})).expect_err("bad result");
        assert!(error.message.contains("not a tool result"));
    }
}
