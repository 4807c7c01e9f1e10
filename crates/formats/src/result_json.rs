//! One result of a board as `score --json` and `replay --json` print it (README, "JSON"), written
//! by hand. A national field prints millions of them: through serde every key and every name was
//! escaped again for each result, which was most of the time `replay --json` spent printing.
//!
//! The bytes are serde_json's own: the field's names are escaped by serde_json, once each
//! ([`Names`]), and numbers are written as serde_json writes them (integers by `itoa`, floats by
//! `zmij`, a float that is not finite as `null`). The tests hold what [`write_pairs`] and
//! [`write_tail`] write to serde_json's serialisation of the same fields.

use rayon::prelude::*;
use simpairs_scoring::field::{ClubId, SectionId};
use simpairs_scoring::{Field, PairId, PairLabel};

/// The field's names as JSON, escaped once: each pair's label, and the start of a result whose NS
/// pair it is (`{"club":…,"section":…,"ns_pair":…`).
///
/// Each kind is one buffer with the pairs' texts end to end, by pair id: a national field's
/// results print hundreds of thousands of names, read from one run of memory instead of one
/// allocation each.
pub(crate) struct Names {
    /// Each pair's label as printed, as a JSON string.
    pairs: Texts,
    /// The start of each pair's results as NS.
    heads: Texts,
    /// Each club's and each section's name, as a JSON string.
    clubs: Vec<Box<str>>,
    sections: Vec<Box<str>>,
}

/// Texts end to end, by index, in runs of [`TEXTS_RUN`] written each on one thread: a national
/// field's two million labels and heads are written straight into the runs' buffers, not made
/// one string at a time and copied together.
struct Texts {
    runs: Vec<TextRun>,
}

/// The texts of [`TEXTS_RUN`] indices (the last run: those left).
struct TextRun {
    bytes: Vec<u8>,
    /// Where each text ends in `bytes` (its start is where the one before ends).
    ends: Vec<usize>,
}

/// Texts in a run of [`Texts`]: a power of two, so that a text's run is a shift away.
const TEXTS_RUN: usize = 1 << 14;

impl Texts {
    /// The text `write` writes for each of `items`, by index, written on every thread.
    fn written<T: Sync>(items: &[T], write: impl Fn(&mut Vec<u8>, &T) + Sync) -> Texts {
        let runs = items
            .par_chunks(TEXTS_RUN)
            .map(|run| {
                let mut texts = TextRun {
                    bytes: Vec::with_capacity(run.len() * 16),
                    ends: Vec::with_capacity(run.len()),
                };
                for item in run {
                    write(&mut texts.bytes, item);
                    texts.ends.push(texts.bytes.len());
                }
                texts
            })
            .collect();
        Texts { runs }
    }

    fn get(&self, at: usize) -> &[u8] {
        let run = &self.runs[at / TEXTS_RUN];
        let at = at % TEXTS_RUN;
        let start = at.checked_sub(1).map_or(0, |before| run.ends[before]);
        &run.bytes[start..run.ends[at]]
    }
}

impl Names {
    /// The names of `field`.
    pub(crate) fn of(field: &Field) -> Names {
        let clubs: Vec<Box<str>> = field.clubs().map(json_string).collect();
        let sections: Vec<Box<str>> = field.sections().map(json_string).collect();
        let (pairs, heads) = rayon::join(
            || Texts::written(field.pairs(), |out, p| push_label(out, &p.label)),
            || {
                Texts::written(field.pairs(), |out, p| {
                    push_head(out, &clubs[p.club as usize], &sections[p.section as usize]);
                    push_label(out, &p.label);
                })
            },
        );
        Names {
            pairs,
            heads,
            clubs,
            sections,
        }
    }

    /// A pair's label as a JSON string.
    pub(crate) fn pair(&self, pair: PairId) -> &[u8] {
        self.pairs.get(pair as usize)
    }

    /// A club's name as a JSON string.
    pub(crate) fn club(&self, club: ClubId) -> &[u8] {
        self.clubs[club as usize].as_bytes()
    }

    /// A section's name as a JSON string.
    pub(crate) fn section(&self, section: SectionId) -> &[u8] {
        self.sections[section as usize].as_bytes()
    }
}

/// Appends the start of a result up to its NS pair's label: its club and section (each a JSON
/// string), then the label's key.
fn push_head(out: &mut Vec<u8>, club: &str, section: &str) {
    out.extend_from_slice(b"{\"club\":");
    out.extend_from_slice(club.as_bytes());
    out.extend_from_slice(b",\"section\":");
    out.extend_from_slice(section.as_bytes());
    out.extend_from_slice(b",\"ns_pair\":");
}

/// Appends a pair's label as printed, as a JSON string (a number's digits need no escaping).
fn push_label(out: &mut Vec<u8>, label: &PairLabel) {
    match label {
        PairLabel::Number(n) => {
            out.push(b'"');
            out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes());
            out.push(b'"');
        }
        PairLabel::Text(text) => out.extend_from_slice(json_string(text).as_bytes()),
    }
}

/// `text` as a JSON string, as serde_json writes it.
pub(crate) fn json_string(text: &str) -> Box<str> {
    serde_json::to_string(text)
        .expect("a string is always JSON")
        .into_boxed_str()
}

/// What a result prints after its pairs, in the order it is printed. A plain score's is the
/// same for every table of a board with that score, so it is written once and copied
/// ([`write_tail`]).
pub(crate) struct Tail<'a> {
    pub ns_score: Option<i32>,
    pub ew_score: Option<i32>,
    /// The adjusted score as written, when there is one (plain text).
    pub adjusted: Option<String>,
    pub arrow_switch: bool,
    /// The fouled-board group, when there is one (plain text).
    pub group: Option<&'a str>,
    /// Each side's value: matchpoints (`ns_mp`, `ew_mp`) or IMPs (`ns_imps`, `ew_imps`).
    pub values: (f64, f64),
    pub matchpoints: bool,
}

/// Appends the start of the result of `ns` against `ew`, up to its tail.
pub(crate) fn write_pairs(out: &mut Vec<u8>, names: &Names, ns: PairId, ew: PairId) {
    out.extend_from_slice(names.heads.get(ns as usize));
    out.extend_from_slice(b",\"ew_pair\":");
    out.extend_from_slice(names.pairs.get(ew as usize));
}

/// Appends the rest of a result, from its score to the closing brace.
pub(crate) fn write_tail(out: &mut Vec<u8>, tail: &Tail<'_>) {
    out.extend_from_slice(b",\"ns_score\":");
    match tail.ns_score {
        Some(score) => integer(out, score),
        None => out.extend_from_slice(b"null"),
    }
    if let Some(score) = tail.ew_score {
        out.extend_from_slice(b",\"ew_score\":");
        integer(out, score);
    }
    if let Some(adjusted) = &tail.adjusted {
        out.extend_from_slice(b",\"adjusted\":");
        out.extend_from_slice(json_string(adjusted).as_bytes());
    }
    if tail.arrow_switch {
        out.extend_from_slice(b",\"arrow_switch\":true");
    }
    if let Some(group) = tail.group {
        out.extend_from_slice(b",\"group\":");
        out.extend_from_slice(json_string(group).as_bytes());
    }
    let (ns_key, ew_key): (&[u8], &[u8]) = if tail.matchpoints {
        (b",\"ns_mp\":", b",\"ew_mp\":")
    } else {
        (b",\"ns_imps\":", b",\"ew_imps\":")
    };
    out.extend_from_slice(ns_key);
    float(out, tail.values.0);
    out.extend_from_slice(ew_key);
    float(out, tail.values.1);
    out.push(b'}');
}

/// An integer as serde_json writes one.
pub(crate) fn integer(out: &mut Vec<u8>, value: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// A float as serde_json writes one: shortest round-trip digits, `null` when not finite.
pub(crate) fn float(out: &mut Vec<u8>, value: f64) {
    if value.is_finite() {
        out.extend_from_slice(zmij::Buffer::new().format_finite(value).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;
    use serde::Serialize;

    use simpairs_scoring::PairLabel;

    use super::{Tail, json_string, push_head, push_label, write_tail};

    /// The fields as serde printed them before [`write`].
    #[derive(Serialize)]
    struct ResultJson<'a> {
        club: &'a str,
        section: &'a str,
        ns_pair: &'a str,
        ew_pair: &'a str,
        ns_score: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ew_score: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        adjusted: Option<String>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        arrow_switch: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ns_mp: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ew_mp: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ns_imps: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ew_imps: Option<f64>,
    }

    /// Values as results and standings print them: any float, quarters, and those serde_json
    /// prints specially (not finite, negative zero).
    pub(crate) fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => any::<f64>(),
            2 => (0u32..400_000).prop_map(|n| f64::from(n) / 4.0),
            1 => Just(f64::NAN),
            1 => Just(f64::INFINITY),
            1 => Just(-0.0),
        ]
    }

    /// Names: plain, any, and made of the characters JSON escapes.
    pub(crate) fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "[A-Za-z0-9 ]{0,8}",
            1 => any::<String>(),
            1 => "[\"\\\\\u{0}-\u{1f}\u{7f}é]{0,4}",
        ]
    }

    proptest! {
        /// A label is written as serde_json writes the text it prints as, numbers without
        /// making the text first.
        #[test]
        fn labels_are_written_as_serde_json_writes_their_text(
            number in any::<u32>(),
            text in text(),
        ) {
            for label in [PairLabel::Number(number), PairLabel::Text(text.clone().into())] {
                let mut written = Vec::new();
                push_label(&mut written, &label);
                let by_serde = serde_json::to_vec(&label.to_string()).unwrap();
                prop_assert_eq!(written, by_serde);
            }
        }

        #[test]
        fn writes_what_serde_json_writes(
            names in proptest::collection::vec(text(), 4),
            ns_score in proptest::option::of(any::<i32>()),
            ew_score in proptest::option::of(any::<i32>()),
            adjusted in proptest::option::of(text()),
            arrow_switch in any::<bool>(),
            group in proptest::option::of(text()),
            values in (value(), value()),
            matchpoints in any::<bool>(),
        ) {
            let escaped: Vec<Box<str>> = names.iter().map(|n| json_string(n)).collect();
            // As `write_pairs` writes them, from the names of `Names::of`.
            let mut written = Vec::new();
            push_head(&mut written, &escaped[0], &escaped[1]);
            written.extend_from_slice(escaped[2].as_bytes());
            written.extend_from_slice(b",\"ew_pair\":");
            written.extend_from_slice(escaped[3].as_bytes());
            write_tail(&mut written, &Tail {
                ns_score,
                ew_score,
                adjusted: adjusted.clone(),
                arrow_switch,
                group: group.as_deref(),
                values,
                matchpoints,
            });
            let by_serde = serde_json::to_vec(&ResultJson {
                club: &names[0],
                section: &names[1],
                ns_pair: &names[2],
                ew_pair: &names[3],
                ns_score,
                ew_score,
                adjusted,
                arrow_switch,
                group: group.as_deref(),
                ns_mp: matchpoints.then_some(values.0),
                ew_mp: matchpoints.then_some(values.1),
                ns_imps: (!matchpoints).then_some(values.0),
                ew_imps: (!matchpoints).then_some(values.1),
            })
            .unwrap();
            prop_assert_eq!(String::from_utf8(written).unwrap(), String::from_utf8(by_serde).unwrap());
        }
    }
}
