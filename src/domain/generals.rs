//! Scenario 8's first half, the Two Generals: general A on one hill sends "attack at dawn" to
//! general B on the other; each messenger crosses a valley where the enemy catches some. B
//! sends back "agreed", A sends back "I know you agreed", and so on. Whichever messenger is the
//! last to arrive, its sender cannot know that it did: no number of messengers makes both sides
//! sure. The trips are drawn from the sandbox's seeded generator; the screen plays them by the
//! sandbox's clock.

use serde::{Deserialize, Serialize};

use super::fault::Percent;

/// Messengers sent before the generals stop trying.
pub const MAX_TRIPS: i64 = 8;
/// How long one messenger takes to cross the valley, virtual ms.
pub const TRIP_MS: i64 = 1_500;
/// The chance the enemy catches a messenger when none is given, percent.
pub const DEFAULT_LOSS_PCT: i64 = 30;

/// One messenger: its number (1 is "attack at dawn"), who sent it, and whether it was caught.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Trip {
    pub n: i64,
    /// `true` for general A (the odd messengers), `false` for B.
    pub from_a: bool,
    pub lost: bool,
}

/// What one attempt at agreement did: when it started (virtual ms) and each messenger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Generals {
    pub start_ms: i64,
    pub loss_pct: i64,
    pub trips: Vec<Trip>,
}

impl Generals {
    /// The trips, given whether each messenger is caught (in order), up to the first one caught
    /// or [`MAX_TRIPS`].
    pub fn from_draws(start_ms: i64, loss_pct: i64, mut caught: impl FnMut() -> bool) -> Generals {
        let mut trips = Vec::new();
        for n in 1..=MAX_TRIPS {
            let lost = caught();
            trips.push(Trip {
                n,
                from_a: n % 2 == 1,
                lost,
            });
            if lost {
                break;
            }
        }
        Generals {
            start_ms,
            loss_pct,
            trips,
        }
    }
}

/// `POST …/generals`: `{"loss_pct"?}`, the chance each messenger is caught, defaulting to
/// [`DEFAULT_LOSS_PCT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct GeneralsBody {
    #[serde(default = "the_chapters_chance")]
    pub loss_pct: Percent,
}

impl Default for GeneralsBody {
    fn default() -> Self {
        GeneralsBody {
            loss_pct: the_chapters_chance(),
        }
    }
}

fn the_chapters_chance() -> Percent {
    Percent::of(DEFAULT_LOSS_PCT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messengers_go_back_and_forth_until_one_is_caught() {
        let mut draws = [false, false, true, false].into_iter();
        let g = Generals::from_draws(0, 30, || draws.next().unwrap());
        assert_eq!(
            g.trips,
            vec![
                Trip {
                    n: 1,
                    from_a: true,
                    lost: false
                },
                Trip {
                    n: 2,
                    from_a: false,
                    lost: false
                },
                Trip {
                    n: 3,
                    from_a: true,
                    lost: true
                },
            ]
        );
        let g = Generals::from_draws(0, 0, || false);
        assert_eq!(g.trips.len() as i64, MAX_TRIPS);
        assert!(g.trips.iter().all(|t| !t.lost));
        let read = |body| crate::domain::typed::read_body::<GeneralsBody>(&body);
        assert_eq!(read(json!({})), Ok(GeneralsBody::default()));
        assert_eq!(read(json!({"loss_pct": 0})).unwrap().loss_pct.get(), 0);
        assert!(read(json!({"loss_pct": 101})).is_err());
        assert!(read(json!({"odds": 1})).is_err());
    }
}
