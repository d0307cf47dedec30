//! The faults of docs/reference.md §4: what the lab can break, and how often.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[cfg(test)]
use super::typed::read_body;
use super::typed::{bounded, patch};
use super::FieldError;

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
    /// `off`, `once` or `always`.
    fn word(text: &str) -> Option<CrashMode> {
        match text {
            "off" => Some(CrashMode::Off),
            "once" => Some(CrashMode::Once),
            "always" => Some(CrashMode::Always),
            _ => None,
        }
    }

    /// The mode as a control writes it: its word, or the probability's digits.
    pub fn text(self) -> String {
        match self {
            CrashMode::Off => "off".to_owned(),
            CrashMode::Once => "once".to_owned(),
            CrashMode::Always => "always".to_owned(),
            CrashMode::Probability(p) => p.to_string(),
        }
    }

    /// Reads [`CrashMode::text`] back: a word, or a probability from 0 to 1.
    pub fn from_text(text: &str) -> Option<CrashMode> {
        CrashMode::word(text).or_else(|| {
            text.parse::<f64>()
                .ok()
                .filter(|p| (0.0..=1.0).contains(p))
                .map(CrashMode::Probability)
        })
    }

    fn parse(field: &str, value: &serde_json::Value) -> Result<CrashMode, FieldError> {
        let bad = || {
            FieldError::new(
                field,
                "expected \"off\", \"once\", \"always\" or a probability from 0 to 1",
            )
        };
        match value {
            // In JSON a probability is a number, never a string.
            serde_json::Value::String(s) => CrashMode::word(s).ok_or_else(bad),
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
        CrashMode::parse("crash", &value).map_err(|e| serde::de::Error::custom(e.message))
    }
}

#[cfg(feature = "ssr")]
impl utoipa::PartialSchema for CrashMode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["off", "once", "always"])),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Number)
                    .minimum(Some(0))
                    .maximum(Some(1)),
            )
            .into()
    }
}

#[cfg(feature = "ssr")]
impl utoipa::ToSchema for CrashMode {}

/// The schema of [`Faults::crash`]: every crash point, each a [`CrashMode`].
#[cfg(feature = "ssr")]
fn every_crash_point() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    use utoipa::PartialSchema;
    CrashPoint::ALL
        .into_iter()
        .fold(ObjectBuilder::new().schema_type(Type::Object), |o, c| {
            o.property(c.id(), CrashMode::schema()).required(c.id())
        })
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .build()
}

/// Longest delay any fault setting accepts: ten virtual minutes.
pub const MAX_DELAY_MS: i64 = 600_000;

bounded!(
    /// A chance in percent: 0 to 100.
    Percent,
    0,
    100
);
bounded!(
    /// A delay in virtual milliseconds: 0 to [`MAX_DELAY_MS`].
    DelayMs,
    0,
    MAX_DELAY_MS
);
bounded!(
    /// How long the phone waits for an answer, virtual milliseconds: 100 to [`MAX_DELAY_MS`].
    TimeoutMs,
    100,
    MAX_DELAY_MS
);
bounded!(
    /// How many times the phone's HTTP library retries on its own: 0 to 5.
    Retries,
    0,
    5
);

/// Every fault setting of one sandbox: the `faults` of `GET …/state` and what `PUT …/faults`
/// answers ([`FaultsPatch`] is the change).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Faults {
    /// Chance that a request never reaches the load balancer, in percent.
    pub request_loss_pct: Percent,
    /// Chance that a response never reaches the phone, in percent.
    pub response_loss_pct: Percent,
    /// One-way network latency, virtual milliseconds.
    pub latency_ms: DelayMs,
    /// How long the phone waits for an answer before it gives up, virtual milliseconds.
    pub phone_timeout_ms: TimeoutMs,
    /// How many times the phone's HTTP library retries on its own after a timeout.
    pub auto_retries: Retries,
    /// Wait before each automatic retry, virtual milliseconds.
    pub retry_backoff_ms: DelayMs,
    /// Whether the load balancer retries an upstream timeout on another instance.
    pub lb_retry: bool,
    /// How long the payment gateway takes inside the API, virtual milliseconds.
    pub gateway_latency_ms: DelayMs,
    /// Crash points; one left out is off.
    #[cfg_attr(feature = "ssr", schema(schema_with = every_crash_point))]
    pub crash: BTreeMap<CrashPoint, CrashMode>,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            request_loss_pct: Percent::of(0),
            response_loss_pct: Percent::of(0),
            latency_ms: DelayMs::of(40),
            phone_timeout_ms: TimeoutMs::of(5_000),
            auto_retries: Retries::of(0),
            retry_backoff_ms: DelayMs::of(1_000),
            lb_retry: false,
            gateway_latency_ms: DelayMs::of(300),
            crash: CrashPoint::ALL
                .into_iter()
                .map(|c| (c, CrashMode::Off))
                .collect(),
        }
    }
}

impl Faults {
    pub fn crash_mode(&self, point: CrashPoint) -> CrashMode {
        self.crash.get(&point).copied().unwrap_or_default()
    }

    /// The settings `patch` gives: what it names changes, the rest stays.
    pub fn apply(&self, patch: &FaultsPatch) -> Faults {
        let FaultsPatch {
            request_loss_pct,
            response_loss_pct,
            latency_ms,
            phone_timeout_ms,
            auto_retries,
            retry_backoff_ms,
            lb_retry,
            gateway_latency_ms,
            crash,
        } = patch;
        let mut next = self.clone();
        fn set<T: Copy>(to: &mut T, from: &Option<T>) {
            if let Some(v) = from {
                *to = *v;
            }
        }
        set(&mut next.request_loss_pct, request_loss_pct);
        set(&mut next.response_loss_pct, response_loss_pct);
        set(&mut next.latency_ms, latency_ms);
        set(&mut next.phone_timeout_ms, phone_timeout_ms);
        set(&mut next.auto_retries, auto_retries);
        set(&mut next.retry_backoff_ms, retry_backoff_ms);
        set(&mut next.lb_retry, lb_retry);
        set(&mut next.gateway_latency_ms, gateway_latency_ms);
        for (point, mode) in crash.iter().flat_map(CrashPatch::entries) {
            if let Some(mode) = mode {
                next.crash.insert(point, mode);
            }
        }
        next
    }
}

patch! {
    /// A change to some faults: the body of `PUT …/faults`, a rerun's `{"faults": …}` input
    /// and a scenario's preset. Each field is a fault's id (docs/reference.md §4).
    pub struct FaultsPatch {
        request_loss_pct: Percent,
        response_loss_pct: Percent,
        latency_ms: DelayMs,
        phone_timeout_ms: TimeoutMs,
        auto_retries: Retries,
        retry_backoff_ms: DelayMs,
        lb_retry: bool,
        gateway_latency_ms: DelayMs,
        crash: CrashPatch,
    }
}

patch! {
    /// A change to some crash points: `crash` in a [`FaultsPatch`].
    pub struct CrashPatch {
        api_after_claim: CrashMode,
        api_after_commit: CrashMode,
        relay_after_publish: CrashMode,
        broker_ack_lost: CrashMode,
        fraud_before_commit: CrashMode,
        consumer_before_offset_commit: CrashMode,
    }
}

impl CrashPatch {
    fn slot(&mut self, point: CrashPoint) -> &mut Option<CrashMode> {
        match point {
            CrashPoint::ApiAfterClaim => &mut self.api_after_claim,
            CrashPoint::ApiAfterCommit => &mut self.api_after_commit,
            CrashPoint::RelayAfterPublish => &mut self.relay_after_publish,
            CrashPoint::BrokerAckLost => &mut self.broker_ack_lost,
            CrashPoint::FraudBeforeCommit => &mut self.fraud_before_commit,
            CrashPoint::ConsumerBeforeOffsetCommit => &mut self.consumer_before_offset_commit,
        }
    }

    /// A change that makes these crash points fire once.
    pub fn once(points: &[CrashPoint]) -> CrashPatch {
        let mut patch = CrashPatch::default();
        for &point in points {
            *patch.slot(point) = Some(CrashMode::Once);
        }
        patch
    }

    /// Each crash point, in [`CrashPoint::ALL`]'s order, with what this change sets it to.
    pub fn entries(&self) -> [(CrashPoint, Option<CrashMode>); 6] {
        [
            (CrashPoint::ApiAfterClaim, self.api_after_claim),
            (CrashPoint::ApiAfterCommit, self.api_after_commit),
            (CrashPoint::RelayAfterPublish, self.relay_after_publish),
            (CrashPoint::BrokerAckLost, self.broker_ack_lost),
            (CrashPoint::FraudBeforeCommit, self.fraud_before_commit),
            (
                CrashPoint::ConsumerBeforeOffsetCommit,
                self.consumer_before_offset_commit,
            ),
        ]
    }
}

impl FaultsPatch {
    /// A change to the crash points named.
    pub fn crash(points: &[CrashPoint], mode: CrashMode) -> FaultsPatch {
        let mut crash = CrashPatch::default();
        for point in points {
            *crash.slot(*point) = Some(mode);
        }
        FaultsPatch {
            crash: Some(crash),
            ..FaultsPatch::default()
        }
    }

    /// Both losses, requests and answers, at one chance.
    pub fn loss(chance: Percent) -> FaultsPatch {
        FaultsPatch {
            request_loss_pct: Some(chance),
            response_loss_pct: Some(chance),
            ..FaultsPatch::default()
        }
    }
}

/// The faults set with a number: each one's id, its value, and the change that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberFault {
    RequestLossPct,
    ResponseLossPct,
    LatencyMs,
    PhoneTimeoutMs,
    AutoRetries,
    RetryBackoffMs,
    GatewayLatencyMs,
}

impl NumberFault {
    pub fn id(self) -> &'static str {
        match self {
            NumberFault::RequestLossPct => "request_loss_pct",
            NumberFault::ResponseLossPct => "response_loss_pct",
            NumberFault::LatencyMs => "latency_ms",
            NumberFault::PhoneTimeoutMs => "phone_timeout_ms",
            NumberFault::AutoRetries => "auto_retries",
            NumberFault::RetryBackoffMs => "retry_backoff_ms",
            NumberFault::GatewayLatencyMs => "gateway_latency_ms",
        }
    }

    pub fn read(self, f: &Faults) -> i64 {
        match self {
            NumberFault::RequestLossPct => f.request_loss_pct.get(),
            NumberFault::ResponseLossPct => f.response_loss_pct.get(),
            NumberFault::LatencyMs => f.latency_ms.get(),
            NumberFault::PhoneTimeoutMs => f.phone_timeout_ms.get(),
            NumberFault::AutoRetries => f.auto_retries.get(),
            NumberFault::RetryBackoffMs => f.retry_backoff_ms.get(),
            NumberFault::GatewayLatencyMs => f.gateway_latency_ms.get(),
        }
    }

    /// The change that sets this fault to `value`, or why `value` does not fit it.
    pub fn patch(self, value: i64) -> Result<FaultsPatch, FieldError> {
        let out = |e: super::typed::OutOfRange| FieldError::new(self.id(), e.to_string());
        let mut p = FaultsPatch::default();
        match self {
            NumberFault::RequestLossPct => {
                p.request_loss_pct = Some(value.try_into().map_err(out)?)
            }
            NumberFault::ResponseLossPct => {
                p.response_loss_pct = Some(value.try_into().map_err(out)?)
            }
            NumberFault::LatencyMs => p.latency_ms = Some(value.try_into().map_err(out)?),
            NumberFault::PhoneTimeoutMs => {
                p.phone_timeout_ms = Some(value.try_into().map_err(out)?)
            }
            NumberFault::AutoRetries => p.auto_retries = Some(value.try_into().map_err(out)?),
            NumberFault::RetryBackoffMs => {
                p.retry_backoff_ms = Some(value.try_into().map_err(out)?)
            }
            NumberFault::GatewayLatencyMs => {
                p.gateway_latency_ms = Some(value.try_into().map_err(out)?)
            }
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_a_healthy_network() {
        let f = Faults::default();
        assert_eq!(f.phone_timeout_ms.get(), 5_000);
        assert_eq!(f.request_loss_pct.get(), 0);
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
        let f = Faults::default().apply(
            &read_body(&json!({
                "response_loss_pct": 100,
                "lb_retry": true,
                "crash": {"api_after_claim": "once", "relay_after_publish": 0.25}
            }))
            .unwrap(),
        );
        assert_eq!(f.response_loss_pct.get(), 100);
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
            (json!({"latency_ms": null}), "latency_ms"),
            (json!("loss"), "(body)"),
        ];
        for (body, field) in cases {
            let err = read_body::<FaultsPatch>(&body).unwrap_err();
            assert_eq!(err.field, field, "{body}");
        }
    }

    #[test]
    fn a_patch_names_every_fault_and_crash_point_by_its_id() {
        let all = serde_json::to_value(Faults::default()).unwrap();
        let patch: FaultsPatch = read_body(&all).unwrap();
        assert_eq!(serde_json::to_value(&patch).unwrap(), all);
        assert_eq!(Faults::default().apply(&patch), Faults::default());
        let order: Vec<CrashPoint> = CrashPatch::default()
            .entries()
            .iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(order, CrashPoint::ALL);
        for n in [
            NumberFault::RequestLossPct,
            NumberFault::ResponseLossPct,
            NumberFault::LatencyMs,
            NumberFault::PhoneTimeoutMs,
            NumberFault::AutoRetries,
            NumberFault::RetryBackoffMs,
            NumberFault::GatewayLatencyMs,
        ] {
            let v = n.read(&Faults::default());
            assert_eq!(
                serde_json::to_value(n.patch(v).unwrap()).unwrap(),
                json!({ n.id(): v })
            );
            assert_eq!(n.patch(-1).unwrap_err().field, n.id());
        }
        for mode in [
            CrashMode::Off,
            CrashMode::Always,
            CrashMode::Probability(0.1),
        ] {
            assert_eq!(CrashMode::from_text(&mode.text()), Some(mode));
        }
        assert_eq!(CrashMode::from_text("1.5"), None);
        assert_eq!(CrashMode::from_text("sometimes"), None);
        let once = FaultsPatch::crash(&[CrashPoint::BrokerAckLost], CrashMode::Once);
        assert_eq!(
            serde_json::to_value(once).unwrap(),
            json!({"crash": {"broker_ack_lost": "once"}})
        );
    }
}
