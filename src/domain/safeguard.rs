//! The safeguards of docs/reference.md §3: one per layer that can catch a duplicate, all on by
//! default, each one an instructor can switch off to show the damage.

use serde::{Deserialize, Serialize};

#[cfg(test)]
use super::typed::read_body;
use super::typed::{bounded, patch};
use super::{FieldError, Layer};

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

bounded!(
    /// A key window or an inbox window, in hours: 1 to [`MAX_WINDOW_HOURS`].
    WindowHours,
    1,
    MAX_WINDOW_HOURS
);

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

    /// Why a safeguard does nothing now although its own switch is on: the one it works inside
    /// is off (see [`Safeguard::works_inside`]).
    pub fn inactive_because(&self, safeguard: Safeguard) -> Option<Safeguard> {
        safeguard.works_inside().filter(|outer| !self.is_on(*outer))
    }

    /// Whether a switch is on. A window setting counts as on.
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

    /// The settings `patch` gives: what it names changes, the rest stays.
    pub fn apply(&self, patch: &SafeguardsPatch) -> Safeguards {
        let mut next = self.clone();
        for (safeguard, value) in patch.entries() {
            if let Some(value) = value {
                next.0.insert(safeguard, value);
            }
        }
        next
    }
}

patch! {
    /// A change to some safeguards: the body of `PUT …/safeguards`, a rerun's
    /// `{"safeguards": …}` input and a scenario's preset. Each field is a safeguard's id.
    pub struct SafeguardsPatch {
        button_guard: bool,
        key_persistence: bool,
        idempotency_table: bool,
        atomic_claim: bool,
        fingerprint_check: bool,
        stuck_recovery: bool,
        window_hours: WindowHours,
        ledger_unique: bool,
        outbox: bool,
        idempotent_producer: bool,
        transactions: bool,
        wallet_inbox: bool,
        sms_inbox: bool,
        inbox_window_hours: WindowHours,
    }
}

impl SafeguardsPatch {
    /// Each safeguard, in [`Safeguard::ALL`]'s order, with what this change sets it to.
    pub fn entries(&self) -> [(Safeguard, Option<SafeguardValue>); 14] {
        let on = |v: Option<bool>| v.map(SafeguardValue::On);
        let hours = |v: Option<WindowHours>| v.map(|h| SafeguardValue::Hours(h.get()));
        [
            (Safeguard::ButtonGuard, on(self.button_guard)),
            (Safeguard::KeyPersistence, on(self.key_persistence)),
            (Safeguard::IdempotencyTable, on(self.idempotency_table)),
            (Safeguard::AtomicClaim, on(self.atomic_claim)),
            (Safeguard::FingerprintCheck, on(self.fingerprint_check)),
            (Safeguard::StuckRecovery, on(self.stuck_recovery)),
            (Safeguard::WindowHours, hours(self.window_hours)),
            (Safeguard::LedgerUnique, on(self.ledger_unique)),
            (Safeguard::Outbox, on(self.outbox)),
            (Safeguard::IdempotentProducer, on(self.idempotent_producer)),
            (Safeguard::Transactions, on(self.transactions)),
            (Safeguard::WalletInbox, on(self.wallet_inbox)),
            (Safeguard::SmsInbox, on(self.sms_inbox)),
            (Safeguard::InboxWindowHours, hours(self.inbox_window_hours)),
        ]
    }

    /// Every switch on or every switch off (the windows as they are).
    pub fn every_switch(on: bool) -> SafeguardsPatch {
        let mut patch = SafeguardsPatch::default();
        for s in Safeguard::ALL {
            if let Some(slot) = patch.switch(s) {
                *slot = Some(on);
            }
        }
        patch
    }

    /// A change to one safeguard, or why that value does not fit it (a switch given hours, a
    /// window given a switch's value or hours out of range).
    pub fn one(safeguard: Safeguard, value: SafeguardValue) -> Result<SafeguardsPatch, FieldError> {
        let mut patch = SafeguardsPatch::default();
        let wrong = |message: String| FieldError::new(safeguard.id(), message);
        match value {
            SafeguardValue::On(on) => {
                *patch
                    .switch(safeguard)
                    .ok_or_else(|| wrong("expected a number of hours".into()))? = Some(on);
            }
            SafeguardValue::Hours(hours) => {
                let hours = WindowHours::try_from(hours).map_err(|e| wrong(e.to_string()))?;
                *patch
                    .window(safeguard)
                    .ok_or_else(|| wrong("expected true or false".into()))? = Some(hours);
            }
        }
        Ok(patch)
    }

    /// A switch's field, or `None` for a window.
    fn switch(&mut self, safeguard: Safeguard) -> Option<&mut Option<bool>> {
        Some(match safeguard {
            Safeguard::ButtonGuard => &mut self.button_guard,
            Safeguard::KeyPersistence => &mut self.key_persistence,
            Safeguard::IdempotencyTable => &mut self.idempotency_table,
            Safeguard::AtomicClaim => &mut self.atomic_claim,
            Safeguard::FingerprintCheck => &mut self.fingerprint_check,
            Safeguard::StuckRecovery => &mut self.stuck_recovery,
            Safeguard::LedgerUnique => &mut self.ledger_unique,
            Safeguard::Outbox => &mut self.outbox,
            Safeguard::IdempotentProducer => &mut self.idempotent_producer,
            Safeguard::Transactions => &mut self.transactions,
            Safeguard::WalletInbox => &mut self.wallet_inbox,
            Safeguard::SmsInbox => &mut self.sms_inbox,
            Safeguard::WindowHours | Safeguard::InboxWindowHours => return None,
        })
    }

    /// A window's field, or `None` for a switch.
    fn window(&mut self, safeguard: Safeguard) -> Option<&mut Option<WindowHours>> {
        match safeguard {
            Safeguard::WindowHours => Some(&mut self.window_hours),
            Safeguard::InboxWindowHours => Some(&mut self.inbox_window_hours),
            _ => None,
        }
    }
}

/// How long a claim may stay IN_PROGRESS before stuck-key recovery resolves it.
pub const STUCK_AFTER_MS: i64 = 60_000;

/// When stuck-key recovery looks at (and frees) a key claimed at `claimed_ms` and still
/// IN_PROGRESS: just past its [`STUCK_AFTER_MS`]. The recovery job is scheduled for this moment
/// (server/payments/recovery.rs) and the phone says it to a student waiting on a 409.
pub fn stuck_freed_at(claimed_ms: i64) -> i64 {
    claimed_ms + STUCK_AFTER_MS + super::clock::SECOND_MS
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
        let off = on.apply(&read_body(&serde_json::json!({"idempotency_table": false})).unwrap());
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
            .apply(&read_body(&json!({"atomic_claim": false, "window_hours": 24})).unwrap());
        assert!(!s.is_on(Safeguard::AtomicClaim));
        assert_eq!(s.hours(Safeguard::WindowHours), 24);
        assert!(s.is_on(Safeguard::IdempotencyTable));
    }

    #[test]
    fn bad_patches_name_the_field() {
        let cases = [
            (json!({"atomic_clam": false}), "atomic_clam"),
            (json!({"atomic_claim": "no"}), "atomic_claim"),
            (json!({"atomic_claim": 0}), "atomic_claim"),
            (json!({"window_hours": 0}), "window_hours"),
            (json!({"window_hours": 48.5}), "window_hours"),
            (json!({"window_hours": true}), "window_hours"),
            (json!({"inbox_window_hours": 100000}), "inbox_window_hours"),
            (json!({"outbox": null}), "outbox"),
            (json!([1, 2]), "(body)"),
        ];
        for (body, field) in cases {
            let err = read_body::<SafeguardsPatch>(&body).unwrap_err();
            assert_eq!(err.field, field, "{body}");
        }
    }

    #[test]
    fn a_patch_names_every_safeguard_by_its_id_in_order() {
        let mut all = serde_json::Map::new();
        for s in Safeguard::ALL {
            all.insert(
                s.id().into(),
                serde_json::to_value(s.default_value()).unwrap(),
            );
        }
        let patch: SafeguardsPatch = read_body(&all.clone().into()).unwrap();
        let order: Vec<Safeguard> = patch.entries().iter().map(|(s, _)| *s).collect();
        assert_eq!(order, Safeguard::ALL);
        assert_eq!(
            serde_json::to_value(&patch).unwrap(),
            serde_json::Value::from(all)
        );
        assert_eq!(Safeguards::default().apply(&patch), Safeguards::default());
        assert!(SafeguardsPatch::one(Safeguard::Outbox, SafeguardValue::Hours(5)).is_err());
        assert!(SafeguardsPatch::one(Safeguard::WindowHours, SafeguardValue::Hours(0)).is_err());
    }
}
