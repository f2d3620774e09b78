// The Settings dialog's form as data: provider presets, validation and what `save_settings` gets.
import type { Provider, Settings, SettingsView } from '../types';

export interface Preset {
  label: string;
  base_url: string;
  model: string;
  /** Whether the provider takes an API key. */
  usesKey: boolean;
  /** Whether base URL and model are shown (not for the demo). */
  usesEndpoint: boolean;
}

export const PRESETS: Record<Provider, Preset> = {
  deepseek: { label: 'DeepSeek', base_url: 'https://api.deepseek.com', model: 'deepseek-chat', usesKey: true, usesEndpoint: true },
  openai: { label: 'OpenAI-compatible', base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini', usesKey: true, usesEndpoint: true },
  ollama: { label: 'Ollama (local)', base_url: 'http://localhost:11434/v1', model: 'llama3.1', usesKey: false, usesEndpoint: true },
  demo: { label: 'Demo (scripted, no AI)', base_url: '', model: '', usesKey: false, usesEndpoint: false },
};

export const PROVIDERS: Provider[] = ['deepseek', 'openai', 'ollama', 'demo'];

export const DEMO_SCRIPTS = ['batch', 'timed', 'blocking', 'untrusted', 'hello'] as const;

export interface Form {
  settings: Settings;
  /** Typed into the write-only key field; never filled from the shell. */
  apiKey: string;
  /** "Remove" was pressed: the stored key is deleted on save. */
  removeKey: boolean;
}

export function formFrom(view: SettingsView): Form {
  return { settings: { ...view.settings }, apiKey: '', removeKey: false };
}

/**
 * Switches provider. Presets fill base URL and model; switching to OpenAI-compatible keeps what was
 * typed for it before only when already on it; the demo keeps the fields as they are (it ignores them).
 */
export function withProvider(s: Settings, provider: Provider): Settings {
  if (provider === s.provider) return s;
  if (provider === 'demo') return { ...s, provider };
  const p = PRESETS[provider];
  return { ...s, provider, base_url: p.base_url, model: p.model };
}

/** The `apiKey` argument of save_settings: null = leave the stored key alone, "" = delete it. */
export function apiKeyArg(form: Form): string | null {
  if (!PRESETS[form.settings.provider].usesKey) return form.removeKey ? '' : null;
  const typed = form.apiKey.trim();
  if (typed !== '') return typed;
  return form.removeKey ? '' : null;
}

/** A message for the first problem of the form, or null when it can be saved. */
export function validate(s: Settings): string | null {
  if (!Number.isInteger(s.timeout_secs) || s.timeout_secs < 1) return 'The default timeout must be a whole number of seconds, at least 1.';
  if (s.provider === 'demo') {
    return (DEMO_SCRIPTS as readonly string[]).includes(s.demo_script) ? null : 'Choose a demo script.';
  }
  if (!/^https?:\/\/\S+$/i.test(s.base_url.trim())) return 'The base URL must start with http:// or https://.';
  if (s.model.trim() === '') return 'Name the model to use.';
  return null;
}

/** The settings as they are sent: trimmed endpoint fields. */
export function toSettings(form: Form): Settings {
  const s = form.settings;
  return { ...s, base_url: s.base_url.trim(), model: s.model.trim(), timeout_secs: Math.trunc(s.timeout_secs) };
}

export type KeyField =
  | { kind: 'unused' }
  | { kind: 'unavailable'; message: string }
  | { kind: 'stored' }
  | { kind: 'removing' }
  | { kind: 'empty' };

/** Where the key in use comes from, in words ("from DEEPSEEK_API_KEY"). */
export function keySourceText(view: SettingsView): string {
  switch (view.key_source.kind) {
    case 'keyring':
      return 'the system keyring';
    case 'env':
      return `from ${view.key_source.variable}`;
    case 'none':
      return 'none';
  }
}

/** What the API key field shows. */
export function keyField(view: SettingsView, form: Form): KeyField {
  if (!PRESETS[form.settings.provider].usesKey) return { kind: 'unused' };
  if (!view.keyring.available) {
    return { kind: 'unavailable', message: view.keyring.message ?? 'The system keyring is not available, so no API key can be stored.' };
  }
  if (form.removeKey) return { kind: 'removing' };
  return view.api_key_set ? { kind: 'stored' } : { kind: 'empty' };
}
