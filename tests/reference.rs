//! The reference names every test id the screens carry (docs/reference.md §9 and §10), so a
//! test written from outside needs nothing beside it: each `data-testid` written in `src/app`
//! (or handed to a component as its `testid`) is in the reference in backticks, and each id
//! built at run time is there as its pattern; and the other way round, every id-like name the
//! reference gives is in the code. A new id the reference does not name, a built one this file
//! does not know, or a name the screens no longer have, fails here.
//! Run: `cargo test --features ssr --test reference`.

use std::path::Path;

/// The ids built at run time, as the code builds them, and the pattern the reference writes
/// for each (`<…>` for the part that varies).
const BUILT: &[(&str, &str)] = &[
    ("format!(\"{place}fault-{id}\")", "`fault-<id>`"),
    (
        "let input_id = format!(\"{place}fault-{id}\")",
        "`fault-<id>`",
    ),
    (
        "let input_id = format!(\"safeguard-{id}\")",
        "`safeguard-<id>`",
    ),
    ("let select_id = format!(\"crash-{id}\")", "`crash-<point>`"),
    ("format!(\"table-{name}\")", "`table-<store>.<table>`"),
    (
        "format!(\"lane-count-{}\", layer.id())",
        "`lane-count-<layer>`",
    ),
    ("format!(\"natural-way-{id}\")", "`natural-way-<op>`"),
    ("format!(\"natural-{id}\")", "`natural-<op>`"),
    (
        "format!(\"natural-arrived-{id}\")",
        "`natural-arrived-<op>`",
    ),
    ("format!(\"natural-after-{id}\")", "`natural-after-<op>`"),
    ("format!(\"day-scale-{s}\")", "`day-scale-<N>`"),
    ("preset.testid(chapter)", "`preset-load-<N>-<variant>`"),
];

/// The expressions that hand an id on without building it (a prop or a variable holding
/// one of the ids above, or of the literal ones a caller passes).
const HANDED: &[&str] = &["testid", "input_id.clone()", "select_id", "input_id"];

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), text));
        }
    }
}

/// The literal ids: `data-testid="…"` and a component's `testid="…"`.
fn literal_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for (i, _) in text.match_indices("testid") {
        let rest = &text[i + "testid".len()..];
        let rest = rest.trim_start_matches([' ', '=', ':']);
        if !text[..i].ends_with("data-") && !text[..i].ends_with(' ') {
            continue;
        }
        if let Some(body) = rest.strip_prefix('"') {
            if let Some(end) = body.find('"') {
                ids.push(body[..end].to_owned());
            }
        }
    }
    ids
}

#[test]
fn every_test_id_of_the_screens_is_in_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reference = std::fs::read_to_string(root.join("docs/reference.md")).unwrap();
    let mut files = Vec::new();
    sources(&root.join("src/app"), &mut files);
    let mut missing = Vec::new();
    let mut unknown = Vec::new();
    let mut literal = 0;
    for (file, text) in &files {
        for id in literal_ids(text) {
            literal += 1;
            if !reference.contains(&format!("`{id}`")) {
                missing.push(format!("{file}: `{id}`"));
            }
        }
        // Every other `data-testid=` is built or handed on: known here, its pattern named.
        for (i, _) in text.match_indices("data-testid=") {
            let rest = &text[i + "data-testid=".len()..];
            if rest.starts_with('"') || rest.starts_with("\\\"") {
                continue;
            }
            let expr: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '>')
                .collect();
            if HANDED.contains(&expr.as_str()) {
                continue;
            }
            match BUILT
                .iter()
                .find(|(code, _)| code.starts_with(&expr) || *code == expr)
            {
                Some((_, pattern)) if reference.contains(pattern) => {}
                Some((_, pattern)) => missing.push(format!("{file}: {pattern}")),
                None => unknown.push(format!("{file}: data-testid={expr}")),
            }
        }
    }
    // The ids held in variables are built where the variable is made.
    for (code, pattern) in BUILT.iter().filter(|(c, _)| c.starts_with("let ")) {
        assert!(
            files.iter().any(|(_, t)| t.contains(code)),
            "this file lists an id the code no longer builds: {code}"
        );
        if !reference.contains(pattern) {
            missing.push(format!("{code}: {pattern}"));
        }
    }
    assert!(
        literal > 200,
        "the scan found only {literal} ids: is it reading src/app?"
    );
    assert!(
        unknown.is_empty(),
        "ids built in a way this test does not know (add them to BUILT with their pattern): {unknown:#?}"
    );
    assert!(
        missing.is_empty(),
        "test ids the reference does not name (docs/reference.md §9): {missing:#?}"
    );
}

#[test]
fn the_scan_reads_ids_as_written() {
    assert_eq!(
        literal_ids(r#"<b data-testid="send-button" class="x"> <F testid="calc-x" />"#),
        ["send-button", "calc-x"]
    );
    assert!(literal_ids(r#"query_selector("[data-testid=\"x\"]")"#).is_empty());
    assert!(literal_ids(r#"fn f(testid: &'static str)"#).is_empty());
}

/// Every name of §9 and §10 written like an id (lowercase words joined by hyphens, in
/// backticks: a test id, an attribute, a state, a problem type) is in the code or the style
/// sheet as written: the reference names nothing the screens no longer have.
#[test]
fn every_id_the_reference_names_is_in_the_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reference = std::fs::read_to_string(root.join("docs/reference.md")).unwrap();
    let start = reference.find("## 9.").expect("the reference has §9");
    let mut code = String::new();
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    for (_, text) in files {
        code.push_str(&text);
    }
    code.push_str(&std::fs::read_to_string(root.join("style/main.css")).unwrap());
    let mut gone = Vec::new();
    let mut named = 0;
    for piece in reference[start..].split('`').skip(1).step_by(2) {
        let id_like = piece.contains('-')
            && piece.split('-').all(|w| {
                !w.is_empty()
                    && w.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            })
            && piece.starts_with(|c: char| c.is_ascii_lowercase());
        if !id_like {
            continue;
        }
        named += 1;
        if !code.contains(piece) && !gone.contains(&piece) {
            gone.push(piece);
        }
    }
    assert!(
        named > 300,
        "the scan found only {named} names: is it reading §9?"
    );
    assert!(
        gone.is_empty(),
        "names the reference gives that nothing in src/ or style/ has: {gone:?}"
    );
}

/// §7's table of presets is what `POST …/scenario/{n}` sets: for every scenario and variant,
/// the safeguards it switches and the faults it sets, as the API's bodies write them.
#[test]
fn the_presets_table_says_what_each_preset_sets() {
    use pocketpay_lab::domain::scenario::{preset, Variant, SCENARIOS};
    let reference =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md"))
            .unwrap();
    let json = |v: serde_json::Value| match v.as_object().map(|o| o.is_empty()) {
        Some(true) => "—".to_owned(),
        _ => format!("`{v}`"),
    };
    let mut missing = Vec::new();
    for n in SCENARIOS {
        for variant in [Variant::Guarded, Variant::Unguarded, Variant::AtMostOnce] {
            let Some(p) = preset(n, variant) else {
                continue;
            };
            let line = format!(
                "| {n} | `{}` | {} | {} | {} |",
                serde_json::to_value(variant).unwrap().as_str().unwrap(),
                p.seed,
                json(serde_json::to_value(&p.safeguards).unwrap()),
                json(serde_json::to_value(&p.faults).unwrap()),
            );
            if !reference.contains(&line) {
                missing.push(line);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/reference.md §7 lacks these rows:\n{}",
        missing.join("\n")
    );
}
