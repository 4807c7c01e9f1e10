//! Text for display: names and other text that came from a club's file are cut to a length a page
//! can show, so that a 20 MB "name" is never served back whole.

/// The most characters of a name shown.
pub(crate) const MAX_NAME: usize = 60;

/// The longest prefix of `text` of at most `max` characters (not bytes: never cuts a character).
pub fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// `text` cut to [`MAX_NAME`] characters, with `…` where it was cut.
pub fn display_name(text: &str) -> String {
    display_text(text, MAX_NAME)
}

/// The most characters of a reason or warning shown.
pub const MAX_TEXT: usize = 400;

/// `text` cut to `max` characters, with `…` where it was cut.
pub fn display_text(text: &str, max: usize) -> String {
    let cut = truncate(text, max);
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_at_characters() {
        assert_eq!(truncate("Zoë", 2), "Zo");
        assert_eq!(truncate("Zoë", 3), "Zoë");
        assert_eq!(display_name("short"), "short");
        let long = "é".repeat(10_000_000);
        let shown = display_name(&long);
        assert_eq!(shown.chars().count(), MAX_NAME + 1);
        assert!(shown.ends_with('…'));
    }
}
