//! User-space probes, shared by the tools that place them (`rtrace break`,
//! rltrace, `rtrace record --probe`): where a probe goes ([`spec`] as users
//! write it, [`resolve`]d to addresses through the symbols, [`imports`] for
//! the PLT and GOT calls rltrace traces), its condition ([`cond`]), and how
//! the ptrace backends plant it ([`space`]: INT3 sites and the out-of-line
//! page, undone on every way out; [`shadow`]: the stack of hijacked
//! returns; [`tasks`]: which threads share which space, through forks,
//! execs and detaches).

pub mod cond;
pub mod disasm;
pub mod frames;
pub mod imports;
pub mod resolve;
pub mod shadow;
pub mod space;
pub mod spec;
pub mod tasks;

/// Which mechanism counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Kernel uprobes when possible, else ptrace.
    #[default]
    Auto,
    /// INT3 breakpoints through ptrace.
    Ptrace,
    /// Kernel uprobes (an error when they cannot do what is asked).
    Kernel,
}

impl Backend {
    /// Parses `--backend` values.
    pub fn parse(s: &str) -> Result<Backend, String> {
        match s {
            "auto" => Ok(Backend::Auto),
            "ptrace" => Ok(Backend::Ptrace),
            "kernel" => Ok(Backend::Kernel),
            _ => Err(format!(
                "--backend: '{s}' is not one of auto, ptrace, kernel"
            )),
        }
    }
}
