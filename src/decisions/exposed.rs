//! Pages calling each other's tools: a frame's page runs, through the
//! browser's own WebMCP, a tool that a frame of another origin in its tab
//! exposed to it (`registerTool`'s `exposedTo`). That is not an agent's call:
//! the owning site chose to let that origin call it, and the calling page
//! could run it anyway. But the browser runs it as it runs its own agent's
//! call (the copy's `execute`), so the owning frame cannot tell the two
//! apart, and an agent must never pass the gate by choosing its arguments
//! (docs/agents.md, "Pages calling each other's tools"; ARCHITECTURE.md,
//! "Who is gated").
//!
//! So the calling frame says first what it is about to call (`grant`): its
//! origin is the browser's `sender`'s, never the page's word; the tool must be
//! one a frame of the named origin in the same tab registered with
//! `exposedTo` naming that origin. That leaves a pass for one call, with
//! exactly those arguments, for `PASS_MS`. The native call that then reaches
//! the owning frame's copy takes it (`take`), and runs as the page's call,
//! with no card. Without a pass, a native call is the browser's agent's, and
//! gated as ever.
//!
//! An agent's native call with the very arguments of a waiting pass takes
//! it: it runs what the calling page chose and was about to run itself, with
//! the arguments it chose, which that page could run and show anyone. The
//! page's own call then finds no pass and is gated.
//!
//! Where the browser has no WebMCP to carry the call (Toolgate's polyfill,
//! Chromium 148), the worker carries it, through its view of the tab's
//! frames (`tree`): the same pass is granted and taken in one turn, for the
//! frame the caller named (`Passes::polyfill_call`), so no agent's call can
//! come between.

pub mod tree;

use super::agent::FrameCall;
use crate::page::declaration::Kind;
use crate::page::registry::{FrameRef, Registry, TabId};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// How long a pass waits for the native call it is for. The call follows at
/// once (the calling page waits for the pass, then calls); the rest is room
/// for a loaded machine.
pub const PASS_MS: u64 = 10_000;
/// Passes one calling document may hold at once, and the bytes of their
/// arguments; past either, its next call gets none (and is gated).
pub const PASSES_A_DOCUMENT: usize = 16;
pub const PASS_BYTES_A_DOCUMENT: usize = 256 * 1024;
/// Passes all pages may hold at once, and the bytes of their arguments.
pub const PASSES_IN_ALL: usize = 256;
pub const PASS_BYTES_IN_ALL: usize = 4 * 1024 * 1024;

/// What a frame's page says it is about to call (`FromPage::ExposedCall`).
#[derive(Debug)]
pub struct ExposedCall {
    /// The origin of the frame whose tool it is.
    pub origin: String,
    pub name: String,
    pub arguments: Box<RawValue>,
}

/// What a frame's page asks the worker to run where the browser has no
/// WebMCP to carry it (`FromPage::ExposedRun`): the call, and where the
/// caller found the owning frame's window, from the top (`tree::Listed`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExposedRun {
    pub origin: String,
    pub name: String,
    pub path: Vec<u32>,
    pub arguments: Box<RawValue>,
}

#[derive(Debug)]
struct Pass {
    tab_id: TabId,
    /// The calling frame's origin and document, from the browser's `sender`.
    caller: String,
    caller_document: String,
    /// The origin of the frame whose tool it is.
    owner: String,
    name: String,
    arguments: Value,
    bytes: usize,
    expires_ms: u64,
}

/// A native call that a pass let run as the calling page's.
#[derive(Debug, PartialEq, Serialize)]
pub struct PageCall {
    /// The calling page's origin.
    pub caller: String,
    /// The site whose tool ran, and the tool.
    pub site: String,
    pub tool: String,
}

/// The passes waiting for their call. Kept in memory only: a pass lives
/// for seconds, and a worker that stopped meanwhile gates the call as the
/// browser's agent's, which only makes it stricter.
#[derive(Debug, Default)]
pub struct Passes {
    passes: Vec<Pass>,
}

/// Whether a frame of origin `owner` in tab `tab_id` has tool `name`,
/// exposed to `caller`.
fn exposed(registry: &Registry, tab_id: TabId, owner: &str, name: &str, caller: &str) -> bool {
    registry.frames(tab_id).any(|frame| {
        frame.origin == owner
            && frame.tools.iter().any(|tool| {
                tool.decl.kind == Kind::Tool
                    && tool.decl.name == name
                    && tool.decl.exposed_to.iter().any(|o| o == caller)
            })
    })
}

impl Passes {
    fn expire(&mut self, now_ms: u64) {
        self.passes.retain(|pass| pass.expires_ms > now_ms);
    }

    /// Weighs what frame `caller` says it is about to call: a pass for it,
    /// or why there is none (the call then reaches the gate as the browser's
    /// agent's).
    ///
    /// # Errors
    /// When the tool is not one a frame of that origin in the caller's tab
    /// exposed to the caller's origin, or the caller holds too many passes.
    pub fn grant(
        &mut self,
        registry: &Registry,
        caller: &FrameRef,
        call: &ExposedCall,
        now_ms: u64,
    ) -> Result<(), String> {
        self.expire(now_ms);
        if caller.origin == "null" || caller.origin == call.origin {
            return Err("only a frame of another origin calls through the browser".into());
        }
        if !exposed(
            registry,
            caller.tab_id,
            &call.origin,
            &call.name,
            &caller.origin,
        ) {
            return Err(format!(
                "{} is not a tool a frame of {} in this tab exposed to {}",
                call.name, call.origin, caller.origin
            ));
        }
        let arguments: Value =
            serde_json::from_str(call.arguments.get()).map_err(|e| e.to_string())?;
        let bytes = call.arguments.get().len() + call.name.len() + call.origin.len();
        let (mine, my_bytes) = self
            .passes
            .iter()
            .filter(|p| p.caller_document == caller.document_id)
            .fold((0, 0), |(n, b), p| (n + 1, b + p.bytes));
        let all_bytes: usize = self.passes.iter().map(|p| p.bytes).sum();
        if mine >= PASSES_A_DOCUMENT
            || my_bytes + bytes > PASS_BYTES_A_DOCUMENT
            || self.passes.len() >= PASSES_IN_ALL
            || all_bytes + bytes > PASS_BYTES_IN_ALL
        {
            return Err("too many calls of exposed tools wait to run".into());
        }
        self.passes.push(Pass {
            tab_id: caller.tab_id,
            caller: caller.origin.clone(),
            caller_document: caller.document_id.clone(),
            owner: call.origin.clone(),
            name: call.name.clone(),
            arguments,
            bytes,
            expires_ms: now_ms + PASS_MS,
        });
        Ok(())
    }

    /// Takes the pass a native call matches, if one waits: the same tab, the
    /// owning frame's origin, the tool (still exposed to the caller), and
    /// exactly the arguments.
    pub fn take(&mut self, registry: &Registry, call: &FrameCall, now_ms: u64) -> Option<PageCall> {
        self.take_for(registry, call, None, now_ms)
    }

    /// As `take`, and where `caller_document` is given, only a pass of that
    /// calling document.
    fn take_for(
        &mut self,
        registry: &Registry,
        call: &FrameCall,
        caller_document: Option<&str>,
        now_ms: u64,
    ) -> Option<PageCall> {
        self.expire(now_ms);
        if self.passes.is_empty() {
            return None;
        }
        let frame = registry
            .frames(call.tab_id)
            .find(|f| f.frame_id == call.frame_id && f.document_id == call.document_id)?;
        let tool = frame.tools.iter().find(|t| {
            t.source == call.source && t.decl.name == call.name && t.decl.kind == Kind::Tool
        })?;
        let arguments: Value = serde_json::from_str(call.arguments.get()).ok()?;
        let at = self.passes.iter().position(|pass| {
            pass.tab_id == call.tab_id
                && caller_document.is_none_or(|d| d == pass.caller_document)
                && pass.owner == frame.origin
                && pass.name == call.name
                && tool.decl.exposed_to.contains(&pass.caller)
                && pass.arguments == arguments
        })?;
        let pass = self.passes.remove(at);
        Some(PageCall {
            caller: pass.caller,
            site: frame.origin.clone(),
            tool: call.name.clone(),
        })
    }

    /// A page's call of a tool another origin's frame exposed to it, where
    /// the worker carries it (`tree`): the pass granted as for an announced
    /// call (`grant`), the owning frame found where the caller named it,
    /// and the pass taken by the call the worker then runs there (`take`),
    /// in one turn. Gives that call (the owning frame's tool) and whose it is.
    ///
    /// # Errors
    /// Why it may not run: not exposed, the policy, or no such frame.
    pub fn polyfill_call(
        &mut self,
        registry: &Registry,
        tree: &tree::Tree,
        caller: &FrameRef,
        run: &ExposedRun,
        now_ms: u64,
    ) -> Result<(FrameCall, PageCall), String> {
        let call = ExposedCall {
            origin: run.origin.clone(),
            name: run.name.clone(),
            arguments: run.arguments.clone(),
        };
        self.grant(registry, caller, &call, now_ms)?;
        let frame_call = tree::owner(registry, tree, caller, &run.origin, &run.name, &run.path)
            .and_then(|frame| {
                let tool = frame.tools.iter().find(|t| {
                    t.decl.kind == Kind::Tool
                        && t.decl.name == run.name
                        && t.decl.exposed_to.contains(&caller.origin)
                })?;
                Some(FrameCall {
                    tab_id: caller.tab_id,
                    frame_id: frame.frame_id,
                    document_id: frame.document_id.clone(),
                    source: tool.source,
                    name: run.name.clone(),
                    arguments: run.arguments.clone(),
                })
            });
        let taken = frame_call
            .as_ref()
            .and_then(|c| self.take_for(registry, c, Some(&caller.document_id), now_ms));
        match (frame_call, taken) {
            (Some(frame_call), Some(page_call)) => Ok((frame_call, page_call)),
            _ => {
                // The pass granted above, the last, goes unused: none is
                // left waiting for another call to take.
                self.passes.pop();
                Err(format!(
                    "no frame of {} where the caller named it has {} exposed to {}, both allowed \"tools\"",
                    run.origin, run.name, caller.origin
                ))
            }
        }
    }
}
