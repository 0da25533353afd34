//! The agent protocol: an agent's JSON-RPC request read into a typed
//! [`AgentRequest`], and the replies written for it (MCP-shaped); and the
//! [`bridge`] between desktop agents (toolgate-mcp) and the extension. It
//! depends on nothing else in the core, so toolgate-mcp can depend on it
//! alone.

pub mod bridge;
mod error;
mod replies;
mod requests;

pub use error::RpcError;
pub use replies::{
    error_reply, initialized, pong, reply, result_reply, tool_result, tools_listed, Reply,
};
pub use requests::{read_request, AgentRequest, BrowserCall, CallTool, Method, Resume, TabId};

/// The three browser tools every agent sees, by name.
pub const LIST_TABS: &str = "browser_list_tabs";
pub const LIST_TOOLS: &str = "browser_list_webmcp_tools";
pub const CALL_TOOL: &str = "browser_call_webmcp_tool";

/// The browser tools agents see, with their input schemas.
pub fn browser_tools() -> serde_json::Value {
    serde_json::from_str(include_str!("protocol/browser-tools.json"))
        .unwrap_or(serde_json::Value::Null)
}
