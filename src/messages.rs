//! Every message the service worker accepts, typed once per trust tier.
//!
//! The shell decides the tier from what the browser says about the sender
//! (`sender.tab`, `sender.url`), never from the message, and then parses the
//! message as that tier's type. A page can send anything; it can only ever be
//! parsed as `FromPage`.

use crate::page::registry::{Op, Source, TabId};
use crate::wire::{needed, only};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// What a content script may send, as the text the page's world wrote,
/// handed on unread by the relay (ARCHITECTURE.md, "The shim–relay
/// channel"). Read through `PageWire`. Which frame it speaks for comes from
/// the browser's `sender`, never from the message.
#[derive(Debug)]
pub enum FromPage {
    /// `{"type": "updates", "batch": 7, "ops": […]}`: changes to the tools
    /// the frame publishes, in order. `batch` is the page's own number for
    /// the report, which the relay answers to.
    Updates { batch: u64, ops: Vec<Op> },
    /// A call that reached Toolgate's copy of a tool in the browser's own
    /// WebMCP (docs/agents.md, "The browser's own agent"): the page's own
    /// number for it, the tool, and the arguments the browser gave (`{}` when
    /// none). The relay sends it only where the browser has a WebMCP.
    NativeCall {
        call: u64,
        source: Source,
        name: String,
        arguments: Box<RawValue>,
    },
    /// The frame's page is about to call, through the browser's own WebMCP,
    /// tool `name` of a frame of `origin` in its tab, which that frame
    /// exposed to it (`exposedTo`), with these arguments: the page's own
    /// number for it, answered once the worker has weighed it
    /// (`decisions::exposed`; docs/agents.md, "Pages calling each other's
    /// tools"). The caller's origin is the browser's `sender`'s.
    ExposedCall {
        call: u64,
        exposed: crate::decisions::exposed::ExposedCall,
    },
    /// Where the browser has no WebMCP to list them (Toolgate's polyfill):
    /// the frame's page asks for the tools frames of `from_origins` in its
    /// tab expose to it (`getTools({fromOrigins})`; `decisions::exposed::tree`).
    ExposedTools {
        call: u64,
        from_origins: Vec<String>,
    },
    /// Where the browser has no WebMCP to carry it: the frame's page calls
    /// a tool a frame of another origin exposed to it, found where its
    /// listing said (`decisions::exposed::ExposedRun`).
    ExposedRun {
        call: u64,
        run: crate::decisions::exposed::ExposedRun,
    },
}

/// The most origins a page's `fromOrigins` is read with: more than any
/// tab's frames hold.
pub const FROM_ORIGINS: usize = 256;

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PageName {
    Updates,
    NativeCall,
    ExposedCall,
    ExposedTools,
    ExposedRun,
}

/// Every field any `FromPage` has, flat (see `crate::wire`; a `RawValue`
/// cannot be read through serde's internally tagged enums either).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageWire {
    #[serde(rename = "type")]
    message: PageName,
    batch: Option<u64>,
    ops: Option<Vec<Op>>,
    call: Option<u64>,
    source: Option<Source>,
    name: Option<String>,
    origin: Option<String>,
    arguments: Option<Box<RawValue>>,
    from_origins: Option<Vec<String>>,
    path: Option<Vec<u32>>,
}

impl<'de> Deserialize<'de> for FromPage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FromPage, D::Error> {
        let wire = PageWire::deserialize(d)?;
        FromPage::try_from(wire).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<PageWire> for FromPage {
    type Error = String;

    fn try_from(w: PageWire) -> Result<FromPage, String> {
        let present = [
            ("batch", w.batch.is_some()),
            ("ops", w.ops.is_some()),
            ("call", w.call.is_some()),
            ("source", w.source.is_some()),
            ("name", w.name.is_some()),
            ("origin", w.origin.is_some()),
            ("arguments", w.arguments.is_some()),
            ("from_origins", w.from_origins.is_some()),
            ("path", w.path.is_some()),
        ];
        Ok(match w.message {
            PageName::Updates => {
                only(&present, &["batch", "ops"])?;
                FromPage::Updates {
                    batch: needed(w.batch, "batch")?,
                    ops: needed(w.ops, "ops")?,
                }
            }
            PageName::NativeCall => {
                only(&present, &["call", "source", "name", "arguments"])?;
                FromPage::NativeCall {
                    call: needed(w.call, "call")?,
                    source: needed(w.source, "source")?,
                    name: needed(w.name, "name")?,
                    arguments: match w.arguments {
                        Some(arguments) => arguments,
                        None => RawValue::from_string("{}".into()).map_err(|e| e.to_string())?,
                    },
                }
            }
            PageName::ExposedCall => {
                only(&present, &["call", "origin", "name", "arguments"])?;
                FromPage::ExposedCall {
                    call: needed(w.call, "call")?,
                    exposed: crate::decisions::exposed::ExposedCall {
                        origin: needed(w.origin, "origin")?,
                        name: needed(w.name, "name")?,
                        arguments: needed(w.arguments, "arguments")?,
                    },
                }
            }
            PageName::ExposedTools => {
                only(&present, &["call", "from_origins"])?;
                let mut from_origins = needed(w.from_origins, "from_origins")?;
                from_origins.truncate(FROM_ORIGINS);
                FromPage::ExposedTools {
                    call: needed(w.call, "call")?,
                    from_origins,
                }
            }
            PageName::ExposedRun => {
                only(&present, &["call", "origin", "name", "path", "arguments"])?;
                FromPage::ExposedRun {
                    call: needed(w.call, "call")?,
                    run: crate::decisions::exposed::ExposedRun {
                        origin: needed(w.origin, "origin")?,
                        name: needed(w.name, "name")?,
                        path: needed(w.path, "path")?,
                        arguments: needed(w.arguments, "arguments")?,
                    },
                }
            }
        })
    }
}

/// Which page-named text the set-apart page asks to see shown (`ShownAs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShownKind {
    /// An area's name (a tool's first tag, or its name's first part).
    Area,
    /// A property's path in a tool's arguments.
    Argument,
}

/// What Toolgate's own pages (the palette popup, cards, the agent console)
/// may send. Answers to cards come only this way: no agent channel carries them.
/// Each variant has only its own fields: any other is refused.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FromUi {
    /// The palette of one tab.
    Palette { tab_id: TabId },
    /// A card's contents, for the card page.
    Card { card_id: u64 },
    /// A person's answer to a card, from the card page.
    Answer {
        card_id: u64,
        answer: crate::decisions::answers::Answer,
    },
    /// Opens (or reopens) a chat: the agent console's "New chat".
    OpenChat {
        chat_id: String,
        label: String,
        #[serde(default)]
        read_only: bool,
    },
    /// An agent request from the agent console, as its chat.
    Agent {
        chat_id: String,
        request: serde_json::Value,
    },
    /// The settings page: which agents are connected, allowed and refused.
    /// (No fields, as a struct variant: serde reads a unit variant of a
    /// tagged enum ignoring any other field.)
    Agents {},
    /// The settings page: lets an extension connect as an agent.
    AllowExtension {
        extension_id: String,
        #[serde(default)]
        label: String,
    },
    /// The settings page: no longer lets an extension connect.
    ForgetExtension { extension_id: String },
    /// The settings page's "Connect again" to toolgate-mcp.
    ConnectDesktop {},
    /// The settings page: the tabs loaded before Toolgate was installed or
    /// updated, which carry no shim and so are held to nothing (docs/rules.md).
    TabsWithoutToolgate {},
    /// "Set areas and tools apart": the tools seen on a site.
    SiteTools { site: String },
    /// The set-apart page: the properties a condition can look at, of each
    /// tool the site's open tabs publish (docs/rules.md, "Setting conditions
    /// and limits").
    ToolProperties { site: String },
    /// The set-apart page: page-named text its rules hold that no tool seen
    /// now names, as Toolgate shows it (`views::text::page_text_as`): an area
    /// with a rule and no tool seen, a property a stored condition tests.
    ShownAs { kind: ShownKind, texts: Vec<String> },
    /// The settings pages: the site rules' words, from the core
    /// (`views::rule_words`).
    RuleWords {},
    /// The settings page: the tools flagged for breaking their hints.
    Flags {},
    /// The settings page: whether each log of the audit is whole, and where
    /// it breaks (src/audit.rs).
    AuditChain {},
    /// The palette or the settings page: the person clears a tool's flag for
    /// breaking its hints (with no tool, the site's as a whole).
    ClearFlag {
        site: String,
        #[serde(default)]
        tool: Option<String>,
    },
    /// The settings page: one change of a site's rules, whole or not at all.
    ChangeRules {
        site: String,
        changes: Vec<crate::decisions::rules::Change>,
    },
}
