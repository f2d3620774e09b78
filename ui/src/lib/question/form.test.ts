import { describe, expect, it } from 'vitest';
import { formOf } from './form';

describe('formOf', () => {
  it('marks choices, multi-selects and yes/no as closed, text and numbers as open', () => {
    const view = formOf({
      kind: 'form',
      server: 'deploy',
      message: 'Where to?',
      fields: [
        { id: 'env', kind: { type: 'choice', values: ['a', 'b'] }, required: true },
        { id: 'regions', kind: { type: 'multi', values: ['x', 'y'] }, required: false },
        { id: 'ok', kind: { type: 'boolean' }, required: true },
        { id: 'note', kind: { type: 'text' }, required: false },
        { id: 'count', kind: { type: 'number', integer: true }, required: false },
      ],
    });
    expect(view).toEqual({ server: 'deploy', message: 'Where to?', url: null, closedIds: ['env', 'regions', 'ok'] });
  });

  it('carries the link of a form in URL mode', () => {
    const view = formOf({ kind: 'form', server: 's', message: 'Sign in', url: 'https://x.test/a', fields: [] });
    expect(view.url).toBe('https://x.test/a');
  });
});
