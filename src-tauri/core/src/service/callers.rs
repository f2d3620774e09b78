//! Which agent instance may ask the user in a session: exactly its live root instance.
//! A stale instance (the session was reopened and a new root took over) and a sub-agent owned by
//! another agent are refused, so a question never reaches a person on behalf of something that can
//! no longer use the answer.

use std::collections::HashMap;
use std::sync::Mutex;

use super::lock;
use super::provider::Caller;
use crate::question::{ErrorCode, UserInteractionError};

pub(crate) struct LiveRoots {
    roots: Mutex<HashMap<String, String>>,
}

impl LiveRoots {
    pub(crate) fn new() -> Self {
        LiveRoots { roots: Mutex::new(HashMap::new()) }
    }

    pub(crate) fn set(&self, session: &str, instance: &str) {
        lock(&self.roots).insert(session.to_string(), instance.to_string());
    }

    /// Clears the root only if `instance` still is it, so a late shutdown of an old instance cannot
    /// unseat its successor.
    pub(crate) fn clear(&self, session: &str, instance: &str) -> bool {
        let mut roots = lock(&self.roots);
        if roots.get(session).is_some_and(|live| live == instance) {
            roots.remove(session);
            true
        } else {
            false
        }
    }

    pub(crate) fn remove_session(&self, session: &str) {
        lock(&self.roots).remove(session);
    }

    pub(crate) fn check(&self, caller: &Caller) -> Result<(), UserInteractionError> {
        if let Some(parent) = &caller.parent {
            return Err(UserInteractionError::new(
                ErrorCode::DelegatedCaller,
                format!(
                    "agent {} is a sub-agent owned by {parent}; only the session's root agent may ask the user",
                    caller.agent_instance_id
                ),
            ));
        }
        let roots = lock(&self.roots);
        match roots.get(&caller.session_id) {
            Some(live) if *live == caller.agent_instance_id => Ok(()),
            Some(live) => Err(UserInteractionError::new(
                ErrorCode::CallerNotLive,
                format!(
                    "agent {} is no longer the live agent of session {} (the live one is {live})",
                    caller.agent_instance_id, caller.session_id
                ),
            )),
            None => Err(UserInteractionError::new(
                ErrorCode::CallerNotLive,
                format!(
                    "session {} has no live agent; agent {} cannot ask",
                    caller.session_id, caller.agent_instance_id
                ),
            )),
        }
    }
}
