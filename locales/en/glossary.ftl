# The glossary (lesson section 11): for each term of src/domain/glossary.rs, its name (-term), what it means (-means) and where the lab shows it (-where).

gloss-at_least_once-term = At-least-once
gloss-at_least_once-means = A delivery promise: a sender that hears no acknowledgement sends again, so nothing is lost, but a message may arrive twice. PocketPay's relay works this way, which is why every service after it needs an inbox.
gloss-at_least_once-where = Chapter 6, loaded again with the guard off: the relay lane publishes the event twice and "double credits" turns red on the damage meter.

gloss-at_most_once-term = At-most-once
gloss-at_most_once-means = A delivery promise: send once and never again, so nothing arrives twice, but a message can vanish. If the API dies between the debit and the publish, Shimul has paid and Tithi never hears of it.
gloss-at_most_once-where = Chapter 6's first run: the API lane shows the crash after the commit, and "events lost" turns red on the damage meter.

gloss-atomic_claim-term = Atomic claim
gloss-atomic_claim-means = Taking a key by writing it rather than by looking for it first: one INSERT of an IN_PROGRESS row, committed before any work. When two requests with one key race, the primary key lets exactly one INSERT through, and the other request gets 409.
gloss-atomic_claim-where = The "Key claimed" event on the API lane; the inspector prints the claim's SQL under the payment API's tables.

gloss-dedup_table-term = Dedup table
gloss-dedup_table-means = Any table that remembers the ids already handled, so that a copy can be recognised and skipped. PocketPay has three: the API's key table and the inboxes of the wallet and the SMS service, and each gains a row per transfer until old rows are removed.
gloss-dedup_table-where = payments.idempotency_keys, wallet.inbox and sms.inbox in the inspector; the calculator "How big is the dedup table?" sizes the first one.

gloss-dual_write-term = Dual write
gloss-dual_write-means = Writing to two systems one after the other with nothing binding the two writes, such as committing the debit and then publishing the event to the broker. A crash in between leaves the first write done and the second never done.
gloss-dual_write-where = Chapter 6 with the outbox off: payments.ledger holds the debit, the API lane shows the process dying before the publish, and broker.records never gets the event.

gloss-effectively_once-term = Effectively-once
gloss-effectively_once-means = What an honest "exactly-once" means: a message may be delivered more than once, but its effect happens once. It takes at-least-once delivery plus idempotent processing: here, an outbox and a relay that keep sending, and an inbox at each consumer.
gloss-effectively_once-where = Chapter 6's last run: the relay publishes twice, the wallet and SMS lanes each show a ◆, and Tithi is credited once.

gloss-epoch_fencing-term = Epoch and fencing
gloss-epoch_fencing-means = When a transactional producer starts again under the same transactional id, the broker raises that id's epoch and refuses writes that still carry the old one. The older instance is fenced off, and the transaction it left open is aborted.
gloss-epoch_fencing-where = The epoch column of broker.producers; after the fraud check crashes, the fraud lane shows its half-done transaction aborted under a new epoch.

gloss-fingerprint-term = Fingerprint (request hash)
gloss-fingerprint-means = A hash of the request body written in one canonical way, stored beside the key. If the same key comes back with another body, say ৳5,000 instead of ৳500, the server neither replays the old answer nor runs the new body: it answers 422.
gloss-fingerprint-where = The request_hash column of payments.idempotency_keys; the crafted attack "Same key, ৳5,000 instead of ৳500" in the network panel gets its 422 on the API lane.

gloss-idempotency-term = Idempotency
gloss-idempotency-means = The property of an operation whose result is the same whether it runs once or many times. For PocketPay it means that however often Shimul's request, or the event that follows it, arrives, ৳500 leaves his account once and reaches Tithi once.
gloss-idempotency-where = Chapter 9: every guard on against every fault at once, and the damage meter ends at zero.

gloss-idempotency_key-term = Idempotency key
gloss-idempotency_key-means = A random id, here a UUID, that the app makes when Shimul confirms a payment and sends in the Idempotency-Key header of the first attempt and of every retry. It tells the server "this is the same attempt"; a new payment gets a new key.
gloss-idempotency_key-where = Under the Send button on Shimul's phone, and in the idem_key column of payments.idempotency_keys.

gloss-idempotency_window-term = Idempotency window
gloss-idempotency_window-means = How long a dedup table remembers a key or an event id. It has to be longer than the longest retry: PocketPay's app retries for up to 24 hours, so keys are kept 48, and a retry that comes later still runs as a new request.
gloss-idempotency_window-where = The switches "How long keys are kept" (48 h) and "How long inboxes remember" (168 h); chapter 4 sends a retry 49 hours late.

gloss-idempotent_replayed-term = Idempotent-Replayed
gloss-idempotent_replayed-means = A response header that says "this is the stored answer, sent again". A retry of a finished key does no work: it gets the first answer's status and body byte for byte, TXN-88412 included, with Idempotent-Replayed: true.
gloss-idempotent_replayed-where = The ◆ on the API lane, the receipt's line about the stored answer, and the response_body column of payments.idempotency_keys.

gloss-in_progress-term = IN_PROGRESS
gloss-in_progress-means = The status of a key that has been claimed but whose work is not finished yet. A second request that finds it gets 409 and should try again a little later; once the row is COMPLETED, that retry gets the stored answer.
gloss-in_progress-where = The status column of payments.idempotency_keys; in chapter 3 the race's second request runs into it, and the API lane reports the key still running with a 409.

gloss-inbox-term = Inbox
gloss-inbox-means = A consumer's own table of the event ids it has handled, written in the same local transaction as the work itself. When the same event comes again, its id is already there and the copy is skipped, so Tithi is credited once and texted once.
gloss-inbox-where = wallet.inbox and sms.inbox in the inspector; in chapter 8 a skipped copy shows as a ◆ on the wallet and SMS lanes.

gloss-lso-term = Last stable offset (LSO)
gloss-lso-means = The first offset of a partition that still belongs to an open transaction, or the partition's end when no transaction is open. A read_committed reader stops just before it, so it never sees a write that may yet be aborted.
gloss-lso-where = The last_stable_offset column the inspector adds to broker.partitions.

gloss-ledger_unique-term = Ledger UNIQUE constraint
gloss-ledger_unique-means = The ledger records each movement of money as a row, and its transfer_id column is UNIQUE; the transfer id is derived from the user and the Idempotency-Key. Whatever slips past the guards above it, the database itself refuses a second row for the same transfer.
gloss-ledger_unique-where = payments.ledger in the inspector; in chapter 4 the retry that comes 49 hours late stops here, as a ◆ on the ledger lane.

gloss-natural_idempotency-term = Natural idempotency
gloss-natural_idempotency-means = An operation that is idempotent by its shape, with no key and no table: a SET puts a value in place, so a copy puts the same value in place. An INCREMENT such as "add ৳500" is not, unless it is rewritten as an INSERT keyed by an id, the way the ledger does it.
gloss-natural_idempotency-where = Chapter 5's panel "One wish, three ways to write it", with payments.profiles, payments.savings and payments.savings_credits in the inspector.

gloss-offset-term = Offset
gloss-offset-means = The position of a record in one partition of the log, counting up from 0. A consumer group saves the offset it has reached and reads on from there after a restart, so a crash before that save means reading some records again.
gloss-offset-where = The offset column of broker.records and the committed_offset column of broker.consumer_offsets.

gloss-outbox-term = Outbox
gloss-outbox-means = A table in the payment API's own database where the TransferDone event is written in the same transaction as the debit. Either both are saved or neither is, so the event cannot be lost between the database and the broker; a relay carries it on later.
gloss-outbox-where = payments.outbox in the inspector, and the outbox lane's event for a row written in the debit's transaction.

gloss-partition_drop-term = Partition drop
gloss-partition_drop-means = Forgetting old keys a whole day at a time: the key table is split by day, and each night the days older than the window go in one operation. Deleting the same rows one by one, index entries and all, costs far more.
gloss-partition_drop-where = The jobs lane at midnight, the partition_day column of payments.idempotency_keys, and the calculator "Dropping a day against deleting it".

gloss-producer_id-term = Producer id
gloss-producer_id-means = A number the broker hands a producer when it starts. Paired with a sequence number per partition, it lets the log tell that a batch is one it already holds.
gloss-producer_id-where = broker.producers, and the producer_id column of broker.producer_batches.

gloss-read_committed-term = read_committed
gloss-read_committed-means = A consumer setting (isolation.level) under which only writes from committed transactions are handed over. Records of an aborted or still-open transaction never reach the reader.
gloss-read_committed-where = Chapter 7: the fraud check's aborted write stays in broker.records, yet the wallet and the SMS service, which read approved-transfers, never receive it.

gloss-relay-term = Relay
gloss-relay-means = The process that reads unsent rows from the outbox, publishes them to the broker, and then marks them sent. If it crashes after publishing and before marking, it publishes the same event again when it comes back: at-least-once by design.
gloss-relay-where = The relay lane and the sent_ms column of payments.outbox; chapter 8 makes it crash once right after a publish.

gloss-replay-term = Replay
gloss-replay-means = Moving a consumer group's offset back, by offset or by time, so that it reads old events again, for instance to redo work after a bug fix. Every event read again is a copy, and only an inbox that still remembers it keeps that copy harmless.
gloss-replay-where = "Replay a consumer" in the instructor panel; the timeline marks when the consumer starts reading again.

gloss-retention-term = Retention
gloss-retention-means = How long the broker keeps records before deleting them: 7 days in this lab, the same as Kafka's default. As old records go, the log's start offset moves forward, so no replay can reach further back than the retention.
gloss-retention-where = The retention_ms column of broker.topics and the log_start_offset column of broker.partitions; the jobs lane shows each retention run.

gloss-sequence_number-term = Sequence number
gloss-sequence_number-means = A counter a producer puts on each batch it sends to a partition, one higher each time. A resent batch carries its old number, so the broker sees it already has that batch and answers with the original offset instead of appending a copy.
gloss-sequence_number-where = The sequence column of broker.producer_batches; in chapter 7 the resend after the lost ack shows as a ◆ on the broker lane.

gloss-stuck_recovery-term = Stuck-request recovery
gloss-stuck_recovery-means = A background job for keys left IN_PROGRESS by a crash. After 60 seconds it looks in the ledger: if the debit is there it completes the key with its receipt, and if not it frees the key so that a retry can run.
gloss-stuck_recovery-where = The jobs lane's events about stuck keys; scenario 5 crashes the API after the claim and then moves the clock 60 seconds on.

gloss-broker_transaction-term = Transaction (broker)
gloss-broker_transaction-means = A broker transaction ties the records a consumer writes to its offset commit, so that both take effect or neither does. The fraud check uses one: a crash between writing "approved" and committing its offset aborts both, and the next attempt writes once.
gloss-broker_transaction-where = broker.transactions and broker.txn_offsets in the inspector, and the fraud lane in chapter 7.

gloss-two_generals-term = Two Generals problem
gloss-two_generals-means = Two generals on two hills must agree on when to attack, and every messenger crosses a valley where it may be caught. Whoever sends the last message never learns that it arrived, so over a lossy channel no protocol makes both sides certain, and exactly-once delivery cannot be promised.
gloss-two_generals-where = Chapter 6's panel "The Two Generals", where the messengers move with the lab's clock.

gloss-unknown_outcome-term = Unknown outcome (timeout)
gloss-unknown_outcome-means = What the app is left with when no answer comes in time: the request may have been lost, or the money may have left and only the answer was lost, and from the phone both look alike. The honest reading of a timeout is "unknown", never "failed".
gloss-unknown_outcome-where = Chapter 1: the timeline marks the phone's timeout as unknown while payments.ledger already holds the debit.

gloss-stored_response-term = Stored response
gloss-stored_response-means = The answer the server saved beside an idempotency key when it first handled the request: the status code and the body, receipt and all. A retry with the same key gets this answer again, byte for byte, instead of a second transfer, so the app learns what happened the first time.
gloss-stored_response-where = Chapter 4: payments.idempotency_keys keeps response_code and response_body for each key; the timeline marks a replay as the stored answer sent again.

gloss-retry-term = Retry
gloss-retry-means = Sending a request again because no answer came, or the answer said to try later. A retry is only safe when the server can tell it from a new request: with the same idempotency key it is the same transfer; with a new key, or none, it is a second one.
gloss-retry-where = Chapter 1: Shimul's second tap after the timeout; the button lane and the app lane show each send.

gloss-exactly_once-term = Exactly-once delivery
gloss-exactly_once-means = A message delivered once and only once across a network that can lose things: it cannot be had, because the sender cannot know whether a lost acknowledgement means the message arrived. What systems build instead is at-least-once delivery with idempotent processing: effectively-once.
gloss-exactly_once-where = Chapter 6: the broker's acknowledgement lost, the producer sends again, and only the consumer's inbox keeps the effect single.

gloss-load_balancer-term = Load balancer
gloss-load_balancer-means = The machine in front of the API instances that hands each request to one of them. When an instance is slow to answer, it may send the same request to another one: a duplicate that no user made.
gloss-load_balancer-where = Chapter 5: the load balancer lane shows a request routed, and retried on the other instance after its wait ran out.

gloss-primary_key-term = Primary key (unique constraint)
gloss-primary_key-means = A rule the database itself enforces: no two rows may share this value. Two requests that try to insert the same key at the same moment cannot both win; one insert succeeds and the other fails. That is why a duplicate is caught by inserting, not by looking first.
gloss-primary_key-where = Chapter 3: the atomic claim's INSERT into payments.idempotency_keys, whose primary key is the user and the key; the loser of the race gets the winner's row.

gloss-ack-term = Acknowledgement (ack)
gloss-ack-means = The short answer that says a message was received: the broker's to the producer, the consumer's offset commit to the broker. A lost ack looks exactly like a lost message, so the sender sends again, and the receiver must be ready for the copy.
gloss-ack-where = Chapter 6: the broker lane marks an ack lost, and the producer's resend that follows.
