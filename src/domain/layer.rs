//! The layers a transfer passes through: one timeline lane each (docs/reference.md §2).

use serde::{Deserialize, Serialize};

/// A lane of the timeline. `Lab` carries what the instructor did (a safeguard switched, the clock
/// jumped), so the timeline also shows why the system behaved as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    Button,
    App,
    Network,
    LoadBalancer,
    Api,
    Ledger,
    Outbox,
    Relay,
    Broker,
    Fraud,
    Wallet,
    Sms,
    Jobs,
    Lab,
}

impl Layer {
    /// Every lane, top to bottom, in the order a transfer travels.
    pub const ALL: [Layer; 14] = [
        Layer::Button,
        Layer::App,
        Layer::Network,
        Layer::LoadBalancer,
        Layer::Api,
        Layer::Ledger,
        Layer::Outbox,
        Layer::Relay,
        Layer::Broker,
        Layer::Fraud,
        Layer::Wallet,
        Layer::Sms,
        Layer::Jobs,
        Layer::Lab,
    ];

    /// The id used on the wire, in `data-layer` and in the event store.
    pub fn id(self) -> &'static str {
        match self {
            Layer::Button => "button",
            Layer::App => "app",
            Layer::Network => "network",
            Layer::LoadBalancer => "load_balancer",
            Layer::Api => "api",
            Layer::Ledger => "ledger",
            Layer::Outbox => "outbox",
            Layer::Relay => "relay",
            Layer::Broker => "broker",
            Layer::Fraud => "fraud",
            Layer::Wallet => "wallet",
            Layer::Sms => "sms",
            Layer::Jobs => "jobs",
            Layer::Lab => "lab",
        }
    }

    pub fn from_id(id: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_match_serde() {
        for layer in Layer::ALL {
            assert_eq!(Layer::from_id(layer.id()), Some(layer));
            let json = serde_json::to_string(&layer).unwrap();
            assert_eq!(json, format!("\"{}\"", layer.id()));
        }
        assert_eq!(Layer::from_id("nope"), None);
    }
}
