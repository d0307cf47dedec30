# PocketPay Idempotency Lab: English.
# Arguments arrive already written for the language (digits, ৳ amounts, times).
# A message about a count also gets $n, the count as a number, to choose its plural form.

app-title = PocketPay Idempotency Lab
app-name = PocketPay Idempotency Lab
skip-to-content = Skip to the content
nav-label = Main
nav-home = Start
nav-lab = Lab
lang-switch = বাংলা
lang-switch-label = বাংলায় পড়ুন (read in Bangla)
not-found-title = Page not found
not-found-text = There is nothing at this address.
not-found-home = Back to the start page
fn-error-unknown-sandbox = This lab no longer exists: open a new one.
fn-error-unknown-event = That event is no longer in this lab's timeline.
fn-error-unknown-scenario = There is no such scenario.
fn-error-invalid-field = The server did not accept the value of { $field }.
fn-error-busy = The lab is busy right now. Try again in { $seconds } s.
fn-error-run-diverged = This run could not be replayed as it was recorded.
fn-error-internal = Something went wrong on the server. Try again.
fn-error-unreachable = The server could not be reached. Check the connection and try again.
on = on
off = off
hours = { $hours } h

home-title = Tap once or ten times: the money moves once
home-what = Idempotency means that doing something once or many times has the same effect. In a payment app: tap Send once or ten times, and ৳500 leaves Shimul's wallet once.
home-story = On a train with a weak network, Shimul sends ৳500 from his PocketPay app to his sister Tithi. The first request reaches the server and does its work, but the answer is lost on the way back. Shimul taps again, and he is charged twice.
home-layers = In this lab every layer is real code on a real database: from the Send button through the payment API, the ledger, the outbox and a Kafka-style broker to Tithi's wallet and SMS. See where a duplicate is born and which guard catches it; switch a guard off and see the damage.
home-open-lab = Open the lab on its own
home-own-title = Every lab is your own
home-own-text = Each browser gets its own copy of PocketPay to break and mend (a sandbox): its own databases and its own clock, which you can pause, step or jump ahead. Nobody else sees what you do there, and the same actions always give the same result, so anything that happened can be run again and looked at slowly.

lab-opening = Opening the lab…
lab-failed = The lab could not be opened
lab-title = Lab
lab-missing-title = This lab no longer exists
lab-missing-text = The address is wrong, or the sandbox was removed after a long time unused.
lab-missing-new = Open a new lab

# Shimul's phone
shimul-phone = Shimul's phone
shimul-phone-frame = Shimul's phone running PocketPay
pocketpay = PocketPay
your-balance = Your balance
send-to = To
tithi = Tithi
amount-label = Amount
send = Send
send-again = Send again
send-sending = Sending…
reopen-app = Close and reopen the app
reopen-app-hint = Drops everything the app holds in memory, as a swiped-away app does; what it saved in storage stays.
phone-ready = Ready to send.
phone-sending = Sending…
phone-unfinished = An unfinished transfer is waiting: its answer never came. Tap Send to try it again with its own key.
phone-backoff = No answer yet; the app will try again by itself…
receipt-sent = { $amount } sent to Tithi
receipt-balance = Balance now { $balance }
receipt-replayed = The server sent back its stored answer (Idempotent-Replayed).
phone-already-made = This transfer has already been made.
phone-insufficient = Not enough balance. No money moved.
phone-key-reused = This key was already used for a different payment. Refused.
phone-refused = The request was refused. No money moved.
phone-in-progress = This payment is still being processed. Please check again in a moment.
phone-try-later = The service is busy. Please try again shortly.
generic-error = Something went wrong, please try again
outcome-unknown-note = Outcome unknown: the phone cannot tell whether the money left.
key-pending = { $n ->
    [one] pending, { $requests } request sent with it
   *[other] pending, { $requests } requests sent with it
}
key-last = the last key used; the next transfer gets a new one
key-none = made at the Send tap
amount-empty = Enter an amount.
amount-not-whole = Write the amount in whole taka, digits only.
amount-too-small = The amount must be at least ৳1.
amount-too-large = The amount may be at most ৳1,000,000.

# Tithi's phone
tithi-phone = Tithi's phone
tithi-phone-frame = Tithi's phone: wallet and messages
wallet-balance = Wallet balance
sms-title = Messages
sms-from = PocketPay
sms-money-received = You have received { $amount } from Shimul.
sms-none = No messages yet.

# Network panel
network-title = Network
network-hint = The train's network, the phone's HTTP library and the load balancer. The phone cannot tell a lost request from a lost response.
fault-request_loss_pct = Requests lost
fault-request_loss_pct-hint = The request never reaches the server.
fault-response_loss_pct = Responses lost
fault-response_loss_pct-hint = The server did the work, but its answer never arrives.
fault-latency_ms = Latency
fault-latency_ms-hint = Each way, virtual time.
fault-phone_timeout_ms = Phone timeout
fault-phone_timeout_ms-hint = How long the phone waits before it gives up. The lesson's app waited 15 seconds; the lab starts at 5 so that a run does not keep you waiting. Set 15,000 (milliseconds) to wait 15 seconds, as Shimul's phone did: nothing else changes.
fault-auto_retries = Automatic retries
fault-auto_retries-hint = The HTTP library sends the same request again after a timeout.
fault-retry_backoff_ms = Wait before a retry
fault-retry_backoff_ms-hint = Virtual time between the library's retries.
fault-lb_retry = Load balancer retry
fault-lb_retry-hint = An instance that is slow to answer gets the request sent to the other one as well.
fault-gateway_latency_ms = Payment gateway latency
fault-gateway_latency_ms-hint = Time spent inside the API between the claim and the debit: room for a second request.
attacks-title = Crafted attacks
attacks-hint = A buggy client, not Shimul's app: scripted on the server so the timing is exact.
attack-race = One key twice, 50 ms apart
attack-reused-key = Same key, ৳5,000 instead of ৳500
attack-running = Sending…
attack-note-executed = executed
attack-note-replayed = the stored answer
attack-note-in-progress = caught: the same key is in progress
attack-note-reused = caught: same key, different body
attack-note-other = see the timeline

# Damage meter
damage-title = Damage meter
damage-verdict-money_wrong = Money is wrong: someone was charged or paid twice, or money was lost, made up or vanished.
damage-verdict-effect_twice = The money is right, but something happened twice: a second fraud approval, the same SMS again, or a stored receipt sent for a different request.
damage-verdict-stuck = Stuck: a key sits IN_PROGRESS and nothing will ever finish it. Every retry gets 409.
damage-verdict-in_flight = Nothing wrong so far: { $amount } is on its way, waiting in the outbox or the log.
damage-verdict-nothing_moved = Nothing has moved yet: no debit (intended transfers: { $intents }).
damage-verdict-exactly_once = Exactly once: every debit, credit, approval and SMS happened once; nothing lost, nothing stuck.
damage-intents = Intended transfers
damage-intents-means = Times someone decided to send money (ground truth the guards never see).
damage-debits = Debits executed
damage-debits-means = Rows in the ledger that took money from a sender.
damage-double_charges = Double charges
damage-double_charges-means = Debits beyond the first for one intended transfer.
damage-credits = Credits applied
damage-credits-means = Money the wallet service put into a wallet.
damage-double_credits = Double credits
damage-double_credits-means = Credits beyond the first for one transfer: paid from PocketPay's pocket.
damage-sms = SMS sent
damage-sms-means = Messages the SMS service sent.
damage-duplicate_sms = Duplicate SMS
damage-duplicate_sms-means = The same message sent again.
damage-duplicate_approvals = Duplicate fraud approvals
damage-duplicate_approvals-means = Audit rows beyond the first for one event: the fraud check approved the same transfer again. Its audit lives outside the broker's transaction, so no switch here stops it.
damage-wrong_replays = Receipts for another request
damage-wrong_replays-means = Stored answers sent to a request with a different body (fingerprint check off): the ৳5,000 request got the ৳500 receipt, and the ৳5,000 never moved.
damage-stuck_keys = Stuck keys
damage-stuck_keys-means = Keys IN_PROGRESS that nothing will finish: the instance died after its claim and stuck-key recovery is off. Every retry gets 409 until the window ends.
damage-in_flight = Transfers in flight
damage-in_flight-means = Debits whose event still waits in the outbox or the log: not damage, money on its way.
damage-lost_events = Events lost
damage-lost_events-means = Debits with no credit whose event waits nowhere: the sender paid, the receiver never will be.
damage-money_created = Money created or destroyed
damage-money_created-means = Credits minus debits. While money is in flight this is not harm; once nothing is on its way, anything but ৳0 is money made up or vanished.
damage-support_tickets = Support tickets
damage-support_tickets-means = One angry call per damaged transfer.

# Timeline (the event list)
events-title = Timeline: every layer, every event
events-none = No events yet.
stream-connected = Live from the server
stream-waiting = Waiting for the connection…
layer-button = Send button
layer-app = App
layer-network = Network
layer-load_balancer = Load balancer
layer-api = Payment API
layer-ledger = Ledger
layer-outbox = Outbox
layer-relay = Relay
layer-broker = Broker
layer-fraud = Fraud check
layer-wallet = Wallet
layer-sms = SMS
layer-jobs = Jobs
layer-lab = Lab
outcome-ok = ok
outcome-caught = caught
outcome-escaped = escaped
outcome-lost = lost
outcome-unknown = unknown
ev-again = { " " }(again!)
ev-debited-again = { " " }(a second time!)
ev-sandbox_created = A new sandbox was made
ev-sandbox_reset = The sandbox started again: Shimul ৳2,000, Tithi ৳0, every guard on
ev-safeguards_changed = Safeguards changed: { $what }
ev-faults_changed = Faults changed: { $what }
ev-clock_paused = The clock was paused
ev-clock_resumed = The clock is running again
ev-clock_speed = The clock now runs at { $speed }
ev-clock_changed = The clock changed
ev-clock_stepped = One step was run (to { $to })
ev-clock_jumped = The clock jumped to { $to }
ev-inbox_cleaned = Inbox cleaner: removed rows older than { $hours } h (wallet { $wallet }, SMS { $sms })
ev-log_retention_applied = { $n ->
    [one] Log retention: { $count } old record deleted
   *[other] Log retention: { $count } old records deleted
}
ev-request_sent = A request to send { $amount } set off
ev-request_lost = The network lost the request
ev-lb_routed = The load balancer passed it to instance { $instance }
ev-lb_retried = The instance did not answer; the load balancer sent it again (attempt { $attempt })
ev-lb_gave_up = No instance answered: the load balancer answered 504
ev-lb_late_answer_dropped = The load balancer dropped an answer that came too late
ev-key_claimed = Key claimed: IN_PROGRESS row committed
ev-key_lookup_empty = Look-up found nothing (the write comes after the work: look-then-write)
ev-key_not_checked = Idempotency table off: whatever comes in runs
ev-key_in_progress = The same key is still running: 409
ev-key_in_progress-stuck = 409: the key is IN_PROGRESS, but no instance is working on it any more (stuck)
ev-response_replayed = The stored answer went back byte for byte ({ $status })
ev-key_reused = Same key, different body: 422
ev-debited = { $amount } debited, { $txn }{ $again }
ev-ledger_duplicate = The ledger's UNIQUE(transfer_id) stopped a second debit
ev-insufficient_funds = Balance { $balance } is not enough: 422
ev-instance_crashed = An API instance crashed ({ $crash })
ev-response_lost = The answer was lost on its way back
ev-response_delivered = The answer arrived: { $status }
ev-response_too_late = The answer came, but the phone had already given up
ev-caller_timed_out = Timeout: the phone does not know whether the money left
ev-stuck_key_completed = Stuck key: its debit is in the ledger, so it was completed ({ $txn })
ev-stuck_key_released = Stuck key: no debit, so it was released for a retry
ev-partitions_dropped = { $n ->
    [one] Nightly job: dropped partitions outside the window ({ $rows } row)
   *[other] Nightly job: dropped partitions outside the window ({ $rows } rows)
}
ev-outbox_written = The event was written to the outbox in the debit's transaction
ev-event_published = The event was published to the log ({ $by })
ev-event_lost = The process died after the commit, before publishing: the event is lost
ev-relay_crashed = The relay crashed after publishing, before marking the row sent
ev-record_appended = { $topic } partition { $partition }, offset { $offset }
ev-ack_lost = The broker's ack was lost: the producer will send again
ev-resend_dropped = The same batch came again: the idempotent producer dropped it
ev-resend_appended = The same batch was written again, offset { $offset }
ev-fraud_approved = { $n ->
    [one] The fraud check approved it ({ $audit } audit row)
   *[other] The fraud check approved it ({ $audit } audit rows)
}
ev-fraud_crashed = The fraud check crashed after writing, before committing
ev-transaction_aborted = A half-done transaction was aborted (new epoch)
ev-credited = { $amount } credited to Tithi's wallet{ $again }
ev-sms_sent = SMS sent: { $amount } received{ $again }
ev-inbox_duplicate = This event is already in the inbox: skipped
ev-consumer_crashed = Crashed after the local commit, before the offset commit
ev-replay_started = { $consumer } started reading again (replay)

# Inspector
inspector-title = Inspector: every table of every store
inspector-hint = The live rows, newest first (at most { $rows } per table). Each service owns its own database; no transaction spans two.
store-payments = Payment API (payments)
store-broker = Broker, a teaching model of Kafka (broker)
store-fraud = Fraud check (fraud)
store-wallet = Wallet service (wallet)
store-sms = SMS service (sms)
store-lab = The lab's own records (lab)
table-rows = { $n ->
    [one] { $count } row
   *[other] { $count } rows
}
table-empty = No rows.
table-show-all = { $n ->
    [one] Show the { $count } row
   *[other] Show all { $count } rows
}
table-partitions = daily partitions: day { $list }

# Instructor panel
instructor-title = Instructor
presenter-mode = Presenter mode
reset = Start again: Shimul ৳2,000, Tithi ৳0, empty tables, every guard on
share-link = Open this same lab on another screen
share-link-hint = Anyone with this link sees and controls this sandbox.
copy = Copy
copied = Copied.
clock-title = Virtual clock
clock-at = Day { $day } · { $time }
clock-live = Running, speed { $speed }
clock-paused = Paused
clock-next = Next scheduled step: { $at }
clock-nothing-due = Nothing scheduled
clock-controls = Clock controls
clock-resume = Run
clock-pause = Pause
clock-step = One step
clock-step-title = Run the next scheduled step
clock-speed = Speed
clock-jump = Move time ahead
jump-minute = +1 minute
jump-hour = +1 hour
jump-day = +1 day
safeguards-title = Your switches: the safeguards
hours-whole-number = Write the hours as a whole number from 1 to 8784.
safeguard-button_guard-catches = A finger's double tap: the button is disabled with a spinner until the outcome.
safeguard-button_guard-without = each tap sends its own request.
safeguard-key_persistence-catches = Retries that must look like the same attempt: one key, kept in storage, reused after a reopen.
safeguard-key_persistence-without = every attempt gets a new key, so the server sees new transfers.
safeguard-idempotency_table-catches = Manual retries, the library's auto-retry, the load balancer's retry: the stored answer is replayed.
safeguard-idempotency_table-without = every retry runs again: Shimul is charged twice.
safeguard-atomic_claim-catches = Two requests with one key 50 ms apart: the claim is an INSERT committed before the work.
safeguard-atomic_claim-without = two requests both find no key and both debit.
safeguard-fingerprint_check-catches = A client bug reusing a key for another amount: 422.
safeguard-fingerprint_check-without = the stored ৳500 answer comes back for a ৳5,000 request, or the new body runs.
safeguard-stuck_recovery-catches = A crash between claim and completion: after 60 s a job checks the ledger and settles the key.
safeguard-stuck_recovery-without = a key left IN_PROGRESS by a crash stays stuck: every retry gets 409 for ever.
safeguard-window_hours-catches = How long keys are kept (48 h: a day of retries plus a day of margin), in daily partitions.
safeguard-window_hours-without = a retry later than the window runs as a new transfer.
safeguard-ledger_unique-catches = Any bug above: UNIQUE(transfer_id) refuses a second debit. The last guard.
safeguard-ledger_unique-without = nothing stops a second debit when a guard above it fails.
safeguard-outbox-catches = Losing the event when the process dies after the commit: the event is written in the debit's transaction.
safeguard-outbox-without = the API publishes after the commit (a dual write): a crash loses the event and Tithi is never paid.
safeguard-idempotent_producer-catches = A lost ack and a resend: the log drops a batch it already has.
safeguard-idempotent_producer-without = a resend is appended again at a new offset.
safeguard-transactions-catches = A crash between writing the approved event and committing the offset.
safeguard-transactions-without = a restarted fraud check writes a second approved event.
safeguard-wallet_inbox-catches = Redelivery, relay duplicates and replays: Tithi is credited once.
safeguard-wallet_inbox-without = Tithi is credited twice: PocketPay pays from its own pocket.
safeguard-sms_inbox-catches = The same for the SMS: Tithi gets it once.
safeguard-sms_inbox-without = Tithi gets the SMS twice.
safeguard-inbox_window_hours-catches = How long inboxes remember events; shorter than the log's 7 days, a replay reprocesses old events.
safeguard-inbox_window_hours-without = set to 24 h, a replay from 5 days back credits old events again.
safeguard-without = Without it:
safeguard-inactive = Not active now: it works inside { $needs }, which is off.
faults-title = Faults inside the services
faults-network-elsewhere = The network's faults (loss, latency, the phone's timeout and retries, the load balancer) are in the
crash-api_after_claim = API: after the claim, before the debit
crash-api_after_commit = API: after the debit commits, before the answer is sent
crash-relay_after_publish = Relay: after publishing, before marking sent
crash-broker_ack_lost = Broker: the ack is lost after the append
crash-fraud_before_commit = Fraud check: after writing, before committing
crash-consumer_before_offset_commit = Consumer: after the local commit, before the offset commit
crash-mode-off = off
crash-mode-once = once
crash-mode-always = always
crash-mode-05 = half the time
crash-mode-01 = one time in ten
replay-title = Replay a consumer
replay-hint = Moves a consumer group back in time; it reads those events again.
replay-consumer = Consumer
replay-consumer-wallet = wallet service (credits Tithi)
replay-consumer-sms = SMS service
replay-consumer-fraud = fraud check
replay-days = Days back
replay-start = Replay
replay-done = Replay started; watch the timeline.
replay-days-invalid = Write the days as a number from 0 to { $max }.
seed-title = Seed
seed-current = This sandbox's seed:
seed-hint = The same seed and the same actions give the same timeline.
seed-new = Seed for a new sandbox (empty: random)
seed-open = Open a new sandbox
seed-invalid = A seed is a whole number from 0 to 18446744073709551615.

# The lane timeline
events-count = { $n ->
    [one] { $count } event
   *[other] { $count } events
}
shortcuts-button = Keyboard shortcuts (?)
legend-label = What the marks mean
lanes-label = Lanes, one per layer
lane-time = Day · virtual time
lane-short-button = Button
lane-short-app = App
lane-short-network = Net
lane-short-load_balancer = LB
lane-short-api = API
lane-short-ledger = Ledger
lane-short-outbox = Outbox
lane-short-relay = Relay
lane-short-broker = Broker
lane-short-fraud = Fraud
lane-short-wallet = Wallet
lane-short-sms = SMS
lane-short-jobs = Jobs
lane-short-lab = Lab
counts-summary = Duplicates caught: { $caught }; escaped: { $escaped }.
details-label = The selected event
details-none = Select a mark to see what happened and light up its whole chain.
details-time = Time
details-lane = Lane
details-outcome = Outcome
details-chain = Chain
details-chain-size = { $n ->
    [one] ({ $count } event linked)
   *[other] ({ $count } events linked)
}
rewind-label = Rewind
rewind-at = event { $event }
rewind-now = now
rewind-back = Back to now
rewind-here = Show the tables as they were here
rewind-loading = Rebuilding the tables as they were at event { $event }…
rewind-showing = The inspector shows the tables as they were at event { $event } ({ $time }). The present goes on.
shortcuts-title = Keyboard shortcuts
shortcut-space = Pause or run the clock
shortcut-step = Run the next scheduled step
shortcut-help = Show or hide this help
shortcut-escape = Close this help; clear the selection
shortcut-rows = In the list of events: go to the event above or below (Home: the newest; End: the oldest on the page)
close = Close
run-link-make = Make a link to this run
run-link-label = This run as a link
run-link-hint = Opening it replays the same seed and the same timed inputs into a new sandbox and checks the event log's hash.
run-link-unreadable = This link does not carry a readable run.
run-page-title = A shared run
run-page-replaying = Replaying the run into a new sandbox…
run-page-same = The replay produced the same timeline: its event log has the same hash.
run-page-different = The replay's event log differs from the original's.
run-page-expected = The link's hash
run-page-got = The replay's hash
run-page-open = Open the replayed lab
ev-tapped = Send tapped
ev-tap_ignored = A tap while the button was guarded: ignored (button_guard)
ev-key_made = A new Idempotency-Key made at the tap
ev-key_kept = The kept key sent again: the server will know it is the same attempt

# Safeguards by their human names (the id follows in the lab)
safeguard-button_guard-name = Busy Send button
safeguard-key_persistence-name = The app keeps its key
safeguard-idempotency_table-name = The server remembers each key
safeguard-atomic_claim-name = Claim the key before the work
safeguard-fingerprint_check-name = One key, one body
safeguard-stuck_recovery-name = Free a stuck key
safeguard-window_hours-name = How long keys are kept
safeguard-ledger_unique-name = The ledger's last line
safeguard-outbox-name = The event travels with the debit
safeguard-idempotent_producer-name = The log drops a resent batch
safeguard-transactions-name = Write and offset together
safeguard-wallet_inbox-name = The wallet's inbox
safeguard-sms_inbox-name = The SMS service's inbox
safeguard-inbox_window_hours-name = How long inboxes remember

# Status codes in words
status-line = { $code }: { $words }
status-201 = created, the transfer went through
status-400 = the request itself is wrong; nothing was done
status-401 = unknown user
status-404 = no such sandbox
status-409 = the same key is still running
status-422 = this key came with another body, or the balance is short
status-429 = too many requests; wait, then try again
status-500 = the server failed
status-502 = the gateway got no usable answer
status-503 = the server is busy
status-504 = the gateway gave up waiting; the outcome is unknown
status-other = an HTTP status

# The selected event, explained
explain-caught-by = Caught by
explain-would-catch = What would have caught it (off now, or set too short):
explain-no-switch = No switch in the lab stops this copy: the audit row is written outside the log's transaction, so only an inbox of its own could stop it.
explain-debited-escaped = Shimul decided to pay once, yet the ledger now holds a second debit for that decision: he is charged twice. Nothing on the way recognised this request as a copy.
explain-credited-escaped = Tithi is credited again for a transfer she was already paid: PocketPay pays this from its own pocket.
explain-sms-escaped = Tithi gets the same SMS again. No money moves, but it reads like a second payment.
explain-fraud-escaped = The fraud check ran again on an event it had already approved; its audit table now holds that row twice.
explain-replayed-escaped = This request came with the same key but a different body, and the fingerprint check is off: it got the first request's stored answer. The phone shows a receipt for a transfer that never ran.
explain-key-stuck = Not a catch: the instance that claimed this key died before finishing, and stuck-key recovery is off. Nothing will ever complete the key, so every retry in the window gets this 409 and Shimul's money never goes. With recovery on, a job settles the key after 60 s.
explain-resend-appended = The broker's ack was lost, the producer sent the batch again, and the log appended it a second time: every consumer will read this event twice.
explain-request-lost = The request never reached the server. Nothing happened, but the phone has no way to know that.
explain-response-lost = The server did the work, but its answer was lost on the way back. The phone will only see a timeout: this is where the story's duplicate is born.
explain-caller-timed-out = The phone stopped waiting. A lost request and a lost answer look the same from here, so it cannot know whether the money left.
explain-response-too-late = The answer came after the phone had given up: Shimul has already been told to try again.
explain-event-lost = A dual write: the debit was committed but the event never reached the log, so Tithi will never be paid. With the outbox the event would have been saved with the debit.
explain-ack-lost = The broker wrote the batch, but its acknowledgement was lost: the producer cannot tell, and will send the batch again.
explain-instance-crashed = An API process died mid-request and lost what it held in memory; what it had committed stays in the database.
explain-relay-crashed = The relay published the event but died before marking it sent: once restarted it publishes it again, and the inboxes must catch the copy.
explain-fraud-crashed = The fraud check wrote its approved event but died before committing its offset: once restarted it reads the same event again.
explain-consumer-crashed = The consumer finished its work locally but died before committing its offset: it will read this event again, and its inbox must recognise it.
explain-key-claimed = The claim is one INSERT of an IN_PROGRESS row, committed before any money moves. If the key is already there the INSERT does nothing: the primary key decides, with no look-first race.
explain-key-not-checked = The idempotency table is off: the server does not look at the key at all, so every copy runs again.
explain-key-lookup-empty = Look-then-write: the server looked, found no key, and will write it only after the work. A second request arriving in between also finds nothing.
explain-outbox-written = The event is written in the same transaction as the debit: both exist or neither does. The relay publishes it later.
explain-debited = The money left Shimul's account: one row in the ledger, whose transfer id comes from his key.
explain-lb-retried = The load balancer got no answer from one instance and sent the same request to another: a retry the phone never sees.
explain-key-made = A new key for a new decision to pay. Every retry of this payment must carry this same key.
explain-partitions-dropped = The nightly job drops each day of keys older than the window in one go instead of deleting row by row. The lab runs on SQLite, which has no table partitions: here a day's partition is the set of rows with that day's number.
explain-routine = Housekeeping on a timer, not something anyone did. The timeline folds these away.
explain-replay-started = A consumer group was moved back in time and reads old events again: only an inbox that still remembers them keeps this from paying twice.
details-facts = The raw facts (JSON)

# Routine jobs on the timeline
routine-show = Show routine jobs
routine-folded = ({ $count } folded away)
routine-fold = { $count } routine jobs folded (tap to show)

# The bar at the top of a phone's screen
summary-label = Balances in the ledger and the wallet, and whether harm was done
summary-locked = Locked by your instructor
summary-shimul = Shimul (ledger)
summary-tithi = Tithi (wallet)
summary-money_wrong = ⚠ Money wrong
summary-effect_twice = ⚠ An effect twice
summary-stuck = ⚠ A key stuck
summary-in_flight = Money on its way
summary-nothing_moved = Nothing sent yet
summary-exactly_once = Exactly once

# The student's switches
switches-hint = Switch a guard off to see what it was holding back; the timeline and the damage meter show the result. A new or reset sandbox has every guard on.
switches-phone = On Shimul's phone
switches-api = At the payment API
switches-ledger = In the ledger
switches-after = After the payment: outbox, broker, Tithi's services
switches-all-on = all on
switches-some-off = { $count } off
inspector-open = Tap to open the tables
instructor-open = Tap to open: the clock, crashes, replay, seed
attacks-open = Crafted attacks (scenarios 3 and 4)
claim-title = The claim: one INSERT decides, then a read
claim-hint = The API does not look first. It inserts an IN_PROGRESS row into today's partition; if that partition already holds the key, the INSERT does nothing. This one atomic INSERT decides: of two requests with one key, only one gets its row in. The SELECT after it, in the same transaction, never decides; it reads what won, the oldest row inside the window, and a request that lost is answered from that row (replay, 409 or 422). The day is part of the primary key (SQLite has no table partitions, so a "daily partition" here is the rows with one day's number), so a retry across midnight, sent at 23:59 and again at 00:01, does get its row into the new day; the read then finds day 1's row still inside the window, which won first: the new row is deleted and the retry is answered from day 1's. A row in today's partition older than a short window is forgotten, and one conditional UPDATE takes it over.

# Scenario presets
ev-scenario_loaded = Scenario { $n } loaded, { $variant }
variant-guarded = with its guard on
variant-unguarded = with its guard off

# The course: chapters beside the lab
home-start-course = Start the course: chapter 01
chapter-kicker = Chapter { $n }
chapter-fold = Hide the chapter
chapter-expand = Show the chapter
chapter-load = Load this chapter's starting point (scenario { $n })
chapter-load-guarded = Load it again, guard on
chapter-step-done = done:
chapter-step-open = to do:
chapter-show = Show me where
chapter-look-title = What to look for
chapter-nav-label = The chapters
chapter-back = ← Chapter { $n }
chapter-next = Chapter { $n } →
chapter-show-all = Show every panel
chapter-focus = Only this chapter's panels
chapter-close = Close the chapter

ch01-title = A tap on a train
ch01-opening = Friday evening on the Subarna Express. Shimul sends ৳500 to his sister Tithi. The request reaches PocketPay and the money leaves his account, but in a tunnel the answer never comes back. The app spins, then shows a vague error. What would you do? Shimul taps again.
ch01-step1 = Load the train: the app's kept key and the server's key table start switched off, and every answer is lost.
ch01-step1-try = Press "Load this chapter's starting point" above.
ch01-step2 = Tap Send on Shimul's phone, and wait until the app gives up (about 5 seconds: in the lesson Shimul waited 15, but the lab's phone gives up after 5 so that you are not kept waiting; the phone timeout in the network panel sets it).
ch01-step2-try = Leave the amount at ৳500 and tap once; the spinner turns for a while before the error.
ch01-step3 = Tap the damage meter and read it: the ledger already holds a debit, yet the phone still shows ৳2,000. The money left; the app cannot know.
ch01-step3-try = Tap anywhere on the meter once its debits read 1. If they stay at 0, the request itself was lost: tap Send again.
ch01-step4 = The train leaves the tunnel: slide "response lost" in the network panel down to 0 %.
ch01-step4-try = The slider is in the network panel, under the switches.
ch01-step5 = Tap Send again, as Shimul did.
ch01-step5-try = Wait for the receipt; "double charges" on the damage meter turns red.
ch01-look = On the timeline the two debits carry two different keys: to the server they are two transfers. Tap the red ▲ debit to read why it got through. Shimul's balance is now ৳1,000.
ch01-why-title = Why it broke
ch01-why = The second tap came with a new key, and the server kept no record of keys, so nothing could tell the second tap from a new payment. The fix: make the key once, at the Send tap, keep it on the phone, and let the server remember each key with its answer. The next chapter switches both on.
ch01-cost = At PocketPay's size, 2 million transfers a day and 0.5 % timeouts make about 10,000 unknown outcomes a day: before the fix, about 340 "charged twice" tickets a month.

ch02-title = One key, one answer
ch02-opening = Imran's first decision: the app, not the server, makes the ID, at the moment Shimul taps Send, and keeps it until an answer comes. The server writes each key down with the answer it gave, and gives that same answer to the same key again.
ch02-step1 = Load the chapter: every guard on, every answer still lost.
ch02-step1-try = Press "Load this chapter's starting point" above.
ch02-step2 = Tap Send and wait until the app gives up. Note the key under the button.
ch02-step2-try = The app tries once and gives up after about 5 seconds.
ch02-step3 = Slide "response lost" down to 0 %.
ch02-step3-try = The slider is in the network panel.
ch02-step4 = Tap Send again. The key under the button is the same one.
ch02-step4-try = The receipt shows TXN-88412 and "Idempotent-Replayed": the first answer, sent again.
ch02-step5 = Once Tithi has her money, the damage meter shows no double charge.
ch02-step5-try = If money is still on its way, wait a moment: the pipeline pays Tithi in a few virtual seconds.
ch02-step6 = Scenario 2, no table: press "Load scenario 2, no table". The phone's HTTP library retries twice by itself and the load balancer tries another instance when one is slow. Tap Send once: the damage meter shows Shimul charged more than once.
ch02-step6-try = One tap, several requests: count the ● marks on the caller's lane. Each reaches the API, and with no table each one debits.
ch02-step7 = The same with the table: press "Load scenario 2, table on" and tap Send once. The load balancer still retries, but every copy carries the same key: one debit.
ch02-step7-try = Wait until the money settles: the ◆ marks on the API lane are the copies the table caught, and the meter shows one debit.
ch02-look = On the API lane a ◆ marks the stored answer sent back. In the inspector, payments.idempotency_keys holds one COMPLETED row with the stored body; payments.ledger holds one debit.
ch02-why-title = Why it held
ch02-why = The retry carried the key the first attempt had, and the server had the first answer stored: the money moved once, and Shimul got the first receipt byte for byte, TXN and all.
ch02-cost = A row of about 500 bytes per transfer: about 1 GB a day at 2 million transfers, kept as long as the window (chapter 04).

ch03-title = Two requests at once
ch03-opening = A tester sends the same key twice, 50 ms apart. If the server first looks for the key and writes it only after the work, both requests look, both find nothing, and both debit.
ch03-step1 = Load the chapter: the atomic claim and the ledger's UNIQUE are off.
ch03-step1-try = Press "Load this chapter's starting point" above.
ch03-step2 = In the network panel, run the crafted race: one key, two requests 50 ms apart. The damage meter shows a double charge.
ch03-step2-try = The race button is under "Crafted attacks" in the network panel; open it if it is folded.
ch03-step3 = Load the chapter again with the guard on.
ch03-step3-try = Press "Load it again, guard on" above.
ch03-step4 = Run the race again: the second request gets 409, the same key is still running.
ch03-step4-try = The result lists both answers: 201 for the first, 409 for the second.
ch03-step5 = Scenario 4, one key for another body: press "Load scenario 4, no fingerprint" and run "Same key, ৳5,000 instead of ৳500". The second request gets the first one's stored answer: a receipt for ৳500 to a request for ৳5,000.
ch03-step5-try = The attack is under "Crafted attacks" in the network panel. The API lane marks the wrong receipt as escaped.
ch03-step6 = With the fingerprint check: press "Load scenario 4, fingerprint on" and run the same attack. The server compares the body's hash with the one stored for the key and answers 422.
ch03-step6-try = The attack's result lists 201 for ৳500 and 422 for ৳5,000; nothing was debited for the second.
ch03-step7 = Scenario 5, a crash after the claim: press "Load scenario 5, no recovery" and tap Send. The instance dies right after its IN_PROGRESS row. Tap again (409), move the clock on a minute, tap again: still 409. With nobody to settle it, the key is stuck.
ch03-step7-try = Send is on Shimul's phone; "+1 minute" is in the instructor's panel, under the clock. The inspector shows the IN_PROGRESS row in payments.idempotency_keys.
ch03-step8 = With recovery: press "Load scenario 5, recovery on", tap Send, move the clock on a minute: recovery finds no debit for the stuck key and releases it. Tap again: the receipt.
ch03-step8-try = Recovery looks at keys IN_PROGRESS for more than 60 s. After "+1 minute" the API lane shows the key released; the next tap gets 201.
ch03-look = With the claim, the first request INSERTs an IN_PROGRESS row before any work; the second INSERT finds the key taken and answers 409. The inspector shows the claim's SQL under the payment API's tables.
ch03-why-title = Why it broke, and why it held
ch03-why = Look-then-write leaves a gap between the look and the write; an INSERT the primary key decides leaves none. If the server dies between the claim and the answer, the key stays IN_PROGRESS until recovery settles it from the ledger after 60 s (scenario 5).
ch03-cost = One INSERT before the work, and a client that must retry after a 409.

ch04-title = How long to remember
ch04-opening = Keys cannot be kept for ever: at 2 million transfers a day and about 500 bytes a row that is about 1 GB a day, 365 GB a year. PocketPay keeps them 48 hours, one partition per day, and drops a day's partition whole once all of that day is out of the window. What happens to a retry that comes later than 48 hours?
ch04-step1 = Load the chapter: every guard on, a 48-hour window, every answer lost.
ch04-step1-try = Press "Load this chapter's starting point" above.
ch04-step2 = Tap Send and wait until the app gives up.
ch04-step2-try = The app gives up after about 5 seconds.
ch04-step3 = Slide "response lost" down to 0 %.
ch04-step3-try = The slider is in the network panel.
ch04-step4 = Move time 49 hours on with the instructor's clock: +1 day, +1 day, +1 hour.
ch04-step4-try = The jump buttons are in the instructor's panel, under the virtual clock.
ch04-step5 = Tap Send again. The key's row is still in the table, in day 1's partition, but at 49 hours old it is outside the 48-hour window, so the claim ignores it and writes a new row into today's partition, day 3: the API runs the retry as new, and the ledger stops it.
ch04-step5-try = The app kept its key: the retry carries it, 49 hours later.
ch04-step6 = Now without the last line: press "Load it again, guard off" (the ledger's UNIQUE is switched off) and do steps 2 to 5 again. This time the late retry debits Shimul a second time: watch the damage meter.
ch04-step6-try = Send, wait until the app gives up, slide "response lost" to 0 %, jump +1 day, +1 day, +1 hour, and Send again.
ch04-look = The jobs lane shows the nightly job at both midnights you crossed, each dropping 0 rows: a day's partition goes only once the whole day is out of the window, so day 1 goes at the midnight that starts day 4. Until then the inspector still shows day 1's row, COMPLETED with TXN-88412; the claim simply ignores a row older than the window. After the late retry the key is in the table twice, in day 1's partition and in day 3's, because the primary key is (partition_day, user_id, idem_key). The retry passes the API, then the ledger's UNIQUE(transfer_id) refuses it: the ◆ on the ledger lane. Shimul still has ৳1,500. Guard off, there is no ◆ on the ledger lane: Shimul ends with ৳1,000 and the meter counts a double charge.
ch04-why-title = Why it held, and why it broke
ch04-why = A window must be longer than the longest retry, plus a margin; a retry after it is a new request to the table, whether its old row is already dropped or only ignored. Why is the day part of the key? On a partitioned table (in PostgreSQL, for one) every unique index must include the partition key, so a key is unique within one day only. A retry that crosses midnight lands in the next day's partition, where the primary key alone would take it as new; so the claim also refuses a key still held in an earlier day's partition inside the window, and a transfer sent at 23:59 and retried at 00:01 is still caught. The ledger's UNIQUE is the last line and holds even past the window; without it, the late retry is a second debit.
ch04-cost = 48 hours of keys: about 2 GB at PocketPay's size, and up to 3 GB on disk just before midnight, since a day stays until all of it is out of the window. Dropping a whole day's partition is one quick operation; deleting a day row by row would be two million.

ch07-title = Inside the broker
ch07-opening = After the debit, an event travels to a Kafka-like log and on to the fraud check. Two things can copy it there: a producer that sends a batch again after its acknowledgement was lost, and a fraud check that crashes after writing and before committing.
ch07-step1 = Load the chapter: the broker's ack lost once, the fraud check crashing once, every guard on.
ch07-step1-try = Press "Load this chapter's starting point" above.
ch07-step2 = Tap Send. The broker's ack is lost and the producer sends again; the log drops the copy.
ch07-step2-try = Wait for the receipt; the broker lane shows a ◆.
ch07-step3 = That same first Send also crashed the fraud check before its commit. Tap its ✕ on the fraud lane: on its restart the open transaction is aborted and the record is read again.
ch07-step3-try = No new Send: the crash came with the first one. The ✕ is on the fraud lane; tap it and read the explanation.
ch07-step4 = Open fraud.audit in the inspector: two rows for your one transfer, one written before the crash and one after the restart.
ch07-step4-try = The inspector is below the timeline; tap the audit table's name to open it.
ch07-step5 = Now press "Load it again, guard off": the idempotent producer and the transactions are off. Tap Send: the ack is lost again, and this time the log appends the resend. The broker lane shows a ▲.
ch07-step5-try = Wait for the receipt after you tap; the resend comes a moment after the lost ack.
ch07-look = The idempotent producer drops a batch it already has, by producer id and sequence. A read_committed reader never sees the aborted write. But the audit row, written outside the log, was written twice. Guard off, the broker lane shows a ▲ where the ◆ was: the copy is in the log, and the wallet's inbox catches it further on.
ch07-why-title = Why it held, and where it did not
ch07-why = The broker's guards cover the log and nothing outside it: an audit row, an email or an SMS sent by the fraud check repeats on a restart. Side effects outside the log need an inbox of their own. Without the idempotent producer the log itself holds the copy, and every reader reads it twice; the inboxes further on are then the only thing between the copy and Tithi's wallet.
ch07-cost = A producer id and a sequence number per batch, and transaction markers in the log.

ch08-title = The consumer's inbox
ch08-opening = The relay publishes the event and crashes before marking it sent. When it comes back it publishes it again, so the wallet and the SMS service both read the event twice. Then the replay trap: the log keeps events 7 days, and to fix a bug a team replays the wallet's consumer from 5 days back. What does an inbox that remembers only 24 hours make of that?
ch08-step1 = Load the chapter: the relay crashes once after publishing; the inboxes are off.
ch08-step1-try = Press "Load this chapter's starting point" above.
ch08-step2 = Tap Send. Tithi is credited twice and gets two SMS.
ch08-step2-try = Wait a few seconds after the receipt: the second copy arrives when the relay restarts.
ch08-step3 = Load the chapter again with the inboxes on.
ch08-step3-try = Press "Load it again, guard on" above.
ch08-step4 = Tap Send. Both inboxes recognise the copy and skip it.
ch08-step4-try = The wallet and SMS lanes each show a ◆: already in the inbox.
ch08-step5 = The replay trap with a 24-hour inbox: press "Load the replay trap, 24-hour inbox". Tap Send and wait for Tithi's ৳500; move the clock two days on (+1 day, +1 day); then, in the instructor's panel, replay the wallet from 5 days back. The inbox has already forgotten the event, so Tithi is credited again.
ch08-step5-try = The inbox cleaner runs every hour and deletes rows older than the window, so the event must be more than a day old when the replay starts. The replay form (consumer: wallet, days back: 5) is in the instructor's panel, under the clock.
ch08-step6 = Now with a 7-day inbox, as long as the log's retention: press "Load the replay trap, 7-day inbox" and do the same: Send, +1 day, +1 day, replay the wallet from 5 days back. The inbox still holds the event id, and the replayed copy is skipped.
ch08-step6-try = Send, wait for the credit, jump +1 day twice, then replay the wallet from 5 days back: the wallet lane shows a ◆, already in the inbox.
ch08-look = Without the inbox, Tithi's phone shows ৳1,000 and two messages for one ৳500. With it, the inbox rows in the inspector hold one event id each, and the copy is skipped. In the replay trap the jobs lane shows the inbox cleaner every hour: with a 24-hour window the event's row is gone a day after its credit, and the replay credits Tithi ৳500 again, ৳1,000 for one transfer. With 7 days the row is still there, and the replayed copy is a ◆ on the wallet lane. With the inboxes on, the meter still says an effect happened twice: the fraud check, which has no inbox, approved the relay's copy again. The money is right.
ch08-why-title = Why it broke, and why it held
ch08-why = The inbox row and the credit are written in one local transaction: a second delivery finds the event id and does nothing. An inbox is a dedup table with a window of its own, and a replay can bring back anything the log still holds: an event older than the window is a stranger to the inbox and is applied again. So keep the inbox's window at least as long as the log's retention (7 days), or replay only into a consumer whose work is idempotent by its nature.
ch08-cost = One row per event in each consumer's inbox, kept for the window: at PocketPay's 2 million transfers a day, 7 days is about 14 million rows per inbox, against 2 million for 24 hours.

ch09-title = From the button to the database
ch09-opening = Every guard at once, against every fault at once: lost requests and answers, retries by the library and by the load balancer, a crash at every point. Does Shimul's ৳500 still move exactly once?
ch09-step1 = Load the chapter: every guard on, the storm on.
ch09-step1-try = Press "Load this chapter's starting point" above.
ch09-step2 = Tap Send until a receipt arrives; after each error, tap again (the app keeps its key).
ch09-step2-try = If the phone says the same key is still running, move time a minute on and tap again.
ch09-step3 = Calm the network: slide "request lost" to 0 %.
ch09-step3-try = The slider is in the network panel.
ch09-step4 = Slide "response lost" to 0 %.
ch09-step4-try = The slider is in the network panel.
ch09-step5 = Move time an hour on with the clock's +1 hour: Tithi is credited once and nothing is left in flight.
ch09-step5-try = The +1 hour button is in the instructor's panel, which opens when you tap "Show me where". Letting the clock run does not count: jump.
ch09-step6 = Now the same storm with no guard at all: press "Load it again, guard off" and tap Send a few times, as in step 2. Watch the damage meter turn red.
ch09-step6-try = Tap Send again after each answer or error; move time an hour on if nothing more happens.
ch09-look = Count the ◆ marks: each layer caught its own kind of copy. The money figures end at zero, yet the meter says an effect happened twice: the fraud check's audit row, written outside the log, repeats after its crash (chapter 07). Guard off, the ▲ marks take their place and the meter says the money is wrong.
ch09-why-title = Why it held, and why it broke
ch09-why = No single guard does it. The button stops double taps; the key makes retries recognisable; the table replays; the ledger refuses; the outbox keeps the event; the producer and the transactions keep the log clean; the inboxes keep the effects single. At-least-once delivery with idempotent processing: effectively once. Take them away and the same storm charges, credits or texts twice, or loses the event.
ch09-cost = Each guard costs a little: a key, a row, a unique index, an outbox row, a sequence number, an inbox row. Together they take the lesson's 340 tickets a month to 0.
chapter-now = Step { $k }: { $text }
chapter-all-done = Every step done: open the chapter to read why.
chapter-story = The story

# Scenario 7: natural idempotency
ev-natural_applied = { $op } arrived and ran: { $effect }
ev-natural_lost = A copy of { $op } was lost on the network
natural-op-set_name = the SET of the name
natural-op-add = the INCREMENT of the savings
natural-op-insert = the keyed INSERT
natural-effect-changed = the value is now the one wished
natural-effect-same = the same value again, nothing changed
natural-effect-added_again = ৳500 added again
natural-effect-refused = the transfer id is taken: refused
natural-title = One wish, three ways to write it
natural-hint = Each button sends the same write { $times } times over the lossy network, as a client that never learns whether it worked would. Compare what the table says after.
natural-set_name-title = SET: the name becomes "Shimul Ahmed"
natural-set_name-what = A value is put in place. Running it again puts the same value in place.
natural-add-title = INCREMENT: add ৳500 to the savings
natural-add-what = The new value depends on the old one. Every copy that arrives adds again.
natural-insert-title = INSERT keyed by transfer id: the ledger's way
natural-insert-what = The same ৳500 as one row whose key is the transfer id; the balance is the sum of the rows.
natural-send = Send it { $times } times
natural-arrived = Sent { $sent }, arrived { $arrived }.
natural-result-set_name = The name is now "{ $name }": one result, however many arrived.
natural-result-add = The savings now hold { $balance }, though Shimul wanted { $want } once.
natural-result-insert = { $rows ->
    [one] { $rows } row for this transfer: ৳500, once.
   *[other] { $rows } rows for this transfer.
}
natural-set_name-lesson = Naturally idempotent: no key, no table needed.
natural-add-lesson = Not idempotent: it needs a key and a table, or a different shape.
natural-insert-lesson = Idempotent by its shape: the primary key refuses every copy after the first.
methods-caption = HTTP methods and idempotency (what the standard promises)
methods-method = Method
methods-idempotent = Idempotent?
methods-why = Why
methods-yes = Yes
methods-no = No
methods-get = Reads; reading again changes nothing.
methods-head = A GET without the body.
methods-options = Asks what the server allows; changes nothing.
methods-put = Puts the whole resource in place: a SET.
methods-delete = Removes it; removing it again leaves it removed (the answer may differ, the state does not).
methods-post = "Create something new" or "do this": each copy may create or do it again. This is why a payment API needs an Idempotency-Key.
methods-patch = A change described relative to what is there (add ৳500) may apply again.
methods-note = Idempotent is about the server's state after the request, not the answer (RFC { $n }). An Idempotency-Key makes a POST behave like the "yes" rows.

ch05-title = Some work is idempotent by its shape
ch05-opening = Before keys and tables: some writes need none. "The name is Shimul Ahmed" can be written ten times with one result; "add ৳500" cannot. And the ledger writes money as rows keyed by transfer id, which turns an INCREMENT into an INSERT the key protects.
ch05-step1 = Load the chapter: a network that loses 30 % of requests and answers.
ch05-step1-try = Press "Load this chapter's starting point" above.
ch05-step2 = Send the SET ten times. However many arrive, the name is "Shimul Ahmed".
ch05-step2-try = The button is under "SET" in the panel "One wish, three ways to write it".
ch05-step3 = Send the INCREMENT ten times. Each copy that arrives adds ৳500 again.
ch05-step3-try = The button is under "INCREMENT" in the same panel.
ch05-step4 = Send the keyed INSERT ten times. One row, ৳500, however many arrive.
ch05-step4-try = The button is under "INSERT" in the same panel.
ch05-look = Compare "arrived" with the result in each column. On the timeline, the INCREMENT's repeats are red ▲ (added again); the INSERT's repeats are ◆ (refused by the primary key). Below, the HTTP methods say the same in their names.
ch05-why-title = Why some held and one broke
ch05-why = A SET puts a value in place, so a copy puts the same value in place. An INCREMENT depends on the value before it, so each copy moves it again. The design trick: turn INCREMENTs into SETs or into INSERTs keyed by an id, as the ledger does, and idempotency comes with the shape.
ch05-cost = Nothing for a SET; for the ledger's way, a unique key per movement and a balance computed as a sum.

# Scenario 8: the Two Generals and the delivery semantics
ev-generals_trip = Messenger { $n }: { $what }
generals-crossed = crossed the valley
generals-caught-word = caught in the valley
chapter-load-unguarded = Load it again, guard off
chapter-load-at_most_once = Load it at-most-once
chapter-load-11-unguarded = Load the replay trap, 24-hour inbox (scenario 11)
chapter-load-11-guarded = Load the replay trap, 7-day inbox (scenario 11)
chapter-load-2-unguarded = Load scenario 2, no table
chapter-load-2-guarded = Load scenario 2, table on
chapter-load-4-unguarded = Load scenario 4, no fingerprint
chapter-load-4-guarded = Load scenario 4, fingerprint on
chapter-load-5-unguarded = Load scenario 5, no recovery
chapter-load-5-guarded = Load scenario 5, recovery on
generals-title = The Two Generals
generals-hint = Generals A and B must attack together. Each messenger crosses a valley where the enemy catches { $pct } % of them. The messengers run on the lab's clock: pause it and they stop.
generals-send = Send the messengers
generals-trip-attack = Messenger { $n }, A → B: "attack at dawn"
generals-trip-a = Messenger { $n }, A → B: "I know you got my last message"
generals-trip-b = Messenger { $n }, B → A: "I got your message"
generals-caught = Messenger { $n } was caught: general { $from } cannot tell whether it arrived.
generals-all = All { $n } messengers crossed, yet general { $from } cannot know the last one did.
generals-lesson = Whichever messenger is last, its sender never hears that it arrived, and one more messenger only moves that doubt one step. No number of messages makes both sides sure: "exactly once" delivery cannot be promised. A system can deliver at least once and make the processing idempotent: effectively-once.

ch06-title = Exactly once is not on offer
ch06-opening = A new member of Imran's team asks: why not buy a messaging system that delivers every message exactly once? Two generals on two hills show why nobody can sell that, and Shimul's transfer shows what can be had instead.
ch06-step1 = Load the chapter: at-most-once first, with no outbox, and an API that dies right after its commit.
ch06-step1-try = Press "Load this chapter's starting point" at the top of the chapter.
ch06-step2 = Send the messengers and watch the valley until the panel gives its verdict.
ch06-step2-try = The button is in the panel "The Two Generals"; the messengers move with the lab's clock, so it must be running.
ch06-step3 = At-most-once: tap Send. The debit commits, the API dies before publishing, and nobody sends the event again: Tithi is never paid.
ch06-step3-try = Wait until the phone gives up; "events lost" on the damage meter turns red once nothing is on its way.
ch06-step4 = At-least-once: press "Load it again, guard off", then tap Send. The relay sends again after a crash and no inbox recognises the copy: Tithi is paid twice.
ch06-step4-try = After the receipt, wait a few seconds for the relay's second publish; "double credits" turns red.
ch06-step5 = Effectively-once: press "Load it again, guard on", then tap Send. The relay still sends twice; both inboxes skip the copy.
ch06-step5-try = The wallet and SMS lanes each show a ◆ when the copy is skipped.
ch06-look = The generals: the last messenger's sender is always left unsure. The pipeline: lost (✕ on the damage meter), twice (double credit), once (◆ on the inbox lanes). One copy still gets through with every guard on: the fraud check has no inbox, so it approves the relay's second copy too. The meter names that "an effect happened twice", not money wrong: Tithi is paid once.
ch06-why-title = Why only effectively-once holds
ch06-why = When an acknowledgement is missing, a sender has two choices: not resend, and risk losing the message (at-most-once), or resend, and risk a duplicate (at-least-once). There is no third. "Exactly-once" claims mean exactly-once effect: at-least-once delivery plus idempotent processing (an inbox, a unique key), which is effectively-once.
ch06-cost = A resend that never gives up (the outbox and relay) and an inbox row per event in each consumer.
fn-error-day-busy = The day at 1:{ $scale } is running on this server, and one day runs at a time. Try again in { $seconds } s, or pick 1:{ $scale } to watch it.

# A read-only mirror, the class's lock, reset asked twice, every preset in one list.
fn-error-locked = Your instructor has locked these controls for a demo. Watch this one; they unlock them when it ends.
reset-ask = Start this lab again? Every transfer, table row and switch you changed goes.
reset-yes = Yes, start again
reset-no = Keep my lab
lab-preset = Load any scenario
lab-preset-load = Load it
lab-preset-hint = Loading a scenario starts the lab again with that scenario's switches, as a chapter's button does.
mirror-make = Make a read-only link for a projector
mirror-link = Read-only link: it shows this lab and Shimul's phone, and changes nothing
mirror-open = Open
mirror-hint = Put the read-only link on a projector or hand it to students: they watch, you drive.
mirror-note = Read-only view: this lab follows its owner live, Shimul's phone as their screen shows it. Nothing here can be changed.
mirror-phone-waiting = Shimul's phone has not been shown yet: it appears once the lab's own page is open.
mirror-missing-title = No lab behind this link
mirror-missing-text = This read-only link names no lab on this server. It may have expired with its lab; ask for a new link.
mirror-presenter = Presenter layout
lab-locked-note = Your instructor has locked the switches for a demo: watch what happens. Send still works.
fn-error-frozen = Your instructor has frozen the clock for the whole class. It runs again when they thaw it.

## Asked before a reset (app/lab/wipe.rs)
wipe-title = Start over in this sandbox?
wipe-lost = Since its last start this sandbox holds your own run (transfers sent: { $transfers }; other steps of yours: { $other }). Loading clears it, with its ledger, its events and its timeline.
wipe-hint = To keep this run as it is:
wipe-fresh = open this start in a fresh sandbox
wipe-yes = Clear it and load
wipe-no = Keep my run

## Where a student left off (app/course/progress.rs)
course-continue = Continue: chapter { $n }, step { $k }
course-continue-finished = You finished the course: look back at it
course-start-over = Start over from chapter 01
course-start-over-ask = Start the course again from chapter 01, in a fresh sandbox? The sandbox you worked in is left as it is, but "continue" will lead to the new one.
course-start-over-yes = Start over
course-start-over-no = Keep my place
course-finished-title = You finished the course
course-finished-text = Every duplicate of the lesson has been born in front of you, and every guard has caught one. Here is the whole way from Shimul's tap to Tithi's SMS, with the guard that stands at each stop and what it stops.
course-finished-quiz = Test yourself: the quiz
course-finished-summary = The summary and the seven points to remember
course-finished-day = A whole day at PocketPay, with and without the guards

## Why the same key keeps answering "still being processed" (app/lab/phone/mod.rs)
phone-wait-recovery = The first attempt with this key is still marked as being processed (its instance may have died after claiming it). Stuck-key recovery frees it at { $at } on the lab clock, in { $s } s; until then every retry with this key gets the same answer.
phone-wait-stuck = The first attempt with this key is still marked as being processed, and stuck-key recovery is off: nothing will free this key until its window ends, so every retry with it gets the same answer.
chapter-differs-title = Where the lab differs from the lesson's sketch, and why
ch04-differs = The lesson writes the key's row, the debit and the stored answer in one transaction, keyed by (user_id, idem_key). Here the claim commits the key as IN_PROGRESS on its own first, then the debit and the stored answer commit together, and the key's table is keyed by (partition_day, user_id, idem_key). The split is what a payment API does when the money step is slow or remote: one transaction would hold its lock across that call, and a crash could never leave a key half done, so the stuck key of chapter 09 could not be shown. The day in the key lets the 48-hour window end with one DROP of a whole day; a lookup reads every day still inside the window, so the key is found whichever day it was claimed on.

## The presses a step has counted so far (app/lab/chapter.rs)
chapter-presses = Counted so far:
press-send = Send
press-jump = +{ $hours } h
press-step = a step of the clock
press-faults = a slider
press-safeguards = a switch
press-replay = a replay
press-load = a start loaded
class-message-from = From your instructor:
chapter-pushed = Your instructor loaded this chapter's scenario for the whole class: the steps before step { $k } are skipped; start at step { $k }, the load is already done.
