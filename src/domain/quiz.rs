//! The quiz (lesson section 10): think first, commit to an answer, then read the reveal: the
//! right answer, the common wrong answer and why it fails, and a link that opens the lab in the
//! preset that shows it. One question closes each chapter; `/quiz` holds them all.
//!
//! A question's words are Fluent messages under `quiz-<id>-…` (`locales/*/quiz.ftl`):
//! `-ask` the question, `-o1` … `-oN` its options (for `Order`, the items in their right order),
//! `-right` why the right answer is right, `-wrong` the common wrong answer and why it fails.

use super::scenario::Variant;

/// How a question is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Pick one of `options`; `right` is the right one, counted from 1.
    Choice { options: u8, right: u8 },
    /// Pick the guard that catches this duplicate: a choice whose options are guards.
    Guard { options: u8, right: u8 },
    /// Put `items` in order; the messages list them in the right order and the page shuffles
    /// them by `Question::shuffled`. Items `free.0 ..= free.1`, if given, are right in any
    /// order among themselves: steps inside one transaction, which no one sees apart.
    Order { items: u8, free: Option<(u8, u8)> },
    /// Type a whole number: a balance in taka, a count.
    Number { answer: i64 },
}

/// One question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Question {
    /// Also the message id stem: `quiz-<id>-ask`.
    pub id: &'static str,
    /// The chapter it closes or belongs to, 1 to 9.
    pub chapter: u8,
    /// The "remember" point (1 to 7, lesson section 13) it checks, if any.
    pub remember: Option<u8>,
    pub kind: Kind,
    /// The scenario preset whose lab shows the answer, and its variant.
    pub demo: (u8, Variant),
}

/// What a student answered: an option (from 1), an order of items (each from 1), or a number.
/// A class's server marks the answers a student shares (`mark`), never a total they send.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Option(u8),
    Order(Vec<u8>),
    Number(i64),
}

impl Question {
    /// Whether an answer is right.
    pub fn is_right(&self, answer: &Answer) -> bool {
        match (self.kind, answer) {
            (Kind::Choice { right, .. } | Kind::Guard { right, .. }, Answer::Option(o)) => {
                *o == right
            }
            (Kind::Order { items, free }, Answer::Order(order)) => {
                let mut sorted = order.clone();
                sorted.sort_unstable();
                let each_once = sorted.iter().copied().eq(1..=items);
                let in_free = |it: u8| free.is_some_and(|(lo, hi)| (lo..=hi).contains(&it));
                each_once
                    && order.iter().enumerate().all(|(i, &it)| {
                        let place = u8::try_from(i + 1).unwrap_or(u8::MAX);
                        it == place || (in_free(it) && in_free(place))
                    })
            }
            (Kind::Number { answer }, Answer::Number(n)) => *n == answer,
            _ => false,
        }
    }

    /// The order in which an `Order` question first shows its items (1-based): a fixed
    /// rotation and swap of the right order, never the right order itself, the same on the
    /// server and in the browser (so hydration finds what the server drew).
    pub fn shuffled(&self) -> Vec<u8> {
        let Kind::Order { items, .. } = self.kind else {
            return Vec::new();
        };
        let n = items.max(2);
        // Reverse, then rotate by one: for n ≥ 2 never the identity.
        let mut order: Vec<u8> = (1..=n).rev().collect();
        order.rotate_left(1);
        if self.is_right(&Answer::Order(order.clone())) {
            order.swap(0, usize::from(n) - 1);
        }
        order
    }

    /// The options (or items) this question shows.
    pub fn options(&self) -> u8 {
        match self.kind {
            Kind::Choice { options, .. } | Kind::Guard { options, .. } => options,
            Kind::Order { items, .. } => items,
            Kind::Number { .. } => 0,
        }
    }

    /// The lab link that shows the answer live, with the question's chapter open beside it
    /// when that chapter walks the preset (its steps load it, or point at its button), so the
    /// steps beside the lab are about what it shows: `/lab?fresh=1&scenario=N&variant=v&chapter=C`,
    /// in a fresh sandbox, so the student's own run is never wiped by it.
    /// A preset no chapter step loads (chapter 02 talks the retry storm and the reused key
    /// through without a walk of their own) opens alone, every panel in view.
    pub fn demo_href(&self) -> String {
        let (scenario, variant) = self.demo;
        // A fresh sandbox: the student's own run stays as it was (the link says so).
        let lab = format!("/lab?fresh=1&scenario={scenario}&variant={}", variant.id());
        let demo = super::course::Load { scenario, variant };
        // The question's own chapter if it walks the preset, else the chapter that does.
        let walks =
            |c: &super::course::Chapter| c.first_load() == demo || c.more_loads().contains(&demo);
        match super::course::chapter(self.chapter) {
            Some(c) if walks(c) => format!("{lab}&chapter={}", self.chapter),
            _ => match super::course::opening(scenario, variant) {
                Some((n, _)) => format!("{lab}&chapter={n}"),
                None => lab,
            },
        }
    }
}

/// The question that closes a chapter: the first one listed for it.
pub fn for_chapter(chapter: u8) -> Option<&'static Question> {
    QUESTIONS.iter().find(|q| q.chapter == chapter)
}

/// Marks answers given by question id: per question of [`QUESTIONS`], in its order, right,
/// wrong, or not answered. An id the quiz does not have is refused, naming it.
pub fn mark(
    answers: &std::collections::BTreeMap<String, Answer>,
) -> Result<Vec<Option<bool>>, super::FieldError> {
    if let Some(unknown) = answers
        .keys()
        .find(|id| !QUESTIONS.iter().any(|q| q.id == *id))
    {
        return Err(super::FieldError::new(
            "answers",
            format!("the quiz has no question {unknown:?}"),
        ));
    }
    Ok(QUESTIONS
        .iter()
        .map(|q| answers.get(q.id).map(|a| q.is_right(a)))
        .collect())
}

use Kind::*;
use Variant::{Guarded as On, Unguarded as Off};

/// Every question, in the course's order.
pub const QUESTIONS: &[Question] = &[
    Question {
        id: "timeout_means",
        chapter: 1,
        remember: Some(1),
        kind: Choice {
            options: 3,
            right: 3,
        },
        demo: (1, Off),
    },
    Question {
        id: "charged_twice",
        chapter: 1,
        remember: None,
        kind: Number { answer: 1000 },
        demo: (1, Off),
    },
    Question {
        id: "who_makes_key",
        chapter: 2,
        remember: Some(2),
        kind: Choice {
            options: 4,
            right: 2,
        },
        demo: (1, On),
    },
    Question {
        id: "retry_storm_guard",
        chapter: 2,
        remember: None,
        kind: Guard {
            options: 4,
            right: 3,
        },
        demo: (2, On),
    },
    Question {
        id: "same_key_other_body",
        chapter: 2,
        remember: None,
        kind: Guard {
            options: 4,
            right: 1,
        },
        demo: (4, On),
    },
    Question {
        id: "look_then_write",
        chapter: 3,
        remember: Some(3),
        kind: Choice {
            options: 4,
            right: 2,
        },
        demo: (3, Off),
    },
    Question {
        id: "claim_order",
        chapter: 3,
        remember: None,
        kind: Order {
            items: 5,
            free: None,
        },
        demo: (3, On),
    },
    Question {
        id: "window_length",
        chapter: 4,
        remember: Some(4),
        kind: Choice {
            options: 4,
            right: 4,
        },
        demo: (6, On),
    },
    Question {
        id: "late_retry_balance",
        chapter: 4,
        remember: None,
        kind: Number { answer: 1500 },
        demo: (6, On),
    },
    Question {
        id: "set_or_increment",
        chapter: 5,
        remember: Some(5),
        kind: Choice {
            options: 4,
            right: 3,
        },
        demo: (7, On),
    },
    Question {
        id: "exactly_once_offer",
        chapter: 6,
        remember: Some(6),
        kind: Choice {
            options: 3,
            right: 2,
        },
        demo: (8, On),
    },
    Question {
        id: "at_most_once_loses",
        chapter: 6,
        remember: None,
        kind: Choice {
            options: 3,
            right: 1,
        },
        demo: (8, Variant::AtMostOnce),
    },
    Question {
        id: "audit_outside_log",
        chapter: 7,
        remember: None,
        kind: Choice {
            options: 3,
            right: 3,
        },
        demo: (9, On),
    },
    Question {
        id: "inbox_order",
        chapter: 8,
        remember: Some(3),
        // The inbox INSERT and the credit (items 3 and 4) share one local transaction: either
        // order is right.
        kind: Order {
            items: 6,
            free: Some((3, 4)),
        },
        demo: (10, On),
    },
    Question {
        id: "relay_twice_credit",
        chapter: 8,
        remember: None,
        kind: Number { answer: 1000 },
        demo: (10, Off),
    },
    Question {
        id: "replay_window",
        chapter: 8,
        remember: Some(4),
        kind: Choice {
            options: 4,
            right: 2,
        },
        demo: (11, On),
    },
    Question {
        id: "no_single_layer",
        chapter: 9,
        remember: Some(7),
        kind: Choice {
            options: 4,
            right: 1,
        },
        demo: (12, On),
    },
    Question {
        id: "storm_guard",
        chapter: 9,
        remember: None,
        kind: Guard {
            options: 4,
            right: 4,
        },
        demo: (12, On),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_marks_each_answer_not_a_claimed_total() {
        let first = &QUESTIONS[0];
        let right = match first.kind {
            Kind::Choice { right, .. } | Kind::Guard { right, .. } => Answer::Option(right),
            Kind::Order { items, .. } => Answer::Order((1..=items).collect()),
            Kind::Number { answer } => Answer::Number(answer),
        };
        let wrong = match first.kind {
            Kind::Number { answer } => Answer::Number(answer + 1),
            _ => Answer::Number(-1),
        };
        let mut answers = std::collections::BTreeMap::new();
        answers.insert(first.id.to_owned(), right);
        answers.insert(QUESTIONS[1].id.to_owned(), wrong);
        let marks = mark(&answers).unwrap();
        assert_eq!(marks.len(), QUESTIONS.len());
        assert_eq!(&marks[..3], &[Some(true), Some(false), None]);
        answers.insert("no-such-question".to_owned(), Answer::Option(1));
        assert_eq!(mark(&answers).unwrap_err().field, "answers");
    }

    #[test]
    fn every_chapter_has_a_question_and_every_remember_point_is_checked() {
        assert!(QUESTIONS.len() >= 15, "{} questions", QUESTIONS.len());
        for ch in 1..=9 {
            assert!(for_chapter(ch).is_some(), "chapter {ch} has no question");
        }
        for point in 1..=7 {
            assert!(
                QUESTIONS.iter().any(|q| q.remember == Some(point)),
                "remember point {point} is not checked"
            );
        }
        let mut ids: Vec<_> = QUESTIONS.iter().map(|q| q.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), QUESTIONS.len(), "question ids are unique");
    }

    #[test]
    fn every_question_is_answerable_and_links_to_a_preset_that_exists() {
        for q in QUESTIONS {
            let (n, v) = q.demo;
            assert!(
                crate::domain::scenario::preset(n, v).is_some(),
                "{}: no preset {n} {v:?}",
                q.id
            );
            match q.kind {
                Choice { options, right } | Guard { options, right } => {
                    assert!(
                        (2..=6).contains(&options) && (1..=options).contains(&right),
                        "{}",
                        q.id
                    );
                    assert!(q.is_right(&Answer::Option(right)));
                    assert!(!q.is_right(&Answer::Option(right % options + 1)));
                }
                Order { items, free } => {
                    assert!((3..=7).contains(&items), "{}", q.id);
                    if let Some((lo, hi)) = free {
                        assert!(1 <= lo && lo < hi && hi <= items, "{}", q.id);
                    }
                    let shuffled = q.shuffled();
                    assert!(!q.is_right(&Answer::Order(shuffled.clone())), "{}", q.id);
                    let mut sorted = shuffled;
                    sorted.sort_unstable();
                    assert!(q.is_right(&Answer::Order(sorted)));
                }
                Number { answer } => {
                    assert!(q.is_right(&Answer::Number(answer)));
                    assert!(!q.is_right(&Answer::Number(answer + 500)));
                }
            }
        }
    }

    #[test]
    fn a_questions_lab_link_opens_a_chapter_that_walks_its_preset() {
        use crate::domain::course::{chapter, Load};
        let q = QUESTIONS.iter().find(|q| q.id == "replay_window").unwrap();
        assert_eq!(
            q.demo_href(),
            "/lab?fresh=1&scenario=11&variant=guarded&chapter=8"
        );
        // The retry storm is walked in chapter 02 itself; a reused key, asked after chapter
        // 02, opens chapter 03, which walks it.
        let href = |id: &str| QUESTIONS.iter().find(|q| q.id == id).unwrap().demo_href();
        assert!(href("retry_storm_guard").ends_with("&chapter=2"));
        assert!(href("same_key_other_body").ends_with("&chapter=3"));
        assert!(QUESTIONS.iter().all(|q| q.demo_href().contains("chapter=")));
        for q in QUESTIONS
            .iter()
            .filter(|q| q.demo_href().contains("chapter="))
        {
            let n: u8 = q.demo_href().rsplit('=').next().unwrap().parse().unwrap();
            let c = chapter(n).unwrap();
            let (scenario, variant) = q.demo;
            let demo = Load { scenario, variant };
            assert!(
                c.first_load() == demo || c.more_loads().contains(&demo),
                "{}: chapter {n} does not load scenario {scenario} {variant:?}",
                q.id
            );
        }
    }

    #[test]
    fn a_shuffled_order_is_never_the_right_one() {
        for items in 2..=7 {
            let q = Question {
                id: "t",
                chapter: 1,
                remember: None,
                kind: Order { items, free: None },
                demo: (1, On),
            };
            let s = q.shuffled();
            assert_eq!(s.len(), usize::from(items));
            assert!(!q.is_right(&Answer::Order(s)));
        }
    }

    #[test]
    fn the_inbox_insert_and_the_credit_are_right_in_either_order_and_nothing_else_moves() {
        let q = QUESTIONS.iter().find(|q| q.id == "inbox_order").unwrap();
        let right = |o: &[u8]| q.is_right(&Answer::Order(o.to_vec()));
        assert!(right(&[1, 2, 3, 4, 5, 6]));
        // Balance add, then inbox INSERT: both inside the one local transaction.
        assert!(right(&[1, 2, 4, 3, 5, 6]));
        // The offset before the local commit, or a write outside the transaction, is wrong.
        assert!(!right(&[1, 2, 3, 4, 6, 5]));
        assert!(!right(&[1, 3, 2, 4, 5, 6]));
        assert!(!right(&[1, 2, 3, 5, 4, 6]));
        // Every item once: a repeat is not an answer.
        assert!(!right(&[1, 2, 3, 3, 5, 6]));
        assert!(!right(&[1, 2, 3, 4, 5]));
        assert!(!right(&q.shuffled()));
        // The claim's order has no free run.
        let claim = QUESTIONS.iter().find(|q| q.id == "claim_order").unwrap();
        assert!(!claim.is_right(&Answer::Order(vec![1, 3, 2, 4, 5])));
    }
}

/// Reads a typed whole number as a student may write it: `1500`, `1,500`, `৳1,500`, `১৫০০`,
/// `৳১,৫০০`. `None` for anything else.
pub fn parse_whole(text: &str) -> Option<i64> {
    let mut digits = String::new();
    for (i, c) in super::ascii_digits(text.trim()).chars().enumerate() {
        match c {
            '0'..='9' => digits.push(c),
            ',' | ' ' | '_' => {}
            '৳' if i == 0 => {}
            '-' if i == 0 => digits.push('-'),
            _ => return None,
        }
    }
    digits.parse().ok()
}

#[cfg(test)]
mod parse_tests {
    use super::parse_whole;

    #[test]
    fn a_typed_number_is_read_in_either_script() {
        for ok in ["1500", "1,500", " ৳1,500 ", "১৫০০", "৳১,৫০০"] {
            assert_eq!(parse_whole(ok), Some(1500), "{ok}");
        }
        assert_eq!(parse_whole("-500"), Some(-500));
        for bad in ["", "৳", "15o0", "1.5", "1500৳", "one"] {
            assert_eq!(parse_whole(bad), None, "{bad}");
        }
    }
}
