//! The tests of `class`.

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
