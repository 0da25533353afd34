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
}

impl RpcError {
    /// The error's JSON-RPC code.
    pub fn code(&self) -> i64 {
        match self {
            RpcError::InvalidRequest(_) => -32600,
            RpcError::MethodNotFound(_) => -32601,
            RpcError::InvalidParams(_) => -32602,
            RpcError::Internal(_) => -32603,
            RpcError::NotCarriedOut(_) => -32000,
        }
    }

    /// What the agent is told.
    pub fn message(&self) -> &str {
        match self {
            RpcError::InvalidRequest(m)
            | RpcError::MethodNotFound(m)
            | RpcError::InvalidParams(m)
            | RpcError::Internal(m)
            | RpcError::NotCarriedOut(m) => m,
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}
