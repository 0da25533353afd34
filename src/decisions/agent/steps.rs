//! What the agent entry takes from the shell and gives back (ARCHITECTURE.md,
//! "Bird's-eye view"): the browser as the shell sees it (`World`, `TabInfo`),
//! which tool a call is for (`CallTarget`), and the steps the shell carries
//! out (`Step`, `Run`).

use crate::decisions::answers::ToolFacts;
use crate::page::registry::{FrameId, Registry, Source, TabId, Tool};
use crate::protocol::{error_reply, Reply, RpcError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tab as the browser describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabInfo {
    pub id: TabId,
    pub title: String,
    pub url: String,
}

/// What the shell knows of the browser when a request or answer comes.
pub struct World<'a> {
    pub registry: &'a Registry,
    /// The open tabs, or `None` when the shell did not look them up: most
    /// requests never need them (asking the browser costs a round trip on
    /// every call), and those that do return `Step::NeedTabs`.
    pub tabs: Option<&'a [TabInfo]>,
    pub now_ms: u64,
    /// Where a call's arguments are checked, and the checker's verdict the
    /// request came back with (ARCHITECTURE.md, "The arguments' checker").
    pub checking: crate::page::schema::Checking<'a>,
}

impl World<'_> {
    pub fn tab(&self, id: TabId) -> Option<&TabInfo> {
        self.tabs.unwrap_or_default().iter().find(|t| t.id == id)
    }
}

/// Exactly which tool a call is for: the tab, frame and document that
/// registered it, on which API, by which name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTarget {
    pub tab_id: TabId,
    pub frame_id: FrameId,
    pub document_id: String,
    pub source: Source,
    pub name: String,
}

impl CallTarget {
    /// The tool's facts as the registry holds them now, in the same
    /// document; `None` when it is no longer published there.
    pub(crate) fn facts<'a>(&self, registry: &'a Registry, site: &'a str) -> Option<ToolFacts<'a>> {
        ToolFacts::of(self.tool(registry)?, site, &registry.flags)
    }

    /// The tool as the registry holds it now, in the same document.
    pub(crate) fn tool<'a>(&self, registry: &'a Registry) -> Option<&'a Tool> {
        registry
            .frames(self.tab_id)
            .find(|f| f.frame_id == self.frame_id && f.document_id == self.document_id)?
            .tools
            .iter()
            .find(|t| {
                t.source == self.source
                    && t.decl.name == self.name
                    && t.decl.kind == crate::page::declaration::Kind::Tool
            })
    }
}

/// A tool to run, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub call_id: u64,
    #[serde(flatten)]
    pub target: CallTarget,
    /// As JSON text (`PageCall` holds it so): the shell reads it. Left out
    /// of the step's JSON when the binding hands it apart (empty then:
    /// no JSON text is).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub arguments: String,
    /// Running it twice is harmless: it is a Read-only tool. The shell stores
    /// the session, which records the call as running, before it starts a
    /// call that is not, so that a worker stopped mid-call never runs it
    /// again for a re-sent request; a repeatable call need not wait for that.
    pub repeatable: bool,
    /// What to watch the call for: its hints' promises (docs/classes.md,
    /// "Hints held to their word"); `None` when they promise nothing a
    /// call could break, and the shell need not watch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<crate::page::conduct::Watch>,
}

/// What the shell must do next.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Answer the agent with this JSON-RPC response.
    Reply { reply: Reply },
    /// Run the tool, then hand the outcome to `Session::finish`.
    Run { run: Run },
    /// Open the card in a window; the agent waits for it.
    Ask { card_id: u64 },
    /// The request is already waiting on this card.
    Wait { card_id: u64 },
    /// The request's call is already running; its reply will come when it ends.
    Attach { call_id: u64 },
    /// The request needs the open tabs (a tab's title, or whether a tab
    /// exists): send it again with them. Nothing changed.
    NeedTabs,
    /// The call's arguments must be checked by the checker, off the
    /// worker's thread: send the request again with its verdict (`Checked`).
    /// Nothing changed.
    NeedCheck {
        check: crate::page::schema::CheckAsked,
        /// The call to take up again with the verdict (`Session::resumed`),
        /// for an agent's request; a frame's call is read again.
        #[serde(skip)]
        resume: Option<crate::protocol::Resume>,
    },
}

impl Step {
    pub(super) fn reply(reply: Reply) -> Step {
        Step::Reply { reply }
    }

    pub(super) fn error(id: &Value, error: &RpcError) -> Step {
        Step::Reply {
            reply: error_reply(id, error),
        }
    }
}
