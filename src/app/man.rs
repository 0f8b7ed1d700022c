//! Manual pages: clap_mangen renders `rtrace` and each subcommand from the
//! clap tree; rstrace's and rltrace's pages come from the option tables
//! their getopt parsers read ([`crate::strace::cli::man`],
//! [`crate::ltrace::man`]).

use std::path::Path;

/// Every page: (file name, roff).
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let mut cmd = super::command();
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, "rtrace", &mut out);
    out.push((
        "rstrace.1".into(),
        crate::strace::cli::man::page().into_bytes(),
    ));
    out.push(("rltrace.1".into(), crate::ltrace::man::page().into_bytes()));
    out
}

/// `cmd`'s page as `name`.1, then its subcommands' as `name-SUB`.1.
fn walk(cmd: &clap::Command, name: &str, out: &mut Vec<(String, Vec<u8>)>) {
    out.push((format!("{name}.1"), render(cmd, name)));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        walk(sub, &format!("{name}-{}", sub.get_name()), out);
    }
}

fn render(cmd: &clap::Command, name: &str) -> Vec<u8> {
    let page = cmd.clone().name(name.to_string());
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .expect("rendering into memory cannot fail");
    roff
}

/// The page for `rtrace man PATH…`: `[]` is rtrace's, `[kernel, trace]`
/// rtrace-kernel-trace's, `[rstrace]` and `[rltrace]` those tools'.
pub fn page(path: &[String]) -> Result<Vec<u8>, String> {
    let want = match path {
        [] => "rtrace.1".to_string(),
        [t] if t == "rstrace" || t == "rltrace" => format!("{t}.1"),
        _ => format!("rtrace-{}.1", path.join("-")),
    };
    pages()
        .into_iter()
        .find(|(n, _)| *n == want)
        .map(|(_, roff)| roff)
        .ok_or_else(|| {
            format!(
                "no page for '{}' (a subcommand such as 'kernel trace', or rstrace, rltrace)",
                path.join(" ")
            )
        })
}

/// Writes every page into `dir` (created if missing); returns how many.
pub fn write_all(dir: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let pages = pages();
    for (name, roff) in &pages {
        std::fs::write(dir.join(name), roff)?;
    }
    Ok(pages.len())
}
