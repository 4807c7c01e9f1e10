//! A way of scoring an event: the declared one with some options changed, as an analyst writes it
//! (`factoring=ratio`, `scoring=butler,butler-trim=25`, `scale=single`), and the moment to score.

use simpairs_pipeline::replay::AsOf;
use simpairs_scoring::{Conventions, Factoring, FouledMethod, Method, Options, Scale};

use crate::{Error, Result, VariantError};

/// Scoring options to change from the event's declared ones; unset ones stay as declared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variant {
    pub method: Option<Method>,
    pub factoring: Option<Factoring>,
    pub fouled: Option<FouledMethod>,
    pub scale: Option<Scale>,
    pub butler_trim_percent: Option<u32>,
    /// A program's conventions instead of the declared ones (`conventions=compscore`).
    pub conventions: Option<Conventions>,
    /// Single conventions choices changed on top (`missing=tie`, `lines=round1`), in order.
    pub choices: Vec<(String, String)>,
}

impl std::str::FromStr for Variant {
    type Err = Error;

    /// `key=value` pairs separated by commas; an empty text is the declared scoring.
    fn from_str(text: &str) -> Result<Variant> {
        let mut v = Variant::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(VariantError::NotKeyValue {
                    part: part.to_string(),
                }
                .into());
            };
            let (key, value) = (
                key.trim().to_ascii_lowercase(),
                value.trim().to_ascii_lowercase(),
            );
            let bad = || VariantError::NotUnderstood {
                part: part.to_string(),
                value: value.clone(),
            };
            let conventions = |source| VariantError::Conventions {
                part: part.to_string(),
                source,
            };
            match key.as_str() {
                "scoring" | "method" => v.method = Some(method(&value).ok_or_else(bad)?),
                "factoring" => v.factoring = Some(factoring(&value).ok_or_else(bad)?),
                "fouled" => v.fouled = Some(fouled(&value).ok_or_else(bad)?),
                "scale" => v.scale = Some(scale(&value).ok_or_else(bad)?),
                "butler-trim" | "butler_trim" | "trim" => {
                    let trim: u32 = value.trim_end_matches('%').parse().map_err(|_| bad())?;
                    v.butler_trim_percent = Some(trim);
                }
                "conventions" => {
                    let preset = value.parse().map_err(conventions)?;
                    v.conventions = Some(preset);
                }
                _ => {
                    // A conventions choice is checked here, so that options() cannot fail.
                    match Conventions::default().set(&key, &value) {
                        Ok(()) => v.choices.push((key, value)),
                        Err(simpairs_scoring::ConventionsError::UnknownKey(_)) => {
                            return Err(VariantError::UnknownOption {
                                part: part.to_string(),
                                key,
                            }
                            .into());
                        }
                        Err(e) => return Err(conventions(e).into()),
                    }
                }
            }
        }
        Ok(v)
    }
}

fn method(value: &str) -> Option<Method> {
    match value {
        "mp" | "matchpoints" => Some(Method::Matchpoints),
        "butler" => Some(Method::Butler),
        "cross-imps" | "cross_imps" | "crossimps" => Some(Method::CrossImps),
        _ => None,
    }
}

fn factoring(value: &str) -> Option<Factoring> {
    match value {
        "neuberg" => Some(Factoring::Neuberg),
        "ratio" => Some(Factoring::Ratio),
        _ => None,
    }
}

fn fouled(value: &str) -> Option<FouledMethod> {
    match value {
        "neuberg" => Some(FouledMethod::Neuberg),
        "add-one" | "add_one" | "addone" => Some(FouledMethod::AddOne),
        _ => None,
    }
}

fn scale(value: &str) -> Option<Scale> {
    match value {
        "double" => Some(Scale::Double),
        "single" => Some(Scale::Single),
        _ => None,
    }
}

impl Variant {
    /// The options to score with: `declared` with this variant's changes.
    pub fn options(&self, declared: Options) -> Options {
        Options {
            method: self.method.unwrap_or(declared.method),
            factoring: self.factoring.unwrap_or(declared.factoring),
            fouled: self.fouled.unwrap_or(declared.fouled),
            scale: self.scale.unwrap_or(declared.scale),
            butler_trim_percent: self
                .butler_trim_percent
                .unwrap_or(declared.butler_trim_percent),
            conventions: self.conventions(declared.conventions),
        }
    }

    fn conventions(&self, declared: Conventions) -> Conventions {
        let mut conventions = self.conventions.unwrap_or(declared);
        for (key, value) in &self.choices {
            // Checked when the variant was read.
            let _ = conventions.set(key, value);
        }
        conventions
    }
}

/// Options in words, as an analyst writes them back (`scoring=mp,factoring=neuberg,...`).
pub fn describe(options: &Options) -> String {
    let method = match options.method {
        Method::Butler => "butler",
        Method::CrossImps => "cross-imps",
        _ => "mp",
    };
    let factoring = match options.factoring {
        Factoring::Ratio => "ratio",
        _ => "neuberg",
    };
    let fouled = match options.fouled {
        FouledMethod::AddOne => "add-one",
        _ => "neuberg",
    };
    let scale = match options.scale {
        Scale::Single => "single",
        _ => "double",
    };
    let mut text = format!("scoring={method},factoring={factoring},fouled={fouled},scale={scale}");
    if options.method == Method::Butler {
        text.push_str(&format!(",butler-trim={}", options.butler_trim_percent));
    }
    if !options.conventions.is_seeds() {
        text.push_str(&format!(",conventions={}", options.conventions));
    }
    text
}

/// One side of a comparison: a way of scoring, at a moment (the whole log when `None`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Side {
    pub variant: Variant,
    pub as_of: Option<AsOf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_changes_only_what_it_names() {
        let declared = Options::default();
        let v: Variant = "factoring=ratio, scale=single".parse().unwrap();
        let o = v.options(declared);
        assert_eq!((o.factoring, o.scale), (Factoring::Ratio, Scale::Single));
        assert_eq!(
            (o.method, o.fouled, o.butler_trim_percent),
            (Method::Matchpoints, FouledMethod::Neuberg, 20)
        );
        let b: Variant = "scoring=butler,butler-trim=25%".parse().unwrap();
        assert_eq!(
            describe(&b.options(declared)),
            "scoring=butler,factoring=neuberg,fouled=neuberg,scale=double,butler-trim=25"
        );
        assert_eq!("".parse::<Variant>().unwrap(), Variant::default());
    }

    #[test]
    fn a_spec_names_a_program_s_conventions_and_single_choices() {
        let v: Variant = "conventions=scorebridge".parse().unwrap();
        let o = v.options(Options::default());
        assert_eq!(o.conventions, "scorebridge".parse().unwrap());
        let v: Variant = "conventions=compscore,missing=tie".parse().unwrap();
        let o = v.options(Options::default());
        assert_eq!(o.conventions, "compscore,missing=tie".parse().unwrap());
        assert!(
            describe(&o).ends_with(",conventions=compscore,missing=tie"),
            "{}",
            describe(&o)
        );
        // A single choice changes the declared conventions, not the seeds'.
        let declared = Options {
            conventions: "nz-scorer".parse().unwrap(),
            ..Options::default()
        };
        let o = "datum=median".parse::<Variant>().unwrap().options(declared);
        assert_eq!(o.conventions, "nz-scorer,datum=median".parse().unwrap());
        for bad in ["conventions=bridgemate", "missing=maybe"] {
            assert!(bad.parse::<Variant>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_spec_it_cannot_read_says_what_it_understands() {
        for bad in [
            "factoring",
            "factoring=fast",
            "colour=red",
            "butler-trim=lots",
        ] {
            let e = bad.parse::<Variant>().unwrap_err().to_string();
            assert!(e.contains("factoring=neuberg|ratio"), "{bad}: {e}");
        }
    }
}
