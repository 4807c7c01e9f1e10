//! Counts in words, for messages, notes and listings.

/// `n` and what is counted, in the singular for one (`1 record`, `2 records`).
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
