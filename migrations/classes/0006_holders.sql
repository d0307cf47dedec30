-- Others who hold a class's key (docs/reference.md §10): a teaching assistant, the lecture-hall
-- PC. The instructor names each and gets a one-time link; the browser that opens it and takes
-- the class gets a key of its own. Withdrawing a holder deletes the row: an untaken link is
-- spent, a taken key opens nothing more.
CREATE TABLE holders (
    id TEXT PRIMARY KEY,
    class_id TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    -- SHA-256 of the link's token, hex; the token itself is only in the link.
    link_sha256 TEXT NOT NULL UNIQUE,
    -- SHA-256 of the key the link gave, once taken.
    key_sha256 TEXT UNIQUE,
    made_ms INTEGER NOT NULL,
    taken_ms INTEGER
);

CREATE INDEX holders_by_class ON holders (class_id, made_ms);
