//! The sandbox's virtual clock as everyone outside the scheduler sees it (docs/reference.md §5).

use serde::{Deserialize, Serialize};

use super::{expect_object, int_in, FieldError};

/// Where a new or reset sandbox's clock stands: 09:00 on day 1, Shimul on the morning train.
pub const START_MS: i64 = 9 * HOUR_MS;
pub const SECOND_MS: i64 = 1_000;
pub const MINUTE_MS: i64 = 60 * SECOND_MS;
pub const HOUR_MS: i64 = 60 * MINUTE_MS;
pub const DAY_MS: i64 = 24 * HOUR_MS;
/// Slowest and fastest live speeds.
pub const SPEED_MIN: f64 = 0.1;
pub const SPEED_MAX: f64 = 10.0;
/// Longest single jump: 31 virtual days, enough to cross any window or retention in the lesson.
pub const MAX_ADVANCE_SECONDS: i64 = 31 * 24 * 3600;

/// Whether virtual time follows wall time or stands still.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClockMode {
    /// Virtual time follows wall time at `speed`.
    Live,
    /// Nothing moves until a step or a jump.
    Paused,
}

impl ClockMode {
    /// Its name, as the API, the event log and the sandbox's saved row write it.
    pub fn id(self) -> &'static str {
        match self {
            ClockMode::Live => "live",
            ClockMode::Paused => "paused",
        }
    }

    pub fn parse(id: &str) -> Option<ClockMode> {
        [ClockMode::Live, ClockMode::Paused]
            .into_iter()
            .find(|m| m.id() == id)
    }
}

/// The clock as `GET …/state` and the event stream report it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ClockState {
    /// Virtual milliseconds since day 1, 00:00.
    pub now_ms: i64,
    pub mode: ClockMode,
    pub speed: f64,
    /// When the next scheduled step is due, if any (what *step* would run next).
    pub next_due_ms: Option<i64>,
    /// Work the sandbox was given is still on its way: a request or its answer in the network
    /// or the load balancer, an API instance at work on one, an event between the outbox and
    /// its last consumer (a crashed process's restart included). The standing background jobs
    /// (the cleaners, the partition drop, the stuck-key recovery) are not this. `false` means
    /// the sandbox is settled: nothing changes until a clock jump or a new input.
    #[serde(default)]
    pub busy: bool,
    /// Counts the sandbox's clock reports since it opened: a control's answer older than what
    /// the event stream already said is not taken.
    #[serde(default)]
    pub report: u64,
}

impl ClockState {
    /// Where the clock stands `wall_elapsed_ms` after this report was made: live clocks move at
    /// their speed, paused ones do not. Lets a screen tick smoothly between server reports.
    pub fn extrapolate(&self, wall_elapsed_ms: f64) -> i64 {
        match self.mode {
            ClockMode::Paused => self.now_ms,
            ClockMode::Live => self.now_ms + (wall_elapsed_ms.max(0.0) * self.speed) as i64,
        }
    }
}

/// A virtual instant split for display: day 1 is the lesson's first day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockFace {
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub millis: i64,
}

impl ClockFace {
    pub fn at(now_ms: i64) -> ClockFace {
        let t = now_ms.max(0);
        ClockFace {
            day: t / DAY_MS + 1,
            hour: t % DAY_MS / HOUR_MS,
            minute: t % HOUR_MS / MINUTE_MS,
            second: t % MINUTE_MS / SECOND_MS,
            millis: t % SECOND_MS,
        }
    }

    /// `HH:MM:SS` with ASCII digits.
    pub fn hms(&self) -> String {
        format!("{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }
}

/// One thing an instructor can do to the clock.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "op", deny_unknown_fields)]
pub enum ClockCommand {
    Pause,
    Resume,
    Speed {
        speed: f64,
    },
    /// Run the next scheduled step (the clock moves to its time).
    Step,
    /// Run everything due within the next `seconds`, in order, and stop the clock there.
    Advance {
        seconds: i64,
    },
}

impl ClockCommand {
    /// Parses a `POST …/clock` body: any of `{"mode": "live"|"paused", "speed": x, "step": true,
    /// "advance_seconds": n}`, applied in that order. An empty body or a bad field is an error.
    pub fn parse_body(body: &serde_json::Value) -> Result<Vec<ClockCommand>, FieldError> {
        let map = expect_object(body)?;
        for key in map.keys() {
            if !["mode", "speed", "step", "advance_seconds"].contains(&key.as_str()) {
                return Err(FieldError::new(
                    key.clone(),
                    "unknown clock field: expected mode, speed, step or advance_seconds",
                ));
            }
        }
        let mut commands = Vec::new();
        if let Some(mode) = map.get("mode") {
            commands.push(match mode.as_str() {
                Some("live") => ClockCommand::Resume,
                Some("paused") => ClockCommand::Pause,
                _ => return Err(FieldError::new("mode", "expected \"live\" or \"paused\"")),
            });
        }
        if let Some(speed) = map.get("speed") {
            commands.push(ClockCommand::Speed {
                speed: parse_speed(speed)?,
            });
        }
        if let Some(step) = map.get("step") {
            match step.as_bool() {
                Some(true) => commands.push(ClockCommand::Step),
                Some(false) => {}
                None => return Err(FieldError::new("step", "expected true")),
            }
        }
        if let Some(seconds) = map.get("advance_seconds") {
            commands.push(ClockCommand::Advance {
                seconds: int_in("advance_seconds", seconds, 1, MAX_ADVANCE_SECONDS)?,
            });
        }
        if commands.is_empty() {
            return Err(FieldError::new(
                "(body)",
                "nothing to do: give mode, speed, step or advance_seconds",
            ));
        }
        // Settings (mode, speed) combine; two moves of time in one request would leave its
        // answer unclear about which was done, and in what order.
        let moves = commands
            .iter()
            .filter(|c| matches!(c, ClockCommand::Step | ClockCommand::Advance { .. }))
            .count();
        if moves > 1 {
            return Err(FieldError::new(
                "(body)",
                "one move of time per request: step or advance_seconds, not both",
            ));
        }
        Ok(commands)
    }

    /// Checks a command that did not come through [`ClockCommand::parse_body`].
    pub fn validate(self) -> Result<ClockCommand, FieldError> {
        match self {
            ClockCommand::Speed { speed } => {
                parse_speed(&serde_json::json!(speed)).map(|speed| ClockCommand::Speed { speed })
            }
            ClockCommand::Advance { seconds } => int_in(
                "advance_seconds",
                &serde_json::json!(seconds),
                1,
                MAX_ADVANCE_SECONDS,
            )
            .map(|seconds| ClockCommand::Advance { seconds }),
            other => Ok(other),
        }
    }
}

fn parse_speed(value: &serde_json::Value) -> Result<f64, FieldError> {
    match value.as_f64() {
        Some(s) if (SPEED_MIN..=SPEED_MAX).contains(&s) => Ok(s),
        _ => Err(FieldError::new(
            "speed",
            format!("expected a number from {SPEED_MIN} to {SPEED_MAX}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_face_counts_days_from_one() {
        let f = ClockFace::at(START_MS);
        assert_eq!((f.day, f.hms()), (1, "09:00:00".to_string()));
        let f = ClockFace::at(49 * HOUR_MS + 61_500);
        assert_eq!((f.day, f.hms(), f.millis), (3, "01:01:01".to_string(), 500));
    }

    #[test]
    fn live_clocks_extrapolate_and_paused_ones_stand_still() {
        let live = ClockState {
            now_ms: 1_000,
            mode: ClockMode::Live,
            speed: 10.0,
            next_due_ms: None,
            busy: false,
            report: 0,
        };
        assert_eq!(live.extrapolate(250.0), 3_500);
        let paused = ClockState {
            mode: ClockMode::Paused,
            ..live
        };
        assert_eq!(paused.extrapolate(250.0), 1_000);
    }

    #[test]
    fn clock_bodies_parse_in_order() {
        assert_eq!(
            ClockCommand::parse_body(&json!({"advance_seconds": 60})).unwrap(),
            vec![ClockCommand::Advance { seconds: 60 }]
        );
        assert_eq!(
            ClockCommand::parse_body(&json!({"step": true, "mode": "paused", "speed": 0.5}))
                .unwrap(),
            vec![
                ClockCommand::Pause,
                ClockCommand::Speed { speed: 0.5 },
                ClockCommand::Step
            ]
        );
    }

    #[test]
    fn bad_clock_bodies_name_the_field() {
        let cases = [
            (json!({}), "(body)"),
            (json!({"advance_seconds": 0}), "advance_seconds"),
            (json!({"advance_seconds": -5}), "advance_seconds"),
            (json!({"advance_seconds": 1.5}), "advance_seconds"),
            (json!({"advance_seconds": "60"}), "advance_seconds"),
            (
                json!({"advance_seconds": MAX_ADVANCE_SECONDS + 1}),
                "advance_seconds",
            ),
            (json!({"speed": 11}), "speed"),
            (json!({"speed": 0.01}), "speed"),
            (json!({"mode": "fast"}), "mode"),
            (json!({"step": 1}), "step"),
            (json!({"rewind": 5}), "rewind"),
            (json!(null), "(body)"),
            (json!({"step": true, "advance_seconds": 5}), "(body)"),
            (
                json!({"mode": "paused", "step": true, "advance_seconds": 5}),
                "(body)",
            ),
        ];
        for (body, field) in cases {
            assert_eq!(
                ClockCommand::parse_body(&body).unwrap_err().field,
                field,
                "{body}"
            );
        }
        assert!(ClockCommand::Speed { speed: 20.0 }.validate().is_err());
        assert!(ClockCommand::Advance { seconds: 60 }.validate().is_ok());
    }
}
