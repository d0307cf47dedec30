//! The services of one sandbox as the scheduler sees them: the steps they run and the state they
//! share (stores, safeguards, faults).

use super::broker::BrokerError;
use super::calls::NetStep;
use super::calls::{ApiStep, Attempt, Draw};
use super::jobs::{self, Job};
use super::network::{self, Network};
use super::payments;
use super::pipeline::{self, Pipeline};
use super::sim::{Cx, Rng, World};
use super::store::Stores;
use crate::domain::pipeline::Consumer;
use crate::domain::{CrashMode, CrashPoint, Faults, Safeguards};

/// One unit of work the scheduler runs at a virtual time. Each service adds its own steps here.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Job(Job),
    Net(NetStep),
    Api(ApiStep),
    /// The relay publishes unsent outbox rows.
    Relay,
    /// A consumer group polls its topic.
    Consume(Consumer),
}

impl Step {
    /// The stuck-key recovery's run (one is armed per claim: `payments::recovery::look_at`).
    pub const STUCK_RECOVERY: Step = Step::Job(Job::StuckRecovery);

    /// What kind of step this is, for the step-time statistics.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Job(Job::InboxCleaner) => "job: inbox cleaner",
            Step::Job(Job::LogRetention) => "job: log retention",
            Step::Job(Job::StuckRecovery) => "job: stuck-key recovery",
            Step::Job(Job::PartitionDrop) => "job: partition drop",
            Step::Net(NetStep::Send { .. }) => "caller: send",
            Step::Net(NetStep::LbReceive { .. }) => "load balancer: route",
            Step::Net(NetStep::LbTimeout { .. }) => "load balancer: timeout",
            Step::Net(NetStep::LbAnswer { .. }) => "load balancer: answer",
            Step::Net(NetStep::Deliver { .. }) => "network: deliver",
            Step::Net(NetStep::CallerTimeout { .. }) => "caller: timeout",
            Step::Api(ApiStep::Receive(_)) => "api: receive (guards, claim)",
            Step::Api(ApiStep::Complete(_)) => "api: complete (debit, outbox)",
            Step::Relay => "relay",
            Step::Consume(Consumer::Fraud) => "fraud check",
            Step::Consume(Consumer::Wallet) => "wallet",
            Step::Consume(Consumer::Sms) => "sms",
        }
    }
}

/// Everything a step can touch.
pub struct LabWorld {
    pub stores: Stores,
    pub safeguards: Safeguards,
    pub faults: Faults,
    /// Calls in flight through the network and the load balancer (memory only: a restart
    /// loses them, as it would).
    pub net: Network,
    /// What the relay, the fraud check and the API's producer hold in memory.
    pub pipeline: Pipeline,
}

impl LabWorld {
    /// Whether a crash point fires now. `once` fires and turns itself off.
    pub fn crash_fires(&mut self, point: CrashPoint, rng: &mut Rng) -> bool {
        match self.faults.crash_mode(point) {
            CrashMode::Off => false,
            CrashMode::Once => {
                self.faults.crash.insert(point, CrashMode::Off);
                true
            }
            CrashMode::Always => true,
            CrashMode::Probability(p) => rng.chance(p),
        }
    }

    /// Whether the crash at `point` fires while an instance handles attempt `a`: from the
    /// request's own fate when its caller dealt one, else as [`LabWorld::crash_fires`] does.
    pub fn crash_fires_on(&mut self, point: CrashPoint, a: &Attempt, rng: &mut Rng) -> bool {
        match (self.faults.crash_mode(point), a.req.fate) {
            (CrashMode::Probability(p), Some(fate)) => {
                fate.chance(Draw::Crash(point, a.attempt), p)
            }
            _ => self.crash_fires(point, rng),
        }
    }

    /// The steps a sandbox always has queued: the next run of each periodic background job.
    pub fn standing_steps(now_ms: i64) -> impl Iterator<Item = (i64, Step)> {
        Job::ALL
            .into_iter()
            .filter(|job| job.is_periodic())
            .map(move |job| (job.next_after(now_ms), Step::Job(job)))
    }
}

/// Why a step failed: a store failed, or the broker refused what it was asked (a fenced
/// producer, a sequence out of order …), kept as the broker said it, so the problem answered
/// names the broker's refusal rather than a failed store.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error(transparent)]
    Store(#[from] sqlx::Error),
    #[error("the broker refused: {0}")]
    Broker(BrokerError),
}

impl From<BrokerError> for StepError {
    fn from(e: BrokerError) -> Self {
        match e {
            BrokerError::Store(e) => StepError::Store(e),
            other => StepError::Broker(other),
        }
    }
}

impl World for LabWorld {
    type Step = Step;
    type Error = StepError;

    fn name(step: &Step) -> &'static str {
        step.name()
    }

    async fn run(&mut self, step: Step, cx: &mut Cx<'_, Step>) -> Result<(), StepError> {
        match step {
            Step::Job(job) => jobs::run(job, self, cx).await,
            Step::Net(step) => Ok(network::run(self, step, cx).await?),
            Step::Api(step) => payments::run(self, step, cx).await,
            Step::Relay => pipeline::relay(self, cx).await,
            Step::Consume(consumer) => pipeline::consume(self, consumer, cx).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::error::LabError;

    #[test]
    fn a_broker_refusal_keeps_its_kind_to_the_wire_and_a_store_failure_stays_one() {
        let fenced: LabError = StepError::from(BrokerError::Fenced(7)).into();
        assert_eq!(
            (fenced.status(), fenced.kind().id()),
            (500, "broker-refused")
        );
        assert!(
            fenced.to_string().contains("producer 7 is fenced"),
            "{fenced}"
        );
        let store: LabError = StepError::from(BrokerError::Store(sqlx::Error::RowNotFound)).into();
        assert!(matches!(store, LabError::Store(sqlx::Error::RowNotFound)));
        assert_eq!(store.kind().id(), "internal");
    }
}
