//! The safeguards of docs/reference.md §3: one per layer that can catch a duplicate, all on by
//! default, each one an instructor can switch off to show the damage.

use serde::{Deserialize, Serialize};

use super::{boolean, expect_object, int_in, FieldError, Layer};

/// One safeguard, by its id in docs/reference.md §3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Safeguard {
    ButtonGuard,
    KeyPersistence,
    IdempotencyTable,
    AtomicClaim,
    FingerprintCheck,
    StuckRecovery,
    WindowHours,
    LedgerUnique,
    Outbox,
    IdempotentProducer,
    Transactions,
    WalletInbox,
    SmsInbox,
    InboxWindowHours,
}

/// What a safeguard's setting is: a switch, or a number of hours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SafeguardValue {
    On(bool),
    Hours(i64),
}

/// Longest window a setting accepts: a year, far past anything the lesson discusses.
pub const MAX_WINDOW_HOURS: i64 = 24 * 366;

impl Safeguard {
    /// All fourteen, in the order a transfer meets them.
    pub const ALL: [Safeguard; 14] = [
        Safeguard::ButtonGuard,
        Safeguard::KeyPersistence,
        Safeguard::IdempotencyTable,
        Safeguard::AtomicClaim,
        Safeguard::FingerprintCheck,
        Safeguard::StuckRecovery,
        Safeguard::WindowHours,
        Safeguard::LedgerUnique,
        Safeguard::Outbox,
        Safeguard::IdempotentProducer,
        Safeguard::Transactions,
        Safeguard::WalletInbox,
        Safeguard::SmsInbox,
        Safeguard::InboxWindowHours,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Safeguard::ButtonGuard => "button_guard",
            Safeguard::KeyPersistence => "key_persistence",
            Safeguard::IdempotencyTable => "idempotency_table",
            Safeguard::AtomicClaim => "atomic_claim",
            Safeguard::FingerprintCheck => "fingerprint_check",
            Safeguard::StuckRecovery => "stuck_recovery",
            Safeguard::WindowHours => "window_hours",
            Safeguard::LedgerUnique => "ledger_unique",
            Safeguard::Outbox => "outbox",
            Safeguard::IdempotentProducer => "idempotent_producer",
            Safeguard::Transactions => "transactions",
            Safeguard::WalletInbox => "wallet_inbox",
            Safeguard::SmsInbox => "sms_inbox",
            Safeguard::InboxWindowHours => "inbox_window_hours",
        }
    }

    pub fn from_id(id: &str) -> Option<Safeguard> {
        Safeguard::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The timeline lane where this safeguard catches its duplicates.
    pub fn layer(self) -> Layer {
        match self {
            Safeguard::ButtonGuard => Layer::Button,
            Safeguard::KeyPersistence => Layer::App,
            Safeguard::IdempotencyTable
            | Safeguard::AtomicClaim
            | Safeguard::FingerprintCheck
            | Safeguard::StuckRecovery
            | Safeguard::WindowHours => Layer::Api,
            Safeguard::LedgerUnique => Layer::Ledger,
            Safeguard::Outbox => Layer::Outbox,
            Safeguard::IdempotentProducer | Safeguard::Transactions => Layer::Broker,
            Safeguard::WalletInbox => Layer::Wallet,
            Safeguard::SmsInbox => Layer::Sms,
            Safeguard::InboxWindowHours => Layer::Jobs,
        }
    }

    /// The safeguard this one works inside, if any: the claim, the fingerprint, stuck-key
    /// recovery and the key window are all parts of the idempotency table, and do nothing while
    /// it is off.
    pub fn works_inside(self) -> Option<Safeguard> {
        match self {
            Safeguard::AtomicClaim
            | Safeguard::FingerprintCheck
            | Safeguard::StuckRecovery
            | Safeguard::WindowHours => Some(Safeguard::IdempotencyTable),
            _ => None,
        }
    }

    /// The lesson's value: every switch on, the key window 48 h (a day of retries plus a day of
    /// margin), the inbox window equal to the log's 7-day retention.
    pub fn default_value(self) -> SafeguardValue {
        match self {
            Safeguard::WindowHours => SafeguardValue::Hours(48),
            Safeguard::InboxWindowHours => SafeguardValue::Hours(168),
            _ => SafeguardValue::On(true),
        }
    }

    fn parse(self, value: &serde_json::Value) -> Result<SafeguardValue, FieldError> {
        match self.default_value() {
            SafeguardValue::On(_) => boolean(self.id(), value).map(SafeguardValue::On),
            SafeguardValue::Hours(_) => {
                int_in(self.id(), value, 1, MAX_WINDOW_HOURS).map(SafeguardValue::Hours)
            }
        }
    }
}

/// The setting of every safeguard in one sandbox. Serialises as `{"button_guard": true, …,
/// "window_hours": 48, …}`, the shape `PUT …/safeguards` takes and `GET …/state` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Safeguards(std::collections::BTreeMap<Safeguard, SafeguardValue>);

impl Default for Safeguards {
    fn default() -> Self {
        Safeguards(
            Safeguard::ALL
                .into_iter()
                .map(|s| (s, s.default_value()))
                .collect(),
        )
    }
}

impl Safeguards {
    pub fn get(&self, safeguard: Safeguard) -> SafeguardValue {
        self.0
            .get(&safeguard)
            .copied()
            .unwrap_or_else(|| safeguard.default_value())
    }

    /// Whether a switch is on. A window setting counts as on.
    /// Why a safeguard does nothing now although its own switch is on: the one it works inside
    /// is off (see [`Safeguard::works_inside`]).
    pub fn inactive_because(&self, safeguard: Safeguard) -> Option<Safeguard> {
        safeguard.works_inside().filter(|outer| !self.is_on(*outer))
    }

    pub fn is_on(&self, safeguard: Safeguard) -> bool {
        match self.get(safeguard) {
            SafeguardValue::On(on) => on,
            SafeguardValue::Hours(_) => true,
        }
    }

    /// A window setting in hours (the default for a switch, which has none).
    pub fn hours(&self, safeguard: Safeguard) -> i64 {
        match self.get(safeguard) {
            SafeguardValue::Hours(h) => h,
            SafeguardValue::On(_) => 0,
        }
    }

    /// The safeguards as `(id, value)` pairs in the order a transfer meets them.
    pub fn iter(&self) -> impl Iterator<Item = (Safeguard, SafeguardValue)> + '_ {
        Safeguard::ALL.into_iter().map(|s| (s, self.get(s)))
    }

    /// Validates a `PUT …/safeguards` body (any subset of ids) and returns the settings it would
    /// give, or the first bad field. `self` is untouched either way.
    pub fn patched(&self, body: &serde_json::Value) -> Result<Safeguards, FieldError> {
        let mut next = self.clone();
        for (key, value) in expect_object(body)? {
            let safeguard = Safeguard::from_id(key)
                .ok_or_else(|| FieldError::new(key.clone(), "unknown safeguard"))?;
            next.0.insert(safeguard, safeguard.parse(value)?);
        }
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_off_makes_its_four_parts_inactive_and_nothing_else() {
        let on = Safeguards::default();
        assert!(Safeguard::ALL
            .iter()
            .all(|s| on.inactive_because(*s).is_none()));
        let off = on
            .patched(&serde_json::json!({"idempotency_table": false}))
            .unwrap();
        let inactive: Vec<&str> = Safeguard::ALL
            .into_iter()
            .filter(|s| off.inactive_because(*s) == Some(Safeguard::IdempotencyTable))
            .map(Safeguard::id)
            .collect();
        assert_eq!(
            inactive,
            [
                "atomic_claim",
                "fingerprint_check",
                "stuck_recovery",
                "window_hours"
            ]
        );
    }
    use serde_json::json;

    #[test]
    fn fourteen_safeguards_all_on_by_default() {
        let s = Safeguards::default();
        assert_eq!(Safeguard::ALL.len(), 14);
        for g in Safeguard::ALL {
            assert!(s.is_on(g), "{} should start on", g.id());
            assert_eq!(Safeguard::from_id(g.id()), Some(g));
            assert_eq!(serde_json::to_value(g).unwrap(), json!(g.id()));
        }
        assert_eq!(s.hours(Safeguard::WindowHours), 48);
        assert_eq!(s.hours(Safeguard::InboxWindowHours), 168);
    }

    #[test]
    fn serialises_as_a_flat_object_of_ids() {
        let v = serde_json::to_value(Safeguards::default()).unwrap();
        assert_eq!(v["atomic_claim"], json!(true));
        assert_eq!(v["window_hours"], json!(48));
        assert_eq!(v.as_object().unwrap().len(), 14);
        let back: Safeguards = serde_json::from_value(v).unwrap();
        assert_eq!(back, Safeguards::default());
    }

    #[test]
    fn a_patch_changes_only_what_it_names() {
        let s = Safeguards::default()
            .patched(&json!({"atomic_claim": false, "window_hours": 24}))
            .unwrap();
        assert!(!s.is_on(Safeguard::AtomicClaim));
        assert_eq!(s.hours(Safeguard::WindowHours), 24);
        assert!(s.is_on(Safeguard::IdempotencyTable));
    }

    #[test]
    fn bad_patches_name_the_field() {
        let s = Safeguards::default();
        let cases = [
            (json!({"atomic_clam": false}), "atomic_clam"),
            (json!({"atomic_claim": "no"}), "atomic_claim"),
            (json!({"atomic_claim": 0}), "atomic_claim"),
            (json!({"window_hours": 0}), "window_hours"),
            (json!({"window_hours": 48.5}), "window_hours"),
            (json!({"window_hours": true}), "window_hours"),
            (json!({"inbox_window_hours": 100000}), "inbox_window_hours"),
            (json!([1, 2]), "(body)"),
        ];
        for (body, field) in cases {
            let err = s.patched(&body).unwrap_err();
            assert_eq!(err.field, field, "{body}");
        }
    }
}
