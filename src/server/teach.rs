//! A class's two flows that cross into the sandboxes (docs/reference.md §10): a student joining
//! (the class admits the name, a sandbox is made, the class enrols it) and the instructor's view
//! (the stored rows, with each running sandbox looked at again). `server::classes` is the store
//! alone; this file is where it meets `Sandboxes`.

use uuid::Uuid;

use super::classes::now_ms;
use super::error::LabError;
use super::sandboxes::Sandboxes;
use crate::domain::class::{
    message_text, ChapterReport, ClassCode, ClassView, CueMessage, CueOpen, Progress, Push,
    PushReport, Sent, SentWhat,
};
use crate::domain::{ClockCommand, ClockMode, SafeguardValue, SafeguardsPatch};

/// A student joins a class under a name: a new sandbox of their own (with the id the balancer
/// names, if any), tied to the class. Returns the sandbox's id.
pub async fn join(
    sandboxes: &Sandboxes,
    id: Option<Uuid>,
    code: &str,
    name: &str,
) -> Result<String, LabError> {
    let classes = sandboxes.classes();
    let (class_id, name) = classes.admit(code, name).await?;
    // Its id starts with the class's route, so a balancer keeps it beside the class.
    let code = ClassCode::parse(code)?;
    let id = crate::domain::class::class_scoped_id(&code, id.unwrap_or_else(Uuid::new_v4));
    let handle = sandboxes.create(Some(id), None, ClockMode::Live).await?;
    classes.holds(&class_id).await?.apply(&handle);
    let sandbox = handle.id.to_string();
    // If a join for the same name won the race in between, this sandbox stays untouched, and
    // the disk cap reclaims such sandboxes first.
    classes.enrol(&class_id, &sandbox, &name).await?;
    Ok(sandbox)
}

/// Takes a student off the roster: the row goes, the sandbox stays the student's, out of the
/// class's hold (no lock, no freeze, no cue) if it is running.
pub async fn remove(sandboxes: &Sandboxes, class_id: &str, sandbox: &str) -> Result<(), LabError> {
    sandboxes.classes().remove(class_id, sandbox).await?;
    if let Some(handle) = sandboxes.running(sandbox).await {
        super::classes::Holds::default().apply(&handle);
    }
    Ok(())
}

/// The newest events since a reset a chapter's steps are checked against: more than any
/// chapter makes, few enough that a report stays a short read.
const CHAPTER_EVENTS: i64 = 10_000;

/// A student's lab says which chapter is open (and what the student looked at, which only it
/// knows); the server works out which steps are done from the sandbox's own events and state,
/// with the checks the lab itself runs (`domain::course`), ticked in order on top of what the
/// student had already done in that chapter. A step the sandbox does not show is not ticked,
/// whatever the browser claims. `false` when the sandbox is in no class.
pub async fn report(
    sandboxes: &Sandboxes,
    sandbox: &str,
    report: &ChapterReport,
) -> Result<bool, LabError> {
    let classes = sandboxes.classes();
    let (chapter, looked) = report.read()?;
    if !classes.is_student(sandbox).await? {
        return Ok(false);
    }
    sandboxes.admit(sandbox)?;
    let handle = sandboxes.get(sandbox).await?;
    let events = handle.events_since_reset(CHAPTER_EVENTS).await?;
    let state = handle.state_rows(crate::domain::state::SCREEN_ROWS).await?;
    let holds = chapter.progress(&events, &state, &looked);
    let before = classes.reached(sandbox, chapter.n).await?;
    let mut done: Vec<bool> = (0..holds.len()).map(|k| before >> k & 1 == 1).collect();
    // A chapter the class's push opened at a step does not ask for the steps before it: the
    // server knows the push, whatever the browser says.
    let from = classes
        .holds_for(sandbox)
        .await?
        .cue
        .open
        .filter(|o| o.chapter == chapter.n)
        .map_or(0, |o| usize::from(o.step));
    crate::domain::course::advance_from(&mut done, &holds, from);
    let ticked = done
        .iter()
        .enumerate()
        .filter(|(_, d)| **d)
        .fold(0u16, |bits, (k, _)| bits | 1 << k);
    let progress = Progress {
        chapter: chapter.n,
        steps_done: ticked.count_ones() as u8,
        ticked,
    };
    classes.record(sandbox, progress).await
}

/// The class as its instructor sees it. Each running sandbox whose log grew since the last look
/// has its harm and newest event read again, and kept, so the view stands across a restart and
/// while a sandbox is unloaded. A sandbox not running is not loaded for it.
pub async fn view(
    sandboxes: &Sandboxes,
    class_id: &str,
    code: ClassCode,
) -> Result<ClassView, LabError> {
    let classes = sandboxes.classes();
    let rows = classes.students(class_id).await?;
    let mut students = Vec::with_capacity(rows.len());
    for (mut student, seen, harm_seen) in rows {
        if let Some(handle) = sandboxes.running(&student.sandbox).await {
            match handle.last_event().await {
                Ok(Some(event)) if event.id != seen => match handle.damage().await {
                    Ok(damage) => {
                        student.harm = damage.verdict().into();
                        student.harm_kinds = crate::domain::class::HarmKinds::of(&damage);
                        let newest = event.id;
                        // A clock the instructor froze or thawed says nothing of what the
                        // student did: the row keeps the student's own newest event.
                        if event.kind != crate::domain::EventKind::ClockChanged {
                            student.last_event = Some(event);
                        }
                        classes.note(&student, harm_seen, newest).await?;
                    }
                    Err(e) => tracing::warn!(sandbox = %student.sandbox, "class view: {e}"),
                },
                Ok(_) => {}
                Err(e) => tracing::warn!(sandbox = %student.sandbox, "class view: {e}"),
            }
        }
        students.push(student);
    }
    let holds = classes.holds(class_id).await?;
    Ok(ClassView {
        id: class_id.to_owned(),
        code,
        name: classes.name(class_id).await?,
        now_ms: now_ms(),
        students,
        locked: holds.locked,
        frozen: holds.frozen,
        cue: holds.cue,
        history: classes.history(class_id).await?,
        holders: classes.holders(class_id).await?,
    })
}

/// A one-line message to every student's screen, until the next one: kept with the class (a
/// sandbox loaded later shows it too), told to the running sandboxes, and written in the
/// class's history.
pub async fn message(
    sandboxes: &Sandboxes,
    class_id: &str,
    text: &str,
) -> Result<PushReport, LabError> {
    let text = message_text(text)?;
    let classes = sandboxes.classes();
    let at_ms = now_ms();
    let mut cue = classes.holds(class_id).await?.cue;
    cue.message = Some(CueMessage {
        text: text.clone(),
        at_ms,
    });
    classes.set_cue(class_id, &cue).await?;
    let students = classes.students(class_id).await?;
    for (student, ..) in &students {
        if let Some(handle) = sandboxes.running(&student.sandbox).await {
            handle.set_cue(&cue);
        }
    }
    // Every lab takes it: one not running reads the cue from the class when it loads.
    let of = students.len();
    let report = PushReport { took: of, of };
    log(classes, class_id, at_ms, None, Some(text), report).await?;
    Ok(report)
}

async fn log(
    classes: &super::classes::Classes,
    class_id: &str,
    at_ms: i64,
    push: Option<Push>,
    message: Option<String>,
    report: PushReport,
) -> Result<(), LabError> {
    let sent = Sent {
        at_ms,
        what: SentWhat { push, message },
        took: report.took,
        of: report.of,
    };
    classes.log_sent(class_id, &sent).await
}

/// Does one thing to every student's sandbox at once (loading the ones not running), each
/// sandbox on its own owner, all at the same time. Reports how many took it; a sandbox that
/// failed (expired, or the server full) is logged and not counted. A preset also opens the
/// chapter that teaches it, at the step that loads it, on every student's screen.
pub async fn push(
    sandboxes: &Sandboxes,
    class_id: &str,
    push: Push,
) -> Result<PushReport, LabError> {
    let preset = match push {
        Push::Preset { scenario, variant } => Some(
            crate::domain::scenario::preset(scenario, variant)
                .ok_or_else(|| LabError::UnknownScenario(scenario.to_string()))?,
        ),
        _ => None,
    };
    let classes = sandboxes.classes();
    // The lock and the freeze are kept with the class, so a sandbox loaded later (or after a
    // restart) is held too.
    match push {
        Push::Lock { locked } => classes.set_locked(class_id, locked).await?,
        Push::Freeze { frozen } => classes.set_frozen(class_id, frozen).await?,
        _ => {}
    }
    let at_ms = now_ms();
    let mut cue = classes.holds(class_id).await?.cue;
    if let Push::Preset { scenario, variant } = push {
        cue.open = CueOpen::of(scenario, variant, at_ms);
        classes.set_cue(class_id, &cue).await?;
    }
    let students = classes.students(class_id).await?;
    let of = students.len();
    let each = students.into_iter().map(|(student, ..)| {
        let preset = preset.clone();
        let cue = &cue;
        async move {
            let handle = sandboxes.get(&student.sandbox).await?;
            match push {
                Push::Preset { .. } => {
                    handle.load_scenario(preset.expect("checked above")).await?;
                    handle.set_cue(cue);
                }
                Push::Safeguard { safeguard, on } => handle
                    .set_safeguards(SafeguardsPatch::one(safeguard, SafeguardValue::On(on))?)
                    .await
                    .map(drop)?,
                Push::Freeze { frozen } => {
                    // Held first, so no student's own command slips in after the pause.
                    handle.set_frozen(frozen);
                    handle
                        .clock(vec![if frozen {
                            ClockCommand::Pause
                        } else {
                            ClockCommand::Resume
                        }])
                        .await
                        .map(drop)?
                }
                Push::Reset => handle.reset().await?,
                Push::Lock { locked } => handle.set_locked(locked),
            }
            Ok::<_, LabError>(())
        }
    });
    let results = futures::future::join_all(each).await;
    let took = results
        .iter()
        .filter(|r| match r {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(class = %class_id, "a push did not take: {e}");
                false
            }
        })
        .count();
    classes.touch(class_id).await?;
    let report = PushReport { took, of };
    log(classes, class_id, at_ms, Some(push), None, report).await?;
    Ok(report)
}
