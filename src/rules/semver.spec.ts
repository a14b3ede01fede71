import { describe, expect, it } from 'vitest';
import { parseVersion, versionText, versionTooOld } from './semver.js';

describe('AvalancheGo versions', () => {
  it('reads the avalanche/ or avalanchego/ part wherever it is in the text, not the Go toolchain before it', () => {
    const read = (text: string) => {
      const v = parseVersion(text);
      return v && versionText(v);
    };
    expect(read('go1.22.8 avalanche/1.13.0')).toBe('1.13.0');
    expect(read('avalanchego/1.14.0-rc.3 [database=v1.4.5, rpcchainvm=39, go=1.22.8]')).toBe('1.14.0-rc.3');
    expect(read('go=1.23.1 AvalancheGo/v1.14.2')).toBe('1.14.2');
    expect(read('avalanche/1.14.1')).toBe('1.14.1');
    expect(read('1.14.0')).toBe('1.14.0');
    expect(read('v1.13.2')).toBe('1.13.2');
    expect(read('go1.22.8')).toBeUndefined();
    expect(read('unknown')).toBeUndefined();
  });

  it('a node running 1.13.0 on Go 1.22.8 is older than 1.14.0', () => {
    expect(versionTooOld('alpha', 'go1.22.8 avalanche/1.13.0', '1.14.0')?.summary).toBe('alpha runs AvalancheGo 1.13.0, older than the required 1.14.0: upgrade it');
  });
});
