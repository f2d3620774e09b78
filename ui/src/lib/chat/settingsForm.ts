// The Settings dialog's form as data: provider presets, validation and what `save_settings` gets.
// What the settings may be set to comes from the shell's catalogue, passed in, never copied here.
import type { Catalogue, Provider, ProviderPreset, Settings, SettingsView } from '../types';

/**
 * The preset of `provider`. A settings file can name a provider this shell does not list (it was
 * written by a newer version); such a provider is shown by its id and assumed to need everything
 * (a key, base URL and model) so that no field the person may need is hidden.
 */
export function presetOf(catalogue: Catalogue, provider: Provider): ProviderPreset {
  return (
    catalogue.providers.find((p) => p.id === provider) ?? {
      id: provider,
      label: provider,
      base_url: '',
      model: '',
      uses_key: true,
      uses_endpoint: true,
    }
  );
}

export function isKnownProvider(catalogue: Catalogue, provider: Provider): boolean {
  return catalogue.providers.some((p) => p.id === provider);
}

export interface Choice {
  value: string;
  label: string;
  /** False for the current value when the catalogue does not list it: shown, but not choosable. */
  known: boolean;
}

/**
 * The provider options: the catalogue's, in its order, and the current provider after them when the
 * catalogue does not list it, so the select shows what the settings say instead of going blank.
 */
export function providerChoices(catalogue: Catalogue, current: Provider): Choice[] {
  const listed: Choice[] = catalogue.providers.map((p) => ({ value: p.id, label: p.label, known: true }));
  return isKnownProvider(catalogue, current) ? listed : [...listed, { value: current, label: current, known: false }];
}

/** The demo script options, the same way as `providerChoices`. */
export function scriptChoices(catalogue: Catalogue, current: string): Choice[] {
  const listed: Choice[] = catalogue.demo_scripts.map((s) => ({ value: s, label: s, known: true }));
  return catalogue.demo_scripts.includes(current) ? listed : [...listed, { value: current, label: current, known: false }];
}

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
 * Switches provider. Presets fill base URL and model; choosing the provider already chosen keeps what
 * was typed for it; a provider without an endpoint (the demo) keeps the fields as they are (it ignores
 * them), and so does one the catalogue does not list (it has no defaults to offer).
 */
export function withProvider(catalogue: Catalogue, s: Settings, provider: Provider): Settings {
  if (provider === s.provider) return s;
  const p = catalogue.providers.find((x) => x.id === provider);
  if (!p || !p.uses_endpoint) return { ...s, provider };
  return { ...s, provider, base_url: p.base_url, model: p.model };
}

/** The `apiKey` argument of save_settings: null = leave the stored key alone, "" = delete it. */
export function apiKeyArg(catalogue: Catalogue, form: Form): string | null {
  if (!presetOf(catalogue, form.settings.provider).uses_key) return form.removeKey ? '' : null;
  const typed = form.apiKey.trim();
  if (typed !== '') return typed;
  return form.removeKey ? '' : null;
}

/** A message for the first problem of the form, or null when it can be saved. */
export function validate(catalogue: Catalogue, s: Settings): string | null {
  if (!isKnownProvider(catalogue, s.provider)) return 'Choose a provider.';
  const { min, max } = catalogue.timeout_secs;
  if (!Number.isInteger(s.timeout_secs) || s.timeout_secs < min || s.timeout_secs > max) {
    return `The default timeout must be a whole number of seconds, from ${min} to ${max}.`;
  }
  if (s.provider === 'demo') {
    return catalogue.demo_scripts.includes(s.demo_script) ? null : 'Choose a demo script.';
  }
  if (!presetOf(catalogue, s.provider).uses_endpoint) return null;
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
  if (!presetOf(view.catalogue, form.settings.provider).uses_key) return { kind: 'unused' };
  if (!view.keyring.available) {
    return { kind: 'unavailable', message: view.keyring.message ?? 'The system keyring is not available, so no API key can be stored.' };
  }
  if (form.removeKey) return { kind: 'removing' };
  return view.api_key_set ? { kind: 'stored' } : { kind: 'empty' };
}

/** What happens when a timed question's wait runs out, as the Settings offer it (a timeout is never an answer). */
export type OnTimeout = 'wait' | 'keep_working' | 'stop_turn';

export function onTimeoutOf(s: Settings): OnTimeout {
  if (s.question_mode === 'legacy') return 'wait';
  return s.stop_turn_on_timeout ? 'stop_turn' : 'keep_working';
}

/** `s` with `choice`: the question schema and whether the turn stops, saved as the two fields they are. */
export function withOnTimeout(s: Settings, choice: OnTimeout): Settings {
  return {
    ...s,
    question_mode: choice === 'wait' ? 'legacy' : 'timed',
    stop_turn_on_timeout: choice === 'stop_turn',
  };
}

/**
 * The sections of the Settings page that save through `save_settings`, each its own fields. A
 * section's Save sends the saved settings with only its fields changed, so what another section has
 * typed and not saved stays out of it (and stays typed).
 */
export type FormSection = 'general' | 'model' | 'questions' | 'startup';

export const SECTION_FIELDS: Record<FormSection, (keyof Settings)[]> = {
  general: ['notifications', 'do_not_disturb', 'run_in_background'],
  model: ['provider', 'base_url', 'model', 'demo_script'],
  questions: ['question_mode', 'timeout_secs', 'stop_turn_on_timeout', 'plan_first', 'ptc'],
  startup: ['start_at_login'],
};

function pick(from: Settings, section: FormSection): Partial<Settings> {
  return Object.fromEntries(SECTION_FIELDS[section].map((f) => [f, from[f]])) as Partial<Settings>;
}

/** The saved settings with `section`'s fields as the form has them: what that section's Save sends. */
export function sectionSettings(saved: Settings, form: Form, section: FormSection): Settings {
  return toSettings({ ...form, settings: { ...saved, ...pick(form.settings, section) } });
}

/** Whether `section` differs from what is saved (for the model: a typed key or Remove counts too). */
export function sectionDirty(saved: Settings, form: Form, section: FormSection): boolean {
  const changed = SECTION_FIELDS[section].some((f) => form.settings[f] !== saved[f]);
  if (section !== 'model') return changed;
  return changed || form.apiKey.trim() !== '' || form.removeKey;
}

/** The form with `section` back to what is saved, the other sections as typed. */
export function revertSection(saved: Settings, form: Form, section: FormSection): Form {
  const settings = { ...form.settings, ...pick(saved, section) };
  return section === 'model' ? { settings, apiKey: '', removeKey: false } : { ...form, settings };
}

/** Launch options that decide the model of new sessions in this run, over the saved settings. */
const MODEL_FLAGS = ['--provider', '--script', '--base-url', '--model'];

/**
 * What the launch options override, per section, in words: "This run: <what it uses>, set by launch
 * options (<options>); saved: <what the form below holds>". Null for a section they leave alone.
 */
export function overrideNotes(view: SettingsView): { model: string | null; questions: string | null } {
  const isModel = (o: string) => MODEL_FLAGS.some((f) => o === f || o.startsWith(`${f} `));
  const model = view.overrides.filter(isModel);
  const questions = view.overrides.filter((o) => !isModel(o));
  return {
    model:
      model.length > 0
        ? `This run: ${view.active_model.label}, set by launch options (${model.join(' ')}); saved: ${savedModelText(view)}.`
        : null,
    questions:
      questions.length > 0
        ? `This run: ${questions.join(' ')}, set by launch options; saved: what is chosen below.`
        : null,
  };
}

/** The saved model in words ("Demo (scripted, no AI), script batch", "OpenAI-compatible at https://…/v1, gpt-4o"). */
export function savedModelText(view: SettingsView): string {
  const s = view.settings;
  const preset = presetOf(view.catalogue, s.provider);
  if (!preset.uses_endpoint) return s.provider === 'demo' ? `${preset.label}, script ${s.demo_script}` : preset.label;
  return `${preset.label} at ${s.base_url}, ${s.model}`;
}

/** The Settings page's sections, in the order its list shows them. */
export type SettingsSection = 'general' | 'model' | 'questions' | 'agents' | 'phone' | 'mcp' | 'remote' | 'startup';

export const SECTION_LABELS: Record<SettingsSection, string> = {
  general: 'General',
  model: 'Model',
  questions: 'Questions',
  agents: 'Agents',
  phone: 'Phone',
  mcp: 'MCP servers',
  remote: 'Remote hosts',
  startup: 'Startup',
};

export const SECTION_ORDER: SettingsSection[] = ['general', 'model', 'questions', 'agents', 'phone', 'mcp', 'remote', 'startup'];
