# শব্দকোষ (পাঠের ১১ নম্বর অংশ): src/domain/glossary.rs-এর প্রতিটি শব্দের নাম (-term), মানে (-means) আর ল্যাবে কোথায় দেখা যায় (-where)।

gloss-at_least_once-term = at-least-once (অন্তত একবার)
gloss-at_least_once-means = ডেলিভারির একটা প্রতিশ্রুতি: প্রাপ্তিস্বীকার না এলে প্রেরক আবার পাঠায়, তাই কিছু হারায় না, কিন্তু একই বার্তা দুবার পৌঁছাতে পারে। পকেটপে-র relay এভাবেই চলে, তাই তার পরের প্রতিটি সার্ভিসের একটা inbox লাগে।
gloss-at_least_once-where = অধ্যায় ০৬, পাহারা বন্ধ রেখে আবার চালু করলে: relay লেনে event দুবার প্রকাশ হয়, আর ক্ষতির মিটারে "দুবার জমা" লাল হয়।

gloss-at_most_once-term = at-most-once (বড়জোর একবার)
gloss-at_most_once-means = ডেলিভারির একটা প্রতিশ্রুতি: একবার পাঠানো, আর কখনো নয়; তাই কিছু দুবার পৌঁছায় না, কিন্তু বার্তা হারিয়ে যেতে পারে। debit আর প্রকাশের মাঝে API মারা গেলে শিমুলের টাকা কাটে, অথচ তিথি তার খবরই পান না।
gloss-at_most_once-where = অধ্যায় ০৬-এর প্রথম চালানো: API লেনে commit-এর পরের crash দেখা যায়, আর ক্ষতির মিটারে "হারানো event" লাল হয়।

gloss-atomic_claim-term = atomic claim (কাজের আগে key দখল)
gloss-atomic_claim-means = আগে খুঁজে না দেখে সরাসরি লিখে key নেওয়া: কোনো কাজের আগে একটিমাত্র INSERT, যা IN_PROGRESS সারি বসিয়ে commit হয়। একই key-র দুটি request একসাথে এলে primary key ঠিক একটি INSERT-কে ঢুকতে দেয়, অন্য request পায় ৪০৯।
gloss-atomic_claim-where = API লেনে key claim হওয়ার ঘটনা; ভেতরে দেখুন-এ payment API-র table-গুলোর নিচে claim-এর SQL ছাপা থাকে।

gloss-dedup_table-term = dedup table (duplicate চেনার table)
gloss-dedup_table-means = যে table আগে সামলানো id-গুলো মনে রাখে, যাতে কপি এলে চেনা যায় আর বাদ দেওয়া যায়। পকেটপে-তে এমন তিনটি: API-র key table, আর wallet ও SMS সার্ভিসের inbox; পুরোনো সারি না মোছা পর্যন্ত প্রতিটি transfer-এ প্রত্যেকটিতে একটি করে সারি বাড়ে।
gloss-dedup_table-where = ভেতরে দেখুন-এ payments.idempotency_keys, wallet.inbox আর sms.inbox; "dedup table কত বড় হয়?" হিসাবযন্ত্র প্রথমটির মাপ কষে।

gloss-dual_write-term = dual write (দুই জায়গায় আলাদা আলাদা লেখা)
gloss-dual_write-means = দুটি আলাদা system-এ একটার পর একটা লেখা, অথচ দুটো লেখাকে বেঁধে রাখার কিছু নেই: যেমন debit commit করে তারপর broker-এ event প্রকাশ করা। মাঝখানে crash হলে প্রথম লেখাটা থেকে যায়, দ্বিতীয়টা আর কখনো হয় না।
gloss-dual_write-where = outbox বন্ধ রেখে অধ্যায় ০৬: payments.ledger-এ debit আছে, API লেন দেখায় প্রকাশের আগেই process মরেছে, আর broker.records-এ সেই event কখনো পৌঁছায় না।

gloss-effectively_once-term = effectively-once (ফল ঠিক একবার)
gloss-effectively_once-means = "exactly-once" কথাটার সৎ মানে: বার্তা একাধিকবার পৌঁছাতে পারে, কিন্তু তার ফল হয় একবার। এর জন্য লাগে at-least-once ডেলিভারি আর idempotent processing; এখানে সেটা হলো হাল না ছাড়া outbox ও relay, আর প্রতিটি consumer-এ একটি inbox।
gloss-effectively_once-where = অধ্যায় ০৬-এর শেষ চালানো: relay দুবার প্রকাশ করে, wallet আর SMS লেনে একটি করে ◆, আর তিথির wallet-এ জমা হয় একবারই।

gloss-epoch_fencing-term = epoch আর fencing (পুরোনো instance-কে বাইরে রাখা)
gloss-epoch_fencing-means = একই transactional id নিয়ে কোনো transactional producer আবার চালু হলে broker সেই id-র epoch বাড়িয়ে দেয়, আর পুরোনো epoch নিয়ে আসা লেখা ফিরিয়ে দেয়। এভাবে আগের instance-টি বেড়ার বাইরে পড়ে যায়, আর তার খোলা রেখে যাওয়া transaction বাতিল হয়।
gloss-epoch_fencing-where = broker.producers-এর epoch কলাম; fraud check crash করার পরে fraud লেনে দেখা যায়, নতুন epoch-এ তার আধা-শেষ transaction বাতিল হয়েছে।

gloss-fingerprint-term = fingerprint (request-এর hash)
gloss-fingerprint-means = request body-কে একটাই নির্দিষ্ট ছাঁদে লিখে তার hash, যা key-র পাশে জমা থাকে। একই key পরে অন্য body নিয়ে এলে, ধরুন ৳৫০০-র বদলে ৳৫,০০০, সার্ভার পুরোনো উত্তরও ফেরত দেয় না, নতুন body-ও চালায় না: উত্তর দেয় ৪২২।
gloss-fingerprint-where = payments.idempotency_keys-এর request_hash কলাম; নেটওয়ার্ক প্যানেলের সাজানো আক্রমণ "একই key, ৳৫০০-র বদলে ৳৫,০০০" API লেনে ৪২২ পায়।

gloss-idempotency-term = idempotency (বারবার চালালেও একই ফল)
gloss-idempotency-means = কোনো কাজের সেই গুণ, যাতে একবার চালানো আর বহুবার চালানোর ফল একই থাকে। পকেটপে-র বেলায় এর মানে: শিমুলের request বা তার পরের event যতবারই পৌঁছাক, তাঁর অ্যাকাউন্ট থেকে ৳৫০০ কাটে একবার, তিথির কাছে পৌঁছায়ও একবার।
gloss-idempotency-where = অধ্যায় ০৯: একসাথে সব fault-এর বিরুদ্ধে সব পাহারা চালু, আর শেষে ক্ষতির মিটার শূন্য।

gloss-idempotency_key-term = idempotency key
gloss-idempotency_key-means = অ্যাপ যে random id বানায়, এখানে একটি UUID, ঠিক যখন শিমুল পেমেন্ট নিশ্চিত করেন; প্রথম চেষ্টা আর প্রতিটি retry সেটা Idempotency-Key header-এ পাঠায়। এতে সার্ভার বোঝে "এটা সেই একই চেষ্টা"; নতুন পেমেন্টে নতুন key।
gloss-idempotency_key-where = শিমুলের ফোনে Send বোতামের নিচে, আর payments.idempotency_keys-এর idem_key কলামে।

gloss-idempotency_window-term = idempotency window (key মনে রাখার মেয়াদ)
gloss-idempotency_window-means = কোনো dedup table একটি key বা event id কতক্ষণ মনে রাখে। এটা সবচেয়ে লম্বা retry-এর চেয়ে বড় হতে হয়: পকেটপে-র অ্যাপ ২৪ ঘণ্টা পর্যন্ত retry করে, তাই key রাখা হয় ৪৮ ঘণ্টা, আর এর পরে আসা retry তবু নতুন request হিসেবে চলে।
gloss-idempotency_window-where = সুইচ "key কত ঘণ্টা রাখা হয়" (৪৮) আর "inbox কত ঘণ্টা মনে রাখে" (১৬৮); অধ্যায় ০৪ একটি retry পাঠায় ৪৯ ঘণ্টা দেরিতে।

gloss-idempotent_replayed-term = Idempotent-Replayed (জমানো উত্তর আবার পাঠানো)
gloss-idempotent_replayed-means = response-এর একটি header, যার মানে "এটা জমিয়ে রাখা উত্তর, আবার পাঠানো হলো"। শেষ হয়ে যাওয়া key-র retry কোনো কাজ করে না: প্রথম উত্তরের status আর body হুবহু পায়, TXN-88412-সহ, সঙ্গে Idempotent-Replayed: true।
gloss-idempotent_replayed-where = API লেনের ◆, রসিদে জমানো উত্তরের লাইন, আর payments.idempotency_keys-এর response_body কলাম।

gloss-in_progress-term = IN_PROGRESS (কাজ চলছে)
gloss-in_progress-means = যে key দখল হয়েছে কিন্তু কাজ এখনও শেষ হয়নি, তার অবস্থা। এমন key পেলে দ্বিতীয় request পায় ৪০৯, আর একটু পরে আবার চেষ্টা করে; সারি ততক্ষণে COMPLETED হলে সেই retry পায় জমানো উত্তর।
gloss-in_progress-where = payments.idempotency_keys-এর status কলাম; অধ্যায় ০৩-এর দৌড়ে দ্বিতীয় request এর সামনে পড়ে, আর API লেন জানায় key-র কাজ এখনও চলছে: ৪০৯।

gloss-inbox-term = inbox (consumer-এর সামলানো event-এর খাতা)
gloss-inbox-means = consumer-এর নিজের table, যেখানে সে প্রতিটি সামলানো event-এর id লেখে, আসল কাজের একই local transaction-এ। একই event আবার এলে তার id সেখানে আগেই পাওয়া যায়, আর কপিটি বাদ পড়ে: তিথির wallet-এ জমা একবার, SMS-ও একবার।
gloss-inbox-where = ভেতরে দেখুন-এ wallet.inbox আর sms.inbox; অধ্যায় ০৮-এ বাদ পড়া কপি wallet আর SMS লেনে ◆ হয়ে দেখা দেয়।

gloss-lso-term = last stable offset (LSO, শেষ স্থির offset)
gloss-lso-means = কোনো partition-এ এখনও খোলা থাকা transaction-এর প্রথম offset; খোলা transaction না থাকলে partition-এর শেষ। read_committed পাঠক ঠিক তার আগে থেমে যায়, তাই যে লেখা এখনও বাতিল হতে পারে, তা সে কখনো দেখে না।
gloss-lso-where = ভেতরে দেখুন broker.partitions-এ যে last_stable_offset কলাম জুড়ে দেয়।

gloss-ledger_unique-term = ledger-এর UNIQUE (শেষ পাহারা)
gloss-ledger_unique-means = ledger টাকার প্রতিটি নড়াচড়া একটি সারি হিসেবে লেখে, আর তার transfer_id কলাম UNIQUE; transfer id বানানো হয় user আর Idempotency-Key থেকে। ওপরের পাহারা ফাঁকি দিয়ে যা-ই আসুক, একই transfer-এর দ্বিতীয় সারি database নিজেই ফিরিয়ে দেয়।
gloss-ledger_unique-where = ভেতরে দেখুন-এ payments.ledger; অধ্যায় ০৪-এ ৪৯ ঘণ্টা দেরির retry এখানেই থামে, ledger লেনে ◆ হয়ে।

gloss-natural_idempotency-term = natural idempotency (গঠনেই idempotent)
gloss-natural_idempotency-means = যে কাজ নিজের গঠনের জোরেই idempotent, key বা table ছাড়াই: SET একটা মান জায়গামতো বসায়, তাই কপিও সেই একই মান বসায়। "৳৫০০ যোগ করো" ধরনের INCREMENT তা নয়, যদি না ledger-এর মতো তাকে id-র key-ওয়ালা INSERT-এ বদলে নেওয়া হয়।
gloss-natural_idempotency-where = অধ্যায় ০৫-এর "এক ইচ্ছা, লেখার তিন উপায়" প্যানেল, সঙ্গে ভেতরে দেখুন-এ payments.profiles, payments.savings আর payments.savings_credits।

gloss-offset-term = offset (log-এ record-এর ক্রমিক নম্বর)
gloss-offset-means = log-এর একটি partition-এ কোনো record-এর অবস্থান, ০ থেকে গুনে ওপরে। consumer group কতদূর পড়েছে সেই offset জমা রাখে, আর restart-এর পরে সেখান থেকে পড়ে; তাই জমা রাখার আগে crash হলে কিছু record আবার পড়তে হয়।
gloss-offset-where = broker.records-এর offset কলাম আর broker.consumer_offsets-এর committed_offset কলাম।

gloss-outbox-term = outbox
gloss-outbox-means = payment API-র নিজের database-এর একটি table, যেখানে TransferDone event লেখা হয় debit-এর একই transaction-এ। হয় দুটোই থাকে, নয় কোনোটাই না, তাই database আর broker-এর মাঝে event হারাতে পারে না; পরে একটি relay সেটা এগিয়ে দেয়।
gloss-outbox-where = ভেতরে দেখুন-এ payments.outbox, আর outbox লেনে debit-এর transaction-এ সারি লেখার ঘটনা।

gloss-partition_drop-term = partition drop (পুরো একটা দিন একবারে মোছা)
gloss-partition_drop-means = পুরোনো key ভোলা হয় দিন ধরে: key table দিন অনুযায়ী ভাগ করা, আর প্রতি রাতে window-এর চেয়ে পুরোনো দিনগুলো এক ধাক্কায় চলে যায়। একই সারিগুলো index-সহ একটা একটা করে DELETE করতে খাটুনি অনেক বেশি।
gloss-partition_drop-where = মাঝরাতে jobs লেন, payments.idempotency_keys-এর partition_day কলাম, আর "একটা দিন drop বনাম delete" হিসাবযন্ত্র।

gloss-producer_id-term = producer id
gloss-producer_id-means = কোনো producer চালু হলে broker তাকে যে নম্বর দেয়। প্রতি partition-এর sequence নম্বরের সঙ্গে জোড়া বেঁধে এটা দিয়েই log চেনে, কোন batch তার কাছে আগেই আছে।
gloss-producer_id-where = broker.producers, আর broker.producer_batches-এর producer_id কলাম।

gloss-read_committed-term = read_committed
gloss-read_committed-means = consumer-এর একটি setting (isolation.level), যাতে শুধু commit হওয়া transaction-এর লেখা হাতে আসে। বাতিল বা এখনও খোলা transaction-এর record পাঠকের কাছে কখনো পৌঁছায় না।
gloss-read_committed-where = অধ্যায় ০৭: fraud check-এর বাতিল লেখা broker.records-এ থেকে যায়, তবু approved-transfers পড়া wallet আর SMS সার্ভিস তা কখনো পায় না।

gloss-relay-term = relay (outbox থেকে broker-এ পৌঁছে দেওয়া)
gloss-relay-means = যে process outbox-এর না-পাঠানো সারি পড়ে, broker-এ প্রকাশ করে, তারপর সারিটিকে পাঠানো বলে চিহ্ন দেয়। প্রকাশের পরে কিন্তু চিহ্ন দেওয়ার আগে crash করলে ফিরে এসে একই event আবার প্রকাশ করে: নকশাতেই at-least-once।
gloss-relay-where = relay লেন আর payments.outbox-এর sent_ms কলাম; অধ্যায় ০৮ প্রকাশের ঠিক পরে তাকে একবার crash করায়।

gloss-replay-term = replay (পুরোনো offset থেকে আবার পড়া)
gloss-replay-means = consumer group-এর offset পিছিয়ে দেওয়া, offset ধরে বা সময় ধরে, যাতে সে পুরোনো event আবার পড়ে; যেমন bug ঠিক করার পরে কাজটা নতুন করে করতে। আবার পড়া প্রতিটি event একটি কপি, আর তাকে নিরীহ রাখে শুধু সেই inbox, যে তাকে এখনও মনে রাখে।
gloss-replay-where = শিক্ষকের প্যানেলে "consumer-কে পিছিয়ে আবার পড়ানো (replay)"; consumer কখন আবার পড়া শুরু করল, timeline তা চিহ্নিত করে।

gloss-retention-term = retention (log কতদিন রাখে)
gloss-retention-means = broker record মুছে ফেলার আগে কতদিন রাখে: এই ল্যাবে ৭ দিন, Kafka-র default-এর সমান। পুরোনো record মুছলে log-এর শুরুর offset এগিয়ে যায়, তাই কোনো replay retention-এর চেয়ে পেছনে যেতে পারে না।
gloss-retention-where = broker.topics-এর retention_ms কলাম আর broker.partitions-এর log_start_offset কলাম; প্রতিবার retention চলার খবর jobs লেনে।

gloss-sequence_number-term = sequence নম্বর
gloss-sequence_number-means = producer কোনো partition-এ পাঠানো প্রতিটি batch-এ যে ক্রমিক নম্বর বসায়, প্রতিবার এক করে বাড়িয়ে। আবার পাঠানো batch আগের নম্বরটাই বয়ে আনে, তাই broker বোঝে batch-টি তার কাছে আছে, আর কপি না জুড়ে আগের offset-টাই জানিয়ে দেয়।
gloss-sequence_number-where = broker.producer_batches-এর sequence কলাম; অধ্যায় ০৭-এ ack হারানোর পরে আবার পাঠানো batch broker লেনে ◆ হয়ে দেখা দেয়।

gloss-stuck_recovery-term = আটকে থাকা key ছাড়ানো (stuck recovery)
gloss-stuck_recovery-means = crash-এর কারণে IN_PROGRESS হয়ে পড়ে থাকা key-র জন্য একটি background job। ৬০ সেকেন্ড পরে সে ledger দেখে: debit থাকলে রসিদসহ key সম্পূর্ণ করে, না থাকলে key ছেড়ে দেয় যাতে retry চলতে পারে।
gloss-stuck_recovery-where = jobs লেনে আটকে থাকা key-র ঘটনাগুলো; দৃশ্য ৫ claim-এর পরে API-কে crash করায়, তারপর ঘড়ি ৬০ সেকেন্ড এগিয়ে দেয়।

gloss-broker_transaction-term = broker transaction
gloss-broker_transaction-means = broker-এর transaction একটি consumer-এর লেখা record আর তার offset commit-কে এক সুতোয় বাঁধে: হয় দুটোই কার্যকর হয়, নয় কোনোটাই না। fraud check এটা ব্যবহার করে: "approved" লেখা আর offset commit-এর মাঝে crash হলে দুটোই বাতিল হয়, আর পরের চেষ্টা লেখে একবারই।
gloss-broker_transaction-where = ভেতরে দেখুন-এ broker.transactions আর broker.txn_offsets, আর অধ্যায় ০৭-এর fraud লেন।

gloss-two_generals-term = দুই সেনাপতির সমস্যা (Two Generals problem)
gloss-two_generals-means = দুই পাহাড়ে দুই সেনাপতিকে আক্রমণের সময় নিয়ে একমত হতে হবে, আর প্রতিটি দূতকে এমন উপত্যকা পেরোতে হয়, যেখানে সে ধরা পড়তে পারে। শেষ বার্তার প্রেরক কখনো জানতে পারেন না সেটা পৌঁছেছে কি না, তাই হারাতে পারে এমন পথে কোনো নিয়মেই দুই পক্ষ নিশ্চিত হয় না, আর ঠিক একবার ডেলিভারির প্রতিশ্রুতি দেওয়া যায় না।
gloss-two_generals-where = অধ্যায় ০৬-এর "দুই সেনাপতি" প্যানেল, যেখানে দূতেরা ল্যাবের ঘড়ি ধরে চলে।

gloss-unknown_outcome-term = অজানা ফল (timeout)
gloss-unknown_outcome-means = সময়মতো উত্তর না এলে অ্যাপের হাতে যা থাকে: request হয়তো হারিয়েছে, নয়তো টাকা চলে গেছে আর হারিয়েছে শুধু উত্তরটা, আর ফোন থেকে দুটোকে আলাদা করা যায় না। timeout-এর সৎ পাঠ "অজানা", কখনো "ব্যর্থ" নয়।
gloss-unknown_outcome-where = অধ্যায় ০১: timeline ফোনের timeout-কে অজানা বলে চিহ্নিত করে, অথচ payments.ledger-এ debit তখনই লেখা হয়ে গেছে।

gloss-stored_response-term = জমা রাখা উত্তর (stored response)
gloss-stored_response-means = প্রথমবার request সামলানোর সময় server idempotency key-র পাশে যে উত্তরটা রেখে দেয়: status code আর body, রসিদ সহ। একই key নিয়ে retry এলে দ্বিতীয় transfer না করে হুবহু এই উত্তরটাই আবার যায়, ফলে অ্যাপ জানতে পারে প্রথমবার কী হয়েছিল।
gloss-stored_response-where = অধ্যায় ০৪: payments.idempotency_keys প্রতিটা key-র জন্য response_code আর response_body রাখে; timeline replay-কে জমা উত্তর আবার পাঠানো বলে চিহ্নিত করে।

gloss-retry-term = retry (আবার চেষ্টা)
gloss-retry-means = উত্তর আসেনি বা উত্তরে পরে চেষ্টা করতে বলেছে বলে request আবার পাঠানো। Server যদি এটাকে নতুন request থেকে আলাদা করতে পারে তবেই retry নিরাপদ: একই idempotency key থাকলে এটা একই transfer; নতুন key বা key না থাকলে দ্বিতীয় একটা।
gloss-retry-where = অধ্যায় ০১: timeout-এর পর শিমুলের দ্বিতীয় ট্যাপ; button আর app লেনে প্রতিটা পাঠানো দেখা যায়।

gloss-exactly_once-term = exactly-once delivery (ঠিক একবার পৌঁছানো)
gloss-exactly_once-means = যে network জিনিস হারাতে পারে তার ওপর দিয়ে একটা message একবার এবং কেবল একবার পৌঁছে দেওয়া: এটা পাওয়া যায় না, কারণ acknowledgement হারালে পাঠানো পক্ষ জানে না message পৌঁছেছে কি না। তার বদলে বানানো হয় at-least-once delivery আর idempotent processing: effectively-once।
gloss-exactly_once-where = অধ্যায় ০৬: broker-এর acknowledgement হারায়, producer আবার পাঠায়, আর কেবল consumer-এর inbox ফলটাকে একবারে রাখে।

gloss-load_balancer-term = load balancer
gloss-load_balancer-means = API instance-গুলোর সামনের যন্ত্র, যে প্রতিটা request কোনো একটা instance-কে দেয়। কোনো instance উত্তর দিতে দেরি করলে সে একই request আরেকটাকে পাঠাতে পারে: এমন একটা ডুপ্লিকেট যা কোনো ব্যবহারকারী বানায়নি।
gloss-load_balancer-where = অধ্যায় ০৫: load balancer লেনে দেখা যায় request পাঠানো হলো, আর অপেক্ষা ফুরোলে অন্য instance-এ আবার পাঠানো হলো।

gloss-primary_key-term = primary key (unique constraint)
gloss-primary_key-means = Database নিজে যে নিয়ম মানায়: দুটো row-এর এই মান এক হতে পারবে না। একই মুহূর্তে একই key INSERT করতে চাওয়া দুটো request দুজনেই জিততে পারে না; একটা INSERT সফল হয়, অন্যটা ব্যর্থ। তাই ডুপ্লিকেট ধরা হয় INSERT করে, আগে খুঁজে দেখে নয়।
gloss-primary_key-where = অধ্যায় ০৩: atomic claim-এর INSERT payments.idempotency_keys-এ, যার primary key হলো user আর key; দৌড়ে হেরে যাওয়া request বিজয়ীর row পায়।

gloss-ack-term = acknowledgement (ack, প্রাপ্তিস্বীকার)
gloss-ack-means = ছোট্ট উত্তর যা বলে message পৌঁছেছে: producer-কে broker-এর ack, broker-কে consumer-এর offset commit। হারানো ack দেখতে হুবহু হারানো message-এর মতো, তাই পাঠানো পক্ষ আবার পাঠায়, আর গ্রহণকারীকে কপির জন্য তৈরি থাকতে হয়।
gloss-ack-where = অধ্যায় ০৬: broker লেনে ack হারানো চিহ্নিত হয়, আর তার পরের producer-এর আবার পাঠানো।
