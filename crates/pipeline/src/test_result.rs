//! A result, and a table's key, for the crate's unit tests to fill in.

use simpairs_events::types::{AppliedResult, Movement, ResultKey};

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

/// The key of the table of board `board` of `section` between NS pair `ns` and EW pair `ew`.
pub(crate) fn key(section: &str, board: i32, ns: &str, ew: &str) -> ResultKey {
    ResultKey {
        section: section.into(),
        board,
        ns_pair: ns.into(),
        ew_pair: ew.into(),
    }
}
