use std::time::Duration;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::*;

fn names() -> Vec<String> {
    vec!["echo".into(), "fail".into()]
}

/// `echo` returns its arguments; `fail` fails with `NOPE`.
fn host() -> CallHost {
    Box::new(|name, args| match name {
        "echo" => Ok(args),
        _ => Err(CallFailure { code: "NOPE".into(), message: "it failed".into() }),
    })
}

fn go(code: &str) -> Result<RunOutput, SandboxError> {
    run(code, &names(), Limits::default(), &CancellationToken::new(), host())
}

#[test]
fn a_script_awaits_tools_logs_and_returns_json() {
    let out = go(r#"
        const a = await tools.echo({ path: "a.txt" });
        console.log("got", a, 2);
        let caught = null;
        try { await tools.fail({}); } catch (e) { caught = e.code; }
        return { a, caught, n: [1, 2].map((x) => x * 2) };
    "#)
    .unwrap();
    assert_eq!(out.result, json!({ "a": { "path": "a.txt" }, "caught": "NOPE", "n": [2, 4] }));
    assert_eq!(out.logs, ["got {\"path\":\"a.txt\"} 2"]);
    assert_eq!(go("return undefined;").unwrap().result, Value::Null);
}

#[test]
fn an_uncaught_error_is_run_code_error_with_its_message() {
    let e = go("await tools.fail({});").unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_ERROR");
    assert!(e.to_string().contains("NOPE: it failed"), "{e}");
    let e = go("this is not javascript").unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_ERROR");
}

#[test]
fn the_sandbox_has_no_way_out_but_the_tools() {
    for probe in [
        "return typeof require",
        "return typeof fetch",
        "return typeof Deno",
        "return typeof process",
        "return typeof __hark_call",
        "return typeof std",
        "return typeof os",
        "return typeof XMLHttpRequest",
        "return typeof WebAssembly",
    ] {
        assert_eq!(go(probe).unwrap().result, json!("undefined"), "{probe}");
    }
    // Reaching for the host through prototypes finds only the sandbox's own global object.
    for trick in [
        "return ({}).constructor.constructor('return process')()",
        "return tools.echo.constructor('return require')()('fs')",
        "return Object.getPrototypeOf(tools).constructor.constructor('return Deno')()",
        "return await import('fs')",
    ] {
        let e = go(trick).unwrap_err();
        assert_eq!(e.code(), "RUN_CODE_ERROR", "{trick}: {e}");
    }
    // The bindings cannot be replaced behind the host's back.
    let e = go("tools.echo = () => 1;").unwrap_err();
    assert!(e.to_string().contains("read-only"), "{e}");
}

#[test]
fn memory_time_output_and_calls_are_bounded_with_their_own_codes() {
    let small = Limits { memory_bytes: 8 * 1024 * 1024, js_time: Duration::from_millis(300), ..Limits::default() };
    let run_with = |code: &str, limits: Limits| run(code, &names(), limits, &CancellationToken::new(), host());
    // Time enough that the memory limit, not the clock, stops it on a loaded machine.
    let roomy = Limits { js_time: Duration::from_secs(10), ..small };
    let e = run_with("const a = []; while (true) a.push('x'.repeat(1024));", roomy).unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_MEMORY_LIMIT", "{e}");
    let e = run_with("while (true) {}", small).unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_TIME_LIMIT", "{e}");
    // Even a script that catches the interruption cannot keep running.
    let e = run_with("for (;;) { try { while (true) {} } catch (e) {} }", small).unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_TIME_LIMIT", "{e}");
    let e = run_with("for (;;) console.log('x'.repeat(1000));", Limits::default()).unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_OUTPUT_LIMIT", "{e}");
    let e = run_with("return 'x'.repeat(100000);", Limits::default()).unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_OUTPUT_LIMIT", "{e}");
    let e = run_with("for (let i = 0; i < 200; i++) await tools.echo({});", Limits::default()).unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_CALL_LIMIT", "{e}");
}

#[test]
fn time_waiting_for_a_tool_does_not_count_against_the_script() {
    let limits = Limits { js_time: Duration::from_millis(200), ..Limits::default() };
    let slow: CallHost = Box::new(|_, args| {
        std::thread::sleep(Duration::from_millis(150));
        Ok(args)
    });
    let out = run(
        "for (let i = 0; i < 4; i++) await tools.echo({ i }); return 'done';",
        &names(),
        limits,
        &CancellationToken::new(),
        slow,
    );
    assert_eq!(out.unwrap().result, json!("done"));
}

#[test]
fn stopping_the_turn_stops_the_script() {
    let abort = CancellationToken::new();
    let stopper = abort.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        stopper.cancel();
    });
    let e = run("while (true) {}", &names(), Limits::default(), &abort, host()).unwrap_err();
    assert_eq!(e, SandboxError::Aborted);
}

fn counting() -> (CallHost, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&count);
    let host: CallHost = Box::new(move |_, args| {
        seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(args)
    });
    (host, count)
}

#[test]
fn work_started_without_await_still_runs_and_tools_return_promises() {
    let (host, count) = counting();
    let code = "[1, 2, 3].forEach(async (i) => { await tools.echo({ i }); await tools.echo({ i, again: true }); });
                return await tools.echo({ n: 1 }).then((r) => r.n + 1);";
    let out = run(code, &names(), Limits::default(), &CancellationToken::new(), host).unwrap();
    assert_eq!(out.result, json!(2));
    assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 7, "every continuation ran");
}

#[test]
fn a_stopped_turn_gets_no_more_calls_even_from_a_script_that_catches() {
    let abort = CancellationToken::new();
    let stopper = abort.clone();
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&count);
    let host: CallHost = Box::new(move |_, args| {
        if seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 2 {
            stopper.cancel();
        }
        Ok(args)
    });
    let code = "for (let i = 0; i < 50; i++) { try { await tools.echo({ i }); } catch (e) {} }";
    let e = run(code, &names(), Limits::default(), &abort, host).unwrap_err();
    assert_eq!(e, SandboxError::Aborted);
    assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 3, "no call after the stop");
}

#[test]
fn floods_large_arguments_and_unreadable_values_get_coded_errors() {
    let e = go("for (;;) console.log();").unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_OUTPUT_LIMIT", "empty lines count too: {e}");
    let caught = go("try { await tools.echo({ big: 'x'.repeat(2 * 1024 * 1024) }); } catch (e) { return e.code; }");
    assert_eq!(caught.unwrap().result, json!("RUN_CODE_CALL_TOO_LARGE"));
    let e = go("return '\\ud83d';").unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_ERROR", "{e}");
    // A script's own "out of memory" is its error, not the memory limit.
    let e = go("throw new Error('out of memory');").unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_ERROR", "{e}");
    // Replacing JSON does not change what reaches the host.
    let out = go("JSON.stringify = () => 42; return await tools.echo({ a: 1 });").unwrap();
    assert_eq!(out.result, json!({ "a": 1 }));
}
