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
use pocketpay_lab::server::classes::secret_cookie;
use pocketpay_lab::server::error::LabError;
use pocketpay_lab::server::{config::Config, sandboxes::Sandboxes, teach, web};
use tower::ServiceExt;

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
    let class = classes.create().await.unwrap();
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
    for bad in [
        Progress {
            chapter: 0,
            steps_done: 0,
        },
        Progress {
            chapter: 1,
            steps_done: 99,
        },
    ] {
        assert!(matches!(
            classes.report(&shimul, bad).await,
            Err(LabError::Invalid(_))
        ));
    }
    assert!(classes
        .report(
            &shimul,
            Progress {
                chapter: 1,
                steps_done: 2
            }
        )
        .await
        .unwrap());
    let stranger = sandboxes
        .create(None, Some(7), pocketpay_lab::domain::ClockMode::Paused)
        .await
        .unwrap();
    assert!(!classes
        .report(
            &stranger.id.to_string(),
            Progress {
                chapter: 1,
                steps_done: 1
            }
        )
        .await
        .unwrap());

    let view = teach::view(&sandboxes, &class.id, class.code.clone())
        .await
        .unwrap();
    let names: Vec<&str> = view.students.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Shimul", "Tithi"]);
    let s = &view.students[0];
    assert_eq!(
        s.progress,
        Some(Progress {
            chapter: 1,
            steps_done: 2
        })
    );
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
    classes
        .report(
            &shimul,
            Progress {
                chapter: 1,
                steps_done: 2,
            },
        )
        .await
        .unwrap();
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
    let class = classes.create().await.unwrap();
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
    let class = sandboxes.classes().create().await.unwrap();
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
    let class = sandboxes.classes().create().await.unwrap();
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
