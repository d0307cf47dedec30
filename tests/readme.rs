//! The README's "The API by hand", run as written. Every fenced `bash` block of that section
//! (up to "Settings and limits") runs, in order, in one bash session against a real server, its
//! `http://127.0.0.1:3000` pointed at that server. A line whose comment starts `# →` must print
//! what the comment says: each word before the first one in parentheses, in order (`# → 201
//! "TXN-88412"` wants a 201 and then the receipt's TXN). Any command that fails (a `curl -f`
//! refused, a `grep` that finds nothing) fails the test too, except a stream that `curl -m`
//! cut off. A README command that stops working fails CI.
//!
//! In `scripts/test.sh`, against the release server:
//! `README_SERVER=target/release/pocketpay-lab cargo test --features ssr --test readme -- --ignored`.
//! Without `README_SERVER` it runs this build's server.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::TestLab;

/// The README's section that is run, from its heading to the next `## ` heading.
const SECTION: &str = "## The API by hand";
/// The address the README's commands name.
const README_ADDR: &str = "http://127.0.0.1:3000";
/// What bash prints around each statement's output, with the README line it starts on.
const BEGIN: &str = "@@readme-begin ";
const END: &str = "@@readme-end ";
const FAILED: &str = "@@readme-failed ";

/// One complete shell statement of a block: where it starts in the README, its text (maybe
/// several lines), and what its `# →` comment expects it to print.
#[derive(Debug)]
struct Statement {
    line: usize,
    text: String,
    expects: Vec<String>,
}

/// The section's bash blocks, as statements in order.
fn statements(readme: &str) -> Vec<Statement> {
    let start = readme
        .find(SECTION)
        .expect("the README has its API section");
    let section = &readme[start..];
    let end = section[SECTION.len()..]
        .find("\n## ")
        .map_or(section.len(), |e| e + SECTION.len());
    let first_line = readme[..start].lines().count() + 1;
    let mut out = vec![];
    let mut in_block = false;
    let mut open: Option<(usize, String)> = None;
    for (i, line) in section[..end].lines().enumerate() {
        let number = first_line + i;
        if line.trim_start().starts_with("```") {
            assert!(
                open.is_none(),
                "README line {number}: a statement runs out of its block"
            );
            in_block = !in_block && line.trim() == "```bash";
            continue;
        }
        if !in_block {
            continue;
        }
        let (_, text) = open.get_or_insert_with(|| (number, String::new()));
        text.push_str(line);
        text.push('\n');
        let scanned = scan(text);
        if scanned.complete {
            let (line, text) = open.take().unwrap();
            let expects = scanned
                .comments
                .iter()
                .filter_map(|c| c.trim_start().strip_prefix('→'))
                .flat_map(|e| e.split_whitespace().take_while(|w| !w.starts_with('(')))
                .map(str::to_owned)
                .collect();
            out.push(Statement {
                line,
                text,
                expects,
            });
        }
    }
    assert!(
        open.is_none(),
        "the README's last statement is not complete"
    );
    out
}

/// What bash would make of some lines: their comments (each `#` that starts a word outside
/// quotes, to the end of its line), and whether they are a whole command (no quote left open,
/// the last line not continued with `\`).
struct Scanned {
    comments: Vec<String>,
    complete: bool,
}

fn scan(text: &str) -> Scanned {
    let (mut single, mut double, mut escaped) = (false, false, false);
    let mut comments = vec![];
    let mut comment: Option<String> = None;
    let mut previous = '\n';
    let mut continued = false;
    for c in text.chars() {
        if let Some(open) = comment.as_mut() {
            if c == '\n' {
                comments.push(comment.take().unwrap());
            } else {
                open.push(c);
            }
            previous = c;
            continue;
        }
        continued = false;
        match c {
            _ if escaped => {
                escaped = false;
                continued = c == '\n';
            }
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => comment = Some(String::new()),
            _ => {}
        }
        previous = c;
    }
    comments.extend(comment);
    Scanned {
        comments,
        complete: !single && !double && !continued && !escaped,
    }
}

/// The script bash runs: each statement between markers, and a trap that reports a failed
/// command with its status.
fn script(statements: &[Statement], base: &str) -> String {
    let mut s = String::from("trap 'echo \"@@readme-failed $? $BASH_COMMAND\"' ERR\n");
    for st in statements {
        s.push_str(&format!("echo '{BEGIN}{}'\n", st.line));
        s.push_str(&st.text.replace(README_ADDR, base));
        s.push_str(&format!("echo '{END}{}'\n", st.line));
    }
    s
}

/// What went wrong with one statement, if anything: an expected word missing (in order), or a
/// command that failed.
fn check(st: &Statement, output: &str) -> Option<String> {
    let failures: Vec<&str> = output
        .lines()
        .filter_map(|l| l.strip_prefix(FAILED))
        // A stream cut off by `curl -m` ends with curl's 28, as the README says it will.
        .filter(|f| !(f.starts_with("28 ") && f.contains("curl -sN -m")))
        .collect();
    if !failures.is_empty() {
        return Some(format!("a command failed: {}", failures.join("; ")));
    }
    let mut rest = output;
    for word in &st.expects {
        match rest.find(word.as_str()) {
            Some(at) => rest = &rest[at + word.len()..],
            None => return Some(format!("expected {word:?} (in order)")),
        }
    }
    None
}

fn server_binary() -> PathBuf {
    match std::env::var_os("README_SERVER") {
        Some(path) => {
            std::fs::canonicalize(&path).unwrap_or_else(|e| panic!("README_SERVER {path:?}: {e}"))
        }
        None => PathBuf::from(env!("CARGO_BIN_EXE_pocketpay-lab")),
    }
}

#[test]
fn the_statements_are_found_whole() {
    let readme = "x\n## The API by hand\n```bash\nA=1\nsend() { echo \\\n  $1; }   # → 1\nput '{\"a\":\n  1}'  # → \"a\" (what's put)\necho '#' x # → # x\n```\n## Next\n```bash\nnot run\n```\n";
    let st = statements(readme);
    assert_eq!(st.len(), 4, "{st:?}");
    assert_eq!((st[0].line, st[0].text.as_str()), (4, "A=1\n"));
    assert_eq!(st[1].line, 5);
    assert_eq!(st[1].expects, ["1"]);
    assert_eq!(st[2].expects, ["\"a\""]);
    assert_eq!(st[3].expects, ["#", "x"]);
    assert!(check(&st[3], "# x\n").is_none());
    assert!(check(&st[3], "x #\n").is_some(), "order counts");
    assert!(check(&st[0], "@@readme-failed 22 put a\n").is_some());
}

/// Every command of the README's API section does what its comment says, against a real
/// server with the default settings (the bound on a transfer's wait included).
#[tokio::test]
#[ignore = "runs in scripts/test.sh against the release server (README_SERVER)"]
async fn the_readme_api_commands_work_as_written() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md reads");
    let statements = statements(&readme);
    let checked = statements.iter().filter(|s| !s.expects.is_empty()).count();
    assert!(
        checked >= 35,
        "only {checked} README lines say what they print"
    );
    // The settings as a fresh server has them: the README describes the defaults.
    let lab = TestLab::start_binary(&server_binary(), &[("LAB_TRANSFER_WAIT_SECS", "10")]).await;
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), script(&statements, &lab.base)).unwrap();
    let run = tokio::process::Command::new("bash")
        .arg(file.path())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(600), run)
        .await
        .expect("the README's commands end within 10 minutes")
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut problems = vec![];
    for st in &statements {
        let begin = format!("{BEGIN}{}\n", st.line);
        let end = format!("{END}{}\n", st.line);
        let Some(from) = stdout.find(&begin).map(|b| b + begin.len()) else {
            problems.push(format!("README line {}: never ran", st.line));
            continue;
        };
        let Some(to) = stdout[from..].find(&end).map(|e| from + e) else {
            problems.push(format!("README line {}: did not finish", st.line));
            continue;
        };
        let printed = &stdout[from..to];
        if let Some(why) = check(st, printed) {
            let shown: String = printed.chars().take(600).collect();
            problems.push(format!(
                "README line {}: {why}\n  ran: {}\n  printed: {shown}",
                st.line,
                st.text.trim_end().replace('\n', "\n       ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} README statements went wrong (stderr: {}):\n{}",
        problems.len(),
        statements.len(),
        String::from_utf8_lossy(&output.stderr),
        problems.join("\n")
    );
    println!(
        "README: {} statements ran, {checked} checked against what they print",
        statements.len()
    );
}
