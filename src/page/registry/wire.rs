//! How a page's ops are read: one flat reader (see `crate::wire`), turned
//! into `Op`.

use super::*;
use crate::wire::{needed, only};

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
