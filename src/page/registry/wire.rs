//! How a page's ops and the shell's events are read: one flat reader per
//! tagged type (see `crate::wire`), turned into `Op` and `Event`.

use super::*;

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum OpName {
    Register,
    Unregister,
    Clear,
    Provide,
    Reset,
}

/// Every field any `Op` has, flat, as the page writes them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OpWire {
    op: OpName,
    decl: Option<Box<RawDeclaration>>,
    source: Option<Source>,
    kind: Option<Kind>,
    name: Option<String>,
    decls: Option<Vec<RawDeclaration>>,
}

impl TryFrom<OpWire> for Op {
    type Error = String;

    fn try_from(w: OpWire) -> Result<Op, String> {
        let present = [
            ("decl", w.decl.is_some()),
            ("source", w.source.is_some()),
            ("kind", w.kind.is_some()),
            ("name", w.name.is_some()),
            ("decls", w.decls.is_some()),
        ];
        Ok(match w.op {
            OpName::Register => {
                only(&present, &["decl"])?;
                Op::Register {
                    decl: needed(w.decl, "decl")?,
                }
            }
            OpName::Unregister => {
                only(&present, &["source", "kind", "name"])?;
                Op::Unregister {
                    source: needed(w.source, "source")?,
                    kind: needed(w.kind, "kind")?,
                    name: needed(w.name, "name")?,
                }
            }
            OpName::Clear => {
                only(&present, &["source"])?;
                Op::Clear {
                    source: needed(w.source, "source")?,
                }
            }
            OpName::Provide => {
                only(&present, &["decls"])?;
                Op::Provide {
                    decls: needed(w.decls, "decls")?,
                }
            }
            OpName::Reset => {
                only(&present, &[])?;
                Op::Reset
            }
        })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum EventName {
    Page,
    Navigated,
    LiveDocuments,
    TabClosed,
}

/// Every field any `Event` has, flat.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EventWire {
    #[serde(rename = "type")]
    event: EventName,
    from: Option<FrameRef>,
    ops: Option<Vec<Op>>,
    tab_id: Option<TabId>,
    frame_id: Option<FrameId>,
    document_id: Option<String>,
    documents: Option<Vec<(FrameId, String)>>,
}

impl TryFrom<EventWire> for Event {
    type Error = String;

    fn try_from(w: EventWire) -> Result<Event, String> {
        let present = [
            ("from", w.from.is_some()),
            ("ops", w.ops.is_some()),
            ("tab_id", w.tab_id.is_some()),
            ("frame_id", w.frame_id.is_some()),
            ("document_id", w.document_id.is_some()),
            ("documents", w.documents.is_some()),
        ];
        Ok(match w.event {
            EventName::Page => {
                only(&present, &["from", "ops"])?;
                Event::Page {
                    from: needed(w.from, "from")?,
                    ops: needed(w.ops, "ops")?,
                }
            }
            EventName::Navigated => {
                only(&present, &["tab_id", "frame_id", "document_id"])?;
                Event::Navigated {
                    tab_id: needed(w.tab_id, "tab_id")?,
                    frame_id: needed(w.frame_id, "frame_id")?,
                    document_id: needed(w.document_id, "document_id")?,
                }
            }
            EventName::LiveDocuments => {
                only(&present, &["tab_id", "documents"])?;
                Event::LiveDocuments {
                    tab_id: needed(w.tab_id, "tab_id")?,
                    documents: needed(w.documents, "documents")?,
                }
            }
            EventName::TabClosed => {
                only(&present, &["tab_id"])?;
                Event::TabClosed {
                    tab_id: needed(w.tab_id, "tab_id")?,
                }
            }
        })
    }
}
