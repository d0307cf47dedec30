//! Outside inputs: a transfer, an app signal, safeguards and faults, a replay, a reset, a scenario
//! preset, scenario 7's writes and scenario 8's messengers. Each is recorded as a run input before
//! it acts, so a run replays it ([`Owner::apply_input`]).

use super::*;
use crate::server::calls::Fate;

impl Owner {
    /// Puts a transfer on the wire: its intent is noted (ground truth for the damage meter) and
    /// the caller's first step is scheduled now.
    pub(super) async fn accept_transfer(
        &mut self,
        request: TransferRequest,
        reply: oneshot::Sender<ApiReply>,
    ) -> Result<(), LabError> {
        self.record_input(&Input::Transfer {
            user: request.user.clone(),
            key: request.key.clone(),
            intent: request.intent.clone(),
            body: request.body.clone(),
            fate: request.fate.map(|f| f.0),
        })
        .await?;
        sqlx::query(
            "INSERT OR IGNORE INTO intents (intent, user_id, amount, first_ms) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(&request.intent)
        .bind(&request.user)
        .bind(request.body.amount)
        .bind(self.sim.now())
        .execute(&mut *self.world.stores.conn(StoreName::Lab).await?)
        .await?;
        let call = self.world.net.accept(reply, request.fate);
        let now = self.sim.now();
        self.sim.schedule_at(
            now,
            Step::Net(NetStep::Send {
                call,
                req: Arc::new(request),
            }),
        );
        self.report_clock();
        Ok(())
    }

    pub(super) async fn replay(&mut self, body: ReplayBody) -> Result<Vec<(i64, i64)>, LabError> {
        let ReplayBody {
            consumer,
            from_seconds_ago,
        } = body;
        let now = self.sim.now();
        let from = now - from_seconds_ago.get() * 1_000;
        self.record_input(&Input::Replay(body)).await?;
        let mut tx = self.world.stores.begin(StoreName::Broker).await?;
        let offsets = broker::seek_to_time(&mut tx, consumer.id(), consumer.topic(), from).await?;
        tx.commit().await?;
        let e = self.lab_event(
            EventKind::ReplayStarted,
            json!({"consumer": consumer, "from_ms": from, "offsets": offsets}),
        );
        self.publish(vec![e]).await?;
        self.sim.schedule_at(now, Step::Consume(consumer));
        self.save().await?;
        self.report_clock();
        Ok(offsets)
    }

    /// Puts the app's report of a tap on the button and app lanes.
    pub(super) async fn app_signal(&mut self, signal: AppSignal) -> Result<(), LabError> {
        self.record_input(&Input::App(signal.clone())).await?;
        let now = self.sim.now();
        let event = |layer, kind, key: Option<String>, outcome| NewEvent {
            at_ms: now,
            layer,
            kind,
            correlation: key,
            outcome,
            details: json!({}),
        };
        let events = match signal {
            AppSignal::Tap { key, key_kept } => vec![
                event(
                    Layer::Button,
                    EventKind::Tapped,
                    Some(key.clone()),
                    Outcome::Ok,
                ),
                if key_kept {
                    event(Layer::App, EventKind::KeyKept, Some(key), Outcome::Caught)
                } else {
                    event(Layer::App, EventKind::KeyMade, Some(key), Outcome::Ok)
                },
            ],
            AppSignal::TapIgnored { key } => vec![event(
                Layer::Button,
                EventKind::TapIgnored,
                key,
                Outcome::Caught,
            )],
        };
        self.publish(events).await?;
        self.report_clock();
        Ok(())
    }

    /// Applies one recorded input again (a rerun or a rewind): each kind through the same call
    /// that recorded it.
    pub(super) async fn apply_input(&mut self, input: serde_json::Value) -> Result<(), LabError> {
        let input = Input::read(&input).map_err(|e| {
            LabError::RunDiverged(format!("cannot read input {}: {}", e.field, e.message))
        })?;
        match input {
            Input::Transfer {
                user,
                key,
                intent,
                body,
                fate,
            } => {
                let mut request = TransferRequest::new(&user, key, body, intent);
                request.fate = fate.map(Fate);
                // Nobody waits for the answer: the replay is the steps, not the caller.
                let (reply, _) = oneshot::channel();
                self.accept_transfer(request, reply).await
            }
            Input::App(signal) => self.app_signal(signal).await,
            Input::Safeguards(body) => self.set_safeguards(body).await.map(|_| ()),
            Input::Faults(body) => self.set_faults(body).await.map(|_| ()),
            Input::Replay(body) => self.replay(body).await.map(|_| ()),
            Input::Generals { loss_pct } => self.generals(loss_pct).await.map(|_| ()),
            Input::Natural { op, times } => self.natural(op, times).await.map(|_| ()),
            // The reset and the settings around it are inputs of their own: this is the
            // timeline's mark.
            Input::Scenario { n, variant } => self.mark_scenario(n, variant).await,
            Input::Clock(command) => self.clock_commands(vec![command]).await.map(|_| ()),
        }
    }

    pub(super) async fn set_safeguards(
        &mut self,
        patch: SafeguardsPatch,
    ) -> Result<Safeguards, LabError> {
        let next = self.world.safeguards.apply(&patch);
        self.promises = self.promises.after(&next);
        if next.is_on(Safeguard::StuckRecovery)
            && !self.world.safeguards.is_on(Safeguard::StuckRecovery)
        {
            // Keys that got stuck while recovery was off are looked at now.
            let now = self.sim.now();
            self.sim.schedule_at(now, Step::STUCK_RECOVERY);
        }
        self.world.safeguards = next;
        let details = serde_json::to_value(&patch).expect("a change serialises");
        self.settings_changed(
            Input::Safeguards(patch),
            EventKind::SafeguardsChanged,
            details,
        )
        .await?;
        Ok(self.world.safeguards.clone())
    }

    pub(super) async fn set_faults(&mut self, patch: FaultsPatch) -> Result<Faults, LabError> {
        self.world.faults = self.world.faults.apply(&patch);
        let details = serde_json::to_value(&patch).expect("a change serialises");
        self.settings_changed(Input::Faults(patch), EventKind::FaultsChanged, details)
            .await?;
        Ok(self.world.faults.clone())
    }

    /// Records an applied settings change as an input and on the lab lane (the change, as the
    /// body that asked for it, is the event's details), and saves.
    pub(super) async fn settings_changed(
        &mut self,
        input: Input,
        kind: EventKind,
        change: serde_json::Value,
    ) -> Result<(), LabError> {
        self.record_input(&input).await?;
        let e = self.lab_event(kind, change);
        self.publish(vec![e]).await?;
        self.save().await
    }

    /// Back to the lesson's start: every service store and the intents emptied and re-seeded, default settings,
    /// the clock at 09:00 on day 1 running live at ×1, the generator back at the seed, and a new
    /// timeline (event ids keep counting up so a stream never sees an id twice).
    pub(super) async fn reset(&mut self) -> Result<(), LabError> {
        self.world.stores.reset_services().await?;
        {
            let mut lab = self.world.stores.conn(StoreName::Lab).await?;
            super::events::event_log::clear(&mut lab).await?;
            sqlx::query("DELETE FROM inputs").execute(&mut *lab).await?;
            // The damage meter's ground truth is what the student meant in this run: an
            // intent from before the reset would count against a ledger that no longer has it.
            sqlx::query("DELETE FROM intents")
                .execute(&mut *lab)
                .await?;
        }
        self.drop_checkpoints();
        self.world.safeguards = Safeguards::default();
        self.promises = Promises::all();
        self.world.faults = Faults::default();
        self.world.net.clear();
        self.world.pipeline.clear();
        self.sim = Sim::new(START_MS, self.seed);
        for (at, step) in LabWorld::standing_steps(START_MS) {
            self.sim.schedule_at(at, step);
        }
        self.mode = ClockMode::Live;
        self.speed = 1.0;
        self.anchor = Some(live_clock::LiveClock::new(Instant::now(), START_MS));
        let e = self.lab_event(EventKind::SandboxReset, json!({"seed": self.seed}));
        self.publish(vec![e]).await?;
        self.save().await?;
        self.report_clock();
        Ok(())
    }

    /// Scenario 8's Two Generals: messengers drawn from the seeded generator, each on the
    /// timeline at the virtual time it would arrive.
    pub(super) async fn generals(&mut self, chance: Percent) -> Result<Generals, LabError> {
        self.record_input(&Input::Generals { loss_pct: chance })
            .await?;
        let loss_pct = chance.get();
        let now = self.sim.now();
        let p = loss_pct as f64 / 100.0;
        let rng = self.sim.rng();
        let generals = Generals::from_draws(now, loss_pct, || rng.chance(p));
        let events = generals
            .trips
            .iter()
            .map(|t| NewEvent {
                at_ms: now,
                layer: Layer::Network,
                kind: EventKind::GeneralsTrip,
                correlation: Some(format!("generals-{now}")),
                outcome: if t.lost { Outcome::Lost } else { Outcome::Ok },
                details: json!({"n": t.n, "from": if t.from_a { "a" } else { "b" }}),
            })
            .collect();
        self.publish(events).await?;
        self.save().await?;
        Ok(generals)
    }

    /// Scenario 7: `times` copies of one write, each crossing the network (a lost request
    /// never arrives), each arrival run on the payment API's database and put on the timeline.
    pub(super) async fn natural(
        &mut self,
        op: NaturalOp,
        times: Times,
    ) -> Result<NaturalReport, LabError> {
        self.record_input(&Input::Natural { op, times }).await?;
        let times = times.get();
        let now = self.sim.now();
        let transfer_id = format!("sv-{:016x}", self.sim.rng().next_u64());
        let loss = self.world.faults.request_loss_pct.get() as f64 / 100.0;
        let mut conn = self.world.stores.conn(StoreName::Payments).await?;
        let mut events = Vec::new();
        let mut arrived = 0;
        for copy in 1..=times {
            let correlation = Some(transfer_id.clone());
            if self.sim.rng().chance(loss) {
                events.push(NewEvent {
                    at_ms: now,
                    layer: Layer::Network,
                    kind: EventKind::NaturalLost,
                    correlation,
                    outcome: Outcome::Lost,
                    details: json!({"op": op.id(), "copy": copy}),
                });
                continue;
            }
            let effect = natural::apply(&mut conn, op, &transfer_id, now, arrived == 0).await?;
            arrived += 1;
            let outcome = match effect {
                crate::domain::natural::Effect::AddedAgain => Outcome::Escaped,
                crate::domain::natural::Effect::Refused => Outcome::Caught,
                _ => Outcome::Ok,
            };
            events.push(NewEvent {
                at_ms: now,
                layer: Layer::Api,
                kind: EventKind::NaturalApplied,
                correlation,
                outcome,
                details: json!({"op": op.id(), "copy": copy, "effect": effect.id(),
                               "transfer_id": transfer_id}),
            });
        }
        let report = NaturalReport {
            op,
            sent: times,
            arrived,
            name: natural::name(&mut conn).await?,
            savings: natural::savings(&mut conn).await?,
            credit_rows: natural::credit_rows(&mut conn, &transfer_id).await?,
        };
        drop(conn);
        self.publish(events).await?;
        self.save().await?;
        Ok(report)
    }

    /// Records a loaded scenario as an input and puts its "scenario loaded" mark on the lab
    /// lane: the same for a load and for its replay.
    pub(super) async fn mark_scenario(
        &mut self,
        n: u8,
        variant: crate::domain::scenario::Variant,
    ) -> Result<(), LabError> {
        self.record_input(&Input::Scenario { n, variant }).await?;
        let e = self.lab_event(
            EventKind::ScenarioLoaded,
            json!({"n": n, "variant": variant.id()}),
        );
        self.publish(vec![e]).await
    }

    /// A scenario's preset: a reset under the preset's seed, then a "scenario loaded" event and
    /// the preset's settings, each recorded as an input so a run replays them.
    pub(super) async fn load_scenario(&mut self, preset: Preset) -> Result<(), LabError> {
        if preset.seed != self.seed {
            persist::SandboxRow::set_seed(
                &mut *self.world.stores.conn(StoreName::Lab).await?,
                preset.seed,
            )
            .await?;
            self.seed = preset.seed;
        }
        self.reset().await?;
        self.mark_scenario(preset.n, preset.variant).await?;
        if !preset.safeguards.is_empty() {
            self.set_safeguards(preset.safeguards).await?;
        }
        if !preset.faults.is_empty() {
            self.set_faults(preset.faults).await?;
        }
        if preset.speed != self.speed {
            self.clock_commands(vec![ClockCommand::Speed {
                speed: preset.speed,
            }])
            .await?;
        }
        self.save().await
    }
}
