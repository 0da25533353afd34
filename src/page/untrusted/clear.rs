//! A quick first look at a result's JSON text, which clears most honest
//! results without reading each string (`untrusted` reads the rest). It
//! runs over the text once, byte by byte, and says a result is clear only
//! when no string in it can hold hidden text or a phrase addressed to the
//! model, as `untrusted` finds them:
//!
//! - Hidden text needs a hidden character. One that is not ASCII is in the
//!   text as it is, and is seen; an ASCII one can only be in a JSON string as
//!   an escape other than `\n`, `\t` and `\r` (the text's own layout): `\b`,
//!   `\f` or `\u`. Any of these, or any hidden character, and the result is
//!   not clear.
//! - Without them, a string's characters are the text's own, or the escapes
//!   `\n`, `\t`, `\r` (whitespace), `\"`, `\\` and `\/` (in no phrase). The
//!   text the phrases are matched on (`addressed`) then differs from the
//!   string only in case, in whitespace (a run of it is one space) and in the
//!   typographic apostrophes made plain: a phrase it holds is in the JSON
//!   text with its letters in any case, each space one or more whitespace
//!   characters or escapes, and its apostrophe any of them. No lower case
//!   of a character that is not ASCII is part of a phrase (a test in
//!   `addressed` holds the two that are ASCII to it). So a result is not
//!   clear where a phrase is in the text so; where its words stand does not
//!   matter here, which only makes the look more careful.

use crate::page::addressed::PHRASES;
use crate::page::hidden::hidden;

/// For each byte, the phrases (bits over `PHRASES`) that begin with it, in
/// either case.
const STARTS: [u16; 256] = {
    let mut starts = [0_u16; 256];
    let mut k = 0;
    while k < PHRASES.len() {
        let first = PHRASES[k].as_bytes()[0];
        starts[first as usize] |= 1 << k;
        starts[first.to_ascii_uppercase() as usize] |= 1 << k;
        k += 1;
    }
    starts
};

/// The bytes the look stops at: where a phrase may begin, an escape, and
/// the first byte of a character that is not ASCII. Most of a text is none.
const STOPS: [bool; 256] = {
    let mut stops = [false; 256];
    let mut b = 0;
    while b < 256 {
        stops[b] = STARTS[b] != 0 || b == b'\\' as usize || b >= 0x80;
        b += 1;
    }
    stops
};

/// How many bytes at `at` are one whitespace character, or an escape of
/// one (`\n`, `\t`, `\r`); 0 for anything else.
fn whitespace(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes.get(at) {
        Some(b' ' | b'\t' | b'\n' | b'\r') => 1,
        Some(b'\\') if matches!(bytes.get(at + 1), Some(b'n' | b't' | b'r')) => 2,
        Some(&b) if !b.is_ascii() => text[at..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
            .map_or(0, char::len_utf8),
        _ => 0,
    }
}

/// Whether `phrase` is at byte `at` of `text`, as the module says.
fn at_phrase(text: &str, mut at: usize, phrase: &str) -> bool {
    let bytes = text.as_bytes();
    for &p in phrase.as_bytes() {
        match p {
            b' ' => {
                let mut n = whitespace(text, at);
                if n == 0 {
                    return false;
                }
                while n > 0 {
                    at += n;
                    n = whitespace(text, at);
                }
            }
            b'\'' => {
                let rest = &bytes[at..];
                at += match rest {
                    [b'\'', ..] => 1,
                    // U+2018 and U+2019, and U+02BC.
                    [0xE2, 0x80, 0x98 | 0x99, ..] => 3,
                    [0xCA, 0xBC, ..] => 2,
                    _ => return false,
                };
            }
            _ => {
                if bytes.get(at).map(u8::to_ascii_lowercase) != Some(p) {
                    return false;
                }
                at += 1;
            }
        }
    }
    true
}

/// Whether the JSON text `text` is clear: none of its strings can hold
/// hidden text or a phrase addressed to the model (the module says how).
pub fn clear(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    loop {
        while bytes.get(at).is_some_and(|&b| !STOPS[usize::from(b)]) {
            at += 1;
        }
        let Some(&byte) = bytes.get(at) else {
            return true;
        };
        if byte == b'\\' {
            match bytes.get(at + 1) {
                Some(b'u' | b'b' | b'f') => return false,
                // The escaped character is in no phrase's first place.
                Some(next) if next.is_ascii() => at += 2,
                // Not JSON: the next character is read as any other.
                _ => at += 1,
            }
            continue;
        }
        if !byte.is_ascii() {
            let Some(c) = text[at..].chars().next() else {
                return false;
            };
            if hidden(c) {
                return false;
            }
            at += c.len_utf8();
            continue;
        }
        let mut candidates = STARTS[usize::from(byte)];
        let next = bytes.get(at + 1).map(u8::to_ascii_lowercase);
        while candidates != 0 {
            let k = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            // Most candidates differ at once ("it", "do", "so"); no phrase's
            // second character is a space or an apostrophe.
            let phrase = PHRASES[k];
            if next == phrase.as_bytes().get(1).copied() && at_phrase(text, at, phrase) {
                return false;
            }
        }
        at += 1;
    }
}
