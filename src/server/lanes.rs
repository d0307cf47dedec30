//! Where sandboxes run: one lane per processor, each a thread pinned to its processor with a
//! single-threaded runtime of its own. A sandbox's owner task, and the threads SQLite's
//! connections run on, live on one lane.
//!
//! Each statement the owner runs is a hand-over to its connection's thread and back (that is
//! how the SQLite driver works). When the two threads sit on different processors, each
//! hand-over wakes the other processor, which on a virtual machine costs more than the
//! statement itself: the pipeline benchmark ran 2.2× faster with the whole process held on one
//! processor. A thread starts on the processors of the thread that starts it, so a
//! connection opened on a lane stays on the lane's processor, beside its owner; sandboxes are
//! spread over the lanes, so every processor still works (ARCHITECTURE.md, "Time and order").

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use tokio::runtime::{Builder, Handle};
use tokio::task::JoinHandle;

struct Lanes {
    runtimes: Vec<Handle>,
    next: AtomicUsize,
}

static LANES: OnceLock<Lanes> = OnceLock::new();

fn lanes() -> &'static Lanes {
    LANES.get_or_init(|| {
        // The processors this process may use (a container or `taskset` may allow fewer than
        // the machine has); where they cannot be read, one unpinned lane per core.
        let cores: Vec<Option<core_affinity::CoreId>> = match core_affinity::get_core_ids() {
            Some(ids) if !ids.is_empty() => ids.into_iter().map(Some).collect(),
            _ => vec![None; std::thread::available_parallelism().map_or(1, |n| n.get())],
        };
        let runtimes = cores
            .into_iter()
            .enumerate()
            .map(|(i, core)| {
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::Builder::new()
                    .name(format!("sandbox-lane-{i}"))
                    .spawn(move || {
                        if let Some(core) = core {
                            // Unpinned, the lane still works, only slower.
                            core_affinity::set_for_current(core);
                        }
                        let runtime = Builder::new_current_thread()
                            .enable_all()
                            .build()
                            .expect("a lane's runtime starts");
                        tx.send(runtime.handle().clone())
                            .expect("the lane's starter waits for it");
                        runtime.block_on(std::future::pending::<()>());
                    })
                    .expect("a lane's thread starts");
                rx.recv().expect("a lane hands over its runtime")
            })
            .collect();
        Lanes {
            runtimes,
            next: AtomicUsize::new(0),
        }
    })
}

/// Runs `future` on the next lane, in turn: a sandbox's opening, whose owner task and
/// connections then stay there.
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let lanes = lanes();
    let i = lanes.next.fetch_add(1, Ordering::Relaxed) % lanes.runtimes.len();
    lanes.runtimes[i].spawn(future)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The processors a thread may run on, as the kernel lists them (`0-1`, `1`).
    fn cpus_allowed() -> String {
        std::fs::read_to_string("/proc/thread-self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap()
            .trim()
            .to_owned()
    }

    #[tokio::test]
    async fn a_lane_and_the_threads_it_starts_keep_to_one_processor() {
        let lanes = lanes().runtimes.len();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..lanes * 2 {
            let (name, lane, started) = spawn(async {
                let name = std::thread::current().name().map(str::to_owned);
                // As a database connection's thread is started: from the lane's thread.
                let started = std::thread::spawn(cpus_allowed).join().unwrap();
                (name, cpus_allowed(), started)
            })
            .await
            .unwrap();
            let name = name.unwrap();
            assert!(name.starts_with("sandbox-lane-"), "{name}");
            assert_eq!(
                started, lane,
                "a thread started on {name} left its processor"
            );
            if core_affinity::get_core_ids().is_some_and(|ids| ids.len() > 1) {
                assert!(
                    lane.parse::<usize>().is_ok(),
                    "{name} may run on {lane}, not one processor"
                );
            }
            seen.insert((name, lane));
        }
        assert!(seen.len() <= lanes);
    }
}
