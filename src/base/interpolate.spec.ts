import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';
import { interpolate } from './interpolate.js';

describe('interpolate', () => {
  const env = { SET: 'value', EMPTY: '' };
  it.each([
    ['${SET}', 'value'],
    ['a-${SET}-b', 'a-value-b'],
    ['${UNSET:-fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${EMPTY}', ''],
    ['${UNSET:-}', ''],
    ['$$5 and $${SET}', '$5 and ${SET}'],
    ['no vars', 'no vars'],
  ])('%s → %s', (text, want) => {
    expect(interpolate(text, env)).toEqual({ ok: true, value: want });
  });

  it('names a missing variable', () => {
    expect(interpolate('${NOPE}', env)).toEqual({
      ok: false,
      message: 'environment variable NOPE is not set (write ${NOPE:-} to make it optional)',
    });
  });

  it('rejects an unterminated reference', () => {
    expect(interpolate('${NOPE', env).ok).toBe(false);
  });
});

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['14d', 1_209_600_000],
    ['250ms', 250],
  ])('%s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '30', 's', '1.5h', '-1s', '30 s'])('rejects %j', (text) => expect(parseDuration(text)).toBeUndefined());
});
