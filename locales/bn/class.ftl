## ক্লাস: শিক্ষকের পাতা আর শিক্ষার্থীর ঢোকার পথ (docs/reference.md §10)।

home-class-title = ক্লাসে আছেন?
home-teach = ক্লাস নিচ্ছেন?
home-teach-link = ক্লাস বানিয়ে প্রত্যেকের ল্যাব সরাসরি দেখুন।

join-code = প্রজেক্টরে দেখানো ক্লাস কোড
join-submit = যোগ দিন
join-looking = ক্লাসটা খোঁজা হচ্ছে…
join-no-class-title = এই কোডে কোনো ক্লাস নেই
join-no-class = এখানে { $code } কোডের কোনো ক্লাস নেই। প্রজেক্টরের সঙ্গে মিলিয়ে দেখুন (কোডে O, I, S থাকে না), নয়তো শিক্ষককে জিজ্ঞেস করুন: শেষ ব্যবহারের এক সপ্তাহ পরে ক্লাস শেষ হয়।
join-front-page = প্রথম পাতায় ফিরুন
join-title = ক্লাসে যোগ দিন
join-class = ক্লাস { $code }। শিক্ষক এই নামে আপনার অগ্রগতি দেখবেন, আর কিছু নয়।
join-name = আপনার নাম
join-name-hint = শিক্ষক যে নামে চেনেন; ৪০ অক্ষর পর্যন্ত।
join-name-needed = আগে একটা নাম লিখুন।
join-go = যোগ দিয়ে অধ্যায় ০১ শুরু করুন

teach-title = ক্লাস নিন
teach-what = প্রত্যেক শিক্ষার্থী নিজের ল্যাব পায়; আপনি সবাইকে এক পর্দায় সরাসরি দেখেন: অধ্যায় ও ধাপ, damage meter, শেষ ঘটনা, আর কে অনেকক্ষণ থেমে আছে।
teach-how-1 = ক্লাস বানান: প্রজেক্টরের জন্য ছোট কোড, লিংক আর QR কোড।
teach-how-2 = শিক্ষার্থীরা লিংক খোলে বা প্রথম পাতায় কোড লেখে, নাম দেয়, আর অধ্যায় ০১-এ পৌঁছায়।
teach-how-3 = পাতাটা খোলা রাখুন: প্রতিটা সারি এক সেকেন্ডের মধ্যে তার শিক্ষার্থীর সঙ্গে এগোয়।
teach-key = ক্লাসের চাবি শুধু এই browser-এ, তাই শুধু এটাই ক্লাসের পাতা দেখে। শিক্ষার্থীদের account লাগে না।
teach-create = ক্লাস বানান

class-opening = ক্লাস খোলা হচ্ছে…
class-refused-title = এই ক্লাস দেখানো যাচ্ছে না
class-refused-new = নতুন ক্লাস বানান
class-title = আপনার ক্লাস
class-join-say = প্রথম পাতায় এই কোড দিয়ে যোগ দিন, অথবা স্ক্যান করুন:
class-code-label = ক্লাস কোড
class-qr-label = যোগ দেওয়ার লিংকের QR কোড
class-students-title = শিক্ষার্থী: { $n }
class-live = সরাসরি: প্রতিটা সারি তার শিক্ষার্থীর সঙ্গে এগোয়।
class-not-live = সংযোগ নেই; আবার জোড়া লাগানো হচ্ছে…
class-empty = এখনো কেউ যোগ দেয়নি। কোডটা প্রজেক্টরে দেখান।
class-count-none = এখনো কোনো অধ্যায়ে নয়
class-count-chapter = অধ্যায় { $n }
class-order = সাজান
class-order-joined = যোগ দেওয়ার ক্রমে
class-order-name = নামে
class-order-chapter = সবচেয়ে এগিয়ে যে
class-order-quiet = সবচেয়ে বেশিক্ষণ থেমে যে
class-order-harm = ক্ষতি আগে
class-col-name = শিক্ষার্থী
class-col-where = কোথায়
class-col-harm = Damage meter
class-col-last = তার ল্যাবে শেষ ঘটনা
class-col-since = শেষ ধাপের পর
class-where = অধ্যায় { $n }, ধাপ { $total }-এর { $done }
class-where-none = এখনো কোনো অধ্যায় খোলেনি
class-harm-none = ক্ষতি নেই
class-harm-effect = একটা কাজ দুবার
class-harm-money = টাকার হিসাব ভুল
class-harm-stuck = একটা key আটকে আছে
class-last-none = এখনো কিছু নয়
class-since = { $minutes } মিনিট
class-stuck = আটকে গেছে?

fn-error-unknown-class = এই server-এ এই কোডের ক্লাস নেই; হয়তো শেষ হয়ে গেছে (শেষ ব্যবহারের এক সপ্তাহ পরে)।
fn-error-not-your-class = যে browser ক্লাসটা বানিয়েছে, শুধু সেটাই এটা দেখাতে পারে।
fn-error-name-taken = এই ক্লাসে এই নাম আগেই আছে; একটা অক্ষর বা সংখ্যা যোগ করুন।
