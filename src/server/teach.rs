//! A class's two flows that cross into the sandboxes (docs/reference.md §10): a student joining
//! (the class admits the name, a sandbox is made, the class enrols it) and the instructor's view
//! (the stored rows, with each running sandbox looked at again). `server::classes` is the store
//! alone; this file is where it meets `Sandboxes`.

use uuid::Uuid;

use super::classes::now_ms;
use super::error::LabError;
use super::sandboxes::Sandboxes;
use crate::domain::class::{ClassCode, ClassView, Push, PushReport};
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
    // Its id starts with the class's prefix, so a balancer keeps it beside the class.
    let id = crate::domain::class::student_sandbox_id(id.unwrap_or_else(Uuid::new_v4));
    let handle = sandboxes.create(Some(id), None, ClockMode::Live).await?;
    handle.set_locked(classes.locked(&class_id).await?);
    let sandbox = handle.id.to_string();
    // If a join for the same name won the race in between, this sandbox stays untouched, and
    // the disk cap reclaims such sandboxes first.
    classes.enrol(&class_id, &sandbox, &name).await?;
    Ok(sandbox)
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
    for (mut student, seen) in rows {
        if let Some(handle) = sandboxes.running(&student.sandbox).await {
            match handle.last_event().await {
                Ok(Some(event)) if event.id != seen => match handle.damage().await {
                    Ok(damage) => {
                        student.harm = damage.verdict().into();
                        student.last_event = Some(event);
                        classes.note(&student).await?;
                    }
                    Err(e) => tracing::warn!(sandbox = %student.sandbox, "class view: {e}"),
                },
                Ok(_) => {}
                Err(e) => tracing::warn!(sandbox = %student.sandbox, "class view: {e}"),
            }
        }
        students.push(student);
    }
    Ok(ClassView {
        id: class_id.to_owned(),
        code,
        now_ms: now_ms(),
        students,
        locked: classes.locked(class_id).await?,
    })
}

/// Does one thing to every student's sandbox at once (loading the ones not running), each
/// sandbox on its own owner, all at the same time. Reports how many took it; a sandbox that
/// failed (expired, or the server full) is logged and not counted.
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
    if let Push::Lock { locked } = push {
        // Kept with the class, so a sandbox loaded later (or after a restart) is locked too.
        classes.set_locked(class_id, locked).await?;
    }
    let students = classes.students(class_id).await?;
    let of = students.len();
    let each = students.into_iter().map(|(student, _)| {
        let preset = preset.clone();
        async move {
            let handle = sandboxes.get(&student.sandbox).await?;
            match push {
                Push::Preset { .. } => handle.load_scenario(preset.expect("checked above")).await?,
                Push::Safeguard { safeguard, on } => handle
                    .set_safeguards(SafeguardsPatch::one(safeguard, SafeguardValue::On(on))?)
                    .await
                    .map(drop)?,
                Push::Freeze { frozen } => handle
                    .clock(vec![if frozen {
                        ClockCommand::Pause
                    } else {
                        ClockCommand::Resume
                    }])
                    .await
                    .map(drop)?,
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
    Ok(PushReport { took, of })
}
