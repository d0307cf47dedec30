//! `/glossary` (lesson section 11): every term in Bangla with its English name, what it means,
//! and a link to the chapter whose lab shows it (`domain::glossary`).

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::{digits, is_bn, tr_args, tr_id, tr_in};
use crate::domain::glossary::{matches, TERMS};

/// The search's few lines of script: the page is sent without the app's code (app/mod.rs,
/// `SERVER_ONLY`), so the field filters the entries itself as one types, by the words each
/// entry carries in `data-words` (both languages' names) and on the page, and keeps the query
/// in the address for a reload or a link. Without script, the form asks the server (`?q=`).
const SEARCH_SCRIPT: &str = r#"(function(){var f=document.getElementById('glossary-search'),c=document.getElementById('glossary-count');if(!f)return;function n(t){return t.normalize('NFC').toLowerCase()}function run(){var q=n(f.value.trim()),k=0;document.querySelectorAll('[data-testid="glossary-term"]').forEach(function(e){var hit=!q||n((e.getAttribute('data-words')||'')+' '+e.textContent).indexOf(q)>=0;e.hidden=!hit;if(hit)k++});c.textContent=c.getAttribute(k?'data-some':'data-none').replace('#',k);c.setAttribute('data-count',k);history.replaceState(null,'',q?'?q='+encodeURIComponent(f.value.trim()):location.pathname)}f.addEventListener('input',run);f.form.addEventListener('submit',function(e){e.preventDefault();run()});if(f.value)run()})();"#;

/// Reads best whole: the glossary in the order the page reads.
#[component]
pub fn GlossaryPage() -> impl IntoView {
    let query = leptos_router::hooks::use_query_map();
    let q = query.with_untracked(|m| m.get("q")).unwrap_or_default();
    let q = q.trim().chars().take(80).collect::<String>();
    let found = |t: &crate::domain::glossary::Term| {
        let page = [
            tr_id(&format!("gloss-{}-means", t.id)),
            tr_id(&format!("gloss-{}-where", t.id)),
        ];
        matches(
            &format!("{} {}", words(t).unwrap_or_default(), page.join(" ")),
            &q,
        )
    };
    let shown = TERMS.iter().filter(|t| found(t)).count();
    let count = move || {
        if shown == 0 {
            tr!("glossary-none")
        } else {
            tr_args("glossary-count", &[("n", digits(&shown.to_string()))])
        }
    };
    view! {
        <div class="course-page glossary-page">
            <section class="panel">
                <h1>{move || tr!("glossary-title")}</h1>
                <p>{move || tr!("glossary-intro")}</p>
                <form class="glossary-search" method="get" action="/glossary" role="search">
                    <label for="glossary-search">{move || tr!("glossary-search")}</label>
                    <input
                        id="glossary-search"
                        name="q"
                        type="search"
                        data-testid="glossary-search"
                        value=q.clone()
                        autocomplete="off"
                        placeholder=move || tr!("glossary-search-hint")
                    />
                    <p
                        id="glossary-count"
                        class="hint"
                        role="status"
                        data-testid="glossary-count"
                        data-count=shown
                        data-some=move || tr_args("glossary-count", &[("n", "#".to_owned())])
                        data-none=move || tr!("glossary-none")
                    >
                        {count}
                    </p>
                </form>
            </section>
            <section class="panel">
                <dl class="glossary">
                    {TERMS
                        .iter()
                        .map(|t| {
                            let id = t.id;
                            let ch = t.chapter;
                            let hidden = !found(t);
                            let words = words(t);
                            view! {
                                <div class="glossary-entry" id=format!("gloss-{id}") data-testid="glossary-term" data-term=id data-words=words hidden=hidden>
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
            <script nonce=leptos::nonce::use_nonce() inner_html=SEARCH_SCRIPT></script>
        </div>
    }
}

/// What a term is found by in the other script, beside the words on the page: on the English
/// page its Bangla name (the Bangla page shows the English name beside each term already).
fn words(t: &crate::domain::glossary::Term) -> Option<String> {
    let lang = crate::app::i18n::i18n().language.get_untracked();
    (lang != crate::app::i18n::Lang::Bn)
        .then(|| tr_in(lang.other(), &format!("gloss-{}-term", t.id)))
}
