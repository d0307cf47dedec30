//! How numbers and times read on screen, in the page's language.

use super::i18n::{digits, tr_args};
use crate::domain::clock::ClockFace;

/// A virtual instant as the clock shows it: `দিন ১ · ০৯:০০:০০` / `Day 1 · 09:00:00`.
pub fn clock_text(now_ms: i64) -> String {
    let face = ClockFace::at(now_ms);
    tr_args(
        "clock-at",
        &[
            ("day", digits(&face.day.to_string())),
            ("time", digits(&face.hms())),
        ],
    )
}

/// A virtual instant to the millisecond, for the timeline.
pub fn event_time_text(at_ms: i64) -> String {
    let face = ClockFace::at(at_ms);
    tr_args(
        "clock-at",
        &[
            ("day", digits(&face.day.to_string())),
            (
                "time",
                digits(&format!("{}.{:03}", face.hms(), face.millis)),
            ),
        ],
    )
}

/// A speed as `×১`, `×০.৫`.
pub fn speed_text(speed: f64) -> String {
    digits(&format!("×{speed}"))
}

/// A virtual instant for a timeline row, day then time: `১ · ০৯:০০:০০.৩৪০`.
pub fn row_time_text(at_ms: i64) -> String {
    let face = ClockFace::at(at_ms);
    digits(&format!("{} · {}.{:03}", face.day, face.hms(), face.millis))
}
