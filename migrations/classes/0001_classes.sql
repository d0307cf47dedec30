-- The server's classes (docs/reference.md §10): one row per class, one per student who joined.
-- Times are wall-clock milliseconds since the epoch.
CREATE TABLE classes (
    id TEXT PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    -- SHA-256 of the instructor's secret, hex: the secret itself lives only in their browser.
    secret_sha256 TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    used_ms INTEGER NOT NULL
);

CREATE TABLE students (
    sandbox TEXT PRIMARY KEY,
    class_id TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    joined_ms INTEGER NOT NULL,
    -- What their lab last reported: the chapter open and the steps ticked in it.
    chapter INTEGER,
    steps_done INTEGER NOT NULL DEFAULT 0,
    progress_ms INTEGER NOT NULL,
    -- What the server last read from their sandbox: the meter's harm and the newest event.
    harm TEXT NOT NULL DEFAULT 'none',
    last_event TEXT,
    last_event_id INTEGER NOT NULL DEFAULT 0,
    UNIQUE (class_id, name)
);

CREATE INDEX students_by_class ON students (class_id, joined_ms);
