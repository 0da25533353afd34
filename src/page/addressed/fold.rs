//! A character as a person reads it, for matching the phrases
//! (docs/classes.md, "Texts that talk to the agent") and for the learned
//! detector's features (`as_read_char`; docs/detector.md): its compatibility form
//! (NFKC: fullwidth and mathematical letters are letters), in lower case, as
//! Unicode's confusable skeleton (UTS #39: a Cyrillic "і" is an "i", a
//! typographic apostrophe a "'"). The skeleton decomposes what it reads, so
//! the compatibility form is taken decomposed (NFKD, which then reads as
//! NFKC does) and NFKC's composition tables stay out of the Wasm core. Each
//! character is folded alone, so a text is read in one pass; ASCII is read as
//! itself, in lower case.

/// Characters other than ASCII as the folded text holds them, one byte
/// each: a letter, digit or mark (which belongs to the letter before it), or
/// anything else. The phrases are ASCII, so such a byte is never part of
/// one; it only matters next to one.
pub const OTHER_WORD: u8 = 0xFF;
pub const OTHER: u8 = 0xFE;

/// Appends `c`, which is not ASCII, as a person reads it: ASCII bytes where
/// it reads as ASCII, [`OTHER_WORD`] or [`OTHER`] for each character that
/// does not, a space for whitespace, nothing for a hidden character (the
/// skeleton drops them).
pub fn fold(c: char, out: &mut Vec<u8>) {
    if within(&IDEOGRAPHS, c) {
        out.push(kind(c));
        return;
    }
    normalised(c, out);
}

/// Blocks of ideographs and Yi syllables whose every character folds to
/// bytes of its own kind alone, never ASCII (a test folds each): written as
/// one such byte without the normalisation and skeleton, which a text of
/// thousands of distinct ideographs would otherwise pay for one by one
/// (benches/JOURNAL.md). A run of them reads as one run either way.
const IDEOGRAPHS: [(char, char); 4] = [
    ('\u{3400}', '\u{4DBF}'),
    ('\u{4E40}', '\u{9FFF}'),
    ('\u{A000}', '\u{A48F}'),
    ('\u{20000}', '\u{3FFFD}'),
];

/// Hangul's syllables: none reads wholly as ASCII, so the detector reads
/// each as itself (`as_read_char`); the phrase reader folds each to its
/// letters (jamo), a byte each, of which some pass for ASCII (강's last
/// reads as an "o").
const HANGUL: (char, char) = ('\u{AC00}', '\u{D7A3}');

fn within(blocks: &[(char, char)], c: char) -> bool {
    blocks.iter().any(|&(a, b)| (a..=b).contains(&c))
}

/// [`fold`] by normalisation and skeleton, for every character.
fn normalised(c: char, out: &mut Vec<u8>) {
    use unicode_normalization::UnicodeNormalization;
    for compatible in std::iter::once(c).nfkd() {
        for lower in compatible.to_lowercase() {
            if lower.is_ascii() {
                out.push(lower as u8);
                continue;
            }
            // What it passes for, in ASCII where it passes for ASCII; the
            // rest keeps its own kind (a dash that passes for a letter of
            // another script is still no letter).
            let kind = kind(lower);
            let mut utf8 = [0; 4];
            for seen in unicode_security::skeleton(lower.encode_utf8(&mut utf8)) {
                for seen in seen.to_lowercase() {
                    out.push(if seen.is_ascii() { seen as u8 } else { kind });
                }
            }
        }
    }
}

/// The byte that stands for `c`, which is not ASCII.
fn kind(c: char) -> u8 {
    use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
    if c.is_whitespace() {
        b' '
    } else if c.is_alphanumeric() || c.general_category_group() == GeneralCategoryGroup::Mark {
        OTHER_WORD
    } else {
        OTHER
    }
}

/// How many characters [`Folds`] remembers, and how many bytes of each.
const SLOTS: usize = 1024;
const LONGEST: usize = 11;

/// Folds remembered by character, in slots chosen by the code point's last
/// bits: most texts use a few characters outside ASCII, each many times, and
/// a fold costs a normalisation and a table search.
#[derive(Debug, Default)]
pub struct Folds {
    slots: Vec<(char, u8, [u8; LONGEST])>,
}

impl Folds {
    /// Appends `c`, which is not ASCII, folded ([`fold`]).
    pub fn fold(&mut self, c: char, out: &mut Vec<u8>) {
        if self.slots.is_empty() {
            // NUL is ASCII, never folded: an empty slot.
            self.slots = vec![('\0', 0, [0; LONGEST]); SLOTS];
        }
        let slot = &mut self.slots[c as usize % SLOTS];
        if slot.0 == c {
            out.extend_from_slice(&slot.2[..usize::from(slot.1)]);
            return;
        }
        let from = out.len();
        fold(c, out);
        let folded = &out[from..];
        if let (Ok(len), Some(bytes)) = (u8::try_from(folded.len()), slot.2.get_mut(..folded.len()))
        {
            bytes.copy_from_slice(folded);
            slot.0 = c;
            slot.1 = len;
        }
    }
}

/// `c` folded (`fold`), for a first look that must agree with the reader
/// (`page::untrusted::clear`).
pub fn folded(c: char) -> Vec<u8> {
    let mut out = Vec::new();
    fold(c, &mut out);
    out
}

/// A text as a person's browser shows it: its HTML entities decoded once
/// (`&#105;` is an "i"). The detector reads this (docs/detector.md); the
/// span it reports is of this text.
pub fn as_read(text: &str) -> std::borrow::Cow<'_, str> {
    html_escape::decode_html_entities(text)
}

/// The most characters one character outside ASCII is read as.
pub const LONGEST_READ: usize = 8;

thread_local! {
    static FOLDS: std::cell::RefCell<(Folds, Vec<u8>)> = std::cell::RefCell::default();
}

/// `c`, not ASCII, into `read` as the characters a person reads it as (the
/// phrase list's fold: docs/classes.md): ASCII where it passes for ASCII,
/// nothing where it is hidden, else itself. How many were written.
pub fn as_read_char(c: char, read: &mut [char; LONGEST_READ]) -> usize {
    // Where no character reads wholly as ASCII (a test folds each), without the
    // fold or its cache.
    if within(&IDEOGRAPHS, c) || within(&[HANGUL], c) {
        read[0] = c;
        return 1;
    }
    folded_as_read(c, read)
}

/// [`as_read_char`] by the fold itself.
fn folded_as_read(c: char, read: &mut [char; LONGEST_READ]) -> usize {
    FOLDS.with_borrow_mut(|(folds, out)| {
        out.clear();
        folds.fold(c, out);
        if out.len() > LONGEST_READ || !out.is_ascii() {
            read[0] = c;
            return 1;
        }
        for (r, &b) in read.iter_mut().zip(out.iter()) {
            *r = char::from(b);
        }
        out.len()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_fold_to_the_letters_they_pass_for() {
        let read = |text: &str| {
            let mut out = Vec::new();
            for c in text.chars() {
                if c.is_ascii() {
                    out.push(c.to_ascii_lowercase() as u8);
                } else {
                    fold(c, &mut out);
                }
            }
            out
        };
        // Cyrillic і and о, Greek ο, fullwidth, mathematical bold, Kelvin.
        assert_eq!(read("\u{456}gn\u{43e}re"), b"ignore");
        assert_eq!(read("ign\u{3bf}re"), b"ignore");
        assert_eq!(
            read("\u{ff29}\u{ff27}\u{ff2e}\u{ff2f}\u{ff32}\u{ff25}"),
            b"ignore"
        );
        assert_eq!(
            read("\u{1d422}\u{1d420}\u{1d427}\u{1d428}\u{1d42b}\u{1d41e}"),
            b"ignore"
        );
        assert_eq!(read("\u{212a}"), b"k");
        assert_eq!(read("don\u{2019}t"), b"don't");
        // Letters that pass for none stay letters; accents stay on theirs.
        assert_eq!(read("\u{436}"), [OTHER_WORD]);
        assert_eq!(read("\u{e9}"), [b'e', OTHER_WORD]);
        assert_eq!(read("\u{3001}"), [OTHER]);
    }

    #[test]
    fn ideographs_fold_to_their_kind_without_the_normalisation() {
        for &(a, b) in &IDEOGRAPHS {
            for c in a..=b {
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                fold(c, &mut fast);
                normalised(c, &mut slow);
                // One byte of its kind, where the skeleton may give a run of
                // them (U+4ECA's is three): a reader reads either as one
                // word that passes for no ASCII.
                assert!(matches!(fast[..], [OTHER_WORD | OTHER]), "{:X}", c as u32);
                assert!(
                    !slow.is_empty() && slow.iter().all(|&b| b == fast[0]),
                    "{:X}: {slow:?}",
                    c as u32
                );
            }
        }
    }

    #[test]
    fn the_blocks_read_as_themselves_never_read_wholly_as_ascii() {
        for &(a, b) in IDEOGRAPHS.iter().chain([&HANGUL]) {
            for c in a..=b {
                // By the normalisation itself (`fold` skips it for
                // ideographs): never wholly ASCII, so the detector reads the
                // character as itself. A part may be ASCII: 강 (U+AC15) folds
                // to two letters and an "o".
                let mut slow = Vec::new();
                normalised(c, &mut slow);
                assert!(!slow.is_ascii(), "{:X}: {slow:?}", c as u32);
                let mut read = [' '; LONGEST_READ];
                assert_eq!(folded_as_read(c, &mut read), 1, "{:X}", c as u32);
                assert_eq!(read[0], c, "{:X}", c as u32);
            }
        }
    }

    #[test]
    fn entities_are_decoded_as_a_browser_decodes_them() {
        assert_eq!(as_read("&#105;gnore &amp; go"), "ignore & go");
        assert!(matches!(as_read("plain"), std::borrow::Cow::Borrowed(_)));
    }
}
