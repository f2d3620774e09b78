//! The countdown a surface shows while it holds a timed question: one rule for every surface.
//!
//! A pure state machine; the caller passes `now` (milliseconds from any fixed origin) into every
//! call and redraws on its own tick. The window's copy (`ui/src/lib/question/countdown.ts`) is the
//! same machine in TypeScript; both run the scenario table `countdown_scenarios.json` beside this
//! file, so they cannot drift apart.
//!
//! - The host hands over the time left when the surface takes the question over; the deadline is
//!   that moment plus the time left.
//! - Focusing the still-untouched answer area (starting to type "Other") pauses, keeping the time
//!   left; leaving it resumes from there.
//! - The first edit of the answer, or "Take your time", stops the countdown for good: a person who
//!   has started answering is never cut off mid-answer.
//! - Focus before the hand-over counts once it arrives (it starts paused).
//! - An indefinite wait and a stopped countdown never run out.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Countdown {
    /// The hand-over has not come yet; remembers whether the empty answer area has focus.
    Awaiting {
        focused: bool,
    },
    /// No deadline from the host.
    Indefinite,
    Running {
        deadline: u64,
    },
    Paused {
        remaining_ms: u64,
    },
    /// Stopped for good; what was left then (`None` if there was no clock yet).
    Frozen {
        remaining_ms: Option<u64>,
    },
    Expired,
}

impl Countdown {
    /// A fresh countdown; `frozen` when a kept draft says it was already stopped.
    pub fn new(frozen: bool) -> Countdown {
        if frozen {
            Countdown::Frozen { remaining_ms: None }
        } else {
            Countdown::Awaiting { focused: false }
        }
    }

    /// A running countdown whose deadline passed is expired; every transition sees that first.
    fn settle(self, now: u64) -> Countdown {
        match self {
            Countdown::Running { deadline } if now >= deadline => Countdown::Expired,
            other => other,
        }
    }

    /// The host's hand-over arrived at `now` with `remaining_ms` left (`None`: no deadline). Only the
    /// first counts.
    pub fn start(self, remaining_ms: Option<u64>, now: u64) -> Countdown {
        let Countdown::Awaiting { focused } = self else { return self };
        match remaining_ms {
            None => Countdown::Indefinite,
            Some(ms) if focused => Countdown::Paused { remaining_ms: ms },
            Some(ms) => Countdown::Running { deadline: now.saturating_add(ms) }.settle(now),
        }
    }

    /// The untouched answer area got focus: pause, keeping the time left.
    pub fn focus_empty(self, now: u64) -> Countdown {
        match self.settle(now) {
            Countdown::Awaiting { .. } => Countdown::Awaiting { focused: true },
            Countdown::Running { deadline } => Countdown::Paused { remaining_ms: deadline - now },
            other => other,
        }
    }

    /// The answer area lost focus: resume from the kept time.
    pub fn blur(self, now: u64) -> Countdown {
        match self {
            Countdown::Awaiting { .. } => Countdown::Awaiting { focused: false },
            Countdown::Paused { remaining_ms } => {
                Countdown::Running { deadline: now.saturating_add(remaining_ms) }.settle(now)
            }
            other => other.settle(now),
        }
    }

    /// An edit of the answer, or "Take your time": the countdown stops for good.
    pub fn freeze(self, now: u64) -> Countdown {
        match self.settle(now) {
            stopped @ (Countdown::Expired | Countdown::Frozen { .. }) => stopped,
            Countdown::Running { deadline } => Countdown::Frozen { remaining_ms: Some(deadline - now) },
            Countdown::Paused { remaining_ms } => Countdown::Frozen { remaining_ms: Some(remaining_ms) },
            Countdown::Awaiting { .. } | Countdown::Indefinite => Countdown::Frozen { remaining_ms: None },
        }
    }

    /// Milliseconds left on a live clock (running or paused, 0 once run out); `None` when there is
    /// no clock to show.
    pub fn remaining(self, now: u64) -> Option<u64> {
        match self.settle(now) {
            Countdown::Running { deadline } => Some(deadline - now),
            Countdown::Paused { remaining_ms } => Some(remaining_ms),
            Countdown::Expired => Some(0),
            _ => None,
        }
    }

    /// The surface's own time ran out: it lets the question go on without an answer.
    pub fn expired(self, now: u64) -> bool {
        self.settle(now) == Countdown::Expired
    }

    pub fn is_frozen(self) -> bool {
        matches!(self, Countdown::Frozen { .. })
    }

    /// What the countdown is at `now`, as the scenario table names it.
    pub fn kind(self, now: u64) -> &'static str {
        match self.settle(now) {
            Countdown::Awaiting { .. } => "awaiting",
            Countdown::Indefinite => "indefinite",
            Countdown::Running { .. } => "running",
            Countdown::Paused { .. } => "paused",
            Countdown::Frozen { .. } => "frozen",
            Countdown::Expired => "expired",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Countdown;
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Scenario {
        name: String,
        #[serde(default)]
        frozen: bool,
        steps: Vec<Step>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Step {
        at: u64,
        op: String,
        #[serde(default)]
        remaining_ms: Option<u64>,
        expect: Option<Expect>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Expect {
        kind: String,
        remaining_ms: Option<u64>,
    }

    /// The same table the window's countdown runs (Vitest), so the two cannot disagree.
    #[test]
    fn every_scenario_of_the_shared_table_holds() {
        let scenarios: Vec<Scenario> =
            serde_json::from_str(include_str!("countdown_scenarios.json")).expect("the table parses");
        assert!(scenarios.len() >= 10, "the table is there");
        for scenario in scenarios {
            let mut countdown = Countdown::new(scenario.frozen);
            for (n, step) in scenario.steps.iter().enumerate() {
                let now = step.at;
                countdown = match step.op.as_str() {
                    "start" => countdown.start(step.remaining_ms, now),
                    "focus" => countdown.focus_empty(now),
                    "blur" => countdown.blur(now),
                    "edit" | "take_your_time" => countdown.freeze(now),
                    "check" => countdown,
                    other => panic!("{}: unknown op {other}", scenario.name),
                };
                if let Some(expect) = &step.expect {
                    let seen = (countdown.kind(now), countdown.remaining(now));
                    assert_eq!(
                        seen,
                        (expect.kind.as_str(), expect.remaining_ms),
                        "{} step {n} ({} at {now})",
                        scenario.name,
                        step.op
                    );
                    assert_eq!(countdown.expired(now), expect.kind == "expired", "{} step {n}", scenario.name);
                }
            }
        }
    }
}
