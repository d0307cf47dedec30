//! A day at PocketPay, fast-forwarded (`/day`, `POST /api/days`): the lesson's day of
//! 2,000,000 transfers, cut down by a scale the student picks, pushed through a sandbox's real
//! network, API and pipeline by jumping its clock through 24 virtual hours, once with every
//! safeguard on and once with every one off. These are the plan of that day and the report it
//! produces, shared by the server that runs it and the page that shows it.

use serde::{Deserialize, Serialize};

use super::calc::Tickets;
use super::clock::DAY_MS;
use super::{Damage, FieldError};

/// The lesson's transfers a day at PocketPay.
pub const FULL_DAY: u64 = 2_000_000;
/// The scales a day runs at, as the `N` of 1:N, largest run first.
pub const SCALES: [u32; 4] = [10, 100, 1_000, 10_000];
/// The scale the page offers first.
pub const DEFAULT_SCALE: u32 = 10;
/// Seconds both runs of each of the [`SCALES`] took on the lab's 2-core build server (release
/// build; BENCHMARKS.md, "A day, fast-forwarded"): the time the page gives for each scale.
pub const SECONDS: [u32; 4] = [810, 98, 21, 3];

/// The measured time of a day at 1:`scale`, both runs (see [`SECONDS`]).
pub fn seconds_at(scale: u32) -> u32 {
    SCALES
        .iter()
        .position(|&s| s == scale)
        .map_or(0, |i| SECONDS[i])
}
/// The day's paying customers (`customer-00001` …; fewer at a scale with fewer transfers),
/// each paying Tithi in turn.
pub const CUSTOMERS: u64 = 10_000;
/// Each transfer moves the lesson's ৳500.
pub const AMOUNT: i64 = 500;
/// The rush hours: from 17:00 for six hours, phones on trains and buses lose
/// [`RUSH_LOSS_PCT`] of their requests and as many of the answers; the rest of the day the
/// network loses nothing. 6 of 24 hours at about 2 % is the lesson's 0.5 % of the day's transfers
/// ending in a client timeout.
pub const RUSH_FROM_HOUR: i64 = 17;
pub const RUSH_HOURS: i64 = 6;
pub const RUSH_LOSS_PCT: i64 = 1;
/// How often an API instance dies right after committing a transfer during the day: processes
/// die now and then, as on any real day (a deploy, a node lost). This lab's assumption, not the
/// lesson's. It is the one crash point both runs pass on every payment, so both meet the same
/// crashes; the pipeline's crash points lie on paths only one of the runs takes.
pub const CRASH_CHANCE: f64 = 0.000_1;
/// After a timeout (or a "still in progress" answer) the customer taps Send again this much
/// later, up to [`MAX_RETRIES`] times; with `key_persistence` on, the app resends the same key.
pub const RETRY_AFTER_MS: i64 = 30_000;
pub const MAX_RETRIES: u32 = 3;
/// The lesson's "double charged" tickets a month before the idempotency key, and after it.
pub const LESSON_TICKETS_BEFORE: f64 = 340.0;
pub const LESSON_TICKETS_AFTER: f64 = 0.0;

/// `POST /api/days` `{"scale": 10}`: which day to run (or to follow, if it is running or ran).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DayRequest {
    /// The N of 1:N: one of 10, 100, 1000, 10000. Default 10.
    #[serde(default)]
    pub scale: Scale,
}

/// The N of 1:N: one of the [`SCALES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct Scale(u32);

impl Scale {
    pub fn get(self) -> u32 {
        self.0
    }
}

impl Default for Scale {
    fn default() -> Self {
        Scale(DEFAULT_SCALE)
    }
}

impl TryFrom<u32> for Scale {
    type Error = FieldError;

    fn try_from(n: u32) -> Result<Scale, FieldError> {
        known_scale(n.into()).map(Scale).ok_or_else(scale_error)
    }
}

impl From<Scale> for u32 {
    fn from(s: Scale) -> u32 {
        s.0
    }
}

#[cfg(feature = "ssr")]
impl utoipa::PartialSchema for Scale {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .enum_values(Some(SCALES))
            .into()
    }
}

#[cfg(feature = "ssr")]
impl utoipa::ToSchema for Scale {}

/// The scale `n` (the N of 1:N), if it is one of the [`SCALES`].
pub fn known_scale(n: u64) -> Option<u32> {
    SCALES.into_iter().find(|&s| u64::from(s) == n)
}

/// A scale as a URL writes it: `10` for 1:10, digits only and one spelling per scale (not
/// `010` or `+10`).
pub fn parse_scale(text: &str) -> Option<u32> {
    known_scale(text.parse().ok()?).filter(|s| s.to_string() == text)
}

/// What a caller is told when a scale is not one of the [`SCALES`].
pub fn scale_error() -> FieldError {
    let list: Vec<String> = SCALES.iter().map(u32::to_string).collect();
    FieldError::new(
        "scale",
        format!("expected one of {} (the N of 1:N)", list.join(", ")),
    )
}

/// Transfers in a day at scale 1:`scale`.
pub fn transfers_at(scale: u32) -> u64 {
    FULL_DAY / u64::from(scale)
}

/// Transfers are first sent together at the start of each virtual minute: a minute's worth of
/// the day's traffic at once, so the relay and the consumers take them in batches, as they do
/// under real load, and the day runs in minutes instead of an hour. What a guard sees of one
/// transfer is the same either way: no two of them share a customer's key.
pub const BURST_MS: i64 = 60_000;

/// When the `i`-th of `n` transfers of the day is first sent, in virtual ms after the day's
/// start: spread evenly over the 24 hours, each minute's at the minute's start.
pub fn arrival_ms(i: u64, n: u64) -> i64 {
    let bursts = (DAY_MS / BURST_MS) as u128;
    ((i as u128 * bursts / n.max(1) as u128) as i64) * BURST_MS
}

/// Whether the rush hours' losses hold at virtual time `ms` of a sandbox's clock (whose day
/// starts at 09:00, so the rush falls inside the 24 hours run).
pub fn in_rush(ms: i64) -> bool {
    let hour = ms.rem_euclid(DAY_MS) / 3_600_000;
    (RUSH_FROM_HOUR..RUSH_FROM_HOUR + RUSH_HOURS).contains(&hour)
}

/// The safeguards of one run of the day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum DayGuards {
    /// Every safeguard on (the lab's default).
    On,
    /// Every safeguard off.
    Off,
}

impl DayGuards {
    /// The order the day runs in: with the guards, then without.
    pub const ORDER: [DayGuards; 2] = [DayGuards::On, DayGuards::Off];

    pub fn id(self) -> &'static str {
        match self {
            DayGuards::On => "on",
            DayGuards::Off => "off",
        }
    }
}

/// Where a day stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum DayStatus {
    Running,
    Done,
    /// The server stopped it or a store failed; starting it again runs it afresh.
    Failed,
}

/// One run of the day (guards on or off), as far as it has got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DayRun {
    pub guards: DayGuards,
    /// Transfers first sent so far (of the day's [`DayReport::transfers`]).
    pub sent: u64,
    /// Requests sent, retries included.
    pub requests: u64,
    /// Answers that never came (the phone's timeout or the load balancer's 504).
    pub timeouts: u64,
    /// Taps on Send again after a timeout or a "still in progress".
    pub retries: u64,
    /// Transfers that ended with a receipt.
    pub receipts: u64,
    /// Transfers still without a receipt after the last retry.
    pub given_up: u64,
    /// Any other refusal (none is expected: a count above 0 is a finding).
    pub refused: u64,
    /// Virtual time run so far, from 0 to a day and the drain after it.
    pub virtual_ms: i64,
    /// Wall time it has taken so far.
    pub wall_ms: u64,
    /// The damage meter once the run has drained: read from the stores, as the lab's is.
    pub damage: Option<Damage>,
    /// Invariants the end state breaks, of those the run's safeguards promise (`GET
    /// …/check`): 0 on a sound day, guards on or off.
    pub invariants_broken: Option<u64>,
    /// The faults the run met and what they turned into, counted in its event log once it has
    /// drained.
    #[serde(default)]
    pub faults: Option<DayFaults>,
}

/// What one run of the day met, as its sandbox's event log recorded it. Both runs draw each
/// send's losses and crashes from that send's own random numbers (common random numbers keyed
/// by the transfer and the send), so the faults are the same in both and only what they turned
/// into differs: that is the guards' work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DayFaults {
    /// Requests the network lost on the way to the load balancer.
    pub requests_lost: u64,
    /// Answers the network lost on the way back to the phone.
    pub answers_lost: u64,
    /// API instances that died after committing a payment.
    pub crashes: u64,
    /// Stored answers sent again for a key seen before (`Idempotent-Replayed`).
    pub replays: u64,
    /// Duplicates a guard stopped (events marked caught).
    pub caught: u64,
}

impl DayFaults {
    /// The faults alone, the part both runs must share.
    pub fn met(&self) -> (u64, u64, u64) {
        (self.requests_lost, self.answers_lost, self.crashes)
    }
}

/// The double charges a day at 1:`scale` is expected to produce with every guard off, and the
/// range 95 days in 100 fall in: each answer lost in the rush is a customer who taps again with
/// a new key and pays twice. A scale whose expected count is below one cannot show the harm
/// reliably: its 0 is luck, not safety, and the page says so.
pub fn expected_double_charges(scale: u32) -> (f64, u64, u64) {
    let p = RUSH_LOSS_PCT as f64 / 100.0;
    let rush = RUSH_HOURS as f64 / 24.0;
    let mean = transfers_at(scale) as f64 * rush * (1.0 - p) * p;
    let (lo, hi) = poisson_range(mean);
    (mean, lo, hi)
}

/// The central 95 % range of a Poisson count with mean `mean`: the smallest `lo` with
/// P(X < lo) ≤ 2.5 % excluded below and the smallest `hi` with P(X ≤ hi) ≥ 97.5 %.
fn poisson_range(mean: f64) -> (u64, u64) {
    let (mut k, mut pmf) = (0u64, (-mean).exp());
    let mut cdf = pmf;
    let mut lo = None;
    loop {
        if lo.is_none() && cdf > 0.025 {
            lo = Some(k);
        }
        if cdf >= 0.975 || k > 1_000_000 {
            return (lo.unwrap_or(k), k);
        }
        k += 1;
        pmf *= mean / k as f64;
        cdf += pmf;
    }
}

impl DayRun {
    pub fn new(guards: DayGuards) -> DayRun {
        DayRun {
            guards,
            sent: 0,
            requests: 0,
            timeouts: 0,
            retries: 0,
            receipts: 0,
            given_up: 0,
            refused: 0,
            virtual_ms: 0,
            wall_ms: 0,
            damage: None,
            invariants_broken: None,
            faults: None,
        }
    }

    /// Support tickets from this run's double charges: one double-charged customer in
    /// [`Tickets::charges_per_ticket`] writes (the tickets calculator's assumption).
    pub fn tickets(&self) -> Option<f64> {
        let d = self.damage.as_ref()?;
        Some(d.double_charges as f64 / Tickets::default().charges_per_ticket)
    }
}

/// A day at one scale: its plan, where it stands and what each run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DayReport {
    /// The N of 1:N.
    pub scale: u32,
    /// Transfers in each run: 2,000,000 / N.
    pub transfers: u64,
    /// The seed of both runs' sandboxes: the same day, replayable.
    pub seed: u64,
    pub status: DayStatus,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// Guards on, then off.
    pub runs: Vec<DayRun>,
}

impl DayReport {
    pub fn new(scale: u32, seed: u64) -> DayReport {
        DayReport {
            scale,
            transfers: transfers_at(scale),
            seed,
            status: DayStatus::Running,
            error: None,
            runs: DayGuards::ORDER.into_iter().map(DayRun::new).collect(),
        }
    }

    /// How far the whole day has got, 0 to 100: each run counts for half, by transfers sent,
    /// and is full only once it has drained.
    pub fn progress_pct(&self) -> u8 {
        if self.status == DayStatus::Done {
            return 100;
        }
        let each = |r: &DayRun| {
            if r.damage.is_some() {
                1.0
            } else {
                0.99 * r.sent as f64 / self.transfers.max(1) as f64
            }
        };
        let sum: f64 = self.runs.iter().map(each).sum();
        (100.0 * sum / self.runs.len().max(1) as f64)
            .floor()
            .min(99.0) as u8
    }

    pub fn run(&self, guards: DayGuards) -> Option<&DayRun> {
        self.runs.iter().find(|r| r.guards == guards)
    }

    /// Wall time of both runs so far.
    pub fn wall_ms(&self) -> u64 {
        self.runs.iter().map(|r| r.wall_ms).sum()
    }
}

/// A figure of one run at the full scale: measured × N, a day and a month (30 days).
pub fn extrapolated(measured: f64, scale: u32) -> (f64, f64) {
    let day = measured * f64::from(scale);
    (day, day * Tickets::default().days_per_month)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::clock::START_MS;
    use serde_json::json;

    #[test]
    fn only_the_listed_scales_are_taken() {
        let read = |body| crate::domain::typed::read_body::<DayRequest>(&body);
        assert_eq!(read(json!({})).unwrap().scale.get(), DEFAULT_SCALE);
        assert_eq!(read(json!({"scale": 1000})).unwrap().scale.get(), 1000);
        assert_eq!(read(json!({"scale": 7})).unwrap_err().field, "scale");
        for bad in [
            json!({"scale": 7}),
            json!({"scale": "10"}),
            json!({"scale": 10.5}),
            json!({"scale": -10}),
            json!({"scale": null}),
            json!({"scale": 10, "speed": 2}),
            json!([10]),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        assert_eq!(parse_scale("10000"), Some(10_000));
        for bad in ["1:10", "010", "+10", " 10", "7", ""] {
            assert_eq!(parse_scale(bad), None, "{bad:?}");
        }
        assert_eq!(transfers_at(10), 200_000);
    }

    #[test]
    fn arrivals_cover_the_day_in_order_and_rush_hours_average_the_lessons_timeouts() {
        let n = 200_000;
        assert_eq!(arrival_ms(0, n), 0);
        assert!(arrival_ms(n - 1, n) < DAY_MS);
        assert!((1..n).all(|i| arrival_ms(i, n) >= arrival_ms(i - 1, n)));
        let rush = (0..n)
            .filter(|&i| in_rush(START_MS + arrival_ms(i, n)))
            .count() as f64;
        assert!((rush / n as f64 - 0.25).abs() < 1e-3);
        // Lost on the way there or on the way back, during the rush only.
        let p = RUSH_LOSS_PCT as f64 / 100.0;
        let timeouts = 0.25 * (1.0 - (1.0 - p) * (1.0 - p));
        assert!((timeouts * 100.0 - 0.5).abs() < 0.01, "{timeouts}");
        assert!(!in_rush(16 * 3_600_000 + 59 * 60_000));
        assert!(in_rush(17 * 3_600_000));
        assert!(!in_rush(23 * 3_600_000));
    }

    #[test]
    fn progress_counts_both_runs_and_reaches_100_only_when_done() {
        let mut r = DayReport::new(10_000, 1);
        assert_eq!(r.progress_pct(), 0);
        r.runs[0].sent = 200;
        assert_eq!(r.progress_pct(), 49);
        r.runs[0].damage = Some(Damage::default());
        assert_eq!(r.progress_pct(), 50);
        r.runs[1].sent = 200;
        r.runs[1].damage = Some(Damage::default());
        assert_eq!(r.progress_pct(), 99);
        r.status = DayStatus::Done;
        assert_eq!(r.progress_pct(), 100);
    }

    #[test]
    fn small_scales_expect_less_than_one_double_charge_and_say_their_range() {
        let (mean, lo, hi) = expected_double_charges(10_000);
        assert!((mean - 0.495).abs() < 1e-9, "{mean}");
        assert_eq!((lo, hi), (0, 2));
        let (mean, lo, hi) = expected_double_charges(1_000);
        assert!((mean - 4.95).abs() < 1e-9);
        assert!(
            (1..=2).contains(&lo) && (9..=10).contains(&hi),
            "{lo}..{hi}"
        );
        // At 1:10 the day's 500 or so double charges are the lesson's 340 tickets a month.
        let (mean, ..) = expected_double_charges(10);
        let (_, month) = extrapolated(mean / Tickets::default().charges_per_ticket, 10);
        assert!((month - LESSON_TICKETS_BEFORE).abs() < 10.0, "{month}");
        assert_eq!(poisson_range(0.0), (0, 0));
    }

    #[test]
    fn tickets_and_extrapolation_follow_the_calculators_assumptions() {
        let mut run = DayRun::new(DayGuards::Off);
        assert_eq!(run.tickets(), None);
        // One ticket for every 441 double charges, as the tickets calculator assumes.
        run.damage = Some(Damage {
            double_charges: 882,
            ..Damage::default()
        });
        assert_eq!(run.tickets(), Some(2.0));
        assert_eq!(extrapolated(2.0, 10), (20.0, 600.0));
    }
}
