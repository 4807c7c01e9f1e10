//! One pair's standing as `score --json` and `replay --json` print it (README, "JSON"), written
//! by hand as [`crate::result_json`] writes a result: a national field prints hundreds of
//! thousands of pairs, and serde_json escaped every key and name again for each. The bytes are
//! serde_json's own; the tests hold [`write_pair`] to serde_json's serialisation of the same
//! fields.

use crate::result_json::{float, integer, json_string};

/// What a pair's standing prints, in the order it is printed (the names as JSON strings).
pub(crate) struct PairLine<'a> {
    pub club: &'a [u8],
    pub section: &'a [u8],
    pub pair: &'a [u8],
    /// `NS`, `EW`, or empty for a Howell pair.
    pub direction: &'static str,
    pub boards: u32,
    /// Matchpoints and the most the pair could have had (`mp`, `max`), or its IMPs (`imps`).
    pub points: Points,
    pub pct: Option<f64>,
    pub rank: u32,
    pub tied: bool,
    pub combined_rank: u32,
    pub combined_tied: bool,
    /// The players' names, when the file names them (plain text).
    pub names: &'a [&'a str],
}

/// A pair's total: matchpoints out of a maximum, or IMPs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Points {
    Matchpoints { mp: f64, max: f64 },
    Imps(f64),
}

/// Appends one pair's standing, from its opening brace to its closing one.
pub(crate) fn write_pair(out: &mut Vec<u8>, line: &PairLine<'_>) {
    out.extend_from_slice(b"{\"club\":");
    out.extend_from_slice(line.club);
    out.extend_from_slice(b",\"section\":");
    out.extend_from_slice(line.section);
    out.extend_from_slice(b",\"pair\":");
    out.extend_from_slice(line.pair);
    out.extend_from_slice(b",\"direction\":\"");
    // A direction is NS, EW or nothing: no escaping.
    out.extend_from_slice(line.direction.as_bytes());
    out.extend_from_slice(b"\",\"boards\":");
    integer(out, line.boards);
    match line.points {
        Points::Matchpoints { mp, max } => {
            out.extend_from_slice(b",\"mp\":");
            float(out, mp);
            out.extend_from_slice(b",\"max\":");
            float(out, max);
        }
        Points::Imps(_) => {}
    }
    if let Some(pct) = line.pct {
        out.extend_from_slice(b",\"pct\":");
        float(out, pct);
    }
    if let Points::Imps(imps) = line.points {
        out.extend_from_slice(b",\"imps\":");
        float(out, imps);
    }
    out.extend_from_slice(b",\"rank\":");
    integer(out, line.rank);
    out.extend_from_slice(b",\"tied\":");
    out.extend_from_slice(boolean(line.tied));
    out.extend_from_slice(b",\"combined_rank\":");
    integer(out, line.combined_rank);
    out.extend_from_slice(b",\"combined_tied\":");
    out.extend_from_slice(boolean(line.combined_tied));
    if !line.names.is_empty() {
        out.extend_from_slice(b",\"names\":[");
        for (i, name) in line.names.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(json_string(name).as_bytes());
        }
        out.push(b']');
    }
    out.push(b'}');
}

fn boolean(value: bool) -> &'static [u8] {
    if value { b"true" } else { b"false" }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::Serialize;

    use super::{PairLine, Points, write_pair};
    use crate::result_json::json_string;
    use crate::result_json::tests::{text, value};

    /// The fields as serde printed them before [`write_pair`].
    #[derive(Serialize)]
    struct PairJson<'a> {
        club: &'a str,
        section: &'a str,
        pair: &'a str,
        direction: &'static str,
        boards: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        mp: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pct: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        imps: Option<f64>,
        rank: u32,
        tied: bool,
        combined_rank: u32,
        combined_tied: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        names: Option<Vec<&'a str>>,
    }

    proptest! {
        #[test]
        fn writes_what_serde_json_writes(
            texts in proptest::collection::vec(text(), 3),
            direction in prop::sample::select(vec!["NS", "EW", ""]),
            boards in any::<u32>(),
            matchpoints in any::<bool>(),
            values in (value(), value()),
            pct in proptest::option::of(value()),
            places in (any::<u32>(), any::<bool>(), any::<u32>(), any::<bool>()),
            players in proptest::collection::vec(text(), 0..3),
        ) {
            let escaped: Vec<Box<str>> = texts.iter().map(|n| json_string(n)).collect();
            let names: Vec<&str> = players.iter().map(String::as_str).collect();
            let (rank, tied, combined_rank, combined_tied) = places;
            let mut written = Vec::new();
            write_pair(&mut written, &PairLine {
                club: escaped[0].as_bytes(),
                section: escaped[1].as_bytes(),
                pair: escaped[2].as_bytes(),
                direction,
                boards,
                points: match matchpoints {
                    true => Points::Matchpoints { mp: values.0, max: values.1 },
                    false => Points::Imps(values.0),
                },
                pct,
                rank,
                tied,
                combined_rank,
                combined_tied,
                names: &names,
            });
            let by_serde = serde_json::to_vec(&PairJson {
                club: &texts[0],
                section: &texts[1],
                pair: &texts[2],
                direction,
                boards,
                mp: matchpoints.then_some(values.0),
                max: matchpoints.then_some(values.1),
                pct,
                imps: (!matchpoints).then_some(values.0),
                rank,
                tied,
                combined_rank,
                combined_tied,
                names: (!names.is_empty()).then(|| names.clone()),
            })
            .unwrap();
            prop_assert_eq!(String::from_utf8(written).unwrap(), String::from_utf8(by_serde).unwrap());
        }
    }
}
