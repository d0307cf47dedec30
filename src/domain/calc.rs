//! The lesson's numbers as calculators (`/calculators`): how big a dedup table grows, what a
//! partition drop saves against a row-by-row DELETE (measured live on SQLite by the server,
//! `POST /api/measure/drop-vs-delete`), and how timeouts turn into support tickets. Pure
//! arithmetic, the same on the server and in the browser; the defaults reproduce the lesson.

use serde::{Deserialize, Serialize};

use super::typed::bounded;
use super::FieldError;

/// One gigabyte as the lesson counts it (10^9 bytes: 2,000,000 × 500 B = 1 GB).
pub const GB: f64 = 1e9;

/// The dedup-table calculator's inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub transfers_per_day: f64,
    /// One key row with its stored answer.
    pub row_bytes: f64,
    /// How long a key is kept.
    pub window_hours: f64,
    /// The longest a client goes on retrying one transfer.
    pub longest_retry_hours: f64,
    /// What the rule adds on top of the longest retry.
    pub margin_hours: f64,
}

impl Default for Window {
    /// The lesson's PocketPay: 2 million transfers a day, 500 B a row, a 48 h window, an app
    /// that retries for up to 24 h, and as much again as margin.
    fn default() -> Self {
        Window {
            transfers_per_day: 2_000_000.0,
            row_bytes: 500.0,
            window_hours: 48.0,
            longest_retry_hours: 24.0,
            margin_hours: 24.0,
        }
    }
}

impl Window {
    /// New rows a day, in bytes.
    pub fn bytes_per_day(&self) -> f64 {
        self.transfers_per_day * self.row_bytes
    }

    /// The table's size with keys kept `hours`, in bytes.
    pub fn bytes_for(&self, hours: f64) -> f64 {
        self.bytes_per_day() * hours / 24.0
    }

    /// The table's size at the chosen window.
    pub fn bytes(&self) -> f64 {
        self.bytes_for(self.window_hours)
    }

    /// The rule: a window at least the longest retry plus a margin.
    pub fn shortest_safe_hours(&self) -> f64 {
        self.longest_retry_hours + self.margin_hours
    }

    /// Whether the chosen window keeps the rule.
    pub fn is_safe(&self) -> bool {
        self.window_hours >= self.shortest_safe_hours()
    }
}

/// The tickets calculator's inputs: how unknown outcomes become double charges without the key,
/// and double charges become tickets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tickets {
    pub transfers_per_day: f64,
    /// Transfers whose answer never reaches the app, in percent.
    pub timeout_pct: f64,
    /// Of those, the ones where the money had moved (the answer, not the request, was lost)
    /// and the customer tapped again, in percent.
    pub charged_and_retried_pct: f64,
    /// Double charges per ticket: one customer in this many writes to support.
    pub charges_per_ticket: f64,
    pub days_per_month: f64,
}

impl Default for Tickets {
    /// The lesson's 2 million a day and 0.5 % timeouts, and this lab's own way of failing: its
    /// network loses requests and answers alike (the fast-forwarded day's rush hours lose
    /// [`RUSH_LOSS_PCT`](super::day::RUSH_LOSS_PCT) each way), so half the timeouts come after
    /// the debit, and the customer taps again, as Shimul did and as the day's customers do.
    /// That is 5,000 double charges a day; the lesson's 340 tickets a month then leave one
    /// ticket for about 441 of them, the one share the lesson's figures decide.
    fn default() -> Self {
        Tickets {
            transfers_per_day: 2_000_000.0,
            timeout_pct: 0.5,
            charged_and_retried_pct: 50.0,
            charges_per_ticket: 441.0,
            days_per_month: 30.0,
        }
    }
}

impl Tickets {
    /// Answers that never arrive: "did it happen?", a day.
    pub fn unknown_per_day(&self) -> f64 {
        self.transfers_per_day * self.timeout_pct / 100.0
    }

    /// Second debits a day when the retry carries no key.
    pub fn double_charges_per_day(&self) -> f64 {
        self.unknown_per_day() * self.charged_and_retried_pct / 100.0
    }

    /// Support tickets a month without the key, in whole tickets; with it, every retry is
    /// recognised: 0.
    pub fn tickets_per_month(&self) -> f64 {
        if self.charges_per_ticket <= 0.0 {
            return 0.0;
        }
        (self.double_charges_per_day() * self.days_per_month / self.charges_per_ticket).round()
    }
}

/// Limits of one live measurement: small enough to answer in about a second on a shared
/// server.
pub const MAX_DAYS: u32 = 10;
pub const MAX_ROWS_PER_DAY: u32 = 10_000;
pub const MIN_ROWS_PER_DAY: u32 = 100;

/// `POST /api/measure/drop-vs-delete`: fill a key table with `days` days of `rows_per_day`
/// rows, one day at a time, and after each day time dropping a whole day's table against
/// deleting the same day's rows from one big table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DropVsDelete {
    #[serde(default = "default_days")]
    pub days: MeasureDays,
    #[serde(default = "default_rows")]
    pub rows_per_day: RowsPerDay,
}

bounded!(
    /// Days one measurement fills: 1 to [`MAX_DAYS`].
    MeasureDays,
    1,
    MAX_DAYS as i64
);
bounded!(
    /// Rows per day in one measurement: [`MIN_ROWS_PER_DAY`] to [`MAX_ROWS_PER_DAY`].
    RowsPerDay,
    MIN_ROWS_PER_DAY as i64,
    MAX_ROWS_PER_DAY as i64
);

fn default_days() -> MeasureDays {
    MeasureDays::of(7)
}

fn default_rows() -> RowsPerDay {
    RowsPerDay::of(5_000)
}

impl Default for DropVsDelete {
    fn default() -> Self {
        DropVsDelete {
            days: default_days(),
            rows_per_day: default_rows(),
        }
    }
}

impl DropVsDelete {
    /// A measurement of `days` days of `rows_per_day` rows, or the field out of range.
    pub fn new(days: i64, rows_per_day: i64) -> Result<DropVsDelete, FieldError> {
        let field = |name: &'static str| {
            move |e: super::typed::OutOfRange| FieldError::new(name, e.to_string())
        };
        Ok(DropVsDelete {
            days: days.try_into().map_err(field("days"))?,
            rows_per_day: rows_per_day.try_into().map_err(field("rows_per_day"))?,
        })
    }
}

/// One point of the measurement: with `days` days in the table, the time to drop one day's
/// table and to delete one day's rows, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DropPoint {
    pub days: u32,
    pub drop_us: u64,
    pub delete_us: u64,
}

/// The measurement's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DropReport {
    pub rows_per_day: u32,
    pub points: Vec<DropPoint>,
}

/// A day of keys at the lesson's PocketPay: 2 million transfers, a row each.
pub const LESSON_ROWS_PER_DAY: u32 = 2_000_000;

impl DropReport {
    /// How many times more rows a day of PocketPay's holds than a day measured here: 400 for
    /// the default 5,000 rows.
    pub fn lesson_scale(&self) -> f64 {
        f64::from(LESSON_ROWS_PER_DAY) / f64::from(self.rows_per_day.max(1))
    }

    /// How many times longer the DELETE took than the DROP, the median over the points (one
    /// slow point on a busy server does not decide it); `None` without a point.
    pub fn delete_over_drop(&self) -> Option<f64> {
        let mut ratios: Vec<f64> = self
            .points
            .iter()
            .map(|p| p.delete_us as f64 / p.drop_us.max(1) as f64)
            .collect();
        if ratios.is_empty() {
            return None;
        }
        ratios.sort_by(f64::total_cmp);
        let mid = ratios.len() / 2;
        Some(if ratios.len() % 2 == 1 {
            ratios[mid]
        } else {
            (ratios[mid - 1] + ratios[mid]) / 2.0
        })
    }
}

/// The decades a logarithmic axis spans to hold every value from `min` to `max` (both
/// positive): powers of ten, at least one decade apart.
pub fn log_bounds(min: f64, max: f64) -> (f64, f64) {
    let lo_exp = if min.is_finite() && min > 0.0 {
        min.log10().floor()
    } else {
        0.0
    };
    let hi_exp = if max.is_finite() && max > 0.0 {
        max.log10().ceil()
    } else {
        lo_exp + 1.0
    };
    (10f64.powf(lo_exp), 10f64.powf(hi_exp.max(lo_exp + 1.0)))
}

/// Rounds `x` to a "nice" axis maximum: 1, 2 or 5 times a power of ten, at least `x`.
pub fn nice_ceiling(x: f64) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|v| *v >= x * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_defaults_reproduce_the_lessons_table_sizes() {
        let w = Window::default();
        assert_eq!(w.bytes_per_day() / GB, 1.0);
        assert_eq!(w.bytes_for(24.0) / GB, 1.0);
        assert_eq!(w.bytes() / GB, 2.0);
        assert_eq!(w.bytes_for(7.0 * 24.0) / GB, 7.0);
        assert_eq!(w.bytes_for(365.0 * 24.0) / GB, 365.0);
        assert_eq!(w.shortest_safe_hours(), 48.0);
        assert!(w.is_safe());
        assert!(!Window {
            window_hours: 24.0,
            ..w
        }
        .is_safe());
    }

    #[test]
    fn the_ticket_assumptions_agree_with_the_lesson_and_the_fast_forwarded_day() {
        use crate::domain::day::{LESSON_TICKETS_BEFORE, RUSH_LOSS_PCT};
        let t = Tickets::default();
        // The lesson: 2 million a day, 0.5 % of them timeouts.
        assert_eq!(t.unknown_per_day(), 10_000.0);
        // The day's network loses requests and answers alike: half the timeouts come after
        // the debit, and its customers always tap again.
        let after_the_debit = 100.0 * RUSH_LOSS_PCT as f64 / (2 * RUSH_LOSS_PCT) as f64;
        assert_eq!(t.charged_and_retried_pct, after_the_debit);
        assert_eq!(t.double_charges_per_day(), 5_000.0);
        // …and the lesson's 340 tickets a month, which the day page compares against with
        // the same share of writers.
        assert_eq!(t.tickets_per_month(), LESSON_TICKETS_BEFORE);
        // Twice the timeouts, twice the tickets.
        let twice = Tickets {
            timeout_pct: 1.0,
            ..t
        };
        assert_eq!(twice.tickets_per_month(), 680.0);
        let none = Tickets {
            charges_per_ticket: 0.0,
            ..t
        };
        assert_eq!(none.tickets_per_month(), 0.0);
    }

    #[test]
    fn a_measurement_body_is_checked_field_by_field() {
        let read = |body| crate::domain::typed::read_body::<DropVsDelete>(&body);
        assert_eq!(read(json!({})), Ok(DropVsDelete::default()));
        assert_eq!(
            read(json!({"days": 3, "rows_per_day": 100})),
            DropVsDelete::new(3, 100)
        );
        assert_eq!(DropVsDelete::new(11, 100).unwrap_err().field, "days");
        for bad in [
            json!({"days": 0}),
            json!({"days": 11}),
            json!({"rows_per_day": 99}),
            json!({"rows_per_day": 10_001}),
            json!({"days": "3"}),
            json!({"days": 2.5}),
            json!({"weeks": 1}),
            json!([1]),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn pocketpays_day_is_four_hundred_measured_days_and_the_gap_is_a_median() {
        let point = |drop_us, delete_us| DropPoint {
            days: 1,
            drop_us,
            delete_us,
        };
        let r = DropReport {
            rows_per_day: DropVsDelete::default().rows_per_day.get() as u32,
            points: vec![point(100, 5_000), point(100, 90_000), point(200, 6_000)],
        };
        assert_eq!(r.lesson_scale(), 400.0);
        assert_eq!(r.delete_over_drop(), Some(50.0));
        let even = DropReport {
            rows_per_day: 10_000,
            points: vec![point(0, 40), point(10, 200)],
        };
        assert_eq!(even.lesson_scale(), 200.0);
        assert_eq!(even.delete_over_drop(), Some(30.0));
        assert_eq!(
            DropReport {
                rows_per_day: 100,
                points: vec![]
            }
            .delete_over_drop(),
            None
        );
    }

    #[test]
    fn a_log_axis_spans_whole_decades() {
        let close = |(lo, hi): (f64, f64), (want_lo, want_hi): (f64, f64)| {
            (lo / want_lo - 1.0).abs() < 1e-12 && (hi / want_hi - 1.0).abs() < 1e-12
        };
        assert!(close(log_bounds(0.12, 9.5), (0.1, 10.0)));
        assert!(close(log_bounds(0.05, 30.0), (0.01, 100.0)));
        assert!(close(log_bounds(2.0, 2.0), (1.0, 10.0)));
        assert!(close(log_bounds(0.0, 0.0), (1.0, 10.0)));
    }

    #[test]
    fn axis_ceilings_are_one_two_or_five() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(1.0), 1.0);
        assert_eq!(nice_ceiling(1.3), 2.0);
        assert_eq!(nice_ceiling(340.0), 500.0);
        assert_eq!(nice_ceiling(365.0), 500.0);
        assert_eq!(nice_ceiling(7.0), 10.0);
    }
}
