//! CPU masks for the pinning tests: what `testprogs/pin_probe.c` reports
//! of the mask the kernel applies ("real WHO LIST" lines), and every
//! thread's `Cpus_allowed_list` of a live process.

/// The "real WHO LIST" lines of pin_probe's stderr: (WHO, CPU list).
pub fn real_masks(stderr: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("real "))
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(who, list)| (who.to_string(), list.to_string()))
        .collect()
}

/// The CPU list of `who` among [`real_masks`]' rows (panics if missing).
pub fn real_of(rows: &[(String, String)], who: &str) -> String {
    rows.iter()
        .find(|(w, _)| w == who)
        .unwrap_or_else(|| panic!("no real mask of {who}: {rows:?}"))
        .1
        .clone()
}

/// Whether a CPU list names a single CPU.
pub fn single_cpu(list: &str) -> bool {
    list.parse::<u32>().is_ok()
}

/// Every thread's `Cpus_allowed_list` of process `pid`, by tid.
pub fn thread_masks(pid: u32) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("task dir")
        .filter_map(|e| e.ok())
        .map(|e| {
            let tid = e.file_name().to_string_lossy().into_owned();
            let st = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
            let list = st
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .unwrap_or("")
                .trim()
                .to_string();
            (tid, list)
        })
        .collect();
    v.sort();
    v
}
