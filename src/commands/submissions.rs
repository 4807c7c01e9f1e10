//! `simpairs submissions`: the director's view of an event's submissions and dead letters.

use simpairs_pipeline::LogLocation;
use simpairs_pipeline::replay::{AsOf, describe_time};
use simpairs_pipeline::submissions::{State, SubmissionView, Submissions, counted, list};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    #[arg(long, env = "SIMPAIRS_EVENT")]
    pub event: Option<String>,
    /// As of this offset of the results stream (inclusive) or this date and time.
    #[arg(long)]
    pub as_of: Option<AsOf>,
    /// Only this club's submissions (repeat for more clubs).
    #[arg(long = "club", value_name = "CLUB")]
    pub clubs: Vec<String>,
    /// Only the submissions in this state.
    #[arg(long, value_enum)]
    pub state: Option<Wanted>,
    /// Only the submissions with a note for the director: how a correction was read, what a
    /// whole session took out, a correction taken back, a file that may be a second session.
    #[arg(long)]
    pub with_notes: bool,
    /// Print JSON instead of a list.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub kafka: simpairs_kafka::KafkaFlags,
}

/// The states a director can ask for.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Wanted {
    Applied,
    Superseded,
    SetAside,
}

impl Wanted {
    fn state(self) -> State {
        match self {
            Wanted::Applied => State::Applied,
            Wanted::Superseded => State::Superseded,
            Wanted::SetAside => State::SetAside,
        }
    }
}

/// Which submissions the list shows.
struct Filter {
    clubs: Vec<String>,
    state: Option<State>,
    noted: bool,
}

impl Filter {
    fn club(&self, club: &str) -> bool {
        self.clubs.is_empty() || self.clubs.iter().any(|c| c == club)
    }

    fn submission(&self, v: &SubmissionView) -> bool {
        self.club(&v.club)
            && self.state.as_ref().is_none_or(|s| v.state == *s)
            && (!self.noted || !v.notes.is_empty())
    }

    /// What the filter shows of `s`. A record set aside on its own may not say whose it is: they
    /// are shown for the whole event only (the summary counts them), or with the set-aside
    /// submissions. The submissions not complete, the clubs not in yet and the clubs withdrawn are
    /// shown unless a state, or the submissions with a note, are asked for.
    fn apply(&self, s: &Submissions) -> Submissions {
        let any_state = self.state.is_none() && !self.noted;
        Submissions {
            event: s.event.clone(),
            submissions: s
                .submissions
                .iter()
                .filter(|v| self.submission(v))
                .cloned()
                .collect(),
            dead_letters: match (self.clubs.is_empty() && !self.noted, &self.state) {
                (true, None | Some(State::SetAside)) => s.dead_letters.clone(),
                _ => Vec::new(),
            },
            unsealed: (s.unsealed.iter())
                .filter(|u| any_state && self.club(&u.club))
                .cloned()
                .collect(),
            clubs_declared: s.clubs_declared,
            not_in: (s.not_in.iter())
                .filter(|c| any_state && self.club(&c.club))
                .cloned()
                .collect(),
            withdrawn: (s.withdrawn.iter())
                .filter(|c| any_state && self.club(&c.club))
                .cloned()
                .collect(),
            // The event's, shown with the whole event.
            amendments: match any_state && self.clubs.is_empty() {
                true => s.amendments.clone(),
                false => Vec::new(),
            },
            // The event's, as the summary is.
            closed_ms: s.closed_ms,
            awaiting_aggregator: s.awaiting_aggregator,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let log = super::open_log(&args.log, &args.kafka)?;
    let event = simpairs_pipeline::declare::pick_event(log.as_ref(), args.event.as_deref())?;
    let submissions = list(log.as_ref(), &event, args.as_of)?;
    let filter = Filter {
        clubs: args.clubs,
        state: args.state.map(Wanted::state),
        noted: args.with_notes,
    };
    if let Some(unknown) = filter.clubs.iter().find(|c| !is_declared(&submissions, c)) {
        anyhow::bail!(
            "club {unknown} is not part of event {event}: it has no submission and is not declared"
        );
    }
    let shown = filter.apply(&submissions);
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer(&mut out, &shown)
            .map_err(std::io::Error::other)
            .and_then(|()| std::io::Write::write_all(&mut out, b"\n"))
    } else {
        write_summary(&mut out, &submissions).and_then(|()| write_list(&mut out, &shown))
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Whether `club` is one the listing knows: declared, or with a submission of its own.
fn is_declared(s: &Submissions, club: &str) -> bool {
    s.submissions.iter().any(|v| v.club == club)
        || s.not_in.iter().any(|c| c.club == club)
        || s.unsealed.iter().any(|u| u.club == club)
}

/// The submissions in words, one block each, then what needs the director: records set aside on
/// their own, submissions not complete, clubs not in yet.
fn write_list(out: &mut impl std::io::Write, s: &Submissions) -> std::io::Result<()> {
    for v in &s.submissions {
        write_submission(out, v)?;
    }
    for d in &s.dead_letters {
        writeln!(out, "\nset aside at offset {}: {}", d.offset, d.reason)?;
    }
    if !s.amendments.is_empty() {
        writeln!(
            out,
            "\nthe organiser's amendments (hand records, keys revoked, the event closed):"
        )?;
        for a in &s.amendments {
            writeln!(out, "  amendment {}: {}, {}", a.amendment, a.what, a.from)?;
        }
    }
    write_waiting(out, s)
}

/// What the event stands at (the whole event, whatever the list shows).
fn write_summary(out: &mut impl std::io::Write, s: &Submissions) -> std::io::Result<()> {
    writeln!(
        out,
        "event {}: {} of {} in{}; {}: {} applied, {} superseded, {} set aside; {}",
        s.event,
        s.clubs_declared - s.not_in.len() - s.withdrawn.len(),
        counted(s.clubs_declared, "declared club", "declared clubs"),
        match s.withdrawn.len() {
            0 => String::new(),
            n => format!(", {n} withdrawn"),
        },
        counted(s.submissions.len(), "submission", "submissions"),
        s.count(&State::Applied),
        s.count(&State::Superseded),
        s.count(&State::SetAside),
        counted(
            s.dead_letters.len(),
            "record set aside on its own",
            "records set aside on their own"
        ),
    )?;
    match s.with_notes() {
        0 => {}
        n => writeln!(
            out,
            "{} a note for the director (`--with-notes` lists only those)",
            counted(n, "submission has", "submissions have")
        )?,
    }
    if let Some(ms) = s.closed_ms {
        writeln!(
            out,
            "closed by the organiser at {}: the results are final",
            describe_time(ms)
        )?;
    }
    match s.awaiting_aggregator {
        Some(n) if n > 0 => writeln!(
            out,
            "waiting for the aggregator: {} applied here {} not in its published scores (the \
             website) yet; if this lasts more than a few seconds, check that it is running",
            counted(n, "submission", "submissions"),
            if n == 1 { "is" } else { "are" }
        ),
        _ => Ok(()),
    }
}

fn write_submission(out: &mut impl std::io::Write, v: &SubmissionView) -> std::io::Result<()> {
    writeln!(
        out,
        "\nclub {}, submission {} ({}), sealed {} at offset {}{}: {}, {}",
        v.club,
        v.submission,
        v.source.as_deref().unwrap_or("no file named"),
        describe_time(v.sealed_at_ms),
        v.offset,
        if v.by_organiser {
            " by the organiser"
        } else {
            ""
        },
        counted(v.records as usize, "record", "records"),
        v.state.words()
    )?;
    if let Some(by) = &v.superseded_by {
        writeln!(out, "  corrected by submission {by}{}", still_in_force(v))?;
    }
    if let Some(reason) = &v.reason {
        writeln!(out, "  why: {reason}")?;
    }
    for w in &v.warnings {
        writeln!(out, "  warning: {w}")?;
    }
    for n in &v.notes {
        writeln!(out, "  note: {n}")?;
    }
    Ok(())
}

/// How much of a corrected submission is still in force, in words.
fn still_in_force(v: &SubmissionView) -> String {
    match v.lines_in_force {
        Some(0) => ": none of its lines is in force".to_string(),
        Some(n) => format!(
            ": {} still in force",
            counted(n, "of its lines", "of its lines")
        ),
        None => String::new(),
    }
}

/// The submissions that cannot apply yet and the clubs with nothing applied.
fn write_waiting(out: &mut impl std::io::Write, s: &Submissions) -> std::io::Result<()> {
    let again = match s.closed_ms {
        Some(_) => "the event is closed, so the club cannot publish its file again",
        None => "or the club publishes its file again",
    };
    for u in &s.unsealed {
        let received = counted(u.records as usize, "record", "records");
        match &u.seal {
            None => writeln!(
                out,
                "\nnot sealed: club {}, submission {}: {received} and no seal that applies (an upload still under way or cut short, or its seal set aside); nothing of it applies unless sealed",
                u.club, u.submission
            )?,
            Some(seal) => writeln!(
                out,
                "\nnot complete: club {}, submission {}: its seal at offset {} covers {}, and {received} came; nothing of it applies until they all have ({again})",
                u.club,
                u.submission,
                seal.offset,
                counted(seal.covers as usize, "record", "records")
            )?,
        }
    }
    if !s.withdrawn.is_empty() {
        writeln!(out, "\nclubs withdrawn: {}", s.withdrawn.len())?;
        for c in &s.withdrawn {
            let why = c.source.as_deref().unwrap_or("no reason given");
            writeln!(
                out,
                "  {} ({}): {why} (submission {})",
                c.club, c.name, c.submission
            )?;
        }
    }
    if !s.not_in.is_empty() {
        let heading = match s.closed_ms {
            Some(_) => "clubs with no results in the event (it is closed)",
            None => "clubs not in yet",
        };
        writeln!(out, "\n{heading}: {}", s.not_in.len())?;
        for c in &s.not_in {
            writeln!(out, "  {} ({})", c.club, c.name)?;
        }
    }
    Ok(())
}
