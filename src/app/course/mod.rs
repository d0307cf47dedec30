//! The course's own pages beside the lab's chapters (lesson sections 10–13 and the lesson's
//! numbers): the quiz, the glossary, the summary with the points to remember, the calculators,
//! and the "in the real world" notes the chapters and calculators show.

pub mod calc;
pub mod day;
pub mod glossary;
pub mod notes;
pub mod progress;
pub mod quiz;
pub mod summary;
