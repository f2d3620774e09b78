//! The control pipe on Windows (run under Wine on Linux): a request is answered, every instance is
//! renewed for the next client, bad input gets a clear refusal, a stopped server is simply not
//! there, and a pipe of that name that another user serves is told nothing.
#![cfg(windows)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hark_core::control::{self, ControlError, Handler, Reply, Request};
use hark_core::error::CodedError;
use hark_core::host::AnswerPath;
use hark_core::question::AnswerBatch;
use tokio::io::AsyncReadExt;
use tokio::net::windows::named_pipe::{NamedPipeServer, ServerOptions};
use windows_sys::Win32::Foundation::{LocalFree, ERROR_INVALID_OWNER};
use windows_sys::Win32::Security::Authorization::{
    ConvertStringSecurityDescriptorToSecurityDescriptorW, SDDL_REVISION_1,
};
use windows_sys::Win32::Security::{PSECURITY_DESCRIPTOR, SECURITY_ATTRIBUTES};

/// Answers every request late, naming the call it was given.
fn handler() -> Handler {
    Arc::new(|request, _gone| {
        let reply = match request {
            Request::Answer { session, call_id, .. } => {
                Reply::Answered { session_id: format!("{session}/{call_id}"), path: AnswerPath::Late }
            }
            other => panic!("this test sends only answers, not {other:?}"),
        };
        control::single(std::future::ready(reply))
    })
}

fn answer(call_id: &str) -> Request {
    Request::Answer {
        session: "s1".into(),
        call_id: call_id.into(),
        answers: AnswerBatch { answers: vec![] },
        path: None,
    }
}

async fn ask(dir: &Path, request: Request) -> Result<Reply, ControlError> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || control::request(&dir, &request)).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_answered_one_after_another_and_a_stopped_server_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let server = control::serve(dir.path(), handler()).unwrap();
    for n in 0..5 {
        let reply = ask(dir.path(), answer(&format!("c{n}"))).await.unwrap();
        assert_eq!(reply, Reply::Answered { session_id: format!("s1/c{n}"), path: AnswerPath::Late });
    }

    // A line that is not a request gets the refusal, not a dropped connection.
    let name = control::pipe_name(dir.path());
    let raw = tokio::task::spawn_blocking(move || {
        let mut pipe = std::fs::OpenOptions::new().read(true).write(true).open(&name).unwrap();
        pipe.write_all(b"{\"op\":\"delete_everything\"}\n").unwrap();
        let mut line = String::new();
        BufReader::new(pipe).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let reply: Reply = serde_json::from_str(&raw).unwrap();
    assert!(matches!(reply, Reply::Refused { ref error } if error.code == "BAD_REQUEST"), "{reply:?}");

    server.shutdown().await;
    let gone = ask(dir.path(), answer("late")).await.unwrap_err();
    assert!(matches!(gone, ControlError::Unavailable { .. }), "{gone:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_at_the_same_moment_each_get_their_own_reply() {
    let dir = tempfile::tempdir().unwrap();
    let server = control::serve(dir.path(), handler()).unwrap();
    let asks: Vec<_> = (0..4).map(|n| ask(dir.path(), answer(&format!("p{n}")))).collect();
    let replies = futures_util::future::join_all(asks).await;
    for (n, reply) in replies.into_iter().enumerate() {
        assert_eq!(reply.unwrap(), Reply::Answered { session_id: format!("s1/p{n}"), path: AnswerPath::Late });
    }
    server.shutdown().await;
}

/// What another user's program would make of the predictable pipe name: a pipe owned by that user
/// (a made-up one here), open to everyone so that this user's client can connect.
const SOMEONE_ELSES: &str = "O:S-1-5-21-1-2-3-1001D:(A;;GA;;;WD)";

/// The first instance of the pipe `name`, with the security descriptor `sddl`. `None` where this
/// process may not give the pipe that owner: real Windows lets a user name only themselves (or, with
/// administrator's privileges, anyone); Wine lets any owner be set.
fn pipe_with(name: &str, sddl: &str) -> Option<NamedPipeServer> {
    let sddl: Vec<u16> = sddl.encode_utf16().chain(std::iter::once(0)).collect();
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: `sddl` is a NUL-terminated UTF-16 string; the out pointer is valid.
    let ok = unsafe {
        ConvertStringSecurityDescriptorToSecurityDescriptorW(
            sddl.as_ptr(),
            SDDL_REVISION_1,
            &mut descriptor,
            std::ptr::null_mut(),
        )
    };
    assert_ne!(ok, 0, "{}", std::io::Error::last_os_error());
    let mut attributes = SECURITY_ATTRIBUTES {
        nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
        lpSecurityDescriptor: descriptor,
        bInheritHandle: 0,
    };
    // SAFETY: the attributes and the descriptor they point to outlive the call.
    let created = unsafe {
        ServerOptions::new()
            .first_pipe_instance(true)
            .create_with_security_attributes_raw(name, (&mut attributes as *mut SECURITY_ATTRIBUTES).cast())
    };
    // SAFETY: the descriptor came from ConvertStringSecurityDescriptorToSecurityDescriptorW and is
    // not used after this.
    unsafe { LocalFree(descriptor) };
    match created {
        Ok(pipe) => Some(pipe),
        Err(e) if e.raw_os_error() == Some(ERROR_INVALID_OWNER as i32) => None,
        Err(e) => panic!("the pipe {name} could not be made: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipe_another_user_serves_is_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let name = control::pipe_name(dir.path());
    // Both clients: the blocking one (`hark answer`) and the async one (`hark mcp`, `hark tui`).
    for blocking in [true, false] {
        let Some(mut pipe) = pipe_with(&name, SOMEONE_ELSES) else {
            eprintln!("skipped: this user may not make a pipe another user owns (Wine may)");
            return;
        };
        // What the impostor receives: nothing, its client closes at once.
        let received = tokio::spawn(async move {
            pipe.connect().await.unwrap();
            let mut bytes = vec![0; 4096];
            let n = pipe.read(&mut bytes).await.unwrap_or(0);
            bytes.truncate(n);
            bytes
        });
        let refused = if blocking {
            ask(dir.path(), answer("secret")).await.unwrap_err()
        } else {
            control::call(dir.path(), &answer("secret")).await.unwrap_err()
        };
        assert!(matches!(refused, ControlError::NotYours { ref path } if *path == Path::new(&name)), "{refused:?}");
        assert_eq!(refused.boundary().code, "CONTROL_NOT_YOURS");
        assert!(refused.to_string().contains(&name), "{refused}");
        let received = tokio::time::timeout(Duration::from_secs(10), received).await.unwrap().unwrap();
        assert!(received.is_empty(), "the other user's pipe got {:?}", String::from_utf8_lossy(&received));
    }
}
