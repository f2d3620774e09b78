//! The JavaScript sandbox of `run_code`: one QuickJS runtime per run, on the calling thread (the
//! worker process's, see `worker`), with no I/O at all. The only ways out are `tools.<name>(args)` (each a call the host makes, recorded and
//! gated like any tool call) and `console.log`. Memory, JavaScript time, output and the number of
//! calls are bounded; each bound has its own error code.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{Context, Function, Runtime};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// What one run may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Heap of the JavaScript runtime.
    pub memory_bytes: usize,
    pub stack_bytes: usize,
    /// Time spent running JavaScript; waiting for a tool (a question can take days) does not count.
    pub js_time: Duration,
    /// `console.log` output and the returned value, each.
    pub output_bytes: usize,
    /// Tool calls one run may make.
    pub calls: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 64 * 1024 * 1024,
            stack_bytes: 512 * 1024,
            js_time: Duration::from_secs(10),
            output_bytes: 64 * 1024,
            calls: 100,
        }
    }
}

/// Why a run failed. Each reaches the model as `{name, code, message}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum SandboxError {
    /// The script threw (or did not parse); the message is the exception and its stack.
    #[error("the script failed: {0}")]
    Script(String),
    #[error("the script ran out of its {limit} bytes of memory")]
    Memory { limit: usize },
    #[error("the script ran JavaScript for more than {limit:?} (time waiting for tools does not count)")]
    Time { limit: Duration },
    #[error("the script wrote more than {limit} bytes (console.log output or the returned value)")]
    Output { limit: usize },
    #[error("the script made more than {limit} tool calls")]
    Calls { limit: usize },
    #[error("the turn was stopped while the script ran")]
    Aborted,
    #[error("the JavaScript engine could not start: {0}")]
    Engine(String),
}

impl SandboxError {
    pub fn code(&self) -> &'static str {
        match self {
            SandboxError::Script(_) => "RUN_CODE_ERROR",
            SandboxError::Memory { .. } => "RUN_CODE_MEMORY_LIMIT",
            SandboxError::Time { .. } => "RUN_CODE_TIME_LIMIT",
            SandboxError::Output { .. } => "RUN_CODE_OUTPUT_LIMIT",
            SandboxError::Calls { .. } => "RUN_CODE_CALL_LIMIT",
            SandboxError::Aborted => "ABORTED",
            SandboxError::Engine(_) => "RUN_CODE_ENGINE",
        }
    }
}

/// A tool call's failure as the script sees it: thrown as an `Error` with this `code`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallFailure {
    pub code: String,
    pub message: String,
}

/// What the host does for `tools.<name>(args)`: the result's content (JSON when it is JSON, else text).
pub type CallHost = Box<dyn FnMut(&str, Value) -> Result<Value, CallFailure> + Send>;

/// What a finished run produced.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunOutput {
    /// The script's return value as JSON (`null` for `undefined`).
    pub result: Value,
    pub logs: Vec<String>,
}

/// Bindings the script gets. `__hark_call` and `__hark_log` are taken into a closure and removed from
/// the global object. A script that digs the raw functions out anyway (stack-trace hooks) gains
/// nothing: every check (names, limits, the plan gate, recording) is on the host's side of them.
/// `JSON` is captured here so a script that replaces it cannot change what reaches the host. Each
/// tool returns a promise, as tools in JavaScript do.
const PRELUDE: &str = r#"
(function (call, log, names) {
  const parse = JSON.parse, stringify = JSON.stringify;
  const tools = {};
  for (const name of names) {
    tools[name] = async function (args) {
      const reply = parse(call(name, stringify(args === undefined ? {} : args) ?? "null"));
      if (reply.error) {
        const e = new Error(reply.error.code + ": " + reply.error.message);
        e.code = reply.error.code;
        throw e;
      }
      return reply.ok;
    };
  }
  const show = (v) => (typeof v === "string" ? v : String(stringify(v)));
  const console = { log: (...parts) => { if (!log(parts.map(show).join(" "))) throw new Error("RUN_CODE_OUTPUT_LIMIT"); } };
  globalThis.tools = Object.freeze(tools);
  globalThis.console = Object.freeze(console);
})(__hark_call, __hark_log, JSON.parse(__hark_names));
delete globalThis.__hark_call;
delete globalThis.__hark_log;
delete globalThis.__hark_names;
"#;

/// The most lines `console.log` keeps, whatever their length.
const MAX_LOG_LINES: usize = 1_000;
/// The largest arguments one call may pass, in bytes of JSON.
const MAX_CALL_ARGUMENT_BYTES: usize = 1024 * 1024;

struct State {
    started: Instant,
    /// Time spent in host calls, which the time limit leaves out.
    waiting: Duration,
    logs: Vec<String>,
    log_bytes: usize,
    over_output: bool,
    calls: usize,
    over_calls: bool,
    timed_out: bool,
}

/// Runs `code` (the body of an async function: it may `await` and `return`) with `tools.<name>` for
/// each of `names`. Blocks the calling thread until the script settles; `host` runs each call.
pub fn run(
    code: &str,
    names: &[String],
    limits: Limits,
    abort: &CancellationToken,
    host: CallHost,
) -> Result<RunOutput, SandboxError> {
    let engine = |e: rquickjs::Error| SandboxError::Engine(e.to_string());
    let runtime = Runtime::new().map_err(engine)?;
    runtime.set_memory_limit(limits.memory_bytes);
    runtime.set_max_stack_size(limits.stack_bytes);
    let state = Rc::new(RefCell::new(State {
        started: Instant::now(),
        waiting: Duration::ZERO,
        logs: Vec::new(),
        log_bytes: 0,
        over_output: false,
        calls: 0,
        over_calls: false,
        timed_out: false,
    }));
    {
        let state = Rc::clone(&state);
        let abort = abort.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            // Nothing else holds the state while JavaScript runs (host calls let it go first).
            let Ok(mut s) = state.try_borrow_mut() else { return true };
            if s.started.elapsed().saturating_sub(s.waiting) > limits.js_time {
                s.timed_out = true;
            }
            s.timed_out || abort.is_cancelled()
        })));
    }
    let context = Context::full(&runtime).map_err(engine)?;
    let names_json = serde_json::to_string(names).unwrap_or_else(|_| "[]".into());
    let host = Rc::new(RefCell::new(host));
    let outcome = context.with(|ctx| -> Result<Value, SandboxError> {
        let globals = ctx.globals();
        let call_state = Rc::clone(&state);
        let call_abort = abort.clone();
        let call = Function::new(ctx.clone(), move |name: String, args: String| -> String {
            {
                let mut s = call_state.borrow_mut();
                // The interrupt handler runs only now and then; a stopped or overdue script must not
                // get one more call in between.
                if s.timed_out || s.started.elapsed().saturating_sub(s.waiting) > limits.js_time {
                    s.timed_out = true;
                    return failure_json("RUN_CODE_TIME_LIMIT", "the script ran out of time");
                }
                if call_abort.is_cancelled() {
                    return failure_json("ABORTED", "the turn was stopped");
                }
                s.calls += 1;
                if s.calls > limits.calls {
                    s.over_calls = true;
                    return failure_json("RUN_CODE_CALL_LIMIT", &format!("more than {} tool calls", limits.calls));
                }
            }
            if args.len() > MAX_CALL_ARGUMENT_BYTES {
                let message = format!("the arguments have {} bytes, at most {MAX_CALL_ARGUMENT_BYTES}", args.len());
                return failure_json("RUN_CODE_CALL_TOO_LARGE", &message);
            }
            let Ok(args) = serde_json::from_str::<Value>(&args) else {
                let message =
                    "the arguments are not JSON the host can read (a lone surrogate half, or nested too deep)";
                return failure_json("RUN_CODE_BAD_ARGUMENTS", message);
            };
            let waited = Instant::now();
            let reply = match host.try_borrow_mut() {
                Ok(mut host) => host(&name, args),
                Err(_) => {
                    Err(CallFailure { code: "RUN_CODE_ERROR".into(), message: "a tool call is already running".into() })
                }
            };
            call_state.borrow_mut().waiting += waited.elapsed();
            match reply {
                Ok(value) => serde_json::json!({ "ok": value }).to_string(),
                Err(f) => failure_json(&f.code, &f.message),
            }
        })
        .map_err(engine)?;
        let log_state = Rc::clone(&state);
        let log = Function::new(ctx.clone(), move |line: String| -> bool {
            let mut s = log_state.borrow_mut();
            // Each line costs its newline too, so empty lines cannot pile up for free.
            if s.log_bytes + line.len() + 1 > limits.output_bytes || s.logs.len() >= MAX_LOG_LINES {
                s.over_output = true;
                return false;
            }
            s.log_bytes += line.len() + 1;
            s.logs.push(line);
            true
        })
        .map_err(engine)?;
        globals.set("__hark_call", call).map_err(engine)?;
        globals.set("__hark_log", log).map_err(engine)?;
        globals.set("__hark_names", names_json).map_err(engine)?;
        ctx.eval::<(), _>(PRELUDE).map_err(|e| script_error(&ctx, e))?;
        let wrapped = format!("(async () => {{\n{code}\n}})()");
        let promise: rquickjs::Promise = ctx.eval(wrapped).map_err(|e| script_error(&ctx, e))?;
        let stopped = || {
            let s = state.borrow();
            s.timed_out || abort.is_cancelled()
        };
        let value: rquickjs::Value = loop {
            if let Some(settled) = promise.result::<rquickjs::Value>() {
                break settled.map_err(|e| script_error(&ctx, e))?;
            }
            if stopped() || !ctx.execute_pending_job() {
                return Err(SandboxError::Script(
                    "the script awaits something that never settles (only tools.* calls can be awaited)".into(),
                ));
            }
        };
        // Work the script started and did not await (`items.forEach(async ...)`) still runs, as it
        // would in any JavaScript runtime, within the same limits.
        while !stopped() && ctx.execute_pending_job() {}
        let json = ctx.json_stringify(value).map_err(|e| script_error(&ctx, e))?;
        let text = match json {
            Some(text) => text.to_string().map_err(engine)?,
            None => "null".into(),
        };
        if text.len() > limits.output_bytes {
            state.borrow_mut().over_output = true;
            return Err(SandboxError::Output { limit: limits.output_bytes });
        }
        serde_json::from_str(&text).map_err(|_| {
            SandboxError::Script(
                "the returned value is not JSON the host can read (a lone surrogate half, or nested too deep)".into(),
            )
        })
    });
    let s = state.borrow();
    // A limit that was crossed explains the exception it caused, whatever the script made of it.
    if s.timed_out {
        return Err(SandboxError::Time { limit: limits.js_time });
    }
    if abort.is_cancelled() {
        return Err(SandboxError::Aborted);
    }
    if s.over_calls {
        return Err(SandboxError::Calls { limit: limits.calls });
    }
    if s.over_output {
        return Err(SandboxError::Output { limit: limits.output_bytes });
    }
    match outcome {
        Ok(result) => Ok(RunOutput { result, logs: s.logs.clone() }),
        // The engine's own error (an InternalError), not a script's `throw new Error("out of memory")`.
        // When the heap is so full that not even that error fits, QuickJS throws `null` instead; a
        // script's own `throw null` reads the same and is told the same (no script needs it).
        Err(SandboxError::Script(message)) if message.starts_with(ENGINE_OUT_OF_MEMORY) || message == "null" => {
            Err(SandboxError::Memory { limit: limits.memory_bytes })
        }
        Err(e) => Err(e),
    }
}

/// How [`script_error`] writes the exception QuickJS throws when the heap limit is reached.
const ENGINE_OUT_OF_MEMORY: &str = "InternalError: out of memory";

/// The pending exception of a failed engine call, as text with its stack when it has one.
fn script_error(ctx: &rquickjs::Ctx<'_>, error: rquickjs::Error) -> SandboxError {
    if !matches!(error, rquickjs::Error::Exception) {
        return SandboxError::Script(error.to_string());
    }
    let thrown = ctx.catch();
    let text = match thrown.as_exception() {
        Some(e) => {
            let name: String = e.get("name").unwrap_or_else(|_| "Error".into());
            let message = format!("{name}: {}", e.message().unwrap_or_default());
            let stack = e.stack().unwrap_or_default();
            if stack.is_empty() {
                message
            } else {
                format!("{message}\n{stack}")
            }
        }
        None => ctx
            .json_stringify(thrown)
            .ok()
            .flatten()
            .and_then(|s| s.to_string().ok())
            .unwrap_or_else(|| "a value that is not an Error".into()),
    };
    SandboxError::Script(text)
}

fn failure_json(code: &str, message: &str) -> String {
    serde_json::json!({ "error": { "code": code, "message": message } }).to_string()
}
