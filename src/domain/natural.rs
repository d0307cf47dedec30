//! Scenario 7, natural idempotency: the same wish written three ways and sent over the lossy
//! network many times. A SET (the display name becomes "Shimul Ahmed") gives the same result
//! however many copies arrive; an INCREMENT ("add ৳500 to the savings balance") adds once per
//! copy; the ledger's idea (one INSERT keyed by a transfer id) keeps one row. The HTTP methods
//! say the same in their names ([`METHODS`]).

use serde::{Deserialize, Serialize};

use super::typed::bounded;

/// How many copies one experiment may send.
pub const MAX_TIMES: i64 = 20;
/// The copies the chapter sends.
pub const TIMES: i64 = 10;
/// The name the SET writes.
pub const NEW_NAME: &str = "Shimul Ahmed";
/// What the INCREMENT and the INSERT add, in taka.
pub const AMOUNT: i64 = 500;

/// One of the three ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum NaturalOp {
    /// `UPDATE … SET display_name = 'Shimul Ahmed'`.
    SetName,
    /// `UPDATE … SET balance = balance + 500`.
    Add,
    /// `INSERT … (transfer_id, 500) ON CONFLICT DO NOTHING`.
    Insert,
}

impl NaturalOp {
    pub const ALL: [NaturalOp; 3] = [NaturalOp::SetName, NaturalOp::Add, NaturalOp::Insert];

    pub fn id(self) -> &'static str {
        match self {
            NaturalOp::SetName => "set_name",
            NaturalOp::Add => "add",
            NaturalOp::Insert => "insert",
        }
    }

    pub fn from_id(id: &str) -> Option<NaturalOp> {
        NaturalOp::ALL.into_iter().find(|o| o.id() == id)
    }

    /// The statement each copy runs, as the lab shows it.
    pub fn sql(self) -> &'static str {
        match self {
            NaturalOp::SetName => {
                "INSERT INTO profiles (user_id, display_name) VALUES ('shimul', 'Shimul Ahmed')
  ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name"
            }
            NaturalOp::Add => {
                "INSERT INTO savings (user_id, balance) VALUES ('shimul', 500)
  ON CONFLICT (user_id) DO UPDATE SET balance = balance + 500"
            }
            NaturalOp::Insert => {
                "INSERT INTO savings_credits (transfer_id, user_id, amount, at_ms)
  VALUES (?1, 'shimul', 500, ?2) ON CONFLICT (transfer_id) DO NOTHING"
            }
        }
    }
}

bounded!(
    /// How many copies one experiment sends: 1 to [`MAX_TIMES`].
    Times,
    1,
    MAX_TIMES
);

/// `POST …/natural`: `{"op", "times"?}`, the copies defaulting to [`TIMES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NaturalBody {
    pub op: NaturalOp,
    #[serde(default = "the_chapters_copies")]
    pub times: Times,
}

fn the_chapters_copies() -> Times {
    Times::of(TIMES)
}

/// What one copy did to the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The first write: the value is now what was wished.
    Changed,
    /// A SET that found the value already there: nothing changed.
    Same,
    /// An INCREMENT that added again.
    AddedAgain,
    /// A keyed INSERT whose key was taken: refused.
    Refused,
}

impl Effect {
    pub const ALL: [Effect; 4] = [
        Effect::Changed,
        Effect::Same,
        Effect::AddedAgain,
        Effect::Refused,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Effect::Changed => "changed",
            Effect::Same => "same",
            Effect::AddedAgain => "added_again",
            Effect::Refused => "refused",
        }
    }
}

/// What one experiment did: how many copies were sent, how many reached the server, and what
/// the table says after them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NaturalReport {
    pub op: NaturalOp,
    pub sent: i64,
    pub arrived: i64,
    /// Shimul's display name after.
    pub name: String,
    /// The savings balance the INCREMENT adds to, after, in taka.
    pub savings: i64,
    /// Rows the keyed INSERT left for this experiment's transfer id (0 for the other ways).
    pub credit_rows: i64,
}

/// The HTTP methods and whether the standard makes them idempotent (RFC 9110 §9.2.2), each with
/// the message id of its reason.
pub const METHODS: [(&str, bool); 7] = [
    ("GET", true),
    ("HEAD", true),
    ("OPTIONS", true),
    ("PUT", true),
    ("DELETE", true),
    ("POST", false),
    ("PATCH", false),
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_body_names_one_of_three_ways_and_how_many_copies() {
        let read = |body| crate::domain::typed::read_body::<NaturalBody>(&body);
        let body = read(json!({"op": "add"})).unwrap();
        assert_eq!((body.op, body.times.get()), (NaturalOp::Add, TIMES));
        let body = read(json!({"op": "insert", "times": 3})).unwrap();
        assert_eq!((body.op, body.times.get()), (NaturalOp::Insert, 3));
        for bad in [
            json!({"op": "multiply"}),
            json!({"op": "add", "times": 0}),
            json!({"op": "add", "times": 21}),
            json!({"op": "add", "extra": 1}),
            json!({"op": "add", "times": null}),
            json!({}),
            json!([]),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        for op in NaturalOp::ALL {
            assert_eq!(NaturalOp::from_id(op.id()), Some(op));
        }
    }
}
