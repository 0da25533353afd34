//! The protocol between desktop agents and the extension, typed once.
//!
//! `toolgate-mcp` runs as two processes (ARCHITECTURE.md, "Desktop agents"):
//! the stdio MCP server an MCP client starts, one per MCP session, and the
//! native-messaging host the browser starts. They meet on an owner-only
//! local socket. The same messages cross both hops: the stdio server sends
//! [`FromAgent`] on the socket, the host checks it speaks only for its own
//! session and hands it on to the extension as one native-messaging frame;
//! the extension's [`ToAgent`] go back the same way, routed by `session`.
//!
//! Requests are the agent entry's MCP-shaped JSON-RPC (`tools/list`,
//! `tools/call` of the browser tools); replies are its JSON-RPC responses.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The name the native-messaging host is installed under.
pub const HOST_NAME: &str = "dev.toolgate.mcp";

/// Toolgate's extension id: fixed by the `key` in manifest.json, so that the
/// host manifest's `allowed_origins` can name it.
pub const EXTENSION_ID: &str = "ckcdjacnpndbpfeglbpdejjppnhdelmo";

/// The largest frame the browser accepts from a host (Chrome's native
/// messaging limit, 1 MB).
pub const MAX_TO_BROWSER: usize = 1024 * 1024;

/// The largest frame the browser sends to a host (64 MB).
pub const MAX_FROM_BROWSER: usize = 64 * 1024 * 1024;

/// What a desktop agent's session sends toward the extension.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FromAgent {
    /// An MCP session began: one chat, named after the MCP client
    /// (`initialize`'s `clientInfo.name`); `read_only` when the person
    /// connecting chose Read only (`toolgate-mcp --read-only`, docs/rules.md).
    Open {
        session: String,
        client: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        read_only: bool,
    },
    /// One JSON-RPC request of the session's chat.
    Request { session: String, request: Value },
    /// The client cancelled a request (`notifications/cancelled`): it is
    /// withdrawn, and its card closes.
    Cancel { session: String, request_id: Value },
    /// The session ended (the client went away): its waiting requests are
    /// withdrawn.
    Close { session: String },
}

impl FromAgent {
    /// The session this message speaks for.
    pub fn session(&self) -> &str {
        match self {
            FromAgent::Open { session, .. }
            | FromAgent::Request { session, .. }
            | FromAgent::Cancel { session, .. }
            | FromAgent::Close { session } => session,
        }
    }
}

/// What the extension sends back to a session.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToAgent {
    /// The JSON-RPC response to one request.
    Reply { session: String, reply: Value },
    /// A request now waits on a person (a card opened): the stdio server
    /// tells the client through MCP progress, where it gave a progress token.
    Waiting {
        session: String,
        request_id: Value,
        message: String,
    },
}

impl ToAgent {
    /// The session this message is for.
    pub fn session(&self) -> &str {
        match self {
            ToAgent::Reply { session, .. } | ToAgent::Waiting { session, .. } => session,
        }
    }
}
