//! The search index of an event's pairs and clubs, kept by [`crate::views::Catalog`] as clubs
//! arrive (a club's pairs are indexed once, when it arrives or sends a correction), so that a
//! query reads a few postings instead of every pair of a national field.
//!
//! A query is read as words ([`crate::views::fold`]: accents and case ignored). A pair matches
//! when every word matches it: the start of a word of one of its players' names, the start of a
//! player's national id, the start of a word of its club's name or id, or its pair number. Clubs
//! match when every word matches the club.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;

use simpairs_events::types::Player;

use crate::PairKey;
use crate::views::fold;

/// The most pairs a query lists.
pub const MAX_HITS: usize = 50;

/// One pair as the index holds it.
#[derive(Clone, Debug)]
struct PairDoc {
    pair: PairKey,
    players: Vec<Player>,
    /// The folded words of the players' names and their national ids.
    words: Vec<Box<str>>,
    /// The pair number, folded.
    label: Box<str>,
}

/// One club as the index holds it.
#[derive(Clone, Debug, Default)]
struct ClubDoc {
    name: String,
    words: Vec<Box<str>>,
    /// The club's pairs (ids into `docs`).
    docs: Vec<u32>,
}

/// A pair a query found.
#[derive(Clone, Debug, PartialEq)]
pub struct PairHit {
    pub pair: PairKey,
    pub players: Vec<Player>,
}

/// A club a query found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClubHit {
    pub club: String,
    pub name: String,
}

/// What a query found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchResults {
    pub clubs: Vec<ClubHit>,
    /// The best [`MAX_HITS`] pairs.
    pub pairs: Vec<PairHit>,
    /// How many pairs were found to match (the search stops a little beyond a page).
    pub pairs_matched: usize,
    /// More pairs match than `pairs_matched`: the query is wider than a page.
    pub too_wide: bool,
}

/// The index.
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// Pairs by id; `None` where a club's pairs were indexed again.
    docs: Vec<Option<PairDoc>>,
    /// Folded name words and national ids, to the pairs that have them.
    words: BTreeMap<Box<str>, Vec<u32>>,
    clubs: BTreeMap<String, ClubDoc>,
    /// Folded club words, to the clubs that have them.
    club_words: BTreeMap<Box<str>, Vec<String>>,
    /// Folded pair numbers, to the pairs that have them.
    labels: HashMap<Box<str>, Vec<u32>>,
}

fn club_words(club: &str, name: &str) -> Vec<Box<str>> {
    let mut words: Vec<Box<str>> = fold::words(name).into_iter().map(Into::into).collect();
    for w in fold::words(club) {
        // `C0042` is also found as `0042` and `42`.
        let digits = w.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let short = digits.trim_start_matches('0');
        for extra in [w.as_str(), digits, short] {
            if !extra.is_empty() && !words.iter().any(|x| &**x == extra) {
                words.push(extra.into());
            }
        }
    }
    words
}

fn starts(words: &[Box<str>], w: &str) -> bool {
    words.iter().any(|x| x.starts_with(w))
}

impl SearchIndex {
    /// How many pairs are indexed.
    pub fn pairs(&self) -> usize {
        self.clubs.values().map(|c| c.docs.len()).sum()
    }

    /// Indexes a club's name (again).
    pub fn set_club_name(&mut self, club: &str, name: &str) {
        let doc = self.clubs.entry(club.to_string()).or_default();
        if doc.name == name && !doc.words.is_empty() {
            return;
        }
        for w in std::mem::take(&mut doc.words) {
            if let Some(list) = self.club_words.get_mut(&w) {
                list.retain(|c| c != club);
            }
        }
        doc.name = name.to_string();
        doc.words = club_words(club, name);
        for w in &doc.words {
            self.club_words
                .entry(w.clone())
                .or_default()
                .push(club.to_string());
        }
    }

    /// Indexes the pairs of a club, in place of those indexed before.
    pub fn set_club_pairs(&mut self, club: &str, pairs: Vec<(PairKey, Vec<Player>)>) {
        if !self.clubs.contains_key(club) {
            self.set_club_name(club, club);
        }
        let old = self
            .clubs
            .get_mut(club)
            .map(|c| std::mem::take(&mut c.docs))
            .unwrap_or_default();
        for id in old {
            self.remove(id);
        }
        let mut ids = Vec::with_capacity(pairs.len());
        for (pair, players) in pairs {
            ids.push(self.add(pair, players));
        }
        if let Some(c) = self.clubs.get_mut(club) {
            c.docs = ids;
        }
    }

    fn remove(&mut self, id: u32) {
        let Some(doc) = self.docs.get_mut(id as usize).and_then(Option::take) else {
            return;
        };
        for w in &doc.words {
            if let Some(list) = self.words.get_mut(w) {
                list.retain(|&d| d != id);
                if list.is_empty() {
                    self.words.remove(w);
                }
            }
        }
        if let Some(list) = self.labels.get_mut(&doc.label) {
            list.retain(|&d| d != id);
        }
    }

    fn add(&mut self, pair: PairKey, players: Vec<Player>) -> u32 {
        let id = self.docs.len() as u32;
        let mut words: Vec<Box<str>> = Vec::new();
        for p in &players {
            let ids = p.national_id.iter().flat_map(|n| fold::words(n));
            for w in fold::words(&p.name).into_iter().chain(ids) {
                if !words.iter().any(|x| **x == *w) {
                    words.push(w.into());
                }
            }
        }
        for w in &words {
            match self.words.get_mut(w) {
                Some(docs) => docs.push(id),
                None => {
                    self.words.insert(w.clone(), vec![id]);
                }
            }
        }
        let label: Box<str> = fold::fold(&pair.pair).into();
        match self.labels.get_mut(&label) {
            Some(docs) => docs.push(id),
            None => {
                self.labels.insert(label.clone(), vec![id]);
            }
        }
        self.docs.push(Some(PairDoc {
            pair,
            players,
            words,
            label,
        }));
        id
    }
}

/// What one query word matches before the pairs are checked one by one: the postings, not yet
/// read.
struct WordMatch<'a> {
    /// The pairs numbered with the word.
    label: &'a [u32],
    /// The pairs with a name word or national id starting with the word, the word itself first.
    names: Vec<&'a [u32]>,
    /// Clubs with a word starting with the word.
    clubs: Vec<&'a str>,
    /// The postings and the pairs of `clubs` are every pair the word can match (a one-letter
    /// word is not looked up in the names).
    complete: bool,
}

impl WordMatch<'_> {
    /// How many pairs the word names (with repeats): the cost of reading them.
    fn size(&self, index: &SearchIndex) -> usize {
        self.label.len()
            + self.names.iter().map(|p| p.len()).sum::<usize>()
            + self
                .clubs
                .iter()
                .filter_map(|c| index.clubs.get(*c))
                .map(|c| c.docs.len())
                .sum::<usize>()
    }

    /// The pairs, the most likely first: numbered with the word, named with it whole, named
    /// with a longer word, then the clubs' pairs.
    fn candidates<'b>(&'b self, index: &'b SearchIndex) -> impl Iterator<Item = u32> + 'b {
        let clubs = self
            .clubs
            .iter()
            .filter_map(|c| index.clubs.get(*c))
            .flat_map(|c| c.docs.iter());
        self.label
            .iter()
            .chain(self.names.iter().flat_map(|p| p.iter()))
            .chain(clubs)
            .copied()
    }
}

/// The matches kept for ranking: more than a page, so that the best of them come first.
const KEPT: usize = 4 * MAX_HITS;

impl SearchIndex {
    fn prefixed<'a, V>(
        map: &'a BTreeMap<Box<str>, V>,
        w: &'a str,
    ) -> impl Iterator<Item = (&'a Box<str>, &'a V)> + 'a {
        map.range::<str, _>((Bound::Included(w), Bound::Unbounded))
            .take_while(move |(k, _)| k.starts_with(w))
    }

    fn word_match<'a>(&'a self, w: &'a str) -> WordMatch<'a> {
        // A one-letter word would read half the index: it only narrows what other words found.
        let names = if w.len() > 1 {
            Self::prefixed(&self.words, w)
                .map(|(_, docs)| docs.as_slice())
                .collect()
        } else {
            Vec::new()
        };
        let mut clubs: Vec<&str> = Self::prefixed(&self.club_words, w)
            .flat_map(|(_, c)| c.iter().map(String::as_str))
            .collect();
        clubs.sort_unstable();
        clubs.dedup();
        WordMatch {
            label: self.labels.get(w).map_or(&[][..], Vec::as_slice),
            names,
            clubs,
            complete: w.len() > 1,
        }
    }

    /// Whether every word matches the pair `id`.
    fn matches(&self, id: u32, words: &[String]) -> bool {
        let Some(Some(doc)) = self.docs.get(id as usize) else {
            return false;
        };
        let club = self.clubs.get(&doc.pair.club);
        words.iter().all(|w| {
            starts(&doc.words, w) || *doc.label == **w || club.is_some_and(|c| starts(&c.words, w))
        })
    }

    /// How well a pair matches: words matched whole by a player's name count most.
    fn relevance(&self, id: u32, words: &[String]) -> usize {
        let Some(Some(doc)) = self.docs.get(id as usize) else {
            return 0;
        };
        words
            .iter()
            .filter(|w| doc.words.iter().any(|x| **x == ***w))
            .count()
    }

    /// The pairs and clubs matching `query`. The candidates of the word that names the fewest
    /// pairs are checked against every word, the likeliest first, until [`KEPT`] match: a query
    /// as wide as "smith" costs the same as a narrow one, and says it found more.
    pub fn search(&self, query: &str) -> SearchResults {
        let words = fold::words(query);
        if words.is_empty() {
            return SearchResults::default();
        }
        let matches: Vec<WordMatch> = words.iter().map(|w| self.word_match(w)).collect();
        let club_hits = self.club_hits(&matches);
        let Some(driver) = matches
            .iter()
            .filter(|m| m.complete)
            .min_by_key(|m| m.size(self))
        else {
            return SearchResults {
                clubs: club_hits,
                ..SearchResults::default()
            };
        };
        let mut seen = std::collections::HashSet::new();
        let mut found: Vec<(usize, usize, u32)> = Vec::new();
        let mut too_wide = false;
        for id in driver.candidates(self) {
            if !seen.insert(id) || !self.matches(id, &words) {
                continue;
            }
            if found.len() == KEPT {
                too_wide = true;
                break;
            }
            found.push((self.relevance(id, &words), found.len(), id));
        }
        let pairs_matched = found.len();
        // The most relevant first, in the order found within a relevance.
        found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let pairs = found
            .into_iter()
            .take(MAX_HITS)
            .filter_map(|(_, _, id)| self.docs.get(id as usize)?.as_ref())
            .map(|d| PairHit {
                pair: d.pair.clone(),
                players: d.players.clone(),
            })
            .collect();
        SearchResults {
            clubs: club_hits,
            pairs,
            pairs_matched,
            too_wide,
        }
    }

    /// Clubs matched by every word.
    fn club_hits(&self, matches: &[WordMatch]) -> Vec<ClubHit> {
        let Some((first, rest)) = matches.split_first() else {
            return Vec::new();
        };
        first
            .clubs
            .iter()
            .filter(|c| rest.iter().all(|m| m.clubs.binary_search(c).is_ok()))
            .take(MAX_HITS)
            .map(|c| ClubHit {
                club: c.to_string(),
                name: self
                    .clubs
                    .get(*c)
                    .map(|d| d.name.clone())
                    .unwrap_or_default(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str, id: Option<&str>) -> Player {
        Player {
            name: name.into(),
            national_id: id.map(Into::into),
        }
    }

    fn pair(club: &str, n: &str, d: &'static str) -> PairKey {
        PairKey::new(club, "A", n, d)
    }

    fn index() -> SearchIndex {
        let mut ix = SearchIndex::default();
        ix.set_club_name("C0042", "Auckland Bridge Club");
        ix.set_club_name("C0007", "Wellington Bridge Club");
        ix.set_club_pairs(
            "C0042",
            vec![
                (
                    pair("C0042", "1", "NS"),
                    vec![
                        player("Zoë Müller", Some("NZ1234")),
                        player("Ann Lee", None),
                    ],
                ),
                (pair("C0042", "7", "EW"), vec![player("Bob Smith", None)]),
            ],
        );
        ix.set_club_pairs(
            "C0007",
            vec![(pair("C0007", "7", "EW"), vec![player("Sam Smithers", None)])],
        );
        ix
    }

    fn found(r: &SearchResults) -> Vec<(&str, &str)> {
        r.pairs
            .iter()
            .map(|h| (h.pair.club.as_str(), h.pair.pair.as_str()))
            .collect()
    }

    #[test]
    fn names_ids_clubs_and_numbers_are_found() {
        let ix = index();
        assert_eq!(found(&ix.search("zoe")), [("C0042", "1")]);
        assert_eq!(found(&ix.search("MULL")), [("C0042", "1")]);
        assert_eq!(found(&ix.search("nz12")), [("C0042", "1")]);
        // A whole word ranks before a word that only starts with it.
        assert_eq!(found(&ix.search("smith")), [("C0042", "7"), ("C0007", "7")]);
        assert_eq!(found(&ix.search("smith wellington")), [("C0007", "7")]);
        assert_eq!(found(&ix.search("auckland 7")), [("C0042", "7")]);
        assert_eq!(found(&ix.search("42 7")), [("C0042", "7")]);
        let clubs = ix.search("bridge club");
        assert_eq!(clubs.clubs.len(), 2);
        assert_eq!(ix.search("auck").clubs[0].club, "C0042");
        assert!(ix.search("nobody").pairs.is_empty());
        assert!(ix.search("").pairs.is_empty());
    }

    #[test]
    fn a_club_indexed_again_replaces_its_pairs() {
        let mut ix = index();
        ix.set_club_pairs(
            "C0042",
            vec![(pair("C0042", "1", "NS"), vec![player("Zoe Other", None)])],
        );
        assert!(ix.search("muller").pairs.is_empty());
        assert_eq!(found(&ix.search("other")), [("C0042", "1")]);
        assert_eq!(ix.pairs(), 2);
    }
}
