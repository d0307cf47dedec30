# Each page's description for search engines and link previews (<meta name="description">),
# written into the page's head by the server alone: browsers are never sent this file.

head-home = Watch a ৳500 transfer get paid twice at every layer of a real payment system, from the Send button to the SMS, and watch each safeguard stop the copy.
head-lab = Your own sandbox of PocketPay: tap Send on Shimul's phone, break the network, crash a server, switch a safeguard off, and count whether the money left once.
head-watch = A live, read-only view of someone's lab: every request, key and event as the server sees it.
head-run = A recorded run of the lab, replayed on a fresh sandbox from its seed, with the hash that shows it came out the same.
head-quiz = Questions on retries, idempotency keys, outboxes and consumers: commit to an answer, then see the tempting wrong one and why it fails.
head-glossary = The words of idempotency explained: idempotency key, atomic claim, outbox, inbox, at-least-once, dedup table and more, each with where the lab shows it.
head-summary = One tap, eight stops, eight safeguards: where a duplicate payment can be born between Shimul's thumb and Tithi's SMS, and what catches each one.
head-calculators = The lesson's numbers, worked out with yours: how big the dedup table grows, what dropping a day costs, how timeouts become support tickets.
head-day = A day of PocketPay traffic pushed through the real lab twice, with every safeguard on and then off, and the double charges counted.
head-teach = Run the lab with a class: open a class, give out its code, choose the chapter, and see what every student's sandbox did, as the server saw it.
head-join = Join a class in the PocketPay Idempotency Lab with the code your instructor gave.
head-show = A class's totals for the projector, live from the server.
head-take = Take over a class someone handed you in the PocketPay Idempotency Lab.
