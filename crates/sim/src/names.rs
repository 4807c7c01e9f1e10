//! Players' names for a simulated club, so that the demo's results can be searched by name as a
//! real event's can: each pair gets two players, the same for the same seed, with the accents,
//! apostrophes and hyphens real names have.

use crate::SimClub;

const FIRST: [&str; 32] = [
    "Anne",
    "Bob",
    "Chloé",
    "David",
    "Émile",
    "Fiona",
    "Grace",
    "Hemi",
    "Ines",
    "James",
    "Kiri",
    "Liam",
    "Mere",
    "Nigel",
    "Olivia",
    "Pita",
    "Quentin",
    "Rosa",
    "Søren",
    "Tama",
    "Ursula",
    "Vikram",
    "Wiremu",
    "Xin",
    "Yasmin",
    "Zoë",
    "Aroha",
    "Björn",
    "Catalina",
    "Dmitri",
    "Eun-ji",
    "François",
];

const LAST: [&str; 40] = [
    "Smith",
    "Müller",
    "O'Brien",
    "Ngata",
    "Wang",
    "García",
    "Kowalski",
    "Patel",
    "Tūhoe",
    "Johansson",
    "Dubois",
    "Henare",
    "Nguyễn",
    "Rossi",
    "Fitzgerald",
    "Kaur",
    "Murphy",
    "Ōtaki",
    "Schröder",
    "Taylor",
    "Brown",
    "Wilson",
    "Thompson",
    "Walker",
    "Clarke",
    "Robinson",
    "Lefèvre",
    "Andersen",
    "Novák",
    "Parata",
    "Smith-Jones",
    "MacDonald",
    "Åberg",
    "Ruiz",
    "Tanaka",
    "Kim",
    "Horomona",
    "Evans",
    "Williams",
    "Van der Berg",
];

/// A player's name from a seed and a key.
fn name(seed: u64, key: &str) -> String {
    let mut h = seed ^ 0x6e61_6d65;
    for b in key.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let first = FIRST[(h % FIRST.len() as u64) as usize];
    let last = LAST[((h >> 17) % LAST.len() as u64) as usize];
    format!("{first} {last}")
}

/// The names of a pair: `Anne Smith & Hemi Ngata`.
pub fn pair_names(seed: u64, club: &str, pair: &str, direction: &str) -> String {
    let key = format!("{club}/{pair}/{direction}");
    format!(
        "{} & {}",
        name(seed, &format!("{key}/1")),
        name(seed, &format!("{key}/2"))
    )
}

/// The club's traveller CSV with the players' names in `ns_names` and `ew_names` columns.
pub fn with_names(club: &SimClub, seed: u64) -> String {
    let mut out = String::with_capacity(club.csv.len() * 2);
    let mut lines = club.csv.lines();
    if let Some(header) = lines.next() {
        out.push_str(header);
        out.push_str(",ns_names,ew_names\n");
    }
    // A Howell pair is one pair whichever way it sits.
    let (ns_dir, ew_dir) = if club.howell { ("", "") } else { ("NS", "EW") };
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let (ns, ew) = (
            fields.get(3).copied().unwrap_or(""),
            fields.get(4).copied().unwrap_or(""),
        );
        out.push_str(line);
        out.push(',');
        out.push_str(&pair_names(seed, &club.id, ns, ns_dir));
        out.push(',');
        out.push_str(&pair_names(seed, &club.id, ew, ew_dir));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_names_both_pairs_the_same_way_each_time() {
        let event = crate::national_event(&crate::Settings {
            seed: 3,
            clubs: 4,
            boards: 3,
            ..Default::default()
        });
        for club in &event.clubs {
            let named = with_names(club, 3);
            assert_eq!(named.lines().count(), club.csv.lines().count());
            assert!(
                named.lines().skip(1).all(|l| l.matches(" & ").count() == 2),
                "{named}"
            );
            assert_eq!(named, with_names(club, 3));
        }
        assert_ne!(
            pair_names(1, "C1", "1", "NS"),
            pair_names(1, "C1", "1", "EW")
        );
    }
}
