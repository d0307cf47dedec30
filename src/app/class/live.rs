//! What the class page and the projector page both draw live: the class in numbers, the counts
//! per chapter, and the feed that keeps them current.

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::{digits, tr_args};
use crate::domain::class::Totals;

/// Follows a class's live feed (`event: class`, each a `T`); the browser reconnects by
/// itself after a drop.
#[cfg(feature = "hydrate")]
pub fn follow<T: serde::de::DeserializeOwned + 'static>(
    url: &str,
    take: impl Fn(T) + 'static,
    live: RwSignal<bool>,
) {
    use send_wrapper::SendWrapper;
    use wasm_bindgen::prelude::*;
    use web_sys::{EventSource, MessageEvent};
    let Ok(source) = EventSource::new(url) else {
        return;
    };
    let on_view = Closure::<dyn Fn(MessageEvent)>::new(move |m: MessageEvent| {
        if let Some(v) = m
            .data()
            .as_string()
            .and_then(|s| serde_json::from_str::<T>(&s).ok())
        {
            take(v);
        }
    });
    let on_open = Closure::<dyn Fn()>::new(move || live.set(true));
    let on_error = Closure::<dyn Fn()>::new(move || live.set(false));
    let _ = source.add_event_listener_with_callback("class", on_view.as_ref().unchecked_ref());
    source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let held = SendWrapper::new((source, on_view, on_open, on_error));
    on_cleanup(move || {
        let (source, ..) = &*held;
        source.close();
    });
}

/// The class in numbers, no names, large enough to project: who joined, and how many met
/// each kind of harm (as the server last read their meters), following the class's stream.
#[component]
pub fn ClassTotals(totals: Signal<Totals>) -> impl IntoView {
    let line = move |kind: &'static str, count: fn(&Totals) -> usize| {
        view! {
            <li class="class-total" data-testid="class-total" data-kind=kind data-count=move || count(&totals.get()).to_string()>
                <span class="class-total-n">{move || digits(&count(&totals.get()).to_string())}</span>
                <span class="class-total-what">{move || {
                    let of = digits(&totals.get().joined.to_string());
                    tr_args(&format!("class-total-{kind}"), &[("of", of)])
                }}</span>
            </li>
        }
    };
    view! {
        <section class="panel class-totals" aria-labelledby="class-totals-title" data-testid="class-totals">
            <h2 id="class-totals-title">{move || tr!("class-totals-title")}</h2>
            <ul class="class-total-list">
                {line("joined", |t| t.joined)}
                {line("charged_twice", |t| t.charged_twice)}
                {line("credited_twice", |t| t.credited_twice)}
                {line("lost", |t| t.lost)}
                {line("stuck", |t| t.stuck)}
            </ul>
        </section>
    }
}

/// How many students are in each chapter (and in none yet), the chapters nobody is in left
/// out.
#[component]
pub fn ChapterCounts(counts: Signal<[usize; 10]>) -> impl IntoView {
    view! {
        <ul class="class-counts" data-testid="class-counts">
            {move || {
                counts
                    .get()
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(|(i, n)| {
                        let label = if i == 0 {
                            tr!("class-count-none")
                        } else {
                            tr_args("class-count-chapter", &[("n", digits(&format!("{i:02}")))])
                        };
                        view! {
                            <li data-testid="class-count" data-chapter=i.to_string() data-count=n.to_string()>
                                <span>{label}</span>" "<strong>{digits(&n.to_string())}</strong>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}
