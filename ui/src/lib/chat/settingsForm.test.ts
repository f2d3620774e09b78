import { describe, expect, it } from 'vitest';
import { apiKeyArg, formFrom, keyField, toSettings, validate, withProvider } from './settingsForm';
import type { Settings, SettingsView } from '../types';

const settings: Settings = {
  provider: 'demo',
  base_url: '',
  model: '',
  demo_script: 'batch',
  question_mode: 'timed',
  timeout_secs: 120,
  notifications: true,
  do_not_disturb: false,
  keep_running_in_tray: true,
};
const view = (over: Partial<SettingsView> = {}): SettingsView => ({
  settings,
  api_key_set: false,
  key_source: { kind: 'none' },
  keyring: { available: true, message: null },
  warning: null,
  overrides: [],
  active_model: { provider: 'demo', label: 'Demo', is_demo: true },
  ...over,
});

describe('settings form', () => {
  it('presets fill base URL and model', () => {
    expect(withProvider(settings, 'deepseek')).toMatchObject({ provider: 'deepseek', base_url: 'https://api.deepseek.com', model: 'deepseek-chat' });
    expect(withProvider(settings, 'ollama')).toMatchObject({ base_url: 'http://localhost:11434/v1', model: 'llama3.1' });
    const custom = { ...settings, provider: 'openai' as const, base_url: 'https://my.host/v1', model: 'm' };
    expect(withProvider(custom, 'openai')).toBe(custom);
    expect(withProvider(custom, 'demo')).toMatchObject({ provider: 'demo', base_url: 'https://my.host/v1' });
  });

  it('the key is write-only: null keeps the stored key, "" removes it, typed text replaces it', () => {
    const form = { ...formFrom(view({ api_key_set: true })), settings: withProvider(settings, 'deepseek') };
    expect(form.apiKey).toBe('');
    expect(apiKeyArg(form)).toBeNull();
    expect(apiKeyArg({ ...form, removeKey: true })).toBe('');
    expect(apiKeyArg({ ...form, apiKey: '  sk-1 ' })).toBe('sk-1');
    expect(apiKeyArg({ ...form, settings })).toBeNull(); // demo takes no key
  });

  it('the key field says stored, removing, or why the keyring cannot be used', () => {
    const ds = withProvider(settings, 'deepseek');
    expect(keyField(view({ api_key_set: true }), { settings: ds, apiKey: '', removeKey: false })).toEqual({ kind: 'stored' });
    expect(keyField(view({ api_key_set: true }), { settings: ds, apiKey: '', removeKey: true })).toEqual({ kind: 'removing' });
    expect(
      keyField(view({ keyring: { available: false, message: 'No Secret Service' } }), { settings: ds, apiKey: '', removeKey: false }),
    ).toEqual({ kind: 'unavailable', message: 'No Secret Service' });
    expect(keyField(view(), { settings, apiKey: '', removeKey: false })).toEqual({ kind: 'unused' });
  });

  it('validates the timeout, the endpoint and the demo script', () => {
    expect(validate(settings)).toBeNull();
    expect(validate({ ...settings, timeout_secs: 0 })).toMatch(/at least 1/);
    expect(validate({ ...settings, timeout_secs: 1.5 })).toMatch(/whole number/);
    expect(validate({ ...settings, demo_script: 'nope' })).toMatch(/demo script/);
    expect(validate({ ...withProvider(settings, 'openai'), base_url: 'ftp://x' })).toMatch(/http/);
    expect(validate({ ...withProvider(settings, 'openai'), model: ' ' })).toMatch(/model/);
    expect(toSettings({ settings: { ...withProvider(settings, 'openai'), model: ' m ' }, apiKey: '', removeKey: false }).model).toBe('m');
  });
});
