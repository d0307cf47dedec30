//! The inspector's reads: every table of every store as JSON rows, the newest first, or the
//! rows a change touched.

use std::collections::BTreeMap;

use sqlx::sqlite::SqliteRow;
use sqlx::{Column, Row, TypeInfo, ValueRef};

use super::*;

impl Stores {
    /// The user tables of a store, in creation order.
    pub async fn table_names(&self, name: StoreName) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT name FROM sqlite_master
             WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'
             ORDER BY rowid",
        )
        .fetch_all(&mut *self.conn(name).await?)
        .await
    }

    /// Every table of every store as JSON rows, keyed `store.table`: the inspector's view. Each
    /// table carries at most `rows` rows, the newest, and their rowids in the same order
    /// ([`SNAPSHOT_ROWS`] for the API).
    pub async fn snapshot(&self, rows: i64) -> Result<Snapshot, sqlx::Error> {
        let mut out = Snapshot::default();
        for name in StoreName::ALL {
            for table in self.table_names(name).await? {
                let key = format!("{}.{}", name.id(), table);
                let (ids, found): (Vec<i64>, Vec<serde_json::Value>) = self
                    .newest_rows(name, &table, rows)
                    .await?
                    .into_iter()
                    .unzip();
                out.rowids.insert(key.clone(), ids.into());
                out.tables.insert(key, found);
            }
        }
        Ok(out)
    }

    /// The newest `rows` rows of one table with their rowids, oldest first.
    pub async fn newest_rows(
        &self,
        name: StoreName,
        table: &str,
        rows: i64,
    ) -> Result<Vec<(i64, serde_json::Value)>, sqlx::Error> {
        let sql = format!(
            "SELECT * FROM (SELECT rowid AS _rowid, * FROM {t} ORDER BY rowid DESC LIMIT ?1)
             ORDER BY _rowid",
            t = quote_ident(table)
        );
        self.rows_with_ids(name, sqlx::query(&sql).bind(rows)).await
    }

    /// The rowids of `table`'s newest `rows` rows, oldest first.
    pub async fn newest_rowids(
        &self,
        name: StoreName,
        table: &str,
        rows: i64,
    ) -> Result<Vec<i64>, sqlx::Error> {
        let sql = format!(
            "SELECT rowid FROM {t} ORDER BY rowid DESC LIMIT ?1",
            t = quote_ident(table)
        );
        let mut ids: Vec<i64> = sqlx::query_scalar(&sql)
            .bind(rows)
            .fetch_all(&mut *self.conn(name).await?)
            .await?;
        ids.reverse();
        Ok(ids)
    }

    /// The rows of `table` with these rowids (sorted), oldest first, as they are now.
    pub async fn rows_by_id(
        &self,
        name: StoreName,
        table: &str,
        ids: &[i64],
    ) -> Result<Vec<(i64, serde_json::Value)>, sqlx::Error> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        let sql = format!(
            "SELECT rowid AS _rowid, * FROM {t} WHERE rowid IN ({list}) ORDER BY rowid",
            t = quote_ident(table)
        );
        self.rows_with_ids(name, sqlx::query(&sql)).await
    }

    /// The rows a query selects (its first column `_rowid`), each with its rowid.
    async fn rows_with_ids<'q>(
        &self,
        name: StoreName,
        query: sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments<'q>>,
    ) -> Result<Vec<(i64, serde_json::Value)>, sqlx::Error> {
        Ok(query
            .fetch_all(&mut *self.conn(name).await?)
            .await?
            .iter()
            .map(|r| (r.get::<i64, _>("_rowid"), row_to_json(r)))
            .collect())
    }
}

/// Every table's newest rows as JSON, and their rowids in the same order, keyed `store.table`.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub tables: BTreeMap<String, Vec<serde_json::Value>>,
    /// `{"store.table": [rowid, …]}`.
    pub rowids: serde_json::Map<String, serde_json::Value>,
}

/// Quotes an identifier read from `sqlite_master` (never user input) for use in SQL text.
pub(super) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A row as a JSON object, each value by its stored SQLite type; the helper `_rowid` is dropped.
fn row_to_json(row: &SqliteRow) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    for (i, column) in row.columns().iter().enumerate() {
        if column.name() == "_rowid" {
            continue;
        }
        let value = match row.try_get_raw(i) {
            Ok(raw) if !raw.is_null() => match raw.type_info().name() {
                "INTEGER" => row.try_get::<i64, _>(i).map(Into::into).ok(),
                "REAL" => row.try_get::<f64, _>(i).map(Into::into).ok(),
                "TEXT" => row.try_get::<String, _>(i).map(Into::into).ok(),
                _ => row
                    .try_get::<Vec<u8>, _>(i)
                    .map(|b| {
                        b.iter()
                            .map(|x| format!("{x:02x}"))
                            .collect::<String>()
                            .into()
                    })
                    .ok(),
            },
            _ => None,
        };
        object.insert(
            column.name().to_owned(),
            value.unwrap_or(serde_json::Value::Null),
        );
    }
    serde_json::Value::Object(object)
}
