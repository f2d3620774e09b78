//! The app's control socket: while the window hosts the data directory, the `hark` CLI answers its
//! questions through it (see `hark_core::control`), exactly as a notification does, and outside
//! agents ask through it (`hark mcp`).

use std::sync::Arc;
#[cfg(any(unix, windows))]
use std::sync::Mutex;

#[cfg(any(unix, windows))]
use hark_core::control::{ControlServer, Handler};

use crate::hub::Hub;

/// The listening socket (a named pipe on Windows), held until quit.
#[derive(Default)]
pub struct ControlSocket {
    #[cfg(any(unix, windows))]
    server: Mutex<Option<ControlServer>>,
}

impl ControlSocket {
    /// Listens in the hub's data directory. A failure (another app answers there, the path is too
    /// long for a socket) costs only the CLI's way in, so it is reported and the app goes on.
    pub fn start(hub: &Arc<Hub>) -> ControlSocket {
        let socket = ControlSocket::default();
        #[cfg(any(unix, windows))]
        {
            let dir = hub.data_dir().to_path_buf();
            let handler = handler(hub);
            match tauri::async_runtime::block_on(async move { hark_core::control::serve(&dir, handler) }) {
                Ok(server) => *hark_core::sync::lock(&socket.server) = Some(server),
                Err(e) => eprintln!("hark-desktop: no control socket for the CLI: {e}"),
            }
        }
        #[cfg(not(any(unix, windows)))]
        let _ = hub;
        socket
    }

    /// Stops answering and waits for the answers already taken (before the host shuts down, so no
    /// answer arrives during it).
    pub async fn stop(&self) {
        #[cfg(any(unix, windows))]
        {
            let server = hark_core::sync::lock(&self.server).take();
            if let Some(server) = server {
                server.shutdown().await;
            }
        }
    }
}

/// The host's own handler: an answer from another front door takes the notification's path, and
/// an outside agent's question is shown as the app's own are.
#[cfg(any(unix, windows))]
fn handler(hub: &Arc<Hub>) -> Handler {
    hark_core::host::control_handler(hub.host())
}
