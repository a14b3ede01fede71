import { describe, expect, it } from 'vitest';
import { networkErrorText, networkWords } from './errors.js';

describe('network error wording', () => {
  it.each([
    ['UND_ERR_SOCKET', 'connection closed'],
    ['ECONNRESET', 'connection closed'],
    ['ECONNREFUSED', 'connection refused'],
    ['ENOTFOUND', 'DNS failed'],
    ['EAI_AGAIN', 'DNS failed'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timed out'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS failed'],
    ['CERT_HAS_EXPIRED', 'TLS failed'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'TLS failed'],
  ])('%s reads "%s"', (code, words) => {
    expect(networkWords(code)).toBe(words);
    expect(networkErrorText(code, 'x')).toBe(`network error: ${words} (${code})`);
  });

  it('a code it does not know is shown as it is; no code shows the error itself', () => {
    expect(networkErrorText('E_SOMETHING', 'x')).toBe('network error (E_SOMETHING)');
    expect(networkErrorText(undefined, 'socket hang up')).toBe('network error (socket hang up)');
  });
});
