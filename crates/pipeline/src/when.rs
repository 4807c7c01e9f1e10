//! Moments of the log in words, for messages and listings.

/// A moment in words: UTC and this machine's local time.
pub fn describe_time(ms: i64) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(t) => {
            let local = t.to_zoned(jiff::tz::TimeZone::system());
            format!(
                "{} ({} local time)",
                t.strftime("%Y-%m-%d %H:%M:%S UTC"),
                local.strftime("%Y-%m-%d %H:%M:%S %:z")
            )
        }
        Err(_) => format!("{ms} ms after 1970"),
    }
}
