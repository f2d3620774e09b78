//! `ask_user_question` as an MCP task (the `io.modelcontextprotocol/tasks` extension), for clients
//! that declare it: the call returns a task at once and the task completes whenever the person
//! answers, in time or days later, so the late answer reaches the agent without it asking again.
//! Where a call stands is read from the app's log (`call` on the control socket), so a `hark mcp`
//! started again after the agent restarted still reports it. Clients without tasks instead get
//! progress notifications while the question waits (see [`with_progress`]).

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hark_core::control::CLOSED;
use hark_core::error::BoundaryError;
use hark_core::front_door::FrontDoor;
use hark_core::host::ClientCall;
use hark_core::sync::lock;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, JsonObject, ProgressNotificationParam, ProgressToken, Task,
    TaskPayload, TaskStatus,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer};
use tokio_util::sync::CancellationToken;

use super::{asked_result, failed, new_call_id, shown, HarkServer};

/// How often a client is told a question still waits: under every agent's idle timeout.
const PROGRESS_EVERY: Duration = Duration::from_secs(15);
/// How often a client should poll a task; a person answers in seconds, not milliseconds.
const POLL_MS: u64 = 2000;
const WAITING: &str = "Waiting for the person to answer in Hark";

/// Whether the client declared the tasks extension (at `initialize` or on this request).
pub(super) fn declared(context: &RequestContext<RoleServer>) -> bool {
    context.client_capabilities().is_some_and(|caps| caps.supports_tasks())
}

/// Runs `asking`, telling the client it still waits (now and every [`PROGRESS_EVERY`]), so a client
/// whose deadline restarts on progress (Claude Code) never gives up on a question being read.
pub(super) async fn with_progress<T>(
    asking: impl Future<Output = T>,
    peer: Peer<RoleServer>,
    token: ProgressToken,
) -> T {
    let told = async {
        let mut tick = tokio::time::interval(PROGRESS_EVERY);
        let mut n = 0u32;
        loop {
            tick.tick().await;
            let note = ProgressNotificationParam::new(token.clone(), f64::from(n)).with_message(WAITING);
            // A client that stopped listening is not a reason to end the question.
            let _ = peer.notify_progress(note).await;
            n += 1;
        }
    };
    tokio::select! {
        done = asking => done,
        never = told => never,
    }
}

/// The calls this process runs as tasks, while it runs them.
#[derive(Default)]
pub(super) struct Tasks {
    slots: Arc<Mutex<HashMap<String, Slot>>>,
}

struct Slot {
    created_at: String,
    /// Ends the foreground wait (the connection closes, which withdraws the question).
    stop: CancellationToken,
    /// How the call ended while this process waited on it; `None` while it waits, and after it
    /// went on waiting in Hark (the log then says how it stands).
    ended: Option<Ended>,
}

enum Ended {
    Result(CallToolResult),
    Cancelled,
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn task(id: &str, status: TaskStatus, created_at: &str) -> Task {
    let mut task = Task::new(id, status, created_at, now()).with_poll_interval_ms(POLL_MS);
    if status == TaskStatus::Working {
        task = task.with_status_message(WAITING);
    }
    task
}

fn completed(id: &str, created_at: &str, outcome: &CallToolResult) -> Result<DetailedTask, McpError> {
    let result: JsonObject = match serde_json::to_value(outcome) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => return Err(McpError::internal_error("the task's result could not be written", None)),
    };
    Ok(DetailedTask::new(task(id, TaskStatus::Completed, created_at), TaskPayload::Completed { result }))
}

fn unknown(id: &str) -> McpError {
    McpError::invalid_params(format!("no task {id:?}: Hark has no question of this client by that id"), None)
}

impl HarkServer {
    /// Asks in the background and returns the task at once. The question keeps the settings in
    /// force (a timed one continues after its timeout and is answered late); the task completes
    /// with the answer whenever it comes.
    pub(super) async fn ask_as_task(&self, arguments: serde_json::Value) -> CreateTaskResult {
        let call_id = new_call_id();
        let created_at = now();
        let stop = CancellationToken::new();
        lock(&self.tasks.slots)
            .insert(call_id.clone(), Slot { created_at: created_at.clone(), stop: stop.clone(), ended: None });
        let (slots, id) = (Arc::clone(&self.tasks.slots), call_id.clone());
        let asking = self.asking(arguments, &call_id, false).await;
        let reply = async move {
            tokio::select! {
                reply = asking => Some(reply),
                _ = stop.cancelled() => None,
            }
        };
        tokio::spawn(async move {
            let Some(reply) = reply.await else { return };
            // Gone on waiting in Hark: the log says how it ends.
            if matches!(&reply, Ok(answer) if answer.answers.is_none()) {
                return;
            }
            let outcome = asked_result(&id, reply);
            if let Some(slot) = lock(&slots).get_mut(&id) {
                slot.ended.get_or_insert(Ended::Result(outcome));
            }
        });
        CreateTaskResult::new(task(&call_id, TaskStatus::Working, &created_at))
    }

    /// `tasks/get`: how the call ended here, else where it stands in Hark's log.
    pub(super) async fn task_state(&self, id: &str) -> Result<DetailedTask, McpError> {
        let (created_at, ended, ours) = match lock(&self.tasks.slots).get(id) {
            Some(slot) => (
                slot.created_at.clone(),
                slot.ended.as_ref().map(|e| match e {
                    Ended::Result(r) => Some(r.clone()),
                    Ended::Cancelled => None,
                }),
                true,
            ),
            None => (now(), None, false),
        };
        match ended {
            Some(Some(outcome)) => return completed(id, &created_at, &outcome),
            Some(None) => {
                return Ok(DetailedTask::new(task(id, TaskStatus::Cancelled, &created_at), TaskPayload::Cancelled))
            }
            None => {}
        }
        match self.door.call(&self.client(), id).await {
            Ok(ClientCall::Waiting { .. }) => {
                Ok(DetailedTask::new(task(id, TaskStatus::Working, &created_at), TaskPayload::Working))
            }
            Ok(ClientCall::Answered { text, .. }) => completed(id, &created_at, &shown(&text)),
            Ok(ClientCall::Ended { .. }) => {
                let error = BoundaryError::new(
                    "ToolError",
                    "NOT_ANSWERED",
                    format!("question {id} ended without an answer: the person closed it, or it was withdrawn"),
                );
                completed(id, &created_at, &failed(error))
            }
            // A task of this process whose ask has not reached Hark's log yet: it is being asked.
            Err(error) if error.code == "INVALID_ARGUMENT" && ours => {
                Ok(DetailedTask::new(task(id, TaskStatus::Working, &created_at), TaskPayload::Working))
            }
            Err(error) if error.code == "INVALID_ARGUMENT" => Err(unknown(id)),
            Err(error) => Err(McpError::internal_error(error.message, None)),
        }
    }

    /// `tasks/cancel`: a question still in its foreground wait here is withdrawn (its connection
    /// closes); one waiting in Hark is closed there if it is live again, else (continued after its
    /// timeout) withdrawn, and the task reads cancelled from now on.
    pub(super) async fn withdraw_task(&self, id: &str) -> Result<(), McpError> {
        let running = lock(&self.tasks.slots).get_mut(id).map(|slot| {
            slot.stop.cancel();
            slot.ended.get_or_insert(Ended::Cancelled);
        });
        if running.is_some() {
            return Ok(());
        }
        match self.door.call(&self.client(), id).await {
            Ok(ClientCall::Waiting { session_id }) => {
                if self.door.cancel(&session_id, id).await.is_err() {
                    let _ = self.door.withdraw(&self.client(), id, "the agent cancelled its task").await;
                }
                lock(&self.tasks.slots).insert(
                    id.to_string(),
                    Slot { created_at: now(), stop: CancellationToken::new(), ended: Some(Ended::Cancelled) },
                );
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(error) if error.code == CLOSED => Err(McpError::internal_error("Hark stopped", None)),
            Err(error) if error.name == "ControlError" => Err(McpError::internal_error(error.message, None)),
            Err(_) => Err(unknown(id)),
        }
    }
}
