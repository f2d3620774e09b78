//! The sessions this host has open: each is read once, when it is first needed, and every append
//! the question service makes to one goes through its [`Session::record`], so what the session keeps
//! and what its followers see never lag behind the log.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::open_session::Session;
use crate::service::{LogError, SessionLog};
use crate::session::{Event, ModelRef, QuestionFold, Store, StoreError};
use crate::sync::lock;

pub(super) struct OpenSessions {
    store: Arc<Store>,
    open: Mutex<HashMap<String, Arc<Session>>>,
    /// Held while a session is being read, so it is read once even when two callers want it.
    opening: Mutex<()>,
    keep_tokens: usize,
}

impl OpenSessions {
    pub fn new(store: Arc<Store>, keep_tokens: usize) -> OpenSessions {
        OpenSessions { store, open: Mutex::new(HashMap::new()), opening: Mutex::new(()), keep_tokens }
    }

    /// The open session, opened (read and repaired) if this host has not yet. NOT_FOUND for an
    /// unknown id.
    pub fn get(&self, id: &str) -> Result<Arc<Session>, StoreError> {
        if let Some(session) = lock(&self.open).get(id) {
            return Ok(Arc::clone(session));
        }
        let _opening = lock(&self.opening);
        if let Some(session) = lock(&self.open).get(id) {
            return Ok(Arc::clone(session));
        }
        let session = Session::open(Arc::clone(&self.store), id, self.keep_tokens)?;
        lock(&self.open).insert(id.to_string(), Arc::clone(&session));
        Ok(session)
    }

    pub fn create(
        &self,
        title: &str,
        workspace: Option<&str>,
        model: Option<ModelRef>,
        started_by: Option<&str>,
    ) -> Result<Arc<Session>, StoreError> {
        let id = self.store.create_session_started_by(title, workspace, model, started_by)?;
        let session = Session::open(Arc::clone(&self.store), &id, self.keep_tokens)?;
        lock(&self.open).insert(session.id().to_string(), Arc::clone(&session));
        Ok(session)
    }
}

impl OpenSessions {
    /// Snapshots every open session, so the next start opens each from where this one left it.
    pub fn save_all(&self) {
        let open: Vec<Arc<Session>> = lock(&self.open).values().cloned().collect();
        for session in open {
            session.save();
        }
    }
}

impl SessionLog for OpenSessions {
    fn append(&self, session: &str, event: Event) -> Result<(), LogError> {
        let open = lock(&self.open).get(session).cloned();
        match open {
            Some(open) => open.record_one(event).map(|_| ()).map_err(LogError::from),
            // Not open here: the session reads it when it is opened.
            None => self.store.append(session, event).map(|_| ()).map_err(LogError::from),
        }
    }

    fn append_decided(
        &self,
        session: &str,
        decide: &mut dyn FnMut(&QuestionFold) -> Option<Event>,
    ) -> Result<bool, LogError> {
        let open = lock(&self.open).get(session).cloned();
        match open {
            Some(open) => match open.record_decided(&mut |fold| decide(fold).into_iter().collect()) {
                Ok(stored) => Ok(!stored.is_empty()),
                Err(e) => Err(e.into()),
            },
            None => SessionLog::append_decided(self.store.as_ref(), session, decide),
        }
    }

    fn with_questions(&self, session: &str, f: &mut dyn FnMut(&QuestionFold)) -> Result<(), LogError> {
        // An open session's own fold: the same events as the store's, without its writer's lock.
        let open = lock(&self.open).get(session).cloned();
        match open {
            Some(open) => {
                open.with_folds(|folds| f(folds.questions()));
                Ok(())
            }
            None => SessionLog::with_questions(self.store.as_ref(), session, f),
        }
    }
}
