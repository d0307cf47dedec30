//! The selected event explained: what happened, what it means for the story, the guard that
//! caught it or the ones that would have, its status code in words, and the raw facts.

use crate::tr;
use leptos::prelude::*;

use super::describe::describe;
use super::row::glyph;
use crate::app::format::event_time_text;
use crate::app::i18n::{digits, num, tr_args, tr_id};
use crate::domain::explain::{status_message, Explanation};
use crate::domain::{Outcome, TimelineEvent};

/// The selected event in words: what happened, what it means for the story, the guard that
/// caught it or the one that would have, its status code in words; the raw facts folded below.
///
/// Reads best whole: the selected event explained part by part, as the panel reads.
#[component]
pub fn Details<R>(event: TimelineEvent, chain_len: usize, rewind: R) -> impl IntoView
where
    R: Fn(i64) + Clone + Send + Sync + 'static,
{
    let e = event;
    let id = e.id;
    let text = describe(&e);
    let why = Explanation::of(&e);
    let facts = serde_json::to_string_pretty(&e.details).unwrap_or_default();
    let guard_name = |g: crate::domain::Safeguard| {
        format!(
            "{} ({})",
            tr_id(&format!("safeguard-{}-name", g.id())),
            g.id()
        )
    };
    let outcome = e.outcome;
    let layer = e.layer;
    let at = e.at_ms;
    let correlation = e.correlation.clone().unwrap_or_else(|| "—".into());
    let meaning = why
        .meaning
        .map(|m| view! { <p class="explain-meaning" data-testid="event-meaning">{move || tr_id(&format!("explain-{m}"))}</p> });
    let status = why.status.map(|code| {
        view! {
            <p class="explain-status" data-testid="event-status" data-status=code>
                {move || tr_args("status-line", &[("code", digits(&code.to_string())), ("words", tr_id(&status_message(code.into())))])}
            </p>
        }
    });
    let caught = why.caught_by.map(|g| {
        view! {
            <p class="explain-guard caught" data-testid="event-guard" data-guard=g.id() data-role="caught">
                <strong>{move || tr!("explain-caught-by")}</strong> " " {move || guard_name(g)} ": "
                {move || tr_id(&format!("safeguard-{}-catches", g.id()))}
            </p>
        }
    });
    let escaped = (outcome == Outcome::Escaped).then(|| {
        let guards = why.would_catch.clone();
        let ids = guards.iter().map(|g| g.id()).collect::<Vec<_>>().join(" ");
        if guards.is_empty() {
            view! {
                <p class="explain-guard escaped" data-testid="event-guard" data-role="none">
                    {move || tr!("explain-no-switch")}
                </p>
            }
            .into_any()
        } else {
            view! {
                <div class="explain-guard escaped" data-testid="event-guard" data-guard=ids data-role="would-catch">
                    <strong>{move || tr!("explain-would-catch")}</strong>
                    <ul>
                        {guards
                            .into_iter()
                            .map(|g| view! {
                                <li>{move || guard_name(g)} ": " {move || tr_id(&format!("safeguard-{}-catches", g.id()))}</li>
                            })
                            .collect_view()}
                    </ul>
                </div>
            }
            .into_any()
        }
    });
    view! {
        <p class="details-title" data-testid="event-what">
            <span class=format!("glyph outcome-{}", outcome.id()) aria-hidden="true">{glyph(outcome)}</span>
            " " {text}
        </p>
        {meaning}
        {status}
        {caught}
        {escaped}
        <dl class="details-list">
            <dt>{move || tr!("details-time")}</dt><dd>{move || event_time_text(at)}</dd>
            <dt>{move || tr!("details-lane")}</dt><dd>{move || tr_id(&format!("layer-{}", layer.id()))}</dd>
            <dt>{move || tr!("details-outcome")}</dt><dd>{move || tr_id(&format!("outcome-{}", outcome.id()))}</dd>
            <dt>{move || tr!("details-chain")}</dt><dd><code>{correlation}</code> {move || tr!("details-chain-size", { "n" => chain_len as i64, "count" => num(chain_len as i64) })}</dd>
        </dl>
        <details class="details-facts">
            <summary>{move || tr!("details-facts")}</summary>
            <pre class="details-json">{facts}</pre>
        </details>
        <button type="button" data-testid="rewind-here" on:click=move |_| rewind(id)>{move || tr!("rewind-here")}</button>
    }
}
