//! Signalling what a test started, through the syscall and never the `kill` binary: procps-ng's
//! `kill` reads some bare negative pids (`kill -KILL -178`) as `-1`, which signals every process the
//! user may signal. Pids 0 and 1 are refused outright: 0 is the test's own group, 1 is init.

use std::io;

fn checked(id: u32, what: &str) -> io::Result<libc::pid_t> {
    match libc::pid_t::try_from(id) {
        Ok(id) if id > 1 => Ok(id),
        _ => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("refusing to signal {what} {id}"))),
    }
}

fn done(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sends `signal` to every process of the group `pgid` (a child spawned with `process_group(0)`).
pub fn signal_group(pgid: u32, signal: libc::c_int) -> io::Result<()> {
    let pgid = checked(pgid, "process group")?;
    // SAFETY: killpg only sends a signal; the group id was checked to be a real group above 1.
    done(unsafe { libc::killpg(pgid, signal) })
}

/// Sends `signal` to the one process `pid`.
pub fn signal_process(pid: u32, signal: libc::c_int) -> io::Result<()> {
    let pid = checked(pid, "process")?;
    // SAFETY: a positive pid names exactly one process; kill only sends it a signal.
    done(unsafe { libc::kill(pid, signal) })
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;
    use std::process::Command;
    use std::time::{Duration, Instant};

    use super::*;

    /// The live (not yet reaped or zombie) processes whose process group is `pgid`.
    fn live_members(pgid: u32) -> Vec<u32> {
        std::fs::read_dir("/proc")
            .expect("/proc")
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
                let Some((_, rest)) = stat.rsplit_once(") ") else { return false };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.first() != Some(&"Z") && fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid)
            })
            .collect()
    }

    #[test]
    fn a_group_is_killed_whole_and_nothing_outside_it() {
        // A bystander in a group of its own, and a group with a parent and two grandchildren.
        let mut bystander = Command::new("sleep").arg("30").process_group(0).spawn().expect("spawn sleep");
        let mut group =
            Command::new("sh").args(["-c", "sleep 30 & sleep 30 & wait"]).process_group(0).spawn().expect("spawn sh");
        let pgid = group.id();
        let start = Instant::now();
        while live_members(pgid).len() < 3 {
            assert!(start.elapsed() < Duration::from_secs(10), "the group did not start: {:?}", live_members(pgid));
            std::thread::sleep(Duration::from_millis(20));
        }

        signal_group(pgid, libc::SIGKILL).expect("killpg");
        group.wait().expect("reap sh");
        let start = Instant::now();
        while !live_members(pgid).is_empty() {
            assert!(start.elapsed() < Duration::from_secs(10), "left alive: {:?}", live_members(pgid));
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(bystander.try_wait().expect("bystander status"), None, "the bystander must live on");
        signal_process(bystander.id(), libc::SIGKILL).expect("kill the bystander");
        bystander.wait().expect("reap the bystander");
    }

    #[test]
    fn pids_zero_and_one_are_refused_before_any_signal() {
        for id in [0, 1, u32::MAX] {
            // Signal 0 only checks permission; a refused id must not even get that far.
            let group = signal_group(id, 0).expect_err("refused");
            assert_eq!(group.kind(), io::ErrorKind::InvalidInput, "{id}");
            let process = signal_process(id, 0).expect_err("refused");
            assert_eq!(process.kind(), io::ErrorKind::InvalidInput, "{id}");
        }
    }
}
