//! Query parameters, read and checked before use. A parameter that is not what the page expects
//! is answered with a page that names the parameter (never its value): nothing a link carries is
//! written back into a page (issue 18: `/?list="><script>` came back raw).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

/// The longest value read of any parameter (a club id, a name searched, a number).
pub(crate) const MAX_VALUE: usize = 200;

/// The most rows a page shows at once.
pub(crate) const MAX_LIMIT: usize = 500;

/// A parameter that is not what the page expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadParam {
    /// The parameter's name (one of ours, never the client's text).
    pub name: &'static str,
    /// What it should be, in words.
    pub expected: &'static str,
}

/// A request's query parameters.
#[derive(Clone, Debug, Default)]
pub struct Params(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        // Invalid UTF-8 and bad escapes are read leniently: they can only fail the checks below.
        let pairs = form_urlencoded::parse(query.as_bytes())
            .take(64)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Ok(Params(pairs))
    }
}

impl Params {
    /// Parameters from name-value pairs (tests).
    #[cfg(test)]
    pub(crate) fn from_pairs(pairs: &[(&str, &str)]) -> Params {
        Params(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// A text parameter, trimmed; empty is absent.
    pub fn text(&self, name: &'static str) -> Result<Option<&str>, BadParam> {
        let Some((_, v)) = self.0.iter().find(|(k, _)| k == name) else {
            return Ok(None);
        };
        let v = v.trim();
        if v.chars().count() > MAX_VALUE {
            return Err(BadParam {
                name,
                expected: "at most 200 characters",
            });
        }
        Ok(Some(v).filter(|v| !v.is_empty()))
    }

    /// A whole number of at most `max`.
    pub fn number(&self, name: &'static str, max: usize) -> Result<Option<usize>, BadParam> {
        let bad = BadParam {
            name,
            expected: "a whole number",
        };
        match self.text(name)? {
            None => Ok(None),
            Some(v) => v
                .parse::<usize>()
                .map(|n| Some(n.min(max)))
                .map_err(|_| bad),
        }
    }

    /// One of `choices`, any case; `None` if absent.
    pub fn choice(
        &self,
        name: &'static str,
        choices: &[&'static str],
        expected: &'static str,
    ) -> Result<Option<&'static str>, BadParam> {
        match self.text(name)? {
            None => Ok(None),
            Some(v) => choices
                .iter()
                .find(|c| c.eq_ignore_ascii_case(v))
                .copied()
                .map(Some)
                .ok_or(BadParam { name, expected }),
        }
    }
}

/// Percent-encodes `text` for a URL path segment or query value.
pub(crate) fn enc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_checked_and_never_echoed() {
        let p = Params::from_pairs(&[("list", "\"><script>"), ("offset", "12"), ("n", "x")]);
        let bad = p
            .choice("list", &["combined", "ns"], "combined or ns")
            .unwrap_err();
        assert_eq!(bad.name, "list");
        assert_eq!(p.number("offset", 10).unwrap(), Some(10));
        assert!(p.number("n", 10).is_err());
        assert_eq!(p.text("absent").unwrap(), None);
        let long = "x".repeat(MAX_VALUE + 1);
        assert!(Params::from_pairs(&[("q", &long)]).text("q").is_err());
        assert_eq!(enc("a b/<"), "a%20b%2F%3C");
    }
}
