//! The conventions of the scoring programs clubs use, where the source documents leave a choice.
//!
//! simpairs follows the seeds (Neuberg by default, ratio as an option, exact values rounded only when
//! printed). Club programs agree with that on every plain board, and differ on a few conventions: how
//! a board played fewer times is shown and factored, how the results beside an artificial score are
//! compared, how lines and totals are rounded, whether the total of a pair that missed boards is
//! scaled up, and how the Butler datum is taken. [`Conventions`] names each choice; a [`Preset`] is
//! one program's set of choices.
//!
//! ## The text form
//! A conventions value is written as one string: a preset name, then any overrides, comma-separated:
//!
//! ```text
//! conventions = preset *( "," key "=" value )
//! preset      = "seeds" | "ebu" | "acbl" | "compscore" | "scorebridge" | "jfr" | "nz-scorer"
//! key         = "missing" | "artificial" | "short-lines" | "lines" | "totals" | "scale-totals"
//!             | "datum" | "trim-from"
//! missing     = "factor" | "tie"
//! artificial  = "neuberg" | "ratio" | "tie" | "none"
//! short-lines = "factored" | "raw"
//! lines, totals = "exact" | "round-" step [ "-even" ] | "truncate-" step     ; step = 1, 0.1, 0.01, 0.001
//! scale-totals = "no" | "yes"
//! datum       = "mean" | "median"
//! trim-from   = 1..=255
//! ```
//!
//! A string that starts with an override (`missing=tie`) starts from `seeds`. [`Conventions`]'s
//! `Display` writes the canonical form: the preset, then only the choices that differ from it, in
//! the order of the grammar (`seeds,missing=tie,lines=truncate-0.1`); parsing it gives the same
//! value back.
//!
//! ```
//! use simpairs_scoring::Conventions;
//!
//! let c: Conventions = "compscore".parse().unwrap();
//! assert_eq!(c.to_string(), "compscore");
//! let c: Conventions = "lines=truncate-0.1,missing=tie".parse().unwrap();
//! assert_eq!(c.to_string(), "seeds,missing=tie,lines=truncate-0.1");
//! assert_eq!(Conventions::default().to_string(), "seeds");
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// A scoring program whose conventions simpairs can follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Preset {
    /// The source documents (docs/rules.md): simpairs' own rules, the default.
    #[default]
    Seeds,
    /// The English Bridge Union's practice (EBUScore): Neuberg throughout.
    Ebu,
    /// The ACBL's practice (ACBLscore): Neuberg throughout.
    Acbl,
    /// Compscore (Australia).
    Compscore,
    /// ScoreBridge (UK) with its default "simple" scoring.
    Scorebridge,
    /// JFR Pary (Poland).
    Jfr,
    /// NZ Bridge's club program Scorer.
    NzScorer,
}

impl Preset {
    /// Every preset, in the order `--help` lists them.
    pub const ALL: [Preset; 7] = [
        Preset::Seeds,
        Preset::Ebu,
        Preset::Acbl,
        Preset::Compscore,
        Preset::Scorebridge,
        Preset::Jfr,
        Preset::NzScorer,
    ];

    /// The preset's name in the text form and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Seeds => "seeds",
            Preset::Ebu => "ebu",
            Preset::Acbl => "acbl",
            Preset::Compscore => "compscore",
            Preset::Scorebridge => "scorebridge",
            Preset::Jfr => "jfr",
            Preset::NzScorer => "nz-scorer",
        }
    }

    /// The preset named `name`.
    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The choices of the preset.
    pub fn conventions(self) -> Conventions {
        let seeds = Conventions::SEEDS;
        match self {
            Preset::Seeds | Preset::Ebu | Preset::Acbl => Conventions {
                preset: self,
                ..seeds
            },
            Preset::Compscore => Conventions {
                preset: self,
                short_lines: ShortLines::Raw,
                lines: Rounding::Round {
                    places: 1,
                    half: Half::Even,
                },
                totals: Rounding::Round {
                    places: 2,
                    half: Half::Even,
                },
                scale_totals: true,
                ..seeds
            },
            Preset::Scorebridge => Conventions {
                preset: self,
                missing: Missing::Tie,
                artificial: Artificial::Tie,
                ..seeds
            },
            Preset::Jfr => Conventions {
                preset: self,
                artificial: Artificial::None,
                datum: Datum::Median,
                ..seeds
            },
            Preset::NzScorer => Conventions {
                preset: self,
                lines: Rounding::Truncate { places: 1 },
                ..seeds
            },
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a board played fewer times than the most-played board is brought to full weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Missing {
    /// By the event's factoring ([`crate::Factoring`]: Neuberg or ratio), as the seeds do.
    #[default]
    Factor,
    /// Each missing result counts as a tie with every result of the board: 1 more on the double
    /// scale per missing result (the manual method of seed 002 slide 10).
    Tie,
}

/// How the results beside an artificial adjusted score are valued: the artificial score is left
/// out of the comparison, so the board has fewer comparable results than results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Artificial {
    /// Neuberg's formula whatever the event's factoring (seed 002 slides 23-25).
    #[default]
    Neuberg,
    /// Matchpoints multiplied by results / comparable results.
    Ratio,
    /// Each artificial score counts as a tie with every comparable result (seed 002 slide 10).
    Tie,
    /// Not factored: the comparable results' matchpoints among themselves.
    None,
}

/// What a traveller line of a board played fewer times shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ShortLines {
    /// The values factored to the most-played board, as the totals count them.
    #[default]
    Factored,
    /// The matchpoints among the board's own results; the factoring shows only in the totals.
    Raw,
}

/// How a half is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Half {
    /// Away from zero (12.65 to 12.7).
    AwayFromZero,
    /// To the even neighbour (12.65 to 12.6).
    Even,
}

/// How a printed value is cut to a number of decimals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Rounding {
    /// Exact, printed to two decimals with halves away from zero (docs/rules.md section 2).
    #[default]
    Exact,
    /// Rounded to `places` decimals.
    Round { places: u8, half: Half },
    /// Cut to `places` decimals, towards zero.
    Truncate { places: u8 },
}

/// The most decimals a rounding keeps (`0.001`).
const MAX_PLACES: u8 = 3;

impl Rounding {
    /// `v` as the rounding prints it (exact values unchanged).
    pub fn apply(self, v: Value) -> Value {
        match self {
            Rounding::Exact => v,
            Rounding::Round { places, half } => {
                let scale = Value::from_integer(10i64.pow(u32::from(places)));
                round_half(v * scale, half) / scale
            }
            Rounding::Truncate { places } => {
                let scale = Value::from_integer(10i64.pow(u32::from(places)));
                (v * scale).trunc() / scale
            }
        }
    }

    fn parse(text: &str) -> Option<Rounding> {
        if text == "exact" {
            return Some(Rounding::Exact);
        }
        if let Some(step) = text.strip_prefix("truncate-") {
            return Some(Rounding::Truncate {
                places: places_of(step)?,
            });
        }
        let rest = text.strip_prefix("round-")?;
        let (step, half) = match rest.strip_suffix("-even") {
            Some(step) => (step, Half::Even),
            None => (rest, Half::AwayFromZero),
        };
        Some(Rounding::Round {
            places: places_of(step)?,
            half,
        })
    }
}

/// A big exact value as `rounding` prints it (pair totals, whose denominators can be large).
pub(crate) fn apply_big(
    rounding: Rounding,
    v: num_rational::BigRational,
) -> num_rational::BigRational {
    use num_bigint::BigInt;
    use num_rational::BigRational;
    let scale_of = |places: u8| BigRational::from_integer(BigInt::from(10).pow(u32::from(places)));
    match rounding {
        Rounding::Exact => v,
        Rounding::Truncate { places } => {
            let scale = scale_of(places);
            (v * &scale).trunc() / scale
        }
        Rounding::Round { places, half } => {
            let scale = scale_of(places);
            let x = v * &scale;
            let floor = x.floor();
            let frac = &x - &floor;
            let one_half = BigRational::new(BigInt::from(1), BigInt::from(2));
            let odd = (floor.to_integer() % BigInt::from(2)) != BigInt::from(0);
            let up = match half {
                Half::AwayFromZero => {
                    frac > one_half
                        || (frac == one_half && x >= BigRational::from_integer(0.into()))
                }
                Half::Even => frac > one_half || (frac == one_half && odd),
            };
            let rounded = if up {
                floor + BigRational::from_integer(BigInt::from(1))
            } else {
                floor
            };
            rounded / scale
        }
    }
}

/// `v` rounded to a whole number, halves as `half` says.
fn round_half(v: Value, half: Half) -> Value {
    let floor = v.floor();
    let frac = v - floor;
    let one_half = Value::new(1, 2);
    let up = match half {
        Half::AwayFromZero => frac > one_half || (frac == one_half && v >= Value::from_integer(0)),
        Half::Even => frac > one_half || (frac == one_half && floor.to_integer() % 2 != 0),
    };
    if up {
        floor + Value::from_integer(1)
    } else {
        floor
    }
}

/// The decimals of a step written `1`, `0.1`, `0.01` or `0.001`.
fn places_of(step: &str) -> Option<u8> {
    match step {
        "1" => Some(0),
        _ => {
            let zeros = step.strip_prefix("0.")?.strip_suffix('1')?;
            let places = u8::try_from(zeros.len() + 1).ok()?;
            (zeros.bytes().all(|b| b == b'0') && places <= MAX_PLACES).then_some(places)
        }
    }
}

fn step_text(places: u8) -> String {
    if places == 0 {
        "1".into()
    } else {
        format!("0.{}1", "0".repeat(usize::from(places) - 1))
    }
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rounding::Exact => f.write_str("exact"),
            Rounding::Round { places, half } => {
                let even = if *half == Half::Even { "-even" } else { "" };
                write!(f, "round-{}{even}", step_text(*places))
            }
            Rounding::Truncate { places } => write!(f, "truncate-{}", step_text(*places)),
        }
    }
}

/// The Butler datum of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Datum {
    /// The mean after dropping the top and bottom scores (seed 003), rounded to 10.
    #[default]
    Mean,
    /// The median score (the mean of the middle two of an even count), rounded to 10.
    Median,
}

/// The conventions a field is scored and shown by: one program's choices where the source documents
/// leave one. See the module documentation for the text form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Conventions {
    /// The program these choices start from (overrides may change any of them).
    pub preset: Preset,
    /// Boards played fewer times than the most-played board.
    pub missing: Missing,
    /// The results beside an artificial adjusted score.
    pub artificial: Artificial,
    /// What a traveller line of a board played fewer times shows.
    pub short_lines: ShortLines,
    /// How a line's matchpoints are printed.
    pub lines: Rounding,
    /// How a pair's total is printed.
    pub totals: Rounding,
    /// A pair's printed total is scaled to the most boards any pair played (total x most / played).
    pub scale_totals: bool,
    /// Butler: the datum.
    pub datum: Datum,
    /// Butler: the fewest results a board needs before any score is dropped from its mean.
    pub trim_from: u8,
}

impl Conventions {
    /// The source documents' choices: the default, under which every output is as it always was.
    pub const SEEDS: Conventions = Conventions {
        preset: Preset::Seeds,
        missing: Missing::Factor,
        artificial: Artificial::Neuberg,
        short_lines: ShortLines::Factored,
        lines: Rounding::Exact,
        totals: Rounding::Exact,
        scale_totals: false,
        datum: Datum::Mean,
        trim_from: 3,
    };

    /// Whether these are the seeds' choices (whatever the preset is called).
    pub fn is_seeds(&self) -> bool {
        Conventions {
            preset: Preset::Seeds,
            ..*self
        } == Conventions::SEEDS
    }

    /// Whether any choice changes what is printed but not the values scored.
    pub(crate) fn changes_presentation(&self) -> bool {
        self.short_lines != ShortLines::Factored
            || self.lines != Rounding::Exact
            || self.totals != Rounding::Exact
            || self.scale_totals
    }

    /// Sets one choice from its key and value in the text form.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConventionsError> {
        let bad = || ConventionsError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
        };
        match key {
            "missing" => {
                self.missing = match value {
                    "factor" => Missing::Factor,
                    "tie" => Missing::Tie,
                    _ => return Err(bad()),
                }
            }
            "artificial" => {
                self.artificial = match value {
                    "neuberg" => Artificial::Neuberg,
                    "ratio" => Artificial::Ratio,
                    "tie" => Artificial::Tie,
                    "none" => Artificial::None,
                    _ => return Err(bad()),
                }
            }
            "short-lines" => {
                self.short_lines = match value {
                    "factored" => ShortLines::Factored,
                    "raw" => ShortLines::Raw,
                    _ => return Err(bad()),
                }
            }
            "lines" => self.lines = Rounding::parse(value).ok_or_else(bad)?,
            "totals" => self.totals = Rounding::parse(value).ok_or_else(bad)?,
            "scale-totals" => {
                self.scale_totals = match value {
                    "yes" => true,
                    "no" => false,
                    _ => return Err(bad()),
                }
            }
            "datum" => {
                self.datum = match value {
                    "mean" => Datum::Mean,
                    "median" => Datum::Median,
                    _ => return Err(bad()),
                }
            }
            "trim-from" => {
                self.trim_from = value.parse().ok().filter(|&n| n >= 1).ok_or_else(bad)?
            }
            _ => return Err(ConventionsError::UnknownKey(key.to_string())),
        }
        Ok(())
    }

    /// Each choice as (key, value) in the text form, in the grammar's order.
    pub fn choices(&self) -> [(&'static str, String); 8] {
        let missing = match self.missing {
            Missing::Factor => "factor",
            Missing::Tie => "tie",
        };
        let artificial = match self.artificial {
            Artificial::Neuberg => "neuberg",
            Artificial::Ratio => "ratio",
            Artificial::Tie => "tie",
            Artificial::None => "none",
        };
        let short = match self.short_lines {
            ShortLines::Factored => "factored",
            ShortLines::Raw => "raw",
        };
        let datum = match self.datum {
            Datum::Mean => "mean",
            Datum::Median => "median",
        };
        [
            ("missing", missing.into()),
            ("artificial", artificial.into()),
            ("short-lines", short.into()),
            ("lines", self.lines.to_string()),
            ("totals", self.totals.to_string()),
            (
                "scale-totals",
                if self.scale_totals { "yes" } else { "no" }.into(),
            ),
            ("datum", datum.into()),
            ("trim-from", self.trim_from.to_string()),
        ]
    }
}

impl Default for Conventions {
    fn default() -> Self {
        Conventions::SEEDS
    }
}

impl fmt::Display for Conventions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.preset.name())?;
        let base = self.preset.conventions().choices();
        for ((key, value), (_, preset_value)) in self.choices().into_iter().zip(base) {
            if value != preset_value {
                write!(f, ",{key}={value}")?;
            }
        }
        Ok(())
    }
}

/// Why a conventions string was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConventionsError {
    #[error(
        "unknown conventions preset {0:?}; the presets are seeds, ebu, acbl, compscore, scorebridge, jfr \
         and nz-scorer"
    )]
    UnknownPreset(String),
    #[error(
        "unknown conventions choice {0:?}; the choices are missing, artificial, short-lines, lines, totals, \
         scale-totals, datum and trim-from"
    )]
    UnknownKey(String),
    #[error("{key}={value} is not a choice simpairs knows (see docs/rules.md, \"Conventions\")")]
    BadValue { key: String, value: String },
    #[error("{0:?} is not a choice: write key=value, such as missing=tie")]
    NotAChoice(String),
}

impl FromStr for Conventions {
    type Err = ConventionsError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.split(',').map(str::trim).peekable();
        let mut conventions = match parts.peek() {
            Some(first) if !first.contains('=') => {
                let preset = Preset::from_name(&first.to_ascii_lowercase())
                    .ok_or_else(|| ConventionsError::UnknownPreset(first.to_string()))?;
                parts.next();
                preset.conventions()
            }
            _ => Conventions::SEEDS,
        };
        for part in parts {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| ConventionsError::NotAChoice(part.to_string()))?;
            conventions.set(
                &key.trim().to_ascii_lowercase(),
                &value.trim().to_ascii_lowercase(),
            )?;
        }
        Ok(conventions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_round_trips_by_name() {
        for p in Preset::ALL {
            let c = p.conventions();
            assert_eq!(c.to_string(), p.name());
            assert_eq!(p.name().parse::<Conventions>().unwrap(), c);
        }
    }

    #[test]
    fn overrides_are_written_in_the_grammars_order_and_read_back() {
        let c: Conventions = "seeds, lines=truncate-0.1 ,missing=tie".parse().unwrap();
        assert_eq!(c.to_string(), "seeds,missing=tie,lines=truncate-0.1");
        assert_eq!(c.to_string().parse::<Conventions>().unwrap(), c);
        let c: Conventions = "compscore,scale-totals=no,trim-from=4".parse().unwrap();
        assert_eq!(c.to_string(), "compscore,scale-totals=no,trim-from=4");
        // An override that restates the preset's own choice is not written.
        let c: Conventions = "jfr,datum=median".parse().unwrap();
        assert_eq!(c.to_string(), "jfr");
        let c: Conventions = "SEEDS,Lines=Round-0.01-Even".parse().unwrap();
        assert_eq!(c.to_string(), "seeds,lines=round-0.01-even");
    }

    #[test]
    fn every_choice_round_trips() {
        let values: &[(&str, &[&str])] = &[
            ("missing", &["factor", "tie"]),
            ("artificial", &["neuberg", "ratio", "tie", "none"]),
            ("short-lines", &["factored", "raw"]),
            (
                "lines",
                &[
                    "exact",
                    "round-1",
                    "round-0.1",
                    "round-0.01-even",
                    "truncate-0.001",
                ],
            ),
            ("totals", &["exact", "round-0.01", "truncate-0.1"]),
            ("scale-totals", &["yes", "no"]),
            ("datum", &["mean", "median"]),
            ("trim-from", &["1", "4", "255"]),
        ];
        for (key, vs) in values {
            for v in *vs {
                let c: Conventions = format!("nz-scorer,{key}={v}").parse().unwrap();
                let back: Conventions = c.to_string().parse().unwrap();
                assert_eq!(back, c, "{key}={v}");
                let written = c.choices().into_iter().find(|(k, _)| k == key).unwrap().1;
                assert_eq!(&written, v);
            }
        }
    }

    #[test]
    fn mistakes_are_named() {
        let err = |t: &str| t.parse::<Conventions>().unwrap_err();
        assert_eq!(
            err("compscor"),
            ConventionsError::UnknownPreset("compscor".into())
        );
        assert_eq!(
            err("seeds,rounding=x"),
            ConventionsError::UnknownKey("rounding".into())
        );
        assert!(matches!(
            err("seeds,lines=round-0.2"),
            ConventionsError::BadValue { .. }
        ));
        assert!(matches!(
            err("seeds,lines=round-0.0001"),
            ConventionsError::BadValue { .. }
        ));
        assert!(matches!(
            err("seeds,trim-from=0"),
            ConventionsError::BadValue { .. }
        ));
        assert_eq!(err("seeds,tie"), ConventionsError::NotAChoice("tie".into()));
        assert!(err("seeds,lines=x").to_string().contains("lines=x"));
    }

    #[test]
    fn roundings_cut_as_named() {
        let r = |t: &str, v: Value| Rounding::parse(t).unwrap().apply(v);
        // Compscore's lines: 12.65 -> 12.6, 27.35 -> 27.4 (halves to even).
        assert_eq!(
            r("round-0.1-even", Value::new(1265, 100)),
            Value::new(126, 10)
        );
        assert_eq!(
            r("round-0.1-even", Value::new(2735, 100)),
            Value::new(274, 10)
        );
        assert_eq!(r("round-0.1", Value::new(1265, 100)), Value::new(127, 10));
        assert_eq!(r("round-0.1", Value::new(-1265, 100)), Value::new(-127, 10));
        assert_eq!(r("truncate-0.1", Value::new(98, 7)), Value::new(140, 10));
        assert_eq!(r("truncate-0.1", Value::new(-98, 7)), Value::new(-140, 10));
        assert_eq!(r("exact", Value::new(98, 7)), Value::new(98, 7));
        assert_eq!(r("round-1", Value::new(5, 2)), Value::from_integer(3));
        assert_eq!(r("round-1-even", Value::new(5, 2)), Value::from_integer(2));
    }

    #[test]
    fn only_the_seeds_choices_are_seeds() {
        assert!(Conventions::default().is_seeds());
        assert!(Preset::Ebu.conventions().is_seeds());
        assert!(!Preset::Compscore.conventions().is_seeds());
        assert!(Preset::Compscore.conventions().changes_presentation());
        assert!(!Preset::Scorebridge.conventions().changes_presentation());
    }
}
