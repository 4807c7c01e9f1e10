//! Every conversion between the events' wire types ([`simpairs_events::types`]) and the scoring
//! engine's ([`simpairs_scoring`]), in one place.
//!
//! Both sides belong to other crates, so the orphan rule leaves no room for `From`: the conversions
//! are free functions named by direction, `*_to_wire` (engine to events) and `*_from_wire` (events
//! to engine). A method or factoring one side has and the other does not know (an event declared by
//! a later simpairs, or an engine method the schema has no symbol for) is an [`Unknown`] with its
//! reason, never a default.

use simpairs_events::types as wire;
use simpairs_scoring as engine;

use crate::{Error, Result};

/// A value that has no counterpart on the other side: what it is and which value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value}, which this version of simpairs cannot convert")]
pub struct Unknown {
    /// What kind of value: `scoring method`, `factoring`.
    pub what: &'static str,
    /// The value, as its type's `Debug` spells it.
    pub value: String,
}

impl Unknown {
    fn new(what: &'static str, value: impl std::fmt::Debug) -> Unknown {
        Unknown {
            what,
            value: format!("{value:?}"),
        }
    }
}

/// A pair's direction on the wire.
pub fn direction_to_wire(d: engine::Direction) -> wire::Direction {
    match d {
        engine::Direction::NS => wire::Direction::Ns,
        engine::Direction::EW => wire::Direction::Ew,
    }
}

/// A pair's direction in the engine.
pub fn direction_from_wire(d: wire::Direction) -> engine::Direction {
    match d {
        wire::Direction::Ns => engine::Direction::NS,
        wire::Direction::Ew => engine::Direction::EW,
    }
}

/// The key form of a pair's direction: `NS`, `EW`, or `""` for a Howell pair.
pub fn direction_key(d: Option<wire::Direction>) -> &'static str {
    match d {
        Some(wire::Direction::Ns) => "NS",
        Some(wire::Direction::Ew) => "EW",
        None => "",
    }
}

/// The engine's direction of a pair's key form ([`direction_key`]); `None` for anything else.
pub fn direction_from_key(key: &str) -> Option<engine::Direction> {
    match key {
        "NS" => Some(engine::Direction::NS),
        "EW" => Some(engine::Direction::EW),
        _ => None,
    }
}

/// The scoring method an event declares, in the engine.
pub fn method_from_wire(s: wire::Scoring) -> Result<engine::Method, Unknown> {
    match s {
        wire::Scoring::Matchpoints => Ok(engine::Method::Matchpoints),
        wire::Scoring::Butler => Ok(engine::Method::Butler),
        wire::Scoring::CrossImps => Ok(engine::Method::CrossImps),
        other => Err(Unknown::new("scoring method", other)),
    }
}

/// The engine's scoring method on the wire.
pub fn method_to_wire(m: engine::Method) -> Result<wire::Scoring, Unknown> {
    match m {
        engine::Method::Matchpoints => Ok(wire::Scoring::Matchpoints),
        engine::Method::Butler => Ok(wire::Scoring::Butler),
        engine::Method::CrossImps => Ok(wire::Scoring::CrossImps),
        other => Err(Unknown::new("scoring method", other)),
    }
}

/// The factoring an event declares, in the engine.
pub fn factoring_from_wire(f: wire::Factoring) -> Result<engine::Factoring, Unknown> {
    match f {
        wire::Factoring::Neuberg => Ok(engine::Factoring::Neuberg),
        wire::Factoring::Ratio => Ok(engine::Factoring::Ratio),
        other => Err(Unknown::new("factoring", other)),
    }
}

/// The engine's factoring on the wire.
pub fn factoring_to_wire(f: engine::Factoring) -> Result<wire::Factoring, Unknown> {
    match f {
        engine::Factoring::Neuberg => Ok(wire::Factoring::Neuberg),
        engine::Factoring::Ratio => Ok(wire::Factoring::Ratio),
        other => Err(Unknown::new("factoring", other)),
    }
}

/// The scoring options an event was declared with: its method, factoring and conventions.
///
/// Symbols and conventions this program does not know (an event declared by a later simpairs)
/// are an error, never a silent fallback to matchpoints or to the seeds' conventions.
pub fn options_from_wire(declared: &wire::EventDeclared) -> Result<engine::Options> {
    let unknown = |what: String| Error::Undeclarable {
        event: declared.event_id.clone(),
        what,
    };
    let method = method_from_wire(declared.scoring)
        .map_err(|u| unknown(format!("{} {}", u.what, u.value)))?;
    let factoring = factoring_from_wire(declared.factoring)
        .map_err(|u| unknown(format!("{} {}", u.what, u.value)))?;
    let conventions = match &declared.conventions {
        None => engine::Conventions::default(),
        Some(text) => text
            .parse()
            .map_err(|e| unknown(format!("conventions {text:?} ({e})")))?,
    };
    Ok(engine::Options {
        method,
        factoring,
        conventions,
        ..engine::Options::default()
    })
}

/// The method and factoring of the engine's options, as the standings events carry them.
pub fn options_to_wire(o: &engine::Options) -> Result<(wire::Scoring, wire::Factoring), Unknown> {
    Ok((method_to_wire(o.method)?, factoring_to_wire(o.factoring)?))
}

/// A pair's entry in a `StandingsComputed`: its names and the engine's standing.
pub fn standing_to_wire(
    club: &str,
    section: &str,
    pair: &engine::Pair,
    s: &engine::Standing,
) -> wire::PairStanding {
    wire::PairStanding {
        club_id: club.to_string(),
        section: section.to_string(),
        pair: pair.label.to_string(),
        direction: pair.direction.map(direction_to_wire),
        boards: s.boards as i32,
        total: s.total,
        max: s.max,
        total_hundredths: s.total_hundredths,
        percent_hundredths: s.percent_hundredths,
        rank: s.rank as i32,
        tied: s.tied,
        combined_rank: s.combined_rank as i32,
        combined_tied: s.combined_tied,
    }
}

/// An exact value as a wire fraction.
pub fn value_to_wire(v: engine::Value) -> wire::Fraction {
    wire::Fraction {
        num: *v.numer(),
        den: *v.denom(),
    }
}

/// A wire fraction as the nearest `f64` (for figures that are shown, not ranked); `0.0` for a zero
/// denominator.
pub fn fraction_to_f64(f: wire::Fraction) -> f64 {
    if f.den == 0 {
        0.0
    } else {
        f.num as f64 / f.den as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_value_goes_there_and_back() {
        for d in [engine::Direction::NS, engine::Direction::EW] {
            assert_eq!(direction_from_wire(direction_to_wire(d)), d);
        }
        for m in [
            engine::Method::Matchpoints,
            engine::Method::Butler,
            engine::Method::CrossImps,
        ] {
            assert_eq!(method_from_wire(method_to_wire(m).unwrap()), Ok(m));
        }
        for f in [engine::Factoring::Neuberg, engine::Factoring::Ratio] {
            assert_eq!(factoring_from_wire(factoring_to_wire(f).unwrap()), Ok(f));
        }
    }

    #[test]
    fn direction_keys() {
        for d in [
            None,
            Some(engine::Direction::NS),
            Some(engine::Direction::EW),
        ] {
            assert_eq!(
                direction_from_key(direction_key(d.map(direction_to_wire))),
                d
            );
        }
        assert_eq!(direction_from_key("ns"), None);
    }

    #[test]
    fn fractions() {
        let v = engine::Value::new(7, 4);
        assert_eq!(value_to_wire(v), wire::Fraction { num: 7, den: 4 });
        assert_eq!(fraction_to_f64(value_to_wire(v)), 1.75);
        assert_eq!(fraction_to_f64(wire::Fraction { num: 1, den: 0 }), 0.0);
    }
}
