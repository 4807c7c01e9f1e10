//! The pages, one module per route, laid out with maud (escaping by default: every text from a
//! club's file goes into a page as text, never as markup) in one frame ([`layout`]).

pub mod board;
pub mod chart;
pub mod clubs;
pub mod compare;
pub mod director;
pub mod errors;
pub mod fmt;
pub mod home;
pub mod layout;
pub mod movement;
pub mod pair;
pub mod player;
pub mod rankings;
pub mod search;
