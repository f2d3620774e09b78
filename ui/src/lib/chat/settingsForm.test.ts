import { describe, expect, it } from 'vitest';
import {
  apiKeyArg,
  formFrom,
  keyField,
  overrideNotes,
  presetOf,
  providerChoices,
  revertSection,
  savedModelText,
  scriptChoices,
  sectionDirty,
  sectionSettings,
  toSettings,
  validate,
  withProvider,
} from './settingsForm';
import { catalogue } from './fakes';
import type { Provider, Settings, SettingsView } from '../types';

const cat = catalogue();
const settings: Settings = {
  provider: 'demo',
  base_url: '',
  model: '',
  demo_script: 'batch',
  question_mode: 'timed',
  timeout_secs: 120, stop_turn_on_timeout: false, plan_first: false, ptc: false,
  notifications: true,
  do_not_disturb: false,
  run_in_background: true, start_at_login: false,
};
const view = (over: Partial<SettingsView> = {}): SettingsView => ({
  settings,
  api_key_set: false,
  key_source: { kind: 'none' },
  keyring: { available: true, message: null },
  warning: null,
  overrides: [],
  active_model: { provider: 'demo', label: 'Demo', is_demo: true },
  catalogue: cat,
  ...over,
});
// What a settings file written by a newer version could name: not a provider this window's types know.
const unknown = 'mistral' as Provider;

describe('settings form', () => {
  it('presets fill base URL and model', () => {
    expect(withProvider(cat, settings, 'deepseek')).toMatchObject({ provider: 'deepseek', base_url: 'https://api.deepseek.com', model: 'deepseek-chat' });
    expect(withProvider(cat, settings, 'ollama')).toMatchObject({ base_url: 'http://localhost:11434/v1', model: 'llama3.1' });
    const custom = { ...settings, provider: 'openai' as const, base_url: 'https://my.host/v1', model: 'm' };
    expect(withProvider(cat, custom, 'openai')).toBe(custom);
    expect(withProvider(cat, custom, 'demo')).toMatchObject({ provider: 'demo', base_url: 'https://my.host/v1' });
  });

  it('the presets are the catalogue’s: a changed default is the one filled in', () => {
    const moved = catalogue({ providers: cat.providers.map((p) => (p.id === 'ollama' ? { ...p, model: 'qwen3' } : p)) });
    expect(withProvider(moved, settings, 'ollama')).toMatchObject({ base_url: 'http://localhost:11434/v1', model: 'qwen3' });
  });

  it('the key is write-only: null keeps the stored key, "" removes it, typed text replaces it', () => {
    const form = { ...formFrom(view({ api_key_set: true })), settings: withProvider(cat, settings, 'deepseek') };
    expect(form.apiKey).toBe('');
    expect(apiKeyArg(cat, form)).toBeNull();
    expect(apiKeyArg(cat, { ...form, removeKey: true })).toBe('');
    expect(apiKeyArg(cat, { ...form, apiKey: '  sk-1 ' })).toBe('sk-1');
    expect(apiKeyArg(cat, { ...form, settings })).toBeNull(); // demo takes no key
  });

  it('the key field says stored, removing, or why the keyring cannot be used', () => {
    const ds = withProvider(cat, settings, 'deepseek');
    expect(keyField(view({ api_key_set: true }), { settings: ds, apiKey: '', removeKey: false })).toEqual({ kind: 'stored' });
    expect(keyField(view({ api_key_set: true }), { settings: ds, apiKey: '', removeKey: true })).toEqual({ kind: 'removing' });
    expect(
      keyField(view({ keyring: { available: false, message: 'No Secret Service' } }), { settings: ds, apiKey: '', removeKey: false }),
    ).toEqual({ kind: 'unavailable', message: 'No Secret Service' });
    expect(keyField(view(), { settings, apiKey: '', removeKey: false })).toEqual({ kind: 'unused' });
  });

  it('validates the timeout, the endpoint and the demo script', () => {
    expect(validate(cat, settings)).toBeNull();
    expect(validate(cat, { ...settings, timeout_secs: 0 })).toMatch(/from 1 to 604800/);
    expect(validate(cat, { ...settings, timeout_secs: 1.5 })).toMatch(/whole number/);
    expect(validate(cat, { ...settings, demo_script: 'nope' })).toMatch(/demo script/);
    expect(validate(cat, { ...withProvider(cat, settings, 'openai'), base_url: 'ftp://x' })).toMatch(/http/);
    expect(validate(cat, { ...withProvider(cat, settings, 'openai'), model: ' ' })).toMatch(/model/);
    expect(toSettings({ settings: { ...withProvider(cat, settings, 'openai'), model: ' m ' }, apiKey: '', removeKey: false }).model).toBe('m');
  });

  it('the timeout bounds are the catalogue’s: max is accepted, max + 1 refused naming both bounds', () => {
    expect(validate(cat, { ...settings, timeout_secs: 604_800 })).toBeNull();
    expect(validate(cat, { ...settings, timeout_secs: 604_801 })).toBe('The default timeout must be a whole number of seconds, from 1 to 604800.');
    const narrow = catalogue({ timeout_secs: { min: 5, max: 60 } });
    expect(validate(narrow, { ...settings, timeout_secs: 60 })).toBeNull();
    expect(validate(narrow, { ...settings, timeout_secs: 5 })).toBeNull();
    expect(validate(narrow, { ...settings, timeout_secs: 61 })).toMatch(/from 5 to 60\./);
    expect(validate(narrow, { ...settings, timeout_secs: 4 })).toMatch(/from 5 to 60\./);
  });

  it('a demo script the catalogue lists is accepted, one it does not list refused', () => {
    const more = catalogue({ demo_scripts: [...cat.demo_scripts, 'tour'] });
    expect(validate(more, { ...settings, demo_script: 'tour' })).toBeNull();
    expect(validate(cat, { ...settings, demo_script: 'tour' })).toBe('Choose a demo script.');
    expect(validate(catalogue({ demo_scripts: ['hello'] }), settings)).toBe('Choose a demo script.'); // batch is no longer shipped
  });

  it('a provider the catalogue does not know is refused, and the key and endpoint fields still work for it', () => {
    const s: Settings = { ...settings, provider: unknown, base_url: 'https://api.mistral.ai/v1', model: 'm' };
    expect(validate(cat, s)).toBe('Choose a provider.');
    // Assumed to take a key and an endpoint, so nothing the person may need is hidden.
    expect(presetOf(cat, unknown)).toMatchObject({ id: unknown, label: 'mistral', uses_key: true, uses_endpoint: true });
    expect(keyField(view({ api_key_set: true }), { settings: s, apiKey: '', removeKey: false })).toEqual({ kind: 'stored' });
    expect(apiKeyArg(cat, { settings: s, apiKey: ' sk-2 ', removeKey: false })).toBe('sk-2');
    expect(apiKeyArg(cat, { settings: s, apiKey: '', removeKey: false })).toBeNull();
    // An older shell that lists no demo: the demo is then as unknown as any other provider.
    const noDemo = catalogue({ providers: cat.providers.filter((p) => p.id !== 'demo') });
    expect(validate(noDemo, settings)).toBe('Choose a provider.');
    expect(withProvider(noDemo, { ...settings, provider: 'openai', base_url: 'https://x/v1', model: 'm' }, 'demo')).toMatchObject({
      provider: 'demo',
      base_url: 'https://x/v1',
    });
  });

  it('the options are the catalogue’s in its order; an unlisted current value is shown after them, not choosable', () => {
    expect(providerChoices(cat, 'demo')).toEqual(cat.providers.map((p) => ({ value: p.id, label: p.label, known: true })));
    expect(providerChoices(cat, unknown).at(-1)).toEqual({ value: 'mistral', label: 'mistral', known: false });
    expect(scriptChoices(cat, 'batch').map((c) => c.value)).toEqual(['batch', 'timed', 'blocking', 'untrusted', 'hello']);
    expect(scriptChoices(cat, 'gone')).toHaveLength(6);
    expect(scriptChoices(cat, 'gone').at(-1)).toEqual({ value: 'gone', label: 'gone', known: false });
  });
});

describe('settings sections', () => {
  const form = (over: Partial<Settings> = {}, key = '') => ({ settings: { ...settings, ...over }, apiKey: key, removeKey: false });

  it("a section's Save sends only its own fields over the saved settings", () => {
    const typed = form({ provider: 'ollama', base_url: ' http://localhost:11434/v1 ', model: 'qwen', do_not_disturb: true, timeout_secs: 30 });
    expect(sectionSettings(settings, typed, 'model')).toEqual({ ...settings, provider: 'ollama', base_url: 'http://localhost:11434/v1', model: 'qwen' });
    expect(sectionSettings(settings, typed, 'general')).toEqual({ ...settings, do_not_disturb: true });
    expect(sectionSettings(settings, typed, 'questions')).toEqual({ ...settings, timeout_secs: 30 });
    expect(sectionSettings(settings, typed, 'startup')).toEqual(settings);
  });

  it('says which sections have changes, and Revert puts back only that section', () => {
    const typed = form({ plan_first: true, start_at_login: true });
    expect((['general', 'model', 'questions', 'startup'] as const).filter((s) => sectionDirty(settings, typed, s))).toEqual([
      'questions',
      'startup',
    ]);
    expect(sectionDirty(settings, form({}, 'sk-1'), 'model')).toBe(true);
    expect(sectionDirty(settings, { ...form(), removeKey: true }, 'model')).toBe(true);
    const back = revertSection(settings, typed, 'questions');
    expect(back.settings).toEqual({ ...settings, start_at_login: true });
    expect(revertSection(settings, form({ model: 'x' }, 'sk-1'), 'model')).toEqual(form());
  });

  it('launch options are said as what overrides what, in the section they override', () => {
    const run = view({
      overrides: ['--provider openai', '--base-url http://127.0.0.1:9/v1', '--timed', '--timeout 30'],
      active_model: { provider: 'openai', label: 'gpt-4o at http://127.0.0.1:9/v1', is_demo: false },
    });
    expect(overrideNotes(run)).toEqual({
      model:
        'This run: gpt-4o at http://127.0.0.1:9/v1, set by launch options (--provider openai --base-url http://127.0.0.1:9/v1); saved: Demo (scripted, no AI), script batch.',
      questions: 'This run: --timed --timeout 30, set by launch options; saved: what is chosen below.',
    });
    expect(overrideNotes(view())).toEqual({ model: null, questions: null });
    expect(savedModelText(view({ settings: { ...settings, provider: 'openai', base_url: 'https://x/v1', model: 'm' } }))).toBe(
      'OpenAI-compatible at https://x/v1, m',
    );
  });
});
