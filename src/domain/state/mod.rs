//! The snapshot `GET …/state` returns: the whole sandbox at one instant between two steps.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ClockState, Faults, Safeguards};

/// Shimul's balance when the lesson starts, in whole taka.
pub const SHIMUL_OPENING: i64 = 2_000;
/// Tithi's balance when the lesson starts.
pub const TITHI_OPENING: i64 = 0;
/// The rows of each table a lab screen keeps: the newest ones, by rowid.
pub const SCREEN_ROWS: i64 = 100;

/// Balances as each service's own store derives them (never a number kept on the side).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Balances {
    /// Payment accounts: opening balance plus the sum of the ledger.
    pub payments: BTreeMap<String, i64>,
    /// Wallets: opening balance plus the credits the wallet service applied.
    pub wallet: BTreeMap<String, i64>,
}

/// The damage meter: what the duplicates cost, each figure derived from the stores.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Damage {
    /// Decisions to send money (ground truth the guards never read).
    pub intents: i64,
    /// Rows of the ledger that took money from a sender.
    pub debits: i64,
    /// Debits beyond the first for one intent.
    pub double_charges: i64,
    /// Money the wallet service put into a wallet, one per credit row.
    pub credits: i64,
    /// Credits beyond the first for one transfer.
    pub double_credits: i64,
    /// Messages the SMS service sent.
    pub sms: i64,
    /// SMS beyond the first for one transfer.
    pub duplicate_sms: i64,
    /// Debits whose credit never came and whose event waits nowhere in the pipeline: nothing
    /// can bring it now.
    pub lost_events: i64,
    /// Debits not yet credited whose event is still on its way (an unsent outbox row, a record
    /// the fraud check or the wallet has not read yet): money in flight, not damage. A request
    /// still in the network, or an API instance still at work on one, is not counted here:
    /// the clock's `busy` says whether anything at all is still on its way.
    #[serde(default)]
    pub in_flight: i64,
    /// The taka those in-flight debits carry: money on its way, not yet destroyed.
    #[serde(default)]
    pub money_in_flight: i64,
    /// Money created (positive) or destroyed (negative), in taka.
    pub money_created: i64,
    /// One ticket per damaged intent.
    pub support_tickets: i64,
    /// Fraud approvals beyond the first for one event (`fraud.audit`): a second approval of
    /// the same transfer, which no broker transaction can undo.
    #[serde(default)]
    pub duplicate_approvals: i64,
    /// Stored answers given to a request whose body differs from the one that made them (the
    /// fingerprint check off): a receipt for a transfer that never ran.
    #[serde(default)]
    pub wrong_replays: i64,
    /// Idempotency keys IN_PROGRESS that can never finish: no instance is still completing
    /// them and stuck-key recovery is off, so every retry inside the window gets 409.
    #[serde(default)]
    pub stuck_keys: i64,
}

/// The meter's headline: the worst thing that happened, in this order. Money wrong outranks
/// an effect done twice, which outranks a stuck key, which outranks money on its way; with
/// none of these, either nothing has moved yet or every effect happened exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// A debit or a credit twice, an event lost for good, or money made up or vanished.
    MoneyWrong,
    /// The money is right, yet an effect happened twice: a second fraud approval, an SMS
    /// again, a stored receipt answered to another request's body.
    EffectTwice,
    /// A key that can never finish: the customer can neither pay nor learn what happened.
    Stuck,
    /// Nothing wrong so far, and money still on its way.
    InFlight,
    /// No debit yet: nothing has happened to be right or wrong.
    NothingMoved,
    /// Every debit, credit and message happened once, nothing is lost or stuck.
    ExactlyOnce,
}

impl Verdict {
    /// Every verdict, worst first.
    pub const ALL: [Verdict; 6] = [
        Verdict::MoneyWrong,
        Verdict::EffectTwice,
        Verdict::Stuck,
        Verdict::InFlight,
        Verdict::NothingMoved,
        Verdict::ExactlyOnce,
    ];

    /// Its id, as the meter's `data-verdict` and its sentence (`damage-verdict-<id>`) name it.
    pub fn id(self) -> &'static str {
        match self {
            Verdict::MoneyWrong => "money_wrong",
            Verdict::EffectTwice => "effect_twice",
            Verdict::Stuck => "stuck",
            Verdict::InFlight => "in_flight",
            Verdict::NothingMoved => "nothing_moved",
            Verdict::ExactlyOnce => "exactly_once",
        }
    }

    /// Whether this verdict is harm: money wrong, an effect twice, or a stuck key.
    pub fn is_harm(self) -> bool {
        self <= Verdict::Stuck
    }
}

impl Damage {
    /// The meter's figures, in the order it shows them: money first, then the effects done
    /// twice, the stuck keys, and what is on its way or lost (`money_in_flight` is read with
    /// `money_created`).
    pub const SHOWN: [&'static str; 14] = [
        "intents",
        "debits",
        "double_charges",
        "credits",
        "double_credits",
        "sms",
        "duplicate_sms",
        "duplicate_approvals",
        "wrong_replays",
        "stuck_keys",
        "in_flight",
        "lost_events",
        "money_created",
        "support_tickets",
    ];

    /// Whether this figure shows harm now: money wrong, something done twice, a key stuck,
    /// or an event lost for good. Money on its way is not harm: `money_created` counts only
    /// what no later step will mend.
    pub fn harm(&self, id: &str) -> bool {
        match id {
            "double_charges" => self.double_charges != 0,
            "double_credits" => self.double_credits != 0,
            "duplicate_sms" => self.duplicate_sms != 0,
            "duplicate_approvals" => self.duplicate_approvals != 0,
            "wrong_replays" => self.wrong_replays != 0,
            "stuck_keys" => self.stuck_keys != 0,
            "lost_events" => self.lost_events != 0,
            "money_created" => self.money_created + self.money_in_flight != 0,
            "support_tickets" => self.support_tickets != 0,
            _ => false,
        }
    }

    /// The worst thing that happened (see [`Verdict`]).
    pub fn verdict(&self) -> Verdict {
        let any = |ids: &[&str]| ids.iter().any(|id| self.harm(id));
        if any(&[
            "double_charges",
            "double_credits",
            "lost_events",
            "money_created",
        ]) {
            Verdict::MoneyWrong
        } else if any(&["duplicate_sms", "duplicate_approvals", "wrong_replays"]) {
            Verdict::EffectTwice
        } else if any(&["stuck_keys"]) {
            Verdict::Stuck
        } else if self.in_flight != 0 {
            Verdict::InFlight
        } else if self.debits == 0 && self.credits == 0 {
            Verdict::NothingMoved
        } else {
            Verdict::ExactlyOnce
        }
    }

    /// Whether the meter shows harm: money wrong, an effect twice, or a stuck key.
    pub fn harmed(&self) -> bool {
        self.verdict().is_harm()
    }

    /// One figure by its JSON field name, without a round trip through JSON (a chapter reads
    /// its figures on every state read).
    pub fn figure(&self, id: &str) -> Option<i64> {
        Some(match id {
            "intents" => self.intents,
            "debits" => self.debits,
            "double_charges" => self.double_charges,
            "credits" => self.credits,
            "double_credits" => self.double_credits,
            "sms" => self.sms,
            "duplicate_sms" => self.duplicate_sms,
            "lost_events" => self.lost_events,
            "in_flight" => self.in_flight,
            "money_in_flight" => self.money_in_flight,
            "money_created" => self.money_created,
            "support_tickets" => self.support_tickets,
            "duplicate_approvals" => self.duplicate_approvals,
            "wrong_replays" => self.wrong_replays,
            "stuck_keys" => self.stuck_keys,
            _ => return None,
        })
    }
}

/// Everything about one sandbox: `GET /api/sandboxes/{id}/state`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SandboxState {
    pub id: String,
    pub seed: u64,
    pub clock: ClockState,
    /// Every safeguard by id: `true`/`false` for a switch, hours for a window.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub safeguards: Safeguards,
    /// Every fault by id (docs/reference.md §4), `crash` a map of crash points.
    pub faults: Faults,
    pub balances: Balances,
    /// Every table of every store, as `"store.table": [rows…]`.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub tables: BTreeMap<String, Vec<serde_json::Value>>,
    pub damage: Damage,
    /// Each table's rows' SQLite rowids, in the order of its rows in `tables`, as
    /// `{"store.table": [rowid, …]}`: what a change to a row ([`StateDelta`]) is matched by.
    /// Plain JSON, so the browser reads it with the code it reads the rows with (a typed map
    /// of lists costs the browser build about 3 KB of its own JSON-reading code).
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub rowids: serde_json::Value,
    /// Where this state stands in the sandbox's chain of changes: the [`StateDelta`] whose
    /// `from` is this version follows it. A fresh read carries the version current then.
    #[serde(default)]
    pub version: u64,
}

/// What changed in a sandbox since a version of its state. The event stream carries one after
/// each burst of work, so a screen follows the stores without reading them all again
/// (ARCHITECTURE.md, "The lab screen"). It is written as a state itself (the browser reads it
/// with the code it reads a state with): `changed` holds the settings, balances, damage and
/// clock as they are now, its `version` the one it leads to, and for each table with a row
/// written or deleted since `from`, the changed rows still in view and their rowids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateDelta {
    pub from: u64,
    pub changed: SandboxState,
    /// For each changed table, the rowids a fresh read would carry now (its newest
    /// [`SCREEN_ROWS`]), as runs of consecutive ids, flat: `{"store.table": [first, last,
    /// first, last, …]}`. What a copy keeps: a deleted row leaves the copy this way, and so
    /// does one SQLite removes without saying so (`INSERT OR REPLACE` takes the old row out
    /// unseen). Plain JSON, as `rowids` is.
    pub window: serde_json::Value,
}

/// Sorted rowids as runs of consecutive ones, flat (`[first, last, first, last, …]`), as a
/// [`StateDelta`]'s window carries them: a window of 100 rows is mostly one run.
pub fn runs(ids: &[i64]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for &id in ids {
        match out.last_mut() {
            Some(last) if *last + 1 == id => *last = id,
            _ => out.extend([id, id]),
        }
    }
    out
}

/// The whole numbers of a JSON list (none for anything else).
fn ints(list: Option<&serde_json::Value>) -> Vec<i64> {
    list.and_then(serde_json::Value::as_array)
        .map(|l| l.iter().filter_map(serde_json::Value::as_i64).collect())
        .unwrap_or_default()
}

impl SandboxState {
    /// Takes in `delta`, which follows this state (`delta.from == self.version`): each
    /// changed row is written in, and each changed table keeps the rows in its window. Returns
    /// `false` when the result may differ from a fresh read: a window holds a row this copy
    /// never had (an older row that came into view when a newer one left). Read the state
    /// again then.
    pub fn apply(&mut self, delta: &StateDelta) -> bool {
        let now = &delta.changed;
        self.version = now.version;
        self.clock = now.clock;
        self.safeguards = now.safeguards.clone();
        self.faults = now.faults.clone();
        self.balances = now.balances.clone();
        self.damage = now.damage.clone();
        let mut complete = true;
        let Some(windows) = delta.window.as_object() else {
            return false;
        };
        for (table, window) in windows {
            let rows = self.tables.entry(table.clone()).or_default();
            let mut ids = ints(self.rowids.get(table));
            if ids.len() != rows.len() {
                complete = false;
                continue;
            }
            let changed_ids = ints(now.rowids.get(table));
            if let Some(changed_rows) = now.tables.get(table) {
                for (rowid, row) in changed_ids.iter().zip(changed_rows) {
                    match ids.binary_search(rowid) {
                        Ok(i) => rows[i] = row.clone(),
                        Err(i) => {
                            ids.insert(i, *rowid);
                            rows.insert(i, row.clone());
                        }
                    }
                }
            }
            let window = ints(Some(window));
            let runs: Vec<(i64, i64)> = window.chunks(2).map(|r| (r[0], r[r.len() - 1])).collect();
            let in_view = |id: i64| runs.iter().any(|&(a, b)| (a..=b).contains(&id));
            let mut kept = 0;
            let mut i = 0;
            while i < ids.len() {
                if in_view(ids[i]) {
                    kept += 1;
                    i += 1;
                } else {
                    ids.remove(i);
                    rows.remove(i);
                }
            }
            let wanted: i64 = runs.iter().map(|&(a, b)| b - a + 1).sum();
            complete &= kept as i64 == wanted;
            match &mut self.rowids {
                serde_json::Value::Object(map) => {
                    map.insert(table.clone(), ids.into());
                }
                other => *other = serde_json::json!({ table.clone(): ids }),
            }
        }
        complete
    }

    /// The id of the newest timeline event this state already reflects, read from its copy of
    /// the event log (`lab.events`); 0 when that copy is empty.
    pub fn last_event_id(&self) -> i64 {
        self.log_ids(|_| true).max().unwrap_or(0)
    }

    /// The id of the newest reset in this state's copy of the event log, if it is in view.
    pub fn last_reset_id(&self) -> Option<i64> {
        self.log_ids(|row| row["kind"] == "sandbox_reset").max()
    }

    /// Puts the settings where the instructor's reset puts them: every safeguard and every fault
    /// at its default. Balances and tables wait for the next read.
    pub fn settle_reset(&mut self) {
        self.safeguards = Safeguards::default();
        self.faults = Faults::default();
    }

    fn log_ids<'a>(
        &'a self,
        keep: impl Fn(&serde_json::Value) -> bool + 'a,
    ) -> impl Iterator<Item = i64> + 'a {
        self.tables
            .get("lab.events")
            .into_iter()
            .flatten()
            .filter(move |row| keep(row))
            .filter_map(|row| row["id"].as_i64())
    }
}

/// The resets a screen has taken in, by the id of their event. A reset is news once, however
/// often it is heard of: an event stream opened without `Last-Event-ID` replays the log from
/// its start, the reset the page's first state already came after included, and this screen's
/// own reset button hears of its reset from the server function as well as from the stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResetMark {
    /// Resets with an event id up to this one are already reflected.
    reflected: i64,
}

impl ResetMark {
    /// A screen whose state reflects every event up to `state`'s newest.
    pub fn reflecting(state: &SandboxState) -> ResetMark {
        ResetMark {
            reflected: state.last_event_id(),
        }
    }

    /// Takes in the reset of event `reset_id`: whether it is news, a reset the screen has not
    /// yet acted on (and must now: forget what it kept, and the settings it held).
    pub fn take(&mut self, reset_id: i64) -> bool {
        let news = reset_id > self.reflected;
        self.reflected = self.reflected.max(reset_id);
        news
    }
}

/// A sandbox at the lesson's start whose event log copy holds `rows`: for unit tests of code
/// that reads a state.
#[cfg(test)]
pub(crate) fn state_with_log(rows: Vec<serde_json::Value>) -> SandboxState {
    SandboxState {
        id: "s".into(),
        seed: 1,
        clock: ClockState {
            now_ms: 0,
            mode: crate::domain::ClockMode::Paused,
            speed: 1.0,
            next_due_ms: None,
            busy: false,
            report: 0,
        },
        safeguards: Safeguards::default(),
        faults: Faults::default(),
        balances: Balances::default(),
        rowids: serde_json::json!({
            "lab.events": rows.iter().filter_map(|r| r["id"].as_i64()).collect::<Vec<_>>(),
        }),
        tables: BTreeMap::from([("lab.events".to_owned(), rows)]),
        damage: Damage::default(),
        version: 0,
    }
}

#[cfg(test)]
mod tests;
