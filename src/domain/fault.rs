//! The faults of docs/reference.md §4: what the lab can break, and how often.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{boolean, expect_object, int_in, FieldError};

/// A place where a task can die as a killed process would.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrashPoint {
    ApiAfterClaim,
    ApiAfterCommit,
    RelayAfterPublish,
    BrokerAckLost,
    FraudBeforeCommit,
    ConsumerBeforeOffsetCommit,
}

impl CrashPoint {
    pub const ALL: [CrashPoint; 6] = [
        CrashPoint::ApiAfterClaim,
        CrashPoint::ApiAfterCommit,
        CrashPoint::RelayAfterPublish,
        CrashPoint::BrokerAckLost,
        CrashPoint::FraudBeforeCommit,
        CrashPoint::ConsumerBeforeOffsetCommit,
    ];

    pub fn id(self) -> &'static str {
        match self {
            CrashPoint::ApiAfterClaim => "api_after_claim",
            CrashPoint::ApiAfterCommit => "api_after_commit",
            CrashPoint::RelayAfterPublish => "relay_after_publish",
            CrashPoint::BrokerAckLost => "broker_ack_lost",
            CrashPoint::FraudBeforeCommit => "fraud_before_commit",
            CrashPoint::ConsumerBeforeOffsetCommit => "consumer_before_offset_commit",
        }
    }

    pub fn from_id(id: &str) -> Option<CrashPoint> {
        CrashPoint::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// How often a crash point fires: never, the next time only, every time, or with a probability.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum CrashMode {
    #[default]
    Off,
    Once,
    Always,
    Probability(f64),
}

impl CrashMode {
    fn parse(field: &str, value: &serde_json::Value) -> Result<CrashMode, FieldError> {
        let bad = || {
            FieldError::new(
                field,
                "expected \"off\", \"once\", \"always\" or a probability from 0 to 1",
            )
        };
        match value {
            serde_json::Value::String(s) => match s.as_str() {
                "off" => Ok(CrashMode::Off),
                "once" => Ok(CrashMode::Once),
                "always" => Ok(CrashMode::Always),
                _ => Err(bad()),
            },
            serde_json::Value::Number(n) => match n.as_f64() {
                Some(p) if (0.0..=1.0).contains(&p) => Ok(CrashMode::Probability(p)),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

impl Serialize for CrashMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CrashMode::Off => s.serialize_str("off"),
            CrashMode::Once => s.serialize_str("once"),
            CrashMode::Always => s.serialize_str("always"),
            CrashMode::Probability(p) => s.serialize_f64(*p),
        }
    }
}

impl<'de> Deserialize<'de> for CrashMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        CrashMode::parse("crash", &value).map_err(serde::de::Error::custom)
    }
}

/// Every fault setting of one sandbox: the body of `PUT …/faults` (any subset) and the `faults`
/// of `GET …/state` (all of them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Faults {
    /// Chance that a request never reaches the load balancer, in percent.
    pub request_loss_pct: i64,
    /// Chance that a response never reaches the phone, in percent.
    pub response_loss_pct: i64,
    /// One-way network latency, virtual milliseconds.
    pub latency_ms: i64,
    /// How long the phone waits for an answer before it gives up, virtual milliseconds.
    pub phone_timeout_ms: i64,
    /// How many times the phone's HTTP library retries on its own after a timeout.
    pub auto_retries: i64,
    /// Wait before each automatic retry, virtual milliseconds.
    pub retry_backoff_ms: i64,
    /// Whether the load balancer retries an upstream timeout on another instance.
    pub lb_retry: bool,
    /// How long the payment gateway takes inside the API, virtual milliseconds.
    pub gateway_latency_ms: i64,
    /// Crash points; one left out is off.
    pub crash: BTreeMap<CrashPoint, CrashMode>,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            request_loss_pct: 0,
            response_loss_pct: 0,
            latency_ms: 40,
            phone_timeout_ms: 5_000,
            auto_retries: 0,
            retry_backoff_ms: 1_000,
            lb_retry: false,
            gateway_latency_ms: 300,
            crash: CrashPoint::ALL
                .into_iter()
                .map(|c| (c, CrashMode::Off))
                .collect(),
        }
    }
}

/// Longest delay any fault setting accepts: ten virtual minutes.
pub const MAX_DELAY_MS: i64 = 600_000;

impl Faults {
    pub fn crash_mode(&self, point: CrashPoint) -> CrashMode {
        self.crash.get(&point).copied().unwrap_or_default()
    }

    /// Validates a `PUT …/faults` body (any subset of ids; `crash` any subset of points) and
    /// returns the settings it would give, or the first bad field. `self` is untouched.
    pub fn patched(&self, body: &serde_json::Value) -> Result<Faults, FieldError> {
        let mut next = self.clone();
        for (key, value) in expect_object(body)? {
            let k = key.as_str();
            match k {
                "request_loss_pct" => next.request_loss_pct = int_in(k, value, 0, 100)?,
                "response_loss_pct" => next.response_loss_pct = int_in(k, value, 0, 100)?,
                "latency_ms" => next.latency_ms = int_in(k, value, 0, MAX_DELAY_MS)?,
                "phone_timeout_ms" => next.phone_timeout_ms = int_in(k, value, 100, MAX_DELAY_MS)?,
                "auto_retries" => next.auto_retries = int_in(k, value, 0, 5)?,
                "retry_backoff_ms" => next.retry_backoff_ms = int_in(k, value, 0, MAX_DELAY_MS)?,
                "lb_retry" => next.lb_retry = boolean(k, value)?,
                "gateway_latency_ms" => {
                    next.gateway_latency_ms = int_in(k, value, 0, MAX_DELAY_MS)?
                }
                "crash" => {
                    let points = value.as_object().ok_or_else(|| {
                        FieldError::new("crash", "expected an object of crash points")
                    })?;
                    for (name, mode) in points {
                        let field = format!("crash.{name}");
                        let point = CrashPoint::from_id(name)
                            .ok_or_else(|| FieldError::new(field.clone(), "unknown crash point"))?;
                        next.crash.insert(point, CrashMode::parse(&field, mode)?);
                    }
                }
                _ => return Err(FieldError::new(key.clone(), "unknown fault")),
            }
        }
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_a_healthy_network() {
        let f = Faults::default();
        assert_eq!(f.phone_timeout_ms, 5_000);
        assert_eq!(f.request_loss_pct, 0);
        for c in CrashPoint::ALL {
            assert_eq!(f.crash_mode(c), CrashMode::Off);
            assert_eq!(CrashPoint::from_id(c.id()), Some(c));
        }
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["crash"]["api_after_claim"], json!("off"));
        let back: Faults = serde_json::from_value(v).unwrap();
        assert_eq!(back, f);
    }

    #[test]
    fn a_patch_changes_only_what_it_names() {
        let f = Faults::default()
            .patched(&json!({
                "response_loss_pct": 100,
                "lb_retry": true,
                "crash": {"api_after_claim": "once", "relay_after_publish": 0.25}
            }))
            .unwrap();
        assert_eq!(f.response_loss_pct, 100);
        assert!(f.lb_retry);
        assert_eq!(f.crash_mode(CrashPoint::ApiAfterClaim), CrashMode::Once);
        assert_eq!(
            f.crash_mode(CrashPoint::RelayAfterPublish),
            CrashMode::Probability(0.25)
        );
        assert_eq!(f.crash_mode(CrashPoint::BrokerAckLost), CrashMode::Off);
        assert_eq!(f.latency_ms, Faults::default().latency_ms);
    }

    #[test]
    fn bad_patches_name_the_field() {
        let f = Faults::default();
        let cases = [
            (json!({"request_loss_pct": 101}), "request_loss_pct"),
            (json!({"request_loss_pct": -1}), "request_loss_pct"),
            (json!({"response_loss_pct": "50"}), "response_loss_pct"),
            (json!({"auto_retries": 6}), "auto_retries"),
            (json!({"phone_timeout_ms": 0}), "phone_timeout_ms"),
            (json!({"lb_retry": "yes"}), "lb_retry"),
            (json!({"latency_ms": 1e9}), "latency_ms"),
            (json!({"crash": "always"}), "crash"),
            (
                json!({"crash": {"api_after_lunch": "once"}}),
                "crash.api_after_lunch",
            ),
            (
                json!({"crash": {"api_after_claim": 1.5}}),
                "crash.api_after_claim",
            ),
            (
                json!({"crash": {"api_after_claim": "sometimes"}}),
                "crash.api_after_claim",
            ),
            (json!({"packet_loss": 5}), "packet_loss"),
            (json!("loss"), "(body)"),
        ];
        for (body, field) in cases {
            assert_eq!(f.patched(&body).unwrap_err().field, field, "{body}");
        }
    }
}
