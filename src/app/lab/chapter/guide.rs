//! The chapter in the browser, after hydration: what it remembers, what it tells the class, and
//! the ring on the control the current step needs.

use leptos::prelude::*;

use super::*;

/// What the chapter's parts that follow the student in the browser read: the current step, the
/// control it points at, whether the chapter is finished, the chapters done before, the fold.
#[derive(Clone, Copy)]
pub(super) struct Guide {
    pub(super) current: Memo<Option<usize>>,
    pub(super) finished: Memo<bool>,
    pub(super) pointer: Memo<Option<&'static str>>,
    pub(super) done_before: RwSignal<Vec<u8>>,
    pub(super) collapsed: RwSignal<bool>,
}

/// The chapter in the browser, after hydration: where "continue" leads, a finished chapter
/// remembered and its "why" brought into view, the class told, and the ring on the control the
/// current step needs (folded sections holding it, and the step's other controls, opened).
pub(super) fn guide_in_browser(
    live: &LabStream,
    chapter: &'static Chapter,
    (progress, looked): (RwSignal<Vec<bool>>, StoredValue<Vec<&'static str>>),
    guide: Guide,
) {
    let n = chapter.n;
    let Guide {
        current,
        finished,
        pointer,
        done_before,
        collapsed,
    } = guide;
    // After hydration, like the steps: the server drew no chapter finished.
    Effect::new(move |_| done_before.set(memory::done_chapters()));
    open_at_top();
    // Where "continue" leads: this chapter, at its current step (a mirror is not a place).
    if !live.readonly {
        let sandbox = live.sandbox();
        Effect::new(move |_| memory::remember_at(&sandbox, n, current.get()));
    }
    Effect::new(move |was: Option<bool>| {
        let now = finished.get();
        if now {
            memory::remember_done(n);
            done_before.set(memory::done_chapters());
            // Finished just now: bring "why" into the chapter's view.
            if was == Some(false) {
                collapsed.set(false);
                reveal(".lab-chapter .chapter-why");
            }
        }
        now
    });
    report_to_class(live, chapter, progress, looked);
    // The current step's control wears a ring; a folded section holding it opens.
    // A panel drawn again (the phone after a preset's reset) or drawn late (a lazy panel)
    // loses the ring: it is put back whenever the sandbox moves, after that drawing; the
    // folds open only when the ring moves to another control.
    let (events, state) = (live.events, live.state);
    Effect::new(move |before: Option<Option<&'static str>>| {
        let target = pointer.get();
        events.track();
        state.track();
        let moved = before.flatten() != target;
        let before = before.flatten();
        leptos::task::spawn_local(async move {
            crate::app::lab::phone::http::sleep(0).await;
            point_at(before.filter(|_| moved), target, moved);
        });
        target
    });
    // The other controls the current step needs: their folded sections open, once each
    // is drawn (a lazy panel comes a moment later).
    Effect::new(move |_| {
        let Some(step) = current.get().and_then(|i| chapter.steps.get(i)) else {
            return;
        };
        let ids = step.unfolds;
        if !ids.is_empty() {
            leptos::task::spawn_local(async move {
                for _ in 0..20 {
                    if unfold(ids) {
                        break;
                    }
                    crate::app::lab::phone::http::sleep(250).await;
                }
            });
        }
    });
}
