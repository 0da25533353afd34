//! What a call was seen doing, kept as it is seen, within bounds
//! (docs/classes.md, "Hints held to their word"; ARCHITECTURE.md's budgets).
//! Everything seen is counted by kind; the first `KEPT_PER_KIND` of each kind
//! are kept. A kind is what a judge asks of a thing (whether it changes
//! state, whether it reaches another site, whether it is the call's or
//! Toolgate cannot tell), so however many things of one kind a page sends first, the
//! first thing of every other kind is still kept and judged: twenty GETs do
//! not hide a POST. What is not the call's (`Seen::part`) is neither kept nor
//! counted. Pure: the shell hands each thing over as it sees it.

use crate::page::seen::{cut_bytes, Frame, Part, Seen, OTHER_TABS};

/// Kinds: changes state × reaches another site × whose it is (`Standing`;
/// what is seen while another call ran is "cannot tell").
const KINDS: usize = 12;

/// Whose a thing kept is, as far as its kind goes: the call's, "cannot
/// tell", or the call's unless the site was open in another tab (what its
/// service worker sent: known only as the call is judged, `other_tabs`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Standing {
    Call = 0,
    CannotTell = 1,
    Worker = 2,
}

/// What is kept of a URL or key the page chose, in bytes: enough for any
/// origin and for what a flag quotes (`seen::SEEN_CAP` characters).
pub const KEPT_BYTES: usize = 2048;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witnessed {
    /// The call's tool's site (an origin): what "another site" means.
    site: String,
    kept: Vec<Seen>,
    /// Things seen, by kind (`kind_of`), kept or not.
    seen: [usize; KINDS],
    /// The site was open in another tab too: what its worker sent, Toolgate
    /// cannot tell (docs/classes.md, "What a call is judged on"), save what
    /// the call's document itself sent meanwhile (`page_sent`).
    other_tabs: bool,
    /// What the call's document sent while the call ran, as the shim saw it
    /// (`fetch`, `XMLHttpRequest`, `sendBeacon`, forms): what its service
    /// worker sent of the same method and address is the call's, another tab
    /// or not.
    page_sent: PageSent,
}

/// The requests a call's document sent while it ran: distinct (method,
/// address) pairs, at most `PageSent::KEPT`; past that, or for a request
/// the shim could not read, anything (a page that sends more, or hides
/// what it sends, gets its worker's requests pinned on the call).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct PageSent {
    sent: Vec<(Option<String>, Option<String>)>,
}

impl PageSent {
    const KEPT: usize = 64;

    fn add(&mut self, method: Option<&str>, url: Option<&str>) {
        let method = method.map(str::to_ascii_uppercase);
        let url = url.map(|url| address(url).to_owned());
        let entry = if self.sent.len() >= PageSent::KEPT {
            (None, None)
        } else {
            (method, url)
        };
        if !self.sent.contains(&entry) {
            self.sent.push(entry);
        }
    }

    /// Whether the page sent a request like `seen` (an unread method or
    /// address is any).
    fn has(&self, seen: &Seen) -> bool {
        let Seen::Request { method, url, .. } = seen else {
            return false;
        };
        let url = address(url);
        self.sent.iter().any(|(m, u)| {
            m.as_deref().is_none_or(|m| m.eq_ignore_ascii_case(method))
                && u.as_deref().is_none_or(|u| u == url)
        })
    }

    /// Whether any request of the worker is like one the page sent.
    fn any(&self) -> bool {
        self.sent.contains(&(None, None))
    }
}

/// A URL as the page's request and its worker's are compared: cut as what
/// is kept is, without its fragment (which no request carries).
fn address(url: &str) -> &str {
    let url = cut_bytes(url, KEPT_BYTES);
    url.split_once('#').map_or(url, |(before, _)| before)
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
            other_tabs: false,
            page_sent: PageSent::default(),
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

    fn standing(&self, seen: &Seen) -> Option<Standing> {
        let worker = matches!(
            seen,
            Seen::Request {
                frame: Frame::Worker,
                ..
            }
        );
        match seen.part(&self.site) {
            Part::NotTheCalls => None,
            Part::Call if worker => Some(Standing::Worker),
            Part::CannotTell(why) if why == OTHER_TABS => Some(Standing::Worker),
            Part::CannotTell(_) => Some(Standing::CannotTell),
            Part::Call => Some(Standing::Call),
        }
    }

    fn kind_of(&self, seen: &Seen, standing: Standing) -> usize {
        usize::from(seen.changes_state())
            | usize::from(seen.off_site(&self.site)) << 1
            | (standing as usize) << 2
    }

    /// Whose `seen` is (`Seen::part`), all known now: what the site's worker
    /// sent while the site was open in another tab is the call's only when
    /// the call's document sent the same.
    pub fn part(&self, seen: &Seen) -> Part {
        match self.standing(seen) {
            Some(Standing::Worker) if self.page_sent.has(seen) => Part::Call,
            Some(Standing::Worker) if self.other_tabs => Part::CannotTell(OTHER_TABS),
            _ => seen.part(&self.site),
        }
    }

    /// The call's document sent `method` to `url` while the call ran (the
    /// shim's account); `None` for what it could not read, which is then
    /// any method or address.
    pub fn page_sent(&mut self, method: Option<&str>, url: Option<&str>) {
        self.page_sent.add(method, url);
    }

    /// The site was open in another tab too while the call ran: what its
    /// service worker sent cannot be pinned on the call.
    pub fn other_tabs(&mut self) {
        self.other_tabs = true;
    }

    /// Whether something the site's service worker sent was seen, that the
    /// site being open in another tab would make "cannot tell".
    pub fn saw_worker(&self) -> bool {
        (0..KINDS)
            .filter(|kind| kind >> 2 == Standing::Worker as usize)
            .any(|kind| self.seen[kind] > 0)
    }

    /// One more thing seen: counted, and kept if fewer of its kind are; not
    /// the call's (another site's frame or worker), dropped.
    pub fn see(&mut self, seen: Seen) {
        let Some(standing) = self.standing(&seen) else {
            return;
        };
        let kind = self.kind_of(&seen, standing);
        self.seen[kind] += 1;
        if self.seen[kind] <= Witnessed::KEPT_PER_KIND {
            self.kept.push(seen.cut_to(KEPT_BYTES));
        }
    }

    /// `count` more things like `seen` that whoever saw them did not keep
    /// (the shim's storage writes past its own bound): counted, not kept.
    pub fn count(&mut self, seen: &Seen, count: usize) {
        let Some(standing) = self.standing(seen) else {
            return;
        };
        let kind = self.kind_of(seen, standing);
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

    /// Things seen but not kept, the call's (judged), whose kind passes
    /// `test(changes state, reaches another site)`.
    pub fn unkept(&self, test: impl Fn(bool, bool) -> bool) -> usize {
        let mut kept = [0; KINDS];
        for seen in &self.kept {
            if let Some(standing) = self.standing(seen) {
                kept[self.kind_of(seen, standing)] += 1;
            }
        }
        let judged = |kind: usize| match kind >> 2 {
            0 => true,
            2 => !self.other_tabs || self.page_sent.any(),
            _ => false,
        };
        (0..KINDS)
            .filter(|&kind| judged(kind) && test(kind & 1 != 0, kind & 2 != 0))
            .map(|kind| self.seen[kind] - kept[kind])
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, url: &str) -> Seen {
        Seen::by_script(method, url)
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

    fn sent(method: &str, url: &str, frame: Frame, from: &str, usual: bool) -> Seen {
        Seen::Request {
            method: method.into(),
            url: url.into(),
            kind: "xmlhttprequest".into(),
            together: false,
            frame,
            from: Some(from.into()),
            usual,
            other_tabs: false,
        }
    }

    #[test]
    fn what_is_not_the_calls_is_dropped_and_cannot_tell_is_kept_but_not_judged() {
        let site = "https://a.test";
        let mut witnessed = Witnessed::new(site);
        // Another site's frame: neither kept nor counted, however many.
        for _ in 0..50 {
            witnessed.see(sent(
                "POST",
                "https://b.test/x",
                Frame::Other,
                "https://b.test",
                false,
            ));
        }
        // The page's own heartbeat, past the bound: counted, never judged.
        for _ in 0..30 {
            witnessed.see(sent("POST", "https://a.test/beat", Frame::Tool, site, true));
        }
        assert_eq!(witnessed.total(), 30);
        assert_eq!(witnessed.unkept(|changes, _| changes), 0);
        assert!(witnessed
            .kept()
            .iter()
            .all(|s| witnessed.part(s) == Part::CannotTell(crate::page::seen::USUAL)));
        assert!(!witnessed.saw_worker());
    }

    #[test]
    fn what_the_sites_worker_sent_is_the_calls_until_the_site_is_open_in_another_tab() {
        let site = "https://a.test";
        let mut witnessed = Witnessed::new(site);
        for i in 0..25 {
            witnessed.see(sent(
                "POST",
                &format!("{site}/{i}"),
                Frame::Worker,
                site,
                false,
            ));
        }
        assert!(witnessed.saw_worker());
        assert_eq!(witnessed.part(&witnessed.kept()[0]), Part::Call);
        assert_eq!(witnessed.unkept(|changes, _| changes), 5);
        witnessed.other_tabs();
        assert_eq!(
            witnessed.part(&witnessed.kept()[0]),
            Part::CannotTell(OTHER_TABS)
        );
        assert_eq!(witnessed.unkept(|changes, _| changes), 0);
        assert_eq!(witnessed.total(), 25);
    }

    #[test]
    fn with_the_site_in_another_tab_what_its_worker_sent_is_the_calls_when_the_calls_document_sent_it(
    ) {
        let site = "https://a.test";
        let mut witnessed = Witnessed::new(site);
        let delete = sent(
            "POST",
            "https://a.test/api/delete",
            Frame::Worker,
            site,
            false,
        );
        let other = sent(
            "POST",
            "https://a.test/api/beat",
            Frame::Worker,
            site,
            false,
        );
        witnessed.see(delete.clone());
        witnessed.see(other.clone());
        witnessed.other_tabs();
        // The call's document sent the first (its method read in any case,
        // its address with a fragment), not the second.
        witnessed.page_sent(Some("post"), Some("https://a.test/api/delete#now"));
        witnessed.page_sent(Some("GET"), Some("https://a.test/api/beat"));
        assert_eq!(witnessed.part(&delete), Part::Call);
        assert_eq!(witnessed.part(&other), Part::CannotTell(OTHER_TABS));
        assert_eq!(witnessed.unkept(|changes, _| changes), 0);
    }

    #[test]
    fn a_request_the_shim_could_not_read_or_one_past_its_bound_is_any_request() {
        let site = "https://a.test";
        let seen = sent(
            "POST",
            "https://a.test/api/delete",
            Frame::Worker,
            site,
            false,
        );
        let mut unread = Witnessed::of(site, [seen.clone()]);
        unread.other_tabs();
        unread.page_sent(Some("POST"), None);
        assert_eq!(unread.part(&seen), Part::Call);
        let mut flood = Witnessed::of(site, [seen.clone()]);
        flood.other_tabs();
        for i in 0..PageSent::KEPT {
            flood.page_sent(Some("GET"), Some(&format!("https://a.test/{i}")));
        }
        assert_eq!(flood.part(&seen), Part::CannotTell(OTHER_TABS));
        flood.page_sent(Some("GET"), Some("https://a.test/one-more"));
        assert_eq!(flood.part(&seen), Part::Call);
        // However many, what is kept of them is bounded.
        for i in 0..10_000 {
            flood.page_sent(Some("GET"), Some(&format!("https://a.test/more/{i}")));
        }
        assert_eq!(flood.page_sent.sent.len(), PageSent::KEPT + 1);
    }

    #[test]
    fn what_the_page_sends_on_its_own_stays_its_own_even_if_the_call_sent_it_too() {
        let site = "https://a.test";
        let beat = sent("POST", "https://a.test/api/beat", Frame::Worker, site, true);
        let mut witnessed = Witnessed::of(site, [beat.clone()]);
        witnessed.other_tabs();
        witnessed.page_sent(Some("POST"), Some("https://a.test/api/beat"));
        assert_eq!(
            witnessed.part(&beat),
            Part::CannotTell(crate::page::seen::USUAL)
        );
    }
}
