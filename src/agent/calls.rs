//! An agent's `tools/call` of a browser tool: its params read, the tool it
//! names found in the tab's frames, its arguments checked against the
//! tool's schema before anyone is asked, then decided (`pursue`).

use super::*;

/// The params of `tools/call`: which browser tool, and its arguments.
#[derive(Deserialize)]
struct ToolsCall<'a> {
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

/// A parsed `tools/call` of a browser tool.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallParams<'a> {
    #[serde(rename = "tabId")]
    tab_id: TabId,
    name: String,
    /// As the agent wrote them: read for the schema check, and handed to the
    /// page as they are.
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default)]
    site: Option<String>,
}

/// Reads a browser tool's arguments (`{}` when absent).
fn read_params<'a, T: Deserialize<'a>>(
    tool: &str,
    arguments: Option<&'a RawValue>,
) -> Result<T, String> {
    let text = arguments.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| format!("{tool}: {e}"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    #[serde(rename = "tabId")]
    tab_id: TabId,
}

/// The tool a call names, found in the tab's frames.
pub(super) struct Found<'a> {
    pub(super) tool: &'a Tool,
    pub(super) frame_id: FrameId,
    pub(super) document_id: String,
    pub(super) site: String,
}

fn find_tool<'a>(
    registry: &'a Registry,
    tab_id: TabId,
    name: &str,
    site: Option<&str>,
) -> Result<Found<'a>, String> {
    let mut found: Vec<Found<'a>> = Vec::new();
    for frame in registry.frames(tab_id) {
        if site.is_some_and(|s| s != frame.origin && s != site_host(&frame.origin)) {
            continue;
        }
        for tool in &frame.tools {
            if tool.decl.name == name {
                found.push(Found {
                    tool,
                    frame_id: frame.frame_id,
                    document_id: frame.document_id.clone(),
                    site: frame.origin.clone(),
                });
            }
        }
    }
    // The same name on document.modelContext and navigator.modelContext of one
    // frame: the draft's object first.
    found.sort_by_key(|f| (f.site.clone(), f.tool.source));
    found.dedup_by(|a, b| a.site == b.site);
    match found.len() {
        0 => Err(format!("tab {tab_id} publishes no tool named {name:?}")),
        1 => Ok(found.remove(0)),
        _ => Err(format!(
            "several sites in tab {tab_id} publish {name:?} ({}); say which with \"site\"",
            found
                .iter()
                .map(|f| site_host(&f.site))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

impl Session {
    pub(super) fn call(
        &mut self,
        chat: &str,
        id: &Value,
        params: Option<&RawValue>,
        world: &World,
    ) -> Step {
        let bad = |message: String| Step::Reply {
            reply: error_reply(id, -32602, &message),
        };
        let ToolsCall { name, arguments } = match read_params("tools/call", params) {
            Ok(call) => call,
            Err(message) => return bad(message),
        };
        match &*name {
            LIST_TABS if world.tabs.is_none() => Step::NeedTabs,
            LIST_TABS => Step::Reply {
                reply: self.list_tabs(id, world),
            },
            LIST_TOOLS => match read_params::<ListParams>(LIST_TOOLS, arguments) {
                Ok(p) => {
                    let wanted = Wanted::List {
                        tab_id: p.tab_id,
                        allowed_once: Vec::new(),
                        denied_once: Vec::new(),
                    };
                    self.pursue(chat, id, wanted, world)
                }
                Err(message) => bad(message),
            },
            CALL_TOOL => match read_params(CALL_TOOL, arguments) {
                Ok(p) => self.start_call(chat, id, p, world),
                Err(message) => bad(message),
            },
            other => bad(format!("unknown tool {other:?}")),
        }
    }

    fn start_call(&mut self, chat: &str, id: &Value, p: CallParams<'_>, world: &World) -> Step {
        if world.registry.count(p.tab_id) == 0 {
            if world.tabs.is_none() {
                return Step::NeedTabs;
            }
            let message = if world.tab(p.tab_id).is_some() {
                format!("tab {} publishes no tools", p.tab_id)
            } else {
                format!("there is no tab {}", p.tab_id)
            };
            return Step::Reply {
                reply: error_reply(id, -32602, &message),
            };
        }
        let found = match find_tool(world.registry, p.tab_id, &p.name, p.site.as_deref()) {
            Ok(found) => found,
            Err(message) => {
                return Step::Reply {
                    reply: error_reply(id, -32602, &message),
                }
            }
        };
        let arguments = p.arguments.map_or("{}", RawValue::get);
        self.call_found(chat, id, p.tab_id, found, arguments, world)
    }

    /// A call of the tool found: its arguments checked against its schema
    /// before anyone is asked, then decided.
    pub(super) fn call_found(
        &mut self,
        chat: &str,
        id: &Value,
        tab_id: TabId,
        found: Found<'_>,
        arguments: &str,
        world: &World,
    ) -> Step {
        let name = &found.tool.decl.name;
        if found.tool.decl.kind == Kind::Skill {
            return Step::Reply {
                reply: error_reply(
                    id,
                    -32602,
                    &format!("{name} is a skill: skills are read, never called"),
                ),
            };
        }
        if let Some(schema) = found.tool.schema() {
            let value = serde_json::from_str(arguments).unwrap_or(Value::Null);
            if let Err(errors) = crate::schema::check(schema, &value) {
                return Step::Reply {
                    reply: error_reply(
                        id,
                        -32602,
                        &format!("invalid arguments for {name}: {}", errors.join("; ")),
                    ),
                };
            }
        }
        let wanted = Wanted::Call {
            tab_id,
            frame_id: found.frame_id,
            document_id: found.document_id,
            source: found.tool.source,
            site: found.site,
            name: name.clone(),
            arguments: arguments.to_owned(),
            allowed_once: false,
        };
        self.pursue(chat, id, wanted, world)
    }
}
