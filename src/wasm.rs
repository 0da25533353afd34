//! The binding between the core and the service worker: conversions only.

use crate::decisions::agent::{FrameCall, TabInfo};
use crate::decisions::answers::Answer;
use crate::messages::FromUi;
use crate::page::registry::Event;
use crate::page::schema::Checking;
use crate::toolgate::Toolgate;
use checked::{read_checked, write_step};
use serde::Serialize;
use wasm_bindgen::prelude::*;

mod audit;
mod checked;
mod exposed;
mod otlp;
mod page;
mod schema;
mod watch;

use watch::Witness;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
    crate::page::schema::use_validator(schema::check_arguments);
}

/// The JSON-RPC error reply, as JSON text, that the shell gives an agent
/// (`RpcError::from_shell`): every such error is written in the core.
#[wasm_bindgen(js_name = "errorReply")]
pub fn error_reply(kind: &str, id: &str, detail: &str) -> Result<String, JsError> {
    let id: serde_json::Value = read(id, "request id")?;
    let error =
        crate::protocol::RpcError::from_shell(kind, detail).map_err(|e| JsError::new(&e))?;
    Ok(crate::protocol::error_reply(&id, &error).text().to_owned())
}

// Values cross the boundary as JSON text in plain strings: the shell turns
// them into JS values with the JS engine's own `JSON`, the core with
// serde_json. It is faster than walking JS objects field by field
// (serde-wasm-bindgen), and the shell calls `JSON` itself rather than
// through js-sys, whose calls each cost a closure and a copy of their
// arguments (ARCHITECTURE.md, "The design card's crates").

/// An agent's arguments checked against a tool's schema (both JSON text),
/// on the checker's own thread (extension/checker/): the verdict as JSON text.
#[wasm_bindgen(js_name = "checkArguments")]
pub fn check_arguments(schema: &str, arguments: &str) -> Result<String, JsError> {
    write(&crate::page::schema::check_texts(schema, arguments))
}

/// Writes a value as JSON text for the shell.
fn write<T: Serialize>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|e| JsError::new(&e.to_string()))
}

/// Reads JSON text from the shell as `T`.
fn read<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, JsError> {
    serde_json::from_str(text).map_err(|e| JsError::new(&format!("bad {what}: {e}")))
}

#[derive(Serialize)]
struct Applied {
    results: Vec<crate::page::registry::Registered>,
    effects: Vec<crate::page::registry::Effect>,
}

/// Page text as Toolgate's pages show it (`views::text::page_text_as`), for
/// the agent console, which gets it raw as an agent does, and the set-apart
/// page's areas and properties no open tab publishes.
#[wasm_bindgen(js_name = "pageText")]
pub fn page_text(text: &str, kind: &str) -> Result<String, JsError> {
    crate::views::text::page_text_as(text, kind)
        .ok_or_else(|| JsError::new(&format!("no such kind of page text: {kind}")))
}

/// Why a source's content is untrusted (`page::untrusted::Found`, or a
/// chat's `Source`, as `_meta.toolgate` gives them), in the words of the
/// cards (docs/cards.md, "After untrusted content"): for the agent console
/// and the audit, which show it without writing the words again.
#[wasm_bindgen(js_name = "untrustedWhy")]
pub fn untrusted_why(found: &str) -> Result<String, JsError> {
    let found: crate::page::untrusted::Found = read(found, "untrusted content")?;
    Ok(found.because.plain())
}

/// Parses a message from Toolgate's own pages into its one typed form, or
/// fails with a clear error. The shell routes on the parsed `type`.
#[wasm_bindgen(js_name = "parseUiMessage")]
pub fn parse_ui_message(message: &str) -> Result<String, JsError> {
    let parsed: FromUi = read(message, "ui message")?;
    write(&parsed)
}

/// One change of `site`'s rules from the settings page, checked against the
/// stored rule book and the tools seen on the site (`[SeenTool]`), all JSON
/// text: the whole new rule book, for the shell to store, or why the change
/// was refused (nothing of it applies).
/// When Toolgate is managed, the administrator's rule book bounds it (JSON
/// text, else null). `schemas` are the site's tools' schemas by name
/// (`Core::siteSchemas`), which conditions are checked against.
#[wasm_bindgen(js_name = "changeRules")]
pub fn change_rules(
    book: &str,
    site: &str,
    changes: &str,
    seen: &str,
    admin: &str,
    schemas: &str,
) -> Result<String, JsError> {
    let mut book: crate::decisions::rules::RuleBook = read(book, "rule book")?;
    let changes: Vec<crate::decisions::rules::Change> = read(changes, "rule changes")?;
    let seen: Vec<crate::decisions::rules::SeenTool> = read(seen, "tools seen")?;
    let admin: Option<crate::decisions::rules::RuleBook> = read(admin, "administrator's rules")?;
    let schemas: std::collections::BTreeMap<String, serde_json::Value> =
        read(schemas, "tools' schemas")?;
    book.change_with(site, &changes, &seen, admin.as_ref(), &schemas)
        .map_err(|e| JsError::new(&e.to_string()))?;
    write(&book)
}

/// The site rules' words and the class labels (`views::rule_words`), as
/// JSON text: what the settings pages show, from one place.
#[wasm_bindgen(js_name = "ruleWords")]
pub fn rule_words() -> Result<String, JsError> {
    write(&crate::views::rule_words::rule_words())
}

/// Parses a message from a desktop agent's session (toolgate-mcp's host,
/// over native messaging) into its one typed form, or fails with a clear
/// error. Every message from an agent channel is read here first.
#[wasm_bindgen(js_name = "parseAgentMessage")]
pub fn parse_agent_message(message: &str) -> Result<String, JsError> {
    let parsed: crate::protocol::bridge::FromAgent = read(message, "agent message")?;
    write(&parsed)
}

/// The core as the service worker holds it: a cache of the registry and the
/// agent session it persisted in `chrome.storage.session`.
#[wasm_bindgen]
pub struct Core(Toolgate);

#[wasm_bindgen]
impl Core {
    /// Rebuilds the core from the stored tools (their keys, and beside them
    /// their JSON text, as `Effect::Store` gave them) and the stored session
    /// (JSON text, as `sessionRecord` gave it).
    #[wasm_bindgen(constructor)]
    pub fn new(
        keys: Vec<String>,
        records: Vec<String>,
        session: Option<String>,
    ) -> Result<Core, JsError> {
        if keys.len() != records.len() {
            return Err(JsError::new("bad stored tools: a key for each record"));
        }
        Toolgate::from_storage(keys.into_iter().zip(records), session.as_deref())
            .map(Core)
            .map_err(|e| JsError::new(&e))
    }

    /// The agent session as it must be stored, or `undefined` when what
    /// must be stored did not change: JSON text, since its maps are keyed by
    /// numbers, which JS objects cannot be.
    #[wasm_bindgen(js_name = "sessionRecord")]
    pub fn session_record(&mut self) -> Result<Option<String>, JsError> {
        self.0.session.record().map_err(|e| JsError::new(&e))
    }

    /// Whether the agent session must be stored again: cheap, unlike
    /// `sessionRecord`, which writes the whole session out.
    #[wasm_bindgen(js_name = "sessionUnsaved")]
    pub fn session_unsaved(&self) -> bool {
        self.0.session.unsaved()
    }

    /// An agent's JSON-RPC request, as chat `chat`. `tabs` may be absent:
    /// the step is then `need_tabs` if the request needs them; `checked`,
    /// the checker's verdict (`Checked` as JSON text) the request came back
    /// with, may be too: the step is then `need_check` if a call's
    /// arguments need one (ARCHITECTURE.md, "The arguments' checker").
    pub fn agent(
        &mut self,
        chat: &str,
        request: &str,
        tabs: Option<String>,
        checked: Option<String>,
        now_ms: f64,
    ) -> Result<String, JsError> {
        let tabs: Option<Vec<TabInfo>> = match tabs {
            Some(tabs) => Some(read(&tabs, "tabs")?),
            None => None,
        };
        let (checked, resume) = read_checked(chat, checked)?.unzip();
        let checking = Checking::OffThread(checked.as_ref());
        let (tabs, now_ms) = (tabs.as_deref(), now_ms as u64);
        let step = match (resume.flatten(), &checked) {
            // Taken up again with its verdict, `request` not read again.
            (Some(resume), Some(checked)) => {
                let arguments = &checked.arguments;
                (self.0).request_resumed(chat, &resume, arguments, tabs, checking, now_ms)
            }
            _ => self
                .0
                .request_checked(chat, request, tabs, checking, now_ms),
        };
        write_step(chat, step)
    }

    /// A call that reached Toolgate's native copy of a tool in one frame,
    /// as chat `chat`'s request `request_id` (JSON text). `call` is a
    /// `FrameCall` as JSON text, its frame filled in from the browser's sender.
    #[wasm_bindgen(js_name = "frameCall")]
    pub fn frame_call(
        &mut self,
        chat: &str,
        request_id: &str,
        call: &str,
        checked: Option<String>,
        now_ms: f64,
    ) -> Result<String, JsError> {
        let id: serde_json::Value = read(request_id, "request id")?;
        let call: FrameCall = read(call, "frame call")?;
        let checked = read_checked(chat, checked)?.map(|(checked, _)| checked);
        let checking = Checking::OffThread(checked.as_ref());
        write_step(
            chat,
            self.0.frame_call(chat, &id, &call, checking, now_ms as u64),
        )
    }

    /// Withdraws request `request_id` (JSON text) of `chat` from the card it
    /// waits on; with no id, every waiting request of the chat.
    pub fn withdraw(&mut self, chat: &str, request_id: Option<String>) -> Result<String, JsError> {
        let id: Option<serde_json::Value> = match request_id {
            Some(text) => Some(read(&text, "request id")?),
            None => None,
        };
        write(&self.0.withdraw(chat, id.as_ref()))
    }

    /// A person's answer to a card.
    pub fn answer(
        &mut self,
        card_id: f64,
        answer: &str,
        tabs: &str,
        now_ms: f64,
    ) -> Result<String, JsError> {
        let answer: Answer = read(answer, "answer")?;
        let tabs: Vec<TabInfo> = read(tabs, "tabs")?;
        let answered = self
            .0
            .answer(card_id as u64, answer, &tabs, now_ms as u64)
            .map_err(|e| JsError::new(&e))?;
        write(&answered)
    }

    /// The card a window shows, if it still waits (so that the shell can
    /// read it before its closing answer is taken: the audit says what it was).
    #[wasm_bindgen(js_name = "cardOfWindow")]
    pub fn card_of_window(&self, window_id: f64) -> Option<f64> {
        self.0
            .session
            .card_of_window(window_id as i64)
            .map(|card_id| card_id as f64)
    }

    /// A card's window was closed: it counts as the card's closing answer.
    /// Returns `undefined` when the window showed no waiting card.
    #[wasm_bindgen(js_name = "windowClosed")]
    pub fn window_closed(
        &mut self,
        window_id: f64,
        tabs: &str,
        now_ms: f64,
    ) -> Result<Option<String>, JsError> {
        let tabs: Vec<TabInfo> = read(tabs, "tabs")?;
        match self
            .0
            .window_closed(window_id as i64, &tabs, now_ms as u64)
            .map_err(|e| JsError::new(&e))?
        {
            Some(answered) => write(&answered).map(Some),
            None => Ok(None),
        }
    }

    /// Records the window a card is shown in; returns
    /// whether the card still waits (it may have been withdrawn meanwhile).
    #[wasm_bindgen(js_name = "cardOpened")]
    pub fn card_opened(&mut self, card_id: f64, window_id: f64) -> bool {
        self.0.session.card_opened(card_id as u64, window_id as i64)
    }

    /// The ids of the cards waiting with no window recorded
    /// (`Session::cards_without_window`).
    #[wasm_bindgen(js_name = "cardsWithoutWindow")]
    pub fn cards_without_window(&self) -> Vec<f64> {
        self.0
            .session
            .cards_without_window()
            .into_iter()
            .map(|id| id as f64)
            .collect()
    }

    /// A card's contents, or `undefined` if it no longer waits.
    pub fn card(&self, card_id: f64, tabs: &str, now_ms: f64) -> Result<Option<String>, JsError> {
        let tabs: Vec<TabInfo> = read(tabs, "tabs")?;
        match self.0.card(card_id as u64, &tabs, now_ms as u64) {
            Some(card) => write(&card).map(Some),
            None => Ok(None),
        }
    }

    /// A tool's outcome from the page: `result`, the result's JSON text as
    /// the page wrote it, or `failure`, why there is none (given, it wins).
    /// `taken`: its agent waits for the reply now (it is not kept).
    /// Returns the reply (the call's chat and request are the ones the shell
    /// ran it for), or `undefined` for an unknown call.
    pub fn finish(
        &mut self,
        call_id: f64,
        result: Option<String>,
        failure: Option<String>,
        cap: f64,
        taken: bool,
        now_ms: f64,
    ) -> Option<String> {
        self.0.finish(
            call_id as u64,
            result.as_deref(),
            failure,
            cap as usize,
            taken,
            now_ms as u64,
        )
    }

    /// Results read for untrusted content (docs/cards.md, "After untrusted
    /// content"), or not: only the benchmark of what that costs turns it
    /// off (`Session::unguarded`).
    #[wasm_bindgen(js_name = "guardUntrusted")]
    pub fn guard_untrusted(&mut self, on: bool) {
        self.0.session.unguarded = !on;
    }

    /// The flags of tools that broke their hints, as stored (JSON text).
    #[wasm_bindgen(js_name = "setFlags")]
    pub fn set_flags(&mut self, record: &str) -> Result<(), JsError> {
        self.0.set_flags(record).map_err(|e| JsError::new(&e))
    }

    /// What a call was seen doing: `{watch, overlapped}` as JSON text
    /// (`watch` is the call's `Run::watch`) and what `seen` witnessed;
    /// `call_id` if the call still runs. Returns the tool's new flag
    /// (`Flagged`) as JSON text, if it broke its hints.
    pub fn observe(
        &mut self,
        call_id: Option<f64>,
        conduct: &str,
        seen: &Witness,
        now_ms: f64,
    ) -> Result<Option<String>, JsError> {
        #[derive(serde::Deserialize)]
        struct Observed {
            watch: crate::page::conduct::Watch,
            #[serde(default)]
            overlapped: bool,
        }
        let observed: Observed = read(conduct, "what a call was seen doing")?;
        let flagged = self.0.observe(
            call_id.map(|id| id as u64),
            &observed.watch,
            &seen.0,
            observed.overlapped,
            now_ms as u64,
        );
        flagged.map(|f| write(&f)).transpose()
    }

    /// Every flag, for the settings page (`[FlagShown]` as JSON text).
    #[wasm_bindgen(js_name = "flagList")]
    pub fn flag_list(&self) -> Result<String, JsError> {
        write(&self.0.flag_list())
    }

    /// The person cleared a flag: the record of flags to store, or
    /// `undefined` if there was none.
    #[wasm_bindgen(js_name = "clearFlag")]
    pub fn clear_flag(&mut self, site: &str, tool: Option<String>) -> Option<String> {
        self.0.clear_flag(site, tool.as_deref())
    }

    /// An agent took its reply directly: it need not be kept. Whether the
    /// session changed, `sessionUnsaved` says.
    pub fn collected(&mut self, chat: &str, request_id: &str) -> Result<(), JsError> {
        let id: serde_json::Value = read(request_id, "request id")?;
        self.0.session.collected(chat, &id);
        Ok(())
    }

    /// Closes the cards whose deadline passed: `[Expired]` as JSON text.
    pub fn expire(&mut self, now_ms: f64) -> Result<String, JsError> {
        write(&self.0.expire(now_ms as u64))
    }

    /// When the next card stops waiting (ms since the epoch), if one waits.
    #[wasm_bindgen(js_name = "nextDeadline")]
    pub fn next_deadline(&self) -> Option<f64> {
        self.0.next_deadline().map(|at| at as f64)
    }

    /// The tools `site` publishes in the open tabs (`[SeenTool]` as JSON text).
    #[wasm_bindgen(js_name = "siteTools")]
    pub fn site_tools(&self, site: &str) -> Result<String, JsError> {
        write(&crate::decisions::rules::site_tools(&self.0.registry, site))
    }

    /// The schemas (`inputSchema`) of the tools `site` publishes in the open
    /// tabs, by name, as JSON text: a tool's conditions are checked against
    /// its schema when set (docs/rules.md, "Conditions on a tool's arguments").
    #[wasm_bindgen(js_name = "siteSchemas")]
    pub fn site_schemas(&self, site: &str) -> Result<String, JsError> {
        write(&crate::decisions::rules::site_schemas(
            &self.0.registry,
            site,
        ))
    }

    /// The properties a condition can look at, of each tool `site` publishes
    /// in the open tabs, by name, as JSON text (`{name: [{path, types}]}`):
    /// what the set-apart page offers (docs/rules.md, "Setting conditions
    /// and limits").
    #[wasm_bindgen(js_name = "siteProperties")]
    pub fn site_properties(&self, site: &str) -> Result<String, JsError> {
        let schemas = crate::decisions::rules::site_schemas(&self.0.registry, site);
        write(&crate::decisions::rules::conditions::properties_of(
            &schemas,
        ))
    }

    /// The tools the set-apart page lists for `site`: `tools` (`[SeenTool]`
    /// as JSON text, those seen there) and each tool its rules set apart,
    /// as it was when set (`[SeenTool]` as JSON text).
    #[wasm_bindgen(js_name = "toolsListed")]
    pub fn tools_listed(&self, site: &str, tools: &str) -> Result<String, JsError> {
        let tools: Vec<crate::decisions::rules::SeenTool> = read(tools, "tools seen")?;
        write(&self.0.session.rules.listed(site, &tools))
    }

    /// What agents may do with each of `tools` (`[SeenTool]` as JSON text)
    /// under `site`'s rules as they hold now, the administrator's bounds
    /// included (`[Standing]` as JSON text): the set-apart page's words.
    #[wasm_bindgen(js_name = "toolStandings")]
    pub fn tool_standings(&self, site: &str, tools: &str) -> Result<String, JsError> {
        let tools: Vec<crate::decisions::rules::SeenTool> = read(tools, "tools seen")?;
        write(&self.0.tools_shown(site, &tools))
    }

    /// The site rules as JSON text (docs/rules.md), whole: the person's,
    /// and the administrator's when Toolgate is managed (else null), which
    /// bound them.
    #[wasm_bindgen(js_name = "setRules")]
    pub fn set_rules(&mut self, rules: &str, admin: &str) -> Result<(), JsError> {
        self.0.set_rules(rules, admin).map_err(|e| JsError::new(&e))
    }

    #[wasm_bindgen(js_name = "openChat")]
    pub fn open_chat(&mut self, chat: &str, label: &str, read_only: bool) -> Result<(), JsError> {
        self.0
            .session
            .open_chat(chat, label, read_only)
            .map_err(|e| JsError::new(&e))
    }

    #[wasm_bindgen(js_name = "closeChat")]
    pub fn close_chat(&mut self, chat: &str) {
        self.0.session.close_chat(chat);
    }

    /// A browser event (navigation, frames, tab closed).
    pub fn apply(&mut self, event: &str) -> Result<String, JsError> {
        let event: Event = read(event, "event")?;
        self.apply_event(event)
    }

    /// The palette of one tab.
    pub fn palette(&self, tab_id: f64) -> Result<String, JsError> {
        // Tab ids are small integers; JS hands them over as numbers.
        write(&crate::views::palette::palette_under(
            &self.0.registry,
            tab_id as i64,
            &self.0.session.rules,
        ))
    }

    /// Ids of the tabs that publish tools.
    #[wasm_bindgen(js_name = "tabIds")]
    pub fn tab_ids(&self) -> Vec<f64> {
        // Tab ids are small integers, exactly representable as f64.
        self.0.registry.tab_ids().map(|id| id as f64).collect()
    }

    fn apply_event(&mut self, event: Event) -> Result<String, JsError> {
        let (results, effects) = self.0.apply(event);
        write(&Applied { results, effects })
    }
}

// talc instead of the standard library's dlmalloc: smaller and a little
// faster per agent call (benches/JOURNAL.md, "Choices the code keeps").
// The worker is single-threaded, which is what `TalckWasm` assumes.
#[global_allocator]
// SAFETY: a Wasm module in a service worker runs on one thread only.
static ALLOCATOR: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };
