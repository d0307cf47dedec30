-- A class's name, as its instructor typed it (docs/reference.md §10): "CSE 311, section B".
-- Empty for a class made without one.
ALTER TABLE classes ADD COLUMN name TEXT NOT NULL DEFAULT '';
