//! Shimul's PocketPay app as client logic: what it keeps about a transfer it has started, and
//! what it makes of each answer. The browser runs this (compiled to Wasm); tests run it here.

use serde::{Deserialize, Serialize};

use super::state::SHIMUL_OPENING;
use super::transfer::Receipt;

/// A transfer the app has started and does not yet know the outcome of. With `key_persistence`
/// on it is saved in browser storage, so closing and reopening the app resumes it with the same
/// Idempotency-Key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// The Idempotency-Key made at the confirm tap (UUID v4).
    pub key: String,
    pub to: String,
    pub amount: i64,
    /// Requests sent for it so far (taps and automatic retries), each counted as it leaves: the
    /// one in flight is included.
    pub requests: u32,
}

impl Pending {
    /// Counts one more request, at the moment it leaves the phone.
    pub fn request_leaves(&mut self) {
        self.requests = self.requests.saturating_add(1);
    }
}

/// The balance Shimul's app shows: only what it has been told. That is the balance in the last
/// receipt it received (the receipt body carries the sender's balance after the transfer), or,
/// before any, the account's opening balance. A request whose answer never came changes nothing
/// here, whatever the ledger did: the app cannot know, and the screen must not pretend to.
/// The stores' truth is for the other panels (the damage meter, the inspector, Tithi's phone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfirmedBalance(i64);

impl ConfirmedBalance {
    /// Before any receipt: the balance the lesson opens with.
    pub fn opening() -> ConfirmedBalance {
        ConfirmedBalance(SHIMUL_OPENING)
    }

    /// The balance kept from an earlier receipt (the app's storage), or the opening one.
    pub fn restored(kept: Option<i64>) -> ConfirmedBalance {
        kept.map_or_else(ConfirmedBalance::opening, ConfirmedBalance)
    }

    /// Takes in an answer and says whether it changed what the app knows. Only a receipt does;
    /// no answer, a refusal, "still in progress" or "already made" say nothing of the balance.
    pub fn learn(&mut self, answer: &Answer) -> bool {
        match answer {
            Answer::Receipt { receipt, .. } if receipt.balance != self.0 => {
                self.0 = receipt.balance;
                true
            }
            _ => false,
        }
    }

    /// The balance to show, in whole taka.
    pub fn taka(self) -> i64 {
        self.0
    }
}

/// What the Send button says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendLabel {
    /// Nothing under way: a new transfer.
    Send,
    /// A request is on its way, or waits for the HTTP library's automatic retry.
    Sending,
    /// An outcome is on screen (unknown, still in progress, try later) for a transfer the app
    /// keeps: the next tap sends it again with its key.
    SendAgain,
}

impl SendLabel {
    /// `in_flight`: a request of the app is out. `kept_unfinished`: the app keeps a transfer
    /// (with `key_persistence`) whose outcome it does not know.
    pub fn of(in_flight: bool, kept_unfinished: bool) -> SendLabel {
        if in_flight {
            SendLabel::Sending
        } else if kept_unfinished {
            SendLabel::SendAgain
        } else {
            SendLabel::Send
        }
    }

    /// The message id of the label (`locales/*/main.ftl`).
    pub fn message_id(self) -> &'static str {
        match self {
            SendLabel::Send => "send",
            SendLabel::Sending => "send-sending",
            SendLabel::SendAgain => "send-again",
        }
    }
}

/// What one HTTP answer means to the app.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    /// The money moved: a receipt (maybe the stored one, replayed).
    Receipt { receipt: Receipt, replayed: bool },
    /// The server says this exact transfer was already made (the ledger caught a repeat).
    AlreadyMade,
    /// Refused for good; nothing moved: insufficient funds, a key reused with another amount,
    /// a bad request.
    Refused { status: u16, kind: String },
    /// The same key is still being processed: the outcome is not known yet.
    InProgress,
    /// Too many requests, or the lab is busy: nothing happened, try again later.
    TryLater,
    /// No answer in time (a timeout or a 504): the phone cannot know whether money moved.
    NoAnswer,
}

impl Answer {
    /// Reads a status and body as the app's HTTP library hands them over.
    pub fn read(status: u16, body: &str, replayed: bool) -> Answer {
        let kind = || {
            serde_json::from_str::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v["type"].as_str().map(str::to_owned))
                .and_then(|t| t.rsplit(':').next().map(str::to_owned))
                .unwrap_or_default()
        };
        match status {
            200 | 201 => match serde_json::from_str::<Receipt>(body) {
                Ok(receipt) => Answer::Receipt { receipt, replayed },
                Err(_) => Answer::NoAnswer,
            },
            409 if kind() == "duplicate-transfer" => Answer::AlreadyMade,
            409 => Answer::InProgress,
            429 | 503 => Answer::TryLater,
            502 | 504 => Answer::NoAnswer,
            400..=499 => Answer::Refused {
                status,
                kind: kind(),
            },
            _ => Answer::NoAnswer,
        }
    }

    /// Whether the app now knows the transfer's outcome (and can forget its pending key).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Answer::Receipt { .. } | Answer::AlreadyMade | Answer::Refused { .. }
        )
    }

    /// Whether the HTTP library retries on its own after this answer (a timeout only: it
    /// cannot know the request failed, and resending the same request is what libraries do).
    pub fn library_retries(&self) -> bool {
        matches!(self, Answer::NoAnswer)
    }
}

/// Which key a tap sends: the pending one when the app keeps keys (`key_persistence`), a fresh
/// one per tap when it does not: then the server sees every tap as a new transfer.
pub fn key_for_tap(key_persistence: bool, pending: Option<&Pending>, fresh: String) -> String {
    match pending {
        Some(p) if key_persistence => p.key.clone(),
        _ => fresh,
    }
}

/// A whole-taka amount typed by the user, or why it cannot be sent.
pub fn parse_amount(text: &str) -> Result<i64, AmountError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(AmountError::Empty);
    }
    let ascii: String = super::ascii_digits(t)
        .chars()
        .filter(|c| *c != ',')
        .collect();
    let n: i64 = ascii.parse().map_err(|_| AmountError::NotWhole)?;
    if n < 1 {
        Err(AmountError::TooSmall)
    } else if n > super::transfer::MAX_AMOUNT {
        Err(AmountError::TooLarge)
    } else {
        Ok(n)
    }
}

/// Why an amount cannot be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmountError {
    Empty,
    NotWhole,
    TooSmall,
    TooLarge,
}

impl AmountError {
    /// The message id of the explanation (`locales/*/main.ftl`).
    pub fn message_id(self) -> &'static str {
        match self {
            AmountError::Empty => "amount-empty",
            AmountError::NotWhole => "amount-not-whole",
            AmountError::TooSmall => "amount-too-small",
            AmountError::TooLarge => "amount-too-large",
        }
    }
}

/// What the app tells the lab about a tap (`POST …/app-events`), so the button and app lanes
/// of the timeline show what happened on the phone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "signal", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSignal {
    /// A tap the app acted on, and the key its request carries: made now, or kept from an
    /// earlier attempt of the same transfer.
    Tap { key: String, key_kept: bool },
    /// A tap the guarded button let fall; `key` is the pending transfer's, if any.
    TapIgnored { key: Option<String> },
}

impl AppSignal {
    /// Reads a `POST …/app-events` body, or says which field is wrong.
    pub fn parse(body: &serde_json::Value) -> Result<AppSignal, super::FieldError> {
        let signal: AppSignal = serde_json::from_value(body.clone()).map_err(|e| {
            super::FieldError::new(
                "signal",
                format!("expected {{\"signal\": \"tap\", \"key\", \"key_kept\"}} or {{\"signal\": \"tap_ignored\", \"key\"?}}: {e}"),
            )
        })?;
        let key = match &signal {
            AppSignal::Tap { key, .. } => Some(key.as_str()),
            AppSignal::TapIgnored { key } => key.as_deref(),
        };
        if let Some(k) = key {
            super::transfer::IdempotencyKey::parse(Some(k))
                .map_err(|e| super::FieldError::new("key", e.message))?;
        }
        Ok(signal)
    }
}

/// The crafted attacks of the network panel: a buggy client, not Shimul's app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attack {
    /// Scenario 3: one key sent twice, the second 50 ms (virtual) after the first.
    Race,
    /// Scenario 4: one key sent with ৳500, then again with ৳5,000.
    ReusedKey,
}

/// One request of an attack and what came back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttackAnswer {
    pub amount: i64,
    pub at_ms: i64,
    pub status: u16,
    pub answer: Answer,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receipt_body() -> String {
        r#"{"txn":"TXN-88412","from":"shimul","to":"tithi","amount":500,"balance":1500}"#.into()
    }

    #[test]
    fn answers_read_as_the_app_understands_them() {
        assert!(matches!(
            Answer::read(201, &receipt_body(), true),
            Answer::Receipt { replayed: true, .. }
        ));
        let problem = |kind: &str| format!(r#"{{"type":"urn:pocketpay-lab:problem:{kind}"}}"#);
        assert_eq!(
            Answer::read(409, &problem("idempotency-key-in-progress"), false),
            Answer::InProgress
        );
        assert_eq!(
            Answer::read(409, &problem("duplicate-transfer"), false),
            Answer::AlreadyMade
        );
        assert_eq!(
            Answer::read(422, &problem("insufficient-funds"), false),
            Answer::Refused {
                status: 422,
                kind: "insufficient-funds".into()
            }
        );
        assert_eq!(
            Answer::read(504, &problem("no-response"), false),
            Answer::NoAnswer
        );
        assert_eq!(Answer::read(429, "", false), Answer::TryLater);
        // A success the app cannot read is no receipt: it still does not know.
        assert_eq!(Answer::read(201, "garbage", false), Answer::NoAnswer);
        assert!(Answer::NoAnswer.library_retries());
        assert!(!Answer::InProgress.library_retries());
        assert!(!Answer::InProgress.is_final());
        assert!(Answer::AlreadyMade.is_final());
    }

    #[test]
    fn the_app_shows_only_the_balance_a_receipt_told_it() {
        let mut shown = ConfirmedBalance::opening();
        assert_eq!(shown.taka(), 2_000);
        // The debit ran on the server, but its answer was lost: the app still knows ৳2,000.
        assert!(!shown.learn(&Answer::NoAnswer));
        assert!(!shown.learn(&Answer::InProgress));
        assert!(!shown.learn(&Answer::TryLater));
        assert!(!shown.learn(&Answer::AlreadyMade));
        assert!(!shown.learn(&Answer::Refused {
            status: 422,
            kind: "insufficient-funds".into()
        }));
        assert_eq!(shown.taka(), 2_000);
        // The retry's receipt (the stored one, replayed) carries the balance after the debit.
        assert!(shown.learn(&Answer::read(201, &receipt_body(), true)));
        assert_eq!(shown.taka(), 1_500);
        // The same receipt again changes nothing.
        assert!(!shown.learn(&Answer::read(201, &receipt_body(), true)));
        assert_eq!(ConfirmedBalance::restored(Some(1_000)).taka(), 1_000);
        assert_eq!(
            ConfirmedBalance::restored(None),
            ConfirmedBalance::opening()
        );
    }

    #[test]
    fn the_button_says_sending_while_a_request_is_out_and_send_again_only_after_an_outcome() {
        assert_eq!(SendLabel::of(false, false), SendLabel::Send);
        // The first tap: the transfer is kept from the moment it leaves, yet nothing came back.
        assert_eq!(SendLabel::of(true, true), SendLabel::Sending);
        assert_eq!(SendLabel::of(true, false), SendLabel::Sending);
        assert_eq!(SendLabel::of(false, true), SendLabel::SendAgain);
        assert_eq!(SendLabel::SendAgain.message_id(), "send-again");
    }

    #[test]
    fn a_request_is_counted_as_it_leaves() {
        let mut pending = Pending {
            key: "k1".into(),
            to: "tithi".into(),
            amount: 500,
            requests: 0,
        };
        pending.request_leaves();
        assert_eq!(pending.requests, 1);
    }

    #[test]
    fn a_kept_key_is_reused_and_a_lost_one_is_not() {
        let pending = Pending {
            key: "k1".into(),
            to: "tithi".into(),
            amount: 500,
            requests: 1,
        };
        assert_eq!(key_for_tap(true, Some(&pending), "k2".into()), "k1");
        assert_eq!(key_for_tap(false, Some(&pending), "k2".into()), "k2");
        assert_eq!(key_for_tap(true, None, "k2".into()), "k2");
    }

    #[test]
    fn app_signals_are_checked_like_any_input() {
        use serde_json::json;
        assert_eq!(
            AppSignal::parse(&json!({"signal": "tap", "key": "k1", "key_kept": true})).unwrap(),
            AppSignal::Tap {
                key: "k1".into(),
                key_kept: true
            }
        );
        assert_eq!(
            AppSignal::parse(&json!({"signal": "tap_ignored"})).unwrap(),
            AppSignal::TapIgnored { key: None }
        );
        for bad in [
            json!({"signal": "swipe"}),
            json!({"signal": "tap"}),
            json!({"signal": "tap", "key": "", "key_kept": false}),
            json!({"signal": "tap", "key": "k", "key_kept": false, "extra": 1}),
            json!("tap"),
        ] {
            assert!(AppSignal::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn amounts_are_whole_taka_in_either_script() {
        assert_eq!(parse_amount("500"), Ok(500));
        assert_eq!(parse_amount(" ৫০০ "), Ok(500));
        assert_eq!(parse_amount("5,000"), Ok(5_000));
        assert_eq!(parse_amount(""), Err(AmountError::Empty));
        assert_eq!(parse_amount("12.5"), Err(AmountError::NotWhole));
        assert_eq!(parse_amount("abc"), Err(AmountError::NotWhole));
        assert_eq!(parse_amount("0"), Err(AmountError::TooSmall));
        assert_eq!(parse_amount("-5"), Err(AmountError::TooSmall));
        assert_eq!(parse_amount("1000001"), Err(AmountError::TooLarge));
    }
}
