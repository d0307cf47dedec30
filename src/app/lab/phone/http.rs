//! The app's HTTP library: one POST to the payment API, read into an [`Answer`].

use crate::domain::phone::{Answer, AppSignal};

/// Sends a transfer; a failed connection is, to the app, no answer at all.
pub async fn post_transfer(sandbox: &str, key: &str, intent: &str, amount: i64) -> Answer {
    #[cfg(feature = "hydrate")]
    {
        match browser::post(sandbox, key, intent, amount).await {
            Some((status, body, replayed)) => Answer::read(status, &body, replayed),
            None => Answer::NoAnswer,
        }
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = (sandbox, key, intent, amount);
        Answer::NoAnswer
    }
}

/// Tells the lab what the app did with a tap (the button and app lanes). Best effort: the
/// app goes on whatever the lab says.
pub async fn post_app_signal(sandbox: &str, signal: &AppSignal) {
    #[cfg(feature = "hydrate")]
    {
        let body = serde_json::to_string(signal).unwrap_or_default();
        let _ =
            browser::post_json(&format!("/api/sandboxes/{sandbox}/app-events"), &body, &[]).await;
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (sandbox, signal);
}

/// Waits `ms` of wall time.
pub async fn sleep(ms: i32) {
    #[cfg(feature = "hydrate")]
    browser::sleep(ms).await;
    #[cfg(not(feature = "hydrate"))]
    let _ = ms;
}

#[cfg(feature = "hydrate")]
mod browser {
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{Headers, Request, RequestInit, Response};

    pub async fn post(
        sandbox: &str,
        key: &str,
        intent: &str,
        amount: i64,
    ) -> Option<(u16, String, bool)> {
        let body = serde_json::json!({"to": "tithi", "amount": amount}).to_string();
        let response = post_json(
            &format!("/api/sandboxes/{sandbox}/transfers"),
            &body,
            &[
                ("Authorization", "Bearer shimul"),
                ("Idempotency-Key", key),
                ("Lab-Intent", intent),
                // The app waits as long as its own timeout, however slow or paused the
                // sandbox's clock (the API's default bound is for callers that do not say).
                ("Prefer", "wait=86400"),
            ],
        )
        .await?;
        let replayed = response
            .headers()
            .get("idempotent-replayed")
            .ok()
            .flatten()
            .is_some_and(|v| v == "true");
        let text = JsFuture::from(response.text().ok()?)
            .await
            .ok()?
            .as_string()?;
        Some((response.status(), text, replayed))
    }

    /// POSTs a JSON body with extra headers; `None` when no answer came at all.
    pub async fn post_json(url: &str, body: &str, extra: &[(&str, &str)]) -> Option<Response> {
        let headers = Headers::new().ok()?;
        headers.set("Content-Type", "application/json").ok()?;
        for (name, value) in extra {
            headers.set(name, value).ok()?;
        }
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(body));
        let request = Request::new_with_str_and_init(url, &init).ok()?;
        JsFuture::from(leptos::prelude::window().fetch_with_request(&request))
            .await
            .ok()?
            .dyn_into()
            .ok()
    }

    pub async fn sleep(ms: i32) {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            let _ = leptos::prelude::window()
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.max(0));
        });
        let _ = JsFuture::from(promise).await;
    }
}
