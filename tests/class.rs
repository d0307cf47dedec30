//! Classes (docs/reference.md §10) on real SQLite files, in-process: making one, joining it,
//! reporting progress, the view the instructor reads, who may read it, what a bad code or name
//! gets, and that a class outlives a restart and ends with its lifetime.
//! Run: `cargo test --features ssr --test class`.

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use futures::StreamExt;
use leptos::prelude::LeptosOptions;
use pocketpay_lab::domain::class::{ClassCode, Harm, Progress};
use pocketpay_lab::domain::quiz::{Answer, Kind, QUESTIONS};
use pocketpay_lab::server::classes::secret_cookie;
use pocketpay_lab::server::error::LabError;
use pocketpay_lab::server::{config::Config, sandboxes::Sandboxes, teach, web};
use tower::ServiceExt;

/// The first question answered right, the second wrong.
fn two_answers_one_right() -> std::collections::BTreeMap<String, Answer> {
    let right = |k: Kind| match k {
        Kind::Choice { right, .. } | Kind::Guard { right, .. } => Answer::Option(right),
        Kind::Order { items, .. } => Answer::Order((1..=items).collect()),
        Kind::Number { answer } => Answer::Number(answer),
    };
    let wrong = |k: Kind| match k {
        Kind::Number { answer } => Answer::Number(answer + 1),
        _ => Answer::Number(-1),
    };
    [
        (QUESTIONS[0].id.to_owned(), right(QUESTIONS[0].kind)),
        (QUESTIONS[1].id.to_owned(), wrong(QUESTIONS[1].kind)),
    ]
    .into_iter()
    .collect()
}

async fn lab(dir: &std::path::Path, config: Config) -> Sandboxes {
    Sandboxes::start(Config {
        data_dir: dir.to_path_buf(),
        ..config
    })
    .await
    .expect("the lab starts")
}

#[tokio::test]
async fn a_class_is_made_joined_followed_and_kept_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let classes = sandboxes.classes().clone();
    let class = classes.create(None).await.unwrap();
    assert_eq!(ClassCode::parse(class.code.as_str()).unwrap(), class.code);

    // The key opens the class; no key, another key or another class's id does not.
    assert_eq!(
        classes
            .authorize(&class.id, Some(class.secret.as_str()))
            .await
            .unwrap(),
        class.code
    );
    for wrong in [None, Some("guess"), Some(&class.secret[1..])] {
        let e = classes.authorize(&class.id, wrong).await.unwrap_err();
        assert!(matches!(e, LabError::NotYourClass), "{wrong:?}: {e}");
        assert_eq!(e.status(), 403);
    }
    let e = classes
        .authorize(
            "00000000-0000-4000-8000-000000000000",
            Some(class.secret.as_str()),
        )
        .await
        .unwrap_err();
    assert!(matches!(e, LabError::UnknownClass));
    assert_eq!(e.status(), 404);

    // Two students join, by the code as typed; a third with a taken name is refused.
    let typed = class.code.as_str().to_lowercase();
    let shimul = teach::join(&sandboxes, None, &typed, " Shimul ")
        .await
        .unwrap();
    let tithi = teach::join(&sandboxes, None, class.code.as_str(), "Tithi")
        .await
        .unwrap();
    assert_ne!(shimul, tithi);
    assert!(sandboxes.get(&shimul).await.is_ok(), "a real sandbox");
    let e = teach::join(&sandboxes, None, class.code.as_str(), "Shimul")
        .await
        .unwrap_err();
    assert!(matches!(e, LabError::NameTaken), "{e}");
    assert_eq!(e.status(), 409);
    for (code, name, field) in [
        ("HKM47", "Imran", "code"),
        (class.code.as_str(), "", "name"),
        (class.code.as_str(), "a\u{7}b", "name"),
    ] {
        match teach::join(&sandboxes, None, code, name).await {
            Err(LabError::Invalid(f)) => assert_eq!(f.field, field),
            other => panic!("{code:?} {name:?}: {other:?}"),
        }
    }
    let unknown = if class.code.as_str() == "HKM479" {
        "HKM477"
    } else {
        "HKM479"
    };
    assert!(matches!(
        teach::join(&sandboxes, None, unknown, "Imran").await,
        Err(LabError::UnknownClass)
    ));

    // Progress: checked against the course, kept, and shown; a sandbox in no class is told so.
    for bad in [Progress::new(0, 0), Progress::new(1, 99)] {
        assert!(matches!(
            classes.record(&shimul, bad).await,
            Err(LabError::Invalid(_))
        ));
    }
    assert!(classes.record(&shimul, Progress::new(1, 2)).await.unwrap());
    let stranger = sandboxes
        .create(None, Some(7), pocketpay_lab::domain::ClockMode::Paused)
        .await
        .unwrap();
    assert!(!classes
        .record(&stranger.id.to_string(), Progress::new(1, 1))
        .await
        .unwrap());

    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    let names: Vec<&str> = view.students.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Shimul", "Tithi"]);
    let s = &view.students[0];
    assert_eq!(s.progress, Some(Progress::new(1, 2)));
    assert_eq!(s.harm, Harm::None);
    assert!(
        s.last_event.is_some(),
        "the server read the sandbox's newest event"
    );
    assert_eq!(view.students[1].progress, None);
    assert_eq!(view.per_chapter()[0], 1);
    assert_eq!(view.per_chapter()[1], 1);
    // Reporting the same place again keeps the time of the last step.
    let before = s.progress_ms;
    tokio::time::sleep(Duration::from_millis(5)).await;
    classes.record(&shimul, Progress::new(1, 2)).await.unwrap();
    let again = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    assert_eq!(again.students[0].progress_ms, before);

    // A restart: the class, its students and what was read of them are all there.
    sandboxes.shutdown().await;
    let sandboxes = lab(dir.path(), Config::default()).await;
    let classes = sandboxes.classes().clone();
    assert_eq!(
        classes
            .authorize(&class.id, Some(class.secret.as_str()))
            .await
            .unwrap(),
        class.code
    );
    let after = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    assert_eq!(after.students, again.students);
    assert_eq!(
        classes.membership(&tithi).await.unwrap(),
        Some((class.code.clone(), "Tithi".to_owned()))
    );
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn a_class_ends_with_a_sandboxs_lifetime() {
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(
        dir.path(),
        Config {
            sandbox_ttl: Duration::from_millis(300),
            ..Config::default()
        },
    )
    .await;
    let classes = sandboxes.classes().clone();
    let class = classes.create(None).await.unwrap();
    assert!(classes.find(&class.code).await.is_ok());
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Past its lifetime it is gone for every use, before and after the reaper deletes it.
    assert!(matches!(
        classes.find(&class.code).await,
        Err(LabError::UnknownClass)
    ));
    classes.reap().await.unwrap();
    assert!(matches!(
        classes
            .authorize(&class.id, Some(class.secret.as_str()))
            .await,
        Err(LabError::UnknownClass)
    ));
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn guessing_codes_is_held_back() {
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let classes = sandboxes.classes().clone();
    let mut refused = None;
    for i in 0..100u64 {
        let code = ClassCode::from_bits(i * 7919);
        match classes.find(&code).await {
            Err(LabError::UnknownClass) => {}
            Err(e @ LabError::TooManyRequests(_)) => {
                refused = Some((i, e));
                break;
            }
            other => panic!("{code:?}: {other:?}"),
        }
    }
    let (after, e) = refused.expect("guesses are limited");
    assert!((25..=35).contains(&after), "after {after} guesses");
    assert_eq!(e.status(), 429);
    assert!(e.retry_after().is_some());
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn the_class_stream_answers_its_instructor_alone() {
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let options = LeptosOptions::builder()
        .output_name("pocketpay-lab")
        .build();
    let app = web::app(options, sandboxes.clone());
    let path = format!("/teach/{}/events", class.id);
    let request = |cookie: Option<String>| {
        let mut r = Request::get(&path).header(header::HOST, "lab.test");
        if let Some(c) = cookie {
            r = r.header(header::COOKIE, c);
        }
        r.body(Body::empty()).unwrap()
    };
    for cookie in [
        None,
        Some(format!("{}=guess", secret_cookie(&class.id))),
        Some(format!("pocketpay_class_other={}", class.secret)),
    ] {
        let r = app.clone().oneshot(request(cookie.clone())).await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{cookie:?}");
        let body = axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap();
        assert!(String::from_utf8_lossy(&body).contains("not-your-class"));
    }
    let r = app
        .clone()
        .oneshot(request(Some(format!(
            "a=1; {}={}",
            secret_cookie(&class.id),
            class.secret
        ))))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()[header::CONTENT_TYPE], "text/event-stream");
    let mut body = r.into_body().into_data_stream();
    let first = tokio::time::timeout(Duration::from_secs(10), body.next())
        .await
        .expect("the view comes at once")
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&first);
    assert!(text.starts_with("event: class\n"), "{text}");
    assert!(text.contains(class.code.as_str()), "{text}");
    drop(body);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn only_the_instructors_browser_pushes_and_a_push_reaches_every_student() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::ClassPush;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let mut students = Vec::new();
    for name in ["Shimul", "Tithi"] {
        students.push(
            teach::join(&sandboxes, None, class.code.as_str(), name)
                .await
                .unwrap(),
        );
    }
    let options = LeptosOptions::builder()
        .output_name("pocketpay-lab")
        .build();
    let app = web::app(options, sandboxes.clone());
    let key_persistence = |id: String| {
        let sandboxes = sandboxes.clone();
        async move {
            let state = sandboxes.get(&id).await.unwrap().state().await.unwrap();
            state
                .safeguards
                .is_on(pocketpay_lab::domain::Safeguard::KeyPersistence)
        }
    };
    let push = |cookie: Option<String>| {
        let mut r = Request::post(<ClassPush as ServerFn>::PATH)
            .header(header::HOST, "lab.test")
            .header(header::ORIGIN, "http://lab.test")
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(c) = cookie {
            r = r.header(header::COOKIE, c);
        }
        let body = serde_json::json!({
            "class": class.id,
            "push": {"push": "preset", "scenario": 1, "variant": "unguarded"},
        });
        r.body(Body::from(body.to_string())).unwrap()
    };
    // Without the key, or with a wrong one: refused, and no lab changed.
    for cookie in [None, Some(format!("{}=guess", secret_cookie(&class.id)))] {
        let r = app.clone().oneshot(push(cookie.clone())).await.unwrap();
        assert!(!r.status().is_success(), "{cookie:?}");
        let body = axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap();
        assert!(
            String::from_utf8_lossy(&body).contains("not-your-class"),
            "{}",
            String::from_utf8_lossy(&body)
        );
        for id in &students {
            assert!(key_persistence(id.clone()).await, "untouched");
        }
    }
    // With it: every student's lab took it, and says so.
    let r = app
        .clone()
        .oneshot(push(Some(format!(
            "{}={}",
            secret_cookie(&class.id),
            class.secret
        ))))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body = axum::body::to_bytes(r.into_body(), usize::MAX)
        .await
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(report, serde_json::json!({"took": 2, "of": 2}));
    for id in &students {
        assert!(!key_persistence(id.clone()).await, "scenario 1 unguarded");
    }
    sandboxes.shutdown().await;
}

/// A request as a browser on `lab.test` sends it, with a cookie and a JSON body if given.
fn browser(
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: Option<serde_json::Value>,
) -> Request<Body> {
    let mut r = Request::builder()
        .method(method)
        .uri(path)
        .header(header::HOST, "lab.test")
        .header(header::ORIGIN, "http://lab.test");
    if let Some(c) = cookie {
        r = r.header(header::COOKIE, c);
    }
    match body {
        Some(b) => r
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(b.to_string()))
            .unwrap(),
        None => r.body(Body::empty()).unwrap(),
    }
}

async fn text(r: axum::response::Response) -> String {
    let body = axum::body::to_bytes(r.into_body(), usize::MAX)
        .await
        .unwrap();
    String::from_utf8_lossy(&body).into_owned()
}

fn app_over(sandboxes: &Sandboxes) -> axum::Router {
    let options = LeptosOptions::builder()
        .output_name("pocketpay-lab")
        .build();
    web::app(options, sandboxes.clone())
}

#[tokio::test]
async fn a_lock_holds_the_students_switches_and_outlives_a_restart() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::ClassPush;
    use pocketpay_lab::domain::class::Push;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let student = teach::join(&sandboxes, None, class.code.as_str(), "Imran")
        .await
        .unwrap();
    let route = &class.id[..9];
    assert!(
        route.ends_with("c1a5-"),
        "a class's id carries its route: {route}"
    );
    assert!(
        student.starts_with(route),
        "a class student's sandbox carries the class's route: {student}"
    );
    let key = format!("{}={}", secret_cookie(&class.id), class.secret);
    let app = app_over(&sandboxes);
    let put = |on: bool| {
        browser(
            "PUT",
            &format!("/api/sandboxes/{student}/safeguards"),
            None,
            Some(serde_json::json!({"idempotency_table": on})),
        )
    };
    let push = |p: Push| {
        browser(
            "POST",
            <ClassPush as ServerFn>::PATH,
            Some(&key),
            Some(serde_json::json!({"class": class.id, "push": p})),
        )
    };
    // A student's switch works before the lock.
    assert_eq!(app.clone().oneshot(put(false)).await.unwrap().status(), 200);
    let r = app
        .clone()
        .oneshot(push(Push::Lock { locked: true }))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(text(r).await, r#"{"took":1,"of":1}"#);
    // Locked: the student's own change is refused, and nothing changed.
    let r = app.clone().oneshot(put(true)).await.unwrap();
    assert_eq!(r.status(), 423);
    assert!(text(r).await.contains("locked-by-class"));
    let reset = browser(
        "POST",
        &format!("/api/sandboxes/{student}/reset"),
        None,
        None,
    );
    assert_eq!(app.clone().oneshot(reset).await.unwrap().status(), 423);
    let on = |sandboxes: Sandboxes, id: String| async move {
        sandboxes
            .get(&id)
            .await
            .unwrap()
            .state()
            .await
            .unwrap()
            .safeguards
            .is_on(pocketpay_lab::domain::Safeguard::IdempotencyTable)
    };
    assert!(!on(sandboxes.clone(), student.clone()).await);
    // The instructor's push still goes through.
    let r = app
        .clone()
        .oneshot(push(Push::Safeguard {
            safeguard: pocketpay_lab::domain::Safeguard::IdempotencyTable,
            on: true,
        }))
        .await
        .unwrap();
    assert_eq!(text(r).await, r#"{"took":1,"of":1}"#);
    assert!(on(sandboxes.clone(), student.clone()).await);
    // A restart: the lock is still there when the sandbox is loaded again.
    sandboxes.shutdown().await;
    let sandboxes = lab(dir.path(), Config::default()).await;
    let app = app_over(&sandboxes);
    assert_eq!(app.clone().oneshot(put(false)).await.unwrap().status(), 423);
    let r = app
        .clone()
        .oneshot(push(Push::Lock { locked: false }))
        .await
        .unwrap();
    assert_eq!(text(r).await, r#"{"took":1,"of":1}"#);
    assert_eq!(app.clone().oneshot(put(false)).await.unwrap().status(), 200);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn a_mirror_shows_a_sandbox_and_its_phone_and_gives_no_control() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::lab::rpc::{MirrorLink, MirrorState, ShowPhone};
    use pocketpay_lab::domain::phone_app::PhoneView;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let app = app_over(&sandboxes);
    let own = sandboxes
        .create(None, Some(7), pocketpay_lab::domain::ClockMode::Live)
        .await
        .unwrap()
        .id
        .to_string();
    let call = |path: &str, body: serde_json::Value| browser("POST", path, None, Some(body));
    let r = app
        .clone()
        .oneshot(call(
            <MirrorLink as ServerFn>::PATH,
            serde_json::json!({"sandbox": own}),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let token: String = serde_json::from_str(&text(r).await).unwrap();
    assert_eq!(token[..8], own[..8], "a mirror routes with its sandbox");
    assert_ne!(token, own);
    // Asked again: the same token.
    let again = app
        .clone()
        .oneshot(call(
            <MirrorLink as ServerFn>::PATH,
            serde_json::json!({"sandbox": own}),
        ))
        .await
        .unwrap();
    assert_eq!(
        serde_json::from_str::<String>(&text(again).await).unwrap(),
        token
    );
    // Its state says nothing of the sandbox's id; a wrong token is nothing.
    let r = app
        .clone()
        .oneshot(call(
            <MirrorState as ServerFn>::PATH,
            serde_json::json!({"token": token}),
        ))
        .await
        .unwrap();
    let body = text(r).await;
    assert!(body.contains("\"seed\":7"), "{body}");
    assert!(
        !body.contains(&own),
        "the mirror never sees the sandbox's id"
    );
    let r = app
        .clone()
        .oneshot(call(
            <MirrorState as ServerFn>::PATH,
            serde_json::json!({"token": own}),
        ))
        .await
        .unwrap();
    assert_eq!(text(r).await, "null", "a sandbox id is no mirror token");
    // The token opens no control: the API does not know it.
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            &format!("/api/sandboxes/{token}/reset"),
            None,
            None,
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // The page: 200 for the token, 404 for another.
    let page = |t: &str| browser("GET", &format!("/watch/{t}"), None, None);
    assert_eq!(
        app.clone().oneshot(page(&token)).await.unwrap().status(),
        200
    );
    assert_eq!(
        app.clone()
            .oneshot(page("c1a55000-0000-4000-8000-000000000000"))
            .await
            .unwrap()
            .status(),
        404
    );
    // The stream: the clock, what the screens share, the timeline; then the phone the lab's
    // own page shows, as it changes.
    let r = app
        .clone()
        .oneshot(browser(
            "GET",
            &format!("/watch/{token}/events"),
            None,
            None,
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut stream = r.into_body().into_data_stream();
    let mut seen = String::new();
    while !seen.contains("event: timeline") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("the mirror's stream flows")
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(
        seen.contains("event: presence\ndata: {\"phone\":null,\"locked\":false,\"frozen\":false}"),
        "{seen}"
    );
    assert!(!seen.contains(&own), "the stream never names the sandbox");
    let mut phone = PhoneView::untouched();
    phone.amount_text = Some("750".into());
    phone.key = Some("TXN-key".into());
    let r = app
        .clone()
        .oneshot(call(
            <ShowPhone as ServerFn>::PATH,
            serde_json::json!({"sandbox": own, "phone": phone}),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut seen = String::new();
    while !seen.contains("\"amount_text\":\"750\"") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("the phone comes to the mirror")
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    // A phone with a text field no phone has is refused.
    phone.key = Some("k".repeat(PhoneView::TEXT_MAX + 1));
    let r = app
        .clone()
        .oneshot(call(
            <ShowPhone as ServerFn>::PATH,
            serde_json::json!({"sandbox": own, "phone": phone}),
        ))
        .await
        .unwrap();
    assert!(!r.status().is_success());
    drop(stream);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn the_instructor_alone_opens_a_students_lab_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let other = sandboxes.classes().create(None).await.unwrap();
    let student = teach::join(&sandboxes, None, class.code.as_str(), "Tithi")
        .await
        .unwrap();
    let stranger = teach::join(&sandboxes, None, other.code.as_str(), "Imran")
        .await
        .unwrap();
    let app = app_over(&sandboxes);
    let key = format!("{}={}", secret_cookie(&class.id), class.secret);
    let open = |who: &str, cookie: Option<&str>| {
        browser(
            "GET",
            &format!("/teach/{}/students/{who}/open", class.id),
            cookie,
            None,
        )
    };
    for cookie in [None, Some(format!("{}=guess", secret_cookie(&class.id)))] {
        let r = app
            .clone()
            .oneshot(open(&student, cookie.as_deref()))
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{cookie:?}");
    }
    // Another class's student is not this instructor's to look at.
    let r = app
        .clone()
        .oneshot(open(&stranger, Some(&key)))
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = app
        .clone()
        .oneshot(open(&student, Some(&key)))
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let to = r.headers()[header::LOCATION].to_str().unwrap().to_owned();
    assert!(to.starts_with(&format!("/watch/{}", &student[..9])), "{to}");
    assert!(!to.contains(&student[9..]), "the link gives no control");
    let r = app
        .clone()
        .oneshot(browser("GET", &to, None, None))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let page = text(r).await;
    assert!(page.contains("data-readonly=\"true\""), "a read-only lab");
    assert!(!page.contains(&student), "the page never names the sandbox");
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn the_summary_counts_reach_steps_and_shared_scores_and_downloads_as_csv() {
    use pocketpay_lab::domain::course;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let classes = sandboxes.classes().clone();
    let class = classes.create(None).await.unwrap();
    let mut ids = Vec::new();
    for name in ["Shimul", "Tithi", "Imran"] {
        ids.push(
            teach::join(&sandboxes, None, class.code.as_str(), name)
                .await
                .unwrap(),
        );
    }
    let steps = course::chapter(1).unwrap().steps.len() as u8;
    // Shimul finishes chapter 1 and opens 2; Tithi ticks steps 1 and 3 of chapter 1 (saved
    // ticks and new ones add up); Imran opens nothing.
    let all = Progress {
        chapter: 1,
        steps_done: steps,
        ticked: ((1u32 << steps) - 1) as u16,
    };
    assert!(classes.record(&ids[0], all).await.unwrap());
    assert!(classes.record(&ids[0], Progress::new(2, 0)).await.unwrap());
    for ticked in [0b001, 0b100] {
        let p = Progress {
            chapter: 1,
            steps_done: 1,
            ticked,
        };
        assert!(classes.record(&ids[1], p).await.unwrap());
    }
    let beyond = Progress {
        chapter: 1,
        steps_done: 1,
        ticked: 1 << steps,
    };
    assert!(matches!(
        classes.record(&ids[1], beyond).await,
        Err(LabError::Invalid(_))
    ));
    // Answers shared by Tithi, marked by the server: one right, one wrong; a question the
    // quiz does not have is refused.
    let answers = two_answers_one_right();
    assert_eq!(
        classes.share_quiz(&ids[1], &answers).await.unwrap(),
        Some((1, 2))
    );
    let mut unknown = answers.clone();
    unknown.insert("no-such-question".into(), Answer::Option(1));
    assert!(matches!(
        classes.share_quiz(&ids[1], &unknown).await,
        Err(LabError::Invalid(_))
    ));
    assert_eq!(
        classes
            .share_quiz("no-such-sandbox", &answers)
            .await
            .unwrap(),
        None
    );
    let summary = classes.summary(&class.id).await.unwrap();
    let chapters = summary.chapters();
    assert_eq!(chapters[0].reached, 2);
    assert_eq!(chapters[0].steps[0], 2);
    assert_eq!(chapters[0].steps[1], 1);
    assert_eq!(chapters[0].steps[2], 2);
    assert_eq!(chapters[1].reached, 1);
    assert_eq!(chapters[2].reached, 0);
    assert_eq!(summary.shared().collect::<Vec<_>>(), vec![("Tithi", 1, 2)]);
    // The CSV: the instructor's browser only.
    let app = app_over(&sandboxes);
    let path = format!("/teach/{}/summary.csv", class.id);
    let r = app
        .clone()
        .oneshot(browser("GET", &path, None, None))
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let key = format!("{}={}", secret_cookie(&class.id), class.secret);
    let r = app
        .clone()
        .oneshot(browser("GET", &path, Some(&key), None))
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()[header::CONTENT_TYPE], "text/csv; charset=utf-8");
    assert!(r.headers()[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains(class.code.as_str()));
    let csv = text(r).await;
    let csv = csv.strip_prefix('\u{FEFF}').expect("a byte order mark");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(
        lines[1].starts_with(&format!("Shimul,2,{steps},0,")),
        "{csv}"
    );
    assert!(lines[2].starts_with("Tithi,1,2,,"), "{csv}");
    let questions = pocketpay_lab::domain::quiz::QUESTIONS.len();
    let rest = ",".repeat(questions - 2);
    assert!(
        lines[2].ends_with(&format!(",1,2,none,none,1,0{rest}")),
        "{csv}"
    );
    assert!(lines[3].starts_with("Imran,,,"), "{csv}");
    sandboxes.shutdown().await;
}

/// A request to a server function as another site's page would send it from the instructor's
/// (or a student's) browser: their cookie, a foreign `Origin` or `Sec-Fetch-Site: cross-site`,
/// and a body of any type.
fn cross_site(path: &str, cookie: &str, how: usize, body: &serde_json::Value) -> Request<Body> {
    let r = Request::post(path)
        .header(header::HOST, "lab.test")
        .header(header::COOKIE, cookie);
    let r = match how {
        0 => r
            .header(header::ORIGIN, "http://evil.example")
            .header(header::CONTENT_TYPE, "text/plain"),
        1 => r
            .header(header::ORIGIN, "http://evil.example")
            .header(header::CONTENT_TYPE, "application/json"),
        _ => r
            .header("sec-fetch-site", "cross-site")
            .header(header::CONTENT_TYPE, "application/json"),
    };
    r.body(Body::from(body.to_string())).unwrap()
}

#[tokio::test]
async fn no_other_site_moves_a_class_through_any_server_function() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{
        ClassHandOver, ClassMessage, ClassPage, ClassPush, ClassRemove, ClassRename, ClassShow,
        ClassWithdraw, CreateClass, FindHandOver, JoinClass, MyClasses, ReadClassSummary,
        ReportProgress, ShareQuiz, TakeClass,
    };
    use pocketpay_lab::app::lab::rpc::{ChangeSafeguards, ClockControl, ResetSandbox};
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let student = teach::join(&sandboxes, None, class.code.as_str(), "Shimul")
        .await
        .unwrap();
    let app = app_over(&sandboxes);
    let key = format!(
        "{}={}; pocketpay_sandbox={student}",
        secret_cookie(&class.id),
        class.secret
    );
    let (holder, token) = sandboxes
        .classes()
        .hand_over(&class.id, "Hall PC")
        .await
        .unwrap();
    let calls = [
        (
            <ClassRename as ServerFn>::PATH,
            serde_json::json!({"class": class.id, "sandbox": student, "name": "Mallory"}),
        ),
        (
            <ClassHandOver as ServerFn>::PATH,
            serde_json::json!({"class": class.id, "name": "Mallory"}),
        ),
        (
            <ClassWithdraw as ServerFn>::PATH,
            serde_json::json!({"class": class.id, "holder": holder.id}),
        ),
        (
            <TakeClass as ServerFn>::PATH,
            serde_json::json!({"token": token}),
        ),
        (
            <FindHandOver as ServerFn>::PATH,
            serde_json::json!({"token": token}),
        ),
        (
            <ClassShow as ServerFn>::PATH,
            serde_json::json!({"code": class.code.as_str()}),
        ),
        (
            <ClassPush as ServerFn>::PATH,
            serde_json::json!({"class": class.id, "push": {"push": "reset"}}),
        ),
        (
            <ClassPush as ServerFn>::PATH,
            serde_json::json!({"class": class.id, "push": {"push": "lock", "locked": true}}),
        ),
        (<CreateClass as ServerFn>::PATH, serde_json::json!({})),
        (
            <ClassMessage as ServerFn>::PATH,
            serde_json::json!({"class": class.id, "text": "hello"}),
        ),
        (
            <ClassRemove as ServerFn>::PATH,
            serde_json::json!({"class": class.id, "sandbox": student}),
        ),
        (<MyClasses as ServerFn>::PATH, serde_json::json!({})),
        (
            <JoinClass as ServerFn>::PATH,
            serde_json::json!({"code": class.code.as_str(), "name": "Mallory"}),
        ),
        (
            <ReportProgress as ServerFn>::PATH,
            serde_json::json!({"sandbox": student, "report": {"chapter": 9}}),
        ),
        (
            <ShareQuiz as ServerFn>::PATH,
            serde_json::json!({"answers": two_answers_one_right()}),
        ),
        (
            <ReadClassSummary as ServerFn>::PATH,
            serde_json::json!({"class": class.id}),
        ),
        (
            <ClassPage as ServerFn>::PATH,
            serde_json::json!({"class": class.id}),
        ),
        (
            <ChangeSafeguards as ServerFn>::PATH,
            serde_json::json!({"sandbox": student, "changes": {"idempotency_table": false}}),
        ),
        (
            <ClockControl as ServerFn>::PATH,
            serde_json::json!({"sandbox": student, "command": {"op": "advance", "seconds": 86400}}),
        ),
        (
            <ResetSandbox as ServerFn>::PATH,
            serde_json::json!({"sandbox": student}),
        ),
    ];
    let before = sandboxes
        .get(&student)
        .await
        .unwrap()
        .state()
        .await
        .unwrap();
    for (path, body) in &calls {
        for how in 0..3 {
            let r = app
                .clone()
                .oneshot(cross_site(path, &key, how, body))
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path} way {how}");
            assert_eq!(
                r.headers()[header::CONTENT_TYPE],
                "application/problem+json",
                "{path}"
            );
            assert!(text(r).await.contains("foreign-origin"), "{path}");
        }
        // From the lab's own page, a body that is not JSON is refused before it is read.
        let r = app
            .clone()
            .oneshot(
                Request::post(*path)
                    .header(header::HOST, "lab.test")
                    .header(header::ORIGIN, "http://lab.test")
                    .header(header::COOKIE, &key)
                    .header(header::CONTENT_TYPE, "text/plain")
                    .body(Body::from(body.to_string()))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "{path}");
    }
    // Nothing moved: the sandbox, the class's students, its lock, its reach and scores.
    let after = sandboxes
        .get(&student)
        .await
        .unwrap()
        .state()
        .await
        .unwrap();
    // The clock runs live, so it moved a little; a day's jump would show.
    assert_eq!(after.clock.mode, before.clock.mode);
    assert!(after.clock.now_ms - before.clock.now_ms < 60_000);
    assert_eq!(after.safeguards, before.safeguards);
    assert_eq!(after.last_event_id(), before.last_event_id());
    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    assert_eq!(view.students.len(), 1, "no row removed");
    assert_eq!(view.students[0].name, "Shimul", "no row renamed");
    assert_eq!(view.holders.len(), 1, "no hand-over made or withdrawn");
    assert_eq!(view.holders[0].taken_ms, None, "the link not taken");
    assert!(!view.locked);
    assert_eq!(view.cue.message, None, "no message sent");
    assert!(view.history.is_empty());
    assert_eq!(view.students[0].progress, None);
    let summary = sandboxes.classes().summary(&class.id).await.unwrap();
    assert_eq!(summary.students[0].quiz, None);
    // The language switch is a form, and another site may not send it either.
    let r = app
        .clone()
        .oneshot(
            Request::post("/lang")
                .header(header::HOST, "lab.test")
                .header(header::ORIGIN, "http://evil.example")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from("lang=en&back=/"))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn a_server_functions_refusal_is_a_4xx_problem_its_page_still_reads() {
    use leptos::server_fn::error::FromServerFnError;
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{ClassPush, FindClass};
    use pocketpay_lab::app::error::FnError;
    use pocketpay_lab::app::lab::rpc::{ChangeSafeguards, ClockControl, GetState};
    use pocketpay_lab::domain::class::Push;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let student = teach::join(&sandboxes, None, class.code.as_str(), "Tithi")
        .await
        .unwrap();
    let app = app_over(&sandboxes);
    let key = format!("{}={}", secret_cookie(&class.id), class.secret);
    let call = |path: &str, cookie: Option<&str>, body: serde_json::Value| {
        let app = app.clone();
        let request = browser("POST", path, cookie, Some(body));
        async move {
            let r = app.oneshot(request).await.unwrap();
            let status = r.status().as_u16();
            let kind = r.headers().get(header::CONTENT_TYPE).cloned();
            let retry = r.headers().get(header::RETRY_AFTER).cloned();
            let body = axum::body::to_bytes(r.into_body(), usize::MAX)
                .await
                .unwrap();
            (status, kind, retry, body)
        }
    };
    let push = |p: Push| serde_json::json!({"class": class.id, "push": p});
    // Not the class's key: 403, as problem+json, which the page reads back as its own error.
    let (status, kind, _, body) = call(
        <ClassPush as ServerFn>::PATH,
        None,
        push(Push::Lock { locked: true }),
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(kind.unwrap(), "application/problem+json");
    let problem: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(problem["type"], "urn:pocketpay-lab:problem:not-your-class");
    assert_eq!(problem["status"], 403);
    assert_eq!(FnError::de(body), FnError::NotYourClass);
    // Locked: a student's own switch is 423.
    let (status, ..) = call(
        <ClassPush as ServerFn>::PATH,
        Some(&key),
        push(Push::Lock { locked: true }),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, _, body) = call(
        <ChangeSafeguards as ServerFn>::PATH,
        None,
        serde_json::json!({"sandbox": student, "changes": {"idempotency_table": false}}),
    )
    .await;
    assert_eq!(status, 423);
    assert_eq!(FnError::de(body), FnError::Locked);
    // A bad argument: 400, naming it.
    let (status, _, _, body) = call(
        <ChangeSafeguards as ServerFn>::PATH,
        None,
        serde_json::json!({"sandbox": student, "changes": {"no_such_guard": true}}),
    )
    .await;
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    let (status, ..) = call(
        <GetState as ServerFn>::PATH,
        None,
        serde_json::json!({"sandbox": 7}),
    )
    .await;
    assert_eq!(status, 400);
    // Frozen: the student's own clock is 423 on both paths; the instructor's thaw works.
    let (status, ..) = call(
        <ClassPush as ServerFn>::PATH,
        Some(&key),
        push(Push::Freeze { frozen: true }),
    )
    .await;
    assert_eq!(status, 200);
    let clock_now = |sandboxes: Sandboxes, id: String| async move {
        sandboxes
            .get(&id)
            .await
            .unwrap()
            .state()
            .await
            .unwrap()
            .clock
    };
    let frozen_at = clock_now(sandboxes.clone(), student.clone()).await;
    assert_eq!(frozen_at.mode, pocketpay_lab::domain::ClockMode::Paused);
    for (command, rest) in [
        (
            serde_json::json!({"op": "resume"}),
            serde_json::json!({"mode": "live"}),
        ),
        (
            serde_json::json!({"op": "advance", "seconds": 86400}),
            serde_json::json!({"advance_seconds": 86400}),
        ),
    ] {
        let (status, _, _, body) = call(
            <ClockControl as ServerFn>::PATH,
            None,
            serde_json::json!({"sandbox": student, "command": command}),
        )
        .await;
        assert_eq!(status, 423, "{command}");
        assert_eq!(FnError::de(body), FnError::Frozen);
        let r = app
            .clone()
            .oneshot(browser(
                "POST",
                &format!("/api/sandboxes/{student}/clock"),
                None,
                Some(rest.clone()),
            ))
            .await
            .unwrap();
        assert_eq!(r.status(), 423, "{rest}");
        assert!(text(r).await.contains("frozen-by-class"));
    }
    assert_eq!(
        clock_now(sandboxes.clone(), student.clone()).await,
        frozen_at
    );
    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    assert!(view.frozen && view.locked, "the view carries both holds");
    let (status, ..) = call(
        <ClassPush as ServerFn>::PATH,
        Some(&key),
        push(Push::Freeze { frozen: false }),
    )
    .await;
    assert_eq!(status, 200);
    let (status, ..) = call(
        <ClockControl as ServerFn>::PATH,
        None,
        serde_json::json!({"sandbox": student, "command": {"op": "advance", "seconds": 60}}),
    )
    .await;
    assert_eq!(status, 200);
    // Guessing codes: 429 with Retry-After once the guesses run out.
    let mut busy = None;
    for i in 0..100u64 {
        let code = ClassCode::from_bits(i * 7919 + 3);
        if code == class.code {
            continue;
        }
        let (status, _, retry, _) = call(
            <FindClass as ServerFn>::PATH,
            None,
            serde_json::json!({"code": code.as_str()}),
        )
        .await;
        if status == 429 {
            busy = retry;
            break;
        }
        assert_eq!(status, 404);
    }
    assert!(busy.is_some(), "429 with Retry-After");
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn every_door_to_a_code_shares_one_limit_and_a_real_student_still_joins() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{FindClass, JoinClass};
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let app = app_over(&sandboxes);
    let page = |code: String| {
        let app = app.clone();
        async move {
            let r = app
                .oneshot(browser("GET", &format!("/join/{code}"), None, None))
                .await
                .unwrap();
            (r.status(), r.headers().get(header::RETRY_AFTER).cloned())
        }
    };
    // Guesses through the join page: 404 each, then 429 with Retry-After.
    let mut guesses = 0;
    loop {
        let code = ClassCode::from_bits(guesses * 104_729 + 11);
        guesses += 1;
        assert!(guesses < 100, "the page's guesses are never held back");
        if code == class.code {
            continue;
        }
        let (status, retry) = page(code.as_str().to_owned()).await;
        if status == StatusCode::TOO_MANY_REQUESTS {
            assert!(retry.is_some());
            break;
        }
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
    // The same limit holds at the server function's door.
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <FindClass as ServerFn>::PATH,
            None,
            Some(serde_json::json!({"code": ClassCode::from_bits(5).as_str()})),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    // During the flood the real code still opens its page, finds its class, and joins.
    let (status, _) = page(class.code.as_str().to_owned()).await;
    assert_eq!(status, StatusCode::OK);
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <JoinClass as ServerFn>::PATH,
            None,
            Some(serde_json::json!({"code": class.code.as_str(), "name": "Imran"})),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "{}", text(r).await);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn a_look_alike_of_a_classmates_name_is_refused_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let code = class.code.as_str();
    for name in ["রাফি আহমেদ", "Nusrat \"Nus\", Jahan"] {
        teach::join(&sandboxes, None, code, name).await.unwrap();
    }
    for look_alike in [
        "রাফি আহমেদ\u{200B}",
        "রাফি\u{200B} আহমেদ",
        "রাফি  আহমেদ",
        "nusrat \"nus\", jahan",
        "NUSRAT \u{2066}\"Nus\", Jahan\u{2069}",
    ] {
        match teach::join(&sandboxes, None, code, look_alike).await {
            Err(e @ LabError::NameLookAlike(_)) => {
                assert_eq!(e.status(), 409);
                assert!(e.to_string().contains("looks the same"), "{e}");
            }
            Err(LabError::NameTaken) => {} // cleaned to the very same name
            other => panic!("{look_alike:?}: {other:?}"),
        }
    }
    // NFC: a letter written as two code points is the same letter.
    teach::join(&sandboxes, None, code, "José").await.unwrap();
    assert!(matches!(
        teach::join(&sandboxes, None, code, "Jose\u{301}").await,
        Err(LabError::NameLookAlike(_))
    ));
    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    assert_eq!(view.students.len(), 3);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn progress_is_what_the_server_saw_not_what_the_browser_claims() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{ReportProgress, ShareQuiz};
    use pocketpay_lab::domain::class::ChapterReport;
    use pocketpay_lab::domain::course;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let student = teach::join(&sandboxes, None, class.code.as_str(), "Shimul")
        .await
        .unwrap();
    let app = app_over(&sandboxes);
    let cookie = format!("pocketpay_sandbox={student}");
    // The browser's old claim, steps and ticks of a chapter never run: no such argument.
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <ReportProgress as ServerFn>::PATH,
            None,
            Some(serde_json::json!({
                "sandbox": student,
                "progress": {"chapter": 9, "steps_done": 6, "ticked": 63},
            })),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    // Chapter 09 open, every look claimed: the sandbox never loaded it, so nothing is done.
    let every_look: Vec<String> = course::CHAPTERS
        .iter()
        .flat_map(|c| c.steps.iter().flat_map(|s| s.check.looks()))
        .map(str::to_owned)
        .collect();
    let report = |chapter: u8| {
        browser(
            "POST",
            <ReportProgress as ServerFn>::PATH,
            None,
            Some(serde_json::json!({
                "sandbox": student,
                "report": ChapterReport { chapter, looked: every_look.clone() },
                "steps_done": 6,
            })),
        )
    };
    let r = app.clone().oneshot(report(9)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(text(r).await, "true");
    let row = |sandboxes: Sandboxes| {
        let (id, code) = (class.id.clone(), class.code.clone());
        async move {
            teach::view(&sandboxes, &id, code).await.unwrap().students[0]
                .progress
                .unwrap()
        }
    };
    let p = row(sandboxes.clone()).await;
    assert_eq!((p.chapter, p.steps_done, p.ticked), (9, 0, 0));
    // Chapter 01's preset loaded in the sandbox: its first step is done, as the server saw.
    let ch1 = course::chapter(1).unwrap();
    let preset = pocketpay_lab::domain::scenario::preset(ch1.scenario, ch1.variant).unwrap();
    sandboxes
        .get(&student)
        .await
        .unwrap()
        .load_scenario(preset)
        .await
        .unwrap();
    let r = app.clone().oneshot(report(1)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let p = row(sandboxes.clone()).await;
    assert_eq!(p.chapter, 1);
    assert_eq!(p.ticked & 1, 1, "step 1: the preset is loaded");
    assert!(
        !Progress::finished(p),
        "the rest waits for what the student does"
    );
    // Then a reset: what was done stays done in the summary, a history.
    sandboxes
        .get(&student)
        .await
        .unwrap()
        .reset()
        .await
        .unwrap();
    let r = app.clone().oneshot(report(1)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let summary = sandboxes.classes().summary(&class.id).await.unwrap();
    assert_eq!(summary.students[0].reached[0].map(|bits| bits & 1), Some(1));
    assert_eq!(summary.students[0].reached[8], Some(0));
    // A perfect score claimed as a total: no such argument; the answers are marked instead.
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <ShareQuiz as ServerFn>::PATH,
            Some(&cookie),
            Some(serde_json::json!({"correct": 18, "answered": 18})),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <ShareQuiz as ServerFn>::PATH,
            Some(&cookie),
            Some(serde_json::json!({"answers": two_answers_one_right()})),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(text(r).await, "[1,2]");
    let summary = sandboxes.classes().summary(&class.id).await.unwrap();
    assert_eq!(summary.students[0].quiz, Some((1, 2)));
    assert_eq!(
        &summary.students[0].quiz_marks[..3],
        &[Some(true), Some(false), None]
    );
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn a_class_made_before_the_server_saw_progress_still_opens() {
    // The classes store as the two migrations before this change left it, with a class, a
    // student, a reach and a shared score in it.
    let dir = tempfile::tempdir().unwrap();
    let old = tempfile::tempdir().unwrap();
    for file in ["0001_classes.sql", "0002_lock_reach_quiz_mirrors.sql"] {
        std::fs::copy(
            std::path::Path::new("migrations/classes").join(file),
            old.path().join(file),
        )
        .unwrap();
    }
    // A student of an old class: its sandbox id starts with the one prefix every class
    // student then had.
    let student = uuid::Uuid::parse_str("c1a55000-7d2e-4b0a-9c41-5e8f3a2b1c07").unwrap();
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(dir.path().join("classes.sqlite"))
            .create_if_missing(true);
        // One connection, closed (its file let go) before any lab opens the store.
        let mut pool = <sqlx::sqlite::SqliteConnection as sqlx::Connection>::connect_with(&options)
            .await
            .unwrap();
        sqlx::migrate::Migrator::new(old.path())
            .await
            .unwrap()
            .run(&mut pool)
            .await
            .unwrap();
        let secret_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"; // "test"
        let now = pocketpay_lab::server::classes::now_ms();
        sqlx::query(
            "INSERT INTO classes (id, code, secret_sha256, created_ms, used_ms, locked)
             VALUES ('c', 'HKM479', ?1, ?2, ?2, 1)",
        )
        .bind(secret_sha256)
        .bind(now)
        .execute(&mut pool)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO students (sandbox, class_id, name, joined_ms, chapter, steps_done,
               progress_ms, harm)
             VALUES (?1, 'c', 'Nusrat', ?2, 1, 2, ?2, 'money')",
        )
        .bind(student.to_string())
        .bind(now)
        .execute(&mut pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO reached (sandbox, chapter, steps) VALUES (?1, 1, 3)")
            .bind(student.to_string())
            .execute(&mut pool)
            .await
            .unwrap();
        sqlx::query(
            "INSERT INTO quiz_scores (sandbox, correct, answered, shared_ms) VALUES (?1, 5, 6, 0)",
        )
        .bind(student.to_string())
        .execute(&mut pool)
        .await
        .unwrap();
        sqlx::Connection::close(pool).await.unwrap();
    }
    // The student's sandbox, made the way a join made it, by a lab of its own (so that no
    // other lab has had this data folder open), then put where this lab keeps sandboxes.
    let elsewhere = tempfile::tempdir().unwrap();
    let maker = lab(elsewhere.path(), Config::default()).await;
    maker
        .create(
            Some(student),
            Some(4),
            pocketpay_lab::domain::ClockMode::Paused,
        )
        .await
        .unwrap();
    maker.shutdown().await;
    std::fs::create_dir_all(dir.path().join("sandboxes")).unwrap();
    std::fs::rename(
        elsewhere.path().join("sandboxes").join(student.to_string()),
        dir.path().join("sandboxes").join(student.to_string()),
    )
    .unwrap();
    // Opened by this server: the class, its key, its student, their history, their lab.
    let sandboxes = lab(dir.path(), Config::default()).await;
    let classes = sandboxes.classes().clone();
    let code = classes.authorize("c", Some("test")).await.unwrap();
    let view = teach::view(&sandboxes, "c", code).await.unwrap();
    assert_eq!(view.students.len(), 1);
    assert!(view.locked && !view.frozen);
    assert_eq!(view.students[0].progress, Some(Progress::new(1, 2)));
    let summary = classes.summary("c").await.unwrap();
    assert_eq!(summary.students[0].reached[0], Some(3));
    assert_eq!(summary.students[0].quiz, Some((5, 6)));
    assert_eq!(summary.students[0].harm_seen, Harm::Money);
    assert!(summary.students[0].quiz_marks.is_empty());
    let handle = sandboxes.get(&student.to_string()).await.unwrap();
    assert_eq!(handle.state().await.unwrap().seed, 4);
    assert!(handle.unlocked().is_err(), "the old lock holds");
    // Its old name gets its key: a look-alike is refused.
    assert!(matches!(
        teach::join(&sandboxes, None, "HKM479", "NUSRAT").await,
        Err(LabError::NameLookAlike(_))
    ));
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn a_link_from_another_site_to_the_class_page_comes_in_again_from_this_one() {
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let app = app_over(&sandboxes);
    let page = |cross_site: bool| {
        let mut r = Request::get(format!("/teach/{}", class.id)).header(header::HOST, "lab.test");
        if cross_site {
            r = r.header("sec-fetch-site", "cross-site");
        }
        r.body(Body::empty()).unwrap()
    };
    // The key is SameSite=Strict, so a link from another site arrives without it: a page that
    // loads the same address again, now from this site, which carries the key.
    let r = app.clone().oneshot(page(true)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
    let body = text(r).await;
    assert!(body.contains(r#"http-equiv="refresh""#), "{body}");
    assert!(
        !body.contains(class.code.as_str()),
        "it shows nothing of the class"
    );
    // From this site without the key: refused, as before.
    let r = app.clone().oneshot(page(false)).await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn a_push_opens_its_chapter_a_message_reaches_every_screen_and_both_are_kept() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{ClassMessage, ReportProgress};
    use pocketpay_lab::domain::class::{ChapterReport, Push};
    use pocketpay_lab::domain::scenario::Variant;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let class = sandboxes.classes().create(None).await.unwrap();
    let mut students = Vec::new();
    for name in ["Shimul", "Tithi"] {
        students.push(
            teach::join(&sandboxes, None, class.code.as_str(), name)
                .await
                .unwrap(),
        );
    }
    let app = app_over(&sandboxes);
    let key = format!("{}={}", secret_cookie(&class.id), class.secret);
    let message = |cookie: Option<&str>, text: &str| {
        browser(
            "POST",
            <ClassMessage as ServerFn>::PATH,
            cookie,
            Some(serde_json::json!({"class": class.id, "text": text})),
        )
    };
    // Not the instructor's browser, or no words: refused, and nothing shown.
    let r = app.clone().oneshot(message(None, "hello")).await.unwrap();
    assert!(r.status().is_client_error());
    for bad in ["   ", "two\nlines"] {
        let r = app.clone().oneshot(message(Some(&key), bad)).await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{bad:?}");
        assert!(text(r).await.contains("text"));
    }
    let presence = |id: String| {
        let sandboxes = sandboxes.clone();
        async move {
            sandboxes
                .get(&id)
                .await
                .unwrap()
                .watch_presence()
                .borrow()
                .clone()
        }
    };
    assert_eq!(presence(students[0].clone()).await.cue.message, None);
    // The message: on every running lab's screen.
    let r = app
        .clone()
        .oneshot(message(Some(&key), "  অধ্যায় ০৮: ধাপ ৫ করুন "))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    for id in &students {
        let cue = presence(id.clone()).await.cue;
        assert_eq!(cue.message.unwrap().text, "অধ্যায় ০৮: ধাপ ৫ করুন");
    }
    // The replay trap, unguarded: chapter 08 at its step 5, on every screen.
    teach::push(
        &sandboxes,
        &class.id,
        Push::Preset {
            scenario: 11,
            variant: Variant::Unguarded,
        },
    )
    .await
    .unwrap();
    for id in &students {
        let open = presence(id.clone()).await.cue.open.unwrap();
        assert_eq!((open.chapter, open.step), (8, 4));
    }
    // The student does the trap; the server ticks step 5 though steps 1 to 4 were never done.
    use pocketpay_lab::domain::ClockCommand::{Advance, Pause};
    let h = sandboxes.get(&students[0]).await.unwrap();
    h.clock(vec![Pause]).await.unwrap();
    // Started, not awaited: the paused clock carries it when it advances.
    let _answer = h
        .start_transfer(pocketpay_lab::server::calls::TransferRequest::new(
            "shimul",
            pocketpay_lab::domain::transfer::IdempotencyKey::parse(Some("k")).unwrap(),
            pocketpay_lab::domain::TransferBody {
                to: "tithi".into(),
                amount: 500,
            },
            "intent-k".into(),
        ))
        .await
        .unwrap();
    h.clock(vec![Advance {
        seconds: 2 * 86_400,
    }])
    .await
    .unwrap();
    h.replay(
        serde_json::from_value(
            serde_json::json!({"consumer": "wallet", "from_seconds_ago": 5 * 86_400}),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    h.clock(vec![Advance { seconds: 60 }]).await.unwrap();
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <ReportProgress as ServerFn>::PATH,
            None,
            Some(serde_json::json!({
                "sandbox": students[0],
                "report": ChapterReport { chapter: 8, looked: vec![] },
            })),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    let p = view
        .students
        .iter()
        .find(|s| s.sandbox == students[0])
        .unwrap()
        .progress
        .unwrap();
    assert_eq!(
        (p.chapter, p.steps_done),
        (8, 1),
        "step 5 alone, as the server saw it"
    );
    let summary = sandboxes.classes().summary(&class.id).await.unwrap();
    let shimul = summary
        .students
        .iter()
        .find(|s| s.name == "Shimul")
        .unwrap();
    assert_eq!(shimul.reached[7], Some(1 << 4));
    // A third, a ghost row: removed, its sandbox stays but leaves the class's hold.
    let ghost = teach::join(&sandboxes, None, class.code.as_str(), "Shimul 2")
        .await
        .unwrap();
    assert!(presence(ghost.clone()).await.cue.open.is_some());
    teach::remove(&sandboxes, &class.id, &ghost).await.unwrap();
    assert!(!sandboxes.classes().is_student(&ghost).await.unwrap());
    assert_eq!(presence(ghost.clone()).await.cue, Default::default());
    assert!(sandboxes.get(&ghost).await.is_ok(), "the sandbox stays");
    assert!(matches!(
        teach::remove(&sandboxes, &class.id, &ghost).await,
        Err(LabError::NotFound)
    ));
    // The history, newest first, and the cue: kept with the class, across a restart.
    sandboxes.shutdown().await;
    let sandboxes = lab(dir.path(), Config::default()).await;
    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    assert_eq!(view.history.len(), 2);
    assert!(view.history[0].what.push.is_some() && view.history[0].what.message.is_none());
    assert_eq!(
        view.history[1].what.message.as_deref(),
        Some("অধ্যায় ০৮: ধাপ ৫ করুন")
    );
    assert_eq!((view.history[0].took, view.history[0].of), (2, 2));
    assert_eq!(view.cue.open.map(|o| o.chapter), Some(8));
    // A sandbox loaded after the restart shows the class's cue.
    let cue = sandboxes
        .get(&students[1])
        .await
        .unwrap()
        .watch_presence()
        .borrow()
        .cue
        .clone();
    assert_eq!(cue, view.cue);
    sandboxes.shutdown().await;
}

#[tokio::test]
async fn teach_lists_the_classes_this_browser_holds_keys_to_with_their_names() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{CreateClass, MyClasses};
    use pocketpay_lab::domain::class::MyClass;
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let app = app_over(&sandboxes);
    // A name too long: refused, naming it.
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <CreateClass as ServerFn>::PATH,
            None,
            Some(serde_json::json!({"name": "x".repeat(61)})),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(text(r).await.contains("name"));
    // Two classes made by this browser, one named; its cookies are their keys.
    let mut cookies = Vec::new();
    for name in [Some("CSE 311, সেকশন B"), None] {
        let body = match name {
            Some(n) => serde_json::json!({"name": n}),
            None => serde_json::json!({}),
        };
        let r = app
            .clone()
            .oneshot(browser(
                "POST",
                <CreateClass as ServerFn>::PATH,
                None,
                Some(body),
            ))
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let set = r.headers()[header::SET_COOKIE].to_str().unwrap().to_owned();
        cookies.push(set.split(';').next().unwrap().to_owned());
    }
    // Another instructor's class, and a key that fits nothing: not listed.
    let other = sandboxes.classes().create(None).await.unwrap();
    teach::join(&sandboxes, None, other.code.as_str(), "Imran")
        .await
        .unwrap();
    cookies.push(format!("{}=guess", secret_cookie(&other.id)));
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <MyClasses as ServerFn>::PATH,
            Some(&cookies.join("; ")),
            Some(serde_json::json!({})),
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let mine: Vec<MyClass> = serde_json::from_str(&text(r).await).unwrap();
    assert_eq!(mine.len(), 2);
    assert!(mine.iter().any(|c| c.name == "CSE 311, সেকশন B"));
    assert!(mine.iter().all(|c| c.id != other.id && c.students == 0));
    // No keys: no classes.
    let r = app
        .clone()
        .oneshot(browser(
            "POST",
            <MyClasses as ServerFn>::PATH,
            None,
            Some(serde_json::json!({})),
        ))
        .await
        .unwrap();
    assert_eq!(text(r).await, "[]");
    sandboxes.shutdown().await;
}

/// The response's first `Set-Cookie`, as a browser sends it back (`name=value`).
fn cookie_set(r: &axum::response::Response) -> String {
    r.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_class_is_handed_over_once_withdrawn_renamed_and_shown_without_a_key() {
    use leptos::server_fn::ServerFn;
    use pocketpay_lab::app::class::{
        ClassHandOver, ClassPage, ClassRename, ClassShow, ClassWithdraw, FindHandOver, TakeClass,
    };
    use pocketpay_lab::domain::class::{ClassShow as Shown, HandOver};
    let dir = tempfile::tempdir().unwrap();
    let sandboxes = lab(dir.path(), Config::default()).await;
    let classes = sandboxes.classes().clone();
    let class = classes.create(None).await.unwrap();
    classes.set_name(&class.id, "CSE 311").await.unwrap();
    let shimul = teach::join(&sandboxes, None, class.code.as_str(), "Shimul")
        .await
        .unwrap();
    let ghost = teach::join(&sandboxes, None, class.code.as_str(), "Shimul 2")
        .await
        .unwrap();
    let app = app_over(&sandboxes);
    let key = format!("{}={}", secret_cookie(&class.id), class.secret);
    let call = |path: &'static str, cookie: Option<String>, body: serde_json::Value| {
        let app = app.clone();
        async move {
            app.oneshot(browser("POST", path, cookie.as_deref(), Some(body)))
                .await
                .unwrap()
        }
    };
    let rename = <ClassRename as ServerFn>::PATH;
    // A ghost row renamed to a classmate's name: refused, naming why; to a free one: kept.
    let r = call(
        rename,
        Some(key.clone()),
        serde_json::json!({"class": class.id, "sandbox": ghost, "name": "shimul"}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(text(r).await.contains("name-"));
    let r = call(
        rename,
        Some(key.clone()),
        serde_json::json!({"class": class.id, "sandbox": ghost, "name": "  Tithi "}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(text(r).await, "\"Tithi\"");
    // A row's own name in other capitals is its own, not a classmate's.
    let r = call(
        rename,
        Some(key.clone()),
        serde_json::json!({"class": class.id, "sandbox": shimul, "name": "SHIMUL"}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    for (cookie, sandbox, name, status) in [
        (None, shimul.as_str(), "Imran", StatusCode::FORBIDDEN),
        (Some(key.clone()), "nobody", "Imran", StatusCode::NOT_FOUND),
        (
            Some(key.clone()),
            shimul.as_str(),
            "",
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let r = call(
            rename,
            cookie,
            serde_json::json!({"class": class.id, "sandbox": sandbox, "name": name}),
        )
        .await;
        assert_eq!(r.status(), status, "{sandbox} {name:?}");
        assert_eq!(
            r.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
    }
    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    let mut names: Vec<_> = view.students.iter().map(|s| s.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["SHIMUL", "Tithi"]);

    // A hand-over: only a holder makes one; the link is read without being taken.
    let r = call(
        <ClassHandOver as ServerFn>::PATH,
        None,
        serde_json::json!({"class": class.id, "name": "Rahim (TA)"}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = call(
        <ClassHandOver as ServerFn>::PATH,
        Some(key.clone()),
        serde_json::json!({"class": class.id, "name": "Rahim (TA)"}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let made: HandOver = serde_json::from_str(&text(r).await).unwrap();
    assert!(
        made.link.starts_with("http://lab.test/take/"),
        "{}",
        made.link
    );
    let token = made.link.rsplit('/').next().unwrap().to_owned();
    let r = call(
        <FindHandOver as ServerFn>::PATH,
        None,
        serde_json::json!({"token": token}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let found = text(r).await;
    assert!(
        found.contains("CSE 311") && found.contains("Rahim (TA)"),
        "{found}"
    );
    let r = app
        .clone()
        .oneshot(browser("GET", &format!("/take/{token}"), None, None))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // Taken once: that browser gets a key of its own, which opens the class.
    let take = |token: String| {
        call(
            <TakeClass as ServerFn>::PATH,
            None,
            serde_json::json!({"token": token}),
        )
    };
    let r = take(token.clone()).await;
    assert_eq!(r.status(), StatusCode::OK);
    let ta_key = cookie_set(&r);
    assert!(ta_key.starts_with(&secret_cookie(&class.id)), "{ta_key}");
    assert_ne!(ta_key, key);
    let page = |cookie: String| {
        call(
            <ClassPage as ServerFn>::PATH,
            Some(cookie),
            serde_json::json!({"class": class.id}),
        )
    };
    assert_eq!(page(ta_key.clone()).await.status(), StatusCode::OK);
    let r = app
        .clone()
        .oneshot(browser(
            "GET",
            &format!("/teach/{}", class.id),
            Some(&ta_key),
            None,
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // A second take, or an unknown token: spent, said as 410.
    for token in [token.clone(), "f".repeat(64)] {
        let r = take(token).await;
        assert_eq!(r.status(), StatusCode::GONE);
        assert!(text(r).await.contains("hand-over-spent"));
    }
    let r = call(
        <FindHandOver as ServerFn>::PATH,
        None,
        serde_json::json!({"token": token}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::GONE);
    // The holder is named in the view, taken; withdrawn, their key opens nothing.
    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    assert_eq!(view.holders.len(), 1);
    assert_eq!(view.holders[0].name, "Rahim (TA)");
    assert!(view.holders[0].taken_ms.is_some());
    let r = call(
        <ClassWithdraw as ServerFn>::PATH,
        Some(key.clone()),
        serde_json::json!({"class": class.id, "holder": view.holders[0].id}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(page(ta_key.clone()).await.status(), StatusCode::FORBIDDEN);
    assert_eq!(page(key.clone()).await.status(), StatusCode::OK);
    // A link withdrawn before it is taken is spent.
    let (_, untaken) = classes.hand_over(&class.id, "Hall PC").await.unwrap();
    let holder = classes.holders(&class.id).await.unwrap()[0].id.clone();
    classes.withdraw(&class.id, &holder).await.unwrap();
    assert_eq!(take(untaken).await.status(), StatusCode::GONE);

    // The projector's page: code, name and numbers for anyone with the code, no names.
    let r = call(
        <ClassShow as ServerFn>::PATH,
        None,
        serde_json::json!({"code": class.code.as_str()}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let body = text(r).await;
    assert!(
        !body.contains("Tithi") && !body.contains("SHIMUL"),
        "{body}"
    );
    let shown: Shown = serde_json::from_str(&body).unwrap();
    assert_eq!(shown.name, "CSE 311");
    assert_eq!(shown.totals.joined, 2);
    assert_eq!(shown.per_chapter[0], 2);
    for (path, status) in [
        (format!("/show/{}", class.code.as_str()), StatusCode::OK),
        ("/show/ZZZ999".to_owned(), StatusCode::NOT_FOUND),
    ] {
        let r = app
            .clone()
            .oneshot(browser("GET", &path, None, None))
            .await
            .unwrap();
        assert_eq!(r.status(), status, "{path}");
    }
    let r = app
        .clone()
        .oneshot(browser(
            "GET",
            &format!("/show/{}/events", class.code.as_str()),
            None,
            None,
        ))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let mut body = r.into_body().into_data_stream();
    let first = tokio::time::timeout(Duration::from_secs(10), body.next())
        .await
        .expect("the numbers come at once")
        .unwrap()
        .unwrap();
    let first = String::from_utf8_lossy(&first);
    assert!(first.starts_with("event: class\n"), "{first}");
    assert!(
        first.contains("\"joined\":2") && !first.contains("Tithi"),
        "{first}"
    );
    drop(body);
    sandboxes.shutdown().await;
}
