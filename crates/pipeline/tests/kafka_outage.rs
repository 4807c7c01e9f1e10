//! A club node publishing while the Kafka brokers are down, on rdkafka's mock cluster (in-process,
//! brokers stopped on demand; the real broker of the other tests cannot be made to fail). A short
//! outage is ridden out by the client's retries; a longer one is reported with a clear error
//! naming the brokers, and publishing the file again once the brokers are back leaves the club's
//! results in force exactly once.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rdkafka::mocking::MockCluster;
use simpairs_events::Stream;
use simpairs_kafka::{KafkaConfig, KafkaLog, Transactions};
use simpairs_pipeline::aggregate::{AggregateOptions, Aggregator};
use simpairs_pipeline::declare::{CATALOG, ClubLine, Declaration, declare};
use simpairs_pipeline::publish::publish_file;
use simpairs_pipeline::stream_name;

#[test]
fn a_club_publishing_through_a_broker_outage() {
    let mock = MockCluster::new(1).expect("mock cluster");
    let event_id = "outage-2026";
    // The mock has no CreateTopics: the event's topics are made as `declare` would make them.
    for stream in Stream::ALL {
        mock.create_topic(&stream_name(event_id, stream), 1, 1)
            .unwrap();
    }
    mock.create_topic(CATALOG, 1, 1).unwrap();
    let mut config = KafkaConfig::new(mock.bootstrap_servers().split(','));
    config.transactions = Transactions::Off;
    config.message_timeout = Duration::from_secs(3);
    config.request_timeout = Duration::from_secs(5);
    let log: Arc<dyn simpairs_log::Log> = Arc::new(KafkaLog::connect(config).unwrap());

    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 31,
        clubs: 3,
        boards: 4,
        ..Default::default()
    });
    declare(
        log.as_ref(),
        Declaration::matchpoints(
            event_id,
            "outage",
            4,
            event
                .clubs
                .iter()
                .map(|c| ClubLine {
                    club_id: c.id.clone(),
                    name: c.name.clone(),
                    public_key: Some(simpairs_sim::club_key(&c.id).public()),
                })
                .collect(),
            1,
        )
        .with_keys(
            simpairs_sim::aggregator_key().public(),
            simpairs_sim::organiser_key().public(),
        ),
    )
    .unwrap();
    let publish = |c: &simpairs_sim::SimClub| {
        publish_file(
            log.as_ref(),
            event_id,
            &c.id,
            &simpairs_sim::club_key(&c.id),
            "club.csv",
            c.csv.as_bytes(),
            None,
        )
    };
    let [first, second, third] = &event.clubs[..] else {
        panic!("three clubs")
    };
    publish(first).expect("brokers up");

    // A 1.5 s outage while the second club publishes: the append waits and succeeds.
    // (The mock cluster stays on this thread: it cannot be shared.)
    mock.broker_down(-1).unwrap();
    std::thread::scope(|s| {
        let publishing = s.spawn(|| {
            let started = Instant::now();
            (publish(second), started.elapsed())
        });
        std::thread::sleep(Duration::from_millis(1500));
        mock.broker_up(-1).unwrap();
        let (published, took) = publishing.join().unwrap();
        published.expect("the outage is shorter than the append timeout");
        assert!(took >= Duration::from_secs(1), "it waited: {took:?}");
    });

    // Brokers gone for longer than the timeouts: the club is told which brokers did not answer
    // (publishing first reads the declaration, so that is what fails), not that the event is
    // unknown.
    mock.broker_down(-1).unwrap();
    let error = publish(third)
        .expect_err("the brokers are gone")
        .to_string();
    assert!(error.contains(&mock.bootstrap_servers()), "{error}");
    assert!(error.contains("Timed out"), "{error}");
    assert!(!error.contains("not declared"), "{error}");
    mock.broker_up(-1).unwrap();
    // Once they are back, the club publishes the same file again (after librdkafka's reconnect
    // backoff).
    let back = Instant::now();
    while let Err(e) = publish(third) {
        assert!(
            back.elapsed() < Duration::from_secs(40),
            "still failing 40 s after the brokers came back: {e}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }

    let mut aggregator =
        Aggregator::open(log.clone(), event_id, simpairs_sim::aggregator_key()).unwrap();
    aggregator
        .run(
            &AggregateOptions {
                until_idle: true,
                ..Default::default()
            },
            &AtomicBool::new(false),
            |_| {},
        )
        .unwrap();
    let state = aggregator.state();
    // Every club's results are in force once: a part of the failed attempt that reached the log has
    // no seal, or is superseded table by table by the attempt that succeeded.
    for club in [first, second, third] {
        assert_eq!(
            state.clubs().get(&club.id).copied(),
            Some(club.results),
            "club {}",
            club.id
        );
    }
    assert_eq!(
        state.result_count(),
        first.results + second.results + third.results
    );
}
