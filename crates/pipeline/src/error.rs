//! The kinds of [`Error`](crate::Error) a request can meet, grouped as a caller would tell them
//! apart: which event, which key, what a declaration or amendment says, what a club publishes,
//! which moment of a replay, which log. Each carries the data it names; its words are what a
//! tournament director reads.

use std::path::PathBuf;

/// The event a request names, or the lack of one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EventError {
    /// The log holds no declaration of the event.
    #[error("event {event} is not declared in this log")]
    NotDeclared { event: String },
    /// The event named is not among those the log declares.
    #[error("event {event} is not declared in this log (declared: {})", listed(.declared))]
    NotAmong {
        event: String,
        declared: Vec<String>,
    },
    /// No event was named and the log declares none.
    #[error("no event is declared in this log; run simpairs event declare first")]
    NoneDeclared,
    /// No event was named and the log declares several.
    #[error("this log holds several events ({}); say which with --event", listed(.declared))]
    Which { declared: Vec<String> },
    /// An event id that cannot name streams.
    #[error(
        "event id {event:?} must be 1-200 letters, digits, '_' or '-' (it names the event's streams)"
    )]
    BadId { event: String },
}

/// A signing key: a key file that cannot be read as one, or a key that may not sign this.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A key file holding something other than the kind of key wanted.
    #[error("{}: expected a {wanted} key (ed25519-private:...), found {found}", path.display())]
    WrongKind {
        path: PathBuf,
        wanted: &'static str,
        found: FoundKey,
    },
    /// A private key given where a public one is wanted (`source` names where it came from).
    #[error(
        "{source_name}: this is a private key; give the public key (simpairs club keygen prints it) and keep the private one with the club"
    )]
    PrivateForPublic { source_name: String },
    /// A public key whose digits are not hex.
    #[error("{source_name}: the public key is not hex: {source}")]
    PublicNotHex {
        source_name: String,
        #[source]
        source: hex::FromHexError,
    },
    /// Public key bytes that are not an Ed25519 public key.
    #[error("{source_name}: {source}")]
    PublicInvalid {
        source_name: String,
        #[source]
        source: simpairs_events::KeyError,
    },
    /// A key file whose digits are not hex.
    #[error("{}: the key is not hex: {source}", path.display())]
    NotHex {
        path: PathBuf,
        #[source]
        source: hex::FromHexError,
    },
    /// A key file with the wrong number of bytes.
    #[error("{}: a key is 32 bytes (64 hex digits), not {len}", path.display())]
    Length { path: PathBuf, len: usize },
    /// A key file that exists already: it is never written over.
    #[error(
        "{} already exists; simpairs never writes over a key file (it may hold the only copy of a key). Move it away first if you mean to replace it",
        path.display()
    )]
    FileExists { path: PathBuf },
    /// A key in a declaration that is not 32 bytes.
    #[error("a declared key of {len} bytes (an Ed25519 public key has 32)")]
    DeclaredLength { len: usize },
    /// A key in a declaration that is not an Ed25519 public key.
    #[error("a declared key: {0}")]
    Declared(#[source] simpairs_events::KeyError),
    /// A key that is not one of the club's keys for the event.
    #[error(
        "this key ({key}) is not club {club}'s key for event {event} ({}); the submission would be refused",
        .declared.join(", ")
    )]
    NotClubs {
        key: String,
        club: String,
        event: String,
        declared: Vec<String>,
    },
    /// A club key the organiser revoked.
    #[error("this key ({key}) of club {club} was revoked by the organiser ({from}); {then}")]
    Revoked {
        key: String,
        club: String,
        /// From where, in words.
        from: String,
        /// What the club signs with instead, in words.
        then: String,
    },
    /// A key that is not one of the event's aggregator keys.
    #[error(
        "this key ({key}) is not one of event {event}'s aggregator keys ({}); the aggregator signs what it derives with the key made when the event was declared (aggregator.key)",
        .declared.join(", ")
    )]
    NotAggregators {
        key: String,
        event: String,
        declared: Vec<String>,
    },
    /// A key that is not the event's organiser key.
    #[error(
        "this is not the organiser's key of event {event} (key {key}); amendments are signed with the key made when the event was declared (organiser.key)"
    )]
    NotOrganisers { key: String, event: String },
}

/// What a key file held instead of the key wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundKey {
    /// A public key (`ed25519-public:...`).
    Public,
    /// Bare hex digits: a shared HMAC key of an earlier simpairs.
    BareHex,
    /// Anything else.
    Other,
}

impl std::fmt::Display for FoundKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FoundKey::Public => "a public key",
            FoundKey::BareHex => {
                "a bare hex key (keys of simpairs before Ed25519 signatures are shared HMAC keys, which \
                 every club could read from the log; make a key pair with simpairs club keygen)"
            }
            FoundKey::Other => "something else",
        })
    }
}

/// What an organiser's declaration or amendment says that cannot be declared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeclareError {
    /// An amendment appended whose line could not be drawn in the results stream.
    #[error(
        "amendment {amendment} is made, but its line could not be drawn in the results stream ({reason}): its hand records and key revocations hold from that line only; the next amendment draws it (simpairs event hands with the same file, for hand records)"
    )]
    LineNotDrawn { amendment: i64, reason: String },
    /// A part of `--boards` that is neither a board number nor a range.
    #[error("--boards: {part:?} is not a board number or a range like 1-27")]
    BadBoards { part: String },
    /// `--boards` with no board.
    #[error("--boards names no board")]
    NoBoards,
    /// A clubs file with a (shared HMAC) key column.
    #[error(
        "{}:1: the clubs file has a key column: keys of earlier versions of simpairs were shared HMAC keys that every club could read from the log; clubs now sign with a private key of their own. Give each club's public key (simpairs club keygen prints it) in a public_key column, or leave it out and fresh key pairs are made",
        path.display()
    )]
    KeyColumn { path: PathBuf },
    /// A clubs file without a club column.
    #[error(
        "{}:1: the clubs file needs a header with a club column (club,name,public_key)",
        path.display()
    )]
    NoClubColumn { path: PathBuf },
    /// A clubs file without a club.
    #[error("{}: the clubs file lists no club", path.display())]
    NoClubs { path: PathBuf },
    /// A club listed twice (`at` is `file:line`).
    #[error("{at}: field club: club {club} is listed twice")]
    ClubTwice { at: String, club: String },
    /// A club id that cannot be used (`at` is `file:line`).
    #[error("{at}: field club: {source}")]
    BadClubId {
        at: String,
        #[source]
        source: BadClubId,
    },
    /// A club id that a role's key file takes.
    #[error("club id {club:?} is the name of a role's key file; choose another")]
    RoleName { club: String },
    /// A key pair to make, with nowhere to write its private half.
    #[error(
        "a key pair is needed for {name}, but no directory was given to write its private key to"
    )]
    NoKeysDir { name: String },
    /// A private key file to make that exists already.
    #[error(
        "{} already exists; simpairs never writes over a key file (it may hold the only copy of a key). Nothing was declared: give the new event's keys another directory with --keys-out",
        path.display()
    )]
    KeyFileExists { path: PathBuf },
    /// An amendment listing a club the event has, with another name or a key it does not have.
    #[error(
        "club {club} is already part of event {event}, as \"{name}\" with its own keys; an amendment adds clubs, it does not change them (list it as it is, or leave it out; a new key is given with --add-key)"
    )]
    ClubChanged {
        club: String,
        name: String,
        event: String,
    },
    /// An amendment whose clubs are all part of the event already, and nothing else.
    #[error("every club listed is already part of event {event}, as listed: nothing to amend")]
    NothingToAmend { event: String },
    /// An amendment closing an event closed already.
    #[error(
        "event {event} was closed at {at}: its results are final, and it cannot be closed again"
    )]
    AlreadyClosed { event: String, at: String },
    /// An amendment naming a club the event does not have.
    #[error("club {club} is not part of event {event}")]
    UnknownClub { club: String, event: String },
    /// An amendment revoking a key the club does not have.
    #[error("club {club} has no key {key} to revoke (its keys: {})", .keys.join(", "))]
    NoSuchKey {
        club: String,
        key: String,
        keys: Vec<String>,
    },
    /// An amendment giving the hands of a board the event does not have.
    #[error("board {board} is not a board of event {event}")]
    UnknownBoard { board: i32, event: String },
    /// An amendment giving hands that cannot be read.
    #[error("board {board}: {source}")]
    BadDeal {
        board: i32,
        #[source]
        source: crate::deals::DealError,
    },
}

/// A club id that cannot be used: it names key files and travels in every record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a club id is 1-64 letters, digits, '.', '_' or '-' (not starting with '.'), not {club:?}")]
pub struct BadClubId {
    pub club: String,
}

/// Why an amendment read from the declarations stream is set aside (nothing of it applies).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AmendmentRefused {
    /// An amendment of another event.
    #[error("the amendment is for event {event}")]
    OtherEvent { event: String },
    /// An amendment ahead of the next one.
    #[error("amendment {amendment} came before amendment {expected}")]
    OutOfOrder { amendment: i64, expected: i64 },
    /// An amendment not signed with the organiser's key.
    #[error(
        "amendment {amendment} of event {event} is not signed with the organiser's declared key: set aside, nothing of it applies"
    )]
    NotOrganisers { amendment: i64, event: String },
    /// An amendment adding a club the event has.
    #[error("club {club} is already part of the event")]
    ClubExists { club: String },
    /// An amendment naming a club the event does not have.
    #[error("no club {club}")]
    NoClub { club: String },
    /// A revocation without the offset it applies from.
    #[error("revocation of key {key} names no offset")]
    NoOffset { key: String },
    /// A key the amendment adds that is not a key.
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// What a club publishes that cannot be published.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// The organiser closed the event.
    #[error(
        "event {event} was closed by the organiser at {at}: its results are final, and nothing more is taken (a correction now is for the organiser to decide, outside simpairs)"
    )]
    Closed { event: String, at: String },
    /// The club is not declared in the event.
    #[error("club {club} is not part of event {event}; the organiser declares the clubs")]
    NotInEvent { club: String, event: String },
    /// The file holds results of other clubs.
    #[error(
        "the file holds results of club(s) {}; club {club} can only publish its own (use a file without a club column, or with only {club})",
        listed(.others)
    )]
    OtherClubs { club: String, others: Vec<String> },
    /// The file is over the event's limits.
    #[error("{file}: {source}")]
    TooLarge {
        file: String,
        #[source]
        source: crate::limits::Exceeded,
    },
    /// Records to append that do not end with their seal.
    #[error("a submission ends with its seal")]
    Unsealed,
}

/// The moment or the part of a replay asked for.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// `--as-of` that is neither an offset nor a date and time.
    #[error(
        "--as-of {text:?}: expected an offset (a whole number, as club publish prints it) or a date and time \
         such as 2026-11-22T20:15:00Z (UTC), 2026-11-22T21:15+01:00 or 2026-11-22 20:15 (local time): {source}"
    )]
    BadAsOf {
        text: String,
        #[source]
        source: jiff::Error,
    },
    /// An offset given for a results stream of several partitions.
    #[error(
        "the results stream has {partitions} partitions: give --as-of as a time, offsets are per partition"
    )]
    OffsetOfPartitions { partitions: u32 },
    /// A moment before anything was published (`first`: the first seal, if any).
    #[error("nothing was published at or before {as_of}: {}", first_seal(.first))]
    BeforeFirst {
        /// The moment asked for, as `replay` names it (`offset 3`, a time).
        as_of: String,
        first: Option<FirstSeal>,
    },
    /// A club with no results in force.
    #[error("club {club} has no results in force ({})", nearest(.club, .known))]
    NoResults { club: String, known: Vec<String> },
    /// Generations the replay index does not hold.
    #[error("no such generations in the replay index")]
    NoGenerations,
}

/// The first seal of an event: its offset, and when it was sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstSeal {
    pub offset: u64,
    pub sealed_at_ms: i64,
}

/// Where a log is, as given.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocationError {
    /// `kafka://` with no broker.
    #[error("kafka:// needs at least one broker, as in kafka://127.0.0.1:9092")]
    NoBroker,
    /// An embedded log's directory that holds no log.
    #[error(
        "{}: {}; check --log (an event's log is made by simpairs event declare)",
        dir.display(),
        if *exists { "this directory holds no simpairs log" } else { "there is no log there (no such directory)" }
    )]
    NoLog {
        dir: std::path::PathBuf,
        exists: bool,
    },
    /// A `scheme://` that is not a log this program opens.
    #[error(
        "unknown log location {location:?}: give a directory (the embedded log) or kafka://host:port"
    )]
    Unknown { location: String },
}

/// A list of names, or "none"; a long one is cut after [`LISTED`] names, with how many more.
fn listed(names: &[String]) -> String {
    match names.len() {
        0 => "none".to_string(),
        n if n <= LISTED => names.join(", "),
        n => format!("{} and {} more", names[..LISTED].join(", "), n - LISTED),
    }
}

/// Names listed in a message at most: a national event has thousands of clubs.
const LISTED: usize = 8;

/// The clubs with results, or those nearest to `club` in spelling when there are many.
fn nearest(club: &str, known: &[String]) -> String {
    if known.len() <= LISTED {
        return format!("clubs with results: {}", listed(known));
    }
    let typed = (club.to_lowercase(), unpadded(club));
    let mut by_distance: Vec<(usize, usize, &String)> = known
        .iter()
        .map(|k| {
            (
                strsim::levenshtein(&typed.1, &unpadded(k)),
                strsim::levenshtein(&typed.0, &k.to_lowercase()),
                k,
            )
        })
        .collect();
    by_distance.sort_unstable();
    let near: Vec<&str> = by_distance
        .iter()
        .take(LISTED)
        .map(|(_, _, k)| k.as_str())
        .collect();
    format!(
        "{} clubs have results; the nearest in spelling: {}",
        known.len(),
        near.join(", ")
    )
}

/// A name in lower case, each number in it without leading zeros: `C00017` and `c17` are the
/// same club code typed two ways.
fn unpadded(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_number = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c == '0' && !in_number {
            continue;
        }
        in_number = c.is_ascii_digit();
        out.push(c);
    }
    out
}

fn first_seal(first: &Option<FirstSeal>) -> String {
    match first {
        Some(f) => format!(
            "the first submission was sealed at offset {}, {}",
            f.offset,
            crate::when::describe_time(f.sealed_at_ms)
        ),
        None => "no club has published yet".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_say_none_when_empty() {
        let none = ReplayError::NoResults {
            club: "c1".into(),
            known: Vec::new(),
        };
        assert_eq!(
            none.to_string(),
            "club c1 has no results in force (clubs with results: none)"
        );
        let which = EventError::Which {
            declared: vec!["a".into(), "b".into()],
        };
        assert_eq!(
            which.to_string(),
            "this log holds several events (a, b); say which with --event"
        );
    }

    #[test]
    fn a_club_not_found_among_thousands_names_the_nearest_only() {
        let known: Vec<String> = (1..=9_320).map(|n| format!("C{n:04}")).collect();
        let e = ReplayError::NoResults {
            club: "c00017".into(),
            known,
        };
        let message = e.to_string();
        let (head, near) = message
            .split_once("the nearest in spelling: ")
            .expect("the nearest clubs");
        assert_eq!(
            head,
            "club c00017 has no results in force (9320 clubs have results; "
        );
        let near: Vec<&str> = near.trim_end_matches(')').split(", ").collect();
        // The club meant, typed with another padding, comes first; then a few near it.
        assert_eq!(near.len(), LISTED);
        assert_eq!(near[0], "C0017");
        assert!(
            near.iter()
                .all(|n| n.starts_with("C00") || n.starts_with("C01"))
        );
        let few = ReplayError::NoResults {
            club: "C9".into(),
            known: vec!["C1".into(), "C2".into()],
        };
        assert_eq!(
            few.to_string(),
            "club C9 has no results in force (clubs with results: C1, C2)"
        );
    }

    #[test]
    fn a_national_file_published_by_one_club_is_named_in_few_words() {
        let e = PublishError::OtherClubs {
            club: "C0001".into(),
            others: (2..=9_320).map(|n| format!("C{n:04}")).collect(),
        };
        assert_eq!(
            e.to_string(),
            "the file holds results of club(s) C0002, C0003, C0004, C0005, C0006, C0007, C0008, \
             C0009 and 9311 more; club C0001 can only publish its own (use a file without a club \
             column, or with only C0001)"
        );
    }

    #[test]
    fn wrapped_errors_are_kept_as_sources() {
        let e = crate::Error::from(KeyError::Declared(simpairs_events::KeyError::Length(3)));
        assert_eq!(
            e.to_string(),
            "a declared key: a public key is 32 bytes, not 3"
        );
        // `Error::Key` is transparent: the source is the key's own error.
        let inner = std::error::Error::source(&e).expect("the key error");
        assert_eq!(inner.to_string(), "a public key is 32 bytes, not 3");
    }

    #[test]
    fn a_moment_before_the_first_seal_says_when_it_came() {
        let e = ReplayError::BeforeFirst {
            as_of: "offset 3".into(),
            first: None,
        };
        assert_eq!(
            e.to_string(),
            "nothing was published at or before offset 3: no club has published yet"
        );
    }
}
