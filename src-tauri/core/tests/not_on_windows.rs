//! The test files of hark-core that cannot run on Windows, each named with why, so a Windows run
//! lists them as ignored instead of leaving them out unsaid. Their own files are `#![cfg(unix)]`.
#![cfg(windows)]

#[test]
#[ignore = "control: the Unix control socket (its file mode, its peer's uid); the named pipe is control_windows"]
fn control() {}
