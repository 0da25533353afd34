//! What requests waiting on a person may hold, what any field an agent
//! makes Toolgate store may hold, and how many cards a tab may show
//! (ARCHITECTURE.md, "Budgets"; docs/agents.md, "Arguments and limits";
//! docs/cards.md, "One card at a time"). A waiting request is kept with the
//! session, so it takes room in the storage the person's answers use: it is
//! counted as stored (its JSON text, escapes included, which can double a
//! string), charged to the tab it is for, and held to a share of that
//! storage, so that no page (forging its own "browser agent" calls) and no
//! agent can crowd out the person's decisions. Every id an agent chooses is
//! bounded as stored; past a bound, nothing of the request is kept. A tab
//! shows one card at a time: the others wait behind it, a few at most.

use super::{Action, Session};
use crate::page::registry::TabId;
use crate::protocol::RpcError;
use serde::Serialize;
use serde_json::Value;

/// The most bytes the requests waiting on a person may hold for one tab, as stored.
pub const WAITING_PER_TAB: usize = 1024 * 1024;
/// The most bytes the requests waiting on a person may hold in all, as
/// stored: as much as one tab may, so that the session's parts together fit
/// its share of storage (`room.rs`).
pub const WAITING_IN_ALL: usize = 1024 * 1024;

/// The most bytes an agent's request id may take as stored (its JSON text).
/// JSON-RPC ids are small numbers or short strings.
pub const REQUEST_ID_BYTES: usize = 256;
/// The most bytes a chat id may take as stored (its JSON text).
pub const CHAT_ID_BYTES: usize = 256;
/// The most characters of a chat's label that are kept; the rest is cut.
pub const LABEL_CHARS: usize = 100;

/// The most cards one tab may have waiting on a person: one shown, the
/// others behind it.
pub const CARDS_PER_TAB: usize = 5;

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes `value` takes in the stored session: its JSON text as written,
/// escapes included (a `"` or `\` takes two bytes, a control character six),
/// counted without writing it out.
pub fn stored_len<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut counter = Counter(0);
    // Writing to a counter fails only for a map whose keys are not strings:
    // none of ours. Should one ever, it counts as all it could hold.
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

/// Why an agent's request id cannot be taken, if it would take more than
/// `REQUEST_ID_BYTES` as stored: the error the agent gets, nothing kept.
pub fn over_request_id_bound(id: &Value) -> Option<RpcError> {
    let bytes = stored_len(id);
    (bytes > REQUEST_ID_BYTES).then(|| {
        RpcError::InvalidRequest(format!(
            "Nothing was done: the request id takes {bytes} bytes as Toolgate stores it (its JSON text), and Toolgate takes request ids of at most {REQUEST_ID_BYTES} bytes. Use a short id."
        ))
    })
}

/// Why a chat id cannot be taken, if it would take more than
/// `CHAT_ID_BYTES` as stored.
pub fn over_chat_id_bound(chat: &str) -> Option<String> {
    let bytes = stored_len(chat);
    (bytes > CHAT_ID_BYTES).then(|| {
        format!(
            "Nothing was done: the chat id takes {bytes} bytes as Toolgate stores it (its JSON text), and Toolgate takes chat ids of at most {CHAT_ID_BYTES} bytes. Use a short id."
        )
    })
}

/// A chat's label as it is kept: its first `LABEL_CHARS` characters.
pub fn label_kept(label: &str) -> &str {
    label
        .char_indices()
        .nth(LABEL_CHARS)
        .map_or(label, |(at, _)| &label[..at])
}

/// The bytes a waiting request's id and action take as stored, counted once,
/// when first asked (neither changes while it waits), so that each new
/// request costs the count of its own bytes, not of all that wait. Not
/// stored itself: a session read from storage counts again.
#[derive(Clone, Debug, Default)]
pub struct HeldBytes(std::cell::OnceCell<usize>);

impl PartialEq for HeldBytes {
    /// A count kept for speed, not part of what the request is.
    fn eq(&self, _: &HeldBytes) -> bool {
        true
    }
}

/// The bytes a request waiting on a person adds to the stored session: its
/// id and action as stored (and, for the one that opens a card, the card's
/// chat and site; the rest of an entry is a few bytes of fixed size).
fn held(id: &Value, action: &Action, counted: &HeldBytes) -> usize {
    *counted
        .0
        .get_or_init(|| stored_len(id) + stored_len(action))
}

impl Session {
    /// Every request waiting on a person, with the bytes it holds as
    /// stored: each card's, and those waiting on it.
    fn waiting_held(&self) -> impl Iterator<Item = (TabId, usize)> + '_ {
        self.pending.values().flat_map(|p| {
            let card = stored_len(&p.chat) + stored_len(&p.site);
            let asked = held(&p.request_id, &p.action, &p.held);
            std::iter::once((p.action.tab_id(), card + asked)).chain(
                p.waiting
                    .iter()
                    .map(|w| (w.action.tab_id(), held(&w.request_id, &w.action, &w.held))),
            )
        })
    }

    /// Why request `id`'s `action` cannot wait on a person, if, as stored
    /// (with `card`: the card's chat and site, for a request that opens
    /// one), it would pass the waiting requests' share of storage: for its
    /// tab, or in all.
    pub(super) fn over_waiting_budget(
        &self,
        id: &Value,
        action: &Action,
        card: Option<(&str, &str)>,
    ) -> Option<String> {
        let tab = action.tab_id();
        let more = stored_len(id)
            + stored_len(action)
            + card.map_or(0, |(chat, site)| stored_len(chat) + stored_len(site));
        let (mut for_tab, mut in_all) = (0, 0);
        for (of, bytes) in self.waiting_held() {
            in_all += bytes;
            if of == tab {
                for_tab += bytes;
            }
        }
        let (cap, whose) = if for_tab + more > WAITING_PER_TAB {
            (WAITING_PER_TAB, "for one tab")
        } else if in_all + more > WAITING_IN_ALL {
            (WAITING_IN_ALL, "for every tab together")
        } else {
            return None;
        };
        let what = match action {
            Action::Call(call) => format!("this call of {}", call.target.name),
            Action::List(_) => "this request".to_owned(),
        };
        Some(format!(
            "Nothing ran: Toolgate holds at most {} MB ({cap} bytes) of requests waiting on a person {whose}, counted as stored (their arguments and ids), and {what} ({more} bytes) would pass it. Try again once the cards open now are answered.",
            cap / (1024 * 1024),
        ))
    }

    /// The card a tab shows now: the first of its cards still waiting.
    pub(super) fn card_shown(&self, tab: TabId) -> Option<u64> {
        self.pending
            .iter()
            .filter(|(_, p)| p.action.tab_id() == tab)
            .map(|(&id, _)| id)
            .min()
    }

    /// Why a new card cannot wait for tab `tab`, if it already has as many
    /// as it may.
    pub(super) fn over_card_budget(&self, tab: TabId) -> Option<String> {
        let waiting = self
            .pending
            .values()
            .filter(|p| p.action.tab_id() == tab)
            .count();
        (waiting >= CARDS_PER_TAB).then(|| {
            format!(
                "Nothing ran: {waiting} cards already wait on a person for this tab, the most Toolgate lets one tab have. Try again once they are answered."
            )
        })
    }
}
