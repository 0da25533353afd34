//! The checker's verdicts across the binding (ARCHITECTURE.md, "The
//! arguments' checker"). A `need_check` step names a `ticket` and the site;
//! the shell takes the schema's and the arguments' texts as plain strings
//! (`askedSchema`, `askedArguments`: not as JSON inside the step's JSON,
//! whose escaping and reading again was a fifth of the worker's time during
//! figure 13a's load), hands them to the checker, and brings the verdict
//! back with the ticket only; the texts it was asked about are taken from
//! here. The core still takes a verdict only for the exact texts it asks about.

use crate::decisions::agent::Step;
use crate::page::schema::{Checked, Verdict};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;

/// Checks asked about and not yet answered, kept at most (the oldest goes;
/// its verdict, if it comes, is no one's, and the call is asked again).
const ASKED_KEPT: usize = 16;

thread_local! {
    static ASKED: RefCell<VecDeque<(u32, String, String)>> = const { RefCell::new(VecDeque::new()) };
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// A `need_check` step as the shell reads it: its texts apart.
#[derive(Serialize)]
struct Ticketed<'a> {
    step: &'static str,
    ticket: u32,
    site: &'a str,
}

#[derive(Deserialize)]
struct Answered {
    ticket: u32,
    #[serde(flatten)]
    verdict: Verdict,
}

/// `step` as JSON text for the shell; a `need_check` with its ticket, its
/// texts kept for the verdict.
pub(super) fn write_step(step: Step) -> Result<String, JsError> {
    let Step::NeedCheck { check } = step else {
        return super::write(&step);
    };
    let ticket = NEXT.with(|next| next.replace(next.get().wrapping_add(1)));
    ASKED.with(|asked| {
        let mut asked = asked.borrow_mut();
        if asked.len() == ASKED_KEPT {
            asked.pop_front();
        }
        asked.push_back((ticket, check.schema, check.arguments));
    });
    super::write(&Ticketed {
        step: "need_check",
        ticket,
        site: &check.site,
    })
}

/// The schema's text, or the arguments' (`arguments`), that check `ticket`
/// asks about; none for a ticket no longer kept.
fn asked(ticket: u32, arguments: bool) -> Option<String> {
    ASKED.with(|asked| {
        let asked = asked.borrow();
        let (_, schema, args) = asked.iter().find(|(t, ..)| *t == ticket)?;
        Some(if arguments {
            args.clone()
        } else {
            schema.clone()
        })
    })
}

/// The schema's text check `ticket` asks about (ARCHITECTURE.md, "The
/// arguments' checker").
#[wasm_bindgen(js_name = "askedSchema")]
pub fn asked_schema(ticket: u32) -> Option<String> {
    asked(ticket, false)
}

/// The arguments' text check `ticket` asks about.
#[wasm_bindgen(js_name = "askedArguments")]
pub fn asked_arguments(ticket: u32) -> Option<String> {
    asked(ticket, true)
}

/// The checker's verdict the shell brought back (`{ticket, verdict, …}` as
/// JSON text), with the texts its ticket was given for; none for a ticket
/// no longer kept.
pub(super) fn read_checked(checked: Option<String>) -> Result<Option<Checked>, JsError> {
    let Some(text) = checked else {
        return Ok(None);
    };
    let answered: Answered = super::read(&text, "checked")?;
    let asked = ASKED.with(|asked| {
        let mut asked = asked.borrow_mut();
        let at = asked
            .iter()
            .position(|(ticket, ..)| *ticket == answered.ticket)?;
        asked.remove(at)
    });
    Ok(asked.map(|(_, schema, arguments)| Checked {
        schema,
        arguments,
        verdict: answered.verdict,
    }))
}
