//! `rstrace -h` against strace 7.2's `strace -h`: the same lines in the
//! same order once 7.2's name is rstrace's (and its usage lines indented
//! one more column), except the documented lines below; rstrace's own
//! options close the text. Skipped when strace 7.2 is not at hand.

use crate::common::{self, rstrace, strace72};
use regex_lite::Regex;

/// 7.2's lines that rstrace leaves out or words otherwise, each with why.
const LEFT_OUT: &[&str] = &[
    // --color=auto|always are refused (rstrace prints no colours).
    "  --color[=WHEN]",
    "                 colorize output; WHEN is auto, always, or never (default auto)",
    // -e namespace=new is refused.
    "  -e namespace=new, --namespace=new",
    "                 print namespace IDs that the tracee enters",
    // -N/--arg-names is refused.
    "  -N, --arg-names",
    "\t\t print syscall argument names",
];

/// rstrace's lines in their place.
const PUT_IN: &[&str] = &[
    "  --color=never  do not colorize output (auto and always are refused:",
    "                 rstrace does not colorize)",
];

/// strace 7.2's help with rstrace's name.
fn renamed(text: &str) -> Vec<String> {
    let name = Regex::new(r"(^|[^\w-])strace($|[^\w-])").unwrap();
    let usage_cont = Regex::new(r"^ {14}[\[{]").unwrap();
    text.lines()
        .map(|l| {
            let l = name.replace_all(l, "${1}rstrace${2}").into_owned();
            if usage_cont.is_match(&l) {
                format!(" {l}")
            } else {
                l
            }
        })
        .collect()
}

#[test]
fn help_matches_strace_7_2() {
    let mut c = match strace72() {
        Ok(c) => c,
        Err(why) => {
            eprintln!("skip: {why}");
            return;
        }
    };
    let o = c.arg("-h").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let want = renamed(&String::from_utf8_lossy(&o.stdout));
    let o = common::named(rstrace()).arg("-h").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let got: Vec<&str> = text.lines().collect();
    for l in LEFT_OUT {
        assert!(want.iter().any(|w| w == l), "7.2 no longer prints {l:?}");
    }
    // rstrace's own options come last, after a blank line.
    let own = got
        .iter()
        .position(|l| *l == "rstrace:")
        .expect("no rstrace: section");
    assert_eq!(got[own - 1], "");
    let want_kept: Vec<&str> = want
        .iter()
        .map(String::as_str)
        .filter(|l| !LEFT_OUT.contains(l))
        .collect();
    let got_kept: Vec<&str> = got[..own - 1]
        .iter()
        .copied()
        .filter(|l| !PUT_IN.contains(l))
        .collect();
    for (i, (g, w)) in got_kept.iter().zip(&want_kept).enumerate() {
        assert_eq!(g, w, "line {i} of the kept lines: rstrace, then strace 7.2");
    }
    assert_eq!(got_kept.len(), want_kept.len(), "{text}");
    for l in PUT_IN {
        assert!(got.contains(l), "rstrace no longer prints {l:?}");
    }
    // What is refused is not advertised.
    for refused in ["--arg-names", "namespace=new", "WHEN is auto"] {
        assert!(!text.contains(refused), "-h advertises {refused}");
    }
    // Each option of rstrace's own section is one the parser knows.
    let opt = Regex::new(r"^  (--[a-z-]+)").unwrap();
    let own_opts: Vec<&str> = got[own..]
        .iter()
        .filter_map(|l| opt.captures(l).map(|c| c.get(1).unwrap().as_str()))
        .collect();
    assert!(own_opts.len() >= 6, "{own_opts:?}");
    for o in own_opts {
        let r = common::named(rstrace())
            .args([o, "--bogus-option-after"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(
            !err.contains(&format!("unrecognized option '{o}'")) && !err.contains("ambiguous"),
            "{o}: {err}"
        );
    }
}
