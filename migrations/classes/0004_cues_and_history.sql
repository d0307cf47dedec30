-- What the instructor last put on every student's screen, and what they sent
-- (docs/reference.md §10).

-- The chapter a pushed preset opens and the last message, as JSON (`domain::class::Cue`), so a
-- sandbox loaded later (or after a restart) shows them too.
ALTER TABLE classes ADD COLUMN cue TEXT NOT NULL DEFAULT '{}';

-- Every push and message, with how many of the class's sandboxes took it.
CREATE TABLE sent (
    class_id TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    at_ms INTEGER NOT NULL,
    -- `domain::class::SentWhat` as JSON.
    what TEXT NOT NULL,
    took INTEGER NOT NULL,
    of INTEGER NOT NULL
);

CREATE INDEX sent_by_class ON sent (class_id, at_ms);

-- Which kinds of harm the server last read from the student's meter, as bits
-- (`domain::class::HarmKinds`): 1 charged twice, 2 credited twice, 4 an event lost, 8 a key
-- stuck. The class's totals count them without names.
ALTER TABLE students ADD COLUMN harm_kinds INTEGER NOT NULL DEFAULT 0;
