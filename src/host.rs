//! Facts of the machine the simulator runs on (not of the simulated one): its memory, and what
//! Linux says of this process. The ground floor: it uses nothing of the crate.

/// This machine's memory in bytes (`sysconf`), or 16 GiB where it cannot be asked.
pub(crate) fn machine_memory() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf reads a system figure; a failure is -1, handled below
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && size > 0 {
            return (pages as u64).saturating_mul(size as u64);
        }
    }
    16 << 30
}

/// A `key: N kB` line of a Linux /proc file, in bytes (None elsewhere).
pub(crate) fn proc_bytes(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_machine_has_memory_and_this_process_a_peak() {
        assert!(super::machine_memory() >= 1 << 20);
        #[cfg(target_os = "linux")]
        assert!(super::proc_bytes("/proc/self/status", "VmHWM:").unwrap() > 0);
        assert_eq!(super::proc_bytes("/proc/self/status", "NoSuchKey:"), None);
    }
}
