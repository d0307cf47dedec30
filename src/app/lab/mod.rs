//! The lab screen at `/lab/{id}`: one sandbox, live. Shimul's phone with the student's
//! switches beside it, the network, Tithi's phone, the timeline, the damage meter, the
//! inspector and the instructor's panel, each a component of its own, all fed by one
//! [`stream::LabStream`]. On a phone a small bar stays at the top with both balances and
//! whether harm was done, and the inspector and the instructor's panel start folded.
//!
//! The server functions below are thin adapters over the sandbox's service calls; the phone
//! alone talks to the payment API over HTTP, as a real app would.

mod chapter;
mod clock_panel;
mod context;
mod controls;
mod damage;
mod generals;
mod inspector;
mod instructor;
mod later;
mod natural;
mod network;
mod phone;
pub mod rpc;
mod stream;
mod summary;
mod switches;
mod timeline;
mod tithi;
mod wide;
mod wipe;

use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::app::error::FnError;
use crate::domain::course::{self, Panel};
use crate::domain::SandboxState;
use context::{Focus, Looks};
use later::{later, Later};
use phone::ShimulPhone;
use rpc::{get_state, mirror_state};
use summary::SummaryBar;
use switches::Switches;

/// A scenario's preset by name, as the lab's preset picker lists it.
pub(crate) use instructor::preset_name;
/// One timeline event in a sentence of the page's language, as the timeline words it.
pub(crate) use timeline::describe as describe_event;

#[component]
pub fn LabPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let state = Resource::new(id, get_state);
    view! {
        <Suspense fallback=|| view! { <p class="panel">{move || tr!("lab-opening")}</p> }>
            {move || Suspend::new(async move {
                match state.await {
                    Ok(Some(initial)) => view! { <LabScreen id=id() initial readonly=false /> }.into_any(),
                    Ok(None) => view! { <Missing /> }.into_any(),
                    Err(e) => view! { <Failed e /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// `/watch/{token}`: a sandbox read-only, for a projector or an instructor looking at a
/// student's lab. The lab as its own page shows it, Shimul's phone as its browser last sent
/// it, every control disabled (docs/reference.md §10).
#[component]
pub fn MirrorPage() -> impl IntoView {
    let params = use_params_map();
    let token = move || params.read().get("token").unwrap_or_default();
    let state = Resource::new(token, mirror_state);
    view! {
        <Suspense fallback=|| view! { <p class="panel">{move || tr!("lab-opening")}</p> }>
            {move || Suspend::new(async move {
                match state.await {
                    Ok(Some(initial)) => view! { <LabScreen id=token() initial readonly=true /> }.into_any(),
                    Ok(None) => view! {
                        <section class="panel" role="alert">
                            <h1>{move || tr!("mirror-missing-title")}</h1>
                            <p>{move || tr!("mirror-missing-text")}</p>
                        </section>
                    }
                    .into_any(),
                    Err(e) => view! { <Failed e /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Failed(e: FnError) -> impl IntoView {
    view! {
        <section class="panel" role="alert">
            <h1>{move || tr!("lab-failed")}</h1>
            <p>{move || e.text()}</p>
        </section>
    }
}

/// A class's push of a preset opens the chapter that teaches it on the student's screen, once
/// per push (the newest one acted on is kept in this browser, so a reload or a later chapter
/// the student chose is not pulled back).
#[cfg(feature = "hydrate")]
fn follow_the_class(sandbox: String, presence: RwSignal<crate::domain::phone_app::Presence>) {
    let navigate = leptos_router::hooks::use_navigate();
    let key = format!("pocketpay-lab:cue:{sandbox}");
    Effect::new(move |_| {
        let Some(open) = presence.with(|p| p.cue.open) else {
            return;
        };
        let seen = crate::app::storage::get(&key)
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0);
        if open.at_ms <= seen {
            return;
        }
        crate::app::storage::set(&key, &open.at_ms.to_string());
        navigate(
            &format!("/lab/{sandbox}?chapter={}", open.chapter),
            Default::default(),
        );
    });
}

/// The lab; `readonly`: a mirror, `id` then the mirror's token.
///
/// Reads best whole: the lab's layout in one place: which panel stands where, at each width.
#[component]
fn LabScreen(id: String, initial: SandboxState, readonly: bool) -> impl IntoView {
    let live = stream::LabStream::new(id, initial, readonly);
    live.connect();
    // Locked by the class's instructor for a demo: the student's own controls wait.
    let presence = live.presence;
    let locked = Memo::new(move |_| presence.with(|p| p.locked));
    let settled = Memo::new({
        let live = live.clone();
        move |_| live.settled()
    });
    let presenter = instructor::presenter_mode();
    // The class's instructor: their line to every screen, and the chapter a push opened.
    let message = Memo::new(move |_| presence.with(|p| p.cue.message.clone()));
    #[cfg(feature = "hydrate")]
    if !readonly {
        follow_the_class(live.sandbox(), presence);
    }
    Looks::provide();
    let query = use_query_map();
    let focus = Focus {
        chapter: Memo::new(move |_| {
            query
                .read()
                .get("chapter")
                .and_then(|c| c.parse::<u8>().ok())
                .and_then(course::chapter)
        }),
        show_all: RwSignal::new(false),
    };
    // Each panel sits in a slot that folds away while a chapter open does not use it. The
    // panels with the student's own switches are disabled while the class's lock holds.
    let slot = move |panel: Panel, inner: AnyView| {
        let lockable = matches!(panel, Panel::Switches | Panel::Network | Panel::Instructor);
        view! {
            <div class="slot" data-panel=panel.id() class:folded-away=move || focus.hides(panel)>
                <fieldset class="plain" disabled=move || lockable && locked.get()>
                    // Said where the student reaches for a switch, also on a phone scrolled down.
                    {move || (lockable && locked.get()).then(|| view! {
                        <p class="lab-banner lock-note" role="note">{move || tr!("lab-locked-note")}</p>
                    })}
                    {inner}
                </fieldset>
            </div>
        }
    };
    view! {
        <div
            class="lab"
            class:presenter=move || presenter.get()
            class:with-chapter=move || focus.chapter.get().is_some()
            data-testid="lab"
            data-readonly=readonly.to_string()
            data-locked=move || locked.get().to_string()
            data-settled=move || settled.get().to_string()
        >
            <h1 class="visually-hidden">{move || tr!("lab-title")}</h1>
            {readonly.then(|| view! {
                <div class="lab-banner" data-testid="readonly-note" role="note">
                    <p>{move || tr!("mirror-note")}</p>
                    // The one control of a mirror: how it is laid out on this screen.
                    <button
                        type="button"
                        data-testid="mirror-presenter"
                        aria-pressed=move || presenter.get().to_string()
                        on:click=move |_| presenter.update(|p| *p = !*p)
                    >
                        {move || tr!("mirror-presenter")}
                    </button>
                </div>
            })}
            {move || (locked.get() && !readonly).then(|| view! {
                <p class="lab-banner" data-testid="lab-locked" role="status">{move || tr!("lab-locked-note")}</p>
            })}
            {move || message.get().map(|m| view! {
                <p class="lab-banner class-message" data-testid="class-message" role="status">
                    <span class="class-message-from">{move || tr!("class-message-from")}</span>
                    " " <q>{m.text}</q>
                </p>
            })}
            {view! { <SummaryBar live=live.clone() /> }.into_any()}
            // The way back to where the course was left (drawn only with no chapter open).
            {(!readonly).then(|| later(Later::Continue, live.clone()))}
            // A mirror changes nothing: every control inside is disabled.
            <fieldset class="plain" disabled=readonly>
            <div class="lab-grid">
                {
                    let live = live.clone();
                    move || focus.chapter.get().map(|chapter| {
                        view! {
                            <div class="lab-col lab-chapter">
                                {later(Later::Chapter { focus, chapter }, live.clone())}
                            </div>
                        }
                    })
                }
                <div class="lab-col lab-people">
                    {slot(
                        Panel::Phone,
                        if readonly {
                            view! { <phone::MirroredPhone live=live.clone() /> }.into_any()
                        } else {
                            view! { <ShimulPhone live=live.clone() /> }.into_any()
                        },
                    )}
                    {slot(Panel::Switches, view! { <Switches live=live.clone() /> }.into_any())}
                    {slot(Panel::Network, later(Later::Network, live.clone()))}
                    {slot(Panel::Tithi, later(Later::Tithi, live.clone()))}
                </div>
                <div class="lab-col lab-watch">
                    {
                        let live = live.clone();
                        move || focus
                            .chapter
                            .get()
                            .is_some_and(|c| c.panels.contains(&Panel::Natural))
                            .then(|| view! {
                                <div class="slot" data-panel="natural">
                                    {later(Later::Natural, live.clone())}
                                </div>
                            })
                    }
                    {
                        let live = live.clone();
                        move || focus
                            .chapter
                            .get()
                            .is_some_and(|c| c.panels.contains(&Panel::Generals))
                            .then(|| view! {
                                <div class="slot" data-panel="generals">
                                    {later(Later::Generals, live.clone())}
                                </div>
                            })
                    }
                    {slot(Panel::Damage, later(Later::Damage, live.clone()))}
                    {slot(Panel::Timeline, later(Later::Timeline, live.clone()))}
                    {slot(Panel::Inspector, later(Later::Inspector, live.clone()))}
                </div>
                <div class="lab-col lab-teach">
                    {slot(Panel::Instructor, later(Later::Instructor { presenter }, live))}
                </div>
            </div>
            </fieldset>
        </div>
    }
}

#[component]
fn Missing() -> impl IntoView {
    view! {
        <section class="panel" role="alert">
            <h1>{move || tr!("lab-missing-title")}</h1>
            <p>
                {move || tr!("lab-missing-text")} " "
                <a href="/lab" rel="external">{move || tr!("lab-missing-new")}</a>
            </p>
        </section>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use leptos::server_fn::error::FromServerFnError;

    use crate::app::error::FnError;
    use crate::server::error::LabError;

    /// What a subscriber wrote, kept for the test to read.
    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<u8>>>);

    impl Write for Log {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn logged_while(f: impl FnOnce()) -> String {
        let log = Log::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        let bytes = log.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_store_error_in_a_server_function_is_logged_and_not_sent() {
        let mut sent = String::new();
        let log = logged_while(|| {
            sent = String::from_utf8(
                FnError::from(LabError::Store(sqlx::Error::PoolTimedOut))
                    .ser()
                    .to_vec(),
            )
            .unwrap();
        });
        assert!(log.contains("ERROR"), "{log}");
        assert!(log.contains("store error: pool timed out"), "{log}");
        assert!(sent.contains("internal"), "{sent}");
        assert!(!sent.contains("pool timed out"), "{sent}");
    }

    #[test]
    fn a_file_error_is_logged_and_a_callers_mistake_is_not() {
        let log = logged_while(|| {
            let _ = FnError::from(LabError::Io(std::io::Error::other("disk full")));
        });
        assert!(log.contains("io error: disk full"), "{log}");
        let log = logged_while(|| {
            let _ = FnError::from(LabError::NotFound);
        });
        assert_eq!(log, "");
    }
}
