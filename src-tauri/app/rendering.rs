//! How the webview draws on a machine without a GPU.
//!
//! WebKitGTK composites its pages through OpenGL. Without a GPU that means Mesa's software
//! rasteriser (llvmpipe) and its threads and buffers in the web process: measured on a GPU-less
//! machine, the web process holds about 190 MB with a session open, against about 107 MB when it
//! draws without compositing, and Hark's pages (text, a panel, no 3D or video) look the same
//! either way. So without a render node, Hark asks WebKit not to composite. A machine with a GPU
//! is left as it is, and so is anyone who set the variable themselves.
//!
//! GTK on X11 also sets up OpenGL when it opens the display, whether or not anything draws with it;
//! without a GPU that loads the same rasteriser and LLVM into the app's own process: about 32 MB of
//! its PSS for as long as it runs, with or without a window (measured with Hark waiting in the tray).
//! Nothing of Hark's draws with GTK's OpenGL once WebKit does not composite, so it is turned off too.
//!
//! WebKit's own side of the app process does the same the first time a window loads its page: it
//! opens an EGL display to find the GPU's render node and to learn whether pages may hand their
//! frames over as DMA-BUFs. Without a GPU both answers are "none", yet asking loads llvmpipe and
//! LLVM, which stay mapped after the window is gone: about 30 MB of the app's PSS while it waits in
//! the tray (measured after a window on a 100 000-event session was closed). Saying so up front (no
//! DMA-BUF renderer, and a render node that does not exist) skips the question; a page that does not
//! composite uses neither.

use std::path::Path;

/// Each variable, and the value it is given on a machine without a GPU.
const VARIABLES: [(&str, &str); 4] = [
    ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
    ("GDK_GL", "disable"),
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
    ("WEBKIT_WEB_RENDER_DEVICE_FILE", NO_RENDER_NODE),
];

/// A path that is no device: WebKit only takes a non-empty value as the answer, and anything that
/// tried to open it would fail as it would find no GPU.
const NO_RENDER_NODE: &str = "/dev/dri/no-render-node";

/// Call before Tauri starts (no other thread reads the environment yet).
pub fn choose() {
    if !cfg!(target_os = "linux") || has_render_node(Path::new("/dev/dri")) {
        return;
    }
    for (variable, value) in VARIABLES {
        if std::env::var_os(variable).is_none() {
            std::env::set_var(variable, value);
        }
    }
}

/// Whether `dri` holds a DRM render node (`renderD128`...), the device a GPU-backed GL context uses.
fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri)
        .is_ok_and(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_node_is_a_gpu_and_anything_else_is_not() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_render_node(&dir.path().join("missing")), "no /dev/dri at all");
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(!has_render_node(dir.path()), "a display card without a render node");
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dir.path()));
    }
}
