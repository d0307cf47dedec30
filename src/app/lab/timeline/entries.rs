//! The timeline's list as data: the rows it shows (events, and runs of routine jobs folded
//! into one), and the causal chain of a selected event. Pure functions, tested here.

use std::collections::HashSet;

use crate::domain::{Layer, TimelineEvent};

/// The strings that tie an event to others of its chain.
fn links(e: &TimelineEvent) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    if e.layer == Layer::Lab {
        return out;
    }
    if let Some(c) = e.correlation.as_deref() {
        out.push(c);
    }
    for field in ["event_id", "transfer_id"] {
        if let Some(v) = e.details.get(field).and_then(|v| v.as_str()) {
            out.push(v);
        }
    }
    out
}

/// Every event of the selected one's causal chain: the closure of shared keys and ids.
pub fn chain_of(list: &[TimelineEvent], selected: i64) -> HashSet<i64> {
    let Some(start) = list.iter().find(|e| e.id == selected) else {
        return HashSet::new();
    };
    let mut ids: HashSet<&str> = links(start).into_iter().collect();
    if ids.is_empty() {
        return HashSet::from([selected]);
    }
    loop {
        let before = ids.len();
        for e in list {
            let l = links(e);
            if l.iter().any(|x| ids.contains(x)) {
                ids.extend(l);
            }
        }
        if ids.len() == before {
            break;
        }
    }
    list.iter()
        .filter(|e| e.id == selected || links(e).iter().any(|x| ids.contains(x)))
        .map(|e| e.id)
        .collect()
}

/// One row of the list: an event, or a run of routine jobs folded into one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The event with this id.
    Event(i64),
    /// Routine jobs from the event `first` to the event `last` (ids), `count` of them.
    Fold { first: i64, last: i64, count: usize },
}

impl Entry {
    pub fn first_id(self) -> i64 {
        match self {
            Entry::Event(id) => id,
            Entry::Fold { first, .. } => first,
        }
    }

    /// A key that changes when the row must be drawn again (a fold that grew).
    pub fn key(self) -> (i64, usize) {
        match self {
            Entry::Event(id) => (id, 0),
            Entry::Fold { first, count, .. } => (first, count),
        }
    }
}

/// The rows of the list, oldest first: every event, except that two or more routine jobs in a
/// row fold into one, unless routine jobs are shown or that run was opened (`opened` holds
/// the id of each opened run's first event).
pub fn entries(list: &[TimelineEvent], show_routine: bool, opened: &HashSet<i64>) -> Vec<Entry> {
    let mut out = Vec::with_capacity(list.len());
    let mut i = 0;
    while i < list.len() {
        let mut j = i;
        if !show_routine && list[i].kind.is_routine() {
            while j + 1 < list.len() && list[j + 1].kind.is_routine() {
                j += 1;
            }
        }
        if j > i && !opened.contains(&list[i].id) {
            out.push(Entry::Fold {
                first: list[i].id,
                last: list[j].id,
                count: j - i + 1,
            });
        } else {
            out.extend(list[i..=j].iter().map(|e| Entry::Event(e.id)));
        }
        i = j + 1;
    }
    out
}

pub fn find(list: &[TimelineEvent], id: i64) -> Option<&TimelineEvent> {
    list.binary_search_by_key(&id, |e| e.id)
        .ok()
        .map(|i| &list[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{EventKind, Outcome};
    use serde_json::json;

    fn ev(id: i64, kind: EventKind) -> TimelineEvent {
        TimelineEvent {
            id,
            at_ms: id * 1_000,
            layer: if kind.is_routine() {
                Layer::Jobs
            } else {
                Layer::Ledger
            },
            kind,
            correlation: None,
            outcome: Outcome::Ok,
            details: json!({}),
        }
    }

    #[test]
    fn runs_of_routine_jobs_fold_into_one_row_unless_shown_or_opened() {
        use EventKind::{Debited, InboxCleaned as Clean, LogRetentionApplied as Retain};
        let list = vec![
            ev(1, Debited),
            ev(2, Clean),
            ev(3, Retain),
            ev(4, Clean),
            ev(5, Debited),
            ev(6, Clean),
            ev(7, Debited),
        ];
        let none = HashSet::new();
        assert_eq!(
            entries(&list, false, &none),
            vec![
                Entry::Event(1),
                Entry::Fold {
                    first: 2,
                    last: 4,
                    count: 3
                },
                Entry::Event(5),
                // One routine job alone stays a row of its own.
                Entry::Event(6),
                Entry::Event(7),
            ]
        );
        assert_eq!(entries(&list, true, &none).len(), 7);
        let opened = HashSet::from([2]);
        assert_eq!(entries(&list, false, &opened).len(), 7);
    }
}
