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

use std::sync::OnceLock;

/// Whether `c` is hidden: controls (general category Cc: C0, C1 and DEL),
/// format characters (Cf: the bidi marks, embeddings, overrides and
/// isolates, zero-width spaces and joiners, U+FEFF), the line and paragraph
/// separators (Zl, Zp), and every code point Unicode calls
/// Default_Ignorable_Code_Point, which shows as nothing where a font does not
/// draw it: the tag characters, the variation selectors, the combining
/// grapheme joiner (U+034F), the Hangul fillers and the code points kept for
/// more of them ([`default_ignorable`]). Line feeds and tabs are controls too;
/// where a text is shown as a block they are kept ([`hidden_in_block`]).
pub fn hidden(c: char) -> bool {
    // Without the tables where a text mostly is: ASCII, the Latin, Greek,
    // Cyrillic, Armenian and Hebrew letters (below U+0600, where the only
    // hidden characters are the C1 controls, the soft hyphen and the
    // combining grapheme joiner), the dashes, quotes and dots of
    // U+2010–U+2027, the kana, the CJK ideographs and the Hangul syllables.
    // A test holds these to the tables.
    match c {
        '\0'..='\u{7F}' => c.is_ascii_control(),
        '\u{80}'..='\u{5FF}' => matches!(c, '\u{80}'..='\u{9F}' | '\u{AD}' | '\u{34F}'),
        '\u{2010}'..='\u{2027}'
        | '\u{3040}'..='\u{30FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7A3}' => false,
        _ => by_category(c) || default_ignorable(c),
    }
}

/// [`hidden`]'s general categories, for any character.
fn by_category(c: char) -> bool {
    use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};
    matches!(
        c.general_category(),
        G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator
    )
}

/// The ranges of a binary Unicode property, as regex-syntax's tables hold
/// it (they are in the core already, for the schemas' patterns:
/// ARCHITECTURE.md, "Budgets"); empty only if the name were unknown, which a
/// test rules out for each name used.
fn property(name: &str) -> Vec<(char, char)> {
    use regex_syntax::hir::{Class, HirKind};
    match regex_syntax::Parser::new()
        .parse(&format!("\\p{{{name}}}"))
        .map(regex_syntax::hir::Hir::into_kind)
    {
        Ok(HirKind::Class(Class::Unicode(class))) => class
            .ranges()
            .iter()
            .map(|range| (range.start(), range.end()))
            .collect(),
        _ => Vec::new(),
    }
}

fn within(ranges: &[(char, char)], c: char) -> bool {
    use std::cmp::Ordering;
    ranges
        .binary_search_by(|&(start, end)| {
            if end < c {
                Ordering::Less
            } else if start > c {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

/// Whether `c` is one of Unicode's Default_Ignorable_Code_Point, which holds
/// the tag characters (U+E0000–U+E007F) too.
pub fn default_ignorable(c: char) -> bool {
    static SET: OnceLock<Vec<(char, char)>> = OnceLock::new();
    within(
        SET.get_or_init(|| property("Default_Ignorable_Code_Point")),
        c,
    )
}

/// Whether `c` is an ideograph (Unicode's Ideographic: the CJK ideographs
/// and their kin), after which a variation selector picks a glyph.
fn ideograph(c: char) -> bool {
    static SET: OnceLock<Vec<(char, char)>> = OnceLock::new();
    within(SET.get_or_init(|| property("Ideographic")), c)
}

/// Whether the hidden character `c`, after the character `before`, hides
/// text however few of it there are: a variation selector that selects
/// nothing, or an ignorable code point Unicode has not assigned. A variation
/// selector is ordinary after an emoji (U+FE0E, U+FE0F: text or emoji
/// presentation) and after an ideograph (U+FE00–U+FE0F, and VS17–256,
/// U+E0100–U+E01EF: a glyph of the Ideographic Variation Database); one
/// anywhere else, or after another selector, carries what it was put there
/// to carry (docs/cards.md, "After untrusted content").
pub fn hides_alone(before: Option<char>, c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};
    let after_emoji = before.is_some_and(|b| b.is_emoji_char());
    let after_ideograph = before.is_some_and(ideograph);
    match c {
        '\u{FE0E}' | '\u{FE0F}' => !(after_emoji || after_ideograph),
        '\u{FE00}'..='\u{FE0D}' | '\u{E0100}'..='\u{E01EF}' => !after_ideograph,
        _ => default_ignorable(c) && c.general_category() == GeneralCategory::Unassigned,
    }
}

/// Whether the tag character at byte offset `at` of `text` belongs to an
/// emoji flag of a region (Unicode's emoji tag sequence, UTS #51): the black
/// flag U+1F3F4, two to seven tags of a lower-case letter or digit (a
/// region's code: "gbeng" for England), and the cancel tag U+E007F. Such a
/// flag is what people see; the tags of anything longer or otherwise made
/// carry text. At most nine characters around `at` are read.
pub fn in_region_flag(text: &str, at: usize) -> bool {
    let code = |c: char| matches!(c, '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}');
    let Some(c) = text[at..].chars().next() else {
        return false;
    };
    if !(code(c) || c == '\u{E007F}') {
        return false;
    }
    // Back to the flag: the code's tags before `at`.
    let mut before = text[..at].chars().rev();
    let mut start_tags = 0;
    let base = loop {
        match before.next() {
            Some(t) if code(t) && start_tags < 7 => start_tags += 1,
            other => break other,
        }
    };
    if base != Some('\u{1F3F4}') {
        return false;
    }
    // On to the cancel tag.
    for (more, t) in text[at..].chars().enumerate() {
        let tags = start_tags + more;
        if t == '\u{E007F}' {
            return (2..=7).contains(&tags);
        }
        if !code(t) || tags == 7 {
            return false;
        }
    }
    false
}

/// Whether `c` is hidden in a text shown as a block of its own (a
/// description, a schema, a skill's instructions): as [`hidden`], except
/// that line feeds and tabs are the block's own layout.
pub fn hidden_in_block(c: char) -> bool {
    hidden(c) && !matches!(c, '\n' | '\t')
}

/// The characters of `text` that Toolgate's pages show as escapes, and the
/// lint `hidden_characters` notes: the [`hidden`] ones (in a block,
/// [`hidden_in_block`]), except a variation selector in its ordinary use
/// (after an emoji or an ideograph: [`hides_alone`]), which people see as the
/// glyph it picks. A joiner inside an emoji is shown: a page's text is read,
/// not composed (docs/cards.md, "How page text is shown").
pub fn escapes(text: &str, block: bool) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut before = None;
    text.char_indices().filter(move |&(_, c)| {
        let escaped = escaped(before, c, block);
        before = Some(c);
        escaped
    })
}

fn escaped(before: Option<char>, c: char, block: bool) -> bool {
    let hidden = if block { hidden_in_block(c) } else { hidden(c) };
    let selector = matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}');
    // A selector in its ordinary use is seen, as the glyph it picks.
    hidden && (!selector || hides_alone(before, c))
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
    if text.len() <= cap && escapes(text, block).next().is_none() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len().min(cap.saturating_mul(4)));
    // Characters shown so far, and where the text stood when one more
    // character of the cap was still free for the "…".
    let mut count = 0;
    let mut cut_at = None;
    let mut before = None;
    for c in text.chars() {
        let start = out.len();
        let width = if escaped(before, c, block) {
            let escape = format!("\u{27E8}U+{:04X}\u{27E9}", u32::from(c));
            let width = escape.chars().count();
            out.push_str(&escape);
            width
        } else {
            out.push(c);
            1
        };
        before = Some(c);
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
    fn the_shortcuts_agree_with_the_tables() {
        let shortcuts = ('\0'..='\u{5FF}')
            .chain('\u{2010}'..='\u{2027}')
            .chain('\u{3040}'..='\u{30FF}')
            .chain('\u{3400}'..='\u{4DBF}')
            .chain('\u{4E00}'..='\u{9FFF}')
            .chain('\u{AC00}'..='\u{D7A3}');
        for c in shortcuts {
            let table = by_category(c) || default_ignorable(c);
            assert_eq!(hidden(c), table, "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn every_default_ignorable_code_point_is_hidden_and_shown_as_an_escape() {
        // Variation selectors, the combining grapheme joiner, Mongolian
        // selectors, Khmer's inherent vowels, the Hangul fillers, the tags,
        // and the code points kept for more of them.
        for c in [
            '\u{34F}',
            '\u{17B4}',
            '\u{180B}',
            '\u{180F}',
            '\u{115F}',
            '\u{2065}',
            '\u{3164}',
            '\u{FE00}',
            '\u{FE0F}',
            '\u{FFA0}',
            '\u{FFF0}',
            '\u{E0001}',
            '\u{E0041}',
            '\u{E0100}',
            '\u{E01EF}',
            '\u{E0FFF}',
        ] {
            assert!(default_ignorable(c), "U+{:04X}", u32::from(c));
            assert!(hidden(c), "U+{:04X}", u32::from(c));
            assert_eq!(
                page_line(&format!("a{c}b"), 40),
                format!("a\u{27E8}U+{:04X}\u{27E9}b", u32::from(c))
            );
        }
        for c in [
            'a',
            '\u{E9}',
            '\u{5D0}',
            '\u{4E00}',
            '\u{2764}',
            '\u{1F600}',
            '\u{300}',
        ] {
            assert!(!hidden(c), "U+{:04X}", u32::from(c));
        }
        assert!(ideograph('\u{845B}') && ideograph('\u{20000}') && !ideograph('a'));
        // A selector in its ordinary use shows as the glyph it picks; a
        // stray one, or one after another, is shown for what it is.
        assert_eq!(
            page_line("\u{2764}\u{FE0F} \u{845B}\u{E0100}", 40),
            "\u{2764}\u{FE0F} \u{845B}\u{E0100}"
        );
        assert_eq!(
            page_line("a\u{FE0F} \u{2764}\u{FE0F}\u{FE0F} x\u{34F}y", 80),
            "a\u{27E8}U+FE0F\u{27E9} \u{2764}\u{FE0F}\u{27E8}U+FE0F\u{27E9} x\u{27E8}U+034F\u{27E9}y"
        );
    }

    #[test]
    fn a_variation_selector_hides_text_alone_only_outside_its_ordinary_uses() {
        // After an emoji, a keycap's digit or an ideograph: a glyph chosen.
        assert!(!hides_alone(Some('\u{2764}'), '\u{FE0F}'));
        assert!(!hides_alone(Some('1'), '\u{FE0F}'));
        assert!(!hides_alone(Some('\u{1F3F3}'), '\u{FE0E}'));
        assert!(!hides_alone(Some('\u{845B}'), '\u{E0100}'));
        assert!(!hides_alone(Some('\u{585A}'), '\u{FE00}'));
        // Anywhere else, or one after another: a byte smuggled.
        assert!(hides_alone(Some('a'), '\u{FE0F}'));
        assert!(hides_alone(None, '\u{FE0F}'));
        assert!(hides_alone(Some('\u{1F600}'), '\u{E0100}'));
        assert!(hides_alone(Some('\u{FE0F}'), '\u{FE0F}'));
        assert!(hides_alone(Some('\u{1F600}'), '\u{FE01}'));
        // Unassigned ignorables have no use; the joiners, soft hyphen and
        // marks count only in runs (`page::untrusted`).
        assert!(hides_alone(Some('a'), '\u{2065}'));
        assert!(hides_alone(Some('a'), '\u{FFF3}'));
        for c in ['\u{AD}', '\u{200D}', '\u{200F}', '\u{34F}', '\u{180B}'] {
            assert!(!hides_alone(Some('a'), c), "U+{:04X}", u32::from(c));
        }
    }
}
