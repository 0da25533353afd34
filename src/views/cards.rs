//! The two cards (docs/cards.md): every text and every label word for word,
//! with the narrowest answer on each button's face and the wider ones
//! behind its arrow. Page-chosen text (a tab's title and URL, a tool's name,
//! arguments) and a chat's name are never written into Toolgate's sentences:
//! each line is parts ([`Line`]), the quoted ones cut and escaped
//! (`views::text`) and shown in elements of their own (docs/cards.md, "How
//! page text is shown").

use crate::decisions::agent::{Action, PageCall, Pending, TabInfo, World};
use crate::decisions::answers::{
    site_host, Answer, CallAnswer, CardKind, RuleAnswer, ScriptAnswer, SiteAnswer,
};
use crate::decisions::lifecycle::Appeared;
use crate::decisions::rules::{area_shown, Because, Level, RuleBook, RuleFacts};
use crate::decisions::untrusted::{Place, Source};
use crate::page::classify::Class;
use crate::page::conduct::{Broken, SEEN_CAP};
use crate::page::provenance::{scripts_named, Provenance};
use crate::page::registry::is_opaque_site;
use crate::page::untrusted::{Because as Why, READS_AS_INSTRUCTIONS};
use crate::views::text::{
    page_line, Line, ARGUMENT_NAME_CAP, ARGUMENT_VALUE_CAP, CHAT_CAP, NAME_CAP, TITLE_CAP, URL_CAP,
};
use serde::Serialize;

/// An excerpt of untrusted content as a card shows it: escapes count their
/// width, so a little more than the excerpt's characters.
const EXCERPT_CAP: usize = 300;

/// One answer as a button or menu item shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Choice {
    /// The label as a person reads it (its accessible name).
    pub label: String,
    /// The label as the card renders it: a tool's name apart from the words.
    pub parts: Line,
    pub answer: Answer,
}

/// A tool or skill in "What this site publishes".
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Published {
    pub name: String,
    pub badge: &'static str,
}

/// Everything a card page shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Card {
    pub card_id: u64,
    pub kind: CardKind,
    /// "Asked by {chat}": which chat asked.
    pub asked_by: Line,
    pub site: String,
    pub heading: Line,
    /// The site card's lines, in order.
    pub lines: Vec<Line>,
    /// The call card's tool (its name, as shown), class and arguments (names
    /// and values, as shown).
    pub tool: Option<String>,
    pub class: Option<&'static str>,
    /// A rule's card: the level that asks and the rule, in plain words
    /// ("Ask first: the rule for tools that act outside the site"), shown
    /// beside the class badge.
    pub rule: Option<String>,
    /// A rule's card a condition or a limit asked for: which, as the agent
    /// is told it and the audit keeps it (`Because::text`), so that the
    /// audit names it beside the answer (docs/rules.md, "Every site, side
    /// by side, and the audit").
    pub asked_because: Option<String>,
    pub argument_count: Option<String>,
    pub arguments: Vec<(String, String)>,
    /// Set when an "Always allow" lapsed because the tool changed.
    pub changed: Option<Line>,
    /// The call is asked about because its chat read untrusted content
    /// (docs/cards.md, "After untrusted content"): `untrusted` says so.
    pub after_untrusted: bool,
    /// Why, as lines of their own (`lines` holds the card's other lines):
    /// the card page shows them as a warning apart from the rest.
    pub untrusted: Vec<Line>,
    pub publishes: Vec<Published>,
    pub approve: Choice,
    pub approve_menu: Vec<Choice>,
    pub deny: Choice,
    pub deny_menu: Vec<Choice>,
}

fn choice(parts: impl Into<Line>, answer: Answer) -> Choice {
    let parts = parts.into();
    Choice {
        label: parts.to_string(),
        parts,
        answer,
    }
}

impl From<&str> for Line {
    fn from(text: &str) -> Self {
        Line::ours(text)
    }
}

/// The site as a card names it: its host, or for an opaque document (a
/// sandboxed frame) what the person can recognise: the site whose tab embeds it.
fn shown_site(site: &str, tab: Option<&TabInfo>) -> String {
    if !is_opaque_site(site) {
        return site_host(site).to_owned();
    }
    let top = tab.map_or("this tab", |t| {
        let host = site_host(&t.url);
        host.split('/').next().unwrap_or(host)
    });
    format!("a sandboxed frame inside {top}")
}

/// An argument's value as the card shows it: strings as they are, anything else as JSON.
fn shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => page_line(s, ARGUMENT_VALUE_CAP),
        other => page_line(&other.to_string(), ARGUMENT_VALUE_CAP),
    }
}

/// The arguments as the card lists them, exactly what the tool will
/// receive, whatever their shape: an object's by name, an array's by
/// position ("0", "1", …). Anything else (which the gate refuses before
/// any card) is one row, "input".
fn argument_rows(arguments: &str) -> Vec<(String, String)> {
    match serde_json::from_str(arguments).unwrap_or(serde_json::Value::Null) {
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| (page_line(k, ARGUMENT_NAME_CAP), shown(v)))
            .collect(),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), shown(v)))
            .collect(),
        other => vec![("input".to_owned(), shown(&other))],
    }
}

/// "1 argument", "3 arguments".
fn argument_count(rows: &[(String, String)]) -> String {
    let count = rows.len();
    format!("{count} argument{}", if count == 1 { "" } else { "s" })
}

/// Builds the card for a pending request; `chat` is the asking chat's label,
/// `rules` the site rules (a rule's card names the rule that asks).
/// `None` for a call card whose request is not a call (no such card is made).
pub fn card(
    card_id: u64,
    pending: &Pending,
    chat: String,
    world: &World,
    rules: &RuleBook,
) -> Option<Card> {
    let offers = pending.offered();
    let tab_id = pending.action.tab_id();
    let site = shown_site(&pending.site, world.tab(tab_id));
    let publishes: Vec<Published> = world
        .registry
        .frames(tab_id)
        .filter(|f| f.site() == pending.site)
        .flat_map(|f| f.tools.iter())
        .map(|t| Published {
            name: page_line(&t.decl.name, NAME_CAP),
            badge: t.verdict.class.map_or("Skill", Class::label),
        })
        .collect();

    let asked_by = Line::ours("Asked by ").quote(page_line(&chat, CHAT_CAP));
    let mut card = match pending.card {
        CardKind::Site => {
            let tab = world.tab(tab_id);
            Card {
                card_id,
                kind: CardKind::Site,
                asked_by,
                heading: Line::ours(format!(
                    "An agent wants permission to use this site's page tools on {site}"
                )),
                lines: vec![
                    Line::ours(
                        "Let the agent see and call the tools this website publishes to it.",
                    ),
                    Line::ours(format!(
                        "Requested by {}, in the tab \u{201c}",
                        pending.asked_by
                    ))
                    .quote(page_line(tab.map_or("", |t| t.title.as_str()), TITLE_CAP))
                    .say("\u{201d} at ")
                    .quote(page_line(tab.map_or("", |t| t.url.as_str()), URL_CAP))
                    .say("."),
                    Line::ours(format!("Allowing this applies to {site} only.")),
                ],
                tool: None,
                class: None,
                rule: None,
                asked_because: None,
                argument_count: None,
                arguments: Vec::new(),
                changed: None,
                after_untrusted: false,
                untrusted: Vec::new(),
                publishes,
                approve: choice("Allow this call only", Answer::Site(SiteAnswer::AllowOnce)),
                approve_menu: vec![
                    choice(
                        "Allow read-only tools on this website",
                        Answer::Site(SiteAnswer::AllowReadOnly),
                    ),
                    choice(
                        "Allow non-consequential read/write tools on this website",
                        Answer::Site(SiteAnswer::AllowNonConsequential),
                    ),
                    choice(
                        "Allow all tools on this website",
                        Answer::Site(SiteAnswer::AllowAll),
                    ),
                ],
                deny: choice("Deny this call", Answer::Site(SiteAnswer::DenyOnce)),
                deny_menu: vec![choice(
                    "Deny for this chat",
                    Answer::Site(SiteAnswer::DenyForChat),
                )],
                site: site.clone(),
            }
        }
        CardKind::Call => {
            let Action::Call(PageCall {
                target,
                arguments,
                class,
                broken,
                untrusted,
                ..
            }) = &pending.action
            else {
                return None;
            };
            let name = page_line(&target.name, NAME_CAP);
            // The class the request found, which the answer applies to.
            let class = Some(*class);
            let arguments = argument_rows(arguments);
            let widen = if class == Some(Class::Mutating) {
                format!("Allow non-consequential read/write tools on {site}")
            } else {
                format!("Allow all tools on {site}")
            };
            let on_site = |start: &str| {
                Line::ours(format!("{start} \u{201c}"))
                    .quote(name.clone())
                    .say(format!("\u{201d} on {site}"))
            };
            Card {
                card_id,
                kind: CardKind::Call,
                asked_by,
                heading: Line::default().quote(name.clone()),
                lines: broken.iter().map(|b| broken_line(&name, b)).collect(),
                tool: Some(name.clone()),
                class: class.map(Class::label),
                rule: None,
                asked_because: None,
                argument_count: Some(argument_count(&arguments)),
                arguments,
                after_untrusted: !untrusted.is_empty(),
                untrusted: untrusted_lines(untrusted),
                changed: pending.changed.then(|| {
                    Line::default().quote(name.clone()).say(" changed since you chose to always allow it: its description, schema or hints are different.")
                }),
                publishes,
                approve: choice("Allow this call only", Answer::Call(CallAnswer::AllowOnce)),
                approve_menu: vec![
                    choice(on_site("Always allow"), Answer::Call(CallAnswer::AlwaysAllowTool)),
                    choice(widen.as_str(), Answer::Call(CallAnswer::AllowClass)),
                ],
                deny: choice("Deny this call", Answer::Call(CallAnswer::DenyOnce)),
                deny_menu: vec![
                    choice(on_site("Never allow"), Answer::Call(CallAnswer::NeverAllowTool)),
                    choice(format!("Deny all page tools on {site}").as_str(), Answer::Call(CallAnswer::DenyAllSite)),
                ],
                site: site.clone(),
            }
        }
        CardKind::Rule => {
            let Action::Call(call) = &pending.action else {
                return None;
            };
            let name = page_line(&call.target.name, NAME_CAP);
            let arguments = argument_rows(&call.arguments);
            // The rule that asks, as it is now (the card may have waited), for
            // this call's arguments. A condition or limit that asked is the
            // call's own (docs/rules.md).
            let because = call.asked_because.clone().or_else(|| {
                let arguments = serde_json::from_str(&call.arguments).ok();
                call.target
                    .tool(world.registry)
                    .and_then(RuleFacts::of)
                    .and_then(|facts| {
                        let rules = rules.sites.get(&pending.site)?;
                        Some(rules.level_of_call(facts, arguments.as_ref()).1)
                    })
            });
            let mut lines = vec![Line::ours("The agent wants to call \u{201c}")
                .quote(name.clone())
                .say(format!("\u{201d} on {site}."))];
            if pending.detached {
                lines.push(Line::ours(
                    "The agent stopped waiting. Allow once lets its same call, with the same arguments, run once if it asks again within 10 minutes.",
                ));
            }
            if let Some(broken) = &call.broken {
                lines.push(broken_line(&name, broken));
            }
            if let Some(because) = &because {
                lines.push(asks_first_line(because, &site));
            }
            Card {
                card_id,
                kind: CardKind::Rule,
                asked_by,
                heading: Line::default().quote(name.clone()),
                lines,
                tool: Some(name),
                class: Some(call.class.label()),
                rule: because
                    .map(|because| format!("{}: {}", Level::AskFirst.label(), because.plain())),
                asked_because: call.asked_because.as_ref().map(Because::text),
                argument_count: Some(argument_count(&arguments)),
                arguments,
                changed: None,
                after_untrusted: !call.untrusted.is_empty(),
                untrusted: untrusted_lines(&call.untrusted),
                publishes,
                approve: choice("Allow once", Answer::Rule(RuleAnswer::AllowOnce)),
                approve_menu: Vec::new(),
                deny: choice("Refuse", Answer::Rule(RuleAnswer::Refuse)),
                deny_menu: Vec::new(),
                site: site.clone(),
            }
        }
        CardKind::Script => {
            script_card(card_id, pending, asked_by, site.clone(), world, publishes)?
        }
    };
    // Where the tool comes from, where that is not its frame's own origin.
    if let Action::Call(call) = &pending.action {
        if let Some(appeared) = call.appeared {
            let name = page_line(&call.target.name, NAME_CAP);
            card.lines.insert(0, appeared_line(&name, &site, appeared));
        }
        if let Some(tool) = call.target.tool(world.registry) {
            if let Some(line) = provenance_line(&tool.provenance, &site) {
                card.lines.push(line);
            }
        }
    }
    card.approve_menu.retain(|c| offers.contains(&c.answer));
    card.deny_menu.retain(|c| offers.contains(&c.answer));
    Some(card)
}

/// The card about a call of a tool another site's script registered
/// (docs/cards.md, "Tools registered by other sites' scripts"): which
/// script's tools, and answers for this call or for that script's site in
/// this chat.
fn script_card(
    card_id: u64,
    pending: &Pending,
    asked_by: Line,
    site: String,
    world: &World,
    publishes: Vec<Published>,
) -> Option<Card> {
    let Action::Call(call) = &pending.action else {
        return None;
    };
    let name = page_line(&call.target.name, NAME_CAP);
    let arguments = argument_rows(&call.arguments);
    let key = call
        .target
        .tool(world.registry)
        .and_then(|t| t.provenance.asked_as().map(str::to_owned));
    let from = page_line(
        &key.as_deref()
            .map_or_else(|| "this script".to_owned(), scripts_named),
        URL_CAP,
    );
    let mut lines = vec![Line::ours("The agent wants to call \u{201c}")
        .quote(name.clone())
        .say(format!("\u{201d} on {site}."))];
    if let Some(broken) = &call.broken {
        lines.push(broken_line(&name, broken));
    }
    lines.push(Line::ours(
        "A script from another site can add tools to a page, under any name, and make them say anything.",
    ));
    Some(Card {
        card_id,
        kind: CardKind::Script,
        asked_by,
        heading: Line::default().quote(name.clone()),
        lines,
        tool: Some(name),
        class: Some(call.class.label()),
        rule: None,
        asked_because: None,
        argument_count: Some(argument_count(&arguments)),
        arguments,
        changed: None,
        after_untrusted: !call.untrusted.is_empty(),
        untrusted: untrusted_lines(&call.untrusted),
        publishes,
        approve: choice(
            "Allow this call only",
            Answer::Script(ScriptAnswer::AllowOnce),
        ),
        approve_menu: vec![choice(
            Line::ours("Allow tools from ")
                .quote(from.clone())
                .say(" in this chat"),
            Answer::Script(ScriptAnswer::AllowForChat),
        )],
        deny: choice("Deny this call", Answer::Script(ScriptAnswer::DenyOnce)),
        deny_menu: vec![choice(
            Line::ours("Deny tools from ")
                .quote(from)
                .say(" in this chat"),
            Answer::Script(ScriptAnswer::DenyForChat),
        )],
        site,
    })
}

/// Where a tool comes from, where that is not its frame's own origin
/// (docs/cards.md, "Where a tool comes from"): the script's origin quoted.
fn provenance_line(provenance: &Provenance, site: &str) -> Option<Line> {
    match provenance {
        Provenance::Own => None,
        Provenance::Script { origin, .. } => {
            let host = origin.split_once("://").map_or(origin.as_str(), |(_, h)| h);
            Some(
                Line::ours("The tool was registered by a script from ")
                    .quote(page_line(host, URL_CAP))
                    .say(format!(", not by {site}.")),
            )
        }
        Provenance::Eval => Some(Line::ours(format!(
            "The tool was registered by code made at run time (eval), not by {site}."
        ))),
        Provenance::Unknown => Some(Line::ours(
            "The tool was registered by a script Toolgate could not see.",
        )),
    }
}

/// Why a tool's first call in a chat is asked about: it appeared on its site
/// after the chat listed the site's tools, or came back under a name the chat
/// saw with another definition (docs/cards.md, "Tools that appear after a
/// chat listed them").
fn appeared_line(name: &str, site: &str, appeared: Appeared) -> Line {
    let line = Line::ours("\u{201c}").quote(name.to_owned());
    match appeared {
        Appeared::New => line.say(format!(
            "\u{201d} appeared on {site} after this chat listed its tools."
        )),
        Appeared::Changed => line.say(format!(
            "\u{201d} was registered again on {site} after this chat listed its tools, with another definition or by another script."
        )),
    }
}

/// Why a tool that broke its hints is asked about at every call
/// (docs/classes.md, "Hints held to their word").
fn broken_line(name: &str, broken: &Broken) -> Line {
    let (head, tail) = broken.around();
    Line::ours("Toolgate asks about every call of \u{201c}")
        .quote(name.to_owned())
        .say(format!(
            "\u{201d} and treats it as Consequential: it {head}"
        ))
        .quote(page_line(&broken.to, SEEN_CAP))
        .say(format!(
            "{tail}. You can clear this in the palette or on the settings page."
        ))
}

/// Why a rule's card asks (docs/cards.md): the rule in plain words, with an
/// area, which a page names by its tag, quoted apart from Toolgate's words.
fn asks_first_line(because: &Because, site: &str) -> Line {
    let tail = "Allow once lets this call run, this once.";
    match because {
        Because::Area { area, admin } => Line::ours(if *admin {
            "It asks first because of your administrator's rule for the area "
        } else {
            "It asks first because of the rule for the area "
        })
        .quote(area_shown(area))
        .say(format!(" on {site}. {tail}")),
        _ if because.is_about_the_call() => Line::ours(format!(
            "It asks first on {site}: {}. {tail}",
            because.plain()
        )),
        _ => Line::ours(format!(
            "It asks first because of {} on {site}. {tail}",
            because.plain()
        )),
    }
}

/// Why a call is asked about after its chat read untrusted content, newest
/// source first (docs/cards.md, "After untrusted content"): the tool and its
/// site, why its content is untrusted, and the excerpt as page text.
fn untrusted_lines(read: &[Source]) -> Vec<Line> {
    let Some(newest) = read.last() else {
        return Vec::new();
    };
    let lost = read.iter().any(|s| s.found.because == Why::Lost);
    let read: Vec<&Source> = read
        .iter()
        .filter(|s| s.found.because != Why::Lost)
        .collect();
    if newest.found.because == Why::Lost {
        return vec![Line::ours(LOST_LINE)];
    }
    let (read_from, tool_cap) = match newest.read {
        Place::Result => ("This chat has read content from \u{201c}", NAME_CAP),
        Place::Listing => (
            "This chat was shown, in a listing of tools, the name, title and description of \u{201c}",
            NAME_CAP,
        ),
        Place::TabTitle => ("This chat was shown the title of the tab \u{201c}", EXCERPT_CAP),
    };
    let read_line = Line::ours(read_from)
        .quote(page_line(&newest.tool, tool_cap))
        .say(format!(
            "\u{201d} on {} that may carry someone else's instructions: ",
            site_host(&newest.site)
        ));
    // The detector's span is page text: quoted as such, never as ours.
    let read_line = match &newest.found.because {
        Why::ReadsAsInstructions { span } => read_line
            .say(format!("{READS_AS_INSTRUCTIONS}: \u{201c}"))
            .quote(page_line(span, EXCERPT_CAP))
            .say("\u{201d}"),
        because => read_line.say(because.plain()),
    };
    let mut lines = vec![
        read_line.say(". Check that this call is what you asked for."),
        Line::ours("What it read: \u{201c}")
            .quote(page_line(&newest.found.excerpt, EXCERPT_CAP))
            .say("\u{201d}"),
    ];
    if read.len() > 1 {
        let others = read.len() - 1;
        let tools = if others == 1 { "tool" } else { "tools" };
        lines.push(Line::ours(format!(
            "This chat read such content from {others} other {tools} too."
        )));
    }
    if lost {
        lines.push(Line::ours(
            "Toolgate also had to forget some of what this chat read before, to keep within its storage.",
        ));
    }
    lines
}

/// What a card says of a chat whose record of untrusted content Toolgate
/// had to forget (docs/agents.md, "Chats").
const LOST_LINE: &str = "Toolgate had to forget what this chat read, to keep within its storage, so it treats the chat as having read content that may carry someone else's instructions. Check that this call is what you asked for.";
