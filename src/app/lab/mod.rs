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
mod controls;
mod damage;
mod generals;
mod inspector;
mod instructor;
mod later;
mod natural;
mod network;
mod phone;
mod stream;
mod summary;
mod switches;
mod timeline;
mod tithi;
mod wide;
mod wipe;

use crate::tr;
use leptos::prelude::*;
use leptos::server_fn;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::app::error::FnError;
use crate::domain::course::{self, Panel};
use crate::domain::phone::{Attack, AttackAnswer};
use crate::domain::run::{Rerun, Run};
use crate::domain::scenario::Variant;
use crate::domain::{ClockCommand, ClockState, Faults, Safeguards, SandboxState};
use chapter::{Focus, Looks};
use later::{later, Later};
use phone::ShimulPhone;
use summary::SummaryBar;
use switches::Switches;

/// A scenario's preset by name, as the lab's preset picker lists it.
pub(crate) use instructor::preset_name;
/// One timeline event in a sentence of the page's language, as the timeline words it.
pub(crate) use timeline::describe as describe_event;

/// Rows per table the screen reads; the newest ones.
pub const ROWS_PER_TABLE: i64 = crate::domain::state::SCREEN_ROWS;

/// The sandboxes every server function serves (the ones `main.rs` started; `server::web::app`
/// provides them).
#[cfg(feature = "ssr")]
pub fn sandboxes() -> crate::server::sandboxes::Sandboxes {
    expect_context::<crate::server::sandboxes::Sandboxes>()
}

#[cfg(feature = "ssr")]
async fn sandbox_of(id: &str) -> Result<crate::server::sandbox::SandboxHandle, FnError> {
    Ok(sandboxes().get(id).await?)
}

/// The whole sandbox (each table cut to its newest [`ROWS_PER_TABLE`] rows), or `None` when
/// there is no sandbox with that id.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn get_state(sandbox: String) -> Result<Option<SandboxState>, FnError> {
    use crate::server::error::LabError;
    match sandboxes().get(&sandbox).await {
        Ok(s) => Ok(Some(s.state_rows(ROWS_PER_TABLE).await?)),
        Err(LabError::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Applies one clock control to a sandbox and returns the clock after it.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn clock_control(sandbox: String, command: ClockCommand) -> Result<ClockState, FnError> {
    Ok(sandbox_of(&sandbox)
        .await?
        .unfrozen()?
        .clock(vec![command])
        .await?)
}

/// Switches safeguards (as `PUT …/safeguards` does) and returns them all.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn change_safeguards(
    sandbox: String,
    changes: crate::domain::SafeguardsPatch,
) -> Result<Safeguards, FnError> {
    Ok(sandbox_of(&sandbox)
        .await?
        .unlocked()?
        .set_safeguards(changes)
        .await?)
}

/// Sets faults (as `PUT …/faults` does) and returns them all.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn change_faults(
    sandbox: String,
    changes: crate::domain::FaultsPatch,
) -> Result<Faults, FnError> {
    Ok(sandbox_of(&sandbox)
        .await?
        .unlocked()?
        .set_faults(changes)
        .await?)
}

/// Back to the lesson's start; returns the sandbox as it stands after the reset, each table cut
/// like [`get_state`]'s.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn reset_sandbox(sandbox: String) -> Result<SandboxState, FnError> {
    let s = sandbox_of(&sandbox).await?;
    s.unlocked()?.reset().await?;
    Ok(s.state_rows(ROWS_PER_TABLE).await?)
}

/// Loads a scenario's preset (a reset, then its settings) and returns the sandbox after it,
/// each table cut like [`get_state`]'s.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn load_scenario(
    sandbox: String,
    scenario: u8,
    variant: Variant,
) -> Result<SandboxState, FnError> {
    let preset =
        crate::domain::scenario::preset(scenario, variant).ok_or(FnError::UnknownScenario)?;
    let s = sandbox_of(&sandbox).await?;
    s.unlocked()?.load_scenario(preset).await?;
    Ok(s.state_rows(ROWS_PER_TABLE).await?)
}

/// Scenario 7: sends copies of one natural-idempotency write and returns what they did.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn send_natural(
    sandbox: String,
    op: crate::domain::natural::NaturalOp,
    times: crate::domain::natural::Times,
) -> Result<crate::domain::natural::NaturalReport, FnError> {
    Ok(sandbox_of(&sandbox).await?.natural(op, times).await?)
}

/// Scenario 8: the Two Generals' messengers, each caught with this chance (percent).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn send_generals(
    sandbox: String,
    loss_pct: crate::domain::fault::Percent,
) -> Result<crate::domain::generals::Generals, FnError> {
    Ok(sandbox_of(&sandbox).await?.generals(loss_pct).await?)
}

/// Runs one of the network panel's crafted attacks and returns what each request got back.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn crafted_attack(sandbox: String, attack: Attack) -> Result<Vec<AttackAnswer>, FnError> {
    let s = sandbox_of(&sandbox).await?;
    Ok(crate::server::attacks::run(&s, attack).await?)
}

/// Rewinds a consumer group by time: a consumer replay.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn replay_consumer(
    sandbox: String,
    replay: crate::domain::run::ReplayBody,
) -> Result<(), FnError> {
    sandbox_of(&sandbox)
        .await?
        .unlocked()?
        .replay(replay)
        .await?;
    Ok(())
}

/// The sandbox as it stood at one of its timeline events (rewind), each table cut like
/// [`get_state`]'s.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn state_at(sandbox: String, event_id: i64) -> Result<SandboxState, FnError> {
    Ok(sandboxes()
        .state_at(&sandbox, event_id, ROWS_PER_TABLE)
        .await?)
}

/// The run so far (seed, timed inputs, the event log's hash), for a link.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn export_run(sandbox: String) -> Result<Run, FnError> {
    Ok(sandbox_of(&sandbox).await?.export_run().await?)
}

/// Reruns a run into a new sandbox; answers as `POST /api/runs` does (the new sandbox, its
/// event log's hash, and whether that is the hash the run claimed).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn import_run(run: Run) -> Result<Rerun, FnError> {
    let id = sandboxes().new_id(&expect_context::<axum::http::request::Parts>().headers)?;
    Ok(sandboxes().import_run(id, run).await?)
}

/// The sandbox a read-only mirror shows (`None` for a token that names none), under the
/// token's name: nothing of it gives control.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn mirror_state(token: String) -> Result<Option<SandboxState>, FnError> {
    use crate::server::error::LabError;
    let Some(id) = sandboxes().classes().mirrored(&token).await? else {
        return Ok(None);
    };
    match sandboxes().get(&id).await {
        Ok(s) => {
            // The id is the key to the sandbox: wherever a table holds it, the token stands.
            let state = s.state_rows(ROWS_PER_TABLE).await?;
            let text = serde_json::to_string(&state)
                .map_err(|_| FnError::Internal)?
                .replace(&id, &token);
            Ok(Some(
                serde_json::from_str(&text).map_err(|_| FnError::Internal)?,
            ))
        }
        Err(LabError::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The token of a read-only mirror of this sandbox (`/watch/{token}`), for a projector.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn mirror_link(sandbox: String) -> Result<String, FnError> {
    let s = sandbox_of(&sandbox).await?;
    Ok(sandboxes().classes().mirror(&s.id).await?)
}

/// Shimul's phone as the app's browser shows it now, for the sandbox's stream.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn show_phone(
    sandbox: String,
    phone: crate::domain::phone_app::PhoneView,
) -> Result<(), FnError> {
    let phone = phone.check()?;
    sandbox_of(&sandbox).await?.show_phone(phone);
    Ok(())
}

/// Makes a new sandbox with the given seed (or a random one) and returns its id.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn new_sandbox(seed: Option<u64>) -> Result<String, FnError> {
    let id = sandboxes().new_id(&expect_context::<axum::http::request::Parts>().headers)?;
    let s = sandboxes()
        .create(id, seed, crate::domain::ClockMode::Live)
        .await?;
    Ok(s.id.to_string())
}

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
