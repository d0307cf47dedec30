//! The end-of-class summary: each student's reach, quiz and harm, per chapter and as CSV.

use serde::{Deserialize, Serialize};

use super::*;

/// One student as the end-of-class summary counts them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub name: String,
    /// The chapter open now.
    pub chapter_now: Option<u8>,
    /// Per chapter 1…9 (index 0 is chapter 1): the steps ticked as bits, `None` if never opened.
    pub reached: Vec<Option<u16>>,
    /// The quiz score they shared, as the server marked their answers: right, of those given.
    pub quiz: Option<(u8, u8)>,
    /// Per question of the quiz, in its order: right, wrong, or not answered (`None`); empty
    /// when no answers were kept.
    #[serde(default)]
    pub quiz_marks: Vec<Option<bool>>,
    /// The meter's verdict at the last read ("harm now").
    pub harm: Harm,
    /// The worst verdict ever read from their sandbox during the class ("harm seen").
    #[serde(default)]
    pub harm_seen: Harm,
}

/// One chapter in the summary: how many opened it, and how many ticked each step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChapterReach {
    pub chapter: u8,
    pub reached: usize,
    pub steps: Vec<usize>,
}

/// The end of the class: who reached what, each step's completion, the shared quiz scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassSummary {
    pub students: Vec<SummaryRow>,
}

impl ClassSummary {
    /// Per chapter of the course.
    pub fn chapters(&self) -> Vec<ChapterReach> {
        course::CHAPTERS
            .iter()
            .map(|c| {
                let i = usize::from(c.n) - 1;
                let masks: Vec<u16> = self
                    .students
                    .iter()
                    .filter_map(|s| s.reached.get(i).copied().flatten())
                    .collect();
                ChapterReach {
                    chapter: c.n,
                    reached: masks.len(),
                    steps: (0..c.steps.len())
                        .map(|k| masks.iter().filter(|m| *m >> k & 1 == 1).count())
                        .collect(),
                }
            })
            .collect()
    }

    /// The students who shared a quiz score.
    pub fn shared(&self) -> impl Iterator<Item = (&str, u8, u8)> {
        self.students
            .iter()
            .filter_map(|s| s.quiz.map(|(r, of)| (s.name.as_str(), r, of)))
    }

    /// One line per student, for a spreadsheet: name, the chapter open, the steps done in
    /// each chapter (empty: never opened), the quiz score as the server marked it, the worst
    /// harm seen during the class and the harm now, then each question's mark (1 right, 0
    /// wrong, empty not answered). UTF-8 with a byte order mark, so a spreadsheet reads the
    /// Bangla names as Bangla.
    pub fn csv(&self) -> String {
        let mut out = String::from("\u{FEFF}name,chapter_now");
        for c in course::CHAPTERS {
            out.push_str(&format!(",chapter_{:02}_steps", c.n));
        }
        out.push_str(",quiz_right,quiz_answered,harm_seen,harm_now");
        for q in crate::domain::quiz::QUESTIONS {
            out.push_str(&format!(",quiz_{}", q.id));
        }
        out.push_str("\r\n");
        for s in &self.students {
            out.push_str(&csv_field(&s.name));
            out.push(',');
            if let Some(c) = s.chapter_now {
                out.push_str(&c.to_string());
            }
            for i in 0..course::CHAPTERS.len() {
                out.push(',');
                if let Some(mask) = s.reached.get(i).copied().flatten() {
                    out.push_str(&mask.count_ones().to_string());
                }
            }
            match s.quiz {
                Some((r, of)) => out.push_str(&format!(",{r},{of}")),
                None => out.push_str(",,"),
            }
            out.push(',');
            out.push_str(s.harm_seen.id());
            out.push(',');
            out.push_str(s.harm.id());
            for i in 0..crate::domain::quiz::QUESTIONS.len() {
                out.push(',');
                match s.quiz_marks.get(i).copied().flatten() {
                    Some(true) => out.push('1'),
                    Some(false) => out.push('0'),
                    None => {}
                }
            }
            out.push_str("\r\n");
        }
        out
    }
}

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; a leading
/// `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet reads a name as text, not a formula.
fn csv_field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_owned()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}
