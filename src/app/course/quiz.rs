//! The quiz (`/quiz`, and one question at the end of each chapter): the student commits to an
//! answer, then the reveal gives the right answer, the common wrong answer and why it fails,
//! and a link that opens the lab in the preset that shows it. Answers and the score are kept
//! in this browser; a wrong answer can be tried again.

use std::collections::BTreeMap;

use crate::tr;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::app::i18n::{digits, num, tr_args, tr_id};
use crate::app::storage;
use crate::domain::quiz::{self, parse_whole, Answer, Kind, Question, QUESTIONS};

/// Where answers are kept in the browser.
const ANSWERS_KEY: &str = "pocketpay-lab:quiz";

/// One committed answer: whether it was right, and what it was (as the student gave it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Saved {
    right: bool,
    answer: String,
}

/// Every answer given in this browser, by question id; shared by the questions on a page.
#[derive(Clone, Copy)]
struct Progress(RwSignal<BTreeMap<String, Saved>>);

impl Progress {
    /// The page's progress, made (and read from storage once hydrated) on first use.
    fn get() -> Progress {
        if let Some(p) = use_context::<Progress>() {
            return p;
        }
        let p = Progress(RwSignal::new(BTreeMap::new()));
        Effect::new(move |_| {
            if let Some(saved) = storage::get(ANSWERS_KEY)
                .and_then(|text| serde_json::from_str::<BTreeMap<String, Saved>>(&text).ok())
            {
                p.0.set(saved);
            }
        });
        provide_context(p);
        p
    }

    fn update(&self, f: impl FnOnce(&mut BTreeMap<String, Saved>)) {
        self.0.update(|m| {
            f(m);
            if let Ok(text) = serde_json::to_string(m) {
                storage::set(ANSWERS_KEY, &text);
            }
        });
    }
}

/// An answer written for the page: an option's text, an order, or a number.
fn answer_text(q: &'static Question, answer: &Answer) -> String {
    match answer {
        Answer::Option(o) => tr_id(&format!("quiz-{}-o{o}", q.id)),
        Answer::Order(order) => order
            .iter()
            .map(|i| tr_id(&format!("quiz-{}-o{i}", q.id)))
            .collect::<Vec<_>>()
            .join(" → "),
        Answer::Number(n) => num(*n),
    }
}

/// The right answer, written for the page.
fn right_text(q: &'static Question) -> String {
    match q.kind {
        Kind::Choice { right, .. } | Kind::Guard { right, .. } => {
            answer_text(q, &Answer::Option(right))
        }
        Kind::Order { items, .. } => answer_text(q, &Answer::Order((1..=items).collect())),
        Kind::Number { answer } => answer_text(q, &Answer::Number(answer)),
    }
}

/// Keeps an answer as text in storage: `o3`, `x3,1,2`, `n1500`.
fn encode(answer: &Answer) -> String {
    match answer {
        Answer::Option(o) => format!("o{o}"),
        Answer::Order(order) => format!(
            "x{}",
            order
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
        Answer::Number(n) => format!("n{n}"),
    }
}

fn decode(text: &str) -> Option<Answer> {
    let (tag, rest) = text.split_at_checked(1)?;
    match tag {
        "o" => rest.parse().ok().map(Answer::Option),
        "x" => rest
            .split(',')
            .map(|i| i.parse().ok())
            .collect::<Option<Vec<u8>>>()
            .map(Answer::Order),
        "n" => rest.parse().ok().map(Answer::Number),
        _ => None,
    }
}

/// One question: think, answer, commit, then the reveal.
///
/// Reads best whole: one question as the student meets it: its choices, the answer and the
/// explanation read the same signals.
#[component]
pub fn QuizQuestion(q: &'static Question, number: usize) -> impl IntoView {
    let progress = Progress::get();
    let id = q.id;
    let saved = Memo::new(move |_| progress.0.with(|m| m.get(id).cloned()));
    let answered = move || saved.with(Option::is_some);
    let choice = RwSignal::new(None::<u8>);
    let order = RwSignal::new(q.shuffled());
    let typed = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<&'static str>);

    let commit = move |_| {
        let answer = match q.kind {
            Kind::Choice { .. } | Kind::Guard { .. } => match choice.get_untracked() {
                Some(o) => Answer::Option(o),
                None => return problem.set(Some("quiz-pick-first")),
            },
            Kind::Order { .. } => Answer::Order(order.get_untracked()),
            Kind::Number { .. } => match parse_whole(&typed.get_untracked()) {
                Some(n) => Answer::Number(n),
                None => return problem.set(Some("quiz-number-bad")),
            },
        };
        problem.set(None);
        let right = q.is_right(&answer);
        progress.update(|m| {
            m.insert(
                id.to_owned(),
                Saved {
                    right,
                    answer: encode(&answer),
                },
            );
        });
    };
    let retry = move |_| {
        choice.set(None);
        order.set(q.shuffled());
        typed.set(String::new());
        progress.update(|m| {
            m.remove(id);
        });
    };
    let right = move || saved.with(|s| s.as_ref().is_some_and(|s| s.right));
    let given = move || {
        saved.with(|s| {
            s.as_ref()
                .and_then(|s| decode(&s.answer))
                .map(|a| answer_text(q, &a))
                .unwrap_or_default()
        })
    };
    let ask_id = format!("quiz-{id}-ask-text");

    let input = match q.kind {
        Kind::Choice { options, .. } | Kind::Guard { options, .. } => view! {
            <div class="quiz-options" role="radiogroup" aria-labelledby=ask_id.clone()>
                {(1..=options)
                    .map(|o| {
                        view! {
                            <label class="quiz-option">
                                <input
                                    type="radio"
                                    name=format!("quiz-{id}")
                                    value=o.to_string()
                                    data-testid="quiz-option"
                                    data-option=o.to_string()
                                    prop:checked=move || choice.get() == Some(o)
                                    disabled=answered
                                    on:change=move |_| choice.set(Some(o))
                                />
                                <span>{move || tr_id(&format!("quiz-{id}-o{o}"))}</span>
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
        }
        .into_any(),
        Kind::Order { .. } => view! {
            <div class="quiz-order">
                <p class="hint">{move || tr!("quiz-order-hint")}</p>
                <ol>
                    <For
                        each=move || order.get().into_iter().enumerate()
                        key=|(pos, item)| (*pos, *item)
                        children=move |(pos, item)| {
                            let text = move || tr_id(&format!("quiz-{id}-o{item}"));
                            view! {
                                <li class="quiz-item" data-testid="quiz-item" data-item=item.to_string()>
                                    <span>{text}</span>
                                    <span class="quiz-moves">
                                        <button
                                            type="button"
                                            data-testid="quiz-up"
                                            disabled=move || answered() || pos == 0
                                            aria-label=move || tr_args("quiz-up", &[("item", text())])
                                            on:click=move |_| order.update(|o| o.swap(pos, pos - 1))
                                        >"↑"</button>
                                        <button
                                            type="button"
                                            data-testid="quiz-down"
                                            disabled=move || answered() || pos + 1 == order.with(Vec::len)
                                            aria-label=move || tr_args("quiz-down", &[("item", text())])
                                            on:click=move |_| order.update(|o| o.swap(pos, pos + 1))
                                        >"↓"</button>
                                    </span>
                                </li>
                            }
                        }
                    />
                </ol>
            </div>
        }
        .into_any(),
        Kind::Number { .. } => view! {
            <label class="quiz-number">
                <span>{move || tr!("quiz-number-label")}</span>
                <input
                    type="text"
                    inputmode="numeric"
                    autocomplete="off"
                    data-testid="quiz-number"
                    prop:value=move || typed.get()
                    disabled=answered
                    on:input=move |ev| typed.set(event_target_value(&ev))
                />
            </label>
        }
        .into_any(),
    };

    view! {
        <article
            class="quiz-question"
            id=format!("quiz-{id}")
            data-testid="quiz-question"
            data-id=id
            data-answered=move || answered().to_string()
            data-right=move || saved.with(|s| s.as_ref().map(|s| s.right.to_string()).unwrap_or_default())
        >
            <h3 id=ask_id.clone()>
                {(number > 0).then(|| view! { <span class="quiz-number-mark">{move || digits(&number.to_string())} ". "</span> })}
                {move || tr_id(&format!("quiz-{id}-ask"))}
            </h3>
            {input}
            <Show when=move || !answered()>
                <div class="controls">
                    <button type="button" class="primary" data-testid="quiz-check" on:click=commit>
                        {move || tr!("quiz-check")}
                    </button>
                </div>
                {move || problem.get().map(|p| view! { <p class="form-error" role="alert">{move || tr_id(p)}</p> })}
            </Show>
            <Show when=answered>
                <div class="quiz-reveal" class:right=right data-testid="quiz-reveal" role="status">
                    <p class="quiz-verdict">
                        {move || if right() { tr!("quiz-verdict-right") } else { tr!("quiz-verdict-wrong") }}
                    </p>
                    <p class="quiz-given">{move || tr!("quiz-your-answer")} " " <span>{given}</span></p>
                    <p><strong>{move || tr!("quiz-answer-label")}</strong> " " {move || right_text(q)}</p>
                    <p>{move || tr_id(&format!("quiz-{id}-right"))}</p>
                    <p class="quiz-wrong"><strong>{move || tr!("quiz-common-wrong")}</strong> " " {move || tr_id(&format!("quiz-{id}-wrong"))}</p>
                    <div class="controls">
                        <a href=q.demo_href() rel="external" data-testid="quiz-demo">{move || tr!("quiz-see-lab")}</a>
                        <button type="button" data-testid="quiz-retry" on:click=retry>{move || tr!("quiz-retry")}</button>
                    </div>
                </div>
            </Show>
        </article>
    }
}

/// The question at the end of a chapter, with a way to the whole quiz.
#[component]
pub fn ChapterQuiz(chapter: u8) -> impl IntoView {
    quiz::for_chapter(chapter).map(|q| {
        view! {
            <section class="chapter-quiz" aria-label=move || tr!("chapter-quiz-title")>
                <h3>{move || tr!("chapter-quiz-title")}</h3>
                <QuizQuestion q=q number=0 />
                <p><a href="/quiz">{move || tr!("chapter-quiz-more")}</a></p>
            </section>
        }
    })
}

/// `/quiz`: every question, by chapter, with the score so far.
#[component]
pub fn QuizPage() -> impl IntoView {
    let progress = Progress::get();
    let total = QUESTIONS.len() as i64;
    let answered = move || progress.0.with(|m| m.len()) as i64;
    let right = move || progress.0.with(|m| m.values().filter(|s| s.right).count()) as i64;
    let wrong = move || answered() - right();
    let retry_wrong = move |_| progress.update(|m| m.retain(|_, s| s.right));
    let mut number = 0;
    let chapters = crate::domain::course::CHAPTERS
        .iter()
        .map(|c| {
            let cn = c.n;
            let questions = QUESTIONS
                .iter()
                .filter(|q| q.chapter == cn)
                .map(|q| {
                    number += 1;
                    view! { <QuizQuestion q=q number=number /> }
                })
                .collect_view();
            view! {
                <section class="quiz-chapter">
                    <h2>
                        {move || tr_args("quiz-chapter", &[("n", digits(&format!("{cn:02}")))])}
                        " · "
                        {move || tr_id(&format!("ch{cn:02}-title"))}
                    </h2>
                    <p><a href=format!("/lab?chapter={cn}") rel="external">{move || tr!("quiz-open-chapter")}</a></p>
                    {questions}
                </section>
            }
        })
        .collect_view();
    view! {
        <div class="course-page quiz-page">
            <section class="panel">
                <h1>{move || tr!("quiz-title")}</h1>
                <p>{move || tr!("quiz-intro")}</p>
                <p class="quiz-score" data-testid="quiz-score" data-answered=answered data-right=right role="status">
                    {move || tr_args("quiz-score", &[("answered", num(answered())), ("total", num(total)), ("right", num(right()))])}
                </p>
                <Show when=move || { wrong() > 0 }>
                    <button type="button" data-testid="quiz-retry-wrong" on:click=retry_wrong>
                        {move || tr_args("quiz-retry-wrong", &[("n", num(wrong()))])}
                    </button>
                </Show>
                <ShareScore progress=progress />
            </section>
            {chapters}
        </div>
    }
}

/// In a class, the student may send their answers to the instructor's summary, where the
/// server marks them; nothing is sent unless they press the button, and again only when they
/// press it again. The line after shows the server's marking, not this page's count.
#[component]
fn ShareScore(progress: Progress) -> impl IntoView {
    let in_class = RwSignal::new(false);
    Effect::new(move |_| in_class.set(storage::get(crate::app::class::JOINED_KEY).is_some()));
    let share = Action::new(move |_: &()| {
        let answers: std::collections::BTreeMap<String, Answer> = progress.0.with_untracked(|m| {
            m.iter()
                .filter_map(|(id, saved)| Some((id.clone(), decode(&saved.answer)?)))
                .collect()
        });
        async move { crate::app::class::share_quiz(answers).await }
    });
    view! {
        <Show when=move || in_class.get()>
            <p class="quiz-share">
                <button type="button" data-testid="quiz-share" disabled=move || share.pending().get()
                    on:click=move |_| {
                        share.dispatch(());
                    }>
                    {move || tr!("quiz-share")}
                </button>
                " "
                <span class="hint" role="status" data-testid="quiz-shared">
                    {move || match share.value().get() {
                        Some(Ok(Some((r, a)))) => tr_args("quiz-shared", &[("right", num(i64::from(r))), ("answered", num(i64::from(a)))]),
                        Some(Ok(None)) => tr!("quiz-share-no-class"),
                        Some(Err(e)) => e.text(),
                        None => tr!("quiz-share-hint"),
                    }}
                </span>
            </p>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_kept_as_text_and_read_back() {
        for a in [
            Answer::Option(3),
            Answer::Order(vec![3, 1, 2]),
            Answer::Number(1500),
            Answer::Number(-500),
        ] {
            assert_eq!(decode(&encode(&a)), Some(a));
        }
        assert_eq!(decode(""), None);
        assert_eq!(decode("q1"), None);
        assert_eq!(decode("x1,a"), None);
    }
}
