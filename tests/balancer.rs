//! The lab on many servers: `deploy/nginx/pocketpay-lab.conf`, as committed, run by Debian's
//! nginx in front of two real lab servers, each with its own data folder (ARCHITECTURE.md,
//! "Many servers"). Only the upstream's server lines and the listening port are changed.
//!
//! Every sandbox lives on one server only, so a request the balancer sent to the other one
//! would get 404: each check below fails half the time when the routing is wrong. Which server
//! a new sandbox lands on follows nginx's random request id, not a seed; the assertions hold
//! for any draw (that both servers get some of 24 sandboxes fails once in 2^23 runs).

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::TestLab;
use leptos::server_fn::ServerFn;
use pocketpay_lab::app::lab::rpc::{GetState, NewSandbox};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use tokio::process::{Child, Command};

const CONFIG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/deploy/nginx/pocketpay-lab.conf"
);
const HEADER: &str = "x-lab-new-sandbox";

struct Balancer {
    base: String,
    client: Client,
    _nginx: Child,
    _tmp: tempfile::TempDir,
}

fn nginx_binary() -> PathBuf {
    let path = std::env::var_os("NGINX")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/sbin/nginx"));
    assert!(
        path.exists(),
        "nginx is not at {} (scripts/setup.sh installs Debian's nginx-light; NGINX=path names another)",
        path.display()
    );
    path
}

/// Replaces `from` with `to` in the committed config, which must hold it exactly once.
fn once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "{CONFIG} should hold {from:?} once"
    );
    text.replacen(from, to, 1)
}

fn addr(lab: &TestLab) -> String {
    lab.base.trim_start_matches("http://").to_owned()
}

impl Balancer {
    async fn start(labs: [&TestLab; 2]) -> Balancer {
        let tmp = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let site = std::fs::read_to_string(CONFIG).unwrap();
        let site = once(
            &site,
            "    server 127.0.0.1:3001;\n    server 127.0.0.1:3002;\n",
            &format!(
                "    server {};\n    server {};\n",
                addr(labs[0]),
                addr(labs[1])
            ),
        );
        let site = once(&site, "listen 8080;", &format!("listen 127.0.0.1:{port};"));
        std::fs::write(tmp.path().join("pocketpay-lab.conf"), site).unwrap();
        let t = tmp.path().display();
        std::fs::write(
            tmp.path().join("nginx.conf"),
            format!(
                "daemon off;\nmaster_process off;\npid {t}/nginx.pid;\nerror_log stderr warn;\n\
                 events {{ worker_connections 512; }}\n\
                 http {{\n  access_log off;\n  client_body_temp_path {t}/body;\n  \
                 proxy_temp_path {t}/proxy;\n  fastcgi_temp_path {t}/fastcgi;\n  \
                 uwsgi_temp_path {t}/uwsgi;\n  scgi_temp_path {t}/scgi;\n  \
                 include {t}/pocketpay-lab.conf;\n}}\n"
            ),
        )
        .unwrap();
        let nginx = Command::new(nginx_binary())
            .args(["-e", "stderr", "-p"])
            .arg(tmp.path())
            .arg("-c")
            .arg(tmp.path().join("nginx.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("nginx starts");
        let balancer = Balancer {
            base: format!("http://127.0.0.1:{port}"),
            client: Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            _nginx: nginx,
            _tmp: tmp,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match balancer.client.get(balancer.url("/")).send().await {
                Ok(r) if r.status() == StatusCode::OK => break,
                _ if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await
                }
                other => panic!("nginx did not serve the front page: {other:?}"),
            }
        }
        balancer
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request; returns its status, which server answered, and its body.
    async fn send(&self, request: reqwest::RequestBuilder) -> (StatusCode, String, String) {
        let r = request.send().await.unwrap();
        let upstream = r
            .headers()
            .get("x-lab-upstream")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (r.status(), upstream, r.text().await.unwrap())
    }

    async fn get(&self, path: &str) -> (StatusCode, String, String) {
        self.send(self.client.get(self.url(path))).await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, String, String) {
        self.send(self.client.post(self.url(path)).json(&body))
            .await
    }

    /// Calls a server function as a lab page's code does: from that page, so with it as the
    /// Referer.
    async fn call(&self, path: &str, page: &str, body: Value) -> (StatusCode, String, String) {
        self.send(
            self.client
                .post(self.url(path))
                .header("referer", self.url(page))
                .header("origin", &self.base)
                .json(&body),
        )
        .await
    }
}

fn holds(lab: &TestLab, id: &str) -> bool {
    Path::new(lab.data_dir())
        .join("sandboxes")
        .join(id)
        .is_dir()
}

/// The server of the two that holds this sandbox, checking that exactly one does.
fn holder<'a>(labs: [&'a TestLab; 2], id: &str) -> &'a TestLab {
    match (holds(labs[0], id), holds(labs[1], id)) {
        (true, false) => labs[0],
        (false, true) => labs[1],
        both => panic!("sandbox {id} should be on exactly one server, is on {both:?}"),
    }
}

#[tokio::test]
async fn one_sandbox_one_server_behind_the_committed_nginx_config() {
    let env = [("LAB_NEW_SANDBOX_HEADER", HEADER)];
    let (a, b) = (
        TestLab::start_with(&env).await,
        TestLab::start_with(&env).await,
    );
    let labs = [&a, &b];
    let lb = Balancer::start(labs).await;

    // New sandboxes through the API: each lands where its id hashes, and its requests follow.
    let mut ids = Vec::new();
    for _ in 0..24 {
        let (status, upstream, body) = lb.post("/api/sandboxes", json!({"paused": true})).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            addr(holder(labs, &id)),
            upstream,
            "sandbox {id} was made where nginx sent its request"
        );
        ids.push(id);
    }
    let on_a = ids.iter().filter(|id| holds(&a, id)).count();
    assert!(
        on_a > 0 && on_a < ids.len(),
        "both servers get sandboxes ({on_a} of {} on the first)",
        ids.len()
    );
    for id in &ids {
        let home = addr(holder(labs, id));
        for path in [
            format!("/api/sandboxes/{id}/state"),
            format!("/api/sandboxes/{id}/check"),
            format!("/lab/{id}"),
        ] {
            let (status, upstream, body) = lb.get(&path).await;
            assert_eq!(status, StatusCode::OK, "{path}: {body}");
            assert_eq!(upstream, home, "{path}");
        }
        // A server function from the sandbox's page reaches the sandbox's server.
        let (status, upstream, body) = lb
            .call(
                GetState::PATH,
                &format!("/lab/{id}"),
                json!({"sandbox": id}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(upstream, home);
        assert_ne!(body, "null", "the sandbox's own server has it");
    }

    // A changing request goes through with the browser's Origin, and the event stream flows.
    let id = &ids[0];
    let (status, _, body) = lb
        .send(
            lb.client
                .post(lb.url(&format!("/api/sandboxes/{id}/clock")))
                .header("origin", &lb.base)
                .json(&json!({"advance_seconds": 60})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut stream = lb
        .client
        .get(lb.url(&format!("/api/sandboxes/{id}/events")))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let mut text = String::new();
    while !text.contains("\ndata:") && !text.starts_with("data:") {
        let chunk = tokio::time::timeout(Duration::from_secs(30), stream.chunk())
            .await
            .expect("the stream delivers through nginx")
            .unwrap()
            .expect("the stream stays open");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(stream);

    // A new sandbox from a lab page's server function, and a rerun run: both reachable.
    for seed in 0..6 {
        let (status, _, body) = lb
            .call(
                NewSandbox::PATH,
                &format!("/lab/{id}"),
                json!({"seed": seed}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let new: String = serde_json::from_str(&body).unwrap();
        let (status, upstream, _) = lb.get(&format!("/api/sandboxes/{new}/state")).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "new sandbox {new} (seed {seed}) is reachable"
        );
        assert_eq!(upstream, addr(holder(labs, &new)));
    }
    let (status, _, run) = lb.get(&format!("/api/sandboxes/{id}/run")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, body) = lb
        .post("/api/runs", serde_json::from_str(&run).unwrap())
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let rerun = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, _, _) = lb.get(&format!("/api/sandboxes/{rerun}/state")).await;
    assert_eq!(status, StatusCode::OK, "the rerun sandbox is reachable");

    // The entrance: a new browser gets a sandbox and its cookie, and comes back to it.
    let entrance = |cookie: Option<String>| {
        let mut r = lb.client.get(lb.url("/lab"));
        if let Some(c) = cookie {
            r = r.header("cookie", format!("pocketpay_sandbox={c}"));
        }
        r
    };
    let r = entrance(None).send().await.unwrap();
    assert!(r.status().is_redirection(), "{}", r.status());
    let to = r.headers()["location"].to_str().unwrap().to_owned();
    let mine = to.trim_start_matches("/lab/").to_owned();
    assert!(r.headers()["set-cookie"].to_str().unwrap().contains(&mine));
    let (status, upstream, _) = lb.get(&to).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(upstream, addr(holder(labs, &mine)));
    for _ in 0..4 {
        let r = entrance(Some(mine.clone())).send().await.unwrap();
        assert_eq!(
            r.headers()["location"].to_str().unwrap(),
            to,
            "back to its sandbox"
        );
    }
    // A cookie whose sandbox is gone: forgotten, then a new sandbox where its id hashes.
    for _ in 0..4 {
        let gone = uuid::Uuid::new_v4().to_string();
        let r = entrance(Some(gone)).send().await.unwrap();
        assert!(r.status().is_redirection());
        assert_eq!(r.headers()["location"].to_str().unwrap(), "/lab");
        assert!(r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0"));
        let r = entrance(None).send().await.unwrap();
        let to = r.headers()["location"].to_str().unwrap().to_owned();
        let (status, _, _) = lb.get(&to).await;
        assert_eq!(status, StatusCode::OK, "{to} is reachable");
    }

    // Every day is run and kept by one server.
    let days: Vec<String> = day_upstreams(&lb).await;
    assert!(days.windows(2).all(|w| w[0] == w[1]), "{days:?}");

    // Straight to a server: a malformed id is refused, a taken one too, and nothing is made.
    let direct = |lab: &TestLab, value: &str| {
        lab.client
            .post(lab.url("/api/sandboxes"))
            .header(HEADER, value)
            .json(&json!({}))
            .send()
    };
    let before = std::fs::read_dir(a.data_dir().join("sandboxes"))
        .unwrap()
        .count();
    for bad in [
        "nothex",
        "ABCDEF0123456789ABCDEF0123456789",
        "0123456789abcdef",
    ] {
        let r = direct(&a, bad).await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{bad}");
        let p: Value = r.json().await.unwrap();
        assert!(
            p["type"].as_str().unwrap().ends_with("invalid-field"),
            "{p}"
        );
    }
    let taken = ids
        .iter()
        .find(|id| holds(&a, id))
        .unwrap()
        .replace('-', "");
    let r = direct(&a, &taken).await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let p: Value = r.json().await.unwrap();
    assert!(
        p["type"].as_str().unwrap().ends_with("sandbox-exists"),
        "{p}"
    );
    assert_eq!(
        std::fs::read_dir(a.data_dir().join("sandboxes"))
            .unwrap()
            .count(),
        before
    );
}

/// Which server answers each of a few requests about the fast-forwarded day.
async fn day_upstreams(lb: &Balancer) -> Vec<String> {
    let mut upstreams = Vec::new();
    for path in [
        "/api/days/10000",
        "/day",
        "/api/days/1000",
        "/api/days/10000",
    ] {
        let (status, upstream, _) = lb.get(path).await;
        assert!(
            status == StatusCode::OK || status == StatusCode::NOT_FOUND,
            "{path}: {status}"
        );
        upstreams.push(upstream);
    }
    upstreams
}

/// A class behind the balancer: its pages, its students' sandboxes (made by joining through
/// the balancer) and its pushes all on one server, whichever the class's prefix hashes to; a
/// read-only mirror follows its sandbox to that sandbox's server.
#[tokio::test]
async fn a_class_and_its_students_live_on_one_server_behind_the_committed_nginx_config() {
    use pocketpay_lab::app::class::{ClassPage, ClassPush, CreateClass, JoinClass, ReportProgress};
    use pocketpay_lab::app::lab::rpc::MirrorLink;
    let env = [("LAB_NEW_SANDBOX_HEADER", HEADER)];
    let (a, b) = (
        TestLab::start_with(&env).await,
        TestLab::start_with(&env).await,
    );
    let labs = [&a, &b];
    let lb = Balancer::start(labs).await;

    // The instructor makes a class from /teach; the answer carries the class's key.
    let r = lb
        .client
        .post(lb.url(CreateClass::PATH))
        .header("referer", lb.url("/teach"))
        .header("origin", &lb.base)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let home = r.headers()["x-lab-upstream"].to_str().unwrap().to_owned();
    let key = r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let class: String = r.json().await.unwrap();
    let instructor = |path: &str, page: &str, body: Value| {
        lb.client
            .post(lb.url(path))
            .header("referer", lb.url(page))
            .header("origin", &lb.base)
            .header("cookie", &key)
            .json(&body)
    };
    let teach_page = format!("/teach/{class}");
    let (status, _, body) = lb
        .send(instructor(
            ClassPage::PATH,
            &teach_page,
            json!({"class": class}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let code = serde_json::from_str::<Value>(&body).unwrap()["view"]["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, upstream, _) = lb
        .send(lb.client.get(lb.url(&teach_page)).header("cookie", &key))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(upstream, home, "the class page is on the class's server");

    // Three students join through the balancer, by the join page's own calls.
    let join_page = format!("/join/{code}");
    let mut students = Vec::new();
    for name in ["Shimul", "Tithi", "Imran"] {
        let (status, upstream, _) = lb.get(&join_page).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(upstream, home);
        let (status, upstream, body) = lb
            .call(
                JoinClass::PATH,
                &join_page,
                json!({"code": code, "name": name}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(upstream, home);
        let sandbox: String = serde_json::from_str(&body).unwrap();
        assert_eq!(
            addr(holder(labs, &sandbox)),
            home,
            "{name}'s lab is beside the class"
        );
        // Their lab, its API and its reports all reach that server.
        let lab_page = format!("/lab/{sandbox}");
        for path in [lab_page.clone(), format!("/api/sandboxes/{sandbox}/state")] {
            let (status, upstream, _) = lb.get(&path).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(upstream, home, "{path}");
        }
        let (status, _, body) = lb
            .call(
                ReportProgress::PATH,
                &lab_page,
                json!({"sandbox": sandbox, "report": {"chapter": 1}}),
            )
            .await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "true"));
        students.push(sandbox);
    }
    // The view follows them; a push reaches every one.
    let (_, _, body) = lb
        .send(instructor(
            ClassPage::PATH,
            &teach_page,
            json!({"class": class}),
        ))
        .await;
    let view: Value = serde_json::from_str(&body).unwrap();
    let rows = view["view"]["students"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|s| s["progress"]["chapter"] == 1), "{body}");
    let (status, _, body) = lb
        .send(instructor(
            ClassPush::PATH,
            &teach_page,
            json!({"class": class, "push": {"push": "preset", "scenario": 1, "variant": "unguarded"}}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, r#"{"took":3,"of":3}"#);
    // The instructor opens a student's lab read-only: the mirror is on the same server.
    let r = lb
        .client
        .get(lb.url(&format!("/teach/{class}/students/{}/open", students[0])))
        .header("cookie", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let watch = r.headers()["location"].to_str().unwrap().to_owned();
    let (status, upstream, _) = lb.get(&watch).await;
    assert_eq!(status, StatusCode::OK, "{watch}");
    assert_eq!(upstream, home);

    // A mirror of any sandbox follows it to its server.
    for _ in 0..6 {
        let (status, _, body) = lb.post("/api/sandboxes", json!({"paused": true})).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (status, _, body) = lb
            .call(
                MirrorLink::PATH,
                &format!("/lab/{id}"),
                json!({"sandbox": id}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let token: String = serde_json::from_str(&body).unwrap();
        let (status, upstream, _) = lb.get(&format!("/watch/{token}")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(upstream, addr(holder(labs, &id)), "the mirror of {id}");
    }
}

/// Many classes behind the balancer: each made through it lands on the server its route
/// hashes to, with its pages, its join link, its students' sandboxes, their reports and their
/// quiz on that same server; and the classes spread over both servers. Sixteen classes, so
/// that all landing on one server (each goes either way) happens once in some 30,000 runs.
#[tokio::test]
async fn many_classes_spread_over_the_servers_each_with_its_students_on_one() {
    use pocketpay_lab::app::class::{
        ClassPage, CreateClass, FindClass, JoinClass, ReportProgress, ShareQuiz,
    };
    let env = [("LAB_NEW_SANDBOX_HEADER", HEADER)];
    let (a, b) = (
        TestLab::start_with(&env).await,
        TestLab::start_with(&env).await,
    );
    let labs = [&a, &b];
    let lb = Balancer::start(labs).await;
    let mut homes = std::collections::BTreeSet::new();
    for n in 0..16 {
        let r = lb
            .client
            .post(lb.url(CreateClass::PATH))
            .header("referer", lb.url("/teach"))
            .header("origin", &lb.base)
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "class {n}");
        let home = r.headers()["x-lab-upstream"].to_str().unwrap().to_owned();
        let key = r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let class: String = r.json().await.unwrap();
        let teach_page = format!("/teach/{class}");
        let (status, upstream, body) = lb
            .send(
                lb.client
                    .post(lb.url(ClassPage::PATH))
                    .header("referer", lb.url(&teach_page))
                    .header("origin", &lb.base)
                    .header("cookie", &key)
                    .json(&json!({"class": class})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(upstream, home, "class {n}'s view");
        let code = serde_json::from_str::<Value>(&body).unwrap()["view"]["code"]
            .as_str()
            .unwrap()
            .to_owned();
        // The class's id carries its route: the code's first two symbols, then c1a5.
        let route = format!("{:02x}{:02x}c1a5", code.as_bytes()[0], code.as_bytes()[1]);
        assert!(class.starts_with(&route), "{class} for {code}");
        for page in [teach_page.clone(), format!("{teach_page}/summary.csv")] {
            let (status, upstream, _) = lb
                .send(lb.client.get(lb.url(&page)).header("cookie", &key))
                .await;
            assert_eq!(status, StatusCode::OK, "{page}");
            assert_eq!(upstream, home, "{page}");
        }
        // A student joins by the link (either case), on the class's server.
        let join_page = format!("/join/{code}");
        for page in [join_page.clone(), format!("/join/{}", code.to_lowercase())] {
            let (status, upstream, _) = lb.get(&page).await;
            assert_eq!(status, StatusCode::OK, "{page}");
            assert_eq!(upstream, home, "{page}");
        }
        let (status, upstream, _) = lb
            .call(FindClass::PATH, &join_page, json!({"code": code}))
            .await;
        assert_eq!((status, upstream.as_str()), (StatusCode::OK, home.as_str()));
        let (status, upstream, body) = lb
            .call(
                JoinClass::PATH,
                &join_page,
                json!({"code": code, "name": format!("Student {n}")}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(upstream, home);
        let sandbox: String = serde_json::from_str(&body).unwrap();
        assert!(sandbox.starts_with(&route), "{sandbox}");
        assert_eq!(addr(holder(labs, &sandbox)), home, "class {n}'s student");
        let lab_page = format!("/lab/{sandbox}");
        let (status, upstream, body) = lb
            .call(
                ReportProgress::PATH,
                &lab_page,
                json!({"sandbox": sandbox, "report": {"chapter": 1}}),
            )
            .await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "true"));
        assert_eq!(upstream, home);
        // The quiz is shared from /quiz: the student's cookie names the sandbox, and the class.
        let (status, upstream, body) = lb
            .send(
                lb.client
                    .post(lb.url(ShareQuiz::PATH))
                    .header("referer", lb.url("/quiz"))
                    .header("origin", &lb.base)
                    .header("cookie", format!("pocketpay_sandbox={sandbox}"))
                    .json(&json!({"answers": {}})),
            )
            .await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "[0,0]"));
        assert_eq!(upstream, home);
        homes.insert(home);
    }
    assert_eq!(
        homes.len(),
        2,
        "sixteen classes should spread over both servers: {homes:?}"
    );
}
