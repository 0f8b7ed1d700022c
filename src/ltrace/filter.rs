//! The ltrace filter language of `-e`, `-x` and `-l` (ltrace(1), FILTER
//! EXPRESSIONS).
//!
//! An expression is a chain of rules `[+-!]SYMBOL[@LIBRARY]`. Both patterns
//! are globs (`*`, `?`, `[...]`) or, between slashes, POSIX basic regular
//! expressions as ltrace 0.7.3 compiles them; both must match the whole
//! name; a missing pattern means `*`; `/x@y/` is short for `/x/@/y/`;
//! `MAIN` as library means the main program. A symbol passes the chain
//! marked if the last rule it matches is a `+` rule; a chain that starts
//! with `-` (or `!`) starts from "everything". Several `-e` options: any
//! chain marking a symbol selects it.
//!
//! Which library a rule's `@LIB` is matched against differs by option, as in
//! ltrace: for `-e` (and the default `@MAIN`) it is the module the call is
//! made FROM (the one whose PLT slot or call site is used); for `-x` and
//! `-l` it is the module that DEFINES the symbol.
//!
//! Deviation from 0.7.3, documented: ltrace 0.7.3 compiles globs to regexes
//! in a way that makes `^`/`$` literal although its manual says they anchor;
//! here `^` at the start and `$` at the end of a glob are accepted anchors
//! (a no-op, since matching is whole-name anyway).

use regex_lite::{Regex, RegexBuilder};

/// The compiled size a pattern may take. Matching costs up to the compiled
/// size times the name's length, for every symbol of every module (and
/// `-x` reads them all): with regex-lite's default of 10 MiB,
/// `-x '/\(.*\)\{1000\}\{60\}/'` ran 170 s on `true`. Real patterns
/// take a few KiB (32 bytes a state: a 2,000-character literal fits); at
/// this limit the worst `-x` pattern adds about 0.4 s on `true`.
const SIZE_LIMIT: usize = 64 << 10;

/// Compiles a translated pattern within [`SIZE_LIMIT`] (compiling is
/// linear in the compiled size, so it is bounded too).
fn compile(re: &str) -> Result<Regex, String> {
    RegexBuilder::new(re)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let m = e.to_string();
            if m.contains("size limit") {
                format!("too complex (over {} KiB compiled)", SIZE_LIMIT >> 10)
            } else {
                m
            }
        })
}

/// One pattern of a rule.
#[derive(Debug, Clone)]
enum Pat {
    /// Matches everything (pattern left out).
    Any,
    /// `MAIN`: the main program.
    Main,
    /// A glob or regex over the name (soname for libraries).
    Re(Regex),
    /// A library pattern starting with `/`: a glob over the path.
    Path(Regex),
}

impl Pat {
    fn matches(&self, name: &str, path: &str, is_main: bool) -> bool {
        match self {
            Pat::Any => true,
            Pat::Main => is_main,
            Pat::Re(re) => re.is_match(name),
            Pat::Path(re) => re.is_match(path),
        }
    }
}

/// One rule of a chain.
#[derive(Debug, Clone)]
struct Rule {
    add: bool,
    sym: Pat,
    lib: Pat,
}

/// A parsed filter: the `-e` (or `-x`) values, each a chain of rules.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    chains: Vec<Vec<Rule>>,
}

impl Filter {
    /// Parses the `-e` values in order. An empty list selects nothing.
    pub fn parse(exprs: &[String]) -> Result<Filter, String> {
        let chains = exprs
            .iter()
            .map(|e| parse_chain(e))
            .collect::<Result<_, _>>()?;
        Ok(Filter { chains })
    }

    /// Parses the `-x` values (same syntax; the library is the defining one).
    pub fn parse_x(exprs: &[String]) -> Result<Filter, String> {
        Filter::parse(exprs)
    }

    /// ltrace's default without `-e`: `@MAIN`, calls made from the main program.
    pub fn default_filter() -> Filter {
        Filter::parse(&["@MAIN".to_string()]).expect("the default filter parses")
    }

    /// Whether this filter has no rule at all (selects nothing).
    pub fn is_empty(&self) -> bool {
        self.chains.iter().all(|c| c.is_empty())
    }

    /// Whether `symbol` of `library` is selected. `library` is the soname
    /// ("libc.so.6") or, for the main program, `"MAIN"` or its file name (a
    /// name without ".so" is taken to be the main program). Pass the file
    /// name through [`Filter::matches_in`] so that `@prog` patterns work too.
    pub fn matches(&self, symbol: &str, library: &str) -> bool {
        let is_main = library == "MAIN" || !library.contains(".so");
        self.matches_in(symbol, library, library, is_main)
    }

    /// Whether `symbol` is selected, given the library's soname, its path
    /// (for `@/path` patterns) and whether it is the main program.
    pub fn matches_in(&self, symbol: &str, soname: &str, path: &str, is_main: bool) -> bool {
        self.chains.iter().any(|chain| {
            let mut marked = false;
            for r in chain {
                if r.sym.matches(symbol, symbol, false) && r.lib.matches(soname, path, is_main) {
                    marked = r.add;
                }
            }
            marked
        })
    }

    /// Whether some symbol could be selected in the library with `soname`
    /// and `path` ([`Filter::matches_in`]): a `+` rule's library pattern
    /// matches it. When none does, the library's symbols need not be read.
    pub fn may_select_in(&self, soname: &str, path: &str, is_main: bool) -> bool {
        self.chains
            .iter()
            .flatten()
            .any(|r| r.add && r.lib.matches(soname, path, is_main))
    }
}

/// `-l LIB`: whether the library with `soname` matches `pattern` (a glob, a
/// `/regex/`, or `MAIN`, which no shared library matches). An invalid
/// pattern matches nothing; [`check_lib_pattern`] reports why.
pub fn lib_matches(pattern: &str, soname: &str) -> bool {
    lib_pattern(pattern).is_ok_and(|p| p.matches(soname, soname, false))
}

/// Validates a `-l` pattern, with ltrace's wording for errors.
pub fn check_lib_pattern(pattern: &str) -> Result<(), String> {
    lib_pattern(pattern).map(|_| ())
}

fn parse_chain(expr: &str) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    if expr.is_empty() {
        return Ok(rules);
    }
    // Split at every '+' and '-', as ltrace does (also inside /regex/).
    let mut segs: Vec<(bool, &str)> = Vec::new();
    let mut start = 0;
    let mut add = true;
    for (i, c) in expr.char_indices() {
        if c == '+' || c == '-' {
            segs.push((add, &expr[start..i]));
            add = c == '+';
            start = i + 1;
        }
    }
    segs.push((add, &expr[start..]));
    let last = segs.len() - 1;
    for (k, (mut add, mut text)) in segs.into_iter().enumerate() {
        if text.is_empty() {
            // An empty rule before a sign means "everything"; a trailing one is nothing.
            if k == last && k > 0 {
                continue;
            }
            rules.push(Rule {
                add,
                sym: Pat::Any,
                lib: Pat::Any,
            });
            continue;
        }
        if let Some(t) = text.strip_prefix('!') {
            add = false;
            text = t;
        }
        if rules.is_empty() && !add {
            // A chain starting with a negative rule starts from everything.
            rules.push(Rule {
                add: true,
                sym: Pat::Any,
                lib: Pat::Any,
            });
        }
        let (sym, lib) = parse_rule(text)?;
        rules.push(Rule { add, sym, lib });
    }
    Ok(rules)
}

fn parse_rule(text: &str) -> Result<(Pat, Pat), String> {
    let near = |e: String| format!("Rule near '{text}' will be ignored: {e}.");
    if let Some(body) = text.strip_prefix('/') {
        let Some(end) = body.find('/') else {
            return Err("Unmatched '/' in symbol name.".to_string());
        };
        let (re, rest) = (&body[..end], &body[end + 1..]);
        if rest.is_empty() {
            if let Some((s, l)) = re.split_once('@') {
                // `/x@y/` is short for `/x/@/y/`.
                return Ok((
                    Pat::Re(bre(s).map_err(near)?),
                    Pat::Re(bre(l).map_err(near)?),
                ));
            }
            return Ok((Pat::Re(bre(re).map_err(near)?), Pat::Any));
        }
        let Some(lib) = rest.strip_prefix('@') else {
            return Err(format!(
                "Unexpected '{rest}' after symbol pattern in '{text}'."
            ));
        };
        return Ok((Pat::Re(bre(re).map_err(near)?), lib_pattern(lib)?));
    }
    let (sym, lib) = text.split_once('@').unwrap_or((text, ""));
    let sym = if sym.is_empty() {
        Pat::Any
    } else {
        Pat::Re(glob(sym).map_err(near)?)
    };
    Ok((sym, lib_pattern(lib)?))
}

fn lib_pattern(lib: &str) -> Result<Pat, String> {
    let near = |e: String| format!("Rule near '{lib}' will be ignored: {e}.");
    Ok(match lib {
        "" => Pat::Any,
        "MAIN" => Pat::Main,
        l if l.len() >= 2 && l.starts_with('/') && l.ends_with('/') => {
            Pat::Re(bre(&l[1..l.len() - 1]).map_err(near)?)
        }
        l if l.starts_with('/') => Pat::Path(glob(l).map_err(near)?),
        l => Pat::Re(glob(l).map_err(near)?),
    })
}

/// A glob (`*`, `?`, `[...]`, `[!...]`) as a whole-name regex.
pub fn glob_regex(g: &str) -> String {
    let b: Vec<char> = g.chars().collect();
    let mut re = String::from("^(?:");
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '^' if i == 0 => {}
            '$' if i + 1 == b.len() => {}
            '[' => {
                // A class runs to the next ']' that is not its first member.
                let mut j = i + 1;
                if j < b.len() && (b[j] == '!' || b[j] == '^') {
                    j += 1;
                }
                if j < b.len() && b[j] == ']' {
                    j += 1;
                }
                while j < b.len() && b[j] != ']' {
                    if b[j] == '[' && b.get(j + 1) == Some(&':') {
                        // Skip a POSIX class such as [:alpha:].
                        while j + 1 < b.len() && !(b[j] == ':' && b[j + 1] == ']') {
                            j += 1;
                        }
                        j += 1;
                    }
                    j += 1;
                }
                if j >= b.len() {
                    re.push_str("\\[");
                } else {
                    re.push_str(&class(&b[i + 1..j]));
                    i = j;
                }
            }
            c => re.push_str(&regex_lite::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push_str(")$");
    re
}

/// The members of a bracket expression (without the brackets) as a class.
fn class(m: &[char]) -> String {
    let mut s = String::from("[");
    let mut k = 0;
    if k < m.len() && (m[k] == '!' || m[k] == '^') {
        s.push('^');
        k += 1;
    }
    while k < m.len() {
        let c = m[k];
        if c == '[' && m.get(k + 1) == Some(&':') {
            // A POSIX class such as [:alpha:] is copied whole.
            if let Some(end) = (k + 2..m.len()).find(|&e| m[e] == ':' && m.get(e + 1) == Some(&']'))
            {
                s.extend(&m[k..end + 2]);
                k = end + 2;
                continue;
            }
        }
        if matches!(c, '\\' | '[' | ']' | '^' | '&' | '~') {
            s.push('\\');
        }
        s.push(c);
        k += 1;
    }
    s.push(']');
    s
}

fn glob(g: &str) -> Result<Regex, String> {
    compile(&glob_regex(g))
}

/// A POSIX basic regular expression (as ltrace 0.7.3 uses, GNU flavour:
/// `\(\)`, `\{\}`, `\|`, `\+`, `\?`; `+ ? | ( ) { }` are literal) as a
/// whole-name regex. ltrace wraps it in `^…$`, so a `^` or `$` of the user's
/// at the very start or end is literal there.
pub fn bre_regex(p: &str) -> Result<String, String> {
    let b: Vec<char> = p.chars().collect();
    let mut re = String::from("^(?:");
    let mut i = 0;
    // Whether the previous token opened a group or alternative (GNU anchors there).
    let mut at_start = true;
    while i < b.len() {
        let c = b[i];
        let was_start = at_start;
        at_start = false;
        match c {
            '\\' => {
                let Some(&n) = b.get(i + 1) else {
                    return Err("Trailing backslash".into());
                };
                i += 1;
                match n {
                    '(' | '|' => {
                        re.push(n);
                        at_start = true;
                    }
                    ')' | '{' | '}' | '+' | '?' => re.push(n),
                    '<' | '>' | 'b' => re.push_str("\\b"),
                    'w' | 'W' | 's' | 'S' | 'B' => {
                        re.push('\\');
                        re.push(n);
                    }
                    '1'..='9' => return Err("Invalid back reference".into()),
                    n => re.push_str(&regex_lite::escape(&n.to_string())),
                }
            }
            '^' if was_start && i > 0 => re.push('^'),
            '$' if i + 1 < b.len()
                && i > 0
                && b.get(i + 1) == Some(&'\\')
                && matches!(b.get(i + 2), Some(')' | '|')) =>
            {
                re.push('$')
            }
            '*' if was_start => re.push_str("\\*"),
            '*' => re.push('*'),
            '.' => re.push('.'),
            '[' => {
                let mut j = i + 1;
                if j < b.len() && b[j] == '^' {
                    j += 1;
                }
                if j < b.len() && b[j] == ']' {
                    j += 1;
                }
                while j < b.len() && b[j] != ']' {
                    if b[j] == '[' && matches!(b.get(j + 1), Some(':' | '.' | '=')) {
                        let d = b[j + 1];
                        j += 2;
                        while j + 1 < b.len() && !(b[j] == d && b[j + 1] == ']') {
                            j += 1;
                        }
                        j += 1;
                    }
                    j += 1;
                }
                if j >= b.len() {
                    return Err("Unmatched [, [^, [:, [., or [=".into());
                }
                re.push_str(&class(&b[i + 1..j]));
                i = j;
            }
            c => re.push_str(&regex_lite::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push_str(")$");
    Ok(re)
}

fn bre(p: &str) -> Result<Regex, String> {
    compile(&bre_regex(p)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(exprs: &[&str]) -> Filter {
        Filter::parse(&exprs.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    /// Which of the program's calls a filter selects. The program is /tmp/ltp/a
    /// (`a` calls malloc, strcpy, strlen, printf, puts, free, getenv, strtol…);
    /// expected sets are what ltrace 0.7.3 traced with the same `-e`.
    fn sel(flt: &Filter) -> Vec<&'static str> {
        [
            "malloc", "strcpy", "strlen", "puts", "free", "strdup", "strtol", "fopen",
        ]
        .into_iter()
        .filter(|s| flt.matches(s, "MAIN"))
        .collect()
    }

    #[test]
    fn filter_expressions_select_what_ltrace_selects() {
        assert_eq!(sel(&f(&["malloc+free"])), ["malloc", "free"]);
        assert_eq!(sel(&f(&["str*-strlen"])), ["strcpy", "strdup", "strtol"]);
        assert_eq!(sel(&f(&["-strlen"])).len(), 7);
        assert_eq!(sel(&f(&["!strlen"])).len(), 7);
        assert_eq!(sel(&f(&["malloc+!free"])), ["malloc"]);
        assert_eq!(sel(&f(&["malloc-malloc+free"])), ["free"]);
        assert_eq!(sel(&f(&["pu?s"])), ["puts"]);
        assert_eq!(sel(&f(&["[fp]uts"])), ["puts"]);
        assert_eq!(sel(&f(&["/puts/"])), ["puts"]);
        assert_eq!(sel(&f(&["/p.ts/"])), ["puts"]);
        assert_eq!(
            sel(&f(&["/str/"])),
            Vec::<&str>::new(),
            "regexes match the whole name"
        );
        assert_eq!(
            sel(&f(&["/^str/"])),
            Vec::<&str>::new(),
            "a leading ^ is literal inside ltrace's ^…$"
        );
        assert_eq!(sel(&f(&[r"/malloc\|free/"])), ["malloc", "free"]);
        assert_eq!(
            sel(&f(&["/malloc|free/"])),
            Vec::<&str>::new(),
            "| is literal in a basic regex"
        );
        assert_eq!(sel(&f(&[r"/\(malloc\)/"])), ["malloc"]);
        assert_eq!(sel(&f(&["/(malloc)/"])), Vec::<&str>::new());
        assert_eq!(sel(&f(&[r"/mal\{1\}loc/"])), ["malloc"]);
        assert_eq!(sel(&f(&["*"])).len(), 8);
        assert_eq!(sel(&f(&["@"])).len(), 8);
        assert_eq!(
            sel(&f(&["+malloc"])).len(),
            8,
            "an empty first rule is everything"
        );
        assert_eq!(sel(&f(&["malloc++free"])).len(), 8);
        assert_eq!(sel(&f(&["malloc+"])), ["malloc"]);
        assert_eq!(sel(&f(&["malloc@"])), ["malloc"]);
        assert_eq!(sel(&f(&[""])), Vec::<&str>::new());
        assert_eq!(sel(&f(&["x@y@z"])), Vec::<&str>::new());
        assert_eq!(sel(&f(&["@MAIN-puts"])).len(), 7);
        assert_eq!(sel(&f(&["free@MAIN-@MAIN"])), Vec::<&str>::new());
        assert_eq!(
            sel(&f(&["malloc", "free"])),
            ["malloc", "free"],
            "several -e: any of them"
        );
        // Library side: `@libc.so*` is about the module making the call.
        let libc = f(&["@libc.so*"]);
        assert!(libc.matches("malloc", "libc.so.6") && !libc.matches("malloc", "MAIN"));
        assert!(!f(&["malloc@libc.so.6"]).matches("malloc", "MAIN"));
        let d = Filter::default_filter();
        assert!(d.matches("puts", "MAIN") && !d.matches("puts", "libc.so.6"));
        assert!(
            f(&["-@MAIN"]).matches("sin", "libm.so.6") && !f(&["-@MAIN"]).matches("sin", "MAIN")
        );
        assert!(f(&["puts@a"]).matches_in("puts", "a", "/tmp/ltp/a", true));
        assert!(f(&["puts@/a/"]).matches_in("puts", "a", "/tmp/ltp/a", true));
        assert!(f(&["/puts@a/"]).matches_in("puts", "a", "/tmp/ltp/a", true));
        assert!(f(&["puts@/tmp/*"]).matches_in("puts", "a", "/tmp/ltp/a", true));
        assert!(!f(&["puts@/a"]).matches_in("puts", "a", "/tmp/ltp/a", true));
    }

    #[test]
    fn a_library_no_add_rule_names_is_never_selected_from() {
        let libc = ("libc.so.6", "/lib/libc.so.6", false);
        let main = ("prog", "/bin/prog", true);
        for (e, in_libc, in_main) in [
            ("@MAIN", false, true),
            ("malloc", true, true),
            ("-malloc@libc.so*", true, true),
            ("*@libc.so*-free", true, false),
            ("@/lib/*", true, false),
        ] {
            let flt = f(&[e]);
            for ((so, path, is_main), want) in [(libc, in_libc), (main, in_main)] {
                assert_eq!(flt.may_select_in(so, path, is_main), want, "{e} {so}");
                // Never false where a symbol is selected.
                for sym in ["malloc", "free", "puts"] {
                    assert!(!flt.matches_in(sym, so, path, is_main) || want, "{e} {sym}");
                }
            }
        }
    }

    #[test]
    fn bad_filters_are_errors_with_ltraces_words() {
        let e = Filter::parse(&["/a".into()]).unwrap_err();
        assert_eq!(e, "Unmatched '/' in symbol name.");
        let e = Filter::parse(&["/mallo+c/".into()]).unwrap_err();
        assert_eq!(
            e, "Unmatched '/' in symbol name.",
            "+ splits rules even inside slashes, as in ltrace"
        );
        let e = Filter::parse(&["/[/".into()]).unwrap_err();
        assert!(e.contains("Unmatched [, [^, [:, [., or [="), "{e}");
        assert!(Filter::parse(&[r"/\1/".into()]).is_err());
        assert!(Filter::parse(&["/x/junk".into()]).is_err());
    }

    /// Counted repetitions multiply: these compile past the size limit
    /// (regex-lite's own default let the second run 170 s with `-x`).
    #[test]
    fn patterns_too_big_to_compile_are_refused() {
        for p in [r"/\(.*\)\{100\}\{100\}/", r"/\(.*\)\{1000\}\{60\}/"] {
            let e = Filter::parse(&[p.into()]).unwrap_err();
            assert_eq!(
                e,
                format!("Rule near '{p}' will be ignored: too complex (over 64 KiB compiled).")
            );
        }
        let e = check_lib_pattern("lib[a-z]{999}").map(|_| ());
        assert!(e.is_ok(), "a glob's braces are literal: {e:?}");
        let e = check_lib_pattern(r"/x\{9999\}/").unwrap_err();
        assert!(e.ends_with("too complex (over 64 KiB compiled)."), "{e}");
        // Below the limit, a counted repetition still matches.
        assert!(f(&[r"/a\{3\}b/"]).matches("aaab", "MAIN"));
        let long = "x".repeat(2000);
        assert!(f(&[long.as_str()]).matches(&long, "MAIN"));
    }

    #[test]
    fn glob_and_basic_regex_translation() {
        assert_eq!(glob_regex("a*b?[!x]"), "^(?:a.*b.[^x])$");
        assert_eq!(glob_regex("^puts$"), "^(?:puts)$");
        assert_eq!(glob_regex("lib.so[]]"), r"^(?:lib\.so[\]])$");
        assert_eq!(bre_regex(r"a\(b\|c\)*d.e+").unwrap(), r"^(?:a(b|c)*d.e\+)$");
        assert!(lib_matches("libc.so*", "libc.so.6"));
        assert!(lib_matches("/libm.*/", "libm.so.6"));
        assert!(!lib_matches("libc.so*", "libm.so.6"));
        assert!(!lib_matches("MAIN", "libc.so.6"));
        assert!(lib_matches("[[:alpha:]]*.so.6", "libc.so.6"));
    }
}
