//! One agent's MCP servers: started when a turn first needs their tools, started again at the next
//! turn after one died, stopped when the agent goes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use super::elicit::{Asker, Elicitor, Forms};
use super::tool::distinct_names;
use super::{McpConfig, McpError, McpTool, ServerSpec, ServerTransport};
use crate::service::lock;

/// The most of a server's stderr kept, to explain a failed start.
const STDERR_TAIL: usize = 2048;

/// How much of one server's tool list is taken. A server may page its list, and one that hands out
/// a next cursor for ever (or pages without end through a bug) would otherwise keep Hark reading and
/// holding its tools until the start-up timeout, with no bound on memory; far fewer tools than these
/// are already more than a model can use.
const MAX_LIST_PAGES: usize = 100;
const MAX_SERVER_TOOLS: usize = 1000;
/// The tools' definitions as JSON, summed.
const MAX_LISTED_BYTES: usize = 8 * 1024 * 1024;

/// A running server: its client session and the tools it listed when it started.
pub(crate) struct Connection {
    pub(crate) server: String,
    pub(crate) client: RunningService<RoleClient, Elicitor>,
    pub(crate) forms: Arc<Forms>,
    pub(crate) tool_timeout: Duration,
    /// Whether what the server says of its tools is believed (see `ServerSpec::trusted`).
    pub(crate) trusted: bool,
    /// The tools the person turned off, by the server's names: listed, but never offered.
    pub(crate) disabled_tools: BTreeSet<String>,
    tools: Vec<Tool>,
}

impl Connection {
    fn alive(&self) -> bool {
        !self.client.is_closed() && !self.client.is_transport_closed()
    }

    fn stop(&self) {
        self.forms.stop();
        self.client.cancellation_token().cancel();
    }
}

enum Slot {
    Live(Arc<Connection>),
    /// Could not start: not tried again for this agent, so a broken entry costs one timeout, not
    /// one per turn.
    Failed,
}

pub struct McpServers {
    config: Arc<McpConfig>,
    /// Where a stdio server runs when its entry names no `cwd`: the session's workspace.
    cwd: Option<PathBuf>,
    /// Who answers the servers' forms; `None` refuses them.
    asker: Option<Asker>,
    slots: tokio::sync::Mutex<BTreeMap<String, Slot>>,
    /// The same connections, for stopping them without awaiting the lock (from `Drop`).
    started: Mutex<Vec<Arc<Connection>>>,
}

impl McpServers {
    pub fn new(config: Arc<McpConfig>, cwd: Option<PathBuf>, asker: Option<Asker>) -> McpServers {
        McpServers {
            config,
            cwd,
            asker,
            slots: tokio::sync::Mutex::new(BTreeMap::new()),
            started: Mutex::new(Vec::new()),
        }
    }

    /// Every live server's tools, starting the servers that are not running yet (all at once, each
    /// within its start timeout). The errors are the servers that failed to start on this call.
    ///
    /// `None` when `abort` fires first: a server that never answers would otherwise hold the turn's
    /// Stop for its whole start-up timeout. The starts under way are dropped, which kills their
    /// processes, and nothing is recorded against them, so the next turn starts them afresh.
    pub async fn tools(&self, abort: &CancellationToken) -> Option<(Vec<Arc<McpTool>>, Vec<McpError>)> {
        let mut slots = tokio::select! {
            _ = abort.cancelled() => return None,
            slots = self.slots.lock() => slots,
        };
        let wanted: Vec<(&String, &ServerSpec)> = self
            .config
            .servers
            .iter()
            .filter(|(name, _)| match slots.get(*name) {
                None => true,
                Some(Slot::Live(c)) => !c.alive(),
                Some(Slot::Failed) => false,
            })
            .collect();
        let starting = futures_util::future::join_all(
            wanted.iter().map(|(name, spec)| start(name, spec, self.cwd.clone(), self.asker.clone())),
        );
        let started = tokio::select! {
            _ = abort.cancelled() => return None,
            started = starting => started,
        };
        let mut failures = Vec::new();
        for (name, why) in &self.config.unavailable {
            if !slots.contains_key(name) {
                let error = McpError::Unavailable { server: name.clone(), message: why.clone() };
                self.config.status.failed(&error);
                failures.push(error);
                slots.insert(name.clone(), Slot::Failed);
            }
        }
        for ((name, _), result) in wanted.into_iter().zip(started) {
            let slot = match result {
                Ok(connection) => {
                    self.config.status.started(name, connection.tools.iter().map(|t| t.name.to_string()).collect());
                    let connection = Arc::new(connection);
                    lock(&self.started).push(Arc::clone(&connection));
                    Slot::Live(connection)
                }
                Err(e) => {
                    self.config.status.failed(&e);
                    failures.push(e.clone());
                    Slot::Failed
                }
            };
            slots.insert(name.clone(), slot);
        }
        // By server name, then by tool name: the order the offered names are given in, and the
        // order a cap on the number of tools keeps them in.
        let listed: Vec<(&Arc<Connection>, &Tool)> = slots
            .values()
            .filter_map(|slot| match slot {
                Slot::Live(connection) => Some(connection),
                Slot::Failed => None,
            })
            .flat_map(|connection| connection.tools.iter().map(move |tool| (connection, tool)))
            .collect();
        let keys: Vec<(&str, &str)> = listed.iter().map(|(c, t)| (c.server.as_str(), t.name.as_ref())).collect();
        let tools = listed
            .iter()
            .zip(distinct_names(&keys))
            .map(|((connection, tool), name)| Arc::new(McpTool::new(Arc::clone(connection), (*tool).clone(), name)))
            .collect();
        Some((tools, failures))
    }

    /// Notes, for Settings, that this agent offered MCP tools with `room` for them.
    pub(crate) fn offered_with_room(&self, room: usize) {
        self.config.status.set_room(room);
    }

    /// Stops every server this agent started.
    pub fn stop(&self) {
        for connection in lock(&self.started).drain(..) {
            connection.stop();
        }
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn start(
    name: &str,
    spec: &ServerSpec,
    cwd: Option<PathBuf>,
    asker: Option<Asker>,
) -> Result<Connection, McpError> {
    let forms = Forms::new(name, asker);
    let handler = Elicitor(Arc::clone(&forms));
    let failed = |message: String| McpError::StartFailed { server: name.to_string(), message };
    let stderr = Arc::new(Mutex::new(String::new()));
    let connecting = async {
        let client = match &spec.transport {
            ServerTransport::Stdio { command, args, env, cwd: own } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.env_clear();
                cmd.envs(std::env::vars_os().filter(|(name, _)| crate::safe_env::for_servers(name)));
                cmd.args(args).envs(env);
                if let Some(dir) = own.clone().or(cwd) {
                    cmd.current_dir(dir);
                }
                let mut wrapped = process_wrap::tokio::CommandWrap::from(cmd);
                // The server's own children (npx starts node) go with it.
                #[cfg(unix)]
                wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
                #[cfg(windows)]
                wrapped.wrap(process_wrap::tokio::JobObject);
                let (transport, err) = TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| failed(format!("could not run {command:?}: {e}")))?;
                if let Some(mut err) = err {
                    let tail = Arc::clone(&stderr);
                    tokio::spawn(async move {
                        let mut buf = [0u8; 1024];
                        while let Ok(n @ 1..) = err.read(&mut buf).await {
                            let mut tail = lock(&tail);
                            tail.push_str(&String::from_utf8_lossy(&buf[..n]));
                            if tail.len() > STDERR_TAIL {
                                let cut = tail.len() - STDERR_TAIL;
                                let cut = (cut..tail.len()).find(|i| tail.is_char_boundary(*i)).unwrap_or(0);
                                tail.drain(..cut);
                            }
                        }
                    });
                }
                handler.clone().serve(transport).await.map_err(|e| failed(e.to_string()))?
            }
            ServerTransport::Http { url, headers } => {
                let mut custom = HashMap::new();
                for (key, value) in headers {
                    let key = http::HeaderName::try_from(key.as_str())
                        .map_err(|_| failed(format!("{key:?} is not a valid header name")))?;
                    // The value may be a secret: never in the message.
                    let value = http::HeaderValue::try_from(value.as_str())
                        .map_err(|_| failed(format!("the value of the header {key} is not valid")))?;
                    custom.insert(key, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
                let transport = StreamableHttpClientTransport::from_config(config);
                handler.clone().serve(transport).await.map_err(|e| failed(e.to_string()))?
            }
        };
        let mut tools = list_tools(name, &client).await?;
        // Sorted, the offered names do not depend on the order the server happens to list in; a
        // name listed twice is one tool.
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools.dedup_by(|a, b| a.name == b.name);
        Ok(Connection {
            server: name.to_string(),
            client,
            forms: Arc::clone(&forms),
            tool_timeout: spec.tool_timeout,
            trusted: spec.trusted,
            disabled_tools: spec.disabled_tools.clone(),
            tools,
        })
    };
    let result = match tokio::time::timeout(spec.startup_timeout, connecting).await {
        Ok(result) => result,
        Err(_) => Err(McpError::StartTimeout { server: name.to_string(), secs: spec.startup_timeout.as_secs() }),
    };
    result.map_err(|e| match e {
        McpError::StartFailed { server, message } => {
            let tail = lock(&stderr).trim().to_string();
            let message = if tail.is_empty() { message } else { format!("{message}; it said: {tail}") };
            McpError::StartFailed { server, message }
        }
        other => other,
    })
}

/// Every page of the server's tool list, within [`MAX_LIST_PAGES`], [`MAX_SERVER_TOOLS`] and
/// [`MAX_LISTED_BYTES`].
async fn list_tools(name: &str, client: &RunningService<RoleClient, Elicitor>) -> Result<Vec<Tool>, McpError> {
    let too_long = |limit: String| McpError::ToolListTooLong { server: name.to_string(), limit };
    let mut tools = Vec::new();
    let mut bytes = 0usize;
    let mut cursor = None;
    for _ in 0..MAX_LIST_PAGES {
        let page =
            client.list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor))).await.map_err(|e| {
                McpError::StartFailed { server: name.to_string(), message: format!("listing its tools failed: {e}") }
            })?;
        bytes = page.tools.iter().fold(bytes, |sum, tool| sum.saturating_add(json_len(tool)));
        tools.extend(page.tools);
        if tools.len() > MAX_SERVER_TOOLS {
            return Err(too_long(format!("more than {MAX_SERVER_TOOLS} tools")));
        }
        if bytes > MAX_LISTED_BYTES {
            return Err(too_long(format!("more than {} MiB of tool definitions", MAX_LISTED_BYTES / (1024 * 1024))));
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
    Err(too_long(format!("more than {MAX_LIST_PAGES} pages of tools")))
}

/// The length of `tool` as JSON, counted without keeping the text.
fn json_len(tool: &Tool) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // A tool that came from JSON serialises again; were it ever to fail, the count so far stands.
    let _ = serde_json::to_writer(&mut count, tool);
    count.0
}
