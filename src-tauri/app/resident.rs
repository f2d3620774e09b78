//! What Hark holds while it waits in the tray with no window.
//!
//! Once the window is gone, most of the app's PSS is pages of its libraries (WebKit,
//! JavaScriptCore, GTK, the app's own code) that the window used and nothing uses now: clean pages,
//! identical to the files on disk, which the kernel keeps mapped into the app until memory runs
//! short. Measured after a window on a 100 000-event session was closed (debug build), such pages
//! were some 90 MB of the app's 120 MB. Unmapping them costs nothing: they stay in the page cache,
//! shared with anything else that uses them, and come back on first use (a window opened again
//! faults them in from memory, not from disk). This is what Android does to apps in the background.
//!
//! Only pages that cannot differ from their file are dropped: mappings that are not writable and
//! hold no page of their own (`Anonymous: 0`; a page written while the library was being loaded,
//! such as its relocated pointers, counts there). Dropping a page that did differ would bring back
//! the file's contents, so the mappings are also limited to the libraries the process started
//! with, which stay mapped where they are for its whole life: a library loaded or unloaded later
//! could take the place of one in the list between reading it and dropping its pages.

use std::sync::OnceLock;

/// The address ranges of the file mappings the process started with.
static STARTED_WITH: OnceLock<Vec<(usize, usize)>> = OnceLock::new();

/// Call first thing in `main`, before any thread starts or any library is loaded.
pub fn remember_libraries() {
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        let _ = STARTED_WITH.set(maps.lines().filter_map(file_mapping).map(|m| (m.start, m.end)).collect());
    }
}

/// Drops the pages of the app's libraries that are the same as their files; returns how many KiB
/// were mapped in them. Call when no window is open.
pub fn drop_unused_library_pages() -> u64 {
    let Some(started_with) = STARTED_WITH.get() else { return 0 };
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else { return 0 };
    let mut dropped_kib = 0;
    for vma in droppable(&smaps) {
        if started_with.binary_search(&(vma.start, vma.end)).is_err() {
            continue;
        }
        #[cfg(target_os = "linux")]
        // SAFETY: the range is a whole mapping of a file the process started with, not writable and
        // holding no page that differs from the file (see the module's comment): dropping its pages
        // only makes the next access read them again from the page cache, as the first one did.
        let dropped =
            unsafe { libc::madvise(vma.start as *mut libc::c_void, vma.end - vma.start, libc::MADV_DONTNEED) == 0 };
        #[cfg(not(target_os = "linux"))]
        let dropped = false;
        if dropped {
            dropped_kib += vma.rss_kib;
        }
    }
    dropped_kib
}

#[derive(Debug, PartialEq)]
struct Mapping {
    start: usize,
    end: usize,
    writable: bool,
    rss_kib: u64,
    anonymous_kib: u64,
}

/// A line of `/proc/PID/maps` (or the header of a mapping in `smaps`) that maps a file, e.g.
/// `7f1c2e000000-7f1c2e400000 r-xp 00100000 08:01 1234  /usr/lib/libwebkit2gtk-4.1.so.0`.
fn file_mapping(line: &str) -> Option<Mapping> {
    let mut fields = line.split_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let perms = fields.next()?;
    let _offset = fields.next()?;
    let _device = fields.next()?;
    let inode = fields.next()?;
    let path = fields.next()?;
    if inode == "0" || !path.starts_with('/') {
        return None;
    }
    Some(Mapping {
        start: usize::from_str_radix(start, 16).ok()?,
        end: usize::from_str_radix(end, 16).ok()?,
        writable: perms.as_bytes().get(1) == Some(&b'w'),
        rss_kib: 0,
        anonymous_kib: 0,
    })
}

/// The file mappings in `smaps` whose pages are all the same as the file's.
fn droppable(smaps: &str) -> Vec<Mapping> {
    let mut out = Vec::new();
    let mut current: Option<Mapping> = None;
    let mut finish = |m: Option<Mapping>| {
        if let Some(m) = m.filter(|m| !m.writable && m.anonymous_kib == 0 && m.rss_kib > 0) {
            out.push(m);
        }
    };
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        // A field is `Key: value`; anything else is the header of the next mapping.
        let Some(key) = first.strip_suffix(':') else {
            finish(current.take());
            current = file_mapping(line);
            continue;
        };
        let Some(m) = current.as_mut() else { continue };
        let kib = words.next().and_then(|v| v.parse::<u64>().ok());
        match key {
            "Rss" => m.rss_kib = kib.unwrap_or(0),
            // A mapping whose count cannot be read is treated as holding pages of its own.
            "Anonymous" => m.anonymous_kib = kib.unwrap_or(u64::MAX),
            _ => {}
        }
    }
    finish(current.take());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d0c0000000-55d0c0400000 r-xp 00100000 08:01 1234                       /usr/bin/hark-desktop
Size:               4096 kB
Rss:                2048 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
55d0c0400000-55d0c0500000 r--p 00500000 08:01 1234                       /usr/bin/hark-desktop
Size:               1024 kB
Rss:                1024 kB
Anonymous:           512 kB
VmFlags: rd mr mw me ac
55d0c0500000-55d0c0510000 rw-p 00600000 08:01 1234                       /usr/bin/hark-desktop
Size:                 64 kB
Rss:                  64 kB
Anonymous:             0 kB
55d0c1000000-55d0c2000000 rw-p 00000000 00:00 0                          [heap]
Size:              16384 kB
Rss:                4096 kB
Anonymous:          4096 kB
7f00000000-7f00001000 r--p 00000000 08:01 99                             /usr/lib/libnotused.so
Size:                  4 kB
Rss:                   0 kB
Anonymous:             0 kB
";

    #[test]
    fn only_mappings_the_same_as_their_file_are_dropped() {
        let found = droppable(SMAPS);
        assert_eq!(
            found,
            [Mapping { start: 0x55d0c0000000, end: 0x55d0c0400000, writable: false, rss_kib: 2048, anonymous_kib: 0 }],
            "the code; not the relocated read-only data, the writable data, the heap, or a mapping with \
             nothing in memory"
        );
    }

    #[test]
    fn a_maps_line_is_read_as_a_file_mapping_or_not() {
        let code = file_mapping("7f1c2e000000-7f1c2e400000 r-xp 00100000 08:01 1234  /usr/lib/libwebkit2gtk-4.1.so.0");
        assert_eq!(code.map(|m| (m.start, m.end, m.writable)), Some((0x7f1c2e000000, 0x7f1c2e400000, false)));
        assert!(file_mapping("7f1c2e000000-7f1c2e400000 rw-p 00000000 00:00 0").is_none(), "anonymous");
        assert!(file_mapping("7ffd1000-7ffd2000 r-xp 00000000 00:00 0  [vdso]").is_none());
        assert!(file_mapping("7f1c2e000000-7f1c2e400000 rw-p 00000000 08:01 12  /lib/x.so").is_some_and(|m| m.writable));
    }
}
