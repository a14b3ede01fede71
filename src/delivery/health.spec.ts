import { describe, expect, it } from 'vitest';
import { ReceiverHealth } from './health.js';

// What the heartbeat, /readyz and the status page say of each receiver.

const HOUR = 3_600_000;
const options = { failingAfterMs: 600_000, deadLetterHoldMs: 24 * HOUR };

describe('receiver health', () => {
  it('every attempt failing: named from failingAfter on (not a millisecond before), with the newest error', () => {
    const h = new ReceiverHealth(options);
    h.failed('ops', 'HTTP 503', 1_000);
    h.failed('ops', 'HTTP 502', 300_000);
    expect(h.problems(['ops'], 600_999)).toEqual([]);
    expect(h.problems(['ops', 'other'], 601_000)).toEqual(['receiver ops: every attempt failed for 10m (HTTP 502)']);
  });

  it('dead letters are counted, and the receiver is failing until deadLetterHold is over', () => {
    const h = new ReceiverHealth(options);
    h.deadLettered('ops', 2, 'HTTP 410: archived', 0);
    h.deadLettered('ops', 1, 'HTTP 404', 1_000);
    expect(h.problems(['ops'], 1_000 + 24 * HOUR - 1)).toEqual(['receiver ops: 3 notifications dead-lettered, the last 23h59m ago (HTTP 404); failing until one to it is delivered, or for 1d']);
    expect(h.problems(['ops'], 1_000 + 24 * HOUR)).toEqual([]);
  });

  it('a dead letter says so before failing attempts; past its hold, the failing attempts show again', () => {
    const h = new ReceiverHealth({ failingAfterMs: 1_000, deadLetterHoldMs: 60_000 });
    h.failed('ops', 'HTTP 503', 0);
    h.deadLettered('ops', 1, 'expired', 0);
    expect(h.problems(['ops'], 2_000)).toEqual(['receiver ops: 1 notification dead-lettered, the last 2s ago (expired); failing until one to it is delivered, or for 1m']);
    expect(h.problems(['ops'], 60_000)).toEqual(['receiver ops: every attempt failed for 1m (HTTP 503)']);
  });

  it('a delivery clears both; idle clears only the failing attempts', () => {
    const h = new ReceiverHealth({ failingAfterMs: 0, deadLetterHoldMs: 60_000 });
    h.failed('a', 'HTTP 503', 0);
    h.deadLettered('a', 1, 'HTTP 410', 0);
    h.failed('b', 'HTTP 503', 0);
    h.deadLettered('b', 1, 'HTTP 410', 0);
    h.delivered('a');
    h.idle('b');
    expect(h.problems(['a', 'b'], 0)).toEqual(['receiver b: 1 notification dead-lettered, the last 0s ago (HTTP 410); failing until one to it is delivered, or for 1m']);
    h.failed('c', 'HTTP 503', 0);
    h.idle('c');
    expect(h.problems(['c'], 0)).toEqual([]);
  });

  it('dead letters read back at start and what a reload inherits still count', () => {
    const h = new ReceiverHealth(options, [{ receiver: 'ops', count: 4, at: 0, error: 'HTTP 410' }]);
    h.failed('web', 'HTTP 503', 0);
    const next = new ReceiverHealth(options);
    next.inherit(h);
    expect(next.problems(['ops', 'web'], 600_000)).toEqual([
      'receiver ops: 4 notifications dead-lettered, the last 10m ago (HTTP 410); failing until one to it is delivered, or for 1d',
      'receiver web: every attempt failed for 10m (HTTP 503)',
    ]);
  });

  it("an error is shown on one line, cut at 200 characters with …", () => {
    const h = new ReceiverHealth({ failingAfterMs: 0, deadLetterHoldMs: 0 });
    h.failed('ops', `  HTTP 500:\n\t${'x'.repeat(300)}  `, 0);
    expect(h.problems(['ops'], 0)).toEqual([`receiver ops: every attempt failed for 0s (HTTP 500: ${'x'.repeat(190)}…)`]);
    h.failed('ops', `HTTP 500: ${'y'.repeat(190)}`, 0);
    expect(h.problems(['ops'], 0)).toEqual([`receiver ops: every attempt failed for 0s (HTTP 500: ${'y'.repeat(190)})`]);
  });
});
