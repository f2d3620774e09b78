import { describe, expect, it } from 'vitest';
import { allSteps, foundText, isFinished, isOffered, stepState, withSkip, type FirstRunFacts } from './firstRun';
import { catalogue } from './fakes';
import type { AgentsView, FoundAgent, PhoneView, Settings, SettingsView } from '../types';

const settings: Settings = {
  provider: 'demo', base_url: '', model: '', demo_script: 'batch', question_mode: 'timed', timeout_secs: 120, stop_turn_on_timeout: false,
  plan_first: false, ptc: false, notifications: true, do_not_disturb: false, run_in_background: true, start_at_login: false,
};
const settingsView = (over: Partial<Settings> = {}): SettingsView => ({
  settings: { ...settings, ...over }, api_key_set: false, key_source: { kind: 'none' }, keyring: { available: true, message: null },
  warning: null, overrides: [], active_model: { provider: 'demo', label: 'Demo', is_demo: true }, catalogue: catalogue(),
});
const phone = (paired: string | null): PhoneView => ({
  api_url: 'https://api.telegram.org', delay_secs: 60, only_that_it_waits: false, pairing: null, token: { kind: 'none' },
  link: { state: 'no_token' }, error: null, paired: paired ? { id: '1', chat: '1', name: paired } : null,
} as PhoneView);
const claude: FoundAgent = { agent: 'claude-code', label: 'Claude Code', folder: '/home/me/.claude', command: null };
const codex: FoundAgent = { agent: 'codex', label: 'Codex', folder: null, command: null };
const agents = (claudeSetUp: boolean | null, codexSetUp: boolean | null): AgentsView => ({
  program: '/opt/hark/hark', program_error: null,
  agents: [
    { agent: 'claude-code', label: 'Claude Code', files: [], set_up: claudeSetUp, error: null, hook_trust: null, hook_trust_text: null, approvals: null, approvals_note: '' },
    { agent: 'codex', label: 'Codex', files: [], set_up: codexSetUp, error: null, hook_trust: null, hook_trust_text: null, approvals: null, approvals_note: '' },
  ],
});
const facts = (over: Partial<FirstRunFacts> = {}): FirstRunFacts => ({
  record: { dismissed: false, skipped: [] }, found: [claude, codex], agents: agents(false, false), phone: phone(null), settings: settingsView(), ...over,
});

describe('first run', () => {
  it('says per step what this machine has and what is done', () => {
    expect(allSteps(facts()).map((s) => [s.step, s.kind, s.text])).toEqual([
      ['claude_code', 'todo', 'Found: /home/me/.claude · not set up yet'],
      ['codex', 'not-found', 'Not found on this machine'],
      ['phone', 'todo', 'Not paired'],
      ['startup', 'todo', 'Off'],
      ['model', 'todo', 'The demo model: scripted replies, no AI'],
    ]);
    const done = facts({
      agents: agents(true, false),
      phone: phone('@ada'),
      settings: settingsView({ start_at_login: true, provider: 'ollama', base_url: 'http://localhost:11434/v1', model: 'qwen' }),
    });
    expect(allSteps(done).map((s) => s.text)).toEqual([
      'Set up',
      'Not found on this machine',
      'Paired with @ada',
      'On: Hark waits in the tray from login',
      'Uses Ollama (local) at http://localhost:11434/v1, qwen',
    ]);
    expect(isFinished(allSteps(done))).toBe(true);
    expect(isOffered(done)).toBe(false);
  });

  it('an agent found by its command names it; one set up by hand counts as set up even if not found', () => {
    expect(foundText({ ...codex, command: '/usr/bin/codex' })).toBe('Found: /usr/bin/codex');
    expect(foundText({ ...claude, command: '/usr/bin/claude' })).toBe('Found: /home/me/.claude, /usr/bin/claude');
    expect(stepState('codex', facts({ agents: agents(false, true) })).kind).toBe('done');
    // Until the agents' files are read, a found agent is neither done nor to do.
    expect(stepState('claude_code', facts({ agents: null })).kind).toBe('unknown');
  });

  it('skipped steps settle the first run; it is offered until finished or dismissed', () => {
    const all = facts({ record: { dismissed: false, skipped: ['claude_code', 'phone', 'startup', 'model'] } });
    expect(allSteps(all).map((s) => s.kind)).toEqual(['skipped', 'not-found', 'skipped', 'skipped', 'skipped']);
    expect(isOffered(all)).toBe(false);
    expect(isOffered(facts())).toBe(true);
    expect(isOffered(facts({ record: { dismissed: true, skipped: [] } }))).toBe(false);
    // A skipped step done later shows as done.
    expect(stepState('phone', facts({ record: { dismissed: false, skipped: ['phone'] }, phone: phone('@ada') })).kind).toBe('done');
  });

  it('skips keep the first run order, each once, and can be taken back', () => {
    let r = withSkip({ dismissed: false, skipped: [] }, 'model', true);
    r = withSkip(r, 'codex', true);
    r = withSkip(r, 'model', true);
    expect(r.skipped).toEqual(['codex', 'model']);
    expect(withSkip(r, 'codex', false).skipped).toEqual(['model']);
  });
});
