# The quiz: Bangla. For each question: -ask, the options -o1 … -oN (for an order question, the items in their right order; the page shuffles them), -right and -wrong.
# কুইজ: প্রতিটি প্রশ্ন, তার বিকল্প (সাজানোর প্রশ্নে ঠিক ক্রমে), ঠিক উত্তরের ব্যাখ্যা, আর চেনা ভুল উত্তরটি কেন টেকে না।

## অধ্যায় ০১: ট্রেনে একটি ট্যাপ

quiz-timeout_means-ask = ট্রেনে শিমুল Send চাপেন। spinner অনেকক্ষণ ঘোরে, তারপর অ্যাপে একটা error আসে। এই error ৳৫০০ সম্পর্কে অ্যাপকে কী জানায়?
quiz-timeout_means-o1 = transfer হয়নি, তাই আবার চাপা নিরাপদ।
quiz-timeout_means-o2 = transfer হয়ে গেছে, তাই দ্বিতীয় চাপ আটকাতে হবে।
quiz-timeout_means-o3 = নিশ্চিত কিছুই না: request হারাতে পারে, আবার টাকা কেটে গিয়ে শুধু উত্তরটাও হারাতে পারে।
quiz-timeout_means-right = অ্যাপ দেখেছে শুধু একটা timeout, আর ফোন থেকে হারানো request আর হারানো উত্তর হুবহু একই রকম দেখায়। timeout থেকে জানা যায় শুধু এটুকু যে ফল অজানা, এর মানে "হয়নি" নয়; তাই প্রতিটি retry নিরাপদ করার দায় সার্ভারের।
quiz-timeout_means-wrong = "হয়নি, আবার চাপি": শিমুল ঠিক এটাই ভেবেছিলেন। কিন্তু debit আগেই হয়ে গিয়েছিল, হারিয়েছিল শুধু উত্তর, তাই দ্বিতীয় চাপে আরও ৳৫০০ কাটল।

quiz-charged_twice-ask = অ্যাপ প্রতিটি চেষ্টায় নতুন key বানায়, আর সার্ভার কোনো key মনে রাখে না। শিমুলের শুরুতে ৳২,০০০। প্রথম চাপে ৳৫০০ debit হয়, কিন্তু উত্তর হারিয়ে যায়; তিনি আবার চাপেন, এবার রসিদ আসে। এখন তাঁর ব্যালান্স কত? টাকার অঙ্কটা লিখুন।
quiz-charged_twice-right = ৳১,০০০। দ্বিতীয় চাপ এল নতুন key নিয়ে, তাই সার্ভার একে নতুন transfer ধরে আরও ৳৫০০ debit করল: এক transfer-এর ইচ্ছায় দুটি debit।
quiz-charged_twice-wrong = ৳১,৫০০, এক transfer-এর পরে শিমুল যা আশা করেছিলেন। চেনার মতো key না থাকলে সার্ভার retry আর নতুন পেমেন্টের তফাত বোঝে না, তাই retry হয়ে যায় দ্বিতীয় debit।

## অধ্যায় ০২: এক key, এক উত্তর

quiz-who_makes_key-ask = Idempotency-Key কে বানায়, আর কখন?
quiz-who_makes_key-o1 = সার্ভার, request পৌঁছানোর সময়।
quiz-who_makes_key-o2 = অ্যাপ, Send চাপার মুহূর্তে, প্রথম চেষ্টার আগেই; ওই transfer-এর প্রতিটি retry সেটাই নিয়ে যায়।
quiz-who_makes_key-o3 = অ্যাপ, প্রতিটি চেষ্টায় নতুন একটা, যাতে প্রতিটি request আলাদা করে চেনা যায়।
quiz-who_makes_key-o4 = load balancer, request এগিয়ে দেওয়ার সময়।
quiz-who_makes_key-right = দুটি request যে একই চেষ্টা, সেটা জানে শুধু অ্যাপ। তাই অ্যাপ প্রথম চেষ্টার আগে একবার key বানায়, রেখে দেয়, আর প্রতিটি retry-তে পাঠায়; শিমুলের পরের transfer নতুন চেষ্টা, তাই সেটা পায় নতুন key।
quiz-who_makes_key-wrong = "সার্ভার বানাবে" শুনতে গোছানো, কিন্তু সার্ভারের কাছে প্রতিটি request-ই নতুন: প্রতিটি retry নিজের আলাদা key পেত, কিছুই কখনো মিলত না। প্রতি চেষ্টায় নতুন key-ও ঠিক একইভাবে ব্যর্থ হয়।

quiz-retry_storm_guard-ask = শিমুল একবার চাপেন। উত্তর হারায়, ফোনের HTTP library দুবার retry করে, আর load balancer request-টি আরেকটি API instance-এ পাঠায়। কোন পাহারা এসবকে একটিই debit-এ রাখে?
quiz-retry_storm_guard-o1 = ব্যস্ত Send বোতাম
quiz-retry_storm_guard-o2 = SMS সার্ভিসের inbox
quiz-retry_storm_guard-o3 = সার্ভার প্রতিটি key মনে রাখে
quiz-retry_storm_guard-o4 = আটকে থাকা key ছাড়ানো
quiz-retry_storm_guard-right = সার্ভার প্রতিটি key মনে রাখে। প্রতিটি কপি একই key নিয়ে আসে, তাই যে instance-এই পৌঁছাক, idempotency_keys-এ key-টি পায়, আর আবার debit না করে জমানো উত্তরটাই ফেরত দেয়।
quiz-retry_storm_guard-wrong = অনেকে ব্যস্ত Send বোতাম বেছে নেন, কিন্তু সেটা আটকায় শুধু আঙুলকে। এই কপিগুলো তৈরি হয় চাপের পরে, library আর load balancer-এর হাতে, যেখানে বোতাম এগুলো দেখতেই পায় না।

quiz-same_key_other_body-ask = অ্যাপের একটা bug শিমুলের ৳৫০০ transfer-এর key দিয়েই ৳৫,০০০-এর request পাঠাল। কোন পাহারা ৪২২ দিয়ে এটা ফিরিয়ে দেয়?
quiz-same_key_other_body-o1 = এক key, এক body
quiz-same_key_other_body-o2 = ledger-এর শেষ পাহারা
quiz-same_key_other_body-o3 = কাজের আগে key দখল
quiz-same_key_other_body-o4 = আটকে থাকা key ছাড়ানো
quiz-same_key_other_body-right = এক key, এক body। সার্ভার key-এর পাশে প্রথম request-এর body-র একটা hash রাখে; একই key-তে অন্য body এলে hash মেলে না, তাই সার্ভার কিছুই চালায় না, উত্তর দেয় ৪২২।
quiz-same_key_other_body-wrong = ledger-এর শেষ পাহারা বেছে নেওয়া সহজ, কিন্তু সেটা ফিরিয়ে দেয় শুধু একই transfer-এর দ্বিতীয় debit; ৳৫,০০০ চাওয়া হয়েছে, সেটা তার চোখেই পড়ে না। hash না থাকলে সার্ভার হয় ৳৫০০-এর জমানো উত্তর ফেরত দেয়, নয়তো নতুন body চালায়।

## অধ্যায় ০৩: একসাথে দুটি request

quiz-look_then_write-ask = একই key নিয়ে দুটি request আসে, ৫০ ms ব্যবধানে। সার্ভার আগে key খুঁজে দেখে, আর key লেখে debit-এর পরে। কী হয়?
quiz-look_then_write-o1 = দ্বিতীয় request key খুঁজে পায়, জমানো উত্তর পায়।
quiz-look_then_write-o2 = কেউ লেখার আগেই দুটিই খোঁজে, দুটিই কিছু পায় না, দুটিই debit করে।
quiz-look_then_write-o3 = প্রথমটি শেষ না হওয়া পর্যন্ত দ্বিতীয়টি অপেক্ষা করে।
quiz-look_then_write-o4 = database দুটিকে মিলিয়ে একটি debit বানায়।
quiz-look_then_write-right = খোঁজা আর লেখা দুটি আলাদা ধাপ, মাঝে একটা ফাঁক, আর দ্বিতীয় request ঠিক সেই ফাঁকেই খোঁজে। তার বদলে INSERT দিয়ে duplicate ধরুন: primary key দুজনের একজনকেই key দখল করতে দেয়, অন্যজন পায় ৪০৯।
quiz-look_then_write-wrong = "দ্বিতীয়টি key পায়" ধরে নেয় প্রথমটি আগেই লিখে ফেলেছে। কিন্তু ৫০ ms-এ প্রথমটি তখনও payment gateway-এর উত্তরের অপেক্ষায়, কিছুই লেখেনি; আর দ্বিতীয়টিকে অপেক্ষা করানোর মতোও কিছু নেই।

quiz-claim_order-ask = atomic claim-এর ধাপগুলো সাজান, request পৌঁছানো থেকে উত্তর পর্যন্ত।
quiz-claim_order-o1 = request তার Idempotency-Key নিয়ে পৌঁছায়।
quiz-claim_order-o2 = key-টি IN_PROGRESS হিসেবে INSERT করে commit; key আগেই নেওয়া থাকলে ৪০৯ দিয়ে থামা।
quiz-claim_order-o3 = ৳৫০০ debit: ledger-এ সারি লেখা।
quiz-claim_order-o4 = উত্তরটা key-এর সঙ্গে জমিয়ে key-কে COMPLETED করা।
quiz-claim_order-o5 = উত্তর ফোনে পাঠানো।
quiz-claim_order-right = কোনো কাজের আগে claim: IN_PROGRESS সারি commit হয়ে গেলে একই key-র দ্বিতীয় request primary key-তে আটকায়, পায় ৪০৯। উত্তর পাঠানোর আগে জমানো হয়, তাই উত্তর হারালেও retry সেটাই ফেরত পায়।
quiz-claim_order-wrong = চেনা ভুলটা হলো আগে debit, পরে key লেখা: সেটা আবার সেই আগে দেখো-পরে লেখো, আর ৫০ ms পিছিয়ে থাকা request ফাঁক গলে ঢুকে পড়ে। জমানোর আগে উত্তর পাঠানোও ভুল: সেই উত্তর হারালে ফেরত দেওয়ার মতো কিছু থাকে না।

## অধ্যায় ০৪: কতক্ষণ মনে রাখা

quiz-window_length-ask = পকেটপে-র অ্যাপ একটা অসমাপ্ত transfer সর্বোচ্চ ২৪ ঘণ্টা ধরে retry করে। সার্ভার key কতক্ষণ রাখবে?
quiz-window_length-o1 = ১ ঘণ্টা: হারানো উত্তরের retry তো কয়েক মিনিটেই আসে।
quiz-window_length-o2 = ঠিক ২৪ ঘণ্টা, সবচেয়ে লম্বা retry-এর সমান।
quiz-window_length-o3 = চিরকাল, নিরাপদে থাকতে।
quiz-window_length-o4 = ৪৮ ঘণ্টা: সবচেয়ে লম্বা retry-এর চেয়ে বেশি, সঙ্গে কিছু বাড়তি।
quiz-window_length-right = window-কে সবচেয়ে লম্বা retry-কেও ছাড়িয়ে যেতে হয়, নইলে দেরির retry নতুন request হয়ে ঢোকে। ৪৮ ঘণ্টায় এক দিনের retry আর এক দিনের বাড়তি দুটোই ঢাকা পড়ে; পকেটপে-র মাপে প্রায় ২ GB key, মোছা হয় এক দিনের পুরো partition একসাথে।
quiz-window_length-wrong = "চিরকাল" সবচেয়ে নিরাপদ মনে হয়, কিন্তু দিনে প্রায় ১ GB মানে বছরে ৩৬৫ GB, আর প্রতিটি INSERT-এ ক্রমশ বড় হওয়া index আপডেট হয়, এমন key-এর জন্য যা দিয়ে কেউ আর retry করবে না। ঠিক ২৪ ঘণ্টায় কোনো বাড়তি থাকে না: দিনের শেষ দিকের retry key মুছে যাওয়ার ঠিক পরেই পৌঁছাতে পারে।

quiz-late_retry_balance-ask = সব পাহারা চালু, window ৪৮ ঘণ্টা। শিমুলের আছে ৳২,০০০, তিনি ৳৫০০ পাঠান; debit হয়, উত্তর হারায়। ৪৯ ঘণ্টা পরে অ্যাপ একই key নিয়ে retry করে। retry-এর পরে শিমুলের ব্যালান্স কত? টাকার অঙ্কটা লিখুন।
quiz-late_retry_balance-right = ৳১,৫০০। ৪৯ ঘণ্টা পরেও key-এর সারি দিন ১-এর partition-এ রয়ে গেছে (একটা দিন drop হয় কেবল তার সবটা window-এর বাইরে গেলে, দিন ৪ শুরুর মধ্যরাতে), কিন্তু সারিটি ৪৮ ঘণ্টার window-এর চেয়ে পুরোনো, তাই claim সেটাকে উপেক্ষা করে, আর API retry-কে নতুন হিসেবে চালায়, দিন ৩-এর partition-এ। কিন্তু transfer_id বানানো হয় একই user আর key থেকে, আর ledger-এর UNIQUE(transfer_id) দ্বিতীয় debit ফিরিয়ে দেয়।
quiz-late_retry_balance-wrong = অনেকে বলেন ৳১,০০০: "window পেরিয়ে গেছে, তাই আবার কাটবে"। ledger-এর UNIQUE বন্ধ থাকলে তা-ই হয়; চালু থাকলে শেষ পাহারা তখনও টিকে থাকে। পুরোনো সারি আগেই মুছে গেছে নাকি শুধু উপেক্ষিত, তাতে কিছু বদলায় না: window পেরোলে idempotency table আর সিদ্ধান্ত দেয় না।

## অধ্যায় ০৫: কিছু কাজ গঠনেই idempotent

quiz-set_or_increment-ask = যে নেটওয়ার্ক ৩০ % request আর উত্তর হারায়, তার ওপর দিয়ে নিচের প্রতিটি লেখা দশবার পাঠানো হলো। কতগুলো কপি পৌঁছাল, তাতে কোনটির ফল বদলায় না?
quiz-set_or_increment-o1 = ব্যালান্সে যা আছে তা থেকে ৳৫০০ কমানো
quiz-set_or_increment-o2 = transfer-এর গোনায় ১ যোগ করা
quiz-set_or_increment-o3 = নাম বসানো: "Shimul Ahmed"
quiz-set_or_increment-o4 = key ছাড়া POST /transfers
quiz-set_or_increment-right = নাম বসানো একটা নির্দিষ্ট মান জায়গামতো রাখে, তাই প্রতিটি কপি একই মান রাখে। টাকার নড়াচড়াকে গঠনেই নিরাপদ করতে INCREMENT-কে SET বা UNIQUE INSERT-এ বদলান, যেমন ledger transfer_id-র key-ওয়ালা সারি লেখে।
quiz-set_or_increment-wrong = "৳৫০০ কমানো" দেখতে একটা সাধারণ update, কিন্তু এটা আগের মানের ওপর ভর করে: যে কপিই পৌঁছায়, আরও ৳৫০০ কাটে। গোনায় ১ যোগ করারও একই দোষ।

## অধ্যায় ০৬: ঠিক একবার ডেলিভারি কেউ দিতে পারে না

quiz-exactly_once_offer-ask = টিমের এক নতুন সদস্য এমন messaging system কিনতে চান, যা প্রতিটি বার্তা ঠিক একবার পৌঁছে দেয়, যাতে inbox আর না লাগে। সৎ উত্তর কী?
quiz-exactly_once_offer-o1 = কিনে ফেলুন: exactly-once ডেলিভারি থাকলে কোনো কপি আসেই না।
quiz-exactly_once_offer-o2 = কোনো নেটওয়ার্ক এটা দিতে পারে না; at-least-once ডেলিভারির সঙ্গে idempotent processing জুড়ুন, তাহলে ফল হয় একবার।
quiz-exactly_once_offer-o3 = at-most-once-এ চলে যান: কিছুই দুবার যায় না, তাই ক্ষতিও নেই।
quiz-exactly_once_offer-right = ack না এলে প্রেরক পারেন হয় আবার পাঠাতে, তাতে কপির ঝুঁকি, নয়তো না পাঠাতে, তাতে হারানোর ঝুঁকি; দুই সেনাপতির গল্প দেখায়, আরও এক দফা বার্তা যোগ করলেও সেই সন্দেহ যায় না। যা পাওয়া যায় তা effectively-once: at-least-once ডেলিভারি আর idempotent processing, যেমন inbox।
quiz-exactly_once_offer-wrong = "exactly-once কিনে ফেলি" লোভনীয় উত্তর, কিন্তু এমন দাবির মানে পণ্যের নিজের সীমানার ভেতরে ঠিক একবার ফল, ডেলিভারি নয়: কপি তবু আসে, আর কিছু একটাকে সেগুলো নিরীহ করতে হয়। at-most-once duplicate-এর বদলে টাকা হারায়।

quiz-at_most_once_loses-ask = at-most-once: outbox নেই, আর শিমুলের debit commit করার ঠিক পরে, TransferDone প্রকাশের আগেই API মারা যায়। event আর কেউ পাঠায় না। তিথির কী হয়?
quiz-at_most_once_loses-o1 = তিনি কখনো টাকা পান না: শিমুলের ৳৫০০ কাটল, পৌঁছাল না কারও কাছে।
quiz-at_most_once_loses-o2 = তিনি একবার পান, একটু দেরিতে।
quiz-at_most_once_loses-o3 = তিনি দুবার পান।
quiz-at_most_once_loses-right = at-most-once-এ হারানো বার্তা হারানোই থাকে: debit commit হয়েছে, কিন্তু event ছিল শুধু মরে যাওয়া process-এর memory-তে, তাই wallet কখনো খবর পায় না। outbox এর সমাধান: event লেখা হয় debit-এর নিজের transaction-এ, আর পাঠানো হয়েছে বলে চিহ্ন না পড়া পর্যন্ত relay সেটা পাঠাতে থাকে।
quiz-at_most_once_loses-wrong = "একবার, একটু দেরিতে" ধরে নেয় কেউ event আবার পাঠাবে; at-most-once মানে কেউ পাঠায় না। এভাবে duplicate এড়ানোর দাম হলো টাকা হারানো।

## অধ্যায় ০৭: broker-এর ভেতরে

quiz-audit_outside_log-ask = fraud check চলে idempotent producer আর transaction নিয়ে। সে approved event লেখে, নিজের database-এ একটা audit সারিও লেখে, তারপর commit-এর আগে crash করে; তার transaction বাতিল হয়, আর সে আবার চলে। audit সারিটির কী হয়?
quiz-audit_outside_log-o1 = বাতিল transaction-এর সঙ্গে সেটাও মুছে যায়: একটিই সারি।
quiz-audit_outside_log-o2 = idempotent producer দ্বিতীয়টি ফেলে দেয়।
quiz-audit_outside_log-o3 = সেটা দ্বিতীয়বার লেখা হয়: audit সারি log-এর বাইরে, transaction সেটা ফেরাতে পারে না।
quiz-audit_outside_log-right = broker-এর transaction ঢাকে শুধু log-এর লেখা আর offset, আর কিছু নয়। read_committed পাঠক বাতিল approved event কখনো দেখে না, কিন্তু audit সারি ততক্ষণে আরেকটা database-এ লেখা হয়ে গেছে। log-এর বাইরের কাজের নিজস্ব idempotency লাগে, যেমন event id-র key-ওয়ালা inbox।
quiz-audit_outside_log-wrong = "transaction-এর সঙ্গে মুছে যায়" প্রচলিত বিশ্বাস, কিন্তু guarantee থেমে যায় log-এর সীমানায়। idempotent producer ফেলে দেয় শুধু log-এ আবার পাঠানো batch, অন্য store-এর সারি নয়।

## অধ্যায় ০৮: consumer-এর inbox

quiz-inbox_order-ask = inbox চালু রেখে একটি TransferDone event-এর জন্য wallet সার্ভিসের ধাপগুলো সাজান।
quiz-inbox_order-o1 = TransferDone তার event_id নিয়ে পৌঁছায়।
quiz-inbox_order-o2 = একটি local transaction শুরু।
quiz-inbox_order-o3 = event_id inbox-এ INSERT; কপি হলে এখানেই ব্যর্থ, আর transaction বাতিল।
quiz-inbox_order-o4 = তিথির ব্যালান্সে ৳৫০০ যোগ।
quiz-inbox_order-o5 = local transaction commit।
quiz-inbox_order-o6 = log-এ offset commit।
quiz-inbox_order-right = inbox সারি আর জমা একই local transaction-এ, তাই দুটোই হয় অথবা কোনোটাই না, আর কপি থামে তার INSERT-এ। transaction-এর ভেতরে এ দুটোর কোনটা আগে, তাতে কিছু যায় আসে না, তাই দুই ক্রমই ঠিক ধরা হয়: commit-এর আগে কিছুই টিকে থাকে না, আর কপির INSERT ব্যর্থ হলে rollback তার আগে করা জমাটাও ফিরিয়ে নেয়। আসল কথা চারপাশের কাঠামো: transaction শুরু হয় দুটোর আগে, commit হয় দুটোর পরে। offset আসে সবার শেষে: তার ঠিক আগে crash হলে event শুধু আবার পড়া হয়, আর inbox সেটা বাদ দেয়।
quiz-inbox_order-wrong = আগে offset commit করা চেনা ভুল: তার ঠিক পরে crash হলে জমাটা চিরতরে হারায়। inbox-এর transaction-এর বাইরে জমা করাও ভুল: দুইয়ের মাঝে crash হলে জমা থেকে যায় inbox সারি ছাড়া, আর কপিটা আবার জমা হয়।

quiz-relay_twice_credit-ask = inbox বন্ধ, তিথির আছে ৳০। relay শিমুলের ৳৫০০-এর TransferDone প্রকাশ করে, আর পাঠানো হয়েছে বলে চিহ্ন দেওয়ার আগেই crash করে; ফিরে এসে আবার প্রকাশ করে। দুটি কপিই পড়া হলে তিথির ব্যালান্স কত? টাকার অঙ্কটা লিখুন।
quiz-relay_twice_credit-right = ৳১,০০০। wallet সার্ভিস যে ডেলিভারিই পড়ে, জমা করে, আর দ্বিতীয়টি যে কপি, তা তাকে কেউ বলে না। শিমুল দিয়েছেন ৳৫০০, তাই বাকি ৳৫০০ পকেটপে দেয় নিজের পকেট থেকে।
quiz-relay_twice_credit-wrong = ৳৫০০, "কারণ outbox তো নিরাপদ করে"। outbox event হারাতে দেয় না, কিন্তু দুবার যাওয়া আটকায় না: প্রকাশ আর চিহ্ন দেওয়ার মাঝে relay crash করলে event আবার যায়। consumer-এর inbox লাগে।

quiz-replay_window-ask = log event রাখে ৭ দিন। একটা bug ঠিক করতে টিম wallet-এর consumer-কে ৫ দিন আগে থেকে replay করে। কারও টাকা যেন দুবার জমা না হয়, তার জন্য inbox-কে event id কতদিন মনে রাখতে হবে?
quiz-replay_window-o1 = ২৪ ঘণ্টা, এক দিনের retry-এর মতো।
quiz-replay_window-o2 = অন্তত ৭ দিন, log-এর retention।
quiz-replay_window-o3 = ৪৮ ঘণ্টা, API-র key-এর মতো।
quiz-replay_window-o4 = একদমই না: replay তো duplicate নয়।
quiz-replay_window-right = log-এ যা এখনও আছে, replay তার সবই ফিরিয়ে আনতে পারে, তাই inbox-কে অন্তত retention-এর সমান, ৭ দিন, মনে রাখতে হয়। তাহলে replay-এর প্রতিটি event নিজের id খুঁজে পায়, আর বাদ পড়ে।
quiz-replay_window-wrong = ২৪ ঘণ্টা চেনা সেটিং, আর ঠিক সেটাই ফাঁদ: ১ থেকে ৫ দিন পুরোনো event-গুলো inbox-এ আর নেই, তাই replay সেগুলো আবার জমা করে।

## অধ্যায় ০৯: বোতাম থেকে database পর্যন্ত

quiz-no_single_layer-ask = payment API-র key table এখন কাজ করছে। এক সহকর্মী খাটুনি বাঁচাতে ব্যস্ত Send বোতাম, ledger-এর UNIQUE আর inbox-গুলো সরিয়ে দিতে চান। আপনি কী বলবেন?
quiz-no_single_layer-o1 = সবই রাখুন: প্রতিটি স্তর এমন কপি আটকায়, যা অন্যরা দেখতেই পায় না।
quiz-no_single_layer-o2 = ঠিক আছে: key table সব duplicate ধরে।
quiz-no_single_layer-o3 = শুধু inbox রাখুন: duplicate তো জন্মায় broker-এ।
quiz-no_single_layer-o4 = শুধু ledger-এর UNIQUE রাখুন: শেষ পাহারা তো ওটাই।
quiz-no_single_layer-right = relay-র দ্বিতীয় TransferDone key table কখনো দেখে না, double tap inbox কখনো দেখে না, আর ওপরের স্তরের bug-এর জন্যই ledger আছে। একটা স্তরের ভরসায় থাকবেন না: বোতাম, API, database আর consumer প্রত্যেকে আলাদা duplicate থামায়।
quiz-no_single_layer-wrong = "key table সব ধরে" ভেঙে পড়ে যখনই কপি জন্মায় API-র পরে: relay-তে, broker-এ বা replay-তে, যেখানে তিথির টাকা দুবার জমা হয় আর table টেরও পায় না।

quiz-storm_guard-ask = ঝড়ের মধ্যে wallet সার্ভিস তিথির জমা commit করে, আর offset commit-এর আগে crash করে। আবার চালু হয়ে সে একই TransferDone আবার পড়ে। কোন পাহারা দ্বিতীয় জমা থামায়?
quiz-storm_guard-o1 = সার্ভার প্রতিটি key মনে রাখে
quiz-storm_guard-o2 = log আবার পাঠানো batch ফেলে দেয়
quiz-storm_guard-o3 = ledger-এর শেষ পাহারা
quiz-storm_guard-o4 = wallet-এর inbox
quiz-storm_guard-right = wallet-এর inbox। event_id জমার একই local transaction-এ INSERT হয়েছিল, তাই দ্বিতীয়বার পড়া inbox-এর INSERT-এ ব্যর্থ হয়, commit হয় শুধু offset।
quiz-storm_guard-wrong = "log আবার পাঠানো batch ফেলে দেয়" অনেকে বেছে নেন, কিন্তু log-এ কিছুই আবার পাঠানো হয়নি: একই record সেখান থেকে আবার পড়া হয়েছে, যা producer-এর পাহারা কখনো দেখে না। API-র key table আর ledger বসে broker-এর আগে, তারাও এটা দেখে না।
