//! A replay read on as the log grows gives, at every record, what a replay from the first record
//! gives: the director's listing, the results in force, the pairs, the deals and the records set
//! aside. On one partition it reads on at every record; on three, a record in a partition before
//! the last has it replayed again; an amendment of the event (a club's key revoked halfway) has it
//! replayed again too.

use crate::history::{EVENT, grown_record_by_record};

use simpairs_pipeline::replay::{Follow, Replay, replay_packed};

/// Everything a replay says, for comparison.
fn said(replay: &Replay) -> String {
    let listing = simpairs_pipeline::submissions::from_replay(EVENT, replay);
    let state = &replay.state;
    let results: Vec<_> = state.results().collect();
    let mut unsealed = state.unsealed();
    unsealed.sort();
    format!(
        "{}\n{results:?}\n{:?}\n{:?}\n{:?}\n{unsealed:?}\n{:?}",
        serde_json::to_string(&listing).unwrap(),
        state.pairs(),
        state.clubs(),
        state.deals(),
        replay.replayed.dead_letters,
    )
}

#[test]
fn a_replay_read_on_at_every_record_is_the_replay_from_the_first() {
    for partitions in [1, 3] {
        let mut follow: Option<Follow> = None;
        let mut read_on = 0;
        let total = grown_record_by_record(partitions, |copy, appended, total| {
            if partitions == 1 && appended == total / 2 {
                revoke_west(copy);
            }
            match follow.as_mut() {
                Some(follow) => read_on += usize::from(follow.read_on(copy).unwrap()),
                None => follow = Some(Follow::start(copy, EVENT, true).unwrap()),
            }
            let followed = follow.as_ref().unwrap().replay();
            let afresh = replay_packed(copy, EVENT, None).unwrap();
            let at = format!("{partitions} partitions, {appended} records");
            assert_eq!(said(followed), said(&afresh), "{at}");
            assert_eq!(followed.replayed.records, afresh.replayed.records, "{at}");
        });
        assert_eq!(follow.unwrap().replay().state.applied_count(), 5);
        if partitions == 1 {
            // Every reading after the first read on, but the one after the amendment.
            assert_eq!(read_on, total - 2);
        } else {
            assert!(read_on > 0 && read_on < total - 1);
        }
    }
}

/// The organiser revokes WEST's key: its seals from now on are set aside.
fn revoke_west(log: &dyn simpairs_log::Log) {
    let key = crate::common::key_of("WEST").public().id();
    simpairs_pipeline::declare::amend(
        log,
        EVENT,
        &simpairs_sim::organiser_key(),
        simpairs_pipeline::declare::Amendment {
            revoked: vec![("WEST".to_string(), key)],
            ..Default::default()
        },
    )
    .unwrap();
}
