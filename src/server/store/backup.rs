//! A store copied whole, page by page, with SQLite's online backup: rewind's checkpoints and
//! its copy of the lab store (sandbox/checkpoint.rs).

use std::path::Path;

use libsqlite3_sys as ffi;
use sqlx::sqlite::SqliteConnection;

/// Copies the store `conn` is open on into a new file `to`, page by page: SQLite's online backup,
/// run between two statements, so the copy is the store as the last commit left it. A rewind
/// checkpoint's copy and a rewind's copy of the lab store (sandbox/checkpoint.rs): about a fifth
/// of what `VACUUM INTO` takes, which rebuilds the file row by row and index by index
/// (BENCHMARKS.md, "Rewind"). The copy is written without a journal and not synced: it lives no
/// longer than the loaded sandbox, and a crash drops it anyway.
pub async fn copy_into(conn: &mut SqliteConnection, to: &Path) -> Result<(), sqlx::Error> {
    let path = std::ffi::CString::new(to.as_os_str().as_encoded_bytes())
        .map_err(|e| sqlx::Error::Io(std::io::Error::other(e)))?;
    let mut handle = conn.lock_handle().await?;
    // SAFETY: the handle is locked, so sqlx's thread makes no call on this connection until it is
    // dropped; the copy runs to its end before then, and opens and closes its own destination.
    unsafe { backup(handle.as_raw_handle().as_ptr(), &path) }
        .map_err(|e| sqlx::Error::Io(std::io::Error::other(format!("{}: {e}", to.display()))))
}

/// The online backup of `src`'s main database into a new database file at `path`.
///
/// # Safety
/// `src` is an open connection no other thread uses for the time of the call.
unsafe fn backup(src: *mut ffi::sqlite3, path: &std::ffi::CStr) -> Result<(), String> {
    let message = |db: *mut ffi::sqlite3, rc: i32| -> String {
        let text = if db.is_null() {
            ffi::sqlite3_errstr(rc)
        } else {
            ffi::sqlite3_errmsg(db)
        };
        std::ffi::CStr::from_ptr(text)
            .to_string_lossy()
            .into_owned()
    };
    let mut dest = std::ptr::null_mut();
    let flags = ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE;
    let rc = ffi::sqlite3_open_v2(path.as_ptr(), &mut dest, flags, std::ptr::null());
    let outcome = if rc != ffi::SQLITE_OK {
        Err(message(dest, rc))
    } else {
        let pragmas = c"PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF";
        let rc = ffi::sqlite3_exec(
            dest,
            pragmas.as_ptr(),
            None,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            Err(message(dest, rc))
        } else {
            let copy = ffi::sqlite3_backup_init(dest, c"main".as_ptr(), src, c"main".as_ptr());
            if copy.is_null() {
                Err(message(dest, ffi::sqlite3_errcode(dest)))
            } else {
                let step = ffi::sqlite3_backup_step(copy, -1);
                let finish = ffi::sqlite3_backup_finish(copy);
                match (step, finish) {
                    (ffi::SQLITE_DONE, ffi::SQLITE_OK) => Ok(()),
                    (ffi::SQLITE_DONE, rc) => Err(message(dest, rc)),
                    (rc, _) => Err(message(std::ptr::null_mut(), rc)),
                }
            }
        }
    };
    // Closed whatever happened (a failed open still hands back a handle to close).
    ffi::sqlite3_close(dest);
    outcome
}
