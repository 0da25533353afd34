//! Pages calling each other's tools where the browser has no WebMCP to carry
//! the call (Toolgate's polyfill, Chromium 148): the worker's view of a tab's
//! frames stands in for the browser's. Which frames the permissions policy's
//! `"tools"` lets use WebMCP (`Tree::allowed`), the tools other origins'
//! frames expose to a frame (`listing`), which frames hear that what is
//! exposed to them changed (`listeners`), and the frame whose tool a page's
//! call runs in (`owner`), with the pass the native path grants
//! (`Passes::grant`, `Passes::take`) (docs/agents.md, "Pages calling each
//! other's tools"; ARCHITECTURE.md, "Where the native API and the draft
//! differ").
//!
//! The tree is the shell's: `webNavigation.getAllFrames` (each frame's
//! parent, document) and what each frame's relay, in its isolated world,
//! says of itself (its origin, its place among its parent's frames) and of
//! its own iframes (the `allow` attribute's `tools` allowlist, which is the
//! embedding page's own word). A frame the shell could not ask has no origin
//! or place here, and is allowed nothing. Which frame calls is always the
//! browser's `sender`, never the tree's.

use crate::page::declaration::{Declaration, Kind};
use crate::page::registry::{Frame, FrameId, FrameRef, Registry};
use serde::{Deserialize, Serialize};
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

/// The most frames a tree may hold, and the deepest a frame may be: past
/// them the shell's view is cut (a frame left out is allowed nothing).
pub const TREE_FRAMES: usize = 1_000;
pub const TREE_DEPTH: usize = 64;

/// One frame of a tab, as the shell saw it.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TreeFrame {
    pub frame_id: FrameId,
    /// -1 for the tab's top frame.
    pub parent_frame_id: FrameId,
    pub document_id: String,
    /// What its relay said: its origin, and its place among its parent's
    /// frames, from the top (`window.parent[i] === window` at each level).
    #[serde(default)]
    pub origin: Option<String>,
    #[serde(default)]
    pub path: Option<Vec<u32>>,
    /// Its own frames in `window.frames` order: what each one's container
    /// says of `"tools"` (`None`: its `allow` names no `tools`, or no
    /// container was found).
    #[serde(default)]
    pub children: Vec<Option<Allowlist>>,
}

/// A container's `allow` attribute's allowlist for `"tools"`, its relay
/// having read `'self'` and `'src'` as the origins they stand for.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Allowlist {
    #[serde(default)]
    pub all: bool,
    #[serde(default)]
    pub origins: Vec<String>,
}

/// A tab's frames as the shell saw them.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(transparent)]
pub struct Tree {
    pub frames: Vec<TreeFrame>,
}

impl Tree {
    fn frame(&self, frame_id: FrameId) -> Option<&TreeFrame> {
        self.frames
            .iter()
            .take(TREE_FRAMES)
            .find(|f| f.frame_id == frame_id)
    }

    /// The frame showing `document_id` in `frame_id`, if the shell saw it.
    pub fn document(&self, frame_id: FrameId, document_id: &str) -> Option<&TreeFrame> {
        self.frame(frame_id)
            .filter(|f| f.document_id == document_id)
    }

    /// Whether the permissions policy's `"tools"` lets frame `frame_id` use
    /// WebMCP, as Chromium 156 decides it: the top frame may; a child may
    /// if its parent may and its container's `allow` lists `tools` for the
    /// child's origin, or, where it names no `tools`, the child is of its
    /// parent's origin (the feature's default allowlist, `'self'`).
    pub fn allowed(&self, frame_id: FrameId) -> bool {
        let Some(mut at) = self.frame(frame_id) else {
            return false;
        };
        for _ in 0..TREE_DEPTH {
            if at.parent_frame_id < 0 {
                return true;
            }
            let Some(parent) = self.frame(at.parent_frame_id) else {
                return false;
            };
            let (Some(origin), Some(parent_origin), Some(index)) = (
                at.origin.as_deref(),
                parent.origin.as_deref(),
                at.path.as_ref().and_then(|p| p.last()),
            ) else {
                return false;
            };
            let may = match parent.children.get(*index as usize) {
                Some(Some(list)) => list.all || list.origins.iter().any(|o| o == origin),
                _ => origin == parent_origin,
            };
            if !may || origin == "null" {
                return false;
            }
            at = parent;
        }
        false
    }
}

/// A tool another origin's frame exposes to the caller, as its
/// `getTools({fromOrigins})` lists it; `path` is where the caller finds that
/// frame's window, from the top.
#[derive(Debug, PartialEq, Serialize)]
pub struct Listed {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Option<String>,
    pub origin: String,
    pub path: Vec<u32>,
}

/// Whether `decl` is a tool exposed to `origin`.
fn exposes(decl: &Declaration, origin: &str) -> bool {
    decl.kind == Kind::Tool && decl.exposed_to.iter().any(|o| o == origin)
}

/// The registry's frames of the caller's tab that the tree shows, allowed,
/// of another origin than the caller's, with their place.
fn others<'a>(
    registry: &'a Registry,
    tree: &'a Tree,
    caller: &'a FrameRef,
) -> impl Iterator<Item = (&'a Frame, &'a Vec<u32>)> + 'a {
    registry
        .frames(caller.tab_id)
        .filter(move |frame| frame.origin != caller.origin)
        .filter_map(move |frame| {
            let seen = tree.document(frame.frame_id, &frame.document_id)?;
            let path = seen.path.as_ref()?;
            (tree.allowed(frame.frame_id) && seen.origin.as_deref() == Some(frame.origin.as_str()))
                .then_some((frame, path))
        })
}

/// Whether the caller, as the browser named it, is a frame of the tree the
/// policy allows.
fn caller_allowed(tree: &Tree, caller: &FrameRef) -> bool {
    caller.origin != "null"
        && tree
            .document(caller.frame_id, &caller.document_id)
            .is_some_and(|f| f.origin.as_deref() == Some(caller.origin.as_str()))
        && tree.allowed(caller.frame_id)
}

/// The tools frames of `from_origins` in the caller's tab expose to the
/// caller's origin, as 156's `getTools({fromOrigins})` adds them: none
/// unless both frames are allowed `"tools"`.
pub fn listing(
    registry: &Registry,
    tree: &Tree,
    caller: &FrameRef,
    from_origins: &[String],
) -> Vec<Listed> {
    if !caller_allowed(tree, caller) {
        return Vec::new();
    }
    let mut listed = Vec::new();
    for (frame, path) in others(registry, tree, caller) {
        if !from_origins.contains(&frame.origin) {
            continue;
        }
        for tool in frame
            .tools
            .iter()
            .filter(|t| exposes(&t.decl, &caller.origin))
        {
            listed.push(Listed {
                name: tool.decl.name.clone(),
                title: tool.decl.title.clone(),
                description: tool.decl.description.clone(),
                input_schema: tool.decl.input_schema.clone(),
                origin: frame.origin.clone(),
                path: path.clone(),
            });
        }
    }
    listed
}

/// A frame to tell that what is exposed to it changed.
#[derive(Debug, PartialEq, Serialize)]
pub struct Listener {
    pub frame_id: FrameId,
    pub document_id: String,
}

/// The frames to tell that what frame `owner` exposes to `origins` changed
/// (its `toolchange`): the allowed frames of those origins in its tab, none
/// of the owner's own origin (its same-origin frames hear it from the
/// owner's page). An owner the tree no longer shows (it went away) is
/// heard by them all; one the policy does not allow, by none.
pub fn listeners(tree: &Tree, owner: &FrameRef, origins: &[String]) -> Vec<Listener> {
    if tree
        .document(owner.frame_id, &owner.document_id)
        .is_some_and(|_| !tree.allowed(owner.frame_id))
    {
        return Vec::new();
    }
    tree.frames
        .iter()
        .take(TREE_FRAMES)
        .filter(|f| {
            f.origin
                .as_deref()
                .is_some_and(|o| o != owner.origin && origins.iter().any(|x| x == o))
        })
        .filter(|f| tree.allowed(f.frame_id))
        .map(|f| Listener {
            frame_id: f.frame_id,
            document_id: f.document_id.clone(),
        })
        .collect()
}

/// The frame of `origin` at `path` in the caller's tab whose tool `name` is
/// exposed to the caller, both allowed: where the caller's call runs.
pub fn owner<'a>(
    registry: &'a Registry,
    tree: &'a Tree,
    caller: &'a FrameRef,
    origin: &str,
    name: &str,
    path: &[u32],
) -> Option<&'a Frame> {
    if !caller_allowed(tree, caller) {
        return None;
    }
    others(registry, tree, caller)
        .find(|(frame, at)| {
            frame.origin == origin
                && at.as_slice() == path
                && frame
                    .tools
                    .iter()
                    .any(|t| t.decl.name == name && exposes(&t.decl, &caller.origin))
        })
        .map(|(frame, _)| frame)
}

/// What of a frame's tools is exposed to other origins, to tell whether a
/// report changed it: each origin a tool is exposed to, with the tool's
/// name and a hash of what `getTools` shows of it.
pub type Exposure = BTreeSet<(String, String, u64)>;

pub fn exposure(frame: Option<&Frame>) -> Exposure {
    let mut seen = Exposure::new();
    for tool in frame.into_iter().flat_map(|f| f.tools.iter()) {
        if tool.decl.kind != Kind::Tool || tool.decl.exposed_to.is_empty() {
            continue;
        }
        let mut hasher = DefaultHasher::new();
        (
            &tool.decl.title,
            &tool.decl.description,
            &tool.decl.input_schema,
        )
            .hash(&mut hasher);
        let shown = hasher.finish();
        for origin in &tool.decl.exposed_to {
            seen.insert((origin.clone(), tool.decl.name.clone(), shown));
        }
    }
    seen
}

/// The origins whose view of a frame's exposed tools differs between
/// `before` and `after` (`exposure`).
pub fn changed_for(before: &Exposure, after: &Exposure) -> Vec<String> {
    let mut origins: Vec<String> = Vec::new();
    for (origin, _, _) in before.symmetric_difference(after) {
        if !origins.contains(origin) {
            origins.push(origin.clone());
        }
    }
    origins
}
