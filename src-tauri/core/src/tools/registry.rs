//! The tools offered in a turn, by name.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::plan::{not_approved, Gate};
use super::{PlanApproval, Prepared, ToolContext, ToolError, ToolHandler, ToolOutput};

#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn ToolHandler>>,
    /// Set in a plan-first session: tools that change the workspace run only once it says approved.
    plan: Option<Gate>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry").field("tools", &self.names()).finish()
    }
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn register(&mut self, tool: Arc<dyn ToolHandler>) -> Result<(), ToolError> {
        let name = tool.name().to_string();
        if self.tools.contains_key(&name) {
            return Err(ToolError::DuplicateTool(name));
        }
        self.tools.insert(name, tool);
        Ok(())
    }

    /// From now on, refuse tools that change the workspace with `PLAN_NOT_APPROVED` until `plan`
    /// says approved.
    pub fn require_plan(&mut self, plan: Arc<dyn PlanApproval>) {
        self.plan = Some(plan);
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn ToolHandler>> {
        self.tools.get(name)
    }

    /// Names in a stable order, for `request/header`.
    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// Definitions in the same order as [`names`](Self::names).
    pub fn definitions(&self) -> Vec<serde_json::Value> {
        self.tools.values().map(|t| t.definition()).collect()
    }

    /// Parses a call to `name` once (see [`ToolHandler::prepare`]). A call to no tool of this turn
    /// is recorded as sent and answered `UNKNOWN_TOOL`, a structured error for the model rather than
    /// a failure of the loop.
    pub fn prepare(&self, name: &str, args: serde_json::Value) -> Prepared {
        match self.tools.get(name) {
            Some(tool) => Arc::clone(tool).prepare(args),
            None => Prepared::refused(args, ToolError::UnknownTool(name.to_string())),
        }
    }

    /// Runs a prepared call to `name`. A tool that changes the workspace is refused here, when it
    /// runs, while the session's plan is not approved: an approval earlier in the same step counts.
    pub async fn run(
        &self,
        ctx: &ToolContext,
        call_id: &str,
        name: &str,
        prepared: Prepared,
    ) -> Result<ToolOutput, ToolError> {
        if prepared.gated() && self.plan.as_ref().is_some_and(|plan| !plan.plan_approved()) {
            return Err(not_approved(name));
        }
        prepared.run(ctx, call_id).await
    }

    /// Prepares and runs one call, for a caller that records nothing in between (tests, benches).
    pub async fn execute(
        &self,
        ctx: &ToolContext,
        call_id: &str,
        name: &str,
        args: serde_json::Value,
    ) -> Result<ToolOutput, ToolError> {
        let prepared = self.prepare(name, args);
        self.run(ctx, call_id, name, prepared).await
    }
}
