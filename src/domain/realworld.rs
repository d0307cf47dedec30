//! "In the real world": where the lab's choices differ from systems in production, as facts,
//! each naming its source in its own words (`real-<id>` in `locales/*/realworld.ftl`). Each note
//! stands beside the chapters and calculators it bears on.

/// Where a note is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Beside a chapter, 1 to 9.
    Chapter(u8),
    /// Beside a calculator: `window`, `drop_vs_delete` or `tickets`.
    Calc(&'static str),
}

/// One note.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    /// Also the message id: `real-<id>`.
    pub id: &'static str,
    pub places: &'static [Place],
}

/// The notes shown at a place, in order.
pub fn at(place: Place) -> impl Iterator<Item = &'static Note> {
    NOTES.iter().filter(move |n| n.places.contains(&place))
}

use Place::*;

/// Every note.
pub const NOTES: &[Note] = &[
    Note {
        id: "ietf_timeout",
        places: &[Chapter(1), Calc("tickets")],
    },
    Note {
        id: "stripe_replay",
        places: &[Chapter(2), Chapter(3)],
    },
    Note {
        id: "ietf_statuses",
        places: &[Chapter(3)],
    },
    Note {
        id: "brandur_phases",
        places: &[Chapter(3), Calc("drop_vs_delete")],
    },
    Note {
        id: "stripe_window",
        places: &[Chapter(4), Calc("window")],
    },
    Note {
        id: "http_methods",
        places: &[Chapter(5)],
    },
    Note {
        id: "nservicebus_outbox",
        places: &[Chapter(6), Chapter(8)],
    },
    Note {
        id: "kafka_producer",
        places: &[Chapter(7), Calc("window")],
    },
    Note {
        id: "kafka_transactions",
        places: &[Chapter(7)],
    },
    Note {
        id: "masstransit_inbox",
        places: &[Chapter(8), Calc("window")],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_note_has_a_place_that_exists() {
        assert!(NOTES.len() >= 8);
        for n in NOTES {
            assert!(!n.places.is_empty(), "{}", n.id);
            for p in n.places {
                match p {
                    Chapter(c) => assert!(crate::domain::course::chapter(*c).is_some()),
                    Calc(c) => assert!(["window", "drop_vs_delete", "tickets"].contains(c)),
                }
            }
        }
    }
}
