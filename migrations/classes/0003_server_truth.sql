-- What the class shows is what the server saw (docs/reference.md §10): the freeze kept with
-- the class, names compared as a reader sees them, harm and progress as histories, and the
-- quiz's answers marked by the server.

-- 1 while the instructor holds every clock still: the students' own clock changes are refused.
ALTER TABLE classes ADD COLUMN frozen INTEGER NOT NULL DEFAULT 0;

-- The name as compared (`domain::class::name_key`: NFC, invisible characters out, spaces
-- folded, lower case). Rows that predate it are filled in by the server when it opens the
-- store (`Classes::open`), since SQL cannot fold Unicode.
ALTER TABLE students ADD COLUMN name_key TEXT;
CREATE INDEX students_by_name_key ON students (class_id, name_key);

-- The worst harm the server ever read from the student's sandbox while in the class ("harm
-- seen"); `harm` stays the newest read ("harm now").
ALTER TABLE students ADD COLUMN harm_seen TEXT NOT NULL DEFAULT 'none';
UPDATE students SET harm_seen = harm;

-- The answer given to each question, as a JSON array of choice indexes (null: not answered);
-- `correct` and `answered` are the server's marking of them. Scores shared before this
-- column have no answers kept.
ALTER TABLE quiz_scores ADD COLUMN answers TEXT;
