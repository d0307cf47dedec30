//! A run: a seed plus the timed inputs that drove a sandbox. Rerunning it in a new sandbox gives
//! the same timeline, which `log_hash` lets anyone check.

use serde::{Deserialize, Serialize};

use super::fault::Percent;
use super::generals::GeneralsBody;
use super::natural::{NaturalBody, Times};
use super::phone::AppSignal;
use super::pipeline::Consumer;
use super::transfer::{IdempotencyKey, USERS};
use super::typed::{bounded, read_body};
use super::{
    expect_object, int_in, ClockCommand, FaultsPatch, FieldError, SafeguardsPatch, TransferBody,
};

/// One outside input, where it arrived: the virtual time and how many steps had run before it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RunInput {
    pub at_ms: i64,
    pub after_step: u64,
    /// `{"transfer": …}`, `{"safeguards": …}`, `{"faults": …}`, `{"replay": …}` or a clock
    /// command (`{"op": "step"}`, `{"op": "advance", "seconds": n}`, …).
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub input: serde_json::Value,
}

/// Everything needed to run a sandbox again: `GET …/run` gives it, `POST /api/runs` reruns it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub seed: u64,
    pub inputs: Vec<RunInput>,
    /// Where the clock stood when the run was exported.
    pub end_ms: i64,
    pub end_steps: u64,
    /// SHA-256 of the event log (every event's time, lane, kind, correlation, outcome and
    /// details, in order). On import it is what the rerun's own hash is checked against
    /// ([`Rerun`]); empty, nothing is claimed.
    #[serde(default)]
    pub log_hash: String,
}

/// A run rerun into a new sandbox: the sandbox, its event log's hash, and, when the run named
/// the hash it was recorded with, that hash and whether the rerun's is the same. `POST
/// /api/runs` answers it and the `/run` page shows it: the two never judge differently.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Rerun {
    #[cfg_attr(feature = "ssr", schema(format = "uuid"))]
    pub id: String,
    /// The hash of the rerun's event log.
    pub log_hash: String,
    /// The hash the run said it was recorded with; null when it named none.
    pub expected_log_hash: Option<String>,
    /// Whether the two are the same; null when the run named no hash. `false` means this run
    /// is not what was recorded (edited, or recorded by a lab that behaves differently).
    pub log_hash_matches: Option<bool>,
}

impl Rerun {
    /// The answer for run `claimed` rerun into sandbox `id` with log hash `got`.
    pub fn new(id: String, claimed: &Run, got: String) -> Rerun {
        let expected = (!claimed.log_hash.is_empty()).then(|| claimed.log_hash.clone());
        Rerun {
            id,
            log_hash_matches: expected.as_ref().map(|e| *e == got),
            expected_log_hash: expected,
            log_hash: got,
        }
    }
}

/// The latest virtual time a run may reach: a year after the lesson's start. Rerunning a run
/// runs every job due on its way, so this bounds the work one import can ask for.
pub const MAX_RUN_MS: i64 = super::clock::START_MS + 366 * super::clock::DAY_MS;

impl Run {
    /// Checks each input is one the API itself would have taken, in the shape the sandbox
    /// records it, and that every time lies between the lesson's start and [`MAX_RUN_MS`].
    /// Whether the inputs fit together (in order, at steps that happened) is the rerun's
    /// question: it answers `run-diverged`.
    pub fn check(&self) -> Result<(), FieldError> {
        let time = |field: String, ms: i64| {
            int_in(&field, &ms.into(), super::clock::START_MS, MAX_RUN_MS).map(|_| ())
        };
        for (i, RunInput { at_ms, input, .. }) in self.inputs.iter().enumerate() {
            time(format!("inputs[{i}].at_ms"), *at_ms)?;
            check_input(input).map_err(|e| {
                FieldError::new(format!("inputs[{i}].input.{}", e.field), e.message)
            })?;
        }
        time("end_ms".into(), self.end_ms)
    }

    /// Why a well-formed run cannot have been recorded, if it cannot: a transfer to its own
    /// sender, which the API refuses before anything is recorded.
    pub fn impossible(&self) -> Option<String> {
        self.inputs.iter().enumerate().find_map(|(i, r)| {
            let t = r.input.get("transfer")?;
            let body = TransferBody::parse_shape(t.get("body")?).ok()?;
            body.sent_by(t.get("user")?.as_str()?)
                .is_err()
                .then(|| format!("input {i} is a transfer to its own sender"))
        })
    }
}

/// One outside input, as a run records it and a rerun applies it (`RunInput::input` is its
/// JSON). The sandbox records only this type and a rerun matches on it, so no kind of input
/// can be recorded that a rerun does not apply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// A transfer as the payment API received it (the answer is the steps', not an input).
    Transfer {
        user: String,
        key: IdempotencyKey,
        intent: String,
        body: TransferBody,
        /// The send's own random numbers, when its caller dealt them (the day's paired runs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fate: Option<u64>,
    },
    /// What the phone app reported about a tap.
    App(AppSignal),
    /// A `PUT …/safeguards` body.
    Safeguards(SafeguardsPatch),
    /// A `PUT …/faults` body.
    Faults(FaultsPatch),
    /// A consumer group rewound by time.
    Replay(ReplayBody),
    /// Scenario 8's messengers.
    Generals { loss_pct: Percent },
    /// Scenario 7's copies of one write.
    Natural {
        op: super::natural::NaturalOp,
        times: Times,
    },
    /// The timeline's mark of a loaded preset (its reset and settings are inputs of their own).
    Scenario {
        n: u8,
        variant: super::scenario::Variant,
    },
    /// A clock command, recorded as itself: `{"op": "step"}`, `{"op": "advance", …}` …
    #[serde(untagged)]
    Clock(ClockCommand),
}

impl Input {
    /// Reads a recorded input: checked field by field first, so a bad one names its field.
    pub fn read(value: &serde_json::Value) -> Result<Input, FieldError> {
        check_input(value)?;
        serde_json::from_value(value.clone())
            .map_err(|e| FieldError::new("(input)", format!("not an input: {e}")))
    }

    /// The JSON a run carries.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("inputs serialise")
    }
}

/// One recorded input: `{"transfer": …}`, `{"safeguards": …}`, `{"faults": …}`,
/// `{"replay": …}`, `{"app": …}`, `{"scenario": {"n", "variant"}}` or a clock command
/// (`{"op": …}`).
fn check_input(input: &serde_json::Value) -> Result<(), FieldError> {
    let map = expect_object(input)?;
    if let Some(op) = map.get("op") {
        let fields: &[&str] = match op.as_str() {
            Some("pause" | "resume" | "step") => &["op"],
            Some("speed") => &["op", "speed"],
            Some("advance") => &["op", "seconds"],
            _ => {
                return Err(FieldError::new(
                    "op",
                    "expected pause, resume, step, speed or advance",
                ))
            }
        };
        if let Some(extra) = map.keys().find(|k| !fields.contains(&k.as_str())) {
            return Err(FieldError::new(
                extra.clone(),
                "not a field of this clock command",
            ));
        }
        let command: ClockCommand = serde_json::from_value(input.clone())
            .map_err(|e| FieldError::new("op", format!("not a clock command: {e}")))?;
        return command.validate().map(|_| ());
    }
    let mut entries = map.iter();
    let (Some((kind, body)), None) = (entries.next(), entries.next()) else {
        return Err(FieldError::new(
            "(input)",
            "expected one of transfer, safeguards, faults, replay, app, scenario, natural, generals or op",
        ));
    };
    let inner = |e: FieldError| FieldError::new(format!("{kind}.{}", e.field), e.message);
    match kind.as_str() {
        "transfer" => check_transfer(body).map_err(inner),
        "safeguards" => read_body::<SafeguardsPatch>(body)
            .map(|_| ())
            .map_err(inner),
        "faults" => read_body::<FaultsPatch>(body).map(|_| ()).map_err(inner),
        "replay" => read_body::<ReplayBody>(body).map(|_| ()).map_err(inner),
        "app" => AppSignal::parse(body).map(|_| ()).map_err(inner),
        "scenario" => check_scenario(body).map_err(inner),
        "generals" => {
            if body.get("loss_pct").is_none() {
                return Err(inner(FieldError::new("loss_pct", "required")));
            }
            read_body::<GeneralsBody>(body).map(|_| ()).map_err(inner)
        }
        "natural" => {
            if body.get("times").is_none() {
                return Err(inner(FieldError::new("times", "required")));
            }
            read_body::<NaturalBody>(body).map(|_| ()).map_err(inner)
        }
        _ => Err(FieldError::new(
            kind.clone(),
            "unknown input: expected transfer, safeguards, faults, replay, app, scenario, natural, generals or op",
        )),
    }
}

/// `{"n", "variant"}`: the mark a loaded scenario leaves in a run.
fn check_scenario(body: &serde_json::Value) -> Result<(), FieldError> {
    let map = expect_object(body)?;
    if let Some(extra) = map.keys().find(|k| !["n", "variant"].contains(&k.as_str())) {
        return Err(FieldError::new(
            extra.clone(),
            "unknown field: expected n and variant",
        ));
    }
    let n = map
        .get("n")
        .ok_or_else(|| FieldError::new("n", "required"))?;
    super::int_in("n", n, 1, 12)?;
    match map.get("variant").and_then(|v| v.as_str()) {
        Some("guarded" | "unguarded" | "at_most_once") => Ok(()),
        _ => Err(FieldError::new(
            "variant",
            "expected \"guarded\", \"unguarded\" or \"at_most_once\"",
        )),
    }
}

/// `{"user", "key", "body", "intent"}` (and a dealt `fate`) as the sandbox records a transfer.
fn check_transfer(t: &serde_json::Value) -> Result<(), FieldError> {
    // Whether `to` is the user is not a question of shape: see [`Run::impossible`].
    let map = expect_object(t)?;
    if let Some(extra) = map
        .keys()
        .find(|k| !["user", "key", "body", "intent", "fate"].contains(&k.as_str()))
    {
        return Err(FieldError::new(
            extra.clone(),
            "unknown field: expected user, key, body, intent and fate",
        ));
    }
    if map.get("fate").is_some_and(|f| !f.is_u64()) {
        return Err(FieldError::new("fate", "expected a whole number from 0"));
    }
    let text = |field: &str| {
        map.get(field)
            .and_then(|v| v.as_str())
            .ok_or_else(|| FieldError::new(field, "required: a string"))
    };
    let user = text("user")?;
    if !USERS.contains(&user) {
        return Err(FieldError::new("user", format!("no user called {user:?}")));
    }
    IdempotencyKey::parse(Some(text("key")?)).map_err(|e| FieldError::new("key", e.message))?;
    // The intent is a Lab-Intent UUID or, without one, the key itself.
    IdempotencyKey::parse(Some(text("intent")?))
        .map_err(|e| FieldError::new("intent", e.message))?;
    let body = map
        .get("body")
        .ok_or_else(|| FieldError::new("body", "required"))?;
    TransferBody::parse_shape(body)
        .map(|_| ())
        .map_err(|e| FieldError::new(format!("body.{}", e.field), e.message))
}

/// How far back a consumer may be replayed, in days: past the log's 7-day retention, so that a
/// replay can show retention's own limit, and the same bound as the longest clock jump. The
/// replay form in the instructor's panel reads it too.
pub const MAX_REPLAY_DAYS: i64 = super::clock::MAX_ADVANCE_SECONDS / 86_400;

bounded!(
    /// How far back a consumer is replayed, in seconds: 0 to [`MAX_REPLAY_DAYS`] days.
    SecondsAgo,
    0,
    MAX_REPLAY_DAYS * 86_400
);

/// `POST …/replay`: a consumer group rewound by time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayBody {
    pub consumer: Consumer,
    pub from_seconds_ago: SecondsAgo,
}

#[cfg(test)]
mod input_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_of_input_reads_back_as_itself() {
        let inputs = [
            json!({"transfer": {"user": "shimul", "key": "k1", "intent": "k1",
                                "body": {"to": "tithi", "amount": 500}}}),
            json!({"app": {"signal": "tap", "key": "k1", "key_kept": true}}),
            json!({"safeguards": {"outbox": false}}),
            json!({"faults": {"response_loss_pct": 100}}),
            json!({"replay": {"consumer": "wallet", "from_seconds_ago": 3600}}),
            json!({"generals": {"loss_pct": 30}}),
            json!({"natural": {"op": "set_name", "times": 10}}),
            json!({"scenario": {"n": 8, "variant": "at_most_once"}}),
            json!({"op": "step"}),
            json!({"op": "advance", "seconds": 60}),
        ];
        for value in inputs {
            let input = Input::read(&value).unwrap_or_else(|e| panic!("{value}: {e}"));
            assert_eq!(input.to_json(), value);
        }
        assert!(matches!(
            Input::read(&json!({"op": "pause"})),
            Ok(Input::Clock(ClockCommand::Pause))
        ));
    }

    #[test]
    fn a_bad_input_names_its_field() {
        let e = Input::read(
            &json!({"transfer": {"user": "nobody", "key": "k", "intent": "k",
                                                  "body": {"to": "tithi", "amount": 5}}}),
        )
        .unwrap_err();
        assert_eq!(e.field, "transfer.user");
        assert!(Input::read(&json!({"teleport": {}})).is_err());
    }
}
