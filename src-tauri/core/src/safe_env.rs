//! Which of Hark's environment variables the programs it starts inherit. Hark's environment holds
//! secrets meant for Hark alone (model keys, tokens the person exported for other programs, or, for
//! an app `hark mcp` starts, whatever the calling agent had): a started program gets only what it
//! needs to run, and whatever its own configuration names.

/// What a stdio server inherits from Hark's environment: what a program needs to find its tools,
/// its home, the locale, a display or session bus. Everything else (the model vendors' keys, Hark's
/// own `HARK_*` settings, tokens the person exported for other programs) stays with Hark; an entry
/// that means to give a value to its server names it in its own `env`.
const INHERITED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "TZ",
    "TMPDIR",
    "TERM",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XDG_RUNTIME_DIR",
    "DBUS_SESSION_BUS_ADDRESS",
];
/// On Windows a program also needs the system folder (without `SystemRoot` many cannot even load
/// their libraries), the profile folders, and how commands are found and run.
#[cfg(windows)]
const INHERITED_ENV_WINDOWS: &[&str] =
    &["SystemRoot", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "TEMP", "TMP", "PATHEXT", "COMSPEC"];
#[cfg(not(windows))]
const INHERITED_ENV_WINDOWS: &[&str] = &[];

/// Whether an MCP stdio server inherits Hark's variable `name`: a listed one or a locale category
/// (`LC_*`). Windows spells variable names in any case.
pub fn for_servers(name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else { return false };
    let same = |a: &str, b: &str| if cfg!(windows) { a.eq_ignore_ascii_case(b) } else { a == b };
    let listed = INHERITED_ENV.iter().chain(INHERITED_ENV_WINDOWS).any(|allowed| same(allowed, name));
    listed || name.get(..3).is_some_and(|prefix| same(prefix, "LC_"))
}

/// What the desktop app inherits when a front door (`hark mcp`, a hook) starts it: what a server
/// gets, and what a window needs to reach the display, the desktop's settings and its toolkits.
pub fn for_desktop(name: &std::ffi::OsStr) -> bool {
    const DESKTOP_PREFIXES: &[&str] = &["XDG_", "GDK_", "GTK_", "WEBKIT_", "GIO_", "GSETTINGS_", "LIBGL_", "MESA_"];
    const DESKTOP: &[&str] = &["XAUTHORITY", "NO_AT_BRIDGE", "DESKTOP_SESSION", "XCURSOR_THEME", "XCURSOR_SIZE"];
    if for_servers(name) {
        return true;
    }
    let Some(name) = name.to_str() else { return false };
    DESKTOP.contains(&name) || DESKTOP_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_and_what_a_program_needs_goes() {
        let given = |name: &str| (for_servers(name.as_ref()), for_desktop(name.as_ref()));
        for secret in [
            "OPENAI_API_KEY",
            "DEEPSEEK_API_KEY",
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "HARK_DATA_DIR",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert_eq!(given(secret), (false, false), "{secret}");
        }
        for needed in ["PATH", "HOME", "LANG", "LC_ALL", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] {
            assert_eq!(given(needed), (true, true), "{needed}");
        }
        for window in ["XAUTHORITY", "XDG_DATA_DIRS", "GDK_BACKEND", "WEBKIT_DISABLE_DMABUF_RENDERER"] {
            assert_eq!(given(window), (false, true), "{window}");
        }
    }
}
