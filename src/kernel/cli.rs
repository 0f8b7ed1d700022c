//! A small option parser for the kernel subcommands (perf/trace-cmd style:
//! `-e X`, `-eX`, `--filter X`, `--filter=X`, flags, `-- CMD`).

use std::ffi::OsString;

/// Parsed arguments.
#[derive(Debug, Default, PartialEq)]
pub struct Args {
    /// Options in order: (name as written without dashes, value).
    pub opts: Vec<(String, Option<String>)>,
    /// Positional arguments before the command.
    pub positional: Vec<String>,
    /// The command to run (after `--`, or from the first positional when
    /// the subcommand takes no positionals).
    pub cmd: Vec<OsString>,
}

impl Args {
    /// Whether flag `name` was given.
    pub fn flag(&self, name: &str) -> bool {
        self.opts.iter().any(|(n, _)| n == name)
    }

    /// All values of option `name`.
    pub fn values(&self, name: &str) -> Vec<String> {
        self.opts
            .iter()
            .filter(|(n, _)| n == name)
            .filter_map(|(_, v)| v.clone())
            .collect()
    }

    /// The last value of option `name`.
    pub fn value(&self, name: &str) -> Option<String> {
        self.values(name).pop()
    }

    /// The pids given with `-p` (comma-separated or repeated).
    pub fn pids(&self) -> Result<Vec<i32>, String> {
        let mut out = Vec::new();
        for v in self.values("p") {
            for p in v.split(',') {
                out.push(p.trim().parse().map_err(|_| format!("bad pid '{p}'"))?);
            }
        }
        Ok(out)
    }
}

/// Parses `args`. `valued` lists options that take a value, `flags` those
/// that do not (both without dashes; one letter means `-x`, longer `--xyz`).
/// With `cmd_at_positional`, the first positional starts the command.
pub fn parse(
    args: &[OsString],
    valued: &[&str],
    flags: &[&str],
    cmd_at_positional: bool,
) -> Result<Args, String> {
    let mut a = Args::default();
    let mut i = 0;
    while i < args.len() {
        let raw = &args[i];
        let s = raw.to_string_lossy().into_owned();
        i += 1;
        if s == "--" {
            a.cmd.extend(args[i..].iter().cloned());
            break;
        }
        let (name, inline) = if let Some(long) = s.strip_prefix("--") {
            match long.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (long.to_string(), None),
            }
        } else if s.len() >= 2 && s.starts_with('-') && s != "-" {
            // By character: `-é` must not slice inside a UTF-8 sequence.
            let mut chars = s[1..].chars();
            let n = chars.next().map(String::from).unwrap_or_default();
            let rest = chars.as_str();
            (n, (!rest.is_empty()).then(|| rest.to_string()))
        } else {
            if cmd_at_positional {
                a.cmd.push(raw.clone());
                a.cmd.extend(args[i..].iter().cloned());
                break;
            }
            a.positional.push(s);
            continue;
        };
        if valued.contains(&name.as_str()) {
            let v = match inline {
                Some(v) => v,
                None => {
                    let v = args
                        .get(i)
                        .ok_or_else(|| format!("option '{s}' needs a value"))?;
                    i += 1;
                    v.to_string_lossy().into_owned()
                }
            };
            a.opts.push((name, Some(v)));
        } else if flags.contains(&name.as_str()) && inline.is_none() {
            a.opts.push((name, None));
        } else {
            return Err(format!("unknown option '{s}'"));
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn options_values_and_command() {
        let a = parse(
            &os(&[
                "-e",
                "a:b",
                "-ec:d",
                "--filter=x > 1",
                "-c",
                "--",
                "ls",
                "-l",
            ]),
            &["e", "filter"],
            &["c"],
            false,
        )
        .unwrap();
        assert_eq!(a.values("e"), ["a:b", "c:d"]);
        assert_eq!(a.value("filter").as_deref(), Some("x > 1"));
        assert!(a.flag("c"));
        assert_eq!(a.cmd, os(&["ls", "-l"]));
    }

    #[test]
    fn command_at_first_positional_and_errors() {
        let a = parse(&os(&["-r", "3", "true", "-x"]), &["r"], &[], true).unwrap();
        assert_eq!(a.value("r").as_deref(), Some("3"));
        assert_eq!(a.cmd, os(&["true", "-x"]));
        assert!(parse(&os(&["-z"]), &[], &[], false).is_err());
        assert!(parse(&os(&["-e"]), &["e"], &[], false).is_err());
        let a = parse(&os(&["-p", "1,2", "-p3"]), &["p"], &[], false).unwrap();
        assert_eq!(a.pids().unwrap(), [1, 2, 3]);
    }
}
