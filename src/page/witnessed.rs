//! What a call was seen doing, kept as it is seen, within bounds
//! (docs/classes.md, "Hints held to their word"; ARCHITECTURE.md's budgets).
//! Everything seen is counted by kind; the first `KEPT_PER_KIND` of each kind
//! are kept. A kind is what a judge asks of a thing (whether it changes
//! state, whether it reaches another site, whether Toolgate can tell which
//! call did it), so however many things of one kind a page sends first, the
//! first thing of every other kind is still kept and judged: twenty GETs do
//! not hide a POST. Pure: the shell hands each thing over as it sees it.

use crate::page::conduct::Seen;

/// Kinds: changes state × reaches another site × cannot be told apart.
const KINDS: usize = 8;

/// What is kept of a URL or key the page chose, in bytes: enough for any
/// origin and for what a flag quotes (`conduct::SEEN_CAP` characters).
pub const KEPT_BYTES: usize = 2048;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witnessed {
    /// The call's tool's site (an origin): what "another site" means.
    site: String,
    kept: Vec<Seen>,
    /// Things seen, by kind (`kind_of`), kept or not.
    seen: [usize; KINDS],
}

impl Witnessed {
    /// Of each kind, at most this many things are kept.
    pub const KEPT_PER_KIND: usize = 20;

    /// Nothing seen yet, for a call of a tool on `site`.
    pub fn new(site: &str) -> Witnessed {
        Witnessed {
            site: site.to_owned(),
            kept: Vec::new(),
            seen: [0; KINDS],
        }
    }

    /// `seen`, every one, on `site`.
    pub fn of(site: &str, seen: impl IntoIterator<Item = Seen>) -> Witnessed {
        let mut witnessed = Witnessed::new(site);
        for one in seen {
            witnessed.see(one);
        }
        witnessed
    }

    fn kind_of(&self, seen: &Seen) -> usize {
        usize::from(seen.changes_state())
            | usize::from(seen.off_site(&self.site)) << 1
            | usize::from(seen.together()) << 2
    }

    /// One more thing seen: counted, and kept if fewer of its kind are.
    pub fn see(&mut self, seen: Seen) {
        let kind = self.kind_of(&seen);
        self.seen[kind] += 1;
        if self.seen[kind] <= Witnessed::KEPT_PER_KIND {
            self.kept.push(seen.cut_to(KEPT_BYTES));
        }
    }

    /// `count` more things like `seen` that whoever saw them did not keep
    /// (the shim's storage writes past its own bound): counted, not kept.
    pub fn count(&mut self, seen: &Seen, count: usize) {
        let kind = self.kind_of(seen);
        self.seen[kind] = self.seen[kind].saturating_add(count);
    }

    /// What was kept, in the order seen.
    pub fn kept(&self) -> &[Seen] {
        &self.kept
    }

    /// Everything seen, kept or not.
    pub fn total(&self) -> usize {
        self.seen.iter().sum()
    }

    /// Things seen but not kept whose kind passes `test(changes state,
    /// reaches another site)`.
    pub fn unkept(&self, test: impl Fn(bool, bool) -> bool) -> usize {
        let mut kept = [0; KINDS];
        for seen in &self.kept {
            kept[self.kind_of(seen)] += 1;
        }
        (0..KINDS)
            .filter(|&kind| test(kind & 1 != 0, kind & 2 != 0))
            .map(|kind| self.seen[kind] - kept[kind])
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, url: &str) -> Seen {
        Seen::Request {
            method: method.into(),
            url: url.into(),
            kind: "xmlhttprequest".into(),
            together: false,
        }
    }

    #[test]
    fn many_things_of_one_kind_leave_room_for_every_other_kind() {
        let mut witnessed = Witnessed::new("https://a.test");
        for i in 0..1000 {
            witnessed.see(request("GET", &format!("https://a.test/{i}")));
        }
        witnessed.see(request("POST", "https://a.test/delete"));
        witnessed.see(request("GET", "https://b.test/away"));
        assert_eq!(witnessed.total(), 1002);
        assert_eq!(witnessed.kept().len(), Witnessed::KEPT_PER_KIND + 2);
        assert_eq!(witnessed.unkept(|changes, off| !changes && !off), 980);
        assert_eq!(witnessed.unkept(|changes, _| changes), 0);
    }

    #[test]
    fn what_the_page_chose_is_kept_cut_at_a_characters_boundary() {
        let long = format!("https://a.test/{}", "é".repeat(KEPT_BYTES));
        let witnessed = Witnessed::of("https://a.test", [request("POST", &long)]);
        let Seen::Request { url, .. } = &witnessed.kept()[0] else {
            panic!("a request")
        };
        assert!(url.len() <= KEPT_BYTES && url.starts_with("https://a.test/é"));
    }
}
