//! Shimul's PocketPay app as a state machine: what it holds in memory while it is open (the
//! transfer it keeps, the balance it was told, the requests it has out, when the button last
//! took a tap), what it does with a tap on Send, and what it makes of an answer. The phone's
//! component (`app/lab/phone/`) only wires this to the screen, browser storage and HTTP; the
//! tests below drive it as a student's thumb would.

use super::phone::{
    key_for_tap, parse_amount, AmountError, Answer, AppSignal, ConfirmedBalance, Pending,
};
use super::Receipt;

/// Taps closer together than this count as one when the button is guarded (a finger's
/// double tap), in milliseconds.
pub const DEBOUNCE_MS: f64 = 600.0;

/// The switches the app obeys (`button_guard`, `key_persistence`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppSwitches {
    pub button_guard: bool,
    pub key_persistence: bool,
}

/// What the app's screen shows below the form.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "screen", rename_all = "snake_case")]
pub enum AppScreen {
    Ready,
    Sending,
    /// The HTTP library waits before its automatic retry.
    Backoff,
    /// A pending transfer found when the app opened, its answer never received: the next tap
    /// sends it again with its own key. The app sends nothing by itself (no ghost resend).
    Unfinished,
    Receipt {
        receipt: Receipt,
        replayed: bool,
    },
    AlreadyMade,
    Refused {
        kind: String,
    },
    InProgress,
    TryLater,
    /// No answer in time: the one generic error, outcome unknown.
    Unknown,
}

impl AppScreen {
    /// The screen's name, as `data-state` shows it to tests.
    pub fn id(&self) -> &'static str {
        match self {
            AppScreen::Ready => "ready",
            AppScreen::Sending => "sending",
            AppScreen::Backoff => "backoff",
            AppScreen::Unfinished => "unfinished",
            AppScreen::Receipt { .. } => "receipt",
            AppScreen::AlreadyMade => "already-made",
            AppScreen::Refused { .. } => "refused",
            AppScreen::InProgress => "in-progress",
            AppScreen::TryLater => "try-later",
            AppScreen::Unknown => "unknown",
        }
    }

    /// The screen an answer leads to.
    pub fn after(answer: Answer) -> AppScreen {
        match answer {
            Answer::Receipt { receipt, replayed } => AppScreen::Receipt { receipt, replayed },
            Answer::AlreadyMade => AppScreen::AlreadyMade,
            Answer::Refused { kind, .. } => AppScreen::Refused { kind },
            Answer::InProgress => AppScreen::InProgress,
            Answer::TryLater => AppScreen::TryLater,
            Answer::NoAnswer => AppScreen::Unknown,
        }
    }
}

/// Shimul's phone as its screen shows it, sent from the browser that runs the app to the
/// sandbox's stream, so a read-only mirror (a projector, the instructor looking at a student's
/// lab) shows the same phone (docs/reference.md §10). Only what is on the screen: the mirror
/// runs no app.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhoneView {
    pub screen: AppScreen,
    /// The balance the app was told.
    pub balance: i64,
    /// The amount field: what was typed (`None`: untouched, the usual ৳500) or, while the
    /// field is locked to a kept transfer, that transfer's amount.
    pub amount_text: Option<String>,
    pub amount_locked: Option<i64>,
    /// Why the typed amount cannot be sent (its message id).
    pub amount_error: Option<String>,
    /// The key shown: the kept transfer's, or the last one sent.
    pub key: Option<String>,
    /// Requests sent with the kept transfer's key, while one is kept.
    pub pending_requests: Option<u32>,
    pub taps: u32,
    /// A request is out.
    pub busy: bool,
    /// The button is guarded against a tap now (`button_guard` and a request out).
    pub guarded: bool,
    /// The Send button's words (their message id).
    pub label: String,
}

impl PhoneView {
    /// A phone just opened, with nothing typed or kept.
    pub fn untouched() -> PhoneView {
        let app = AppMemory::opened(None);
        PhoneView {
            screen: AppScreen::Ready,
            balance: app.known.taka(),
            amount_text: None,
            amount_locked: None,
            amount_error: None,
            key: None,
            pending_requests: None,
            taps: 0,
            busy: false,
            guarded: false,
            label: super::phone::SendLabel::Send.message_id().to_owned(),
        }
    }

    /// The longest text field a browser may send; the rest is refused, not cut.
    pub const TEXT_MAX: usize = 200;

    /// A view from a browser, refused if a text field is too long to be a phone's.
    pub fn check(self) -> Result<PhoneView, super::FieldError> {
        let long = [
            self.amount_text.as_deref(),
            self.amount_error.as_deref(),
            self.key.as_deref(),
            Some(self.label.as_str()),
        ]
        .into_iter()
        .flatten()
        .any(|t| t.len() > Self::TEXT_MAX);
        if long {
            return Err(super::FieldError::new(
                "phone",
                format!("a phone's text fields are at most {} bytes", Self::TEXT_MAX),
            ));
        }
        Ok(self)
    }
}

/// What the screens of one sandbox share beyond its stores, kept in the server's memory only:
/// the phone as the app's browser last showed it, whether the class's instructor has locked
/// the student's controls for a demo or frozen the clock, and what they last told the class.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Presence {
    pub phone: Option<PhoneView>,
    pub locked: bool,
    /// The class's instructor froze every clock: the student's own clock controls are refused.
    #[serde(default)]
    pub frozen: bool,
    /// What the class's instructor last put on the student's screen: a chapter to open, a
    /// message.
    #[serde(default, skip_serializing_if = "super::class::Cue::is_empty")]
    pub cue: super::class::Cue,
}

/// What the app does with a tap on Send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tap {
    /// Caught at the button (a double tap, or a request still out): the lab hears of it through
    /// this signal, the server hears nothing.
    Ignored(AppSignal),
    /// The amount typed cannot be sent; nothing leaves.
    BadAmount(AmountError),
    /// A request leaves with this key and amount; `signal` tells the lab's app lane. `save`:
    /// the pending transfer goes to browser storage (`key_persistence`).
    Send {
        key: String,
        amount: i64,
        signal: AppSignal,
        save: bool,
    },
}

/// What an answer changed, for the storage beside the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answered {
    /// The balance a receipt told, when it changed what the app knew.
    pub balance: Option<i64>,
    /// The transfer's outcome is known: the pending transfer is forgotten.
    pub finished: bool,
}

/// The app's memory while it is open; closing the app loses all of it.
#[derive(Clone, Debug, PartialEq)]
pub struct AppMemory {
    /// The transfer it keeps until it knows the outcome.
    pub pending: Option<Pending>,
    /// Only what it was told: the balance of the last receipt.
    pub known: ConfirmedBalance,
    /// Requests out now (a tap's, and each automatic retry's in turn).
    pub in_flight: u32,
    /// Taps that sent something.
    pub taps: u32,
    /// The key of the last request sent, shown after the outcome too.
    pub last_key: Option<String>,
    /// When the button last took a tap (the page's clock, ms); none since the last answer,
    /// so the next tap is the user's reply to it, not the second half of a double tap.
    last_tap_ms: Option<f64>,
}

impl AppMemory {
    /// The app as it opens, with the balance its storage kept from an earlier receipt.
    pub fn opened(kept_balance: Option<i64>) -> AppMemory {
        AppMemory {
            pending: None,
            known: ConfirmedBalance::restored(kept_balance),
            in_flight: 0,
            taps: 0,
            last_key: None,
            last_tap_ms: None,
        }
    }

    /// A request of the app is out.
    pub fn busy(&self) -> bool {
        self.in_flight > 0
    }

    /// Whether the amount field is locked: the app keeps a transfer it does not know the
    /// outcome of, and its retries must carry the same amount.
    pub fn amount_locked(&self, key_persistence: bool) -> bool {
        key_persistence && self.pending.is_some()
    }

    /// A tap on Send at `now_ms`, with the amount field's text (`None`: untouched, the usual
    /// ৳500) and a fresh UUID for the key in case one is needed.
    pub fn tap(
        &mut self,
        now_ms: f64,
        switches: AppSwitches,
        amount_text: Option<&str>,
        fresh_key: String,
    ) -> Tap {
        if switches.button_guard {
            let double = self
                .last_tap_ms
                .is_some_and(|last| now_ms - last < DEBOUNCE_MS);
            if self.busy() || double {
                return Tap::Ignored(AppSignal::TapIgnored {
                    key: self.pending.as_ref().map(|p| p.key.clone()),
                });
            }
            self.last_tap_ms = Some(now_ms);
        }
        let keep = switches.key_persistence;
        let current = self.pending.take();
        let amount = match current.as_ref().filter(|_| keep) {
            Some(p) => p.amount,
            None => match parse_amount(amount_text.unwrap_or("500")) {
                Ok(a) => a,
                Err(e) => {
                    self.pending = current;
                    return Tap::BadAmount(e);
                }
            },
        };
        let key = key_for_tap(keep, current.as_ref(), fresh_key);
        let same = current.as_ref().filter(|c| c.key == key);
        self.pending = Some(Pending {
            key: key.clone(),
            to: "tithi".to_owned(),
            amount,
            requests: same.map_or(0, |c| c.requests),
        });
        self.taps += 1;
        Tap::Send {
            signal: AppSignal::Tap {
                key: key.clone(),
                key_kept: keep && same.is_some(),
            },
            key,
            amount,
            save: keep,
        }
    }

    /// A pending transfer found in storage as the app opens: kept, so the next tap sends it
    /// again with its key.
    pub fn resume(&mut self, pending: Pending) {
        self.pending = Some(pending);
    }

    /// A tap's request (or its resume) is on its way with this key.
    pub fn sending(&mut self, key: &str) {
        self.in_flight += 1;
        self.last_key = Some(key.to_owned());
    }

    /// One request with this key leaves the phone (a tap's or an automatic retry's); the
    /// pending transfer it belongs to counts it, and is returned to be saved again.
    pub fn request_leaves(&mut self, key: &str) -> Option<&Pending> {
        let p = self.pending.as_mut().filter(|p| p.key == key)?;
        p.request_leaves();
        Some(p)
    }

    /// The answer the HTTP library finally handed over (after its own retries).
    pub fn answered(&mut self, answer: &Answer) -> Answered {
        let balance = self.known.learn(answer).then(|| self.known.taka());
        self.in_flight = self.in_flight.saturating_sub(1);
        self.last_tap_ms = None;
        let finished = answer.is_final();
        if finished {
            self.pending = None;
        }
        Answered { balance, finished }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUARDED: AppSwitches = AppSwitches {
        button_guard: true,
        key_persistence: true,
    };
    const BARE: AppSwitches = AppSwitches {
        button_guard: false,
        key_persistence: false,
    };

    fn receipt(balance: i64) -> Answer {
        Answer::Receipt {
            receipt: Receipt {
                txn: "TXN-88412".into(),
                from: "shimul".into(),
                to: "tithi".into(),
                amount: 500,
                balance,
            },
            replayed: false,
        }
    }

    fn sent_key(tap: Tap) -> String {
        match tap {
            Tap::Send { key, .. } => key,
            other => panic!("expected a send, got {other:?}"),
        }
    }

    #[test]
    fn a_guarded_button_lets_a_double_tap_fall_and_a_request_out_too() {
        let mut app = AppMemory::opened(None);
        let key = sent_key(app.tap(1_000.0, GUARDED, None, "k1".into()));
        app.sending(&key);
        // 200 ms later, the finger's second tap: caught at the button, with the pending key.
        assert_eq!(
            app.tap(1_200.0, GUARDED, None, "k2".into()),
            Tap::Ignored(AppSignal::TapIgnored {
                key: Some("k1".into())
            })
        );
        // Long after, but the request is still out: caught too.
        assert!(matches!(
            app.tap(9_000.0, GUARDED, None, "k3".into()),
            Tap::Ignored(_)
        ));
        // The answer is lost; the next tap is the user's retry, however soon it comes.
        app.answered(&Answer::NoAnswer);
        let again = app.tap(9_100.0, GUARDED, None, "k4".into());
        assert_eq!(
            again,
            Tap::Send {
                key: "k1".into(),
                amount: 500,
                signal: AppSignal::Tap {
                    key: "k1".into(),
                    key_kept: true
                },
                save: true
            }
        );
        assert_eq!(app.taps, 2);
    }

    #[test]
    fn without_the_guards_every_tap_sends_a_new_transfer() {
        let mut app = AppMemory::opened(None);
        let a = sent_key(app.tap(1_000.0, BARE, None, "k1".into()));
        app.sending(&a);
        let b = app.tap(1_050.0, BARE, None, "k2".into());
        assert_eq!(
            b,
            Tap::Send {
                key: "k2".into(),
                amount: 500,
                signal: AppSignal::Tap {
                    key: "k2".into(),
                    key_kept: false
                },
                save: false
            }
        );
    }

    #[test]
    fn a_kept_transfer_is_resent_with_its_amount_and_counts_its_requests() {
        let mut app = AppMemory::opened(None);
        let key = sent_key(app.tap(0.0, GUARDED, Some("৭৫০"), "k1".into()));
        app.sending(&key);
        assert_eq!(app.request_leaves(&key).map(|p| p.requests), Some(1));
        assert_eq!(app.request_leaves("other"), None);
        app.answered(&Answer::NoAnswer);
        assert!(app.amount_locked(true));
        // Whatever the field says now, the kept transfer's amount goes again.
        match app.tap(5_000.0, GUARDED, Some("5000"), "k2".into()) {
            Tap::Send { key, amount, .. } => assert_eq!((key.as_str(), amount), ("k1", 750)),
            other => panic!("{other:?}"),
        }
        app.sending("k1");
        assert_eq!(app.request_leaves("k1").map(|p| p.requests), Some(2));
    }

    #[test]
    fn a_bad_amount_sends_nothing_and_keeps_what_was_kept() {
        let mut app = AppMemory::opened(None);
        assert_eq!(
            app.tap(0.0, BARE, Some("১২x"), "k1".into()),
            Tap::BadAmount(AmountError::NotWhole)
        );
        assert_eq!(app.pending, None);
        assert_eq!(app.taps, 0);
    }

    #[test]
    fn only_a_final_answer_ends_the_transfer_and_only_a_receipt_moves_the_balance() {
        let mut app = AppMemory::opened(Some(1_500));
        let key = sent_key(app.tap(0.0, GUARDED, None, "k1".into()));
        app.sending(&key);
        assert_eq!(
            app.answered(&Answer::InProgress),
            Answered {
                balance: None,
                finished: false
            }
        );
        assert!(app.pending.is_some());
        app.sending(&key);
        assert_eq!(
            app.answered(&receipt(1_000)),
            Answered {
                balance: Some(1_000),
                finished: true
            }
        );
        assert_eq!((app.pending.clone(), app.known.taka()), (None, 1_000));
        assert!(!app.busy());
        assert_eq!(app.last_key.as_deref(), Some("k1"));
    }

    #[test]
    fn each_answer_has_its_screen() {
        assert_eq!(AppScreen::after(Answer::NoAnswer), AppScreen::Unknown);
        assert_eq!(AppScreen::after(Answer::InProgress).id(), "in-progress");
        assert_eq!(AppScreen::after(receipt(1_500)).id(), "receipt");
    }
}
