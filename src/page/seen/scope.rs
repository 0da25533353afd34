//! What a call is judged on (docs/classes.md, "What a call is judged on"):
//! whose a thing seen during a call is, from the facts the shell reports
//! with it (which frame sent a request, who started it, whether the page
//! sends it on its own too).

use super::Seen;
use serde::{Deserialize, Serialize};

/// Which frame of the tab sent a request, beside the frame of the tool that
/// ran (docs/classes.md, "What a call is judged on").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Frame {
    /// The tool's own frame; for a navigation, the frame navigated.
    #[default]
    Tool,
    /// A frame the tool's frame holds.
    Child,
    /// Another frame of the tab.
    Other,
    /// No frame: a service or shared worker, whose requests belong to no tab.
    Worker,
}

/// Whose a thing seen during a call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The call's: judged.
    Call,
    /// Maybe the call's, maybe not: told as such, with why, never flagged.
    CannotTell(&'static str),
    /// Not the call's (another site's frame or worker): neither told nor judged.
    NotTheCalls,
}

/// Why Toolgate cannot pin a thing seen on the call, as its reply says.
pub const USUAL: &str = "the page sends it on its own too, outside calls";
pub const ANOTHER_FRAME: &str = "another frame of the site sent it";
pub const OTHER_TABS: &str =
    "the site's service worker sent it while the site was open in another tab too";
pub const TOGETHER: &str = "another call ran in the tab at the same time";

impl Seen {
    /// Whose it is, for a call of a tool of `site` (docs/classes.md, "What a
    /// call is judged on"): what the tool's frame, a frame it holds (of its
    /// site, or opaque) and its site's service worker send is the call's;
    /// a navigation of the tab its site started too. What another site
    /// sends, or starts, is not; what another frame of its site sends, what
    /// the page sends outside calls too, what its worker sends while the
    /// site is open in another tab, and whatever is seen while another call
    /// ran in the tab, Toolgate cannot tell.
    pub fn part(&self, site: &str) -> Part {
        let together = self.together();
        let Seen::Request {
            frame,
            from,
            usual,
            other_tabs,
            kind,
            ..
        } = self
        else {
            return if together {
                Part::CannotTell(TOGETHER)
            } else {
                Part::Call
            };
        };
        let by_site = from.as_deref().is_none_or(|from| from == site);
        let caused = match frame {
            Frame::Tool | Frame::Worker => by_site,
            Frame::Child => by_site || from.as_deref() == Some("null"),
            Frame::Other if by_site && kind == "main_frame" => true,
            Frame::Other if by_site => return Part::CannotTell(ANOTHER_FRAME),
            Frame::Other => false,
        };
        if !caused {
            Part::NotTheCalls
        } else if *usual {
            Part::CannotTell(USUAL)
        } else if *other_tabs && *frame == Frame::Worker {
            Part::CannotTell(OTHER_TABS)
        } else if together {
            Part::CannotTell(TOGETHER)
        } else {
            Part::Call
        }
    }
}
