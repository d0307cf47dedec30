//! A class: one instructor, a short join code, and the students' own sandboxes tied to it
//! (docs/reference.md §10). The server keeps classes in `classes.sqlite`; the browser shows
//! the join form and the instructor's class view from these same types.

use serde::{Deserialize, Serialize};

use super::course;
use super::scenario::Variant;
use super::{ascii_digits, FieldError, Safeguard, TimelineEvent, Verdict};

/// The join code's symbols: capitals and digits with every look-alike left out (0/O/D/Q, 1/I/L,
/// 2/Z, 5/S, 8/B, U/V), so a code read off a projector is typed right.
pub const CODE_ALPHABET: &[u8] = b"ACEFGHJKMNPRTWXY34679";
/// Symbols in a code: 21^6, about 86 million codes.
pub const CODE_LEN: usize = 6;
/// A student's name, at most this many characters.
pub const NAME_MAX: usize = 40;
/// A student whose last step is this long ago, in a chapter not finished, is flagged stuck.
pub const STUCK_AFTER_MS: i64 = 5 * 60_000;

/// A class's join code, as typed by a student and shown to the class.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ClassCode(String);

impl ClassCode {
    /// Reads a typed code: lower case, spaces and hyphens are forgiven, Bangla digits read as
    /// digits; anything else outside the alphabet is refused, naming the field `code`.
    pub fn parse(text: &str) -> Result<ClassCode, FieldError> {
        let code: String = ascii_digits(text)
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        let fits = code.len() == CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b));
        if fits {
            Ok(ClassCode(code))
        } else {
            Err(FieldError::new(
                "code",
                format!(
                    "a class code is {CODE_LEN} letters and digits from {}",
                    std::str::from_utf8(CODE_ALPHABET).unwrap_or_default()
                ),
            ))
        }
    }

    /// A code from random bits (the server draws them).
    pub fn from_bits(mut bits: u64) -> ClassCode {
        let n = CODE_ALPHABET.len() as u64;
        let code = (0..CODE_LEN)
            .map(|_| {
                let c = CODE_ALPHABET[(bits % n) as usize] as char;
                bits /= n;
                c
            })
            .collect();
        ClassCode(code)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The code in two groups of three, for reading it aloud: `HKM 479`.
    pub fn spaced(&self) -> String {
        format!("{} {}", &self.0[..3], &self.0[3..])
    }

    /// Where a student joins: `/join/{code}`.
    pub fn join_path(&self) -> String {
        format!("/join/{}", self.0)
    }
}

impl TryFrom<String> for ClassCode {
    type Error = FieldError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        ClassCode::parse(&text)
    }
}

impl From<ClassCode> for String {
    fn from(code: ClassCode) -> String {
        code.0
    }
}

/// A student's display name: trimmed, 1 to [`NAME_MAX`] characters, no control characters.
pub fn student_name(text: &str) -> Result<String, FieldError> {
    let name = text.trim();
    let count = name.chars().count();
    if count == 0 {
        Err(FieldError::new("name", "a name is needed"))
    } else if count > NAME_MAX {
        Err(FieldError::new(
            "name",
            format!("a name is at most {NAME_MAX} characters"),
        ))
    } else if name.chars().any(char::is_control) {
        Err(FieldError::new("name", "a name is one line of text"))
    } else {
        Ok(name.to_owned())
    }
}

/// How much harm a student's sandbox shows, the damage meter's verdict in four words
/// (`data-damage` in the class view).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Harm {
    /// Nothing wrong (also: nothing happened yet, or money still on its way).
    #[default]
    None,
    /// The money is right, yet an effect happened twice.
    Effect,
    /// Money charged or credited twice, lost or made up.
    Money,
    /// A key that can never finish.
    Stuck,
}

impl Harm {
    pub fn id(self) -> &'static str {
        match self {
            Harm::None => "none",
            Harm::Effect => "effect",
            Harm::Money => "money",
            Harm::Stuck => "stuck",
        }
    }

    pub fn from_id(id: &str) -> Harm {
        match id {
            "effect" => Harm::Effect,
            "money" => Harm::Money,
            "stuck" => Harm::Stuck,
            _ => Harm::None,
        }
    }
}

impl From<Verdict> for Harm {
    fn from(v: Verdict) -> Harm {
        match v {
            Verdict::MoneyWrong => Harm::Money,
            Verdict::EffectTwice => Harm::Effect,
            Verdict::Stuck => Harm::Stuck,
            Verdict::InFlight | Verdict::NothingMoved | Verdict::ExactlyOnce => Harm::None,
        }
    }
}

/// Where a student stands in the course, as their lab reports it: the chapter open and the
/// steps ticked in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub chapter: u8,
    pub steps_done: u8,
}

impl Progress {
    /// Refuses a chapter the course does not have, or more steps than it has.
    pub fn check(self) -> Result<Progress, FieldError> {
        let chapter = course::chapter(self.chapter)
            .ok_or_else(|| FieldError::new("chapter", "the chapters are 1 to 9"))?;
        if usize::from(self.steps_done) > chapter.steps.len() {
            return Err(FieldError::new(
                "steps_done",
                format!("chapter {} has {} steps", self.chapter, chapter.steps.len()),
            ));
        }
        Ok(self)
    }

    /// The steps of its chapter.
    pub fn steps_total(self) -> u8 {
        course::chapter(self.chapter).map_or(0, |c| c.steps.len() as u8)
    }

    pub fn finished(self) -> bool {
        self.steps_done >= self.steps_total()
    }
}

/// One student as the class view shows them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudentRow {
    /// Their sandbox's id.
    pub sandbox: String,
    pub name: String,
    /// `None` until they open a chapter.
    pub progress: Option<Progress>,
    pub harm: Harm,
    /// The newest event of their timeline, when the server has seen one.
    pub last_event: Option<TimelineEvent>,
    /// When they joined, and when they last ticked a step or opened a chapter (wall time, ms
    /// since the epoch).
    pub joined_ms: i64,
    pub progress_ms: i64,
}

impl StudentRow {
    /// No step for [`STUCK_AFTER_MS`] in a chapter not yet finished.
    pub fn stuck(&self, now_ms: i64) -> bool {
        !self.progress.is_some_and(Progress::finished)
            && now_ms - self.progress_ms >= STUCK_AFTER_MS
    }
}

/// The instructor's view of a class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassView {
    pub id: String,
    pub code: ClassCode,
    /// The server's wall clock at the read (ms since the epoch): "since" is measured from it,
    /// so a projector's wrong clock shows the right ages.
    pub now_ms: i64,
    pub students: Vec<StudentRow>,
}

impl ClassView {
    /// Students per chapter, chapter 1 to 9, and how many have opened none yet (index 0).
    pub fn per_chapter(&self) -> [usize; 10] {
        let mut counts = [0; 10];
        for s in &self.students {
            let i = s.progress.map_or(0, |p| usize::from(p.chapter));
            if let Some(c) = counts.get_mut(i) {
                *c += 1;
            }
        }
        counts
    }
}

/// One thing the instructor does to every student's sandbox at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "push", rename_all = "snake_case")]
pub enum Push {
    /// Load scenario `scenario`'s preset (a reset, then its settings), guard on or off.
    Preset { scenario: u8, variant: Variant },
    /// Switch one safeguard on or off.
    Safeguard { safeguard: Safeguard, on: bool },
    /// Pause every clock (`true`) or let them run again (`false`).
    Freeze { frozen: bool },
    /// Back to the lesson's start.
    Reset,
}

/// What a push did: how many of the class's sandboxes took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushReport {
    pub took: usize,
    pub of: usize,
}

/// The presets a class can be sent: every scenario guarded and unguarded, and scenario 8's
/// at-most-once run.
pub fn pushable_presets() -> Vec<(u8, Variant)> {
    let mut all = Vec::new();
    for n in 1..=12u8 {
        all.push((n, Variant::Guarded));
        all.push((n, Variant::Unguarded));
        if n == 8 {
            all.push((n, Variant::AtMostOnce));
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_code_forgives_case_spaces_hyphens_and_bangla_digits() {
        let code = ClassCode::parse("hkm 479").unwrap();
        assert_eq!(code.as_str(), "HKM479");
        assert_eq!(ClassCode::parse("HKM-৪৭৯").unwrap(), code);
        assert_eq!(code.spaced(), "HKM 479");
        assert_eq!(code.join_path(), "/join/HKM479");
        for bad in ["", "HKM47", "HKM4790", "HKM0OO", "ABCDEF", "HKM47!"] {
            assert_eq!(ClassCode::parse(bad).unwrap_err().field, "code", "{bad:?}");
        }
    }

    #[test]
    fn drawn_codes_use_only_the_alphabet() {
        for bits in [0, 1, u64::MAX, 0x1234_5678_9abc_def0] {
            let code = ClassCode::from_bits(bits);
            assert_eq!(ClassCode::parse(code.as_str()).unwrap(), code);
        }
        assert_ne!(ClassCode::from_bits(1), ClassCode::from_bits(2));
    }

    #[test]
    fn names_are_one_short_line() {
        assert_eq!(student_name("  Shimul ").unwrap(), "Shimul");
        assert_eq!(student_name("তিথি").unwrap(), "তিথি");
        assert!(student_name("   ").is_err());
        assert!(student_name(&"x".repeat(NAME_MAX + 1)).is_err());
        assert!(student_name(&"ঈ".repeat(NAME_MAX)).is_ok());
        assert!(student_name("a\nb").is_err());
    }

    #[test]
    fn progress_is_checked_against_the_course() {
        assert!(Progress {
            chapter: 1,
            steps_done: 0
        }
        .check()
        .is_ok());
        assert_eq!(
            Progress {
                chapter: 0,
                steps_done: 0
            }
            .check()
            .unwrap_err()
            .field,
            "chapter"
        );
        assert_eq!(
            Progress {
                chapter: 10,
                steps_done: 0
            }
            .check()
            .unwrap_err()
            .field,
            "chapter"
        );
        let all = Progress {
            chapter: 1,
            steps_done: 0,
        }
        .steps_total();
        assert!(all > 0);
        let done = Progress {
            chapter: 1,
            steps_done: all,
        };
        assert!(done.check().unwrap().finished());
        assert_eq!(
            Progress {
                chapter: 1,
                steps_done: all + 1
            }
            .check()
            .unwrap_err()
            .field,
            "steps_done"
        );
    }

    #[test]
    fn a_student_is_stuck_after_five_quiet_minutes_in_an_unfinished_chapter() {
        let mut s = StudentRow {
            sandbox: "s".into(),
            name: "Imran".into(),
            progress: Some(Progress {
                chapter: 1,
                steps_done: 1,
            }),
            harm: Harm::None,
            last_event: None,
            joined_ms: 0,
            progress_ms: 1_000,
        };
        assert!(!s.stuck(1_000 + STUCK_AFTER_MS - 1));
        assert!(s.stuck(1_000 + STUCK_AFTER_MS));
        let total = Progress {
            chapter: 1,
            steps_done: 0,
        }
        .steps_total();
        s.progress = Some(Progress {
            chapter: 1,
            steps_done: total,
        });
        assert!(!s.stuck(i64::MAX / 2), "a finished chapter is not stuck");
    }

    #[test]
    fn every_pushable_preset_exists() {
        let all = pushable_presets();
        assert_eq!(all.len(), 25);
        for (n, v) in all {
            assert!(crate::domain::scenario::preset(n, v).is_some(), "{n} {v:?}");
        }
    }

    #[test]
    fn harm_follows_the_meters_verdict() {
        assert_eq!(Harm::from(Verdict::MoneyWrong), Harm::Money);
        assert_eq!(Harm::from(Verdict::EffectTwice), Harm::Effect);
        assert_eq!(Harm::from(Verdict::Stuck), Harm::Stuck);
        assert_eq!(Harm::from(Verdict::ExactlyOnce), Harm::None);
        for h in [Harm::None, Harm::Effect, Harm::Money, Harm::Stuck] {
            assert_eq!(Harm::from_id(h.id()), h);
        }
    }
}
