//! The tools palette: what a tab publishes, grouped by site, as the popup and
//! `self.toolgate.palette(tabId)` show it. Every row carries the tool's name
//! as well as its title, since a title is the page's to choose and may copy
//! another tool's (docs/cards.md, "How page text is shown"); page text is cut
//! and escaped here (`views::text`), except `input_schema`, the page's JSON as
//! it is (`schema` is how it is shown).

use crate::decisions::rules::{Level, RuleBook, RuleFacts};
use crate::page::classify::{Badge, Class, Severity};
use crate::page::conduct::SEEN_CAP;
use crate::page::declaration::{Kind, Path};
use crate::page::registry::{FrameId, Registry, TabId};
use crate::views::text::{page_block, page_line, BLOCK_CAP, DESCRIPTION_CAP, NAME_CAP, TITLE_CAP};
use serde::Serialize;

/// One row of the palette.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// The name, as shown (the name rule leaves nothing to escape).
    pub name: String,
    /// The page's title, cut and escaped, shown beside the name, never instead of it.
    pub title: Option<String>,
    pub kind: Kind,
    /// The class's label; `None` for skills.
    pub class: Option<Class>,
    /// The badge the palette shows: the class's label, or "Skill".
    pub badge: &'static str,
    pub badges: Vec<Badge>,
    /// The deciding rule in plain words; `None` for skills.
    pub rule: Option<String>,
    /// What agents may do with it under its site's rules, and which rule
    /// says so (docs/rules.md); `None` for skills and sites without rules.
    pub agents: Option<String>,
    pub lints: Vec<Note>,
    /// Seen doing more than its hints said, in plain words, the page's part
    /// escaped: treated as Consequential on its site until the person clears
    /// it (docs/classes.md, "Hints held to their word").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broke: Option<String>,
    pub description: String,
    /// The input schema as the page gave it (JSON text).
    pub input_schema: Option<String>,
    /// The input schema as the palette shows it: indented, cut and escaped.
    pub schema: Option<String>,
    pub instructions: Option<String>,
    pub path: Path,
    pub site: String,
    pub frame_id: FrameId,
    /// Where it comes from, where that is not its frame's own origin:
    /// "registered by a script from cdn.example", escaped (docs/classes.md,
    /// "Where a tool comes from").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<String>,
}

/// A lint note for the developer (docs/classes.md, "Lint notes").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Note {
    pub kind: &'static str,
    pub severity: Severity,
    /// In plain words, cut and escaped (an unreadable declaration's reason may quote the page).
    pub text: String,
}

/// The tools of one site (one origin) in the tab; those another origin's
/// script registered are grouped apart, by that script's origin.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub site: String,
    /// For a group apart: "registered by a script from cdn.example".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<String>,
    pub entries: Vec<Entry>,
}

/// A skill's badge (docs/classes.md, "Badges").
pub const SKILL: &str = "Skill";

/// The palette of one tab: groups in the order their sites first appear
/// (the top frame first), entries in registration order.
pub fn palette(registry: &Registry, tab_id: TabId) -> Vec<Group> {
    palette_under(registry, tab_id, &RuleBook::default())
}

/// What agents may do with a tool under its site's rules, in plain words.
fn agents_line(rules: &RuleBook, site: &str, facts: RuleFacts) -> Option<String> {
    let site = rules.sites.get(site)?;
    let (level, because) = site.level(facts);
    let unattended = if level == Level::AskFirst && rules.unattended {
        " (Off while Toolgate runs unattended)"
    } else {
        ""
    };
    // Its conditions and limits after the rule (docs/rules.md).
    let more = site.more_words(facts, &because);
    Some(format!(
        "What agents may do: {}{unattended}, by {}{more}.",
        level.label(),
        because.text()
    ))
}

/// The palette with each tool's level under its site's rules.
pub fn palette_under(registry: &Registry, tab_id: TabId, rules: &RuleBook) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for frame in registry.frames(tab_id) {
        let site = frame.site();
        for tool in &frame.tools {
            let registered_by = tool.provenance.shown().map(|s| page_line(&s, NAME_CAP));
            let index = match groups
                .iter()
                .position(|g| g.site == site && g.registered_by == registered_by)
            {
                Some(i) => i,
                None => {
                    groups.push(Group {
                        site: site.clone(),
                        registered_by: registered_by.clone(),
                        entries: Vec::new(),
                    });
                    groups.len() - 1
                }
            };
            let decl = &tool.decl;
            let verdict = &tool.verdict;
            let broken = registry.flags.of(&site, &decl.name);
            let mut badges = verdict.badges.clone();
            if broken.is_some_and(|b| b.off_site) && !badges.contains(&Badge::OffSite) {
                badges.push(Badge::OffSite);
            }
            groups[index].entries.push(Entry {
                name: page_line(&decl.name, NAME_CAP),
                title: decl.title.as_deref().map(|t| page_line(t, TITLE_CAP)),
                kind: decl.kind,
                class: verdict.class,
                badge: verdict.class.map_or(SKILL, Class::label),
                badges,
                // An unreadable declaration's reason may quote the page.
                rule: verdict
                    .rule
                    .as_ref()
                    .map(|r| page_block(&r.explain(), DESCRIPTION_CAP)),
                agents: RuleFacts::of(tool).and_then(|facts| agents_line(rules, &site, facts)),
                lints: verdict
                    .lints
                    .iter()
                    .map(|l| Note {
                        kind: l.kind(),
                        severity: l.severity(decl.path),
                        text: page_block(&l.explain_on(decl.path), DESCRIPTION_CAP),
                    })
                    .collect(),
                broke: broken.map(|b| b.text(&page_line(&b.to, SEEN_CAP))),
                description: page_block(&decl.description, DESCRIPTION_CAP),
                input_schema: decl.input_schema.clone(),
                schema: decl
                    .input_schema
                    .as_deref()
                    .map(|s| page_block(&indented(s), BLOCK_CAP)),
                instructions: decl
                    .instructions
                    .as_deref()
                    .map(|i| page_block(i, BLOCK_CAP)),
                path: decl.path,
                site: site.clone(),
                frame_id: frame.frame_id,
                registered_by,
            });
        }
    }
    groups
}

/// JSON text indented two spaces a level, its members in the page's order;
/// text that is not JSON is returned as it is. Its strings are decoded, so
/// an escape such as `\u202e` becomes the character it stands for, which
/// `page_block` then shows escaped (`⟨U+202E⟩`) like any other.
pub fn indented(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() * 2);
    let mut from = serde_json::Deserializer::from_str(text);
    let mut to = serde_json::Serializer::pretty(&mut out);
    match serde_transcode::transcode(&mut from, &mut to).and_then(|()| from.end()) {
        // serde_json writes only UTF-8.
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| text.to_owned()),
        Err(_) => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::indented;
    use crate::views::text::{page_block, BLOCK_CAP};

    #[test]
    fn a_schema_is_indented_in_its_order_and_shown_escaped() {
        let schema = r#"{"type":"object","properties":{"q":{"type":"string","description":"a\u202e, b"}},"required":[]}"#;
        assert_eq!(
            page_block(&indented(schema), BLOCK_CAP),
            "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"q\": {\n      \"type\": \"string\",\n      \"description\": \"a⟨U+202E⟩, b\"\n    }\n  },\n  \"required\": []\n}"
        );
        assert_eq!(indented("not { json"), "not { json");
        assert_eq!(indented("{} trailing"), "{} trailing");
    }
}
