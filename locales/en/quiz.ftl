# The quiz: English. For each question: -ask, the options -o1 … -oN (for an order question, the items in their right order; the page shuffles them), -right and -wrong.
# Question ids and their kinds live in src/domain/quiz.rs; a number question has no options.

## Chapter 01: a tap on a train

quiz-timeout_means-ask = On the train, Shimul taps Send. The spinner turns for a long time, then the app shows an error. What does that error tell the app about the ৳500?
quiz-timeout_means-o1 = The transfer failed, so a second tap is safe.
quiz-timeout_means-o2 = The transfer went through, so a second tap must be blocked.
quiz-timeout_means-o3 = Nothing certain: the request may have been lost, or the money may have moved and only the answer was lost.
quiz-timeout_means-right = The app only saw a timeout, and from the phone a lost request and a lost answer look exactly alike. A timeout means "don't know", not "didn't happen", so the server has to make every retry safe.
quiz-timeout_means-wrong = "It failed, tap again" is what Shimul believed. The debit had already happened and only the answer was lost, so his second tap took another ৳500.

quiz-charged_twice-ask = The app makes a new key for every attempt, and the server remembers no keys. Shimul starts with ৳2,000. His first tap debits ৳500 but the answer is lost; he taps again and this time gets a receipt. What is his balance now? Type the amount in taka.
quiz-charged_twice-right = ৳1,000. The second tap came with a new key, so the server took it for a new transfer and debited another ৳500: two debits for one intended transfer.
quiz-charged_twice-wrong = ৳1,500 is what Shimul expected after one transfer. Without a key it can recognise, the server cannot tell a retry from a new payment, so the retry becomes a second debit.

## Chapter 02: one key, one answer

quiz-who_makes_key-ask = Who makes the Idempotency-Key, and when?
quiz-who_makes_key-o1 = The server, when the request arrives.
quiz-who_makes_key-o2 = The app, at the Send tap, before the first try; every retry of that transfer carries it.
quiz-who_makes_key-o3 = The app, a fresh one for every attempt, so that each request can be told apart.
quiz-who_makes_key-o4 = The load balancer, when it forwards the request.
quiz-who_makes_key-right = Only the app knows that two requests are the same attempt. So it makes the key once, before the first try, keeps it, and sends it with every retry; Shimul's next transfer is a new attempt and gets a new key.
quiz-who_makes_key-wrong = "The server makes it" sounds tidy, but to the server every request is new: each retry would get a key of its own and nothing would ever match. A fresh key for every attempt fails in the same way.

quiz-retry_storm_guard-ask = Shimul taps once. The answer is lost, the phone's HTTP library retries twice, and the load balancer resends the request to another API instance. Which guard keeps this to one debit?
quiz-retry_storm_guard-o1 = Busy Send button
quiz-retry_storm_guard-o2 = The SMS service's inbox
quiz-retry_storm_guard-o3 = The server remembers each key
quiz-retry_storm_guard-o4 = Free a stuck key
quiz-retry_storm_guard-right = The server remembers each key. Every copy carries the same key, so whichever instance receives it finds the key in idempotency_keys and sends back the stored answer instead of debiting again.
quiz-retry_storm_guard-wrong = The busy Send button is the usual pick, but it only stops a finger. These copies are made after the tap, by the library and by the load balancer, where the button never sees them.

quiz-same_key_other_body-ask = A bug in the app sends a request for ৳5,000 with the key of Shimul's ৳500 transfer. Which guard refuses it with 422?
quiz-same_key_other_body-o1 = One key, one body
quiz-same_key_other_body-o2 = The ledger's last line
quiz-same_key_other_body-o3 = Claim the key before the work
quiz-same_key_other_body-o4 = Free a stuck key
quiz-same_key_other_body-right = One key, one body. The server keeps a hash of the first request's body next to the key; another body under the same key does not match, so the server runs nothing and answers 422.
quiz-same_key_other_body-wrong = The ledger's last line is tempting, but it only refuses a second debit of the same transfer and never notices that ৳5,000 was asked for. Without the hash, the server either returns the stored ৳500 answer or runs the new body.

## Chapter 03: two requests at once

quiz-look_then_write-ask = Two requests with the same key arrive 50 ms apart. The server first looks the key up, and writes it only after the debit. What happens?
quiz-look_then_write-o1 = The second request finds the key and gets the stored answer.
quiz-look_then_write-o2 = Both look before either one writes, both find nothing, and both debit.
quiz-look_then_write-o3 = The second request waits until the first one is done.
quiz-look_then_write-o4 = The database merges the two into one debit.
quiz-look_then_write-right = The look and the write are two steps with a gap between them, and the second request looks inside that gap. Catch duplicates with an INSERT instead: the primary key lets only one of the two claim the key, and the other gets 409.
quiz-look_then_write-wrong = "The second finds the key" assumes the first has already written it. 50 ms in, the first is still waiting for the payment gateway and has written nothing, and nothing makes the second one wait.

quiz-claim_order-ask = Put the steps of the atomic claim in order, from the request's arrival to the answer.
quiz-claim_order-o1 = The request arrives with its Idempotency-Key.
quiz-claim_order-o2 = INSERT the key as IN_PROGRESS and commit; if the key is already taken, answer 409 and stop.
quiz-claim_order-o3 = Debit ৳500: write the ledger row.
quiz-claim_order-o4 = Store the answer with the key and mark it COMPLETED.
quiz-claim_order-o5 = Send the answer to the phone.
quiz-claim_order-right = The claim comes before any work: once the IN_PROGRESS row is committed, a second request with the same key hits the primary key and gets 409. The answer is stored before it is sent, so a retry after a lost answer gets it back.
quiz-claim_order-wrong = The usual mistake debits first and writes the key afterwards: that is look-then-write again, and a request 50 ms behind slips through the gap. Sending the answer before storing it fails too: if that answer is lost, there is nothing to replay.

## Chapter 04: how long to remember

quiz-window_length-ask = PocketPay's app keeps retrying an unfinished transfer for up to 24 hours. How long should the server keep its keys?
quiz-window_length-o1 = 1 hour: a lost answer is retried within minutes.
quiz-window_length-o2 = Exactly 24 hours, as long as the longest retry.
quiz-window_length-o3 = For ever, to be safe.
quiz-window_length-o4 = 48 hours: longer than the longest retry, with a margin.
quiz-window_length-right = The window must outlast the longest retry, or a late retry arrives as a new request. 48 hours covers a day of retries and a day of margin, about 2 GB of keys at PocketPay's size, dropped one day's partition at a time.
quiz-window_length-wrong = "For ever" feels safest, but at about 1 GB a day it grows to 365 GB a year, and every INSERT updates an ever larger index, for keys nobody will retry. Exactly 24 hours leaves no margin: a retry near the end of its day can arrive just after its key is gone.

quiz-late_retry_balance-ask = Every guard is on and the window is 48 hours. Shimul has ৳2,000 and sends ৳500; the debit happens, the answer is lost. 49 hours later the app retries with the same key. What is Shimul's balance after the retry? Type the amount in taka.
quiz-late_retry_balance-right = ৳1,500. After 49 hours the key's row is still in day 1's partition (a day is dropped only once all of it is out of the window, at the midnight that starts day 4), but it is older than the 48-hour window, so the claim ignores it and the API runs the retry as new, in day 3's partition. The transfer_id is made from the same user and key, though, and the ledger's UNIQUE(transfer_id) refuses the second debit.
quiz-late_retry_balance-wrong = ৳1,000 is the common guess: "the window is over, so it debits again". That is what happens with the ledger's UNIQUE switched off; with it on, the last guard still holds. Whether the old row is already dropped or only ignored changes nothing: past the window, the idempotency table no longer decides.

## Chapter 05: some work is idempotent by its shape

quiz-set_or_increment-ask = Over a network that loses 30 % of requests and answers, each of these writes is sent ten times. Which one ends the same however many copies arrive?
quiz-set_or_increment-o1 = balance = balance - 500
quiz-set_or_increment-o2 = transfer_count = transfer_count + 1
quiz-set_or_increment-o3 = name = 'Shimul Ahmed'
quiz-set_or_increment-o4 = POST /transfers with no key
quiz-set_or_increment-right = Setting the name puts one fixed value in place, so every copy puts the same value. To make money moves safe by their shape, turn the INCREMENT into a SET or a UNIQUE INSERT, as the ledger does with a row keyed by transfer_id.
quiz-set_or_increment-wrong = "balance = balance - 500" looks like one plain update, but it depends on the value before it: each copy that arrives takes another ৳500. The counter has the same flaw.

## Chapter 06: exactly once is not on offer

quiz-exactly_once_offer-ask = A new teammate wants to buy a messaging system that delivers every message exactly once, so that no inbox is needed. What is the honest answer?
quiz-exactly_once_offer-o1 = Buy it: with exactly-once delivery, no copy ever arrives.
quiz-exactly_once_offer-o2 = No network can promise that; combine at-least-once delivery with idempotent processing, and the effect happens once.
quiz-exactly_once_offer-o3 = Switch to at-most-once: nothing is sent twice, so nothing is harmed.
quiz-exactly_once_offer-right = When an ack is missing, the sender can only resend and risk a copy, or not resend and risk a loss; the Two Generals show that no extra round of messages removes that doubt. What can be had is effectively-once: at-least-once delivery plus idempotent processing, such as an inbox.
quiz-exactly_once_offer-wrong = Buying "exactly-once" is the tempting answer, but such a claim means an exactly-once effect inside the product's own border, not delivery: copies still arrive, and something must make them harmless. At-most-once swaps duplicates for lost money.

quiz-at_most_once_loses-ask = At-most-once: there is no outbox, and the API dies right after committing Shimul's debit, before it publishes TransferDone. Nobody sends the event again. What happens to Tithi?
quiz-at_most_once_loses-o1 = She is never paid: ৳500 left Shimul and reached nobody.
quiz-at_most_once_loses-o2 = She is paid once, a little late.
quiz-at_most_once_loses-o3 = She is paid twice.
quiz-at_most_once_loses-right = With at-most-once, a lost message stays lost: the debit was committed, but the event lived only in the dead process's memory, so the wallet never hears of it. The outbox fixes this: the event is written in the debit's own transaction, and a relay keeps sending it until it is marked sent.
quiz-at_most_once_loses-wrong = "Once, a little late" assumes that something will send the event again; at-most-once means nothing does. Avoiding duplicates this way costs lost money instead.

## Chapter 07: inside the broker

quiz-audit_outside_log-ask = The fraud check runs with the idempotent producer and transactions. It writes its approved event and an audit row in its own database, then crashes before its commit; its transaction is aborted and it runs again. What happens to the audit row?
quiz-audit_outside_log-o1 = It is undone with the aborted transaction: one row.
quiz-audit_outside_log-o2 = The idempotent producer drops the second one.
quiz-audit_outside_log-o3 = It is written a second time: the audit row lives outside the log, where the transaction cannot undo it.
quiz-audit_outside_log-right = The broker's transaction covers the writes to the log and the offset, nothing else. A read_committed reader never sees the aborted approved event, but the audit row was already in another database. Work outside the log needs its own idempotency, such as an inbox keyed by event id.
quiz-audit_outside_log-wrong = "Undone with the transaction" is the common belief, but the guarantee stops at the log's border. The idempotent producer only drops batches resent to the log, not rows in another store.

## Chapter 08: the consumer's inbox

quiz-inbox_order-ask = Put the wallet service's steps for one TransferDone event in order, with its inbox on.
quiz-inbox_order-o1 = TransferDone arrives with its event_id.
quiz-inbox_order-o2 = Begin a local transaction.
quiz-inbox_order-o3 = INSERT the event_id into the inbox; a copy fails here and the transaction is rolled back.
quiz-inbox_order-o4 = Add ৳500 to Tithi's balance.
quiz-inbox_order-o5 = Commit the local transaction.
quiz-inbox_order-o6 = Commit the offset in the log.
quiz-inbox_order-right = The inbox row and the credit share one local transaction, so both happen or neither does, and a copy stops at its INSERT. Which of the two goes first inside it does not matter, and either order is marked right: nothing is kept until the commit, and when a copy's INSERT fails, the rollback takes back a credit made before it as well. What matters is the frame around them: the transaction begins before both and commits after both. The offset comes last: a crash just before it only means the event is read again, and the inbox skips it.
quiz-inbox_order-wrong = Committing the offset first is the usual slip: a crash right after it loses the credit for good. Crediting outside the inbox's transaction fails too: a crash between the two leaves a credit with no inbox row, and the copy is credited again.

quiz-relay_twice_credit-ask = The inboxes are off, and Tithi has ৳0. The relay publishes the TransferDone for Shimul's ৳500 and crashes before marking it sent; when it comes back, it publishes it again. What is Tithi's balance once both copies are read? Type the amount in taka.
quiz-relay_twice_credit-right = ৳1,000. The wallet service credits every delivery it reads, and nothing tells it that the second one is a copy. Shimul paid ৳500, so PocketPay pays the other ৳500 from its own pocket.
quiz-relay_twice_credit-wrong = ৳500, "because the outbox makes it safe". The outbox keeps the event from being lost, not from being sent twice: a relay crash between publishing and marking it sent repeats it. The consumer needs an inbox.

quiz-replay_window-ask = The log keeps events for 7 days. To fix a bug, the team replays the wallet's consumer from 5 days back. How long must the inbox remember event ids so that nobody is credited twice?
quiz-replay_window-o1 = 24 hours, a day of retries.
quiz-replay_window-o2 = At least 7 days, the log's retention.
quiz-replay_window-o3 = 48 hours, like the API's keys.
quiz-replay_window-o4 = No time at all: a replay is not a duplicate.
quiz-replay_window-right = A replay can bring back anything the log still holds, so the inbox must remember at least as long as the retention, 7 days. Then every replayed event finds its id and is skipped.
quiz-replay_window-wrong = 24 hours is the common setting, and the trap: events between 1 and 5 days old are no longer in the inbox, so the replay credits them again.

## Chapter 09: from the button to the database

quiz-no_single_layer-ask = The payment API's key table now works. A colleague wants to drop the busy Send button, the ledger's UNIQUE and the inboxes to save work. What do you answer?
quiz-no_single_layer-o1 = Keep them all: each layer stops a kind of copy the others never see.
quiz-no_single_layer-o2 = Fine: the key table catches every duplicate.
quiz-no_single_layer-o3 = Keep only the inboxes: duplicates are born in the broker.
quiz-no_single_layer-o4 = Keep only the ledger's UNIQUE: it is the last line anyway.
quiz-no_single_layer-right = The key table never sees the relay's second TransferDone, an inbox never sees a double tap, and the ledger is there for a bug in the layers above it. Trust no single layer: the button, the API, the database and the consumer each stop a different duplicate.
quiz-no_single_layer-wrong = "The key table catches everything" breaks as soon as a copy is born after the API: in the relay, in the broker or in a replay, where Tithi is credited twice and the table never hears of it.

quiz-storm_guard-ask = In the storm, the wallet service commits Tithi's credit and crashes before committing its offset. After the restart it reads the same TransferDone again. Which guard stops a second credit?
quiz-storm_guard-o1 = The server remembers each key
quiz-storm_guard-o2 = The log drops a resent batch
quiz-storm_guard-o3 = The ledger's last line
quiz-storm_guard-o4 = The wallet's inbox
quiz-storm_guard-right = The wallet's inbox. The event_id was inserted in the same local transaction as the credit, so the second read fails at the inbox's INSERT, and only the offset is committed.
quiz-storm_guard-wrong = "The log drops a resent batch" is a common pick, but nothing was resent to the log: the same record is read from it again, which the producer's guard never sees. The API's key table and the ledger sit before the broker and never see it either.
