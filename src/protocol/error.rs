//! The JSON-RPC errors Toolgate answers with: each a code and a message.

use std::fmt;

/// A JSON-RPC error, by what went wrong; its code follows from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RpcError {
    /// The text is not a JSON-RPC request (-32600).
    InvalidRequest(String),
    /// The method is not one Toolgate answers (-32601).
    MethodNotFound(String),
    /// The params, or a browser tool's arguments, cannot be used (-32602).
    InvalidParams(String),
    /// Toolgate could not write its reply (-32603).
    Internal(String),
    /// The request was understood but could not be carried out: its tool is
    /// gone, its call was interrupted, its reply was too large to keep (-32000).
    NotCarriedOut(String),
    /// The agent cancelled the request, or went away (-32800).
    Withdrawn,
    /// Another extension that the person did not allow (-32001).
    RefusedExtension(String),
    /// A desktop session that was not opened, or whose id belonged to a
    /// session that ended (-32002).
    SessionNotOpened(String),
}

const WITHDRAWN: &str = "the request was withdrawn: the agent cancelled it or went away";

impl RpcError {
    /// The error for extension `id`, which the person did not allow.
    pub fn refused_extension(id: &str) -> RpcError {
        RpcError::RefusedExtension(format!(
            "Toolgate refused extension {id}: allow it in Toolgate's settings (\"Agents that may connect\")"
        ))
    }

    /// The error for a request of a desktop session not opened; `why`, when
    /// its opening was refused.
    pub fn session_not_opened(why: Option<&str>) -> RpcError {
        RpcError::SessionNotOpened(match why {
            Some(why) => format!("this session was not opened: {why}"),
            None => "this session was not opened".to_owned(),
        })
    }

    /// The error the shell names (`kind`, with what only it knows as
    /// `detail`), for the binding: every error an agent gets is written here.
    ///
    /// # Errors
    /// A kind that is no error the shell gives.
    pub fn from_shell(kind: &str, detail: &str) -> Result<RpcError, String> {
        match kind {
            "withdrawn" => Ok(RpcError::Withdrawn),
            "refused_extension" => Ok(RpcError::refused_extension(detail)),
            "session_not_opened" => Ok(RpcError::session_not_opened(
                Some(detail).filter(|d| !d.is_empty()),
            )),
            "internal" => Ok(RpcError::Internal(detail.to_owned())),
            "not_carried_out" => Ok(RpcError::NotCarriedOut(detail.to_owned())),
            other => Err(format!("no error of kind {other:?}")),
        }
    }

    /// The error's JSON-RPC code.
    pub fn code(&self) -> i64 {
        match self {
            RpcError::InvalidRequest(_) => -32600,
            RpcError::MethodNotFound(_) => -32601,
            RpcError::InvalidParams(_) => -32602,
            RpcError::Internal(_) => -32603,
            RpcError::NotCarriedOut(_) => -32000,
            RpcError::Withdrawn => -32800,
            RpcError::RefusedExtension(_) => -32001,
            RpcError::SessionNotOpened(_) => -32002,
        }
    }

    /// What the agent is told.
    pub fn message(&self) -> &str {
        match self {
            RpcError::InvalidRequest(m)
            | RpcError::MethodNotFound(m)
            | RpcError::InvalidParams(m)
            | RpcError::Internal(m)
            | RpcError::NotCarriedOut(m)
            | RpcError::RefusedExtension(m)
            | RpcError::SessionNotOpened(m) => m,
            RpcError::Withdrawn => WITHDRAWN,
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}
