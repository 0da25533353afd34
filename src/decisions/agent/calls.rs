//! An agent's call of a page tool: the tool it names found in the tab's
//! frames, its arguments checked against the tool's schema before anyone
//! is asked, then decided, and started when it may run.

use super::scripts::ScriptGate;
use super::*;
use crate::decisions::answers::site_host;
use crate::decisions::rules::{gate_call, Gate, Mode, RuleFacts};
use crate::decisions::untrusted::ReadFrom;
use crate::page::conduct::Watch;
use crate::page::declaration::{Hint, HintState, Kind};
use crate::page::registry::{is_opaque_site, Frame, Tool};
use crate::page::schema::Checking;
use crate::protocol::{CallTool, Resume};

/// Why a call's arguments cannot go on to be decided.
enum ArgumentsCheck {
    /// They are refused: what the agent is told.
    Refused(String),
    /// The checker must check them first.
    Needed(crate::page::schema::CheckAsked),
}

/// The tool a call names, found in the tab's frames.
pub(super) struct Found<'a> {
    pub(super) tool: &'a Tool,
    pub(super) target: CallTarget,
    pub(super) site: String,
}

impl<'a> Found<'a> {
    pub(super) fn new(tab_id: TabId, frame: &Frame, tool: &'a Tool) -> Found<'a> {
        Found {
            tool,
            target: CallTarget {
                tab_id,
                frame_id: frame.frame_id,
                document_id: frame.document_id.clone(),
                source: tool.source,
                name: tool.decl.name.clone(),
            },
            site: frame.site(),
        }
    }
}

fn find_tool<'a>(
    registry: &'a Registry,
    tab_id: TabId,
    name: &str,
    site: Option<&str>,
) -> Result<Found<'a>, RpcError> {
    let mut found: Vec<Found<'a>> = Vec::new();
    for frame in registry.frames(tab_id) {
        let frame_site = frame.site();
        if site.is_some_and(|s| s != frame_site && s != site_host(&frame_site)) {
            continue;
        }
        for tool in frame.tools.iter().filter(|t| t.decl.name == name) {
            found.push(Found::new(tab_id, frame, tool));
        }
    }
    // The same name on document.modelContext and navigator.modelContext of one
    // frame: the draft's object first.
    found.sort_by_key(|f| (f.site.clone(), f.tool.source));
    found.dedup_by(|a, b| a.site == b.site);
    match found.len() {
        0 => Err(RpcError::InvalidParams(format!(
            "tab {tab_id} publishes no tool named {name:?}"
        ))),
        1 => Ok(found.remove(0)),
        _ => Err(RpcError::InvalidParams(format!(
            "several sites in tab {tab_id} publish {name:?} ({}); say which with \"site\"",
            found
                .iter()
                .map(|f| if is_opaque_site(&f.site) {
                    format!("{} (a sandboxed frame)", f.site)
                } else {
                    site_host(&f.site).to_owned()
                })
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

impl PageCall {
    /// The tool's facts as the registry holds it now, if it is still the
    /// tool the request found: the same registration, the same definition.
    ///
    /// # Errors
    /// What the agent is told: the tool went, or changed, while the call
    /// waited; nothing ran, and calling it again asks about it as it is now.
    pub(super) fn current<'a>(&'a self, registry: &'a Registry) -> Result<ToolFacts<'a>, RpcError> {
        let name = &self.target.name;
        let facts = self.target.facts(registry, &self.site).ok_or_else(|| {
            RpcError::NotCarriedOut(format!(
                "{name} is no longer published by tab {}",
                self.target.tab_id
            ))
        })?;
        if facts.definition != self.definition || facts.class != self.class {
            return Err(RpcError::NotCarriedOut(format!(
                "{name} changed while this call waited (it was registered again, or its \
                 description, schema or hints are different): nothing ran. Call it again \
                 to be asked about it as it is now."
            )));
        }
        Ok(facts)
    }
}

impl Session {
    pub(super) fn start_call(
        &mut self,
        chat: &str,
        id: &Value,
        call: CallTool<'_>,
        world: &World,
    ) -> Step {
        if world.registry.count(call.tab_id) == 0 {
            if world.tabs.is_none() {
                return Step::NeedTabs;
            }
            let message = if world.tab(call.tab_id).is_some() {
                format!("tab {} publishes no tools", call.tab_id)
            } else {
                format!("there is no tab {}", call.tab_id)
            };
            return self.undecidable(chat, id, RpcError::InvalidParams(message));
        }
        match find_tool(
            world.registry,
            call.tab_id,
            &call.name,
            call.site.as_deref(),
        ) {
            Ok(found) => match self.call_found(chat, id, found, call.arguments, world) {
                Step::NeedCheck { check, .. } => Step::NeedCheck {
                    check,
                    resume: Some(Resume {
                        id: id.clone(),
                        tab_id: call.tab_id,
                        name: call.name,
                        site: call.site,
                    }),
                },
                step => step,
            },
            Err(error) => self.undecidable(chat, id, error),
        }
    }

    /// A call of the tool found: its arguments checked against its schema
    /// before anyone is asked, then decided.
    pub(super) fn call_found(
        &mut self,
        chat: &str,
        id: &Value,
        found: Found<'_>,
        arguments: &str,
        world: &World,
    ) -> Step {
        let name = &found.tool.decl.name;
        if found.tool.decl.kind == Kind::Skill {
            let message = format!("{name} is a skill: skills are read, never called");
            return self.undecidable(chat, id, RpcError::InvalidParams(message));
        }
        // A tool its site's rule turns Off is refused before anything else:
        // not even its arguments are looked at (docs/rules.md).
        let rule = RuleFacts::of(found.tool).map(|rule| self.rule_gate(chat, &found.site, rule));
        if let Some(Gate::Off { why }) = rule {
            return refusal(id, Decision::Refuse { why });
        }
        // The draft's input is an object, and arrays are objects there
        // (docs/agents.md): anything else is refused before anyone is asked.
        // Told from the text's first character: the arguments are read whole
        // only where they are checked (the checker, off this thread).
        if !matches!(arguments.trim_start().as_bytes().first(), Some(b'{' | b'[')) {
            let value = serde_json::from_str(arguments).unwrap_or(Value::Null);
            let got = crate::page::schema::type_name(&value);
            let message =
                format!("invalid arguments for {name}: expected a JSON object, got {got}");
            return self.undecidable(chat, id, RpcError::InvalidParams(message));
        }
        // Never run unchecked: a schema Toolgate cannot check, or cannot check
        // within its budget, refuses the call (docs/agents.md).
        match Self::arguments_checked(name, found.tool, &found.site, arguments, world) {
            Ok(()) => {}
            Err(ArgumentsCheck::Refused(message)) => {
                return self.undecidable(chat, id, RpcError::InvalidParams(message));
            }
            Err(ArgumentsCheck::Needed(check)) => {
                return Step::NeedCheck {
                    check,
                    resume: None,
                }
            }
        }
        let Some(facts) = ToolFacts::of(found.tool, &found.site, &world.registry.flags) else {
            let message = format!("{name} is not a tool");
            return self.undecidable(chat, id, RpcError::InvalidParams(message));
        };
        let (class, definition) = (facts.class, facts.definition.to_owned());
        let broken = facts.broken.cloned();
        let call = PageCall {
            target: found.target,
            site: found.site,
            class,
            definition,
            arguments: arguments.to_owned(),
            allowed_once: false,
            rule_yes: false,
            script_yes: false,
            broken,
            untrusted: Vec::new(),
            asked_because: None,
            appeared: None,
        };
        self.decide_call(chat, id, call, world)
    }

    /// Whether `arguments` (`text`) pass the tool `name`'s
    /// schema: checked in place, or by the checker off the worker's thread
    /// (ARCHITECTURE.md, "The arguments' checker").
    ///
    /// # Errors
    /// Why they are refused (its schema cannot be checked, or they break
    /// it), or the check the checker must make first.
    fn arguments_checked(
        name: &str,
        tool: &Tool,
        site: &str,
        text: &str,
        world: &World,
    ) -> Result<(), ArgumentsCheck> {
        use crate::page::schema::{check, CheckAsked, Refusal};
        let checked = match world.checking {
            Checking::InPlace => match (tool.schema(), tool.plan()) {
                (Some(_), Some(Err(why))) => Err(Refusal::Unchecked(why.to_owned())),
                (Some(schema), Some(Ok(plan))) => {
                    let value = serde_json::from_str(text).unwrap_or(Value::Null);
                    check(schema, plan, &value, text)
                }
                _ => Ok(()),
            },
            // The worker reads nothing of the schema: the checker does, on
            // its own thread, under its deadline.
            Checking::OffThread(verdict) => {
                let Some(schema) = tool.decl.input_schema.as_deref() else {
                    return Ok(());
                };
                match verdict.and_then(|v| v.for_texts(schema, text)) {
                    Some(verdict) => verdict.clone().into_result(),
                    None => {
                        return Err(ArgumentsCheck::Needed(CheckAsked {
                            schema: schema.to_owned(),
                            arguments: text.to_owned(),
                            site: site.to_owned(),
                        }))
                    }
                }
            }
        };
        let cannot = |why: &str| format!("cannot check the arguments of {name}: {why}");
        checked.map_err(|refusal| {
            ArgumentsCheck::Refused(match refusal {
                Refusal::Unchecked(why) => cannot(&why),
                Refusal::Invalid(problems) => {
                    format!("invalid arguments for {name}: {}", problems.join("; "))
                }
            })
        })
    }

    /// The site's rule for `chat`'s call or listing of a tool: the one place
    /// that tells the rules whether the chat was opened Read only.
    pub(super) fn rule_gate(&self, chat: &str, site: &str, rule: RuleFacts) -> Gate {
        self.rules.gate(site, rule, self.answers.read_only(chat))
    }

    /// A call that cannot be decided (no such tool, arguments its schema
    /// refuses) is still the chat's next call: it ends the immediate-retry
    /// window (docs/cards.md, "Widths of an answer").
    pub(super) fn undecidable(&mut self, chat: &str, id: &Value, error: RpcError) -> Step {
        self.answers.end_retry(chat);
        Step::error(id, &error)
    }

    /// Decides a call of a page tool as far as it can go without a person.
    pub(super) fn decide_call(
        &mut self,
        chat: &str,
        id: &Value,
        mut call: PageCall,
        world: &World,
    ) -> Step {
        // The tool as the request found it, or why it cannot run: every
        // answer and rule below is for that definition, and a tool that
        // changed while the call waited on a card is neither asked about nor
        // run as it was (docs/cards.md, "When a tool changes").
        let facts = match call.current(world.registry) {
            Ok(facts) => facts,
            Err(error) => return Step::error(id, &error),
        };
        // After untrusted content, a call that acts needs a yes for itself
        // on a card that says so (docs/cards.md, "After untrusted content");
        // a card that said so already asked it.
        let read = self.untrusted(chat);
        let mut warn =
            facts.class != Class::ReadOnly && !read.is_empty() && call.untrusted.is_empty();
        let read = if warn { read.to_vec() } else { Vec::new() };
        // The site's rule is the most the chat may do (docs/rules.md), as it
        // is now: a call that waited on a card meets the rule of its answer's time.
        // Its conditions look at the arguments, and its limits at the
        // chat's calls (docs/rules.md, "Conditions on a tool's arguments",
        // "Limits on how often").
        let rule = call.target.tool(world.registry).and_then(RuleFacts::of);
        let mut rule_yes = call.rule_yes;
        let mut late_shown = Vec::new();
        let mut late_taken = None;
        let judged = rule.map(|rule| {
            let mode = Mode {
                read_only_chat: self.answers.read_only(chat),
                unattended: self.rules.unattended,
            };
            let times = (&self.call_times, chat, call.site.as_str(), world.now_ms);
            gate_call(
                self.rules.sites.get(&call.site),
                rule,
                mode,
                &call.arguments,
                times,
            )
        });
        let within = judged
            .as_ref()
            .and_then(|j| j.allowed_by.as_ref())
            .map_or_else(String::new, |by| format!(", within {by}"));
        // A tool another site's script registered is asked about first,
        // once for the chat and that site, unless the rule turns it Off
        // (docs/cards.md, "Tools registered by other sites' scripts").
        let rule_off = matches!(judged.as_ref().map(|j| &j.gate), Some(Gate::Off { .. }));
        if let (false, Some(tool)) = (rule_off, call.target.tool(world.registry)) {
            match self.script_gate(chat, &call, tool) {
                ScriptGate::Pass => {}
                ScriptGate::Refuse(why) => return refusal(id, Decision::Refuse { why }),
                // A refusal that holds whatever is answered comes first.
                ScriptGate::Ask => match self.answers.standing_refusal(chat, &facts) {
                    Some(refused) => return refusal(id, refused),
                    // Its card says too that the tool is new to the chat.
                    None => {
                        self.appeared_asked(chat, &mut call);
                        return self.ask_script(chat, id, call);
                    }
                },
            }
        }
        match judged.map(|j| j.gate) {
            Some(Gate::Off { why }) => return refusal(id, Decision::Refuse { why }),
            // A late yes for this same call counts as the rule card's yes.
            Some(Gate::AskFirst { because }) if !rule_yes => {
                let Some(yes) = self.late_yes(chat, &call, world.now_ms) else {
                    // The rule's card says what the chat read (what a card
                    // of the call's said already, or what it says now), and
                    // its yes is this call's; and which condition or limit asks.
                    if warn {
                        call.untrusted = read;
                    }
                    call.asked_because = because.is_about_the_call().then_some(because);
                    self.appeared_asked(chat, &mut call);
                    return self.ask_rule(chat, id, call, world.now_ms);
                };
                rule_yes = true;
                // A late yes on a card that said what the chat read answers
                // for it too, unless the chat has read more since.
                if warn && read.iter().all(|source| yes.untrusted.contains(source)) {
                    late_shown = yes.untrusted.clone();
                    warn = false;
                }
                late_taken = Some(yes);
            }
            _ => {}
        }
        let asked = call.asked_by_words();
        // A refusal that came while this call's card was open holds against
        // the card's "Allow this call only" (docs/cards.md), and the rule's "Allow once".
        let refused = || self.answers.standing_refusal(chat, &facts);
        let after = if call.untrusted.is_empty() && late_shown.is_empty() {
            ""
        } else {
            ", after this chat read untrusted content"
        };
        let decision = if rule_yes {
            refused().unwrap_or_else(|| Decision::Run {
                why: format!("you allowed this call once{after}{asked}"),
            })
        } else if call.allowed_once {
            refused().unwrap_or_else(|| Decision::Run {
                why: format!("you allowed this call only{after}"),
            })
        } else {
            self.answers
                .decide_call(chat, &facts, &call.arguments, world.now_ms)
        };
        // A tool that appeared after the chat listed its site's tools
        // (docs/cards.md, "Tools that appear after a chat listed them").
        if let Some(step) = self.appeared_gate(chat, id, &call, &decision, (warn, rule_yes)) {
            return step;
        }
        match decision {
            Decision::Run { .. } | Decision::AskSite | Decision::AskCall { .. } if warn => {
                let changed = decision == Decision::AskCall { changed: true };
                call.untrusted = read;
                self.appeared_asked(chat, &mut call);
                // A late yes answered the rule: this card's yes needs no
                // second rule card.
                call.rule_yes = rule_yes;
                if self.rules.unattended {
                    return untrusted_refusal(id, &call);
                }
                let site = call.site.clone();
                let step = self.ask(chat, id, Action::Call(call), CardKind::Call, site, changed);
                // A card that could not open leaves the late yes as it was:
                // the person's answer is not used up by a call that did not run.
                if let (Step::Reply { .. }, Some(yes)) = (&step, late_taken) {
                    self.late_yeses.put_back(yes);
                }
                step
            }
            Decision::Run { why } => {
                if !late_shown.is_empty() {
                    call.untrusted = late_shown;
                }
                self.start_run(chat, id, call, why + &within, world)
            }
            refused @ Decision::Refuse { .. } => refusal(id, refused),
            // Unattended, no card ever opens (docs/rules.md): what the site's
            // rule allows runs (its Off and Ask first were refused above);
            // what would need the chat's answer is refused.
            Decision::AskSite | Decision::AskCall { .. }
                if self.rules.unattended
                    && self.rules.sites.contains_key(&call.site)
                    && facts.broken.is_none() =>
            {
                let why =
                    format!("the site's rule allows it{within}, and Toolgate runs unattended");
                self.start_run(chat, id, call, why, world)
            }
            Decision::AskSite | Decision::AskCall { .. } if self.rules.unattended => {
                let name = &call.target.name;
                let why = match facts.broken {
                    Some(broken) => format!(
                        "Nothing ran: {name} {}, so each of its calls needs an answer on a card, and no one was there to ask (Toolgate runs unattended).",
                        broken.text(&broken.to)
                    ),
                    None => format!(
                        "Nothing ran: {name} needs an answer on a card, and no one was there to ask (Toolgate runs unattended)."
                    ),
                };
                refusal(id, Decision::Refuse { why })
            }
            Decision::AskSite => {
                let site = call.site.clone();
                self.ask(chat, id, Action::Call(call), CardKind::Site, site, false)
            }
            Decision::AskCall { changed } => {
                let site = call.site.clone();
                self.ask(chat, id, Action::Call(call), CardKind::Call, site, changed)
            }
        }
    }

    /// Records the call as running and hands it to the shell to run.
    fn start_run(
        &mut self,
        chat: &str,
        id: &Value,
        call: PageCall,
        why: String,
        world: &World,
    ) -> Step {
        // Running a Read only tool twice is harmless (`Run::repeatable`).
        let repeatable = call.class == Class::ReadOnly;
        let tool = call.target.tool(world.registry);
        // A call that runs counts for the limits on its tool (docs/rules.md,
        // "Limits on how often"), however it was let through.
        if let Some((rules, facts)) = self
            .rules
            .sites
            .get(&call.site)
            .zip(tool.and_then(RuleFacts::of))
        {
            let limits = rules.limits_of(facts);
            if !limits.is_empty() {
                self.call_times
                    .record(chat, &call.site, &limits, world.now_ms);
                self.unsaved = true;
            }
        }
        let running = RunningCall {
            chat: chat.to_owned(),
            request_id: id.clone(),
            why,
            untrusted_content: tool
                .is_some_and(|t| t.decl.hint(Hint::UntrustedContent) == HintState::True),
            from: ReadFrom {
                site: call.site.clone(),
                tool: call.target.name.clone(),
                flagged: call.broken.is_some(),
            },
        };
        let watch = tool.and_then(|t| Watch::of(&t.decl, t.verdict.class?, &call.site));
        let call_id = if repeatable {
            self.next_repeatable += 1;
            let call_id = REPEATABLE_IDS + self.next_repeatable;
            self.repeatable.insert(call_id, running);
            call_id
        } else {
            let call_id = self.next();
            self.running.insert(call_id, running);
            call_id
        };
        Step::Run {
            run: Run {
                call_id,
                target: call.target,
                arguments: call.arguments,
                repeatable,
                watch,
            },
        }
    }
}

/// The refusal of an acting call after untrusted content when no one is
/// there to ask (Toolgate runs unattended), with the sources the chat read.
fn untrusted_refusal(id: &Value, call: &PageCall) -> Step {
    #[derive(serde::Serialize)]
    struct Meta<'a> {
        #[serde(flatten)]
        decision: Decision,
        chat_read_untrusted: &'a [crate::decisions::untrusted::Source],
    }
    let name = &call.target.name;
    let why = match call.untrusted.last() {
        Some(source) if source.found.because == crate::page::untrusted::Because::Lost => format!(
            "Nothing ran: {name} acts, and Toolgate had to forget what this chat read, to keep within its storage, so it treats the chat as having read content that may carry someone else's instructions; each such call needs a yes on a card, and no one was there to ask (Toolgate runs unattended)."
        ),
        Some(source) => format!(
            "Nothing ran: {name} acts, and this chat has read content from {} on {} that may carry someone else's instructions ({}); each such call needs a yes on a card, and no one was there to ask (Toolgate runs unattended).",
            source.tool,
            site_host(&source.site),
            source.found.because.plain()
        ),
        None => format!("Nothing ran: {name} needs an answer on a card, and no one was there to ask (Toolgate runs unattended)."),
    };
    let meta = Meta {
        decision: Decision::Refuse { why: why.clone() },
        chat_read_untrusted: &call.untrusted,
    };
    Step::reply(crate::protocol::tool_result(id, &why, true, &meta))
}
