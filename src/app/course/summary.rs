//! `/summary` (lesson sections 12 and 13): the path of one transfer as a single picture, from
//! the tap to the SMS, with the guard that stands at each stop and the chapter that shows it;
//! a short summary; and the seven points to remember, each linked to its live demo.

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::{digits, tr_args, tr_id};
use crate::domain::Safeguard;

/// One stop on the path: its message id, the guards that stand there, and the
/// chapter whose lab shows them.
struct Stop {
    id: &'static str,
    guards: &'static [Safeguard],
    chapter: u8,
}

const PATH: [Stop; 8] = [
    Stop {
        id: "tap",
        guards: &[Safeguard::ButtonGuard],
        chapter: 1,
    },
    Stop {
        id: "key",
        guards: &[Safeguard::KeyPersistence],
        chapter: 2,
    },
    Stop {
        id: "api",
        guards: &[
            Safeguard::IdempotencyTable,
            Safeguard::AtomicClaim,
            Safeguard::FingerprintCheck,
        ],
        chapter: 3,
    },
    Stop {
        id: "ledger",
        guards: &[Safeguard::LedgerUnique],
        chapter: 4,
    },
    Stop {
        id: "outbox",
        guards: &[Safeguard::Outbox],
        chapter: 6,
    },
    Stop {
        id: "broker",
        guards: &[Safeguard::IdempotentProducer, Safeguard::Transactions],
        chapter: 7,
    },
    Stop {
        id: "inbox",
        guards: &[Safeguard::WalletInbox],
        chapter: 8,
    },
    Stop {
        id: "sms",
        guards: &[Safeguard::SmsInbox],
        chapter: 8,
    },
];

/// The seven points to remember (lesson section 13), each with the lab link that shows it.
const REMEMBER: [&str; 7] = [
    "/lab?chapter=1",
    "/lab?chapter=2",
    "/lab?chapter=3",
    "/lab?chapter=4",
    "/lab?chapter=5",
    "/lab?chapter=6",
    "/lab?chapter=9",
];

/// The path from Shimul's tap to the SMS, a stop at a time, with the guard at each stop and
/// what it stops: the summary page's map, and the course's last screen. `links`: each stop
/// with a way into its chapter.
#[component]
pub fn GuardPath(links: bool) -> impl IntoView {
    let testid = if links { "summary-path" } else { "course-path" };
    view! {
        <ol class="path" data-testid=testid>
            {PATH
                .iter()
                .map(|s| {
                    let id = s.id;
                    let ch = s.chapter;
                    view! {
                        <li class="path-stop" data-stop=id>
                            <span class="path-name">{move || tr_id(&format!("summary-stop-{id}"))}</span>
                            <span class="path-guard">
                                {s.guards
                                    .iter()
                                    .map(|g| view! { <span class="guard-chip">{move || tr_id(&format!("safeguard-{}-name", g.id()))}</span> })
                                    .collect_view()}
                            </span>
                            <span class="path-stops">{move || tr_id(&format!("summary-stop-{id}-stops"))}</span>
                            {links.then(|| view! {
                                <a href=format!("/lab?chapter={ch}") rel="external">
                                    {move || tr_args("summary-see", &[("n", digits(&format!("{ch:02}")))])}
                                </a>
                            })}
                        </li>
                    }
                })
                .collect_view()}
        </ol>
    }
}

#[component]
pub fn SummaryPage() -> impl IntoView {
    view! {
        <div class="course-page summary-page">
            <section class="panel">
                <h1>{move || tr!("summary-title")}</h1>
                <p>{move || tr!("summary-intro")}</p>
            </section>
            <section class="panel" aria-labelledby="path-title">
                <h2 id="path-title">{move || tr!("summary-path-title")}</h2>
                <GuardPath links=true />
            </section>
            <section class="panel" aria-labelledby="summary-short-title">
                <h2 id="summary-short-title">{move || tr!("summary-short-title")}</h2>
                <p>{move || tr!("summary-short-1")}</p>
                <p>{move || tr!("summary-short-2")}</p>
                <p>{move || tr!("summary-short-3")}</p>
            </section>
            <section class="panel" aria-labelledby="remember-title">
                <h2 id="remember-title">{move || tr!("remember-title")}</h2>
                <ol class="remember">
                    {REMEMBER
                        .iter()
                        .enumerate()
                        .map(|(i, href)| {
                            let k = i + 1;
                            view! {
                                <li data-testid="remember-point" data-point=k.to_string()>
                                    <p>{move || tr_id(&format!("remember-{k}"))}</p>
                                    <a href=*href rel="external" data-testid="remember-demo">{move || tr!("remember-demo")}</a>
                                </li>
                            }
                        })
                        .collect_view()}
                </ol>
                <p>
                    <a href="/quiz">{move || tr!("summary-to-quiz")}</a>
                    " · "
                    <a href="/glossary">{move || tr!("summary-to-glossary")}</a>
                    " · "
                    <a href="/calculators">{move || tr!("summary-to-calculators")}</a>
                </p>
            </section>
        </div>
    }
}
