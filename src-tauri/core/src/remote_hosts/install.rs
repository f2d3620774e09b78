//! The `hark` on a remote host: which one it has (looked up over the person's ssh) and, when it has
//! none or another version, this one copied there, at a fixed path in the remote user's home. The
//! copy lands whole or not at all: it goes to a temporary file that must have every byte and run as
//! this version before it takes the place of the old one.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use super::ssh::{last_words, ssh};
use crate::control::this_build;
use crate::error::CodedError;

/// Where Hark puts its binary on a remote host, from the remote user's home.
pub const REMOTE_BINARY: &str = ".local/bin/hark";
/// The line a remote host with no `hark` answers the probe with.
const MISSING: &str = "no-hark";

/// What a remote host runs and which `hark` it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteHark {
    /// `uname -s`: Linux, Darwin, ...
    pub system: String,
    /// `uname -m`: x86_64, aarch64, arm64, ...
    pub machine: String,
    /// What its `hark --version` says ("hark 0.1.0"); `None` when it has none.
    pub version: Option<String>,
}

impl RemoteHark {
    /// Whether its `hark` is this very version.
    pub fn is_this_build(&self) -> bool {
        self.version.as_deref() == Some(this_build().as_str())
    }

    /// Whether this binary can run there: the same system and processor family.
    pub fn runs_this_binary(&self) -> bool {
        same_system(&self.system, &self.machine, std::env::consts::OS, std::env::consts::ARCH)
    }
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum InstallError {
    #[error("Could not look at {host} over ssh: {reason}")]
    Unreachable { host: String, reason: String },
    #[error(
        "{host} runs {system} {machine}, and this hark is built for {os} {arch}: it cannot run there. Build or install hark for that system and put it at ~/{REMOTE_BINARY} on {host}"
    )]
    OtherSystem { host: String, system: String, machine: String, os: &'static str, arch: &'static str },
    #[error("Could not copy hark to {host}:~/{REMOTE_BINARY}: {reason} (nothing was replaced there)")]
    Copy { host: String, reason: String },
}

impl CodedError for InstallError {
    fn name(&self) -> &str {
        "RemoteInstallError"
    }
    fn code(&self) -> &str {
        match self {
            InstallError::Unreachable { .. } => "REMOTE_UNREACHABLE",
            InstallError::OtherSystem { .. } => "REMOTE_OTHER_SYSTEM",
            InstallError::Copy { .. } => "REMOTE_COPY_FAILED",
        }
    }
}

/// Which system `host` runs and which `hark` it has: the one at [`REMOTE_BINARY`], else the one on
/// the PATH its ssh sessions get.
pub fn probe(host: &str) -> Result<RemoteHark, InstallError> {
    super::check_host(host).map_err(|e| InstallError::Unreachable { host: host.into(), reason: e.to_string() })?;
    let script = format!("uname -s; uname -m; {}", version_script());
    let unreachable = |reason: String| InstallError::Unreachable { host: host.into(), reason };
    let output = ssh(&[host, &script])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| unreachable(format!("ssh could not start: {e}")))?;
    if !output.status.success() {
        return Err(unreachable(last_words(&output.stderr, "ssh failed")));
    }
    let said = String::from_utf8_lossy(&output.stdout);
    let mut lines = said.lines().map(str::trim);
    match (lines.next(), lines.next(), lines.next()) {
        (Some(system), Some(machine), Some(version)) if !system.is_empty() && !machine.is_empty() => Ok(RemoteHark {
            system: system.to_string(),
            machine: machine.to_string(),
            version: (version != MISSING).then(|| version.to_string()),
        }),
        _ => Err(unreachable(format!("its shell did not answer as a POSIX shell does: {said:?}"))),
    }
}

/// Shell that prints one line: the `--version` of the host's `hark` (the one at [`REMOTE_BINARY`],
/// else the one on the PATH), or a line [`version_said`] reads as none.
pub(crate) fn version_script() -> String {
    format!(
        "h=\"$HOME/{REMOTE_BINARY}\"; [ -x \"$h\" ] || h=$(command -v hark) || h=; \
         if [ -n \"$h\" ]; then \"$h\" --version 2>&1 | head -n 1; else echo {MISSING}; fi"
    )
}

/// The version [`version_script`] printed; `None` when the host has no `hark`.
pub(crate) fn version_said(line: &str) -> Option<String> {
    let line = line.trim();
    (line != MISSING && !line.is_empty()).then(|| line.to_string())
}

/// Copies `binary` (this build's `hark`) to `host`'s [`REMOTE_BINARY`], refusing a host of another
/// system. The old file there is replaced only by a whole copy that runs there as this version.
pub fn copy(host: &str, remote: &RemoteHark, binary: &Path) -> Result<(), InstallError> {
    if !remote.runs_this_binary() {
        return Err(InstallError::OtherSystem {
            host: host.into(),
            system: remote.system.clone(),
            machine: remote.machine.clone(),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
        });
    }
    let failed = |reason: String| InstallError::Copy { host: host.into(), reason };
    let bytes = std::fs::read(binary).map_err(|e| failed(format!("{} could not be read: {e}", binary.display())))?;
    let version = this_build();
    // A connection cut short ends `cat` as if the file were complete: the size says otherwise.
    let script = format!(
        "set -e; d=\"$HOME/{dir}\"; t=\"$d/hark.tmp\"; mkdir -p \"$d\"; trap 'rm -f \"$t\"' EXIT; \
         cat > \"$t\"; n=$(wc -c < \"$t\"); if [ $((n)) -ne {size} ]; then echo \"only $((n)) of {size} bytes arrived\" >&2; exit 1; fi; \
         chmod 755 \"$t\"; v=$(\"$t\" --version 2>&1) || {{ echo \"the copy does not run there: $v\" >&2; exit 1; }}; \
         if [ \"$v\" != \"{version}\" ]; then echo \"the copy says $v\" >&2; exit 1; fi; mv -f \"$t\" \"$d/hark\"",
        dir = REMOTE_BINARY.trim_end_matches("/hark"),
        size = bytes.len(),
    );
    let mut child = ssh(&[host, &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("ssh could not start: {e}")))?;
    let sent = child.stdin.take().map(|mut stdin| stdin.write_all(&bytes));
    let output = child.wait_with_output().map_err(|e| failed(format!("ssh failed: {e}")))?;
    if !output.status.success() {
        return Err(failed(last_words(&output.stderr, "ssh failed")));
    }
    match sent {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(failed(format!("sending it failed: {e}"))),
        None => Err(failed("ssh took no input".into())),
    }
}

/// Whether a host whose `uname -s` and `uname -m` say `system` and `machine` runs binaries built for
/// Rust's `os` and `arch`.
fn same_system(system: &str, machine: &str, os: &str, arch: &str) -> bool {
    let system = match system.to_ascii_lowercase().as_str() {
        "darwin" => "macos".to_string(),
        other => other.to_string(),
    };
    let machine = match machine {
        "amd64" => "x86_64",
        "arm64" => "aarch64",
        "i386" | "i486" | "i586" | "i686" => "x86",
        m if m.starts_with("armv") => "arm",
        m => m,
    };
    system == os && machine == arch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_runs_this_binary_only_on_the_same_system_and_processor() {
        assert!(same_system("Linux", "x86_64", "linux", "x86_64"));
        assert!(same_system("Linux", "aarch64", "linux", "aarch64"));
        assert!(same_system("Darwin", "arm64", "macos", "aarch64"));
        assert!(same_system("FreeBSD", "amd64", "freebsd", "x86_64"));
        assert!(!same_system("Linux", "aarch64", "linux", "x86_64"));
        assert!(!same_system("Darwin", "x86_64", "linux", "x86_64"));
        assert!(!same_system("Linux", "armv7l", "linux", "aarch64"));
        let other = RemoteHark { system: "Plan9".into(), machine: "mips".into(), version: None };
        let refused = copy("devbox", &other, Path::new("/nonexistent")).unwrap_err();
        assert_eq!(refused.code(), "REMOTE_OTHER_SYSTEM");
        assert!(refused.to_string().contains("devbox runs Plan9 mips"), "{refused}");
    }
}
