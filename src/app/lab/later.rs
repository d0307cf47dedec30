//! Send first, the rest after: the panels a student does not need to send money with (the
//! network's switches, Tithi's phone, the damage meter, the timeline, the inspector, the
//! instructor's panel and a chapter's drawer) come to life after Shimul's phone does.
//!
//! On the server they render with the page, so the student reads the whole lab at once. In the
//! browser their code is a file of its own (split by `cargo leptos build --split`):
//! hydration passes over their boxes, which keep the server's HTML, and once the phone is live
//! the file arrives and each box is drawn again by the browser, now live (BENCHMARKS.md, "Send
//! first"). `html[data-send-ready]` marks the first moment, `html[data-hydrated]` the second
//! (`app::ready`).

use leptos::prelude::*;

use super::chapter::ChapterPanel;
use super::context::Focus;
use super::damage::DamageMeter;
use super::generals::GeneralsPanel;
use super::inspector::Inspector;
use super::instructor::InstructorPanel;
use super::natural::NaturalPanel;
use super::network::NetworkPanel;
use super::stream::LabStream;
use super::timeline::Timeline;
use super::tithi::TithiPhone;
use crate::domain::course::Chapter;

/// A panel drawn after the phone works.
#[derive(Clone)]
pub enum Later {
    Network,
    Tithi,
    Damage,
    Timeline,
    Inspector,
    Instructor {
        presenter: RwSignal<bool>,
    },
    Chapter {
        focus: Focus,
        chapter: &'static Chapter,
    },
    Natural,
    Generals,
    /// The way back to where the course was left, in a lab with no chapter open.
    Continue,
    /// Why the phone's key keeps answering 409, and until when.
    KeyWait(Signal<crate::domain::phone_app::PhoneView>),
}

/// The panel's view.
fn draw(panel: Later, live: LabStream) -> AnyView {
    match panel {
        Later::Network => view! { <NetworkPanel live /> }.into_any(),
        Later::Tithi => view! { <TithiPhone live /> }.into_any(),
        Later::Damage => view! { <DamageMeter live /> }.into_any(),
        Later::Timeline => view! { <Timeline live /> }.into_any(),
        Later::Inspector => view! { <Inspector live /> }.into_any(),
        Later::Instructor { presenter } => view! { <InstructorPanel live presenter /> }.into_any(),
        Later::Chapter { focus, chapter } => {
            view! { <ChapterPanel live focus chapter /> }.into_any()
        }
        Later::Natural => view! { <NaturalPanel live /> }.into_any(),
        Later::Generals => view! { <GeneralsPanel live /> }.into_any(),
        Later::Continue => view! { <crate::app::course::progress::ContinueCourse /> }.into_any(),
        Later::KeyWait(face) => view! { <super::phone::key_wait::KeyWait face live /> }.into_any(),
    }
}

/// The panel in its box: on the server drawn in place.
#[cfg(not(feature = "hydrate"))]
pub fn later(panel: Later, live: LabStream) -> AnyView {
    view! { <div class="later">{draw(panel, live)}</div> }.into_any()
}

/// The panel in its box: in the browser an empty box that hydration leaves as the server sent
/// it, drawn again once the panels' code has arrived. A file that fails to come is asked for
/// again, a little later each time: meanwhile the box shows the server's drawing.
#[cfg(feature = "hydrate")]
pub fn later(panel: Later, live: LabStream) -> AnyView {
    let el = NodeRef::<leptos::html::Div>::new();
    // Whatever the panel reads from context (the language, the chapter's looks) it finds
    // through the owner the box was made under.
    let owner = Owner::current().expect("a lab panel is drawn under the lab's owner");
    crate::app::ready::wait();
    leptos::task::spawn_local(async move {
        let mut pause_ms = 500;
        let view = loop {
            match drawn(panel.clone(), live.clone(), owner.clone()).await {
                Ok(view) => break view,
                Err(e) => {
                    leptos::logging::warn!(
                        "the lab's later panels did not load ({e}); trying again"
                    );
                    super::phone::http::sleep(pause_ms).await;
                    pause_ms = (pause_ms * 2).min(15_000);
                }
            }
        };
        // A box gone meanwhile (a chapter closed before the code came) is not drawn.
        if let Some(el) = el.try_get_untracked().flatten() {
            owner.with(|| {
                el.set_inner_html("");
                let mut state = view.build();
                state.mount(&el, None);
                // Kept as long as the box's owner is: the panel's effects live in it.
                StoredValue::new_local(state);
            });
        }
        crate::app::ready::arrived();
    });
    view! { <div class="later" node_ref=el></div> }.into_any()
}

/// The panels' code, in a file of its own (`cargo leptos build --split`): the first call
/// fetches it, a failed fetch is an error and not a panic.
#[cfg(feature = "hydrate")]
#[leptos::wasm_split::wasm_split(lab_later, wasm_split_path = ::leptos::wasm_split, fallible)]
fn drawn(
    panel: Later,
    live: LabStream,
    owner: Owner,
) -> Result<AnyView, leptos::wasm_split::SplitLoaderError> {
    Ok(owner.with(|| draw(panel, live)))
}
