import { describe, expect, it } from 'vitest';
import { usesDemoModel } from './modelBanner';

const real = { provider: 'openai' as const, base_url: 'https://api.deepseek.com', model: 'deepseek-chat', script: null };
const demo = { provider: 'demo' as const, base_url: null, model: null, script: 'hello' };

describe('the demo banner', () => {
  it('follows Settings when no session is shown', () => {
    expect(usesDemoModel(null, true)).toBe(true);
    expect(usesDemoModel(null, false)).toBe(false);
  });

  it('follows the shown session’s recorded model, whatever Settings say', () => {
    expect(usesDemoModel({ client: null, model: real }, true)).toBe(false);
    expect(usesDemoModel({ client: null, model: demo }, false)).toBe(true);
  });

  it('is never over an outside agent’s session, which has no Hark model', () => {
    expect(usesDemoModel({ client: 'Claude Code', model: null }, true)).toBe(false);
  });

  it('follows Settings for a session that recorded no model', () => {
    expect(usesDemoModel({ client: null, model: null }, true)).toBe(true);
  });
});
