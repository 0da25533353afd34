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
use crate::protocol::Resume;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;

/// Checks asked about and not yet answered, kept at most (the oldest goes;
/// its verdict, if it comes, is no one's, and the call is asked again).
const ASKED_KEPT: usize = 16;

/// A check asked about: its ticket, the chat that asked, its texts, and the
/// agent's call to take up again with the verdict.
struct Asked {
    ticket: u32,
    chat: String,
    schema: String,
    arguments: String,
    resume: Option<Resume>,
}

/// Arguments longer than this go to the shell apart from their `run`
/// step's JSON (`runArguments`), not escaped into it and read back: a
/// 100 KB call's escaping was a seventh of the worker's time in figure
/// 13a's load (benches/JOURNAL.md).
const APART_BYTES: usize = 4 << 10;

thread_local! {
    /// Run steps' arguments handed apart, by call, until the shell takes them.
    static RUNS: RefCell<VecDeque<(u64, String)>> = const { RefCell::new(VecDeque::new()) };
    static ASKED: RefCell<VecDeque<Asked>> = const { RefCell::new(VecDeque::new()) };
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

/// `step`, chat `chat`'s, as JSON text for the shell; a `need_check` with
/// its ticket, its texts kept for the verdict; a `run` whose arguments are
/// long without them, kept for `runArguments`.
pub(super) fn write_step(chat: &str, step: Step) -> Result<String, JsError> {
    let (check, resume) = match step {
        Step::NeedCheck { check, resume } => (check, resume),
        Step::Run { mut run } if run.arguments.len() > APART_BYTES => {
            let arguments = std::mem::take(&mut run.arguments);
            RUNS.with(|runs| {
                let mut runs = runs.borrow_mut();
                if runs.len() == ASKED_KEPT {
                    runs.pop_front();
                }
                runs.push_back((run.call_id, arguments));
            });
            return super::write(&Step::Run { run });
        }
        step => return super::write(&step),
    };
    let ticket = NEXT.with(|next| next.replace(next.get().wrapping_add(1)));
    ASKED.with(|asked| {
        let mut asked = asked.borrow_mut();
        if asked.len() == ASKED_KEPT {
            asked.pop_front();
        }
        asked.push_back(Asked {
            ticket,
            chat: chat.to_owned(),
            schema: check.schema,
            arguments: check.arguments,
            resume,
        });
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
        let asked = asked.iter().find(|a| a.ticket == ticket)?;
        Some(if arguments {
            asked.arguments.clone()
        } else {
            asked.schema.clone()
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

/// The checker's verdict the shell brought back for chat `chat` (`{ticket,
/// verdict, …}` as JSON text), with the texts its ticket was given for, and
/// the call to take up again; none for a ticket no longer kept, or another
/// chat's.
pub(super) fn read_checked(
    chat: &str,
    checked: Option<String>,
) -> Result<Option<(Checked, Option<Resume>)>, JsError> {
    let Some(text) = checked else {
        return Ok(None);
    };
    let answered: Answered = super::read(&text, "checked")?;
    let asked = ASKED.with(|asked| {
        let mut asked = asked.borrow_mut();
        let at = asked
            .iter()
            .position(|a| a.ticket == answered.ticket && a.chat == chat)?;
        asked.remove(at)
    });
    Ok(asked.map(|asked| {
        let checked = Checked {
            schema: asked.schema,
            arguments: asked.arguments,
            verdict: answered.verdict,
        };
        (checked, asked.resume)
    }))
}

/// The arguments of call `call_id`'s `run` step, handed apart from its JSON
/// (taken once); none for a call whose step carried them.
#[wasm_bindgen(js_name = "runArguments")]
pub fn run_arguments(call_id: f64) -> Option<String> {
    RUNS.with(|runs| {
        let mut runs = runs.borrow_mut();
        let at = runs.iter().position(|(id, _)| *id as f64 == call_id)?;
        runs.remove(at).map(|(_, arguments)| arguments)
    })
}
