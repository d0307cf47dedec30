//! The end of a class on its page: how many reached each chapter and step, the quiz scores
//! students shared, and the CSV.

use crate::tr;
use leptos::prelude::*;

use super::read_class_summary;
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::domain::class::ClassSummary;

/// The end of the class: how many reached each chapter, each step's completion, the quiz
/// scores students shared, and the same as a CSV file. Read when asked, then again on asking.
#[component]
pub(super) fn SummaryPanel(class: String) -> impl IntoView {
    let csv = format!("/teach/{class}/summary.csv");
    let read = Action::new(move |_: &()| read_class_summary(class.clone()));
    let summary = move || read.value().get().and_then(Result::ok);
    view! {
        <section class="panel class-summary" aria-labelledby="class-summary-title" data-testid="class-summary">
            <h2 id="class-summary-title">{move || tr!("class-summary-title")}</h2>
            <p class="hint">{move || tr!("class-summary-hint")}</p>
            <p class="class-push-row">
                <button type="button" class="button" data-testid="class-summary-open" disabled=move || read.pending().get()
                    on:click=move |_| {
                        read.dispatch(());
                    }>
                    {move || if summary().is_some() { tr!("class-summary-again") } else { tr!("class-summary-open") }}
                </button>
                <a class="button" data-testid="class-summary-csv" href=csv download="" rel="external">
                    {move || tr!("class-summary-csv")}
                </a>
            </p>
            <p class="error" role="alert">{move || read.value().get().and_then(Result::err).map(|e| e.text())}</p>
            {move || summary().map(|s| view! { <SummaryTables s /> })}
        </section>
    }
}

#[component]
pub(super) fn SummaryTables(s: ClassSummary) -> impl IntoView {
    let of = s.students.len();
    let chapters = s.chapters();
    let shared: Vec<(String, u8, u8)> = s.shared().map(|(n, r, a)| (n.to_owned(), r, a)).collect();
    let questions = crate::domain::quiz::QUESTIONS.len();
    view! {
        <div class="table-wrap">
            <table class="class-table class-reach">
                <thead>
                    <tr>
                        <th scope="col">{move || tr!("class-summary-chapter")}</th>
                        <th scope="col">{move || tr!("class-summary-reached")}</th>
                        <th scope="col">{move || tr!("class-summary-steps")}</th>
                    </tr>
                </thead>
                <tbody>
                    {chapters
                        .into_iter()
                        .map(|c| {
                            let n = c.chapter;
                            let reached = c.reached;
                            view! {
                                <tr data-testid="class-summary-chapter" data-chapter=n data-reached=reached>
                                    <th scope="row">{move || format!("{} · {}", digits(&format!("{n:02}")), tr_id(&format!("ch{n:02}-title")))}</th>
                                    <td>{move || tr_args("class-summary-of", &[("n", digits(&reached.to_string())), ("of", digits(&of.to_string()))])}</td>
                                    <td>
                                        <ol class="class-steps">
                                            {c.steps
                                                .into_iter()
                                                .enumerate()
                                                .map(|(k, done)| view! {
                                                    <li data-testid="class-summary-step" data-step=k + 1 data-done=done
                                                        title=move || format!(
                                                            "{} — {}",
                                                            tr_args("class-summary-step", &[("k", digits(&(k + 1).to_string())), ("n", digits(&done.to_string()))]),
                                                            tr_id(&format!("ch{n:02}-step{}", k + 1)),
                                                        )>
                                                        // Which step, then how many did it.
                                                        <span class="class-step-k">{digits(&(k + 1).to_string())}</span>
                                                        {digits(&done.to_string())}
                                                    </li>
                                                })
                                                .collect_view()}
                                        </ol>
                                    </td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
        <h3>{move || tr!("class-summary-quiz")}</h3>
        <p class="hint" data-testid="class-summary-shared" data-shared=shared.len()>
            {
                let n = shared.len();
                move || tr_args("class-summary-quiz-shared", &[("n", digits(&n.to_string())), ("of", digits(&of.to_string()))])
            }
        </p>
        <ul class="class-quiz">
            {shared
                .into_iter()
                .map(|(name, right, answered)| view! {
                    <li data-testid="class-summary-score" data-right=right data-answered=answered>
                        <strong>{name}</strong> " "
                        {move || tr_args("class-summary-score", &[
                            ("right", digits(&right.to_string())),
                            ("answered", digits(&answered.to_string())),
                            ("total", digits(&questions.to_string())),
                        ])}
                    </li>
                })
                .collect_view()}
        </ul>
    }
}
