//! Page-chosen text as Toolgate's pages show it (docs/cards.md, "How page
//! text is shown"): cut to a length, with its control characters and bidi
//! controls shown as visible escapes (`⟨U+202E⟩`) instead of obeyed, and kept
//! apart from Toolgate's own words, so a page can neither reorder nor
//! imitate a card's sentences.

use serde::Serialize;
use std::fmt;

pub use crate::page::hidden::{
    page_block, page_line, ARGUMENT_NAME_CAP, ARGUMENT_VALUE_CAP, BLOCK_CAP, CHAT_CAP,
    DESCRIPTION_CAP, ELLIPSIS, NAME_CAP, TITLE_CAP, URL_CAP,
};

/// Page text of a kind Toolgate's own pages name when they show it raw
/// (the agent console, which sees what an agent sees): a title, a name, a
/// URL, a description, a schema or a skill's instructions, an argument's
/// value, or a tool's result; and, for the set-apart page, an area a rule
/// names and a property a condition tests (as cards show them) when no open
/// tab publishes them. `None` for a kind not known.
pub fn page_text_as(text: &str, kind: &str) -> Option<String> {
    Some(match kind {
        "title" => page_line(text, TITLE_CAP),
        "name" => page_line(text, NAME_CAP),
        "url" => page_line(text, URL_CAP),
        "value" => page_line(text, ARGUMENT_VALUE_CAP),
        "description" => page_block(text, DESCRIPTION_CAP),
        "schema" => page_block(text, BLOCK_CAP),
        // A result is shown whole (its size is capped where it is read):
        // escaped, never cut.
        "result" => page_block(text, usize::MAX),
        "area" => crate::decisions::rules::area_shown(text),
        "argument" => crate::decisions::rules::conditions::path_shown(text),
        _ => return None,
    })
}

/// A piece of a card's text: Toolgate's own words, or text it quotes (from a
/// page, or an agent's name for its chat), which a card shows in an element
/// of its own, isolated from the words around it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Toolgate(String),
    /// Already cut and escaped ([`page_line`]).
    Page(String),
}

/// One line of a card: its parts, in order. As text (`Display`), the line
/// reads as a person reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Line(pub Vec<Part>);

impl Line {
    /// A line of Toolgate's words only.
    pub fn ours(text: impl Into<String>) -> Self {
        Line(vec![Part::Toolgate(text.into())])
    }

    /// Adds Toolgate's words.
    #[must_use]
    pub fn say(mut self, text: impl Into<String>) -> Self {
        self.0.push(Part::Toolgate(text.into()));
        self
    }

    /// Adds page text, shown apart; `text` must already be cut and escaped.
    #[must_use]
    pub fn quote(mut self, text: impl Into<String>) -> Self {
        self.0.push(Part::Page(text.into()));
        self
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.0 {
            let (Part::Toolgate(text) | Part::Page(text)) = part;
            f.write_str(text)?;
        }
        Ok(())
    }
}

impl PartialEq<str> for Line {
    fn eq(&self, other: &str) -> bool {
        let mut rest = other;
        for part in &self.0 {
            let (Part::Toolgate(text) | Part::Page(text)) = part;
            match rest.strip_prefix(text.as_str()) {
                Some(after) => rest = after,
                None => return false,
            }
        }
        rest.is_empty()
    }
}

impl PartialEq<&str> for Line {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_controls_are_shown_not_obeyed() {
        for (c, shown) in [
            ('\u{0}', "⟨U+0000⟩"),
            ('\n', "⟨U+000A⟩"),
            ('\u{7f}', "⟨U+007F⟩"),
            ('\u{85}', "⟨U+0085⟩"),
            ('\u{9f}', "⟨U+009F⟩"),
            ('\u{200e}', "⟨U+200E⟩"),
            ('\u{200f}', "⟨U+200F⟩"),
            ('\u{202a}', "⟨U+202A⟩"),
            ('\u{202e}', "⟨U+202E⟩"),
            ('\u{2066}', "⟨U+2066⟩"),
            ('\u{2069}', "⟨U+2069⟩"),
            ('\u{061c}', "⟨U+061C⟩"),
            ('\u{2028}', "⟨U+2028⟩"),
            ('\u{2029}', "⟨U+2029⟩"),
            // Text that shows as nothing: zero-width space, non-joiner and
            // joiner, word joiner, the byte-order mark, a tag character,
            // the soft hyphen, a Hangul filler.
            ('\u{200b}', "⟨U+200B⟩"),
            ('\u{200c}', "⟨U+200C⟩"),
            ('\u{200d}', "⟨U+200D⟩"),
            ('\u{2060}', "⟨U+2060⟩"),
            ('\u{feff}', "⟨U+FEFF⟩"),
            ('\u{e0041}', "⟨U+E0041⟩"),
            ('\u{ad}', "⟨U+00AD⟩"),
            ('\u{3164}', "⟨U+3164⟩"),
        ] {
            assert_eq!(page_line(&format!("a{c}b"), 120), format!("a{shown}b"));
        }
        // Letters of right-to-left scripts are text, and stay as they are.
        assert_eq!(page_line("שלום مرحبا", 120), "שלום مرحبا");
        // So are accents, emoji and their variation selectors.
        assert_eq!(page_line("café ☕ ❤\u{fe0f}", 120), "café ☕ ❤\u{fe0f}");
        // A block keeps its line feeds and tabs, and nothing else.
        assert_eq!(
            page_block("a\n\tb\r\u{202e}", 120),
            "a\n\tb⟨U+000D⟩⟨U+202E⟩"
        );
    }

    #[test]
    fn each_kind_of_page_text_has_its_cap_and_a_result_is_never_cut() {
        let long = "x\n".repeat(5000);
        assert_eq!(
            page_text_as(&"x".repeat(5000), "title")
                .expect("a kind")
                .chars()
                .count(),
            TITLE_CAP
        );
        assert_eq!(
            page_text_as(&long, "description")
                .expect("a kind")
                .chars()
                .count(),
            DESCRIPTION_CAP
        );
        assert_eq!(page_text_as(&long, "result").expect("a kind"), long);
        assert_eq!(
            page_text_as("ok\u{202e}", "result").expect("a kind"),
            "ok⟨U+202E⟩"
        );
        assert_eq!(page_text_as("x", "cards"), None);
    }

    #[test]
    fn a_long_text_is_cut_within_its_cap_and_an_escape_is_never_split() {
        assert_eq!(page_line(&"x".repeat(120), 120), "x".repeat(120));
        assert_eq!(
            page_line(&"x".repeat(121), 120),
            format!("{}…", "x".repeat(119))
        );
        // 8 characters an escape: 14 of them (112) fit in 119, the 15th does not.
        let shown = page_line(&"\u{202e}".repeat(100), 120);
        assert_eq!(shown, format!("{}…", "⟨U+202E⟩".repeat(14)));
        assert!(shown.chars().count() <= 120);
        // Exactly at the cap, with an escape last: not cut.
        let text = format!("{}\u{202e}", "x".repeat(112));
        assert_eq!(page_line(&text, 120).chars().count(), 120);
        assert!(!page_line(&text, 120).ends_with('…'));
    }

    #[test]
    fn a_line_reads_as_its_parts_in_order() {
        let line = Line::ours("in the tab “").quote("Notes").say("”");
        assert_eq!(line, "in the tab “Notes”");
        assert_eq!(
            serde_json::to_value(&line).expect("JSON"),
            serde_json::json!([{"toolgate": "in the tab “"}, {"page": "Notes"}, {"toolgate": "”"}])
        );
    }
}
