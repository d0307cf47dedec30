//! What travels after the debit: the TransferDone event, from the outbox to the wallet and SMS.

use serde::{Deserialize, Serialize};

/// Topic the relay publishes TransferDone events to.
pub const TRANSFERS_TOPIC: &str = "transfers";
/// Topic the fraud check writes approved events to; the wallet and SMS services read it.
pub const APPROVED_TOPIC: &str = "approved-transfers";

/// The event a debit produces. `event_id` is what the inboxes deduplicate on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TransferDone {
    pub event_id: String,
    pub transfer_id: String,
    pub from: String,
    pub to: String,
    pub amount: i64,
    /// Virtual time of the debit.
    pub at: i64,
}

/// A consumer the lab can replay: `POST …/replay {"consumer": …}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Consumer {
    Fraud,
    Wallet,
    Sms,
}

impl Consumer {
    pub const ALL: [Consumer; 3] = [Consumer::Fraud, Consumer::Wallet, Consumer::Sms];

    pub fn id(self) -> &'static str {
        match self {
            Consumer::Fraud => "fraud",
            Consumer::Wallet => "wallet",
            Consumer::Sms => "sms",
        }
    }

    pub fn from_id(id: &str) -> Option<Consumer> {
        Consumer::ALL.into_iter().find(|c| c.id() == id)
    }

    /// The topic this consumer group reads.
    pub fn topic(self) -> &'static str {
        match self {
            Consumer::Fraud => TRANSFERS_TOPIC,
            Consumer::Wallet | Consumer::Sms => APPROVED_TOPIC,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consumers_read_their_topics() {
        for c in Consumer::ALL {
            assert_eq!(Consumer::from_id(c.id()), Some(c));
        }
        assert_eq!(Consumer::Fraud.topic(), "transfers");
        assert_eq!(Consumer::Sms.topic(), "approved-transfers");
        let e = TransferDone {
            event_id: "ev".into(),
            transfer_id: "tr".into(),
            from: "shimul".into(),
            to: "tithi".into(),
            amount: 500,
            at: 1,
        };
        let back: TransferDone = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
        assert_eq!(back, e);
    }
}
