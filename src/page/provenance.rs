//! Where a tool comes from (docs/classes.md, "Where a tool comes from"): the
//! script that registered it, chosen from the scripts the shim saw on the
//! registration's stack (extension/content/main-world/provenance.js), and
//! whether that script is the frame's own site's.
//!
//! The shim sends the scripts innermost first, Toolgate's own frames and the
//! page's own WebMCP polyfill left out. The provenance is the innermost script
//! of another site than the frame's, if any is on the stack, else the
//! innermost script: so a first-party function wrapped around `registerTool`
//! cannot hide the third-party script that called it. A site is a
//! registrable domain (`static.shop.example` is `shop.example`'s own), read
//! from the Public Suffix List (the `publicsuffix` crate, over Debian's copy
//! of the list, which build.rs puts in the build), read the first time a
//! script of another origin than its frame's is seen.

use publicsuffix::Psl;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The Public Suffix List, read once.
fn suffixes() -> Option<&'static publicsuffix::List> {
    static LIST: OnceLock<Option<publicsuffix::List>> = OnceLock::new();
    LIST.get_or_init(|| {
        include_str!(concat!(env!("OUT_DIR"), "/public_suffix_list.dat"))
            .parse()
            .ok()
    })
    .as_ref()
}

/// The keys third-party tools are asked about by where their site is not
/// known (`Provenance::asked_as`).
pub const EVAL_KEY: &str = "(eval)";
pub const UNKNOWN_KEY: &str = "(unknown)";

/// Whose tools `key` (`Provenance::asked_as`) names, as a card's answer
/// says it: "cdn.example's scripts", "code made at run time (eval)",
/// "scripts Toolgate could not see".
pub fn scripts_named(key: &str) -> String {
    match key {
        EVAL_KEY => "code made at run time (eval)".to_owned(),
        UNKNOWN_KEY => "scripts Toolgate could not see".to_owned(),
        site => format!("{site}'s scripts"),
    }
}

/// Scripts kept of a registration's stack.
pub const MAX_SCRIPTS: usize = 8;

/// The most bytes of a script's address kept (its origin and path).
pub const MAX_ADDRESS_LEN: usize = 300;

/// One script on a registration's stack, as the shim names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Script {
    /// A script loaded from `url` (its origin and path, no query).
    Script { url: String },
    /// A script written in the document itself.
    Inline,
    /// Code made at run time: `eval`, `new Function`, a string timer.
    Eval,
    /// The shim could not see the stack (the page made the realm's `Error`
    /// unchangeable).
    Unknown,
}

/// Where a tool comes from, as shown and decided on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Provenance {
    /// The document's own: a declarative form's tool, an inline script, or a
    /// script of the frame's own origin.
    Own,
    /// A script of another origin than the frame's: `site` is its
    /// registrable domain, and `own_site` whether that is the frame's too
    /// (a subdomain's, or the same domain on another port or scheme).
    Script {
        origin: String,
        path: String,
        site: String,
        own_site: bool,
    },
    /// Code made at run time: whose, Toolgate cannot tell.
    Eval,
    /// No script Toolgate could see: a stack the page hid, or none at all.
    Unknown,
}

/// The scripts as kept: the first `MAX_SCRIPTS`, each address cut to
/// `MAX_ADDRESS_LEN` on a character boundary.
pub fn bounded(mut scripts: Vec<Script>) -> Vec<Script> {
    scripts.truncate(MAX_SCRIPTS);
    for script in &mut scripts {
        if let Script::Script { url } = script {
            *url = crate::page::declaration::clip(std::mem::take(url), MAX_ADDRESS_LEN);
        }
    }
    scripts
}

/// The provenance of a tool of a frame of `frame_origin` registered with
/// `scripts` on its stack; `None` for a tool no script registered (a
/// declarative form's, which is the document's own).
pub fn provenance(scripts: Option<&[Script]>, frame_origin: &str) -> Provenance {
    let Some(scripts) = scripts else {
        return Provenance::Own;
    };
    // The frame's site is read only when a script of another origin needs it.
    let frame_site = OnceLock::new();
    let read: Vec<Provenance> = scripts
        .iter()
        .map(|script| of_script(script, frame_origin, &frame_site))
        .collect();
    let foreign = read.iter().find(|p| match p {
        Provenance::Script { own_site, .. } => !own_site,
        Provenance::Eval | Provenance::Unknown => true,
        Provenance::Own => false,
    });
    foreign
        .or_else(|| read.first())
        .cloned()
        .unwrap_or(Provenance::Unknown)
}

fn of_script(
    script: &Script,
    frame_origin: &str,
    frame_site: &OnceLock<Option<String>>,
) -> Provenance {
    match script {
        Script::Inline => Provenance::Own,
        Script::Eval => Provenance::Eval,
        Script::Unknown => Provenance::Unknown,
        Script::Script { url } => {
            let Some((origin, path)) = origin_and_path(url) else {
                // blob:, data: and the like: code made at run time by
                // whichever script made the address.
                return Provenance::Eval;
            };
            if origin == frame_origin {
                return Provenance::Own;
            }
            let site = site_of_origin(&origin).unwrap_or_else(|| origin.clone());
            let frame_site = frame_site.get_or_init(|| site_of_origin(frame_origin));
            let own_site = frame_site.as_deref() == Some(site.as_str());
            Provenance::Script {
                origin,
                path,
                site,
                own_site,
            }
        }
    }
}

/// An http(s) address's origin (`scheme://host[:port]`, lower-cased) and
/// path; `None` for any other address.
fn origin_and_path(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.is_empty() {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    Some((
        format!("{scheme}://{}", host.to_ascii_lowercase()),
        if path.is_empty() { "/" } else { path }.to_owned(),
    ))
}

/// The registrable domain of an origin's host (`https://static.shop.example`
/// → `shop.example`); an IP address or a host the list does not know is its
/// own site. `None` for an origin with no host.
pub fn site_of_origin(origin: &str) -> Option<String> {
    let rest = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    let host = if let Some(v6) = rest.strip_prefix('[') {
        return Some(format!("[{}", v6.split(']').next().unwrap_or("")) + "]");
    } else {
        rest.rsplit_once(':')
            .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
            .map_or(rest, |(host, _)| host)
    };
    if host.is_empty() {
        return None;
    }
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.parse::<std::net::Ipv4Addr>().is_ok() {
        return Some(host);
    }
    let domain = suffixes()
        .and_then(|list| list.domain(host.as_bytes()))
        .and_then(|d| std::str::from_utf8(d.as_bytes()).ok().map(str::to_owned));
    Some(domain.unwrap_or(host))
}

impl Provenance {
    /// Whether the tool is another site's: never inside a chat's width
    /// (docs/cards.md, "Tools registered by other sites' scripts").
    pub fn third_party(&self) -> bool {
        self.asked_as().is_some()
    }

    /// What a person or an agent is told of it, where it is not the
    /// frame's own origin: "registered by a script from cdn.example".
    pub fn shown(&self) -> Option<String> {
        match self {
            Provenance::Own => None,
            Provenance::Script { origin, .. } => Some(format!(
                "registered by a script from {}",
                origin.split_once("://").map_or(origin.as_str(), |(_, h)| h)
            )),
            Provenance::Eval => Some("registered by code made at run time (eval)".to_owned()),
            Provenance::Unknown => Some("registered by a script Toolgate could not see".to_owned()),
        }
    }

    /// The key a third-party tool is asked about by, once for a chat and a
    /// site (docs/cards.md, "Tools registered by other sites' scripts"):
    /// its script's site, or for code whose site Toolgate cannot tell,
    /// `(eval)` or `(unknown)` (never a site's name: a site has no
    /// parentheses); `None` for the frame's own site's tools.
    pub fn asked_as(&self) -> Option<&str> {
        match self {
            Provenance::Own => None,
            Provenance::Script { own_site: true, .. } => None,
            Provenance::Script { site, .. } => Some(site),
            Provenance::Eval => Some(EVAL_KEY),
            Provenance::Unknown => Some(UNKNOWN_KEY),
        }
    }

    /// What of it is part of the tool's definition: its origin (not its
    /// path, so that a site's new bundle name is the same tool).
    pub fn defining(&self) -> &str {
        match self {
            Provenance::Own => "own",
            Provenance::Script { origin, .. } => origin,
            Provenance::Eval => "eval",
            Provenance::Unknown => "unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(url: &str) -> Script {
        Script::Script {
            url: url.to_owned(),
        }
    }

    #[test]
    fn a_subdomain_is_the_frame_sites_own_and_another_domain_is_not() {
        assert_eq!(
            site_of_origin("https://static.shop.example").as_deref(),
            Some("shop.example")
        );
        assert_eq!(
            site_of_origin("https://a.b.co.uk:8443").as_deref(),
            Some("b.co.uk")
        );
        assert_eq!(
            site_of_origin("http://127.0.0.1:8080").as_deref(),
            Some("127.0.0.1")
        );
        let own = provenance(
            Some(&[script("https://static.shop.example/app.js")]),
            "https://shop.example",
        );
        assert!(!own.third_party());
        assert_eq!(
            own.shown().as_deref(),
            Some("registered by a script from static.shop.example")
        );
        let cdn = provenance(
            Some(&[script("https://cdn.example/lib.js")]),
            "https://shop.example",
        );
        assert!(cdn.third_party());
    }

    #[test]
    fn a_first_party_wrapper_does_not_hide_the_third_party_script_that_called_it() {
        let scripts = [
            Script::Inline,
            script("https://shop.example/app.js"),
            script("https://ads.example/tag.js"),
        ];
        let p = provenance(Some(&scripts), "https://shop.example");
        assert_eq!(p.defining(), "https://ads.example");
        assert!(p.third_party());
    }

    #[test]
    fn the_frames_own_scripts_and_declarative_tools_are_its_own() {
        let own = provenance(
            Some(&[script("https://shop.example/app.3f2a.js?v=1")]),
            "https://shop.example",
        );
        assert_eq!(own, Provenance::Own);
        assert_eq!(provenance(None, "https://shop.example"), Provenance::Own);
        assert_eq!(
            provenance(Some(&[Script::Inline]), "https://shop.example"),
            Provenance::Own
        );
    }

    #[test]
    fn what_toolgate_cannot_see_or_name_is_never_the_frames_own() {
        for scripts in [
            vec![],
            vec![Script::Unknown],
            vec![Script::Eval],
            vec![script("blob:https://shop.example/1d2e")],
        ] {
            let p = provenance(Some(&scripts), "https://shop.example");
            assert!(p.third_party(), "{scripts:?} gave {p:?}");
        }
    }

    #[test]
    fn scripts_are_kept_bounded() {
        let long = format!("https://cdn.example/{}", "é".repeat(400));
        let kept = bounded(vec![script(&long); 20]);
        assert_eq!(kept.len(), MAX_SCRIPTS);
        let Script::Script { url } = &kept[0] else {
            panic!()
        };
        assert!(url.len() <= MAX_ADDRESS_LEN);
    }
}
