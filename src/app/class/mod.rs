//! The class (docs/reference.md §10): `/teach` makes one, `/teach/{id}` is its instructor's
//! live view, `/join/{code}` lets a student in. The server functions here are thin adapters over
//! `server::classes`; the view's live feed is `GET /teach/{id}/events` (`server::web`).

pub mod hand_over;
pub mod join;
mod live;
mod push;
pub mod show;
mod students;
mod summary;
pub mod teach;

use leptos::prelude::*;
use leptos::server_fn;
use serde::{Deserialize, Serialize};

use crate::app::error::FnError;
use crate::domain::class::{ChapterReport, ClassSummary, ClassView, Push, PushReport};

/// Where a student's lab remembers that its sandbox belongs to a class, so it reports each step
/// (`pocketpay-lab:class:{sandbox}`; a sandbox in no class sends nothing).
pub fn member_key(sandbox: &str) -> String {
    format!("pocketpay-lab:class:{sandbox}")
}

/// Where this browser remembers the sandbox it last joined a class with: the quiz offers to
/// share its score while it is set.
pub const JOINED_KEY: &str = "pocketpay-lab:class";

/// What the instructor's page shows of a class: the view, and how students get in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassPageData {
    pub view: ClassView,
    /// The join page's full address, as the students' browsers will open it.
    pub join_url: String,
    /// That address as a QR code, an SVG drawn on the server.
    pub qr_svg: String,
}

#[cfg(feature = "ssr")]
fn classes() -> crate::server::classes::Classes {
    crate::app::lab::rpc::sandboxes().classes().clone()
}

#[cfg(feature = "ssr")]
fn request_headers() -> axum::http::HeaderMap {
    expect_context::<axum::http::request::Parts>().headers
}

/// The class's code, if this request carries a key to it (the instructor's own, or one a
/// hand-over gave): every instructor's server function asks this first.
#[cfg(feature = "ssr")]
async fn instructor(class: &str) -> Result<crate::domain::class::ClassCode, FnError> {
    use crate::server::classes::secret_cookie;
    use crate::server::http::cookie;
    let headers = request_headers();
    Ok(classes()
        .authorize(class, cookie(&headers, &secret_cookie(class)).as_deref())
        .await?)
}

/// Gives this browser a class's key: an HttpOnly cookie, `SameSite=Strict` (no request
/// another site starts carries it), living as long as a sandbox.
#[cfg(feature = "ssr")]
fn give_key(class_id: &str, secret: &str) {
    let max_age = crate::app::lab::rpc::sandboxes()
        .config()
        .sandbox_ttl
        .as_secs();
    set_cookie(format!(
        "{}={secret}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Strict",
        crate::server::classes::secret_cookie(class_id),
    ));
}

#[cfg(feature = "ssr")]
fn set_cookie(value: String) {
    if let Ok(value) = axum::http::HeaderValue::from_str(&value) {
        expect_context::<leptos_axum::ResponseOptions>()
            .append_header(axum::http::header::SET_COOKIE, value);
    }
}

/// Makes a class and gives this browser its key (an HttpOnly cookie, `SameSite=Strict`: no
/// request another site starts carries it; a link to the class page from another site comes
/// in again from this one, `server::web`'s `class_page_status`); returns the class's id.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn create_class(name: Option<String>) -> Result<String, FnError> {
    let name = crate::domain::class::class_name(name.as_deref().unwrap_or_default())?;
    // Behind a balancer, the request's id leads the code, and so the class's route.
    let lead = crate::app::lab::rpc::sandboxes()
        .new_id(&request_headers())?
        .map(|id| id.as_bytes()[0]);
    let new = classes().create(lead).await?;
    if !name.is_empty() {
        classes().set_name(&new.id, &name).await?;
    }
    give_key(&new.id, &new.secret);
    Ok(new.id)
}

/// The classes this browser holds the keys of (its `pocketpay_class_{id}` cookies), newest
/// use first: `/teach` lists them.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn my_classes() -> Result<Vec<crate::domain::class::MyClass>, FnError> {
    let headers = request_headers();
    let keys: Vec<(String, String)> = headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            let id = crate::server::classes::Classes::cookie_class(name)?;
            Some((id.to_owned(), value.to_owned()))
        })
        .take(50)
        .collect();
    Ok(classes().mine(&keys).await?)
}

/// The class as its instructor sees it; only the browser holding the class's key may read it.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_page(class: String) -> Result<ClassPageData, FnError> {
    use crate::server::http::origin;
    let code = instructor(&class).await?;
    let join_url = format!("{}{}", origin(&request_headers()), code.join_path());
    let view = crate::server::teach::view(&crate::app::lab::rpc::sandboxes(), &class, code).await?;
    Ok(ClassPageData {
        qr_svg: crate::server::classes::qr_svg(&join_url),
        join_url,
        view,
    })
}

/// Does one thing to every student's sandbox; only the class's instructor may.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_push(class: String, push: Push) -> Result<PushReport, FnError> {
    instructor(&class).await?;
    Ok(crate::server::teach::push(&crate::app::lab::rpc::sandboxes(), &class, push).await?)
}

/// Takes a student off the class's roster (their sandbox stays theirs); only the class's
/// instructor may.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_remove(class: String, sandbox: String) -> Result<(), FnError> {
    instructor(&class).await?;
    Ok(crate::server::teach::remove(&crate::app::lab::rpc::sandboxes(), &class, &sandbox).await?)
}

/// A one-line message to every student's screen; only the class's instructor may.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_message(class: String, text: String) -> Result<PushReport, FnError> {
    instructor(&class).await?;
    Ok(crate::server::teach::message(&crate::app::lab::rpc::sandboxes(), &class, &text).await?)
}

/// Gives a student's row another name; only the class's instructor may. Returns the name as
/// kept.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_rename(class: String, sandbox: String, name: String) -> Result<String, FnError> {
    instructor(&class).await?;
    Ok(classes().rename(&class, &sandbox, &name).await?)
}

/// Hands the class to someone named (a teaching assistant, the lecture-hall PC): a one-time
/// link that gives the browser opening it a key of its own; only a holder of the class may.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_hand_over(
    class: String,
    name: String,
) -> Result<crate::domain::class::HandOver, FnError> {
    use crate::server::http::origin;
    instructor(&class).await?;
    let (holder, token) = classes().hand_over(&class, &name).await?;
    let link = format!(
        "{}{}",
        origin(&request_headers()),
        crate::domain::class::hand_over_path(&token)
    );
    Ok(crate::domain::class::HandOver { holder, link })
}

/// Withdraws a hand-over (its link, or the key it gave); only a holder of the class may.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_withdraw(class: String, holder: String) -> Result<(), FnError> {
    instructor(&class).await?;
    Ok(classes().withdraw(&class, &holder).await?)
}

/// What a hand-over link names, before it is taken: the class's name and the holder's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandOverFound {
    pub class_name: String,
    pub holder: String,
}

/// Reads a hand-over link without taking it (its page asks first).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn find_hand_over(token: String) -> Result<HandOverFound, FnError> {
    let (class_name, holder) = classes().hand_over_for(&token).await?;
    Ok(HandOverFound { class_name, holder })
}

/// Takes a hand-over link: this browser gets a key to the class (once per link). Returns the
/// class's id.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn take_class(token: String) -> Result<String, FnError> {
    let (class_id, key) = classes().take(&token).await?;
    give_key(&class_id, &key);
    Ok(class_id)
}

/// What a class's projector page shows, for anyone with the code: no names.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn class_show(code: String) -> Result<crate::domain::class::ClassShow, FnError> {
    let code = crate::domain::class::ClassCode::parse(&code)?;
    let class = look_up(&code).await?;
    let view = crate::server::teach::view(&crate::app::lab::rpc::sandboxes(), &class, code).await?;
    Ok(view.show())
}

/// The living class a code names: counted with every look-up of a code (`Classes::find`),
/// unless this is the page drawn on the server, whose door counted it already
/// (`server::http::CodeLookedUp`).
#[cfg(feature = "ssr")]
async fn look_up(code: &crate::domain::class::ClassCode) -> Result<String, FnError> {
    let counted = expect_context::<axum::http::request::Parts>()
        .extensions
        .get::<crate::server::http::CodeLookedUp>()
        .is_some();
    if counted {
        classes().living(code).await?.ok_or(FnError::UnknownClass)
    } else {
        Ok(classes().find(code).await?)
    }
}

/// A class found by its code: the code spaced for reading, and, when this browser's sandbox
/// already sits in it, who the student is there (the join link opened again continues).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoundClass {
    pub spaced: String,
    pub you: Option<Seat>,
}

/// A student's place in a class: their sandbox and name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    pub sandbox: String,
    pub name: String,
}

/// The code, spaced for reading, if it names a living class, and this browser's seat in it.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn find_class(code: String) -> Result<FoundClass, FnError> {
    use crate::server::http::{cookie, SANDBOX_COOKIE};
    let code = crate::domain::class::ClassCode::parse(&code)?;
    let parts = expect_context::<axum::http::request::Parts>();
    look_up(&code).await?;
    let you = match cookie(&parts.headers, SANDBOX_COOKIE) {
        Some(sandbox) => classes()
            .membership(&sandbox)
            .await?
            .filter(|(theirs, _)| *theirs == code)
            .map(|(_, name)| Seat { sandbox, name }),
        None => None,
    };
    Ok(FoundClass {
        spaced: code.spaced(),
        you,
    })
}

/// A student joins the class under a name: a sandbox of their own, which also becomes this
/// browser's (the `/lab` cookie). Returns its id. The cookie stays `SameSite=Lax`: a student
/// who follows a link to `/lab` from another site (a course page, a chat) must come back to
/// their own sandbox, not be handed a new one; what it authorizes changes state only through
/// the origin gate (`server::api::edge`).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn join_class(code: String, name: String) -> Result<String, FnError> {
    use crate::server::http::SANDBOX_COOKIE;
    let sandboxes = crate::app::lab::rpc::sandboxes();
    let id = sandboxes.new_id(&request_headers())?;
    let sandbox = crate::server::teach::join(&sandboxes, id, &code, &name).await?;
    let max_age = sandboxes.config().sandbox_ttl.as_secs();
    set_cookie(format!(
        "{SANDBOX_COOKIE}={sandbox}; Path=/; Max-Age={max_age}; SameSite=Lax"
    ));
    Ok(sandbox)
}

/// A student's lab says which chapter is open and what the student looked at; the server
/// works out the steps done from the sandbox itself (`server::teach::report`). `false` when
/// the sandbox is in no class (the lab then stops reporting).
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn report_progress(sandbox: String, report: ChapterReport) -> Result<bool, FnError> {
    Ok(crate::server::teach::report(&crate::app::lab::rpc::sandboxes(), &sandbox, &report).await?)
}

/// The end of the class: what each student reached and shared; only the class's instructor.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn read_class_summary(class: String) -> Result<ClassSummary, FnError> {
    instructor(&class).await?;
    Ok(classes().summary(&class).await?)
}

/// A student shares their quiz answers with their class: this browser's sandbox (the `/lab`
/// cookie the join set) names the class, and the server marks the answers. Answers the
/// marking (right, of those given), or `None` when it is in no class.
#[server(prefix = "/rpc", input = server_fn::codec::Json)]
pub async fn share_quiz(
    answers: std::collections::BTreeMap<String, crate::domain::quiz::Answer>,
) -> Result<Option<(u8, u8)>, FnError> {
    use crate::server::http::{cookie, SANDBOX_COOKIE};
    let Some(sandbox) = cookie(&request_headers(), SANDBOX_COOKIE) else {
        return Ok(None);
    };
    Ok(classes().share_quiz(&sandbox, &answers).await?)
}
