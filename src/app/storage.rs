//! The browser's `localStorage`, read and written only in the browser: on the server nothing is
//! stored and nothing is found, so a page renders as for a first visit and hydration finds the
//! same markup; what was saved is read in an effect afterwards.

/// The text saved under `key`, if any.
pub fn get(key: &str) -> Option<String> {
    #[cfg(feature = "hydrate")]
    {
        leptos::prelude::window()
            .local_storage()
            .ok()
            .flatten()
            .and_then(|s| s.get_item(key).ok().flatten())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = key;
        None
    }
}

/// Saves `value` under `key` (a full or blocked storage is ignored: progress is a convenience).
pub fn set(key: &str, value: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = leptos::prelude::window().local_storage().ok().flatten() {
        let _ = s.set_item(key, value);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (key, value);
}

/// Forgets what was saved under `key`.
pub fn remove(key: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = leptos::prelude::window().local_storage().ok().flatten() {
        let _ = s.remove_item(key);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = key;
}

/// The value of the cookie `name` in a `Cookie` header's text (`a=1; b=2`): how the server reads
/// a request's cookies and the browser reads `document.cookie`.
pub fn cookie_in(text: &str, name: &str) -> Option<String> {
    text.split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}
