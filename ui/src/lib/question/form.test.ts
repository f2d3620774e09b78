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
    expect(view).toEqual({ server: 'deploy', message: 'Where to?', closedIds: ['env', 'regions', 'ok'] });
  });
});
