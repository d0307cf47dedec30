//! A class's two flows that cross into the sandboxes (docs/reference.md §10): a student joining
//! (the class admits the name, a sandbox is made, the class enrols it) and the instructor's view
//! (the stored rows, with each running sandbox looked at again). `server::classes` is the store
//! alone; this file is where it meets `Sandboxes`.

use uuid::Uuid;

use super::classes::now_ms;
use super::error::LabError;
use super::sandboxes::Sandboxes;
use crate::domain::class::{ClassCode, ClassView};
use crate::domain::ClockMode;

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
    let sandbox = sandboxes
        .create(id, None, ClockMode::Live)
        .await?
        .id
        .to_string();
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
    })
}
