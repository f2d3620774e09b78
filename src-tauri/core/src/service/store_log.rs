//! The session store is the production [`SessionLog`].

use super::log::{LogError, SessionLog};
use crate::session::{Event, QuestionFold, Store, StoreError};

impl From<StoreError> for LogError {
    fn from(e: StoreError) -> Self {
        LogError { code: e.code().to_string(), message: e.to_string() }
    }
}

impl SessionLog for Store {
    fn append(&self, session: &str, event: Event) -> Result<(), LogError> {
        Store::append(self, session, event).map(|_| ()).map_err(LogError::from)
    }

    fn append_decided(
        &self,
        session: &str,
        decide: &mut dyn FnMut(&QuestionFold) -> Option<Event>,
    ) -> Result<bool, LogError> {
        match Store::append_decided(self, session, &mut |fold| decide(fold).into_iter().collect()) {
            Ok(stored) => Ok(!stored.is_empty()),
            // No such session: nothing in it is continued or queued, so `decide` refuses, and says why.
            Err(StoreError::NotFound { .. }) => {
                let _ = decide(&QuestionFold::new());
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    fn with_questions(&self, session: &str, f: &mut dyn FnMut(&QuestionFold)) -> Result<(), LogError> {
        match Store::with_questions(self, session, |fold| f(fold)) {
            Ok(()) => Ok(()),
            Err(StoreError::NotFound { .. }) => {
                f(&QuestionFold::new());
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }
}
