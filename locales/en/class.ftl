## A class: the instructor's pages and a student's way in (docs/reference.md §10).

home-class-title = In a class?
home-teach = Teaching a class?
home-teach-link = Make a class and watch every student's lab live.

join-code = The class code on the projector
join-submit = Join
join-looking = Looking for the class…
join-no-class-title = No class with this code
join-no-class = No class here has the code { $code }. Check it against the projector (codes never use O, I or S), or ask your instructor: a class ends a week after its last use.
join-front-page = Back to the front page
join-title = Join the class
join-class = Class { $code }. Your instructor sees your progress under this name, nothing else.
join-name = Your name
join-name-hint = As your instructor knows you; up to 40 characters.
join-name-needed = Type a name first.
join-go = Join and start chapter 01

teach-title = Teach a class
teach-what = Each student gets a lab of their own; you see them all on one screen, live: chapter and step, damage meter, last event, and who has not moved for a while.
teach-how-1 = Make the class: a short code, a link and a QR code for the projector.
teach-how-2 = Students open the link or type the code on the front page, give a name, and land in chapter 01.
teach-how-3 = Keep this page open: each row follows its student within a second.
teach-key = Only this browser holds the class's key and can see the view. Students need no account.
teach-create = Make a class

class-opening = Opening the class…
class-refused-title = This class cannot be shown
class-refused-new = Make a new class
class-title = Your class
class-join-say = Join at the front page with this code, or scan:
class-code-label = Class code
class-qr-label = QR code of the join link
class-students-title = Students: { $n }
class-live = Live: each row follows its student.
class-not-live = Not connected; reconnecting…
class-empty = Nobody has joined yet. Put the code on the projector.
class-count-none = not in a chapter yet
class-count-chapter = chapter { $n }
class-order = Order by
class-order-joined = when they joined
class-order-name = name
class-order-chapter = furthest along
class-order-quiet = longest without a step
class-order-harm = harm first
class-col-name = Student
class-col-where = Where
class-col-harm = Damage meter
class-col-last = Last event in their lab
class-col-since = Since their last step
class-where = chapter { $n }, step { $done } of { $total }
class-where-none = opened no chapter yet
class-harm-none = no harm
class-harm-effect = an effect twice
class-harm-money = money wrong
class-harm-stuck = a key stuck
class-last-none = nothing yet
class-since = { $minutes } min
class-stuck = stuck?

fn-error-unknown-class = No class has this code on this server; it may have ended (a week after its last use).
fn-error-not-your-class = Only the browser that made this class can show it.
fn-error-name-taken = Someone in this class has that name already; add an initial or a number.
