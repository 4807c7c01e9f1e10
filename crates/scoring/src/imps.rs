//! The standard IMP scale (Law 78B) and the Butler datum.

/// Lower bounds of each IMP step: a difference of at least `IMP_STEPS[k]` is worth k+1 IMPs.
const IMP_STEPS: [i64; 24] = [
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750,
    2000, 2250, 2500, 3000, 3500, 4000,
];

/// IMPs for a difference in total points (positive when the difference is positive).
pub fn imps(difference: i64) -> i32 {
    let magnitude = difference.unsigned_abs();
    let steps = IMP_STEPS.partition_point(|&bound| bound as u64 <= magnitude) as i32;
    if difference < 0 { -steps } else { steps }
}

/// Rounds `numerator / denominator` to the nearest multiple of 10, halves away from zero
/// (a datum of -445 is -450 and of +5 is +10: cobalt `butler_howell.xml` boards 2 and 35).
pub(crate) fn round_to_ten(numerator: i64, denominator: i64) -> i64 {
    debug_assert!(denominator > 0);
    let tens = 10 * denominator;
    let magnitude = numerator.unsigned_abs() as i128;
    let tens = tens as i128;
    let rounded = ((2 * magnitude + tens) / (2 * tens)) as i64 * 10;
    if numerator < 0 { -rounded } else { rounded }
}

/// How many scores are dropped at each end before the Butler datum is averaged: `trim_percent` of the
/// count rounded to the nearest whole score (Compscore drops one of four: cobalt `butler_howell.xml`;
/// seed 003 drops one of five), at least one when there are five or more, and always leaving one.
pub fn butler_trim(count: usize, trim_percent: u32) -> usize {
    if count == 0 {
        return 0;
    }
    let mut trim = (count * trim_percent as usize * 2 + 100) / 200;
    if count >= 5 && trim_percent > 0 {
        trim = trim.max(1);
    }
    trim.min((count - 1) / 2)
}

/// The Butler datum of a board as `conventions` take it: the trimmed mean (trimming only boards of
/// at least `trim_from` results) or the median, rounded to 10.
pub(crate) fn datum_of(
    sorted_scores: &[i32],
    trim_percent: u32,
    conventions: &crate::Conventions,
) -> Option<i32> {
    match conventions.datum {
        crate::Datum::Median => median_datum(sorted_scores),
        _ if sorted_scores.len() < usize::from(conventions.trim_from) => {
            butler_datum(sorted_scores, 0)
        }
        _ => butler_datum(sorted_scores, trim_percent),
    }
}

/// The median of `sorted_scores` (the mean of the middle two of an even count), rounded to 10 as the
/// mean is. An assumption where a program's documentation says only "median": see docs/rules.md.
pub(crate) fn median_datum(sorted_scores: &[i32]) -> Option<i32> {
    let n = sorted_scores.len();
    if n == 0 {
        return None;
    }
    let middle = if n % 2 == 1 {
        i64::from(sorted_scores[n / 2]) * 2
    } else {
        i64::from(sorted_scores[n / 2 - 1]) + i64::from(sorted_scores[n / 2])
    };
    Some(round_to_ten(middle, 2) as i32)
}

/// The Butler datum of a board: the mean of `sorted_scores` after trimming, rounded to 10.
pub(crate) fn butler_datum(sorted_scores: &[i32], trim_percent: u32) -> Option<i32> {
    if sorted_scores.is_empty() {
        return None;
    }
    let trim = butler_trim(sorted_scores.len(), trim_percent);
    let kept = &sorted_scores[trim..sorted_scores.len() - trim];
    let sum: i64 = kept.iter().map(|&s| i64::from(s)).sum();
    Some(round_to_ten(sum, kept.len() as i64) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imp_scale_boundaries() {
        let table = [
            (0, 0),
            (10, 0),
            (20, 1),
            (40, 1),
            (50, 2),
            (80, 2),
            (90, 3),
            (120, 3),
            (130, 4),
            (160, 4),
            (170, 5),
            (210, 5),
            (220, 6),
            (260, 6),
            (270, 7),
            (310, 7),
            (320, 8),
            (360, 8),
            (370, 9),
            (420, 9),
            (430, 10),
            (490, 10),
            (500, 11),
            (590, 11),
            (600, 12),
            (740, 12),
            (750, 13),
            (890, 13),
            (900, 14),
            (1090, 14),
            (1100, 15),
            (1290, 15),
            (1300, 16),
            (1490, 16),
            (1500, 17),
            (1740, 17),
            (1750, 18),
            (1990, 18),
            (2000, 19),
            (2240, 19),
            (2250, 20),
            (2490, 20),
            (2500, 21),
            (2990, 21),
            (3000, 22),
            (3490, 22),
            (3500, 23),
            (3990, 23),
            (4000, 24),
            (9000, 24),
        ];
        for (diff, expected) in table {
            assert_eq!(imps(diff), expected, "{diff}");
            assert_eq!(imps(-diff), -expected, "-{diff}");
        }
    }

    /// Seed 003: board 10 on 5 tables: 620, -100, 630, 620, 1100; top and bottom removed, the average
    /// of 620, 630, 620 rounds to a datum of +620; +1100 is +10 IMPs, -100 is -12, +800 would be +5.
    #[test]
    fn seed_003_butler_example() {
        let mut scores = vec![620, -100, 630, 620, 1100];
        scores.sort_unstable();
        let datum = butler_datum(&scores, 20).unwrap();
        assert_eq!(datum, 620);
        let ns: Vec<i32> = [620, -100, 630, 620, 1100]
            .iter()
            .map(|&s| imps(i64::from(s - datum)))
            .collect();
        assert_eq!(ns, [0, -12, 0, 0, 10]);
        assert_eq!(imps(800 - 620), 5);
    }

    #[test]
    fn datum_rounds_half_away_from_zero() {
        assert_eq!(round_to_ten(-445, 1), -450);
        assert_eq!(round_to_ten(5, 1), 10);
        assert_eq!(round_to_ten(-35, 1), -40);
        assert_eq!(round_to_ten(1869, 3), 620); // 623.0
        assert_eq!(round_to_ten(-4, 1), 0);
    }

    /// Seed 003's board 10 (620, -100, 630, 620, 1100): its median is +620, as its trimmed mean.
    /// With three results a board trims one at each end unless `trim-from` says more are needed.
    #[test]
    fn median_and_trim_from() {
        let seeds = crate::Conventions::SEEDS;
        let median: crate::Conventions = "seeds,datum=median".parse().unwrap();
        let scores = [-100, 620, 620, 630, 1100];
        assert_eq!(datum_of(&scores, 20, &median), Some(620));
        assert_eq!(median_datum(&[-100, 620, 630, 1100]), Some(630)); // (620 + 630) / 2 = 625
        assert_eq!(median_datum(&[-650, 100]), Some(-280)); // -275 rounds away from zero
        assert_eq!(median_datum(&[]), None);
        let three = [-100, 140, 620];
        assert_eq!(datum_of(&three, 20, &seeds), Some(140));
        let from_four: crate::Conventions = "seeds,trim-from=4".parse().unwrap();
        assert_eq!(datum_of(&three, 20, &from_four), Some(220)); // 660 / 3
        assert_eq!(
            datum_of(&[-100, 140, 620, 650], 20, &from_four),
            datum_of(&[-100, 140, 620, 650], 20, &seeds)
        );
    }

    #[test]
    fn trim_counts() {
        assert_eq!(butler_trim(1, 20), 0);
        assert_eq!(butler_trim(2, 20), 0);
        assert_eq!(butler_trim(3, 20), 1);
        assert_eq!(butler_trim(4, 20), 1);
        assert_eq!(butler_trim(5, 20), 1);
        assert_eq!(butler_trim(7, 20), 1);
        assert_eq!(butler_trim(8, 20), 2);
        assert_eq!(butler_trim(10, 20), 2);
        assert_eq!(butler_trim(10, 0), 0);
    }
}
