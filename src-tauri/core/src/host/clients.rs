//! Sessions of outside agents: an MCP client of `hark mcp` (Claude Code, Codex, ...) asks the person
//! through this host, and its questions live in a session of their own, one per client and working
//! directory, shown, notified and answered like those of Hark's own agent. Such a session has no
//! agent: its [`Relay`] is the live root that asks, records each call as the agent would, admits
//! late answers as they come, and hands them to the client when it calls `get_answers`, until one
//! such reply reached it.

mod approvals;
mod forms;

use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::open_session::{forward_questions, AgentEvent, Session};
use crate::question::{late_answer_text, TOOL_NAME};
use crate::service::{not_continued, Caller, ServiceError, SteerMessage, UserQuestionService};
use crate::session::{Event, QuestionState, StoreError, TurnEndReason};
use crate::sync::lock;
use crate::tools::{outcome_of, AskUserQuestionTool, QuestionSettings, ToolContext, ToolError, ToolHandler};

use super::HostError;
use crate::control::{ClientAnswer, ClientAnswers, ClientCall, ClientId, LateAnswer};

/// The longest client name a title shows, in characters.
pub use approvals::approval_ended;

/// The longest client name a title shows, in characters.
pub const MAX_CLIENT_NAME_CHARS: usize = 60;
/// The name of a client that gave none worth showing.
const UNNAMED_CLIENT: &str = "MCP client";

impl ClientId {
    /// The session's title, which is also how a client finds its session again: the client's name
    /// and its folder's name (the whole path is the session's workspace, shown with the session).
    /// Both parts are the client's own words, so they are made plain (see [`plain_name`]).
    pub fn title(&self) -> String {
        let trimmed = self.cwd.trim_end_matches(['/', '\\']);
        let folder = trimmed.rsplit(['/', '\\']).next().filter(|f| !f.is_empty()).unwrap_or(&self.cwd);
        format!("{} · {}", plain_name(&self.name), plain_text(folder))
    }

    /// The title sessions were given before it named only the folder, so they are found again.
    fn whole_path_title(&self) -> String {
        format!("{} · {}", plain_name(&self.name), plain_text(&self.cwd))
    }

    /// The client's session key: its name as the window shows it, and its folder.
    fn plain(&self) -> ClientId {
        ClientId { name: plain_name(&self.name), cwd: self.cwd.clone(), asker: None }
    }
}

/// A client's self-chosen name as one plain line: no control, bidirectional-override or zero-width
/// characters (which could hide or reorder what the person reads), spaces collapsed, at most
/// [`MAX_CLIENT_NAME_CHARS`] characters; "MCP client" when nothing is left. The agents Hark has
/// hooks for go by their product names, so an agent's hook and its `hark mcp` share one session.
pub fn plain_name(name: &str) -> String {
    match KNOWN_AGENTS.iter().find(|(raw, _)| *raw == name.trim()) {
        Some((_, known)) => (*known).to_string(),
        None => plain_label(name, UNNAMED_CLIENT),
    }
}

/// The names agents give themselves over MCP (`clientInfo.name`), and what Hark calls them.
const KNOWN_AGENTS: [(&str, &str); 2] = [("claude-code", CLAUDE_CODE), ("codex-mcp-client", CODEX)];
/// The name Claude Code's questions are shown under, from its hook or its `hark mcp`.
pub const CLAUDE_CODE: &str = "Claude Code";
/// The name Codex's questions are shown under.
pub const CODEX: &str = "Codex";

/// Any self-chosen label as [`plain_name`] makes a client's name: `fallback` when nothing is left.
pub fn plain_label(text: &str, fallback: &str) -> String {
    let plain = plain_text(text);
    let mut chars = plain.chars();
    let mut cut: String = chars.by_ref().take(MAX_CLIENT_NAME_CHARS).collect();
    if chars.next().is_some() {
        cut.pop();
        cut = format!("{}…", cut.trim_end());
    }
    if cut.is_empty() {
        fallback.to_string()
    } else {
        cut
    }
}

/// `text` without invisible or reordering characters, its whitespace runs as single spaces.
fn plain_text(text: &str) -> String {
    let invisible = crate::question::invisible;
    let kept: String =
        text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).filter(|c| !invisible(*c)).collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The open turn of a client session: its asks run inside one turn, which ends with the last of them.
#[derive(Default)]
struct Turn {
    id: Option<String>,
    asks: usize,
    aborted: bool,
}

/// The longest call id a client may choose.
const MAX_CALL_ID_CHARS: usize = 64;

/// One `ask_user_question` call of an outside agent.
#[derive(Debug, Clone)]
pub struct ClientAsk {
    /// The run of the agent that asks (see [`ClientId::asker`]).
    pub asker: Option<String>,
    /// The id the client chose, so it can name the call even if no reply ever comes; `None`: one
    /// is made here.
    pub call_id: Option<String>,
    pub settings: QuestionSettings,
    pub arguments: serde_json::Value,
}

/// The live root of a client session.
pub struct Relay {
    session: Arc<Session>,
    service: UserQuestionService,
    instance: String,
    turn: Mutex<Turn>,
    /// Held while late answers are marked returned, so none is recorded twice.
    returning: Mutex<()>,
    /// Cancelled when the host quits: every ask still waiting ends.
    quit: CancellationToken,
    /// Its tasks: admitting late answers, telling followers about the session's questions.
    tasks: [JoinHandle<()>; 2],
}

impl Relay {
    /// Becomes the session's live root: late answers queued before (by an earlier run, or while no
    /// relay listened) are admitted now, later ones as they come. Call inside a tokio runtime.
    pub fn attach(service: UserQuestionService, session: Arc<Session>) -> Relay {
        let instance = uuid::Uuid::new_v4().to_string();
        let mut steer = service.set_live_root(session.id(), &instance);
        for queued in session.queued_messages() {
            admit(
                &service,
                &session,
                SteerMessage { message_id: queued.message_id, text: queued.text, source: queued.source },
            );
        }
        let (admit_service, admit_session) = (service.clone(), Arc::clone(&session));
        let forwarding = forward_questions(&service, Arc::clone(&session));
        let admitting = tokio::spawn(async move {
            while let Some(message) = steer.recv().await {
                admit(&admit_service, &admit_session, message);
            }
        });
        Relay {
            session,
            service,
            instance,
            turn: Mutex::new(Turn::default()),
            returning: Mutex::new(()),
            quit: CancellationToken::new(),
            tasks: [admitting, forwarding],
        }
    }

    pub fn session_id(&self) -> &str {
        self.session.id()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<AgentEvent> {
        self.session.subscribe()
    }

    /// Whether one of the client's questions waits in the foreground.
    pub fn is_busy(&self) -> bool {
        lock(&self.turn).asks > 0
    }

    /// Asks the person the client's `ask_user_question` call under `settings`: validated as Hark's
    /// own agent's call is (a refused call records nothing), recorded as a call and its result in the
    /// session's turn. `gone` is the client going away, which withdraws the question.
    pub async fn ask(&self, ask: ClientAsk, gone: CancellationToken) -> Result<ClientAnswer, HostError> {
        let ClientAsk { asker, call_id, settings, arguments } = ask;
        let tool = Arc::new(AskUserQuestionTool::for_client(self.service.clone(), settings));
        let settings = tool.settings();
        let prepared = tool.prepare(arguments);
        // A refused call records nothing; the client hears the refusal as the agent's own call would.
        match prepared.refusal() {
            Some(ToolError::Interaction(e)) => return Err(HostError::Interaction(e.clone())),
            Some(other) => return Err(HostError::Tool(other.clone())),
            None => {}
        }
        let call_id = match call_id {
            Some(id) => self.fresh_call_id(id)?,
            None => format!("mcp-{}", uuid::Uuid::new_v4().simple()),
        };
        let arguments = prepared.arguments.clone();
        self.begin(Some(settings))?;
        let mut events = vec![Event::ToolCall { call_id: call_id.clone(), name: TOOL_NAME.to_string(), arguments }];
        events.extend(asker.map(|asker| Event::ClientAsked { call_id: call_id.clone(), asker }));
        let asked = self.session.record(events);
        let result = match asked {
            Ok(_) => {
                let caller = Caller::root(self.session.id(), &self.instance);
                let abort = self.quit.child_token();
                let ctx = ToolContext { caller, abort: abort.clone(), workspace: None };
                let asking = prepared.run(&ctx, &call_id);
                tokio::pin!(asking);
                let result = tokio::select! {
                    result = &mut asking => result,
                    _ = gone.cancelled() => {
                        abort.cancel();
                        asking.await
                    }
                };
                let recorded = self
                    .session
                    .record_one(Event::ToolResult { call_id: call_id.clone(), outcome: outcome_of(&result) });
                recorded.map(|_| result)
            }
            Err(e) => Err(e),
        };
        self.end(gone.is_cancelled() || self.quit.is_cancelled())?;
        let output = result?.map_err(HostError::Tool)?;
        // A pending result carries no answers.
        Ok(ClientAnswer {
            session_id: self.session.id().to_string(),
            call_id,
            text: output.content,
            answers: output.answers,
        })
    }

    /// A call id the client chose: short, plain, and not used in the session before.
    fn fresh_call_id(&self, id: String) -> Result<String, HostError> {
        let plain = id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        // The approvals' prefix is the host's own: an id with it says the call was an approval.
        if id.is_empty()
            || id.len() > MAX_CALL_ID_CHARS
            || !plain
            || id.starts_with(crate::question::APPROVAL_CALL_PREFIX)
        {
            return Err(HostError::InvalidArgument(format!(
                "call_id {id:?}: give 1 to {MAX_CALL_ID_CHARS} letters, digits, '-', '_' or '.'"
            )));
        }
        if self.session.question_records().iter().any(|r| r.call_id == id) {
            return Err(HostError::InvalidArgument(format!("call_id {id:?} was asked before")));
        }
        Ok(id)
    }

    /// Opens the turn for an ask (with the schema it is asked under, if it asks with the question
    /// tool), or joins the one open.
    fn begin(&self, settings: Option<QuestionSettings>) -> Result<(), StoreError> {
        let mut turn = lock(&self.turn);
        let mut events = Vec::new();
        let starts = turn.id.is_none().then(|| uuid::Uuid::new_v4().to_string());
        if let Some(id) = &starts {
            events.push(Event::TurnStarted { turn_id: id.clone(), run_id: self.instance.clone() });
        }
        events.extend(settings.and_then(|settings| self.session.changed_header(vec![TOOL_NAME.to_string()], settings)));
        self.session.record(events)?;
        if let Some(id) = starts {
            self.session
                .emit(AgentEvent::TurnStarted { session_id: self.session.id().to_string(), turn_id: id.clone() });
            *turn = Turn { id: Some(id), asks: 0, aborted: false };
        }
        turn.asks += 1;
        Ok(())
    }

    /// Asks `questions` in the foreground for as long as the outside agent waits on it (an approval,
    /// a form: prompts that never continue). `gone` is the agent no longer waiting: the question ends
    /// unanswered (`ASK_ABORTED`) on every surface, as it does when Hark quits.
    async fn ask_while_waiting(
        &self,
        call_id: &str,
        intent: crate::question::Intent,
        questions: Vec<crate::question::Question>,
        gone: &CancellationToken,
    ) -> Result<crate::question::AnswerBatch, crate::question::UserInteractionError> {
        let abort = self.quit.child_token();
        let params = crate::service::AskParams {
            call_id: call_id.to_string(),
            caller: Caller::root(self.session.id(), &self.instance),
            intent,
            questions,
            abort: abort.clone(),
        };
        let asking = self.service.ask(params);
        tokio::pin!(asking);
        tokio::select! {
            answered = &mut asking => answered,
            _ = gone.cancelled() => {
                abort.cancel();
                asking.await
            }
        }
    }

    /// An ask ended; the turn ends with the last one.
    fn end(&self, aborted: bool) -> Result<(), StoreError> {
        let mut turn = lock(&self.turn);
        turn.asks = turn.asks.saturating_sub(1);
        turn.aborted |= aborted;
        if turn.asks > 0 {
            return Ok(());
        }
        let Some(turn_id) = turn.id.take() else { return Ok(()) };
        let reason = if turn.aborted { TurnEndReason::Aborted } else { TurnEndReason::Completed };
        let recorded = self.session.record_one(Event::TurnEnded { turn_id: turn_id.clone(), reason });
        self.session.emit(AgentEvent::TurnEnded { session_id: self.session.id().to_string(), turn_id, reason });
        recorded.map(|_| ())
    }

    /// Ends every ask still waiting (`ASK_ABORTED`, unless it was continued first).
    fn quit(&self) {
        self.quit.cancel();
    }

    /// The late answers `asker` has not been given yet, and its calls still waiting for one, with
    /// those of `calls` (named by whoever was told their ids: a call id is never guessed by another
    /// agent). They stay unreturned until [`mark_returned`](Self::mark_returned): a reply that never
    /// reached the client must not take the person's answer with it.
    pub fn unreturned_answers(&self, asker: Option<&str>, calls: &[String]) -> ClientAnswers {
        let records: Vec<_> = self
            .session
            .question_records()
            .into_iter()
            .filter(|r| r.asker.as_deref() == asker || calls.contains(&r.call_id))
            .collect();
        let answers: Vec<LateAnswer> = records
            .iter()
            .filter(|r| r.state == QuestionState::Settled && r.answered_late && !r.returned)
            .filter_map(|r| {
                let batch = r.answers.clone()?;
                let text = late_answer_text(&r.call_id, &r.intent, &r.questions, &batch, r.since);
                Some(LateAnswer { call_id: r.call_id.clone(), text, answers: batch })
            })
            .collect();
        let waiting = records.iter().filter(|r| r.state != QuestionState::Settled).map(|r| r.call_id.clone()).collect();
        ClientAnswers { session_id: self.session.id().to_string(), answers, waiting }
    }

    /// Records that the client was given the late answers to `call_ids` (those not recorded before),
    /// so they are not handed out again.
    pub fn mark_returned(&self, call_ids: &[String]) -> Result<(), HostError> {
        // Only answers already handed out (so only the asker's own) reach here.
        let _returning = lock(&self.returning);
        let records = self.session.question_records();
        let fresh: Vec<String> = call_ids
            .iter()
            .filter(|id| records.iter().any(|r| &r.call_id == *id && r.answered_late && !r.returned))
            .cloned()
            .collect();
        if !fresh.is_empty() {
            self.session.record_one(Event::AnswersReturned { call_ids: fresh })?;
        }
        Ok(())
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.service.clear_live_root(self.session.id(), &self.instance);
    }
}

/// Admits a late answer (see [`Session::admit_reply`]). A failed write leaves the reply queued in
/// the inbox: the next relay admits it.
fn admit(service: &UserQuestionService, session: &Session, message: SteerMessage) {
    let _ = session.admit_reply(service, message);
}

impl super::Host {
    /// The question settings a client's calls are asked under unless it chose its own: this run's
    /// forced ones, else the Settings.
    pub fn client_settings(&self) -> QuestionSettings {
        super::questions_for(self.models.as_ref(), None)
    }

    /// Asks the person a client's `ask_user_question` call (see [`Relay::ask`]), in the client's
    /// session, found or created.
    pub async fn client_ask(
        &self,
        client: &ClientId,
        call_id: Option<String>,
        settings: Option<QuestionSettings>,
        arguments: serde_json::Value,
        abort: CancellationToken,
    ) -> Result<ClientAnswer, HostError> {
        let relay = self.client_relay(client)?;
        let settings = settings.unwrap_or_else(|| self.client_settings());
        relay.ask(ClientAsk { asker: client.asker.clone(), call_id, settings, arguments }, abort).await
    }

    /// Quitting, for the clients' questions: a timed one continues (its client is told it is
    /// pending, and collects the answer after the next start), a blocking one ends `ASK_ABORTED`.
    /// Done before the control socket closes, so each waiting client hears how its question ended.
    pub fn end_client_asks(&self) {
        let relays: Vec<Arc<Relay>> = lock(&self.relays).values().cloned().collect();
        for request in self.service.foreground(None) {
            if request.outlives_quit() && relays.iter().any(|r| r.session_id() == request.session_id) {
                let _ = self.service.continue_on_quit(&request.session_id, &request.call_id);
            }
        }
        for relay in relays {
            relay.quit();
        }
    }

    /// The client's late answers not returned before (see [`Relay::unreturned_answers`]). A client
    /// that never asked has none, and gets no session for asking.
    pub fn client_answers(&self, client: &ClientId) -> Result<ClientAnswers, HostError> {
        self.client_answers_for(client, &[])
    }

    /// [`client_answers`](Self::client_answers) and those to `calls`, questions of the client's
    /// session it learnt the ids of elsewhere (see [`Relay::unreturned_answers`]).
    pub fn client_answers_for(&self, client: &ClientId, calls: &[String]) -> Result<ClientAnswers, HostError> {
        match self.client_session(&client.plain(), false)? {
            Some(id) => Ok(self.relay(&id)?.unreturned_answers(client.asker.as_deref(), calls)),
            None => Ok(ClientAnswers { session_id: String::new(), answers: Vec::new(), waiting: Vec::new() }),
        }
    }

    /// Records that the client of `session` was given the late answers to `call_ids` (see
    /// [`Relay::mark_returned`]): called once they reached it, not before.
    pub fn client_answers_returned(&self, session: &str, call_ids: &[String]) -> Result<(), HostError> {
        self.relay(session)?.mark_returned(call_ids)
    }

    /// The outside agent takes back a continued question of its session (see
    /// [`UserQuestionService::withdraw`]). As with [`client_call`](Self::client_call), the call id
    /// is the handle: a client only learns its own. Another session's question is never found.
    pub fn client_withdraw(&self, client: &ClientId, call_id: &str, reason: &str) -> Result<(), HostError> {
        let Some(session_id) = self.client_session(&client.plain(), false)? else {
            return Err(ServiceError::from(not_continued(call_id)).into());
        };
        Ok(self.service.withdraw(&session_id, call_id, reason)?)
    }

    /// Where `call_id` of the client's session stands. The call id is the client's handle (an MCP
    /// task id), so no asker check: a client never learns another's ids. A late answer read here
    /// counts as returned, so `get_answers` does not hand it over a second time; it stays readable
    /// here.
    pub fn client_call(&self, client: &ClientId, call_id: &str) -> Result<ClientCall, HostError> {
        let not_found = || HostError::InvalidArgument(format!("no call {call_id:?} was asked by {}", client.title()));
        let session_id = self.client_session(&client.plain(), false)?.ok_or_else(not_found)?;
        let relay = self.relay(&session_id)?;
        let record = relay.session.question_records().into_iter().find(|r| r.call_id == call_id);
        let Some(record) = record else {
            // Ended calls leave the question records; the log still holds the call.
            let mut asked = false;
            relay.session.store().scan(&session_id, 0, &mut |e| {
                asked |= matches!(&e.event, Event::ToolCall { call_id: id, .. } if id == call_id);
            })?;
            return if asked { Ok(ClientCall::Ended { session_id }) } else { Err(not_found()) };
        };
        Ok(match (record.state, record.answers) {
            (QuestionState::Settled, Some(answers)) => {
                let text = if record.answered_late {
                    if !record.returned {
                        relay.mark_returned(std::slice::from_ref(&record.call_id))?;
                    }
                    late_answer_text(&record.call_id, &record.intent, &record.questions, &answers, record.since)
                } else {
                    crate::question::answered_result_text(&answers)
                };
                ClientCall::Answered { session_id, text, answers, late: record.answered_late }
            }
            (QuestionState::Settled, None) => ClientCall::Ended { session_id },
            _ => ClientCall::Waiting { session_id },
        })
    }

    fn client_relay(&self, client: &ClientId) -> Result<Arc<Relay>, HostError> {
        match self.client_session(&client.plain(), true)? {
            Some(id) => self.relay(&id),
            None => Err(HostError::InvalidArgument(format!("no session for {}", client.title()))),
        }
    }

    /// The client's session: known, found in the store, or (when `create`) created.
    fn client_session(&self, client: &ClientId, create: bool) -> Result<Option<String>, HostError> {
        let known = lock(&self.clients).get(client).cloned();
        if known.is_some() {
            return Ok(known);
        }
        let _finding = lock(&self.finding_client);
        let id = match self.find_client_session(client)? {
            Some(id) => id,
            None if create => {
                let id = self.store.create_client_session(&client.title(), &client.cwd, &client.name)?;
                self.sessions.get(&id)?;
                self.announce_created(&id);
                id
            }
            None => return Ok(None),
        };
        lock(&self.clients).insert(client.clone(), id.clone());
        Ok(Some(id))
    }

    /// The client's newest session: titled after it, and recorded as its.
    fn find_client_session(&self, client: &ClientId) -> Result<Option<String>, HostError> {
        let titles = [client.title(), client.whole_path_title()];
        let mut candidates: Vec<_> =
            self.store.list_sessions()?.into_iter().filter(|s| titles.contains(&s.title)).collect();
        candidates.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
        for candidate in candidates {
            let session = self.sessions.get(&candidate.id)?;
            let workspace = session.workspace();
            if session.client().as_deref() == Some(&client.name)
                && workspace.as_deref() == Some(std::path::Path::new(&client.cwd))
            {
                return Ok(Some(candidate.id));
            }
        }
        Ok(None)
    }

    /// The client session's relay, attached if needed.
    pub(super) fn relay(&self, session: &str) -> Result<Arc<Relay>, HostError> {
        if let Some(relay) = lock(&self.relays).get(session) {
            return Ok(Arc::clone(relay));
        }
        let _opening = lock(&self.opening);
        if let Some(relay) = lock(&self.relays).get(session) {
            return Ok(Arc::clone(relay));
        }
        let open = self.session(session)?;
        if open.client().is_none() {
            return Err(HostError::InvalidArgument(format!("session {session} is not a client's")));
        }
        let relay = Arc::new(Relay::attach(self.service.clone(), open));
        lock(&self.relays).insert(session.to_string(), Arc::clone(&relay));
        Ok(relay)
    }
}
