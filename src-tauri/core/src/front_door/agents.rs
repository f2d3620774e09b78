//! The agents' door: a socket that serves only what an outside agent needs to ask the person (its
//! settings, ask, its answers, a call's state, withdraw). It is the one forwarded to other machines,
//! so whoever reaches it there can ask the person and nothing more: no session list, no
//! transcripts, no answering, no starting sessions. Every request is tagged with the host it came
//! through, so the person sees where a question comes from.

use std::sync::Arc;

use super::serve::control_handler;
use crate::control::{single, Handler, Reply, Request};
use crate::error::BoundaryError;
use crate::host::{plain_name, ClientId, Host};

/// The code of a request the agents' door does not serve.
pub const AGENTS_ONLY: &str = "AGENTS_DOOR_ONLY";

impl Host {
    /// Opens an agents' door for agents on the remote host `via`, at a socket of this user's alone.
    /// It closes when the returned server is dropped.
    #[cfg(unix)]
    pub fn serve_agents(self: &Arc<Self>, via: &str) -> std::io::Result<crate::control::ControlServer> {
        let folder = crate::data_dir::private::ensure_user_folder()?;
        let key = format!("{}\n{via}", self.data_dir().display());
        let hash = crate::data_dir::stable_hash(key.as_bytes());
        let path = folder.join(format!("agents-{hash:016x}.sock"));
        crate::control::serve_at(&path, agents_handler(Arc::clone(self), via))
    }

    #[cfg(not(unix))]
    pub fn serve_agents(self: &Arc<Self>, _via: &str) -> std::io::Result<crate::control::ControlServer> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "agents on other machines need a Unix socket"))
    }
}

/// The agents' door's handler for requests that came through the remote host `via`.
pub fn agents_handler(host: Arc<Host>, via: &str) -> Handler {
    let inner = control_handler(host);
    let via = via.to_string();
    Arc::new(move |request, gone| match admit(request, &via) {
        Ok(request) => inner(request, gone),
        Err(error) => single(async move { Reply::Refused { error } }),
    })
}

/// The request as the host takes it from `via`, or why it is refused.
fn admit(request: Request, via: &str) -> Result<Request, BoundaryError> {
    Ok(match request {
        Request::Settings => Request::Settings,
        Request::Ask { client, settings, arguments, call_id } => {
            Request::Ask { client: from(client, via), settings, arguments, call_id }
        }
        Request::Answers { client, calls } => Request::Answers { client: from(client, via), calls },
        Request::Call { client, call_id } => Request::Call { client: from(client, via), call_id },
        Request::Withdraw { client, call_id, reason } => {
            Request::Withdraw { client: from(client, via), call_id, reason }
        }
        Request::Approve { client, request } => Request::Approve { client: from(client, via), request },
        Request::EndApprovals { client, request, reason } => {
            Request::EndApprovals { client: from(client, via), request, reason }
        }
        Request::Form { client, request } => Request::Form { client: from(client, via), request },
        other => {
            let op = format!("{other:?}");
            let op = op.split([' ', '{', '(']).next().unwrap_or("This request");
            return Err(BoundaryError::new(
                "FrontDoorError",
                AGENTS_ONLY,
                format!("{op} is not served to agents on other machines: this door lets an agent ask the person, nothing more"),
            ));
        }
    })
}

/// The client as it came through `via`: its name says the host ("Claude Code on devbox") and its
/// folder is the host's, so a remote agent never shares a session with one of this machine.
fn from(client: ClientId, via: &str) -> ClientId {
    ClientId {
        name: format!("{} on {via}", plain_name(&client.name)),
        cwd: format!("{via}:{}", client.cwd),
        asker: client.asker,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> ClientId {
        ClientId { name: "claude-code".into(), cwd: "/home/ada/notes-app".into(), asker: None }
    }

    #[test]
    fn only_what_an_agent_needs_passes_and_it_is_tagged_with_its_host() {
        let ask = Request::Call { client: client(), call_id: "c1".into() };
        let Ok(Request::Call { client, .. }) = admit(ask, "devbox") else { panic!("a call's state is an agent's") };
        assert_eq!(client.name, "Claude Code on devbox");
        assert_eq!(client.cwd, "devbox:/home/ada/notes-app");
        assert_eq!(client.title(), "Claude Code on devbox · notes-app");
        for refused in [
            Request::Sessions,
            Request::Inbox,
            Request::Overview { session: None, turns: 1 },
            Request::Questions { session: "s".into() },
            Request::Answer {
                session: "s".into(),
                call_id: "c".into(),
                answers: crate::question::AnswerBatch { answers: vec![] },
                path: None,
            },
            Request::Start { text: "hi".into(), workspace: None, by: None, plan_first: None, ptc: None },
            Request::Send { session: "s".into(), text: "hi".into() },
            Request::Watch { session: None },
        ] {
            let error = admit(refused, "devbox").expect_err("not an agent's");
            assert_eq!(error.code, AGENTS_ONLY, "{error:?}");
        }
    }
}
