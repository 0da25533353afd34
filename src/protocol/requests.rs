//! An agent's JSON-RPC request, read in place from its text into what it
//! asks for. Params stay text until the method that reads them, and a tool's
//! arguments stay text throughout: a `Value` tree of every request would
//! cost about a quarter of a call's time in the core (benches/JOURNAL.md,
//! "Choices the code keeps").

use super::{RpcError, CALL_TOOL, LIST_TABS, LIST_TOOLS};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

/// A browser tab's id, as the browser gives it.
pub type TabId = i64;

/// A request, read: its id, and what it asks, or why that cannot be known.
/// The id is known first so that a request sent again can be recognised
/// before anything else about it is judged.
#[derive(Debug)]
pub struct AgentRequest<'a> {
    pub id: Value,
    pub method: Result<Method<'a>, RpcError>,
}

/// The methods Toolgate answers.
#[derive(Debug)]
pub enum Method<'a> {
    Initialize,
    /// MCP's ping: answered at once, by the extension.
    Ping,
    /// `tools/list`: the browser tools.
    ListBrowserTools,
    /// `tools/call` of a browser tool.
    Call(BrowserCall<'a>),
}

/// A call of one of the three browser tools.
#[derive(Debug)]
pub enum BrowserCall<'a> {
    /// `browser_list_tabs`: the tabs that publish tools.
    ListTabs,
    /// `browser_list_webmcp_tools`: a tab's tools and skills.
    ListTools { tab_id: TabId },
    /// `browser_call_webmcp_tool`: call a page's tool.
    CallTool(CallTool<'a>),
}

/// `browser_call_webmcp_tool`'s arguments.
#[derive(Debug)]
pub struct CallTool<'a> {
    pub tab_id: TabId,
    /// The page tool's name.
    pub name: String,
    /// As the agent wrote them (JSON text; `{}` when absent): read for the
    /// schema check, and handed to the page as they are.
    pub arguments: &'a str,
    /// Which site's tool, when several sites in the tab publish the name.
    pub site: Option<String>,
}

/// A call of a page's tool whose arguments went to be checked, kept to take
/// up again with the verdict without reading the request a second time
/// (ARCHITECTURE.md, "The arguments' checker"): its arguments are the
/// texts the check was asked about.
#[derive(Clone, Debug, PartialEq)]
pub struct Resume {
    pub id: Value,
    pub tab_id: TabId,
    pub name: String,
    pub site: Option<String>,
}

impl Resume {
    /// The call again, with `arguments`.
    pub fn call<'a>(&self, arguments: &'a str) -> CallTool<'a> {
        CallTool {
            tab_id: self.tab_id,
            name: self.name.clone(),
            arguments,
            site: self.site.clone(),
        }
    }
}

/// `browser_call_webmcp_tool`'s arguments as they are written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallToolWire<'a> {
    #[serde(rename = "tabId")]
    tab_id: TabId,
    name: String,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default)]
    site: Option<String>,
}

impl<'a> From<CallToolWire<'a>> for CallTool<'a> {
    fn from(wire: CallToolWire<'a>) -> Self {
        CallTool {
            tab_id: wire.tab_id,
            name: wire.name,
            arguments: wire.arguments.map_or("{}", RawValue::get),
            site: wire.site,
        }
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Value,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// `tools/call`'s params: which browser tool, and its arguments.
#[derive(Deserialize)]
struct ToolsCall<'a> {
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListTools {
    #[serde(rename = "tabId")]
    tab_id: TabId,
}

/// Reads a request's text.
///
/// # Errors
/// When the text is not a JSON-RPC request at all: its reply then has no id.
pub fn read_request(text: &str) -> Result<AgentRequest<'_>, RpcError> {
    let Envelope { id, method, params } = serde_json::from_str(text)
        .map_err(|e| RpcError::InvalidRequest(format!("invalid request: {e}")))?;
    let method = match method.as_deref() {
        Some("initialize") => Ok(Method::Initialize),
        Some("ping") => Ok(Method::Ping),
        Some("tools/list") => Ok(Method::ListBrowserTools),
        Some("tools/call") => read_call(params).map(Method::Call),
        Some(other) => Err(RpcError::MethodNotFound(format!(
            "unknown method {other:?}"
        ))),
        None => Err(RpcError::InvalidRequest(
            "a request needs a method".to_owned(),
        )),
    };
    Ok(AgentRequest { id, method })
}

fn read_call(params: Option<&RawValue>) -> Result<BrowserCall<'_>, RpcError> {
    let ToolsCall { name, arguments } = read_params("tools/call", params)?;
    match &*name {
        LIST_TABS => Ok(BrowserCall::ListTabs),
        LIST_TOOLS => read_params::<ListTools>(LIST_TOOLS, arguments)
            .map(|p| BrowserCall::ListTools { tab_id: p.tab_id }),
        CALL_TOOL => read_params::<CallToolWire>(CALL_TOOL, arguments)
            .map(|wire| BrowserCall::CallTool(wire.into())),
        other => Err(RpcError::InvalidParams(format!("unknown tool {other:?}"))),
    }
}

/// Reads params or a browser tool's arguments (`{}` when absent).
fn read_params<'a, T: Deserialize<'a>>(
    what: &str,
    params: Option<&'a RawValue>,
) -> Result<T, RpcError> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| RpcError::InvalidParams(format!("{what}: {e}")))
}
