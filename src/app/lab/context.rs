//! What the lab's panels share beside its stream (`stream::LabStream`): the chapter in focus,
//! which tells each panel whether to stay in view, and what the student looked at last, which
//! a chapter's "look at …" step waits for. A leaf: the panels and the chapter import it.

use leptos::prelude::*;

use crate::domain::course::{Chapter, Panel};

/// The chapter that is open and whether every panel is shown anyway, shared with the lab's
/// panels so each knows whether to stay in view.
#[derive(Clone, Copy)]
pub struct Focus {
    pub chapter: Memo<Option<&'static Chapter>>,
    pub show_all: RwSignal<bool>,
}

impl Focus {
    /// Whether the panel folds away now: a chapter is open, does not use it, and the student
    /// has not asked for everything.
    pub fn hides(&self, panel: Panel) -> bool {
        !self.show_all.get()
            && self
                .chapter
                .get()
                .is_some_and(|c| !c.panels.contains(&panel))
    }
}

/// What the student opened or tapped last (a control's `data-testid`, a table, an event's
/// kind), counted so the same thing looked at twice is news twice. The lab provides it; the
/// damage meter, the inspector's tables and the timeline's marks tell it; a chapter takes a
/// look as done only for the step that asks for it while that step is the current one
/// (`course::Check::Looked`).
#[derive(Clone, Copy)]
pub struct Looks(RwSignal<(u32, String)>);

impl Looks {
    pub fn provide() {
        provide_context(Looks(RwSignal::new((0, String::new()))));
    }

    /// The page's, taken where a component is made (an event handler has no context).
    pub fn here() -> Option<Looks> {
        use_context::<Looks>()
    }

    /// How many looks there have been, and the last (reactive).
    pub fn last(&self) -> (u32, String) {
        self.0.get()
    }

    pub fn saw(&self, id: &str) {
        self.0.update(|(n, last)| {
            *n += 1;
            id.clone_into(last);
        });
    }
}
