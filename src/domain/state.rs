//! The snapshot `GET …/state` returns: the whole sandbox at one instant between two steps.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ClockState, Faults, Safeguards};

/// Shimul's balance when the lesson starts, in whole taka.
pub const SHIMUL_OPENING: i64 = 2_000;
/// Tithi's balance when the lesson starts.
pub const TITHI_OPENING: i64 = 0;

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
    pub debits: i64,
    /// Debits beyond the first for one intent.
    pub double_charges: i64,
    pub credits: i64,
    /// Credits beyond the first for one transfer.
    pub double_credits: i64,
    pub sms: i64,
    /// SMS beyond the first for one transfer.
    pub duplicate_sms: i64,
    /// Debits whose credit never came and whose event waits nowhere in the pipeline: nothing
    /// can bring it now.
    pub lost_events: i64,
    /// Debits not yet credited whose event is still on its way (an unsent outbox row, a record
    /// the fraud check or the wallet has not read yet): money in flight, not damage.
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
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub faults: Faults,
    pub balances: Balances,
    /// Every table of every store, as `"store.table": [rows…]`.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub tables: BTreeMap<String, Vec<serde_json::Value>>,
    pub damage: Damage,
}

impl SandboxState {
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
        },
        safeguards: Safeguards::default(),
        faults: Faults::default(),
        balances: Balances::default(),
        tables: BTreeMap::from([("lab.events".to_owned(), rows)]),
        damage: Damage::default(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn every_figure_is_read_by_its_json_name() {
        let d = Damage {
            intents: 1,
            debits: 2,
            double_charges: 3,
            credits: 4,
            double_credits: 5,
            sms: 6,
            duplicate_sms: 7,
            lost_events: 8,
            in_flight: 9,
            money_in_flight: 10,
            money_created: 11,
            support_tickets: 12,
            duplicate_approvals: 13,
            wrong_replays: 14,
            stuck_keys: 15,
        };
        let json = serde_json::to_value(&d).unwrap();
        for (id, value) in json.as_object().unwrap() {
            assert_eq!(d.figure(id), value.as_i64(), "{id}");
        }
        assert_eq!(d.figure("nothing"), None);
        for id in Damage::SHOWN {
            assert!(d.figure(id).is_some(), "{id}");
        }
    }

    #[test]
    fn harm_is_a_copy_or_a_loss_and_money_on_its_way_is_not() {
        let calm = Damage {
            intents: 1,
            debits: 1,
            in_flight: 1,
            money_in_flight: 500,
            money_created: -500,
            ..Damage::default()
        };
        assert!(!calm.harmed());
        let twice = Damage {
            double_charges: 1,
            ..calm.clone()
        };
        assert!(twice.harm("double_charges") && twice.harmed());
        assert!(!twice.harm("debits"));
    }

    /// One transfer that went through once: debited, credited, texted, approved.
    fn once() -> Damage {
        Damage {
            intents: 1,
            debits: 1,
            credits: 1,
            sms: 1,
            ..Damage::default()
        }
    }

    #[test]
    fn the_verdict_names_the_worst_thing_that_happened() {
        assert_eq!(Damage::default().verdict(), Verdict::NothingMoved);
        let unanswered = Damage {
            intents: 2,
            ..Damage::default()
        };
        assert_eq!(unanswered.verdict(), Verdict::NothingMoved, "nothing moved");
        assert_eq!(once().verdict(), Verdict::ExactlyOnce);
        let on_its_way = Damage {
            credits: 0,
            in_flight: 1,
            money_in_flight: 500,
            money_created: -500,
            ..once()
        };
        assert_eq!(on_its_way.verdict(), Verdict::InFlight);
        assert!(!on_its_way.harmed());

        // Each harm on its own, with its verdict.
        let stuck = Damage {
            stuck_keys: 1,
            ..on_its_way.clone()
        };
        assert_eq!(stuck.verdict(), Verdict::Stuck, "stuck outranks in flight");
        for figure in ["duplicate_sms", "duplicate_approvals", "wrong_replays"] {
            let mut d = Damage {
                stuck_keys: 1,
                ..once()
            };
            let json = serde_json::to_value(&d).unwrap();
            let mut json = json.as_object().unwrap().clone();
            json.insert(figure.into(), 1.into());
            d = serde_json::from_value(json.into()).unwrap();
            assert_eq!(d.verdict(), Verdict::EffectTwice, "{figure} outranks stuck");
            assert!(d.harm(figure) && d.harmed(), "{figure}");
        }
        let money = [
            Damage {
                double_charges: 1,
                debits: 2,
                money_created: -500,
                ..once()
            },
            Damage {
                double_credits: 1,
                credits: 2,
                money_created: 500,
                ..once()
            },
            Damage {
                lost_events: 1,
                credits: 0,
                money_created: -500,
                ..once()
            },
        ];
        for d in money {
            let d = Damage {
                duplicate_approvals: 1,
                wrong_replays: 1,
                stuck_keys: 1,
                in_flight: 1,
                ..d
            };
            assert_eq!(d.verdict(), Verdict::MoneyWrong, "{d:?}");
        }
    }

    #[test]
    fn verdicts_are_ranked_worst_first_and_the_first_three_are_harm() {
        let mut sorted = Verdict::ALL;
        sorted.sort();
        assert_eq!(sorted, Verdict::ALL);
        let harm: Vec<_> = Verdict::ALL.iter().filter(|v| v.is_harm()).collect();
        assert_eq!(
            harm,
            [&Verdict::MoneyWrong, &Verdict::EffectTwice, &Verdict::Stuck]
        );
        let ids: std::collections::BTreeSet<_> = Verdict::ALL.iter().map(|v| v.id()).collect();
        assert_eq!(ids.len(), Verdict::ALL.len());
    }

    #[test]
    fn an_older_meter_without_the_new_figures_still_reads() {
        let old = json!({"intents": 1, "debits": 1, "double_charges": 0, "credits": 1,
            "double_credits": 0, "sms": 1, "duplicate_sms": 0, "lost_events": 0,
            "money_created": 0, "support_tickets": 0});
        let d: Damage = serde_json::from_value(old).unwrap();
        assert_eq!(d, once());
        assert_eq!(d.verdict(), Verdict::ExactlyOnce);
    }

    use super::*;
    use crate::domain::{Safeguard, SafeguardValue};

    #[test]
    fn a_reset_the_first_state_came_after_is_no_news_when_the_stream_replays_it() {
        // The page opened after a reset (event 7) and three more events.
        let opened = state_with_log(vec![
            json!({"id": 7, "kind": "sandbox_reset"}),
            json!({"id": 8, "kind": "safeguards_changed"}),
            json!({"id": 10, "kind": "clock_changed"}),
        ]);
        assert_eq!(opened.last_event_id(), 10);
        assert_eq!(opened.last_reset_id(), Some(7));
        let mut mark = ResetMark::reflecting(&opened);
        assert!(
            !mark.take(7),
            "the replayed reset is the one the page opened after"
        );
        assert!(mark.take(11), "a reset after the page opened is news");
        assert!(
            !mark.take(11),
            "and news once: the stream and the button both report it"
        );
        assert!(mark.take(12));
    }

    #[test]
    fn a_page_with_an_empty_log_takes_any_reset_as_news() {
        let mut mark = ResetMark::reflecting(&state_with_log(vec![]));
        assert_eq!(state_with_log(vec![]).last_reset_id(), None);
        assert!(mark.take(1));
    }

    #[test]
    fn a_reset_puts_every_setting_back_to_its_default() {
        let mut s = state_with_log(vec![]);
        s.safeguards = s
            .safeguards
            .patched(&json!({"key_persistence": false, "ledger_unique": false}))
            .unwrap();
        s.faults = s
            .faults
            .patched(&json!({"response_loss_pct": 100}))
            .unwrap();
        s.balances.payments.insert("shimul".into(), 1_500);
        s.settle_reset();
        assert_eq!(
            s.safeguards.get(Safeguard::KeyPersistence),
            SafeguardValue::On(true)
        );
        assert_eq!(s.safeguards, Safeguards::default());
        assert_eq!(s.faults, Faults::default());
        assert_eq!(
            s.balances.payments["shimul"], 1_500,
            "balances wait for a read"
        );
    }
}
