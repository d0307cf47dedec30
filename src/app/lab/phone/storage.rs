//! The app's storage: the pending transfer (the app's own, only with `key_persistence`), the
//! balance of the last receipt (the app's own, whatever the safeguards), and the lab's intent
//! marker (ground truth for the damage meter, kept whatever the app does).

use crate::domain::phone::Pending;

#[cfg(feature = "hydrate")]
fn local() -> Option<web_sys::Storage> {
    leptos::prelude::window().local_storage().ok().flatten()
}

fn pending_key(sandbox: &str) -> String {
    format!("pocketpay:{sandbox}:pending")
}

fn intent_key(sandbox: &str) -> String {
    format!("pocketpay-lab:{sandbox}:intent")
}

fn get(key: &str) -> Option<String> {
    #[cfg(feature = "hydrate")]
    {
        local()?.get_item(key).ok().flatten()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = key;
        None
    }
}

fn set(key: &str, value: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = local() {
        let _ = s.set_item(key, value);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (key, value);
}

fn remove(key: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = local() {
        let _ = s.remove_item(key);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = key;
}

fn balance_key(sandbox: &str) -> String {
    format!("pocketpay:{sandbox}:balance")
}

#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub fn load_pending(sandbox: &str) -> Option<Pending> {
    serde_json::from_str(&get(&pending_key(sandbox))?).ok()
}

/// Keeps the pending transfer; `seen` is the newest timeline event the screen had taken in
/// (see [`kept_before`]).
pub fn save_pending(sandbox: &str, p: &Pending, seen: i64) {
    if let Ok(json) = serde_json::to_string(p) {
        set(&pending_key(sandbox), &json);
        set(&seen_key(sandbox), &seen.to_string());
    }
}

/// Where the lab notes the newest timeline event its screen had taken in when the app last
/// kept something: a reset (whose event comes later) then shows the kept things as older than
/// it, even when the page that would have heard of the reset was closed at the time, as when
/// a preset is loaded by a link (`/lab?scenario=N`).
fn seen_key(sandbox: &str) -> String {
    format!("pocketpay-lab:{sandbox}:seen")
}

/// Whether what is kept for this sandbox was kept before the reset of event `reset_id` (or
/// cannot say when): then it belongs to a run that is gone, and the app starts afresh.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub fn kept_before(sandbox: &str, reset_id: i64) -> bool {
    get(&seen_key(sandbox))
        .and_then(|v| v.parse::<i64>().ok())
        .is_none_or(|seen| seen < reset_id)
}

/// Notes that the app acted while its screen had taken in timeline event `seen`, so what it
/// keeps (the pending transfer, the intent) is known to belong to the run after that event.
pub fn note_seen(sandbox: &str, seen: i64) {
    set(&seen_key(sandbox), &seen.to_string());
}

pub fn clear_pending(sandbox: &str) {
    remove(&pending_key(sandbox));
}

/// The balance of the last receipt the app received, if any.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub fn load_balance(sandbox: &str) -> Option<i64> {
    get(&balance_key(sandbox))?.parse().ok()
}

pub fn save_balance(sandbox: &str, taka: i64, seen: i64) {
    set(&balance_key(sandbox), &taka.to_string());
    set(&seen_key(sandbox), &seen.to_string());
}

/// The intent of the decision to pay now under way, made on first use.
pub fn intent(sandbox: &str) -> String {
    let key = intent_key(sandbox);
    get(&key).unwrap_or_else(|| {
        let fresh = uuid::Uuid::new_v4().to_string();
        set(&key, &fresh);
        fresh
    })
}

pub fn clear_intent(sandbox: &str) {
    remove(&intent_key(sandbox));
}

/// Forgets everything kept for this sandbox (a reset).
pub fn forget(sandbox: &str) {
    clear_pending(sandbox);
    clear_intent(sandbox);
    remove(&balance_key(sandbox));
    remove(&seen_key(sandbox));
}
