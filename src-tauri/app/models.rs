//! The model a live agent talks to. An agent lives as long as the app, but its API key can change
//! under it (the person adds one in Settings after an auth error and presses Retry): the key is looked
//! up again for every step, and the HTTP provider rebuilt only when it changed.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hark_core::model::{
    provider_for, ApiKey, ModelDescription, ModelError, ModelEventReceiver, ModelProvider, ModelRequest,
    DEEPSEEK_BASE_URL,
};
use hark_core::session::{ModelKind, ModelRef};
use tokio_util::sync::CancellationToken;

/// The current key's fingerprint (not the key) and the provider built with it.
type Built = (Option<u64>, Arc<dyn ModelProvider>);

pub struct KeyedProvider {
    model: ModelRef,
    base_url: String,
    description: ModelDescription,
    current: Mutex<Built>,
}

fn fingerprint(key: &Option<ApiKey>) -> Option<u64> {
    key.as_ref().map(|k| {
        let mut h = DefaultHasher::new();
        k.expose().hash(&mut h);
        h.finish()
    })
}

/// The provider for `model`: the demo as is, an HTTP model behind a key that is re-read per step.
pub fn provider(model: &ModelRef) -> Result<Arc<dyn ModelProvider>, ModelError> {
    if model.provider == ModelKind::Demo {
        return provider_for(model, None);
    }
    let base_url = model.base_url.clone().unwrap_or_else(|| DEEPSEEK_BASE_URL.to_string());
    let (key, _) = crate::secrets::key_for(&base_url);
    let built = provider_for(model, key.clone())?;
    Ok(Arc::new(KeyedProvider {
        model: model.clone(),
        base_url,
        description: built.describe(),
        current: Mutex::new((fingerprint(&key), built)),
    }))
}

impl KeyedProvider {
    async fn current(&self) -> Result<Arc<dyn ModelProvider>, ModelError> {
        let base_url = self.base_url.clone();
        // The keyring answers over D-Bus / the OS: not on an async worker.
        let key = tokio::task::spawn_blocking(move || crate::secrets::key_for(&base_url).0).await.unwrap_or(None);
        let print = fingerprint(&key);
        let mut current = hark_core::sync::lock(&self.current);
        if current.0 != print {
            *current = (print, provider_for(&self.model, key)?);
        }
        Ok(Arc::clone(&current.1))
    }
}

#[async_trait]
impl ModelProvider for KeyedProvider {
    fn describe(&self) -> ModelDescription {
        self.description.clone()
    }

    async fn stream(&self, request: ModelRequest, cancel: CancellationToken) -> Result<ModelEventReceiver, ModelError> {
        self.current().await?.stream(request, cancel).await
    }
}
