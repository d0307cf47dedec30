//! How numbers and times read on screen.

use crate::domain::clock::ClockFace;

/// Writes ASCII digits as Bangla digits (০–৯), leaving everything else as it is.
pub fn bn_digits(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32('০' as u32 + (c as u32 - '0' as u32)).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// A virtual instant as the clock shows it: `দিন ১ · ০৯:০০:০০`.
pub fn clock_text(now_ms: i64) -> String {
    let face = ClockFace::at(now_ms);
    bn_digits(&format!("দিন {} · {}", face.day, face.hms()))
}

/// A virtual instant to the millisecond, for the timeline: `দিন ১ · ০৯:০০:০০.৩৪০`.
pub fn event_time_text(at_ms: i64) -> String {
    let face = ClockFace::at(at_ms);
    bn_digits(&format!(
        "দিন {} · {}.{:03}",
        face.day,
        face.hms(),
        face.millis
    ))
}

/// A speed as `×১`, `×০.৫`.
pub fn speed_text(speed: f64) -> String {
    let s = format!("{speed}");
    bn_digits(&format!("×{s}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_clock_read_in_bangla() {
        assert_eq!(bn_digits("TXN-88412"), "TXN-৮৮৪১২");
        assert_eq!(clock_text(9 * 3_600_000), "দিন ১ · ০৯:০০:০০");
        assert_eq!(speed_text(0.5), "×০.৫");
        assert_eq!(event_time_text(9 * 3_600_000 + 340), "দিন ১ · ০৯:০০:০০.৩৪০");
        assert_eq!(speed_text(10.0), "×১০");
    }
}
