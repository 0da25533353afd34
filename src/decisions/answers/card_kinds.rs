//! The answers each card offers, and what closing one counts as
//! (docs/cards.md).

use super::*;

impl CardKind {
    /// The answers a card of this kind offers on `site`: all of its kind's,
    /// except that localhost is offered no site-wide refusal (docs/cards.md,
    /// "Localhost"), and an opaque document (a sandboxed frame) nothing but
    /// the answers for this call: it is not a site (docs/cards.md,
    /// "Sandboxed frames").
    pub fn offered(self, site: &str) -> Vec<Answer> {
        if self == CardKind::Rule {
            return [RuleAnswer::AllowOnce, RuleAnswer::Refuse]
                .map(Answer::Rule)
                .to_vec();
        }
        if self == CardKind::Script {
            // For a site, the answers for the script's site in this chat;
            // an opaque document's are for this call alone.
            let answers: &[ScriptAnswer] = if is_opaque_site(site) {
                &[ScriptAnswer::AllowOnce, ScriptAnswer::DenyOnce]
            } else {
                &[
                    ScriptAnswer::AllowOnce,
                    ScriptAnswer::AllowForChat,
                    ScriptAnswer::DenyOnce,
                    ScriptAnswer::DenyForChat,
                ]
            };
            return answers.iter().copied().map(Answer::Script).collect();
        }
        if is_opaque_site(site) {
            return match self {
                CardKind::Site => [SiteAnswer::AllowOnce, SiteAnswer::DenyOnce]
                    .map(Answer::Site)
                    .to_vec(),
                CardKind::Call | CardKind::Rule | CardKind::Script => {
                    [CallAnswer::AllowOnce, CallAnswer::DenyOnce]
                        .map(Answer::Call)
                        .to_vec()
                }
            };
        }
        let (all, site_wide) = match self {
            CardKind::Site => (
                [
                    SiteAnswer::AllowOnce,
                    SiteAnswer::AllowReadOnly,
                    SiteAnswer::AllowNonConsequential,
                    SiteAnswer::AllowAll,
                    SiteAnswer::DenyOnce,
                    SiteAnswer::DenyForChat,
                ]
                .map(Answer::Site)
                .to_vec(),
                Answer::Site(SiteAnswer::DenyForChat),
            ),
            CardKind::Call | CardKind::Rule | CardKind::Script => (
                [
                    CallAnswer::AllowOnce,
                    CallAnswer::AlwaysAllowTool,
                    CallAnswer::AllowClass,
                    CallAnswer::DenyOnce,
                    CallAnswer::NeverAllowTool,
                    CallAnswer::DenyAllSite,
                ]
                .map(Answer::Call)
                .to_vec(),
                Answer::Call(CallAnswer::DenyAllSite),
            ),
        };
        let local = is_localhost(site);
        all.into_iter()
            .filter(|a| !(local && *a == site_wide))
            .collect()
    }

    /// What closing the card without answering counts as (docs/cards.md,
    /// "Closing a card"): always one of the answers it offers on `site`.
    pub fn closing_answer(self, site: &str) -> Answer {
        match self {
            CardKind::Site if is_opaque_site(site) => Answer::Site(SiteAnswer::DenyOnce),
            CardKind::Site => Answer::Site(SiteAnswer::DenyForChat),
            CardKind::Call => Answer::Call(CallAnswer::DenyOnce),
            CardKind::Rule => Answer::Rule(RuleAnswer::Refuse),
            CardKind::Script => Answer::Script(ScriptAnswer::DenyOnce),
        }
    }
}
