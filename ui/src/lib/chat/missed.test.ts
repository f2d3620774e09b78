import { describe, expect, it } from 'vitest';
import { MissedEvents } from './missed';
import { deferred, transcriptEvent } from './fakes';

describe('MissedEvents', () => {
  it('collects the events that arrive while its read runs, from the moment it starts', async () => {
    const events = new MissedEvents();
    events.note(transcriptEvent(1));
    const d = deferred<string>();
    const read = events.during(() => {
      // An event delivered as the read is sent is already one it may miss.
      events.note(transcriptEvent(2));
      return d.promise;
    });
    events.note(transcriptEvent(3));
    d.resolve('view');
    const { value, missed } = await read;
    events.note(transcriptEvent(4));
    expect(value).toBe('view');
    expect(missed.map((e) => e.seq)).toEqual([2, 3]);
  });

  it('overlapping reads each get what arrived during them', async () => {
    const events = new MissedEvents();
    const first = deferred<number>();
    const second = deferred<number>();
    const a = events.during(() => first.promise);
    events.note(transcriptEvent(1));
    const b = events.during(() => second.promise);
    events.note(transcriptEvent(2));
    first.resolve(1);
    await a;
    events.note(transcriptEvent(3));
    second.resolve(2);
    expect((await a).missed.map((e) => e.seq)).toEqual([1, 2]);
    expect((await b).missed.map((e) => e.seq)).toEqual([2, 3]);
  });
});
