//! A result for the crate's unit tests to fill in.

use simpairs_events::types::{AppliedResult, Movement};

/// Board `board` of section A between NS pair `ns` and EW pair `ew` (a Mitchell), with nothing
/// recorded: each test sets what it scores (`AppliedResult { ns_score: .., ..table(..) }`).
pub(crate) fn table(board: i32, ns: &str, ew: &str) -> AppliedResult {
    AppliedResult {
        section: "A".into(),
        board,
        ns_pair: ns.into(),
        ew_pair: ew.into(),
        movement: Movement::Mitchell,
        contract: None,
        declarer: None,
        tricks: None,
        ns_score: None,
        ew_score: None,
        adjusted: None,
        arrow_switch: false,
        group: None,
        lead: None,
    }
}
