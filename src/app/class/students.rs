//! A student's row on the class page: where they are, their meter's verdict, their last event,
//! and the ways to rename or remove the row.

use crate::tr;
use leptos::prelude::*;

use super::{class_remove, class_rename};
use crate::app::error::FnError;
use crate::app::i18n::{digits, tr_args, tr_id};
use crate::domain::class::StudentRow;

/// One student's row: name, chapter and step, the verdict of their meter, their last event
/// in words, minutes since their last step, and the links to watch, rename or remove them.
#[component]
pub(super) fn StudentLine(
    s: StudentRow,
    class: String,
    now: Signal<i64>,
    renaming: Renaming,
) -> impl IntoView {
    let open = format!("/teach/{class}/students/{}/open", s.sandbox);
    let class_for_remove = class.clone();
    let class_for_rename = class.clone();
    let name_for_open = s.name.clone();
    let (chapter, done, total) = match s.progress {
        Some(p) => (p.chapter, p.steps_done, p.steps_total()),
        None => (0, 0, 0),
    };
    let since_ms = s.progress_ms;
    let row = s.clone();
    let stuck = Signal::derive(move || row.stuck(now.get()));
    let where_text = move || match s.progress {
        Some(_) => tr_args(
            "class-where",
            &[
                ("n", digits(&format!("{chapter:02}"))),
                ("done", digits(&done.to_string())),
                ("total", digits(&total.to_string())),
            ],
        ),
        None => tr!("class-where-none"),
    };
    let harm = s.harm;
    let last = s.last_event.clone();
    view! {
        <tr
            data-testid="class-student"
            data-name=s.name.clone()
            data-chapter=chapter.to_string()
            data-steps-done=done.to_string()
            data-damage=harm.id()
            data-stuck=move || stuck.get().to_string()
            class:stuck=move || stuck.get()
        >
            <th scope="row"><RenameStudent class=class_for_rename sandbox=s.sandbox.clone() name=s.name.clone() renaming /></th>
            <td>{where_text}</td>
            <td class=format!("harm harm-{}", harm.id())>{move || tr_id(&format!("class-harm-{}", harm.id()))}</td>
            <td class="class-last">
                {move || match &last {
                    Some(e) => crate::app::lab::describe_event(e),
                    None => tr!("class-last-none"),
                }}
            </td>
            <td>
                {move || {
                    let minutes = ((now.get() - since_ms).max(0) / 60_000).to_string();
                    tr_args("class-since", &[("minutes", digits(&minutes))])
                }}
                {move || stuck.get().then(|| view! { " " <span class="tag stuck">{move || tr!("class-stuck")}</span> })}
            </td>
            <td>
                <a
                    data-testid="class-student-open"
                    href=open
                    target="_blank"
                    rel="external"
                    aria-label=move || tr_args("class-open-label", &[("name", name_for_open.clone())])
                >
                    {move || tr!("class-open")}
                </a>
                " "
                <RemoveStudent class=class_for_remove sandbox=s.sandbox.clone() name=s.name.clone() />
            </td>
        </tr>
    }
}

/// A row's name, and a way to change it (a typo, a ghost's name fixed): the same rules as a
/// join's name, checked by the server.
#[component]
pub(super) fn RenameStudent(
    class: String,
    sandbox: String,
    name: String,
    renaming: Renaming,
) -> impl IntoView {
    // The row is drawn again whenever the class's view moves on; what is being typed lives
    // with the page, not the row.
    let Renaming { row, text, rename } = renaming;
    let mine = sandbox.clone();
    let editing = Signal::derive(move || row.with(|r| r.as_deref() == Some(mine.as_str())));
    let start = {
        let (sandbox, name) = (sandbox.clone(), name.clone());
        move |_| {
            text.set(name.clone());
            row.set(Some(sandbox.clone()));
        }
    };
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        rename.dispatch((class.clone(), sandbox.clone(), text.get_untracked()));
    };
    let label = tr_args("class-student-rename-label", &[("name", name.clone())]);
    let shown = name.clone();
    view! {
        <Show
            when=move || editing.get()
            fallback=move || view! {
                <span class="class-student-name">{shown.clone()}</span>
                " "
                <button type="button" class="linkish" data-testid="class-student-rename" aria-label=label.clone() on:click=start.clone()>
                    {move || tr!("class-student-rename")}
                </button>
            }
        >
            <form class="class-rename" on:submit=save.clone()>
                <input
                    type="text"
                    data-testid="class-student-rename-text"
                    maxlength=crate::domain::class::NAME_MAX
                    aria-label=move || tr!("class-col-name")
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                />
                <button type="submit" class="button" data-testid="class-student-rename-save" disabled=move || rename.pending().get()>
                    {move || tr!("class-student-rename-save")}
                </button>
                <button type="button" class="button" data-testid="class-student-rename-cancel" on:click=move |_| row.set(None)>
                    {move || tr!("class-student-rename-cancel")}
                </button>
            </form>
        </Show>
        {move || match rename.value().get() {
            Some(Err(e)) if editing.get() => Some(view! { <span class="error" role="alert" data-testid="class-student-rename-error">{e.text()}</span> }),
            _ => None,
        }}
    }
}

/// The row whose name is being changed, what is typed, and the change sent: one per page.
#[derive(Clone, Copy)]
pub(super) struct Renaming {
    row: RwSignal<Option<String>>,
    text: RwSignal<String>,
    rename: Action<(String, String, String), Result<String, FnError>>,
}

impl Renaming {
    pub(super) fn new() -> Renaming {
        let row = RwSignal::new(None::<String>);
        let rename = Action::new(|(class, sandbox, name): &(String, String, String)| {
            class_rename(class.clone(), sandbox.clone(), name.clone())
        });
        Effect::new(move |_| {
            if let Some(Ok(_)) = rename.value().get() {
                row.set(None);
            }
        });
        Renaming {
            row,
            text: RwSignal::new(String::new()),
            rename,
        }
    }
}

/// Takes a row off the roster (a ghost of a second join, a student who left), asked first;
/// the student's sandbox stays theirs.
#[component]
pub(super) fn RemoveStudent(class: String, sandbox: String, name: String) -> impl IntoView {
    let asking = RwSignal::new(false);
    let remove = Action::new(move |_: &()| {
        let (class, sandbox) = (class.clone(), sandbox.clone());
        async move { class_remove(class, sandbox).await }
    });
    let label = tr_args("class-student-remove-label", &[("name", name.clone())]);
    view! {
        <Show
            when=move || asking.get()
            fallback=move || view! {
                <button type="button" class="linkish" data-testid="class-student-remove" aria-label=label.clone() on:click=move |_| asking.set(true)>
                    {move || tr!("class-student-remove")}
                </button>
            }
        >
            <span class="class-confirm">
                {move || tr!("class-student-remove-ask")}
                <button type="button" class="button danger" data-testid="class-student-remove-confirm" disabled=move || remove.pending().get()
                    on:click=move |_| { remove.dispatch(()); }>
                    {move || tr!("class-student-remove-yes")}
                </button>
                <button type="button" class="button" data-testid="class-student-remove-cancel" on:click=move |_| asking.set(false)>
                    {move || tr!("class-student-remove-no")}
                </button>
            </span>
        </Show>
        {move || match remove.value().get() {
            Some(Err(e)) => Some(view! { <span class="error" role="alert">{e.text()}</span> }),
            _ => None,
        }}
    }
}
