//! Test support for the references generated into docs/ (the scenario fields, the result
//! columns): a doc's section between two markers must equal what the code generates, and
//! `NCMESH_UPDATE_DOCS=1` rewrites it instead of failing.

/// Checks that the section of `doc` (a path from the repository root) between `begin`
/// and `end` is `generated`; with NCMESH_UPDATE_DOCS set, writes it there instead.
/// `regenerate` is the command a failure names.
pub(crate) fn check_section(doc: &str, begin: &str, end: &str, generated: &str, regenerate: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(doc);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{doc}: {e}"));
    let (Some(b), Some(e)) = (text.find(begin), text.find(end)) else {
        panic!("{doc}: the markers of the generated section are missing");
    };
    let current = &text[b + begin.len()..e];
    let wanted = format!("\n{}\n", generated.trim());
    if current.trim() == wanted.trim() {
        return;
    }
    if std::env::var_os("NCMESH_UPDATE_DOCS").is_some_and(|v| v != "0") {
        let updated = format!(
            "{}{begin}\n{wanted}{end}{}",
            &text[..b],
            &text[e + end.len()..]
        );
        std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{doc}: {e}"));
        return;
    }
    let first = current
        .trim()
        .lines()
        .zip(wanted.trim().lines())
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    panic!(
        "{doc}: the generated section differs from the code (first at line {} of the section: \
         {:?}); regenerate it: {regenerate}",
        first + 1,
        wanted.trim().lines().nth(first).unwrap_or("")
    );
}
