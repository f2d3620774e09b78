//! The first line of every control connection: which version of the protocol each side speaks.
//!
//! A client sends `{"op":"hello","protocol":N,"by":…}` and its request at once; the host replies
//! `{"result":"hello","protocol":N,…}` and then answers the request, or refuses the connection
//! `VERSION_MISMATCH` when the versions differ. So a `hark` and an app of different builds say
//! plainly that they do not match, instead of failing to parse each other's lines.

use serde::{Deserialize, Serialize};

use super::{refusal, ControlError, Reply, Request};
use crate::error::BoundaryError;

/// The control protocol's version. Raise it whenever a request or reply changes in a way the other
/// side of an older build could misread.
pub const PROTOCOL: u32 = 3;

/// What the client says first. Fields a newer build adds are ignored: the version is what decides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename = "hello")]
pub struct Hello {
    pub protocol: u32,
    /// The client's program and version, for the message a mismatch gets.
    pub by: String,
}

/// This build, as it introduces itself.
pub fn this_build() -> String {
    format!("hark {}", env!("CARGO_PKG_VERSION"))
}

/// The two lines a client sends: its hello and its request.
pub(super) fn client_lines(request: &Request) -> Result<Vec<u8>, ControlError> {
    let protocol = |e: serde_json::Error| ControlError::Protocol(e.to_string());
    let mut lines = serde_json::to_vec(&Hello { protocol: PROTOCOL, by: this_build() }).map_err(protocol)?;
    lines.push(b'\n');
    lines.extend(serde_json::to_vec(request).map_err(protocol)?);
    lines.push(b'\n');
    Ok(lines)
}

/// The host's side: whether the connection's first line is a hello of this protocol. `Err` is the
/// refusal to send (and the connection ends).
pub(super) fn check(line: &[u8]) -> Result<(), BoundaryError> {
    let value: serde_json::Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => return Err(refusal("BAD_REQUEST", format!("not a control request: {e}"))),
    };
    if value.get("op").and_then(|op| op.as_str()) == Some("hello") {
        return match serde_json::from_value::<Hello>(value) {
            Ok(hello) if hello.protocol == PROTOCOL => Ok(()),
            Ok(hello) => Err(mismatch(&format!(
                "{} speaks control protocol {}, this {} speaks {PROTOCOL}",
                hello.by,
                hello.protocol,
                this_build()
            ))),
            Err(e) => Err(refusal("BAD_REQUEST", format!("not a control hello: {e}"))),
        };
    }
    // A request with no hello before it comes from a build older than the hello itself.
    match serde_json::from_value::<Request>(value) {
        Ok(_) => Err(mismatch(&format!(
            "the client is an older Hark that sends no hello (control protocol 0), this {} speaks {PROTOCOL}",
            this_build()
        ))),
        Err(e) => Err(refusal("BAD_REQUEST", format!("not a control request: {e}"))),
    }
}

/// The host's reply to a hello it accepted.
pub(super) fn welcome() -> Reply {
    Reply::Hello { protocol: PROTOCOL, host: this_build() }
}

fn mismatch(detail: &str) -> BoundaryError {
    refusal("VERSION_MISMATCH", format!("{detail}: use the same version of Hark on both sides"))
}

/// The client's side: what the host's first line says. `Ok(None)`: the hello was accepted and the
/// request's replies follow. `Ok(Some(reply))`: the host refused the connection for another reason
/// (busy, not this user), which is the request's reply. `Err`: the versions do not match, or the
/// host is a build from before the hello.
pub(super) fn greeted(line: &str) -> Result<Option<Reply>, ControlError> {
    let old_host = || ControlError::VersionMismatch {
        detail: format!(
            "the running Hark is an older build that does not know the control hello; this {} speaks control \
             protocol {PROTOCOL}: use the same version of Hark on both sides",
            this_build()
        ),
    };
    let reply: Reply = match serde_json::from_str(line) {
        Ok(reply) => reply,
        // A newer host may answer with a reply this build has no name for.
        Err(e) => {
            return Err(ControlError::VersionMismatch {
                detail: format!("the running Hark replied with a line this {} cannot read ({e})", this_build()),
            })
        }
    };
    match reply {
        Reply::Hello { protocol, .. } if protocol == PROTOCOL => Ok(None),
        Reply::Hello { protocol, host } => Err(ControlError::VersionMismatch {
            detail: format!(
                "{host} speaks control protocol {protocol}, this {} speaks {PROTOCOL}: use the same version of Hark \
                 on both sides",
                this_build()
            ),
        }),
        Reply::Refused { error } if error.code == "VERSION_MISMATCH" => {
            Err(ControlError::VersionMismatch { detail: error.message })
        }
        // An older host reads the hello as a request it does not know.
        Reply::Refused { error } if error.code == "BAD_REQUEST" && error.message.contains("hello") => Err(old_host()),
        refusal @ Reply::Refused { .. } => Ok(Some(refusal)),
        _ => Err(old_host()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(protocol: u32) -> Vec<u8> {
        serde_json::to_vec(&Hello { protocol, by: "hark 9.9.9".into() }).unwrap()
    }

    fn code(error: BoundaryError) -> String {
        error.code
    }

    #[test]
    fn the_host_accepts_its_own_protocol_and_names_both_versions_otherwise() {
        assert_eq!(check(&hello(PROTOCOL)), Ok(()));
        let Err(error) = check(&hello(PROTOCOL + 1)) else { panic!("accepted") };
        assert_eq!(error.code, "VERSION_MISMATCH");
        let newer = format!("hark 9.9.9 speaks control protocol {}", PROTOCOL + 1);
        assert!(error.message.contains(&newer), "{}", error.message);
        assert!(error.message.contains(&this_build()), "{}", error.message);
        // An older client's bare request, and things that are no request at all.
        let bare = serde_json::to_vec(&Request::Settings).unwrap();
        assert_eq!(code(check(&bare).unwrap_err()), "VERSION_MISMATCH");
        assert_eq!(code(check(b"{\"op\":\"delete_everything\"}").unwrap_err()), "BAD_REQUEST");
        assert_eq!(code(check(b"not json").unwrap_err()), "BAD_REQUEST");
        assert_eq!(code(check(b"{\"op\":\"hello\",\"protocol\":\"x\"}").unwrap_err()), "BAD_REQUEST");
    }

    #[test]
    fn the_client_reads_a_mismatch_an_older_host_and_other_refusals() {
        let line = |reply: &Reply| serde_json::to_string(reply).unwrap();
        assert!(matches!(greeted(&line(&welcome())), Ok(None)));
        let newer = Reply::Hello { protocol: PROTOCOL + 1, host: "hark 9.9.9".into() };
        assert!(matches!(greeted(&line(&newer)), Err(ControlError::VersionMismatch { .. })));
        let Err(error) = check(&hello(PROTOCOL + 1)) else { panic!("accepted") };
        assert!(matches!(greeted(&line(&Reply::Refused { error })), Err(ControlError::VersionMismatch { .. })));
        // What a host from before the hello answers it with.
        let old = super::super::refused(
            "BAD_REQUEST",
            "not a control request: unknown variant `hello`, expected one of `answer`",
        );
        let Err(e) = greeted(&line(&old)) else { panic!("taken for a welcome") };
        assert_eq!(crate::error::CodedError::code(&e), "VERSION_MISMATCH");
        assert!(matches!(greeted("{\"result\":\"teleported\"}"), Err(ControlError::VersionMismatch { .. })));
        let busy = super::super::refused("BUSY", "too many");
        assert_eq!(greeted(&line(&busy)).unwrap(), Some(busy));
    }
}
