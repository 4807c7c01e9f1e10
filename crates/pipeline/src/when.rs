//! Moments of the log in words, for messages and listings.

/// A moment in words: UTC, and this machine's local time where it is not UTC.
pub fn describe_time(ms: i64) -> String {
    describe_in(ms, &jiff::tz::TimeZone::system())
}

fn describe_in(ms: i64, zone: &jiff::tz::TimeZone) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(t) => {
            let utc = t.strftime("%Y-%m-%d %H:%M:%S UTC");
            let local = t.to_zoned(zone.clone());
            // The same moment twice says nothing more.
            if local.offset() == jiff::tz::Offset::UTC {
                return utc.to_string();
            }
            format!(
                "{utc} ({} local time)",
                local.strftime("%Y-%m-%d %H:%M:%S %:z")
            )
        }
        Err(_) => format!("{ms} ms after 1970"),
    }
}

#[cfg(test)]
mod tests {
    use super::describe_in;

    #[test]
    fn local_time_is_given_where_it_differs() {
        // 2026-11-22 20:15:00 UTC.
        let ms = 1_795_378_500_000;
        // A fixed offset: a machine without the time zone database has it too.
        let paris = jiff::tz::TimeZone::fixed(jiff::tz::offset(1));
        assert_eq!(
            describe_in(ms, &paris),
            "2026-11-22 20:15:00 UTC (2026-11-22 21:15:00 +01:00 local time)"
        );
        assert_eq!(
            describe_in(ms, &jiff::tz::TimeZone::UTC),
            "2026-11-22 20:15:00 UTC"
        );
        assert_eq!(
            describe_in(i64::MAX, &paris),
            format!("{} ms after 1970", i64::MAX)
        );
    }
}
