//! A private copy of a program for tests that run a kernel-backend tool on
//! it: uprobes belong to a file and are put in every process that maps it,
//! so a kernel-backend run of one test would trap in another test's ptrace
//! run (rltrace's, or ltrace's) of the same file.

use std::path::{Path, PathBuf};

/// A copy of a program (same file name) in a directory of its own,
/// removed on drop.
pub struct PrivateCopy {
    dir: PathBuf,
    path: PathBuf,
}

impl PrivateCopy {
    /// Copies `prog` into a new directory.
    pub fn new(prog: &Path) -> PrivateCopy {
        let dir = super::temp_path("bin");
        std::fs::create_dir_all(&dir).expect("create a directory for the copy");
        let path = dir.join(prog.file_name().expect("a file name"));
        std::fs::copy(prog, &path).expect("copy the program");
        PrivateCopy { dir, path }
    }

    /// The copy.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::ops::Deref for PrivateCopy {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for PrivateCopy {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
