//! The front page: what the lab is, and the way in.

use leptos::prelude::*;

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <section class="hero panel">
            <h1>"একবার ট্যাপ করুন বা দশবার — টাকা যাবে একবারই"</h1>
            <p>
                "ট্রেনে দুর্বল নেটওয়ার্কে শিমুল পকেটপে অ্যাপ থেকে বোন তিথিকে ৳৫০০ পাঠায়। "
                "প্রথম request সার্ভারে পৌঁছে কাজও করে, কিন্তু উত্তরটা পথে হারিয়ে যায়। "
                "শিমুল আবার চাপ দেয় — আর টাকা কাটে দুবার।"
            </p>
            <p>
                "এই ল্যাবে প্রতিটি স্তর সত্যিকারের কোড, সত্যিকারের database-এ চলে: Send বোতাম থেকে "
                "payment API, ledger, outbox, Kafka-ধাঁচের broker হয়ে তিথির wallet আর SMS পর্যন্ত। "
                "কোথায় duplicate জন্মায় আর কোন guard তাকে ধরে, নিজের চোখে দেখুন; guard বন্ধ করে ক্ষতিটাও দেখুন।"
            </p>
            <a class="button primary" href="/lab" rel="external">"ল্যাব খুলুন"</a>
        </section>
        <section class="panel">
            <h2>"প্রতিটি ল্যাব আলাদা"</h2>
            <p>
                "প্রত্যেক ব্রাউজার পায় নিজের sandbox: নিজের database, নিজের ঘড়ি, নিজের seed। "
                "একই seed আর একই ক্রিয়া দিলে timeline হুবহু একই হয়, তাই প্রতিটি race আবার চালিয়ে দেখা যায়।"
            </p>
        </section>
    }
}
