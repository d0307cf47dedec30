//! Is the SQLite driver the floor? The pipeline's store statements through sqlx and through
//! SQLite's C API, from the same thread:
//!   cargo bench --features ssr --bench driver
//!
//! First the raw pipeline (`common::raw_pipeline`: N transfers' store work, every guard on) runs
//! on a set of stores whose connections report every statement they start
//! (`sqlite3_trace_v2`), so the run is written down as a list: which store, which statement,
//! which values. That list is then run again on fresh stores, in the same order, twice over:
//! through sqlx (each statement prepared once and cached, as the server runs them; each one a
//! hand-over to the connection's own thread and back) and through the C API straight from the
//! calling thread (each statement prepared once, then bound, stepped and reset). Both arms run
//! on one lane (`server::lanes`), open the files with the same pragmas and read every row a
//! statement returns. Three rounds, the arms alternating, each round on fresh stores.
//!
//! Last, how many round trips to a store a transfer costs in a live sandbox, where each
//! transfer crosses the pipeline on its own (as in a class, a transfer a second at ×10): sqlx
//! reports every command it runs (`sqlx::query` events, one for a command of several
//! statements; its `BEGIN` and `COMMIT` are not among them), and the bench counts them by their
//! first words.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::path::Path;
use std::ptr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use libsqlite3_sys as ffi;
use pocketpay_lab::domain::{ClockCommand, ClockMode};
use pocketpay_lab::server::config::Config;
use pocketpay_lab::server::lanes;
use pocketpay_lab::server::sandboxes::Sandboxes;
use pocketpay_lab::server::store::{connect_options, StoreName, Stores};
use sqlx::{ConnectOptions, Connection, SqliteConnection};
use tracing_subscriber::layer::SubscriberExt;

/// Transfers in the recorded run.
const N: usize = 1_000;
/// Transfers through the live sandbox, and the wall time between two.
const LIVE: usize = 40;
const LIVE_GAP: Duration = Duration::from_millis(100);
/// Rounds of the two arms.
const ROUNDS: usize = 3;

/// One statement as the recorded run started it.
#[derive(Clone, Debug)]
struct Statement {
    store: StoreName,
    /// The text it was prepared from, with its `?N` parameters.
    sql: String,
    /// The values bound to `?1`, `?2`, …
    values: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// What a connection's trace callback writes into.
struct Recorder {
    store: StoreName,
    sink: &'static Mutex<Vec<Statement>>,
}

unsafe extern "C" fn on_trace(
    _mask: c_uint,
    ctx: *mut c_void,
    stmt: *mut c_void,
    text: *mut c_void,
) -> c_int {
    // SAFETY: `ctx` is the leaked `Recorder` given to `sqlite3_trace_v2`; for
    // SQLITE_TRACE_STMT, `stmt` is the statement starting and `text` its unexpanded SQL.
    unsafe {
        let recorder = &*(ctx as *const Recorder);
        let sql = CStr::from_ptr(text as *const c_char).to_string_lossy();
        if sql.starts_with("--") {
            // A trigger's program starting inside a statement already recorded.
            return 0;
        }
        let stmt = stmt as *mut ffi::sqlite3_stmt;
        let template = CStr::from_ptr(ffi::sqlite3_sql(stmt))
            .to_string_lossy()
            .into_owned();
        let expanded_ptr = ffi::sqlite3_expanded_sql(stmt);
        assert!(!expanded_ptr.is_null(), "SQLite expands {template}");
        let expanded = CStr::from_ptr(expanded_ptr).to_string_lossy().into_owned();
        ffi::sqlite3_free(expanded_ptr as *mut c_void);
        let count = ffi::sqlite3_bind_parameter_count(stmt) as usize;
        let values = values_of(&template, &expanded, count);
        recorder.sink.lock().unwrap().push(Statement {
            store: recorder.store,
            sql: template,
            values,
        });
    }
    0
}

/// The bound values, read back out of SQLite's expanded text of the statement: the two texts
/// are the same but where the template has `?N`, which the expanded one has as a literal.
fn values_of(template: &str, expanded: &str, count: usize) -> Vec<Value> {
    let mut values = vec![None; count];
    let (t, e) = (template.as_bytes(), expanded.as_bytes());
    let (mut i, mut j, mut next) = (0, 0, 1);
    while i < t.len() {
        if t[i] == b'?' {
            i += 1;
            let digits = t[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let number = if digits == 0 {
                next
            } else {
                std::str::from_utf8(&t[i..i + digits])
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            i += digits;
            next = number + 1;
            let (value, used) = literal(&expanded[j..]);
            j += used;
            values[number - 1] = Some(value);
        } else {
            assert_eq!(
                t[i], e[j],
                "the expanded text follows the template\n{template}\n{expanded}"
            );
            i += 1;
            j += 1;
        }
    }
    values
        .into_iter()
        .map(|v| v.expect("every parameter is used"))
        .collect()
}

/// The SQL literal at the start of `s` as `sqlite3_expanded_sql` writes them, and its length.
fn literal(s: &str) -> (Value, usize) {
    let b = s.as_bytes();
    if s.starts_with("NULL") {
        (Value::Null, 4)
    } else if b[0] == b'\'' {
        let mut text = String::new();
        let mut k = 1;
        loop {
            let c = s[k..].chars().next().expect("a quoted text ends");
            if c == '\'' {
                if b.get(k + 1) == Some(&b'\'') {
                    text.push('\'');
                    k += 2;
                    continue;
                }
                return (Value::Text(text), k + 1);
            }
            text.push(c);
            k += c.len_utf8();
        }
    } else if let Some(hex) = s.strip_prefix("x'") {
        let end = hex.find('\'').unwrap() + 2;
        let bytes = (2..end)
            .step_by(2)
            .map(|k| u8::from_str_radix(&s[k..k + 2], 16).unwrap())
            .collect();
        (Value::Blob(bytes), end + 1)
    } else {
        let len = b
            .iter()
            .take_while(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        let number = &s[..len];
        match number.parse::<i64>() {
            Ok(n) => (Value::Int(n), len),
            Err(_) => (Value::Real(number.parse().unwrap()), len),
        }
    }
}

/// Fresh, migrated and seeded stores in `dir`, closed again: what each arm starts from.
async fn fresh(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let stores = Stores::open(dir).await.unwrap();
    stores.reset_services().await.unwrap();
    stores.close().await;
}

/// Runs the raw pipeline on stores that record every statement.
async fn record(dir: &Path) -> Vec<Statement> {
    let sink: &'static Mutex<Vec<Statement>> = Box::leak(Box::new(Mutex::new(Vec::new())));
    std::fs::create_dir_all(dir).unwrap();
    let stores = Stores::open(dir).await.unwrap();
    stores.reset_services().await.unwrap();
    for store in StoreName::ALL {
        let mut conn = stores.conn(store).await.unwrap();
        let mut handle = conn.lock_handle().await.unwrap();
        let recorder: *mut Recorder = Box::leak(Box::new(Recorder { store, sink }));
        // SAFETY: the handle is locked (sqlx's thread makes no call on it meanwhile) and the
        // recorder lives as long as the process.
        let rc = unsafe {
            ffi::sqlite3_trace_v2(
                handle.as_raw_handle().as_ptr(),
                ffi::SQLITE_TRACE_STMT as c_uint,
                Some(on_trace),
                recorder as *mut c_void,
            )
        };
        assert_eq!(rc, ffi::SQLITE_OK);
    }
    common::raw_pipeline(&stores, N).await;
    let statements = std::mem::take(&mut *sink.lock().unwrap());
    stores.close().await;
    statements
}

/// The recorded statements through sqlx, one connection a store opened as the server opens
/// them.
async fn through_sqlx(dir: &Path, statements: &[Statement]) -> Duration {
    fresh(dir).await;
    let mut conns = BTreeMap::new();
    for store in StoreName::ALL {
        let conn = connect_options(&dir.join(store.file()))
            .unwrap()
            .connect()
            .await
            .unwrap();
        conns.insert(store, conn);
    }
    let started = Instant::now();
    for s in statements {
        let conn: &mut SqliteConnection = conns.get_mut(&s.store).unwrap();
        let mut q = sqlx::query(&s.sql);
        for v in &s.values {
            q = match v {
                Value::Null => q.bind(None::<i64>),
                Value::Int(n) => q.bind(*n),
                Value::Real(x) => q.bind(*x),
                Value::Text(t) => q.bind(t.as_str()),
                Value::Blob(b) => q.bind(b.as_slice()),
            };
        }
        q.fetch_all(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", s.sql));
    }
    let elapsed = started.elapsed();
    for (_, conn) in conns {
        conn.close().await.unwrap();
    }
    elapsed
}

/// The recorded statements through SQLite's C API on the calling thread.
fn through_c(dir: &Path, statements: &[Statement]) -> Duration {
    let mut dbs = BTreeMap::new();
    for store in StoreName::ALL {
        let path = CString::new(dir.join(store.file()).to_str().unwrap()).unwrap();
        let mut db = ptr::null_mut();
        // SAFETY: plain C API calls on a handle this function owns and closes.
        unsafe {
            let rc = ffi::sqlite3_open_v2(
                path.as_ptr(),
                &mut db,
                ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_NOMUTEX,
                ptr::null(),
            );
            assert_eq!(rc, ffi::SQLITE_OK);
            ffi::sqlite3_busy_timeout(db, 5_000);
            exec(
                db,
                "PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; \
                 PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;",
            );
        }
        dbs.insert(store, db);
    }
    let mut prepared: HashMap<(StoreName, &str), *mut ffi::sqlite3_stmt> = HashMap::new();
    let started = Instant::now();
    for s in statements {
        let db = dbs[&s.store];
        let stmt = *prepared
            .entry((s.store, s.sql.as_str()))
            .or_insert_with(|| {
                let mut stmt = ptr::null_mut();
                // SAFETY: `db` is open; the text outlives the call.
                let rc = unsafe {
                    ffi::sqlite3_prepare_v3(
                        db,
                        s.sql.as_ptr() as *const c_char,
                        s.sql.len() as c_int,
                        ffi::SQLITE_PREPARE_PERSISTENT as c_uint,
                        &mut stmt,
                        ptr::null_mut(),
                    )
                };
                // SAFETY: `db` is open.
                assert_eq!(rc, ffi::SQLITE_OK, "{}: {}", s.sql, unsafe { error(db) });
                stmt
            });
        // SAFETY: `stmt` was prepared on `db`; texts and blobs are copied (SQLITE_TRANSIENT).
        unsafe {
            for (k, v) in s.values.iter().enumerate() {
                let at = k as c_int + 1;
                let rc = match v {
                    Value::Null => ffi::sqlite3_bind_null(stmt, at),
                    Value::Int(n) => ffi::sqlite3_bind_int64(stmt, at, *n),
                    Value::Real(x) => ffi::sqlite3_bind_double(stmt, at, *x),
                    Value::Text(t) => ffi::sqlite3_bind_text(
                        stmt,
                        at,
                        t.as_ptr() as *const c_char,
                        t.len() as c_int,
                        ffi::SQLITE_TRANSIENT(),
                    ),
                    Value::Blob(b) => ffi::sqlite3_bind_blob(
                        stmt,
                        at,
                        b.as_ptr() as *const c_void,
                        b.len() as c_int,
                        ffi::SQLITE_TRANSIENT(),
                    ),
                };
                assert_eq!(rc, ffi::SQLITE_OK);
            }
            loop {
                match ffi::sqlite3_step(stmt) {
                    ffi::SQLITE_ROW => read_row(stmt),
                    ffi::SQLITE_DONE => break,
                    rc => panic!("{}: {rc} {}", s.sql, error(db)),
                }
            }
            ffi::sqlite3_reset(stmt);
            ffi::sqlite3_clear_bindings(stmt);
        }
    }
    let elapsed = started.elapsed();
    // SAFETY: every statement is finalised before its connection closes.
    unsafe {
        for stmt in prepared.into_values() {
            ffi::sqlite3_finalize(stmt);
        }
        for db in dbs.into_values() {
            assert_eq!(ffi::sqlite3_close(db), ffi::SQLITE_OK);
        }
    }
    elapsed
}

/// Reads every column of the current row into owned values, as a driver hands rows out.
///
/// SAFETY: `stmt` has just returned SQLITE_ROW.
unsafe fn read_row(stmt: *mut ffi::sqlite3_stmt) {
    unsafe {
        for col in 0..ffi::sqlite3_column_count(stmt) {
            let value = match ffi::sqlite3_column_type(stmt, col) {
                ffi::SQLITE_INTEGER => Value::Int(ffi::sqlite3_column_int64(stmt, col)),
                ffi::SQLITE_FLOAT => Value::Real(ffi::sqlite3_column_double(stmt, col)),
                ffi::SQLITE_TEXT => {
                    let p = ffi::sqlite3_column_text(stmt, col);
                    let n = ffi::sqlite3_column_bytes(stmt, col) as usize;
                    Value::Text(
                        String::from_utf8_lossy(std::slice::from_raw_parts(p, n)).into_owned(),
                    )
                }
                ffi::SQLITE_BLOB => {
                    let p = ffi::sqlite3_column_blob(stmt, col) as *const u8;
                    let n = ffi::sqlite3_column_bytes(stmt, col) as usize;
                    Value::Blob(if n == 0 {
                        Vec::new()
                    } else {
                        std::slice::from_raw_parts(p, n).to_vec()
                    })
                }
                _ => Value::Null,
            };
            std::hint::black_box(value);
        }
    }
}

/// SAFETY: `db` is an open connection.
unsafe fn exec(db: *mut ffi::sqlite3, sql: &str) {
    let sql = CString::new(sql).unwrap();
    // SAFETY: as the caller promises.
    let rc = unsafe { ffi::sqlite3_exec(db, sql.as_ptr(), None, ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(rc, ffi::SQLITE_OK, "{}", unsafe { error(db) });
}

/// SAFETY: `db` is an open connection.
unsafe fn error(db: *mut ffi::sqlite3) -> String {
    unsafe {
        CStr::from_ptr(ffi::sqlite3_errmsg(db))
            .to_string_lossy()
            .into_owned()
    }
}

/// The first words of a statement, enough to tell the statements of a table apart.
fn short(sql: &str) -> String {
    let words: Vec<&str> = sql.split_whitespace().take(6).collect();
    words.join(" ")
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// The statements sqlx ran, by their summary (its first words), while counting is on.
static RAN: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

/// Counts sqlx's `sqlx::query` events into [`RAN`].
struct CountStatements;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for CountStatements {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        if event.metadata().target() != "sqlx::query" {
            return;
        }
        // The statement's text when sqlx gives it (`db.statement`), else its summary.
        struct Summary(String);
        impl tracing::field::Visit for Summary {
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                let full = field.name() == "db.statement" && !value.trim().is_empty();
                if full || (field.name() == "summary" && self.0.is_empty()) {
                    self.0 = short(value.trim());
                }
            }
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.record_str(field, format!("{value:?}").trim_matches('"'));
            }
        }
        let mut summary = Summary(String::new());
        event.record(&mut summary);
        if let Some(ran) = RAN.lock().unwrap().as_mut() {
            *ran.entry(summary.0).or_default() += 1;
        }
    }
}

/// Statements a transfer in a live sandbox at ×10 with no simulated latency, each transfer
/// sent [`LIVE_GAP`] after the last was answered: (all statements, by summary).
async fn live(dir: &Path) -> HashMap<String, usize> {
    let lab = Sandboxes::start(Config {
        data_dir: dir.to_path_buf(),
        ..Config::default()
    })
    .await
    .unwrap();
    let sandbox = lab.create(None, Some(1), ClockMode::Live).await.unwrap();
    sandbox
        .set_faults(
            pocketpay_lab::domain::typed::read_body(
                &serde_json::json!({"latency_ms": 0, "gateway_latency_ms": 0}),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    sandbox
        .clock(vec![ClockCommand::Speed { speed: 10.0 }])
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    *RAN.lock().unwrap() = Some(HashMap::new());
    for i in 0..LIVE {
        let request = common::one_taka(&format!("live-{i}"), format!("intent-{i}"));
        let answer = sandbox
            .start_transfer(request)
            .await
            .unwrap()
            .await
            .unwrap();
        assert_eq!(answer.status, 201);
        tokio::time::sleep(LIVE_GAP).await;
    }
    // Until the last one has crossed the pipeline (100 ms at ×10 is a virtual second).
    for _ in 0..100 {
        if sandbox.damage().await.unwrap().sms as usize == LIVE {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ran = RAN.lock().unwrap().take().unwrap();
    assert_eq!(sandbox.damage().await.unwrap().sms as usize, LIVE);
    lab.shutdown().await;
    ran
}

#[tokio::main]
async fn main() {
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(CountStatements))
        .expect("the bench's own subscriber");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    // Everything on one lane: the thread the C arm runs on is the thread the sqlx arm's
    // futures run on, as a sandbox's owner runs on its lane.
    let (statements, sqlx_times, c_times) = lanes::spawn(async move {
        let statements = record(&root.join("recorded")).await;
        let (mut sqlx_times, mut c_times) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            sqlx_times.push(through_sqlx(&root.join(format!("sqlx-{round}")), &statements).await);
            let c_dir = root.join(format!("c-{round}"));
            fresh(&c_dir).await;
            c_times.push(through_c(&c_dir, &statements));
        }
        (statements, sqlx_times, c_times)
    })
    .await
    .unwrap();

    let total = statements.len();
    println!(
        "{N} transfers' store work (the raw pipeline, every guard on): {total} statements, {:.1} a transfer",
        total as f64 / N as f64
    );
    let mut by_store: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_statement: HashMap<(StoreName, String), usize> = HashMap::new();
    for s in &statements {
        *by_store.entry(s.store.id()).or_default() += 1;
        *by_statement.entry((s.store, short(&s.sql))).or_default() += 1;
    }
    for (store, n) in &by_store {
        println!(
            "  {store:<9} {n:>7} statements  {:>5.1} a transfer",
            *n as f64 / N as f64
        );
    }
    let mut common: Vec<_> = by_statement.into_iter().collect();
    common.sort_by_key(|c| std::cmp::Reverse(c.1));
    println!("the most frequent statements:");
    for ((store, sql), n) in common.iter().take(12) {
        println!(
            "  {:>5.2} a transfer  {:<9} {sql}",
            *n as f64 / N as f64,
            store.id()
        );
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / total as f64;
    for (round, (s, c)) in sqlx_times.iter().zip(&c_times).enumerate() {
        println!(
            "round {}: sqlx {:.0} ms ({:.1} µs a statement), C API {:.0} ms ({:.1} µs a statement), ratio {:.2}",
            round + 1,
            s.as_secs_f64() * 1e3,
            per(*s),
            c.as_secs_f64() * 1e3,
            per(*c),
            s.as_secs_f64() / c.as_secs_f64()
        );
    }
    let (s, c) = (median(sqlx_times), median(c_times));
    println!(
        "median: sqlx {:.1} µs a statement, C API {:.1} µs a statement from the same thread: sqlx / C = {:.2}; a transfer's statements {:.2} ms vs {:.2} ms",
        per(s),
        per(c),
        s.as_secs_f64() / c.as_secs_f64(),
        s.as_secs_f64() * 1e3 / N as f64,
        c.as_secs_f64() * 1e3 / N as f64
    );

    let live_dir = dir.path().join("live");
    let ran = live(&live_dir).await;
    let total: usize = ran.values().sum();
    println!(
        "a live sandbox (×10, no simulated latency), {LIVE} transfers sent one at a time: {total} commands to a store, {:.1} a transfer (each a round trip to a connection's thread; BEGIN and COMMIT not counted; a command of several statements counted once, by its first)",
        total as f64 / LIVE as f64
    );
    let mut ran: Vec<_> = ran.into_iter().collect();
    ran.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (summary, n) in &ran {
        println!("  {:>5.2} a transfer  {summary}", *n as f64 / LIVE as f64);
    }
}
