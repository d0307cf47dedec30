//! The rows changed in a sandbox's stores since a screen last read them, noted by SQLite's
//! update hook on each store's connection.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use sqlx::sqlite::SqliteConnection;

use super::*;

/// The rows changed in a sandbox's stores, by store, table and rowid: what a screen's copy of
/// the state must read again (`sandbox/snapshot.rs`). A change later rolled back is still
/// noted, which costs a row read again and nothing more; a change SQLite makes without telling
/// the hook (a `DELETE` of a whole table, which [`Stores::reset_services`] runs) marks
/// everything changed, as does a list past [`MAX_CHANGES`].
#[derive(Debug, Default)]
pub struct Changes {
    pub rows: BTreeMap<StoreName, BTreeMap<String, BTreeSet<i64>>>,
    /// Too much, or something unlisted, changed: read everything.
    pub everything: bool,
    count: usize,
}

impl Changes {
    fn note(&mut self, store: StoreName, table: &str, rowid: i64) {
        if self.everything {
            return;
        }
        if self.count >= MAX_CHANGES {
            self.give_up();
            return;
        }
        let tables = self.rows.entry(store).or_default();
        let ids = match tables.get_mut(table) {
            Some(ids) => ids,
            None => tables.entry(table.to_owned()).or_default(),
        };
        self.count += usize::from(ids.insert(rowid));
    }

    pub fn is_empty(&self) -> bool {
        !self.everything && self.rows.is_empty()
    }

    /// Stops listing rows: everything is to be read again.
    fn give_up(&mut self) {
        self.everything = true;
        self.rows.clear();
        self.count = 0;
    }
}

/// Notes every row change of `conn` (store `name`) in `changes`.
pub(super) async fn note_changes(
    conn: &mut SqliteConnection,
    name: StoreName,
    changes: &Arc<std::sync::Mutex<Changes>>,
) -> Result<(), sqlx::Error> {
    let changes = Arc::clone(changes);
    conn.lock_handle().await?.set_update_hook(move |change| {
        if let Ok(mut c) = changes.lock() {
            c.note(name, change.table, change.rowid);
        }
    });
    Ok(())
}

impl Stores {
    /// The rows changed since the last call, and from now on none.
    pub fn take_changes(&self) -> Changes {
        self.inner
            .changes
            .lock()
            .map(|mut c| std::mem::take(&mut *c))
            .unwrap_or_default()
    }

    /// Whether any row changed since [`Stores::take_changes`] last took them.
    pub fn changed(&self) -> bool {
        self.inner.changes.lock().is_ok_and(|c| !c.is_empty())
    }

    /// Notes a change the update hook does not see: everything is to be read again.
    pub fn changed_everything(&self) {
        if let Ok(mut c) = self.inner.changes.lock() {
            c.give_up();
        }
    }
}
