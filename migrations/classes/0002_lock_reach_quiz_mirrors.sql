-- The instructor's lock on the students' controls, what each student reached, the quiz
-- scores students chose to share, and read-only mirrors of sandboxes (docs/reference.md §10).

-- 1 while the instructor runs a demo: the students' own safeguards, faults, presets, resets
-- and replays are refused; the instructor's pushes still go through.
ALTER TABLE classes ADD COLUMN locked INTEGER NOT NULL DEFAULT 0;

-- Every chapter a student opened, with the steps ticked in it as bits (bit k: step k+1).
CREATE TABLE reached (
    sandbox TEXT NOT NULL REFERENCES students (sandbox) ON DELETE CASCADE,
    chapter INTEGER NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (sandbox, chapter)
);

-- A quiz score a student chose to share with the class: right answers of those given.
CREATE TABLE quiz_scores (
    sandbox TEXT PRIMARY KEY REFERENCES students (sandbox) ON DELETE CASCADE,
    correct INTEGER NOT NULL,
    answered INTEGER NOT NULL,
    shared_ms INTEGER NOT NULL
);

-- A read-only view of a sandbox: `/watch/{token}` shows it to whoever holds the token, which
-- gives no control. The token's first eight hex digits are the sandbox id's, so a balancer
-- that routes on them sends both to the same server (deploy/nginx/pocketpay-lab.conf).
CREATE TABLE mirrors (
    token TEXT PRIMARY KEY,
    sandbox TEXT NOT NULL UNIQUE,
    used_ms INTEGER NOT NULL
);
