//! "In the real world" notes (`domain::realworld`): beside a chapter or a calculator, where the
//! lab's choices differ from production systems, each naming its source.

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::tr_id;
use crate::domain::realworld::{self, Place};

/// The notes for one place, folded under one heading; nothing when there are none.
#[component]
pub fn RealWorld(place: Place) -> impl IntoView {
    let notes: Vec<_> = realworld::at(place).collect();
    (!notes.is_empty()).then(|| {
        view! {
            <details class="real-world" data-testid="real-world">
                <summary>{move || tr!("real-world-title")}</summary>
                <ul>
                    {notes
                        .into_iter()
                        .map(|n| {
                            let id = n.id;
                            view! { <li data-note=id>{move || tr_id(&format!("real-{id}"))}</li> }
                        })
                        .collect_view()}
                </ul>
            </details>
        }
    })
}
