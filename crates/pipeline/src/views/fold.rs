//! Text as search compares it: accents and case ignored, words split at anything that is not a
//! letter or a digit. `Zoë Ångström-Müller` is the words `zoe`, `angstrom`, `muller` and the joined
//! `angstrommuller`, so a reader finds her whichever way they type her name.

/// The longest word kept: longer words are cut (a name is not 40 letters long; a 20 MB "name" must
/// not make a 20 MB key).
pub(crate) const MAX_WORD: usize = 40;

/// The most words a query or a name is read for.
pub(crate) const MAX_WORDS: usize = 12;

/// `text` folded: transliterated to ASCII (accents dropped, `ß` to `ss`, `ø` to `o`), lower case.
pub fn fold(text: &str) -> String {
    // Only the start of a very long text is read: what is beyond it is never shown whole either.
    let start = crate::views::text::truncate(text, MAX_WORD * MAX_WORDS);
    deunicode::deunicode(start).to_ascii_lowercase()
}

/// The folded words of `text`, and each run of words joined by `-` or `'` written as one word
/// (`O'Brien` is `o`, `brien` and `obrien`), without repeats.
pub fn words(text: &str) -> Vec<String> {
    let folded = fold(text);
    let mut out: Vec<String> = Vec::new();
    let push = |w: &str, out: &mut Vec<String>| {
        let w = crate::views::text::truncate(w, MAX_WORD);
        if !w.is_empty() && out.len() < MAX_WORDS * 2 && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    };
    for chunk in folded.split(|c: char| c.is_whitespace() || c == '&' || c == ',' || c == '/') {
        let parts: Vec<&str> = chunk
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|p| !p.is_empty())
            .collect();
        for p in &parts {
            push(p, &mut out);
        }
        if parts.len() > 1 {
            push(&parts.concat(), &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_case_and_joins_are_ignored() {
        assert_eq!(
            words("Zoë Ångström-Müller"),
            ["zoe", "angstrom", "muller", "angstrommuller"]
        );
        assert_eq!(words("O'BRIEN"), ["o", "brien", "obrien"]);
        assert_eq!(words("Søren Straße"), ["soren", "strasse"]);
        assert_eq!(words("Ann & Bob"), ["ann", "bob"]);
        assert!(words("  <>  ").is_empty());
    }

    #[test]
    fn long_text_is_cut() {
        let long = "a".repeat(1 << 20);
        let w = words(&long);
        assert_eq!(w, ["a".repeat(MAX_WORD)]);
        let many =
            "word ".repeat(10_000) + &(0..1000).map(|i| format!("w{i} ")).collect::<String>();
        assert!(words(&many).len() <= MAX_WORDS * 2);
    }
}
