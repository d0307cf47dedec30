//! The lesson's numbers as calculators (`/calculators`): how big a dedup table grows, what a
//! partition drop saves against a row-by-row DELETE (measured live on SQLite by the server,
//! `POST /api/measure/drop-vs-delete`), and how timeouts turn into support tickets. Pure
//! arithmetic, the same on the server and in the browser; the defaults reproduce the lesson.

use serde::{Deserialize, Serialize};

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
    /// Of those, the ones where the money had moved and the customer tapped again, in percent.
    pub charged_and_retried_pct: f64,
    /// Double charges per ticket: one customer in this many writes to support.
    pub charges_per_ticket: f64,
    pub days_per_month: f64,
}

impl Default for Tickets {
    /// The lesson's 2 million a day and 0.5 % timeouts; the two shares are this lab's
    /// assumptions, chosen so that the lesson's 340 tickets a month come out.
    fn default() -> Self {
        Tickets {
            transfers_per_day: 2_000_000.0,
            timeout_pct: 0.5,
            charged_and_retried_pct: 34.0,
            charges_per_ticket: 300.0,
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

    /// Support tickets a month without the key; with it, every retry is recognised: 0.
    pub fn tickets_per_month(&self) -> f64 {
        if self.charges_per_ticket <= 0.0 {
            return 0.0;
        }
        self.double_charges_per_day() * self.days_per_month / self.charges_per_ticket
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
pub struct DropVsDelete {
    /// 1 to 10.
    pub days: u32,
    /// 100 to 10,000.
    pub rows_per_day: u32,
}

impl Default for DropVsDelete {
    fn default() -> Self {
        DropVsDelete {
            days: 7,
            rows_per_day: 5_000,
        }
    }
}

impl DropVsDelete {
    /// Checks a request body; nothing is measured when a field fails.
    pub fn parse(body: &serde_json::Value) -> Result<DropVsDelete, FieldError> {
        let obj = body
            .as_object()
            .ok_or_else(|| FieldError::new("(body)", "expected a JSON object"))?;
        if let Some(other) = obj
            .keys()
            .find(|k| !["days", "rows_per_day"].contains(&k.as_str()))
        {
            return Err(FieldError::new(
                other.clone(),
                "unknown field: expected \"days\" and \"rows_per_day\"",
            ));
        }
        let field = |name: &str, lo: u32, hi: u32, default: u32| -> Result<u32, FieldError> {
            match obj.get(name) {
                None => Ok(default),
                Some(v) => v
                    .as_u64()
                    .filter(|n| (u64::from(lo)..=u64::from(hi)).contains(n))
                    .map(|n| n as u32)
                    .ok_or_else(|| {
                        FieldError::new(name, format!("expected a whole number from {lo} to {hi}"))
                    }),
            }
        };
        let d = DropVsDelete::default();
        Ok(DropVsDelete {
            days: field("days", 1, MAX_DAYS, d.days)?,
            rows_per_day: field(
                "rows_per_day",
                MIN_ROWS_PER_DAY,
                MAX_ROWS_PER_DAY,
                d.rows_per_day,
            )?,
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
    fn the_defaults_reproduce_the_lessons_tickets() {
        let t = Tickets::default();
        assert_eq!(t.unknown_per_day(), 10_000.0);
        assert_eq!(t.double_charges_per_day(), 3_400.0);
        assert_eq!(t.tickets_per_month(), 340.0);
        let none = Tickets {
            charges_per_ticket: 0.0,
            ..t
        };
        assert_eq!(none.tickets_per_month(), 0.0);
    }

    #[test]
    fn a_measurement_body_is_checked_field_by_field() {
        assert_eq!(DropVsDelete::parse(&json!({})), Ok(DropVsDelete::default()));
        assert_eq!(
            DropVsDelete::parse(&json!({"days": 3, "rows_per_day": 100})),
            Ok(DropVsDelete {
                days: 3,
                rows_per_day: 100
            })
        );
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
            assert!(DropVsDelete::parse(&bad).is_err(), "{bad}");
        }
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
