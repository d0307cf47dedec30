//! The phone's note while its key answers 409: why, and until when (drawn with the lab's later
//! panels, `lab::later`).

use crate::tr;
use leptos::prelude::*;

use crate::app::i18n::digits;
use crate::app::lab::stream::LabStream;
use crate::domain::phone_app::{AppScreen, PhoneView};
use crate::domain::{Safeguard, SafeguardValue};

/// While the same key keeps answering "still being processed" (409), why, and until when: the
/// key's row is IN_PROGRESS since its claim; with stuck-key recovery on, the recovery job frees
/// it 60 s after the claim (`domain::safeguard::stuck_freed_at`), read against the sandbox's
/// own clock; with it off, nothing will, until the key's window ends.
#[component]
pub fn KeyWait(face: Signal<PhoneView>, live: LabStream) -> impl IntoView {
    let (state, clock) = (live.state, live.clock);
    let wait = move || {
        if !face.with(|f| f.screen == AppScreen::InProgress) {
            return None;
        }
        let key = face.with(|f| f.key.clone())?;
        let (claimed, recovery) = state.with(|s| {
            let claimed = s
                .tables
                .get("payments.idempotency_keys")?
                .iter()
                .filter(|r| r["idem_key"] == key.as_str() && r["status"] == "IN_PROGRESS")
                .filter_map(|r| r["created_ms"].as_i64())
                .max()?;
            let on = matches!(
                s.safeguards.get(Safeguard::StuckRecovery),
                SafeguardValue::On(true)
            );
            Some((claimed, on))
        })?;
        let now = clock.with(|c| c.now_ms);
        Some(if recovery {
            let free = crate::domain::safeguard::stuck_freed_at(claimed);
            let left = ((free - now).max(0) + 999) / 1000;
            (
                true,
                tr!("phone-wait-recovery", {
                    "at" => crate::app::format::clock_text(free),
                    "s" => digits(&left.to_string())
                }),
            )
        } else {
            (false, tr!("phone-wait-stuck"))
        })
    };
    move || {
        wait().map(|(recovery, text)| view! {
            <p class="lab-note" data-testid="key-wait" data-recovery=recovery.to_string()>{text}</p>
        })
    }
}
