//! A manual page in roff (man(7) macros) from a list of options: rstrace's
//! and rltrace's pages, which come from their getopt tables, not from clap.

use std::fmt::Write as _;

/// One option as a parser accepts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    /// `-x` (without the dash).
    pub short: Option<char>,
    /// `--name`s (without the dashes): synonyms.
    pub long: Vec<&'static str>,
    /// The value's name, when it takes one (`FILE`); `[=VALUE]` when optional.
    pub value: Option<String>,
    /// What it does.
    pub help: String,
}

/// Escapes text for roff: backslashes, and a leading `.` or `'`.
pub fn escape(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// The page: `.TH`, NAME, SYNOPSIS, DESCRIPTION, OPTIONS (one `.TP` per
/// option), then `extra` sections given as (title, text).
pub fn page(
    name: &str,
    version: &str,
    summary: &str,
    synopsis: &str,
    description: &str,
    opts: &[Opt],
    extra: &[(&str, &str)],
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        ".TH {} 1 \"\" \"{name} {version}\" \"User Commands\"",
        name.to_uppercase()
    );
    let _ = writeln!(s, ".SH NAME\n{name} \\- {}", escape(summary));
    let _ = writeln!(s, ".SH SYNOPSIS");
    for l in synopsis.lines() {
        let _ = writeln!(s, "{}\n.br", escape(l));
    }
    let _ = writeln!(s, ".SH DESCRIPTION\n{}", paragraphs(description));
    let _ = writeln!(s, ".SH OPTIONS");
    for o in opts {
        let mut head = Vec::new();
        let val = |v: &str| {
            if v.starts_with('[') {
                format!("\\fI{}\\fR", escape(v))
            } else {
                format!(" \\fI{}\\fR", escape(v))
            }
        };
        if let Some(c) = o.short {
            let v = o.value.as_deref().map(val).unwrap_or_default();
            head.push(format!("\\fB\\-{}\\fR{v}", escape(&c.to_string())));
        }
        for l in &o.long {
            let v = match o.value.as_deref() {
                Some(v) if v.starts_with('[') => val(v),
                Some(v) => format!("=\\fI{}\\fR", escape(v)),
                None => String::new(),
            };
            head.push(format!("\\fB\\-\\-{}\\fR{v}", escape(l)));
        }
        let _ = writeln!(s, ".TP\n{}\n{}", head.join(", "), escape(&o.help));
    }
    for (title, text) in extra {
        let _ = writeln!(s, ".SH {}\n{}", title.to_uppercase(), paragraphs(text));
    }
    s
}

/// Text with blank-line paragraphs; lines that start with spaces stay as
/// they are (`.nf`).
fn paragraphs(text: &str) -> String {
    let mut out = String::new();
    for (i, para) in text.trim().split("\n\n").enumerate() {
        if i > 0 {
            out.push_str(".PP\n");
        }
        if para.lines().any(|l| l.starts_with(' ')) {
            let _ = writeln!(out, ".nf\n{}\n.fi", escape(para));
        } else {
            let _ = writeln!(out, "{}", escape(para));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_per_tp() {
        let p = page(
            "tool",
            "1.0",
            "does things",
            "tool [-a N] CMD",
            "Para one.\n\nPara two:\n  indented",
            &[Opt {
                short: Some('a'),
                long: vec!["align"],
                value: Some("N".into()),
                help: "align at N".into(),
            }],
            &[],
        );
        assert!(p.starts_with(".TH TOOL 1"), "{p}");
        assert!(
            p.contains(".TP\n\\fB\\-a\\fR \\fIN\\fR, \\fB\\-\\-align\\fR=\\fIN\\fR\nalign at N\n"),
            "{p}"
        );
        assert!(p.contains(".nf\nPara two:"), "{p}");
        assert_eq!(escape(".x\\y"), "\\&.x\\ey");
    }
}
