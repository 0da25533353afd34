//! Everything the service worker holds of the core: the registry and the
//! agent session, rebuilt from what the worker stored, and each request,
//! answer and outcome taken with the world the worker sees. The binding
//! (src/wasm.rs) converts values into and out of these calls, nothing more.

use crate::decisions::agent::{
    page_outcome, Answered, Expired, FrameCall, Session, Step, TabInfo, Withdrawn, World,
};
use crate::decisions::answers::Answer;
use crate::decisions::exposed::tree::{self, Listed, Listener, Tree};
use crate::decisions::exposed::{ExposedCall, ExposedRun, PageCall, Passes};
use crate::decisions::lifecycle::changes::{self, Before, ToolChange};
use crate::decisions::rules::RuleBook;
use crate::decisions::rules::{SeenTool, Standing};
use crate::page::conduct::{Broken, Conduct, Watch, Witnessed, SEEN_CAP};
use crate::page::registry::{Effect, Event, Frame, FrameRef, Op, Registered, Registry};
use crate::page::schema::Checking;
use crate::protocol::Resume;
use crate::views::cards::{self, Card};
use crate::views::text::{page_line, Line, NAME_CAP};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A page's report applied: the answers to its registrations, what the
/// shell must do, and the origins whose view of its exposed tools changed.
pub type Applied = (Vec<Registered>, Vec<Effect>, Vec<String>);

/// The registry and the agent session, as one worker holds them.
#[derive(Debug, Default)]
pub struct Toolgate {
    pub registry: Registry,
    pub session: Session,
    /// What running calls were seen doing, for their replies (`observe`).
    conduct: BTreeMap<u64, Conduct>,
    /// Pages' calls of tools other origins exposed to them, announced and
    /// not yet reached (`decisions::exposed`).
    passes: Passes,
    /// Each frame's changes of its tools logged this minute (`changes::Log`).
    tool_changes: changes::Log,
}

/// A flag as the settings page lists it (`Toolgate::flag_list`).
#[derive(Debug, PartialEq, Serialize)]
pub struct FlagShown {
    pub site: String,
    /// The tool's name, the key its flag is cleared by.
    pub tool: Option<String>,
    /// The same as shown (escaped, cut).
    pub tool_shown: Option<String>,
    /// The flag in plain words, the page's part escaped (`views::text`).
    pub text: String,
    /// The same as a line: Toolgate's words and the page's part apart.
    pub line: Line,
    pub at_ms: u64,
}

/// A tool seen on a site as the set-apart page shows it: its standing, and
/// its name and area as page text is shown (escaped, cut: docs/cards.md,
/// "How page text is shown"), so that two areas whose names differ only in
/// hidden characters read as different. The raw name and area stay the
/// keys the rules are set by.
#[derive(Debug, PartialEq, Serialize)]
pub struct ToolShown {
    #[serde(flatten)]
    pub standing: Standing,
    pub name_shown: String,
    pub area_shown: String,
}

/// A flag's words as a line: Toolgate's words, and what the page chose
/// (`Broken::to`) escaped and apart.
fn flag_line(broken: &Broken) -> Line {
    let (head, tail) = broken.around();
    let line = Line::ours(head).quote(page_line(&broken.to, SEEN_CAP));
    if tail.is_empty() {
        line
    } else {
        line.say(tail)
    }
}

/// A tool flagged for breaking its hints: what the shell stores (the whole
/// record of flags, `Flags`, as JSON text) and audits.
#[derive(Debug, PartialEq, Serialize)]
pub struct Flagged {
    pub site: String,
    pub tool: String,
    pub said: String,
    /// In plain words, the page's part escaped and cut (`views::text`).
    pub text: String,
    /// The same as a line: Toolgate's words and the page's part apart.
    pub line: Line,
    pub record: String,
}

impl Toolgate {
    /// Rebuilds the core from the stored tools, each (key, JSON text), and
    /// the stored session (as `Effect::Store` and `Session::record` wrote
    /// them); each tab's tools are read when first needed (`Registry::load`).
    /// A new core is a new worker: calls the old one was running are lost,
    /// and their agents are told so (`Session::restarted`).
    ///
    /// # Errors
    /// When a stored tool's key or the session cannot be read.
    pub fn from_storage<K: AsRef<str>, T: Into<String>>(
        tools: impl IntoIterator<Item = (K, T)>,
        session: Option<&str>,
    ) -> Result<Toolgate, String> {
        let registry = Registry::load(tools)?;
        let mut session: Session = match session {
            Some(text) => {
                serde_json::from_str(text).map_err(|e| format!("bad stored session: {e}"))?
            }
            None => Session::default(),
        };
        session.restarted();
        Ok(Toolgate {
            registry,
            session,
            conduct: BTreeMap::new(),
            passes: Passes::default(),
            tool_changes: changes::Log::default(),
        })
    }

    /// The site rules (docs/rules.md) as JSON text, as the shell keeps them
    /// in `chrome.storage.local`, bounded by the administrator's (JSON text,
    /// `null` when Toolgate is not managed): they apply from every agent's
    /// next request, and to the requests waiting on cards when answered.
    ///
    /// # Errors
    /// When a text is not a rule book; the rules in force stay as they were.
    pub fn set_rules(&mut self, text: &str, admin: &str) -> Result<(), String> {
        let own: RuleBook =
            serde_json::from_str(text).map_err(|e| format!("bad site rules: {e}"))?;
        let admin: Option<RuleBook> =
            serde_json::from_str(admin).map_err(|e| format!("bad administrator's rules: {e}"))?;
        self.session.rules = match admin {
            Some(admin) => own.bounded_by(&admin),
            None => own,
        };
        Ok(())
    }

    /// Closes the rule cards whose 10 minutes passed by `now_ms` (docs/rules.md).
    pub fn expire(&mut self, now_ms: u64) -> Vec<Expired> {
        self.session.expire(now_ms)
    }

    /// When the next card stops waiting, for the shell's alarm.
    pub fn next_deadline(&self) -> Option<u64> {
        self.session.next_deadline()
    }

    /// A page's or the browser's event, applied to the registry.
    pub fn apply(&mut self, event: Event) -> (Vec<Registered>, Vec<Effect>) {
        self.registry.apply(event)
    }

    /// An agent's JSON-RPC request, as chat `chat`, its arguments checked
    /// in place (natively).
    pub fn request(
        &mut self,
        chat: &str,
        request: &str,
        tabs: Option<&[TabInfo]>,
        now_ms: u64,
    ) -> Step {
        self.request_checked(chat, request, tabs, Checking::InPlace, now_ms)
    }

    /// An agent's JSON-RPC request, as chat `chat`, its arguments checked as
    /// `checking` says (ARCHITECTURE.md, "The arguments' checker").
    pub fn request_checked(
        &mut self,
        chat: &str,
        request: &str,
        tabs: Option<&[TabInfo]>,
        checking: Checking<'_>,
        now_ms: u64,
    ) -> Step {
        let world = world(&self.registry, tabs, checking, now_ms);
        self.session.request(chat, request, &world)
    }

    /// An agent's call taken up again with its check's verdict (`checking`),
    /// the request not read again (ARCHITECTURE.md, "The arguments' checker").
    pub fn request_resumed(
        &mut self,
        chat: &str,
        resume: &Resume,
        arguments: &str,
        tabs: Option<&[TabInfo]>,
        checking: Checking<'_>,
        now_ms: u64,
    ) -> Step {
        let world = world(&self.registry, tabs, checking, now_ms);
        self.session.resumed(chat, resume, arguments, &world)
    }

    /// Frame `caller`'s page is about to call a tool another origin's frame
    /// exposed to it (docs/agents.md, "Pages calling each other's tools").
    ///
    /// # Errors
    /// Why it gets no pass: its call is then the browser's agent's.
    pub fn exposed_call(
        &mut self,
        caller: &crate::page::registry::FrameRef,
        call: &ExposedCall,
        now_ms: u64,
    ) -> Result<(), String> {
        self.passes.grant(&self.registry, caller, call, now_ms)
    }

    /// A report of frame `from`'s tools applied, with the origins whose view
    /// of what that frame exposes to them changed (`exposedTo`): the shell
    /// tells their frames, where the browser has no WebMCP to (`tree`).
    pub fn apply_page(
        &mut self,
        from: FrameRef,
        ops: Vec<Op>,
    ) -> (Vec<Registered>, Vec<Effect>, Vec<String>) {
        let (tab_id, frame_id, document_id) =
            (from.tab_id, from.frame_id, from.document_id.clone());
        let exposure = |registry: &Registry| {
            tree::exposure(
                registry
                    .frames(tab_id)
                    .find(|f| f.frame_id == frame_id && f.document_id == document_id),
            )
        };
        let before = exposure(&self.registry);
        let (results, effects) = self.registry.apply(Event::Page { from, ops });
        let after = exposure(&self.registry);
        (results, effects, tree::changed_for(&before, &after))
    }

    /// A report of frame `from`'s tools applied (`apply_page`), with the
    /// changes of its tools the audit keeps: on a site an open chat listed,
    /// each registration, re-registration and unregistration, held to a
    /// number a minute a frame (`decisions::lifecycle::changes`).
    pub fn apply_page_audited(
        &mut self,
        from: FrameRef,
        ops: Vec<Op>,
        now_ms: u64,
    ) -> (Applied, Vec<ToolChange>) {
        let site = crate::page::registry::site_of(&from.origin, &from.document_id);
        let at = from.clone();
        fn frame<'a>(registry: &'a Registry, at: &FrameRef) -> Option<&'a Frame> {
            registry
                .frames(at.tab_id)
                .find(|f| f.frame_id == at.frame_id && f.document_id == at.document_id)
        }
        let before = self
            .session
            .watches(&site)
            .then(|| Before::of(frame(&self.registry, &at), &ops));
        let applied = self.apply_page(from, ops);
        let Some(before) = before else {
            return (applied, Vec::new());
        };
        let found = before.changes(frame(&self.registry, &at), &site, at.tab_id);
        let changes = self.tool_changes.bounded(&at, &site, found, now_ms);
        (applied, changes)
    }

    /// The tools frames of `from_origins` expose to frame `caller`, in the
    /// tab the shell saw as `tree` (`tree::listing`).
    pub fn exposed_tools(
        &self,
        caller: &FrameRef,
        from_origins: &[String],
        tree: &Tree,
    ) -> Vec<Listed> {
        tree::listing(&self.registry, tree, caller, from_origins)
    }

    /// A page's call of a tool another origin's frame exposed to it, where
    /// the worker carries it: the call to run in the owning frame, as the
    /// calling page's (`Passes::polyfill_call`).
    ///
    /// # Errors
    /// Why it may not run.
    pub fn polyfill_call(
        &mut self,
        caller: &FrameRef,
        run: &ExposedRun,
        tree: &Tree,
        now_ms: u64,
    ) -> Result<(FrameCall, PageCall), String> {
        self.passes
            .polyfill_call(&self.registry, tree, caller, run, now_ms)
    }

    /// The frames to tell that what `owner` exposes to `origins` changed.
    pub fn exposed_listeners(owner: &FrameRef, origins: &[String], tree: &Tree) -> Vec<Listener> {
        tree::listeners(tree, owner, origins)
    }

    /// Whether a call that reached Toolgate's native copy of a tool is the
    /// one a page said it was about to make: it then runs as that page's,
    /// with no card.
    pub fn page_call(&mut self, call: &FrameCall, now_ms: u64) -> Option<PageCall> {
        self.passes.take(&self.registry, call, now_ms)
    }

    /// A call that reached Toolgate's native copy of a tool in one frame,
    /// its arguments checked as `checking` says.
    pub fn frame_call(
        &mut self,
        chat: &str,
        id: &Value,
        call: &FrameCall,
        checking: Checking<'_>,
        now_ms: u64,
    ) -> Step {
        let world = world(&self.registry, None, checking, now_ms);
        self.session.frame_call(chat, id, call, &world)
    }

    /// Withdraws request `id` of `chat` from the card it waits on; with no
    /// id, every waiting request of the chat.
    pub fn withdraw(&mut self, chat: &str, id: Option<&Value>) -> Withdrawn {
        match id {
            Some(id) => self.session.withdraw(chat, id),
            None => self.session.withdraw_chat(chat),
        }
    }

    /// A person's answer to a card.
    ///
    /// # Errors
    /// When the card no longer waits, or does not offer the answer.
    pub fn answer(
        &mut self,
        card_id: u64,
        answer: Answer,
        tabs: &[TabInfo],
        now_ms: u64,
    ) -> Result<Answered, String> {
        let world = world(&self.registry, Some(tabs), Default::default(), now_ms);
        self.session.answer(card_id, answer, &world)
    }

    /// A card's window was closed: it counts as the card's closing answer
    /// (docs/cards.md, "Closing a card"). `None` when the window showed no
    /// waiting card.
    ///
    /// # Errors
    /// As `answer`.
    pub fn window_closed(
        &mut self,
        window_id: i64,
        tabs: &[TabInfo],
        now_ms: u64,
    ) -> Result<Option<Answered>, String> {
        let Some(card_id) = self.session.card_of_window(window_id) else {
            return Ok(None);
        };
        let Some(answer) = self.session.close_answer(card_id) else {
            return Ok(None);
        };
        self.answer(card_id, answer, tabs, now_ms).map(Some)
    }

    /// A card's contents, or `None` if it no longer waits.
    pub fn card(&self, card_id: u64, tabs: &[TabInfo], now_ms: u64) -> Option<Card> {
        let pending = self.session.pending.get(&card_id)?;
        let world = world(&self.registry, Some(tabs), Default::default(), now_ms);
        let chat = self.session.chat_label(&pending.chat);
        cards::card(card_id, pending, chat, &world, &self.session.rules)
    }

    /// A tool's outcome from the page (see `page_outcome`); the reply as
    /// JSON text, or `None` for an unknown call.
    pub fn finish(
        &mut self,
        call_id: u64,
        result: Option<&str>,
        failure: Option<String>,
        cap: usize,
        taken: bool,
        now_ms: u64,
    ) -> Option<String> {
        let outcome = page_outcome(result, failure);
        let conduct = self.conduct.remove(&call_id);
        let flags = &self.registry.flags;
        self.session
            .flag_if(call_id, |site, tool| flags.of(site, tool).is_some());
        self.session
            .finish(call_id, outcome, cap, taken, conduct.as_ref(), now_ms)
            .map(|(_, _, reply)| reply.text().to_owned())
    }

    /// The flags of tools that broke their hints, as the shell stored them
    /// (`Flagged::record`).
    ///
    /// # Errors
    /// When the text is not a record of flags; the flags stay as they were.
    pub fn set_flags(&mut self, text: &str) -> Result<(), String> {
        self.registry.flags =
            serde_json::from_str(text).map_err(|e| format!("bad record of flags: {e}"))?;
        Ok(())
    }

    /// What a call was seen doing (`watch`, the call's `Run::watch`): told
    /// in the reply of `call_id` if it still runs (cut), and judged (whole). A tool
    /// that broke its hints is flagged on its site until the person clears
    /// it (docs/classes.md, "Hints held to their word").
    pub fn observe(
        &mut self,
        call_id: Option<u64>,
        watch: &Watch,
        seen: &Witnessed,
        overlapped: bool,
        now_ms: u64,
    ) -> Option<Flagged> {
        let broken = watch.judge(seen, now_ms);
        if let Some(call_id) = call_id.filter(|id| self.session.runs(*id)) {
            let conduct = Conduct::of(watch, seen, overlapped, broken.as_ref());
            self.conduct.insert(call_id, conduct);
        }
        let broken = broken?;
        let said = broken.said.clone();
        let line = flag_line(&broken);
        let text = line.to_string();
        self.registry.flags.flag(&watch.site, &watch.tool, broken);
        Some(Flagged {
            site: watch.site.clone(),
            tool: watch.tool.clone(),
            said,
            text,
            line,
            record: serde_json::to_string(&self.registry.flags).unwrap_or_default(),
        })
    }

    /// Every flag, for the settings page: site, tool (`None` for the site as
    /// a whole) and the flag in plain words, the page's part escaped and cut,
    /// and apart in `line`.
    pub fn flag_list(&self) -> Vec<FlagShown> {
        let mut shown = Vec::new();
        for (site, flags) in &self.registry.flags.sites {
            let tools = flags.tools.iter().map(|(tool, b)| (Some(tool.clone()), b));
            for (tool, broken) in tools.chain(flags.whole.iter().map(|b| (None, b))) {
                let line = flag_line(broken);
                shown.push(FlagShown {
                    site: site.clone(),
                    tool_shown: tool.as_deref().map(|name| page_line(name, NAME_CAP)),
                    tool,
                    text: line.to_string(),
                    line,
                    at_ms: broken.at_ms,
                });
            }
        }
        shown
    }

    /// Each of `tools`' standing under `site`'s rules, with its name and
    /// area as the set-apart page shows them.
    pub fn tools_shown(&self, site: &str, tools: &[SeenTool]) -> Vec<ToolShown> {
        let standings = self.session.rules.standings(site, tools);
        standings
            .into_iter()
            .zip(tools)
            .map(|(standing, tool)| ToolShown {
                standing,
                name_shown: page_line(&tool.name, NAME_CAP),
                area_shown: crate::decisions::rules::area_shown(&tool.area),
            })
            .collect()
    }

    /// The person cleared a flag (`tool`'s on `site`, or with no tool the
    /// site's as a whole): the record to store, or `None` if there was none.
    pub fn clear_flag(&mut self, site: &str, tool: Option<&str>) -> Option<String> {
        self.registry
            .flags
            .clear(site, tool)
            .then(|| serde_json::to_string(&self.registry.flags).unwrap_or_default())
    }
}

/// What the shell knows of the browser for one request or answer: the
/// registry, the tabs if it looked them up, and where arguments are checked.
fn world<'a>(
    registry: &'a Registry,
    tabs: Option<&'a [TabInfo]>,
    checking: Checking<'a>,
    now_ms: u64,
) -> World<'a> {
    World {
        checking,
        registry,
        tabs,
        now_ms,
    }
}
