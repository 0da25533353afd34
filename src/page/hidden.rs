//! Characters people do not see: controls, format characters (the bidi
//! controls among them), line and paragraph separators and the Hangul
//! fillers. Toolgate's pages show them as escapes (docs/cards.md, "How page
//! text is shown"), and a title, description or skill's instructions that
//! holds them gets a lint note (docs/classes.md, "Lint notes"): one
//! predicate for both, here with the page facts, since views import page
//! facts and never the other way (ARCHITECTURE.md, "Layers of the core").

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
