//! The twelve scenarios of docs/reference.md §7 as presets: what `POST …/scenario/{n}` sets
//! after resetting the sandbox (the seed, the safeguards, the faults, the clock's speed). Most
//! come in two variants: `guarded` (the guard the scenario is about is on) and `unguarded`
//! (it is off, so the damage shows). The chapters load these; so do the tests.

use serde::{Deserialize, Serialize};

use super::fault::{CrashPatch, DelayMs, Percent, Retries};
use super::{CrashPoint, FaultsPatch, FieldError, Safeguard, SafeguardValue, SafeguardsPatch};

/// The scenarios there are: 1 to 12.
pub const SCENARIOS: std::ops::RangeInclusive<u8> = 1..=12;

/// With the guard the scenario is about on, or off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Variant {
    #[default]
    Guarded,
    Unguarded,
    /// Scenario 8 only: no resend and no outbox, so a lost event stays lost.
    AtMostOnce,
}

impl Variant {
    pub fn id(self) -> &'static str {
        match self {
            Variant::Guarded => "guarded",
            Variant::Unguarded => "unguarded",
            Variant::AtMostOnce => "at_most_once",
        }
    }

    /// The variant with this id, if there is one.
    pub fn from_id(id: &str) -> Option<Variant> {
        [Variant::Guarded, Variant::Unguarded, Variant::AtMostOnce]
            .into_iter()
            .find(|v| v.id() == id)
    }

    /// A variant named in a body or a query, or the field error that says which names exist.
    pub fn parse_id(id: &str) -> Result<Variant, FieldError> {
        Variant::from_id(id).ok_or_else(|| {
            FieldError::new(
                "variant",
                "expected \"guarded\", \"unguarded\" or (scenario 8) \"at_most_once\"",
            )
        })
    }
}

/// The body of `POST …/scenario/{n}`: `{}` or `{"variant": "…"}` (nothing at all reads as
/// `{}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ScenarioBody {
    #[serde(default)]
    pub variant: Variant,
}

/// What loading a scenario sets, after a reset to the lesson's start.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    pub n: u8,
    pub variant: Variant,
    /// The sandbox's seed from now on: the same preset always plays out the same way.
    pub seed: u64,
    /// The safeguards it switches (empty: all on).
    pub safeguards: super::SafeguardsPatch,
    /// The faults it sets (empty: none).
    pub faults: super::FaultsPatch,
    /// The clock's speed; it runs live.
    pub speed: f64,
}

/// The preset for scenario `n`, or `None` when there is no such scenario (or, for
/// `at_most_once`, when the scenario is not 8).
///
/// Reads best whole: one arm per scenario, docs/reference.md §7's table in code; split, the table
/// would be in pieces.
pub fn preset(n: u8, variant: Variant) -> Option<Preset> {
    if variant == Variant::AtMostOnce && n != 8 {
        return None;
    }
    let off = |guards: &[Safeguard]| {
        if variant == Variant::Guarded {
            SafeguardsPatch::default()
        } else {
            SafeguardsPatch::off(guards)
        }
    };
    // These crash points fire once.
    let crash = |points: &[CrashPoint]| FaultsPatch {
        crash: Some(CrashPatch::once(points)),
        ..FaultsPatch::default()
    };
    let inbox_window = |hours| {
        SafeguardsPatch::one(Safeguard::InboxWindowHours, SafeguardValue::Hours(hours))
            .expect("a window the setting takes")
    };
    let (safeguards, faults, speed) = match n {
        // The train: the answer is lost; the second tap is the duplicate.
        1 => (
            off(&[Safeguard::KeyPersistence, Safeguard::IdempotencyTable]),
            FaultsPatch {
                response_loss_pct: Some(Percent::of(100)),
                ..FaultsPatch::default()
            },
            1.0,
        ),
        // The library's auto-retry and the load balancer's retry.
        2 => (
            off(&[Safeguard::IdempotencyTable, Safeguard::LedgerUnique]),
            FaultsPatch {
                auto_retries: Some(Retries::of(2)),
                retry_backoff_ms: Some(DelayMs::of(500)),
                lb_retry: Some(true),
                gateway_latency_ms: Some(DelayMs::of(1500)),
                response_loss_pct: Some(Percent::of(100)),
                ..FaultsPatch::default()
            },
            1.0,
        ),
        // One key twice, 50 ms apart: the crafted race.
        3 => (
            off(&[Safeguard::AtomicClaim, Safeguard::LedgerUnique]),
            FaultsPatch::default(),
            1.0,
        ),
        // One key, another body: the crafted reuse.
        4 => (
            off(&[Safeguard::FingerprintCheck]),
            FaultsPatch::default(),
            1.0,
        ),
        // A crash after the claim.
        5 => (
            off(&[Safeguard::StuckRecovery]),
            crash(&[CrashPoint::ApiAfterClaim]),
            1.0,
        ),
        // A retry after the window: the answer is lost, then 49 hours pass.
        6 => (
            off(&[Safeguard::LedgerUnique]),
            FaultsPatch {
                response_loss_pct: Some(Percent::of(100)),
                ..FaultsPatch::default()
            },
            1.0,
        ),
        // SET against INCREMENT over a lossy network.
        7 => (
            SafeguardsPatch::default(),
            FaultsPatch {
                request_loss_pct: Some(Percent::of(30)),
                response_loss_pct: Some(Percent::of(30)),
                ..FaultsPatch::default()
            },
            1.0,
        ),
        // Two Generals, then the three delivery semantics on the pipeline: at-most-once (no
        // outbox, the API dies after its commit: the event is never sent), at-least-once (the
        // relay resends after a crash, no inbox: a duplicate), effectively-once (the resend and
        // the inboxes: once).
        8 => match variant {
            Variant::AtMostOnce => (
                SafeguardsPatch::off(&[Safeguard::Outbox]),
                crash(&[CrashPoint::ApiAfterCommit]),
                1.0,
            ),
            _ => (
                off(&[Safeguard::WalletInbox, Safeguard::SmsInbox]),
                crash(&[CrashPoint::RelayAfterPublish]),
                1.0,
            ),
        },
        // The broker: a lost ack, then a fraud-check crash.
        9 => (
            off(&[Safeguard::IdempotentProducer, Safeguard::Transactions]),
            crash(&[CrashPoint::BrokerAckLost, CrashPoint::FraudBeforeCommit]),
            1.0,
        ),
        // A relay crash after publishing.
        10 => (
            off(&[Safeguard::WalletInbox, Safeguard::SmsInbox]),
            crash(&[CrashPoint::RelayAfterPublish]),
            1.0,
        ),
        // The replay trap: an inbox window shorter than the log's retention.
        11 => (
            if variant == Variant::Guarded {
                inbox_window(168)
            } else {
                inbox_window(24)
            },
            FaultsPatch::default(),
            1.0,
        ),
        // Every fault at once.
        12 => (
            off(&Safeguard::ALL),
            FaultsPatch {
                request_loss_pct: Some(Percent::of(30)),
                response_loss_pct: Some(Percent::of(30)),
                auto_retries: Some(Retries::of(2)),
                lb_retry: Some(true),
                ..crash(&CrashPoint::ALL)
            },
            1.0,
        ),
        _ => return None,
    };
    Some(Preset {
        n,
        variant,
        seed: 88_400 + u64::from(n),
        safeguards,
        faults,
        speed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_preset_is_a_valid_body_for_the_settings_it_changes() {
        for n in SCENARIOS {
            for variant in [Variant::Guarded, Variant::Unguarded, Variant::AtMostOnce] {
                let Some(p) = preset(n, variant) else {
                    assert!(variant == Variant::AtMostOnce && n != 8);
                    continue;
                };
                assert_eq!(p.n, n);
            }
        }
        assert_eq!(preset(0, Variant::Guarded), None);
        assert_eq!(preset(13, Variant::Guarded), None);
    }

    #[test]
    fn the_unguarded_variant_switches_off_what_the_scenario_is_about() {
        let safeguards = |n, v| serde_json::to_value(preset(n, v).unwrap().safeguards).unwrap();
        assert_eq!(
            safeguards(1, Variant::Unguarded),
            json!({"key_persistence": false, "idempotency_table": false})
        );
        assert_eq!(safeguards(1, Variant::Guarded), json!({}));
        assert_eq!(
            safeguards(11, Variant::Unguarded),
            json!({"inbox_window_hours": 24})
        );
    }

    #[test]
    fn a_body_names_a_variant_or_nothing() {
        let read = |body| crate::domain::typed::read_body::<ScenarioBody>(&body).map(|b| b.variant);
        assert_eq!(read(json!({})), Ok(Variant::Guarded));
        assert_eq!(
            read(json!({"variant": "unguarded"})),
            Ok(Variant::Unguarded)
        );
        assert_eq!(
            read(json!({"variant": "at_most_once"})),
            Ok(Variant::AtMostOnce)
        );
        assert_eq!(
            read(json!({"variant": "off"})).unwrap_err().field,
            "variant"
        );
        assert_eq!(
            read(json!({"varient": "guarded"})).unwrap_err().field,
            "varient"
        );
        assert!(read(json!([1])).is_err());
    }
}
