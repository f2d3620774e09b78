//! How the webview draws on a machine without a GPU.
//!
//! WebKitGTK composites its pages through OpenGL. Without a GPU that means Mesa's software
//! rasteriser (llvmpipe) and its threads and buffers in the web process: measured on a GPU-less
//! machine, the web process holds about 190 MB with a session open, against about 107 MB when it
//! draws without compositing, and Hark's pages (text, a panel, no 3D or video) look the same
//! either way. So without a render node, Hark asks WebKit not to composite. A machine with a GPU
//! is left as it is, and so is anyone who set the variable themselves.

use std::path::Path;

const VARIABLE: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Call before Tauri starts (no other thread reads the environment yet).
pub fn choose() {
    if cfg!(target_os = "linux") && std::env::var_os(VARIABLE).is_none() && !has_render_node(Path::new("/dev/dri")) {
        std::env::set_var(VARIABLE, "1");
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
