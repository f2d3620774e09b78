//! What a question is for. Most are plain questions; a plan review asks the person to approve the
//! plan the agent submitted, or to say what to change; a form is an MCP server asking for typed
//! values. All travel the same path (the blocking ask, the panel, notifications); only the request's
//! shape, what the panel shows and what the asker reads back differ, and they are decided here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::approval::{approval_questions, render_tool_call, word_suggestions, ApprovalVerdict};
use super::error::{ErrorCode, UserInteractionError};
use super::form::{form_problems, FormField};
use super::results::LATE_ANSWER_MARKER;
use super::types::{answers_json, Answer, AnswerBatch, Question, QuestionOption};

/// The model-facing name of the tool that submits a plan for review.
pub const PLAN_TOOL_NAME: &str = "submit_plan";
/// The longest plan, in characters: a page or two of Markdown.
pub const MAX_PLAN_CHARS: usize = 20_000;
/// The id of a plan review's one question, echoed in its answer.
pub const PLAN_QUESTION_ID: &str = "plan";
/// The option that approves a plan. Any other answer asks for changes; typed text is the feedback.
pub const APPROVE_LABEL: &str = "Approve";

/// What a question is for. Serialized as `{"kind": "question"}`, `{"kind": "plan_review", "plan"}` or
/// `{"kind": "form", "server", "message", "fields"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Intent {
    #[default]
    Question,
    /// Approve `plan` (Markdown, model text: rendered safely, never as HTML) or request changes.
    PlanReview { plan: String },
    /// An MCP server's form: `server` asks, `message` says why (server text: shown as plain text),
    /// one field per question. It lives only while the server waits, so it ends with its turn and
    /// can be declined as well as answered.
    /// A form in URL mode carries the `url` the server wants opened (shown, opened only through the
    /// window's link dialog) and one accept-or-decline question.
    Form {
        server: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        url: Option<String>,
        fields: Vec<FormField>,
    },
    /// An outside agent asks permission for one tool call: `agent` wants to use `tool` to do
    /// `summary` (one line), shown in full as `detail` (the command; the file and its diff; the URL;
    /// other tools' fields), all plain text made from the agent's and the model's words. `always`
    /// words the rule the agent offered to keep ("always allow `Bash(npm test)` in this project");
    /// without one there is no "Always allow". It lives only while the agent waits: it never
    /// continues, and only an explicit Allow grants it (see [`ApprovalVerdict`]).
    Approval {
        agent: String,
        tool: String,
        summary: String,
        detail: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        always: Option<String>,
    },
}

impl Intent {
    /// The intent named by `kind` (as a front door or another process sends it), with its plan.
    /// An unknown kind is `BAD_INTENT`, never a plain question.
    pub fn parse(kind: &str, plan: Option<String>) -> Result<Intent, UserInteractionError> {
        match (kind, plan) {
            ("question", None) => Ok(Intent::Question),
            ("plan_review", Some(plan)) => Ok(Intent::PlanReview { plan }),
            ("plan_review", None) => Err(bad_intent("a plan review needs the plan it reviews")),
            ("question", Some(_)) => Err(bad_intent("a plain question carries no plan")),
            // A form comes from an MCP server's elicitation: one Hark's own MCP client received, or one
            // an outside agent's hook passes on through its own typed request (which builds the
            // fields from the server's schema). Never from a plain `ask`, whose asker could not
            // stand behind the fields it claims.
            (other, _) => Err(bad_intent(&format!("{other:?} is not an intent; use \"question\" or \"plan_review\""))),
        }
    }

    pub fn is_plan_review(&self) -> bool {
        matches!(self, Intent::PlanReview { .. })
    }

    /// Whether `questions` have the shape this intent asks with: any valid batch for a plain
    /// question (checked by `validate_questions`), exactly [`plan_review_questions`] and a plan of
    /// 1 to [`MAX_PLAN_CHARS`] characters for a plan review. A misfit is `BAD_INTENT`.
    pub fn check(&self, questions: &[Question]) -> Result<(), UserInteractionError> {
        match self {
            Intent::Question => Ok(()),
            Intent::PlanReview { plan } => {
                check_plan(plan).map_err(|message| bad_intent(&message))?;
                if questions != plan_review_questions().as_slice() {
                    return Err(bad_intent(
                        "a plan review asks its own question (Approve, or say what to change), no other",
                    ));
                }
                Ok(())
            }
            Intent::Approval { agent, summary, always, .. } => {
                if questions != approval_questions(agent, summary, always.as_deref()).as_slice() {
                    return Err(bad_intent(
                        "an approval asks its own question (Allow once, Always allow, Deny), no other",
                    ));
                }
                Ok(())
            }
            Intent::Form { fields, .. } => {
                let same = fields.len() == questions.len() && fields.iter().zip(questions).all(|(f, q)| f.id == q.id);
                if !same {
                    return Err(bad_intent("a form has one field per question, in the same order"));
                }
                Ok(())
            }
        }
    }

    pub fn is_form(&self) -> bool {
        matches!(self, Intent::Form { .. })
    }

    pub fn is_approval(&self) -> bool {
        matches!(self, Intent::Approval { .. })
    }

    /// An agent's permission request for `tool` with `input` (and the rules it offered to keep, as
    /// the agent sends them) as an approval and its one question.
    pub fn approval(
        agent: &str,
        tool: &str,
        input: &serde_json::Value,
        suggestions: &serde_json::Value,
    ) -> (Intent, Vec<Question>) {
        let rendered = render_tool_call(tool, input);
        let always = word_suggestions(suggestions);
        let questions = approval_questions(agent, &rendered.summary, always.as_deref());
        let intent = Intent::Approval {
            agent: agent.to_string(),
            tool: rendered.tool,
            summary: rendered.summary,
            detail: rendered.detail,
            always,
        };
        (intent, questions)
    }

    /// What `batch` decides about this approval (`None` for any other intent): the one place an
    /// answer is read as allowing.
    pub fn approval_verdict(&self, batch: &AnswerBatch) -> Option<ApprovalVerdict> {
        match self {
            Intent::Approval { always, .. } => Some(ApprovalVerdict::of(batch, always.is_some())),
            _ => None,
        }
    }

    /// What this intent refuses in a batch the general checks let through (a form's required fields,
    /// bounds and formats), as `BAD_ANSWER`, so the person can correct it.
    pub fn check_answers(&self, questions: &[Question], batch: &AnswerBatch) -> Result<(), UserInteractionError> {
        let Intent::Form { fields, .. } = self else { return Ok(()) };
        let problems = form_problems(fields, questions, batch);
        if problems.is_empty() {
            return Ok(());
        }
        Err(UserInteractionError::bad_answer(problems.join("; ")))
    }
}

fn bad_intent(message: &str) -> UserInteractionError {
    UserInteractionError::new(ErrorCode::BadIntent, message)
}

/// A plan's problem, if it has one.
pub fn check_plan(plan: &str) -> Result<(), String> {
    let chars = plan.chars().count();
    if plan.trim().is_empty() {
        return Err("the plan is empty; describe the steps you will take".into());
    }
    if chars > MAX_PLAN_CHARS {
        return Err(format!("the plan has {chars} characters, at most {MAX_PLAN_CHARS}; summarise it"));
    }
    Ok(())
}

/// The arguments of `submit_plan`.
///
/// Submit your plan for the user's review before changing anything in the workspace. The user
/// approves it or says what to change; until a plan is approved, tools that change the workspace are
/// refused with PLAN_NOT_APPROVED. Reading is always allowed. After a change request, revise the plan
/// and submit it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitPlanArguments {
    /// The plan in Markdown: the steps you will take and the files you will change.
    #[schemars(length(min = 1, max = MAX_PLAN_CHARS))]
    pub plan: String,
}

/// The one question a plan review asks: approve, or type what to change.
pub fn plan_review_questions() -> Vec<Question> {
    vec![Question {
        id: PLAN_QUESTION_ID.into(),
        question: "Approve this plan, or say what to change?".into(),
        header: Some("Plan".into()),
        options: vec![QuestionOption {
            label: APPROVE_LABEL.into(),
            description: Some("Let the agent carry it out".into()),
        }],
        multi_select: false,
    }]
}

/// What the person decided about a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanVerdict {
    Approved,
    /// With what they typed, if anything.
    ChangesRequested {
        feedback: Option<String>,
    },
}

impl PlanVerdict {
    /// The verdict an answer batch gives: approved only when "Approve" alone was chosen.
    pub fn of(batch: &AnswerBatch) -> PlanVerdict {
        match batch.get(PLAN_QUESTION_ID) {
            Some(Answer { selected, custom: None, .. }) if selected.len() == 1 && selected[0] == APPROVE_LABEL => {
                PlanVerdict::Approved
            }
            Some(Answer { custom, .. }) => {
                PlanVerdict::ChangesRequested { feedback: custom.clone().filter(|c| !c.trim().is_empty()) }
            }
            None => PlanVerdict::ChangesRequested { feedback: None },
        }
    }

    /// The batch that gives this verdict, as a surface sends it.
    pub fn batch(&self) -> AnswerBatch {
        let answer = match self {
            PlanVerdict::Approved => {
                Answer { id: PLAN_QUESTION_ID.into(), selected: vec![APPROVE_LABEL.into()], custom: None }
            }
            PlanVerdict::ChangesRequested { feedback } => {
                Answer { id: PLAN_QUESTION_ID.into(), selected: Vec::new(), custom: feedback.clone() }
            }
        };
        AnswerBatch { answers: vec![answer] }
    }

    /// The fields the model reads: `plan_review`, the feedback, and what to do next.
    fn fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let value = match self {
            PlanVerdict::Approved => json!({
                "plan_review": "approved",
                "note": "The user approved your plan. Carry it out; tools that change the workspace are allowed now.",
            }),
            PlanVerdict::ChangesRequested { feedback } => json!({
                "plan_review": "changes_requested",
                "feedback": feedback.as_deref().unwrap_or("(the user gave no details)"),
                "note": "The user did not approve the plan. Revise it as they ask and call submit_plan again; \
                         tools that change the workspace stay refused until a plan is approved.",
            }),
        };
        match value {
            serde_json::Value::Object(map) => map,
            _ => serde_json::Map::new(),
        }
    }
}

/// The tool result for an answered plan review: the verdict and the answers.
pub fn plan_review_result_text(batch: &AnswerBatch) -> String {
    let mut fields = PlanVerdict::of(batch).fields();
    fields.insert("answers".into(), answers_json(batch));
    serde_json::Value::Object(fields).to_string()
}

/// The tool result of a plan review whose wait ended undecided (Hark quit): the review stays open.
pub fn plan_pending_result(call_id: &str, waited: std::time::Duration) -> super::ending::PendingResult {
    super::results::pending_with(
        call_id,
        super::ending::PendingReason::HarkQuit,
        waited,
        format!(
            "Hark closed before the user reviewed your plan. The review stays open and the user can still \
             decide. Tools that change the workspace stay refused until a plan is approved; reading is allowed. \
             Do not submit the same plan again. The verdict will arrive as a user message with \
             \"{LATE_ANSWER_MARKER}\": true and this call_id."
        ),
    )
}

/// The verdict's fields for a late answer to a plan review (what the late-answer message adds).
pub(super) fn late_plan_fields(batch: &AnswerBatch) -> serde_json::Map<String, serde_json::Value> {
    PlanVerdict::of(batch).fields()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_intent_is_bad_intent_and_never_a_plain_question() {
        // A form or an approval comes only through its own typed request, never as a plain ask's kind.
        let kinds =
            [("approval", None), ("form", None), ("", None), ("plan_review", None), ("question", Some("x".into()))];
        for (kind, plan) in kinds {
            let e = Intent::parse(kind, plan).unwrap_err();
            assert_eq!(e.code, ErrorCode::BadIntent, "{kind}");
        }
        assert_eq!(Intent::parse("question", None).unwrap(), Intent::Question);
        let review = Intent::parse("plan_review", Some("1. do it".into())).unwrap();
        assert_eq!(review, Intent::PlanReview { plan: "1. do it".into() });
    }

    #[test]
    fn a_plan_review_asks_its_own_question_about_a_real_plan() {
        let review = Intent::PlanReview { plan: "1. write the file".into() };
        review.check(&plan_review_questions()).unwrap();
        let mut other = plan_review_questions();
        other[0].question = "Deploy now?".into();
        assert_eq!(review.check(&other).unwrap_err().code, ErrorCode::BadIntent);
        for plan in ["  ".to_string(), "x".repeat(MAX_PLAN_CHARS + 1)] {
            let e = Intent::PlanReview { plan }.check(&plan_review_questions()).unwrap_err();
            assert_eq!(e.code, ErrorCode::BadIntent);
        }
        // A plain question does not check the shape here (validate_questions does).
        Intent::Question.check(&other).unwrap();
    }

    #[test]
    fn only_approve_approves_and_typed_text_is_the_feedback() {
        assert_eq!(PlanVerdict::of(&PlanVerdict::Approved.batch()), PlanVerdict::Approved);
        let change = PlanVerdict::ChangesRequested { feedback: Some("use a table".into()) };
        assert_eq!(PlanVerdict::of(&change.batch()), change);
        let skipped = AnswerBatch { answers: vec![Answer::skip(PLAN_QUESTION_ID)] };
        assert_eq!(PlanVerdict::of(&skipped), PlanVerdict::ChangesRequested { feedback: None });
        let text: serde_json::Value = serde_json::from_str(&plan_review_result_text(&change.batch())).unwrap();
        assert_eq!(text["plan_review"], "changes_requested");
        assert_eq!(text["feedback"], "use a table");
        assert_eq!(text["answers"][0]["custom"], "use a table");
        let text: serde_json::Value =
            serde_json::from_str(&plan_review_result_text(&PlanVerdict::Approved.batch())).unwrap();
        assert_eq!(text["plan_review"], "approved");
    }
}
