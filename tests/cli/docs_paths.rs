//! The documentation's paths exist: README.md and every `docs/*.md` page
//! name source files, tests and scripts; when one is moved or renamed the
//! page goes stale silently. This test reads every page and fails listing
//! each repository path that does not exist.
//!
//! What counts as a path: a word inside a code span or a fenced code block,
//! or a markdown link target, that starts with `src/`, `arch/`, `tests/`,
//! `testprogs/`, `benches/`, `fuzz/`, `docs/` or `.ci/`. Words are resolved
//! against the repository root; link targets against the page's directory
//! (as a markdown viewer resolves them), so every relative link is checked
//! too. Trailing punctuation, `:LINE` suffixes and `#anchors` are dropped;
//! `{a,b}` alternatives are expanded; a `*`/`?` in the last component must
//! match an entry of its directory, elsewhere the directory before it must
//! exist.
//!
//! Also: README.md stays short (at most [`README_MAX_LINES`] lines) and
//! links every `docs/*.md` page.
//!
//! Self-contained (no `tests/common`) and quick: it reads a few files.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest README.md allowed: a newcomer's page, details in docs/.
const README_MAX_LINES: usize = 320;

/// Words starting with one of these name a file or directory of the repository.
const PREFIXES: &[&str] = &[
    "src/",
    "arch/",
    "tests/",
    "testprogs/",
    "benches/",
    "fuzz/",
    "docs/",
    ".ci/",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and `docs/*.md`, sorted.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut v = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    docs.sort();
    v.extend(docs);
    v
}

/// Where a candidate was found and how to resolve it.
#[derive(Debug)]
struct Candidate {
    /// 1-based line of the page.
    line: usize,
    /// The text as found.
    text: String,
    /// A link target (resolved against the page's directory) rather than a
    /// word of code (resolved against the repository root).
    link: bool,
}

/// Code words (spans and fenced blocks) and link targets of a markdown page.
fn candidates(text: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    // Inline text outside fences, with the line each byte came from.
    let mut inline = String::new();
    let mut inline_lines: Vec<usize> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim_start();
        if let Some(f) = &fence {
            if trimmed.starts_with(f.as_str())
                && trimmed.trim_start_matches(['`', '~']).trim().is_empty()
            {
                fence = None;
            } else {
                for w in line.split(|c: char| c.is_whitespace() || "\"'=<>|;()[]".contains(c)) {
                    out.push(Candidate {
                        line: n,
                        text: w.to_string(),
                        link: false,
                    });
                }
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let c = trimmed.chars().next().unwrap();
            let len = trimmed.chars().take_while(|&x| x == c).count();
            fence = Some(c.to_string().repeat(len));
            // A paragraph ends at a fence: no code span runs across it.
            inline.push('\n');
            inline_lines.push(n);
            inline.push('\n');
            inline_lines.push(n);
            continue;
        }
        for _ in line.bytes() {
            inline_lines.push(n);
        }
        inline.push_str(line);
        inline.push('\n');
        inline_lines.push(n);
    }
    inline_candidates(&inline, &inline_lines, &mut out);
    out
}

/// Code spans (which may run over line ends within a paragraph) and link
/// targets of text outside fenced blocks.
fn inline_candidates(s: &str, lines: &[usize], out: &mut Vec<Candidate>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let run = b[i..].iter().take_while(|&&c| c == b'`').count();
            // The closing run: the same number of backticks, not longer,
            // before a blank line.
            let mut j = i + run;
            let mut close = None;
            while j < b.len() {
                if b[j] == b'\n' && b.get(j + 1) == Some(&b'\n') {
                    break;
                }
                if b[j] == b'`' {
                    let r = b[j..].iter().take_while(|&&c| c == b'`').count();
                    if r == run {
                        close = Some(j);
                        break;
                    }
                    j += r;
                    continue;
                }
                j += 1;
            }
            match close {
                Some(j) => {
                    // A line end inside a span is a space (CommonMark).
                    let code = &s[i + run..j];
                    for w in code.split(|c: char| c.is_whitespace() || "\"'=<>|;()".contains(c)) {
                        out.push(Candidate {
                            line: lines[i],
                            text: w.to_string(),
                            link: false,
                        });
                    }
                    i = j + run;
                }
                None => i += run,
            }
            continue;
        }
        if b[i] == b']' && b.get(i + 1) == Some(&b'(') {
            if let Some(end) = s[i + 2..].find(')') {
                let target = s[i + 2..i + 2 + end]
                    .split_whitespace()
                    .next()
                    .unwrap_or("");
                out.push(Candidate {
                    line: lines[i],
                    text: target.to_string(),
                    link: true,
                });
                i += 2 + end;
                continue;
            }
        }
        i += 1;
    }
}

/// The path a candidate names, cleaned, or None when it names none.
fn clean(c: &Candidate) -> Option<String> {
    let mut t = c.text.trim();
    if c.link {
        if t.is_empty()
            || t.starts_with('#')
            || t.starts_with('/')
            || t.contains("://")
            || t.starts_with("mailto:")
        {
            return None;
        }
    } else {
        t = t.trim_start_matches(['(', '[', '{', '"', '\'']);
        // `.ci/` is the only prefix that starts with a dot.
        if !PREFIXES.iter().any(|p| t.starts_with(p)) {
            return None;
        }
    }
    let mut t = t.to_string();
    if let Some(h) = t.find('#') {
        t.truncate(h);
    }
    loop {
        let before = t.len();
        while t.ends_with(['.', ',', ';', ')', ']', '"', '\'', '!', '?']) && !t.ends_with("..") {
            // Keep a closing brace's pair and a final glob `?`.
            if t.ends_with('?') && t.contains(['*', '?']) && !t.ends_with("??") {
                break;
            }
            t.pop();
        }
        // `path:LINE`, `path:LINE-LINE`, `path:` before an explanation.
        if let Some(colon) = t.rfind(':') {
            let tail = &t[colon + 1..];
            if tail.chars().all(|c| c.is_ascii_digit() || c == '-') {
                t.truncate(colon);
            }
        }
        if t.len() == before {
            break;
        }
    }
    (!t.is_empty()).then_some(t)
}

/// `{a,b}` alternatives expanded (several groups allowed, not nested).
fn expand(t: &str) -> Result<Vec<String>, String> {
    let Some(open) = t.find('{') else {
        if t.contains('}') {
            return Err("unbalanced '}'".into());
        }
        return Ok(vec![t.to_string()]);
    };
    let Some(close) = t[open..].find('}').map(|c| open + c) else {
        return Err("unbalanced '{'".into());
    };
    let mut v = Vec::new();
    for alt in t[open + 1..close].split(',') {
        for rest in expand(&t[close + 1..])? {
            v.push(format!("{}{}{}", &t[..open], alt, rest));
        }
    }
    Ok(v)
}

/// Shell-style `*` and `?` over one path component.
fn glob_match(pat: &[u8], name: &[u8]) -> bool {
    match (pat.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            glob_match(&pat[1..], name) || (!name.is_empty() && glob_match(pat, &name[1..]))
        }
        (Some(b'?'), Some(_)) => glob_match(&pat[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => glob_match(&pat[1..], &name[1..]),
        _ => false,
    }
}

/// Whether `path` (relative to `base`) exists; globs as described above.
fn exists(base: &Path, path: &str) -> bool {
    let Some(g) = path.find(['*', '?']) else {
        return base.join(path).exists();
    };
    let dir_end = path[..g].rfind('/').map_or(0, |s| s + 1);
    let dir = base.join(&path[..dir_end]);
    let rest = &path[dir_end..];
    if rest.contains('/') {
        // A wildcard in a directory component: the directory before it.
        return dir.is_dir();
    }
    let Ok(rd) = fs::read_dir(&dir) else {
        return false;
    };
    rd.filter_map(|e| e.ok())
        .any(|e| glob_match(rest.as_bytes(), e.file_name().as_encoded_bytes()))
}

/// Every path a page names that does not exist, as `page:LINE: path`.
fn missing_in(page: &Path) -> Vec<String> {
    let root = root();
    let text = fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let rel = page
        .strip_prefix(&root)
        .unwrap_or(page)
        .display()
        .to_string();
    let dir = page.parent().unwrap_or(&root).to_path_buf();
    let mut bad = Vec::new();
    for c in candidates(&text) {
        let Some(p) = clean(&c) else { continue };
        let base = if c.link { &dir } else { &root };
        match expand(&p) {
            Err(why) => bad.push(format!("{rel}:{}: {} ({why})", c.line, c.text)),
            Ok(all) => {
                for one in all {
                    if !exists(base, &one) {
                        bad.push(format!("{rel}:{}: {one}", c.line));
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn every_path_the_docs_name_exists() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for page in pages() {
        checked += 1;
        bad.extend(missing_in(&page));
    }
    assert!(checked > 1, "no docs/*.md pages found");
    assert!(
        bad.is_empty(),
        "{} path(s) in the docs do not exist (moved? renamed?):\n  {}",
        bad.len(),
        bad.join("\n  ")
    );
}

#[test]
fn readme_is_short_and_links_every_docs_page() {
    let root = root();
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md");
    let n = readme.lines().count();
    assert!(
        n <= README_MAX_LINES,
        "README.md has {n} lines, at most {README_MAX_LINES}: move details into docs/"
    );
    let links: Vec<String> = candidates(&readme)
        .into_iter()
        .filter(|c| c.link)
        .filter_map(|c| clean(&c))
        .collect();
    let mut unlinked = Vec::new();
    for page in pages().into_iter().skip(1) {
        let name = format!("docs/{}", page.file_name().unwrap().to_string_lossy());
        if !links.contains(&name) {
            unlinked.push(name);
        }
    }
    assert!(
        unlinked.is_empty(),
        "README.md does not link these pages: {}",
        unlinked.join(", ")
    );
}

#[test]
fn the_checker_catches_what_it_should() {
    let page = "\
See `src/lib.rs:12`, `src/nope.rs`, [x](docs/missing.md#a) and
`tests/cli/{docs_paths,nope_b}.rs`, `src/syscall/ioctl/*.rs` and `src/zz/*.rs`.
A span over a line end: `cargo test --test docs_paths
tests/nope_c.rs`.

```sh
.ci/run && .ci/nope_d
```
";
    let root = root();
    let mut bad = Vec::new();
    for c in candidates(page) {
        let Some(p) = clean(&c) else { continue };
        for one in expand(&p).unwrap() {
            if !exists(&root, &one) {
                bad.push(one);
            }
        }
    }
    assert_eq!(
        bad,
        [
            ".ci/nope_d",
            "src/nope.rs",
            "docs/missing.md",
            "tests/cli/nope_b.rs",
            "src/zz/*.rs",
            "tests/nope_c.rs",
        ]
    );
}
