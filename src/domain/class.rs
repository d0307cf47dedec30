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

/// A one-line message to every student, at most this many characters.
pub const MESSAGE_MAX: usize = 200;

/// What the instructor last put on every student's screen (docs/reference.md §10): the chapter
/// a pushed preset opens, at the step that loads it, and a one-line message. Each carries when
/// it was sent (server wall clock, ms), so a screen acts on each one once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cue {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<CueOpen>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<CueMessage>,
}

impl Cue {
    /// Nothing said: a sandbox in no class, or a class that has not spoken.
    pub fn is_empty(&self) -> bool {
        self.open.is_none() && self.message.is_none()
    }
}

/// A chapter to open at a step (0-based), after a push of `scenario` in `variant`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CueOpen {
    pub chapter: u8,
    pub step: u8,
    pub scenario: u8,
    pub variant: Variant,
    pub at_ms: i64,
}

impl CueOpen {
    /// The chapter that teaches this preset, at its step, if one does.
    pub fn of(scenario: u8, variant: Variant, at_ms: i64) -> Option<CueOpen> {
        let (chapter, step) = course::opening(scenario, variant)?;
        Some(CueOpen {
            chapter,
            step: step as u8,
            scenario,
            variant,
            at_ms,
        })
    }
}

/// The instructor's words to the class, as typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CueMessage {
    pub text: String,
    pub at_ms: i64,
}

/// Reads a message to the class: one line, trimmed, 1 to [`MESSAGE_MAX`] characters, no
/// control characters; refused naming the field `text`.
pub fn message_text(text: &str) -> Result<String, FieldError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(FieldError::new("text", "write the message first"));
    }
    if text.chars().count() > MESSAGE_MAX {
        return Err(FieldError::new(
            "text",
            format!("a message is at most {MESSAGE_MAX} characters"),
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(FieldError::new("text", "a message is one line"));
    }
    Ok(text.to_owned())
}

/// One line of the class's history: what the instructor sent, when, and how many of the
/// class's sandboxes took it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    pub at_ms: i64,
    pub what: SentWhat,
    pub took: usize,
    pub of: usize,
}

/// What was sent: a push, a message, or both at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentWhat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<Push>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What a push did: how many of the class's sandboxes took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushReport {
    pub took: usize,
    pub of: usize,
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
        for q in super::quiz::QUESTIONS {
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
            for i in 0..super::quiz::QUESTIONS.len() {
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
mod tests {
    use super::*;

    #[test]
    fn a_class_name_is_one_trimmed_line_and_may_be_empty() {
        assert_eq!(
            class_name("  CSE 311, section B ").unwrap(),
            "CSE 311, section B"
        );
        assert_eq!(class_name("").unwrap(), "");
        for bad in ["a\nb", &"x".repeat(CLASS_NAME_MAX + 1)] {
            assert_eq!(class_name(bad).unwrap_err().field, "name");
        }
    }

    #[test]
    fn a_message_is_one_trimmed_line_of_at_most_200_characters() {
        assert_eq!(
            message_text("  open chapter 08  ").unwrap(),
            "open chapter 08"
        );
        assert_eq!(message_text("অধ্যায় ০৮ খুলুন").unwrap(), "অধ্যায় ০৮ খুলুন");
        for bad in ["", "   ", "two\nlines", &"x".repeat(MESSAGE_MAX + 1)] {
            assert_eq!(message_text(bad).unwrap_err().field, "text", "{bad:?}");
        }
        assert!(message_text(&"৳".repeat(MESSAGE_MAX)).is_ok());
    }

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
        assert!(Progress::new(1, 0).check().is_ok());
        assert_eq!(Progress::new(0, 0).check().unwrap_err().field, "chapter");
        assert_eq!(Progress::new(10, 0).check().unwrap_err().field, "chapter");
        let all = Progress::new(1, 0).steps_total();
        assert!(all > 0);
        let done = Progress::new(1, all);
        assert!(done.check().unwrap().finished());
        assert_eq!(
            Progress::new(1, all + 1).check().unwrap_err().field,
            "steps_done"
        );
    }

    #[test]
    fn the_totals_count_students_per_kind_of_harm_without_names() {
        let student = |bits: u8| StudentRow {
            sandbox: "s".into(),
            name: "n".into(),
            progress: None,
            harm: Harm::None,
            last_event: None,
            joined_ms: 0,
            progress_ms: 0,
            harm_kinds: HarmKinds(bits),
        };
        let view = ClassView {
            id: "c".into(),
            code: ClassCode::parse("ACEFGH").unwrap(),
            name: String::new(),
            now_ms: 0,
            students: vec![
                student(HarmKinds::CHARGED_TWICE | HarmKinds::LOST),
                student(HarmKinds::CHARGED_TWICE),
                student(0),
            ],
            locked: false,
            frozen: false,
            cue: Cue::default(),
            history: vec![],
            holders: vec![],
        };
        assert_eq!(
            view.totals(),
            Totals {
                joined: 3,
                charged_twice: 2,
                credited_twice: 0,
                lost: 1,
                stuck: 0
            }
        );
        let damage = super::super::state::Damage {
            double_credits: 1,
            stuck_keys: 2,
            ..Default::default()
        };
        assert_eq!(
            HarmKinds::of(&damage),
            HarmKinds(HarmKinds::CREDITED_TWICE | HarmKinds::STUCK)
        );
    }

    #[test]
    fn a_student_is_stuck_after_five_quiet_minutes_in_an_unfinished_chapter() {
        let mut s = StudentRow {
            sandbox: "s".into(),
            name: "Imran".into(),
            progress: Some(Progress::new(1, 1)),
            harm: Harm::None,
            last_event: None,
            joined_ms: 0,
            progress_ms: 1_000,
            harm_kinds: HarmKinds::default(),
        };
        assert!(!s.stuck(1_000 + STUCK_AFTER_MS - 1));
        assert!(s.stuck(1_000 + STUCK_AFTER_MS));
        let total = Progress::new(1, 0).steps_total();
        s.progress = Some(Progress::new(1, total));
        assert!(!s.stuck(i64::MAX / 2), "a finished chapter is not stuck");
    }

    #[test]
    fn every_pushable_preset_exists() {
        let all = pushable_presets();
        // Twelve guarded, eleven unguarded (not 7: it has no guard to take off), at-most-once.
        assert_eq!(all.len(), 24);
        // Left out only where the variant sets nothing the guarded one does not.
        use crate::domain::scenario::{preset, Preset};
        for n in 1..=12u8 {
            let same = preset(n, Variant::Unguarded).map(|p| Preset {
                variant: Variant::Guarded,
                ..p
            }) == preset(n, Variant::Guarded);
            assert_eq!(
                same,
                !all.contains(&(n, Variant::Unguarded)),
                "scenario {n}"
            );
        }
        for (n, v) in all {
            assert!(crate::domain::scenario::preset(n, v).is_some(), "{n} {v:?}");
        }
    }

    #[test]
    fn ticked_steps_must_be_the_chapters() {
        let total = Progress::new(1, 0).steps_total();
        let all = Progress {
            chapter: 1,
            steps_done: total,
            ticked: ((1u32 << total) - 1) as u16,
        };
        assert!(all.check().is_ok());
        let beyond = Progress {
            ticked: 1 << total,
            ..all
        };
        assert_eq!(beyond.check().unwrap_err().field, "ticked");
    }

    #[test]
    fn the_summary_counts_reach_steps_and_shared_scores() {
        let mut one = vec![None; 9];
        one[0] = Some(0b101);
        one[1] = Some(0);
        let mut two = vec![None; 9];
        two[0] = Some(0b001);
        let summary = ClassSummary {
            students: vec![
                SummaryRow {
                    name: "Shimul".into(),
                    chapter_now: Some(2),
                    reached: one,
                    quiz: Some((7, 9)),
                    quiz_marks: vec![Some(true), Some(false), None],
                    harm: Harm::None,
                    harm_seen: Harm::Money,
                },
                SummaryRow {
                    name: "=Tithi, \"T\"".into(),
                    chapter_now: Some(1),
                    reached: two,
                    quiz: None,
                    quiz_marks: Vec::new(),
                    harm: Harm::None,
                    harm_seen: Harm::None,
                },
            ],
        };
        let chapters = summary.chapters();
        assert_eq!(chapters[0].reached, 2);
        assert_eq!(&chapters[0].steps[..3], &[2, 0, 1]);
        assert_eq!(chapters[1].reached, 1);
        assert_eq!(chapters[2].reached, 0);
        assert_eq!(summary.shared().collect::<Vec<_>>(), vec![("Shimul", 7, 9)]);
        let csv = summary.csv();
        let csv = csv
            .strip_prefix('\u{FEFF}')
            .expect("a byte order mark, for spreadsheets");
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert!(lines[0].starts_with("name,chapter_now,chapter_01_steps,"));
        assert!(lines[0].contains(",quiz_right,quiz_answered,harm_seen,harm_now,quiz_"));
        let marks = ",".repeat(crate::domain::quiz::QUESTIONS.len() - 2);
        assert_eq!(
            lines[1],
            format!("Shimul,2,2,0,,,,,,,,7,9,money,none,1,0{marks}")
        );
        let blank = ",".repeat(crate::domain::quiz::QUESTIONS.len());
        assert_eq!(
            lines[2],
            format!("\"'=Tithi, \"\"T\"\"\",1,1,,,,,,,,,,,none,none{blank}")
        );
        assert_eq!(
            lines[0].split(',').count(),
            lines[1].split(',').count(),
            "every row has every column"
        );
    }

    #[test]
    fn harm_seen_keeps_the_worst() {
        assert_eq!(Harm::None.worst(Harm::Money), Harm::Money);
        assert_eq!(Harm::Money.worst(Harm::None), Harm::Money);
        assert_eq!(Harm::Effect.worst(Harm::Stuck), Harm::Stuck);
        assert_eq!(Harm::Stuck.worst(Harm::Effect), Harm::Stuck);
    }

    #[test]
    fn a_name_loses_what_nobody_sees_and_keeps_what_bangla_needs() {
        assert_eq!(student_name("  রাফি   আহমেদ\u{200B} ").unwrap(), "রাফি আহমেদ");
        assert_eq!(student_name("Nus\u{202E}rat").unwrap(), "Nusrat");
        // র‍্য: the zero-width joiner is part of how Bangla writes it.
        assert_eq!(student_name("র\u{200D}্যাব").unwrap(), "র\u{200D}্যাব");
        assert_eq!(student_name("\u{200B}\u{FEFF}").unwrap_err().field, "name");
    }

    #[test]
    fn a_report_keeps_only_the_looks_its_chapter_asks_for() {
        let report = ChapterReport {
            chapter: 1,
            looked: vec!["damage-meter".into(), "reset".into()],
        };
        let (chapter, looked) = report.read().unwrap();
        assert_eq!(chapter.n, 1);
        assert_eq!(looked, vec!["damage-meter"]);
        let bad = ChapterReport {
            chapter: 10,
            looked: vec![],
        };
        assert_eq!(bad.read().unwrap_err().field, "chapter");
    }

    #[test]
    fn a_class_its_students_and_their_mirrors_share_the_codes_route() {
        let code = ClassCode::parse("HKM479").unwrap();
        // "H" is 0x48 and "K" 0x4b: a balancer reads them off the join link.
        assert_eq!(code.route(), [0x48, 0x4b, 0xc1, 0xa5]);
        let fresh = uuid::Uuid::new_v4();
        let student = class_scoped_id(&code, fresh);
        assert!(student.to_string().starts_with("484bc1a5-"));
        assert_eq!(student.as_bytes()[4..], fresh.as_bytes()[4..]);
        let token = mirror_token(&student, uuid::Uuid::new_v4());
        assert!(token.starts_with("484bc1a5-"));
        assert_ne!(token, student.to_string());
    }

    #[test]
    fn a_code_led_by_hex_digits_starts_with_their_letters() {
        for (lead, start) in [(0x00, "AA"), (0x1f, "CY"), (0xf0, "YA"), (0x9a, "NP")] {
            for bits in [0, 1, u64::MAX, 0x1234_5678_9abc_def0] {
                let code = ClassCode::led_by(lead, bits);
                assert!(code.as_str().starts_with(start), "{lead:x}: {code:?}");
                assert_eq!(ClassCode::parse(code.as_str()).unwrap(), code);
            }
        }
        assert_eq!(
            &CODE_ALPHABET[..16],
            b"ACEFGHJKMNPRTWXY",
            "sixteen letters lead"
        );
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
