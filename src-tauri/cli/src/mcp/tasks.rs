//! `ask_user_question` as an MCP task (the `io.modelcontextprotocol/tasks` extension), for clients
//! that declare it: the call returns a task at once and the task completes whenever the person
//! answers, in time or days later, so the late answer reaches the agent without it asking again.
//! Where a call stands is read from the app's log (`call` on the control socket), so a `hark mcp`
//! started again after the agent restarted still reports it. Clients without tasks instead get
//! progress notifications while the question waits (see [`with_progress`]).

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
/// How often a client should poll a task in its first minutes, while the person is most likely
/// at hand: an answer then reaches the agent within a quarter second (the least Claude Code
/// takes; it fetches a task's state only when it polls, whatever the server pushes).
const POLL_MS_FRESH: u64 = 250;
/// How long a task counts as fresh.
const FRESH: Duration = Duration::from_secs(10 * 60);
/// How often after that: the person answers a question they came back to in seconds, not
/// milliseconds, and a task may wait for days.
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

/// How long a finished task's result is kept after it finished. An agent polls its tasks every few
/// seconds at most (see [`POLL_MS`]); one that has not read a result in an hour has moved on.
pub(super) const KEEP_FINISHED: Duration = Duration::from_secs(60 * 60);
/// The most finished tasks kept at once; past it the oldest is forgotten first.
pub(super) const MAX_FINISHED: usize = 128;
/// The most forgotten task ids remembered, so that reading one says it expired rather than that it
/// never was (only the id is kept).
const MAX_FORGOTTEN: usize = 4096;

/// The calls this process runs as tasks: each while it runs, and once it finished for
/// [`KEEP_FINISHED`] (the newest [`MAX_FINISHED`] of them), so a long-lived `hark mcp` does not
/// keep every result it ever had.
#[derive(Default)]
pub(super) struct Tasks {
    slots: Arc<Mutex<Slots>>,
}

#[derive(Default)]
struct Slots {
    by_id: HashMap<String, Slot>,
    /// Ids of finished tasks let go, oldest first.
    forgotten: VecDeque<String>,
}

struct Slot {
    created_at: String,
    /// Ends the foreground wait (the connection closes, which withdraws the question).
    stop: CancellationToken,
    state: State,
    /// When it stopped being this process's to wait on (the clock of [`KEEP_FINISHED`]).
    finished: Option<Instant>,
}

enum State {
    /// The question waits in the foreground of this call.
    Asking,
    /// The question went on waiting in Hark after its timeout: the log says how it stands.
    WentOn,
    /// How the call ended while this process waited on it.
    Ended(Ended),
}

enum Ended {
    Result(CallToolResult),
    Cancelled,
}

impl Slots {
    fn insert(&mut self, id: String, slot: Slot) {
        self.prune(Instant::now());
        self.by_id.insert(id, slot);
    }

    fn finish(&mut self, id: &str, state: State) {
        if let Some(slot) = self.by_id.get_mut(id) {
            slot.state = state;
            slot.finished = Some(Instant::now());
        }
    }

    /// Forgets the finished tasks past their time, then the oldest past the count.
    fn prune(&mut self, now: Instant) {
        let mut finished: Vec<(Instant, String)> =
            self.by_id.iter().filter_map(|(id, slot)| slot.finished.map(|at| (at, id.clone()))).collect();
        finished.sort();
        let over = finished.len().saturating_sub(MAX_FINISHED);
        for (i, (at, id)) in finished.into_iter().enumerate() {
            if i < over || now.duration_since(at) >= KEEP_FINISHED {
                self.by_id.remove(&id);
                self.forgotten.push_back(id);
            }
        }
        while self.forgotten.len() > MAX_FORGOTTEN {
            self.forgotten.pop_front();
        }
    }

    fn was_forgotten(&self, id: &str) -> bool {
        self.forgotten.iter().any(|f| f == id)
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The poll interval a task created at `created_at` asks for now.
fn poll_ms(created_at: &str) -> u64 {
    let age = chrono::DateTime::parse_from_rfc3339(created_at)
        .ok()
        .and_then(|created| (chrono::Utc::now() - created.with_timezone(&chrono::Utc)).to_std().ok());
    match age {
        Some(age) if age < FRESH => POLL_MS_FRESH,
        _ => POLL_MS,
    }
}

fn task(id: &str, status: TaskStatus, created_at: &str) -> Task {
    let mut task = Task::new(id, status, created_at, now()).with_poll_interval_ms(poll_ms(created_at));
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

/// A task kept here that finished: its time to live runs from its creation to [`KEEP_FINISHED`]
/// after it finished (a working one has none: the person may answer days later).
fn kept(mut detailed: DetailedTask, created: &str, finished: Option<Instant>) -> DetailedTask {
    if let (Some(finished), Ok(created)) = (finished, chrono::DateTime::parse_from_rfc3339(created)) {
        let lived = (chrono::Utc::now() - created.with_timezone(&chrono::Utc)).to_std().unwrap_or_default();
        let left = KEEP_FINISHED.saturating_sub(finished.elapsed());
        detailed.task.ttl_ms = Some(u64::try_from((lived + left).as_millis()).unwrap_or(u64::MAX));
    }
    detailed
}

fn unknown(id: &str) -> McpError {
    McpError::invalid_params(format!("no task {id:?}: Hark has no question of this client by that id"), None)
}

fn expired(id: &str) -> McpError {
    McpError::invalid_params(
        format!(
            "task {id:?} expired: hark mcp keeps a finished task's result for {} minutes (the newest {MAX_FINISHED} \
             of them), and Hark's log holds no answer to it. An answer the person gave is never dropped: it is \
             returned here, and stays in its session in Hark",
            KEEP_FINISHED.as_secs() / 60
        ),
        None,
    )
}

/// The reason a cancelled task's question is withdrawn with, shown wherever it was asked.
const CANCELLED_REASON: &str = "the agent cancelled its task";

impl HarkServer {
    /// Asks in the background and returns the task at once. The question keeps the settings in
    /// force (a timed one continues after its timeout and is answered late); the task completes
    /// with the answer whenever it comes.
    pub(super) async fn ask_as_task(&self, arguments: serde_json::Value) -> CreateTaskResult {
        let call_id = new_call_id();
        let created_at = now();
        let stop = CancellationToken::new();
        let slot = Slot { created_at: created_at.clone(), stop: stop.clone(), state: State::Asking, finished: None };
        lock(&self.tasks.slots).insert(call_id.clone(), slot);
        let (slots, id) = (Arc::clone(&self.tasks.slots), call_id.clone());
        let asking = self.asking(arguments, &call_id, false).await;
        let reply = async move {
            tokio::select! {
                // A reply that came is taken even when the task was cancelled meanwhile: a question
                // that went on must then be withdrawn, not left waiting.
                biased;
                reply = asking => Some(reply),
                _ = stop.cancelled() => None,
            }
        };
        let (door, client) = (self.door.clone(), self.client());
        tokio::spawn(async move {
            let Some(reply) = reply.await else { return };
            let went_on = matches!(&reply, Ok(answer) if answer.answers.is_none());
            let cancelled = {
                let mut slots = lock(&slots);
                let cancelled = slots.by_id.get(&id).is_some_and(|slot| matches!(slot.state, State::Ended(_)));
                if !cancelled {
                    // Gone on waiting in Hark: the log says how it ends.
                    let state =
                        if went_on { State::WentOn } else { State::Ended(Ended::Result(asked_result(&id, reply))) };
                    slots.finish(&id, state);
                }
                cancelled
            };
            if cancelled && went_on {
                let _ = door.withdraw(&client, &id, CANCELLED_REASON).await;
            }
        });
        CreateTaskResult::new(task(&call_id, TaskStatus::Working, &created_at))
    }

    /// `tasks/get`: how the call ended here, else where it stands in Hark's log.
    pub(super) async fn task_state(&self, id: &str) -> Result<DetailedTask, McpError> {
        let (created_at, finished, ended, ours, forgotten) = {
            let mut slots = lock(&self.tasks.slots);
            slots.prune(Instant::now());
            match slots.by_id.get(id) {
                Some(slot) => (
                    slot.created_at.clone(),
                    slot.finished,
                    match &slot.state {
                        State::Ended(Ended::Result(r)) => Some(Some(r.clone())),
                        State::Ended(Ended::Cancelled) => Some(None),
                        State::Asking | State::WentOn => None,
                    },
                    true,
                    false,
                ),
                None => (now(), None, None, false, slots.was_forgotten(id)),
            }
        };
        match ended {
            Some(Some(outcome)) => return completed(id, &created_at, &outcome).map(|t| kept(t, &created_at, finished)),
            Some(None) => {
                let cancelled = DetailedTask::new(task(id, TaskStatus::Cancelled, &created_at), TaskPayload::Cancelled);
                return Ok(kept(cancelled, &created_at, finished));
            }
            None => {}
        }
        match self.door.call(&self.client(), id).await {
            Ok(ClientCall::Waiting { .. }) => {
                Ok(DetailedTask::new(task(id, TaskStatus::Working, &created_at), TaskPayload::Working))
            }
            Ok(ClientCall::Answered { text, .. }) => completed(id, &created_at, &shown(&text)),
            // What a forgotten task ended with (an error, a cancel) was kept only here.
            Ok(ClientCall::Ended { .. }) if forgotten => Err(expired(id)),
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
            Err(error) if error.code == "INVALID_ARGUMENT" && forgotten => Err(expired(id)),
            Err(error) if error.code == "INVALID_ARGUMENT" => Err(unknown(id)),
            Err(error) => Err(McpError::internal_error(error.message, None)),
        }
    }

    /// `tasks/cancel`: a question still in its foreground wait here is withdrawn (its connection
    /// closes); one that went on waiting in Hark after its timeout is withdrawn there, with the
    /// reason; one waiting in Hark that this process did not ask (it was started again) is closed
    /// if it is live, else withdrawn. The task reads cancelled from now on.
    pub(super) async fn withdraw_task(&self, id: &str) -> Result<(), McpError> {
        let running = {
            let mut slots = lock(&self.tasks.slots);
            match slots.by_id.get(id).map(|slot| (&slot.state, slot.stop.clone())) {
                None => None,
                // Ended already: cancelling changes nothing.
                Some((State::Ended(_), _)) => return Ok(()),
                Some((State::WentOn, _)) => Some(true),
                Some((State::Asking, stop)) => {
                    stop.cancel();
                    slots.finish(id, State::Ended(Ended::Cancelled));
                    Some(false)
                }
            }
        };
        match running {
            Some(true) => {
                if self.withdraw_in_hark(id).await? {
                    lock(&self.tasks.slots).finish(id, State::Ended(Ended::Cancelled));
                }
                return Ok(());
            }
            Some(false) => return Ok(()),
            None => {}
        }
        match self.door.call(&self.client(), id).await {
            Ok(ClientCall::Waiting { session_id }) => {
                if self.door.cancel(&session_id, id).await.is_err() {
                    self.withdraw_in_hark(id).await?;
                }
                let slot = Slot {
                    created_at: now(),
                    stop: CancellationToken::new(),
                    state: State::Ended(Ended::Cancelled),
                    finished: Some(Instant::now()),
                };
                lock(&self.tasks.slots).insert(id.to_string(), slot);
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(error) => Err(door_failed(id, error)),
        }
    }

    /// Withdraws the task's question that went on waiting in Hark; whether it was. One whose answer
    /// is already on its way, or that ended, is left as it is (the task then reads how it ended):
    /// the answer is the person's.
    async fn withdraw_in_hark(&self, id: &str) -> Result<bool, McpError> {
        match self.door.withdraw(&self.client(), id, CANCELLED_REASON).await {
            Ok(()) => Ok(true),
            Err(error) if error.code == "NOT_PENDING" => Ok(false),
            Err(error) => Err(door_failed(id, error)),
        }
    }
}

/// Why the app could not be asked about task `id`.
fn door_failed(id: &str, error: BoundaryError) -> McpError {
    match error.code.as_str() {
        CLOSED => McpError::internal_error("Hark stopped", None),
        _ if error.name == "ControlError" => McpError::internal_error(error.message, None),
        _ => unknown(id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(state: State, finished: Option<Instant>) -> Slot {
        Slot { created_at: now(), stop: CancellationToken::new(), state, finished }
    }

    #[test]
    fn a_fresh_task_is_polled_often_and_an_old_one_seldom() {
        assert_eq!(poll_ms(&now()), POLL_MS_FRESH);
        let old = (chrono::Utc::now() - chrono::Duration::minutes(11)).to_rfc3339();
        assert_eq!(poll_ms(&old), POLL_MS);
        assert_eq!(poll_ms("not a time"), POLL_MS);
    }

    #[test]
    fn a_finished_task_is_forgotten_after_its_time_and_one_still_asking_never_is() {
        let start = Instant::now();
        let mut slots = Slots::default();
        slots.by_id.insert("done".into(), slot(State::Ended(Ended::Cancelled), Some(start)));
        slots.by_id.insert("went-on".into(), slot(State::WentOn, Some(start + Duration::from_secs(60))));
        slots.by_id.insert("asking".into(), slot(State::Asking, None));
        slots.prune(start + KEEP_FINISHED - Duration::from_secs(1));
        assert_eq!(slots.by_id.len(), 3, "nothing past its time yet");
        slots.prune(start + KEEP_FINISHED);
        assert!(!slots.by_id.contains_key("done") && slots.was_forgotten("done"));
        assert!(slots.by_id.contains_key("went-on") && !slots.was_forgotten("went-on"));
        slots.prune(start + KEEP_FINISHED * 100);
        assert!(slots.was_forgotten("went-on"));
        assert!(slots.by_id.contains_key("asking"), "a question still asked here is never let go");
    }
}
