-- The sandbox's own store: its settings, its clock and its event log (the timeline).
CREATE TABLE sandbox (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    sandbox_id  TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    rng_state   INTEGER NOT NULL,
    now_ms      INTEGER NOT NULL,
    mode        TEXT NOT NULL,
    speed       REAL NOT NULL,
    -- Scheduler counters, so the order of equal-time steps survives a restart.
    seq         INTEGER NOT NULL,
    steps_run   INTEGER NOT NULL,
    safeguards  TEXT NOT NULL,
    faults      TEXT NOT NULL
) STRICT;

CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms       INTEGER NOT NULL,
    layer       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    correlation TEXT,
    outcome     TEXT NOT NULL,
    details     TEXT NOT NULL
) STRICT;

-- Every outside input with the virtual time and the step count it arrived at: a run is its
-- seed plus these.
CREATE TABLE inputs (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms     INTEGER NOT NULL,
    after_step INTEGER NOT NULL,
    input     TEXT NOT NULL
) STRICT;
