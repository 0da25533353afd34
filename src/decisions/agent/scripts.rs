//! Tools registered by other sites' scripts (docs/cards.md, "Tools
//! registered by other sites' scripts"; docs/rules.md): never inside a
//! chat's width. The site's rule for them (Ask first unless set) comes
//! first; under Ask first, a chat's first call of a tool from a script's
//! site opens a card that names it, and its answer holds for that chat and
//! that script's site, on any site the chat uses; then the chat's answers
//! apply as for any tool.

use super::*;
use crate::decisions::answers::{site_host, Answers, ScriptAnswer};
use crate::decisions::rules::Level;
use crate::page::provenance::scripts_named;
use crate::page::registry::Tool;

/// What the rule and the chat's answers say of a call of a tool another
/// site's script registered, before anything else is asked.
pub(super) enum ScriptGate {
    /// The frame's own site's tool, or one the rule or the chat allows.
    Pass,
    Refuse(String),
    /// The card about the script's site must be asked.
    Ask,
}

impl Answers {
    /// What `chat` answered for the tools of `key`'s scripts
    /// (`Provenance::asked_as`): allowed, denied, or not asked.
    fn script_answer(&self, chat: &str, key: &str) -> Option<bool> {
        self.chats.get(chat)?.scripts.get(key).copied()
    }

    fn answer_scripts(&mut self, chat: &str, key: &str, allowed: bool) {
        self.chat(chat).scripts.insert(key.to_owned(), allowed);
    }
}

impl Session {
    /// The gate for a call of `tool`, as its site's rule and the chat's
    /// answers stand.
    pub(super) fn script_gate(&self, chat: &str, call: &PageCall, tool: &Tool) -> ScriptGate {
        let Some(key) = tool.provenance.asked_as() else {
            return ScriptGate::Pass;
        };
        let rule = self.rules.scripts_level(&call.site);
        let (name, host) = (&call.target.name, site_host(&call.site));
        match rule.level {
            Level::Allowed => ScriptGate::Pass,
            Level::Off => ScriptGate::Refuse(format!(
                "Nothing ran: {name} on {host} was {}, and tools registered by other sites' scripts are Off on this site, by {}.",
                tool.provenance.shown().unwrap_or_default(),
                rule.because()
            )),
            Level::AskFirst if call.script_yes => ScriptGate::Pass,
            Level::AskFirst => match self.answers.script_answer(chat, key) {
                Some(true) => ScriptGate::Pass,
                Some(false) => ScriptGate::Refuse(format!(
                    "refused: {name} on {host} was {}, and in this chat you denied tools from {}",
                    tool.provenance.shown().unwrap_or_default(),
                    scripts_named(key)
                )),
                None => ScriptGate::Ask,
            },
        }
    }

    /// Whether a listing leaves `tool` out: its site's rule turns tools
    /// registered by other sites' scripts Off, or the chat denied its
    /// script's site.
    pub(super) fn script_hidden(&self, chat: &str, site: &str, tool: &Tool) -> bool {
        let Some(key) = tool.provenance.asked_as() else {
            return false;
        };
        match self.rules.scripts_level(site).level {
            Level::Off => true,
            Level::Allowed => false,
            Level::AskFirst => self.answers.script_answer(chat, key) == Some(false),
        }
    }

    /// Asks the card about the script's site, unless no one is there to ask.
    pub(super) fn ask_script(&mut self, chat: &str, id: &Value, call: PageCall) -> Step {
        if self.rules.unattended {
            let why = format!(
                "Nothing ran: {} on {} was registered by another site's script, which needs an answer on a card, and no one was there to ask (Toolgate runs unattended).",
                call.target.name,
                site_host(&call.site)
            );
            return refusal(id, Decision::Refuse { why });
        }
        let site = call.site.clone();
        self.ask(chat, id, Action::Call(call), CardKind::Script, site, false)
    }

    /// The card about the script's site answered, for the tool it showed.
    pub(super) fn script_answered(
        &mut self,
        chat: &str,
        id: &Value,
        answer: ScriptAnswer,
        call: PageCall,
        world: &World,
    ) -> Step {
        let key = call
            .target
            .tool(world.registry)
            .and_then(|t| t.provenance.asked_as().map(str::to_owned));
        let (name, host) = (call.target.name.clone(), site_host(&call.site).to_owned());
        match (answer, key) {
            (ScriptAnswer::AllowOnce, _) => {
                let call = PageCall {
                    script_yes: true,
                    ..call
                };
                self.decide_call(chat, id, call, world)
            }
            (ScriptAnswer::AllowForChat, Some(key)) => {
                self.answers.answer_scripts(chat, &key, true);
                self.decide_call(chat, id, call, world)
            }
            (ScriptAnswer::DenyForChat, Some(key)) => {
                self.answers.answer_scripts(chat, &key, false);
                let why = format!(
                    "refused: in this chat you denied tools from {}",
                    scripts_named(&key)
                );
                refusal(id, Decision::Refuse { why })
            }
            // The tool went, or is now the site's own: the call is decided
            // as it is now, or told why it cannot be.
            (ScriptAnswer::AllowForChat, None) => self.decide_call(chat, id, call, world),
            (ScriptAnswer::DenyOnce | ScriptAnswer::DenyForChat, _) => refusal(
                id,
                Decision::Refuse {
                    why: format!("refused: you denied this call to {name} on {host}"),
                },
            ),
        }
    }
}
