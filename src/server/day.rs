//! A day at PocketPay, fast-forwarded (`domain::day`; ARCHITECTURE.md, "A day, fast-forwarded").
//!
//! A day at scale 1:N is two runs, each in a throw-away sandbox of its own under
//! `<data>/days/`: first with every safeguard on, then with every one off. Each run plays the
//! customers' phones: 2,000,000 / N transfers of ৳500 to Tithi from up to 10,000 customers,
//! first sent evenly over 24 virtual hours, each through the sandbox's real network, load
//! balancer, API, outbox, relay, broker, fraud check, wallet and SMS service, with the rush
//! hours' losses and rare crashes switched on as faults.
//!
//! The two runs are a controlled experiment: each send of each transfer carries its own random
//! numbers ([`Fate`], keyed by the day's seed, the transfer and the send), and the network and
//! the API draw that send's losses and crash from them instead of the sandbox's one stream. So
//! both runs meet the same lost requests, lost answers and crashes at the same sends, and
//! differ only in what the guards make of them; the report counts both from each run's log. A transfer whose answer never comes
//! (or comes as "still in progress") is sent again 30 virtual seconds later, up to three times:
//! with its key when `key_persistence` is on, with a new one when it is off. The clock is paused and jumped from one send to the next, so a day
//! runs as fast as the pipeline does. After the last send it runs on until nothing is in
//! flight, and the damage meter is read from the stores, as the lab's is.
//!
//! The runs are deterministic (one seed, timed inputs), so one server runs each scale once and
//! keeps the report (`<data>/days/<N>.json`): the whole class watches the same day. One day runs
//! at a time; another scale asked for meanwhile is told when to come back.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;
use uuid::Uuid;

use super::calls::{Fate, TransferRequest};
use super::error::LabError;
use super::sandbox::{self, NewSandbox, Scratch};
use crate::domain::day::{
    arrival_ms, in_rush, transfers_at, DayFaults, DayGuards, DayReport, DayRun, DayStatus, AMOUNT,
    CRASH_CHANCE, CUSTOMERS, MAX_RETRIES, RETRY_AFTER_MS, RUSH_LOSS_PCT,
};
use crate::domain::fault::Percent;
use crate::domain::transfer::IdempotencyKey;
use crate::domain::{
    ClockCommand, ClockMode, CrashMode, CrashPoint, EventKind, FaultsPatch, SafeguardsPatch,
    TransferBody,
};

/// The seed of every day's sandboxes: the same day on every server.
pub const SEED: u64 = 88_412;

/// How often a running day's report is brought up to date, in wall time.
const REPORT_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// The days of one server: the one running and the ones that ran. Cheap to clone.
#[derive(Clone)]
pub struct Days(Arc<Inner>);

struct Inner {
    dir: PathBuf,
    reports: Mutex<HashMap<u32, DayReport>>,
}

impl Days {
    /// Reads the days that ran before (their reports) and removes the sandboxes of a day a stop
    /// interrupted.
    pub async fn open(data_dir: &Path) -> Result<Days, LabError> {
        let dir = data_dir.join("days");
        let runs = dir.join("runs");
        if tokio::fs::try_exists(&runs).await.unwrap_or(false) {
            tokio::fs::remove_dir_all(&runs).await?;
        }
        tokio::fs::create_dir_all(&runs).await?;
        let mut reports = HashMap::new();
        let mut entries = tokio::fs::read_dir(&dir).await?;
        while let Some(entry) = entries.next_entry().await? {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let report = tokio::fs::read(&path)
                .await
                .ok()
                .and_then(|b| serde_json::from_slice::<DayReport>(&b).ok())
                .filter(|r| r.status == DayStatus::Done)
                // A report from before the runs were paired compares unlike days: run it again.
                .filter(|r| r.runs.iter().all(|run| run.faults.is_some()));
            match report {
                Some(r) => {
                    reports.insert(r.scale, r);
                }
                None => tracing::warn!(file = %path.display(), "unreadable day report ignored"),
            }
        }
        Ok(Days(Arc::new(Inner {
            dir,
            reports: Mutex::new(reports),
        })))
    }

    fn reports(&self) -> std::sync::MutexGuard<'_, HashMap<u32, DayReport>> {
        self.0.reports.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The day at scale 1:`scale` as it stands, if it was ever started.
    pub fn get(&self, scale: u32) -> Option<DayReport> {
        self.reports().get(&scale).cloned()
    }

    /// Starts the day at scale 1:`scale` unless it is running or ran (then its report, as it
    /// stands). While another scale runs, [`LabError::DayBusy`] says which and for how long.
    pub fn start(&self, scale: u32) -> Result<DayReport, LabError> {
        let mut reports = self.reports();
        if let Some(r) = reports
            .get(&scale)
            .filter(|r| r.status != DayStatus::Failed)
        {
            return Ok(r.clone());
        }
        if let Some(r) = reports.values().find(|r| r.status == DayStatus::Running) {
            return Err(LabError::DayBusy {
                scale: r.scale,
                retry_after: seconds_left(r),
            });
        }
        let report = DayReport::new(scale, SEED);
        reports.insert(scale, report.clone());
        let days = self.clone();
        tokio::spawn(async move { days.run(scale).await });
        Ok(report)
    }

    fn update(&self, scale: u32, f: impl FnOnce(&mut DayReport)) {
        if let Some(r) = self.reports().get_mut(&scale) {
            f(r);
        }
    }

    async fn run(&self, scale: u32) {
        tracing::info!(scale, "day started");
        let mut result = Ok(());
        for (i, guards) in DayGuards::ORDER.into_iter().enumerate() {
            let progress = |run: &DayRun| self.update(scale, |r| r.runs[i] = run.clone());
            if let Err(e) = run_once(&self.0.dir.join("runs"), scale, guards, progress).await {
                result = Err(e);
                break;
            }
        }
        match result {
            Ok(()) => {
                self.update(scale, |r| r.status = DayStatus::Done);
                if let Some(report) = self.get(scale) {
                    let file = self.0.dir.join(format!("{scale}.json"));
                    let text = serde_json::to_vec_pretty(&report).expect("a report serialises");
                    if let Err(e) = tokio::fs::write(&file, text).await {
                        tracing::warn!(file = %file.display(), "day report not saved: {e}");
                    }
                    tracing::info!(scale, wall_ms = report.wall_ms(), "day done");
                }
            }
            Err(e) => {
                e.log_cause();
                tracing::warn!(scale, "day failed: {e}");
                self.update(scale, |r| {
                    r.status = DayStatus::Failed;
                    r.error = Some(e.to_string());
                });
            }
        }
    }
}

/// A guess at the seconds a running day still needs, from its pace so far.
fn seconds_left(r: &DayReport) -> u64 {
    let done = f64::from(r.progress_pct()).max(1.0) / 100.0;
    let wall = r.wall_ms() as f64 / 1000.0;
    ((wall / done) * (1.0 - done)).ceil().clamp(5.0, 3_600.0) as u64
}

/// A transfer waiting to be sent again: which one, how many sends it has had.
struct Resend {
    transfer: u64,
    sends: u32,
}

/// One run of the day in a throw-away sandbox under `dir`, calling `progress` as it goes.
///
/// Reads best whole: the day in the order it happens (sandbox, traffic, resends, the meter's
/// count); each part uses what the last one left.
async fn run_once(
    dir: &Path,
    scale: u32,
    guards: DayGuards,
    progress: impl Fn(&DayRun),
) -> Result<(), LabError> {
    let started = Instant::now();
    let n = transfers_at(scale);
    let id = Uuid::new_v4();
    let mut scratch = Scratch::new(dir.join(id.to_string()));
    let customers = n.min(CUSTOMERS);
    let options = NewSandbox {
        checkpoints: false,
        customers: customers as u32,
        // Each of a customer's transfers debited on every send, in the worst case.
        customer_opening: n.div_ceil(customers) as i64 * AMOUNT * i64::from(MAX_RETRIES + 1),
        check_every_step: false,
    };
    let sandbox = sandbox::create(scratch.dir(), id, SEED, ClockMode::Paused, options).await?;
    scratch.keep(sandbox.clone());
    if guards == DayGuards::Off {
        sandbox
            .set_safeguards(SafeguardsPatch::off(&crate::domain::Safeguard::ALL))
            .await?;
    }
    sandbox
        .set_faults(FaultsPatch::crash(
            &[CrashPoint::ApiAfterCommit],
            CrashMode::Probability(CRASH_CHANCE),
        ))
        .await?;
    let keep = guards == DayGuards::On;
    let start = sandbox.watch_clock().borrow().now_ms;
    let mut now = start;
    let mut run = DayRun::new(guards);
    let mut rush = false;
    let mut next = 0u64;
    let mut resends: BTreeMap<i64, Vec<Resend>> = BTreeMap::new();
    let mut answers = FuturesUnordered::new();
    let mut reported = Instant::now();
    loop {
        if reported.elapsed() >= REPORT_EVERY {
            reported = Instant::now();
            run.virtual_ms = now - start;
            run.wall_ms = started.elapsed().as_millis() as u64;
            progress(&run);
        }
        let first = (next < n).then(|| start + arrival_ms(next, n));
        let due = [first, resends.keys().next().copied()]
            .into_iter()
            .flatten()
            .min();
        let Some(due) = due else {
            if answers.is_empty() {
                break;
            }
            // Every send is out: run on until each has its answer.
            now = advance(&sandbox, RETRY_AFTER_MS).await?;
            collect(&mut answers, &mut run, &mut resends, now)?;
            continue;
        };
        if due > now {
            now = advance(&sandbox, due - now).await?;
            collect(&mut answers, &mut run, &mut resends, now)?;
        }
        if in_rush(now) != rush {
            rush = !rush;
            let loss = if rush { RUSH_LOSS_PCT } else { 0 };
            sandbox
                .set_faults(FaultsPatch::loss(Percent::of(loss)))
                .await?;
        }
        let mut sends = Vec::new();
        while next < n && start + arrival_ms(next, n) <= now {
            sends.push(Resend {
                transfer: next,
                sends: 0,
            });
            next += 1;
            run.sent += 1;
        }
        while let Some(entry) = resends.first_entry().filter(|e| *e.key() <= now) {
            sends.extend(entry.remove());
        }
        for s in sends {
            let key = if keep || s.sends == 0 {
                format!("day-{}", s.transfer)
            } else {
                format!("day-{}-{}", s.transfer, s.sends)
            };
            let request = TransferRequest::new(
                &format!("customer-{:05}", s.transfer % customers + 1),
                IdempotencyKey::parse(Some(&key)).map_err(LabError::Invalid)?,
                TransferBody {
                    to: "tithi".into(),
                    amount: AMOUNT,
                },
                format!("day-{}", s.transfer),
            )
            .with_fate(Fate::of(SEED, s.transfer, s.sends));
            let answer = sandbox.start_transfer(request).await?;
            run.requests += 1;
            let (transfer, sends) = (s.transfer, s.sends + 1);
            answers.push(async move { (transfer, sends, answer.await) });
        }
    }
    // The last answers are in; what they set off may still be in the pipeline.
    loop {
        let damage = sandbox.state_rows(0).await?.damage;
        if damage.in_flight == 0 {
            run.damage = Some(damage);
            break;
        }
        if now - start > 2 * crate::domain::clock::DAY_MS {
            return Err(LabError::RunDiverged(format!(
                "{} transfers still in flight a day after the last send",
                damage.in_flight
            )));
        }
        now = advance(&sandbox, RETRY_AFTER_MS).await?;
    }
    // Every invariant the run's safeguards promise, checked once on the day's end state.
    let report = sandbox.check().await?;
    run.invariants_broken = Some(report.violations.len() as u64);
    let counts = sandbox.event_counts().await?;
    let count = |kind: EventKind| counts.get(&kind.id()).copied().unwrap_or(0);
    run.faults = Some(DayFaults {
        requests_lost: count(EventKind::RequestLost),
        answers_lost: count(EventKind::ResponseLost),
        crashes: count(EventKind::InstanceCrashed),
        replays: count(EventKind::ResponseReplayed),
        caught: sandbox.caught_count().await?,
    });
    if !report.ok {
        tracing::warn!(scale, guards = guards.id(), violations = ?report.violations, "a day broke an invariant");
    }
    run.virtual_ms = now - start;
    run.wall_ms = started.elapsed().as_millis() as u64;
    progress(&run);
    Ok(())
}

/// Jumps the sandbox's clock by at least `ms` (whole seconds); returns where it stands.
async fn advance(sandbox: &sandbox::SandboxHandle, ms: i64) -> Result<i64, LabError> {
    let seconds = (ms + 999) / 1000;
    let state = sandbox
        .clock(vec![ClockCommand::Advance { seconds }])
        .await?;
    Ok(state.now_ms)
}

type Answer = (u64, u32, Result<super::calls::ApiReply, LabError>);

/// Takes in every answer that has come: a receipt ends a transfer; a timeout (504) or "still
/// in progress" (409) sends it again later, until the last retry; anything else (a 422) is a
/// refusal.
fn collect(
    answers: &mut FuturesUnordered<impl std::future::Future<Output = Answer>>,
    run: &mut DayRun,
    resends: &mut BTreeMap<i64, Vec<Resend>>,
    now: i64,
) -> Result<(), LabError> {
    while let Some(Some((transfer, sends, reply))) = answers.next().now_or_never() {
        let reply = reply?;
        match reply.status {
            200 | 201 => run.receipts += 1,
            409 | 504 => {
                if reply.status == 504 {
                    run.timeouts += 1;
                }
                if sends <= MAX_RETRIES {
                    run.retries += 1;
                    resends
                        .entry(now + RETRY_AFTER_MS)
                        .or_default()
                        .push(Resend { transfer, sends });
                } else {
                    run.given_up += 1;
                }
            }
            _ => run.refused += 1,
        }
    }
    Ok(())
}
