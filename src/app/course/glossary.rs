//! `/glossary` (lesson section 11): every term in Bangla with its English name, what it means,
//! and a link to the chapter whose lab shows it (`domain::glossary`).

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::{digits, is_bn, tr_args, tr_id};
use crate::domain::glossary::TERMS;

#[component]
pub fn GlossaryPage() -> impl IntoView {
    view! {
        <div class="course-page glossary-page">
            <section class="panel">
                <h1>{move || tr!("glossary-title")}</h1>
                <p>{move || tr!("glossary-intro")}</p>
            </section>
            <section class="panel">
                <dl class="glossary">
                    {TERMS
                        .iter()
                        .map(|t| {
                            let id = t.id;
                            let ch = t.chapter;
                            view! {
                                <div class="glossary-entry" id=format!("gloss-{id}") data-testid="glossary-term" data-term=id>
                                    <dt>
                                        <span class="term">{move || tr_id(&format!("gloss-{id}-term"))}</span>
                                        // The English name beside the Bangla one; the English
                                        // page's own term already is it.
                                        <Show when=is_bn>
                                            " "
                                            <span class="term-english" lang="en">{t.english}</span>
                                        </Show>
                                    </dt>
                                    <dd>
                                        <p>{move || tr_id(&format!("gloss-{id}-means"))}</p>
                                        <p class="hint">
                                            {move || tr_id(&format!("gloss-{id}-where"))}
                                            " "
                                            <a href=t.href() rel="external" data-testid="glossary-link">
                                                {move || tr_args("glossary-open", &[("n", digits(&format!("{ch:02}")))])}
                                            </a>
                                        </p>
                                    </dd>
                                </div>
                            }
                        })
                        .collect_view()}
                </dl>
            </section>
        </div>
    }
}
