//! A test-only generator of large, valid USEBIO files (shared by the speed test and the bench).

use std::fmt::Write as _;

use simpairs_scoring::contract::ns_score;
use simpairs_scoring::{Contract, Seat, Vulnerability};

/// A USEBIO 1.2 file in Compscore's layout with `lines` traveller lines: a Mitchell of `tables` tables
/// (NS pair t plays EW pair (t + board) mod tables), every line with contract, declarer, lead, tricks,
/// score and official matchpoints, and a pair list with two named players per pair.
pub fn usebio(lines: usize, tables: usize) -> String {
    let boards = lines.div_ceil(tables);
    let mut out = String::with_capacity(lines * 360 + tables * 600);
    out.push_str("<?xml version=\"1.0\"?>\n<USEBIO Version=\"1.2\">\n<CLUB><CLUB_NAME>Generated</CLUB_NAME></CLUB>\n");
    out.push_str("<EVENT EVENT_TYPE=\"MP_PAIRS\">\n  <EVENT_DESCRIPTION>Speed test</EVENT_DESCRIPTION>\n  <WINNER_TYPE>2</WINNER_TYPE>\n  <PARTICIPANTS>\n");
    for t in 1..=tables {
        for d in ["NS", "EW"] {
            let _ = write!(
                out,
                "    <PAIR><PAIR_NUMBER>{t}{d}</PAIR_NUMBER><DIRECTION>{d}</DIRECTION>\n      \
                 <PLAYER><PLAYER_NAME>Player {t}{d}a</PLAYER_NAME><NATIONAL_ID_NUMBER>{t}1</NATIONAL_ID_NUMBER></PLAYER>\n      \
                 <PLAYER><PLAYER_NAME>Player {t}{d}b</PLAYER_NAME><NATIONAL_ID_NUMBER>{t}2</NATIONAL_ID_NUMBER></PLAYER></PAIR>\n"
            );
        }
    }
    out.push_str("  </PARTICIPANTS>\n");
    let contracts = [
        "1NT", "2S", "3NT", "4H", "4S", "3D", "5C", "2HX", "6NT", "PASS",
    ];
    let seats = [Seat::North, Seat::East, Seat::South, Seat::West];
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut written = 0;
    'boards: for board in 1..=boards {
        let _ = write!(out, "<BOARD>\n  <BOARD_NUMBER>{board}</BOARD_NUMBER>\n");
        for t in 1..=tables {
            if written == lines {
                out.push_str("</BOARD>\n");
                break 'boards;
            }
            let contract_text = contracts[(next() % contracts.len() as u64) as usize];
            let contract: Contract = contract_text.parse().expect("a contract");
            let seat = seats[(next() % 4) as usize];
            let level = match contract {
                Contract::Bid { level, .. } => level,
                Contract::PassedOut => 0,
            };
            let tricks = (u64::from(level) + 4 + next() % 5).min(13) as u8;
            let score = ns_score(
                contract,
                seat,
                tricks,
                Vulnerability::of_board(board as u32),
            )
            .expect("a score");
            let ew = (t + board) % tables + 1;
            let _ = write!(
                out,
                "  <TRAVELLER_LINE>\n    <NS_PAIR_NUMBER>{t}NS</NS_PAIR_NUMBER>\n    <EW_PAIR_NUMBER>{ew}EW</EW_PAIR_NUMBER>\n    \
                 <CONTRACT>{contract_text}</CONTRACT>\n    <PLAYED_BY>{}</PLAYED_BY>\n    <LEAD>AH</LEAD>\n    \
                 <TRICKS>{tricks}</TRICKS>\n    <SCORE>{score}</SCORE>\n    <NS_MATCH_POINTS>1</NS_MATCH_POINTS>\n    \
                 <EW_MATCH_POINTS>1</EW_MATCH_POINTS>\n  </TRAVELLER_LINE>\n",
                seat.letter()
            );
            written += 1;
        }
        out.push_str("</BOARD>\n");
    }
    out.push_str("</EVENT>\n</USEBIO>\n");
    out
}
