//! `--tips[=[[id:]ID][,[format:]FORMAT]]`: a tip about rstrace printed on
//! stderr as it exits, in a box beside a small picture, in the layout
//! strace 6.1 uses for its tips (a 44-column text area, the box's right
//! edge bent into a speech-bubble tail, the picture continuing below the
//! box with `format:full`). The tips and the picture are rstrace's own.

/// How much of the tip to print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TipsFormat {
    /// No tip (the default, and `format:none`).
    #[default]
    None,
    /// The box and one line of the picture below it.
    Compact,
    /// The box and the rest of the picture.
    Full,
}

/// The `--tips` settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tips {
    /// What to print.
    pub format: TipsFormat,
    /// Which tip (taken modulo their number); `None`: a random one.
    pub id: Option<u32>,
}

/// Width of the text area in the box.
const WIDTH: usize = 44;
/// Most lines a tip may have.
const MAX_LINES: usize = 13;

/// The tips, one text line each (at most [`WIDTH`] columns).
const TIPS: &[&[&str]] = &[
    &[
        "rstrace -c counts calls, errors and time;",
        "-U chooses the columns of that table, e.g.",
        "",
        "    rstrace -c -U name,calls,errors CMD",
    ],
    &[
        "With -f, rstrace follows the children and",
        "threads of the command; -ff -o NAME writes",
        "one file per process, NAME.PID.",
    ],
    &[
        "-e trace=%file traces every call that takes",
        "a file name; %net, %process, %memory and",
        "%signal select other classes of calls.",
    ],
    &[
        "-y prints the path behind each descriptor,",
        "-yy also socket addresses and devices.",
    ],
    &[
        "-z shows only the calls that succeeded and",
        "-Z only those that failed: a quick way to",
        "find what a program could not open.",
    ],
    &[
        "-e inject=SET:error=ENOSPC makes calls fail",
        "on purpose, to see how a program copes;",
        "when=N+M picks which calls of the set.",
    ],
    &[
        "-T appends the time spent in each call and",
        "-r the time since the previous line.",
    ],
    &[
        "--strings-in-hex=non-ascii-chars prints",
        "only the unprintable bytes of strings as",
        "\\x escapes and keeps the rest readable.",
    ],
    &[
        "-k prints the stack of the traced program",
        "at each call (its functions and offsets).",
    ],
    &[
        "-p PID attaches to running processes; a",
        "comma-separated list attaches to several.",
    ],
];

/// The picture beside the box: line 0 is never shown, line 1 goes beside
/// the box's top edge.
const PICTURE: &[&str] = &[
    "",
    "      .-'''-.",
    "     /  .-.  \\",
    "    |  ( o )  |",
    "     \\  '-'  /",
    "      '-...-'\\",
    "              \\\\",
    "               \\\\",
    "                \\\\",
    "                 \\\\",
    "                  '",
    "",
];

/// The box's top and bottom edges (the picture follows each).
const TOP: &str = "  ______________________________________________    ";
const BOTTOM: &str = " \\______________________________________________/   ";
/// The box's left edge: on its first line, then below.
const LEFT: [&str; 2] = [" / ", " | "];
/// The box's right edge, line by line: the tail of the bubble, then `|`.
const RIGHT: [&str; 7] = [
    " \\   ", " |   ", " \\   ", "  \\  ", "  _\\ ", " /   ", " |   ",
];

impl Tips {
    /// Applies one `--tips` argument: comma-separated tokens, each
    /// `[id:]random`, `[id:]NUMBER` or `[format:]none|compact|full` (without
    /// regard to case); `Err` for anything else. A bare `--tips` turns the
    /// compact format on.
    #[allow(clippy::result_unit_err)]
    pub fn apply(&mut self, arg: &str) -> Result<(), ()> {
        let mut format = match self.format {
            TipsFormat::None => TipsFormat::Compact,
            f => f,
        };
        let mut id = self.id;
        for token in arg.split(',').filter(|t| !t.is_empty()) {
            let (value, as_id, as_format) = match strip_prefix_nocase(token, "id:") {
                Some(v) => (v, true, false),
                None => match strip_prefix_nocase(token, "format:") {
                    Some(v) => (v, false, true),
                    None => (token, true, true),
                },
            };
            if as_id {
                if value.eq_ignore_ascii_case("random") {
                    id = None;
                    continue;
                }
                if let Some(n) = crate::strace::filter::string_to_uint(value, i32::MAX as u64) {
                    id = Some(n as u32);
                    continue;
                }
            }
            if as_format {
                let f = ["none", "compact", "full"]
                    .iter()
                    .position(|f| value.eq_ignore_ascii_case(f));
                if let Some(f) = f {
                    format = [TipsFormat::None, TipsFormat::Compact, TipsFormat::Full][f];
                    continue;
                }
            }
            return Err(());
        }
        self.format = format;
        self.id = id;
        Ok(())
    }

    /// The text to print on exit (`None` when tips are off); a random tip
    /// is picked by the clock.
    pub fn render(&self) -> Option<String> {
        if self.format == TipsFormat::None {
            return None;
        }
        let id = self.id.map_or_else(random, |n| n as usize) % TIPS.len();
        Some(render_tip(TIPS[id], self.format == TipsFormat::Full))
    }
}

/// `token` without `prefix` (compared without regard to case).
fn strip_prefix_nocase<'a>(token: &'a str, prefix: &str) -> Option<&'a str> {
    let head = token.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &token[prefix.len()..])
}

/// A number from the clock, for a random tip.
fn random() -> usize {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let x = t.as_secs() ^ u64::from(t.subsec_nanos());
    // A multiplicative hash spreads close clock readings apart.
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 33) as usize
}

/// The picture's line `i` (its last line repeated past its end).
fn picture(i: usize) -> &'static str {
    PICTURE[i.min(PICTURE.len() - 1)]
}

/// One tip in its box, with the picture.
fn render_tip(tip: &[&str], full: bool) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!("{TOP}{}", picture(1)));
    line(format!(
        "{}{:WIDTH$}{}{}",
        LEFT[0],
        "",
        RIGHT[0],
        picture(2)
    ));
    let mut i = 0;
    while i < MAX_LINES && (i < tip.len() || i < RIGHT.len() - 1) {
        let text = tip.get(i).copied().unwrap_or("");
        let text: String = text.chars().take(WIDTH).collect();
        line(format!(
            "{}{text:WIDTH$}{}{}",
            LEFT[1],
            RIGHT[(i + 1).min(RIGHT.len() - 1)],
            picture(3 + i)
        ));
        i += 1;
    }
    line(format!("{BOTTOM}{}", picture(3 + i)));
    let blank = LEFT[0].len() + WIDTH + RIGHT[0].len();
    loop {
        line(format!("{:blank$}{}", "", picture(4 + i)));
        i += 1;
        if !full || 4 + i >= PICTURE.len() {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tips(args: &[&str]) -> Result<Tips, ()> {
        let mut t = Tips::default();
        for a in args {
            t.apply(a)?;
        }
        Ok(t)
    }

    #[test]
    fn arguments_like_strace() {
        for bad in [
            "id",
            "id:",
            "-1",
            "2147483648",
            "id:rand",
            "id:randomm",
            "2,3,radomm,4",
            "format",
            "format:",
            "id:format",
            "id:format:full",
            "format:id:0",
        ] {
            assert!(tips(&[bad]).is_err(), "{bad}");
        }
        assert_eq!(
            tips(&[""]).unwrap(),
            Tips {
                format: TipsFormat::Compact,
                id: None
            }
        );
        let t = tips(&["id:random,23", "random,2,3,id:4,5"]).unwrap();
        assert_eq!(t.id, Some(5));
        let t = tips(&["", "format:full,3,none,id:42,compact"]).unwrap();
        assert_eq!(
            t,
            Tips {
                format: TipsFormat::Compact,
                id: Some(42)
            }
        );
        assert_eq!(tips(&["FORMAT:Full"]).unwrap().format, TipsFormat::Full);
        assert_eq!(tips(&["format:none"]).unwrap().render(), None);
    }

    #[test]
    fn box_layout() {
        let t = Tips {
            format: TipsFormat::Compact,
            id: Some(1),
        };
        let text = t.render().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Top, the bubble's first line, 6 text lines (a short tip is padded
        // to the tail's height), bottom, one line of the picture below.
        assert_eq!(lines.len(), 10);
        assert!(lines[0].starts_with(TOP));
        assert!(lines[2].starts_with(" | With -f, rstrace follows"));
        for (n, l) in lines[2..8].iter().enumerate() {
            assert_eq!(&l[3 + WIDTH..3 + WIDTH + 5], RIGHT[n + 1], "{l}");
        }
        assert!(lines[8].starts_with(BOTTOM));
        assert_eq!(lines[9], format!("{:52}{}", "", picture(10)));
        // The same id gives the same tip; ids wrap around.
        let again = Tips {
            id: Some(1 + TIPS.len() as u32),
            ..t
        };
        assert_eq!(again.render().unwrap(), text);
        let full = Tips {
            format: TipsFormat::Full,
            ..t
        };
        assert!(full.render().unwrap().starts_with(&text));
        for tip in TIPS {
            assert!(tip.len() <= MAX_LINES);
            assert!(tip.iter().all(|l| l.len() <= WIDTH), "{tip:?}");
        }
    }
}
