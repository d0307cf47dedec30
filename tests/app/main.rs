//! The app's own tests, in one binary: the HTTP contract (`api`), the payment API's guards
//! (`payments`), the event pipeline (`pipeline`), the twelve presets (`scenarios`) and the golden
//! runs every event log is held to (`golden`), each
//! against the app served from this process (`TestLab::in_process`: the router `main.rs`
//! serves, over a lab on a temporary folder). A test starts a server process only where the
//! process is the point (`api::a_sandbox_survives_a_restart`); the ones that crash, kill or run
//! a release build are `tests/lifecycle.rs`, `tests/chaos.rs`, `tests/balancer.rs` and
//! `tests/day.rs`. Run: `cargo test --features ssr --test app` (one part: `… --test app api::`).

#[path = "../common/mod.rs"]
mod common;

mod api;
mod golden;
mod payments;
mod pipeline;
mod scenarios;
