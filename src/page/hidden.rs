//! Characters people do not see: controls, format characters (the bidi
//! controls among them), line and paragraph separators and the Hangul
//! fillers. Toolgate's pages show them as escapes (docs/cards.md, "How page
//! text is shown"), and a title, description or skill's instructions that
//! holds them gets a lint note (docs/classes.md, "Lint notes"): one
//! predicate for both, here with the page facts, since views import page
//! facts and never the other way (ARCHITECTURE.md, "Layers of the core").
//! Page text as shown (escaped and cut: `page_line`, `page_block`) is here
//! too, for the same reason: the rules' words name a page's areas and
//! property names.

/// Whether `c` is hidden: controls (general category Cc: C0, C1 and DEL),
/// format characters (Cf: the bidi marks, embeddings, overrides and
/// isolates, zero-width spaces and joiners, U+FEFF, the tag characters), the
/// line and paragraph separators (Zl, Zp), and the Hangul fillers, letters
/// that show as nothing. Line feeds and tabs are controls too; where a text
/// is shown as a block they are kept ([`hidden_in_block`]).
pub fn hidden(c: char) -> bool {
    // Without the table where a text mostly is: ASCII, the Latin, Greek,
    // Cyrillic, Armenian and Hebrew letters (below U+0600, where the only
    // hidden characters are the C1 controls and the soft hyphen), and the
    // dashes, quotes and dots of U+2010–U+2027. A test holds these to the table.
    match c {
        '\0'..='\u{7F}' => c.is_ascii_control(),
        '\u{80}'..='\u{5FF}' => matches!(c, '\u{80}'..='\u{9F}' | '\u{AD}'),
        '\u{2010}'..='\u{2027}' => false,
        _ => by_category(c),
    }
}

/// [`hidden`] as Unicode's general categories say it, for any character.
fn by_category(c: char) -> bool {
    use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};
    matches!(
        c.general_category(),
        G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator
    ) || matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// Whether `c` is hidden in a text shown as a block of its own (a
/// description, a schema, a skill's instructions): as [`hidden`], except
/// that line feeds and tabs are the block's own layout.
pub fn hidden_in_block(c: char) -> bool {
    hidden(c) && !matches!(c, '\n' | '\t')
}

/// At most this many characters of a title (a tool's, a tab's) are shown.
pub const TITLE_CAP: usize = 120;
/// A tool's name: the name rule allows 128 characters (docs/classes.md).
pub const NAME_CAP: usize = 128;
/// A tab's URL: its host comes first, so a cut never hides it.
pub const URL_CAP: usize = 200;
/// A chat's name (from an agent, not a page, but not Toolgate's words either).
pub const CHAT_CAP: usize = 80;
/// An argument's name.
pub const ARGUMENT_NAME_CAP: usize = 64;
/// An argument's value.
pub const ARGUMENT_VALUE_CAP: usize = 500;
/// A tool's description in the palette.
pub const DESCRIPTION_CAP: usize = 1000;
/// An input schema or a skill's instructions in the palette.
pub const BLOCK_CAP: usize = 4000;

/// What ends a cut text.
pub const ELLIPSIS: char = '\u{2026}';

/// One line of page text as shown: every control and bidi character
/// escaped, line feeds and tabs included, and at most `cap` characters (an
/// escape counts its full width, and is never split); a longer text ends in
/// "…" within the cap.
pub fn page_line(text: &str, cap: usize) -> String {
    shown(text, cap, false)
}

/// Page text shown as a block of its own (a description, a schema, a skill's
/// instructions): as [`page_line`], except that line feeds and tabs are kept.
pub fn page_block(text: &str, cap: usize) -> String {
    shown(text, cap, true)
}

fn shown(text: &str, cap: usize, block: bool) -> String {
    // Most page text is short and plain: shown as it is, without a walk.
    let escaped = |c: char| if block { hidden_in_block(c) } else { hidden(c) };
    let plain = |c: char| !escaped(c);
    if text.len() <= cap && text.chars().all(plain) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len().min(cap.saturating_mul(4)));
    // Characters shown so far, and where the text stood when one more
    // character of the cap was still free for the "…".
    let mut count = 0;
    let mut cut_at = None;
    for c in text.chars() {
        let start = out.len();
        let width = if escaped(c) {
            let escape = format!("\u{27E8}U+{:04X}\u{27E9}", u32::from(c));
            let width = escape.chars().count();
            out.push_str(&escape);
            width
        } else {
            out.push(c);
            1
        };
        if count + width > cap.saturating_sub(1) && cut_at.is_none() {
            cut_at = Some(start);
        }
        count += width;
        if count > cap {
            out.truncate(cut_at.unwrap_or(start));
            out.push(ELLIPSIS);
            return out;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortcuts_agree_with_the_general_categories() {
        let shortcuts = ('\0'..='\u{5FF}').chain('\u{2010}'..='\u{2027}');
        for c in shortcuts {
            assert_eq!(hidden(c), by_category(c), "U+{:04X}", u32::from(c));
        }
    }
}
