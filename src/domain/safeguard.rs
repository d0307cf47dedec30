//! The safeguards of docs/reference.md §3: one per layer that can catch a duplicate, all on by
//! default, each one an instructor can switch off to show the damage.

use serde::{Deserialize, Serialize};

#[cfg(test)]
use super::typed::read_body;
use super::typed::{bounded, patch};
use super::{FieldError, Layer};

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

/// Every safeguard, declared once: its variant and id (the patch field's name), what its setting
/// is (a switch, `bool`, or a window in hours, `WindowHours`) and its lesson value, the lane where
/// it catches its duplicates, the group its switch sits in, the safeguard it works inside, and
/// the invariant promise it upholds (server/invariants.rs). The enum, [`Safeguard::ALL`], the
/// ids, [`SafeguardsPatch`] and the switch panel's grouping all come from this table; what a
/// new safeguard takes besides is in ARCHITECTURE.md, "Adding a safeguard".
macro_rules! safeguards {
    ($(
        $variant:ident $id:ident: $setting:ident = $default:expr,
        $layer:ident, $group:ident, inside: $inside:expr, promise: $promise:expr;
    )*) => {
        /// One safeguard, by its id in docs/reference.md §3.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Safeguard {
            $($variant,)*
        }

        impl Safeguard {
            /// How many there are.
            pub const COUNT: usize = [$(stringify!($id)),*].len();

            /// All of them, in the order a transfer meets them.
            pub const ALL: [Safeguard; Safeguard::COUNT] = [$(Safeguard::$variant),*];

            /// Its id: its field in `PUT …/safeguards`, its key in the state's `safeguards`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Safeguard::$variant => stringify!($id),)*
                }
            }

            /// The timeline lane where this safeguard catches its duplicates.
            pub fn layer(self) -> Layer {
                match self {
                    $(Safeguard::$variant => Layer::$layer,)*
                }
            }

            /// The group of the switch panel its switch sits in.
            pub fn group(self) -> SwitchGroup {
                match self {
                    $(Safeguard::$variant => SwitchGroup::$group,)*
                }
            }

            /// The safeguard this one works inside, if any: the claim, the fingerprint,
            /// stuck-key recovery and the key window are all parts of the idempotency table,
            /// and do nothing while it is off.
            pub fn works_inside(self) -> Option<Safeguard> {
                use Safeguard::*;
                match self {
                    $($variant => $inside,)*
                }
            }

            /// The lesson's value: every switch on, the key window 48 h (a day of retries plus
            /// a day of margin), the inbox window equal to the log's 7-day retention.
            pub fn default_value(self) -> SafeguardValue {
                use SafeguardValue::*;
                match self {
                    $(Safeguard::$variant => $default,)*
                }
            }

            /// The invariant promise this safeguard upholds, if any: with it off (or its window
            /// too short) the promise is no longer made (server/invariants.rs).
            pub fn promise(self) -> Option<Promise> {
                use Promise::*;
                match self {
                    $(Safeguard::$variant => $promise,)*
                }
            }
        }

        patch! {
            /// A change to some safeguards: the body of `PUT …/safeguards`, a rerun's
            /// `{"safeguards": …}` input and a scenario's preset. Each field is a safeguard's id.
            pub struct SafeguardsPatch {
                $($id: $setting,)*
            }
        }

        impl SafeguardsPatch {
            /// Each safeguard, in [`Safeguard::ALL`]'s order, with what this change sets it to.
            pub fn entries(&self) -> [(Safeguard, Option<SafeguardValue>); Safeguard::COUNT] {
                [$((Safeguard::$variant, self.$id.map(Setting::value)),)*]
            }

            /// A switch's field, or `None` for a window.
            fn switch(&mut self, safeguard: Safeguard) -> Option<&mut Option<bool>> {
                match safeguard {
                    $(Safeguard::$variant => Setting::switch(&mut self.$id),)*
                }
            }

            /// A window's field, or `None` for a switch.
            fn window(&mut self, safeguard: Safeguard) -> Option<&mut Option<WindowHours>> {
                match safeguard {
                    $(Safeguard::$variant => Setting::window(&mut self.$id),)*
                }
            }
        }
    };
}

safeguards! {
    ButtonGuard button_guard: bool = On(true),
        Button, Phone, inside: None, promise: None;
    KeyPersistence key_persistence: bool = On(true),
        App, Phone, inside: None, promise: Some(OneDebitPerIntent);
    IdempotencyTable idempotency_table: bool = On(true),
        Api, Api, inside: None, promise: None;
    AtomicClaim atomic_claim: bool = On(true),
        Api, Api, inside: Some(IdempotencyTable), promise: None;
    FingerprintCheck fingerprint_check: bool = On(true),
        Api, Api, inside: Some(IdempotencyTable), promise: None;
    StuckRecovery stuck_recovery: bool = On(true),
        Api, Api, inside: Some(IdempotencyTable), promise: None;
    WindowHours window_hours: WindowHours = Hours(48),
        Api, Api, inside: Some(IdempotencyTable), promise: None;
    LedgerUnique ledger_unique: bool = On(true),
        Ledger, Ledger, inside: None, promise: Some(OneDebitPerIntent);
    Outbox outbox: bool = On(true),
        Outbox, After, inside: None, promise: Some(MoneyConserved);
    IdempotentProducer idempotent_producer: bool = On(true),
        Broker, After, inside: None, promise: None;
    Transactions transactions: bool = On(true),
        Broker, After, inside: None, promise: Some(MoneyConserved);
    WalletInbox wallet_inbox: bool = On(true),
        Wallet, After, inside: None, promise: Some(MoneyConserved);
    SmsInbox sms_inbox: bool = On(true),
        Sms, After, inside: None, promise: None;
    InboxWindowHours inbox_window_hours: WindowHours = Hours(168),
        Jobs, After, inside: None, promise: Some(MoneyConserved);
}

/// The groups of the switch panel, in the order a transfer meets them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchGroup {
    /// Shimul's phone: the button and the app's kept key.
    Phone,
    /// The payment API's idempotency table and its parts.
    Api,
    /// The ledger's UNIQUE constraint.
    Ledger,
    /// Everything after the debit: the outbox, the broker and the consumers.
    After,
}

impl SwitchGroup {
    pub const ALL: [SwitchGroup; 4] = [
        SwitchGroup::Phone,
        SwitchGroup::Api,
        SwitchGroup::Ledger,
        SwitchGroup::After,
    ];

    /// The message id of its title, also its `data-group` on the page.
    pub fn title(self) -> &'static str {
        match self {
            SwitchGroup::Phone => "switches-phone",
            SwitchGroup::Api => "switches-api",
            SwitchGroup::Ledger => "switches-ledger",
            SwitchGroup::After => "switches-after",
        }
    }

    /// Its safeguards, in the order a transfer meets them.
    pub fn members(self) -> impl Iterator<Item = Safeguard> {
        Safeguard::ALL
            .into_iter()
            .filter(move |s| s.group() == self)
    }
}

/// An invariant promise a sandbox is held to while the safeguards it rests on stay on
/// (server/invariants.rs, `Promises`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Promise {
    /// No intent is debited twice.
    OneDebitPerIntent,
    /// Once nothing is in flight, Tithi has gained exactly what Shimul lost.
    MoneyConserved,
}

/// What a patch field holds: a switch's `bool` or a window's hours.
trait Setting: Sized {
    fn value(self) -> SafeguardValue;
    fn switch(slot: &mut Option<Self>) -> Option<&mut Option<bool>>;
    fn window(slot: &mut Option<Self>) -> Option<&mut Option<WindowHours>>;
}

impl Setting for bool {
    fn value(self) -> SafeguardValue {
        SafeguardValue::On(self)
    }
    fn switch(slot: &mut Option<bool>) -> Option<&mut Option<bool>> {
        Some(slot)
    }
    fn window(_: &mut Option<bool>) -> Option<&mut Option<WindowHours>> {
        None
    }
}

impl Setting for WindowHours {
    fn value(self) -> SafeguardValue {
        SafeguardValue::Hours(self.get())
    }
    fn switch(_: &mut Option<WindowHours>) -> Option<&mut Option<bool>> {
        None
    }
    fn window(slot: &mut Option<WindowHours>) -> Option<&mut Option<WindowHours>> {
        Some(slot)
    }
}

impl Safeguard {
    pub fn from_id(id: &str) -> Option<Safeguard> {
        Safeguard::ALL.into_iter().find(|s| s.id() == id)
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

impl SafeguardsPatch {
    /// Each of these switches off (windows have no off, and are left out).
    pub fn off(guards: &[Safeguard]) -> SafeguardsPatch {
        let mut patch = SafeguardsPatch::default();
        for s in guards {
            if let Some(slot) = patch.switch(*s) {
                *slot = Some(false);
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
    fn every_safeguard_has_its_switch_in_one_group_and_the_promises_their_guards() {
        // The switch panel draws the groups in order, each with its members: together, every
        // safeguard once, in the order a transfer meets them.
        let drawn: Vec<Safeguard> = SwitchGroup::ALL
            .into_iter()
            .flat_map(|g| {
                assert!(g.members().count() > 0, "{g:?} is empty");
                g.members()
            })
            .collect();
        assert_eq!(drawn, Safeguard::ALL);
        let resting_on = |p| {
            Safeguard::ALL
                .into_iter()
                .filter(|s| s.promise() == Some(p))
                .map(Safeguard::id)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            resting_on(Promise::OneDebitPerIntent),
            ["key_persistence", "ledger_unique"]
        );
        assert_eq!(
            resting_on(Promise::MoneyConserved),
            [
                "outbox",
                "transactions",
                "wallet_inbox",
                "inbox_window_hours"
            ]
        );
        // A part works inside a safeguard of its own lane that is itself no part.
        for s in Safeguard::ALL {
            if let Some(outer) = s.works_inside() {
                assert_eq!(outer.layer(), s.layer(), "{}", s.id());
                assert_eq!(outer.works_inside(), None, "{}", s.id());
            }
        }
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
