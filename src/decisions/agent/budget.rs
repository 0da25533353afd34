//! What calls waiting on a person may hold, and how many cards a tab may
//! show (ARCHITECTURE.md, "Budgets"; docs/agents.md, "Arguments and limits";
//! docs/cards.md, "One card at a time"). A waiting call is kept with the
//! session, so its arguments take room in the storage the person's answers
//! use: they are charged to the tab the call is for, and held to a share of
//! that storage, so that no page (forging its own "browser agent" calls) and
//! no agent can crowd out the person's decisions. A tab shows one card at a
//! time: the others wait behind it, a few at most.

use super::{Action, Session};
use crate::page::registry::TabId;

/// The most bytes of arguments the calls waiting on a person may hold for one tab.
pub const WAITING_PER_TAB: usize = 1024 * 1024;
/// The most bytes of arguments the calls waiting on a person may hold in all.
pub const WAITING_IN_ALL: usize = 2 * 1024 * 1024;

/// The most cards one tab may have waiting on a person: one shown, the
/// others behind it.
pub const CARDS_PER_TAB: usize = 5;

/// The bytes of arguments `action` holds while it waits: a call's arguments.
fn held(action: &Action) -> usize {
    match action {
        Action::Call(call) => call.arguments.len(),
        Action::List(_) => 0,
    }
}

impl Session {
    /// Every action waiting on a person: each card's, and those waiting on it.
    fn waiting_actions(&self) -> impl Iterator<Item = &Action> {
        self.pending
            .values()
            .flat_map(|p| std::iter::once(&p.action).chain(p.waiting.iter().map(|w| &w.action)))
    }

    /// Why `action` cannot wait on a person, if it is a call whose arguments
    /// would pass the waiting calls' share of storage: for its tab, or in all.
    pub(super) fn over_waiting_budget(&self, action: &Action) -> Option<String> {
        let Action::Call(call) = action else {
            return None;
        };
        let (tab, more) = (call.target.tab_id, call.arguments.len());
        let (mut for_tab, mut in_all) = (0, 0);
        for waiting in self.waiting_actions() {
            let bytes = held(waiting);
            in_all += bytes;
            if waiting.tab_id() == tab {
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
        Some(format!(
            "Nothing ran: Toolgate holds at most {} MB ({cap} bytes) of arguments of calls waiting on a person {whose}, and this call of {} ({more} bytes) would pass it. Try again once the cards open now are answered.",
            cap / (1024 * 1024),
            call.target.name
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
