//! What a chat has read that may carry someone else's instructions
//! (docs/cards.md, "After untrusted content"). Each chat keeps the sources
//! of the untrusted content it read, for its whole life; once it holds one,
//! every call it makes of a tool that is not Read only needs a yes for that
//! call (`agent::calls`). What makes a result untrusted is the page facts'
//! (`page::untrusted`).

use crate::page::untrusted::{Because, Found};
use serde::{Deserialize, Serialize};

/// How many sources a chat keeps: the newest. One is enough to ask; the
/// rest say where else the chat read such content.
pub const SOURCES: usize = 5;

/// The tool a running call reads from, for the chat's memory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadFrom {
    pub site: String,
    pub tool: String,
    /// The tool was flagged for breaking its hints when the call started,
    /// or by the time it ended (`Session::flag_if`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flagged: bool,
}

/// One source of untrusted content a chat read: the tool (or the tab), its
/// site, when, what of it the chat read, and what made it untrusted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub site: String,
    /// The tool's name; for a tab's title, the title.
    pub tool: String,
    pub at_ms: u64,
    #[serde(default, skip_serializing_if = "Place::is_result")]
    pub read: Place,
    #[serde(flatten)]
    pub found: Found,
}

/// Where a chat read a source's text: a tool's result, or a listing
/// (docs/cards.md, "After untrusted content": listings are text the model
/// reads too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// What the tool returned.
    #[default]
    Result,
    /// The tool's name, title and description, in a listing of a tab's tools.
    Listing,
    /// A tab's title, in the listing of tabs.
    TabTitle,
}

impl Place {
    fn is_result(&self) -> bool {
        *self == Place::Result
    }
}

/// The sources a chat read, oldest first: the `SOURCES` newest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReadUntrusted(Vec<Source>);

impl ReadUntrusted {
    /// Keeps `source` as the newest (a tool read again moves up), the
    /// oldest going past `SOURCES`.
    pub fn add(&mut self, source: Source) {
        self.0
            .retain(|s| !(s.site == source.site && s.tool == source.tool));
        self.0.push(source);
        if self.0.len() > SOURCES {
            self.0.remove(0);
        }
    }

    pub fn sources(&self) -> &[Source] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The record of a chat whose sources Toolgate had to forget, to keep the
/// stored session within its share of storage (ARCHITECTURE.md, "Budgets"):
/// the chat is treated as having read untrusted content, never as clean
/// (docs/agents.md, "Chats").
pub static LOST: [Source; 1] = [Source {
    site: String::new(),
    tool: String::new(),
    at_ms: 0,
    read: Place::Result,
    found: Found {
        because: Because::Lost,
        excerpt: String::new(),
    },
}];

impl ReadUntrusted {
    /// Forgets the sources, keeping only that the chat read untrusted
    /// content whose record is gone.
    pub fn lose(&mut self) {
        self.0 = LOST.to_vec();
    }

    /// Whether the record is only that its sources were forgotten.
    pub fn is_lost(&self) -> bool {
        self.0.as_slice() == LOST.as_slice()
    }
}

/// How many bits the set of forgotten chats holds: 32 KB, written as 64 KB
/// of hexadecimal text once a chat was forgotten, and not at all before.
const FORGOTTEN_BITS: usize = 1 << 18;
/// How many bits each forgotten chat sets: with 20,000 chats forgotten, a
/// new chat is taken for a forgotten one about once in 500.
const FORGOTTEN_HASHES: usize = 10;
/// The bits of one index into the set.
const INDEX_BITS: u32 = FORGOTTEN_BITS.trailing_zeros();

/// The chats Toolgate forgot while they had read untrusted content (or had
/// ended), each kept as a few bits of the SHA-256 of its id: a set of fixed
/// size that never says a forgotten chat is new. It may take a new chat for
/// a forgotten one, the more likely the more chats were forgotten; such a
/// chat is asked as one that read untrusted content, which is stricter,
/// never looser (docs/agents.md, "Chats").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forgotten(Vec<u64>);

impl Forgotten {
    /// The bits `chat` sets.
    fn indices(chat: &str) -> impl Iterator<Item = usize> {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(chat.as_bytes());
        let mut bits = [0u8; 32];
        bits.copy_from_slice(&digest);
        (0..FORGOTTEN_HASHES).map(move |i| {
            // Index i is bits [i * INDEX_BITS, (i + 1) * INDEX_BITS) of the digest.
            let start = i * INDEX_BITS as usize;
            (0..INDEX_BITS as usize).fold(0usize, |index, b| {
                let at = start + b;
                let bit = (bits[at / 8] >> (at % 8)) & 1;
                index | (usize::from(bit) << b)
            })
        })
    }

    pub fn add(&mut self, chat: &str) {
        if self.0.is_empty() {
            self.0 = vec![0; FORGOTTEN_BITS / 64];
        }
        for index in Self::indices(chat) {
            self.0[index / 64] |= 1 << (index % 64);
        }
    }

    /// Whether `chat` may have been forgotten.
    pub fn holds(&self, chat: &str) -> bool {
        !self.0.is_empty()
            && Self::indices(chat).all(|index| self.0[index / 64] & (1 << (index % 64)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Forgotten {
    /// As hexadecimal text, one word after another.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text: String = self.0.iter().map(|word| format!("{word:016x}")).collect();
        serializer.serialize_str(&text)
    }
}

impl<'de> Deserialize<'de> for Forgotten {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.is_empty() {
            return Ok(Forgotten::default());
        }
        if text.len() != FORGOTTEN_BITS / 4 || !text.is_ascii() {
            return Err(serde::de::Error::custom(
                "a set of forgotten chats of the wrong size",
            ));
        }
        let words = (0..text.len())
            .step_by(16)
            .map(|at| u64::from_str_radix(&text[at..at + 16], 16))
            .collect::<Result<Vec<u64>, _>>()
            .map_err(serde::de::Error::custom)?;
        Ok(Forgotten(words))
    }
}
