//! A class: one instructor, a short join code, and the students' own sandboxes tied to it
//! (docs/reference.md §10). The server keeps classes in `classes.sqlite`; the browser shows
//! the join form and the instructor's class view from these same types.

use serde::{Deserialize, Serialize};

use super::course;
use super::scenario::Variant;
use super::{ascii_digits, FieldError, Safeguard, TimelineEvent, Verdict};

mod cue;
mod summary;
pub use cue::*;
pub use summary::*;

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

    /// A code from random bits whose first two symbols are led by two hexadecimal digits (the
    /// first byte of the balancer's request id): digit `d` is the alphabet's `d`-th symbol, one
    /// of its sixteen letters. So the balancer, which knows the digits, knows the code's route
    /// before the class exists (deploy/nginx/pocketpay-lab.conf).
    pub fn led_by(lead: u8, bits: u64) -> ClassCode {
        let mut code = ClassCode::from_bits(bits).0.into_bytes();
        code[0] = CODE_ALPHABET[usize::from(lead >> 4)];
        code[1] = CODE_ALPHABET[usize::from(lead & 0x0f)];
        ClassCode(String::from_utf8(code).expect("the alphabet is ASCII"))
    }

    /// The class's routing prefix (ARCHITECTURE.md, "Many servers"): the ASCII of its first two
    /// symbols, then [`CLASS_ROUTE_MARK`]. Its id, its students' sandbox ids and their mirror
    /// tokens all start with these four bytes, and a balancer computes the same eight hex
    /// digits from a join link's code, so a class and everything of it live on one server.
    pub fn route(&self) -> [u8; 4] {
        let b = self.0.as_bytes();
        [b[0], b[1], CLASS_ROUTE_MARK[0], CLASS_ROUTE_MARK[1]]
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

/// A student's display name: invisible characters out (zero-width spaces, bidi controls; the
/// joiners Bangla writes with stay), runs of spaces folded to one, trimmed, 1 to [`NAME_MAX`]
/// characters, no control characters.
pub fn student_name(text: &str) -> Result<String, FieldError> {
    let visible: String = text.chars().filter(|c| !invisible(*c)).collect();
    if visible.chars().any(char::is_control) {
        return Err(FieldError::new("name", "a name is one line of text"));
    }
    let name = visible.split_whitespace().collect::<Vec<_>>().join(" ");
    let count = name.chars().count();
    if count == 0 {
        Err(FieldError::new("name", "a name is needed"))
    } else if count > NAME_MAX {
        Err(FieldError::new(
            "name",
            format!("a name is at most {NAME_MAX} characters"),
        ))
    } else {
        Ok(name)
    }
}

/// A character nobody sees in a name: zero-width spaces, word joiners, the byte order mark,
/// soft hyphens and the bidi controls (which also reorder what follows). The zero-width joiner
/// and non-joiner are kept here: Bangla writes with them; the comparison leaves them out
/// (`server::classes::name_key`).
pub fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}'
        | '\u{17B5}' | '\u{180B}'..='\u{180F}' | '\u{200B}' | '\u{200E}' | '\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}')
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
    /// The worse of two verdicts, for "harm seen": money wrong is worst, then a key that can
    /// never finish, then an effect twice.
    pub fn worst(self, other: Harm) -> Harm {
        let rank = |h: Harm| match h {
            Harm::None => 0,
            Harm::Effect => 1,
            Harm::Stuck => 2,
            Harm::Money => 3,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }

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

/// What a student's lab tells the server of their chapter: only what the browser alone knows,
/// the chapter open on screen and the controls the student looked at (a "look at" step's
/// half). Which steps are done the server works out from the sandbox itself
/// (`server::teach::report`), with the same checks the lab runs (`domain::course`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChapterReport {
    pub chapter: u8,
    #[serde(default)]
    pub looked: Vec<String>,
}

impl ChapterReport {
    /// The chapter, if the course has it, and the looks it asks for among those claimed (any
    /// other id is dropped: it could tick nothing).
    pub fn read(&self) -> Result<(&'static course::Chapter, Vec<&'static str>), FieldError> {
        let chapter = course::chapter(self.chapter)
            .ok_or_else(|| FieldError::new("chapter", "the chapters are 1 to 9"))?;
        let looked = chapter
            .steps
            .iter()
            .flat_map(|s| s.check.looks())
            .filter(|id| self.looked.iter().any(|l| l == id))
            .collect();
        Ok((chapter, looked))
    }
}

/// Where a student stands in the course, as the server worked it out from their sandbox: the
/// chapter open, how many of its steps are done, and which (bit k: step k + 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub chapter: u8,
    pub steps_done: u8,
    #[serde(default)]
    pub ticked: u16,
}

impl Progress {
    /// `steps_done` steps ticked, the first ones.
    pub fn new(chapter: u8, steps_done: u8) -> Progress {
        Progress {
            chapter,
            steps_done,
            ticked: ((1u32 << steps_done.min(16)) - 1) as u16,
        }
    }

    /// Refuses a chapter the course does not have, or more steps than it has.
    pub fn check(self) -> Result<Progress, FieldError> {
        let chapter = course::chapter(self.chapter)
            .ok_or_else(|| FieldError::new("chapter", "the chapters are 1 to 9"))?;
        let steps = chapter.steps.len();
        if usize::from(self.steps_done) > steps {
            return Err(FieldError::new(
                "steps_done",
                format!("chapter {} has {steps} steps", self.chapter),
            ));
        }
        if u32::from(self.ticked) >> steps != 0 {
            return Err(FieldError::new(
                "ticked",
                format!(
                    "chapter {} has {steps} steps: bits 0 to {}",
                    self.chapter,
                    steps - 1
                ),
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
    /// Which kinds of harm their meter showed at the server's last read.
    #[serde(default)]
    pub harm_kinds: HarmKinds,
}

/// The kinds of harm a damage meter shows, as bits: what the class's totals count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HarmKinds(pub u8);

impl HarmKinds {
    pub const CHARGED_TWICE: u8 = 1;
    pub const CREDITED_TWICE: u8 = 2;
    pub const LOST: u8 = 4;
    pub const STUCK: u8 = 8;

    /// The kinds a meter shows.
    pub fn of(damage: &super::state::Damage) -> HarmKinds {
        let mut bits = 0;
        for (figure, bit) in [
            (damage.double_charges, Self::CHARGED_TWICE),
            (damage.double_credits, Self::CREDITED_TWICE),
            (damage.lost_events, Self::LOST),
            (damage.stuck_keys, Self::STUCK),
        ] {
            if figure > 0 {
                bits |= bit;
            }
        }
        HarmKinds(bits)
    }

    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// A class in numbers, without names: for the projector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub joined: usize,
    pub charged_twice: usize,
    pub credited_twice: usize,
    pub lost: usize,
    pub stuck: usize,
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
    /// The class's name (empty: none given).
    #[serde(default)]
    pub name: String,
    /// The server's wall clock at the read (ms since the epoch): "since" is measured from it,
    /// so a projector's wrong clock shows the right ages.
    pub now_ms: i64,
    pub students: Vec<StudentRow>,
    /// The students' own controls are locked for a demo.
    #[serde(default)]
    pub locked: bool,
    /// Every student's clock is frozen; only the instructor's thaw moves it.
    #[serde(default)]
    pub frozen: bool,
    /// What every student's screen was last told.
    #[serde(default)]
    pub cue: Cue,
    /// What the instructor sent, newest first.
    #[serde(default)]
    pub history: Vec<Sent>,
    /// The others the class was handed to, oldest first.
    #[serde(default)]
    pub holders: Vec<Holder>,
}

impl ClassView {
    /// How many joined, and how many of them each kind of harm reached (at the server's last
    /// read of their meters).
    pub fn totals(&self) -> Totals {
        let count = |bit| {
            self.students
                .iter()
                .filter(|s| s.harm_kinds.has(bit))
                .count()
        };
        Totals {
            joined: self.students.len(),
            charged_twice: count(HarmKinds::CHARGED_TWICE),
            credited_twice: count(HarmKinds::CREDITED_TWICE),
            lost: count(HarmKinds::LOST),
            stuck: count(HarmKinds::STUCK),
        }
    }

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
    /// Lock (`true`) the students' own controls for a demo, or give them back.
    Lock { locked: bool },
}

/// A class's name, at most this many characters.
pub const CLASS_NAME_MAX: usize = 60;

/// Reads a class's name: trimmed, at most [`CLASS_NAME_MAX`] characters, one line; empty is
/// no name. Refused naming the field `name`.
pub fn class_name(text: &str) -> Result<String, FieldError> {
    let text = text.trim();
    if text.chars().count() > CLASS_NAME_MAX {
        return Err(FieldError::new(
            "name",
            format!("a class's name is at most {CLASS_NAME_MAX} characters"),
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(FieldError::new("name", "a class's name is one line"));
    }
    Ok(text.to_owned())
}

/// A class this browser holds the key of, as `/teach` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MyClass {
    pub id: String,
    pub code: ClassCode,
    pub name: String,
    pub students: usize,
    /// When it was last used (server wall clock, ms), and how many minutes before the list.
    pub used_ms: i64,
    pub used_min_ago: i64,
}

/// Someone the instructor handed the class to (a teaching assistant, the lecture-hall PC),
/// as the class's page names them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub id: String,
    pub name: String,
    pub made_ms: i64,
    /// When the hand-over link was taken (that browser holds the key since); `None` while
    /// the link waits.
    pub taken_ms: Option<i64>,
}

/// A hand-over just made: who it is for, and the one-time link (shown once; only its hash is
/// kept).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandOver {
    pub holder: Holder,
    pub link: String,
}

/// The path of a hand-over link: `/take/{token}`.
pub fn hand_over_path(token: &str) -> String {
    format!("/take/{token}")
}

/// What a class's projector page shows, no key needed: the code, the name and the totals.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassShow {
    pub code: ClassCode,
    pub name: String,
    pub totals: Totals,
    /// Students per chapter ([`ClassView::per_chapter`]).
    pub per_chapter: [usize; 10],
}

impl ClassView {
    /// The class as its projector page shows it: no names, no ids.
    pub fn show(&self) -> ClassShow {
        ClassShow {
            code: self.code.clone(),
            name: self.name.clone(),
            totals: self.totals(),
            per_chapter: self.per_chapter(),
        }
    }
}

/// The last two bytes of every class's routing prefix ([`ClassCode::route`]).
pub const CLASS_ROUTE_MARK: [u8; 2] = [0xc1, 0xa5];

/// An id of the class's own (the class's, or a student's sandbox), made from a fresh one
/// (random, or the balancer's): its first four bytes are the class's route.
pub fn class_scoped_id(code: &ClassCode, fresh: uuid::Uuid) -> uuid::Uuid {
    let mut bytes = *fresh.as_bytes();
    bytes[..4].copy_from_slice(&code.route());
    uuid::Uuid::from_bytes(bytes)
}

/// A read-only mirror's token for a sandbox: the sandbox id's first eight hex digits (so a
/// balancer sends both to one server), then random ones; it gives no control.
pub fn mirror_token(sandbox: &uuid::Uuid, fresh: uuid::Uuid) -> String {
    let mut bytes = *fresh.as_bytes();
    bytes[..4].copy_from_slice(&sandbox.as_bytes()[..4]);
    uuid::Uuid::from_bytes(bytes).to_string()
}

/// The presets a class can be sent: every scenario guarded and unguarded, and scenario 8's
/// at-most-once run.
pub fn pushable_presets() -> Vec<(u8, Variant)> {
    let mut all = Vec::new();
    for n in 1..=12u8 {
        all.push((n, Variant::Guarded));
        // Scenario 7 has no guard to take off: its unguarded preset is its guarded one, not
        // another lesson (the test below holds the presets to it).
        if n != 7 {
            all.push((n, Variant::Unguarded));
        }
        if n == 8 {
            all.push((n, Variant::AtMostOnce));
        }
    }
    all
}

#[cfg(test)]
mod tests;
