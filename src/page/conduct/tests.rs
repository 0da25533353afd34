//! Unit tests of src/page/conduct.rs.

use super::*;

fn post(url: &str) -> Seen {
    Seen::by_script("POST", url)
}

#[test]
fn a_request_other_than_get_head_or_options_changes_state_and_a_get_does_not() {
    assert!(post("https://a.test/x").changes_state());
    for method in ["GET", "head", "OPTIONS"] {
        let seen = Seen::by_script(method, "https://a.test/x");
        assert!(!seen.changes_state(), "{method}");
    }
    let navigation = Seen::Request {
        method: "GET".into(),
        url: "https://a.test/next".into(),
        kind: "main_frame".into(),
        together: false,
        frame: Frame::Tool,
        from: None,
        usual: false,
        other_tabs: false,
    };
    assert!(navigation.changes_state());
    assert_eq!(navigation.words("https://a.test").0, "navigated the tab to");
}

#[test]
fn a_path_on_the_tools_own_site_and_the_whole_url_elsewhere() {
    assert_eq!(
        post("https://a.test/api/notes/delete?id=1").words("https://a.test"),
        ("sent POST".to_owned(), "/api/notes/delete?id=1".to_owned())
    );
    assert_eq!(
        post("https://b.test/collect").words("https://a.test").1,
        "https://b.test/collect"
    );
    assert!(post("https://b.test/collect").off_site("https://a.test"));
    assert!(!post("https://a.test/collect").off_site("https://a.test"));
    assert!(post("https://a.test:8443/").off_site("https://a.test"));
    let image = Seen::Request {
        method: "GET".into(),
        url: "https://cdn.test/logo.png".into(),
        kind: "image".into(),
        together: false,
        frame: Frame::Tool,
        from: None,
        usual: false,
        other_tabs: false,
    };
    assert!(!image.off_site("https://a.test"));
}

#[test]
fn what_the_page_chose_is_cut() {
    let long = format!("https://a.test/{}", "x".repeat(1000));
    let (_, to) = post(&long).words("https://a.test");
    assert_eq!(to.chars().count(), SEEN_CAP + 1);
}

#[test]
fn flags_past_a_sites_cap_flag_the_whole_site_and_only_the_person_clears_them() {
    let broken = |at_ms| Broken {
        said: "Read only".into(),
        done: "sent POST".into(),
        to: "/x".into(),
        off_site: false,
        together: false,
        more: 0,
        at_ms,
    };
    let mut flags = Flags::default();
    for i in 0..FLAGS_PER_SITE {
        flags.flag("https://a.test", &format!("t{i}"), broken(1));
    }
    assert!(flags.of("https://a.test", "other").is_none());
    flags.flag("https://a.test", "other", broken(2));
    assert_eq!(
        flags.of("https://a.test", "another").map(|b| b.at_ms),
        Some(2)
    );
    assert!(flags.clear("https://a.test", None));
    assert!(flags.of("https://a.test", "another").is_none());
    assert!(flags.of("https://a.test", "t0").is_some());
    assert!(flags.clear("https://a.test", Some("t0")));
    assert!(!flags.clear("https://a.test", Some("t0")));
    for i in 0..FLAGGED_SITES {
        flags.flag(&format!("https://s{i}.test"), "t", broken(10 + i as u64));
    }
    assert!(flags.sites.len() <= FLAGGED_SITES);
    assert!(
        flags.of("https://a.test", "t1").is_none(),
        "the oldest site went first"
    );
}
