//! A symbolized frame and its two renderings: gdb-like
//! (`func+0xoff (file:line) [module]`) and `strace -k`-like.

use std::fmt;

/// One symbolized frame. An address inside inlined code gives several
/// frames: the innermost inlined function first, the containing (real)
/// function last.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    /// The address as the program sees it (for a caller frame: the return
    /// address).
    pub pc: u64,
    /// Path of the module (file or `[vdso]`); empty when no mapping contains `pc`.
    pub module: String,
    /// `pc` as a file virtual address of the module (what `strace -k`
    /// prints in brackets), when the load bias is known.
    pub module_offset: Option<u64>,
    /// Demangled function name.
    pub function: Option<String>,
    /// `pc` minus the function's start, for the containing function.
    pub offset_in_function: Option<u64>,
    /// Source file (full path from the line table).
    pub file: Option<String>,
    /// Source line.
    pub line: Option<u32>,
    /// Whether this frame is an inlined call inside the next frame.
    pub inlined: bool,
}

impl fmt::Display for Frame {
    /// `func+0xoff (file:line) [module]`; `??` for an unknown function;
    /// inlined frames are marked `[inlined]` and carry no offset.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.function.as_deref().unwrap_or("??"))?;
        if let Some(off) = self.offset_in_function {
            write!(f, "+{off:#x}")?;
        }
        if self.inlined {
            f.write_str(" [inlined]")?;
        }
        if let Some(file) = &self.file {
            write!(f, " ({file}:{})", self.line.unwrap_or(0))?;
        }
        if self.module.is_empty() {
            write!(f, " [{:#x}]", self.pc)
        } else {
            write!(f, " [{}]", self.module)
        }
    }
}

/// Renders a frame as `strace -k` does:
/// `module(func+0xoff) [0xmodule_offset]`.
pub struct StraceStyle<'a>(pub &'a Frame);

impl fmt::Display for StraceStyle<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fr = self.0;
        if fr.module.is_empty() {
            return write!(f, "?? [{:#x}]", fr.pc);
        }
        write!(f, "{}(", fr.module)?;
        if let Some(func) = &fr.function {
            f.write_str(func)?;
            if let Some(off) = fr.offset_in_function {
                write!(f, "+{off:#x}")?;
            }
        }
        write!(f, ") [{:#x}]", fr.module_offset.unwrap_or(fr.pc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_gdb_and_strace() {
        let fr = Frame {
            pc: 0x7f00_0001_0194,
            module: "/usr/lib/libc.so.6".into(),
            module_offset: Some(0x10194),
            function: Some("write".into()),
            offset_in_function: Some(0x14),
            file: Some("io/write.c".into()),
            line: Some(26),
            inlined: false,
        };
        assert_eq!(
            fr.to_string(),
            "write+0x14 (io/write.c:26) [/usr/lib/libc.so.6]"
        );
        assert_eq!(
            StraceStyle(&fr).to_string(),
            "/usr/lib/libc.so.6(write+0x14) [0x10194]"
        );
        let inl = Frame {
            function: Some("helper".into()),
            offset_in_function: None,
            inlined: true,
            ..fr.clone()
        };
        assert_eq!(
            inl.to_string(),
            "helper [inlined] (io/write.c:26) [/usr/lib/libc.so.6]"
        );
        let unknown = Frame {
            pc: 0x1234,
            ..Frame::default()
        };
        assert_eq!(unknown.to_string(), "?? [0x1234]");
        assert_eq!(StraceStyle(&unknown).to_string(), "?? [0x1234]");
    }
}
