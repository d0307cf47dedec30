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
    /// Money created (positive) or destroyed (negative), in taka.
    pub money_created: i64,
    /// One ticket per damaged intent.
    pub support_tickets: i64,
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
    /// Every fault by id (PRODUCT.md section 4), `crash` a map of crash points.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub faults: Faults,
    pub balances: Balances,
    /// Every table of every store, as `"store.table": [rows…]`.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub tables: BTreeMap<String, Vec<serde_json::Value>>,
    pub damage: Damage,
}
