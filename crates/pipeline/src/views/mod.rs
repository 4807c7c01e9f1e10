//! The data the results website shows, computed here from the projection so that a page handler
//! only lays it out (STYLE: "the data a page shows computed by the projection, not by the
//! handler").
//!
//! ## Layout
//! - [`catalog`]: what is kept beside the projection as clubs arrive: arrivals, the search index,
//!   the national index, tables per board.
//! - [`search`]: the search index of pairs and clubs; [`fold`]: text as search compares it.
//! - [`national`]: a pair's id and its positions in the national lists.
//! - [`rankings`]: pages of the national lists (combined, NS, EW, one club's pairs) and a club's
//!   own ranking, with names and both places.
//! - [`scorecard`]: a pair's scorecard; [`resolve`]: a pair from club and number alone.
//! - [`board`]: a board's traveller and frequency table, in the national field or a club's.
//! - [`result`]: a result as players read it (`4S+1 N`, `AVE+`), and what kind of line it is.
//! - [`value`]: matchpoints and percentages, exact until shown; [`text`]: names cut for display.

pub mod board;
pub mod catalog;
pub mod fold;
pub mod national;
pub mod rankings;
pub mod resolve;
pub mod result;
pub mod scorecard;
pub mod search;
pub mod text;
pub mod value;

pub use catalog::{Arrival, Catalog, ClubInfo};
pub use value::{Place, Value};

use simpairs_events::types::Player;

use crate::PairKey;
use crate::project::Projection;

/// The players of a pair, names cut for display; empty when the club did not name them.
pub fn players_of(p: &Projection, pair: &PairKey) -> Vec<Player> {
    p.players
        .get(pair)
        .map(|ps| {
            ps.iter()
                .map(|pl| Player {
                    name: text::display_name(&pl.name),
                    national_id: pl.national_id.as_deref().map(text::display_name),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The name of a club as declared, cut for display (its id when it has none).
pub fn club_name(p: &Projection, club: &str) -> String {
    text::display_name(p.club_names.get(club).map_or(club, String::as_str))
}

/// Whether the event is scored in IMPs (no percentages).
pub fn is_imps(p: &Projection) -> bool {
    p.scoring_options()
        .is_some_and(|o| o.method != simpairs_scoring::Method::Matchpoints)
}
