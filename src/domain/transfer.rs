//! A transfer request as the payment API accepts it, and the receipt it answers with.

use serde::{Deserialize, Serialize};

use super::{expect_object, int_in, FieldError};

/// The users of every sandbox.
pub const USERS: [&str; 2] = ["shimul", "tithi"];
/// The largest transfer the API accepts, in whole taka.
pub const MAX_AMOUNT: i64 = 1_000_000;
/// The first receipt number of every sandbox: the lesson's receipt.
pub const FIRST_TXN: i64 = 88_412;
/// The longest Idempotency-Key accepted.
pub const MAX_KEY_LEN: usize = 255;

/// The atomic claim: one INSERT into today's partition whose conflict decides, never a look
/// first. The payment API runs it, and the inspector shows this same text. SQLite has no table
/// partitions, so a daily partition is the rows with one `partition_day`, and the primary key
/// includes that day, as a partitioned table's unique index must include its partition key.
pub const CLAIM_SQL: &str = "INSERT INTO idempotency_keys
   (partition_day, user_id, idem_key, request_hash, status, created_ms, updated_ms)
 VALUES (?1, ?2, ?3, ?4, 'IN_PROGRESS', ?5, ?5)
 ON CONFLICT (partition_day, user_id, idem_key) DO NOTHING";

/// What the claim reads after its INSERT, in the same transaction: the rows holding the key
/// inside the window (`?3`, the window's start), oldest first. It only reads what won: the
/// oldest row owns the key, which is today's new row unless a retry crossed midnight and an
/// earlier day's partition still holds the key. The payment API runs it, and the inspector
/// shows this same text under [`CLAIM_SQL`].
pub const CLAIM_READ_SQL: &str = "SELECT partition_day, status, request_hash, response_status,
        response_body, created_ms, updated_ms
 FROM idempotency_keys
 WHERE user_id = ?1 AND idem_key = ?2 AND created_ms >= ?3
 ORDER BY created_ms";

/// The user a bearer token stands for (`Authorization: Bearer shimul`), if it is one of the
/// sandbox's users. A stand-in for a real token: the key is scoped to this user.
pub fn user_from_authorization(header: Option<&str>) -> Option<&'static str> {
    let token = header?.trim().strip_prefix("Bearer ")?.trim();
    USERS.into_iter().find(|u| *u == token)
}

/// An Idempotency-Key as the payment API accepts it: 1 to 255 printable ASCII characters. Made
/// only by [`IdempotencyKey::parse`] (or by reading one back, which checks it the same way), so
/// every key that reaches the API's steps and its stores has been checked.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// Checks the header's value (`None`: the header was missing).
    pub fn parse(raw: Option<&str>) -> Result<IdempotencyKey, FieldError> {
        let field = "Idempotency-Key";
        let key = raw.ok_or_else(|| FieldError::new(field, "the header is required"))?;
        if key.is_empty() || key.len() > MAX_KEY_LEN {
            return Err(FieldError::new(
                field,
                format!("must be 1 to {MAX_KEY_LEN} characters, not {}", key.len()),
            ));
        }
        if !key.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
            return Err(FieldError::new(field, "must be printable ASCII"));
        }
        Ok(IdempotencyKey(key.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for IdempotencyKey {
    type Error = FieldError;

    fn try_from(key: String) -> Result<IdempotencyKey, FieldError> {
        IdempotencyKey::parse(Some(&key))
    }
}

impl From<IdempotencyKey> for String {
    fn from(key: IdempotencyKey) -> String {
        key.0
    }
}

impl std::fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The body of `POST …/transfers`: `{"to": "tithi", "amount": 500}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TransferBody {
    pub to: String,
    /// Whole taka, 1 to [`MAX_AMOUNT`].
    pub amount: i64,
}

/// A transfer addressed to its own sender. The API refuses it before anything is claimed (422
/// `self-transfer`, docs/reference.md §8), so a run that holds one cannot have been recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfTransfer;

impl TransferBody {
    /// Whether `sender` may send this body: to anyone but themself. The one place the rule is
    /// written; the payment API's edge and a run's check both ask it.
    pub fn sent_by(&self, sender: &str) -> Result<(), SelfTransfer> {
        if self.to == sender {
            Err(SelfTransfer)
        } else {
            Ok(())
        }
    }

    /// Parses and checks a body on its own: exactly `to` (a user of the sandbox) and `amount`.
    /// Whether `to` is the sender is asked apart ([`TransferBody::sent_by`]): the body's shape
    /// is 400, a transfer to oneself 422.
    pub fn parse_shape(body: &serde_json::Value) -> Result<TransferBody, FieldError> {
        let map = expect_object(body)?;
        if let Some(extra) = map.keys().find(|k| *k != "to" && *k != "amount") {
            return Err(FieldError::new(
                extra.clone(),
                "unknown field: a transfer has only to and amount",
            ));
        }
        let to = map
            .get("to")
            .ok_or_else(|| FieldError::new("to", "required"))?
            .as_str()
            .ok_or_else(|| FieldError::new("to", "expected a user name"))?;
        if !USERS.contains(&to) {
            return Err(FieldError::new("to", format!("no user called {to:?}")));
        }
        let amount = map
            .get("amount")
            .ok_or_else(|| FieldError::new("amount", "required"))?;
        Ok(TransferBody {
            to: to.to_owned(),
            amount: int_in("amount", amount, 1, MAX_AMOUNT)?,
        })
    }

    /// The body in one canonical spelling (keys sorted, no spaces), so that the same request
    /// always has the same fingerprint however the client formatted it.
    pub fn canonical(&self) -> String {
        serde_json::json!({"amount": self.amount, "to": self.to}).to_string()
    }
}

/// The 201 answer: what Shimul's phone shows as the receipt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Receipt {
    pub txn: String,
    pub from: String,
    pub to: String,
    pub amount: i64,
    /// The sender's balance after this transfer.
    pub balance: i64,
}

/// `TXN-88412`, `TXN-88413`, … for the n-th debit of a sandbox (n from 0).
pub fn txn_label(n: i64) -> String {
    format!("TXN-{}", FIRST_TXN + n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bearer_tokens_name_a_user_of_the_sandbox() {
        assert_eq!(
            user_from_authorization(Some("Bearer shimul")),
            Some("shimul")
        );
        assert_eq!(
            user_from_authorization(Some("Bearer  tithi ")),
            Some("tithi")
        );
        assert_eq!(user_from_authorization(Some("Bearer imran")), None);
        assert_eq!(user_from_authorization(Some("shimul")), None);
        assert_eq!(user_from_authorization(Some("Basic shimul")), None);
        assert_eq!(user_from_authorization(None), None);
    }

    #[test]
    fn keys_are_1_to_255_printable_ascii() {
        assert!(IdempotencyKey::parse(Some("a")).is_ok());
        assert!(IdempotencyKey::parse(Some(&"k".repeat(255))).is_ok());
        assert!(IdempotencyKey::parse(Some("7c0e2b1a-5f0e-4d6b-9a51-1c2d3e4f5a6b")).is_ok());
        for bad in [
            Some(""),
            Some(&*"k".repeat(256)),
            Some("tab\there"),
            Some("টাকা"),
            None,
        ] {
            assert_eq!(
                IdempotencyKey::parse(bad).unwrap_err().field,
                "Idempotency-Key",
                "{bad:?}"
            );
        }
    }

    #[test]
    fn bodies_are_checked_and_canonical() {
        let b = TransferBody::parse_shape(&json!({"amount": 500, "to": "tithi"})).unwrap();
        assert_eq!(b.canonical(), r#"{"amount":500,"to":"tithi"}"#);
        let cases = [
            (json!({"to": "tithi"}), "amount"),
            (json!({"amount": 500}), "to"),
            (json!({"to": "tithi", "amount": 0}), "amount"),
            (json!({"to": "tithi", "amount": -500}), "amount"),
            (json!({"to": "tithi", "amount": 500.5}), "amount"),
            (json!({"to": "tithi", "amount": "500"}), "amount"),
            (json!({"to": "tithi", "amount": 1_000_001}), "amount"),
            (json!({"to": "imran", "amount": 500}), "to"),
            (json!({"to": 7, "amount": 500}), "to"),
            (json!({"to": "tithi", "amount": 500, "note": "hi"}), "note"),
            (json!("tithi"), "(body)"),
        ];
        for (body, field) in cases {
            assert_eq!(
                TransferBody::parse_shape(&body).unwrap_err().field,
                field,
                "{body}"
            );
        }
        assert_eq!(txn_label(0), "TXN-88412");
    }

    #[test]
    fn nobody_sends_money_to_themself() {
        let to_shimul = TransferBody::parse_shape(&json!({"to": "shimul", "amount": 500})).unwrap();
        assert_eq!(to_shimul.sent_by("shimul"), Err(SelfTransfer));
        assert_eq!(to_shimul.sent_by("tithi"), Ok(()));
    }
}
